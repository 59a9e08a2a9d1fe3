// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: completion queues.  The kernel produces CQEs into a ring the
 * provider polls without a system call; arming and events go through the
 * kernel.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "mrc.h"

/* Unconsumed CQEs, as far as the provider's (untrusted) index tells. */
static u32 mrc_cq_used(struct mrc_cq *cq)
{
	u32 used = cq->prod - mrc_index_read(&cq->queue.idx->cons);

	return min(used, cq->queue.num);
}

/*
 * The QPs of a CQ that overflowed go to error, as IB requires: from a
 * work item, since the posting QP's lock is held where it overflows and
 * the others' locks cannot be taken there.
 */
static void mrc_cq_err_work(struct work_struct *work)
{
	struct mrc_cq *cq = container_of(work, struct mrc_cq, err_work);
	struct mrc_dev *dev = to_mdev(cq->ibcq.device);
	unsigned long index = 0;
	struct mrc_qp *qp;

	while ((qp = mrc_qp_next(dev, &index))) {
		if (qp->ibqp.send_cq == &cq->ibcq ||
		    qp->ibqp.recv_cq == &cq->ibcq) {
			spin_lock_bh(&qp->dp.lock);
			if (!qp->dp.stopped && qp->state != IB_QPS_RESET)
				mrc_qp_error(qp);
			spin_unlock_bh(&qp->dp.lock);
		}
		mrc_qp_put(qp);
	}
}

/* The first completion that found the ring full: tell the consumer. */
static void mrc_cq_overflowed(struct mrc_cq *cq)
{
	mrc_counter_inc(to_mdev(cq->ibcq.device), MRC_CNT_CQ_OVERFLOWS);
	if (cq->ibcq.event_handler) {
		struct ib_event ev = {
			.device = cq->ibcq.device,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
	}
	schedule_work(&cq->err_work);
}

static int mrc_cq_check_size(struct mrc_dev *dev, int cqe)
{
	if (cqe < 1 || cqe > dev->attr.max_cqe)
		return -EINVAL;
	return 0;
}

int mrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibcq->device);
	struct mrc_ucontext *uctx = rdma_udata_to_drv_context(udata,
			struct mrc_ucontext, ibuc);
	struct mrc_cq *cq = to_mcq(ibcq);
	struct mrc_create_cq_resp resp = {};
	int err;

	/* Kernel consumers are not supported: rings are for userspace. */
	if (!uctx)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	err = mrc_cq_check_size(dev, attr->cqe);
	if (err)
		return err;

	err = mrc_obj_get(dev, MRC_OBJ_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	INIT_WORK(&cq->err_work, mrc_cq_err_work);
	/* One slot more than asked: a full ring still holds cqe entries. */
	err = mrc_queue_init(&cq->queue, attr->cqe + 1, sizeof(struct mrc_cqe));
	if (err)
		goto err_obj;
	err = mrc_queue_expose(&cq->queue, &uctx->ibuc, &resp.cq);
	if (err)
		goto err_queue;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_queue;

	cq->prod = 0;
	ibcq->cqe = cq->queue.num - 1;
	return 0;

err_queue:
	mrc_queue_cleanup(&cq->queue);
err_obj:
	mrc_obj_put(dev, MRC_OBJ_CQ);
	return err;
}

int mrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct mrc_cq *cq = to_mcq(ibcq);

	/* No QP uses it any more: nothing can post and overflow it. */
	cancel_work_sync(&cq->err_work);
	mrc_queue_cleanup(&cq->queue);
	mrc_obj_put(to_mdev(ibcq->device), MRC_OBJ_CQ);
	return 0;
}

int mrc_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibcq->device);
	struct mrc_ucontext *uctx = rdma_udata_to_drv_context(udata,
			struct mrc_ucontext, ibuc);
	struct mrc_cq *cq = to_mcq(ibcq);
	struct mrc_resize_cq_resp resp = {};
	struct mrc_queue old, q;
	unsigned long flags;
	u32 cons, used, i;
	int err;

	if (!uctx)
		return -EOPNOTSUPP;
	err = mrc_cq_check_size(dev, cqe);
	if (err)
		return err;

	err = mrc_queue_init(&q, cqe + 1, sizeof(struct mrc_cqe));
	if (err)
		return err;
	err = mrc_queue_expose(&q, &uctx->ibuc, &resp.cq);
	if (err)
		goto err_queue;

	spin_lock_irqsave(&cq->lock, flags);
	used = mrc_cq_used(cq);
	if (used > q.num - 1) {
		spin_unlock_irqrestore(&cq->lock, flags);
		err = -EINVAL;
		goto err_queue;
	}
	/* Carry the unpolled CQEs over, oldest first, to the new ring. */
	cons = cq->prod - used;
	for (i = 0; i < used; i++)
		memcpy(mrc_queue_slot(&q, i),
		       mrc_queue_slot(&cq->queue, cons + i),
		       sizeof(struct mrc_cqe));
	q.idx->cons = 0;
	mrc_index_publish(&q.idx->prod, used);
	old = cq->queue;
	cq->queue = q;
	cq->prod = used;
	ibcq->cqe = q.num - 1;
	spin_unlock_irqrestore(&cq->lock, flags);

	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	/*
	 * The old ring is gone either way; if the provider cannot learn of
	 * the new one it sees an empty CQ and the command fails.
	 */
	mrc_queue_cleanup(&old);
	return err;

err_queue:
	mrc_queue_cleanup(&q);
	return err;
}

/* Kernel CQs are never created (see mrc_create_cq), so nothing to poll. */
int mrc_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

int mrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct mrc_cq *cq = to_mcq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* A request for every completion overrides a solicited-only one. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && mrc_cq_used(cq))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * mrc_cq_post - add a completion and signal the consumer if armed
 * @cq: the CQ
 * @cqe: the completion
 * @solicited: whether it satisfies a solicited-only arm
 *
 * Any context.  Returns -EOVERFLOW when the ring is full: the completion
 * is lost, the CQ stays in error (reported once, IB_EVENT_CQ_ERR) and its
 * QPs go to error.
 */
int mrc_cq_post(struct mrc_cq *cq, const struct mrc_cqe *cqe, bool solicited)
{
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->overflow || mrc_cq_used(cq) >= cq->queue.num) {
		bool first = !cq->overflow;

		cq->overflow = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (first)
			mrc_cq_overflowed(cq);
		return -EOVERFLOW;
	}

	memcpy(mrc_queue_slot(&cq->queue, cq->prod), cqe, sizeof(*cqe));
	cq->prod++;
	mrc_index_publish(&cq->queue.idx->prod, cq->prod);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED && solicited)) {
		cq->notify = 0;
		fire = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (fire)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}
