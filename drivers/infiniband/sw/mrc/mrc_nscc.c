// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: NSCC ("uet-1.0-nscc"), the congestion control MRC adopts from
 * UET, as ../shared/NSCC-FACTS.md describes the public simulator's: a
 * window in bytes, no slow start, fed by every SACK.  The responder's
 * cumulative received-bytes counter is the ACK clock; the reflected
 * timestamp gives the queueing delay (the RTT less the lowest RTT seen);
 * ECN and delay together pick one of four reactions (proportional or fair
 * increase, multiplicative decrease, nothing); quick adapt cuts the window
 * to what a period delivered when it went badly; a fulfil period turns
 * the accumulated increase into window.  Parameters come from the QP's CC
 * profile (netlink.rst, "CC profiles"), read at each event, so that a
 * profile modified online applies at once.  Everything runs under
 * qp->dp.lock.  Documentation/mrc/congestion.rst.
 */
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>

#include "mrc.h"
#include "mrc_cc.h"
#include "mrc_profile.h"
#include "mrc_trace.h"

/* Millionths: fi_scale, gamma and max_md_jump. */
#define MRC_NSCC_UNIT			1000000U
/* The avg_delay EWMA takes 1/80 (0.0125) of each sample. */
#define MRC_NSCC_DELAY_EWMA		80
/*
 * Proportional increase: alpha (target - delay) per byte, alpha = 4 MSS a
 * b / target with b = target / 12 us, and fi = 5 MSS a: 4/5 fi (target -
 * delay) / 12 us.
 */
#define MRC_NSCC_PROP_NUM		4
#define MRC_NSCC_PROP_DEN		5
#define MRC_NSCC_REF_DELAY_NS		12000
/*
 * Fast increase needs a window of bytes at "no delay": under 1 us in
 * NSCC; here a delay below one timestamp unit (32.8 us), the resolution
 * rdma_mrc's timestamps have.
 */
#define MRC_NSCC_FAST_DELAY_NS		BIT(MRC_TS_COARSE_SHIFT)
/* rcv_cwnd_pen: the share of the newly received bytes taken off, /128. */
#define MRC_NSCC_PEN_DEN		128
/*
 * Derived parameters (mrc_nscc_derive()): NSCC-FACTS's constants.  Bytes
 * = ns x Mb/s / 8000; the reference BDP that a scales by (12 us at
 * 100 Gb/s); fi, eta (hundredths) in MTUs x a; fi_scale = a / 4; the
 * window 1.5 BDP; the fulfil bytes, quick adapt's threshold in target
 * delays and its gate.
 */
#define MRC_NSCC_MBPS_NS_PER_BYTE	8000
#define MRC_NSCC_REF_BDP		150000
#define MRC_NSCC_FI_MTUS		5
#define MRC_NSCC_ETA_CENTI_MTUS		15
#define MRC_NSCC_FI_SCALE_DIV		4
#define MRC_NSCC_GAMMA			800000
#define MRC_NSCC_MAX_MD_JUMP		500000
#define MRC_NSCC_MAXWND_NUM		3
#define MRC_NSCC_MAXWND_DEN		2
#define MRC_NSCC_FULFIL_MTUS		8
#define MRC_NSCC_QA_TARGETS		4
#define MRC_NSCC_QA_GATE		3

static unsigned int mrc_param_nscc_base_rtt_us = MRC_DEFAULT_NSCC_BASE_RTT_US;
module_param_named(nscc_base_rtt_us, mrc_param_nscc_base_rtt_us, uint, 0644);
MODULE_PARM_DESC(nscc_base_rtt_us, "Base RTT (us) NSCC's derived parameters assume until a QP's first RTT sample (default 100)");

/*
 * The parameters of @qp's profile now (the controller may change them),
 * or those derived from its path.
 */
static void mrc_nscc_params(struct mrc_qp *qp, struct mrc_nscc_params *p)
{
	struct mrc_nscc_params *src = &qp->cc_profile->cfg.nscc;
	unsigned int i;

	if (qp->dp.cc.derived) {
		*p = qp->dp.cc.dparams;
		return;
	}
	for (i = 0; i < MRC_NSCC_NPARAMS; i++)
		*mrc_nscc_param(p, i) = READ_ONCE(*mrc_nscc_param(src, i));
}

static u32 mrc_nscc_mtu(struct mrc_qp *qp)
{
	return ib_mtu_enum_to_int(qp->attr.path_mtu);
}

static u32 mrc_nscc_u32(u64 v)
{
	return clamp_t(u64, v, 1, U32_MAX);
}

/*
 * A QP with no CC profile (nscc_default): NSCC's parameters from its base
 * RTT @rtt_ns and link speed, as NSCC-FACTS gives them.  BDP = RTT x
 * speed; a = BDP / 150 kB; target delay = the RTT (trimming is the
 * fabric's to offer, not assumed); fi = 5 MTU a; eta = 0.15 MTU a;
 * fi_scale = 0.25 a; gamma 0.8; max_md_jump 0.5; the fulfil period the
 * RTT and its bytes 8 MTU; quick adapt past 4 target delays, gate 3; the
 * window at most 1.5 BDP.  Congestion.rst, "Derived parameters".
 */
static void mrc_nscc_derive(struct mrc_qp *qp, u32 rtt_ns)
{
	struct mrc_nscc_params *p = &qp->dp.cc.dparams;
	u64 mtu = mrc_nscc_mtu(qp);
	u64 bdp = div_u64((u64)rtt_ns * qp->dp.cc.link_mbps,
			  MRC_NSCC_MBPS_NS_PER_BYTE);
	/* a, in millionths */
	u64 a = div_u64(bdp * MRC_NSCC_UNIT, MRC_NSCC_REF_BDP);

	rtt_ns = max(rtt_ns, 1U);
	p->disable_qa = 0;
	p->base_rtt = rtt_ns;
	p->target_delay = rtt_ns;
	p->adjust_period_threshold = rtt_ns;
	p->adjust_bytes_threshold = mrc_nscc_u32(MRC_NSCC_FULFIL_MTUS * mtu);
	p->qa_threshold = mrc_nscc_u32((u64)MRC_NSCC_QA_TARGETS * rtt_ns);
	p->qa_gate = MRC_NSCC_QA_GATE;
	p->fi = mrc_nscc_u32(div_u64(MRC_NSCC_FI_MTUS * mtu * a, MRC_NSCC_UNIT));
	p->eta = mrc_nscc_u32(div_u64(MRC_NSCC_ETA_CENTI_MTUS * mtu * a,
				      100ULL * MRC_NSCC_UNIT));
	p->fi_scale = mrc_nscc_u32(div_u64(a, MRC_NSCC_FI_SCALE_DIV));
	p->gamma = MRC_NSCC_GAMMA;
	p->max_md_jump = MRC_NSCC_MAX_MD_JUMP;
	p->max_cwnd = mrc_nscc_u32(max(mtu, bdp * MRC_NSCC_MAXWND_NUM /
					    MRC_NSCC_MAXWND_DEN));
}

/* The window's bounds: one MTU, and the profile's max_cwnd. */
static u32 mrc_nscc_maxwnd(struct mrc_qp *qp, const struct mrc_nscc_params *p)
{
	return max(p->max_cwnd, mrc_nscc_mtu(qp));
}

/* Set the window to @cwnd, within its bounds, for @why; true if it grew. */
static bool mrc_nscc_set(struct mrc_qp *qp, const struct mrc_nscc_params *p,
			 u64 cwnd, enum mrc_cc_event why)
{
	u32 old = qp->dp.cc.nscc.cwnd;

	struct mrc_nscc *n = &qp->dp.cc.nscc;

	n->cwnd = clamp_t(u64, cwnd, mrc_nscc_mtu(qp), mrc_nscc_maxwnd(qp, p));
	qp->dp.cc.last_event = why;
	if (n->cwnd != old)
		trace_mrc_cc_window(qp->dev->ibdev.index, qp->ibqp.qp_num,
				    n->cwnd, qp->dp.cc.bytes, n->base_rtt_ns,
				    n->avg_delay_ns, why);
	return n->cwnd > old;
}

static void mrc_nscc_start(struct mrc_qp *qp)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	struct mrc_nscc_params p;
	u64 now = ktime_get_ns();

	if (qp->dp.cc.derived)
		mrc_nscc_derive(qp, min(READ_ONCE(mrc_param_nscc_base_rtt_us),
					U32_MAX / NSEC_PER_USEC) * NSEC_PER_USEC);
	mrc_nscc_params(qp, &p);
	memset(n, 0, sizeof(*n));
	n->base_rtt_ns = p.base_rtt;
	n->fulfil_ns = now;
	n->eta_ns = now;
	n->md_ns = now;
	n->qa_ns = now;
	/* No slow start: the whole window at once. */
	mrc_nscc_set(qp, &p, mrc_nscc_maxwnd(qp, &p), MRC_CC_EVENT_NONE);
}

/* One packet always goes: a window below its size still sends. */
static bool mrc_nscc_room(struct mrc_qp *qp, u32 bytes, u32 pkts, u32 len)
{
	return !bytes || bytes + len <= qp->dp.cc.nscc.cwnd;
}

/* A delay sample into avg_delay. */
static void mrc_nscc_avg(struct mrc_nscc *n, u32 sample)
{
	s64 diff = (s64)sample - n->avg_delay_ns;

	n->avg_delay_ns += div_s64(diff, MRC_NSCC_DELAY_EWMA);
}

/*
 * At each period's end (base RTT + target delay): when it saw a NACK or a
 * delay past qa_threshold and delivered less than maxwnd >> qa_gate, the
 * window becomes what it delivered, and feedback about the bytes then in
 * flight is not acted on again.  True if it cut the window.
 */
static bool mrc_nscc_quick_adapt(struct mrc_qp *qp,
				 const struct mrc_nscc_params *p, u64 now)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	bool cut = false;

	if (now - n->qa_ns < (u64)n->base_rtt_ns + p->target_delay)
		return false;
	if (!p->disable_qa && n->qa_trigger &&
	    n->achieved < mrc_nscc_maxwnd(qp, p) >> min(p->qa_gate, 31U)) {
		mrc_nscc_set(qp, p, n->achieved, MRC_CC_EVENT_QUICK_ADAPT);
		n->qa_skip = qp->dp.cc.bytes;
		mrc_counter_inc(qp->dev, MRC_CNT_CC_QUICK_ADAPTS);
		cut = true;
	}
	n->achieved = 0;
	n->qa_trigger = false;
	n->qa_ns = now;
	return cut;
}

/*
 * Once adjust_bytes_threshold bytes arrived or adjust_period_threshold
 * passed: the accumulated increase, divided by the window, becomes
 * window; once a period, eta more.
 */
static void mrc_nscc_fulfil(struct mrc_qp *qp, const struct mrc_nscc_params *p,
			    u64 now)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	u64 cwnd = n->cwnd;
	bool grew = false;

	if (n->received < p->adjust_bytes_threshold &&
	    now - n->fulfil_ns < p->adjust_period_threshold)
		return;
	if (n->inc) {
		cwnd += div64_u64(n->inc, n->cwnd);
		grew = true;
	}
	if (now - n->eta_ns >= p->adjust_period_threshold) {
		cwnd += p->eta;
		n->eta_ns = now;
		grew |= p->eta != 0;
	}
	n->inc = 0;
	n->received = 0;
	n->fulfil_ns = now;
	if (grew && cwnd > n->cwnd &&
	    mrc_nscc_set(qp, p, cwnd, MRC_CC_EVENT_INCREASE))
		mrc_counter_inc(qp->dev, MRC_CNT_CC_INCREASES);
}

/* Add @v to the pending increase, saturating. */
static void mrc_nscc_inc(struct mrc_nscc *n, u64 v)
{
	n->inc = n->inc > U64_MAX - v ? U64_MAX : n->inc + v;
}

/* ECN and a delay at or past the target: at most once per base RTT. */
static void mrc_nscc_decrease(struct mrc_qp *qp,
			      const struct mrc_nscc_params *p, u64 now)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	u32 avg = n->avg_delay_ns, keep, floor;

	if (n->qa_skip || now - n->md_ns < n->base_rtt_ns ||
	    avg <= p->target_delay)
		return;
	/* Keep 1 - gamma (avg - target) / avg, at least 1 - max_md_jump. */
	keep = MRC_NSCC_UNIT - (u32)div_u64((u64)min(p->gamma, MRC_NSCC_UNIT) *
					    (avg - p->target_delay), avg);
	floor = MRC_NSCC_UNIT - min(p->max_md_jump, MRC_NSCC_UNIT);
	keep = max(keep, floor);
	n->md_ns = now;
	mrc_nscc_set(qp, p, div_u64((u64)n->cwnd * keep, MRC_NSCC_UNIT),
		     MRC_CC_EVENT_DECREASE);
	mrc_counter_inc(qp->dev, MRC_CNT_CC_DECREASES);
}

static void mrc_nscc_ack(struct mrc_qp *qp, const struct mrc_cc_ack *a)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	u64 now = ktime_get_ns();
	struct mrc_nscc_params p;
	u32 delay, target;

	mrc_nscc_params(qp, &p);
	target = p.target_delay;
	n->received = min_t(u64, (u64)n->received + a->newly, U32_MAX);
	n->achieved = min_t(u64, (u64)n->achieved + a->newly, U32_MAX);
	n->qa_skip -= min(n->qa_skip, a->newly);

	if (a->penalty) {
		u64 cut = div_u64((u64)a->newly * a->penalty, MRC_NSCC_PEN_DEN);

		mrc_nscc_set(qp, &p, n->cwnd - min_t(u64, cut, n->cwnd),
			     MRC_CC_EVENT_PENALTY);
		mrc_counter_inc(qp->dev, MRC_CNT_CC_PENALTIES);
	}
	if (!a->rtt_ns) {
		/* No delay to judge by: the bytes count, nothing else. */
		mrc_nscc_fulfil(qp, &p, now);
		return;
	}
	if (qp->dp.cc.derived &&
	    (!n->rtt_measured || a->rtt_ns < n->base_rtt_ns)) {
		/* Derived: from the path's measured base RTT, a sample's. */
		bool first = !n->rtt_measured;

		n->rtt_measured = true;
		n->base_rtt_ns = a->rtt_ns;
		mrc_nscc_derive(qp, a->rtt_ns);
		mrc_nscc_params(qp, &p);
		target = p.target_delay;
		/* The first sets the initial window anew: no slow start. */
		if (first || n->cwnd > mrc_nscc_maxwnd(qp, &p))
			mrc_nscc_set(qp, &p, mrc_nscc_maxwnd(qp, &p),
				     MRC_CC_EVENT_NONE);
	}
	n->base_rtt_ns = min(n->base_rtt_ns, a->rtt_ns);
	delay = a->rtt_ns - n->base_rtt_ns;
	/* A high delay without ECN is distrusted. */
	mrc_nscc_avg(n, delay >= target && !a->ecn ? n->base_rtt_ns / 4 : delay);
	if (delay > p.qa_threshold)
		n->qa_trigger = true;
	if (mrc_nscc_quick_adapt(qp, &p, now))
		return;

	if (a->ecn) {
		if (delay >= target)
			mrc_nscc_decrease(qp, &p, now);
		/* ECN below the target: the EV is skipped, the rate stays. */
	} else if (delay >= target) {
		n->fast_bytes = 0;
		mrc_nscc_inc(n, (u64)p.fi * a->newly);
	} else {
		u32 room = min(target - delay, U32_MAX / MRC_NSCC_PROP_NUM);

		mrc_nscc_inc(n, mul_u64_u32_div((u64)p.fi * a->newly,
						MRC_NSCC_PROP_NUM * room,
						MRC_NSCC_PROP_DEN *
						MRC_NSCC_REF_DELAY_NS));
		if (delay < MRC_NSCC_FAST_DELAY_NS) {
			n->fast_bytes = min_t(u64, (u64)n->fast_bytes + a->newly,
					      U32_MAX);
			if (n->fast_bytes >= n->cwnd &&
			    mrc_nscc_set(qp, &p, n->cwnd +
					 div_u64((u64)a->newly * p.fi_scale,
						 MRC_NSCC_UNIT),
					 MRC_CC_EVENT_FAST_INCREASE))
				mrc_counter_inc(qp->dev, MRC_CNT_CC_INCREASES);
		} else {
			n->fast_bytes = 0;
		}
	}
	mrc_nscc_fulfil(qp, &p, now);
}

/*
 * A trimmed packet: the delay average takes a sample of a whole base RTT,
 * quick adapt is asked for; if it did nothing, the packet's size comes
 * off the window (not for a last-hop trim: the receiver's penalty handles
 * incast).
 */
static void mrc_nscc_nack(struct mrc_qp *qp, u32 len, bool lasthop)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	u64 now = ktime_get_ns();
	struct mrc_nscc_params p;

	mrc_nscc_params(qp, &p);
	mrc_nscc_avg(n, n->base_rtt_ns);
	n->qa_trigger = true;
	if (mrc_nscc_quick_adapt(qp, &p, now) || lasthop || n->qa_skip)
		return;
	mrc_nscc_set(qp, &p, n->cwnd - min(len, n->cwnd), MRC_CC_EVENT_NACK);
	mrc_counter_inc(qp->dev, MRC_CNT_CC_DECREASES);
}

static void mrc_nscc_timeout(struct mrc_qp *qp, u32 len)
{
	struct mrc_nscc *n = &qp->dp.cc.nscc;
	struct mrc_nscc_params p;

	mrc_nscc_params(qp, &p);
	mrc_nscc_set(qp, &p, n->cwnd - min(len, n->cwnd), MRC_CC_EVENT_TIMEOUT);
	mrc_counter_inc(qp->dev, MRC_CNT_CC_DECREASES);
}

const struct mrc_cc_ops mrc_nscc_ops = {
	.start = mrc_nscc_start,
	.room = mrc_nscc_room,
	.ack = mrc_nscc_ack,
	.nack = mrc_nscc_nack,
	.timeout = mrc_nscc_timeout,
};
