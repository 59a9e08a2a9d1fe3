// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: EV format profiles, the layouts (a mode and field widths) that
 * EXP and GEN EV profiles are built on.  Requests come as struct
 * mrc_fmt_args (mrc_nl_profile.c parses them).
 */

#include <linux/slab.h>

#include "mrc.h"
#include "mrc_profile.h"

struct mrc_fmt_profile *mrc_fmt_find(struct mrc_ctl *ctl, u64 id)
{
	struct list_head *node = mrc_prof_find(&ctl->fmts, id);

	return node ? list_entry(node, struct mrc_fmt_profile, node) : NULL;
}

/* The bits a format's fields take. */
u32 mrc_fmt_width(const struct mrc_fmt_cfg *f)
{
	u32 i, w = 0;

	for (i = 0; i < f->nfields; i++)
		w += f->width[i];
	return w;
}

/* The bits format mode @mode places in the headers. */
u32 mrc_fmt_mode_bits(u32 mode)
{
	switch (mode) {
	case MRC_EV_FMT_MODE_UDP:
		return MRC_FMT_UDP_BITS;
	case MRC_EV_FMT_MODE_STEV:
		return MRC_FMT_STEV_BITS;
	default:
		return MRC_FMT_SRV6_BITS;
	}
}

/* The first field of @args that changes the configuration, or 0. */
static u8 mrc_fmt_change(const struct mrc_fmt_args *args)
{
	if (args->has_mode)
		return MRC_FMT_F_MODE;
	if (args->has_fields)
		return MRC_FMT_F_FIELD;
	return MRC_PROF_F_NONE;
}

/*
 * What a format profile's state allows a set request: deleted going to
 * INIT (returns 1: done), only its state while ONLINE, room for a new one.
 */
static int mrc_fmt_set_state(struct mrc_ctl *ctl, struct mrc_fmt_profile *p,
			     u32 cur, u32 target, struct mrc_fmt_args *args)
{
	u8 change = mrc_fmt_change(args);

	if (target == MRC_PROFILE_STATE_INIT) {
		if (change) {
			mrc_prof_refuse(&args->prof, change,
					"a profile in or going to INIT takes no attributes");
			return -EINVAL;
		}
		if (!p)
			return 1;
		if (p->users) {
			mrc_prof_refuse(&args->prof, MRC_PROF_F_NONE,
					"EV profiles out of INIT use this format");
			return -EBUSY;
		}
		list_del(&p->node);
		ctl->nfmts--;
		kfree(p);
		return 1;
	}
	if (cur == MRC_PROFILE_STATE_ONLINE && change) {
		mrc_prof_refuse(&args->prof, change,
				"an ONLINE format profile changes only its state");
		return -EINVAL;
	}
	if (!p && ctl->nfmts >= MRC_CTL_MAX_FMT_PROFILES) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_NONE,
				"the device has no room for another format profile");
		return -ENOSPC;
	}
	return 0;
}

/* The configuration @c (the profile's, or empty) a set request makes. */
static int mrc_fmt_set_cfg(struct mrc_fmt_args *args, bool exists, u32 target,
			   struct mrc_fmt_cfg *c)
{
	u32 width;

	if (args->has_mode) {
		if (hweight32(args->mode) != 1) {
			mrc_prof_refuse(&args->prof, MRC_FMT_F_MODE,
					"mode must be exactly one format mode");
			return -EINVAL;
		}
		c->mode = args->mode;
	} else if (!exists) {
		mrc_prof_require(&args->prof, MRC_FMT_F_MODE,
				 "mode is required to leave INIT");
		return -EINVAL;
	}
	if (args->has_fields) {
		c->nfields = args->nfields;
		memcpy(c->width, args->width, sizeof(c->width));
	}
	width = mrc_fmt_width(c);
	if (width > mrc_fmt_mode_bits(c->mode) ||
	    width > MRC_CTL_EV_MAX_WIDTH) {
		mrc_prof_refuse(&args->prof, args->has_fields ? MRC_FMT_F_FIELD :
				MRC_FMT_F_MODE,
				"the field widths add up to more than the mode allows");
		return -E2BIG;
	}
	if (target == MRC_PROFILE_STATE_ONLINE && !c->nfields) {
		mrc_prof_require(&args->prof, MRC_FMT_F_FIELD,
				 "fields are required to go ONLINE");
		return -EINVAL;
	}
	return 0;
}

/*
 * Apply set request @args: whole, or not at all (on error, args->prof.err
 * says which field was refused).  Process context.
 */
int mrc_fmt_set(struct mrc_dev *dev, struct mrc_fmt_args *args)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_fmt_profile *p;
	struct mrc_fmt_cfg c = {};
	u32 cur, target;
	int err;

	mutex_lock(&ctl->lock);
	p = mrc_fmt_find(ctl, args->prof.id);
	cur = p ? p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_prof_state_target(&args->prof, cur, &target) ?:
	      mrc_fmt_set_state(ctl, p, cur, target, args);
	if (err)
		goto out;
	if (p)
		c = p->cfg;
	err = mrc_fmt_set_cfg(args, p, target, &c);
	if (err)
		goto out;
	if (cur == MRC_PROFILE_STATE_ONLINE &&
	    target == MRC_PROFILE_STATE_OFFLINE && p->online_users) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_STATE,
				"an ONLINE EV profile uses this format");
		err = -EBUSY;
		goto out;
	}
	c.state = target;

	if (!p) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		p->id = args->prof.id;
		mrc_prof_insert(&ctl->fmts, &p->node);
		ctl->nfmts++;
	}
	p->cfg = c;
out:
	mutex_unlock(&ctl->lock);
	return err < 0 ? err : 0;
}

/*
 * A copy of format profile @id into *@info, or (@next) of the first whose
 * id is @id or above; -ENOENT when there is none (INIT).
 */
int mrc_fmt_read(struct mrc_dev *dev, u64 id, bool next,
		 struct mrc_fmt_info *info)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_fmt_profile *p;
	struct list_head *node;
	int err = -ENOENT;

	mutex_lock(&ctl->lock);
	node = next ? mrc_prof_next(&ctl->fmts, id) :
		      mrc_prof_find(&ctl->fmts, id);
	if (node) {
		p = list_entry(node, struct mrc_fmt_profile, node);
		info->id = p->id;
		info->cfg = p->cfg;
		info->users = p->users;
		err = 0;
	}
	mutex_unlock(&ctl->lock);
	return err;
}

/* When the device goes: the EV profiles that used them are gone. */
void mrc_fmt_free_all(struct mrc_ctl *ctl)
{
	struct mrc_fmt_profile *f, *fn;

	list_for_each_entry_safe(f, fn, &ctl->fmts, node)
		kfree(f);
	INIT_LIST_HEAD(&ctl->fmts);
	ctl->nfmts = 0;
}
