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
#include "mrc_pkt.h"

static u32 psn_diff(u32 a, u32 b)
{
	return (a - b) & MRC_PSN_MASK;
}

/* Control packets go on the QP's EVs in use, as its data does. */
static const struct mrc_path *mrc_ctl_path(struct mrc_qp *qp)
{
	return &qp->dp.ev.paths[mrc_ev_select(qp, MRC_EV_NONE)];
}

/*
 * The responder's window state for INIT -> RTR: its MPR (@mpr_units, the
 * QP's mpr_dest), a bit per PSN and a message slot per MSN it may hold.
 * Process context.
 */
int mrc_resp_win_alloc(struct mrc_qp_win *w, u32 mpr_units)
{
	w->mpr = clamp_t(u32, mpr_units, 1, MRC_MPR_MAX_UNITS) * MRC_MPR_UNIT;
	w->rcv_size = roundup_pow_of_two(w->mpr);
	w->rcv_bitmap = bitmap_zalloc(w->rcv_size, GFP_KERNEL_ACCOUNT);
	w->rmsgs = kvcalloc(w->rcv_size, sizeof(*w->rmsgs), GFP_KERNEL_ACCOUNT);
	return w->rcv_bitmap && w->rmsgs ? 0 : -ENOMEM;
}

/* Exchange the QP's responder window state with @w's; dp.lock held. */
void mrc_resp_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 size = dp->resp.rcv_bitmap ? dp->resp.rcv_mask + 1 : 0;
	u32 mpr = dp->resp.mpr;

	swap(dp->resp.rcv_bitmap, w->rcv_bitmap);
	swap(dp->resp.rmsgs, w->rmsgs);
	dp->resp.rcv_mask = w->rcv_size - 1;
	dp->resp.mpr = w->mpr;
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

	dp->resp.rcv_next = qp->attr.rq_psn;
	dp->resp.rcv_high = dp->resp.rcv_next;
	dp->resp.msn_done = 0;
	dp->resp.msn_acked = 0;
	dp->resp.done_psn = (dp->resp.rcv_next - 1) & MRC_PSN_MASK;
	dp->resp.executed = false;
	dp->resp.imm_reserved = 0;
	dp->resp.pkts_since_sack = 0;
	dp->resp.news = false;
	dp->resp.rcvd_bytes = 0;
	dp->resp.ooo_held = 0;
	dp->resp.dups = 0;
	dp->resp.echo_ts_set = false;
	bitmap_zero(dp->resp.rcv_bitmap, dp->resp.rcv_mask + 1);
	memset(dp->resp.rmsgs, 0, (dp->resp.rcv_mask + 1) * sizeof(*dp->resp.rmsgs));
}

static bool mrc_resp_active(struct mrc_qp *qp)
{
	return qp->state >= IB_QPS_RTR && qp->state <= IB_QPS_SQE;
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
 * Where the bitmap starts, as an offset from cack_psn (>= 1): at 1, unless
 * sack_follow moves it up towards the PSN @d_trig past cack_psn that the
 * SACK answers (0: none), so that the 64 bits end there, but never past
 * the lowest PSN that arrived since the last SACK.
 */
static u32 mrc_resp_sack_base(struct mrc_qp_dp *dp, u32 cack, u32 d_trig)
{
	u32 base, d_news;

	if (!READ_ONCE(mrc_param_sack_follow) || d_trig <= MRC_SACK_BITMAP_BITS)
		return 1;
	base = d_trig - (MRC_SACK_BITMAP_BITS - 1);
	if (dp->resp.news) {
		/*
		 * Once cack_psn has passed the lowest news, what else arrived
		 * since the last SACK may lie anywhere above it: start at 1.
		 */
		d_news = psn_diff(dp->resp.news_low, cack);
		if (!d_news || d_news >= dp->resp.mpr)
			return 1;
		base = min(base, d_news);
	}
	return base;
}

/*
 * Queue a SACK describing what has arrived.  @ev: the entropy of the packet
 * that caused it; @trigger: its PSN, or the probe id when @pr.
 */
static void mrc_resp_sack(struct mrc_qp *qp, struct sk_buff_head *txq,
			  u32 ev, u8 m, bool pr, u32 trigger)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 cack = (dp->resp.rcv_next - 1) & MRC_PSN_MASK;
	struct mrc_cc_state *cc;
	struct mrc_seth *seth;
	struct sk_buff *skb;
	u64 bitmap = 0;
	u32 base, d_trig;
	int i;

	skb = mrc_net_alloc_hdrs(qp, MRC_OP_SACK, cack);
	if (!skb)
		return;
	seth = (struct mrc_seth *)(skb->data + MRC_BTH_LEN);
	cc = (struct mrc_cc_state *)(seth + 1);

	seth->flags = mrc_seth_flags(m, pr);
	seth->ack_psn_off = htons(pr ? (u16)trigger :
				 mrc_sack_trigger_off(trigger, cack));
	seth->entropy = htonl(ev);
	seth->dups = dp->resp.dups;
	mrc_put24(seth->cack_psn, cack);
	seth->mpr = dp->resp.mpr / MRC_MPR_UNIT;
	/*
	 * Bit i is PSN cack + base + i.  A probe's answer reports up to the
	 * highest PSN that arrived, as a packet's SACK reports up to it.
	 */
	d_trig = psn_diff(pr ? (dp->resp.rcv_high - 1) & MRC_PSN_MASK : trigger,
			  cack);
	base = mrc_resp_sack_base(dp, cack, d_trig < dp->resp.mpr ? d_trig : 0);
	seth->sack_off = htons(base);
	for (i = 0; i < MRC_SACK_BITMAP_BITS && base + i < dp->resp.mpr; i++) {
		u32 psn = (cack + base + i) & MRC_PSN_MASK;

		if (test_bit(psn & dp->resp.rcv_mask, dp->resp.rcv_bitmap))
			bitmap |= BIT_ULL(i);
	}
	seth->bitmap = cpu_to_be64(bitmap);
	cc->tx_ts = htons(dp->resp.echo_ts);
	dp->resp.echo_ts_set = false;
	cc->ooo_count = mrc_cc_ooo_word(qp);
	cc->rcv = mrc_cc_rcv_word(qp);

	dp->resp.pkts_since_sack = 0;
	dp->resp.news = false;
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

	skb = mrc_net_alloc_hdrs(qp, MRC_OP_NACK, psn);
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

	skb = mrc_net_alloc_hdrs(qp, MRC_OP_ACK, psn);
	if (!skb)
		return;
	aeth = (struct mrc_aeth *)(skb->data + MRC_BTH_LEN);
	aeth->smsn = mrc_aeth_smsn(syndrome, qp->dp.resp.msn_done);
	qp->dp.resp.msn_acked = qp->dp.resp.msn_done;
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
	mrc_index_publish(&qp->rq.idx->cons, qp->rq_cons);
	mrc_qp_post_cqe(qp, false, &cqe);
}

/* Execute, in MSN order, every message whose bytes have all arrived. */
static bool mrc_resp_execute(struct mrc_qp *qp, struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 cack = (dp->resp.rcv_next - 1) & MRC_PSN_MASK;
	struct mrc_rmsg *rm;

	for (;;) {
		u32 next = (dp->resp.msn_done + 1) & MRC_AETH_MSN_MASK;

		/* A completion that overflowed its CQ errors the QP. */
		if (qp->state == IB_QPS_ERR)
			return false;
		rm = &dp->resp.rmsgs[next & dp->resp.rcv_mask];
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
			dp->resp.imm_reserved--;
			mrc_resp_complete_imm(qp, rm);
		}
		rm->state = MRC_RMSG_FREE;
		dp->resp.msn_done = next;
		dp->resp.done_psn = rm->last_psn;
		dp->resp.executed = true;
	}
}

/* Place one packet's payload, or say why it may not be placed. */
static bool mrc_resp_place(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	u64 va = be64_to_cpu(pkt->h.reth->va);
	struct mrc_mr *mr;

	if (!pkt->paylen)
		return true;
	mr = mrc_mr_lookup(qp->dev, be32_to_cpu(pkt->h.reth->rkey));
	if (!mr || mr->ibmr.pd != qp->ibqp.pd ||
	    !(mr->access & IB_ACCESS_REMOTE_WRITE) ||
	    !(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE) ||
	    !mrc_mr_covers(mr, va, pkt->paylen))
		return false;
	mrc_mr_copy_skb(mr, va, pkt->skb, pkt->payload, pkt->paylen);
	return true;
}

/*
 * Is the packet consistent with its message as seen so far?  Never more
 * than the path MTU, never past DMALen, DMALen the same in every packet,
 * and a message's only packet carries all of it.
 */
static bool mrc_resp_consistent(struct mrc_qp *qp, struct mrc_pkt *pkt,
				struct mrc_rmsg *rm)
{
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	if (pkt->paylen > mtu ||
	    be32_to_cpu(pkt->h.reth->dmalen) != rm->dmalen ||
	    pkt->paylen > rm->dmalen - rm->rcvd)
		return false;
	if (mrc_op_is_only(pkt->opcode) && pkt->paylen != rm->dmalen)
		return false;
	if (mrc_op_is_last(pkt->opcode) && rm->has_last)
		return false;
	return true;
}

/* Find, or open, the message a request packet belongs to. */
static struct mrc_rmsg *mrc_resp_msg(struct mrc_qp *qp, struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_rmsg *rm;
	u32 msn, ahead;

	/* The full MSN from METH's low 16 bits, at most a window ahead. */
	msn = ntohs(pkt->h.meth->msn);
	ahead = (msn - (dp->resp.msn_done + 1)) & U16_MAX;
	msn = (dp->resp.msn_done + 1 + ahead) & MRC_AETH_MSN_MASK;
	if (ahead >= dp->resp.mpr)
		return NULL;
	rm = &dp->resp.rmsgs[msn & dp->resp.rcv_mask];
	if (rm->state == MRC_RMSG_FREE) {
		memset(rm, 0, sizeof(*rm));
		rm->state = MRC_RMSG_OPEN;
		rm->msn = msn;
		rm->dmalen = be32_to_cpu(pkt->h.reth->dmalen);
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

/* The sender's timestamp a NACK of @pkt reflects; 0 when it had none. */
static u16 mrc_resp_pkt_ts(const struct mrc_pkt *pkt)
{
	return pkt->h.tseth ? ntohs(pkt->h.tseth->tx_ts) : 0;
}

/* Where a request packet's PSN stands against the receive window. */
enum mrc_resp_psn {
	MRC_RESP_PSN_NEW,	/* in the window, not arrived before */
	MRC_RESP_PSN_DUP,	/* arrived before, or behind the window */
	MRC_RESP_PSN_BEYOND,	/* past the window's edge */
};

/* @d: the PSN's distance from cack_psn (wire-format.rst, Receive window). */
static enum mrc_resp_psn mrc_resp_classify(struct mrc_qp_dp *dp, u32 psn,
					   u32 *d)
{
	*d = psn_diff(psn, (dp->resp.rcv_next - 1) & MRC_PSN_MASK);
	if (!*d || *d >= MRC_PSN_HALF ||
	    test_bit(psn & dp->resp.rcv_mask, dp->resp.rcv_bitmap))
		return MRC_RESP_PSN_DUP;
	if (*d >= dp->resp.mpr)
		return MRC_RESP_PSN_BEYOND;
	return MRC_RESP_PSN_NEW;
}

/*
 * Take a new packet into its message @rm: check it against what the
 * message has so far, hold a receive WQE for a WriteIMM, place the
 * payload.  A packet that fails its message is consumed all the same;
 * returns false only when it is refused for now (a WriteIMM's last packet
 * with no receive WQE to complete into: NACKed, the requester resends it).
 */
static bool mrc_resp_take(struct mrc_qp *qp, struct mrc_pkt *pkt,
			  struct mrc_rmsg *rm, struct sk_buff_head *txq)
{
	bool last = mrc_op_is_last(pkt->opcode);
	struct mrc_qp_dp *dp = &qp->dp;

	if (rm->state != MRC_RMSG_OPEN || !mrc_resp_consistent(qp, pkt, rm)) {
		/* Consumed, never placed: the message fails as a whole. */
		mrc_rmsg_fail(rm, MRC_AETH_NAK_INV_REQ, pkt->psn);
		rm->state = MRC_RMSG_DONE;
		return true;
	}
	if (pkt->h.immdt && last) {
		if (mrc_queue_pending(&qp->rq, qp->rq_cons) <=
		    dp->resp.imm_reserved ||
		    dp->resp.imm_reserved >= qp->mattr.max_wimm_dest) {
			mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_NO_RESOURCE,
				      mrc_pkt_entropy(pkt),
				      mrc_resp_pkt_ts(pkt));
			return false;
		}
		dp->resp.imm_reserved++;
		rm->has_imm = true;
		rm->imm = pkt->h.immdt->imm;
	}
	if (last) {
		rm->has_last = true;
		rm->last_psn = pkt->psn;
	}
	if (!rm->fail && !mrc_resp_place(qp, pkt)) {
		mrc_rmsg_fail(rm, MRC_AETH_NAK_REM_ACCESS, pkt->psn);
		mrc_counter_inc(qp->dev, MRC_CNT_REMOTE_ACCESS_ERRORS);
	}
	rm->rcvd += pkt->paylen;
	if (rm->has_last && rm->rcvd == rm->dmalen) {
		rm->state = MRC_RMSG_DONE;
		/* Complete before an earlier message: held till its turn. */
		if (rm->has_imm &&
		    rm->msn != ((dp->resp.msn_done + 1) & MRC_AETH_MSN_MASK))
			mrc_counter_inc(qp->dev, MRC_CNT_STASHED_WRITE_IMM);
	}
	return true;
}

/* What a new packet did to the gaps in what has arrived. */
enum mrc_resp_gap {
	MRC_GAP_NONE,		/* the next expected, or the one after the highest */
	MRC_GAP_FIRST,		/* it opened a gap while none was open */
	MRC_GAP_MORE,		/* it opened another one, or landed in one */
};

/*
 * The delivery layer's bookkeeping for a new packet @d PSNs past cack_psn:
 * mark it arrived, move cack_psn past what is now contiguous.  Returns
 * what it did to the gaps.
 */
static enum mrc_resp_gap mrc_resp_arrived(struct mrc_qp_dp *dp,
					  const struct mrc_pkt *pkt, u32 d)
{
	enum mrc_resp_gap gap = MRC_GAP_NONE;

	if (d != 1 && dp->resp.rcv_next == dp->resp.rcv_high)
		gap = MRC_GAP_FIRST;
	else if (d != 1 && pkt->psn != dp->resp.rcv_high)
		gap = MRC_GAP_MORE;

	set_bit(pkt->psn & dp->resp.rcv_mask, dp->resp.rcv_bitmap);
	if (!dp->resp.news ||
	    psn_diff(dp->resp.news_low, pkt->psn) < MRC_PSN_HALF) {
		dp->resp.news_low = pkt->psn;
		dp->resp.news = true;
	}
	if (psn_diff(pkt->psn, dp->resp.rcv_high) < MRC_PSN_HALF)
		dp->resp.rcv_high = (pkt->psn + 1) & MRC_PSN_MASK;
	/* Held until cack_psn passes it (at once when it is the next). */
	dp->resp.ooo_held++;
	while (test_bit(dp->resp.rcv_next & dp->resp.rcv_mask, dp->resp.rcv_bitmap)) {
		clear_bit(dp->resp.rcv_next & dp->resp.rcv_mask, dp->resp.rcv_bitmap);
		dp->resp.rcv_next = (dp->resp.rcv_next + 1) & MRC_PSN_MASK;
		dp->resp.ooo_held--;
	}
	dp->resp.rcvd_bytes += pkt->paylen;
	return gap;
}

/*
 * Should a new packet be SACKed now?  When asked to, when execution failed
 * a message, when it opened a gap while none was open, and otherwise every
 * MRC_SACK_EVERY_PKTS packets; with the sack_hole_every parameter set,
 * also when it opened or filled another and every that many packets while
 * one stays open.
 */
static bool mrc_resp_sack_due(struct mrc_qp_dp *dp, const struct mrc_pkt *pkt,
			      enum mrc_resp_gap gap, bool ok)
{
	u32 every = READ_ONCE(mrc_param_sack_hole_every);

	if (!ok || (pkt->ack_flags & MRC_BTH_ACKREQ) || gap == MRC_GAP_FIRST)
		return true;
	if (every && gap == MRC_GAP_MORE)
		return true;
	if (!every || dp->resp.rcv_next == dp->resp.rcv_high)
		every = MRC_SACK_EVERY_PKTS;
	return ++dp->resp.pkts_since_sack >= every;
}

/*
 * The replies to a request packet: a SACK when @sack (SKIP_ONCE when it
 * was CE-marked, always), then the NAKs of failed messages, then the ACK
 * of what was executed (for a duplicate @dup: sent again, in case it was
 * lost; otherwise when @ok and there is news, at a SACK or a message end).
 */
static void mrc_resp_reply(struct mrc_qp *qp, struct mrc_pkt *pkt,
			   struct sk_buff_head *txq, struct sk_buff_head *naks,
			   bool sack, bool dup, bool ok)
{
	struct mrc_qp_dp *dp = &qp->dp;

	if (pkt->ce)
		mrc_resp_sack(qp, txq, mrc_pkt_entropy(pkt),
			      MRC_SACK_M_SKIP_ONCE, false, pkt->psn);
	else if (sack)
		mrc_resp_sack(qp, txq, mrc_pkt_entropy(pkt), MRC_SACK_M_NONE,
			      false, pkt->psn);
	skb_queue_splice_tail_init(naks, txq);
	if (dup ? dp->resp.executed :
	    ok && dp->resp.msn_done != dp->resp.msn_acked &&
	    (sack || pkt->ce || mrc_op_is_last(pkt->opcode)))
		mrc_resp_ack(qp, txq, MRC_AETH_ACK, dp->resp.done_psn);
}

/* Counters and the timestamp to echo, for a request packet taken in. */
static void mrc_resp_note(struct mrc_qp *qp, const struct mrc_pkt *pkt)
{
	struct mrc_qp_dp *dp = &qp->dp;

	mrc_counter_inc(qp->dev, MRC_CNT_RX_DATA_PKTS);
	if (pkt->h.tseth && !dp->resp.echo_ts_set) {
		dp->resp.echo_ts = ntohs(pkt->h.tseth->tx_ts);
		dp->resp.echo_ts_set = true;
	}
	if (pkt->ce)
		mrc_counter_inc(qp->dev, MRC_CNT_ECN_MARKED);
}

/**
 * mrc_resp_rcv - a WRITE request packet for @qp
 * @qp: the destination QP
 * @pkt: the parsed packet
 * @txq: replies to send once the lock is released
 *
 * Classify its PSN against the window, take it into its message, mark it
 * arrived, execute what is complete, reply.
 */
void mrc_resp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
		  struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct sk_buff_head naks;
	enum mrc_resp_gap gap;
	struct mrc_rmsg *rm;
	bool ok;
	u32 d;

	__skb_queue_head_init(&naks);
	spin_lock_bh(&dp->lock);
	if (!mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	mrc_resp_note(qp, pkt);

	switch (mrc_resp_classify(dp, pkt->psn, &d)) {
	case MRC_RESP_PSN_DUP:
		/*
		 * Already here: the SACK that said so, or the ACK, was lost.
		 * Both are sent again (a requester that has everything SACKed
		 * resends its last packet when the ACK is late).
		 */
		mrc_counter_inc(qp->dev, MRC_CNT_DUPLICATES);
		dp->resp.dups++;
		mrc_resp_reply(qp, pkt, txq, &naks, true, true, true);
		goto out;
	case MRC_RESP_PSN_BEYOND:
		mrc_counter_inc(qp->dev, MRC_CNT_OUT_OF_WINDOW);
		mrc_resp_nack(qp, txq, pkt->psn, MRC_NACK_PSN_OOR_WINDOW,
			      mrc_pkt_entropy(pkt), mrc_resp_pkt_ts(pkt));
		goto out;
	case MRC_RESP_PSN_NEW:
		break;
	}

	rm = mrc_resp_msg(qp, pkt);
	if (!rm) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_HEADER);
		goto out;
	}
	if (!mrc_resp_take(qp, pkt, rm, txq))
		goto out;
	gap = mrc_resp_arrived(dp, pkt, d);
	/*
	 * Execution may fail a message (NAK, QP to error).  Its packets were
	 * delivered all the same: the SACK saying so goes first, always.
	 */
	ok = mrc_resp_execute(qp, &naks);
	mrc_resp_reply(qp, pkt, txq, &naks, mrc_resp_sack_due(dp, pkt, gap, ok),
		       false, ok);
out:
	spin_unlock_bh(&dp->lock);
}

/* A reliability probe: answered by a SACK with PR set; no PSN consumed. */
void mrc_resp_probe(struct mrc_qp *qp, struct mrc_pkt *pkt,
		    struct sk_buff_head *txq)
{
	struct mrc_peth *peth = pkt->h.peth;

	spin_lock_bh(&qp->dp.lock);
	if (mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_PROBES_RCVD);
		qp->dp.resp.echo_ts = ntohs(peth->tx_ts);
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
	d = psn_diff(pkt->psn, (dp->resp.rcv_next - 1) & MRC_PSN_MASK);
	if (!mrc_resp_active(qp) || !d || d >= dp->resp.mpr) {
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

/**
 * mrc_resp_trimmed - a data packet a switch trimmed on the way
 * @qp: the destination QP
 * @pkt: its headers through RETH (no payload, no ICRC)
 * @txq: replies to send once the lock is released
 * @lasthop: trimmed at the receiver's last hop (DSCP_TRIMMED_LASTHOP)
 *
 * A PSN the window still waits for is NACKed at once, TRIMMED or
 * TRIMMED_LASTHOP, on the control class: the requester resends it without
 * waiting for a timeout, and knows the path is alive.  One that arrived
 * already, or lies outside the window, is only counted: a NACK would
 * cause a needless resend.
 */
void mrc_resp_trimmed(struct mrc_qp *qp, struct mrc_pkt *pkt,
		      struct sk_buff_head *txq, bool lasthop)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 d;

	spin_lock_bh(&dp->lock);
	if (!mrc_resp_active(qp)) {
		mrc_counter_inc(qp->dev, MRC_CNT_DROP_BAD_STATE);
		goto out;
	}
	if (mrc_resp_classify(dp, pkt->psn, &d) != MRC_RESP_PSN_NEW) {
		mrc_counter_inc(qp->dev, MRC_CNT_TRIMMED_STALE);
		goto out;
	}
	mrc_counter_inc(qp->dev, MRC_CNT_TRIMMED_RCVD);
	/* A peer that cannot use the NACK finds the loss by itself. */
	if (qp->mattr.cap & MRC_ABI_QP_CAP_NO_TRIM_NACK) {
		mrc_counter_inc(qp->dev, MRC_CNT_TRIMMED_NOT_NACKED);
		goto out;
	}
	mrc_resp_nack(qp, txq, pkt->psn, lasthop ? MRC_NACK_TRIMMED_LASTHOP :
		      MRC_NACK_TRIMMED, mrc_pkt_entropy(pkt),
		      mrc_resp_pkt_ts(pkt));
out:
	spin_unlock_bh(&dp->lock);
}
