// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: congestion control.  CC profiles, the controller's settings
 * that QPs are bound to (the state rule, the algorithm, the NSCC
 * parameters; requests come as struct mrc_cc_args, which mrc_nl_profile.c
 * parses), and what the requester asks and tells its QP's algorithm
 * (mrc_cc.h): "none" here, NSCC in mrc_nscc.c.
 */

#include <linux/bitfield.h>
#include <linux/slab.h>

#include "mrc.h"
#include "mrc_cc.h"
#include "mrc_hdr.h"
#include "mrc_profile.h"

#define CREATE_TRACE_POINTS
#include "mrc_trace.h"

/* Where each NSCC parameter sits in struct mrc_nscc_params. */
static const size_t mrc_nscc_off[MRC_NSCC_NPARAMS] = {
	[MRC_NSCC_DISABLE_QA] = offsetof(struct mrc_nscc_params, disable_qa),
	[MRC_NSCC_ADJUST_BYTES_THRESHOLD] =
		offsetof(struct mrc_nscc_params, adjust_bytes_threshold),
	[MRC_NSCC_ADJUST_PERIOD_THRESHOLD] =
		offsetof(struct mrc_nscc_params, adjust_period_threshold),
	[MRC_NSCC_BASE_RTT] = offsetof(struct mrc_nscc_params, base_rtt),
	[MRC_NSCC_ETA] = offsetof(struct mrc_nscc_params, eta),
	[MRC_NSCC_FI] = offsetof(struct mrc_nscc_params, fi),
	[MRC_NSCC_FI_SCALE] = offsetof(struct mrc_nscc_params, fi_scale),
	[MRC_NSCC_GAMMA] = offsetof(struct mrc_nscc_params, gamma),
	[MRC_NSCC_MAX_MD_JUMP] = offsetof(struct mrc_nscc_params, max_md_jump),
	[MRC_NSCC_MAX_CWND] = offsetof(struct mrc_nscc_params, max_cwnd),
	[MRC_NSCC_QA_GATE] = offsetof(struct mrc_nscc_params, qa_gate),
	[MRC_NSCC_QA_THRESHOLD] =
		offsetof(struct mrc_nscc_params, qa_threshold),
	[MRC_NSCC_TARGET_DELAY] =
		offsetof(struct mrc_nscc_params, target_delay),
};

static const char *const mrc_cc_algo_names[MRC_CC_NALGOS] = {
	[MRC_CC_ALGO_NONE] = "none",
	[MRC_CC_ALGO_NSCC] = "uet-1.0-nscc",
};

const char *mrc_cc_algo_name(u32 algo)
{
	return algo < MRC_CC_NALGOS ? mrc_cc_algo_names[algo] : "unknown";
}

/* The MRC_CC_ALGO_* of @name; MRC_CC_NALGOS when it names none. */
u32 mrc_cc_algo_lookup(const char *name)
{
	u32 i;

	for (i = 0; i < MRC_CC_NALGOS; i++)
		if (!strcmp(name, mrc_cc_algo_names[i]))
			return i;
	return MRC_CC_NALGOS;
}

/* NSCC parameter @i of @p. */
u32 *mrc_nscc_param(struct mrc_nscc_params *p, unsigned int i)
{
	return (u32 *)((u8 *)p + mrc_nscc_off[i]);
}

struct mrc_cc_profile *mrc_cc_find(struct mrc_ctl *ctl, u64 id)
{
	struct list_head *node = mrc_prof_find(&ctl->ccs, id);

	return node ? list_entry(node, struct mrc_cc_profile, node) : NULL;
}

/*
 * The request's NSCC parameters over those of @c: the first set a profile
 * gets must be whole; target-delay may not exceed qa-threshold.
 */
static int mrc_cc_merge_nscc(struct mrc_cc_args *args, struct mrc_cc_cfg *c)
{
	struct mrc_nscc_params n = c->nscc;
	unsigned int i;

	for (i = 0; i < MRC_NSCC_NPARAMS; i++) {
		if (args->nscc_given & BIT(i)) {
			*mrc_nscc_param(&n, i) = *mrc_nscc_param(&args->nscc, i);
		} else if (!c->has_nscc) {
			mrc_prof_refuse(&args->prof, MRC_CC_F_NSCC,
					"the first nscc nest must hold every parameter");
			args->prof.err.missing_part = 1 + i;
			return -EINVAL;
		}
	}
	if (n.target_delay > n.qa_threshold) {
		mrc_prof_refuse(&args->prof, MRC_CC_F_NSCC,
				"target-delay is above qa-threshold");
		if (args->nscc_given & BIT(MRC_NSCC_TARGET_DELAY))
			args->prof.err.part = 1 + MRC_NSCC_TARGET_DELAY;
		else if (args->nscc_given & BIT(MRC_NSCC_QA_THRESHOLD))
			args->prof.err.part = 1 + MRC_NSCC_QA_THRESHOLD;
		return -EINVAL;
	}
	c->nscc = n;
	c->has_nscc = true;
	return 0;
}

/* The first field of @args that changes the configuration, or 0. */
static u8 mrc_cc_change(const struct mrc_cc_args *args)
{
	if (args->has_algo)
		return MRC_CC_F_ALGO;
	if (args->has_nscc)
		return MRC_CC_F_NSCC;
	return MRC_PROF_F_NONE;
}

/*
 * What a CC profile's state allows a set request: deleted going to INIT
 * (returns 1: done), no new algorithm while ONLINE, leaving ONLINE, room
 * for a new one.
 */
static int mrc_cc_set_state(struct mrc_ctl *ctl, struct mrc_cc_profile *p,
			    u32 cur, u32 target, struct mrc_cc_args *args)
{
	u8 change = mrc_cc_change(args);

	if (target == MRC_PROFILE_STATE_INIT) {
		if (change) {
			mrc_prof_refuse(&args->prof, change,
					"a profile in or going to INIT takes no attributes");
			return -EINVAL;
		}
		if (p) {
			list_del(&p->node);
			ctl->nccs--;
			kfree(p);
		}
		return 1;
	}
	if (cur == MRC_PROFILE_STATE_ONLINE) {
		if (args->has_algo) {
			mrc_prof_refuse(&args->prof, MRC_CC_F_ALGO,
					"the algorithm cannot change while the profile is ONLINE");
			return -EINVAL;
		}
		if (target == MRC_PROFILE_STATE_OFFLINE)
			return mrc_prof_leave_online(&args->prof, p->qp_count,
						     ctl->def_cc == p);
	}
	if (!p && ctl->nccs >= MRC_CTL_MAX_CC_PROFILES) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_NONE,
				"the device has no room for another CC profile");
		return -ENOSPC;
	}
	return 0;
}

/* The configuration @c (the profile's, or empty) a set request makes. */
static int mrc_cc_set_cfg(struct mrc_cc_args *args, bool exists, u32 target,
			  struct mrc_cc_cfg *c)
{
	int err;

	if (args->has_algo) {
		if (args->algo >= MRC_CC_NALGOS) {
			mrc_prof_refuse(&args->prof, MRC_CC_F_ALGO,
					"unknown algorithm (uet-1.0-nscc or none)");
			return -EINVAL;
		}
		c->algo = args->algo;
	} else if (!exists) {
		mrc_prof_require(&args->prof, MRC_CC_F_ALGO,
				 "algorithm is required to leave INIT");
		return -EINVAL;
	}
	if (args->has_nscc) {
		err = mrc_cc_merge_nscc(args, c);
		if (err)
			return err;
	}
	if (target == MRC_PROFILE_STATE_ONLINE && c->algo == MRC_CC_ALGO_NSCC &&
	    !c->has_nscc) {
		mrc_prof_require(&args->prof, MRC_CC_F_NSCC,
				 "nscc parameters are required to go ONLINE");
		return -EINVAL;
	}
	return 0;
}

/*
 * Apply set request @args: whole, or not at all (on error, args->prof.err
 * says which field was refused).  Process context.
 */
int mrc_cc_set(struct mrc_dev *dev, struct mrc_cc_args *args)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_cc_profile *p;
	struct mrc_cc_cfg c = {};
	u32 cur, target;
	int err;

	mutex_lock(&ctl->lock);
	p = mrc_cc_find(ctl, args->prof.id);
	cur = p ? p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_prof_state_target(&args->prof, cur, &target) ?:
	      mrc_cc_set_state(ctl, p, cur, target, args);
	if (err)
		goto out;
	if (p)
		c = p->cfg;
	err = mrc_cc_set_cfg(args, p, target, &c);
	if (err)
		goto out;
	c.state = target;

	if (!p) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		p->id = args->prof.id;
		mrc_prof_insert(&ctl->ccs, &p->node);
		ctl->nccs++;
	}
	p->cfg = c;
out:
	mutex_unlock(&ctl->lock);
	return err < 0 ? err : 0;
}

/*
 * A copy of CC profile @id into *@info, or (@next) of the first whose id
 * is @id or above; -ENOENT when there is none (INIT).
 */
int mrc_cc_read(struct mrc_dev *dev, u64 id, bool next,
		struct mrc_cc_info *info)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct list_head *node;
	struct mrc_cc_profile *p;
	int err = -ENOENT;

	mutex_lock(&ctl->lock);
	node = next ? mrc_prof_next(&ctl->ccs, id) :
		      mrc_prof_find(&ctl->ccs, id);
	if (node) {
		p = list_entry(node, struct mrc_cc_profile, node);
		info->id = p->id;
		info->cfg = p->cfg;
		info->qp_count = p->qp_count;
		err = 0;
	}
	mutex_unlock(&ctl->lock);
	return err;
}

/* When the device goes: no QP is bound any more. */
void mrc_cc_free_all(struct mrc_ctl *ctl)
{
	struct mrc_cc_profile *c, *cn;

	list_for_each_entry_safe(c, cn, &ctl->ccs, node)
		kfree(c);
	INIT_LIST_HEAD(&ctl->ccs);
	ctl->nccs = 0;
}

/* "none": the fixed window of max_inflight packets. */
static bool mrc_cc_none_room(struct mrc_qp *qp, u32 bytes, u32 pkts, u32 len)
{
	return pkts < clamp_t(u32, READ_ONCE(mrc_param_max_inflight), 1,
			      MRC_MPR_MAX_PSNS);
}

static const struct mrc_cc_ops mrc_cc_none_ops = {
	.room = mrc_cc_none_room,
};

static bool mrc_param_nscc_default;
module_param_named(nscc_default, mrc_param_nscc_default, bool, 0644);
MODULE_PARM_DESC(nscc_default, "QPs with no CC profile run NSCC with parameters derived from the path, not the fixed window of max_inflight (default N)");

static unsigned int mrc_param_link_mbps = MRC_DEFAULT_LINK_MBPS;
module_param_named(link_mbps, mrc_param_link_mbps, uint, 0644);
MODULE_PARM_DESC(link_mbps, "Link speed (Mb/s) NSCC's derived parameters take for a port whose netdev reports none (default 10000)");

/* The speed a QP's packets can leave at: every port's (it sprays them). */
static u32 mrc_cc_link_mbps(struct mrc_dev *dev)
{
	u32 fallback = max(1U, READ_ONCE(mrc_param_link_mbps));
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < dev->nports; i++)
		sum += READ_ONCE(dev->ports[i].speed_mbps) ?: fallback;
	return min_t(u64, sum, U32_MAX);
}

/**
 * mrc_cc_start - RTR -> RTS: the algorithm of @qp's CC profile, fresh
 * @qp: the QP, dp.lock held
 *
 * A profile with algorithm none: the fixed window.  No profile: the fixed
 * window, or NSCC with derived parameters under nscc_default.
 */
void mrc_cc_start(struct mrc_qp *qp)
{
	struct mrc_qp_cc *cc = &qp->dp.cc;

	memset(cc, 0, sizeof(*cc));
	if (qp->cc_profile && qp->cc_profile->cfg.algo == MRC_CC_ALGO_NSCC) {
		cc->algo = MRC_CC_ALGO_NSCC;
		cc->ops = &mrc_nscc_ops;
	} else if (!qp->cc_profile && READ_ONCE(mrc_param_nscc_default)) {
		cc->algo = MRC_CC_ALGO_NSCC;
		cc->ops = &mrc_nscc_ops;
		cc->derived = true;
		cc->link_mbps = mrc_cc_link_mbps(qp->dev);
	} else {
		cc->algo = MRC_CC_ALGO_NONE;
		cc->ops = &mrc_cc_none_ops;
	}
	if (cc->ops->start)
		cc->ops->start(qp);
}

/*
 * May a new packet of @len payload bytes go out, with @pkts PSNs unSACKed
 * and @more payload bytes sent beyond what the window counts now (a
 * packet being built)?
 */
bool mrc_cc_room(struct mrc_qp *qp, u32 more, u32 pkts, u32 len)
{
	return qp->dp.cc.ops->room(qp, qp->dp.cc.bytes + more, pkts, len);
}

/* A first send of @len payload bytes. */
void mrc_cc_sent(struct mrc_qp *qp, u32 len)
{
	qp->dp.cc.bytes += len;
	qp->dp.cc.sent += len;
}

/* A PSN of @len payload bytes left flight: SACKed, or found lost. */
void mrc_cc_gone(struct mrc_qp *qp, u32 len)
{
	qp->dp.cc.bytes -= min(len, qp->dp.cc.bytes);
}

/* A PSN found lost is back in flight: resent (or no longer flagged). */
void mrc_cc_resent(struct mrc_qp *qp, u32 len)
{
	qp->dp.cc.bytes += len;
}

/**
 * mrc_cc_sack - a SACK that matched what @qp sent
 * @qp: the QP, dp.lock held
 * @rcv: its CC_STATE rcv word (host order)
 * @rtt_ns: the RTT it shows for a packet sent once; 0: none
 * @ecn: its trigger met congestion (M = SKIP_ONCE)
 *
 * The received-bytes counter may only move forward, and never past what
 * was sent: a SACK whose counter does otherwise (old, or forged) tells the
 * algorithm nothing (cc_bad_rcvd).
 */
void mrc_cc_sack(struct mrc_qp *qp, u32 rcv, u32 rtt_ns, bool ecn)
{
	struct mrc_qp_cc *cc = &qp->dp.cc;
	u32 units = FIELD_GET(MRC_CC_RCVD_BYTES, rcv);
	u32 mask = FIELD_MAX(MRC_CC_RCVD_BYTES);
	u32 sent = DIV_ROUND_UP_ULL(cc->sent, MRC_CC_RCVD_BYTES_UNIT) & mask;
	u32 delta = (units - cc->rcvd_units) & mask;
	struct mrc_cc_ack a = {
		.rtt_ns = rtt_ns,
		.penalty = FIELD_GET(MRC_CC_PEN, rcv),
		.ecn = ecn,
	};

	if (delta > ((sent - cc->rcvd_units) & mask)) {
		mrc_counter_inc(qp->dev, MRC_CNT_CC_BAD_RCVD);
		return;
	}
	cc->rcvd_units = units;
	a.newly = min_t(u64, (u64)delta * MRC_CC_RCVD_BYTES_UNIT, U32_MAX);
	cc->acked += a.newly;
	if (cc->ops->ack)
		cc->ops->ack(qp, &a);
}

/* A NACK TRIMMED (@lasthop: _LASTHOP) for a PSN of @len payload bytes. */
void mrc_cc_nack(struct mrc_qp *qp, u32 len, bool lasthop)
{
	if (qp->dp.cc.ops->nack)
		qp->dp.cc.ops->nack(qp, len, lasthop);
}

/* The RTO expired on a PSN of @len payload bytes. */
void mrc_cc_timeout(struct mrc_qp *qp, u32 len)
{
	if (qp->dp.cc.ops->timeout)
		qp->dp.cc.ops->timeout(qp, len);
}

/* The window in bytes, for qp-get; 0 with no algorithm keeping one. */
u32 mrc_cc_window(const struct mrc_qp *qp)
{
	return qp->dp.cc.algo == MRC_CC_ALGO_NSCC ? qp->dp.cc.nscc.cwnd : 0;
}
