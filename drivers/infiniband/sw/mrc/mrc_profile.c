// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the controller's object model, what its profiles share: the
 * lists sorted by id, the profile state rule (INIT, OFFLINE, ONLINE), the
 * device's defaults, and the binding of QPs to profiles
 * (Documentation/mrc/netlink.rst).  The profiles themselves are in
 * mrc_fmt.c, mrc_ev_profile.c and mrc_cc.c; the netlink side in
 * mrc_nl_profile.c.
 *
 * Every change runs under ctl->lock (a mutex) and is built on a copy of
 * the profile's configuration: everything a request asks is checked before
 * anything is applied.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "mrc.h"
#include "mrc_profile.h"

/* --- lookups --------------------------------------------------------------- */

/*
 * The lists of profiles are sorted by id.  Every profile struct starts
 * with its list node and its id (BUILD_BUG_ON in mrc_profile_dev_init).
 */
struct mrc_prof_head {
	struct list_head node;
	u64 id;
};

struct list_head *mrc_prof_find(struct list_head *head, u64 id)
{
	struct mrc_prof_head *p;

	list_for_each_entry(p, head, node) {
		if (p->id == id)
			return &p->node;
	}
	return NULL;
}

/* The first profile of @head whose id is @id or above, or NULL. */
struct list_head *mrc_prof_next(struct list_head *head, u64 id)
{
	struct mrc_prof_head *p;

	list_for_each_entry(p, head, node) {
		if (p->id >= id)
			return &p->node;
	}
	return NULL;
}

void mrc_prof_insert(struct list_head *head, struct list_head *node)
{
	struct mrc_prof_head *new = list_entry(node, struct mrc_prof_head, node);
	struct mrc_prof_head *p;

	list_for_each_entry(p, head, node) {
		if (p->id > new->id) {
			list_add_tail(node, &p->node);
			return;
		}
	}
	list_add_tail(node, head);
}

/*
 * The state set request @args moves a profile in state @cur to, in
 * *@target: checks cur-state and that the move is an arrow of the state
 * machine.
 */
int mrc_prof_state_target(struct mrc_prof_args *args, u32 cur, u32 *target)
{
	u32 t;

	if (args->has_cur_state && args->cur_state != cur) {
		mrc_prof_refuse(args, MRC_PROF_F_CUR_STATE,
				"the profile is not in cur-state");
		return -EINVAL;
	}
	t = args->has_state ? args->state : cur;
	if ((cur == MRC_PROFILE_STATE_INIT && t == MRC_PROFILE_STATE_ONLINE) ||
	    (cur == MRC_PROFILE_STATE_ONLINE && t == MRC_PROFILE_STATE_INIT)) {
		mrc_prof_refuse(args, MRC_PROF_F_STATE,
				"no such transition: INIT and ONLINE go through OFFLINE");
		return -EINVAL;
	}
	*target = t;
	return 0;
}

/*
 * May a profile bound to @qp_count QPs, the device's default or not, go
 * from ONLINE to OFFLINE, as @args asks?
 */
int mrc_prof_leave_online(struct mrc_prof_args *args, u32 qp_count,
			  bool is_default)
{
	if (qp_count) {
		mrc_prof_refuse(args, MRC_PROF_F_STATE,
				"QPs are bound to the profile");
		return -EBUSY;
	}
	if (is_default) {
		mrc_prof_refuse(args, MRC_PROF_F_STATE,
				"the profile is the device's default");
		return -EBUSY;
	}
	return 0;
}

/* --- device -------------------------------------------------------------------- */

/*
 * An EV profile a QP or a default may use: ONLINE, not SRv6.  A refusal
 * points at @field of @args (which may be NULL: no message).
 */
static int mrc_ev_usable(struct mrc_ctl *ctl, u64 id,
			 struct mrc_ev_profile **pp, struct mrc_dev_args *args,
			 u8 field)
{
	struct mrc_ev_profile *p;

	*pp = NULL;
	if (!id)
		return 0;
	p = mrc_evp_find(ctl, id);
	if (!p) {
		if (args)
			mrc_prof_refuse(args, field, "the EV profile is in INIT");
		return -ENOENT;
	}
	if (p->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		if (args)
			mrc_prof_refuse(args, field,
					"the EV profile is not ONLINE");
		return -EINVAL;
	}
	if (mrc_evp_is_srv6(p)) {
		if (args)
			mrc_prof_refuse(args, field,
					"SRv6 EV profiles cannot be used yet");
		return -EOPNOTSUPP;
	}
	*pp = p;
	return 0;
}

static int mrc_cc_usable(struct mrc_ctl *ctl, u64 id,
			 struct mrc_cc_profile **pp, struct mrc_dev_args *args,
			 u8 field)
{
	struct mrc_cc_profile *p;

	*pp = NULL;
	if (!id)
		return 0;
	p = mrc_cc_find(ctl, id);
	if (!p) {
		if (args)
			mrc_prof_refuse(args, field, "the CC profile is in INIT");
		return -ENOENT;
	}
	if (p->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		if (args)
			mrc_prof_refuse(args, field,
					"the CC profile is not ONLINE");
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

/* The device's defaults as @args sets them: all, or none. */
int mrc_profile_dev_set(struct mrc_dev *dev, struct mrc_dev_args *args)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_ev_profile *evp = NULL;
	struct mrc_cc_profile *ccp = NULL;
	int err = 0;

	mutex_lock(&ctl->lock);
	if (args->has_def_ev) {
		err = mrc_ev_usable(ctl, args->def_ev, &evp, args,
				    MRC_DEV_F_DEF_EV);
		if (err)
			goto out;
	}
	if (args->has_def_cc) {
		err = mrc_cc_usable(ctl, args->def_cc, &ccp, args,
				    MRC_DEV_F_DEF_CC);
		if (err)
			goto out;
	}
	if (args->has_def_ev)
		ctl->def_ev = evp;
	if (args->has_def_cc)
		ctl->def_cc = ccp;
	if (args->has_skip_hold)
		WRITE_ONCE(ctl->skip_hold_us, args->skip_hold_us);
out:
	mutex_unlock(&ctl->lock);
	return err;
}

/* The device's defaults and how much room its profiles have left. */
void mrc_profile_dev_read(struct mrc_dev *dev, struct mrc_dev_info *info)
{
	struct mrc_ctl *ctl = dev->ctl;

	mutex_lock(&ctl->lock);
	info->def_ev = ctl->def_ev ? ctl->def_ev->id : 0;
	info->def_cc = ctl->def_cc ? ctl->def_cc->id : 0;
	info->ev_free = MRC_CTL_EV_MAX_COUNT - ctl->ev_used;
	mutex_unlock(&ctl->lock);
	info->skip_hold_us = READ_ONCE(ctl->skip_hold_us);
	info->ev_event_drops = atomic64_read(&ctl->ev_drops);
}

/* --- device life, binding ---------------------------------------------------- */

int mrc_profile_dev_init(struct mrc_dev *dev)
{
	struct mrc_ctl *ctl;

	BUILD_BUG_ON(offsetof(struct mrc_fmt_profile, id) !=
		     offsetof(struct mrc_prof_head, id) ||
		     offsetof(struct mrc_ev_profile, id) !=
		     offsetof(struct mrc_prof_head, id) ||
		     offsetof(struct mrc_cc_profile, id) !=
		     offsetof(struct mrc_prof_head, id) ||
		     offsetof(struct mrc_fmt_profile, node) ||
		     offsetof(struct mrc_ev_profile, node) ||
		     offsetof(struct mrc_cc_profile, node));

	ctl = kzalloc(sizeof(*ctl), GFP_KERNEL);
	if (!ctl)
		return -ENOMEM;
	mutex_init(&ctl->lock);
	INIT_LIST_HEAD(&ctl->fmts);
	INIT_LIST_HEAD(&ctl->evps);
	INIT_LIST_HEAD(&ctl->ccs);
	ctl->skip_hold_us = MRC_DEFAULT_EV_SKIP_HOLD_US;
	spin_lock_init(&ctl->ev_lock);
	atomic64_set(&ctl->ev_drops, 0);
	dev->ctl = ctl;
	return 0;
}

/* Once, when the device goes: no QP is left, so nothing is bound. */
void mrc_profile_dev_cleanup(struct mrc_dev *dev)
{
	struct mrc_ctl *ctl = dev->ctl;

	if (!ctl)
		return;
	mrc_ev_free_all(ctl);
	mrc_fmt_free_all(ctl);
	mrc_cc_free_all(ctl);
	mutex_destroy(&ctl->lock);
	kfree(ctl);
	dev->ctl = NULL;
}

/* Bind @qp to @ev and @cc (NULL: built in), releasing what it had. */
static void mrc_profile_set_qp(struct mrc_qp *qp, struct mrc_ev_profile *ev,
			       struct mrc_cc_profile *cc, bool explicit_bind)
{
	lockdep_assert_held(&qp->dev->ctl->lock);
	if (ev)
		ev->qp_count++;
	if (cc)
		cc->qp_count++;
	if (qp->ev_profile)
		qp->ev_profile->qp_count--;
	if (qp->cc_profile)
		qp->cc_profile->qp_count--;
	qp->ev_profile = ev;
	qp->cc_profile = cc;
	WRITE_ONCE(qp->ev_profile_id, ev ? ev->id : 0);
	WRITE_ONCE(qp->cc_profile_id, cc ? cc->id : 0);
	WRITE_ONCE(qp->profile_explicit, explicit_bind);
}

/*
 * Bind @qp to its profiles: with @explicit_bind to @ev_id and @cc_id (0:
 * built in), else to the device's defaults.  At create, and again from
 * the provider's modify_qp extension while the QP is in RESET or INIT
 * (nothing reads the profiles before RTR): the old binding is released.
 * On failure the QP keeps what it had.  Process context.
 */
int mrc_profile_bind_qp(struct mrc_qp *qp, u64 ev_id, u64 cc_id,
			bool explicit_bind)
{
	struct mrc_ctl *ctl = qp->dev->ctl;
	struct mrc_ev_profile *ev;
	struct mrc_cc_profile *cc;
	int err = 0;

	mutex_lock(&ctl->lock);
	if (explicit_bind) {
		err = mrc_ev_usable(ctl, ev_id, &ev, NULL, 0);
		if (!err)
			err = mrc_cc_usable(ctl, cc_id, &cc, NULL, 0);
		if (err)
			goto out;
	} else {
		ev = ctl->def_ev;
		cc = ctl->def_cc;
	}
	mrc_profile_set_qp(qp, ev, cc, explicit_bind);
out:
	mutex_unlock(&ctl->lock);
	return err;
}

void mrc_profile_unbind_qp(struct mrc_qp *qp)
{
	struct mrc_ctl *ctl = qp->dev->ctl;

	mutex_lock(&ctl->lock);
	mrc_profile_set_qp(qp, NULL, NULL, false);
	mutex_unlock(&ctl->lock);
}

/* How long an EV stays in SKIP (dev-set ev-skip-hold-us), in us. */
u32 mrc_profile_skip_hold_us(struct mrc_dev *dev)
{
	return READ_ONCE(dev->ctl->skip_hold_us);
}
