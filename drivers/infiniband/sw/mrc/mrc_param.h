/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: limits, defaults and tunables, kept in one place.
 *
 * Module parameters (mrc_param_*) are defined in mrc_main.c; everything
 * else here is a fixed property of the device.
 */
#ifndef MRC_PARAM_H
#define MRC_PARAM_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/mrc-abi.h>

#include "mrc_hdr.h"

/* RoCEv2's UDP destination port, which MRC keeps (module parameter). */
#define MRC_DEFAULT_UDP_PORT		4791

/* Identity reported by query_device. */
/*
 * No IEEE OUI is ours: 0xffffff, the value rdma_rxe reports, says "a
 * software device" to tools that reject 0 (rdma-core's pyverbs tests).
 */
#define MRC_VENDOR_ID			0xffffff
#define MRC_VENDOR_PART_ID		0x4d52	/* "MR" */
#define MRC_HW_VER			1
#define MRC_FW_VER			1
#define MRC_NODE_DESC			"rdma_mrc"

/* Object limits. */
#define MRC_MAX_QP			16384
#define MRC_MAX_QP_WR			16384
#define MRC_MAX_SGE			32
#define MRC_MAX_INLINE_DATA		512
#define MRC_MAX_CQ			16384
#define MRC_MAX_CQE			(64 * 1024)
#define MRC_MAX_MR			(256 * 1024)
#define MRC_MAX_PD			(64 * 1024)
#define MRC_MAX_AH			(64 * 1024)
#define MRC_MAX_MR_SIZE			BIT_ULL(40)
#define MRC_MAX_MSG_SIZE		BIT(31)
#define MRC_LOCAL_CA_ACK_DELAY		15

/* Port properties. */
#define MRC_PORT_NUM			1
#define MRC_NUM_PORTS			1
#define MRC_GID_TBL_LEN			128
#define MRC_PKEY_TBL_LEN		1
#define MRC_DEFAULT_PKEY		0xffff
#define MRC_MAX_IB_MTU			IB_MTU_4096

/*
 * QP numbers: 0 and 1 are the IB special QPs (MRC has none), 0x2 is
 * reserved by MRC for endpoint operations; user QPs start above the
 * reserved range and wrap within 24 bits.
 */
#define MRC_QPN_FIRST			0x10
#define MRC_QPN_MAX			GENMASK(MRC_QPN_BITS - 1, 0)

/* Verbs attribute ranges. */
#define MRC_MAX_TIMEOUT			31
#define MRC_MAX_RETRY_CNT		7
#define MRC_MAX_RNR_RETRY		7

/* Memory keys: an index into the device's MR table plus an 8-bit tag. */
#define MRC_KEY_TAG_BITS		8
#define MRC_KEY_TAG_MASK		((1U << MRC_KEY_TAG_BITS) - 1)
#define MRC_MR_INDEX_FIRST		1
#define MRC_MR_INDEX_MAX		((1U << (32 - MRC_KEY_TAG_BITS)) - 1)

/*
 * Transport defaults both ends assume under plain verbs (MRC-FACTS
 * "Choices"); the (p) ones are module parameters, defined in mrc_main.c.
 */
#define MRC_MPR_MAX_UNITS		MRC_ABI_MAX_MPR_UNITS	/* 4096 PSNs */
#define MRC_MPR_MAX_PSNS		(MRC_MPR_MAX_UNITS * MRC_MPR_UNIT)
#define MRC_DEFAULT_MPR_UNITS		32	/* (p) */
#define MRC_DEFAULT_MAX_WIMM		64	/* (p) WriteIMMs in flight */
#define MRC_DEFAULT_EV_COUNT		64	/* (p) EVs per QP */
#define MRC_MAX_EV_COUNT		256
#define MRC_DEFAULT_EV_SKIP_HOLD_US	1000	/* SKIP -> GOOD after this */
#define MRC_EV_SPORT_BASE		49152	/* EVs map into 49152-65535 */
#define MRC_EV_SPORT_SPAN		16384
/*
 * (p) The older loss rule beside the reordering window: a PSN with this
 * many later PSNs SACKed is lost too.  0 (the default): time alone.
 */
#define MRC_DEFAULT_DUPTHRESH		0
/*
 * Loss detection (mrc_rack.c; Documentation/mrc/design.rst "Loss
 * detection").  The reordering window is reo_mult quarters of the minimum
 * RTT: MRC_REO_MULT_INIT to begin with, doubled per RTT in which the
 * responder reports a spurious resend (a guest's reordering is a timer
 * tick, milliseconds, not the quarter RTT a step of one would add), at
 * most MRC_REO_MULT_MAX and never past srtt + 4 rttvar;
 * MRC_REO_DECAY_LOSSES rounds (an RTT each) that find losses with no
 * widening meanwhile take a quarter off.
 */
#define MRC_REO_MULT_INIT		1
#define MRC_REO_MULT_MAX		128
#define MRC_REO_DECAY_LOSSES		16
/* An RTT sample counts as at least one TSETH unit (coarse: 32.8 us). */
#define MRC_REO_RTT_FLOOR_US		33
/* The minimum RTT: the least sample within this window. */
#define MRC_MIN_RTT_WIN_US		(10 * USEC_PER_SEC)
/* A tail loss probe goes out this many smoothed RTTs after the last send. */
#define MRC_TLP_SRTTS			2
/* SETH.dups is serial modulo 256: a step of this or more is an older SACK. */
#define MRC_DUPS_HALF			128
/*
 * A SACK may name PSNs this far before the oldest unacked one and still be
 * believed (a late copy of an older SACK): one largest window.  Anything
 * older, or beyond what was sent, is stale or forged and changes nothing.
 */
#define MRC_ACK_STALE_PSNS		MRC_MPR_MAX_PSNS
#define MRC_DEFAULT_RTO_MIN_US		1000	/* (p) RTO floor */
#define MRC_RTO_INIT_US			10000	/* before any RTT sample */
/*
 * A retransmission timer that runs this many jiffies after its expiry
 * time was held up by the host (a vCPU not scheduled), not by the path:
 * SACKs may be waiting behind it, so it is re-armed once.
 */
#define MRC_RTO_LATE_JIFFIES		2
#define MRC_DEFAULT_EXP_RETRIES		7	/* (p) doubling RTOs after retry_cnt */
/*
 * A responder SACKs every this many new data packets, in order or not, and
 * at once when asked (ACKREQ: a message's last packet, the window's edge,
 * a resend), on a CE mark, a failed message, or a packet that opens a gap
 * while none was open.  Further reordering adds no SACK: the requester's
 * loss detection is timed (mrc_rack.c), and under spraying most packets
 * open or fill a hole, so a SACK per hole doubled the SACKs both ends
 * handle (performance.rst, "SACKs by count").
 */
#define MRC_SACK_EVERY_PKTS		16
#define MRC_DEFAULT_SACK_HOLE_EVERY	0	/* (p) the older hole rule: off */
/*
 * Where a SACK's 64-bit bitmap starts (p: sack_follow).  Off, always at
 * cack_psn + 1.  On, it moves up to end at the PSN that triggered the SACK
 * when that lies further, but never past the lowest PSN that arrived since
 * the previous SACK: while a hole at cack_psn is being repaired, what
 * arrives more than 64 PSNs past it is still reported, and frees the
 * requester's window, and nothing arrived goes unreported.
 */
#define MRC_DEFAULT_SACK_FOLLOW		true
/*
 * Packets a QP keeps in flight (p) until congestion control (NSCC) sizes
 * the window: bursts of a whole 4096-PSN MPR overflow a receiving host's
 * backlog (netdev_max_backlog, 1000 by default) and turn into losses.
 * Between two 1-vCPU TCG guests (scripts/bench) 128 still overran the
 * receiver (3.5% of the packets lost on a lossless link), 64 lost none at
 * the same goodput, 32 lost none but limited the goodput.
 */
#define MRC_DEFAULT_MAX_INFLIGHT	64
/*
 * NSCC for QPs with no CC profile (p nscc_default, off by default: the
 * fixed window stays the default until the benchmarks favour NSCC): its
 * parameters derived from the path (mrc_nscc.c, congestion.rst "Derived
 * parameters").  The link speed of a port whose netdev reports none (p
 * link_mbps: QEMU's virtio-net, dummy), and the base RTT a QP assumes
 * until its first sample (p nscc_base_rtt_us; only the initial window
 * depends on it).
 */
#define MRC_DEFAULT_LINK_MBPS		10000
#define MRC_DEFAULT_NSCC_BASE_RTT_US	100
/*
 * max_inflight counts the PSNs sent and not yet SACKed, not the span from
 * the oldest unacknowledged one: sprayed packets overtake each other, and
 * while a slow path holds the cumulative point the ones the faster paths
 * delivered give their room to new ones.  The span stops at this many
 * windows (the txpkts a QP has: its memory) and at the peer's MPR.
 */
#define MRC_REQ_SPAN_WINDOWS		4
#define MRC_DEFAULT_TTL			64

/*
 * The EV state machine (mrc_ev.c, Documentation/mrc/design.rst "EV
 * states"); its (p) module parameters are defined in mrc_ev.c.
 * ev_min_active of the built-in EV set (p): an eighth of the default set.
 */
#define MRC_DEFAULT_EV_MIN_ACTIVE	8
/*
 * EV health by evidence (mrc_ev.c; design.rst "EV health").  Each slot
 * keeps a score: points for what points at its path, one off for every
 * packet sent on it that is delivered.  At MRC_EV_SUSPECT_SCORE the EV is
 * SKIP and suspect: no data goes on it, and once the SKIP hold is over a
 * probe tests it; an answer makes it GOOD (score cleared), each probe
 * unanswered for ev_probe_rtos RTOs adds MRC_EV_PTS_PROBE_LOST.  At ev_bad_score (p)
 * it is ASSUMED_BAD.  A loss alone (ev_loss_pts, p) makes an EV suspect;
 * three unanswered probes after it condemn it: a random loss of 1% is
 * then a condemnation once in a million losses, a black hole costs one
 * data packet per EV.
 */
#define MRC_DEFAULT_EV_LOSS_PTS		8
#define MRC_DEFAULT_EV_BAD_SCORE	32
#define MRC_EV_SUSPECT_SCORE		8
#define MRC_EV_PTS_TIMEOUT		16
#define MRC_EV_PTS_PROBE_LOST		8
#define MRC_EV_PTS_TRIM			2
#define MRC_EV_PTS_ECN			1
#define MRC_EV_SCORE_MAX		U16_MAX
/* A suspect or ASSUMED_BAD EV is probed every this many RTOs (p) ... */
#define MRC_DEFAULT_EV_PROBE_RTOS	4
/* ... but never more often than this, nor less often than that. */
#define MRC_EV_PROBE_MIN_US		1000
#define MRC_EV_PROBE_MAX_US		1000000
/*
 * Each unanswered probe of an ASSUMED_BAD EV doubles the wait before its
 * next, up to this many doublings and this long (or the interval itself
 * when that is longer).
 */
#define MRC_EV_PROBE_BACKOFF_SHIFT	4
#define MRC_EV_PROBE_BACKOFF_MAX_US	(4 * USEC_PER_SEC)
/*
 * A device's EV probes: at most one per this many data packets it sent,
 * plus this many a second, banked up to this many (struct mrc_ev_budget).
 */
#define MRC_EV_PROBE_DATA_PER		4
#define MRC_EV_PROBE_FLOOR_PER_SEC	250
#define MRC_EV_PROBE_BANK		256
/* EV probes one tasklet run sends at most; the rest wait for the next. */
#define MRC_EV_PROBE_BURST		16
/* Probe ids remembered as EV probes (a power of two). */
#define MRC_EV_PROBE_IDS		256

/* DSCP classes (p). */
#define MRC_DEFAULT_DSCP_NO_TRIM	0
#define MRC_DEFAULT_DSCP_TRIMMABLE	8
#define MRC_DEFAULT_DSCP_TRIMMABLE_RETX	16
#define MRC_DEFAULT_DSCP_TRIMMED	24
#define MRC_DEFAULT_DSCP_TRIMMED_LASTHOP 26
#define MRC_DEFAULT_DSCP_CONTROL	46
#define MRC_DEFAULT_CONTROL_PKEY	0xffff	/* (p) P_Key on control packets */

/*
 * Controller limits (dev-get, Documentation/mrc/netlink.rst): profiles out
 * of INIT per kind, EVs over all EV profiles and per profile, the explicit
 * ev-count alignment, EV bits, entries per EV operation, fields per
 * profile, requests per endpoint operation.
 */
#define MRC_CTL_MAX_FMT_PROFILES	64
#define MRC_CTL_MAX_EV_PROFILES		64
#define MRC_CTL_MAX_CC_PROFILES		64
#define MRC_CTL_EV_MAX_COUNT		65536
#define MRC_CTL_EV_MAX_COUNT_PROFILE	4096
#define MRC_CTL_EV_COUNT_ALIGN		1
#define MRC_CTL_EV_MAX_WIDTH		256
#define MRC_CTL_EV_OP_MAX_ENTRIES	1024
#define MRC_CTL_MAX_FIELDS		32
#define MRC_CTL_EP_MAX_REQS		64
/*
 * GEN profiles: candidate values generation may skip (values whose UDP
 * source port would be 0) before it gives up looking for more.
 */
#define MRC_CTL_EV_GEN_MAX_SKIP		65536
/* EV events one device sends per second at most (p). */
#define MRC_DEFAULT_EV_EVENT_RATE	1000

/* The IB verbs timeout attribute: 4.096 us * 2^t; 0 means none. */
#define MRC_VERBS_TIMEOUT_BASE_NS	4096
/*
 * The MRC API's timeout attribute: 1.024 us * 2^t; 0 means none, as for
 * verbs.  A QP's default (14: 16.8 ms, verbs' 12) until one is set.
 */
#define MRC_API_TIMEOUT_BASE_NS		1024
#define MRC_API_DEFAULT_TIMEOUT		14
/* The RTO never grows past this, however many doublings are allowed. */
#define MRC_RTO_MAX_US			(64 * USEC_PER_SEC)

extern unsigned short mrc_param_udp_port;
extern unsigned int mrc_param_mpr_units;
extern unsigned int mrc_param_max_inflight;
extern unsigned int mrc_param_max_wimm;
extern unsigned int mrc_param_ev_count;
extern unsigned int mrc_param_dupthresh;
extern unsigned int mrc_param_sack_hole_every;
extern bool mrc_param_sack_follow;
extern unsigned int mrc_param_rto_min_us;
extern unsigned int mrc_param_exp_retries;
extern unsigned int mrc_param_dscp_data;
extern unsigned int mrc_param_dscp_retx;
extern unsigned int mrc_param_dscp_control;
extern unsigned int mrc_param_dscp_trimmed;
extern unsigned int mrc_param_dscp_trimmed_lasthop;
extern unsigned int mrc_param_control_pkey;
extern unsigned int mrc_param_ep_rate;
extern unsigned int mrc_param_ev_event_rate;
extern unsigned int mrc_param_ev_min_active;
extern unsigned int mrc_param_ev_probe_rtos;
extern unsigned int mrc_param_ev_loss_pts;
extern unsigned int mrc_param_ev_bad_score;

/*
 * Endpoint operations (mrc_ep.c): requests in one batch (the device limit
 * the family reports as ep-max-reqs), and the longest a batch may wait for
 * its responses.
 */
#define MRC_EP_MAX_REQS			MRC_CTL_EP_MAX_REQS
/*
 * Endpoint requests a device answers per second at most (p): more than a
 * controller's batches need (MRC_EP_MAX_REQS each), few enough that a
 * flood of forged ones costs little CPU and reflects little.
 */
#define MRC_DEFAULT_EP_RATE		1000
#define MRC_EP_MAX_TIMEOUT_NS		(60ULL * NSEC_PER_SEC)

#endif /* MRC_PARAM_H */
