// SPDX-License-Identifier: GPL-2.0
/*
 * A completion that finds its CQ full.  IB requires the CQ to go to error
 * and to say so once (IBV_EVENT_CQ_ERR), and every QP that uses it, as its
 * send or its receive CQ, to go to the error state: a lost completion must
 * never go unnoticed, and a QP must not go on completing work into a CQ
 * that lost some.  The device counts it (hw_counters/cq_overflows).
 *
 *   send_cq_overflow   more signaled RDMA WRITEs than the CQ holds, on a
 *                      QP connected to itself, nothing polled: CQ_ERR
 *                      comes (once: later completions into the same full
 *                      CQ raise no second one), QP_FATAL for the posting
 *                      QP, the QPs that share the CQ (one as its send CQ,
 *                      one as its receive CQ) go to ERR, a QP on another
 *                      CQ stays in RTS and carries data, the counter moves
 *                      by exactly one, the completions the CQ kept are
 *                      the first ones, in order, with their data placed,
 *                      and a new CQ and QP work afterwards.
 *   recv_cq_overflow   the same from the responder side: RDMA WRITE WITH
 *                      IMMEDIATE consumes receives whose completions
 *                      overflow the receive CQ.
 *   full_cq_no_error   exactly cqe completions, all generated before any
 *                      is polled: no CQ_ERR, no QP error, counter
 *                      unchanged, every completion there.
 *
 * The CQs ask for one entry; the provider and kernel may round that up,
 * so the tests use what ibv_create_cq reports (cq->cqe).  Every wait is
 * bounded; async events are read from the context's async fd with
 * poll(2).  The counter is read from sysfs once its cached value (kept
 * "lifespan" ms by the core) has expired.  Run by with_device.sh
 * ($MRC_DEV, $MRC_IPV4).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define SMALL_CQE	1	/* asked for; cq->cqe says what it holds */
#define BIG_CQE		256
#define MAX_WR		64
#define ONE_SGE		1
#define NO_INLINE	0
#define SLOT_BYTES	64	/* each WRITE: its own source and target slot */
#define SLOTS		256
#define HALF_BYTES	(SLOT_BYTES * SLOTS)
#define BUF_BYTES	(2 * HALF_BYTES)
#define WAIT_MS		20000	/* for anything the data path does; TCG is slow */
#define POLL_STEP_MS	10
#define MAX_EVENTS	64
#define IMM_BASE	0x1000
#define WR_ID_OTHER	0x7000
#define WR_ID_FRESH	0x8000
#define WR_ID_LATE	0x9000
#define SLOT_OTHER	(SLOTS - 1)
#define SLOT_FRESH	(SLOTS - 2)
#define SLOT_LATE	(SLOTS - 3)
#define FULL_SQ_WR	16	/* the SQ of full_cq_no_error (a power of two) */
#define MSEC_PER_SEC	1000L
#define NSEC_PER_MSEC	1000000L
#define HW_COUNTERS	"/sys/class/infiniband/%s/ports/%d/hw_counters"
#define COUNTER_FILE	"cq_overflows"
#define LIFESPAN_FILE	"lifespan"
#define LIFESPAN_MARGIN_MS 20	/* a jiffy or two past it */

struct event_rec {
	enum ibv_event_type type;
	void *element;		/* the CQ or QP, NULL for others */
};

FIXTURE(cqo)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t *buf;
	uint64_t counter_before;
	struct event_rec events[MAX_EVENTS];
	int nevents;
};

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MSEC_PER_SEC + ts.tv_nsec / NSEC_PER_MSEC;
}

static int read_file_u64(const char *name, uint64_t *value)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), HW_COUNTERS "/%s",
		 mrc_env_or(MRC_ENV_DEV, "mrc0"), MRC_PORT, name);
	f = fopen(path, "r");
	if (!f)
		return errno;
	ret = fscanf(f, "%" SCNu64, value) == 1 ? 0 : EIO;
	fclose(f);
	return ret;
}

/*
 * The device's cq_overflows, as it is now: the core keeps a device's
 * counters for "lifespan" ms after a read and shows those to reads in
 * that time, so first let that pass (a whole test can take less here).
 */
static int read_counter(uint64_t *value)
{
	uint64_t lifespan_ms;
	int ret;

	ret = read_file_u64(LIFESPAN_FILE, &lifespan_ms);
	if (ret)
		return ret;
	usleep((lifespan_ms + LIFESPAN_MARGIN_MS) * 1000);
	return read_file_u64(COUNTER_FILE, value);
}

FIXTURE_SETUP(cqo)
{
	int flags;

	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	flags = fcntl(self->ctx->async_fd, F_GETFL);
	ASSERT_LE(0, flags);
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL, flags | O_NONBLOCK));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(1, BUF_BYTES);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, BUF_BYTES,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr) TH_LOG("reg_mr: %s", strerror(errno));
	ASSERT_EQ(0, read_counter(&self->counter_before))
		TH_LOG("no cq_overflows counter for $%s", MRC_ENV_DEV);
	self->nevents = 0;
}

FIXTURE_TEARDOWN(cqo)
{
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	free(self->buf);
}

static struct ibv_qp *create_qp(FIXTURE_DATA(cqo) *self,
				struct ibv_cq *send_cq, struct ibv_cq *recv_cq,
				uint32_t max_wr)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = send_cq;
	attr.recv_cq = recv_cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = max_wr;
	attr.cap.max_recv_wr = max_wr;
	attr.cap.max_send_sge = ONE_SGE;
	attr.cap.max_recv_sge = ONE_SGE;
	attr.cap.max_inline_data = NO_INLINE;
	return ibv_create_qp(self->pd, &attr);
}

/* The byte slot @slot's WRITE carries: its own, and never zero. */
static uint8_t pattern(unsigned int slot, unsigned int i)
{
	return (uint8_t)(slot * 7 + i * 3 + 1) | 1;
}

static uint8_t *src_slot(FIXTURE_DATA(cqo) *self, unsigned int slot)
{
	return self->buf + (size_t)slot * SLOT_BYTES;
}

static uint8_t *dst_slot(FIXTURE_DATA(cqo) *self, unsigned int slot)
{
	return self->buf + HALF_BYTES + (size_t)slot * SLOT_BYTES;
}

/* One RDMA WRITE (WITH IMM if imm) from source slot to target slot. */
static int post_write(FIXTURE_DATA(cqo) *self, struct ibv_qp *qp,
		      uint64_t wr_id, unsigned int slot, bool signaled,
		      bool imm)
{
	struct ibv_send_wr wr, *bad = NULL;
	struct ibv_sge sge;
	unsigned int i;

	for (i = 0; i < SLOT_BYTES; i++)
		src_slot(self, slot)[i] = pattern(slot, i);
	memset(dst_slot(self, slot), 0, SLOT_BYTES);
	sge.addr = (uintptr_t)src_slot(self, slot);
	sge.length = SLOT_BYTES;
	sge.lkey = self->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.imm_data = htobe32(IMM_BASE + slot);
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	wr.wr.rdma.remote_addr = (uintptr_t)dst_slot(self, slot);
	wr.wr.rdma.rkey = self->mr->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* The target slot holds what its WRITE carried. */
static bool slot_landed(FIXTURE_DATA(cqo) *self, unsigned int slot)
{
	unsigned int i;

	for (i = 0; i < SLOT_BYTES; i++)
		if (dst_slot(self, slot)[i] != pattern(slot, i))
			return false;
	return true;
}

static int post_recv(struct ibv_qp *qp, uint64_t wr_id)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id }, *bad = NULL;

	return ibv_post_recv(qp, &wr, &bad);
}

static void *event_element(const struct ibv_async_event *ev)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->element.cq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return ev->element.qp;
	default:
		return NULL;
	}
}

/*
 * Read async events into self->events until one of @type on @element
 * has been recorded (now or before) or @timeout_ms passed; with
 * @timeout_ms 0, read only what is already queued.  Returns 0, ETIMEDOUT
 * or an errno.
 */
static int await_event(FIXTURE_DATA(cqo) *self, enum ibv_event_type type,
		       void *element, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	struct ibv_async_event ev;
	bool want = element != NULL;
	int i;

	for (;;) {
		struct pollfd pfd = { .fd = self->ctx->async_fd,
				      .events = POLLIN };
		long left;
		int ret;

		for (i = 0; want && i < self->nevents; i++)
			if (self->events[i].type == type &&
			    self->events[i].element == element)
				return 0;
		left = deadline - now_ms();
		ret = poll(&pfd, 1, left > 0 ? (int)left : 0);
		if (ret < 0 && errno != EINTR)
			return errno;
		if (ret <= 0) {
			if (left <= 0)
				return want ? ETIMEDOUT : 0;
			continue;
		}
		if (ibv_get_async_event(self->ctx, &ev)) {
			if (errno == EAGAIN)
				continue;
			return errno;
		}
		if (self->nevents < MAX_EVENTS) {
			self->events[self->nevents].type = ev.event_type;
			self->events[self->nevents].element = event_element(&ev);
			self->nevents++;
		}
		fprintf(stderr, "# async event: %s\n",
			ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
	}
}

/* Everything already queued on the async fd, recorded. */
static int drain_events(FIXTURE_DATA(cqo) *self)
{
	return await_event(self, IBV_EVENT_CQ_ERR, NULL, 0);
}

static int count_events(FIXTURE_DATA(cqo) *self, enum ibv_event_type type,
			void *element)
{
	int i, n = 0;

	for (i = 0; i < self->nevents; i++)
		if (self->events[i].type == type &&
		    (!element || self->events[i].element == element))
			n++;
	return n;
}

/* Poll ibv_query_qp until the QP is in @state; 0 or ETIMEDOUT. */
static int await_state(struct ibv_qp *qp, enum ibv_qp_state state,
		       int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;

	for (;;) {
		if (mrc_qp_state(qp) == (int)state)
			return 0;
		if (now_ms() > deadline)
			return ETIMEDOUT;
		usleep(POLL_STEP_MS * 1000);
	}
}

/*
 * A new CQ and QP of the same context, connected to itself: one WRITE
 * completes and its data lands.  The device is fine.
 */
static void check_fresh_pair(struct __test_metadata *_metadata,
			     FIXTURE_DATA(cqo) *self)
{
	struct ibv_wc wc;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	cq = ibv_create_cq(self->ctx, BIG_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	qp = create_qp(self, cq, cq, MAX_WR);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp: %s", strerror(errno));
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp, MRC_RQ_PSN));
	ASSERT_EQ(0, post_write(self, qp, WR_ID_FRESH, SLOT_FRESH, true,
				false));
	ASSERT_EQ(1, mrc_poll_n(cq, &wc, 1, WAIT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc.status)
		TH_LOG("status %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(WR_ID_FRESH, wc.wr_id);
	EXPECT_TRUE(slot_landed(self, SLOT_FRESH));
	EXPECT_EQ(IBV_QPS_RTS, mrc_qp_state(qp));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

static void check_counter_moved_by(struct __test_metadata *_metadata,
				   FIXTURE_DATA(cqo) *self, uint64_t by)
{
	uint64_t now;

	ASSERT_EQ(0, read_counter(&now));
	EXPECT_EQ(self->counter_before + by, now)
		TH_LOG("cq_overflows went from %" PRIu64 " to %" PRIu64,
		       self->counter_before, now);
}

TEST_F_TIMEOUT(cqo, send_cq_overflow, 180)
{
	struct ibv_qp *qp_other, *qp_post, *qp_rshare, *qp_sshare;
	struct ibv_cq *small, *big;
	struct ibv_wc wc[SLOTS];
	unsigned int cqe, nposts, i;
	int n;

	small = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, small) TH_LOG("create_cq: %s", strerror(errno));
	ASSERT_LE(SMALL_CQE, small->cqe);
	cqe = (unsigned int)small->cqe;
	big = ibv_create_cq(self->ctx, BIG_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, big);
	/* More completions than the CQ can hold, whatever it rounded to. */
	nposts = 2 * (cqe + 1) + 2;
	TH_LOG("CQ asked for %d entries, holds %u; posting %u", SMALL_CQE,
	       cqe, nposts);
	ASSERT_LE(nposts, MAX_WR);
	ASSERT_LE(nposts, SLOT_LATE);

	/*
	 * The QP on the other CQ first: it has the lowest QPN, so the walk
	 * over the device's QPs that errors those of the full CQ has passed
	 * it by the time the others are in error.
	 */
	qp_other = create_qp(self, big, big, MAX_WR);
	ASSERT_NE(NULL, qp_other);
	qp_post = create_qp(self, small, big, MAX_WR);
	ASSERT_NE(NULL, qp_post);
	qp_rshare = create_qp(self, big, small, MAX_WR);	/* recv CQ */
	ASSERT_NE(NULL, qp_rshare);
	qp_sshare = create_qp(self, small, big, MAX_WR);	/* send CQ */
	ASSERT_NE(NULL, qp_sshare);
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_other, MRC_RQ_PSN));
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_post, MRC_RQ_PSN));
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_rshare, MRC_RQ_PSN));
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_sshare, MRC_RQ_PSN));
	ASSERT_EQ(0, drain_events(self));
	ASSERT_EQ(0, self->nevents) TH_LOG("async events before the test");

	for (i = 0; i < nposts; i++)
		ASSERT_EQ(0, post_write(self, qp_post, i, i, true, false));

	/* Told once the CQ lost a completion; the posting QP is fatal. */
	ASSERT_EQ(0, await_event(self, IBV_EVENT_CQ_ERR, small, WAIT_MS))
		TH_LOG("no CQ_ERR for the full CQ in %d ms", WAIT_MS);
	ASSERT_EQ(0, await_event(self, IBV_EVENT_QP_FATAL, qp_post, WAIT_MS))
		TH_LOG("no QP_FATAL for the posting QP");

	/* Every QP of the CQ is in error, however it uses it. */
	EXPECT_EQ(0, await_state(qp_post, IBV_QPS_ERR, WAIT_MS))
		TH_LOG("posting QP in state %d", mrc_qp_state(qp_post));
	EXPECT_EQ(0, await_state(qp_rshare, IBV_QPS_ERR, WAIT_MS))
		TH_LOG("QP with it as recv CQ in state %d",
		       mrc_qp_state(qp_rshare));
	EXPECT_EQ(0, await_state(qp_sshare, IBV_QPS_ERR, WAIT_MS))
		TH_LOG("QP with it as send CQ in state %d",
		       mrc_qp_state(qp_sshare));

	/* The QP on the other CQ is untouched and carries data. */
	EXPECT_EQ(IBV_QPS_RTS, mrc_qp_state(qp_other));
	ASSERT_EQ(0, post_write(self, qp_other, WR_ID_OTHER, SLOT_OTHER, true,
				false));
	ASSERT_EQ(1, mrc_poll_n(big, wc, 1, WAIT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status)
		TH_LOG("status %s", ibv_wc_status_str(wc[0].status));
	EXPECT_EQ(WR_ID_OTHER, wc[0].wr_id);
	EXPECT_EQ(qp_other->qp_num, wc[0].qp_num);
	EXPECT_TRUE(slot_landed(self, SLOT_OTHER));
	EXPECT_EQ(IBV_QPS_RTS, mrc_qp_state(qp_other));

	/*
	 * More completions for the full CQ (flushes of WRs posted to QPs in
	 * error, through the kernel's doorbell, synchronously): no second
	 * CQ_ERR, the counter does not move again.
	 */
	EXPECT_EQ(0, post_recv(qp_rshare, WR_ID_LATE));
	EXPECT_EQ(0, post_write(self, qp_sshare, WR_ID_LATE, SLOT_LATE, true,
				false));
	ASSERT_EQ(0, drain_events(self));
	EXPECT_EQ(1, count_events(self, IBV_EVENT_CQ_ERR, small));
	EXPECT_EQ(0, count_events(self, IBV_EVENT_CQ_ERR, big));
	EXPECT_EQ(0, count_events(self, IBV_EVENT_QP_FATAL, qp_other));
	check_counter_moved_by(_metadata, self, 1);

	/* What the CQ kept: the first completions, in order, data placed. */
	n = ibv_poll_cq(small, SLOTS, wc);
	ASSERT_LE((int)cqe, n) TH_LOG("polled %d of a CQ of %u", n, cqe);
	ASSERT_GT((int)nposts, n);
	for (i = 0; i < (unsigned int)n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status)
			TH_LOG("completion %u: %s", i,
			       ibv_wc_status_str(wc[i].status));
		EXPECT_EQ(i, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_RDMA_WRITE, wc[i].opcode);
		EXPECT_EQ(qp_post->qp_num, wc[i].qp_num);
		EXPECT_TRUE(slot_landed(self, i)) TH_LOG("slot %u", i);
	}
	EXPECT_EQ(0, ibv_poll_cq(small, SLOTS, wc));

	check_fresh_pair(_metadata, self);
	check_counter_moved_by(_metadata, self, 1);

	EXPECT_EQ(0, ibv_destroy_qp(qp_sshare));
	EXPECT_EQ(0, ibv_destroy_qp(qp_rshare));
	EXPECT_EQ(0, ibv_destroy_qp(qp_post));
	EXPECT_EQ(0, ibv_destroy_qp(qp_other));
	EXPECT_EQ(0, ibv_destroy_cq(big));
	EXPECT_EQ(0, ibv_destroy_cq(small));
}

TEST_F_TIMEOUT(cqo, recv_cq_overflow, 180)
{
	struct ibv_qp *qp_recv, *qp_sshare;
	struct ibv_cq *small, *big;
	struct ibv_wc wc[SLOTS];
	unsigned int cqe, nposts, i;
	int n;

	small = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, small);
	cqe = (unsigned int)small->cqe;
	ASSERT_LE(SMALL_CQE, cqe);
	big = ibv_create_cq(self->ctx, BIG_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, big);
	nposts = 2 * (cqe + 1) + 2;
	ASSERT_LE(nposts, MAX_WR);
	ASSERT_LE(nposts, SLOT_LATE);

	/* Receives complete into the small CQ, sends into the big one. */
	qp_recv = create_qp(self, big, small, MAX_WR);
	ASSERT_NE(NULL, qp_recv);
	qp_sshare = create_qp(self, small, big, MAX_WR);
	ASSERT_NE(NULL, qp_sshare);
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_recv, MRC_RQ_PSN));
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp_sshare, MRC_RQ_PSN));

	for (i = 0; i < nposts; i++)
		ASSERT_EQ(0, post_recv(qp_recv, i));
	for (i = 0; i < nposts; i++)
		ASSERT_EQ(0, post_write(self, qp_recv, i, i, false, true));

	ASSERT_EQ(0, await_event(self, IBV_EVENT_CQ_ERR, small, WAIT_MS))
		TH_LOG("no CQ_ERR for the full receive CQ in %d ms", WAIT_MS);
	ASSERT_EQ(0, await_event(self, IBV_EVENT_QP_FATAL, qp_recv, WAIT_MS));
	EXPECT_EQ(0, await_state(qp_recv, IBV_QPS_ERR, WAIT_MS));
	EXPECT_EQ(0, await_state(qp_sshare, IBV_QPS_ERR, WAIT_MS))
		TH_LOG("QP with it as send CQ in state %d",
		       mrc_qp_state(qp_sshare));
	ASSERT_EQ(0, drain_events(self));
	EXPECT_EQ(1, count_events(self, IBV_EVENT_CQ_ERR, small));
	EXPECT_EQ(0, count_events(self, IBV_EVENT_CQ_ERR, big));
	check_counter_moved_by(_metadata, self, 1);

	/* The receive completions it kept: the first, in order. */
	n = ibv_poll_cq(small, SLOTS, wc);
	ASSERT_LE((int)cqe, n);
	ASSERT_GT((int)nposts, n);
	for (i = 0; i < (unsigned int)n; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status)
			TH_LOG("completion %u: %s", i,
			       ibv_wc_status_str(wc[i].status));
		EXPECT_EQ(i, wc[i].wr_id);
		EXPECT_EQ(IBV_WC_RECV_RDMA_WITH_IMM, wc[i].opcode);
		EXPECT_TRUE(wc[i].wc_flags & IBV_WC_WITH_IMM);
		EXPECT_EQ(IMM_BASE + i, be32toh(wc[i].imm_data));
		EXPECT_TRUE(slot_landed(self, i)) TH_LOG("slot %u", i);
	}

	check_fresh_pair(_metadata, self);

	EXPECT_EQ(0, ibv_destroy_qp(qp_sshare));
	EXPECT_EQ(0, ibv_destroy_qp(qp_recv));
	EXPECT_EQ(0, ibv_destroy_cq(big));
	EXPECT_EQ(0, ibv_destroy_cq(small));
}

/*
 * Post @wr_id's unsignaled WRITE (slot @slot), retrying while the SQ is
 * full (ENOMEM: a slot frees when the oldest WR completes); 0 or an errno.
 */
static int post_when_room(FIXTURE_DATA(cqo) *self, struct ibv_qp *qp,
			  uint64_t wr_id, unsigned int slot, long deadline)
{
	int ret;

	for (;;) {
		ret = post_write(self, qp, wr_id, slot, false, false);
		if (ret != ENOMEM)
			return ret;
		if (now_ms() > deadline)
			return ETIMEDOUT;
		usleep(POLL_STEP_MS * 1000);
	}
}

TEST_F_TIMEOUT(cqo, full_cq_no_error, 180)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	struct ibv_wc wc[SLOTS];
	unsigned int cqe, sq, i;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	long deadline;
	int n;

	cq = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	cqe = (unsigned int)cq->cqe;
	qp = create_qp(self, cq, cq, FULL_SQ_WR);
	ASSERT_NE(NULL, qp);
	ASSERT_EQ(0, ibv_query_qp(qp, &attr, IBV_QP_CAP, &init));
	sq = init.cap.max_send_wr;
	TH_LOG("CQ holds %u, SQ %u", cqe, sq);
	ASSERT_LT(cqe, sq);
	ASSERT_LE(2 * sq + 1, SLOTS);
	ASSERT_EQ(0, mrc_qp_connect_self(self->ctx, qp, MRC_RQ_PSN));

	/*
	 * cqe signaled WRITEs, then unsignaled ones up to a full SQ; then sq
	 * more unsignaled, each posted once a slot is free.  When the last
	 * is posted, the first sq WRs have all completed (in order), so the
	 * cqe completions are all in the CQ, none polled yet.
	 */
	for (i = 0; i < sq; i++)
		ASSERT_EQ(0, post_write(self, qp, i, i, i < cqe, false));
	deadline = now_ms() + WAIT_MS;
	for (i = sq; i < 2 * sq; i++)
		ASSERT_EQ(0, post_when_room(self, qp, i, i, deadline))
			TH_LOG("WR %u never found room in the SQ", i);

	/* A full CQ that lost nothing: no event, no error. */
	ASSERT_EQ(0, drain_events(self));
	EXPECT_EQ(0, self->nevents);
	EXPECT_EQ(IBV_QPS_RTS, mrc_qp_state(qp));
	check_counter_moved_by(_metadata, self, 0);

	n = ibv_poll_cq(cq, SLOTS, wc);
	ASSERT_EQ((int)cqe, n);
	for (i = 0; i < cqe; i++) {
		EXPECT_EQ(IBV_WC_SUCCESS, wc[i].status)
			TH_LOG("completion %u: %s", i,
			       ibv_wc_status_str(wc[i].status));
		EXPECT_EQ(i, wc[i].wr_id);
	}
	for (i = 0; i < sq; i++)
		EXPECT_TRUE(slot_landed(self, i)) TH_LOG("slot %u", i);

	/* The CQ goes on working: a last signaled WRITE, after all others. */
	ASSERT_EQ(0, post_write(self, qp, WR_ID_LATE, 2 * sq, true, false));
	ASSERT_EQ(1, mrc_poll_n(cq, wc, 1, WAIT_MS));
	EXPECT_EQ(IBV_WC_SUCCESS, wc[0].status);
	EXPECT_EQ(WR_ID_LATE, wc[0].wr_id);
	for (i = sq; i <= 2 * sq; i++)
		EXPECT_TRUE(slot_landed(self, i)) TH_LOG("slot %u", i);
	ASSERT_EQ(0, drain_events(self));
	EXPECT_EQ(0, self->nevents);
	check_counter_moved_by(_metadata, self, 0);

	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_HARNESS_MAIN
