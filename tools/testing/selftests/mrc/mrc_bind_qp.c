// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_bind_qp: create an RC QP with the provider's direct verb
 * mrcdv_create_qp() (<infiniband/mrcdv.h>, libmrc), which binds it
 * explicitly to an EV and a CC profile, as libmrc's mrc_modify_qp will.
 *
 *   mrc_bind_qp EV_PROFILE_ID CC_PROFILE_ID [FLAGS]
 *
 * $MRC_DEV names the device; FLAGS (struct mrcdv_qp_init_attr.flags)
 * defaults to MRCDV_QP_CREATE_BIND_PROFILES.  The QP is the provider's
 * ordinary one: once created it is brought to RTS looped back to itself and
 * carries one RDMA WRITE posted through ibv_qp_to_qp_ex(), whose bytes are
 * checked.  Then it prints QPN=N (decimal) and READY, waits for a line or
 * the end of its input, destroys the QP and exits 0.  A refused create
 * prints ERRNO=N and exits 2; anything else exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/mrcdv.h>

#include "mrc_common.h"

#define BIND_QP_WR		4
#define BIND_QP_BUF		256	/* bytes written, source then target */
#define BIND_QP_TIMEOUT_MS	10000
#define BIND_QP_PATTERN		0xa5

/* RTS towards itself, one RDMA WRITE within buf: 0 or -1 (reported). */
static int loopback_write(struct ibv_context *ctx, struct ibv_pd *pd,
			  struct ibv_cq *cq, struct ibv_qp *qp, uint8_t *buf)
{
	uint8_t *src = buf, *dst = buf + BIND_QP_BUF;
	struct ibv_qp_ex *qpx;
	struct ibv_qp_attr attr;
	struct mrc_path path;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	int i, mask, err, ret = -1;

	for (i = 0; i < BIND_QP_BUF; i++)
		src[i] = (uint8_t)(BIND_QP_PATTERN ^ i);
	memset(dst, 0, BIND_QP_BUF);
	mr = ibv_reg_mr(pd, buf, 2 * BIND_QP_BUF,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr) {
		perror("ibv_reg_mr");
		return -1;
	}
	err = mrc_loopback_path(ctx, qp->qp_num, &path);
	if (!err)
		err = mrc_qp_to_init(qp);
	if (!err)
		err = mrc_qp_to_rtr(qp, &path);
	if (!err) {
		/* Its own responder: it must send the PSN it expects. */
		mrc_rts_attr(&attr, &mask, &path);
		attr.sq_psn = MRC_RQ_PSN;
		err = ibv_modify_qp(qp, &attr, mask);
	}
	if (err) {
		fprintf(stderr, "loopback QP to RTS: %s\n", strerror(err));
		goto out;
	}
	qpx = ibv_qp_to_qp_ex(qp);
	if (!qpx) {
		fprintf(stderr, "ibv_qp_to_qp_ex: NULL for an mrcdv QP\n");
		goto out;
	}
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)src, BIND_QP_BUF);
	err = ibv_wr_complete(qpx);
	if (err) {
		fprintf(stderr, "ibv_wr_complete: %s\n", strerror(err));
		goto out;
	}
	if (mrc_poll_n(cq, &wc, 1, BIND_QP_TIMEOUT_MS) != 1) {
		fprintf(stderr, "no completion of the RDMA WRITE\n");
		goto out;
	}
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != 1) {
		fprintf(stderr, "RDMA WRITE completed with %s (wr_id %" PRIu64 ")\n",
			ibv_wc_status_str(wc.status), wc.wr_id);
		goto out;
	}
	if (memcmp(src, dst, BIND_QP_BUF)) {
		fprintf(stderr, "RDMA WRITE: the target bytes differ\n");
		goto out;
	}
	ret = 0;
out:
	ibv_dereg_mr(mr);
	return ret;
}

int main(int argc, char **argv)
{
	struct mrcdv_qp_init_attr mrc_attr = {};
	struct ibv_qp_init_attr_ex attr = {};
	static uint8_t buf[2 * BIND_QP_BUF];
	struct ibv_qp *qp = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_context *ctx;
	char line[64];
	int ret = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s EV_PROFILE_ID CC_PROFILE_ID [FLAGS]\n",
			argv[0]);
		return 1;
	}
	ctx = mrc_open_device();
	if (!ctx) {
		perror(mrc_env_or(MRC_ENV_DEV, "$" MRC_ENV_DEV));
		return 1;
	}
	if (!mrcdv_is_supported(ctx->device)) {
		fprintf(stderr, "%s: not an mrc device for libmrc\n",
			mrc_device_name());
		goto out;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, BIND_QP_WR, NULL, NULL, 0) : NULL;
	if (!cq) {
		perror("PD/CQ");
		goto out;
	}

	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.pd = pd;
	attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = BIND_QP_WR;
	attr.cap.max_recv_wr = BIND_QP_WR;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	mrc_attr.comp_mask = MRCDV_QP_INIT_ATTR_MASK_FLAGS;
	mrc_attr.flags = argc > 3 ? strtoul(argv[3], NULL, 0) :
				    MRCDV_QP_CREATE_BIND_PROFILES;
	mrc_attr.ev_profile_id = strtoull(argv[1], NULL, 0);
	mrc_attr.cc_profile_id = strtoull(argv[2], NULL, 0);

	qp = mrcdv_create_qp(ctx, &attr, &mrc_attr);
	if (!qp) {
		printf("ERRNO=%d\n", errno);
		ret = 2;
		goto out;
	}
	if (loopback_write(ctx, pd, cq, qp, buf))
		goto out;
	printf("QPN=%" PRIu32 "\nREADY\n", qp->qp_num);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
		perror("stdin");
	ret = 0;
out:
	if (qp && ibv_destroy_qp(qp)) {
		perror("ibv_destroy_qp");
		ret = 1;
	}
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}
