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

#define MRC_MSN_HALF		BIT(MRC_PSN_BITS - 1)

/* PSN a is in [una, psn_next). */
static bool mrc_psn_inflight(struct mrc_qp_dp *dp, u32 psn)
{
	return ((psn - dp->una) & MRC_PSN_MASK) <
	       ((dp->psn_next - dp->una) & MRC_PSN_MASK);
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

/* Complete, in order, the WRs that are delivered and acknowledged. */
void mrc_comp_complete(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	bool signal_all = qp->sq_sig_all;
	struct mrc_swqe *sw;
	u32 last_psn;

	while (qp->sq_cons != dp->seg_index) {
		sw = mrc_swqe(qp, qp->sq_cons);
		last_psn = (sw->first_psn + sw->npkts - 1) & MRC_PSN_MASK;
		if (mrc_psn_inflight(dp, last_psn) ||
		    !mrc_msn_le(sw->msn, dp->acked_msn))
			break;
		if (sw->opcode == MRC_WQE_RDMA_WRITE_WITH_IMM)
			dp->wimm_inflight--;
		/*
		 * The slot is free before its completion is seen: a consumer
		 * that posts again as soon as it polls must find room.
		 */
		qp->sq_cons++;
		mrc_index_publish(&qp->sq.ctl->cons, qp->sq_cons);
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
	if (qp->sq_cons != dp->sq_fetch) {
		sw = mrc_swqe(qp, qp->sq_cons);
		qp->sq_cons++;
		mrc_index_publish(&qp->sq.ctl->cons, qp->sq_cons);
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
		dp->sq_fetch = qp->sq_cons;
		mrc_index_publish(&qp->sq.ctl->cons, qp->sq_cons);
		mrc_qp_post_cqe(qp, true, &cqe);
	}
	mrc_qp_error(qp);
}

/* Mark @psn delivered. */
static void mrc_comp_sacked(struct mrc_qp_dp *dp, u32 psn)
{
	struct mrc_txpkt *tp = &dp->txpkts[psn % MRC_MPR_MAX_PSNS];

	if (tp->flags & MRC_TXPKT_RESEND)
		dp->nresend--;
	tp->flags = MRC_TXPKT_SACKED;
	if (((psn + 1 - dp->sacked_high) & MRC_PSN_MASK) < MRC_PSN_HALF)
		dp->sacked_high = (psn + 1) & MRC_PSN_MASK;
}

/* RTT from a reflected TSETH timestamp (coarse units). */
static void mrc_comp_rtt(struct mrc_qp *qp, u16 ts)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u16 now = ktime_get_ns() >> MRC_TS_COARSE_SHIFT;
	u32 sample = (u32)(u16)(now - ts) << MRC_TS_COARSE_SHIFT;
	u32 err;

	sample /= NSEC_PER_USEC;
	if (!dp->srtt_us) {
		dp->srtt_us = sample;
		dp->rttvar_us = sample / 2;
	} else {
		err = abs((int)dp->srtt_us - (int)sample);
		dp->rttvar_us = (3 * dp->rttvar_us + err) / 4;
		dp->srtt_us = (7 * dp->srtt_us + sample) / 8;
	}
	mrc_req_update_rto(qp);
}

/* Flag for resending what the SACKs show missing past the threshold. */
static void mrc_comp_detect_loss(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 now = mrc_now_us();
	u32 psn, n;

	n = (dp->sacked_high - dp->una) & MRC_PSN_MASK;
	if (n >= MRC_PSN_HALF || n <= mrc_param_dupthresh)
		return;
	n -= mrc_param_dupthresh;
	for (psn = dp->una; n--; psn = (psn + 1) & MRC_PSN_MASK) {
		struct mrc_txpkt *tp = &dp->txpkts[psn % MRC_MPR_MAX_PSNS];

		if (tp->flags & (MRC_TXPKT_SACKED | MRC_TXPKT_RESEND))
			continue;
		/* At most once per RTT. */
		if (tp->retries && now - tp->sent_us < dp->srtt_us)
			continue;
		tp->flags |= MRC_TXPKT_RESEND;
		dp->nresend++;
		/* Trimmed, it would have been NACKed: lost on its path. */
		mrc_ev_loss(qp, tp->ev);
	}
}

/*
 * What a SACK says of the EV it echoes: a probe on it was answered (PR),
 * or the packet that triggered it met ECN (M=SKIP_ONCE) or a known bad
 * path (M=ALWAYS_SKIP).
 */
static void mrc_comp_sack_ev(struct mrc_qp *qp, struct mrc_seth *seth,
			     u32 cack)
{
	u16 flags = ntohs(seth->flags);
	u32 m = (flags & MRC_SETH_M_MASK) >> MRC_SETH_M_SHIFT;
	u32 entropy = ntohl(seth->entropy);
	u32 trigger, hint = MRC_EV_NONE;

	if (flags & MRC_SETH_PR) {
		mrc_ev_probe_answer(qp, ntohs(seth->ack_psn_off), entropy);
	} else {
		trigger = (cack + (s16)ntohs(seth->ack_psn_off)) & MRC_PSN_MASK;
		hint = qp->dp.txpkts[trigger % MRC_MPR_MAX_PSNS].ev;
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
	struct mrc_seth *seth = (struct mrc_seth *)pkt->hdr;
	struct mrc_cc_state *cc = (struct mrc_cc_state *)(seth + 1);
	u32 cack = mrc_get24(seth->cack_psn);
	u32 next_una = (cack + 1) & MRC_PSN_MASK;
	u64 bitmap = be64_to_cpu(seth->bitmap);
	u32 base = (cack + (s16)ntohs(seth->sack_off)) & MRC_PSN_MASK;
	int i;

	mrc_counter_inc(qp->dev, MRC_CNT_SACKS_RCVD);
	if (ntohs(seth->flags) & MRC_SETH_PR)
		mrc_counter_inc(qp->dev, MRC_CNT_PROBE_SACKS_RCVD);
	mrc_comp_sack_ev(qp, seth, cack);
	if (seth->mpr)
		dp->peer_mpr = seth->mpr * MRC_MPR_UNIT_PSNS;

	if (mrc_psn_inflight(dp, cack)) {
		while (dp->una != next_una) {
			mrc_comp_sacked(dp, dp->una);
			dp->una = (dp->una + 1) & MRC_PSN_MASK;
		}
		dp->retries = 0;
		dp->rto_graced = false;
	}
	for (i = 0; i < MRC_SACK_BITMAP_BITS; i++) {
		u32 psn = (base + i) & MRC_PSN_MASK;

		if ((bitmap & BIT_ULL(i)) && mrc_psn_inflight(dp, psn))
			mrc_comp_sacked(dp, psn);
	}
	/* A probe's answer carries the probe's own timestamp: RTT either way. */
	mrc_comp_rtt(qp, ntohs(cc->tx_ts));
	mrc_comp_detect_loss(qp);
}

static void mrc_comp_ack(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_aeth *aeth = (struct mrc_aeth *)pkt->hdr;
	u32 smsn = ntohl(aeth->smsn);
	u8 syndrome = smsn >> MRC_AETH_SYN_SHIFT;
	u32 msn = smsn & MRC_AETH_MSN_MASK;
	u32 failed;

	if ((syndrome & MRC_AETH_TYPE_MASK) == MRC_AETH_TYPE_NAK) {
		mrc_counter_inc(qp->dev, MRC_CNT_NAKS_RCVD);
		/*
		 * Messages up to msn executed; the next one failed.  A NAK
		 * for a message not outstanding is stale or forged: ignored.
		 */
		failed = (msn + 1) & MRC_AETH_MSN_MASK;
		if (!mrc_msn_le(failed, (dp->msn_next - 1) & MRC_AETH_MSN_MASK) ||
		    mrc_msn_le(failed, dp->acked_msn))
			return;
		if (mrc_msn_le(dp->acked_msn, msn))
			dp->acked_msn = msn;
		mrc_comp_complete(qp);
		mrc_comp_fail(qp, syndrome == MRC_AETH_NAK_REM_ACCESS ?
			      IB_WC_REM_ACCESS_ERR : IB_WC_REM_OP_ERR);
		return;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_ACKS_RCVD);
	if (msn != dp->acked_msn && mrc_msn_le(dp->acked_msn, msn) &&
	    mrc_msn_le(msn, (dp->msn_next - 1) & MRC_AETH_MSN_MASK)) {
		dp->acked_msn = msn;
		/* Progress, as a cumulative SACK is. */
		dp->retries = 0;
		dp->rto_graced = false;
	}
}

static void mrc_comp_nack(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_neth *neth = (struct mrc_neth *)pkt->hdr;
	u32 psn = mrc_get24(neth->nack_psn);
	struct mrc_txpkt *tp = &dp->txpkts[psn % MRC_MPR_MAX_PSNS];

	mrc_counter_inc(qp->dev, MRC_CNT_NACKS_RCVD);
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
		break;
	case MRC_NACK_TRIMMED_LASTHOP:
		mrc_counter_inc(qp->dev, MRC_CNT_NACK_TRIMMED_LASTHOP);
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
	if (mrc_psn_inflight(dp, psn) &&
	    !(tp->flags & (MRC_TXPKT_SACKED | MRC_TXPKT_RESEND))) {
		tp->flags |= MRC_TXPKT_RESEND;
		dp->nresend++;
	}
}

/**
 * mrc_comp_rcv - a SACK, NACK or ACK for @qp's requester
 * @qp: the QP
 * @pkt: the parsed packet
 * @txq: unused today (replies), kept for symmetry with the responder
 */
void mrc_comp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
		  struct sk_buff_head *txq)
{
	static const unsigned int need[] = {
		[MRC_OP_SACK - MRC_OP_ACK] = MRC_SETH_LEN + MRC_CC_STATE_LEN,
		[MRC_OP_NACK - MRC_OP_ACK] = MRC_NETH_LEN,
		[0] = MRC_AETH_LEN,
	};
	struct mrc_qp_dp *dp = &qp->dp;

	if (pkt->hdr_len < need[pkt->opcode - MRC_OP_ACK]) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		return;
	}
	spin_lock_bh(&dp->lock);
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	if (pkt->opcode == MRC_OP_SACK)
		mrc_comp_sack(qp, pkt);
	else if (pkt->opcode == MRC_OP_NACK)
		mrc_comp_nack(qp, pkt);
	else
		mrc_comp_ack(qp, pkt);
	if (qp->state != IB_QPS_ERR) {
		mrc_comp_complete(qp);
		mrc_req_kick(qp);
	}
out:
	spin_unlock_bh(&dp->lock);
}
