// SPDX-License-Identifier: GPL-2.0
/*
 * Creates RC QPs with large rings on $MRC_DEV and moves some of them
 * through the state machine on command, for memcg_test.sh, which runs it
 * unprivileged inside a memory cgroup and reads the cgroup's counters
 * between the steps.
 *
 *   mrc_memcg_helper WR MAX_QPS BALLAST_MIB
 *
 * Every QP asks for max_send_wr = max_recv_wr = WR (one SGE, no inline
 * data) and uses one CQ.  The helper first touches BALLAST_MIB MiB of
 * anonymous memory (charged to its cgroup), prints "READY" once the
 * context, PD and CQ exist, then reads commands from stdin, one a line,
 * and answers each with one line:
 *
 *   create N   create QPs until there are N (or creation fails):
 *              "created TOTAL errno E NAME" (E 0 and NAME "-" when all N
 *              were created; else the errno of the failing ibv_create_qp
 *              and its symbolic name, e.g. ENOMEM).  The first failure
 *              also gives the ballast back, before the answer: a process
 *              whose cgroup is at its limit could not even write it (and
 *              one that the OOM killer may not kill would retry a page
 *              fault forever).
 *   fill       the same, with N = MAX_QPS
 *   rtr K      move QPs 0..K-1 RESET -> INIT -> RTR, each connected to
 *              itself over the loopback path ($MRC_IPV4): "rtr ok K"
 *   rts K      move QPs 0..K-1 RTR -> RTS: "rts ok K"
 *   reset K    move QPs 0..K-1 to RESET: "reset ok K"
 *   state K    "state S0 S1 ..." (ibv_query_qp of QPs 0..K-1)
 *   destroy K  destroy the last K QPs: "destroyed K left TOTAL"
 *   quit       (or end of input) destroy everything and exit 0
 *
 * A transition that fails answers "FAIL <what>: <strerror>" and the
 * helper goes on reading.  It exits 1 if setup or teardown fails, 2 on bad
 * usage.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mrc_common.h"

#define EXIT_USAGE	2
#define CQE		64
#define ONE_SGE		1
#define NO_INLINE	0
#define LINE_MAX_LEN	128
#define MAX_WR_ARG	(1U << 20)
#define MAX_QPS_ARG	16384
#define MAX_BALLAST_MIB	1024
#define MIB		(1024UL * 1024UL)

struct helper {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp **qps;
	unsigned int nqps;
	unsigned int max_qps;
	uint32_t wr;
	void *ballast;
	size_t ballast_bytes;
};

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Its pages go back (and are uncharged) without munmap(), which may have
 * to split a merged mapping: a new VMA the cgroup at its limit cannot pay.
 */
static void release_ballast(struct helper *h)
{
	if (!h->ballast)
		return;
	if (madvise(h->ballast, h->ballast_bytes, MADV_DONTNEED))
		reply("FAIL madvise: %s", strerror(errno));
	h->ballast = NULL;
}

static const char *errno_name(int err)
{
	switch (err) {
	case 0:
		return "-";
	case ENOMEM:
		return "ENOMEM";
	case EINVAL:
		return "EINVAL";
	case ENFILE:
		return "ENFILE";
	case EMFILE:
		return "EMFILE";
	case EAGAIN:
		return "EAGAIN";
	case ENOSPC:
		return "ENOSPC";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	default:
		return "OTHER";
	}
}

static void reply(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static struct ibv_qp *create_qp(struct helper *h)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = h->cq;
	attr.recv_cq = h->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = h->wr;
	attr.cap.max_recv_wr = h->wr;
	attr.cap.max_send_sge = ONE_SGE;
	attr.cap.max_recv_sge = ONE_SGE;
	attr.cap.max_inline_data = NO_INLINE;
	return ibv_create_qp(h->pd, &attr);
}

static void cmd_create(struct helper *h, unsigned int want)
{
	int err = 0;

	if (want > h->max_qps)
		want = h->max_qps;
	while (h->nqps < want) {
		struct ibv_qp *qp = create_qp(h);

		if (!qp) {
			err = errno;
			release_ballast(h);
			break;
		}
		h->qps[h->nqps++] = qp;
	}
	reply("created %u errno %d %s", h->nqps, err, errno_name(err));
}

static int to_rtr(struct helper *h, struct ibv_qp *qp)
{
	struct mrc_path path;
	int ret;

	ret = mrc_loopback_path(h->ctx, qp->qp_num, &path);
	if (!ret)
		ret = mrc_qp_to_init(qp);
	if (!ret)
		ret = mrc_qp_to_rtr(qp, &path);
	return ret;
}

static int to_rts(struct helper *h, struct ibv_qp *qp)
{
	struct mrc_path path;
	int ret;

	ret = mrc_loopback_path(h->ctx, qp->qp_num, &path);
	if (!ret)
		ret = mrc_qp_to_rts(qp, &path);
	return ret;
}

static int to_reset(struct helper *h, struct ibv_qp *qp)
{
	(void)h;
	return mrc_qp_to_state(qp, IBV_QPS_RESET);
}

static void cmd_each(struct helper *h, const char *name, unsigned int k,
		     int (*fn)(struct helper *, struct ibv_qp *))
{
	unsigned int i;
	int ret;

	if (k > h->nqps) {
		reply("FAIL %s %u: only %u QPs", name, k, h->nqps);
		return;
	}
	for (i = 0; i < k; i++) {
		ret = fn(h, h->qps[i]);
		if (ret) {
			reply("FAIL %s of QP %u: %s", name, i, strerror(ret));
			return;
		}
	}
	reply("%s ok %u", name, k);
}

static void cmd_state(struct helper *h, unsigned int k)
{
	unsigned int i;

	if (k > h->nqps)
		k = h->nqps;
	printf("state");
	for (i = 0; i < k; i++)
		printf(" %d", mrc_qp_state(h->qps[i]));
	reply("%s", "");
}

static int destroy_last(struct helper *h, unsigned int k)
{
	int ret;

	while (k-- && h->nqps) {
		ret = ibv_destroy_qp(h->qps[h->nqps - 1]);
		if (ret)
			return ret;
		h->nqps--;
	}
	return 0;
}

static int teardown(struct helper *h)
{
	int ret = destroy_last(h, h->nqps);

	if (ret) {
		reply("FAIL destroy_qp: %s", strerror(ret));
		return -1;
	}
	if (h->cq && ibv_destroy_cq(h->cq)) {
		reply("FAIL destroy_cq: %s", strerror(errno));
		return -1;
	}
	if (h->pd && ibv_dealloc_pd(h->pd)) {
		reply("FAIL dealloc_pd: %s", strerror(errno));
		return -1;
	}
	if (h->ctx && ibv_close_device(h->ctx)) {
		reply("FAIL close_device: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int parse_uint(const char *s, unsigned int max, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static void serve(struct helper *h)
{
	char line[LINE_MAX_LEN], cmd[LINE_MAX_LEN];
	unsigned int k;
	int ret;

	while (fgets(line, sizeof(line), stdin)) {
		int n = sscanf(line, "%127s %u", cmd, &k);

		if (n < 1)
			continue;
		if (!strcmp(cmd, "quit"))
			return;
		if (!strcmp(cmd, "fill")) {
			cmd_create(h, h->max_qps);
			continue;
		}
		if (n < 2) {
			reply("FAIL bad command: %s", cmd);
			continue;
		}
		if (!strcmp(cmd, "create")) {
			cmd_create(h, k);
		} else if (!strcmp(cmd, "rtr")) {
			cmd_each(h, "rtr", k, to_rtr);
		} else if (!strcmp(cmd, "rts")) {
			cmd_each(h, "rts", k, to_rts);
		} else if (!strcmp(cmd, "reset")) {
			cmd_each(h, "reset", k, to_reset);
		} else if (!strcmp(cmd, "state")) {
			cmd_state(h, k);
		} else if (!strcmp(cmd, "destroy")) {
			ret = destroy_last(h, k);
			if (ret)
				reply("FAIL destroy_qp: %s", strerror(ret));
			else
				reply("destroyed %u left %u", k, h->nqps);
		} else {
			reply("FAIL bad command: %s", cmd);
		}
	}
}

int main(int argc, char **argv)
{
	struct helper h = { 0 };
	unsigned int wr, ballast_mib;

	if (argc != 4 || parse_uint(argv[1], MAX_WR_ARG, &wr) ||
	    parse_uint(argv[2], MAX_QPS_ARG, &h.max_qps) ||
	    parse_uint(argv[3], MAX_BALLAST_MIB, &ballast_mib) || !wr ||
	    !h.max_qps) {
		fprintf(stderr, "usage: %s WR MAX_QPS BALLAST_MIB\n", argv[0]);
		return EXIT_USAGE;
	}
	h.wr = wr;
	if (ballast_mib) {
		h.ballast_bytes = ballast_mib * MIB;
		h.ballast = mmap(NULL, h.ballast_bytes, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
		if (h.ballast == MAP_FAILED) {
			reply("FAIL mmap: %s", strerror(errno));
			return 1;
		}
		/* Touched, in case MAP_POPULATE was not honoured. */
		memset(h.ballast, 1, h.ballast_bytes);
	}
	h.qps = calloc(h.max_qps, sizeof(*h.qps));
	if (!h.qps) {
		reply("FAIL calloc: %s", strerror(errno));
		return 1;
	}
	h.ctx = mrc_open_device();
	if (!h.ctx) {
		reply("FAIL open $%s: %s", MRC_ENV_DEV, strerror(errno));
		return 1;
	}
	h.pd = ibv_alloc_pd(h.ctx);
	if (!h.pd) {
		reply("FAIL alloc_pd: %s", strerror(errno));
		return 1;
	}
	h.cq = ibv_create_cq(h.ctx, CQE, NULL, NULL, 0);
	if (!h.cq) {
		reply("FAIL create_cq: %s", strerror(errno));
		return 1;
	}
	reply("READY");
	serve(&h);
	if (teardown(&h))
		return 1;
	release_ballast(&h);
	free(h.qps);
	reply("BYE");
	return 0;
}
