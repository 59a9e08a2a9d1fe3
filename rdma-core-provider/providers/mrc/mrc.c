// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * mrc provider: the user-space verbs of the rdma_mrc software RDMA device.
 *
 * Control verbs are plain uverbs commands.  The data path works on queues
 * the kernel shares with the process through mmap of the uverbs command fd
 * (layout and index rules in <rdma/mrc-abi.h>): the provider writes send and
 * receive WQEs and then rings a doorbell (a uverbs POST_SEND / POST_RECV
 * command that carries no work request), and reads completions straight
 * from the CQ ring, without a system call.
 *
 * MRC carries RDMA WRITE and RDMA WRITE WITH IMMEDIATE only, on RC QPs.
 */
#include <config.h>

#include <assert.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mrc.h"
#include "mrc_prov.h"

/* ib_uverbs_query_device_resp.fw_ver: major.minor.sub, 16 bits each. */
enum {
	MRC_FW_VER_MAJOR_SHIFT = 32,
	MRC_FW_VER_MINOR_SHIFT = 16,
	MRC_FW_VER_FIELD_MASK = 0xffff,
};

/* What ibv_create_qp_ex() may ask for. */
#define MRC_QP_INIT_ATTR_SUPPORTED                                             \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
#define MRC_SEND_OPS_SUPPORTED                                                 \
	(IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)

/* What mrcdv_create_qp() may ask for. */
#define MRC_DV_QP_INIT_ATTR_SUPPORTED MRCDV_QP_INIT_ATTR_MASK_FLAGS
#define MRC_DV_QP_CREATE_SUPPORTED MRCDV_QP_CREATE_BIND_PROFILES

/* What ibv_create_cq_ex() may ask for. */
#define MRC_CQ_INIT_ATTR_SUPPORTED IBV_CQ_INIT_ATTR_MASK_FLAGS
#define MRC_CQ_FLAGS_SUPPORTED IBV_CREATE_CQ_ATTR_SINGLE_THREADED
#define MRC_WC_FLAGS_SUPPORTED IBV_WC_STANDARD_FLAGS

/* Slots hold 64-bit fields: every entry size must keep them aligned. */
#define MRC_SLOT_ALIGN sizeof(uint64_t)

static_assert(sizeof(struct mrc_ring_idx) <= MRC_RING_IDX_SIZE,
	      "queue control block larger than its reserved room");
static_assert(MRC_RING_IDX_SIZE % MRC_SLOT_ALIGN == 0,
	      "first slot misaligned");

/* ------------------------------------------------------------------------
 * Shared queue indices.  The owner of an index stores it with release
 * semantics after filling or draining slots, the other side loads it with
 * acquire semantics; a side reads its own index relaxed (it is the only
 * writer, and the queue's lock orders the threads of this process).
 */
typedef _Atomic(uint32_t) mrc_atomic_u32;

static inline uint32_t mrc_load_acquire(__u32 *index)
{
	return atomic_load_explicit((mrc_atomic_u32 *)index,
				    memory_order_acquire);
}

static inline uint32_t mrc_load_own(__u32 *index)
{
	return atomic_load_explicit((mrc_atomic_u32 *)index,
				    memory_order_relaxed);
}

static inline void mrc_store_release(__u32 *index, uint32_t value)
{
	atomic_store_explicit((mrc_atomic_u32 *)index, value,
			      memory_order_release);
}

static inline void *mrc_ring_slot(const struct mrc_ring *ring, uint32_t index)
{
	return ring->slots +
	       (size_t)(index & (ring->num_entries - 1)) * ring->entry_size;
}

/*
 * Map the queue the kernel described, after checking that the description
 * is one this provider can use without ever touching memory outside the
 * mapping: a power-of-two number of slots, each large enough for the
 * biggest entry this queue may hold, all inside mmap_size.  A queue with no
 * entries and no mapping (a QP side created with no work requests) is left
 * unmapped.
 */
static int mrc_ring_map(struct ibv_context *ibctx, struct mrc_ring *ring,
			const struct mrc_queue_info *info,
			size_t min_entry_size)
{
	uint64_t needed;
	void *map;

	memset(ring, 0, sizeof(*ring));
	if (!info->num_entries && !info->mmap_size)
		return 0;

	if (!info->num_entries ||
	    (info->num_entries & (info->num_entries - 1)) ||
	    info->entry_size < min_entry_size ||
	    info->entry_size % MRC_SLOT_ALIGN)
		return EPROTO;
	needed = MRC_RING_IDX_SIZE +
		 (uint64_t)info->num_entries * info->entry_size;
	if (info->mmap_size < needed)
		return EPROTO;

	map = mmap(NULL, info->mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, (off_t)info->mmap_offset);
	if (map == MAP_FAILED)
		return errno;

	ring->map = map;
	ring->map_size = info->mmap_size;
	ring->idx = map;
	ring->slots = (uint8_t *)map + MRC_RING_IDX_SIZE;
	ring->num_entries = info->num_entries;
	ring->entry_size = info->entry_size;
	return 0;
}

static void mrc_ring_unmap(struct mrc_ring *ring)
{
	if (ring->map)
		munmap(ring->map, ring->map_size);
	memset(ring, 0, sizeof(*ring));
}

/* ------------------------------------------------------------------------
 * Device and port.
 */
static int mrc_query_device_ex(struct ibv_context *ibctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw_ver;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw_ver = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u",
		 (unsigned int)(fw_ver >> MRC_FW_VER_MAJOR_SHIFT) &
			 MRC_FW_VER_FIELD_MASK,
		 (unsigned int)(fw_ver >> MRC_FW_VER_MINOR_SHIFT) &
			 MRC_FW_VER_FIELD_MASK,
		 (unsigned int)fw_ver & MRC_FW_VER_FIELD_MASK);
	return 0;
}

static int mrc_query_port(struct ibv_context *ibctx, uint8_t port_num,
			  struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port_num, attr, &cmd, sizeof(cmd));
}

/* ------------------------------------------------------------------------
 * Protection domains, memory regions, address handles.
 */
static struct ibv_pd *mrc_alloc_pd(struct ibv_context *ibctx)
{
	struct ibv_alloc_pd cmd = {};
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ibv_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, pd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return pd;
}

static int mrc_dealloc_pd(struct ibv_pd *pd)
{
	int ret;

	ret = ibv_cmd_dealloc_pd(pd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

static struct ibv_mr *mrc_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct ibv_reg_mr cmd = {};
	struct ib_uverbs_reg_mr_resp resp = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
}

static int mrc_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
	return 0;
}

static struct ibv_ah *mrc_create_ah(struct ibv_pd *pd,
				    struct ibv_ah_attr *attr)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct mrc_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	return &ah->ibv_ah;
}

static int mrc_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_mah(ibah));
	return 0;
}

/* ------------------------------------------------------------------------
 * Completion queues.
 */
static struct mrc_cq *mrc_cq_alloc(void)
{
	struct mrc_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	return cq;
}

static void mrc_cq_free(struct mrc_cq *cq)
{
	mrc_ring_unmap(&cq->ring);
	pthread_spin_destroy(&cq->lock);
	free(cq);
}

/*
 * Under cq->lock: how many completions wait, from consumer index *cons.
 * A producer index further ahead than the ring is long cannot come from a
 * working kernel (it is what a torn-down queue may show): EIO.
 */
static int mrc_cq_pending(struct mrc_cq *cq, uint32_t *cons,
			  uint32_t *pending)
{
	struct mrc_ring *ring = &cq->ring;
	uint32_t prod;

	if (!ring->map)
		return EIO;

	*cons = mrc_load_own(&ring->idx->cons);
	prod = mrc_load_acquire(&ring->idx->prod);
	*pending = prod - *cons;
	if (*pending > ring->num_entries)
		return EIO;
	return 0;
}

static void mrc_cqe_to_wc(const struct mrc_cqe *cqe, struct ibv_wc *wc)
{
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->imm_data;
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags;
	wc->pkey_index = 0;
	wc->slid = 0;
	wc->sl = 0;
	wc->dlid_path_bits = 0;
}

static int mrc_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	uint32_t cons, pending, polled;
	struct mrc_cqe cqe;
	int ret;

	if (num_entries <= 0)
		return 0;

	pthread_spin_lock(&cq->lock);
	ret = mrc_cq_pending(cq, &cons, &pending);
	if (ret) {
		pthread_spin_unlock(&cq->lock);
		errno = ret;
		return -1;
	}

	for (polled = 0; polled < pending && polled < (uint32_t)num_entries;
	     polled++) {
		memcpy(&cqe, mrc_ring_slot(&cq->ring, cons + polled),
		       sizeof(cqe));
		mrc_cqe_to_wc(&cqe, &wc[polled]);
	}
	if (polled)
		mrc_store_release(&cq->ring.idx->cons, cons + polled);

	pthread_spin_unlock(&cq->lock);
	return (int)polled;
}

/*
 * The extended poll API: the current completion is copied into cq->cur and
 * its slot handed back to the kernel at once, so the read_*() callbacks
 * never look at a slot the kernel may be refilling.  cq->lock is held from
 * a successful ibv_start_poll() to ibv_end_poll().
 */
static int mrc_cq_next(struct mrc_cq *cq)
{
	uint32_t cons, pending;
	int ret;

	ret = mrc_cq_pending(cq, &cons, &pending);
	if (ret)
		return ret;
	if (!pending)
		return ENOENT;

	memcpy(&cq->cur, mrc_ring_slot(&cq->ring, cons), sizeof(cq->cur));
	mrc_store_release(&cq->ring.idx->cons, cons + 1);

	cq->vcq.cq_ex.wr_id = cq->cur.wr_id;
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cq->cur.status;
	return 0;
}

static int mrc_start_poll(struct ibv_cq_ex *ibcq, struct ibv_poll_cq_attr *attr)
{
	struct mrc_cq *cq = ex_to_mcq(ibcq);
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = mrc_cq_next(cq);
	if (ret)
		pthread_spin_unlock(&cq->lock);
	return ret;
}

static int mrc_next_poll(struct ibv_cq_ex *ibcq)
{
	return mrc_cq_next(ex_to_mcq(ibcq));
}

static void mrc_end_poll(struct ibv_cq_ex *ibcq)
{
	pthread_spin_unlock(&ex_to_mcq(ibcq)->lock);
}

static enum ibv_wc_opcode mrc_read_opcode(struct ibv_cq_ex *ibcq)
{
	return (enum ibv_wc_opcode)ex_to_mcq(ibcq)->cur.opcode;
}

static uint32_t mrc_read_vendor_err(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.vendor_err;
}

static uint32_t mrc_read_byte_len(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.byte_len;
}

static __be32 mrc_read_imm_data(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.imm_data;
}

static uint32_t mrc_read_qp_num(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.qp_num;
}

static uint32_t mrc_read_src_qp(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.src_qp;
}

static unsigned int mrc_read_wc_flags(struct ibv_cq_ex *ibcq)
{
	return ex_to_mcq(ibcq)->cur.wc_flags;
}

/* MRC runs over UDP/IP: there are no LIDs or service levels to report. */
static uint32_t mrc_read_slid(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t mrc_read_sl(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static uint8_t mrc_read_dlid_path_bits(struct ibv_cq_ex *ibcq)
{
	return 0;
}

static void mrc_cq_set_ex(struct mrc_cq *cq)
{
	struct ibv_cq_ex *cqx = &cq->vcq.cq_ex;

	cqx->start_poll = mrc_start_poll;
	cqx->next_poll = mrc_next_poll;
	cqx->end_poll = mrc_end_poll;
	cqx->read_opcode = mrc_read_opcode;
	cqx->read_vendor_err = mrc_read_vendor_err;
	cqx->read_byte_len = mrc_read_byte_len;
	cqx->read_imm_data = mrc_read_imm_data;
	cqx->read_qp_num = mrc_read_qp_num;
	cqx->read_src_qp = mrc_read_src_qp;
	cqx->read_wc_flags = mrc_read_wc_flags;
	cqx->read_slid = mrc_read_slid;
	cqx->read_sl = mrc_read_sl;
	cqx->read_dlid_path_bits = mrc_read_dlid_path_bits;
}

static struct ibv_cq *mrc_create_cq(struct ibv_context *ibctx, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector)
{
	struct umrc_create_cq cmd = {};
	struct umrc_create_cq_resp resp = {};
	struct mrc_cq *cq;
	int ret;

	cq = mrc_cq_alloc();
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = mrc_ring_map(ibctx, &cq->ring, &resp.cq, sizeof(struct mrc_cqe));
	if (ret)
		goto err_destroy;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	mrc_cq_free(cq);
	errno = ret;
	return NULL;
}

static struct ibv_cq_ex *mrc_create_cq_ex(struct ibv_context *ibctx,
					  struct ibv_cq_init_attr_ex *attr)
{
	struct umrc_create_cq_ex cmd = {};
	struct umrc_create_cq_ex_resp resp = {};
	struct mrc_cq *cq;
	int ret;

	if ((attr->comp_mask & ~(uint32_t)MRC_CQ_INIT_ATTR_SUPPORTED) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	     (attr->flags & ~(uint32_t)MRC_CQ_FLAGS_SUPPORTED)) ||
	    (attr->wc_flags & ~(uint64_t)MRC_WC_FLAGS_SUPPORTED)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	cq = mrc_cq_alloc();
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq_ex(ibctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp),
				   0);
	if (ret)
		goto err_free;

	ret = mrc_ring_map(ibctx, &cq->ring, &resp.cq, sizeof(struct mrc_cqe));
	if (ret)
		goto err_destroy;

	mrc_cq_set_ex(cq);
	return &cq->vcq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	mrc_cq_free(cq);
	errno = ret;
	return NULL;
}

/*
 * The kernel moves the unpolled completions into a new ring and hands it
 * back; the old mapping goes away.  If the new ring cannot be mapped the CQ
 * is left without one and polling it fails with EIO.
 */
static int mrc_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	struct umrc_resize_cq cmd = {};
	struct umrc_resize_cq_resp resp = {};
	struct mrc_ring fresh;
	int ret;

	pthread_spin_lock(&cq->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (!ret) {
		ret = mrc_ring_map(ibcq->context, &fresh, &resp.cq,
				   sizeof(struct mrc_cqe));
		mrc_ring_unmap(&cq->ring);
		if (!ret)
			cq->ring = fresh;
	}
	pthread_spin_unlock(&cq->lock);
	return ret;
}

static int mrc_destroy_cq(struct ibv_cq *ibcq)
{
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	mrc_cq_free(to_mcq(ibcq));
	return 0;
}

/* ------------------------------------------------------------------------
 * Queue pairs: doorbells and WQE building.
 */

/* Tell the kernel that the SQ / RQ producer index moved. */
static int mrc_sq_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_send_resp resp = {};
	struct ibv_post_send cmd = {};
	ssize_t written;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / sizeof(__u32);
	cmd.hdr.out_words = sizeof(resp) / sizeof(__u32);
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wr_count = 0;
	cmd.sge_count = 0;
	/* The kernel checks the size even when there is no WR to read. */
	cmd.wqe_size = sizeof(struct ib_uverbs_send_wr);

	written = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (written == (ssize_t)sizeof(cmd))
		return 0;
	return written < 0 ? errno : EIO;
}

static int mrc_rq_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_recv_resp resp = {};
	struct ibv_post_recv cmd = {};
	ssize_t written;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_RECV;
	cmd.hdr.in_words = sizeof(cmd) / sizeof(__u32);
	cmd.hdr.out_words = sizeof(resp) / sizeof(__u32);
	cmd.response = (uintptr_t)&resp;
	cmd.qp_handle = ibqp->handle;
	cmd.wr_count = 0;
	cmd.sge_count = 0;
	cmd.wqe_size = sizeof(struct ib_uverbs_recv_wr);

	written = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (written == (ssize_t)sizeof(cmd))
		return 0;
	return written < 0 ? errno : EIO;
}

/* Under wq->lock: the producer index WQEs are written from. */
static uint32_t mrc_wq_prod(struct mrc_wq *wq)
{
	return wq->ring.map ? mrc_load_own(&wq->ring.idx->prod) : 0;
}

/*
 * Under wq->lock: may a WQE go to producer index prod?  ENOMEM when the
 * queue is full (or has no room at all), EIO when the kernel's consumer
 * index is not one a working kernel can show.
 */
static int mrc_wq_reserve(struct mrc_wq *wq, uint32_t prod)
{
	uint32_t used;

	if (!wq->ring.map)
		return ENOMEM;

	used = prod - mrc_load_acquire(&wq->ring.idx->cons);
	if (used > wq->ring.num_entries)
		return EIO;
	if (used == wq->ring.num_entries)
		return ENOMEM;
	return 0;
}

/* Slot room a send / receive WQE needs with these QP capabilities. */
static size_t mrc_send_wqe_size(uint32_t max_sge, uint32_t max_inline_data)
{
	size_t sges = (size_t)max_sge * sizeof(struct mrc_sge);

	return offsetof(struct mrc_send_wqe, sge) +
	       (sges > max_inline_data ? sges : max_inline_data);
}

static size_t mrc_recv_wqe_size(uint32_t max_sge)
{
	return offsetof(struct mrc_recv_wqe, sge) +
	       (size_t)max_sge * sizeof(struct mrc_sge);
}

static uint32_t mrc_wqe_flags(const struct mrc_qp *qp, unsigned int send_flags)
{
	uint32_t flags = 0;

	if ((send_flags & IBV_SEND_SIGNALED) || qp->sq_sig_all)
		flags |= MRC_WQE_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		flags |= MRC_WQE_SOLICITED;
	if (send_flags & IBV_SEND_FENCE)
		flags |= MRC_WQE_FENCE;
	return flags;
}

/*
 * The WQE builders below are shared by ibv_post_send() and the ibv_wr_*()
 * API so that both put the same bytes in the slot for the same request:
 * mrc_wqe_init() clears the slot and writes the header, then one data
 * setter fills the gather list or the inline data.
 */
static void mrc_wqe_init(struct mrc_qp *qp, struct mrc_send_wqe *wqe,
			 uint64_t wr_id, unsigned int send_flags,
			 enum mrc_wqe_opcode opcode, uint64_t remote_addr,
			 uint32_t rkey, __be32 imm_data)
{
	memset(wqe, 0, qp->sq.ring.entry_size);
	wqe->wr_id = wr_id;
	wqe->opcode = opcode;
	wqe->flags = mrc_wqe_flags(qp, send_flags);
	wqe->remote_addr = remote_addr;
	wqe->rkey = rkey;
	wqe->imm_data = opcode == MRC_WQE_RDMA_WRITE_WITH_IMM ? imm_data : 0;
}

static int mrc_wqe_set_sge_list(struct mrc_qp *qp, struct mrc_send_wqe *wqe,
				size_t num_sge, const struct ibv_sge *sg_list)
{
	size_t i;

	if (num_sge > qp->sq.max_sge)
		return EINVAL;

	for (i = 0; i < num_sge; i++) {
		wqe->sge[i].addr = sg_list[i].addr;
		wqe->sge[i].length = sg_list[i].length;
		wqe->sge[i].lkey = sg_list[i].lkey;
	}
	/* num_sge <= max_sge, a 32-bit value */
	wqe->num_sge = (uint32_t)num_sge;
	wqe->inline_len = 0;
	wqe->flags &= ~(uint32_t)MRC_WQE_INLINE;
	return 0;
}

static void mrc_wqe_start_inline(struct mrc_send_wqe *wqe)
{
	wqe->num_sge = 0;
	wqe->inline_len = 0;
	wqe->flags |= MRC_WQE_INLINE;
}

/* Append one buffer to the inline data; EINVAL past max_inline_data. */
static int mrc_wqe_add_inline(struct mrc_qp *qp, struct mrc_send_wqe *wqe,
			      const void *addr, size_t length)
{
	if (length > qp->max_inline_data - wqe->inline_len)
		return EINVAL;

	memcpy((uint8_t *)wqe->sge + wqe->inline_len, addr, length);
	wqe->inline_len += (uint32_t)length;	/* <= max_inline_data */
	return 0;
}

static int mrc_wr_opcode(enum ibv_wr_opcode opcode,
			 enum mrc_wqe_opcode *mrc_opcode)
{
	switch (opcode) {
	case IBV_WR_RDMA_WRITE:
		*mrc_opcode = MRC_WQE_RDMA_WRITE;
		return 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		*mrc_opcode = MRC_WQE_RDMA_WRITE_WITH_IMM;
		return 0;
	default:
		return EINVAL;
	}
}

/* Under sq.lock: check one ibv_send_wr and write it at producer index prod. */
static int mrc_post_one_send(struct mrc_qp *qp, struct ibv_send_wr *wr,
			     uint32_t prod)
{
	enum mrc_wqe_opcode opcode;
	struct mrc_send_wqe *wqe;
	uint64_t inline_len = 0;
	size_t num_sge;
	size_t i;
	int ret;

	ret = mrc_wr_opcode(wr->opcode, &opcode);
	if (ret)
		return ret;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->sq.max_sge)
		return EINVAL;
	num_sge = (size_t)wr->num_sge;

	if (wr->send_flags & IBV_SEND_INLINE) {
		for (i = 0; i < num_sge; i++)
			inline_len += wr->sg_list[i].length;
		if (inline_len > qp->max_inline_data)
			return EINVAL;
	}

	ret = mrc_wq_reserve(&qp->sq, prod);
	if (ret)
		return ret;

	wqe = mrc_ring_slot(&qp->sq.ring, prod);
	mrc_wqe_init(qp, wqe, wr->wr_id, wr->send_flags, opcode,
		     wr->wr.rdma.remote_addr, wr->wr.rdma.rkey, wr->imm_data);

	if (!(wr->send_flags & IBV_SEND_INLINE))
		return mrc_wqe_set_sge_list(qp, wqe, num_sge, wr->sg_list);

	mrc_wqe_start_inline(wqe);
	for (i = 0; i < num_sge; i++) {
		ret = mrc_wqe_add_inline(qp, wqe,
					 (const void *)(uintptr_t)wr->sg_list[i].addr,
					 wr->sg_list[i].length);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Work requests are checked and written one by one; the first one that
 * fails stops the list and is returned in *bad_wr, those before it stay
 * posted.  One doorbell covers the whole list.
 */
static int mrc_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr_list,
			 struct ibv_send_wr **bad_wr)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	struct ibv_send_wr *wr = wr_list;
	uint32_t first, prod;
	int ret = 0;
	int db;

	/* A QP in RESET takes no work requests. */
	if (ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr_list;
		return EINVAL;
	}

	pthread_spin_lock(&qp->sq.lock);
	first = prod = mrc_wq_prod(&qp->sq);
	for (; wr; wr = wr->next, prod++) {
		ret = mrc_post_one_send(qp, wr, prod);
		if (ret)
			break;
	}
	if (prod != first)
		mrc_store_release(&qp->sq.ring.idx->prod, prod);
	pthread_spin_unlock(&qp->sq.lock);

	if (prod != first) {
		db = mrc_sq_doorbell(ibqp);
		if (db && !ret) {
			ret = db;
			wr = wr_list;
		}
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

static int mrc_post_one_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr,
			     uint32_t prod)
{
	struct mrc_recv_wqe *wqe;
	int i;
	int ret;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->rq.max_sge)
		return EINVAL;

	ret = mrc_wq_reserve(&qp->rq, prod);
	if (ret)
		return ret;

	wqe = mrc_ring_slot(&qp->rq.ring, prod);
	memset(wqe, 0, qp->rq.ring.entry_size);
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = (uint32_t)wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

static int mrc_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr_list,
			 struct ibv_recv_wr **bad_wr)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	struct ibv_recv_wr *wr = wr_list;
	uint32_t first, prod;
	int ret = 0;
	int db;

	/* A QP in RESET takes no work requests. */
	if (ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr_list;
		return EINVAL;
	}

	pthread_spin_lock(&qp->rq.lock);
	first = prod = mrc_wq_prod(&qp->rq);
	for (; wr; wr = wr->next, prod++) {
		ret = mrc_post_one_recv(qp, wr, prod);
		if (ret)
			break;
	}
	if (prod != first)
		mrc_store_release(&qp->rq.ring.idx->prod, prod);
	pthread_spin_unlock(&qp->rq.lock);

	if (prod != first) {
		db = mrc_rq_doorbell(ibqp);
		if (db && !ret) {
			ret = db;
			wr = wr_list;
		}
	}
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ------------------------------------------------------------------------
 * The ibv_wr_*() API (struct ibv_qp_ex).  ibv_wr_start() takes sq.lock and
 * ibv_wr_complete() / ibv_wr_abort() drop it.  WQEs are written past the
 * producer index and published only by ibv_wr_complete(), all or none: the
 * first error any callback meets is kept and fails the whole batch.
 */
static void mrc_wr_fail(struct mrc_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
	qp->wr_wqe = NULL;
}

static void mrc_wr_start(struct ibv_qp_ex *ibqp)
{
	struct mrc_qp *qp = ex_to_mqp(ibqp);

	pthread_spin_lock(&qp->sq.lock);
	qp->wr_prod = mrc_wq_prod(&qp->sq);
	qp->wr_wqe = NULL;
	qp->wr_err = ibqp->qp_base.state == IBV_QPS_RESET ? EINVAL : 0;
}

static int mrc_wr_complete(struct ibv_qp_ex *ibqp)
{
	struct mrc_qp *qp = ex_to_mqp(ibqp);
	uint32_t first;
	int ret = qp->wr_err;

	first = mrc_wq_prod(&qp->sq);
	if (!ret && qp->wr_prod != first)
		mrc_store_release(&qp->sq.ring.idx->prod, qp->wr_prod);
	pthread_spin_unlock(&qp->sq.lock);

	if (!ret && qp->wr_prod != first)
		ret = mrc_sq_doorbell(&ibqp->qp_base);
	return ret;
}

static void mrc_wr_abort(struct ibv_qp_ex *ibqp)
{
	pthread_spin_unlock(&ex_to_mqp(ibqp)->sq.lock);
}

/* Start the next WQE of the batch, unless the batch has already failed. */
static void mrc_wr_new(struct ibv_qp_ex *ibqp, enum mrc_wqe_opcode opcode,
		       uint64_t remote_addr, uint32_t rkey, __be32 imm_data)
{
	struct mrc_qp *qp = ex_to_mqp(ibqp);
	struct mrc_send_wqe *wqe;
	int ret;

	if (qp->wr_err)
		return;

	ret = mrc_wq_reserve(&qp->sq, qp->wr_prod);
	if (ret) {
		mrc_wr_fail(qp, ret);
		return;
	}

	wqe = mrc_ring_slot(&qp->sq.ring, qp->wr_prod);
	mrc_wqe_init(qp, wqe, ibqp->wr_id, ibqp->wr_flags, opcode, remote_addr,
		     rkey, imm_data);
	qp->wr_wqe = wqe;
	qp->wr_prod++;
}

static void mrc_wr_rdma_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
			      uint64_t remote_addr)
{
	mrc_wr_new(ibqp, MRC_WQE_RDMA_WRITE, remote_addr, rkey, 0);
}

static void mrc_wr_rdma_write_imm(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	mrc_wr_new(ibqp, MRC_WQE_RDMA_WRITE_WITH_IMM, remote_addr, rkey,
		   imm_data);
}

/* The WQE a data setter fills, or NULL (the batch then fails). */
static struct mrc_send_wqe *mrc_wr_cur(struct mrc_qp *qp)
{
	if (qp->wr_err)
		return NULL;
	if (!qp->wr_wqe) {
		/* A data setter with no operation before it. */
		mrc_wr_fail(qp, EINVAL);
		return NULL;
	}
	return qp->wr_wqe;
}

static void mrc_wr_set_sge_list(struct ibv_qp_ex *ibqp, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct mrc_qp *qp = ex_to_mqp(ibqp);
	struct mrc_send_wqe *wqe = mrc_wr_cur(qp);
	int ret;

	if (!wqe)
		return;
	ret = mrc_wqe_set_sge_list(qp, wqe, num_sge, sg_list);
	if (ret)
		mrc_wr_fail(qp, ret);
}

static void mrc_wr_set_sge(struct ibv_qp_ex *ibqp, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	const struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	mrc_wr_set_sge_list(ibqp, 1, &sge);
}

static void mrc_wr_set_inline_data_list(struct ibv_qp_ex *ibqp,
					size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct mrc_qp *qp = ex_to_mqp(ibqp);
	struct mrc_send_wqe *wqe = mrc_wr_cur(qp);
	size_t i;
	int ret;

	if (!wqe)
		return;
	/* As ibv_post_send(): one gather entry per inline buffer. */
	if (num_buf > qp->sq.max_sge) {
		mrc_wr_fail(qp, EINVAL);
		return;
	}

	mrc_wqe_start_inline(wqe);
	for (i = 0; i < num_buf; i++) {
		ret = mrc_wqe_add_inline(qp, wqe, buf_list[i].addr,
					 buf_list[i].length);
		if (ret) {
			mrc_wr_fail(qp, ret);
			return;
		}
	}
}

static void mrc_wr_set_inline_data(struct ibv_qp_ex *ibqp, void *addr,
				   size_t length)
{
	const struct ibv_data_buf buf = {
		.addr = addr,
		.length = length,
	};

	mrc_wr_set_inline_data_list(ibqp, 1, &buf);
}

/*
 * Operations MRC does not carry, and setters that have no meaning on an RC
 * QP: they fail the batch instead of leaving a NULL callback to crash on.
 */
static void mrc_wr_atomic_cmp_swp(struct ibv_qp_ex *ibqp, uint32_t rkey,
				  uint64_t remote_addr, uint64_t compare,
				  uint64_t swap)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_atomic_fetch_add(struct ibv_qp_ex *ibqp, uint32_t rkey,
				    uint64_t remote_addr, uint64_t add)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_bind_mw(struct ibv_qp_ex *ibqp, struct ibv_mw *mw,
			   uint32_t rkey,
			   const struct ibv_mw_bind_info *bind_info)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_local_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_rdma_read(struct ibv_qp_ex *ibqp, uint32_t rkey,
			     uint64_t remote_addr)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_send(struct ibv_qp_ex *ibqp)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_send_imm(struct ibv_qp_ex *ibqp, __be32 imm_data)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_send_inv(struct ibv_qp_ex *ibqp, uint32_t invalidate_rkey)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_send_tso(struct ibv_qp_ex *ibqp, void *hdr, uint16_t hdr_sz,
			    uint16_t mss)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_atomic_write(struct ibv_qp_ex *ibqp, uint32_t rkey,
				uint64_t remote_addr, const void *atomic_wr)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_flush(struct ibv_qp_ex *ibqp, uint32_t rkey,
			 uint64_t remote_addr, size_t len, uint8_t type,
			 uint8_t level)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EOPNOTSUPP);
}

static void mrc_wr_set_ud_addr(struct ibv_qp_ex *ibqp, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EINVAL);
}

static void mrc_wr_set_xrc_srqn(struct ibv_qp_ex *ibqp, uint32_t remote_srqn)
{
	mrc_wr_fail(ex_to_mqp(ibqp), EINVAL);
}

/*
 * struct verbs_qp is { union { ibv_qp, ibv_qp_ex }, comp_mask, xrcd }, and
 * ibv_qp_to_qp_ex() answers from comp_mask's VERBS_QP_EX bit.  rdma-core 45
 * appended wr_flush to struct ibv_qp_ex under the same private ABI
 * (IBVERBS_PRIVATE_34), so a libibverbs from before it (Debian 12 ships 44)
 * reads comp_mask from where these headers put wr_flush.  Ask the loaded
 * library which place it reads, with a zeroed verbs_qp of our layout.
 */
#define MRC_OLD_VQP_COMP_MASK_OFFSET offsetof(struct ibv_qp_ex, wr_flush)

static_assert(offsetof(struct ibv_qp_ex, wr_flush) ==
		      offsetof(struct ibv_qp_ex, wr_atomic_write) +
			      sizeof(void (*)(void)),
	      "wr_flush does not directly follow wr_atomic_write");
static_assert(MRC_OLD_VQP_COMP_MASK_OFFSET + sizeof(uint32_t) <=
		      sizeof(struct verbs_qp),
	      "old comp_mask place outside struct verbs_qp");

static bool mrc_libibverbs_has_wr_flush(void)
{
	struct verbs_qp probe;

	memset(&probe, 0, sizeof(probe));
	probe.comp_mask = VERBS_QP_EX;
	return ibv_qp_to_qp_ex(&probe.qp) == &probe.qp_ex;
}

static void mrc_qp_mark_ex(struct mrc_context *ctx, struct mrc_qp *qp)
{
	uint8_t *base = (uint8_t *)&qp->vqp;
	uint32_t comp_mask;

	if (ctx->qp_ex_has_wr_flush) {
		qp->vqp.qp_ex.wr_flush = mrc_wr_flush;
		qp->vqp.comp_mask |= VERBS_QP_EX;
		return;
	}
	memcpy(&comp_mask, base + MRC_OLD_VQP_COMP_MASK_OFFSET,
	       sizeof(comp_mask));
	comp_mask |= VERBS_QP_EX;
	memcpy(base + MRC_OLD_VQP_COMP_MASK_OFFSET, &comp_mask,
	       sizeof(comp_mask));
}

static void mrc_qp_set_ex(struct mrc_context *ctx, struct mrc_qp *qp)
{
	struct ibv_qp_ex *qpx = &qp->vqp.qp_ex;

	qpx->wr_start = mrc_wr_start;
	qpx->wr_complete = mrc_wr_complete;
	qpx->wr_abort = mrc_wr_abort;

	qpx->wr_rdma_write = mrc_wr_rdma_write;
	qpx->wr_rdma_write_imm = mrc_wr_rdma_write_imm;
	qpx->wr_set_sge = mrc_wr_set_sge;
	qpx->wr_set_sge_list = mrc_wr_set_sge_list;
	qpx->wr_set_inline_data = mrc_wr_set_inline_data;
	qpx->wr_set_inline_data_list = mrc_wr_set_inline_data_list;

	qpx->wr_atomic_cmp_swp = mrc_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = mrc_wr_atomic_fetch_add;
	qpx->wr_bind_mw = mrc_wr_bind_mw;
	qpx->wr_local_inv = mrc_wr_local_inv;
	qpx->wr_rdma_read = mrc_wr_rdma_read;
	qpx->wr_send = mrc_wr_send;
	qpx->wr_send_imm = mrc_wr_send_imm;
	qpx->wr_send_inv = mrc_wr_send_inv;
	qpx->wr_send_tso = mrc_wr_send_tso;
	qpx->wr_atomic_write = mrc_wr_atomic_write;
	qpx->wr_set_ud_addr = mrc_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = mrc_wr_set_xrc_srqn;

	mrc_qp_mark_ex(ctx, qp);
}

/* ------------------------------------------------------------------------
 * Queue pairs: control verbs.
 */
static int mrc_check_qp_init_attr(const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)MRC_QP_INIT_ATTR_SUPPORTED)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd)
		return EINVAL;
	if (attr->qp_type != IBV_QPT_RC)
		return EOPNOTSUPP;
	if (attr->srq)
		return EOPNOTSUPP;
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~(uint64_t)MRC_SEND_OPS_SUPPORTED))
		return EOPNOTSUPP;
	return 0;
}

static void mrc_qp_free(struct mrc_qp *qp)
{
	mrc_ring_unmap(&qp->sq.ring);
	mrc_ring_unmap(&qp->rq.ring);
	pthread_spin_destroy(&qp->sq.lock);
	pthread_spin_destroy(&qp->rq.lock);
	free(qp);
}

static struct mrc_qp *mrc_qp_alloc(void)
{
	struct mrc_qp *qp;
	int ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	ret = pthread_spin_init(&qp->sq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_free;
	ret = pthread_spin_init(&qp->rq.lock, PTHREAD_PROCESS_PRIVATE);
	if (ret)
		goto err_sq_lock;
	return qp;

err_sq_lock:
	pthread_spin_destroy(&qp->sq.lock);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * The driver input of create QP from the direct-verbs attributes (NULL:
 * all zero, the device's default profiles).  What this library does not
 * know is refused here, before the kernel is asked.
 */
static int mrc_qp_dv_cmd(const struct mrcdv_qp_init_attr *dv,
			 struct mrc_create_qp_cmd *drv)
{
	uint32_t flags = 0;

	if (!dv)
		return 0;
	if (dv->comp_mask & ~(uint64_t)MRC_DV_QP_INIT_ATTR_SUPPORTED)
		return EOPNOTSUPP;
	if (dv->comp_mask & MRCDV_QP_INIT_ATTR_MASK_FLAGS)
		flags = dv->flags;
	if ((flags & ~(uint32_t)MRC_DV_QP_CREATE_SUPPORTED) || dv->reserved)
		return EOPNOTSUPP;
	if (flags & MRCDV_QP_CREATE_BIND_PROFILES) {
		drv->flags |= MRC_CREATE_QP_BIND_PROFILES;
		drv->ev_profile_id = dv->ev_profile_id;
		drv->cc_profile_id = dv->cc_profile_id;
	}
	return 0;
}

/*
 * Every QP is made here: by ibv_create_qp(), ibv_create_qp_ex() (@dv NULL)
 * and mrcdv_create_qp().  They differ only in the driver input.
 */
static struct ibv_qp *mrc_create_qp_dv(struct ibv_context *ibctx,
				       struct ibv_qp_init_attr_ex *attr,
				       const struct mrcdv_qp_init_attr *dv)
{
	struct umrc_create_qp cmd = {};
	struct umrc_create_qp_resp resp = {};
	struct mrc_qp *qp;
	int ret;

	ret = mrc_check_qp_init_attr(attr);
	if (!ret)
		ret = mrc_qp_dv_cmd(dv, &cmd.drv_payload);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = mrc_qp_alloc();
	if (!qp)
		return NULL;

	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	qp->sq.max_sge = attr->cap.max_send_sge;
	qp->rq.max_sge = attr->cap.max_recv_sge;
	qp->max_inline_data = resp.max_inline_data;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->created_attr = resp.drv_payload.attr;

	ret = mrc_ring_map(ibctx, &qp->sq.ring, &resp.sq,
			   mrc_send_wqe_size(qp->sq.max_sge,
					     qp->max_inline_data));
	if (ret)
		goto err_destroy;
	ret = mrc_ring_map(ibctx, &qp->rq.ring, &resp.rq,
			   mrc_recv_wqe_size(qp->rq.max_sge));
	if (ret)
		goto err_destroy;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)
		mrc_qp_set_ex(to_mctx(ibctx), qp);
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	mrc_qp_free(qp);
	errno = ret;
	return NULL;
}

static struct ibv_qp *mrc_create_qp_ex(struct ibv_context *ibctx,
				       struct ibv_qp_init_attr_ex *attr)
{
	return mrc_create_qp_dv(ibctx, attr, NULL);
}

static struct ibv_qp *mrc_create_qp(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {
		.qp_context = attr->qp_context,
		.send_cq = attr->send_cq,
		.recv_cq = attr->recv_cq,
		.srq = attr->srq,
		.cap = attr->cap,
		.qp_type = attr->qp_type,
		.sq_sig_all = attr->sq_sig_all,
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_qp *qp;

	qp = mrc_create_qp_ex(pd->context, &attr_ex);
	if (qp)
		attr->cap = attr_ex.cap;
	return qp;
}

static int mrc_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			 int attr_mask)
{
	struct ibv_modify_qp cmd = {};

	return ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
}

void mrc_prov_qp_created_attr(struct ibv_qp *ibqp,
			      struct mrc_qp_mrc_attr *attr)
{
	*attr = to_mqp(ibqp)->created_attr;
}

/* The extended command: it carries the driver's part, the MRC attributes. */
int mrc_prov_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		       int attr_mask, const struct mrc_modify_qp_cmd *drv)
{
	struct umrc_modify_qp_ex cmd = {};
	struct ib_uverbs_ex_modify_qp_resp resp = {};

	cmd.drv_payload = *drv;
	return ibv_cmd_modify_qp_ex(ibqp, attr, attr_mask, &cmd.ibv_cmd,
				    sizeof(cmd), &resp, sizeof(resp));
}

static int mrc_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

static int mrc_destroy_qp(struct ibv_qp *ibqp)
{
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	mrc_qp_free(to_mqp(ibqp));
	return 0;
}

/* ------------------------------------------------------------------------
 * Context and device.
 */
static void mrc_free_context(struct ibv_context *ibctx)
{
	struct mrc_context *ctx = to_mctx(ibctx);

	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
}

static const struct verbs_context_ops mrc_ctx_ops = {
	.query_device_ex = mrc_query_device_ex,
	.query_port = mrc_query_port,
	.alloc_pd = mrc_alloc_pd,
	.dealloc_pd = mrc_dealloc_pd,
	.reg_mr = mrc_reg_mr,
	.dereg_mr = mrc_dereg_mr,
	.create_ah = mrc_create_ah,
	.destroy_ah = mrc_destroy_ah,
	.create_cq = mrc_create_cq,
	.create_cq_ex = mrc_create_cq_ex,
	.poll_cq = mrc_poll_cq,
	.req_notify_cq = ibv_cmd_req_notify_cq,
	.resize_cq = mrc_resize_cq,
	.destroy_cq = mrc_destroy_cq,
	.create_qp = mrc_create_qp,
	.create_qp_ex = mrc_create_qp_ex,
	.modify_qp = mrc_modify_qp,
	.query_qp = mrc_query_qp,
	.destroy_qp = mrc_destroy_qp,
	.post_send = mrc_post_send,
	.post_recv = mrc_post_recv,
	.free_context = mrc_free_context,
};

static struct verbs_context *mrc_alloc_context(struct ibv_device *ibdev,
					       int cmd_fd, void *private_data)
{
	struct umrc_alloc_ucontext cmd = {};
	struct umrc_alloc_ucontext_resp resp = {};
	struct mrc_context *ctx;
	int ret;

	ctx = verbs_init_and_alloc_context(ibdev, cmd_fd, ctx, ibv_ctx,
					   MRC_DRIVER_ID);
	if (!ctx)
		return NULL;

	ret = ibv_cmd_get_context(&ctx->ibv_ctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err;
	if (resp.abi_version != MRC_UVERBS_ABI_VERSION) {
		ret = EPROTO;
		goto err;
	}

	ctx->qp_ex_has_wr_flush = mrc_libibverbs_has_wr_flush();
	verbs_set_ops(&ctx->ibv_ctx, &mrc_ctx_ops);
	return &ctx->ibv_ctx;

err:
	verbs_uninit_context(&ctx->ibv_ctx);
	free(ctx);
	errno = ret;
	return NULL;
}

static struct verbs_device *mrc_device_alloc(struct verbs_sysfs_dev *sysfs_dev)
{
	struct mrc_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->ibv_dev;
}

static void mrc_uninit_device(struct verbs_device *verbs_device)
{
	free(to_mdev(&verbs_device->device));
}

/* rdma_mrc is matched by the driver id it reports, whatever its name. */
static const struct verbs_match_ent mrc_match_table[] = {
	VERBS_DRIVER_ID(MRC_DRIVER_ID),
	{},
};

static const struct verbs_device_ops mrc_dev_ops = {
	.name = "mrc",
	.match_min_abi_version = MRC_UVERBS_ABI_VERSION,
	.match_max_abi_version = MRC_UVERBS_ABI_VERSION,
	.match_table = mrc_match_table,
	.alloc_device = mrc_device_alloc,
	.uninit_device = mrc_uninit_device,
	.alloc_context = mrc_alloc_context,
};
PROVIDER_DRIVER(mrc, mrc_dev_ops);

/* ------------------------------------------------------------------------
 * Direct verbs (<infiniband/mrcdv.h>), exported through libmrc.map.
 */
bool mrcdv_is_supported(struct ibv_device *device)
{
	return verbs_get_device(device)->ops == &mrc_dev_ops;
}

struct ibv_qp *mrcdv_create_qp(struct ibv_context *context,
			       struct ibv_qp_init_attr_ex *attr,
			       struct mrcdv_qp_init_attr *mrc_attr)
{
	if (!mrcdv_is_supported(context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return mrc_create_qp_dv(context, attr, mrc_attr);
}
