// SPDX-License-Identifier: GPL-2.0
/*
 * For poll_nosyscall.sh: polls an empty CQ of $MRC_DEV POLLS times between
 * two getppid() system calls, which the script finds in strace's output
 * and between which it expects no system call at all.
 *
 *   poll_nosyscall_helper [--inject]
 *
 * Before the measured loop the CQ is exercised once: two receives are
 * flushed into it by the kernel and polled out.  --inject makes one
 * getuid() call in the middle of the loop, to prove that the script's
 * check does see a system call there.  Exits 0 if every poll in the loop
 * returned 0 and setup and teardown succeeded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mrc_common.h"

#define POLLS		100000
#define CQE		16
#define MAX_WR		4
#define ONE_SGE		1
#define NO_INLINE	0
#define WARMUP_RECVS	2
#define FLUSH_WAIT_MS	10000
#define BUF_BYTES	4096

static char buf[BUF_BYTES];

static int die(const char *what, int err)
{
	fprintf(stderr, "FAIL %s: %s\n", what, strerror(err));
	return EXIT_FAILURE;
}

/* The brackets the script looks for. */
static void marker(void)
{
	syscall(SYS_getppid);
}

int main(int argc, char **argv)
{
	struct ibv_wc wc[WARMUP_RECVS];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long nonempty = 0, errors = 0, i;
	int inject = argc > 1 && !strcmp(argv[1], "--inject");
	int ret;

	ctx = mrc_open_device();
	if (!ctx)
		return die("open device", errno);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return die("alloc_pd", errno);
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return die("reg_mr", errno);
	cq = ibv_create_cq(ctx, CQE, NULL, NULL, 0);
	if (!cq)
		return die("create_cq", errno);
	qp = mrc_create_rc_qp(pd, cq, MAX_WR, ONE_SGE, NO_INLINE);
	if (!qp)
		return die("create_qp", errno);
	ret = mrc_qp_to_init(qp);
	if (ret)
		return die("modify_qp INIT", ret);
	for (i = 0; i < WARMUP_RECVS; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)buf,
			.length = sizeof(buf),
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
		};
		struct ibv_recv_wr *bad;

		ret = ibv_post_recv(qp, &wr, &bad);
		if (ret)
			return die("post_recv", ret);
	}
	ret = mrc_qp_to_state(qp, IBV_QPS_ERR);
	if (ret)
		return die("modify_qp ERR", ret);
	if (mrc_poll_n(cq, wc, WARMUP_RECVS, FLUSH_WAIT_MS) != WARMUP_RECVS)
		return die("flushed receives did not arrive", ETIMEDOUT);

	marker();
	for (i = 0; i < POLLS; i++) {
		ret = ibv_poll_cq(cq, 1, wc);
		if (ret > 0)
			nonempty++;
		else if (ret < 0)
			errors++;
		if (inject && i == POLLS / 2)
			syscall(SYS_getuid);
	}
	marker();

	printf("polls %d nonempty %ld errors %ld%s\n", POLLS, nonempty,
	       errors, inject ? " (one getuid injected)" : "");
	ret = ibv_destroy_qp(qp);
	if (ret)
		return die("destroy_qp", ret);
	ret = ibv_destroy_cq(cq);
	if (ret)
		return die("destroy_cq", ret);
	ret = ibv_dereg_mr(mr);
	if (ret)
		return die("dereg_mr", ret);
	ret = ibv_dealloc_pd(pd);
	if (ret)
		return die("dealloc_pd", ret);
	ret = ibv_close_device(ctx);
	if (ret)
		return die("close_device", ret);
	return nonempty || errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
