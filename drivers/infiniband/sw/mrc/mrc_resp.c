// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the responder.  Every request packet is self-describing: its
 * RETH says where its payload goes, so it is checked and placed whatever
 * the order it arrives in.  An MPR-sized PSN bitmap tracks arrival (the
 * packet delivery layer, answered by SACKs); messages are executed in MSN
 * order (the semantic layer, answered by ACKs 0xd1), which also delivers
 * WriteIMM completions in issue order.
 */
#include <linux/bitmap.h>
#include <linux/vmalloc.h>

#include "mrc.h"
#include "mrc_hdr.h"

static u32 psn_diff(u32 a, u32 b)
{
	return (a - b) & MRC_PSN_MASK;
}

int mrc_resp_init(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	dp->rcv_bitmap = bitmap_zalloc(MRC_MPR_MAX_PSNS, GFP_KERNEL);
	dp->rmsgs = kvcalloc(MRC_MPR_MAX_PSNS, sizeof(*dp->rmsgs), GFP_KERNEL);
	if (!dp->rcv_bitmap || !dp->rmsgs) {
		mrc_resp_cleanup(qp);
		return -ENOMEM;
	}
	return 0;
}

void mrc_resp_cleanup(struct mrc_qp *qp)
{
	bitmap_free(qp->dp.rcv_bitmap);
	kvfree(qp->dp.rmsgs);
	qp->dp.rcv_bitmap = NULL;
	qp->dp.rmsgs = NULL;
}

/* INIT -> RTR: start receiving at rq_psn.  Called with dp.lock held. */
void mrc_resp_start(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 units = clamp_t(u32, mrc_param_mpr_units, 1, MRC_MPR_MAX_UNITS);

	dp->mpr = units * MRC_MPR_UNIT_PSNS;
	dp->rcv_next = qp->attr.rq_psn;
	dp->msn_done = 0;
	dp->msn_acked = 0;
	dp->imm_reserved = 0;
	dp->pkts_since_sack = 0;
	dp->rcvd_bytes = 0;
	dp->echo_ts_set = false;
	bitmap_zero(dp->rcv_bitmap, MRC_MPR_MAX_PSNS);
	memset(dp->rmsgs, 0, MRC_MPR_MAX_PSNS * sizeof(*dp->rmsgs));
}

static bool mrc_resp_active(struct mrc_qp *qp)
{
	return qp->state >= IB_QPS_RTR && qp->state <= IB_QPS_SQE;
}

static struct sk_buff *mrc_ctl_alloc(struct mrc_qp *qp, u8 opcode, u32 psn,
				     unsigned int len)
{
	struct sk_buff *skb = mrc_net_alloc_skb(qp, MRC_BTH_LEN + len);
	struct mrc_bth *bth;

	if (!skb)
		return NULL;
	bth = (struct mrc_bth *)skb->data;
	memset(bth, 0, MRC_BTH_LEN + len);
	bth->opcode = opcode;
	bth->pkey = htons(mrc_param_control_pkey);
	mrc_put24(bth->dqpn, qp->attr.dest_qp_num);
	mrc_put24(bth->psn, psn);
	return skb;
}

/* Queue a SACK describing what has arrived. */
static void mrc_resp_sack(struct mrc_qp *qp, struct sk_buff_head *txq,
			  u16 ev, u8 m, bool pr, u16 probe_id)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 cack = (dp->rcv_next - 1) & MRC_PSN_MASK;
	struct mrc_cc_state *cc;
	struct mrc_seth *seth;
	struct sk_buff *skb;
	u64 bitmap = 0;
	u16 flags;
	int i;

	skb = mrc_ctl_alloc(qp, MRC_OP_SACK, cack,
			    MRC_SETH_LEN + MRC_CC_STATE_LEN);
	if (!skb)
		return;
	seth = (struct mrc_seth *)(skb->data + MRC_BTH_LEN);
	cc = (struct mrc_cc_state *)(seth + 1);

	flags = (m << MRC_SETH_M_SHIFT) & MRC_SETH_M_MASK;
	if (pr)
		flags |= MRC_SETH_PR;
	seth->flags = htons(flags);
	seth->ack_psn_off = htons(pr ? probe_id : 0);
	seth->entropy = htonl((u32)ev << MRC_EV_SPORT_SHIFT);
	mrc_put24(seth->cack_psn, cack);
	seth->mpr = dp->mpr / MRC_MPR_UNIT_PSNS;
	/* The bitmap starts at cack + 1: bit i is PSN cack + 1 + i. */
	seth->sack_off = htons(1);
	for (i = 0; i < MRC_SACK_BITMAP_BITS && i < dp->mpr; i++) {
		u32 psn = (dp->rcv_next + i) & MRC_PSN_MASK;

		if (test_bit(psn % MRC_MPR_MAX_PSNS, dp->rcv_bitmap))
			bitmap |= BIT_ULL(i);
	}
	seth->bitmap = cpu_to_be64(bitmap);
	cc->tx_ts = htons(dp->echo_ts);
	dp->echo_ts_set = false;
	cc->rcv = htonl(DIV_ROUND_UP(dp->rcvd_bytes, MRC_CC_RCVD_BYTES_UNIT) &
			MRC_CC_RCVD_BYTES_MASK);

	dp->pkts_since_sack = 0;
	mrc_counter_inc(qp->dev, MRC_CNT_SACKS_SENT);
	mrc_txq_add(txq, skb, qp->dp.evs[qp->dp.ev_next++ % qp->dp.nevs],
		    mrc_param_dscp_control, false);
}

static void mrc_resp_nack(struct mrc_qp *qp, struct sk_buff_head *txq,
			  u32 psn, u8 reason, u16 ev)
{
	struct mrc_neth *neth;
	struct sk_buff *skb;

	skb = mrc_ctl_alloc(qp, MRC_OP_NACK, psn, MRC_NETH_LEN);
	if (!skb)
		return;
	neth = (struct mrc_neth *)(skb->data + MRC_BTH_LEN);
	neth->reason = reason;
	neth->entropy = htonl((u32)ev << MRC_EV_SPORT_SHIFT);
	mrc_put24(neth->nack_psn, psn);
	neth->tx_ts = htons(qp->dp.echo_ts);
	mrc_counter_inc(qp->dev, MRC_CNT_NACKS_SENT);
	mrc_txq_add(txq, skb, qp->dp.evs[qp->dp.ev_next++ % qp->dp.nevs],
		    mrc_param_dscp_control, false);
}

/* The semantic ACK or NAK (0xd1) for the messages executed so far. */
static void mrc_resp_ack(struct mrc_qp *qp, struct sk_buff_head *txq,
			 u8 syndrome, u32 psn)
{
	struct mrc_aeth *aeth;
	struct sk_buff *skb;

	skb = mrc_ctl_alloc(qp, MRC_OP_ACK, psn, MRC_AETH_LEN);
	if (!skb)
		return;
	aeth = (struct mrc_aeth *)(skb->data + MRC_BTH_LEN);
	aeth->smsn = htonl((syndrome << MRC_AETH_SYN_SHIFT) |
			   (qp->dp.msn_done & MRC_AETH_MSN_MASK));
	qp->dp.msn_acked = qp->dp.msn_done;
	mrc_counter_inc(qp->dev, syndrome == MRC_AETH_ACK ?
			MRC_CNT_ACKS_SENT : MRC_CNT_NAKS_SENT);
	mrc_txq_add(txq, skb, qp->dp.evs[qp->dp.ev_next++ % qp->dp.nevs],
		    mrc_param_dscp_control, false);
}

/* Deliver a WriteIMM's completion: one receive WQE consumed. */
static void mrc_resp_complete_imm(struct mrc_qp *qp, struct mrc_rmsg *rm)
{
	struct mrc_recv_wqe *wqe = mrc_queue_slot(&qp->rq, qp->rq_cons);
	struct mrc_cqe cqe = {
		.wr_id = READ_ONCE(wqe->wr_id),
		.status = IB_WC_SUCCESS,
		.opcode = MRC_CQE_RECV_RDMA_WITH_IMM,
		.byte_len = rm->dmalen,
		.imm_data = rm->imm,
		.qp_num = qp->ibqp.qp_num,
		.src_qp = qp->attr.dest_qp_num,
		.wc_flags = MRC_CQE_WITH_IMM,
	};

	qp->rq_cons++;
	mrc_index_publish(&qp->rq.ctl->cons, qp->rq_cons);
	mrc_qp_post_cqe(qp, false, &cqe);
}

/* Execute, in MSN order, every message whose bytes have all arrived. */
static bool mrc_resp_execute(struct mrc_qp *qp, struct sk_buff_head *txq,
			     u32 psn)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_rmsg *rm;

	for (;;) {
		u32 next = (dp->msn_done + 1) & MRC_AETH_MSN_MASK;

		rm = &dp->rmsgs[next % MRC_MPR_MAX_PSNS];
		if (rm->state != MRC_RMSG_DONE || rm->msn != next)
			return true;
		if (rm->failed) {
			mrc_resp_ack(qp, txq, MRC_AETH_NAK_REM_ACCESS, psn);
			mrc_qp_error(qp);
			return false;
		}
		if (rm->has_imm) {
			dp->imm_reserved--;
			mrc_resp_complete_imm(qp, rm);
		}
		rm->state = MRC_RMSG_FREE;
		dp->msn_done = next;
	}
}

/* Where a request packet's fields are. */
struct mrc_req_hdrs {
	struct mrc_meth *meth;
	struct mrc_tseth *tseth;
	struct mrc_reth *reth;
	struct mrc_immdt *immdt;
	u8 *payload;
	u32 paylen;
};

static bool mrc_resp_parse(struct mrc_pkt *pkt, struct mrc_req_hdrs *h)
{
	bool tsh = pkt->ack_flags & MRC_BTH_TSH;
	unsigned int need = mrc_req_hdr_len(pkt->opcode, tsh);
	unsigned int pad = mrc_bth_padcnt(pkt->bth);
	u8 *p = pkt->hdr;

	if (pkt->hdr_len < need + pad)
		return false;
	h->meth = (struct mrc_meth *)p;
	p += MRC_METH_LEN;
	h->tseth = tsh ? (struct mrc_tseth *)p : NULL;
	p += tsh ? MRC_TSETH_LEN : 0;
	h->reth = (struct mrc_reth *)p;
	p += MRC_RETH_LEN;
	h->immdt = mrc_op_has_imm(pkt->opcode) ? (struct mrc_immdt *)p : NULL;
	p += h->immdt ? MRC_IMMDT_LEN : 0;
	h->payload = p;
	h->paylen = pkt->hdr_len - need - pad;
	return true;
}

/* Place one packet's payload, or say why it may not be placed. */
static bool mrc_resp_place(struct mrc_qp *qp, struct mrc_req_hdrs *h)
{
	u64 va = be64_to_cpu(h->reth->va);
	struct mrc_mr *mr;

	if (!h->paylen)
		return true;
	mr = mrc_mr_lookup(qp->dev, be32_to_cpu(h->reth->rkey));
	if (!mr || mr->ibmr.pd != qp->ibqp.pd ||
	    !(mr->access & IB_ACCESS_REMOTE_WRITE) ||
	    !(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE) ||
	    !mrc_mr_covers(mr, va, h->paylen))
		return false;
	mrc_mr_copy(mr, va, h->payload, h->paylen, true);
	return true;
}

/**
 * mrc_resp_rcv - a WRITE request packet for @qp
 * @qp: the destination QP
 * @pkt: the parsed packet
 * @txq: replies to send once the lock is released
 */
void mrc_resp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
		  struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_req_hdrs h;
	bool sack = false, gap;
	struct mrc_rmsg *rm;
	u32 off, msn, ahead;
	bool last = mrc_op_is_last(pkt->opcode);

	if (!mrc_resp_parse(pkt, &h)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		return;
	}

	spin_lock_bh(&dp->lock);
	if (!mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_RX_DATA_PKTS);
	if (h.tseth && !dp->echo_ts_set) {
		dp->echo_ts = ntohs(h.tseth->tx_ts);
		dp->echo_ts_set = true;
	}
	if (pkt->ce)
		mrc_counter_inc(qp->dev, MRC_CNT_ECN_MARKED);

	off = psn_diff(pkt->psn, dp->rcv_next);
	if (off >= MRC_PSN_HALF ||
	    test_bit(pkt->psn % MRC_MPR_MAX_PSNS, dp->rcv_bitmap)) {
		/* Already here: the SACK that said so was lost. */
		mrc_counter_inc(qp->dev, MRC_CNT_DUPLICATES);
		sack = true;
		goto reply;
	}
	if (off >= dp->mpr) {
		mrc_counter_inc(qp->dev, MRC_CNT_OUT_OF_WINDOW);
		mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_PSN_OOR_WINDOW,
			      pkt->sport);
		goto out;
	}

	/* The full MSN from METH's low 16 bits, at most a window ahead. */
	msn = ntohs(h.meth->msn);
	ahead = (msn - (dp->msn_done + 1)) & U16_MAX;
	msn = (dp->msn_done + 1 + ahead) & MRC_AETH_MSN_MASK;
	if (ahead >= MRC_MPR_MAX_PSNS) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		goto out;
	}
	rm = &dp->rmsgs[msn % MRC_MPR_MAX_PSNS];
	if (rm->state == MRC_RMSG_FREE) {
		rm->state = MRC_RMSG_OPEN;
		rm->msn = msn;
		rm->rcvd = 0;
		rm->dmalen = be32_to_cpu(h.reth->dmalen);
		rm->has_imm = false;
		rm->failed = false;
	} else if (rm->msn != msn || rm->state != MRC_RMSG_OPEN) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		goto out;
	}

	/*
	 * A WriteIMM needs a receive WQE when it completes; refuse its last
	 * packet (the requester resends it) until one is there.
	 */
	if (h.immdt && last) {
		if (mrc_queue_pending(&qp->rq, qp->rq_cons) <=
		    dp->imm_reserved) {
			mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_NO_RESOURCE,
				      pkt->sport);
			goto out;
		}
		dp->imm_reserved++;
		rm->has_imm = true;
		rm->imm = h.immdt->imm;
	}

	if (!rm->failed && !mrc_resp_place(qp, &h)) {
		rm->failed = true;
		mrc_counter_inc(qp->dev, MRC_CNT_REMOTE_ACCESS_ERRORS);
	}

	/* Arrived: the delivery layer's bookkeeping. */
	set_bit(pkt->psn % MRC_MPR_MAX_PSNS, dp->rcv_bitmap);
	gap = off != 0;
	while (test_bit(dp->rcv_next % MRC_MPR_MAX_PSNS, dp->rcv_bitmap)) {
		clear_bit(dp->rcv_next % MRC_MPR_MAX_PSNS, dp->rcv_bitmap);
		dp->rcv_next = (dp->rcv_next + 1) & MRC_PSN_MASK;
	}
	dp->rcvd_bytes += h.paylen;

	rm->rcvd += h.paylen;
	if (rm->rcvd >= rm->dmalen && (last || rm->dmalen)) {
		rm->state = MRC_RMSG_DONE;
		/* Complete before an earlier message: held until its turn. */
		if (rm->has_imm &&
		    msn != ((dp->msn_done + 1) & MRC_AETH_MSN_MASK))
			mrc_counter_inc(qp->dev, MRC_CNT_STASHED_WRITE_IMM);
		if (!mrc_resp_execute(qp, txq, pkt->psn))
			goto out;
	}

	sack = (pkt->ack_flags & MRC_BTH_ACKREQ) || gap ||
	       ++dp->pkts_since_sack >= MRC_SACK_EVERY_PKTS;
reply:
	if (pkt->ce)
		mrc_resp_sack(qp, txq, pkt->sport, MRC_SACK_M_SKIP_ONCE,
			      false, 0);
	else if (sack)
		mrc_resp_sack(qp, txq, pkt->sport, MRC_SACK_M_NONE, false, 0);
	if (dp->msn_done != dp->msn_acked && (sack || pkt->ce || last))
		mrc_resp_ack(qp, txq, MRC_AETH_ACK,
			     (dp->rcv_next - 1) & MRC_PSN_MASK);
out:
	spin_unlock_bh(&dp->lock);
}

/* A reliability probe: answered by a SACK with PR set; no PSN consumed. */
void mrc_resp_probe(struct mrc_qp *qp, struct mrc_pkt *pkt,
		    struct sk_buff_head *txq)
{
	struct mrc_peth *peth = (struct mrc_peth *)pkt->hdr;

	if (pkt->hdr_len < MRC_PETH_LEN) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		return;
	}
	spin_lock_bh(&qp->dp.lock);
	if (mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_PROBES_RCVD);
		qp->dp.echo_ts = ntohs(peth->tx_ts);
		mrc_resp_sack(qp, txq, pkt->sport, MRC_SACK_M_NONE, true,
			      ntohs(peth->probe_id));
	}
	spin_unlock_bh(&qp->dp.lock);
}

/* An RC-space opcode sent to a live MRC QP: remote operation error. */
void mrc_resp_unexpected(struct mrc_qp *qp, struct mrc_pkt *pkt,
			 struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 off;

	spin_lock_bh(&dp->lock);
	off = psn_diff(pkt->psn, dp->rcv_next);
	if (!mrc_resp_active(qp) || off >= dp->mpr) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_OPCODE);
		goto out;
	}
	mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_UNEXP_EVENT, pkt->sport);
	mrc_counter_inc(qp->dev, MRC_CNT_NACK_UNEXP_EVENT);
	mrc_qp_error(qp);
out:
	spin_unlock_bh(&dp->lock);
}
