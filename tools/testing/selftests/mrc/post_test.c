// SPDX-License-Identifier: GPL-2.0
/*
 * Posting work requests to an mrc QP: RDMA WRITE (with immediate) is
 * accepted, through ibv_post_send and through the ibv_wr_* API; every
 * other opcode, too many SGEs and too much inline data are refused with
 * EINVAL and *bad_wr pointing at the offending request, also in the middle
 * of a chain.  Receives are accepted, within max_recv_sge.
 *
 * Run by with_device.sh ($MRC_DEV, $MRC_IPV4).  The QP is connected to
 * itself, so what is accepted lands in its own MR once the data path runs.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define CQE		256
#define MAX_WR		64
#define WANT_SGE	2
#define WANT_INLINE	64
#define BUF_BYTES	65536
#define WRITE_BYTES	256
#define IMM_DATA	0x12345678
#define WR_ID_GOOD	0x100
#define WR_ID_BAD	0x200
#define BAD_OPCODE	0x7f	/* not an enum ibv_wr_opcode value */
#define ATOMIC_BYTES	8


FIXTURE(post)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_qp_cap cap;
	char *buf;
};

FIXTURE_SETUP(post)
{
	struct ibv_qp_init_attr attr;

	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->buf = calloc(1, BUF_BYTES);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, BUF_BYTES,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr) TH_LOG("reg_mr: %s", strerror(errno));

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = self->cq;
	attr.recv_cq = self->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = MAX_WR;
	attr.cap.max_recv_wr = MAX_WR;
	attr.cap.max_send_sge = WANT_SGE;
	attr.cap.max_recv_sge = WANT_SGE;
	attr.cap.max_inline_data = WANT_INLINE;
	self->qp = ibv_create_qp(self->pd, &attr);
	ASSERT_NE(NULL, self->qp) TH_LOG("create_qp: %s", strerror(errno));
	/* What the QP really got: the limits to test against. */
	self->cap = attr.cap;
	ASSERT_LE(WANT_SGE, self->cap.max_send_sge);
	ASSERT_LE(WANT_SGE, self->cap.max_recv_sge);
	ASSERT_LE(WANT_INLINE, self->cap.max_inline_data);
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, self->qp, MRC_SQ_PSN));
}

FIXTURE_TEARDOWN(post)
{
	if (self->qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->qp));
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	free(self->buf);
}

/* A WRITE of WRITE_BYTES from the first half of buf into the second. */
static void make_write(FIXTURE_DATA(post) *self, struct ibv_send_wr *wr,
		       struct ibv_sge *sge, uint64_t wr_id)
{
	sge->addr = (uintptr_t)self->buf;
	sge->length = WRITE_BYTES;
	sge->lkey = self->mr->lkey;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_RDMA_WRITE;
	wr->wr.rdma.remote_addr = (uintptr_t)self->buf + BUF_BYTES / 2;
	wr->wr.rdma.rkey = self->mr->rkey;
}

static int post_one_recv(FIXTURE_DATA(post) *self, struct ibv_qp *qp,
			 uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf,
		.length = WRITE_BYTES,
		.lkey = self->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
	};
	struct ibv_recv_wr *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

TEST_F(post, rdma_write_accepted)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	make_write(self, &wr, &sge, WR_ID_GOOD);
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
}

/* A WRITE with immediate consumes a receive at the target: post one. */
TEST_F(post, rdma_write_with_imm_accepted)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	ASSERT_EQ(0, post_one_recv(self, self->qp, WR_ID_GOOD));
	make_write(self, &wr, &sge, WR_ID_GOOD);
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(IMM_DATA);
	wr.send_flags = IBV_SEND_SIGNALED;
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
}

/* A chain of writes, the last one signaled, in one call. */
TEST_F(post, write_chain_accepted)
{
	struct ibv_send_wr wr[4], *bad = NULL;
	struct ibv_sge sge[4];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wr); i++) {
		make_write(self, &wr[i], &sge[i], WR_ID_GOOD + i);
		if (i)
			wr[i - 1].next = &wr[i];
	}
	wr[ARRAY_SIZE(wr) - 1].send_flags = IBV_SEND_SIGNALED;
	EXPECT_EQ(0, ibv_post_send(self->qp, wr, &bad));
}

TEST_F(post, zero_length_write_accepted)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	make_write(self, &wr, &sge, WR_ID_GOOD);
	wr.num_sge = 0;
	wr.sg_list = NULL;
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
}

static const enum ibv_wr_opcode refused_opcodes[] = {
	IBV_WR_SEND,
	IBV_WR_SEND_WITH_IMM,
	IBV_WR_RDMA_READ,
	IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_WR_ATOMIC_FETCH_AND_ADD,
	IBV_WR_LOCAL_INV,
	IBV_WR_BIND_MW,
	IBV_WR_SEND_WITH_INV,
	(enum ibv_wr_opcode)BAD_OPCODE,
};

/* A request of a refused opcode, otherwise well formed. */
static void make_refused(FIXTURE_DATA(post) *self, struct ibv_send_wr *wr,
			 struct ibv_sge *sge, enum ibv_wr_opcode opcode)
{
	make_write(self, wr, sge, WR_ID_BAD);
	wr->opcode = opcode;
	wr->send_flags = IBV_SEND_SIGNALED;
	switch (opcode) {
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		sge->length = ATOMIC_BYTES;
		memset(&wr->wr, 0, sizeof(wr->wr));
		wr->wr.atomic.remote_addr = (uintptr_t)self->buf;
		wr->wr.atomic.rkey = self->mr->rkey;
		wr->wr.atomic.compare_add = 1;
		break;
	case IBV_WR_SEND_WITH_IMM:
		wr->imm_data = htobe32(IMM_DATA);
		break;
	case IBV_WR_LOCAL_INV:
	case IBV_WR_SEND_WITH_INV:
		wr->invalidate_rkey = self->mr->rkey;
		break;
	default:
		break;
	}
}

TEST_F(post, refused_opcodes)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refused_opcodes); i++) {
		struct ibv_send_wr wr, *bad = NULL;
		struct ibv_sge sge;

		make_refused(self, &wr, &sge, refused_opcodes[i]);
		EXPECT_EQ(EINVAL, ibv_post_send(self->qp, &wr, &bad))
			TH_LOG("opcode %d", refused_opcodes[i]);
		EXPECT_EQ(&wr, bad) TH_LOG("opcode %d", refused_opcodes[i]);
	}
}

/* The second request of a chain is refused: bad_wr names it. */
TEST_F(post, refused_opcode_second_in_chain)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refused_opcodes); i++) {
		struct ibv_send_wr wr[2], *bad = NULL;
		struct ibv_sge sge[2];

		make_write(self, &wr[0], &sge[0], WR_ID_GOOD);
		make_refused(self, &wr[1], &sge[1], refused_opcodes[i]);
		wr[0].next = &wr[1];
		EXPECT_EQ(EINVAL, ibv_post_send(self->qp, wr, &bad))
			TH_LOG("opcode %d", refused_opcodes[i]);
		EXPECT_EQ(&wr[1], bad) TH_LOG("opcode %d", refused_opcodes[i]);
	}
}

TEST_F(post, too_many_send_sge)
{
	uint32_t n = self->cap.max_send_sge + 1;
	struct ibv_sge *sge = calloc(n, sizeof(*sge));
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge one;
	uint32_t i;

	ASSERT_NE(NULL, sge);
	make_write(self, &wr, &one, WR_ID_BAD);
	for (i = 0; i < n; i++)
		sge[i] = one;
	wr.sg_list = sge;
	wr.num_sge = (int)n;
	EXPECT_EQ(EINVAL, ibv_post_send(self->qp, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	/* Exactly max_send_sge is fine. */
	wr.num_sge = (int)self->cap.max_send_sge;
	bad = NULL;
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
	free(sge);
}

TEST_F(post, inline_limit)
{
	uint32_t max = self->cap.max_inline_data;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;

	ASSERT_LT(max + 1, BUF_BYTES / 2);
	make_write(self, &wr, &sge, WR_ID_BAD);
	wr.send_flags = IBV_SEND_INLINE;
	sge.length = max + 1;
	EXPECT_EQ(EINVAL, ibv_post_send(self->qp, &wr, &bad));
	EXPECT_EQ(&wr, bad);
	/* Exactly max_inline_data is fine, and needs no lkey. */
	sge.length = max;
	sge.lkey = 0;
	wr.wr_id = WR_ID_GOOD;
	bad = NULL;
	EXPECT_EQ(0, ibv_post_send(self->qp, &wr, &bad));
}

/* The inline limit counts all SGEs together. */
TEST_F(post, inline_limit_over_sges)
{
	uint32_t max = self->cap.max_inline_data;
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge[2];

	make_write(self, &wr, &sge[0], WR_ID_BAD);
	sge[0].length = max / 2 + 1;
	sge[1] = sge[0];
	sge[1].length = max - max / 2;
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.send_flags = IBV_SEND_INLINE;
	EXPECT_EQ(EINVAL, ibv_post_send(self->qp, &wr, &bad));
	EXPECT_EQ(&wr, bad);
}

TEST_F(post, recv_accepted)
{
	struct ibv_recv_wr wr[2], *bad = NULL;
	struct ibv_sge sge[WANT_SGE];
	int i;

	for (i = 0; i < WANT_SGE; i++) {
		sge[i].addr = (uintptr_t)self->buf + i * WRITE_BYTES;
		sge[i].length = WRITE_BYTES;
		sge[i].lkey = self->mr->lkey;
	}
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = WR_ID_GOOD;
	wr[0].sg_list = sge;
	wr[0].num_sge = WANT_SGE;
	wr[0].next = &wr[1];
	wr[1].wr_id = WR_ID_GOOD + 1;	/* no SGE: only for WRITE_WITH_IMM */
	EXPECT_EQ(0, ibv_post_recv(self->qp, wr, &bad));
}

TEST_F(post, too_many_recv_sge)
{
	uint32_t n = self->cap.max_recv_sge + 1;
	struct ibv_sge *sge = calloc(n, sizeof(*sge));
	struct ibv_recv_wr wr[2], *bad = NULL;
	uint32_t i;

	ASSERT_NE(NULL, sge);
	for (i = 0; i < n; i++) {
		sge[i].addr = (uintptr_t)self->buf;
		sge[i].length = WRITE_BYTES;
		sge[i].lkey = self->mr->lkey;
	}
	memset(wr, 0, sizeof(wr));
	wr[0].wr_id = WR_ID_BAD;
	wr[0].sg_list = sge;
	wr[0].num_sge = (int)n;
	EXPECT_EQ(EINVAL, ibv_post_recv(self->qp, wr, &bad));
	EXPECT_EQ(&wr[0], bad);

	/* Second of a chain. */
	wr[0].wr_id = WR_ID_GOOD;
	wr[0].num_sge = 1;
	wr[0].next = &wr[1];
	wr[1].wr_id = WR_ID_BAD;
	wr[1].sg_list = sge;
	wr[1].num_sge = (int)n;
	bad = NULL;
	EXPECT_EQ(EINVAL, ibv_post_recv(self->qp, wr, &bad));
	EXPECT_EQ(&wr[1], bad);
	free(sge);
}

/* The extended API perftest uses: ibv_wr_rdma_write[_imm]. */
TEST_F(post, wr_api_write)
{
	struct ibv_qp_init_attr_ex attr;
	struct ibv_qp_ex *qpx;
	struct ibv_qp *qp;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = self->cq;
	attr.recv_cq = self->cq;
	attr.cap.max_send_wr = MAX_WR;
	attr.cap.max_recv_wr = MAX_WR;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.pd = self->pd;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
			      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	qp = ibv_create_qp_ex(self->ctx, &attr);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp_ex: %s", strerror(errno));
	qpx = ibv_qp_to_qp_ex(qp);
	ASSERT_NE(NULL, qpx);
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp, MRC_SQ_PSN));
	/* For the WRITE with immediate to consume. */
	ASSERT_EQ(0, post_one_recv(self, qp, WR_ID_GOOD));

	ibv_wr_start(qpx);
	qpx->wr_id = WR_ID_GOOD;
	qpx->wr_flags = 0;
	ibv_wr_rdma_write(qpx, self->mr->rkey,
			  (uintptr_t)self->buf + BUF_BYTES / 2);
	ibv_wr_set_sge(qpx, self->mr->lkey, (uintptr_t)self->buf,
		       WRITE_BYTES);
	qpx->wr_id = WR_ID_GOOD + 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, self->mr->rkey,
			      (uintptr_t)self->buf + BUF_BYTES / 2,
			      htobe32(IMM_DATA));
	ibv_wr_set_sge(qpx, self->mr->lkey, (uintptr_t)self->buf,
		       WRITE_BYTES);
	EXPECT_EQ(0, ibv_wr_complete(qpx));

	EXPECT_EQ(0, ibv_destroy_qp(qp));
}

TEST_HARNESS_MAIN
