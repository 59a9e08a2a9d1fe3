// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the requester.  A per-QP tasklet copies WQEs from the send
 * queue, cuts messages into path-MTU packets, each carrying its own RETH,
 * and sprays them over the QP's entropy values; it never sends a PSN at or
 * beyond the responder's window edge (cack_psn + MPR).  Packets the completer
 * or the timer flagged are resent first, with rtx set, on the
 * retransmission DSCP and another EV.  Only EVs the state machine
 * (mrc_ev.c) keeps in use carry data.
 */
#include <linux/jhash.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#include "mrc.h"
#include "mrc_ev.h"
#include "mrc_hdr.h"
#include "mrc_opcode.h"

/* Packets one tasklet run sends before yielding. */
#define MRC_REQ_BUDGET		64
#define MRC_NS_PER_US		1000

u32 mrc_now_us(void)
{
	return div_u64(ktime_get_ns(), MRC_NS_PER_US);
}

int mrc_req_init(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	dp->req.swqe_size = ALIGN(sizeof(struct mrc_swqe) + qp->sq.entry_size -
			      sizeof(struct mrc_send_wqe), sizeof(u64));
	/* One copy per SQ slot: sized by the QP's caps, charged to it. */
	dp->req.swqes = kvcalloc(qp->sq.num, dp->req.swqe_size, GFP_KERNEL_ACCOUNT);
	if (!dp->req.swqes)
		return -ENOMEM;
	qp->memcg = get_mem_cgroup_from_mm(current->mm);
	return 0;
}

void mrc_req_cleanup(struct mrc_qp *qp)
{
	mem_cgroup_put(qp->memcg);
	qp->memcg = NULL;
	kvfree(qp->dp.req.swqes);
	kvfree(qp->dp.req.txpkts);
	qp->dp.req.swqes = NULL;
	qp->dp.req.txpkts = NULL;
}

/* The most PSNs the requester keeps sent and not SACKed: its window. */
static u32 mrc_req_max_inflight(void)
{
	return clamp_t(u32, READ_ONCE(mrc_param_max_inflight), 1,
		       MRC_MPR_MAX_PSNS);
}

/*
 * The requester's window state for RTR -> RTS: a txpkt per PSN it may
 * have past its oldest unacknowledged one (MRC_REQ_SPAN_WINDOWS windows of
 * max_inflight now, at most the largest MPR, rounded up to a power of
 * two).  Process context.
 */
int mrc_req_win_alloc(struct mrc_qp_win *w)
{
	w->tx_size = roundup_pow_of_two(min_t(u32, MRC_MPR_MAX_PSNS,
					      MRC_REQ_SPAN_WINDOWS *
					      mrc_req_max_inflight()));
	w->txpkts = kvcalloc(w->tx_size, sizeof(*w->txpkts),
			     GFP_KERNEL_ACCOUNT);
	return w->txpkts ? 0 : -ENOMEM;
}

/*
 * The txpkts cover MRC_REQ_SPAN_WINDOWS windows past the oldest
 * unacknowledged PSN, sized at RTS by max_inflight.  When congestion
 * control's window outgrows them, process context is asked for twice as
 * many (mrc_req_tx_grow()), up to the largest span the peer's MPR allows.
 * dp.lock held.
 */
static void mrc_req_want_span(struct mrc_qp *qp, u32 mtu)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 size = dp->req.tx_mask + 1;
	u32 want = MRC_REQ_SPAN_WINDOWS * DIV_ROUND_UP(mrc_cc_window(qp), mtu);

	if (want <= size || size >= MRC_MPR_MAX_PSNS ||
	    size + 1 >= dp->req.peer_mpr || dp->req.tx_grow_queued ||
	    dp->stopped)
		return;
	dp->req.tx_grow_queued = true;
	queue_work(system_unbound_wq, &qp->dp.tx_grow);
}

/*
 * Twice the txpkts, charged to the QP's creator: each PSN of the old
 * array's reach moves to its slot in the new one, under dp.lock, unless
 * the QP was reset or destroyed meanwhile.
 */
static void mrc_req_tx_grow(struct work_struct *work)
{
	struct mrc_qp *qp = container_of(work, struct mrc_qp, dp.tx_grow);
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_txpkt *new = NULL, *old = NULL;
	struct mem_cgroup *memcg;
	u32 size, psn, i;

	spin_lock_bh(&dp->lock);
	size = dp->req.txpkts ? dp->req.tx_mask + 1 : 0;
	spin_unlock_bh(&dp->lock);
	if (size) {
		memcg = set_active_memcg(qp->memcg);
		new = kvcalloc(size * 2, sizeof(*new), GFP_KERNEL_ACCOUNT);
		set_active_memcg(memcg);
	}

	spin_lock_bh(&dp->lock);
	dp->req.tx_grow_queued = false;
	if (new && !dp->stopped && dp->req.txpkts &&
	    dp->req.tx_mask + 1 == size) {
		psn = (dp->req.psn_next - size) & MRC_PSN_MASK;
		for (i = 0; i < size; i++, psn = (psn + 1) & MRC_PSN_MASK)
			new[psn & (size * 2 - 1)] =
				dp->req.txpkts[psn & dp->req.tx_mask];
		old = dp->req.txpkts;
		dp->req.txpkts = new;
		dp->req.tx_mask = size * 2 - 1;
		new = NULL;
		mrc_counter_inc(qp->dev, MRC_CNT_TX_SPAN_GROWN);
		tasklet_schedule(&dp->task);
	}
	spin_unlock_bh(&dp->lock);
	kvfree(new);
	kvfree(old);
}

/* Exchange the QP's requester window state with @w's; dp.lock held. */
void mrc_req_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 size = dp->req.txpkts ? dp->req.tx_mask + 1 : 0;

	swap(dp->req.txpkts, w->txpkts);
	dp->req.tx_mask = w->tx_size - 1;
	w->tx_size = size;
}

/* RTR -> RTS: start sending at sq_psn.  Called with dp.lock held. */
void mrc_req_start(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	dp->req.psn_next = qp->attr.sq_psn;
	dp->req.una = dp->req.psn_next;
	dp->req.outstanding = 0;
	dp->req.sacked_high = dp->req.psn_next;
	dp->req.sq_fetch = qp->sq_cons;
	dp->req.seg_index = qp->sq_cons;
	dp->req.seg_off = 0;
	dp->req.msn_next = 1;
	dp->req.acked_msn = 0;
	dp->req.rqmsn_next = 1;
	/* Until the responder's first SACK says: the MPR we were told. */
	dp->req.peer_mpr = qp->mattr.mpr_units * MRC_MPR_UNIT;
	dp->req.wimm_inflight = 0;
	dp->req.fail_pending = false;
	dp->req.stall_cnt = 0;
	dp->rto.srtt_us = 0;
	dp->rto.rttvar_us = 0;
	dp->rto.timeout_us = MRC_RTO_INIT_US;
	dp->rto.fired = false;
	dp->rto.graced = false;
	dp->rto.ack_probe = false;
	dp->rto.retries = 0;
	dp->req.nresend = 0;
	mrc_rack_start(qp);
	mrc_cc_start(qp);
	memset(dp->req.txpkts, 0, (dp->req.tx_mask + 1) * sizeof(*dp->req.txpkts));
}

void mrc_req_kick(struct mrc_qp *qp)
{
	tasklet_schedule(&qp->dp.task);
}

/* Copy the next WQE from the ring and check it; false if none or bad. */
static bool mrc_req_fetch(struct mrc_qp *qp, enum ib_wc_status *status)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 room = qp->sq.entry_size - sizeof(struct mrc_send_wqe);
	struct mrc_send_wqe *wqe;
	struct mrc_swqe *sw;
	struct mrc_sge *sge;
	u64 total = 0;
	u32 i;

	*status = IB_WC_SUCCESS;
	/*
	 * What the process published, bounded by the ring counted from what
	 * the kernel has consumed: a slot whose WQE is still outstanding
	 * (fetched, not completed) is never fetched again, whatever the
	 * producer index says.
	 */
	if (dp->req.sq_fetch - qp->sq_cons >=
	    mrc_queue_pending(&qp->sq, qp->sq_cons))
		return false;
	wqe = mrc_queue_slot(&qp->sq, dp->req.sq_fetch);
	sw = mrc_swqe(qp, dp->req.sq_fetch);

	sw->wr_id = READ_ONCE(wqe->wr_id);
	sw->opcode = READ_ONCE(wqe->opcode);
	sw->flags = READ_ONCE(wqe->flags);
	sw->remote_addr = READ_ONCE(wqe->remote_addr);
	sw->rkey = READ_ONCE(wqe->rkey);
	sw->imm = READ_ONCE(wqe->imm_data);
	sw->num_sge = READ_ONCE(wqe->num_sge);
	dp->req.sq_fetch++;

	if (sw->opcode != MRC_WQE_RDMA_WRITE &&
	    sw->opcode != MRC_WQE_RDMA_WRITE_WITH_IMM)
		goto bad;
	if (sw->flags & MRC_WQE_INLINE) {
		sw->length = READ_ONCE(wqe->inline_len);
		if (sw->length > qp->cap.max_inline_data || sw->length > room)
			goto bad_len;
		memcpy(sw->data, wqe->sge, sw->length);
		sw->num_sge = 0;
	} else {
		if (sw->num_sge > qp->cap.max_send_sge)
			goto bad_len;
		memcpy(sw->data, wqe->sge, sw->num_sge * sizeof(*sge));
		sge = (struct mrc_sge *)sw->data;
		for (i = 0; i < sw->num_sge; i++)
			total += sge[i].length;
		if (total > MRC_MAX_MSG_SIZE)
			goto bad_len;
		sw->length = total;
	}
	return true;

bad_len:
	*status = IB_WC_LOC_LEN_ERR;
	return false;
bad:
	*status = IB_WC_LOC_QP_OP_ERR;
	return false;
}

/*
 * Gather @len bytes at @off of the message into @dst: exactly those, or
 * false (a bad SGE, or SGEs that do not cover them).
 */
static bool mrc_req_gather(struct mrc_qp *qp, struct mrc_swqe *sw, u32 off,
			   u8 *dst, u32 len)
{
	struct mrc_sge *sge = (struct mrc_sge *)sw->data;
	struct mrc_mr *mr;
	u32 i, n;

	if (off > sw->length || len > sw->length - off)
		return false;
	if (sw->flags & MRC_WQE_INLINE) {
		memcpy(dst, sw->data + off, len);
		return true;
	}
	for (i = 0; i < sw->num_sge && len; i++) {
		if (off >= sge[i].length) {
			off -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - off);
		mr = mrc_mr_lookup(qp->dev, sge[i].lkey);
		if (!mr || mr->ibmr.pd != qp->ibqp.pd ||
		    !mrc_mr_covers(mr, sge[i].addr + off, n))
			return false;
		mrc_mr_read(mr, sge[i].addr + off, dst, n);
		dst += n;
		len -= n;
		off = 0;
	}
	return !len;
}

static u8 mrc_req_opcode(struct mrc_swqe *sw, u32 off, u32 len)
{
	bool first = off == 0, last = off + len >= sw->length;
	bool imm = sw->opcode == MRC_WQE_RDMA_WRITE_WITH_IMM;

	if (first && last)
		return imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY;
	if (first)
		return MRC_OP_WRITE_FIRST;
	if (last)
		return imm ? MRC_OP_WRITE_LAST_IMM : MRC_OP_WRITE_LAST;
	return MRC_OP_WRITE_MIDDLE;
}

/*
 * PSNs from una on we may send: the responder accepts a PSN whose distance
 * from its cack_psn (una - 1) is below its MPR, so una + MPR - 1 is the
 * first PSN beyond its edge; and never more than the txpkts allocated at
 * RTS.
 */
static u32 mrc_req_span(struct mrc_qp_dp *dp)
{
	return min(dp->req.peer_mpr - 1, dp->req.tx_mask + 1);
}

/* New PSNs may go out as far as the span goes (the window decides too). */
static bool mrc_req_span_room(struct mrc_qp_dp *dp)
{
	return ((dp->req.psn_next - dp->req.una) & MRC_PSN_MASK) < mrc_req_span(dp);
}

/*
 * Once @psn (@tp, a first send) is out, no new packet may follow, for the
 * span or the congestion window: ask for a SACK.
 */
static bool psn_next_is_window_edge(struct mrc_qp *qp, u32 psn,
				    const struct mrc_txpkt *tp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	return ((psn + 1 - dp->req.una) & MRC_PSN_MASK) >= mrc_req_span(dp) ||
	       !mrc_cc_room(qp, tp->len, dp->req.outstanding + 1,
			    ib_mtu_enum_to_int(qp->attr.path_mtu));
}

/*
 * Every PSN sent is SACKed, yet sent WRs wait for their semantic ACK: it
 * was lost, or is late.  Only a repeat of a packet makes the responder
 * send it again.
 */
static bool mrc_req_awaits_ack(struct mrc_qp *qp)
{
	return qp->dp.req.una == qp->dp.req.psn_next &&
	       qp->sq_cons != qp->dp.req.seg_index;
}

/* Something sent is not yet acknowledged (SACKed, or the ACK it awaits). */
bool mrc_req_outstanding(struct mrc_qp *qp)
{
	return qp->dp.req.una != qp->dp.req.psn_next || mrc_req_awaits_ack(qp);
}

/*
 * Build (and queue) the packet of @psn, described by its txpkt.  Returns
 * 0, -ENOMEM (nothing changed: try again later) or -EFAULT (its WR cannot
 * be gathered and fails).
 */
static int mrc_req_build(struct mrc_qp *qp, u32 psn, bool rtx,
			 struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];
	struct mrc_swqe *sw = mrc_swqe(qp, tp->wqe_index);
	u8 op = mrc_req_opcode(sw, tp->offset, tp->len);
	unsigned int hlen = MRC_BTH_LEN + mrc_op_hdr_len(op, true);
	unsigned int pad = (MRC_PAD_ALIGN - tp->len % MRC_PAD_ALIGN) %
			   MRC_PAD_ALIGN;
	struct mrc_tseth *tseth;
	struct mrc_meth *meth;
	struct mrc_reth *reth;
	struct mrc_bth *bth;
	struct sk_buff *skb;
	u8 *p;

	skb = mrc_net_alloc_skb(qp, hlen + tp->len + pad);
	if (!skb)
		return -ENOMEM;
	p = skb->data;
	bth = (struct mrc_bth *)p;
	memset(bth, 0, MRC_BTH_LEN);
	bth->opcode = op;
	bth->flags = mrc_bth_flags(pad);
	bth->pkey = htons(MRC_DEFAULT_PKEY);
	mrc_put24(bth->dqpn, qp->attr.dest_qp_num);
	bth->ack_flags = MRC_BTH_TSH;
	if (rtx)
		bth->ack_flags |= MRC_BTH_RTX | MRC_BTH_ACKREQ;
	if (mrc_op_is_last(op) || (!rtx && psn_next_is_window_edge(qp, psn, tp)))
		bth->ack_flags |= MRC_BTH_ACKREQ;
	mrc_put24(bth->psn, psn);
	p += MRC_BTH_LEN;

	meth = (struct mrc_meth *)p;
	meth->rqmsn = htons(sw->rqmsn);
	meth->msn = htons(sw->msn & U16_MAX);
	p += MRC_METH_LEN;
	tseth = (struct mrc_tseth *)p;
	tseth->tx_ts = htons(mrc_ts_now());
	tseth->flags = mrc_ts_flags();
	p += MRC_TSETH_LEN;
	reth = (struct mrc_reth *)p;
	reth->va = cpu_to_be64(sw->remote_addr + tp->offset);
	reth->rkey = cpu_to_be32(sw->rkey);
	reth->dmalen = cpu_to_be32(sw->length);
	p += MRC_RETH_LEN;
	if (mrc_op_has_imm(op)) {
		((struct mrc_immdt *)p)->imm = sw->imm;
		p += MRC_IMMDT_LEN;
	}
	if (!mrc_req_gather(qp, sw, tp->offset, p, tp->len)) {
		kfree_skb(skb);
		mrc_comp_fail_wr(qp, tp->wqe_index, IB_WC_LOC_PROT_ERR);
		return -EFAULT;
	}
	memset(p + tp->len, 0, pad);

	/* A resend avoids the EV the lost copy went on. */
	tp->ev = mrc_ev_select(qp, rtx ? tp->ev : MRC_EV_NONE);
	tp->sent_us = mrc_now_us();
	dp->rack.last_send_us = tp->sent_us;
	mrc_counter_inc(qp->dev, MRC_CNT_TX_DATA_PKTS);
	if (rtx)
		mrc_counter_inc(qp->dev, MRC_CNT_RETRANSMITS);
	mrc_txq_add(txq, skb, &dp->ev.paths[tp->ev],
		    rtx ? mrc_param_dscp_retx : mrc_param_dscp_data, true);
	return 0;
}

/**
 * mrc_req_mark_lost - flag a PSN sent and not SACKed for resending
 * @qp: the QP, dp.lock held
 * @tp: the PSN's txpkt, neither SACKed nor flagged yet
 * @why: 0 (evidence: a NACK, later deliveries) or MRC_TXPKT_TIMER_FLAGS
 *
 * As TCP's pipe counts it, a PSN found lost is no longer in flight: the
 * window it held is free for its resend (or for new data), and only the
 * resend puts it back.  Without that a window full of losses (a receiver
 * that drops what it cannot take) would stay full until the RTO.
 */
void mrc_req_mark_lost(struct mrc_qp *qp, struct mrc_txpkt *tp, u8 why)
{
	tp->flags |= MRC_TXPKT_RESEND | why;
	qp->dp.req.nresend++;
	mrc_cc_gone(qp, tp->len);
}

/* @tp is no longer flagged for resending: back in flight, as if resent. */
static void mrc_req_unmark(struct mrc_qp *qp, struct mrc_txpkt *tp)
{
	tp->flags &= ~MRC_TXPKT_LOST_FLAGS;
	qp->dp.req.nresend--;
	mrc_cc_resent(qp, tp->len);
}

/*
 * Resend the PSNs flagged by the completer or the timer, oldest first, as
 * far as the window lets them (what it counts excludes them while they are
 * flagged).  The RTO's own resend goes whatever the window says: it is
 * what unsticks a window that nothing else frees.
 */
static int mrc_req_resend(struct mrc_qp *qp, int budget,
			  struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 psn;
	int err;

	for (psn = dp->req.una; dp->req.nresend && budget && psn != dp->req.psn_next &&
	     qp->state != IB_QPS_ERR; psn = (psn + 1) & MRC_PSN_MASK) {
		struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];

		if (!(tp->flags & MRC_TXPKT_RESEND))
			continue;
		if (dp->req.fail_pending &&
		    tp->wqe_index - qp->sq_cons >= dp->req.fail_index - qp->sq_cons) {
			/* Of the failed WR or after it: never completes. */
			mrc_req_unmark(qp, tp);
			continue;
		}
		if (!(tp->flags & MRC_TXPKT_BY_TIMER) &&
		    !mrc_cc_room(qp, 0, dp->req.outstanding - dp->req.nresend,
				 tp->len))
			break;
		err = mrc_req_build(qp, psn, true, txq);
		if (err == -ENOMEM) {
			/* Still flagged: resent once memory allows. */
			dp->req.tx_nomem = true;
			return budget;
		}
		if (err)
			continue;	/* its WR failed: never resent */
		mrc_counter_inc(qp->dev, tp->flags & MRC_TXPKT_TIMER_FLAGS ?
				MRC_CNT_TIMEOUT_RETRANSMITS :
				MRC_CNT_FAST_RETRANSMITS);
		mrc_req_unmark(qp, tp);
		tp->retries++;
		/* Until the responder's duplicate count says it was spurious. */
		if (dp->rack.rtx_unproven < MRC_MPR_MAX_PSNS)
			dp->rack.rtx_unproven++;
		budget--;
	}
	return budget;
}

/*
 * New work cannot go out for the span or the window (@cnt: the counter its
 * wait goes to); the first cause of a wait is the one counted.
 */
static void mrc_req_stall(struct mrc_qp_dp *dp, enum mrc_counter cnt)
{
	BUILD_BUG_ON(MRC_NUM_COUNTERS > U8_MAX);
	if (dp->req.stall_cnt)
		return;
	dp->req.stall_cnt = cnt;
	dp->req.stall_us = mrc_now_us();
}

/* A new packet went out: count the time it waited, if it did. */
static void mrc_req_unstall(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;

	if (!dp->req.stall_cnt)
		return;
	mrc_counter_add(qp->dev, dp->req.stall_cnt,
			mrc_now_us() - dp->req.stall_us);
	dp->req.stall_cnt = 0;
}

/* Segment new work into the window. */
static int mrc_req_send_new(struct mrc_qp *qp, int budget,
			    struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	enum ib_wc_status status;
	struct mrc_txpkt *tp;
	struct mrc_swqe *sw;
	bool imm;
	u32 len;
	int err;

	mrc_req_want_span(qp, mtu);
	while (budget && qp->state == IB_QPS_RTS) {
		if (!mrc_req_span_room(dp)) {
			/* A WR part sent: its next packet waits. */
			if (dp->req.seg_index != dp->req.sq_fetch)
				mrc_req_stall(dp, MRC_CNT_TX_SPAN_STALL_US);
			break;
		}
		if (dp->req.fail_pending && dp->req.seg_index == dp->req.fail_index)
			break;
		if (dp->req.seg_index == dp->req.sq_fetch) {
			if (!mrc_req_fetch(qp, &status)) {
				if (status != IB_WC_SUCCESS)
					mrc_comp_fail_wr(qp, dp->req.sq_fetch - 1,
							 status);
				break;
			}
		}
		sw = mrc_swqe(qp, dp->req.seg_index);
		imm = sw->opcode == MRC_WQE_RDMA_WRITE_WITH_IMM;
		if (dp->req.seg_off == 0) {
			/*
			 * The message's numbers, taken for good only once its
			 * first packet exists: an allocation that fails
			 * consumes no MSN the responder would wait for.
			 */
			if (imm && dp->req.wimm_inflight >= qp->mattr.max_wimm)
				break;
			sw->msn = dp->req.msn_next;
			sw->rqmsn = dp->req.rqmsn_next;
			sw->first_psn = dp->req.psn_next;
			sw->npkts = max(1U, DIV_ROUND_UP(sw->length, mtu));
		}
		len = min(mtu, sw->length - dp->req.seg_off);
		if (!mrc_cc_room(qp, 0, dp->req.outstanding, len)) {
			mrc_req_stall(dp, MRC_CNT_TX_WND_STALL_US);
			break;
		}
		tp = &dp->req.txpkts[dp->req.psn_next & dp->req.tx_mask];
		tp->wqe_index = dp->req.seg_index;
		tp->offset = dp->req.seg_off;
		tp->len = len;
		tp->flags = 0;
		tp->retries = 0;
		tp->ev = 0;
		err = mrc_req_build(qp, dp->req.psn_next, false, txq);
		if (err) {
			/* Out of memory: nothing taken, tried again later. */
			dp->req.tx_nomem = err == -ENOMEM;
			break;
		}
		if (dp->req.seg_off == 0) {
			dp->req.msn_next = (dp->req.msn_next + 1) & MRC_AETH_MSN_MASK;
			dp->req.rqmsn_next += imm;
			dp->req.wimm_inflight += imm;
		}
		dp->req.psn_next = (dp->req.psn_next + 1) & MRC_PSN_MASK;
		dp->req.outstanding++;
		mrc_req_unstall(qp);
		mrc_cc_sent(qp, tp->len);
		/* New data: a new flight, which a TLP may follow. */
		dp->rack.tlp_out = false;
		dp->rack.tlp_pending = false;
		dp->req.seg_off += tp->len;
		if (dp->req.seg_off >= sw->length) {
			dp->req.seg_index++;
			dp->req.seg_off = 0;
		}
		budget--;
	}
	return budget;
}

/*
 * A reliability probe: PETH on EV slot @slot, consuming no PSN (the BTH PSN
 * carries the probe id); the responder answers with a SACK with PR set.
 * @ev: it tests that EV for the state machine.
 */
static bool mrc_req_probe(struct mrc_qp *qp, u32 slot, bool ev,
			  struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_peth *peth;
	struct mrc_bth *bth;
	struct sk_buff *skb;

	skb = mrc_net_alloc_hdrs(qp, MRC_OP_PROBE, (u16)(dp->rto.probe_id + 1));
	if (!skb)
		return false;
	dp->rto.probe_id++;
	__assign_bit(dp->rto.probe_id % MRC_EV_PROBE_IDS, dp->ev.probe_ids, ev);
	bth = (struct mrc_bth *)skb->data;
	bth->ack_flags = MRC_BTH_ACKREQ;
	peth = (struct mrc_peth *)(bth + 1);
	peth->probe_id = htons(dp->rto.probe_id);
	peth->tx_ts = htons(mrc_ts_now());
	peth->ts_flags = mrc_ts_flags();
	mrc_counter_inc(qp->dev, MRC_CNT_PROBES_SENT);
	if (ev)
		mrc_counter_inc(qp->dev, MRC_CNT_EV_PROBES_SENT);
	else
		mrc_rack_probe_sent(qp, dp->rto.probe_id);
	/* Probes travel on the data class, not ECN-capable. */
	mrc_txq_add(txq, skb, &dp->ev.paths[slot], mrc_param_dscp_data, false);
	return true;
}

/* A probe on the ASSUMED_BAD EV in slot @slot; false if out of memory. */
bool mrc_req_ev_probe(struct mrc_qp *qp, u32 slot, struct sk_buff_head *txq)
{
	return mrc_req_probe(qp, slot, true, txq);
}

/* The timeout attribute (verbs' or MRC's) as a ceiling in us; 0: none. */
static u32 mrc_req_rto_ceiling_us(struct mrc_qp *qp)
{
	return min_t(u64, div_u64(qp->timeout_ns, MRC_NS_PER_US), U32_MAX);
}

/*
 * The RTO: srtt + 4 rttvar, floored, capped, doubled past retry_cnt (at
 * most retry_exp times), never beyond MRC_RTO_MAX_US.
 */
static u32 mrc_req_rto(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 ceil = mrc_req_rto_ceiling_us(qp);
	u32 rto = dp->rto.srtt_us ? dp->rto.srtt_us + 4 * dp->rto.rttvar_us :
		  MRC_RTO_INIT_US;
	u32 shift = 0;

	rto = max(rto, mrc_param_rto_min_us);
	if (ceil)
		rto = min(rto, max(ceil, mrc_param_rto_min_us));
	if (dp->rto.retries > qp->attr.retry_cnt)
		shift = min_t(u32, dp->rto.retries - qp->attr.retry_cnt,
			      qp->mattr.retry_exp);
	return min_t(u64, (u64)rto << min_t(u32, shift, BITS_PER_LONG / 2),
		     MRC_RTO_MAX_US);
}

void mrc_req_update_rto(struct mrc_qp *qp)
{
	qp->dp.rto.timeout_us = mrc_req_rto(qp);
}

/*
 * The timer only records that it expired; the tasklet decides, after the
 * receive processing that softirq order puts before it (TIMER runs before
 * NET_RX after a stall): a SACK already waiting then counts first.
 */
static void mrc_req_timeout(struct timer_list *t)
{
	struct mrc_qp *qp = from_timer(qp, t, dp.rto.timer);
	struct mrc_qp_dp *dp = &qp->dp;

	spin_lock_bh(&dp->lock);
	if (!dp->stopped) {
		dp->rto.fired = true;
		dp->rto.late = time_after(jiffies,
					  t->expires + MRC_RTO_LATE_JIFFIES);
		tasklet_schedule(&dp->task);
	}
	spin_unlock_bh(&dp->lock);
}

/*
 * The RTO expired on the oldest PSN: with a window in bytes (NSCC), every
 * other one unanswered as long is taken as lost too (TCP takes its whole
 * flight on an RTO) and leaves what the window counts, so that the
 * window, not one resend per RTO, paces their resends.  The fixed window
 * counts PSNs and never holds a resend back: there the SACKs alone find
 * the rest, and each loss they find marks its EV (a link cut is avoided
 * by the EVs it condemns, not resent into).  First sends go out in PSN
 * order: the first too young ends the walk.
 */
static void mrc_req_expire_flight(struct mrc_qp *qp, u32 now)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 psn;

	if (!mrc_cc_window(qp))
		return;
	for (psn = dp->req.una; psn != dp->req.psn_next;
	     psn = (psn + 1) & MRC_PSN_MASK) {
		struct mrc_txpkt *tp = &dp->req.txpkts[psn & dp->req.tx_mask];

		if (tp->flags & (MRC_TXPKT_SACKED | MRC_TXPKT_RESEND))
			continue;
		if (now - tp->sent_us < dp->rto.timeout_us) {
			if (!tp->retries)
				break;
			continue;
		}
		mrc_req_mark_lost(qp, tp, MRC_TXPKT_EXPIRED);
	}
}

/* Retransmission timeout, from the tasklet; dp.lock held. */
static void mrc_req_expire(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_txpkt *tp;
	u32 idle, now = mrc_now_us();

	dp->rto.fired = false;
	if (mrc_rack_tlp_due(qp, now))
		dp->rack.tlp_pending = true;
	if (mrc_req_awaits_ack(qp))
		tp = &dp->req.txpkts[(dp->req.psn_next - 1) & dp->req.tx_mask];
	else if (dp->req.una != dp->req.psn_next)
		tp = &dp->req.txpkts[dp->req.una & dp->req.tx_mask];
	else
		return;
	idle = now - tp->sent_us;
	if (idle < dp->rto.timeout_us) {
		mod_timer(&dp->rto.timer,
			  jiffies + usecs_to_jiffies(dp->rto.timeout_us - idle));
		return;
	}
	if (dp->rto.late && !dp->rto.graced) {
		dp->rto.graced = true;
		mod_timer(&dp->rto.timer,
			  jiffies + usecs_to_jiffies(dp->rto.timeout_us));
		return;
	}

	mrc_counter_inc(qp->dev, MRC_CNT_TIMEOUTS);
	/*
	 * The oldest PSN was sent and never SACKed: the EV it last went on
	 * is suspect.  (All SACKed and the ACK late says nothing of an EV.)
	 */
	if (dp->req.una != dp->req.psn_next && !(tp->flags & MRC_TXPKT_SACKED)) {
		mrc_ev_timeout(qp, tp->ev);
		mrc_cc_timeout(qp, tp->len);
	}
	dp->rto.retries++;
	if (qp->timeout_ns &&
	    qp->mattr.retry_exp != MRC_ABI_RETRY_EXP_FOREVER &&
	    dp->rto.retries > qp->attr.retry_cnt + qp->mattr.retry_exp) {
		mrc_counter_inc(qp->dev, MRC_CNT_RETRY_EXCEEDED);
		mrc_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
		return;
	}
	if (dp->req.una == dp->req.psn_next) {
		/* The last packet again: a duplicate the responder re-ACKs. */
		dp->rto.ack_probe = true;
	} else {
		/*
		 * Nothing new can go out while the window is stuck: ask the
		 * path with a probe too, which the responder answers even when
		 * it has all.
		 */
		dp->rto.probe_pending = true;
	}
	/*
	 * The earliest gap goes at once, window or not (already flagged, it
	 * may have waited for room that never came); the rest of what is
	 * as old when the window lets it.
	 */
	if (dp->req.una != dp->req.psn_next) {
		if (tp->flags & MRC_TXPKT_RESEND)
			tp->flags |= MRC_TXPKT_BY_TIMER;
		else if (!(tp->flags & MRC_TXPKT_SACKED))
			mrc_req_mark_lost(qp, tp, MRC_TXPKT_BY_TIMER);
		mrc_req_expire_flight(qp, now);
	}
	dp->rto.timeout_us = mrc_req_rto(qp);
	mod_timer(&dp->rto.timer, jiffies + usecs_to_jiffies(dp->rto.timeout_us));
}

static void mrc_req_task(struct tasklet_struct *t)
{
	struct mrc_qp *qp = from_tasklet(qp, t, dp.task);
	struct mrc_qp_dp *dp = &qp->dp;
	struct sk_buff_head txq;
	int budget = MRC_REQ_BUDGET;

	__skb_queue_head_init(&txq);
	spin_lock_bh(&dp->lock);
	if (dp->stopped || (qp->state != IB_QPS_RTS &&
			    qp->state != IB_QPS_SQD)) {
		spin_unlock_bh(&dp->lock);
		return;
	}
	if (dp->rto.fired) {
		mrc_req_expire(qp);
		/*
		 * The reorder timer is this one too: what time alone shows
		 * lost now (after the expiry's re-arming, which it may bring
		 * forward).
		 */
		if (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD) {
			mrc_rack_begin(qp);
			mrc_rack_detect_loss(qp);
		}
	}
	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_SQD) {
		spin_unlock_bh(&dp->lock);
		return;
	}
	dp->req.tx_nomem = false;
	budget = mrc_req_resend(qp, budget, &txq);
	if (!dp->req.tx_nomem)
		budget = mrc_req_send_new(qp, budget, &txq);
	if (dp->rto.probe_pending) {
		dp->rto.probe_pending = false;
		dp->rack.tlp_pending = false;
		mrc_req_probe(qp, mrc_ev_select(qp, MRC_EV_NONE), false, &txq);
	}
	if (dp->rack.tlp_pending) {
		/* The tail of the flight: its answer shows what is missing. */
		dp->rack.tlp_pending = false;
		if (mrc_req_probe(qp, mrc_ev_select(qp, MRC_EV_NONE), false, &txq)) {
			dp->rack.tlp_out = true;
			mrc_counter_inc(qp->dev, MRC_CNT_TLP_PROBES_SENT);
		}
	}
	if (dp->ev.due ||
	    ((dp->ev.parked || dp->ev.starved) && mrc_req_outstanding(qp)))
		mrc_ev_tick(qp, &txq);
	if (dp->rto.ack_probe) {
		dp->rto.ack_probe = false;
		if (mrc_req_awaits_ack(qp)) {
			mrc_counter_inc(qp->dev, MRC_CNT_TIMEOUT_RETRANSMITS);
			mrc_req_build(qp, (dp->req.psn_next - 1) & MRC_PSN_MASK, true,
				      &txq);
		}
	}
	if (dp->req.tx_nomem) {
		/* The timer's next tick runs us again (not spinning here). */
		mrc_counter_inc(qp->dev, MRC_CNT_TX_NOMEM);
		mod_timer(&dp->rto.timer, jiffies + 1);
	} else if ((dp->req.una != dp->req.psn_next || mrc_req_awaits_ack(qp)) &&
		   !timer_pending(&dp->rto.timer)) {
		mod_timer(&dp->rto.timer,
			  jiffies + usecs_to_jiffies(dp->rto.timeout_us));
	}
	if (!dp->req.tx_nomem)
		mrc_rack_arm_tlp(qp);
	spin_unlock_bh(&dp->lock);

	mrc_net_xmit_list(qp, &txq);
	if (!budget)
		tasklet_schedule(&dp->task);
}

void mrc_req_setup(struct mrc_qp *qp)
{
	tasklet_setup(&qp->dp.task, mrc_req_task);
	INIT_WORK(&qp->dp.tx_grow, mrc_req_tx_grow);
	timer_setup(&qp->dp.rto.timer, mrc_req_timeout, 0);
	mrc_ev_setup(qp);
}

/* Destroy: no more sending, no more timers.  Process context. */
void mrc_req_stop(struct mrc_qp *qp)
{
	spin_lock_bh(&qp->dp.lock);
	qp->dp.stopped = true;
	spin_unlock_bh(&qp->dp.lock);
	tasklet_kill(&qp->dp.task);
	cancel_work_sync(&qp->dp.tx_grow);
	del_timer_sync(&qp->dp.rto.timer);
	mrc_ev_stop(qp);
}
