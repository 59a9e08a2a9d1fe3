/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: a software RDMA device speaking MRC (Multipath Reliable
 * Connection) over UDP.  Objects shared by every part of the driver.
 */
#ifndef MRC_H
#define MRC_H

#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/mrc_netlink.h>
#include <uapi/rdma/mrc-abi.h>

#include "mrc_hw_counters.h"
#include "mrc_param.h"

struct mrc_net;
struct mrc_ctl;
struct mrc_ev_profile;
struct mrc_cc_profile;
struct mrc_pkt;

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

/*
 * One port (plane) of a device: the netdev it sends and receives on, and
 * its state.  ndev is fixed from creation until the device unregisters.
 */
struct mrc_port {
	struct net_device *ndev;
	/*
	 * The verbs port state: the netdev's (running with carrier: ACTIVE),
	 * DOWN whatever the netdev does while the port is admin-disabled.
	 * Written under dev->port_lock, read locklessly (READ_ONCE).
	 */
	enum ib_port_state state;
	/* Written under dev->port_lock, read locklessly. */
	bool admin_enabled;
};

/*
 * A remote GID some QP of the device is connected to, and what it told us
 * of itself (mrc_peer.c).  Found under RCU; nqps under dev->peer_lock.
 */
struct mrc_peer {
	struct hlist_node node;
	struct rcu_head rcu;
	union ib_gid gid;
	u32 nqps;			/* QPs connected to it */
	/* Its ports reported down (Port Status Update), bit n: port n. */
	u32 down_mask;
};

#define MRC_PEER_HASH_BITS	8

struct mrc_dev {
	struct ib_device ibdev;
	struct ib_device_attr attr;

	/* Ports 1..nports are ports[0..nports - 1]; fixed at creation. */
	struct mrc_port ports[MRC_MAX_PORTS];
	u32 nports;
	/* Port 1's netdev (ports[0].ndev): the identity of the device. */
	struct net_device *ndev;
	/* The UDP tunnel of the netdevs' namespace, while we hold it. */
	struct mrc_net *net;

	/* Serialises port state changes and their events. */
	spinlock_t port_lock;

	atomic_t obj_count[MRC_NUM_OBJ_TYPES];
	atomic64_t counters[MRC_NUM_COUNTERS];

	struct xarray qp_xa;		/* qpn -> struct mrc_qp (lock: bh) */
	u32 qpn_next;
	struct xarray mr_xa;		/* key index -> struct mrc_mr */

	/* Controller state: profiles, defaults (mrc_profile.c). */
	struct mrc_ctl *ctl;

	/* The peers of its QPs (mrc_peer.c). */
	spinlock_t peer_lock;
	DECLARE_HASHTABLE(peers, MRC_PEER_HASH_BITS);

	/* Endpoint requests answered in the current second (mrc_ep.c). */
	spinlock_t ep_rate_lock;
	unsigned long ep_rate_window;
	u32 ep_rate_count;
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
	struct mrc_queue_ctl *ctl;	/* at buf */
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

/*
 * One entropy value as the datapath sends it: the UDP source port, the low
 * 16 bits of the IPv6 flow label (structured EVs; 0 otherwise) and the port
 * (plane) of the device it leaves on, 1-based.
 */
struct mrc_path {
	u16 sport;
	u16 flow;
	u8 port;
};

/*
 * The state of one EV slot of a QP (mrc_ev.c).  @state is a uapi
 * MRC_EV_STATE_* bit.
 */
struct mrc_ev_slot {
	u32 since_us;			/* SKIP: entered; ASSUMED_BAD: probed */
	u16 probe_first;		/* ASSUMED_BAD: its first probe's id */
	u8 state;
	u8 flags;			/* MRC_EV_SLOT_* */
};

/* Excluded, yet kept in use so that ev_min_active EVs stay usable. */
#define MRC_EV_SLOT_HELD	BIT(0)
/* ASSUMED_BAD and probed since: probe_first is valid. */
#define MRC_EV_SLOT_PROBED	BIT(1)

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
	u32 sacked_high;		/* one past the highest SACKed PSN */
	u32 msn_next;			/* MSN of the next new message */
	u32 acked_msn;			/* semantic ACKs cover MSNs up to here */
	u16 rqmsn_next;
	u32 peer_mpr;			/* PSNs the responder accepts */
	u32 wimm_inflight;
	u32 nresend;			/* PSNs flagged MRC_TXPKT_RESEND */
	bool tx_nomem;			/* a packet could not be allocated */
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

/* The QP's EVs: slot i of its EV profile (or built-in set) is paths[i]. */
struct mrc_qp_evs {
	struct mrc_path paths[MRC_MAX_EV_COUNT];
	struct mrc_ev_slot slots[MRC_MAX_EV_COUNT];
	u16 count;
	u16 next;			/* the rotation's next slot */
	u16 min_active;
	u16 nskip;			/* slots in SKIP */
	u16 nbad;			/* slots in ASSUMED_BAD */
	struct timer_list timer;	/* SKIP hold ends, EV probes due */
	bool due;			/* the EV timer expired */
	/* bit (id % MRC_EV_PROBE_IDS): probe id was an EV probe */
	DECLARE_BITMAP(probe_ids, MRC_EV_PROBE_IDS);
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
	/*
	 * TSETH timestamp the next SACK reflects: that of the oldest packet
	 * it newly covers (as TCP's TSecr with delayed ACKs), so the
	 * requester's RTT includes the SACK coalescing delay its RTO faces.
	 */
	u16 echo_ts;
	bool echo_ts_set;
	u32 rcvd_bytes;			/* for CC_STATE */
};

/*
 * Data-path state.  Requester and responder halves share one lock, taken
 * with bottom halves disabled: the doorbell and modify_qp run in process
 * context, receive and timers in softirq.  Congestion-control state will
 * sit beside the requester's.
 */
struct mrc_qp_dp {
	spinlock_t lock;		/* everything below, and qp->state */
	struct tasklet_struct task;	/* requester: send, resend */
	bool stopped;			/* destroy: no more work */
	struct mrc_qp_req req;
	struct mrc_qp_evs ev;
	struct mrc_qp_rto rto;
	struct mrc_qp_resp resp;
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
	 * Profiles the QP is bound to (mrc_profile.c), fixed from creation
	 * (or the provider extension) on; NULL is the built-in behaviour.
	 */
	struct mrc_ev_profile *ev_profile;
	struct mrc_cc_profile *cc_profile;
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

/* mrc_main.c: devices and their ports (planes) */
int mrc_obj_get(struct mrc_dev *dev, enum mrc_obj_type type);
void mrc_obj_put(struct mrc_dev *dev, enum mrc_obj_type type);
struct net_device *mrc_port_ndev(struct mrc_dev *dev, u32 port);
u32 mrc_port_of_ndev(struct mrc_dev *dev, const struct net_device *ndev);
int mrc_dev_new(const char *name, struct net_device *const *ndevs,
		unsigned int n, struct netlink_ext_ack *extack);
int mrc_port_set_admin(struct mrc_dev *dev, u32 port, bool enabled,
		       struct netlink_ext_ack *extack);
bool mrc_port_admin_enabled(struct mrc_dev *dev, u32 port);
bool mrc_port_active(struct mrc_dev *dev, u32 port);

/* mrc_profile.c: EV format, EV and CC profiles; binding QPs to them */
int mrc_profile_dev_init(struct mrc_dev *dev);
void mrc_profile_dev_cleanup(struct mrc_dev *dev);
int mrc_profile_bind_qp(struct mrc_qp *qp, u64 ev_id, u64 cc_id,
			bool explicit_bind);
void mrc_profile_unbind_qp(struct mrc_qp *qp);
u32 mrc_profile_skip_hold_us(struct mrc_dev *dev);
unsigned int mrc_profile_qp_evs(struct mrc_qp *qp, struct mrc_path *evs,
				unsigned long *denied, unsigned int max,
				u32 *min_active);

/* mrc_peer.c: the peers of a device's QPs */
void mrc_peer_dev_init(struct mrc_dev *dev);
void mrc_peer_dev_cleanup(struct mrc_dev *dev);
struct mrc_peer *mrc_peer_lookup(struct mrc_dev *dev, const union ib_gid *gid);
struct mrc_peer *mrc_peer_get(struct mrc_dev *dev, const union ib_gid *gid);
void mrc_peer_put(struct mrc_dev *dev, struct mrc_peer *peer);

/* mrc_ev.c: the per-QP EV state machine */
void mrc_ev_qp_load(struct mrc_qp *qp);
void mrc_ev_qp_reload(struct mrc_qp *qp);
u32 mrc_ev_qp_state(struct mrc_qp *qp, u32 slot);
u32 mrc_ev_qp_usable(struct mrc_qp *qp);
void mrc_ev_probe_ok(struct mrc_dev *dev, const union ib_gid *peer,
		     const struct mrc_path *ev);

/* An EV state change, for mrc_nl_ev_event(). */
struct mrc_ev_event {
	u32 slot;			/* index in the QP's EV profile */
	u32 state;			/* MRC_EV_STATE_* of the uapi */
	u32 prev_state;
	u32 reason;			/* MRC_EV_REASON_* of the uapi */
	u32 usable;			/* the QP's usable EVs afterwards */
};

/* mrc_nl.c: events to the family's multicast groups; atomic context */
void mrc_nl_ev_event(struct mrc_qp *qp, const struct mrc_ev_event *ev);
void mrc_nl_ev_ctl_event(struct mrc_dev *dev, u64 id, u32 event_mask,
			 const u8 *val, u8 len, u8 port, u32 state,
			 u32 prev_state, u32 usable);
void mrc_nl_peer_status(struct mrc_dev *dev, u32 port,
			const union ib_gid *peer, u32 port_status);

/* One request of an endpoint operation batch, and its outcome. */
struct mrc_ep_req {
	u16 id;				/* BTH PSN[15:0] */
	union ib_gid sgid;
	union ib_gid dgid;
	struct mrc_path ev;
	u32 port_status;		/* Port Status Update: our ports down */
	/* outcome */
	bool answered;
	u32 rx_port;
	u32 rtt_ns;
	u8 adj_svc_time;
	u32 order;			/* arrival rank among the answered */
};

/* mrc_ep.c: endpoint operations on QP 0x2 */
void mrc_ep_rcv(struct mrc_pkt *pkt);
int mrc_ep_batch(struct mrc_dev *dev, u32 op_type, u8 dscp, u64 timeout_ns,
		 struct mrc_ep_req *reqs, unsigned int n,
		 struct netlink_ext_ack *extack);

/* How a queued packet is to be sent; lives in skb->cb. */
struct mrc_tx_cb {
	struct mrc_path path;
	u8 dscp;
	bool ect;
};

static inline void mrc_txq_add(struct sk_buff_head *txq, struct sk_buff *skb,
			       const struct mrc_path *path, u8 dscp, bool ect)
{
	struct mrc_tx_cb *cb = (struct mrc_tx_cb *)skb->cb;

	cb->path = *path;
	cb->dscp = dscp;
	cb->ect = ect;
	__skb_queue_tail(txq, skb);
}

/* Where a packet of no QP goes (endpoint operations); see mrc_net.c. */
struct mrc_xmit_addr {
	const union ib_gid *sgid;
	const union ib_gid *dgid;
	enum rdma_network_type net_type;
};

/* mrc_net.c */
int mrc_net_init(void);
void mrc_net_exit(void);
struct mrc_net *mrc_net_get(struct net *net);
void mrc_net_put(struct mrc_net *mn);
struct sk_buff *mrc_net_alloc_skb(struct mrc_qp *qp, unsigned int len);
struct sk_buff *mrc_net_alloc_skb_dev(struct mrc_dev *dev, unsigned int len);
struct sk_buff *mrc_net_alloc_hdrs(struct mrc_qp *qp, u8 op, u32 psn);
void mrc_net_xmit_addr(struct mrc_dev *dev, const struct mrc_xmit_addr *addr,
		       struct sk_buff *skb, const struct mrc_path *path,
		       u8 dscp, bool ect);
void mrc_net_xmit(struct mrc_qp *qp, struct sk_buff *skb,
		  const struct mrc_path *path, u8 dscp, bool ect);
void mrc_net_xmit_list(struct mrc_qp *qp, struct sk_buff_head *list);

/* mrc_icrc.c */
u32 mrc_icrc(const struct sk_buff *skb, const struct udphdr *udph,
	     unsigned int mrc_len);

/* mrc_recv.c */
void mrc_recv(struct sk_buff *skb);

/* mrc_req.c */
int mrc_req_init(struct mrc_qp *qp);
void mrc_req_cleanup(struct mrc_qp *qp);
int mrc_req_win_alloc(struct mrc_qp_win *w);
void mrc_req_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w);
void mrc_req_start(struct mrc_qp *qp);
void mrc_req_kick(struct mrc_qp *qp);
void mrc_req_setup(struct mrc_qp *qp);
void mrc_req_stop(struct mrc_qp *qp);
void mrc_req_update_rto(struct mrc_qp *qp);
u32 mrc_now_us(void);

/* mrc_comp.c */
void mrc_comp_rcv_ack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		      struct sk_buff_head *txq);
void mrc_comp_rcv_sack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq);
void mrc_comp_rcv_nack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq);
void mrc_comp_complete(struct mrc_qp *qp);
void mrc_comp_fail(struct mrc_qp *qp, enum ib_wc_status status);
void mrc_comp_fail_wr(struct mrc_qp *qp, u32 index, enum ib_wc_status status);

/* mrc_resp.c */
int mrc_resp_win_alloc(struct mrc_qp_win *w);
void mrc_resp_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w);
void mrc_resp_start(struct mrc_qp *qp);
void mrc_qp_win_free(struct mrc_qp_win *w);
void mrc_resp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
		  struct sk_buff_head *txq);
void mrc_resp_probe(struct mrc_qp *qp, struct mrc_pkt *pkt,
		    struct sk_buff_head *txq);
void mrc_resp_unexpected(struct mrc_qp *qp, struct mrc_pkt *pkt,
			 struct sk_buff_head *txq);

/* mrc_mr.c */
struct mrc_mr *mrc_mr_lookup(struct mrc_dev *dev, u32 key);
bool mrc_mr_covers(const struct mrc_mr *mr, u64 va, u64 len);
void mrc_mr_read(struct mrc_mr *mr, u64 va, void *buf, u32 len);
void mrc_mr_copy_skb(struct mrc_mr *mr, u64 va, const struct sk_buff *skb,
		     u32 off, u32 len);

/* mrc_verbs.c */
int mrc_register_device(struct mrc_dev *dev, const char *name);
void mrc_dealloc_driver(struct ib_device *ibdev);
void mrc_port_update(struct mrc_dev *dev, u32 port);
void mrc_port_mtu_changed(struct mrc_dev *dev, u32 port);

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
int mrc_mr_init(void);
void mrc_mr_exit(void);

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
void mrc_qp_error(struct mrc_qp *qp);
struct mrc_qp *mrc_qp_lookup(struct mrc_dev *dev, u32 qpn);
struct mrc_qp *mrc_qp_next(struct mrc_dev *dev, unsigned long *index);
void mrc_qp_put(struct mrc_qp *qp);
u32 mrc_queue_pending(struct mrc_queue *q, u32 cons);
void mrc_qp_post_cqe(struct mrc_qp *qp, bool send, struct mrc_cqe *cqe);

#endif /* MRC_H */
