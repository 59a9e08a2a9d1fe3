// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the requester's completer.  SACKs say which PSNs arrived
 * (cumulative point plus a bitmap); NACKs say which did not and why; ACKs
 * (0xd1) say which messages the responder executed.  A WR completes only
 * when its PSNs are delivered and its message semantically acknowledged,
 * in send-queue order.  The EVs they echo feed the EV state machine.
 */
#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_ev.h"
#include "mrc_hdr.h"
#include "mrc_pkt.h"

/* PSN a is in [una, psn_next). */
static bool mrc_psn_inflight(struct mrc_qp_dp *dp, u32 psn)
{
	return ((psn - dp->req.una) & MRC_PSN_MASK) <
	       ((dp->req.psn_next - dp->req.una) & MRC_PSN_MASK);
}

/*
 * @psn is one this QP sent: in flight, or cumulatively acked at most
 * MRC_ACK_STALE_PSNS before una (a late copy of an older SACK names
 * those).  psn_next - 1 always counts: before anything is sent it is the
 * cack_psn the responder starts from.
 */
static bool mrc_psn_sent(struct mrc_qp_dp *dp, u32 psn)
{
	return ((dp->req.psn_next - 1 - psn) & MRC_PSN_MASK) <
	       ((dp->req.psn_next - dp->req.una) & MRC_PSN_MASK) + MRC_ACK_STALE_PSNS;
}

/* @id is the id of one of the last MRC_EV_PROBE_IDS probes we sent. */
static bool mrc_probe_id_ok(struct mrc_qp_dp *dp, u16 id)
{
	return (u16)(dp->rto.probe_id - id) < MRC_EV_PROBE_IDS;
}

/* A control packet that names nothing this QP has outstanding. */
static void mrc_comp_unmatched(struct mrc_qp *qp)
{
	mrc_counter_inc(qp->dev, MRC_CNT_DROP_UNMATCHED_ACK);
}

/* MSN a <= b in 24-bit serial arithmetic. */
static bool mrc_msn_le(u32 a, u32 b)
{
	return ((b - a) & MRC_AETH_MSN_MASK) < MRC_MSN_HALF;
}

static void mrc_comp_post(struct mrc_qp *qp, struct mrc_swqe *sw,
			  enum ib_wc_status status)
{
	struct mrc_cqe cqe = {
		.wr_id = sw->wr_id,
		.status = status,
		.opcode = MRC_CQE_RDMA_WRITE,
		.byte_len = sw->length,
		.qp_num = qp->ibqp.qp_num,
	};

	mrc_qp_post_cqe(qp, true, &cqe);
}

/*
 * Complete, in order, the WRs that are delivered and acknowledged; the one
 * that failed (fail_pending) once it is the oldest, and then the QP.
 */
void mrc_comp_complete(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	bool signal_all = qp->sq_sig_all;
	struct mrc_swqe *sw;
	u32 last_psn;

	for (;;) {
		if (dp->req.fail_pending && qp->sq_cons == dp->req.fail_index) {
			sw = mrc_swqe(qp, qp->sq_cons);
			dp->req.fail_pending = false;
			qp->sq_cons++;
			mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
			mrc_comp_post(qp, sw, dp->req.fail_status);
			mrc_qp_error(qp);
			return;
		}
		if (qp->sq_cons == dp->req.seg_index)
			return;
		sw = mrc_swqe(qp, qp->sq_cons);
		last_psn = (sw->first_psn + sw->npkts - 1) & MRC_PSN_MASK;
		if (mrc_psn_inflight(dp, last_psn) ||
		    !mrc_msn_le(sw->msn, dp->req.acked_msn))
			return;
		if (sw->opcode == MRC_WQE_RDMA_WRITE_WITH_IMM)
			dp->req.wimm_inflight--;
		/*
		 * The slot is free before its completion is seen: a consumer
		 * that posts again as soon as it polls must find room.
		 */
		qp->sq_cons++;
		mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
		if (signal_all || (sw->flags & MRC_WQE_SIGNALED))
			mrc_comp_post(qp, sw, IB_WC_SUCCESS);
	}
}

/**
 * mrc_comp_fail - the WR at the head of the send queue failed
 * @qp: the QP, dp.lock held
 * @status: its completion status
 *
 * Completes it with @status and moves the QP to error, which flushes the
 * rest.
 */
void mrc_comp_fail(struct mrc_qp *qp, enum ib_wc_status status)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_swqe *sw;

	if (qp->state == IB_QPS_ERR)
		return;
	if (qp->sq_cons != dp->req.sq_fetch) {
		sw = mrc_swqe(qp, qp->sq_cons);
		qp->sq_cons++;
		mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
		mrc_comp_post(qp, sw, status);
	} else if (mrc_queue_pending(&qp->sq, qp->sq_cons)) {
		/* A WQE that failed its checks before it was taken. */
		struct mrc_send_wqe *wqe = mrc_queue_slot(&qp->sq, qp->sq_cons);
		struct mrc_cqe cqe = {
			.wr_id = READ_ONCE(wqe->wr_id),
			.status = status,
			.opcode = MRC_CQE_RDMA_WRITE,
			.qp_num = qp->ibqp.qp_num,
		};

		qp->sq_cons++;
		dp->req.sq_fetch = qp->sq_cons;
		mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
		mrc_qp_post_cqe(qp, true, &cqe);
	}
	mrc_qp_error(qp);
}

/**
 * mrc_comp_fail_wr - the WR at SQ index @index failed
 * @qp: the QP, dp.lock held
 * @index: its SQ index (fetched: below dp.req.sq_fetch)
 * @status: its completion status
 *
 * The WRs before it complete as they would; it completes with @status
 * once it is the oldest, and the QP then goes to error.  An earlier
 * failure stands.
 */
void mrc_comp_fail_wr(struct mrc_qp *qp, u32 index, enum ib_wc_status status)
{
	struct mrc_qp_dp *dp = &qp->dp;

	if (qp->state == IB_QPS_ERR ||
	    (dp->req.fail_pending &&
	     dp->req.fail_index - qp->sq_cons <= index - qp->sq_cons))
		return;
	dp->req.fail_pending = true;
	dp->req.fail_index = index;
	dp->req.fail_status = status;
	mrc_comp_complete(qp);
}

/* Mark @psn delivered; the first time, loss detection and its EV learn it. */
static void mrc_comp_sacked(struct mrc_qp *qp, u32 psn)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];

	if (tp->flags & MRC_TXPKT_SACKED)
		return;
	if (tp->flags & MRC_TXPKT_RESEND) {
		dp->req.nresend--;
		/* Found lost, yet here before its resend: only late. */
		if (!(tp->flags & MRC_TXPKT_TIMER_FLAGS))
			mrc_ev_unloss(qp, tp->ev);
	} else {
		/* Flagged, it has already left what is in flight. */
		mrc_cc_gone(qp, tp->len);
	}
	tp->flags = MRC_TXPKT_SACKED;
	dp->req.outstanding--;
	mrc_rack_delivered(qp, tp);
	mrc_ev_delivered(qp, tp->ev);
	if (((psn + 1 - dp->req.sacked_high) & MRC_PSN_MASK) < MRC_PSN_HALF)
		dp->req.sacked_high = (psn + 1) & MRC_PSN_MASK;
}

/* An RTT sample: the age, @age_ns, of a reflected TSETH timestamp. */
static void mrc_comp_rtt(struct mrc_qp *qp, u32 age_ns)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 sample = age_ns / NSEC_PER_USEC;
	u32 err;

	if (!dp->rto.srtt_us) {
		dp->rto.srtt_us = sample;
		dp->rto.rttvar_us = sample / 2;
	} else {
		err = abs((int)dp->rto.srtt_us - (int)sample);
		dp->rto.rttvar_us = (3 * dp->rto.rttvar_us + err) / 4;
		dp->rto.srtt_us = (7 * dp->rto.srtt_us + sample) / 8;
	}
	mrc_req_update_rto(qp);
	mrc_rack_rtt(qp, sample);
}

/* Nanoseconds from @sent_us (mrc_now_us()) to @now_ns; 0 past 4 s. */
static u32 mrc_comp_rtt_since(u64 now_ns, u32 sent_us)
{
	u32 us = (u32)div_u64(now_ns, NSEC_PER_USEC) - sent_us;

	if (us > U32_MAX / NSEC_PER_USEC)
		return 0;
	return max(us, 1U) * NSEC_PER_USEC;
}

/*
 * What a SACK says of the EV it echoes: a probe on it was answered (PR),
 * or the packet that triggered it met ECN (M=SKIP_ONCE) or a known bad
 * path (M=ALWAYS_SKIP).
 */
static void mrc_comp_sack_ev(struct mrc_qp *qp, struct mrc_seth *seth,
			     u32 hint)
{
	u8 m = mrc_seth_m(seth);
	u32 entropy = ntohl(seth->entropy);

	if (mrc_seth_pr(seth)) {
		mrc_ev_probe_answer(qp, ntohs(seth->ack_psn_off), entropy);
		mrc_rack_probe_answered(qp, ntohs(seth->ack_psn_off));
	}
	if (m == MRC_SACK_M_SKIP_ONCE)
		mrc_ev_echo(qp, entropy, hint, MRC_EV_STATE_SKIP,
			    MRC_EV_REASON_ECN);
	else if (m == MRC_SACK_M_ALWAYS_SKIP)
		mrc_ev_echo(qp, entropy, hint, MRC_EV_STATE_ASSUMED_BAD,
			    MRC_EV_REASON_ALWAYS_SKIP);
}

static void mrc_comp_sack(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_seth *seth = pkt->h.seth;
	struct mrc_cc_state *cc = pkt->h.cc_state;
	u32 cack = mrc_get24(seth->cack_psn);
	u32 next_una = (cack + 1) & MRC_PSN_MASK;
	u64 bitmap = be64_to_cpu(seth->bitmap);
	u32 base = (cack + (s16)ntohs(seth->sack_off)) & MRC_PSN_MASK;
	bool pr = mrc_seth_pr(seth);
	u32 trigger, hint = MRC_EV_NONE, age_ns, cc_rtt_ns, sent_us = 0;
	bool once = true;
	u64 now_ns;
	int i;

	/*
	 * Nothing in it counts unless it names what we sent: its cack_psn,
	 * and the PSN that triggered it (or, for a probe's answer, a probe
	 * id of ours).  Then the EV it echoes, the window, the RTT.
	 */
	if (!mrc_psn_sent(dp, cack)) {
		mrc_comp_unmatched(qp);
		return;
	}
	if (pr) {
		if (!mrc_probe_id_ok(dp, ntohs(seth->ack_psn_off))) {
			mrc_comp_unmatched(qp);
			return;
		}
	} else {
		trigger = (cack + (s16)ntohs(seth->ack_psn_off)) & MRC_PSN_MASK;
		if (!mrc_psn_sent(dp, trigger)) {
			mrc_comp_unmatched(qp);
			return;
		}
		hint = dp->req.txpkts[trigger & dp->req.tx_mask].ev;
		/* A resent trigger's timestamp may be either copy's. */
		once = mrc_psn_inflight(dp, trigger) &&
		       !dp->req.txpkts[trigger & dp->req.tx_mask].retries;
		sent_us = dp->req.txpkts[trigger & dp->req.tx_mask].sent_us;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_SACKS_RCVD);
	if (pr)
		mrc_counter_inc(qp->dev, MRC_CNT_PROBE_SACKS_RCVD);
	mrc_comp_sack_ev(qp, seth, hint);
	if (seth->mpr)
		dp->req.peer_mpr = min_t(u32, seth->mpr,
					 qp->mattr.mpr_units) * MRC_MPR_UNIT;

	if (mrc_psn_inflight(dp, cack)) {
		while (dp->req.una != next_una) {
			mrc_comp_sacked(qp, dp->req.una);
			dp->req.una = (dp->req.una + 1) & MRC_PSN_MASK;
		}
		dp->rto.retries = 0;
		dp->rto.graced = false;
		dp->rack.tlp_out = false;
	}
	for (i = 0; i < MRC_SACK_BITMAP_BITS; i++) {
		u32 psn = (base + i) & MRC_PSN_MASK;

		if ((bitmap & BIT_ULL(i)) && mrc_psn_inflight(dp, psn))
			mrc_comp_sacked(qp, psn);
	}
	/*
	 * The reflected timestamp (the oldest packet the SACK newly covers, or
	 * the probe answered) times the RTO, SACK coalescing included.  The
	 * window's delay is the trigger's own RTT, from its send record to
	 * the microsecond: the SACK left when the trigger arrived, so the
	 * responder's service time is not in it.  One clock read for both.
	 */
	now_ns = ktime_get_ns();
	age_ns = mrc_ts_age_ns_at(ntohs(cc->tx_ts), now_ns);
	mrc_comp_rtt(qp, age_ns);
	if (pr)
		cc_rtt_ns = age_ns;
	else if (once)
		cc_rtt_ns = mrc_comp_rtt_since(now_ns, sent_us);
	else
		cc_rtt_ns = 0;
	if (FIELD_GET(MRC_CC_OOO, ntohs(cc->ooo_count)) >
	    ((dp->req.psn_next - next_una) & MRC_PSN_MASK)) {
		/* More held out of order than we have sent past cack_psn. */
		mrc_counter_inc(qp->dev, MRC_CNT_CC_BAD_OOO);
	} else {
		mrc_cc_sack(qp, ntohl(cc->rcv), cc_rtt_ns,
			    mrc_seth_m(seth) == MRC_SACK_M_SKIP_ONCE);
	}
	mrc_rack_dups(qp, seth->dups);
	mrc_rack_detect_loss(qp);
}

/*
 * The responder executed every message up to @msn: their PSNs all arrived,
 * as a cumulative SACK through the last of them would say.
 */
static void mrc_comp_executed(struct mrc_qp *qp, u32 msn)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_swqe *sw;
	u32 i, last_psn;

	for (i = qp->sq_cons; i != dp->req.seg_index; i++) {
		sw = mrc_swqe(qp, i);
		if (!mrc_msn_le(sw->msn, msn))
			break;
		last_psn = (sw->first_psn + sw->npkts - 1) & MRC_PSN_MASK;
		while (mrc_psn_inflight(dp, last_psn)) {
			mrc_comp_sacked(qp, dp->req.una);
			dp->req.una = (dp->req.una + 1) & MRC_PSN_MASK;
		}
	}
}

static void mrc_comp_ack(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_aeth *aeth = pkt->h.aeth;
	u8 syndrome = mrc_aeth_syndrome(aeth);
	u32 msn = mrc_aeth_msn(aeth);
	u32 failed;

	if ((syndrome & MRC_AETH_TYPE_MASK) == MRC_AETH_TYPE_NAK) {
		/*
		 * Messages up to msn executed; the next one failed.  A NAK
		 * for a message not outstanding is stale or forged: dropped.
		 */
		failed = (msn + 1) & MRC_AETH_MSN_MASK;
		if (!mrc_msn_le(failed, (dp->req.msn_next - 1) & MRC_AETH_MSN_MASK) ||
		    mrc_msn_le(failed, dp->req.acked_msn)) {
			mrc_comp_unmatched(qp);
			return;
		}
		mrc_counter_inc(qp->dev, MRC_CNT_NAKS_RCVD);
		if (mrc_msn_le(dp->req.acked_msn, msn))
			dp->req.acked_msn = msn;
		/*
		 * The NAK may overtake the SACKs of the executed messages:
		 * executed, they were delivered, so their WRs complete
		 * successfully, and only the failed one fails.
		 */
		mrc_comp_executed(qp, msn);
		mrc_comp_complete(qp);
		mrc_comp_fail(qp, syndrome == MRC_AETH_NAK_REM_ACCESS ?
			      IB_WC_REM_ACCESS_ERR : IB_WC_REM_OP_ERR);
		return;
	}
	/* An ACK for messages never sent is forged. */
	if (!mrc_msn_le(msn, (dp->req.msn_next - 1) & MRC_AETH_MSN_MASK)) {
		mrc_comp_unmatched(qp);
		return;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_ACKS_RCVD);
	if (msn != dp->req.acked_msn && mrc_msn_le(dp->req.acked_msn, msn)) {
		dp->req.acked_msn = msn;
		/* Progress, as a cumulative SACK is. */
		dp->rto.retries = 0;
		dp->rto.graced = false;
	}
}

static void mrc_comp_nack(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_neth *neth = pkt->h.neth;
	u32 psn = mrc_get24(neth->nack_psn);
	struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];

	/*
	 * Whatever its reason, a NACK is about a PSN in flight; one about a
	 * PSN acked since is late, and changes nothing.
	 */
	if (!mrc_psn_sent(dp, psn)) {
		mrc_comp_unmatched(qp);
		return;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_NACKS_RCVD);
	if (!mrc_psn_inflight(dp, psn))
		return;
	switch (neth->reason) {
	case MRC_NACK_UNEXP_EVENT:
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_UNEXP_EVENT);
		mrc_comp_fail(qp, IB_WC_REM_OP_ERR);
		return;
	case MRC_NACK_TRIMMED:
		/* Trimmed on the way: the path is alive but congested. */
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_TRIMMED);
		mrc_ev_echo(qp, ntohl(neth->entropy), tp->ev,
			    MRC_EV_STATE_SKIP, MRC_EV_REASON_TRIM);
		mrc_cc_nack(qp, tp->len, false);
		break;
	case MRC_NACK_TRIMMED_LASTHOP:
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_TRIMMED_LASTHOP);
		mrc_cc_nack(qp, tp->len, true);
		break;
	case MRC_NACK_NO_RESOURCE:
		/*
		 * Resending at once would spin until the application posts a
		 * receive: the retransmission timer paces the retries.
		 */
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_NO_RESOURCE);
		return;
	case MRC_NACK_PSN_OOR_WINDOW:
		/* The window moves with SACKs; the timer resends if not. */
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_PSN_OOR_WINDOW);
		return;
	default:
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_OTHER);
		break;
	}
	if (!(tp->flags & (MRC_TXPKT_SACKED | MRC_TXPKT_RESEND)))
		mrc_req_mark_lost(qp, tp, 0);
}

/*
 * A SACK, NACK or ACK for @qp's requester: @handle takes it in, then what
 * it acknowledged completes and what it freed of the window is sent.
 */
static void mrc_comp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
			 void (*handle)(struct mrc_qp *qp, struct mrc_pkt *pkt))
{
	struct mrc_qp_dp *dp = &qp->dp;

	spin_lock_bh(&dp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	mrc_rack_begin(qp);
	handle(qp, pkt);
	if (qp->state != IB_QPS_ERR) {
		mrc_comp_complete(qp);
		mrc_req_kick(qp);
	}
out:
	spin_unlock_bh(&dp->lock);
}

/*
 * The receive handlers of opcodes SACK, NACK and ACK (mrc_opcode.c).
 * @txq: unused (the requester's replies are its resends, which the
 * tasklet sends), as the responder's handlers have it.
 */
void mrc_comp_rcv_sack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq)
{
	mrc_comp_rcv(qp, pkt, mrc_comp_sack);
}

void mrc_comp_rcv_nack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq)
{
	mrc_comp_rcv(qp, pkt, mrc_comp_nack);
}

void mrc_comp_rcv_ack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		      struct sk_buff_head *txq)
{
	mrc_comp_rcv(qp, pkt, mrc_comp_ack);
}
