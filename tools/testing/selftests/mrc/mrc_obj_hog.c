// SPDX-License-Identifier: GPL-2.0
/*
 * Holds many verbs objects of $MRC_DEV, for teardown_test.sh, which times
 * how long the kernel takes to release them when the process exits.
 *
 *   mrc_obj_hog NMR NQP
 *
 * Registers NMR + NMR/10 MRs of one page (the same page each time) and
 * creates NQP + NQP/10 RC QPs on one CQ, each moved to RTS connected to
 * itself; then deregisters the extra tenth of the MRs and destroys the
 * extra tenth of the QPs one by one, timing each call; and measures one
 * RCU grace period the way the kernel waits for one, with
 * membarrier(MEMBARRIER_CMD_GLOBAL), which is synchronize_rcu().  It
 * prints
 *
 *   registered N MRs in MS ms
 *   created N QPs in MS ms
 *   grace period MEAN_US us (membarrier GLOBAL, mean of K)   (or "unknown")
 *   dereg N MRs: mean MEAN_US us, min MIN_US us, max MAX_US us
 *   destroy N QPs: mean MEAN_US us, min MIN_US us, max MAX_US us
 *   READY mrs NMR qps NQP
 *
 * and then waits for a line "exit" on stdin (or its end, or a signal) and
 * exits at once, without destroying anything: the kernel tears the rest
 * down.  It exits 1 (after a "FAIL ..." line) if a step fails, 2 on bad
 * usage.
 */
#include <errno.h>
#include <linux/membarrier.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mrc_common.h"

#define EXIT_USAGE	2
#define CQE		16
#define QP_WR		4
#define ONE_SGE		1
#define NO_INLINE	0
#define PAGE_BYTES	4096
#define EXTRA_DIV	10	/* the timed sample: a tenth more */
#define GP_SAMPLES	20
#define LINE_LEN	64
#define MAX_ARG		(1U << 20)
#define NSEC_PER_USEC	1000L
#define USEC_PER_SEC	1000000L
#define USEC_PER_MSEC	1000L

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * USEC_PER_SEC + ts.tv_nsec / NSEC_PER_USEC;
}

static int fail(const char *what, int err)
{
	printf("FAIL %s: %s\n", what, strerror(err));
	fflush(stdout);
	return 1;
}

/* The times of one kind of call, in us. */
struct call_times {
	long sum, min, max;
	unsigned int n;
};

static void call_time(struct call_times *ct, long d)
{
	if (!ct->n || d < ct->min)
		ct->min = d;
	if (d > ct->max)
		ct->max = d;
	ct->sum += d;
	ct->n++;
}

static void call_times_print(const char *call, const char *objects,
			     const struct call_times *ct)
{
	if (ct->n)
		printf("%s %u %s: mean %ld us, min %ld us, max %ld us\n", call,
		       ct->n, objects, ct->sum / ct->n, ct->min, ct->max);
}

static int parse_uint(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > MAX_ARG)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

/* One grace period, in us (mean of GP_SAMPLES); -1 if not available. */
static long grace_period_us(void)
{
	long mask = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	long start;
	int i;

	if (mask < 0 || !(mask & MEMBARRIER_CMD_GLOBAL))
		return -1;
	start = now_us();
	for (i = 0; i < GP_SAMPLES; i++)
		if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
			return -1;
	return (now_us() - start) / GP_SAMPLES;
}

int main(int argc, char **argv)
{
	unsigned int nmr, nqp, xmr, xqp, i;
	struct ibv_device_attr dattr;
	struct ibv_context *ctx;
	struct ibv_qp **qps;
	struct ibv_mr **mrs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char line[LINE_LEN];
	struct call_times dereg = { 0 }, destroy = { 0 };
	long t, d, gp;
	void *page;
	int ret;

	if (argc != 3 || parse_uint(argv[1], &nmr) || parse_uint(argv[2], &nqp)) {
		fprintf(stderr, "usage: %s NMR NQP\n", argv[0]);
		return EXIT_USAGE;
	}
	xmr = nmr / EXTRA_DIV;
	xqp = nqp / EXTRA_DIV;
	mrs = calloc((size_t)nmr + xmr + 1, sizeof(*mrs));
	qps = calloc((size_t)nqp + xqp + 1, sizeof(*qps));
	if (!mrs || !qps || posix_memalign(&page, PAGE_BYTES, PAGE_BYTES))
		return fail("allocate", ENOMEM);
	memset(page, 0, PAGE_BYTES);

	ctx = mrc_open_device();
	if (!ctx)
		return fail("open $" MRC_ENV_DEV, errno);
	ret = ibv_query_device(ctx, &dattr);
	if (ret)
		return fail("query_device", ret);
	if ((long)nmr + xmr > dattr.max_mr || (long)nqp + xqp > dattr.max_qp) {
		printf("FAIL %u MRs and %u QPs asked, the device allows %d and %d\n",
		       nmr + xmr, nqp + xqp, dattr.max_mr, dattr.max_qp);
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return fail("alloc_pd", errno);
	cq = ibv_create_cq(ctx, CQE, NULL, NULL, 0);
	if (!cq)
		return fail("create_cq", errno);

	t = now_us();
	for (i = 0; i < nmr + xmr; i++) {
		mrs[i] = ibv_reg_mr(pd, page, PAGE_BYTES,
				    IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE);
		if (!mrs[i]) {
			printf("FAIL reg_mr %u: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("registered %u MRs in %ld ms\n", nmr + xmr,
	       (now_us() - t) / USEC_PER_MSEC);
	fflush(stdout);

	t = now_us();
	for (i = 0; i < nqp + xqp; i++) {
		qps[i] = mrc_create_rc_qp(pd, cq, QP_WR, ONE_SGE, NO_INLINE);
		if (!qps[i]) {
			printf("FAIL create_qp %u: %s\n", i, strerror(errno));
			return 1;
		}
		ret = mrc_qp_connect_self(ctx, qps[i], MRC_SQ_PSN);
		if (ret) {
			printf("FAIL connect QP %u: %s\n", i, strerror(ret));
			return 1;
		}
	}
	printf("created %u QPs in %ld ms\n", nqp + xqp,
	       (now_us() - t) / USEC_PER_MSEC);

	gp = grace_period_us();
	if (gp < 0)
		printf("grace period unknown\n");
	else
		printf("grace period %ld us (membarrier GLOBAL, mean of %d)\n",
		       gp, GP_SAMPLES);

	for (i = nmr; i < nmr + xmr; i++) {
		d = now_us();
		ret = ibv_dereg_mr(mrs[i]);
		d = now_us() - d;
		if (ret)
			return fail("dereg_mr", ret);
		call_time(&dereg, d);
	}
	call_times_print("dereg", "MRs", &dereg);
	for (i = nqp; i < nqp + xqp; i++) {
		d = now_us();
		ret = ibv_destroy_qp(qps[i]);
		d = now_us() - d;
		if (ret)
			return fail("destroy_qp", ret);
		call_time(&destroy, d);
	}
	call_times_print("destroy", "QPs", &destroy);

	printf("READY mrs %u qps %u\n", nmr, nqp);
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin))
		if (!strncmp(line, "exit", 4))
			break;
	/* Everything else is the kernel's to release. */
	_exit(0);
}
