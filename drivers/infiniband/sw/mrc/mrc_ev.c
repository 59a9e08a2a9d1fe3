// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the entropy values (EVs) of a QP and their states.
 *
 * First slice: the built-in EV set only (every EV GOOD).
 */
#include <linux/jhash.h>

#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"

/*
 * The QP's entropy values: distinct UDP source ports, spread per QP.  Set
 * when the path is known (INIT -> RTR): the responder's control packets
 * use them too.  Called with dp.lock held.
 */
void mrc_ev_qp_load(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 seed = jhash(qp->path.dgid.raw, sizeof(qp->path.dgid.raw),
			 qp->ibqp.qp_num);
	u32 step = jhash_2words(qp->ibqp.qp_num, qp->attr.dest_qp_num, seed);
	u32 i;

	/* An odd step visits every port of the power-of-two span once. */
	step |= 1;
	dp->nevs = clamp_t(u32, mrc_param_ev_count, 1, MRC_MAX_EV_COUNT);
	for (i = 0; i < dp->nevs; i++) {
		dp->evs[i].sport = MRC_EV_SPORT_BASE +
				   ((seed + i * step) % MRC_EV_SPORT_SPAN);
		dp->evs[i].flow = 0;
		dp->evs[i].port = MRC_PORT_NUM;
	}
	dp->ev_next = 0;
}

/* The QP's EV profile changed (array or DENIED set). */
void mrc_ev_qp_reload(struct mrc_qp *qp)
{
}

/* State of the EV in slot @slot of @qp, as a MRC_EV_STATE_* bit. */
u32 mrc_ev_qp_state(struct mrc_qp *qp, u32 slot)
{
	return MRC_EV_STATE_GOOD;
}

/* EVs @qp currently sends on. */
u32 mrc_ev_qp_usable(struct mrc_qp *qp)
{
	return READ_ONCE(qp->dp.nevs);
}

/* An endpoint EV probe towards @peer on @ev was answered. */
void mrc_ev_probe_ok(struct mrc_dev *dev, const union ib_gid *peer,
		     const struct mrc_path *ev)
{
}

/* @peer says its ports in @down_mask are down. */
void mrc_ev_peer_ports(struct mrc_dev *dev, const union ib_gid *peer,
		       u32 down_mask)
{
}
