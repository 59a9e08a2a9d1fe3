// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-trim: attach the trimming switch (mrc_trim.bpf.o) to a netdev's
 * egress, detach it, or print what it did.  Documentation/mrc/trimming.rst.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>
#include <linux/pkt_sched.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mrc_trim.h"

#define OBJ_NAME		"mrc_trim.bpf.o"
#define PROG_NAME		"mrc_trim"
/* The tc filter's handle and priority on the clsact egress hook. */
#define TC_HANDLE		1
#define TC_PRIORITY		1
#define DEFAULT_THRESHOLD	(64 * 1024)
#define MBIT			1000000ULL

static void usage(FILE *f)
{
	fprintf(f,
"usage: mrc-trim attach DEV --rate MBIT [--threshold BYTES] [--lasthop]\n"
"                           [--count-only] [--port N] [--priority N]\n"
"                           [--obj FILE]\n"
"       mrc-trim detach DEV\n"
"       mrc-trim stats DEV\n"
"\n"
"A packet-trimming switch for MRC test fabrics, on DEV's egress (tc clsact):\n"
"a virtual queue drained at --rate; an MRC data packet of a trimmable DSCP\n"
"(%u, %u) that finds it past --threshold bytes (default %u) loses its\n"
"payload, keeps its headers through RETH, and leaves marked DSCP_TRIMMED\n"
"(%u; with --lasthop DSCP_TRIMMED_LASTHOP, %u) at --priority (default %u,\n"
"TC_PRIO_CONTROL: band 0 of a prio qdisc).  --count-only counts what it\n"
"would trim.  stats prints: packets seen, MRC data packets, those that\n"
"found the queue over the threshold, trimmed, trims refused.\n",
		MRC_TRIM_DSCP_TRIMMABLE, MRC_TRIM_DSCP_TRIMMABLE_RETX,
		DEFAULT_THRESHOLD, MRC_TRIM_DSCP_TRIMMED,
		MRC_TRIM_DSCP_TRIMMED_LASTHOP, TC_PRIO_CONTROL);
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "mrc-trim: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

/* The object beside this program, unless --obj names one. */
static int default_obj(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash || (size_t)(slash - buf) + sizeof(OBJ_NAME) + 1 > size)
		return -ENAMETOOLONG;
	strcpy(slash + 1, OBJ_NAME);
	return 0;
}

static int parse_u64(const char *s, unsigned long long max,
		     unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	if (errno || *end || !*s || *out > max)
		return -EINVAL;
	return 0;
}

static int do_attach(int ifindex, const struct mrc_trim_cfg *c,
		     const char *obj_path)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = TC_HANDLE,
		    .priority = TC_PRIORITY);
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	__u32 key = 0;
	int err;

	obj = bpf_object__open_file(obj_path, NULL);
	err = libbpf_get_error(obj);
	if (err)
		return fail(obj_path, err);
	err = bpf_object__load(obj);
	if (err) {
		bpf_object__close(obj);
		return fail("loading the program", err);
	}
	map = bpf_object__find_map_by_name(obj, "cfg");
	prog = bpf_object__find_program_by_name(obj, PROG_NAME);
	if (!map || !prog) {
		bpf_object__close(obj);
		return fail("the object has no cfg map or mrc_trim program", ENOENT);
	}
	err = bpf_map_update_elem(bpf_map__fd(map), &key, c, BPF_ANY);
	if (err) {
		bpf_object__close(obj);
		return fail("writing the configuration", errno);
	}
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST) {
		bpf_object__close(obj);
		return fail("creating the clsact qdisc", err);
	}
	opts.prog_fd = bpf_program__fd(prog);
	opts.flags = BPF_TC_F_REPLACE;
	err = bpf_tc_attach(&hook, &opts);
	/* The filter holds the program and its maps from here on. */
	bpf_object__close(obj);
	if (err)
		return fail("attaching to egress", err);
	return 0;
}

static int do_detach(int ifindex)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = TC_HANDLE,
		    .priority = TC_PRIORITY);
	int err = bpf_tc_detach(&hook, &opts);

	if (err && err != -ENOENT)
		return fail("detaching", err);
	return 0;
}

/* The fd of the attached program's map called @name. */
static int attached_map(int ifindex, const char *name)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = TC_HANDLE,
		    .priority = TC_PRIORITY);
	struct bpf_prog_info info = {};
	__u32 ids[8], len = sizeof(info), i;
	int prog_fd, err, fd = -ENOENT;

	err = bpf_tc_query(&hook, &opts);
	if (err)
		return err;
	prog_fd = bpf_prog_get_fd_by_id(opts.prog_id);
	if (prog_fd < 0)
		return -errno;
	info.nr_map_ids = sizeof(ids) / sizeof(ids[0]);
	info.map_ids = (__u64)(unsigned long)ids;
	err = bpf_obj_get_info_by_fd(prog_fd, &info, &len);
	close(prog_fd);
	if (err)
		return -errno;
	for (i = 0; i < info.nr_map_ids && fd == -ENOENT; i++) {
		struct bpf_map_info minfo = {};
		__u32 mlen = sizeof(minfo);
		int mfd = bpf_map_get_fd_by_id(ids[i]);

		if (mfd < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(mfd, &minfo, &mlen) &&
		    !strcmp(minfo.name, name))
			fd = mfd;
		else
			close(mfd);
	}
	return fd;
}

static int do_stats(int ifindex)
{
	struct mrc_trim_stats sum = {}, *per;
	int fd = attached_map(ifindex, "stats"), ncpus, i;
	__u32 key = 0;

	if (fd < 0)
		return fail("no mrc-trim program on that netdev's egress", fd);
	ncpus = libbpf_num_possible_cpus();
	if (ncpus <= 0) {
		close(fd);
		return fail("counting CPUs", ncpus);
	}
	per = calloc(ncpus, sizeof(*per));
	if (!per) {
		close(fd);
		return fail("memory", ENOMEM);
	}
	if (bpf_map_lookup_elem(fd, &key, per)) {
		free(per);
		close(fd);
		return fail("reading the statistics", errno);
	}
	for (i = 0; i < ncpus; i++) {
		sum.pkts += per[i].pkts;
		sum.mrc_data += per[i].mrc_data;
		sum.over += per[i].over;
		sum.trimmed += per[i].trimmed;
		sum.trim_failed += per[i].trim_failed;
	}
	printf("pkts %llu mrc_data %llu over %llu trimmed %llu trim_failed %llu\n",
	       (unsigned long long)sum.pkts, (unsigned long long)sum.mrc_data,
	       (unsigned long long)sum.over, (unsigned long long)sum.trimmed,
	       (unsigned long long)sum.trim_failed);
	free(per);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_RATE = 1, OPT_THRESHOLD, OPT_LASTHOP, OPT_COUNT_ONLY,
	       OPT_PORT, OPT_PRIORITY, OPT_OBJ };
	static const struct option opts[] = {
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "threshold", required_argument, NULL, OPT_THRESHOLD },
		{ "lasthop", no_argument, NULL, OPT_LASTHOP },
		{ "count-only", no_argument, NULL, OPT_COUNT_ONLY },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "priority", required_argument, NULL, OPT_PRIORITY },
		{ "obj", required_argument, NULL, OPT_OBJ },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mrc_trim_cfg c = {
		.threshold = DEFAULT_THRESHOLD,
		.port = MRC_TRIM_UDP_PORT,
		.priority = TC_PRIO_CONTROL,
		.dscp_trimmable = MRC_TRIM_DSCP_TRIMMABLE,
		.dscp_trimmable_retx = MRC_TRIM_DSCP_TRIMMABLE_RETX,
		.dscp_trimmed = MRC_TRIM_DSCP_TRIMMED,
		.enabled = 1,
	};
	char obj_path[PATH_MAX] = "";
	unsigned long long v;
	const char *cmd;
	int opt, ifindex;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_RATE:
			if (parse_u64(optarg, ULLONG_MAX / MBIT, &v) || !v)
				return fail("--rate: Mbit/s, at least 1", EINVAL);
			c.rate_bps = v * MBIT;
			break;
		case OPT_THRESHOLD:
			if (parse_u64(optarg, UINT32_MAX, &v))
				return fail("--threshold: bytes", EINVAL);
			c.threshold = v;
			break;
		case OPT_LASTHOP:
			c.dscp_trimmed = MRC_TRIM_DSCP_TRIMMED_LASTHOP;
			break;
		case OPT_COUNT_ONLY:
			c.enabled = 0;
			break;
		case OPT_PORT:
			if (parse_u64(optarg, UINT16_MAX, &v) || !v)
				return fail("--port: 1-65535", EINVAL);
			c.port = v;
			break;
		case OPT_PRIORITY:
			if (parse_u64(optarg, UINT32_MAX, &v))
				return fail("--priority", EINVAL);
			c.priority = v;
			break;
		case OPT_OBJ:
			if (strlen(optarg) >= sizeof(obj_path))
				return fail("--obj", ENAMETOOLONG);
			strcpy(obj_path, optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	ifindex = if_nametoindex(argv[optind + 1]);
	if (!ifindex)
		return fail(argv[optind + 1], errno);
	if (!strcmp(cmd, "detach"))
		return do_detach(ifindex);
	if (!strcmp(cmd, "stats"))
		return do_stats(ifindex);
	if (strcmp(cmd, "attach")) {
		usage(stderr);
		return 2;
	}
	if (!c.rate_bps)
		return fail("attach needs --rate", EINVAL);
	if (!*obj_path) {
		int err = default_obj(obj_path, sizeof(obj_path));

		if (err)
			return fail("finding " OBJ_NAME, err);
	}
	return do_attach(ifindex, &c, obj_path);
}
