// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_target: a verbs target for crafted packets (crafted_test.sh).
 *
 *   mrc_target --peer-ip IP --peer-qpn N [--rq-psn N] [--pages N]
 *              [--canary-pages N] [--recvs N] [--timeout S]
 *
 * $MRC_DEV names the mrc device and $MRC_IPV4 the local address whose GID
 * the QP uses (-d DEV and --local-ip IP set them too).
 *
 * Maps canary pages + --pages + canary pages, fills the canaries with a
 * pattern and the middle with mr_fill(), registers the middle as the
 * target MR (remote write), creates an RC QP, brings it to RTS connected
 * to the peer's QPN and IPv4 GID (so crafted packets to it must come from
 * the peer's address), posts --recvs receives (for WRITE with Immediate),
 * then prints KEY=VALUE lines and READY:
 *
 *   DEV LOCAL_IP PEER_IP QPN PEER_QPN RQ_PSN RKEY ADDR LEN CANARY_LEN
 *   PAGE_SIZE RECVS GID_INDEX PID
 *
 * and serves one command per line on stdin, each answered by one line
 * that starts with the command's name in capitals and its TAG:
 *
 *   check TAG         CHECK TAG canaries=ok|bad[ first_bad=OFF] hash=CRC32
 *                     (CRC-32 of the MR bytes, zlib's; OFF relative to
 *                     the MR start, negative before it)
 *   read TAG OFF LEN  READ TAG HEX (OFF may reach into the canaries)
 *   poke TAG OFF VAL  POKE TAG old=XX new=YY: store byte VAL at OFF (may be
 *                     in a canary), so that a test can check its checks
 *   state TAG         STATE TAG RESET|INIT|RTR|RTS|SQD|SQE|ERR (query_qp)
 *   cqes TAG          CQES TAG n=N [cqeI=STATUS,OPCODE,len=L,imm=X...]
 *                     (what the CQ holds now, without waiting)
 *   events TAG        EVENTS TAG n=N [evI=NAME...] (async events so far)
 *   quit              BYE canaries=ok|bad hash=CRC32, then exit
 *
 * End of input is quit.  Exit status 0 after quit with the canaries
 * intact and every object destroyed, else 1; --timeout (default 900 s)
 * bounds the whole run.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mrc_common.h"

#define DEFAULT_PAGES		4
#define DEFAULT_CANARY_PAGES	1
#define DEFAULT_RECVS		8
#define DEFAULT_TIMEOUT_S	900
#define MAX_PAGES		256
#define MAX_RECVS		256
#define ALARM_SLACK_S		10
#define CQ_SLACK		16
#define LINE_MAX_LEN		256
#define MAX_READ_LEN		4096
#define MAX_CQES_PER_CMD	64
#define MS_PER_S		1000
#define CRC32_POLY		0xedb88320u
#define PSN_MASK		0xffffffu
#define QPN_MASK		0xffffffu

struct opts {
	const char *peer_ip;
	uint32_t peer_qpn;
	bool have_peer_qpn;
	uint32_t rq_psn;
	unsigned int pages;
	unsigned int canary_pages;
	unsigned int recvs;
	unsigned int timeout_s;
};

struct target {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *base;		/* the whole mapping */
	size_t map_len;
	uint8_t *start;		/* the MR */
	size_t len;
	size_t canary_len;	/* bytes of canary on each side */
	unsigned int nevents;
	char events[LINE_MAX_LEN * 4];
};

static void on_alarm(int sig)
{
	static const char msg[] = "TIMEOUT mrc_target\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void die(const char *what, int err)
{
	printf("ERROR %s: %s\n", what, strerror(err));
	fflush(stdout);
	exit(1);
}

/* The MR's initial content; crafted_pkt.py's mr_fill() is the same. */
static uint8_t mr_fill(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) * 13 + 0x3c);
}

/* The canary byte i of the side before (0) or after (1) the MR. */
static uint8_t canary_byte(int side, size_t i)
{
	return (uint8_t)((side ? 0x5a : 0xa5) ^ (i * 3) ^ (i >> 8));
}

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	size_t i;
	int b;

	for (i = 0; i < n; i++) {
		crc ^= p[i];
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (CRC32_POLY & (0u - (crc & 1)));
	}
	return ~crc;
}

/* 0 if both canaries hold their pattern, else 1 and the first bad offset. */
static int check_canaries(const struct target *t, long long *first_bad)
{
	const uint8_t *before = t->start - t->canary_len;
	const uint8_t *after = t->start + t->len;
	size_t i;

	for (i = 0; i < t->canary_len; i++) {
		if (before[i] != canary_byte(0, i)) {
			*first_bad = (long long)i - (long long)t->canary_len;
			return 1;
		}
	}
	for (i = 0; i < t->canary_len; i++) {
		if (after[i] != canary_byte(1, i)) {
			*first_bad = (long long)(t->len + i);
			return 1;
		}
	}
	return 0;
}

static void print_check(const struct target *t, const char *word,
			const char *tag)
{
	long long bad = 0;
	int ret = check_canaries(t, &bad);

	printf("%s%s%s canaries=%s", word, tag ? " " : "", tag ? tag : "",
	       ret ? "bad" : "ok");
	if (ret)
		printf(" first_bad=%lld", bad);
	printf(" hash=%08" PRIx32 "\n", crc32_of(t->start, t->len));
}

static const char *state_name(int state)
{
	switch (state) {
	case IBV_QPS_RESET: return "RESET";
	case IBV_QPS_INIT: return "INIT";
	case IBV_QPS_RTR: return "RTR";
	case IBV_QPS_RTS: return "RTS";
	case IBV_QPS_SQD: return "SQD";
	case IBV_QPS_SQE: return "SQE";
	case IBV_QPS_ERR: return "ERR";
	default: return "UNKNOWN";
	}
}

static const char *wc_status_name(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "SUCCESS";
	case IBV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case IBV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case IBV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	default: return "OTHER_ERR";
	}
}

static const char *wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_SEND: return "SEND";
	default: return "OTHER";
	}
}

static const char *event_name(enum ibv_event_type e)
{
	switch (e) {
	case IBV_EVENT_QP_FATAL: return "QP_FATAL";
	case IBV_EVENT_QP_REQ_ERR: return "QP_REQ_ERR";
	case IBV_EVENT_QP_ACCESS_ERR: return "QP_ACCESS_ERR";
	case IBV_EVENT_COMM_EST: return "COMM_EST";
	case IBV_EVENT_SQ_DRAINED: return "SQ_DRAINED";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "LAST_WQE_REACHED";
	case IBV_EVENT_CQ_ERR: return "CQ_ERR";
	case IBV_EVENT_DEVICE_FATAL: return "DEVICE_FATAL";
	case IBV_EVENT_PORT_ACTIVE: return "PORT_ACTIVE";
	case IBV_EVENT_PORT_ERR: return "PORT_ERR";
	case IBV_EVENT_GID_CHANGE: return "GID_CHANGE";
	default: return "OTHER";
	}
}

/* Collect the async events that are there, without waiting. */
static void drain_events(struct target *t)
{
	struct ibv_async_event ev;
	size_t used;

	while (!ibv_get_async_event(t->ctx, &ev)) {
		used = strlen(t->events);
		snprintf(t->events + used, sizeof(t->events) - used,
			 " ev%u=%s", t->nevents, event_name(ev.event_type));
		t->nevents++;
		ibv_ack_async_event(&ev);
	}
}

static void cmd_cqes(struct target *t, const char *tag)
{
	struct ibv_wc wc[MAX_CQES_PER_CMD];
	int n, i;

	n = ibv_poll_cq(t->cq, MAX_CQES_PER_CMD, wc);
	if (n < 0) {
		printf("CQES %s error=poll_cq\n", tag);
		return;
	}
	printf("CQES %s n=%d", tag, n);
	for (i = 0; i < n; i++) {
		printf(" cqe%d=%s,%s,len=%" PRIu32 ",imm=0x%08" PRIx32
		       ",qpn=0x%" PRIx32, i, wc_status_name(wc[i].status),
		       wc[i].status == IBV_WC_SUCCESS ?
		       wc_opcode_name(wc[i].opcode) : "-",
		       wc[i].byte_len, (wc[i].wc_flags & IBV_WC_WITH_IMM) ?
		       ntohl(wc[i].imm_data) : 0u, wc[i].qp_num);
	}
	printf("\n");
}

static void cmd_read(struct target *t, const char *tag, const char *args)
{
	long long off, len, i;

	if (sscanf(args, "%lld %lld", &off, &len) != 2 || len < 0 ||
	    len > MAX_READ_LEN || off < -(long long)t->canary_len ||
	    off + len > (long long)(t->len + t->canary_len)) {
		printf("READ %s error=bad_range\n", tag);
		return;
	}
	printf("READ %s ", tag);
	for (i = 0; i < len; i++)
		printf("%02x", t->start[off + i]);
	printf("\n");
}

static void cmd_poke(struct target *t, const char *tag, const char *args)
{
	long long off;
	int val;
	uint8_t old;

	if (sscanf(args, "%lld %i", &off, &val) != 2 || val < 0 || val > 0xff ||
	    off < -(long long)t->canary_len ||
	    off >= (long long)(t->len + t->canary_len)) {
		printf("POKE %s error=bad_args\n", tag);
		return;
	}
	old = t->start[off];
	t->start[off] = (uint8_t)val;
	printf("POKE %s old=%02x new=%02x\n", tag, old, val);
}

/* One command line; false on quit. */
static bool do_command(struct target *t, char *line)
{
	char cmd[LINE_MAX_LEN] = "", tag[LINE_MAX_LEN] = "-";
	int consumed = 0;

	if (sscanf(line, "%255s %255s %n", cmd, tag, &consumed) < 1)
		return true;
	if (!strcmp(cmd, "quit"))
		return false;
	drain_events(t);
	if (!strcmp(cmd, "check")) {
		print_check(t, "CHECK", tag);
	} else if (!strcmp(cmd, "state")) {
		printf("STATE %s %s\n", tag, state_name(mrc_qp_state(t->qp)));
	} else if (!strcmp(cmd, "cqes")) {
		cmd_cqes(t, tag);
	} else if (!strcmp(cmd, "events")) {
		printf("EVENTS %s n=%u%s\n", tag, t->nevents, t->events);
	} else if (!strcmp(cmd, "read")) {
		cmd_read(t, tag, consumed ? line + consumed : "");
	} else if (!strcmp(cmd, "poke")) {
		cmd_poke(t, tag, consumed ? line + consumed : "");
	} else {
		printf("UNKNOWN %s %s\n", cmd, tag);
	}
	fflush(stdout);
	return true;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MS_PER_S + ts.tv_nsec / (1000000L);
}

/* Serve stdin until quit, end of input or the deadline; 0 on quit/EOF. */
static int serve(struct target *t, long deadline)
{
	char buf[LINE_MAX_LEN * 4];
	size_t used = 0;

	for (;;) {
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		long left = deadline - now_ms();
		char *nl;
		ssize_t n;
		int ret;

		while ((nl = memchr(buf, '\n', used))) {
			*nl = '\0';
			if (!do_command(t, buf))
				return 0;
			used -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, used);
		}
		if (used == sizeof(buf))
			used = 0;	/* an overlong line: dropped */
		if (left <= 0) {
			printf("TIMEOUT mrc_target\n");
			return 1;
		}
		ret = poll(&pfd, 1, (int)(left > INT32_MAX ? INT32_MAX : left));
		if (ret < 0 && errno != EINTR)
			die("poll", errno);
		if (ret <= 0)
			continue;
		n = read(STDIN_FILENO, buf + used, sizeof(buf) - used);
		if (n < 0 && errno != EINTR)
			die("read stdin", errno);
		if (n == 0)
			return 0;	/* end of input: quit */
		if (n > 0)
			used += (size_t)n;
	}
}

static void setup_memory(struct target *t, const struct opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t i;

	t->canary_len = o->canary_pages * page;
	t->len = o->pages * page;
	t->map_len = t->len + 2 * t->canary_len;
	t->base = mmap(NULL, t->map_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t->base == MAP_FAILED)
		die("mmap", errno);
	t->start = t->base + t->canary_len;
	for (i = 0; i < t->canary_len; i++) {
		t->base[i] = canary_byte(0, i);
		t->start[t->len + i] = canary_byte(1, i);
	}
	for (i = 0; i < t->len; i++)
		t->start[i] = mr_fill(i);
}

static void setup_verbs(struct target *t, const struct opts *o,
			int *gid_index)
{
	struct ibv_recv_wr wr, *bad;
	struct mrc_path path;
	union ibv_gid sgid;
	struct ibv_qp_attr attr;
	int mask, ret, flags;
	unsigned int i;

	t->ctx = mrc_open_device();
	if (!t->ctx)
		die("open device $MRC_DEV", errno);
	flags = fcntl(t->ctx->async_fd, F_GETFL);
	if (flags < 0 ||
	    fcntl(t->ctx->async_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		die("async fd non-blocking", errno);
	t->pd = ibv_alloc_pd(t->ctx);
	if (!t->pd)
		die("alloc_pd", errno);
	t->cq = ibv_create_cq(t->ctx, (int)(2 * o->recvs + CQ_SLACK), NULL,
			      NULL, 0);
	if (!t->cq)
		die("create_cq", errno);
	t->mr = ibv_reg_mr(t->pd, t->start, t->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!t->mr)
		die("reg_mr", errno);
	t->qp = mrc_create_rc_qp(t->pd, t->cq, o->recvs, 1, 0);
	if (!t->qp)
		die("create_qp", errno);

	memset(&path, 0, sizeof(path));
	ret = mrc_find_gid(t->ctx, true, &sgid, &path.sgid_index);
	if (ret)
		die("no IPv4 RoCE v2 GID of $MRC_IPV4", ret);
	*gid_index = path.sgid_index;
	ret = mrc_gid_from_ipv4(o->peer_ip, &path.dgid);
	if (ret)
		die("--peer-ip", ret);
	path.dest_qpn = o->peer_qpn;
	path.rd_atomic = MRC_RD_ATOMIC;

	ret = mrc_qp_to_init(t->qp);
	if (ret)
		die("modify_qp to INIT", ret);
	mrc_rtr_attr(&attr, &mask, &path);
	attr.rq_psn = o->rq_psn;
	ret = ibv_modify_qp(t->qp, &attr, mask);
	if (ret)
		die("modify_qp to RTR", ret);
	ret = mrc_qp_to_rts(t->qp, &path);
	if (ret)
		die("modify_qp to RTS", ret);

	for (i = 0; i < o->recvs; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.num_sge = 0;	/* WriteIMM only consumes the WQE */
		ret = ibv_post_recv(t->qp, &wr, &bad);
		if (ret)
			die("post_recv", ret);
	}
}

/* 0 if the verb succeeded, else 1 with an ERROR line. */
static int verb_ok(int ret, const char *what)
{
	if (!ret)
		return 0;
	printf("ERROR %s: %s\n", what, strerror(ret));
	return 1;
}

static int teardown(struct target *t)
{
	int bad = 0;

	bad |= verb_ok(ibv_destroy_qp(t->qp), "destroy_qp");
	bad |= verb_ok(ibv_dereg_mr(t->mr), "dereg_mr");
	bad |= verb_ok(ibv_destroy_cq(t->cq), "destroy_cq");
	bad |= verb_ok(ibv_dealloc_pd(t->pd), "dealloc_pd");
	bad |= verb_ok(ibv_close_device(t->ctx) ? errno : 0, "close_device");
	return bad;
}

static unsigned long parse_ul(const char *s, const char *what,
			      unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "mrc_target: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: mrc_target --peer-ip IP --peer-qpn N [--rq-psn N] "
		"[--pages N]\n"
		"                  [--canary-pages N] [--recvs N] "
		"[--timeout S] [-d DEV] [--local-ip IP]\n");
	exit(2);
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "peer-ip", required_argument, NULL, 'P' },
		{ "peer-qpn", required_argument, NULL, 'Q' },
		{ "rq-psn", required_argument, NULL, 'r' },
		{ "pages", required_argument, NULL, 'n' },
		{ "canary-pages", required_argument, NULL, 'c' },
		{ "recvs", required_argument, NULL, 'R' },
		{ "timeout", required_argument, NULL, 't' },
		{ "local-ip", required_argument, NULL, 'L' },
		{ "dev", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	*o = (struct opts){
		.rq_psn = MRC_RQ_PSN,
		.pages = DEFAULT_PAGES,
		.canary_pages = DEFAULT_CANARY_PAGES,
		.recvs = DEFAULT_RECVS,
		.timeout_s = DEFAULT_TIMEOUT_S,
	};
	while ((c = getopt_long(argc, argv, "d:", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': o->peer_ip = optarg; break;
		case 'Q':
			o->peer_qpn = (uint32_t)parse_ul(optarg, "--peer-qpn",
							 QPN_MASK);
			o->have_peer_qpn = true;
			break;
		case 'r':
			o->rq_psn = (uint32_t)parse_ul(optarg, "--rq-psn",
						       PSN_MASK);
			break;
		case 'n':
			o->pages = (unsigned int)parse_ul(optarg, "--pages",
							  MAX_PAGES);
			break;
		case 'c':
			o->canary_pages = (unsigned int)parse_ul(optarg,
					"--canary-pages", MAX_PAGES);
			break;
		case 'R':
			o->recvs = (unsigned int)parse_ul(optarg, "--recvs",
							  MAX_RECVS);
			break;
		case 't':
			o->timeout_s = (unsigned int)parse_ul(optarg,
					"--timeout", 24 * 3600);
			break;
		case 'L': setenv(MRC_ENV_IPV4, optarg, 1); break;
		case 'd': setenv(MRC_ENV_DEV, optarg, 1); break;
		default: usage();
		}
	}
	if (optind != argc || !o->peer_ip || !o->have_peer_qpn ||
	    !o->pages || !o->canary_pages || !o->recvs || !o->timeout_s)
		usage();
}

int main(int argc, char **argv)
{
	struct target t = { .events = "" };
	long long first_bad = 0;
	struct opts o;
	int gid_index = -1, rc;

	parse_opts(argc, argv, &o);
	signal(SIGALRM, on_alarm);
	alarm(o.timeout_s + ALARM_SLACK_S);
	signal(SIGPIPE, SIG_IGN);

	setup_memory(&t, &o);
	setup_verbs(&t, &o, &gid_index);

	printf("DEV=%s\n", mrc_env_or(MRC_ENV_DEV, "?"));
	printf("LOCAL_IP=%s\n", mrc_env_or(MRC_ENV_IPV4, "?"));
	printf("PEER_IP=%s\n", o.peer_ip);
	printf("QPN=0x%06" PRIx32 "\n", t.qp->qp_num);
	printf("PEER_QPN=0x%06" PRIx32 "\n", o.peer_qpn);
	printf("RQ_PSN=0x%06" PRIx32 "\n", o.rq_psn);
	printf("RKEY=0x%08" PRIx32 "\n", t.mr->rkey);
	printf("ADDR=0x%016" PRIxPTR "\n", (uintptr_t)t.start);
	printf("LEN=%zu\n", t.len);
	printf("CANARY_LEN=%zu\n", t.canary_len);
	printf("PAGE_SIZE=%ld\n", sysconf(_SC_PAGESIZE));
	printf("RECVS=%u\n", o.recvs);
	printf("GID_INDEX=%d\n", gid_index);
	printf("PID=%ld\n", (long)getpid());
	printf("READY\n");
	fflush(stdout);

	rc = serve(&t, now_ms() + (long)o.timeout_s * MS_PER_S);
	print_check(&t, "BYE", NULL);
	if (check_canaries(&t, &first_bad))
		rc = 1;
	if (teardown(&t))
		rc = 1;
	if (munmap(t.base, t.map_len))
		rc = 1;
	fflush(stdout);
	return rc;
}
