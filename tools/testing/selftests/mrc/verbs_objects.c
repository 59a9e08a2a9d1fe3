// SPDX-License-Identifier: GPL-2.0
/*
 * Lifecycle of the verbs objects of an mrc device through the
 * distribution's libibverbs: device and port queries, user contexts, PDs,
 * MRs, CQs, completion channels, AHs; and the errno of each bad call.
 *
 * Run by with_device.sh, which creates the device and sets $MRC_DEV and
 * $MRC_IPV4.  Completions are produced without a data path: receives and
 * sends are flushed by moving their QP to the error state.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define SMALL_CQE	16
#define SMALL_WR	8
#define ONE_SGE		1
#define NO_INLINE	0
#define MANY_PDS	16
#define FLUSH_WAIT_MS	10000	/* flushes are asynchronous; TCG is slow */
#define EVENT_WAIT_MS	10000
#define NO_WAIT_MS	0
#define HUGE_MR_LEN	(1ULL << 40)	/* 1 TiB: never mappable here */
#define WR_ID_BASE	0x1000
#define SEND_WR_ID	0xabc
#define MR_BYTES	4096
#define BAD_ACCESS_BIT	(1U << 30)	/* not an ibv_access_flags value */
#define FLUSH_TIMEOUT	20		/* 4.3 s: no retry expiry meanwhile */

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* len bytes of anonymous memory followed by an unmapped page. */
static void *map_guarded(size_t len)
{
	size_t ps = page_size();
	size_t mapped = (len + ps - 1) / ps * ps;
	char *p;

	p = mmap(NULL, mapped + ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (munmap(p + mapped, ps)) {
		munmap(p, mapped + ps);
		return NULL;
	}
	memset(p, 0, mapped);
	return p;
}

static void unmap_guarded(void *p, size_t len)
{
	size_t ps = page_size();

	munmap(p, (len + ps - 1) / ps * ps);
}

FIXTURE(dev)
{
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port;
	struct ibv_pd *pd;
};

FIXTURE_SETUP(dev)
{
	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	ASSERT_EQ(0, ibv_query_port(self->ctx, MRC_PORT, &self->port));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd) TH_LOG("alloc_pd: %s", strerror(errno));
}

FIXTURE_TEARDOWN(dev)
{
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

/* Caps an MRC device must report: no READ/ATOMIC resources, no SRQ. */
TEST_F(dev, device_caps)
{
	EXPECT_EQ(0, self->attr.max_qp_rd_atom);
	EXPECT_EQ(0, self->attr.max_qp_init_rd_atom);
	EXPECT_EQ(IBV_ATOMIC_NONE, self->attr.atomic_cap);
	EXPECT_EQ(0, self->attr.max_srq);
	EXPECT_EQ(1, self->attr.phys_port_cnt);
	EXPECT_LT(0, self->attr.max_qp);
	EXPECT_LT(0, self->attr.max_qp_wr);
	EXPECT_LT(0, self->attr.max_sge);
	EXPECT_LT(0, self->attr.max_cq);
	EXPECT_LT(0, self->attr.max_cqe);
	EXPECT_LT(0, self->attr.max_mr);
	EXPECT_LT(0, self->attr.max_pd);
	EXPECT_LT(0, self->attr.max_mr_size);
	EXPECT_LT(0, self->attr.max_pkeys);
}

TEST_F(dev, device_ex_matches)
{
	struct ibv_device_attr_ex ex;

	memset(&ex, 0, sizeof(ex));
	ASSERT_EQ(0, ibv_query_device_ex(self->ctx, NULL, &ex));
	EXPECT_EQ(self->attr.max_qp, ex.orig_attr.max_qp);
	EXPECT_EQ(self->attr.max_cqe, ex.orig_attr.max_cqe);
	EXPECT_EQ(0, ex.orig_attr.max_qp_rd_atom);
	EXPECT_EQ(0, ex.orig_attr.max_qp_init_rd_atom);
	EXPECT_EQ(IBV_ATOMIC_NONE, ex.orig_attr.atomic_cap);
	EXPECT_EQ(0, ex.orig_attr.max_srq);
}

TEST_F(dev, node_and_transport)
{
	EXPECT_EQ(IBV_NODE_CA, self->ctx->device->node_type);
	EXPECT_EQ(IBV_TRANSPORT_IB, self->ctx->device->transport_type);
	EXPECT_STREQ(mrc_device_name(),
		     ibv_get_device_name(self->ctx->device));
}

TEST_F(dev, port_attrs)
{
	EXPECT_EQ(IBV_PORT_ACTIVE, self->port.state);
	EXPECT_EQ(IBV_LINK_LAYER_ETHERNET, self->port.link_layer);
	EXPECT_LT(0, self->port.gid_tbl_len);
	EXPECT_LT(0, self->port.pkey_tbl_len);
	EXPECT_LE(self->port.active_mtu, self->port.max_mtu);
	EXPECT_LE(IBV_MTU_1024, self->port.active_mtu);
}

TEST_F(dev, port_out_of_range)
{
	struct ibv_port_attr port;

	EXPECT_EQ(EINVAL, ibv_query_port(self->ctx, MRC_PORT + 1, &port));
}

TEST_F(dev, gid_query)
{
	struct ibv_gid_entry entry;
	union ibv_gid gid, again;
	int index;

	ASSERT_EQ(0, mrc_find_gid(self->ctx, true, &gid, &index))
		TH_LOG("no RoCE v2 GID of $%s=%s", MRC_ENV_IPV4,
		       mrc_env_or(MRC_ENV_IPV4, "(unset)"));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, MRC_PORT, index, &again));
	EXPECT_EQ(0, memcmp(&gid, &again, sizeof(gid)));
	ASSERT_EQ(0, ibv_query_gid_ex(self->ctx, MRC_PORT, index, &entry, 0));
	EXPECT_EQ(IBV_GID_TYPE_ROCE_V2, entry.gid_type);
	EXPECT_EQ(MRC_PORT, entry.port_num);
	EXPECT_EQ((uint32_t)index, entry.gid_index);
}

TEST_F(dev, gid_out_of_range)
{
	union ibv_gid gid;

	EXPECT_NE(0, ibv_query_gid(self->ctx, MRC_PORT,
				   self->port.gid_tbl_len, &gid));
	EXPECT_NE(0, ibv_query_gid(self->ctx, MRC_PORT + 1, 0, &gid));
}

TEST_F(dev, pkey)
{
	__be16 pkey;

	ASSERT_EQ(0, ibv_query_pkey(self->ctx, MRC_PORT, MRC_PKEY_INDEX,
				    &pkey));
	EXPECT_EQ(MRC_DEFAULT_PKEY, ntohs(pkey));
	EXPECT_NE(0, ibv_query_pkey(self->ctx, MRC_PORT,
				    self->port.pkey_tbl_len, &pkey));
}

/* Two user contexts at once, each with its own PD. */
TEST_F(dev, second_context)
{
	struct ibv_context *other = mrc_open_device();
	struct ibv_pd *pd;

	ASSERT_NE(NULL, other) TH_LOG("open: %s", strerror(errno));
	pd = ibv_alloc_pd(other);
	ASSERT_NE(NULL, pd) TH_LOG("alloc_pd: %s", strerror(errno));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_close_device(other));
}

TEST_F(dev, many_pds)
{
	struct ibv_pd *pds[MANY_PDS];
	int i, j;

	for (i = 0; i < MANY_PDS; i++) {
		pds[i] = ibv_alloc_pd(self->ctx);
		ASSERT_NE(NULL, pds[i]) TH_LOG("pd %d: %s", i, strerror(errno));
		for (j = 0; j < i; j++)
			EXPECT_NE(pds[i]->handle, pds[j]->handle);
	}
	for (i = MANY_PDS - 1; i >= 0; i--)
		EXPECT_EQ(0, ibv_dealloc_pd(pds[i]));
}

TEST_F(dev, pd_busy_with_mr)
{
	struct ibv_pd *pd = ibv_alloc_pd(self->ctx);
	void *buf = map_guarded(MR_BYTES);
	struct ibv_mr *mr;

	ASSERT_NE(NULL, pd);
	ASSERT_NE(NULL, buf);
	mr = ibv_reg_mr(pd, buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, mr) TH_LOG("reg_mr: %s", strerror(errno));
	EXPECT_EQ(EBUSY, ibv_dealloc_pd(pd));
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	EXPECT_EQ(0, ibv_dealloc_pd(pd));
	unmap_guarded(buf, MR_BYTES);
}

TEST_F(dev, mr_sizes_and_access)
{
	static const size_t sizes[] = {
		1, 4096, 4097, 65536, 1 << 20, 8 << 20,
	};
	static const unsigned int access[] = {
		0,
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		/* What NCCL-like applications register with. */
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			IBV_ACCESS_REMOTE_READ,
	};
	size_t s, a;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		void *buf = map_guarded(sizes[s]);

		ASSERT_NE(NULL, buf);
		for (a = 0; a < ARRAY_SIZE(access); a++) {
			struct ibv_mr *mr;

			mr = ibv_reg_mr(self->pd, buf, sizes[s], access[a]);
			ASSERT_NE(NULL, mr)
				TH_LOG("reg_mr len %zu access 0x%x: %s",
				       sizes[s], access[a], strerror(errno));
			EXPECT_EQ(buf, mr->addr);
			EXPECT_EQ(sizes[s], mr->length);
			EXPECT_EQ(self->pd, mr->pd);
			EXPECT_EQ(self->ctx, mr->context);
			EXPECT_EQ(0, ibv_dereg_mr(mr));
		}
		unmap_guarded(buf, sizes[s]);
	}
}

/* A region that starts and ends inside pages is a valid MR. */
TEST_F(dev, mr_unaligned)
{
	const size_t offset = 13, len = 3 * MR_BYTES - 100;
	char *buf = map_guarded(3 * MR_BYTES);
	struct ibv_mr *mr;

	ASSERT_NE(NULL, buf);
	mr = ibv_reg_mr(self->pd, buf + offset, len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, mr) TH_LOG("reg_mr: %s", strerror(errno));
	EXPECT_EQ(buf + offset, mr->addr);
	EXPECT_EQ(len, mr->length);
	EXPECT_EQ(0, ibv_dereg_mr(mr));
	unmap_guarded(buf, 3 * MR_BYTES);
}

TEST_F(dev, mr_distinct_keys)
{
	void *buf = map_guarded(2 * MR_BYTES);
	const unsigned int access = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *a, *b;

	ASSERT_NE(NULL, buf);
	a = ibv_reg_mr(self->pd, buf, MR_BYTES, access);
	ASSERT_NE(NULL, a);
	/* The same memory twice is allowed and gives a second MR. */
	b = ibv_reg_mr(self->pd, buf, MR_BYTES, access);
	ASSERT_NE(NULL, b);
	EXPECT_NE(a->lkey, b->lkey);
	EXPECT_NE(a->rkey, b->rkey);
	EXPECT_EQ(0, ibv_dereg_mr(b));
	EXPECT_EQ(0, ibv_dereg_mr(a));
	unmap_guarded(buf, 2 * MR_BYTES);
}

/*
 * Keys say nothing of each other (security.rst, "Memory keys"): the index
 * part (key >> 8) of each registration is random, so registrations made
 * one after the other do not take neighbouring indices.  Of MR_RUN keys
 * in a row, two neighbours by chance happen once in about 2^20 runs.
 */
#define MR_RUN		16
#define MR_KEY_TAG_BITS	8

TEST_F(dev, mr_keys_unpredictable)
{
	void *buf = map_guarded(MR_BYTES);
	struct ibv_mr *mr[MR_RUN];
	unsigned int i, near = 0;

	ASSERT_NE(NULL, buf);
	for (i = 0; i < MR_RUN; i++) {
		mr[i] = ibv_reg_mr(self->pd, buf, MR_BYTES, IBV_ACCESS_LOCAL_WRITE);
		ASSERT_NE(NULL, mr[i]);
	}
	for (i = 1; i < MR_RUN; i++) {
		uint32_t a = mr[i - 1]->lkey >> MR_KEY_TAG_BITS;
		uint32_t b = mr[i]->lkey >> MR_KEY_TAG_BITS;

		near += a + 1 == b || b + 1 == a;
	}
	EXPECT_EQ(0, near);
	for (i = 0; i < MR_RUN; i++)
		EXPECT_EQ(0, ibv_dereg_mr(mr[i]));
	unmap_guarded(buf, MR_BYTES);
}

/* ib_umem_get() refuses zero pages. */
TEST_F(dev, mr_zero_length)
{
	void *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, 0, IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	unmap_guarded(buf, MR_BYTES);
}

/* Pinning page 0 fails. */
TEST_F(dev, mr_null_address)
{
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, NULL, MR_BYTES,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
}

TEST_F(dev, mr_unmapped)
{
	char *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	unmap_guarded(buf, MR_BYTES);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, MR_BYTES,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
}

/* One page mapped, the next one not. */
TEST_F(dev, mr_partially_mapped)
{
	char *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, 2 * MR_BYTES,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EFAULT, errno);
	unmap_guarded(buf, MR_BYTES);
}

/* Far larger than the process' memory, within max_mr_size. */
TEST_F(dev, mr_huge)
{
	uint64_t len = HUGE_MR_LEN;
	void *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	if (len > self->attr.max_mr_size)
		len = self->attr.max_mr_size;
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, len,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_TRUE(errno == EFAULT || errno == ENOMEM)
		TH_LOG("errno %d (%s)", errno, strerror(errno));
	unmap_guarded(buf, MR_BYTES);
}

/* [addr, addr + len) wraps past 2^64. */
TEST_F(dev, mr_wrapping)
{
	size_t ps = page_size();
	void *addr = (void *)(uintptr_t)(UINTPTR_MAX - ps + 1);

	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, addr, 2 * ps,
				   IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
}

/* Remote write needs local write (ib_check_mr_access()). */
TEST_F(dev, mr_remote_write_needs_local_write)
{
	void *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, MR_BYTES,
				   IBV_ACCESS_REMOTE_WRITE));
	EXPECT_EQ(EINVAL, errno);
	unmap_guarded(buf, MR_BYTES);
}

/*
 * No on-demand paging, and no unknown access bits.  The core refuses ODP on
 * a device without it before the driver sees the call (ib_check_mr_access):
 * with EINVAL on 6.1, with EOPNOTSUPP on 6.12.
 */
TEST_F(dev, mr_bad_access)
{
	void *buf = map_guarded(MR_BYTES);
	int err;

	ASSERT_NE(NULL, buf);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, MR_BYTES,
				   IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_ON_DEMAND));
	err = errno;
	EXPECT_TRUE(err == EINVAL || err == EOPNOTSUPP)
		TH_LOG("ODP: errno %d (%s), not EINVAL or EOPNOTSUPP",
		       err, strerror(err));
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr(self->pd, buf, MR_BYTES,
				   IBV_ACCESS_LOCAL_WRITE | BAD_ACCESS_BIT));
	EXPECT_EQ(EINVAL, errno);
	unmap_guarded(buf, MR_BYTES);
}

/* The iova must have the address' offset within its page. */
TEST_F(dev, mr_iova_offset_mismatch)
{
	char *buf = map_guarded(MR_BYTES);

	ASSERT_NE(NULL, buf);
	errno = 0;
	EXPECT_EQ(NULL, ibv_reg_mr_iova(self->pd, buf, MR_BYTES,
					(uintptr_t)buf + 1,
					IBV_ACCESS_LOCAL_WRITE));
	EXPECT_EQ(EINVAL, errno);
	unmap_guarded(buf, MR_BYTES);
}

TEST_F(dev, cq_sizes)
{
	const int sizes[] = { 1, SMALL_CQE, self->attr.max_cqe };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct ibv_cq *cq = ibv_create_cq(self->ctx, sizes[i], NULL,
						  NULL, 0);

		ASSERT_NE(NULL, cq)
			TH_LOG("cqe %d: %s", sizes[i], strerror(errno));
		EXPECT_LE(sizes[i], cq->cqe);
		EXPECT_EQ(0, ibv_destroy_cq(cq));
	}
}

TEST_F(dev, cq_too_large)
{
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_cq(self->ctx, self->attr.max_cqe + 1,
				      NULL, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(dev, cq_poll_empty)
{
	struct ibv_cq *cq = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	struct ibv_wc wc[SMALL_CQE];

	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_poll_cq(cq, SMALL_CQE, wc));
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, wc));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 0));
	EXPECT_EQ(0, ibv_req_notify_cq(cq, 1));
	EXPECT_EQ(0, ibv_poll_cq(cq, SMALL_CQE, wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(dev, cq_resize)
{
	struct ibv_cq *cq = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	struct ibv_wc wc;

	ASSERT_NE(NULL, cq);
	EXPECT_EQ(0, ibv_resize_cq(cq, 4 * SMALL_CQE));
	EXPECT_LE(4 * SMALL_CQE, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_resize_cq(cq, SMALL_CQE / 2));
	EXPECT_LE(SMALL_CQE / 2, cq->cqe);
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(EINVAL, ibv_resize_cq(cq, self->attr.max_cqe + 1));
	EXPECT_EQ(0, ibv_poll_cq(cq, 1, &wc));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

TEST_F(dev, cq_busy_with_qp)
{
	struct ibv_cq *cq = ibv_create_cq(self->ctx, SMALL_CQE, NULL, NULL, 0);
	struct ibv_qp *qp;

	ASSERT_NE(NULL, cq);
	qp = mrc_create_rc_qp(self->pd, cq, SMALL_WR, ONE_SGE, NO_INLINE);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp: %s", strerror(errno));
	EXPECT_EQ(EBUSY, ibv_destroy_cq(cq));
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, ibv_destroy_cq(cq));
}

/* Post n receives with wr_ids WR_ID_BASE + i, one SGE each. */
static int post_recvs(struct ibv_qp *qp, struct ibv_mr *mr, int n)
{
	int i, ret;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)mr->addr,
			.length = (uint32_t)mr->length,
			.lkey = mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = WR_ID_BASE + i,
			.sg_list = &sge,
			.num_sge = 1,
		};
		struct ibv_recv_wr *bad = NULL;

		ret = ibv_post_recv(qp, &wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

static void check_flushed(struct __test_metadata *_metadata,
			  struct ibv_cq *cq, struct ibv_qp *qp, int n)
{
	struct ibv_wc wc[SMALL_CQE];
	int i;

	ASSERT_GE(SMALL_CQE, n);
	ASSERT_EQ(n, mrc_poll_n(cq, wc, n, FLUSH_WAIT_MS));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc[i].status)
			TH_LOG("wc %d: %s", i, ibv_wc_status_str(wc[i].status));
		EXPECT_EQ(WR_ID_BASE + (uint64_t)i, wc[i].wr_id);
		EXPECT_EQ(qp->qp_num, wc[i].qp_num);
	}
	/* Nothing more than was posted. */
	EXPECT_EQ(0, ibv_poll_cq(cq, SMALL_CQE, wc));
}

FIXTURE(flush)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_comp_channel *channel;
	void *buf;
};

FIXTURE_SETUP(flush)
{
	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx) TH_LOG("open: %s", strerror(errno));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->channel = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, self->channel)
		TH_LOG("create_comp_channel: %s", strerror(errno));
	self->cq = ibv_create_cq(self->ctx, SMALL_CQE, self, self->channel, 0);
	ASSERT_NE(NULL, self->cq) TH_LOG("create_cq: %s", strerror(errno));
	self->qp = mrc_create_rc_qp(self->pd, self->cq, SMALL_WR, ONE_SGE,
				    NO_INLINE);
	ASSERT_NE(NULL, self->qp) TH_LOG("create_qp: %s", strerror(errno));
	self->buf = map_guarded(MR_BYTES);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, MR_BYTES,
			      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ASSERT_NE(NULL, self->mr) TH_LOG("reg_mr: %s", strerror(errno));
}

FIXTURE_TEARDOWN(flush)
{
	if (self->qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->qp));
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->channel)
		EXPECT_EQ(0, ibv_destroy_comp_channel(self->channel));
	if (self->buf)
		unmap_guarded(self->buf, MR_BYTES);
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

/* Wait for one event on the fixture's channel and check it names its CQ. */
static void expect_cq_event(struct __test_metadata *_metadata,
			    FIXTURE_DATA(flush) *self)
{
	struct pollfd pfd = { .fd = self->channel->fd, .events = POLLIN };
	struct ibv_cq *ev_cq = NULL;
	void *ev_ctx = NULL;

	ASSERT_EQ(1, poll(&pfd, 1, EVENT_WAIT_MS))
		TH_LOG("no completion event within %d ms", EVENT_WAIT_MS);
	ASSERT_EQ(0, ibv_get_cq_event(self->channel, &ev_cq, &ev_ctx));
	EXPECT_EQ(self->cq, ev_cq);
	EXPECT_EQ(self, ev_ctx);
	ibv_ack_cq_events(ev_cq, 1);
}

/* Receives posted in INIT are flushed when the QP goes to ERR. */
TEST_F(flush, recv_flushed_on_error)
{
	const int n = 3;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, post_recvs(self->qp, self->mr, n));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	check_flushed(_metadata, self->cq, self->qp, n);
}

/* Receives posted to a QP in ERR complete at once with a flush error. */
TEST_F(flush, recv_posted_in_error)
{
	const int n = 2;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	ASSERT_EQ(0, post_recvs(self->qp, self->mr, n));
	check_flushed(_metadata, self->cq, self->qp, n);
}

static int post_write(struct ibv_qp *qp, struct ibv_mr *mr, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)mr->addr,
		.length = (uint32_t)mr->length,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = {
			.remote_addr = (uintptr_t)mr->addr,
			.rkey = mr->rkey,
		},
	};
	struct ibv_send_wr *bad = NULL;

	return ibv_post_send(qp, &wr, &bad);
}

/*
 * An RDMA WRITE to a QP number nobody owns stays outstanding (no ACK can
 * come), and the long timeout keeps the retry counter from expiring first:
 * moving the QP to ERR flushes it.
 */
TEST_F(flush, send_flushed_on_error)
{
	struct mrc_path path;
	struct ibv_qp_attr attr;
	struct ibv_wc wc;
	int mask;

	ASSERT_EQ(0, mrc_loopback_path(self->ctx, MRC_ABSENT_QPN, &path));
	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, mrc_qp_to_rtr(self->qp, &path));
	mrc_rts_attr(&attr, &mask, &path);
	attr.timeout = FLUSH_TIMEOUT;
	ASSERT_EQ(0, ibv_modify_qp(self->qp, &attr, mask));
	ASSERT_EQ(0, post_write(self->qp, self->mr, SEND_WR_ID));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	ASSERT_EQ(1, mrc_poll_n(self->cq, &wc, 1, FLUSH_WAIT_MS));
	EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status)
		TH_LOG("status %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(SEND_WR_ID, wc.wr_id);
	EXPECT_EQ(self->qp->qp_num, wc.qp_num);
	EXPECT_EQ(0, ibv_poll_cq(self->cq, 1, &wc));
}

/* A send posted to a QP in ERR completes at once with a flush error. */
TEST_F(flush, send_posted_in_error)
{
	struct ibv_wc wc;

	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	ASSERT_EQ(0, post_write(self->qp, self->mr, SEND_WR_ID));
	ASSERT_EQ(1, mrc_poll_n(self->cq, &wc, 1, FLUSH_WAIT_MS));
	EXPECT_EQ(IBV_WC_WR_FLUSH_ERR, wc.status)
		TH_LOG("status %s", ibv_wc_status_str(wc.status));
	EXPECT_EQ(SEND_WR_ID, wc.wr_id);
}

/* An armed CQ signals its channel when a completion arrives. */
TEST_F(flush, completion_channel_event)
{
	struct pollfd pfd = { .fd = self->channel->fd, .events = POLLIN };

	ASSERT_EQ(0, ibv_req_notify_cq(self->cq, 0));
	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, post_recvs(self->qp, self->mr, 1));
	/* No completion yet, so no event. */
	EXPECT_EQ(0, poll(&pfd, 1, NO_WAIT_MS));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	expect_cq_event(_metadata, self);
	check_flushed(_metadata, self->cq, self->qp, 1);
}

/* A channel with a CQ on it cannot be destroyed. */
TEST_F(flush, completion_channel_busy)
{
	EXPECT_EQ(EBUSY, ibv_destroy_comp_channel(self->channel));
}

/*
 * Completions still unpolled when the CQ is resized survive it, in order.
 * The event proves at least one was in the CQ before the resize.
 */
TEST_F(flush, resize_keeps_completions)
{
	const int n = 5;

	ASSERT_EQ(0, ibv_req_notify_cq(self->cq, 0));
	ASSERT_EQ(0, mrc_qp_to_init(self->qp));
	ASSERT_EQ(0, post_recvs(self->qp, self->mr, n));
	ASSERT_EQ(0, mrc_qp_to_state(self->qp, IBV_QPS_ERR));
	expect_cq_event(_metadata, self);
	ASSERT_EQ(0, ibv_resize_cq(self->cq, 2 * SMALL_CQE));
	EXPECT_LE(2 * SMALL_CQE, self->cq->cqe);
	check_flushed(_metadata, self->cq, self->qp, n);
}

FIXTURE(ah)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_port_attr port;
	struct ibv_ah_attr attr;
};

FIXTURE_SETUP(ah)
{
	union ibv_gid gid;
	int index;

	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, ibv_query_port(self->ctx, MRC_PORT, &self->port));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	ASSERT_EQ(0, mrc_find_gid(self->ctx, true, &gid, &index));
	memset(&self->attr, 0, sizeof(self->attr));
	self->attr.is_global = 1;
	self->attr.port_num = MRC_PORT;
	self->attr.grh.dgid = gid;
	self->attr.grh.sgid_index = index;
	self->attr.grh.hop_limit = MRC_HOP_LIMIT;
}

FIXTURE_TEARDOWN(ah)
{
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

TEST_F(ah, create_destroy)
{
	struct ibv_ah *ah = ibv_create_ah(self->pd, &self->attr);

	ASSERT_NE(NULL, ah) TH_LOG("create_ah: %s", strerror(errno));
	EXPECT_EQ(self->pd, ah->pd);
	EXPECT_EQ(0, ibv_destroy_ah(ah));
}

/* RoCE needs a GRH (rdma_check_ah_attr()). */
TEST_F(ah, without_grh)
{
	self->attr.is_global = 0;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &self->attr));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ah, bad_sgid_index)
{
	self->attr.grh.sgid_index = self->port.gid_tbl_len;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &self->attr));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ah, bad_port)
{
	self->attr.port_num = MRC_PORT + 1;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_ah(self->pd, &self->attr));
	EXPECT_EQ(EINVAL, errno);
}

/* max_srq is 0: creating one is refused. */
TEST_F(dev, srq_unsupported)
{
	struct ibv_srq_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.attr.max_wr = SMALL_WR;
	attr.attr.max_sge = ONE_SGE;
	errno = 0;
	EXPECT_EQ(NULL, ibv_create_srq(self->pd, &attr));
	EXPECT_EQ(EOPNOTSUPP, errno);
}

TEST_HARNESS_MAIN
