// SPDX-License-Identifier: GPL-2.0
/*
 * The OCP MRC application API's QP side (<mrc.h>) as libmrc provides it:
 * the device's MRC attributes, QP hints, QPs with their MRC attributes
 * (what a new QP has, what each transition may set, what is refused and
 * leaves the QP as it was), the two call sequences of the OCP examples
 * (the benchmark's, which passes verbs attributes the API does not take
 * and no MRC ones; the QP walk-through's, which passes MRC ones and few
 * verbs ones), each ending in WRITEs whose bytes and immediate are
 * checked, and the refusals of posting.
 *
 * A QP here is connected to itself (the port's IPv4 GID, its own QPN).
 * Run by with_device.sh, which creates the device and sets $MRC_DEV.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <mrc.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define CQE		64
#define COMP_VECTOR	0
#define MAX_WR		16
#define BUF_LEN		(64 * 1024)
#define WRITE_LEN	(48 * 1024 + 5)	/* several packets, an odd tail */
#define IMM_VALUE	0x4d524321u
#define CQ_WAIT_MS	20000
#define OVERFLOW_WRS	64
#define MAX_EVENTS	8
#define PARAMS_DIR	"/sys/module/rdma_mrc/parameters/"

/* The defaults of the driver's create response (<rdma/mrc-abi.h>). */
#define API_DEFAULT_TIMEOUT	14
#define API_DEFAULT_LINEAR	7
#define API_MAX_WIMM		16384
#define API_MAX_MPR		32
#define API_MAX_TIMEOUT		24
#define API_EXP_FOREVER		25
#define API_MAX_HINTS		1024

/* What the walk-through (the OCP's mrc_qp.md) sets. */
#define WALK_MPR		8
#define WALK_WIMM		128
#define WALK_TIMEOUT		8
#define WALK_LINEAR		7

/* A profile id no controller made. */
#define ABSENT_PROFILE		0xfeedu

#define ALL_MRC_ATTRS							\
	(MRC_QP_MAX_WIMM | MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR |		\
	 MRC_QP_MPR_DEST | MRC_QP_TIMEOUT | MRC_QP_EV_PROFILE_ID |	\
	 MRC_QP_CC_PROFILE_ID | MRC_QP_HINT | MRC_QP_RETRY_CNT |	\
	 MRC_QP_CAP | MRC_QP_VENDOR_CFG)

static unsigned int read_param(const char *name)
{
	char path[256];
	unsigned int v = 0;
	FILE *f;

	snprintf(path, sizeof(path), PARAMS_DIR "%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%u", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

FIXTURE(qp)
{
	struct ibv_context *ibv;
	struct mrc_context *mctx;
	struct ibv_pd *pd;
	struct mrc_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct mrc_qp *qp;
	struct mrc_path path;
};

FIXTURE_SETUP(qp)
{
	struct mrc_qp_init_attr init = {};

	self->ibv = mrc_open_device();
	ASSERT_NE(NULL, self->ibv)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	self->mctx = mrc_create_context(self->ibv, NULL);
	ASSERT_NE(NULL, self->mctx) TH_LOG("create_context: %s", strerror(errno));
	self->pd = ibv_alloc_pd(self->ibv);
	ASSERT_NE(NULL, self->pd);
	self->cq = mrc_create_cq(self->mctx, CQE, NULL, NULL, COMP_VECTOR);
	ASSERT_NE(NULL, self->cq) TH_LOG("create_cq: %s", strerror(errno));
	self->buf = calloc(1, 2 * BUF_LEN);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, 2 * BUF_LEN,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr) TH_LOG("reg_mr: %s", strerror(errno));

	init.qp_context = self;
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	init.cap.max_send_wr = MAX_WR;
	init.cap.max_recv_wr = MAX_WR;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.pd = self->pd;
	self->qp = mrc_create_qp(self->mctx, &init);
	ASSERT_NE(NULL, self->qp) TH_LOG("create_qp: %s", strerror(errno));
	EXPECT_GE(init.cap.max_send_wr, MAX_WR);
	ASSERT_EQ(0, mrc_loopback_path(self->ibv, 0, &self->path));
	ASSERT_EQ(0, mrc_get_qpn(self->qp, &self->path.dest_qpn));
}

FIXTURE_TEARDOWN(qp)
{
	if (self->qp)
		EXPECT_EQ(0, mrc_destroy_qp(self->qp));
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	free(self->buf);
	if (self->cq)
		EXPECT_EQ(0, mrc_destroy_cq(self->cq));
	/* The benchmark's order: the PD before the context. */
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->mctx)
		EXPECT_EQ(0, mrc_destroy_context(self->mctx));
	if (self->ibv)
		EXPECT_EQ(0, ibv_close_device(self->ibv));
}

static int qp_state(struct mrc_qp *qp)
{
	struct ibv_qp_attr attr = {};

	if (mrc_query_qp(qp, &attr, IBV_QP_STATE, NULL, 0, NULL))
		return -1;
	return attr.qp_state;
}

/* The RTR address vector to the QP itself, as the benchmark builds it. */
static void rtr_attr(struct ibv_qp_attr *a, const struct mrc_path *path)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = IBV_QPS_RTR;
	a->path_mtu = MRC_PATH_MTU;
	a->dest_qp_num = path->dest_qpn;
	a->rq_psn = MRC_RQ_PSN;
	a->ah_attr.is_global = 1;
	a->ah_attr.port_num = MRC_PORT;
	a->ah_attr.grh.dgid = path->dgid;
	a->ah_attr.grh.sgid_index = path->sgid_index;
}

/* Poll for n completions; the number polled. */
static int poll_n(struct mrc_cq *cq, struct ibv_wc *wc, int n)
{
	int got = 0, waited = 0;

	while (got < n && waited < CQ_WAIT_MS) {
		int r = mrc_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return got;
		got += r;
		if (!r) {
			usleep(1000);
			waited++;
		}
	}
	return got;
}

/*
 * A WRITE of WRITE_LEN bytes from the first half of the buffer into the
 * second, then an 8-byte WRITE with immediate that a zero-SGE receive
 * absorbs (as the benchmark posts it); both land, byte for byte.
 */
static void check_transfer(struct __test_metadata *_metadata,
			   FIXTURE_DATA(qp) *self)
{
	uint8_t *src = self->buf, *dst = self->buf + BUF_LEN;
	struct ibv_sge sge = {
		.addr = (uintptr_t)src, .length = WRITE_LEN,
		.lkey = self->mr->lkey,
	};
	struct ibv_sge sge_imm = {
		.addr = (uintptr_t)src, .length = sizeof(uint64_t),
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr imm_wr = {
		.wr_id = 2, .sg_list = &sge_imm, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htonl(IMM_VALUE),
		.wr.rdma = {
			.remote_addr = (uintptr_t)(dst + BUF_LEN - sizeof(uint64_t)),
			.rkey = self->mr->rkey,
		},
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)dst,
			     .rkey = self->mr->rkey },
		.next = &imm_wr,
	};
	struct ibv_recv_wr rwr = { .wr_id = 3, .num_sge = 0 }, *bad_rwr;
	struct ibv_send_wr *bad_wr;
	struct ibv_wc wc[3];
	bool write_ok = false, imm_ok = false, recv_ok = false;
	int i, n;

	for (i = 0; i < WRITE_LEN; i++)
		src[i] = (uint8_t)(i * 7 + 1);
	memset(dst, 0, BUF_LEN);
	ASSERT_EQ(0, mrc_post_recv(self->qp, &rwr, &bad_rwr));
	ASSERT_EQ(0, mrc_post_send(self->qp, &wr, &bad_wr));
	n = poll_n(self->cq, wc, 3);
	ASSERT_EQ(3, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status)
			TH_LOG("wr %llu: %s", (unsigned long long)wc[i].wr_id,
			       ibv_wc_status_str(wc[i].status));
		if (wc[i].wr_id == 1)
			write_ok = wc[i].opcode == IBV_WC_RDMA_WRITE;
		else if (wc[i].wr_id == 2)
			imm_ok = wc[i].opcode == IBV_WC_RDMA_WRITE;
		else if (wc[i].wr_id == 3)
			recv_ok = wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
				  (wc[i].wc_flags & IBV_WC_WITH_IMM) &&
				  ntohl(wc[i].imm_data) == IMM_VALUE;
	}
	EXPECT_TRUE(write_ok);
	EXPECT_TRUE(imm_ok);
	EXPECT_TRUE(recv_ok);
	EXPECT_EQ(0, memcmp(src, dst, WRITE_LEN));
	EXPECT_EQ(0, memcmp(src, dst + BUF_LEN - sizeof(uint64_t),
			    sizeof(uint64_t)));
}

TEST(device)
{
	struct ibv_context *ibv = mrc_open_device();
	struct mrc_device_attr attr;
	struct mrc_context *mctx, *other;
	int supported = -1;

	ASSERT_NE(NULL, ibv);
	ASSERT_EQ(0, mrc_query_device(ibv, &attr, &supported));
	EXPECT_EQ(1, supported);
	EXPECT_EQ(MRC_PROTOCOL_VERSION_1, attr.mrc_protocol_version);
	EXPECT_EQ(API_MAX_WIMM, attr.wimm_attr.max_wimm);
	EXPECT_EQ(API_MAX_WIMM, attr.wimm_attr.max_wimm_dest);
	EXPECT_EQ(API_MAX_MPR, attr.mpr_attr.max_mpr);
	EXPECT_EQ(1, attr.mpr_attr.mpr_resolution);
	EXPECT_EQ(API_MAX_HINTS, attr.qp_attr.max_qp_hint);
	EXPECT_EQ(MRC_DEVICE_CAP_TRIM_NACK, attr.cap);

	mctx = mrc_create_context(ibv, NULL);
	ASSERT_NE(NULL, mctx);
	supported = -1;
	EXPECT_EQ(0, mrc_query_device_ex(ibv, mctx, &attr, &supported));
	EXPECT_EQ(1, supported);
	EXPECT_EQ(0, mrc_query_device_ex(ibv, NULL, &attr, &supported));

	errno = 0;
	EXPECT_EQ(-1, mrc_query_device(ibv, NULL, &supported));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_query_device(NULL, &attr, &supported));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_query_device(ibv, &attr, NULL));
	EXPECT_EQ(EINVAL, errno);
	/* A context of another device (here: of another ibv_context). */
	other = NULL;
	{
		struct ibv_context *ibv2 = mrc_open_device();

		ASSERT_NE(NULL, ibv2);
		other = mrc_create_context(ibv2, NULL);
		ASSERT_NE(NULL, other);
		errno = 0;
		EXPECT_EQ(-1, mrc_query_device_ex(ibv, other, &attr,
						  &supported));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, mrc_destroy_context(other));
		EXPECT_EQ(0, ibv_close_device(ibv2));
	}
	EXPECT_EQ(0, mrc_destroy_context(mctx));
	EXPECT_EQ(0, ibv_close_device(ibv));
}

TEST_F(qp, hints)
{
	struct mrc_qp_hint_init_attr init = {
		.attr = { .num_qps_per_peer = 2, .num_send_peers = 8,
			  .num_remote_recv_peers = 16 },
	};
	struct mrc_qp_hint_attr got = {}, bad = { .num_send_peers = -1 };
	struct mrc_qp_attr attr = {};
	struct mrc_qp_hint *hint;

	hint = mrc_create_qp_hint(self->mctx, &init);
	ASSERT_NE(NULL, hint) TH_LOG("create_qp_hint: %s", strerror(errno));
	ASSERT_EQ(0, mrc_query_qp_hint(hint, &got,
				       MRC_QP_HINT_NUM_QPS_PER_PEER |
				       MRC_QP_HINT_NUM_SEND_PEERS |
				       MRC_QP_HINT_NUM_REMOTE_RECV_PEERS));
	EXPECT_EQ(2, got.num_qps_per_peer);
	EXPECT_EQ(8, got.num_send_peers);
	EXPECT_EQ(16, got.num_remote_recv_peers);
	got.num_send_peers = 3;
	ASSERT_EQ(0, mrc_modify_qp_hint(hint, &got,
					MRC_QP_HINT_NUM_SEND_PEERS));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, mrc_query_qp_hint(hint, &got,
				       MRC_QP_HINT_NUM_SEND_PEERS |
				       MRC_QP_HINT_NUM_QPS_PER_PEER));
	EXPECT_EQ(3, got.num_send_peers);
	EXPECT_EQ(2, got.num_qps_per_peer);

	/* Refused, and nothing changed. */
	errno = 0;
	EXPECT_EQ(-1, mrc_modify_qp_hint(hint, &bad,
					 MRC_QP_HINT_NUM_SEND_PEERS));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_modify_qp_hint(hint, &got, 1 << 5));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_query_qp_hint(hint, NULL,
					MRC_QP_HINT_NUM_SEND_PEERS));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mrc_query_qp_hint(hint, &got, MRC_QP_HINT_NUM_SEND_PEERS));
	EXPECT_EQ(3, got.num_send_peers);
	init.attr.num_qps_per_peer = -2;
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_qp_hint(self->mctx, &init));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_qp_hint(self->mctx, NULL));
	EXPECT_EQ(EINVAL, errno);

	/* Named by a QP: busy until the QP lets go of it. */
	attr.qp_hint = hint;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, NULL, 0, &attr, MRC_QP_HINT));
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_qp_hint(hint));
	EXPECT_EQ(EBUSY, errno);
	memset(&attr, 0, sizeof(attr));
	ASSERT_EQ(0, mrc_query_qp(self->qp, NULL, 0, &attr, MRC_QP_HINT,
				  NULL));
	EXPECT_EQ(hint, attr.qp_hint);
	attr.qp_hint = NULL;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, NULL, 0, &attr, MRC_QP_HINT));
	EXPECT_EQ(0, mrc_destroy_qp_hint(hint));
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_qp_hint(NULL));
	EXPECT_EQ(EINVAL, errno);
}

/* A new QP: in RESET, with the device's defaults (module parameters). */
TEST_F(qp, defaults)
{
	struct mrc_qp_init_attr init = {};
	struct mrc_qp_attr a;
	unsigned int mpr = read_param("mpr_units");

	ASSERT_NE(0, mpr);
	memset(&a, 0xa5, sizeof(a));
	ASSERT_EQ(0, mrc_query_qp(self->qp, NULL, 0, &a, ALL_MRC_ATTRS,
				  &init));
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->qp));
	EXPECT_EQ(mpr, a.mpr.mpr);
	EXPECT_EQ(mpr, a.mpr.mpr_dest);
	EXPECT_EQ(read_param("max_wimm_inflight"), a.wimm.max_wimm);
	EXPECT_EQ(API_MAX_WIMM, a.wimm.max_wimm_dest);
	EXPECT_EQ(API_DEFAULT_TIMEOUT, a.timeout);
	EXPECT_EQ(API_DEFAULT_LINEAR, a.retry.linear_cnt);
	EXPECT_EQ(read_param("exp_retries"), a.retry.exp_cnt);
	EXPECT_EQ(0, a.profile.ev_profile_id);
	EXPECT_EQ(0, a.profile.cc_profile_id);
	EXPECT_EQ(NULL, a.qp_hint);
	EXPECT_EQ(0, a.cap);
	/* What it was created with, the caps granted. */
	EXPECT_EQ(self, init.qp_context);
	EXPECT_EQ(self->cq, init.send_cq);
	EXPECT_EQ(self->pd, init.pd);
	EXPECT_GE(init.cap.max_send_wr, MAX_WR);
}

/*
 * The OCP benchmark's sequence: verbs bits the API does not take (PORT at
 * INIT; RETRY_CNT 14, RNR_RETRY, TIMEOUT at RTS) and no MRC attribute:
 * ignored, defaults used, the transfer works.
 */
TEST_F(qp, benchmark_sequence)
{
	struct ibv_qp_attr a = {};
	struct mrc_qp_attr m = {};

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = MRC_PORT;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE |
				   IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS, NULL, 0));
	rtr_attr(&a, &self->path);
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_PATH_MTU, NULL, 0));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = MRC_RQ_PSN;
	a.timeout = 7;
	a.retry_cnt = 14;
	a.rnr_retry = 14;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE |
				   IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_TIMEOUT, NULL, 0));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->qp));
	ASSERT_EQ(0, mrc_query_qp(self->qp, NULL, 0, &m,
				  MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT, NULL));
	EXPECT_EQ(API_DEFAULT_TIMEOUT, m.timeout);
	EXPECT_EQ(API_DEFAULT_LINEAR, m.retry.linear_cnt);
	check_transfer(_metadata, self);
}

/*
 * The OCP QP walk-through (mrc_qp.md): INIT with the state alone and the
 * profiles and hint; RTR and RTS with MRC attributes; then a query with
 * every MRC bit returns what was set, and the transfer works.
 */
TEST_F(qp, walkthrough)
{
	struct mrc_qp_hint_init_attr hinit = {};
	struct mrc_qp_attr m = {}, got;
	struct ibv_qp_attr a = {};
	struct mrc_qp_hint *hint;

	hint = mrc_create_qp_hint(self->mctx, &hinit);
	ASSERT_NE(NULL, hint);
	a.qp_state = IBV_QPS_INIT;
	m.qp_hint = hint;
	m.profile.ev_profile_id = 0;
	m.profile.cc_profile_id = 0;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE, &m,
				   MRC_QP_EV_PROFILE_ID |
				   MRC_QP_CC_PROFILE_ID | MRC_QP_HINT));
	rtr_attr(&a, &self->path);
	m.mpr.mpr = WALK_MPR;
	m.mpr.mpr_dest = WALK_MPR;
	m.wimm.max_wimm = WALK_WIMM;
	m.wimm.max_wimm_dest = WALK_WIMM;
	m.cap = MRC_QP_CAP_DYNAMIC_MPR;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_PATH_MTU, &m,
				   MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST |
				   MRC_QP_CAP));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = MRC_RQ_PSN;
	m.timeout = WALK_TIMEOUT;
	m.retry.linear_cnt = WALK_LINEAR;
	m.retry.exp_cnt = API_EXP_FOREVER;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN,
				   &m, MRC_QP_MAX_WIMM | MRC_QP_MPR |
				   MRC_QP_RETRY_CNT | MRC_QP_TIMEOUT));
	EXPECT_EQ(IBV_QPS_RTS, qp_state(self->qp));

	memset(&got, 0xa5, sizeof(got));
	ASSERT_EQ(0, mrc_query_qp(self->qp, NULL, 0, &got, ALL_MRC_ATTRS,
				  NULL));
	EXPECT_EQ(WALK_MPR, got.mpr.mpr);
	EXPECT_EQ(WALK_MPR, got.mpr.mpr_dest);
	EXPECT_EQ(WALK_WIMM, got.wimm.max_wimm);
	EXPECT_EQ(WALK_WIMM, got.wimm.max_wimm_dest);
	EXPECT_EQ(WALK_TIMEOUT, got.timeout);
	EXPECT_EQ(WALK_LINEAR, got.retry.linear_cnt);
	EXPECT_EQ(API_EXP_FOREVER, got.retry.exp_cnt);
	EXPECT_EQ(0, got.profile.ev_profile_id);
	EXPECT_EQ(0, got.profile.cc_profile_id);
	EXPECT_EQ(hint, got.qp_hint);
	EXPECT_EQ(MRC_QP_CAP_DYNAMIC_MPR, got.cap);
	check_transfer(_metadata, self);

	/* The hint stays busy while the QP names it. */
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_qp_hint(hint));
	EXPECT_EQ(EBUSY, errno);
	ASSERT_EQ(0, mrc_destroy_qp(self->qp));
	self->qp = NULL;
	EXPECT_EQ(0, mrc_destroy_qp_hint(hint));
}

/* Each refusal returns its errno and leaves the QP as it was. */
TEST_F(qp, refusals)
{
	struct mrc_context *other = mrc_create_context(self->ibv, NULL);
	struct mrc_qp_hint_init_attr hinit = {};
	struct mrc_qp_attr m = {}, got = {};
	struct ibv_qp_attr a = {};
	struct mrc_qp_hint *foreign;
	/* One attribute out of range in m each (set below), by its bit. */
	static const struct {
		const char *what;
		int mask;
	} bad[] = {
		{ "mpr 0", MRC_QP_MPR },
		{ "mpr_dest 33", MRC_QP_MPR_DEST },
		{ "max_wimm 0", MRC_QP_MAX_WIMM },
		{ "timeout 25", MRC_QP_TIMEOUT },
		{ "linear 8", MRC_QP_RETRY_CNT },
		{ "unknown cap", MRC_QP_CAP },
		{ "unknown mask bit", 1 << 12 },
	};
	unsigned int i;

	ASSERT_NE(NULL, other);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.mpr.mpr_dest = API_MAX_MPR + 1;
		m.wimm.max_wimm = 0;
		m.timeout = API_MAX_TIMEOUT + 1;
		m.retry.linear_cnt = 8;
		m.cap = 1u << 7;
		EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, &m,
						bad[i].mask))
			TH_LOG("%s accepted", bad[i].what);
	}
	m = (struct mrc_qp_attr){ .retry = { .exp_cnt = API_EXP_FOREVER + 1 } };
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, &m,
					MRC_QP_RETRY_CNT));
	/* A hint of another context. */
	foreign = mrc_create_qp_hint(other, &hinit);
	ASSERT_NE(NULL, foreign);
	m.qp_hint = foreign;
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, &m, MRC_QP_HINT));
	EXPECT_EQ(0, mrc_destroy_qp_hint(foreign));
	/* NULL where attributes are named. */
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, IBV_QP_STATE, NULL, 0));
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, NULL, MRC_QP_MPR));
	EXPECT_EQ(EINVAL, mrc_modify_qp(NULL, NULL, 0, NULL, 0));
	EXPECT_EQ(EINVAL, mrc_query_qp(self->qp, NULL, 0, NULL, MRC_QP_MPR,
				       NULL));

	/* The kernel's refusals: a profile nobody made (at INIT) ... */
	a.qp_state = IBV_QPS_INIT;
	m = (struct mrc_qp_attr){ .profile = { .ev_profile_id = ABSENT_PROFILE } };
	EXPECT_EQ(ENOENT, mrc_modify_qp(self->qp, &a, IBV_QP_STATE, &m,
					MRC_QP_EV_PROFILE_ID));
	EXPECT_EQ(IBV_QPS_RESET, qp_state(self->qp));
	m.profile.ev_profile_id = 0;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE, &m,
				   MRC_QP_EV_PROFILE_ID));
	/* ... profiles, the receive window's attributes after INIT. */
	rtr_attr(&a, &self->path);
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_PATH_MTU, NULL, 0));
	m.mpr.mpr_dest = 1;
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, &m,
					MRC_QP_EV_PROFILE_ID));
	EXPECT_EQ(EINVAL, mrc_modify_qp(self->qp, NULL, 0, &m,
					MRC_QP_MPR_DEST));
	ASSERT_EQ(0, mrc_query_qp(self->qp, NULL, 0, &got, ALL_MRC_ATTRS,
				  NULL));
	EXPECT_EQ(read_param("mpr_units"), got.mpr.mpr_dest);
	EXPECT_EQ(read_param("mpr_units"), got.mpr.mpr);
	EXPECT_EQ(API_DEFAULT_TIMEOUT, got.timeout);
	EXPECT_EQ(API_DEFAULT_LINEAR, got.retry.linear_cnt);
	EXPECT_EQ(0, got.cap);
	EXPECT_EQ(IBV_QPS_RTR, qp_state(self->qp));

	/* Create: CQs of another context, an unknown protocol version. */
	{
		struct mrc_cq *ocq = mrc_create_cq(other, CQE, NULL, NULL,
						   COMP_VECTOR);
		struct mrc_qp_init_attr init = {
			.send_cq = ocq, .recv_cq = self->cq, .pd = self->pd,
			.cap = { .max_send_wr = 1, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
		};

		ASSERT_NE(NULL, ocq);
		errno = 0;
		EXPECT_EQ(NULL, mrc_create_qp(self->mctx, &init));
		EXPECT_EQ(EINVAL, errno);
		init.send_cq = self->cq;
		init.protocol_version = 2;
		errno = 0;
		EXPECT_EQ(NULL, mrc_create_qp(self->mctx, &init));
		EXPECT_EQ(EINVAL, errno);
		EXPECT_EQ(0, mrc_destroy_cq(ocq));
	}
	EXPECT_EQ(0, mrc_destroy_context(other));
}

/*
 * The MRC timeout and retries reach the kernel: to a QP that does not
 * exist, with no linear and no doubling retry, the first expiry fails the
 * WRITE with RETRY_EXC (the verbs attributes passed beside them, a long
 * timeout and 7 retries, are ignored as the API says).
 */
TEST_F(qp, retry_exceeded)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf, .length = 8,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 5, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)self->buf,
			     .rkey = self->mr->rkey },
	};
	struct mrc_qp_attr m = {};
	struct ibv_qp_attr a = {};
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE, NULL, 0));
	self->path.dest_qpn = MRC_ABSENT_QPN;
	rtr_attr(&a, &self->path);
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_PATH_MTU, NULL, 0));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 31;
	a.retry_cnt = 7;
	m.timeout = 1;
	ASSERT_EQ(0, mrc_modify_qp(self->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
				   IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT, &m,
				   MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT));
	ASSERT_EQ(0, mrc_post_send(self->qp, &wr, &bad));
	ASSERT_EQ(1, poll_n(self->cq, &wc, 1));
	EXPECT_EQ(IBV_WC_RETRY_EXC_ERR, wc.status)
		TH_LOG("status %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(5, wc.wr_id);
	EXPECT_EQ(IBV_QPS_ERR, qp_state(self->qp));
}

/*
 * Async events name the MRC objects: more signaled WRITEs than a 1-entry
 * CQ holds (the queue rounds it up to a power of two, far below
 * OVERFLOW_WRS) overflow it, and the events that follow (CQ_ERR for the
 * CQ, QP_FATAL for the QP) carry this library's mrc_cq and mrc_qp; each
 * is acknowledged, so that destroying them does not wait.
 */
TEST_F(qp, async_events)
{
	struct mrc_qp_init_attr init = {};
	struct ibv_qp_attr a = {};
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf, .length = 8,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = (uintptr_t)(self->buf + BUF_LEN),
			     .rkey = self->mr->rkey },
	}, *bad;
	struct mrc_async_event ev;
	bool cq_err = false, qp_fatal = false;
	struct mrc_cq *small;
	struct mrc_qp *qp;
	uint32_t qpn;
	int i, n = 0;

	small = mrc_create_cq(self->mctx, 1, NULL, NULL, COMP_VECTOR);
	ASSERT_NE(NULL, small);
	init.send_cq = small;
	init.recv_cq = small;
	init.cap.max_send_wr = OVERFLOW_WRS;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.pd = self->pd;
	qp = mrc_create_qp(self->mctx, &init);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp: %s", strerror(errno));
	ASSERT_EQ(0, mrc_get_qpn(qp, &qpn));
	self->path.dest_qpn = qpn;
	a.qp_state = IBV_QPS_INIT;
	ASSERT_EQ(0, mrc_modify_qp(qp, &a, IBV_QP_STATE, NULL, 0));
	rtr_attr(&a, &self->path);
	ASSERT_EQ(0, mrc_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
				   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				   IBV_QP_PATH_MTU, NULL, 0));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = MRC_RQ_PSN;
	ASSERT_EQ(0, mrc_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN,
				   NULL, 0));
	for (i = 0; i < OVERFLOW_WRS; i++)
		ASSERT_EQ(0, mrc_post_send(qp, &wr, &bad));

	/* Both events come (they block until there: the harness bounds it). */
	while (!(cq_err && qp_fatal) && n++ < MAX_EVENTS) {
		ASSERT_EQ(0, mrc_get_async_event(self->mctx, &ev));
		if (ev.event_type == IBV_EVENT_CQ_ERR) {
			EXPECT_EQ(small, ev.element.cq);
			cq_err = true;
		} else if (ev.event_type == IBV_EVENT_QP_FATAL) {
			EXPECT_EQ(qp, ev.element.qp);
			qp_fatal = true;
		}
		mrc_ack_async_event(&ev);
	}
	EXPECT_TRUE(cq_err);
	EXPECT_TRUE(qp_fatal);
	EXPECT_EQ(IBV_QPS_ERR, qp_state(qp));
	EXPECT_EQ(0, mrc_destroy_qp(qp));
	EXPECT_EQ(0, mrc_destroy_cq(small));
	EXPECT_EQ(EINVAL, mrc_get_async_event(NULL, &ev));
}

/* Posting: only WRITE and WRITE with immediate; the bad WR is named. */
TEST_F(qp, post_refusals)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)self->buf, .length = 8,
		.lkey = self->mr->lkey,
	};
	struct ibv_send_wr read_wr = {
		.wr_id = 9, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_READ,
	};
	struct ibv_send_wr wr = {
		.wr_id = 8, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE, .next = &read_wr,
	};
	struct ibv_send_wr send_wr = {
		.wr_id = 7, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND,
	};
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc;

	EXPECT_EQ(EINVAL, mrc_post_send(self->qp, &send_wr, &bad));
	EXPECT_EQ(&send_wr, bad);
	bad = NULL;
	EXPECT_EQ(EINVAL, mrc_post_send(self->qp, &wr, &bad));
	EXPECT_EQ(&read_wr, bad);
	EXPECT_EQ(EINVAL, mrc_post_send(NULL, &wr, &bad));
	/* Nothing of the refused list was posted. */
	EXPECT_EQ(0, mrc_poll_cq(self->cq, 1, &wc));
}

TEST_HARNESS_MAIN
