/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: congestion control on the requester.  Before each new packet
 * the requester asks its QP's algorithm for room; every SACK, NACK and
 * retransmission timeout is told to it.  The algorithms: "none" (the fixed
 * window of max_inflight packets) and NSCC (mrc_nscc.c), chosen by the
 * QP's CC profile at RTR -> RTS.  The responder's half fills CC_STATE:
 * the received-bytes clock, the out-of-order count and the receiver window
 * penalty its host's receive load asks for.  Everything here runs under
 * qp->dp.lock.
 * Design: Documentation/mrc/congestion.rst.
 */
#ifndef MRC_CC_H
#define MRC_CC_H

#include <linux/types.h>
#include <uapi/linux/mrc_netlink.h>

struct mrc_dev;
struct mrc_qp;

/*
 * The responder's view of its host's receive load, shared by the device's
 * QPs (racy by design: any recent value will do): the receive backlog's
 * drops as last counted, and until when they press on the senders.
 */
struct mrc_cc_host {
	unsigned long checked;		/* jiffies of the last count */
	unsigned long pressed_until;	/* jiffies */
	u32 drops;			/* backlog drops, all CPUs */
};

/* What one SACK tells the algorithm. */
struct mrc_cc_ack {
	u32 newly;			/* payload bytes newly received */
	u32 rtt_ns;			/* of a never resent packet; 0: none */
	u8 penalty;			/* CC_STATE rcv_cwnd_pen, 0 - 127 */
	bool ecn;			/* its trigger met CE (M = SKIP_ONCE) */
};

/*
 * An algorithm.  @start: RTR -> RTS, the QP's window state fresh.  @room:
 * may a new packet of @len payload bytes go out, with @bytes and @pkts
 * (payload bytes, PSNs) sent and not yet SACKed?  @ack: a SACK that
 * matched.  @nack: a trimmed packet of @len bytes (@lasthop: trimmed at
 * the receiver's last hop).  @timeout: the RTO expired on a packet of
 * @len bytes.
 */
struct mrc_cc_ops {
	void (*start)(struct mrc_qp *qp);
	bool (*room)(struct mrc_qp *qp, u32 bytes, u32 pkts, u32 len);
	void (*ack)(struct mrc_qp *qp, const struct mrc_cc_ack *a);
	void (*nack)(struct mrc_qp *qp, u32 len, bool lasthop);
	void (*timeout)(struct mrc_qp *qp, u32 len);
};

/*
 * NSCC's parameters, a CC profile's or derived from the path (mrc_nscc.c),
 * in the units netlink.rst gives (../shared/NSCC-FACTS.md names them).
 */
struct mrc_nscc_params {
	u32 disable_qa;			/* 0 / 1 */
	u32 adjust_bytes_threshold;	/* bytes */
	u32 adjust_period_threshold;	/* ns */
	u32 base_rtt;			/* ns */
	u32 eta;			/* bytes */
	u32 fi;				/* bytes */
	u32 fi_scale;			/* millionths */
	u32 gamma;			/* millionths */
	u32 max_md_jump;		/* millionths */
	u32 max_cwnd;			/* bytes */
	u32 qa_gate;			/* 0 - 7 */
	u32 qa_threshold;		/* ns */
	u32 target_delay;		/* ns */
};

/* NSCC's per-QP state (mrc_nscc.c). */
struct mrc_nscc {
	u32 cwnd;			/* bytes */
	u32 base_rtt_ns;		/* the profile's, lowered by samples */
	u32 avg_delay_ns;		/* EWMA of queueing delay samples */
	u64 inc;			/* pending increase, bytes x bytes */
	u32 received;			/* bytes since the last fulfil */
	u32 achieved;			/* bytes this quick-adapt period */
	u32 fast_bytes;			/* bytes in a row at no delay */
	u32 qa_skip;			/* bytes in flight at the last QA */
	u64 fulfil_ns;			/* the last fulfil */
	u64 eta_ns;			/* the last periodic increase */
	u64 md_ns;			/* the last multiplicative decrease */
	u64 qa_ns;			/* the quick-adapt period began */
	bool qa_trigger;		/* a NACK since, for quick adapt */
	bool rtt_measured;		/* derived: base_rtt_ns is a sample's */
};

/* A QP's congestion-control state, beside its requester's. */
struct mrc_qp_cc {
	const struct mrc_cc_ops *ops;
	u32 algo;			/* MRC_CC_ALGO_* */
	u32 bytes;			/* payload sent and not SACKed */
	u64 sent;			/* payload first sent, cumulative */
	u64 acked;			/* ... received, by CC_STATE */
	u32 rcvd_units;			/* CC_STATE rcvd_bytes last taken */
	u8 last_event;			/* enum mrc_cc_event (uapi) */
	/*
	 * NSCC with no CC profile (nscc_default): parameters derived from the
	 * path's base RTT and link speed, not a profile's.
	 */
	bool derived;
	u32 link_mbps;			/* derived: the QP's ports' speed */
	struct mrc_nscc_params dparams;
	struct mrc_nscc nscc;
};

void mrc_cc_start(struct mrc_qp *qp);
bool mrc_cc_room(struct mrc_qp *qp, u32 more, u32 pkts, u32 len);
void mrc_cc_sent(struct mrc_qp *qp, u32 len);
void mrc_cc_gone(struct mrc_qp *qp, u32 len);
void mrc_cc_resent(struct mrc_qp *qp, u32 len);
void mrc_cc_sack(struct mrc_qp *qp, u32 rcv, u32 rtt_ns, bool ecn);
void mrc_cc_nack(struct mrc_qp *qp, u32 len, bool lasthop);
void mrc_cc_timeout(struct mrc_qp *qp, u32 len);
u32 mrc_cc_window(const struct mrc_qp *qp);

void mrc_cc_host_init(struct mrc_dev *dev);
__be32 mrc_cc_rcv_word(struct mrc_qp *qp);
__be16 mrc_cc_ooo_word(const struct mrc_qp *qp);

extern const struct mrc_cc_ops mrc_nscc_ops;

#endif /* MRC_CC_H */
