/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: a software RDMA device speaking MRC (Multipath Reliable
 * Connection) over UDP.  Objects shared by every part of the driver.
 */
#ifndef MRC_H
#define MRC_H

#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/mrc-abi.h>

#include "mrc_param.h"

struct mrc_net;

/* Object counts, checked against the device limits on creation. */
enum mrc_obj_type {
	MRC_OBJ_UCONTEXT,
	MRC_OBJ_PD,
	MRC_OBJ_AH,
	MRC_OBJ_CQ,
	MRC_OBJ_QP,
	MRC_OBJ_MR,
	MRC_NUM_OBJ_TYPES,
};

struct mrc_dev {
	struct ib_device ibdev;
	struct ib_device_attr attr;

	/* The netdev this device's port sits on; valid until unregister. */
	struct net_device *ndev;
	/* The UDP tunnel of the netdev's namespace, while we hold it. */
	struct mrc_net *net;

	/* Serialises port state changes and their events. */
	spinlock_t port_lock;
	enum ib_port_state port_state;

	atomic_t obj_count[MRC_NUM_OBJ_TYPES];

	struct xarray qp_xa;		/* qpn -> struct mrc_qp */
	u32 qpn_next;
	struct xarray mr_xa;		/* key index -> struct mrc_mr */
	u32 mr_index_next;
};

struct mrc_ucontext {
	struct ib_ucontext ibuc;
};

struct mrc_pd {
	struct ib_pd ibpd;
};

struct mrc_ah {
	struct ib_ah ibah;
	struct rdma_ah_attr attr;
};

/* A memory region of the mmap space: what mrc_mmap() maps. */
struct mrc_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
};

/* A ring shared with userspace; layout in include/uapi/rdma/mrc-abi.h. */
struct mrc_queue {
	void *buf;			/* vmalloc_user() memory */
	size_t size;			/* bytes, page aligned */
	u32 num;			/* slots, a power of two */
	u32 entry_size;			/* bytes per slot */
	struct mrc_queue_ctl *ctl;	/* at buf */
	struct mrc_mmap_entry *mmap;	/* NULL until exposed to a ucontext */
};

struct mrc_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* producer side of the ring */
	struct mrc_queue queue;
	u32 prod;			/* the kernel's producer index */
	u8 notify;			/* armed enum ib_cq_notify_flags */
	bool overflow;
};

enum mrc_mr_type {
	MRC_MR_USER,
	MRC_MR_DMA,
};

struct mrc_mr {
	struct ib_mr ibmr;
	enum mrc_mr_type type;
	struct ib_umem *umem;
	u64 iova;
	u64 length;
	int access;
	u32 index;
};

/* Path and peer of a connected QP, set on INIT -> RTR. */
struct mrc_qp_path {
	struct rdma_ah_attr ah_attr;
	union ib_gid dgid;
	union ib_gid sgid;
	enum rdma_network_type net_type;
	u8 dmac[ETH_ALEN];
};

struct mrc_qp {
	struct ib_qp ibqp;
	struct mrc_dev *dev;

	/* Serialises modify_qp, query_qp and destroy (process context). */
	struct mutex state_mutex;

	spinlock_t sq_lock;		/* the kernel's side of the SQ */
	spinlock_t rq_lock;		/* the kernel's side of the RQ */
	struct mrc_queue sq;
	struct mrc_queue rq;
	u32 sq_cons;			/* the kernel's consumer indices */
	u32 rq_cons;
	struct ib_qp_cap cap;		/* as granted at creation */

	/* Verbs attributes, as last set by modify_qp. */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct mrc_qp_path path;
	bool sq_sig_all;
};

/*
 * Ring indices.  Each index has one writer.  The writer publishes it with
 * a release store after filling (or draining) the slots it covers; the
 * other side reads it with an acquire load before touching those slots.
 */
static inline u32 mrc_index_read(const u32 *index)
{
	/* Pairs with the release store of the index's owner. */
	return smp_load_acquire(index);
}

static inline void mrc_index_publish(u32 *index, u32 value)
{
	/* Orders our slot accesses before the peer's acquire load. */
	smp_store_release(index, value);
}

static inline struct mrc_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mrc_dev, ibdev);
}

static inline struct mrc_pd *to_mpd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct mrc_pd, ibpd);
}

static inline struct mrc_ah *to_mah(struct ib_ah *ibah)
{
	return container_of(ibah, struct mrc_ah, ibah);
}

static inline struct mrc_cq *to_mcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct mrc_cq, ibcq);
}

static inline struct mrc_qp *to_mqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct mrc_qp, ibqp);
}

static inline struct mrc_mr *to_mmr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct mrc_mr, ibmr);
}

static inline struct mrc_ucontext *to_muc(struct ib_ucontext *ibuc)
{
	return container_of(ibuc, struct mrc_ucontext, ibuc);
}

/* mrc_main.c */
int mrc_obj_get(struct mrc_dev *dev, enum mrc_obj_type type);
void mrc_obj_put(struct mrc_dev *dev, enum mrc_obj_type type);

/* mrc_net.c */
int mrc_net_init(void);
void mrc_net_exit(void);
struct mrc_net *mrc_net_get(struct net *net);
void mrc_net_put(struct mrc_net *mn);

/* mrc_verbs.c */
int mrc_register_device(struct mrc_dev *dev, const char *name);
void mrc_dealloc_driver(struct ib_device *ibdev);
void mrc_port_update(struct mrc_dev *dev);
void mrc_port_mtu_changed(struct mrc_dev *dev);

/* mrc_queue.c */
int mrc_queue_init(struct mrc_queue *q, u32 num, u32 entry_size);
void mrc_queue_cleanup(struct mrc_queue *q);
int mrc_queue_expose(struct mrc_queue *q, struct ib_ucontext *ibuc,
		     struct mrc_queue_info *info);
void *mrc_queue_slot(struct mrc_queue *q, u32 index);
int mrc_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mrc_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* mrc_mr.c */
struct ib_mr *mrc_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mrc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

/* mrc_cq.c */
int mrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int mrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mrc_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mrc_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int mrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int mrc_cq_post(struct mrc_cq *cq, const struct mrc_cqe *cqe, bool solicited);

/* mrc_qp.c */
int mrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int mrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int mrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int mrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int mrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);

#endif /* MRC_H */
