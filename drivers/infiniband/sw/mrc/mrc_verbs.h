/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the verbs objects (user context, PD, AH, CQ, MR, QP) and the
 * rings they share with userspace.  A QP's data-path state is split by
 * role: requester, loss detection, EVs, retransmission timer, responder.
 */
#ifndef MRC_VERBS_H
#define MRC_VERBS_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/mrc-abi.h>

#include "mrc_cc.h"
#include "mrc_ev.h"
#include "mrc_param.h"
#include "mrc_rack.h"

struct mrc_dev;
struct mrc_peer;
struct mrc_ev_profile;
struct mrc_cc_profile;

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

/* The pages of a ring, mapped contiguously (mrc_queue.c). */
struct mrc_qmem {
	void *addr;
	struct page **pages;
	unsigned int npages;
};

/* A memory region of the mmap space: what mrc_mmap() maps. */
struct mrc_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	struct mrc_qmem mem;		/* owned from mrc_queue_expose() on */
};

/* A ring shared with userspace; layout in include/uapi/rdma/mrc-abi.h. */
struct mrc_queue {
	struct mrc_qmem mem;
	void *buf;			/* mem.addr */
	size_t size;			/* bytes, page aligned */
	u32 num;			/* slots, a power of two */
	u32 entry_size;			/* bytes per slot */
	struct mrc_ring_idx *idx;	/* at buf */
	struct mrc_mmap_entry *mmap;	/* NULL until exposed to a ucontext */
};

struct mrc_cq {
	struct ib_cq ibcq;
	spinlock_t lock;		/* producer side of the ring */
	struct mrc_queue queue;
	u32 prod;			/* the kernel's producer index */
	u8 notify;			/* armed enum ib_cq_notify_flags */
	bool overflow;			/* in error: a completion was lost */
	struct work_struct err_work;	/* moves its QPs to error */
};

enum mrc_mr_type {
	MRC_MR_USER,
	MRC_MR_DMA,
};

struct mrc_mr {
	struct ib_mr ibmr;
	enum mrc_mr_type type;
	struct ib_umem *umem;
	struct page **pages;		/* the pinned pages, in order */
	unsigned int npages;
	unsigned int page_offset;	/* of iova in pages[0] */
	u64 iova;
	u64 length;
	int access;
	u32 index;
	struct rcu_work free_work;	/* after deregistration */
};

/* Path and peer of a connected QP, set on INIT -> RTR. */
struct mrc_qp_path {
	struct rdma_ah_attr ah_attr;
	union ib_gid dgid;
	union ib_gid sgid;
	enum rdma_network_type net_type;
	u8 dmac[ETH_ALEN];
};

/* Requester: what it knows of a PSN it sent, until cumulatively acked. */
struct mrc_txpkt {
	u32 wqe_index;			/* SQ index of its message */
	u32 offset;			/* of its payload in the message */
	u32 sent_us;			/* last (re)transmission */
	u16 len;
	u16 ev;				/* slot in dp.ev.paths it last went on */
	u8 flags;			/* MRC_TXPKT_* */
	u8 retries;
};

#define MRC_TXPKT_SACKED	BIT(0)
#define MRC_TXPKT_RESEND	BIT(1)	/* queued for retransmission */
#define MRC_TXPKT_BY_TIMER	BIT(2)	/* ... because the RTO expired */
#define MRC_TXPKT_EXPIRED	BIT(3)	/* ... unanswered for an RTO */
/* Flagged by time alone: no evidence against the EV it went on. */
#define MRC_TXPKT_TIMER_FLAGS	(MRC_TXPKT_BY_TIMER | MRC_TXPKT_EXPIRED)
#define MRC_TXPKT_LOST_FLAGS	(MRC_TXPKT_RESEND | MRC_TXPKT_TIMER_FLAGS)

/* Requester: its copy of a send WQE, taken when first read from the ring. */
struct mrc_swqe {
	u64 wr_id;
	u64 remote_addr;
	u32 opcode;
	u32 flags;
	u32 rkey;
	__be32 imm;
	u32 length;			/* bytes in the message */
	u32 num_sge;
	u32 first_psn;
	u32 npkts;
	u32 msn;			/* 24-bit message sequence number */
	u16 rqmsn;
	u8 data[];			/* num_sge struct mrc_sge, or inline bytes */
};

/* Responder: a message being received, indexed by MSN. */
struct mrc_rmsg {
	u32 msn;
	u32 rcvd;			/* payload bytes placed so far */
	u32 dmalen;
	u32 last_psn;			/* valid once has_last */
	u32 fail_psn;			/* the packet that failed it */
	__be32 imm;
	u8 state;			/* enum mrc_rmsg_state */
	u8 fail;			/* 0, or the NAK syndrome to send */
	bool has_imm;
	bool has_last;
};

enum mrc_rmsg_state {
	MRC_RMSG_FREE,
	MRC_RMSG_OPEN,
	MRC_RMSG_DONE,
};

/*
 * The per-PSN and per-message state of a QP's windows, sized by them:
 * allocated in process context before the transition that needs it
 * (INIT -> RTR: the responder's, RTR -> RTS: the requester's), swapped in
 * under dp.lock, freed in RESET and at destroy.  mrc_qp_win_*().
 */
struct mrc_qp_win {
	struct mrc_txpkt *txpkts;
	u32 tx_size;			/* a power of two */
	unsigned long *rcv_bitmap;
	struct mrc_rmsg *rmsgs;
	u32 rcv_size;			/* a power of two, >= mpr */
	u32 mpr;
};

/*
 * Requester: the send queue's fetch and segmentation, the PSNs and MSNs
 * sent and acknowledged, and the failed WR that stops sending.
 */
struct mrc_qp_req {
	struct mrc_txpkt *txpkts;	/* tx_mask + 1, by PSN, from RTS on */
	u32 tx_mask;
	u8 *swqes;			/* sq.num copies of swqe_size */
	u32 swqe_size;
	u32 sq_fetch;			/* next SQ index to copy */
	u32 seg_index;			/* SQ index being segmented */
	u32 seg_off;
	u32 psn_next;			/* next new PSN */
	u32 una;			/* oldest PSN not cumulatively acked */
	u32 outstanding;		/* PSNs in [una, psn_next) not SACKed */
	u32 sacked_high;		/* one past the highest SACKed PSN */
	u32 msn_next;			/* MSN of the next new message */
	u32 acked_msn;			/* semantic ACKs cover MSNs up to here */
	u16 rqmsn_next;
	u32 peer_mpr;			/* PSNs the responder accepts */
	u32 wimm_inflight;
	u32 nresend;			/* PSNs flagged MRC_TXPKT_RESEND */
	bool tx_grow_queued;		/* tx_grow asked for more txpkts */
	bool tx_nomem;			/* a packet could not be allocated */
	/*
	 * New packets waiting since stall_us for the span or the window
	 * (stall_cnt: the counter the wait goes to, 0 when none waits).
	 */
	u32 stall_us;
	u8 stall_cnt;			/* enum mrc_counter */
	/*
	 * The WR at SQ index fail_index failed (a bad WQE, an SGE it cannot
	 * gather, a NAK) while WRs before it are still outstanding: nothing
	 * of it or after it is sent, and it completes with fail_status, then
	 * the QP goes to error, once those before it have completed.
	 */
	u32 fail_index;
	u8 fail_status;			/* enum ib_wc_status */
	bool fail_pending;
};

/* The retransmission timer, its RTT estimate and the probes it sends. */
struct mrc_qp_rto {
	struct timer_list timer;
	u32 srtt_us;
	u32 rttvar_us;
	u32 timeout_us;
	u32 retries;			/* expiries without cumulative progress */
	u16 probe_id;			/* of the last probe sent (any kind) */
	bool probe_pending;		/* the timer asks for a probe */
	bool fired;			/* the timer expired: tasklet decides */
	bool late;			/* ... and it ran late (a stall) */
	bool graced;			/* a late expiry was forgiven */
	bool ack_probe;			/* resend the last PSN for an ACK */
};

/* Responder: what arrived, what executed, what the next ACK says. */
struct mrc_qp_resp {
	/* rcv_mask + 1 (>= mpr) bits / entries, from RTR on */
	unsigned long *rcv_bitmap;	/* by PSN */
	struct mrc_rmsg *rmsgs;		/* by MSN */
	u32 rcv_mask;
	u32 mpr;			/* our window in PSNs */
	u32 rcv_next;			/* cack_psn + 1 */
	u32 rcv_high;			/* highest PSN arrived + 1 */
	u32 msn_done;			/* messages executed, in order */
	u32 msn_acked;			/* msn_done as of the last ACK sent */
	u32 done_psn;			/* last PSN of message msn_done */
	bool executed;			/* a message was executed: ACKable */
	u32 imm_reserved;		/* receives promised to done WriteIMMs */
	u32 pkts_since_sack;
	/* The lowest PSN that arrived since the last SACK, when @news. */
	u32 news_low;
	bool news;
	/*
	 * TSETH timestamp the next SACK reflects: that of the oldest packet
	 * it newly covers (as TCP's TSecr with delayed ACKs), so the
	 * requester's RTT includes the SACK coalescing delay its RTO faces.
	 */
	u16 echo_ts;
	bool echo_ts_set;
	u32 rcvd_bytes;			/* for CC_STATE */
	u32 ooo_held;			/* PSNs arrived past cack_psn */
	u8 dups;			/* duplicates received, for SETH.dups */
};

/*
 * Data-path state.  Requester and responder halves share one lock, taken
 * with bottom halves disabled: the doorbell and modify_qp run in process
 * context, receive and timers in softirq.
 */
struct mrc_qp_dp {
	spinlock_t lock;		/* everything below, and qp->state */
	struct tasklet_struct task;	/* requester: send, resend */
	/* More txpkts for a window that outgrew them (process context). */
	struct work_struct tx_grow;
	bool stopped;			/* destroy: no more work */
	struct mrc_qp_req req;
	struct mrc_qp_rack rack;
	struct mrc_qp_cc cc;
	struct mrc_qp_evs ev;
	struct mrc_qp_rto rto;
	struct mrc_qp_resp resp;
};

/*
 * A QP's MRC attributes (<rdma/mrc-abi.h> struct mrc_qp_mrc_attr, the OCP
 * API's struct mrc_qp_attr) but the profiles and the timeout: the device's
 * defaults at create (module parameters), then what modify_qp's extension
 * sets.  retry_linear is attr.retry_cnt.
 */
struct mrc_qp_mattr {
	u32 cap;			/* enum mrc_qp_cap_flags */
	u16 max_wimm;			/* WriteIMMs in flight, sent */
	u16 max_wimm_dest;		/* ... held at once, received */
	u8 mpr_units;			/* PSN range sent over */
	u8 mpr_dest_units;		/* PSN range accepted (at RTR) */
	u8 retry_exp;			/* MRC_ABI_RETRY_EXP_FOREVER: never */
};

struct mrc_qp {
	struct ib_qp ibqp;
	struct mrc_dev *dev;

	/*
	 * Users found it in the device's qp_xa under the xarray's lock
	 * (mrc_qp_lookup(), mrc_qp_next()) and hold a reference; destroy
	 * takes it out of qp_xa and waits for the last one (released).
	 */
	refcount_t ref;
	struct completion released;

	/* Serialises modify_qp, query_qp and destroy (process context). */
	struct mutex state_mutex;
	/* The creator's memory cgroup: what the QP allocates later is its. */
	struct mem_cgroup *memcg;

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

	/*
	 * MRC attributes (the provider's modify_qp extension), and the ACK
	 * timeout the verbs attribute or that extension set last, in ns (0:
	 * none).  Written under dp.lock, which the data path reads them under.
	 */
	struct mrc_qp_mattr mattr;
	u64 timeout_ns;

	/*
	 * Profiles the QP is bound to (mrc_profile.c), from creation on, or
	 * from the provider extension's RESET -> INIT; NULL is the built-in
	 * behaviour.  Changed under the controller's lock, which is what
	 * walkers of the device's QPs hold; the ids are for readers that do
	 * not take it (qp-get).
	 */
	struct mrc_ev_profile *ev_profile;
	struct mrc_cc_profile *cc_profile;
	u64 ev_profile_id;
	u64 cc_profile_id;
	bool profile_explicit;

	/*
	 * The entry of the peer of the path, from INIT -> RTR on (NULL in
	 * RESET and INIT): written under dp.lock, freed through RCU.
	 */
	struct mrc_peer __rcu *peer;

	struct mrc_qp_dp dp;
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

/* The requester's copy of the send WQE at SQ index @index. */
static inline struct mrc_swqe *mrc_swqe(struct mrc_qp *qp, u32 index)
{
	return (struct mrc_swqe *)(qp->dp.req.swqes +
		(size_t)(index & (qp->sq.num - 1)) * qp->dp.req.swqe_size);
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

#endif /* MRC_VERBS_H */
