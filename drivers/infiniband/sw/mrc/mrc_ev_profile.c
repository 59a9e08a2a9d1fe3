// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: EV profiles, the entropy values the controller gives QPs: the
 * state rule, AUTO / EXP / GEN arrays (generated, expanded through their
 * format profile into the paths the datapath sends on), the entries of an
 * EV operation, the states queries report, and the datapath's reads.
 * Requests come as struct mrc_ev_args (mrc_nl_profile.c parses them).
 *
 * A change runs under ctl->lock and builds on the request's own copy of
 * the configuration and the array: only the commit changes the profile,
 * so a request that fails at any step leaves it as it was.  The datapath
 * reads the array in atomic context under the profile's spinlock; a
 * changed array is swapped in under that lock.
 */
#include <linux/bitmap.h>
#include <linux/slab.h>

#include "mrc.h"
#include "mrc_profile.h"

/* --- EV bits ------------------------------------------------------------- */

/* @n (at most 32) bits of @buf from bit @pos on, bit 7 of byte 0 first. */
static u32 mrc_bits_get(const u8 *buf, u32 pos, u32 n)
{
	u32 v = 0;

	for (; n; n--, pos++)
		v = (v << 1) | ((buf[pos / BITS_PER_BYTE] >>
				 (BITS_PER_BYTE - 1 - pos % BITS_PER_BYTE)) & 1);
	return v;
}

static void mrc_bits_put(u8 *buf, u32 pos, u32 n, u32 v)
{
	u8 bit;

	for (; n; n--, pos++) {
		bit = BIT(BITS_PER_BYTE - 1 - pos % BITS_PER_BYTE);
		if ((v >> (n - 1)) & 1)
			buf[pos / BITS_PER_BYTE] |= bit;
		else
			buf[pos / BITS_PER_BYTE] &= ~bit;
	}
}

/* Spread the low popcount(@mask) bits of @bits over @mask, high first. */
static u32 mrc_mask_deposit(u32 bits, u32 mask)
{
	u32 n = hweight32(mask);
	u32 v = 0;
	int b;

	for (b = 31; b >= 0 && n; b--) {
		if (!(mask & BIT(b)))
			continue;
		n--;
		if (bits & BIT(n))
			v |= BIT(b);
	}
	return v;
}

/*
 * Expand EV @val of a profile (@c) with format @f into @out and the path
 * the datapath sends it on.  -EINVAL if it does not fit, or its UDP source
 * port would be 0.  @f must have its fields.
 */
static int mrc_ev_expand(const struct mrc_ev_cfg *c,
			 const struct mrc_fmt_cfg *f, const u8 *val, u8 port,
			 struct mrc_path *path)
{
	u8 out[MRC_EV_MAX_BYTES] = {};
	u32 in = 0, outpos = 0, i, n, v;

	if (!c->nfields) {
		memcpy(out, val, MRC_EV_MAX_BYTES);
		in = mrc_fmt_width(f);
	} else {
		for (i = 0; i < c->nfields; i++) {
			const struct mrc_ev_field *fld = &c->field[i];

			n = hweight32(fld->mask);
			v = (fld->init_val & ~fld->mask) |
			    mrc_mask_deposit(mrc_bits_get(val, in, n),
					     fld->mask);
			in += n;
			mrc_bits_put(out, outpos, f->width[i], v);
			outpos += f->width[i];
		}
	}
	/* EV bits the fields did not take must be 0. */
	for (; in < MRC_EV_MAX_BITS; in++)
		if (mrc_bits_get(val, in, 1))
			return -EINVAL;

	memset(path, 0, sizeof(*path));
	path->port = port;
	switch (f->mode) {
	case MRC_EV_FMT_MODE_UDP:
		path->sport = mrc_bits_get(out, 0, MRC_EV_SPORT_BITS);
		break;
	case MRC_EV_FMT_MODE_STEV:
		path->sport = mrc_bits_get(out, 0, MRC_EV_SPORT_BITS);
		path->flow = mrc_bits_get(out, MRC_EV_SPORT_BITS,
					  MRC_EV_FLOW_BITS);
		break;
	default:
		/* SRv6: stored only, no path. */
		return 0;
	}
	return path->sport ? 0 : -EINVAL;
}

/* --- configuration ------------------------------------------------------ */

struct mrc_ev_profile *mrc_evp_find(struct mrc_ctl *ctl, u64 id)
{
	struct list_head *node = mrc_prof_find(&ctl->evps, id);

	return node ? list_entry(node, struct mrc_ev_profile, node) : NULL;
}

bool mrc_evp_is_srv6(const struct mrc_ev_profile *p)
{
	return p->cfg.fmt && p->cfg.fmt->cfg.mode == MRC_EV_FMT_MODE_SRV6;
}

/* Refuse @args because of field @i (0-based) of its fields. */
#define mrc_ev_refuse_field(args, i, msg) do {			\
	struct mrc_ev_args *__args = (args);			\
								\
	mrc_prof_refuse(&__args->prof, MRC_EV_F_FIELD, msg);	\
	__args->prof.err.index = 1 + (i);				\
} while (0)

/* Check field @i of @args against the rules that need no format. */
static int mrc_ev_field_check(struct mrc_ev_args *args, u32 i)
{
	const struct mrc_ev_field *f = &args->field[i];
	u32 wmask = f->width == 32 ? U32_MAX : BIT(f->width) - 1;
	u32 n = hweight32(f->mask);
	u32 vmax = n == 32 ? U32_MAX : BIT(n) - 1;

	if (f->init_val & ~wmask) {
		mrc_ev_refuse_field(args, i, "init-val does not fit the width");
		return -EINVAL;
	}
	if (f->mask & ~wmask) {
		mrc_ev_refuse_field(args, i, "mask bits lie outside the width");
		return -EINVAL;
	}
	if (f->max_val > vmax) {
		mrc_ev_refuse_field(args, i,
				    "max-val is above 2^popcount(mask) - 1");
		return -EINVAL;
	}
	if (f->min_val > f->max_val) {
		mrc_ev_refuse_field(args, i, "min-val is above max-val");
		return -EINVAL;
	}
	return 0;
}

/* The request's fields, checked, into @c. */
static int mrc_ev_take_fields(struct mrc_ev_args *args, struct mrc_ev_cfg *c)
{
	u32 i, bits = 0;
	int err;

	for (i = 0; i < args->nfields; i++) {
		err = mrc_ev_field_check(args, i);
		if (err)
			return err;
		bits += hweight32(args->field[i].mask);
	}
	if (bits > MRC_EV_MAX_BITS) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_FIELD,
				"the fields take more EV bits than an EV has");
		return -E2BIG;
	}
	memcpy(c->field, args->field, args->nfields * sizeof(c->field[0]));
	c->nfields = args->nfields;
	return 0;
}

/* Check the profile's fields against its format's (if it has them). */
static int mrc_ev_fields_vs_fmt(struct mrc_ev_args *args,
				const struct mrc_ev_cfg *c)
{
	const struct mrc_fmt_cfg *f = &c->fmt->cfg;
	u8 bad = args->has_fields ? MRC_EV_F_FIELD : MRC_EV_F_FMT;
	u32 i;

	if (!f->nfields)
		return 0;
	if (c->nfields > f->nfields) {
		mrc_prof_refuse(&args->prof, bad,
				"more fields than the format profile has");
		return -E2BIG;
	}
	for (i = 0; i < c->nfields; i++) {
		if (c->field[i].width > f->width[i]) {
			mrc_prof_refuse(&args->prof, bad,
					"a field is wider than its format field");
			return -EINVAL;
		}
	}
	return 0;
}

/* Bits of an EV of the profile: what its fields take, or the format. */
static u32 mrc_ev_bits(const struct mrc_ev_cfg *c)
{
	u32 i, bits = 0;

	if (!c->nfields)
		return c->fmt ? mrc_fmt_width(&c->fmt->cfg) : 0;
	for (i = 0; i < c->nfields; i++)
		bits += hweight32(c->field[i].mask);
	return bits;
}

/*
 * Generate the array of a GEN profile: the values of the fields' mask bits
 * from min-val to max-val, the last field varying fastest, leaving out
 * those whose UDP source port would be 0, dealt to the ports in turn.
 */
static int mrc_ev_generate(struct mrc_dev *dev, struct mrc_ev_cfg *c,
			   struct mrc_evp_slot **slotsp,
			   struct mrc_ev_args *args)
{
	u32 digit[MRC_CTL_MAX_FIELDS] = {};
	u32 nports = rdma_end_port(&dev->ibdev);
	u32 want = c->ev_count_req, k = 0, skipped = 0;
	u32 bits = mrc_ev_bits(c);
	struct mrc_evp_slot *slots;
	struct mrc_evp_slot *s;
	u32 i, pos;
	bool wrapped;

	slots = kvcalloc(want, sizeof(*slots), GFP_KERNEL);
	if (!slots)
		return -ENOMEM;

	for (;;) {
		s = &slots[k];
		memset(s, 0, sizeof(*s));
		for (i = 0, pos = 0; i < c->nfields; i++) {
			u32 n = hweight32(c->field[i].mask);

			if (!n)
				continue;
			mrc_bits_put(s->val, pos, n,
				     c->field[i].min_val + digit[i]);
			pos += n;
		}
		s->len = max_t(u32, 1, DIV_ROUND_UP(bits, BITS_PER_BYTE));
		s->port = k % nports + 1;
		if (mrc_ev_expand(c, &c->fmt->cfg, s->val, s->port, &s->path))
			skipped++;
		else
			k++;
		if (k == want || skipped > MRC_CTL_EV_GEN_MAX_SKIP)
			break;

		/* The next value: the last field with mask bits fastest. */
		wrapped = true;
		for (i = c->nfields; i-- > 0;) {
			const struct mrc_ev_field *f = &c->field[i];

			if (!f->mask)
				continue;
			if (f->min_val + digit[i] < f->max_val) {
				digit[i]++;
				wrapped = false;
				break;
			}
			digit[i] = 0;
		}
		if (wrapped)
			break;
	}

	k = rounddown(k, MRC_CTL_EV_COUNT_ALIGN);
	if (!k) {
		kvfree(slots);
		mrc_prof_refuse(&args->prof, MRC_PROF_F_NONE,
				"the fields generate no usable EV");
		return -EINVAL;
	}
	c->ev_count = k;
	*slotsp = slots;
	return 0;
}

static bool mrc_slot_match(const struct mrc_evp_slot *s,
			   const struct mrc_ev_val *ev)
{
	return s->port == ev->port && !memcmp(s->val, ev->val, MRC_EV_MAX_BYTES);
}

/* The first of the @n slots holding @ev, or @n. */
static u32 mrc_slot_find(const struct mrc_evp_slot *slots, u32 n,
			 const struct mrc_ev_val *ev)
{
	u32 i;

	for (i = 0; i < n && !mrc_slot_match(&slots[i], ev); i++)
		;
	return i;
}

/* Refuse @args because of entry @k (0-based) of its EV operation. */
static void mrc_ev_entry_err(struct mrc_ev_args *args, u32 k, u8 part,
			     u8 missing_part)
{
	args->prof.err.field = MRC_EV_F_ENTRY;
	args->prof.err.index = 1 + k;
	args->prof.err.part = part;
	args->prof.err.missing_part = missing_part;
}

#define mrc_ev_refuse_entry(args, k, part, msg) do {		\
	struct mrc_ev_args *__args = (args);			\
								\
	NL_SET_ERR_MSG(__args->prof.extack, msg);			\
	mrc_ev_entry_err(__args, k, part, 0);			\
} while (0)

/*
 * An entry names an EV by value and port: @has_value and @has_port say
 * whether it has them (@value, @port: their parts, for the refusal).
 */
static int mrc_ev_entry_has_ev(struct mrc_ev_args *args, u32 k, bool has_value,
			       bool has_port, u8 value, u8 port)
{
	if (has_value && has_port)
		return 0;
	NL_SET_ERR_MSG(args->prof.extack, "the entry needs a value and a port");
	mrc_ev_entry_err(args, k, 0, has_value ? port : value);
	return -EINVAL;
}

/* One entry of an EV operation, resolved against the request's array. */
struct mrc_ev_entry {
	const struct mrc_ev_entry_args *r;
	u32 k;				/* its place in the request */
	u32 first;			/* the first slot it names */
	bool all;			/* ... and every other slot holding it */
};

/* Does slot @i hold the EV entry @e names? */
static bool mrc_ev_entry_names(const struct mrc_ev_entry *e,
			       const struct mrc_evp_slot *slots, u32 i)
{
	if (i == e->first)
		return true;
	return e->all && mrc_slot_match(&slots[i], &e->r->ev);
}

/*
 * Entry @k of @args, into @e: its state, and the slots it names (by index,
 * or by value and port) among @slots (@n of them).
 */
static int mrc_ev_entry_resolve(struct mrc_ev_args *args, u32 k,
				const struct mrc_evp_slot *slots, u32 n,
				struct mrc_ev_entry *e)
{
	const struct mrc_ev_entry_args *r = &args->entries[k];
	int err;

	e->r = r;
	e->k = k;
	if (!r->has_state) {
		NL_SET_ERR_MSG(args->prof.extack, "the entry needs a state");
		mrc_ev_entry_err(args, k, 0, MRC_EV_E_STATE);
		return -EINVAL;
	}
	if (r->state != MRC_EV_STATE_GOOD && r->state != MRC_EV_STATE_DENIED) {
		mrc_ev_refuse_entry(args, k, MRC_EV_E_STATE,
				    "the controller sets only good or denied");
		return -EINVAL;
	}
	if (r->has_index) {
		e->first = r->index;
		e->all = false;
		if (e->first < n)
			return 0;
		mrc_ev_refuse_entry(args, k, MRC_EV_E_INDEX, "no such slot");
		return -ENOENT;
	}
	err = mrc_ev_entry_has_ev(args, k, r->has_value, r->has_port,
				  MRC_EV_E_VALUE, MRC_EV_E_PORT);
	if (err)
		return err;
	e->first = mrc_slot_find(slots, n, &r->ev);
	if (e->first == n) {
		mrc_ev_refuse_entry(args, k, 0, "the profile has no such EV");
		return -ENOENT;
	}
	e->all = args->op == MRC_EV_OP_MODIFY_STATE ||
		 (r->flags & MRC_EV_OP_FLAGS_ALL_COPIES);
	return 0;
}

/* MODIFY_STATE: @e's state on every slot holding its EV. */
static int mrc_ev_entry_modify(struct mrc_ev_args *args,
			       const struct mrc_ev_entry *e,
			       struct mrc_evp_slot *slots, u32 n)
{
	u32 i;

	for (i = e->first; i < n; i++) {
		if (!mrc_ev_entry_names(e, slots, i))
			continue;
		if (!slots[i].port) {
			mrc_ev_refuse_entry(args, e->k, 0,
					    "the slot is unpopulated");
			return -EINVAL;
		}
		slots[i].denied = e->r->state == MRC_EV_STATE_DENIED;
	}
	return 0;
}

/* REPLACE: the new EV of @e, checked, in the slots it names. */
static int mrc_ev_entry_replace(struct mrc_dev *dev, struct mrc_ev_args *args,
				const struct mrc_ev_cfg *c,
				const struct mrc_ev_entry *e,
				struct mrc_evp_slot *slots, u32 n)
{
	const struct mrc_ev_entry_args *r = e->r;
	const struct mrc_ev_val *nev = &r->new_ev;
	struct mrc_path path = {};
	struct mrc_evp_slot *s;
	u32 i;
	int err;

	err = mrc_ev_entry_has_ev(args, e->k, r->has_new_value,
				  r->has_new_port, MRC_EV_E_NEW_VALUE,
				  MRC_EV_E_NEW_PORT);
	if (err)
		return err;
	if (!rdma_is_port_valid(&dev->ibdev, nev->port)) {
		mrc_ev_refuse_entry(args, e->k, MRC_EV_E_NEW_PORT,
				    "the device has no such port");
		return -EINVAL;
	}
	if (c->fmt->cfg.nfields &&
	    mrc_ev_expand(c, &c->fmt->cfg, nev->val, nev->port, &path)) {
		mrc_ev_refuse_entry(args, e->k, MRC_EV_E_NEW_VALUE,
				    "the new EV does not fit the fields and format (or gives UDP source port 0)");
		return -EINVAL;
	}
	for (i = e->first; i < n; i++) {
		if (!mrc_ev_entry_names(e, slots, i))
			continue;
		s = &slots[i];
		if (s->port && s->port != nev->port) {
			mrc_ev_refuse_entry(args, e->k, MRC_EV_E_NEW_PORT,
					    "a replacement EV must stay on the plane (port) of the old one");
			return -EINVAL;
		}
		memcpy(s->val, nev->val, MRC_EV_MAX_BYTES);
		s->len = nev->len;
		s->port = nev->port;
		s->denied = r->state == MRC_EV_STATE_DENIED;
		s->path = path;
	}
	return 0;
}

/* Expand every slot again (going ONLINE, or new fields while ONLINE). */
static int mrc_ev_expand_all(struct mrc_ev_args *args,
			     const struct mrc_ev_cfg *c,
			     struct mrc_evp_slot *slots, u32 n)
{
	u8 bad = args->prof.has_state ? MRC_PROF_F_STATE : MRC_EV_F_FIELD;
	u32 i;

	for (i = 0; i < n; i++) {
		if (!slots[i].port) {
			mrc_prof_refuse(&args->prof, bad,
					"every slot must be populated to go ONLINE");
			return -EINVAL;
		}
		if (mrc_ev_expand(c, &c->fmt->cfg, slots[i].val, slots[i].port,
				  &slots[i].path)) {
			mrc_prof_refuse(&args->prof, bad,
					"an EV does not fit the fields and format");
			return -EINVAL;
		}
	}
	return 0;
}

/* The profile's array, resized to @n slots (new slots unpopulated). */
static struct mrc_evp_slot *mrc_slots_copy(const struct mrc_evp_slot *old,
					   u32 nold, u32 n)
{
	struct mrc_evp_slot *slots;

	slots = kvcalloc(n, sizeof(*slots), GFP_KERNEL);
	if (slots && old)
		memcpy(slots, old, min(nold, n) * sizeof(*slots));
	return slots;
}

/*
 * QPs bound to a profile are walked with references (mrc_qp_next()):
 * destroy takes a QP out of qp_xa and waits for them before it unbinds
 * and frees it.
 */
static void mrc_ev_reload_qps(struct mrc_dev *dev, struct mrc_ev_profile *p)
{
	unsigned long index = 0;
	struct mrc_qp *qp;

	if (!p->qp_count)
		return;
	while ((qp = mrc_qp_next(dev, &index))) {
		if (qp->ev_profile == p)
			mrc_ev_qp_reload(qp);
		mrc_qp_put(qp);
	}
}

/*
 * The controller changed the DENIED flag of slots of @p (old array @old of
 * @nold slots): an ev-event per change, reason controller, no QP.  Only an
 * ONLINE profile's EVs are in use, so only its changes are events.
 */
static void mrc_ev_ctl_events(struct mrc_dev *dev, struct mrc_ev_profile *p,
			      const struct mrc_evp_slot *old, u32 nold)
{
	const struct mrc_evp_slot *s;
	u32 i, usable = 0;

	if (p->cfg.state != MRC_PROFILE_STATE_ONLINE || old == p->slots)
		return;
	for (i = 0; i < p->nslots; i++)
		usable += p->slots[i].port && !p->slots[i].denied;
	for (i = 0; i < min(nold, p->nslots); i++) {
		s = &p->slots[i];
		if (!s->port || old[i].denied == s->denied)
			continue;
		mrc_nl_ev_ctl_event(dev, p->id, p->cfg.event_mask, s->val,
				    max_t(u8, s->len, 1), s->port,
				    s->denied ? MRC_EV_STATE_DENIED :
						MRC_EV_STATE_GOOD,
				    old[i].denied ? MRC_EV_STATE_DENIED :
						    MRC_EV_STATE_GOOD,
				    usable);
	}
}

/* Swap @c and the array @slots (@n) into @p; frees the old array. */
static void mrc_ev_commit(struct mrc_dev *dev, struct mrc_ev_profile *p,
			  const struct mrc_ev_cfg *c,
			  struct mrc_evp_slot *slots, u32 n)
{
	struct mrc_evp_slot *old;
	u32 nold;

	spin_lock_bh(&p->lock);
	p->cfg = *c;
	old = p->slots;
	nold = p->nslots;
	p->slots = slots;
	p->nslots = n;
	spin_unlock_bh(&p->lock);
	if (old != slots) {
		if (old)
			mrc_ev_ctl_events(dev, p, old, nold);
		kvfree(old);
	}
}

static void mrc_ev_release(struct mrc_ctl *ctl, struct mrc_ev_profile *p)
{
	if (p->cfg.fmt)
		p->cfg.fmt->users--;
	ctl->ev_used -= p->cfg.ev_count;
	ctl->nevps--;
	list_del(&p->node);
	kvfree(p->slots);
	kfree(p);
}

/*
 * One ev-profile-set, in steps (mrc_ev_set): the profile @p as it is, the
 * configuration @c and the array @slots it would have.  The request owns
 * @slots from the step that builds them until the commit hands them to
 * the profile, so a failing step leaves the profile as it was, the
 * entries of an EV operation included.
 */
struct mrc_ev_set {
	struct mrc_dev *dev;
	struct mrc_ev_args *args;
	struct mrc_ev_profile *p;	/* NULL: the profile is in INIT */
	u32 cur;			/* its state */
	u32 target;			/* the state it goes to */
	struct mrc_ev_cfg c;
	struct mrc_evp_slot *slots;
	u32 nslots;
	bool regen;			/* the values of the array change */
	bool resize;			/* its size changes */
	bool reexpand;			/* every slot is expanded again */
};

/* The first field of @args that changes the configuration, or 0. */
static u8 mrc_ev_change(const struct mrc_ev_args *args, bool online_too)
{
	if (args->has_mode)
		return MRC_EV_F_MODE;
	if (args->has_fmt)
		return MRC_EV_F_FMT;
	if (args->has_count)
		return MRC_EV_F_COUNT;
	if (args->has_min_active)
		return MRC_EV_F_MIN_ACTIVE;
	if (!online_too)
		return MRC_PROF_F_NONE;
	if (args->has_event_mask)
		return MRC_EV_F_EVENT_MASK;
	if (args->has_fields)
		return MRC_EV_F_FIELD;
	return MRC_PROF_F_NONE;
}

/* The request's EV operation; nothing locked, nothing looked up. */
static int mrc_ev_set_args(struct mrc_ev_args *args)
{
	if (args->has_op && args->op != MRC_EV_OP_REPLACE &&
	    args->op != MRC_EV_OP_MODIFY_STATE) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_OP,
				"ev-profile-set takes replace or modify-state; queries are in ev-profile-get");
		return -EINVAL;
	}
	if (args->nentries && !args->has_op) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_ENTRY,
				"ev entries need ev-op");
		args->prof.err.missing = MRC_EV_F_OP;
		return -EINVAL;
	}
	return 0;
}

/*
 * What the profile's state allows: the target state, what may change
 * while ONLINE, leaving ONLINE, room for a new profile.  Returns 1 when
 * the request is done (the profile went to or stays in INIT).
 */
static int mrc_ev_set_state(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ctl *ctl = s->dev->ctl;
	u8 bad;
	int err;

	s->p = mrc_evp_find(ctl, args->prof.id);
	s->cur = s->p ? s->p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_prof_state_target(&args->prof, s->cur, &s->target);
	if (err)
		return err;

	if (s->target == MRC_PROFILE_STATE_INIT) {
		bad = mrc_ev_change(args, true);
		if (!bad && args->nentries)
			bad = MRC_EV_F_ENTRY;
		if (bad) {
			mrc_prof_refuse(&args->prof, bad,
					"a profile in or going to INIT takes no attributes");
			return -EINVAL;
		}
		if (s->p)
			mrc_ev_release(ctl, s->p);
		return 1;
	}
	if (s->cur == MRC_PROFILE_STATE_ONLINE) {
		bad = mrc_ev_change(args, false);
		if (bad) {
			mrc_prof_refuse(&args->prof, bad,
					"this attribute cannot change while the profile is ONLINE");
			return -EINVAL;
		}
		if (s->target == MRC_PROFILE_STATE_OFFLINE)
			return mrc_prof_leave_online(&args->prof, s->p->qp_count,
						     ctl->def_ev == s->p);
	}
	if (!s->p && ctl->nevps >= MRC_CTL_MAX_EV_PROFILES) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_NONE,
				"the device has no room for another EV profile");
		return -ENOSPC;
	}
	return 0;
}

/* The mode and format profile the profile would have. */
static int mrc_ev_set_mode(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_cfg *c = &s->c;
	struct mrc_fmt_profile *f;

	if (args->has_mode) {
		if (hweight32(args->mode) != 1) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_MODE,
					"mode must be exactly one EV mode");
			return -EINVAL;
		}
		if (args->mode != c->mode) {
			s->regen = true;
			s->resize = true;
		}
		c->mode = args->mode;
	} else if (!s->p) {
		mrc_prof_require(&args->prof, MRC_EV_F_MODE,
				 "mode is required to leave INIT");
		return -EINVAL;
	}

	if (args->has_fmt) {
		if (c->mode == MRC_EV_MODE_AUTO) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_FMT,
					"an auto profile has no format");
			return -EINVAL;
		}
		f = mrc_fmt_find(s->dev->ctl, args->fmt_id);
		if (!f) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_FMT,
					"the format profile is in INIT");
			return -ENOENT;
		}
		if (f != c->fmt)
			s->regen = true;
		c->fmt = f;
	}
	if (c->mode == MRC_EV_MODE_AUTO) {
		c->fmt = NULL;
		c->nfields = 0;
	} else if (!c->fmt) {
		mrc_prof_require(&args->prof, MRC_EV_F_FMT,
				 "exp and gen profiles need fmt-profile-id");
		return -EINVAL;
	}
	return 0;
}

/* The EV count, the floor of active EVs and the event mask. */
static int mrc_ev_set_count(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_cfg *c = &s->c;

	if (args->has_count) {
		if (args->count > MRC_CTL_EV_MAX_COUNT_PROFILE) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_COUNT,
					"ev-count is above ev-max-count-profile");
			return -E2BIG;
		}
		if (c->mode == MRC_EV_MODE_EXP &&
		    args->count % MRC_CTL_EV_COUNT_ALIGN) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_COUNT,
					"ev-count is not a multiple of ev-count-align");
			return -EINVAL;
		}
		if (args->count != c->ev_count_req) {
			s->regen = true;
			s->resize = true;
		}
		c->ev_count_req = args->count;
	} else if (!s->p) {
		mrc_prof_require(&args->prof, MRC_EV_F_COUNT,
				 "ev-count is required to leave INIT");
		return -EINVAL;
	}
	/* A GEN profile's count is what its fields generate (the array). */
	if (c->mode != MRC_EV_MODE_GEN)
		c->ev_count = c->ev_count_req;

	if (args->has_min_active) {
		c->min_active = args->min_active;
		c->has_min_active = true;
	}
	if (args->has_event_mask) {
		c->event_mask = args->event_mask;
		c->has_event_mask = true;
	}
	return 0;
}

/* The fields, and how they fit the format. */
static int mrc_ev_set_fields(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_cfg *c = &s->c;
	int err;

	if (args->has_fields) {
		if (c->mode == MRC_EV_MODE_AUTO) {
			mrc_prof_refuse(&args->prof, MRC_EV_F_FIELD,
					"an auto profile has no fields");
			return -EINVAL;
		}
		err = mrc_ev_take_fields(args, c);
		if (err)
			return err;
		s->regen = true;
		s->reexpand = true;
	}
	if (c->mode == MRC_EV_MODE_GEN && !c->nfields) {
		mrc_prof_require(&args->prof, MRC_EV_F_FIELD,
				 "gen profiles need fields");
		return -EINVAL;
	}
	if (!c->fmt)
		return 0;
	return mrc_ev_fields_vs_fmt(args, c);
}

/*
 * The array the profile would have, the request's own: none for AUTO, a
 * resized copy for EXP, generated for GEN (once the format has fields),
 * else a copy of the profile's, for the entries to change.
 */
static int mrc_ev_set_array(struct mrc_ev_set *s)
{
	struct mrc_ev_profile *p = s->p;
	struct mrc_ev_cfg *c = &s->c;
	bool same_mode = p && p->cfg.mode == c->mode;
	int err;

	s->slots = NULL;
	s->nslots = 0;
	if (c->mode == MRC_EV_MODE_AUTO)
		return 0;
	if (c->mode == MRC_EV_MODE_GEN &&
	    (s->regen || !p ||
	     (s->target == MRC_PROFILE_STATE_ONLINE && !p->slots))) {
		/* Generated once the format has its fields. */
		if (!c->fmt->cfg.nfields) {
			c->ev_count = c->ev_count_req;
			return 0;
		}
		err = mrc_ev_generate(s->dev, c, &s->slots, s->args);
		if (!err)
			s->nslots = c->ev_count;
		return err;
	}
	if (c->mode == MRC_EV_MODE_EXP && (s->resize || !p))
		s->nslots = c->ev_count;
	else
		s->nslots = p->nslots;
	if (!s->nslots)
		return 0;
	s->slots = mrc_slots_copy(same_mode ? p->slots : NULL,
				  same_mode ? p->nslots : 0, s->nslots);
	return s->slots ? 0 : -ENOMEM;
}

/* The floor of active EVs, and the device's room for the EVs. */
static int mrc_ev_set_limits(struct mrc_ev_set *s)
{
	u32 old = s->p ? s->p->cfg.ev_count : 0;
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_cfg *c = &s->c;

	if (c->has_min_active && c->min_active > c->ev_count) {
		mrc_prof_refuse(&args->prof, args->has_min_active ?
				MRC_EV_F_MIN_ACTIVE : MRC_EV_F_COUNT,
				"ev-min-active is above ev-count");
		return -EINVAL;
	}
	if (c->ev_count > old &&
	    s->dev->ctl->ev_used - old + c->ev_count > MRC_CTL_EV_MAX_COUNT) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_COUNT,
				"ev-count is above what the device has free");
		return -E2BIG;
	}
	return 0;
}

/* The entries of the EV operation, in order, on the request's array. */
static int mrc_ev_set_entries(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_entry e;
	u32 k;
	int err;

	if (!args->nentries)
		return 0;
	if (s->c.mode == MRC_EV_MODE_AUTO) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_ENTRY,
				"an auto profile has no EV array");
		return -EINVAL;
	}
	for (k = 0; k < args->nentries; k++) {
		err = mrc_ev_entry_resolve(args, k, s->slots, s->nslots, &e);
		if (!err && args->op == MRC_EV_OP_MODIFY_STATE)
			err = mrc_ev_entry_modify(args, &e, s->slots, s->nslots);
		else if (!err)
			err = mrc_ev_entry_replace(s->dev, args, &s->c, &e,
						   s->slots, s->nslots);
		if (err)
			return err;
	}
	return 0;
}

/* What going (or staying) ONLINE needs; every slot expanded. */
static int mrc_ev_set_online(struct mrc_ev_set *s)
{
	struct mrc_ev_args *args = s->args;
	struct mrc_ev_cfg *c = &s->c;

	if (s->target != MRC_PROFILE_STATE_ONLINE)
		return 0;
	if (c->mode != MRC_EV_MODE_AUTO &&
	    c->fmt->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_STATE,
				"the format profile is not ONLINE");
		return -EINVAL;
	}
	if (!c->has_min_active) {
		mrc_prof_require(&args->prof, MRC_EV_F_MIN_ACTIVE,
				 "ev-min-active is required to go ONLINE");
		return -EINVAL;
	}
	if (!c->has_event_mask) {
		mrc_prof_require(&args->prof, MRC_EV_F_EVENT_MASK,
				 "event-mask is required to go ONLINE");
		return -EINVAL;
	}
	if (c->mode == MRC_EV_MODE_AUTO ||
	    (s->cur == MRC_PROFILE_STATE_ONLINE && !s->reexpand))
		return 0;
	return mrc_ev_expand_all(args, c, s->slots, s->nslots);
}

/*
 * The profile takes the request's configuration and array (a new profile
 * is created first); the format profiles' use counts and the device's EV
 * count follow, and the bound QPs reload.
 */
static int mrc_ev_set_commit(struct mrc_ev_set *s)
{
	struct mrc_ctl *ctl = s->dev->ctl;
	struct mrc_ev_profile *p = s->p;
	struct mrc_fmt_profile *old_fmt = p ? p->cfg.fmt : NULL;
	struct mrc_ev_cfg *c = &s->c;

	if (!p) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		p->id = s->args->prof.id;
		spin_lock_init(&p->lock);
		mrc_prof_insert(&ctl->evps, &p->node);
		ctl->nevps++;
	}
	if (old_fmt != c->fmt) {
		if (old_fmt)
			old_fmt->users--;
		if (c->fmt)
			c->fmt->users++;
	}
	if (p->cfg.state == MRC_PROFILE_STATE_ONLINE && old_fmt)
		old_fmt->online_users--;
	if (c->state == MRC_PROFILE_STATE_ONLINE && c->fmt)
		c->fmt->online_users++;
	ctl->ev_used = ctl->ev_used - p->cfg.ev_count + c->ev_count;
	mrc_ev_commit(s->dev, p, c, s->slots, s->nslots);
	s->slots = NULL;
	mrc_ev_reload_qps(s->dev, p);
	return 0;
}

/*
 * Apply set request @args: every step checks or builds on the request's
 * own copy; only the commit changes the profile, so a request that fails
 * at any step (its third EV entry, say) leaves the profile as it was, and
 * args->prof.err says what was refused.  Process context.
 */
int mrc_ev_set(struct mrc_dev *dev, struct mrc_ev_args *args)
{
	struct mrc_ev_set s = { .dev = dev, .args = args };
	int err;

	err = mrc_ev_set_args(args);
	if (err)
		return err;

	mutex_lock(&dev->ctl->lock);
	err = mrc_ev_set_state(&s);
	if (err)
		goto out;
	if (s.p)
		s.c = s.p->cfg;
	err = mrc_ev_set_mode(&s) ?: mrc_ev_set_count(&s) ?:
	      mrc_ev_set_fields(&s) ?: mrc_ev_set_array(&s) ?:
	      mrc_ev_set_limits(&s) ?: mrc_ev_set_entries(&s) ?:
	      mrc_ev_set_online(&s);
	if (!err) {
		s.c.state = s.target;
		err = mrc_ev_set_commit(&s);
	}
	kvfree(s.slots);
out:
	mutex_unlock(&dev->ctl->lock);
	return err < 0 ? err : 0;
}

/*
 * The state of each slot as queries report it: DENIED if denied, else the
 * worst state a bound QP holds, else GOOD.  ctl->lock held.
 */
static u32 *mrc_ev_states(struct mrc_dev *dev, struct mrc_ev_profile *p)
{
	unsigned long index = 0;
	struct mrc_qp *qp;
	u32 *st, i, s;

	st = kvcalloc(max_t(u32, p->nslots, 1), sizeof(*st), GFP_KERNEL);
	if (!st)
		return NULL;
	for (i = 0; i < p->nslots; i++)
		st[i] = p->slots[i].denied ? MRC_EV_STATE_DENIED :
					     MRC_EV_STATE_GOOD;
	if (!p->qp_count)
		return st;

	while ((qp = mrc_qp_next(dev, &index))) {
		for (i = 0; qp->ev_profile == p && i < p->nslots; i++) {
			if (st[i] == MRC_EV_STATE_DENIED ||
			    st[i] == MRC_EV_STATE_ASSUMED_BAD)
				continue;
			s = mrc_ev_qp_state(qp, i);
			if (s == MRC_EV_STATE_ASSUMED_BAD ||
			    (s == MRC_EV_STATE_SKIP &&
			     st[i] == MRC_EV_STATE_GOOD))
				st[i] = s;
		}
		mrc_qp_put(qp);
	}
	return st;
}

/* The slots of @p (@n of them) as queries report them: states, usable. */
static int mrc_ev_info_fill(struct mrc_dev *dev, struct mrc_ev_profile *p,
			    u32 what, struct mrc_ev_info *info)
{
	u32 i, *st;

	st = mrc_ev_states(dev, p);
	if (!st)
		return -ENOMEM;
	info->id = p->id;
	info->cfg = p->cfg;
	info->fmt_id = p->cfg.fmt ? p->cfg.fmt->id : 0;
	info->qp_count = p->qp_count;
	info->nslots = p->nslots;
	info->usable = 0;
	for (i = 0; i < p->nslots; i++)
		info->usable += st[i] == MRC_EV_STATE_GOOD && p->slots[i].port;
	if (p->cfg.mode == MRC_EV_MODE_AUTO)
		info->usable = p->cfg.ev_count;
	if (!(what & MRC_EV_READ_ARRAY)) {
		kvfree(st);
		return 0;
	}
	info->states = st;
	info->slots = kvcalloc(max_t(u32, p->nslots, 1),
			       sizeof(*info->slots), GFP_KERNEL);
	if (!info->slots)
		return -ENOMEM;
	if (p->nslots)
		memcpy(info->slots, p->slots, p->nslots * sizeof(*p->slots));
	return 0;
}

/* What mrc_ev_read() and mrc_ev_get() allocated in @info. */
void mrc_ev_info_release(struct mrc_ev_info *info)
{
	kvfree(info->slots);
	kvfree(info->states);
	kvfree(info->query);
	info->slots = NULL;
	info->states = NULL;
	info->query = NULL;
}

/*
 * A copy of EV profile @id into *@info, or (@next) of the first whose id
 * is @id or above, with its array if @what asks; -ENOENT when there is
 * none (INIT).  mrc_ev_info_release() frees what it holds.
 */
int mrc_ev_read(struct mrc_dev *dev, u64 id, bool next, u32 what,
		struct mrc_ev_info *info)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct list_head *node;
	int err = -ENOENT;

	memset(info, 0, sizeof(*info));
	mutex_lock(&ctl->lock);
	node = next ? mrc_prof_next(&ctl->evps, id) :
		      mrc_prof_find(&ctl->evps, id);
	if (node)
		err = mrc_ev_info_fill(dev, list_entry(node,
						       struct mrc_ev_profile,
						       node),
				       what, info);
	mutex_unlock(&ctl->lock);
	if (err)
		mrc_ev_info_release(info);
	return err;
}

/* The slots the entries of query @args name, into info->query. */
static int mrc_ev_query_slots(struct mrc_ev_profile *p, struct mrc_ev_args *args,
			      struct mrc_ev_info *info)
{
	const struct mrc_ev_entry_args *r;
	u32 k, i;
	int err;

	info->query = kvcalloc(max_t(u32, args->nentries, 1),
			       sizeof(*info->query), GFP_KERNEL);
	if (!info->query)
		return -ENOMEM;
	for (k = 0; k < args->nentries; k++) {
		r = &args->entries[k];
		if (r->has_index) {
			i = r->index;
		} else {
			err = mrc_ev_entry_has_ev(args, k, r->has_value,
						  r->has_port, MRC_EV_E_VALUE,
						  MRC_EV_E_PORT);
			if (err)
				return err;
			i = mrc_slot_find(p->slots, p->nslots, &r->ev);
		}
		if (i >= p->nslots) {
			mrc_ev_refuse_entry(args, k, 0,
					    "the profile has no such EV");
			return -ENOENT;
		}
		info->query[info->nquery++] = i;
	}
	return 0;
}

/*
 * ev-profile-get: profile args->prof.id into *@info with, for the query
 * ops, its array and the slots a query-state names.  On error,
 * args->prof.err says what was refused.  mrc_ev_info_release() frees what
 * @info holds.
 */
int mrc_ev_get(struct mrc_dev *dev, struct mrc_ev_args *args,
	       struct mrc_ev_info *info)
{
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_ev_profile *p;
	int err;

	memset(info, 0, sizeof(*info));
	if (args->has_op && args->op != MRC_EV_OP_QUERY_STATE &&
	    args->op != MRC_EV_OP_QUERY_ARRAY) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_OP,
				"ev-profile-get takes query-state or query-array; changes are in ev-profile-set");
		return -EINVAL;
	}
	if (args->nentries &&
	    (!args->has_op || args->op != MRC_EV_OP_QUERY_STATE)) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_ENTRY,
				"ev entries go with query-state");
		return -EINVAL;
	}

	mutex_lock(&ctl->lock);
	p = mrc_evp_find(ctl, args->prof.id);
	if (!p) {
		mrc_prof_refuse(&args->prof, MRC_PROF_F_ID,
				"the EV profile is in INIT");
		err = -ENOENT;
		goto out;
	}
	if (args->has_op && p->cfg.mode == MRC_EV_MODE_AUTO) {
		mrc_prof_refuse(&args->prof, MRC_EV_F_OP,
				"an auto profile has no EV array");
		err = -EINVAL;
		goto out;
	}
	err = mrc_ev_info_fill(dev, p, args->has_op ? MRC_EV_READ_ARRAY : 0,
			       info);
	if (!err && args->nentries)
		err = mrc_ev_query_slots(p, args, info);
out:
	mutex_unlock(&ctl->lock);
	if (err)
		mrc_ev_info_release(info);
	return err;
}

/* When the device goes: no QP is left, so nothing is bound. */
void mrc_ev_free_all(struct mrc_ctl *ctl)
{
	struct mrc_ev_profile *e, *en;

	list_for_each_entry_safe(e, en, &ctl->evps, node)
		mrc_ev_release(ctl, e);
}

/* --- the datapath's reads --------------------------------------------------- */

/*
 * The EVs of @qp's EV profile (at most @max), with its DENIED slots set in
 * @denied and its ev-min-active in *@min_active; 0 for the built-in
 * behaviour (no profile, or an AUTO one).  Atomic context.
 */
unsigned int mrc_profile_qp_evs(struct mrc_qp *qp, struct mrc_path *evs,
				unsigned long *denied, unsigned int max,
				u32 *min_active)
{
	struct mrc_ev_profile *p = qp->ev_profile;
	unsigned int i, n = 0;

	*min_active = 0;
	if (!p)
		return 0;
	spin_lock_bh(&p->lock);
	*min_active = p->cfg.min_active;
	if (p->cfg.mode != MRC_EV_MODE_AUTO) {
		n = min(p->nslots, max);
		for (i = 0; i < n; i++) {
			evs[i] = p->slots[i].path;
			if (p->slots[i].denied)
				__set_bit(i, denied);
			else
				__clear_bit(i, denied);
		}
	}
	spin_unlock_bh(&p->lock);
	return n;
}

/*
 * For an EV event of @qp on slot @slot: the EV's value bytes and port, its
 * profile's id and event mask.  false for QPs on the built-in profile.
 * Atomic context; dp.lock held by the caller (AUTO profiles read the QP's
 * own EVs).
 */
bool mrc_profile_qp_ev_value(struct mrc_qp *qp, u32 slot, u8 *val, u8 *len,
			     u8 *port, u64 *profile_id, u32 *event_mask)
{
	struct mrc_ev_profile *p = qp->ev_profile;
	bool ok = true;

	if (!p)
		return false;
	*profile_id = p->id;
	memset(val, 0, MRC_EV_MAX_BYTES);
	spin_lock_bh(&p->lock);
	*event_mask = p->cfg.event_mask;
	if (p->cfg.mode == MRC_EV_MODE_AUTO) {
		if (slot < qp->dp.ev.count) {
			val[0] = qp->dp.ev.paths[slot].sport >> BITS_PER_BYTE;
			val[1] = qp->dp.ev.paths[slot].sport & U8_MAX;
			*len = sizeof(u16);
			*port = qp->dp.ev.paths[slot].port;
		} else {
			ok = false;
		}
	} else if (slot < p->nslots) {
		memcpy(val, p->slots[slot].val, MRC_EV_MAX_BYTES);
		*len = max_t(u8, p->slots[slot].len, 1);
		*port = p->slots[slot].port;
	} else {
		ok = false;
	}
	spin_unlock_bh(&p->lock);
	return ok;
}
