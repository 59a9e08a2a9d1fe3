/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mrc provider: private objects.
 *
 * Every verbs object is the libibverbs object embedded first in a provider
 * struct; the to_m*() helpers go back from the libibverbs pointer.
 */
#ifndef MRC_PROVIDER_H
#define MRC_PROVIDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>

#include "mrc-abi.h"
#include "mrcdv.h"

struct mrc_device {
	struct verbs_device ibv_dev;
};

struct mrc_context {
	struct verbs_context ibv_ctx;
	/*
	 * Where the loaded libibverbs keeps struct verbs_qp.comp_mask: true if
	 * at the place this provider was compiled with, false if at the
	 * offset of ibv_qp_ex.wr_flush (libibverbs older than rdma-core 45,
	 * whose struct ibv_qp_ex ends before wr_flush).  See mrc_qp_set_ex().
	 */
	bool qp_ex_has_wr_flush;
};

/*
 * One queue shared with the kernel through mmap (layout in <rdma/mrc-abi.h>).
 * map is NULL when the queue is not mapped.
 */
struct mrc_ring {
	void *map;
	size_t map_size;
	struct mrc_ring_idx *idx;
	uint8_t *slots;
	uint32_t num_entries;	/* a power of two */
	uint32_t entry_size;
};

struct mrc_cq {
	struct verbs_cq vcq;
	pthread_spinlock_t lock;
	struct mrc_ring ring;
	/* The completion the extended poll API (ibv_start_poll) stands on. */
	struct mrc_cqe cur;
};

/* Send or receive queue of a QP. */
struct mrc_wq {
	pthread_spinlock_t lock;
	struct mrc_ring ring;
	uint32_t max_sge;
};

struct mrc_qp {
	struct verbs_qp vqp;
	struct mrc_wq sq;
	struct mrc_wq rq;
	uint32_t max_inline_data;
	bool sq_sig_all;
	/* The MRC attributes the kernel gave it at creation. */
	struct mrc_qp_mrc_attr created_attr;

	/*
	 * State of a batch of the ibv_wr_*() API between ibv_wr_start() and
	 * ibv_wr_complete() / ibv_wr_abort(), under sq.lock: the producer
	 * index the next WQE goes to, the WQE being built (NULL if none) and
	 * the first error, which makes ibv_wr_complete() drop the batch.
	 */
	uint32_t wr_prod;
	struct mrc_send_wqe *wr_wqe;
	int wr_err;
};

struct mrc_ah {
	struct ibv_ah ibv_ah;
};

static inline struct mrc_context *to_mctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct mrc_context, ibv_ctx.context);
}

static inline struct mrc_device *to_mdev(struct ibv_device *ibdev)
{
	return container_of(ibdev, struct mrc_device, ibv_dev.device);
}

static inline struct mrc_cq *to_mcq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct mrc_cq, vcq.cq);
}

static inline struct mrc_cq *ex_to_mcq(struct ibv_cq_ex *ibcq)
{
	return container_of(ibcq, struct mrc_cq, vcq.cq_ex);
}

static inline struct mrc_qp *to_mqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct mrc_qp, vqp.qp);
}

static inline struct mrc_qp *ex_to_mqp(struct ibv_qp_ex *ibqp)
{
	return container_of(ibqp, struct mrc_qp, vqp.qp_ex);
}

static inline struct mrc_ah *to_mah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct mrc_ah, ibv_ah);
}

#endif /* MRC_PROVIDER_H */
