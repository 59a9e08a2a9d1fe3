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
#include <linux/log2.h>

#include "mrc.h"
#include "mrc_ev.h"
#include "mrc_hdr.h"

static u32 psn_diff(u32 a, u32 b)
{
	return (a - b) & MRC_PSN_MASK;
}

/* The EV a packet came on, as SACKs and NACKs echo it. */
static u32 mrc_pkt_entropy(const struct mrc_pkt *pkt)
{
	return mrc_ev_entropy(pkt->sport, pkt->flow);
}

/* Control packets go on the QP's EVs in use, as its data does. */
static const struct mrc_path *mrc_ctl_path(struct mrc_qp *qp)
{
	return &qp->dp.evs[mrc_ev_select(qp, MRC_EV_NONE)];
}

/*
 * The responder's window state for INIT -> RTR: its MPR (mpr_units now),
 * a bit per PSN and a message slot per MSN it may hold.  Process context.
 */
int mrc_resp_win_alloc(struct mrc_qp_win *w)
{
	u32 units = clamp_t(u32, READ_ONCE(mrc_param_mpr_units), 1,
			    MRC_MPR_MAX_UNITS);

	w->mpr = units * MRC_MPR_UNIT_PSNS;
	w->rcv_size = roundup_pow_of_two(w->mpr);
	w->rcv_bitmap = bitmap_zalloc(w->rcv_size, GFP_KERNEL_ACCOUNT);
	w->rmsgs = kvcalloc(w->rcv_size, sizeof(*w->rmsgs), GFP_KERNEL_ACCOUNT);
	return w->rcv_bitmap && w->rmsgs ? 0 : -ENOMEM;
}

/* Exchange the QP's responder window state with @w's; dp.lock held. */
void mrc_resp_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 size = dp->rcv_bitmap ? dp->rcv_mask + 1 : 0;
	u32 mpr = dp->mpr;

	swap(dp->rcv_bitmap, w->rcv_bitmap);
	swap(dp->rmsgs, w->rmsgs);
	dp->rcv_mask = w->rcv_size - 1;
	dp->mpr = w->mpr;
	w->rcv_size = size;
	w->mpr = mpr;
}

/* Free what @w holds (either side's, or what a swap gave back). */
void mrc_qp_win_free(struct mrc_qp_win *w)
{
	kvfree(w->txpkts);
	bitmap_free(w->rcv_bitmap);
	kvfree(w->rmsgs);
	memset(w, 0, sizeof(*w));
}

/* INIT -> RTR: start receiving at rq_psn.  Called with dp.lock held. */
void mrc_resp_start(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	dp->rcv_next = qp->attr.rq_psn;
	dp->rcv_high = dp->rcv_next;
	dp->msn_done = 0;
	dp->msn_acked = 0;
	dp->done_psn = (dp->rcv_next - 1) & MRC_PSN_MASK;
	dp->executed = false;
	dp->imm_reserved = 0;
	dp->pkts_since_sack = 0;
	dp->rcvd_bytes = 0;
	dp->echo_ts_set = false;
	bitmap_zero(dp->rcv_bitmap, dp->rcv_mask + 1);
	memset(dp->rmsgs, 0, (dp->rcv_mask + 1) * sizeof(*dp->rmsgs));
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

/*
 * SETH ack_psn_offset for a SACK triggered by data packet @psn: its
 * signed distance from cack_psn, 0 when that does not fit.
 */
static u16 mrc_sack_trigger_off(u32 psn, u32 cack)
{
	u32 d = psn_diff(psn, cack);

	if (d <= S16_MAX)
		return d;
	if (d >= MRC_PSN_MASK + 1 + S16_MIN)
		return (u16)(d - (MRC_PSN_MASK + 1));
	return 0;
}

/*
 * Queue a SACK describing what has arrived.  @ev: the entropy of the packet
 * that caused it; @trigger: its PSN, or the probe id when @pr.
 */
static void mrc_resp_sack(struct mrc_qp *qp, struct sk_buff_head *txq,
			  u32 ev, u8 m, bool pr, u32 trigger)
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
	seth->ack_psn_off = htons(pr ? (u16)trigger :
				 mrc_sack_trigger_off(trigger, cack));
	seth->entropy = htonl(ev);
	mrc_put24(seth->cack_psn, cack);
	seth->mpr = dp->mpr / MRC_MPR_UNIT_PSNS;
	/* The bitmap starts at cack + 1: bit i is PSN cack + 1 + i. */
	seth->sack_off = htons(1);
	for (i = 0; i < MRC_SACK_BITMAP_BITS && i < dp->mpr; i++) {
		u32 psn = (dp->rcv_next + i) & MRC_PSN_MASK;

		if (test_bit(psn & dp->rcv_mask, dp->rcv_bitmap))
			bitmap |= BIT_ULL(i);
	}
	seth->bitmap = cpu_to_be64(bitmap);
	cc->tx_ts = htons(dp->echo_ts);
	dp->echo_ts_set = false;
	cc->rcv = htonl(DIV_ROUND_UP(dp->rcvd_bytes, MRC_CC_RCVD_BYTES_UNIT) &
			MRC_CC_RCVD_BYTES_MASK);

	dp->pkts_since_sack = 0;
	mrc_counter_inc(qp->dev, MRC_CNT_SACKS_SENT);
	mrc_txq_add(txq, skb, mrc_ctl_path(qp), mrc_param_dscp_control, false);
}

/*
 * @ev: the NACKed packet's entropy; @ts: its TSETH timestamp, 0 if it had
 * none.
 */
static void mrc_resp_nack(struct mrc_qp *qp, struct sk_buff_head *txq,
			  u32 psn, u8 reason, u32 ev, u16 ts)
{
	struct mrc_neth *neth;
	struct sk_buff *skb;

	skb = mrc_ctl_alloc(qp, MRC_OP_NACK, psn, MRC_NETH_LEN);
	if (!skb)
		return;
	neth = (struct mrc_neth *)(skb->data + MRC_BTH_LEN);
	neth->reason = reason;
	neth->entropy = htonl(ev);
	mrc_put24(neth->nack_psn, psn);
	neth->tx_ts = htons(ts);
	mrc_counter_inc(qp->dev, MRC_CNT_NACKS_SENT);
	mrc_txq_add(txq, skb, mrc_ctl_path(qp), mrc_param_dscp_control, false);
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
	mrc_txq_add(txq, skb, mrc_ctl_path(qp), mrc_param_dscp_control, false);
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
static bool mrc_resp_execute(struct mrc_qp *qp, struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 cack = (dp->rcv_next - 1) & MRC_PSN_MASK;
	struct mrc_rmsg *rm;

	for (;;) {
		u32 next = (dp->msn_done + 1) & MRC_AETH_MSN_MASK;

		/* A completion that overflowed its CQ errors the QP. */
		if (qp->state == IB_QPS_ERR)
			return false;
		rm = &dp->rmsgs[next & dp->rcv_mask];
		if (rm->msn != next)
			return true;
		/*
		 * Every PSN up to its last has arrived and it is still short
		 * of its DMALen: packets were missing from the message.
		 */
		if (rm->state == MRC_RMSG_OPEN && rm->has_last &&
		    psn_diff(cack, rm->last_psn) < MRC_PSN_HALF &&
		    !rm->fail) {
			rm->fail = MRC_AETH_NAK_INV_REQ;
			rm->fail_psn = rm->last_psn;
			rm->state = MRC_RMSG_DONE;
		}
		if (rm->state != MRC_RMSG_DONE)
			return true;
		if (rm->fail) {
			mrc_resp_ack(qp, txq, rm->fail, rm->fail_psn);
			mrc_qp_error(qp);
			return false;
		}
		if (rm->has_imm) {
			dp->imm_reserved--;
			mrc_resp_complete_imm(qp, rm);
		}
		rm->state = MRC_RMSG_FREE;
		dp->msn_done = next;
		dp->done_psn = rm->last_psn;
		dp->executed = true;
	}
}

/* Where a request packet's fields are. */
struct mrc_req_hdrs {
	struct mrc_meth *meth;
	struct mrc_tseth *tseth;
	struct mrc_reth *reth;
	struct mrc_immdt *immdt;
	u32 payload;			/* offset in the skb, from its data */
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
	/* The payload may be in the skb's fragments: an offset, not a pointer. */
	h->payload = p - pkt->skb->data;
	h->paylen = pkt->hdr_len - need - pad;
	return true;
}

/* Place one packet's payload, or say why it may not be placed. */
static bool mrc_resp_place(struct mrc_qp *qp, struct mrc_pkt *pkt,
			   struct mrc_req_hdrs *h)
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
	mrc_mr_copy_skb(mr, va, pkt->skb, h->payload, h->paylen);
	return true;
}

/*
 * Is the packet consistent with its message as seen so far?  Never more
 * than the path MTU, never past DMALen, DMALen the same in every packet,
 * and a message's only packet carries all of it.
 */
static bool mrc_resp_consistent(struct mrc_qp *qp, struct mrc_pkt *pkt,
				struct mrc_req_hdrs *h, struct mrc_rmsg *rm)
{
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	if (h->paylen > mtu || be32_to_cpu(h->reth->dmalen) != rm->dmalen ||
	    h->paylen > rm->dmalen - rm->rcvd)
		return false;
	if (mrc_op_is_only(pkt->opcode) && h->paylen != rm->dmalen)
		return false;
	if (mrc_op_is_last(pkt->opcode) && rm->has_last)
		return false;
	return true;
}

/* Find, or open, the message a request packet belongs to. */
static struct mrc_rmsg *mrc_resp_msg(struct mrc_qp *qp, struct mrc_req_hdrs *h)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_rmsg *rm;
	u32 msn, ahead;

	/* The full MSN from METH's low 16 bits, at most a window ahead. */
	msn = ntohs(h->meth->msn);
	ahead = (msn - (dp->msn_done + 1)) & U16_MAX;
	msn = (dp->msn_done + 1 + ahead) & MRC_AETH_MSN_MASK;
	if (ahead >= dp->mpr)
		return NULL;
	rm = &dp->rmsgs[msn & dp->rcv_mask];
	if (rm->state == MRC_RMSG_FREE) {
		memset(rm, 0, sizeof(*rm));
		rm->state = MRC_RMSG_OPEN;
		rm->msn = msn;
		rm->dmalen = be32_to_cpu(h->reth->dmalen);
	} else if (rm->msn != msn) {
		return NULL;
	}
	return rm;
}

/* Fail message @rm with NAK @syndrome; the first failure is reported. */
static void mrc_rmsg_fail(struct mrc_rmsg *rm, u8 syndrome, u32 psn)
{
	if (rm->fail)
		return;
	rm->fail = syndrome;
	rm->fail_psn = psn;
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
	bool last = mrc_op_is_last(pkt->opcode);
	struct mrc_qp_dp *dp = &qp->dp;
	bool sack = false, ok = true, dup = false, hole;
	struct sk_buff_head naks;
	struct mrc_req_hdrs h;
	struct mrc_rmsg *rm;
	u16 ts;
	u32 d;

	if (!mrc_resp_parse(pkt, &h)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		return;
	}
	ts = h.tseth ? ntohs(h.tseth->tx_ts) : 0;
	__skb_queue_head_init(&naks);

	spin_lock_bh(&dp->lock);
	if (!mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_RX_DATA_PKTS);
	if (h.tseth && !dp->echo_ts_set) {
		dp->echo_ts = ts;
		dp->echo_ts_set = true;
	}
	if (pkt->ce)
		mrc_counter_inc(qp->dev, MRC_CNT_ECN_MARKED);

	/* d: the distance from cack_psn (wire-format.rst, Receive window). */
	d = psn_diff(pkt->psn, (dp->rcv_next - 1) & MRC_PSN_MASK);
	if (!d || d >= MRC_PSN_HALF ||
	    test_bit(pkt->psn & dp->rcv_mask, dp->rcv_bitmap)) {
		/*
		 * Already here: the SACK that said so, or the ACK, was lost.
		 * Both are sent again (a requester that has everything SACKed
		 * resends its last packet when the ACK is late).
		 */
		mrc_counter_inc(qp->dev, MRC_CNT_DUPLICATES);
		sack = true;
		dup = true;
		goto reply;
	}
	if (d >= dp->mpr) {
		mrc_counter_inc(qp->dev, MRC_CNT_OUT_OF_WINDOW);
		mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_PSN_OOR_WINDOW,
			      mrc_pkt_entropy(pkt), ts);
		goto out;
	}

	rm = mrc_resp_msg(qp, &h);
	if (!rm) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		goto out;
	}

	if (rm->state != MRC_RMSG_OPEN || !mrc_resp_consistent(qp, pkt, &h, rm)) {
		/* Consumed, never placed: the message fails as a whole. */
		mrc_rmsg_fail(rm, MRC_AETH_NAK_INV_REQ, pkt->psn);
		rm->state = MRC_RMSG_DONE;
	} else {
		/*
		 * A WriteIMM needs a receive WQE when it completes; refuse its
		 * last packet (the requester resends it) until one is there.
		 */
		if (h.immdt && last) {
			if (mrc_queue_pending(&qp->rq, qp->rq_cons) <=
			    dp->imm_reserved) {
				mrc_resp_nack(qp, txq, pkt->psn,
					      MRC_NACK_NO_RESOURCE,
					      mrc_pkt_entropy(pkt), ts);
				goto out;
			}
			dp->imm_reserved++;
			rm->has_imm = true;
			rm->imm = h.immdt->imm;
		}
		if (last) {
			rm->has_last = true;
			rm->last_psn = pkt->psn;
		}
		if (!rm->fail && !mrc_resp_place(qp, pkt, &h)) {
			mrc_rmsg_fail(rm, MRC_AETH_NAK_REM_ACCESS, pkt->psn);
			mrc_counter_inc(qp->dev, MRC_CNT_REMOTE_ACCESS_ERRORS);
		}
		rm->rcvd += h.paylen;
		if (rm->has_last && rm->rcvd == rm->dmalen) {
			rm->state = MRC_RMSG_DONE;
			/* Complete before an earlier message: held till its turn. */
			if (rm->has_imm &&
			    rm->msn != ((dp->msn_done + 1) & MRC_AETH_MSN_MASK))
				mrc_counter_inc(qp->dev,
						MRC_CNT_STASHED_WRITE_IMM);
		}
	}

	/* Arrived: the delivery layer's bookkeeping. */
	set_bit(pkt->psn & dp->rcv_mask, dp->rcv_bitmap);
	/*
	 * A new hole: the packet is neither the next expected one nor the one
	 * after the highest arrived (it jumps ahead, or lands inside a hole).
	 * In-order arrivals past an open hole are SACKed more often too.
	 */
	hole = d != 1 && pkt->psn != dp->rcv_high;
	if (psn_diff(pkt->psn, dp->rcv_high) < MRC_PSN_HALF)
		dp->rcv_high = (pkt->psn + 1) & MRC_PSN_MASK;
	while (test_bit(dp->rcv_next & dp->rcv_mask, dp->rcv_bitmap)) {
		clear_bit(dp->rcv_next & dp->rcv_mask, dp->rcv_bitmap);
		dp->rcv_next = (dp->rcv_next + 1) & MRC_PSN_MASK;
	}
	dp->rcvd_bytes += h.paylen;
	/*
	 * Execution may fail a message (NAK, QP to error).  Its packets were
	 * delivered all the same: the SACK saying so goes first, always.
	 */
	ok = mrc_resp_execute(qp, &naks);
	sack = !ok || (pkt->ack_flags & MRC_BTH_ACKREQ) || hole ||
	       ++dp->pkts_since_sack >= (dp->rcv_next != dp->rcv_high ?
					 MRC_SACK_HOLE_EVERY_PKTS :
					 MRC_SACK_EVERY_PKTS);
reply:
	if (pkt->ce)
		mrc_resp_sack(qp, txq, mrc_pkt_entropy(pkt),
			      MRC_SACK_M_SKIP_ONCE, false, pkt->psn);
	else if (sack)
		mrc_resp_sack(qp, txq, mrc_pkt_entropy(pkt), MRC_SACK_M_NONE,
			      false, pkt->psn);
	skb_queue_splice_tail_init(&naks, txq);
	if (dup ? dp->executed :
	    ok && dp->msn_done != dp->msn_acked && (sack || pkt->ce || last))
		mrc_resp_ack(qp, txq, MRC_AETH_ACK, dp->done_psn);
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
		mrc_resp_sack(qp, txq, mrc_pkt_entropy(pkt), MRC_SACK_M_NONE,
			      true, ntohs(peth->probe_id));
	}
	spin_unlock_bh(&qp->dp.lock);
}

/* An RC-space opcode sent to a live MRC QP: remote operation error. */
void mrc_resp_unexpected(struct mrc_qp *qp, struct mrc_pkt *pkt,
			 struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 d;

	spin_lock_bh(&dp->lock);
	d = psn_diff(pkt->psn, (dp->rcv_next - 1) & MRC_PSN_MASK);
	if (!mrc_resp_active(qp) || !d || d >= dp->mpr) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_OPCODE);
		goto out;
	}
	mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_UNEXP_EVENT,
		      mrc_pkt_entropy(pkt), 0);
	mrc_counter_inc(qp->dev, MRC_CNT_NACK_UNEXP_EVENT);
	mrc_qp_error(qp);
out:
	spin_unlock_bh(&dp->lock);
}
