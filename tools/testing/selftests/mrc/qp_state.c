// SPDX-License-Identifier: GPL-2.0
/*
 * QP creation and the RC state machine of an mrc device: which QPs can be
 * created (RC only, RDMA WRITE [with immediate] only), every valid
 * transition, the attributes each one requires, invalid transitions
 * leaving the state unchanged, and ibv_query_qp returning what was set.
 *
 * Run by with_device.sh ($MRC_DEV, $MRC_IPV4).  Connections go back to the
 * device's own IPv4 GID, so no peer is needed.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define CQE		64
#define MAX_WR		16
#define MAX_SGE		1
#define NO_INLINE	0
#define HUGE_INLINE	(1U << 20)	/* beyond any device's inline limit */
#define MANY_RD_ATOMIC	16
/* Values that no driver would pick by default, to see them come back. */
#define Q_PATH_MTU	IBV_MTU_512
#define Q_RQ_PSN	0x0abcde
#define Q_SQ_PSN	0x0fedcb
#define Q_TIMEOUT	17
#define Q_RETRY_CNT	5
#define Q_RNR_RETRY	3
#define Q_MIN_RNR	9
#define Q_ACCESS	(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE)


FIXTURE(qp)
{
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct mrc_path path;
};

FIXTURE_SETUP(qp)
{
	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, MRC_PORT, &self->port));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq) TH_LOG("create_cq: %s", strerror(errno));
	self->qp = mrc_create_rc_qp(self->pd, self->cq, MAX_WR, MAX_SGE,
				    NO_INLINE);
	ASSERT_NE(NULL, self->qp) TH_LOG("create_qp: %s", strerror(errno));
	/* Connected back to itself. */
	ASSERT_EQ(0, mrc_loopback_path(self->ctx, self->qp->qp_num,
				       &self->path))
		TH_LOG("no IPv4 RoCE v2 GID on %s", mrc_device_name());
}

FIXTURE_TEARDOWN(qp)
{
	if (self->qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->qp));
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

static struct ibv_qp_init_attr_ex rc_attr_ex(FIXTURE_DATA(qp) *self,
					     uint64_t send_ops)
{
	struct ibv_qp_init_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.qp_type = IBV_QPT_RC;
	attr.send_cq = self->cq;
	attr.recv_cq = self->cq;
	attr.cap.max_send_wr = MAX_WR;
	attr.cap.max_recv_wr = MAX_WR;
	attr.cap.max_send_sge = MAX_SGE;
	attr.cap.max_recv_sge = MAX_SGE;
	attr.pd = self->pd;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	attr.send_ops_flags = send_ops;
	return attr;
}

#define ASSERT_STATE(expected) \
	ASSERT_EQ(expected, mrc_qp_state(self->qp))

TEST_F(qp, created_in_reset)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	ASSERT_EQ(0, ibv_query_qp(self->qp, &attr, IBV_QP_STATE | IBV_QP_CAP,
				  &init));
	EXPECT_EQ(IBV_QPS_RESET, attr.qp_state);
	EXPECT_LE(MAX_WR, init.cap.max_send_wr);
	EXPECT_LE(MAX_WR, init.cap.max_recv_wr);
	EXPECT_LE(MAX_SGE, init.cap.max_send_sge);
	EXPECT_LE(MAX_SGE, init.cap.max_recv_sge);
	EXPECT_EQ(IBV_QPT_RC, self->qp->qp_type);
	EXPECT_NE(0, self->qp->qp_num);
}

/* The send operations perftest asks for: RDMA WRITE, with and without IMM. */
TEST_F(qp, create_ex_write_ops)
{
	static const uint64_t ok_ops[] = {
		IBV_QP_EX_WITH_RDMA_WRITE,
		IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok_ops); i++) {
		struct ibv_qp_init_attr_ex attr = rc_attr_ex(self, ok_ops[i]);
		struct ibv_qp *qp = ibv_create_qp_ex(self->ctx, &attr);

		ASSERT_NE(NULL, qp)
			TH_LOG("send_ops 0x%llx: %s",
			       (unsigned long long)ok_ops[i], strerror(errno));
		EXPECT_NE(NULL, ibv_qp_to_qp_ex(qp));
		EXPECT_EQ(0, ibv_destroy_qp(qp));
	}
}

/* Every other send operation is refused, alone or next to WRITE. */
TEST_F(qp, create_ex_unsupported_ops)
{
	static const uint64_t bad_ops[] = {
		IBV_QP_EX_WITH_SEND,
		IBV_QP_EX_WITH_SEND_WITH_IMM,
		IBV_QP_EX_WITH_RDMA_READ,
		IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
		IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
		IBV_QP_EX_WITH_LOCAL_INV,
		IBV_QP_EX_WITH_BIND_MW,
		IBV_QP_EX_WITH_SEND_WITH_INV,
		IBV_QP_EX_WITH_TSO,
		IBV_QP_EX_WITH_ATOMIC_WRITE,
	};
	size_t i;
	int with_write;

	for (i = 0; i < ARRAY_SIZE(bad_ops); i++) {
		for (with_write = 0; with_write <= 1; with_write++) {
			uint64_t ops = bad_ops[i] |
				(with_write ? IBV_QP_EX_WITH_RDMA_WRITE : 0);
			struct ibv_qp_init_attr_ex attr = rc_attr_ex(self, ops);
			struct ibv_qp *qp;

			errno = 0;
			qp = ibv_create_qp_ex(self->ctx, &attr);
			EXPECT_EQ(NULL, qp)
				TH_LOG("send_ops 0x%llx accepted",
				       (unsigned long long)ops);
			if (qp)
				ibv_destroy_qp(qp);
			else
				EXPECT_EQ(EOPNOTSUPP, errno)
					TH_LOG("send_ops 0x%llx: %s",
					       (unsigned long long)ops,
					       strerror(errno));
		}
	}
}

/*
 * Only RC QPs exist on an MRC device.  The kernel returns EOPNOTSUPP for
 * every other type (the provider may refuse first, with the same errno).
 */
TEST_F(qp, unsupported_types)
{
	static const enum ibv_qp_type types[] = {
		IBV_QPT_UD, IBV_QPT_UC, IBV_QPT_RAW_PACKET,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		struct ibv_qp_init_attr attr;
		struct ibv_qp *qp;

		memset(&attr, 0, sizeof(attr));
		attr.send_cq = self->cq;
		attr.recv_cq = self->cq;
		attr.qp_type = types[i];
		attr.cap.max_send_wr = MAX_WR;
		attr.cap.max_recv_wr = MAX_WR;
		attr.cap.max_send_sge = MAX_SGE;
		attr.cap.max_recv_sge = MAX_SGE;
		errno = 0;
		qp = ibv_create_qp(self->pd, &attr);
		EXPECT_EQ(NULL, qp) TH_LOG("qp type %d accepted", types[i]);
		if (qp)
			ibv_destroy_qp(qp);
		else
			EXPECT_EQ(EOPNOTSUPP, errno)
				TH_LOG("qp type %d: %s", types[i],
				       strerror(errno));
	}
}

enum cap_field { SEND_WR, RECV_WR, SEND_SGE, RECV_SGE, INLINE };

TEST_F(qp, caps_beyond_device)
{
	static const enum cap_field fields[] = {
		SEND_WR, RECV_WR, SEND_SGE, RECV_SGE, INLINE,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++) {
		struct ibv_qp_init_attr attr;
		struct ibv_qp *qp;

		memset(&attr, 0, sizeof(attr));
		attr.send_cq = self->cq;
		attr.recv_cq = self->cq;
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = MAX_WR;
		attr.cap.max_recv_wr = MAX_WR;
		attr.cap.max_send_sge = MAX_SGE;
		attr.cap.max_recv_sge = MAX_SGE;
		switch (fields[i]) {
		case SEND_WR:
			attr.cap.max_send_wr = self->attr.max_qp_wr + 1;
			break;
		case RECV_WR:
			attr.cap.max_recv_wr = self->attr.max_qp_wr + 1;
			break;
		case SEND_SGE:
			attr.cap.max_send_sge = self->attr.max_sge + 1;
			break;
		case RECV_SGE:
			attr.cap.max_recv_sge = self->attr.max_sge + 1;
			break;
		case INLINE:
			attr.cap.max_inline_data = HUGE_INLINE;
			break;
		}
		errno = 0;
		qp = ibv_create_qp(self->pd, &attr);
		EXPECT_EQ(NULL, qp) TH_LOG("cap case %zu accepted", i);
		if (qp)
			ibv_destroy_qp(qp);
		else
			EXPECT_EQ(EINVAL, errno)
				TH_LOG("cap case %zu: %s", i, strerror(errno));
	}
}

/* Every transition of the RC diagram, twice round. */
TEST_F(qp, full_cycle)
{
	int round;

	for (round = 0; round < 2; round++) {
		ASSERT_STATE(IBV_QPS_RESET);
		ASSERT_EQ(0, mrc_qp_to_init(self->qp));
		ASSERT_STATE(IBV_QPS_INIT);
		ASSERT_EQ(0, mrc_qp_to_rtr(self->qp, &self->path));
		ASSERT_STATE(IBV_QPS_RTR);
		ASSERT_EQ(0, mrc_qp_to_rts(self->qp, &self->path));
		ASSERT_STATE(IBV_QPS_RTS);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_SQD));
		ASSERT_STATE(IBV_QPS_SQD);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_RTS));
		ASSERT_STATE(IBV_QPS_RTS);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
		ASSERT_STATE(IBV_QPS_ERR);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_RESET));
	}
	ASSERT_STATE(IBV_QPS_RESET);
}

/* Drive the fixture's QP from RESET to state along the normal path. */
static int drive_to(FIXTURE_DATA(qp) *self, enum ibv_qp_state state)
{
	int ret = 0;

	if (state >= IBV_QPS_INIT && !ret)
		ret = mrc_qp_to_init(self->qp);
	if (state >= IBV_QPS_RTR && !ret)
		ret = mrc_qp_to_rtr(self->qp, &self->path);
	if (state >= IBV_QPS_RTS && !ret)
		ret = mrc_qp_to_rts(self->qp, &self->path);
	if (state == IBV_QPS_SQD && !ret)
		ret = mrc_qp_to_state(self->qp, IBV_QPS_SQD);
	return ret;
}

/*
 * Any state but RESET -> ERR -> RESET, then the QP is usable again.
 * RESET -> ERR is not a transition of the core's table
 * (ib_modify_qp_is_ok()), as in every RDMA driver: refused.
 */
TEST_F(qp, error_from_every_state)
{
	static const enum ibv_qp_state from[] = {
		IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS, IBV_QPS_SQD,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(from); i++) {
		ASSERT_EQ(0, drive_to(self, from[i]));
		ASSERT_STATE(from[i]);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR))
			TH_LOG("state %d -> ERR", from[i]);
		ASSERT_STATE(IBV_QPS_ERR);
		ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_RESET));
		ASSERT_STATE(IBV_QPS_RESET);
	}
	ASSERT_EQ(0, drive_to(self, IBV_QPS_RTS));
	ASSERT_STATE(IBV_QPS_RTS);
}

TEST_F(qp, reset_to_error_refused)
{
	EXPECT_EQ(EINVAL, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	ASSERT_STATE(IBV_QPS_RESET);
}

/* Unmodified applications ask for read/atomic resources: accepted. */
TEST_F(qp, nonzero_rd_atomic_accepted)
{
	self->path.rd_atomic = MANY_RD_ATOMIC;
	ASSERT_EQ(0, drive_to(self, IBV_QPS_RTS));
	ASSERT_STATE(IBV_QPS_RTS);
}

TEST_F(qp, query_returns_values_set)
{
	struct ibv_qp_attr attr, got;
	struct ibv_qp_init_attr init;
	int mask;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	mrc_rtr_attr(&attr, &mask, &self->path);
	attr.path_mtu = Q_PATH_MTU;
	attr.rq_psn = Q_RQ_PSN;
	attr.min_rnr_timer = Q_MIN_RNR;
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	mrc_rts_attr(&attr, &mask, &self->path);
	attr.sq_psn = Q_SQ_PSN;
	attr.timeout = Q_TIMEOUT;
	attr.retry_cnt = Q_RETRY_CNT;
	attr.rnr_retry = Q_RNR_RETRY;
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));

	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, ibv_query_qp(self->qp, &got,
				  IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				  IBV_QP_ACCESS_FLAGS | IBV_QP_AV |
				  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER |
				  IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY,
				  &init));
	EXPECT_EQ(IBV_QPS_RTS, got.qp_state);
	EXPECT_EQ(MRC_PKEY_INDEX, got.pkey_index);
	EXPECT_EQ(IBV_ACCESS_REMOTE_WRITE,
		  got.qp_access_flags & IBV_ACCESS_REMOTE_WRITE);
	EXPECT_EQ(Q_PATH_MTU, got.path_mtu);
	EXPECT_EQ(self->qp->qp_num, got.dest_qp_num);
	EXPECT_EQ(Q_RQ_PSN, got.rq_psn);
	EXPECT_EQ(Q_MIN_RNR, got.min_rnr_timer);
	EXPECT_EQ(Q_SQ_PSN, got.sq_psn);
	EXPECT_EQ(Q_TIMEOUT, got.timeout);
	EXPECT_EQ(Q_RETRY_CNT, got.retry_cnt);
	EXPECT_EQ(Q_RNR_RETRY, got.rnr_retry);
	EXPECT_EQ(1, got.ah_attr.is_global);
	EXPECT_EQ(0, memcmp(&self->path.dgid, &got.ah_attr.grh.dgid,
			    sizeof(self->path.dgid)));
	EXPECT_EQ(self->path.sgid_index, got.ah_attr.grh.sgid_index);
	/*
	 * No hop_limit check: for RoCE the core replaces the caller's
	 * hop_limit with the route's (ib_resolve_unicast_gid_dmac()).
	 */
}

/* The access flags come back as set too. */
TEST_F(qp, query_access_flags)
{
	struct ibv_qp_attr attr, got;
	struct ibv_qp_init_attr init;
	int mask;

	mrc_init_attr(&attr, &mask);
	attr.qp_access_flags = Q_ACCESS;
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, ibv_query_qp(self->qp, &got, IBV_QP_ACCESS_FLAGS, &init));
	EXPECT_EQ(Q_ACCESS, got.qp_access_flags);
}

/* Transitions the RC diagram does not have: EINVAL, state unchanged. */
TEST_F(qp, reset_to_rtr_or_rts)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_rtr_attr(&attr, &mask, &self->path);
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RESET);
	mrc_rts_attr(&attr, &mask, &self->path);
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RESET);
	EXPECT_EQ(EINVAL, mrc_qp_to_state(self->qp, IBV_QPS_SQD));
	ASSERT_STATE(IBV_QPS_RESET);
}

TEST_F(qp, init_to_rts_or_sqd)
{
	struct ibv_qp_attr attr;
	int mask;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	mrc_rts_attr(&attr, &mask, &self->path);
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_INIT);
	EXPECT_EQ(EINVAL, mrc_qp_to_state(self->qp, IBV_QPS_SQD));
	ASSERT_STATE(IBV_QPS_INIT);
}

TEST_F(qp, rtr_to_sqd)
{
	ASSERT_EQ(0, drive_to(self, IBV_QPS_RTR));
	EXPECT_EQ(EINVAL, mrc_qp_to_state(self->qp, IBV_QPS_SQD));
	ASSERT_STATE(IBV_QPS_RTR);
}

/* Leave out each required attribute of a transition in turn. */
static void check_required(struct __test_metadata *_metadata,
			   FIXTURE_DATA(qp) *self,
			   const struct ibv_qp_attr *attr, int mask,
			   const int *required, size_t n,
			   enum ibv_qp_state stays)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct ibv_qp_attr copy = *attr;

		EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &copy,
						mask & ~required[i]))
			TH_LOG("accepted without mask bit 0x%x", required[i]);
		ASSERT_STATE(stays);
	}
}

TEST_F(qp, init_requires)
{
	static const int required[] = {
		IBV_QP_PKEY_INDEX, IBV_QP_PORT, IBV_QP_ACCESS_FLAGS,
	};
	struct ibv_qp_attr attr;
	int mask;

	mrc_init_attr(&attr, &mask);
	check_required(_metadata, self, &attr, mask, required,
		       ARRAY_SIZE(required), IBV_QPS_RESET);
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_INIT);
}

TEST_F(qp, rtr_requires)
{
	static const int required[] = {
		IBV_QP_AV, IBV_QP_PATH_MTU, IBV_QP_DEST_QPN, IBV_QP_RQ_PSN,
		IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_MIN_RNR_TIMER,
	};
	struct ibv_qp_attr attr;
	int mask;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	mrc_rtr_attr(&attr, &mask, &self->path);
	check_required(_metadata, self, &attr, mask, required,
		       ARRAY_SIZE(required), IBV_QPS_INIT);
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RTR);
}

TEST_F(qp, rts_requires)
{
	static const int required[] = {
		IBV_QP_SQ_PSN, IBV_QP_TIMEOUT, IBV_QP_RETRY_CNT,
		IBV_QP_RNR_RETRY, IBV_QP_MAX_QP_RD_ATOMIC,
	};
	struct ibv_qp_attr attr;
	int mask;

	ASSERT_EQ(0, drive_to(self, IBV_QPS_RTR));
	mrc_rts_attr(&attr, &mask, &self->path);
	check_required(_metadata, self, &attr, mask, required,
		       ARRAY_SIZE(required), IBV_QPS_RTR);
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RTS);
}

/* An attribute the transition does not take is refused. */
TEST_F(qp, init_refuses_rtr_attribute)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_init_attr(&attr, &mask);
	attr.path_mtu = MRC_PATH_MTU;
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr,
					mask | IBV_QP_PATH_MTU));
	ASSERT_STATE(IBV_QPS_RESET);
}

/* RoCE: the address vector needs a GRH. */
TEST_F(qp, rtr_needs_grh)
{
	struct ibv_qp_attr attr;
	int mask;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	mrc_rtr_attr(&attr, &mask, &self->path);
	attr.ah_attr.is_global = 0;
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_INIT);
}

TEST_F(qp, rtr_bad_sgid_index)
{
	struct ibv_qp_attr attr;
	int mask;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	mrc_rtr_attr(&attr, &mask, &self->path);
	attr.ah_attr.grh.sgid_index = self->port.gid_tbl_len;
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_INIT);
}

TEST_F(qp, init_bad_port)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_init_attr(&attr, &mask);
	attr.port_num = MRC_PORT + 1;
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RESET);
}

TEST_F(qp, init_bad_pkey_index)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_init_attr(&attr, &mask);
	attr.pkey_index = self->port.pkey_tbl_len;
	EXPECT_EQ(EINVAL, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_STATE(IBV_QPS_RESET);
}

TEST_HARNESS_MAIN
