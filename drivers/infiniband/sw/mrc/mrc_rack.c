// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the requester's loss detection, in the spirit of RFC 8985
 * (RACK-TLP).  Sprayed packets take paths of different delays, so a PSN
 * overtaken by later ones is not lost for that: it is lost once a packet
 * sent more than a reordering window after it has been delivered.  The
 * window starts at a quarter of the minimum RTT, grows when the responder
 * reports duplicates of what we resent (the resend was spurious), shrinks
 * again as losses are found without such reports, and never exceeds the
 * RTT estimate's spread (srtt + 4 rttvar), whatever a peer reports.  The last packets of a burst,
 * with nothing after them to be delivered, are found by a tail loss probe
 * (TLP): a PETH probe sent two smoothed RTTs after the last send, whose
 * answer counts as a delivery of a packet sent then.
 *
 * Everything runs under qp->dp.lock.  Design: Documentation/mrc/design.rst,
 * "Loss detection".
 */
#include <linux/jiffies.h>
#include <linux/timer.h>

#include "mrc.h"
#include "mrc_ev.h"
#include "mrc_hdr.h"
#include "mrc_rack.h"

/* RTS: nothing delivered yet; the window at its smallest. */
void mrc_rack_start(struct mrc_qp *qp)
{
	struct mrc_qp_rack *rack = &qp->dp.rack;

	memset(rack, 0, sizeof(*rack));
	rack->reo_mult = MRC_REO_MULT_INIT;
}

/* @a was sent after @b (microsecond clock, wrap-safe). */
static bool mrc_rack_after(u32 a, u32 b)
{
	return (s32)(a - b) > 0;
}

/* A packet sent at @sent_us is known delivered (at rack->now_us). */
static void mrc_rack_advance(struct mrc_qp_rack *rack, u32 sent_us)
{
	if (rack->valid && !mrc_rack_after(sent_us, rack->xmit_us))
		return;
	rack->xmit_us = sent_us;
	rack->rtt_us = rack->now_us - sent_us;
	rack->valid = true;
}

/*
 * The time the work that follows uses (one clock read, not one per
 * delivery): a control packet for the requester arrived, or the timer
 * expired.
 */
void mrc_rack_begin(struct mrc_qp *qp)
{
	qp->dp.rack.now_us = mrc_now_us();
}

/**
 * mrc_rack_delivered - a SACK shows @tp's PSN delivered for the first time
 * @qp: the QP
 * @tp: its txpkt (sent_us: its last transmission)
 *
 * A resent PSN dates nothing: its SACK may be for its first copy, which a
 * slow path can deliver any time after the resend (no minimum RTT tells
 * the two apart), and dating the resend then would condemn everything
 * sent before it that is still on its way, whose resends would do the
 * same.  First sends after it, or the tail loss probe, date deliveries.
 */
void mrc_rack_delivered(struct mrc_qp *qp, const struct mrc_txpkt *tp)
{
	if (tp->retries)
		return;
	mrc_rack_advance(&qp->dp.rack, tp->sent_us);
}

/* An RTT sample (microseconds): the minimum over MRC_MIN_RTT_WIN_US. */
void mrc_rack_rtt(struct mrc_qp *qp, u32 sample_us)
{
	struct mrc_qp_rack *rack = &qp->dp.rack;
	u32 now = rack->now_us;

	sample_us = max_t(u32, sample_us, MRC_REO_RTT_FLOOR_US);
	if (!rack->min_rtt_us || sample_us <= rack->min_rtt_us ||
	    now - rack->min_rtt_at_us > MRC_MIN_RTT_WIN_US) {
		rack->min_rtt_us = sample_us;
		rack->min_rtt_at_us = now;
	}
}

/**
 * mrc_rack_reo_wnd_us - the reordering window now
 * @qp: the QP
 *
 * reo_mult quarters of the minimum RTT, bounded by the RTT estimate's
 * spread, srtt + 4 rttvar (the RTO before its floor): a window past it
 * would make a lost PSN wait longer than a timeout would.  TCP bounds it
 * by srtt alone; a guest's delays vary by more than that (a vCPU or a
 * netem timer held up for milliseconds), and the spread follows them.
 */
u32 mrc_rack_reo_wnd_us(const struct mrc_qp *qp)
{
	const struct mrc_qp_dp *dp = &qp->dp;
	u32 quarter = max_t(u32, dp->rack.min_rtt_us, MRC_REO_RTT_FLOOR_US) / 4;
	u32 wnd = quarter * dp->rack.reo_mult;

	if (dp->rto.srtt_us)
		wnd = min(wnd, max(dp->rto.srtt_us + 4 * dp->rto.rttvar_us, quarter));
	return wnd;
}

/**
 * mrc_rack_dups - the responder's duplicate count from a SACK
 * @qp: the QP
 * @dups: SETH.dups, duplicates it received modulo 256
 *
 * What it grew by since the newest SACK (a smaller value is an older SACK
 * overtaken by a newer one) is how many of our resends were spurious, at
 * most the resends not yet proven so: a peer cannot report more.  A
 * spurious resend doubles the window, at most once per RTT.
 */
void mrc_rack_dups(struct mrc_qp *qp, u8 dups)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_qp_rack *rack = &dp->rack;
	u8 delta = dups - rack->peer_dups;
	u32 spurious, now;

	if (!delta || delta >= MRC_DUPS_HALF)
		return;
	rack->peer_dups = dups;
	spurious = min_t(u32, delta, rack->rtx_unproven);
	if (!spurious)
		return;
	rack->rtx_unproven -= spurious;
	mrc_counter_add(qp->dev, MRC_CNT_SPURIOUS_RETRANSMITS, spurious);
	now = mrc_now_us();
	if (rack->reo_mult >= MRC_REO_MULT_MAX ||
	    now - rack->widened_us < dp->rto.srtt_us)
		return;
	rack->reo_mult = min(2 * rack->reo_mult, MRC_REO_MULT_MAX);
	rack->widened_us = now;
	rack->losses = 0;
	mrc_counter_inc(qp->dev, MRC_CNT_REO_WND_WIDENED);
}

/* A non-EV probe went out with id @id: its answer dates a delivery. */
void mrc_rack_probe_sent(struct mrc_qp *qp, u16 id)
{
	struct mrc_qp_rack *rack = &qp->dp.rack;

	rack->probe_id = id;
	rack->probe_sent_us = mrc_now_us();
	rack->probe_out = true;
}

/* A SACK with PR answered probe @id (checked as one of ours). */
void mrc_rack_probe_answered(struct mrc_qp *qp, u16 id)
{
	struct mrc_qp_rack *rack = &qp->dp.rack;

	if (!rack->probe_out || id != rack->probe_id)
		return;
	rack->probe_out = false;
	mrc_rack_advance(rack, rack->probe_sent_us);
}

/* The older rule, if dupthresh is set: @psn has that many SACKed after it. */
static bool mrc_rack_dupthresh(const struct mrc_qp_dp *dp, u32 psn, u32 thresh)
{
	return thresh &&
	       ((dp->req.sacked_high - psn - 1) & MRC_PSN_MASK) < MRC_PSN_HALF &&
	       ((dp->req.sacked_high - psn - 1) & MRC_PSN_MASK) >= thresh;
}

/* Flag @psn for resending: lost on the EV it last went on. */
static void mrc_rack_mark_lost(struct mrc_qp *qp, struct mrc_txpkt *tp)
{
	mrc_req_mark_lost(qp, tp, 0);
	/* Trimmed, it would have been NACKed: lost on its path. */
	mrc_ev_loss(qp, tp->ev);
}

/**
 * mrc_rack_detect_loss - flag what the deliveries show lost
 * @qp: the QP
 *
 * Oldest first, every PSN neither SACKed nor already flagged that was sent
 * before the newest delivered packet and is older than that packet's RTT
 * plus the reordering window.  For the first one not that old yet the
 * reorder timer is set.  First sends go out in PSN order, so the first one
 * that cannot be judged now ends the walk: every later first send is more
 * recent still, and so is every resend of a later PSN.  Nor is a PSN
 * judged that a SACK cannot report yet: its bitmap starts at cack_psn + 1
 * (una) and covers MRC_SACK_BITMAP_BITS PSNs, and the window may reach
 * further, so that no report of what arrived beyond is no evidence (a
 * resend after it, SACKed, would otherwise condemn it).  From a SACK, and
 * from the timer; after mrc_rack_begin().
 */
void mrc_rack_detect_loss(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_qp_rack *rack = &dp->rack;
	u32 thresh = READ_ONCE(mrc_param_dupthresh);
	u32 reo = mrc_rack_reo_wnd_us(qp);
	u32 now = rack->now_us, wait = U32_MAX, due;
	bool found = false;
	u32 psn;

	if (!rack->valid)
		return;
	due = rack->rtt_us + reo;
	for (psn = dp->req.una; psn != dp->req.psn_next &&
	     ((psn - dp->req.una) & MRC_PSN_MASK) < MRC_SACK_BITMAP_BITS;
	     psn = (psn + 1) & MRC_PSN_MASK) {
		struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];
		bool before = !mrc_rack_after(tp->sent_us, rack->xmit_us);
		u32 age = now - tp->sent_us;

		if (tp->flags & (MRC_TXPKT_SACKED | MRC_TXPKT_RESEND))
			continue;
		if ((!before || age < due) && !mrc_rack_dupthresh(dp, psn, thresh)) {
			if (before)
				wait = min(wait, due - age);
			if (!tp->retries)
				break;
			continue;
		}
		mrc_rack_mark_lost(qp, tp);
		found = true;
	}
	if (wait != U32_MAX)
		timer_reduce(&dp->rto.timer, jiffies + usecs_to_jiffies(wait));
	/* Rounds (an RTT each) with losses, not SACKs, count to decay. */
	if (!found || now - rack->loss_round_us < dp->rto.srtt_us)
		return;
	rack->loss_round_us = now;
	if (++rack->losses >= MRC_REO_DECAY_LOSSES) {
		rack->losses = 0;
		if (rack->reo_mult > MRC_REO_MULT_INIT)
			rack->reo_mult--;
	}
}

/*
 * A TLP may go out for this flight, at *@when: data is outstanding, none
 * of it flagged for resending, no TLP sent since the last new data or
 * cumulative progress, and the probe would come before the RTO.
 */
static bool mrc_rack_tlp_when(struct mrc_qp *qp, u32 *when)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_txpkt *oldest;

	if (dp->req.una == dp->req.psn_next || dp->rack.tlp_out ||
	    dp->req.nresend || !dp->rto.srtt_us)
		return false;
	oldest = &dp->req.txpkts[dp->req.una & dp->req.tx_mask];
	*when = dp->rack.last_send_us + MRC_TLP_SRTTS * dp->rto.srtt_us;
	return mrc_rack_after(oldest->sent_us + dp->rto.timeout_us, *when);
}

/* From the timer's work: the TLP is due now. */
bool mrc_rack_tlp_due(struct mrc_qp *qp, u32 now)
{
	u32 when;

	return mrc_rack_tlp_when(qp, &when) && !mrc_rack_after(when, now);
}

/* After a send: have the RTO timer fire for the TLP if that comes first. */
void mrc_rack_arm_tlp(struct mrc_qp *qp)
{
	u32 when, now = mrc_now_us();

	if (!mrc_rack_tlp_when(qp, &when))
		return;
	timer_reduce(&qp->dp.rto.timer, jiffies +
		     usecs_to_jiffies(mrc_rack_after(when, now) ? when - now : 0));
}
