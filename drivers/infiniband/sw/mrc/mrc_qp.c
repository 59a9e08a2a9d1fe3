// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: queue pairs.  Creation and the rings, the verbs state machine
 * (RESET -> INIT -> RTR -> RTS -> SQD / SQE / ERR) with the attributes each
 * transition carries, and flushing outstanding work on error.
 *
 * Work requests posted before the QP reaches RTS wait in the send queue;
 * RESET discards whatever is queued; ERR completes it with
 * IB_WC_WR_FLUSH_ERR, as does any WR posted while in ERR.
 */
#include <linux/etherdevice.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "mrc.h"
#include "mrc_hdr.h"

/* Send WQE slots are rounded to this, so a slot never straddles two lines. */
#define MRC_WQE_ALIGN		64

static u32 mrc_sq_entry_size(const struct ib_qp_cap *cap)
{
	u32 data = max_t(u32, cap->max_send_sge * sizeof(struct mrc_sge),
			 cap->max_inline_data);

	return ALIGN(sizeof(struct mrc_send_wqe) + data, MRC_WQE_ALIGN);
}

static u32 mrc_rq_entry_size(const struct ib_qp_cap *cap)
{
	return ALIGN(sizeof(struct mrc_recv_wqe) +
		     cap->max_recv_sge * sizeof(struct mrc_sge), MRC_WQE_ALIGN);
}

static int mrc_qp_check_init(struct mrc_dev *dev, struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (init->qp_type != IB_QPT_RC)
		return -EOPNOTSUPP;
	if (init->srq || init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > dev->attr.max_qp_wr ||
	    cap->max_recv_wr > dev->attr.max_qp_wr ||
	    cap->max_send_sge > dev->attr.max_send_sge ||
	    cap->max_recv_sge > dev->attr.max_recv_sge ||
	    cap->max_inline_data > MRC_MAX_INLINE_DATA)
		return -EINVAL;
	return 0;
}

/* Size the rings from the requested caps and report what was granted. */
static int mrc_qp_init_queues(struct mrc_qp *qp, struct ib_qp_init_attr *init)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 sq_size = mrc_sq_entry_size(cap);
	int err;

	err = mrc_queue_init(&qp->sq, max(cap->max_send_wr, 1U), sq_size);
	if (err)
		return err;
	err = mrc_queue_init(&qp->rq, max(cap->max_recv_wr, 1U),
			     mrc_rq_entry_size(cap));
	if (err) {
		mrc_queue_cleanup(&qp->sq);
		return err;
	}

	cap->max_send_wr = qp->sq.num;
	cap->max_recv_wr = qp->rq.num;
	cap->max_inline_data = min_t(u32, MRC_MAX_INLINE_DATA,
				     sq_size - sizeof(struct mrc_send_wqe));
	qp->cap = *cap;
	qp->sq_cons = 0;
	qp->rq_cons = 0;
	return 0;
}

/*
 * Copy a driver command of @len bytes from @udata; a shorter input leaves
 * the rest of @cmd as the caller set it (an older provider), a longer one
 * must be zero past what this driver knows (a newer provider asking for
 * something it does not have).
 */
static int mrc_udata_cmd(struct ib_udata *udata, void *cmd, size_t len)
{
	int err;

	err = ib_copy_from_udata(cmd, udata, min(udata->inlen, len));
	if (err)
		return err;
	if (udata->inlen > len &&
	    !ib_is_udata_cleared(udata, len, udata->inlen - len))
		return -EOPNOTSUPP;
	return 0;
}

/* The driver-specific input of create QP (profile binding), if any. */
static int mrc_qp_create_cmd(struct ib_udata *udata,
			     struct mrc_create_qp_cmd *cmd)
{
	int err;

	if (!udata->inlen)
		return 0;
	err = mrc_udata_cmd(udata, cmd, sizeof(*cmd));
	if (err)
		return err;
	if ((cmd->flags & ~MRC_CREATE_QP_BIND_PROFILES) || cmd->reserved)
		return -EOPNOTSUPP;
	return 0;
}

/* A new QP's MRC attributes: the device's defaults. */
static void mrc_qp_mattr_init(struct mrc_qp *qp)
{
	struct mrc_qp_mattr *m = &qp->mattr;
	u32 units = clamp_t(u32, READ_ONCE(mrc_param_mpr_units), 1,
			    MRC_MPR_MAX_UNITS);

	m->cap = 0;
	m->max_wimm = clamp_t(u32, READ_ONCE(mrc_param_max_wimm), 1,
			      MRC_ABI_MAX_WIMM);
	/* Receiving, as under plain verbs: as many as receives are posted. */
	m->max_wimm_dest = MRC_ABI_MAX_WIMM;
	m->mpr_units = units;
	m->mpr_dest_units = units;
	m->retry_exp = min_t(u32, READ_ONCE(mrc_param_exp_retries),
			     MRC_ABI_RETRY_EXP_FOREVER - 1);
	qp->timeout_ns = 0;
}

/*
 * What the create QP response reports: the QP's MRC attributes, and for
 * the timeout and linear retries (which verbs sets at RTS) the defaults
 * the MRC API applies when its caller names none.
 */
static void mrc_qp_mattr_report(struct mrc_qp *qp, struct mrc_qp_mrc_attr *a)
{
	const struct mrc_qp_mattr *m = &qp->mattr;

	a->ev_profile_id = qp->ev_profile_id;
	a->cc_profile_id = qp->cc_profile_id;
	a->cap = m->cap;
	a->max_wimm = m->max_wimm;
	a->max_wimm_dest = m->max_wimm_dest;
	a->mpr = m->mpr_units;
	a->mpr_dest = m->mpr_dest_units;
	a->timeout = MRC_API_DEFAULT_TIMEOUT;
	a->retry_linear = MRC_MAX_RETRY_CNT;
	a->retry_exp = m->retry_exp;
}

int mrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibqp->device);
	struct mrc_ucontext *uctx = rdma_udata_to_drv_context(udata,
			struct mrc_ucontext, ibuc);
	struct mrc_qp *qp = to_mqp(ibqp);
	struct mrc_create_qp_resp resp = {};
	struct mrc_create_qp_cmd cmd = {};
	u32 qpn;
	int err;

	/* Kernel consumers are not supported: rings are for userspace. */
	if (!uctx)
		return -EOPNOTSUPP;
	err = mrc_qp_create_cmd(udata, &cmd);
	if (err)
		return err;
	err = mrc_qp_check_init(dev, init);
	if (err)
		return err;

	err = mrc_obj_get(dev, MRC_OBJ_QP);
	if (err)
		return err;

	qp->dev = dev;
	refcount_set(&qp->ref, 1);
	init_completion(&qp->released);
	mutex_init(&qp->state_mutex);
	spin_lock_init(&qp->dp.lock);
	mrc_req_setup(qp);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	mrc_qp_mattr_init(qp);

	err = mrc_qp_init_queues(qp, init);
	if (err)
		goto err_obj;
	err = mrc_req_init(qp);
	if (err)
		goto err_queues;
	err = mrc_queue_expose(&qp->sq, &uctx->ibuc, &resp.sq);
	if (err)
		goto err_req;
	err = mrc_queue_expose(&qp->rq, &uctx->ibuc, &resp.rq);
	if (err)
		goto err_req;
	resp.max_inline_data = qp->cap.max_inline_data;

	/*
	 * Standard verbs: the device's default profiles; the provider
	 * extension: the profiles it names.
	 */
	err = mrc_profile_bind_qp(qp, cmd.ev_profile_id, cmd.cc_profile_id,
				  cmd.flags & MRC_CREATE_QP_BIND_PROFILES);
	if (err)
		goto err_req;

	/* Packets look QPs up in softirq: the lock is taken with BHs off. */
	err = xa_alloc_cyclic_bh(&dev->qp_xa, &qpn, qp,
				 XA_LIMIT(MRC_QPN_FIRST, MRC_QPN_MAX),
				 &dev->qpn_next, GFP_KERNEL);
	if (err < 0)
		goto err_unbind;
	ibqp->qp_num = qpn;

	mrc_qp_mattr_report(qp, &resp.attr);
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_qpn;
	return 0;

err_qpn:
	xa_erase_bh(&dev->qp_xa, qpn);
	mrc_qp_put(qp);
	wait_for_completion(&qp->released);
err_unbind:
	mrc_profile_unbind_qp(qp);
err_req:
	mrc_req_cleanup(qp);
err_queues:
	mrc_queue_cleanup(&qp->rq);
	mrc_queue_cleanup(&qp->sq);
err_obj:
	mrc_obj_put(dev, MRC_OBJ_QP);
	return err;
}

/* Take both windows' state out of @qp into @w (RESET, destroy). */
static void mrc_qp_win_take(struct mrc_qp *qp, struct mrc_qp_win *w)
{
	struct mrc_qp_dp *dp = &qp->dp;

	memset(w, 0, sizeof(*w));
	swap(dp->req.txpkts, w->txpkts);
	swap(dp->resp.rcv_bitmap, w->rcv_bitmap);
	swap(dp->resp.rmsgs, w->rmsgs);
	dp->req.tx_mask = 0;
	dp->resp.rcv_mask = 0;
}

int mrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	struct mrc_dev *dev = qp->dev;
	struct mrc_qp_win win = {};

	/*
	 * No packet or walker finds it any more; those that hold it finish
	 * with it first.  (A reference, not an RCU grace period: a process
	 * with many QPs exits in a blink.)
	 */
	xa_erase_bh(&dev->qp_xa, ibqp->qp_num);
	mrc_qp_put(qp);
	wait_for_completion(&qp->released);
	mrc_req_stop(qp);
	mrc_peer_put(dev, rcu_dereference_protected(qp->peer, true));
	mrc_profile_unbind_qp(qp);
	mrc_qp_win_take(qp, &win);
	mrc_qp_win_free(&win);
	mrc_req_cleanup(qp);
	mrc_queue_cleanup(&qp->rq);
	mrc_queue_cleanup(&qp->sq);
	mutex_destroy(&qp->state_mutex);
	mrc_obj_put(dev, MRC_OBJ_QP);
	return 0;
}

/**
 * mrc_qp_lookup - the QP @qpn of @dev, with a reference
 * @dev: the device
 * @qpn: the QP number
 *
 * Any context.  Returns NULL if there is none (or it is being destroyed);
 * else the caller drops the reference with mrc_qp_put().
 */
struct mrc_qp *mrc_qp_lookup(struct mrc_dev *dev, u32 qpn)
{
	struct mrc_qp *qp;

	xa_lock_bh(&dev->qp_xa);
	qp = xa_load(&dev->qp_xa, qpn);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	xa_unlock_bh(&dev->qp_xa);
	return qp;
}

/**
 * mrc_qp_next - walk the QPs of @dev
 * @dev: the device
 * @index: where to start (0 for the first); moved past the QP returned
 *
 * Returns the first live QP at or after *@index, with a reference the
 * caller drops (mrc_qp_put()), or NULL at the end.  Any context; no lock
 * is held between two steps.
 */
struct mrc_qp *mrc_qp_next(struct mrc_dev *dev, unsigned long *index)
{
	struct mrc_qp *qp;

	xa_lock_bh(&dev->qp_xa);
	for (qp = xa_find(&dev->qp_xa, index, ULONG_MAX, XA_PRESENT); qp;
	     qp = xa_find_after(&dev->qp_xa, index, ULONG_MAX, XA_PRESENT))
		if (refcount_inc_not_zero(&qp->ref))
			break;
	xa_unlock_bh(&dev->qp_xa);
	if (qp)
		(*index)++;
	return qp;
}

void mrc_qp_put(struct mrc_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* Entries the provider published that the kernel has not consumed yet. */
u32 mrc_queue_pending(struct mrc_queue *q, u32 cons)
{
	u32 n = mrc_index_read(&q->idx->prod) - cons;

	/* An index beyond the ring is the process's bug: take a full ring. */
	return min(n, q->num);
}

static void mrc_flush_one(struct mrc_qp *qp, struct mrc_cq *cq, u64 wr_id,
			  u32 opcode)
{
	struct mrc_cqe cqe = {
		.wr_id = wr_id,
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = opcode,
		.qp_num = qp->ibqp.qp_num,
	};

	mrc_cq_post(cq, &cqe, false);
}

/* Complete every queued send WQE with IB_WC_WR_FLUSH_ERR; dp.lock held. */
static void mrc_flush_sq(struct mrc_qp *qp)
{
	struct mrc_cq *cq = to_mcq(qp->ibqp.send_cq);
	u32 fetched = qp->dp.req.sq_fetch - qp->sq_cons;
	struct mrc_send_wqe *wqe;
	u64 wr_id;
	u32 n;

	qp->dp.req.seg_off = 0;
	/* What was fetched counts even if the process moved prod back. */
	n = max(mrc_queue_pending(&qp->sq, qp->sq_cons), fetched);
	for (; n; n--) {
		/* A WQE fetched already: its copy, not the ring's slot. */
		if (fetched) {
			wr_id = mrc_swqe(qp, qp->sq_cons)->wr_id;
			fetched--;
		} else {
			wqe = mrc_queue_slot(&qp->sq, qp->sq_cons);
			wr_id = READ_ONCE(wqe->wr_id);
		}
		/* Room first, then the completion that tells of it. */
		qp->sq_cons++;
		mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
		mrc_flush_one(qp, cq, wr_id, MRC_CQE_RDMA_WRITE);
	}
	qp->dp.req.sq_fetch = qp->sq_cons;
	qp->dp.req.seg_index = qp->sq_cons;
}

/* Complete every posted receive WQE with IB_WC_WR_FLUSH_ERR; dp.lock held. */
static void mrc_flush_rq(struct mrc_qp *qp)
{
	struct mrc_cq *cq = to_mcq(qp->ibqp.recv_cq);
	struct mrc_recv_wqe *wqe;
	u64 wr_id;
	u32 n;

	for (n = mrc_queue_pending(&qp->rq, qp->rq_cons); n; n--) {
		wqe = mrc_queue_slot(&qp->rq, qp->rq_cons);
		wr_id = READ_ONCE(wqe->wr_id);
		qp->rq_cons++;
		mrc_index_publish(&qp->rq.idx->cons, qp->rq_cons);
		mrc_flush_one(qp, cq, wr_id, MRC_CQE_RECV);
	}
}

/* RESET: drop whatever is queued, without completions.  dp.lock held. */
static void mrc_qp_discard(struct mrc_qp *qp)
{
	qp->sq_cons += mrc_queue_pending(&qp->sq, qp->sq_cons);
	qp->dp.req.sq_fetch = qp->sq_cons;
	qp->dp.req.seg_index = qp->sq_cons;
	qp->dp.req.seg_off = 0;
	mrc_index_publish(&qp->sq.idx->cons, qp->sq_cons);
	qp->rq_cons += mrc_queue_pending(&qp->rq, qp->rq_cons);
	mrc_index_publish(&qp->rq.idx->cons, qp->rq_cons);
}

static void mrc_qp_event(struct mrc_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* A completion of @qp (dp.lock held); a CQ that overflows errors it. */
void mrc_qp_post_cqe(struct mrc_qp *qp, bool send, struct mrc_cqe *cqe)
{
	if (mrc_cq_post(to_mcq(send ? qp->ibqp.send_cq : qp->ibqp.recv_cq),
			cqe, false))
		mrc_qp_error(qp);
}

/**
 * mrc_qp_error - the driver moves @qp to the error state
 * @qp: the QP, dp.lock held
 *
 * Flushes both queues and tells the consumer (IB_EVENT_QP_FATAL).
 */
void mrc_qp_error(struct mrc_qp *qp)
{
	if (qp->state == IB_QPS_ERR)
		return;
	qp->state = IB_QPS_ERR;
	mrc_flush_sq(qp);
	mrc_flush_rq(qp);
	mrc_qp_event(qp, IB_EVENT_QP_FATAL);
}

/* Check and translate the address vector of INIT -> RTR into @path. */
static int mrc_qp_set_path(struct mrc_qp *qp, const struct rdma_ah_attr *ah,
			   struct mrc_qp_path *path)
{
	const struct ib_gid_attr *sgid_attr = ah->grh.sgid_attr;
	bool dgid_v4, sgid_v4;

	if (ah->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah) & IB_AH_GRH) || !sgid_attr)
		return -EINVAL;
	if (sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	path->net_type = rdma_gid_attr_network_type(sgid_attr);
	dgid_v4 = ipv6_addr_v4mapped((const struct in6_addr *)ah->grh.dgid.raw);
	sgid_v4 = path->net_type == RDMA_NETWORK_IPV4;
	if (dgid_v4 != sgid_v4)
		return -EINVAL;

	path->ah_attr = *ah;
	path->ah_attr.grh.sgid_attr = NULL;
	path->dgid = ah->grh.dgid;
	path->sgid = sgid_attr->gid;
	ether_addr_copy(path->dmac, ah->roce.dmac);
	return 0;
}

/*
 * The smallest MTU of the device's port netdevs.  A QP sprays over every
 * port, so its packets must fit each of them; a port that is down or
 * admin-disabled counts too, since the QP's traffic returns to it when it
 * comes back.
 */
static unsigned int mrc_qp_dev_mtu(struct mrc_dev *dev)
{
	unsigned int mtu = UINT_MAX;
	u32 i;

	for (i = 0; i < dev->nports; i++)
		mtu = min(mtu, READ_ONCE(dev->ports[i].ndev->mtu));
	return mtu;
}

/* Check the values of the attributes in @mask; nothing is changed. */
static int mrc_qp_check_attr(struct mrc_qp *qp, const struct ib_qp_attr *attr,
			     int mask)
{
	if (mask & (IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE))
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && attr->port_num != MRC_PORT_NUM)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= MRC_PKEY_TBL_LEN)
		return -EINVAL;
	if (mask & IB_QP_PATH_MTU) {
		if (attr->path_mtu < IB_MTU_256 || attr->path_mtu > MRC_MAX_IB_MTU)
			return -EINVAL;
		if (ib_mtu_enum_to_int(attr->path_mtu) + MRC_MAX_DATA_OVERHEAD >
		    mrc_qp_dev_mtu(qp->dev))
			return -EINVAL;
	}
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > MRC_QPN_MAX)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > MRC_MAX_TIMEOUT)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > MRC_MAX_RETRY_CNT)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > MRC_MAX_RNR_RETRY)
		return -EINVAL;
	return 0;
}

#define MRC_MODIFY_QP_ALL	(MRC_MODIFY_QP_PROFILES | MRC_MODIFY_QP_CAP | \
				 MRC_MODIFY_QP_MAX_WIMM | \
				 MRC_MODIFY_QP_MAX_WIMM_DEST | MRC_MODIFY_QP_MPR | \
				 MRC_MODIFY_QP_MPR_DEST | MRC_MODIFY_QP_TIMEOUT | \
				 MRC_MODIFY_QP_RETRY)
#define MRC_QP_CAP_ALL		(MRC_ABI_QP_CAP_NO_TRIM_NACK | MRC_ABI_QP_CAP_NO_SVC_TIME)
/* What the receive window is made from at INIT -> RTR. */
#define MRC_MODIFY_QP_RESP_WIN	(MRC_MODIFY_QP_MPR_DEST | \
				 MRC_MODIFY_QP_MAX_WIMM_DEST)

/* The driver-specific input of modify QP (MRC attributes), if any. */
static int mrc_qp_modify_cmd(struct ib_udata *udata,
			     struct mrc_modify_qp_cmd *cmd)
{
	int err;

	memset(cmd, 0, sizeof(*cmd));
	if (!udata || !udata->inlen)
		return 0;
	err = mrc_udata_cmd(udata, cmd, sizeof(*cmd));
	if (err)
		return err;
	if (cmd->mask & ~MRC_MODIFY_QP_ALL)
		return -EOPNOTSUPP;
	if (cmd->reserved ||
	    memchr_inv(cmd->attr.reserved, 0, sizeof(cmd->attr.reserved)))
		return -EINVAL;
	return 0;
}

static bool mrc_in_range(u32 v, u32 lo, u32 hi)
{
	return v >= lo && v <= hi;
}

/*
 * May the MRC attributes of @cmd change on the way from @cur to @next
 * (<rdma/mrc-abi.h> says when), and are their values in range?
 */
static int mrc_qp_check_mattr(const struct mrc_modify_qp_cmd *cmd,
			      enum ib_qp_state cur, enum ib_qp_state next)
{
	const struct mrc_qp_mrc_attr *a = &cmd->attr;
	u32 mask = cmd->mask;

	if (!mask)
		return 0;
	if ((mask & MRC_MODIFY_QP_CAP) && (a->cap & ~MRC_QP_CAP_ALL))
		return -EOPNOTSUPP;
	if (cur > IB_QPS_RTR ||
	    ((mask & MRC_MODIFY_QP_RESP_WIN) && cur > IB_QPS_INIT) ||
	    ((mask & MRC_MODIFY_QP_PROFILES) &&
	     (cur > IB_QPS_INIT || next != IB_QPS_INIT)))
		return -EINVAL;
	if (((mask & MRC_MODIFY_QP_MPR) &&
	     !mrc_in_range(a->mpr, 1, MRC_ABI_MAX_MPR_UNITS)) ||
	    ((mask & MRC_MODIFY_QP_MPR_DEST) &&
	     !mrc_in_range(a->mpr_dest, 1, MRC_ABI_MAX_MPR_UNITS)) ||
	    ((mask & MRC_MODIFY_QP_MAX_WIMM) &&
	     !mrc_in_range(a->max_wimm, 1, MRC_ABI_MAX_WIMM)) ||
	    ((mask & MRC_MODIFY_QP_MAX_WIMM_DEST) &&
	     !mrc_in_range(a->max_wimm_dest, 1, MRC_ABI_MAX_WIMM)) ||
	    ((mask & MRC_MODIFY_QP_TIMEOUT) &&
	     a->timeout > MRC_ABI_MAX_TIMEOUT) ||
	    ((mask & MRC_MODIFY_QP_RETRY) &&
	     (a->retry_linear > MRC_ABI_MAX_RETRY_LINEAR ||
	      a->retry_exp > MRC_ABI_RETRY_EXP_FOREVER)))
		return -EINVAL;
	return 0;
}

/* Record the MRC attributes of @cmd, after the verbs ones; dp.lock held. */
static void mrc_qp_store_mattr(struct mrc_qp *qp,
			       const struct mrc_modify_qp_cmd *cmd)
{
	const struct mrc_qp_mrc_attr *a = &cmd->attr;
	struct mrc_qp_mattr *m = &qp->mattr;
	u32 mask = cmd->mask;

	if (mask & MRC_MODIFY_QP_CAP)
		m->cap = a->cap;
	if (mask & MRC_MODIFY_QP_MAX_WIMM)
		m->max_wimm = a->max_wimm;
	if (mask & MRC_MODIFY_QP_MAX_WIMM_DEST)
		m->max_wimm_dest = a->max_wimm_dest;
	if (mask & MRC_MODIFY_QP_MPR)
		m->mpr_units = a->mpr;
	if (mask & MRC_MODIFY_QP_MPR_DEST)
		m->mpr_dest_units = a->mpr_dest;
	if (mask & MRC_MODIFY_QP_TIMEOUT)
		qp->timeout_ns = a->timeout ?
			(u64)MRC_API_TIMEOUT_BASE_NS << a->timeout : 0;
	if (mask & MRC_MODIFY_QP_RETRY) {
		qp->attr.retry_cnt = a->retry_linear;
		m->retry_exp = a->retry_exp;
	}
}

/* Record the attributes of @mask.  RD atomic depths are kept, not used. */
static void mrc_qp_store_attr(struct mrc_qp *qp, const struct ib_qp_attr *attr,
			      int mask)
{
	struct ib_qp_attr *cur = &qp->attr;

	if (mask & IB_QP_ACCESS_FLAGS)
		cur->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		cur->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		cur->port_num = attr->port_num;
	if (mask & IB_QP_PATH_MTU)
		cur->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		cur->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		cur->rq_psn = attr->rq_psn & MRC_PSN_MASK;
	if (mask & IB_QP_SQ_PSN)
		cur->sq_psn = attr->sq_psn & MRC_PSN_MASK;
	if (mask & IB_QP_TIMEOUT) {
		cur->timeout = attr->timeout;
		qp->timeout_ns = attr->timeout ?
			(u64)MRC_VERBS_TIMEOUT_BASE_NS << attr->timeout : 0;
	}
	if (mask & IB_QP_RETRY_CNT)
		cur->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		cur->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		cur->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = attr->en_sqd_async_notify;
}

/*
 * What entering state @next from @cur does; dp.lock held, qp->state
 * already @next.  @win: the windows' state allocated for the transition,
 * swapped in (or, in RESET, what the QP held is handed back in it).
 */
static void mrc_qp_enter(struct mrc_qp *qp, enum ib_qp_state cur,
			 enum ib_qp_state next, struct mrc_qp_win *win)
{
	switch (next) {
	case IB_QPS_RESET:
		mrc_qp_discard(qp);
		/* Nothing reads the windows in RESET: given back below. */
		mrc_qp_win_free(win);
		mrc_qp_win_take(qp, win);
		break;
	case IB_QPS_RTR:
		if (cur == IB_QPS_INIT) {
			mrc_resp_win_swap(qp, win);
			mrc_ev_qp_load(qp);
			mrc_resp_start(qp);
		}
		break;
	case IB_QPS_RTS:
		if (cur == IB_QPS_RTR) {
			mrc_req_win_swap(qp, win);
			mrc_req_start(qp);
		}
		mrc_req_update_rto(qp);
		break;
	case IB_QPS_SQD:
		if (cur != IB_QPS_SQD && qp->attr.en_sqd_async_notify &&
		    qp->dp.req.una == qp->dp.req.psn_next)
			mrc_qp_event(qp, IB_EVENT_SQ_DRAINED);
		break;
	case IB_QPS_ERR:
		mrc_flush_sq(qp);
		mrc_flush_rq(qp);
		break;
	default:
		break;
	}
}

int mrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct mrc_qp *qp = to_mqp(ibqp);
	struct mrc_peer *new_peer = NULL, *old_peer = NULL;
	struct mrc_modify_qp_cmd cmd;
	struct mrc_qp_win win = {};
	enum ib_qp_state cur, next;
	struct mrc_qp_path path;
	u32 mpr_dest;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	err = mrc_qp_modify_cmd(udata, &cmd);
	if (err)
		return err;

	mutex_lock(&qp->state_mutex);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;

	err = -EINVAL;
	if (cur != qp->state ||
	    !ib_modify_qp_is_ok(cur, next, IB_QPT_RC, mask))
		goto out;
	err = mrc_qp_check_attr(qp, attr, mask);
	if (!err)
		err = mrc_qp_check_mattr(&cmd, cur, next);
	if (err)
		goto out;
	if (mask & IB_QP_AV) {
		err = mrc_qp_set_path(qp, &attr->ah_attr, &path);
		if (err)
			goto out;
		/* The peer's entry: what it reports of itself reaches us. */
		new_peer = mrc_peer_get(qp->dev, &path.dgid);
		if (IS_ERR(new_peer)) {
			err = PTR_ERR(new_peer);
			new_peer = NULL;
			goto out;
		}
	}
	/* The windows' state, sized now, charged to the caller's cgroup. */
	mpr_dest = (cmd.mask & MRC_MODIFY_QP_MPR_DEST) ? cmd.attr.mpr_dest :
		   qp->mattr.mpr_dest_units;
	if (cur == IB_QPS_INIT && next == IB_QPS_RTR)
		err = mrc_resp_win_alloc(&win, mpr_dest);
	else if (cur == IB_QPS_RTR && next == IB_QPS_RTS)
		err = mrc_req_win_alloc(&win);
	if (err)
		goto out;
	/* Last of what may fail: nothing reads the profiles before RTR. */
	if (cmd.mask & MRC_MODIFY_QP_PROFILES) {
		err = mrc_profile_bind_qp(qp, cmd.attr.ev_profile_id,
					  cmd.attr.cc_profile_id, true);
		if (err)
			goto out;
	}

	/*
	 * The tasklet and the receive path read the path and the attributes
	 * under dp.lock: they change under it, all at once, or not at all.
	 */
	spin_lock_bh(&qp->dp.lock);
	/* The data path may have moved it to error meanwhile. */
	if (qp->state != cur && next != IB_QPS_ERR && next != IB_QPS_RESET) {
		spin_unlock_bh(&qp->dp.lock);
		err = -EINVAL;
		goto out;
	}
	if (new_peer || next == IB_QPS_RESET) {
		old_peer = rcu_replace_pointer(qp->peer, new_peer,
					       lockdep_is_held(&qp->dp.lock));
		new_peer = NULL;
	}
	if (mask & IB_QP_AV)
		qp->path = path;
	mrc_qp_store_attr(qp, attr, mask);
	mrc_qp_store_mattr(qp, &cmd);
	/* A new path in SQD: the EVs (built from the path) follow it. */
	if ((mask & IB_QP_AV) && cur >= IB_QPS_RTR && next >= IB_QPS_RTR &&
	    next != IB_QPS_ERR)
		mrc_ev_qp_load(qp);
	qp->state = next;
	mrc_qp_enter(qp, cur, next, &win);
	spin_unlock_bh(&qp->dp.lock);
	if (next == IB_QPS_RTS)
		mrc_req_kick(qp);
out:
	mutex_unlock(&qp->state_mutex);
	/* The peer entry not taken, or the one left; the same of windows. */
	mrc_peer_put(qp->dev, new_peer);
	mrc_peer_put(qp->dev, old_peer);
	mrc_qp_win_free(&win);
	return err;
}

int mrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct mrc_qp *qp = to_mqp(ibqp);

	mutex_lock(&qp->state_mutex);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = qp->cap;
	attr->ah_attr = qp->path.ah_attr;
	attr->sq_draining = 0;
	mutex_unlock(&qp->state_mutex);

	memset(init, 0, sizeof(*init));
	init->qp_type = IB_QPT_RC;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

/*
 * The doorbell.  The provider writes WQEs into the mapped ring and then
 * posts an empty list; kernel consumers cannot create QPs here.
 */
int mrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct mrc_qp *qp = to_mqp(ibqp);

	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_bh(&qp->dp.lock);
	if (qp->state == IB_QPS_ERR)
		mrc_flush_sq(qp);
	else if (qp->state == IB_QPS_RTS)
		mrc_req_kick(qp);
	spin_unlock_bh(&qp->dp.lock);
	return 0;
}

int mrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct mrc_qp *qp = to_mqp(ibqp);

	if (wr) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_bh(&qp->dp.lock);
	if (qp->state == IB_QPS_ERR)
		mrc_flush_rq(qp);
	spin_unlock_bh(&qp->dp.lock);
	return 0;
}
