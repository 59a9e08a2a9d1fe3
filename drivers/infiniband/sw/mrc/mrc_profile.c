// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: EV format, EV and CC profiles, the device defaults, and the
 * binding of QPs to profiles (Documentation/mrc/netlink.rst).
 *
 * Every change runs under ctl->lock (a mutex) and is built on a copy of
 * the profile's configuration: everything a request asks is checked before
 * anything is applied.  The datapath reads an EV profile's array in atomic
 * context under the profile's spinlock; a changed array is built aside and
 * swapped in under that lock.
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

static u32 mrc_fmt_width(const struct mrc_fmt_cfg *f)
{
	u32 i, w = 0;

	for (i = 0; i < f->nfields; i++)
		w += f->width[i];
	return w;
}

static u32 mrc_fmt_mode_bits(u32 mode)
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

/* --- lookups --------------------------------------------------------------- */

/*
 * The lists of profiles are sorted by id.  Every profile struct starts
 * with its list node and its id (BUILD_BUG_ON in mrc_profile_dev_init).
 */
struct mrc_prof_head {
	struct list_head node;
	u64 id;
};

static struct list_head *mrc_list_find(struct list_head *head, u64 id)
{
	struct mrc_prof_head *p;

	list_for_each_entry(p, head, node) {
		if (p->id == id)
			return &p->node;
	}
	return NULL;
}

static void mrc_list_insert(struct list_head *head, struct list_head *node)
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

static struct mrc_fmt_profile *mrc_fmt_find(struct list_head *head, u64 id)
{
	struct list_head *node = mrc_list_find(head, id);

	return node ? list_entry(node, struct mrc_fmt_profile, node) : NULL;
}

static struct mrc_ev_profile *mrc_evp_find(struct list_head *head, u64 id)
{
	struct list_head *node = mrc_list_find(head, id);

	return node ? list_entry(node, struct mrc_ev_profile, node) : NULL;
}

static struct mrc_cc_profile *mrc_cc_find(struct list_head *head, u64 id)
{
	struct list_head *node = mrc_list_find(head, id);

	return node ? list_entry(node, struct mrc_cc_profile, node) : NULL;
}

static u32 mrc_get_u32(const struct nlattr *attr)
{
	return attr ? nla_get_u32(attr) : 0;
}

static u64 mrc_attr_id(struct nlattr **tb, int type,
		       struct netlink_ext_ack *extack)
{
	if (!tb[type]) {
		NL_SET_ERR_MSG(extack, "id is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, type);
		return 0;
	}
	return nla_get_u64(tb[type]);
}

/*
 * The state a set request moves a profile in state @cur to, in *@target:
 * checks cur-state and that the move is an arrow of the state machine.
 */
static int mrc_state_target(u32 cur, struct nlattr *state,
			    struct nlattr *cur_state, u32 *target,
			    struct netlink_ext_ack *extack)
{
	u32 t;

	if (cur_state && nla_get_u32(cur_state) != cur) {
		NL_SET_ERR_MSG_ATTR(extack, cur_state,
				    "the profile is not in cur-state");
		return -EINVAL;
	}
	t = state ? nla_get_u32(state) : cur;
	if ((cur == MRC_PROFILE_STATE_INIT && t == MRC_PROFILE_STATE_ONLINE) ||
	    (cur == MRC_PROFILE_STATE_ONLINE && t == MRC_PROFILE_STATE_INIT)) {
		NL_SET_ERR_MSG_ATTR(extack, state,
				    "no such transition: INIT and ONLINE go through OFFLINE");
		return -EINVAL;
	}
	*target = t;
	return 0;
}

/*
 * May a profile bound to @qp_count QPs, the device's default or not, go
 * from ONLINE to OFFLINE (@state: the attribute asking)?
 */
static int mrc_prof_leave_online(u32 qp_count, bool is_default,
				 struct nlattr *state,
				 struct netlink_ext_ack *extack)
{
	if (qp_count) {
		NL_SET_ERR_MSG_ATTR(extack, state, "QPs are bound to the profile");
		return -EBUSY;
	}
	if (is_default) {
		NL_SET_ERR_MSG_ATTR(extack, state,
				    "the profile is the device's default");
		return -EBUSY;
	}
	return 0;
}

/* The first of @types present in @tb, or NULL. */
static struct nlattr *mrc_first_attr(struct nlattr **tb, const int *types,
				     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (tb[types[i]])
			return tb[types[i]];
	return NULL;
}

/* --- EV format profiles ---------------------------------------------------- */

static int mrc_fmt_parse_fields(struct genl_info *info,
				struct mrc_fmt_cfg *c)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *ftb[MRC_A_FMT_FIELD_MAX + 1];
	struct nlattr *nest;
	u32 n = 0;
	int rem, err;

	nla_for_each_attr(nest, mrc_req_attrs(info), mrc_req_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_FMT_PROFILE_FIELD)
			continue;
		if (n == MRC_CTL_MAX_FIELDS) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "too many fields");
			return -E2BIG;
		}
		err = nla_parse_nested(ftb, MRC_A_FMT_FIELD_MAX, nest,
				       mrc_fmt_field_nl_policy, extack);
		if (err)
			return err;
		if (!ftb[MRC_A_FMT_FIELD_WIDTH]) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "a field needs its width");
			NL_SET_ERR_ATTR_MISS(extack, nest, MRC_A_FMT_FIELD_WIDTH);
			return -EINVAL;
		}
		c->width[n++] = nla_get_u32(ftb[MRC_A_FMT_FIELD_WIDTH]);
	}
	c->nfields = n;
	return 0;
}

/*
 * What a format profile's state allows a set request (@change: the first
 * attribute that changes it): deleted going to INIT (returns 1: done),
 * only its state while ONLINE, room for a new one.
 */
static int mrc_fmt_set_state(struct mrc_ctl *ctl, struct mrc_fmt_profile *p,
			     u32 cur, u32 target, struct nlattr *change,
			     struct netlink_ext_ack *extack)
{
	if (target == MRC_PROFILE_STATE_INIT) {
		if (change) {
			NL_SET_ERR_MSG_ATTR(extack, change,
					    "a profile in or going to INIT takes no attributes");
			return -EINVAL;
		}
		if (!p)
			return 1;
		if (p->users) {
			NL_SET_ERR_MSG(extack, "EV profiles out of INIT use this format");
			return -EBUSY;
		}
		list_del(&p->node);
		ctl->nfmts--;
		kfree(p);
		return 1;
	}
	if (cur == MRC_PROFILE_STATE_ONLINE && change) {
		NL_SET_ERR_MSG_ATTR(extack, change,
				    "an ONLINE format profile changes only its state");
		return -EINVAL;
	}
	if (!p && ctl->nfmts >= MRC_CTL_MAX_FMT_PROFILES) {
		NL_SET_ERR_MSG(extack, "the device has no room for another format profile");
		return -ENOSPC;
	}
	return 0;
}

/* The configuration @c (the profile's, or empty) a set request makes. */
static int mrc_fmt_set_cfg(struct genl_info *info, bool exists, u32 target,
			   struct mrc_fmt_cfg *c)
{
	struct nlattr *mode = info->attrs[MRC_A_EV_FMT_PROFILE_MODE];
	struct nlattr *fields = info->attrs[MRC_A_EV_FMT_PROFILE_FIELD];
	struct netlink_ext_ack *extack = info->extack;
	u32 width;
	int err;

	if (mode) {
		c->mode = nla_get_u32(mode);
		if (hweight32(c->mode) != 1) {
			NL_SET_ERR_MSG_ATTR(extack, mode,
					    "mode must be exactly one format mode");
			return -EINVAL;
		}
	} else if (!exists) {
		NL_SET_ERR_MSG(extack, "mode is required to leave INIT");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_FMT_PROFILE_MODE);
		return -EINVAL;
	}
	if (fields) {
		err = mrc_fmt_parse_fields(info, c);
		if (err)
			return err;
	}
	width = mrc_fmt_width(c);
	if (width > mrc_fmt_mode_bits(c->mode) ||
	    width > MRC_CTL_EV_MAX_WIDTH) {
		NL_SET_ERR_MSG_ATTR(extack, fields ?: mode,
				    "the field widths add up to more than the mode allows");
		return -E2BIG;
	}
	if (target == MRC_PROFILE_STATE_ONLINE && !c->nfields) {
		NL_SET_ERR_MSG(extack, "fields are required to go ONLINE");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_FMT_PROFILE_FIELD);
		return -EINVAL;
	}
	return 0;
}

int mrc_profile_fmt_set(struct mrc_dev *dev, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	static const int changes[] = {
		MRC_A_EV_FMT_PROFILE_MODE, MRC_A_EV_FMT_PROFILE_FIELD,
	};
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_fmt_profile *p;
	struct mrc_fmt_cfg c = {};
	u32 cur, target;
	u64 id;
	int err;

	id = mrc_attr_id(tb, MRC_A_EV_FMT_PROFILE_ID, extack);
	if (!id)
		return -EINVAL;

	mutex_lock(&ctl->lock);
	p = mrc_fmt_find(&ctl->fmts, id);
	cur = p ? p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_state_target(cur, tb[MRC_A_EV_FMT_PROFILE_STATE],
			       tb[MRC_A_EV_FMT_PROFILE_CUR_STATE], &target,
			       extack) ?:
	      mrc_fmt_set_state(ctl, p, cur, target,
				mrc_first_attr(tb, changes, ARRAY_SIZE(changes)),
				extack);
	if (err)
		goto out;
	if (p)
		c = p->cfg;
	err = mrc_fmt_set_cfg(info, p, target, &c);
	if (err)
		goto out;
	if (cur == MRC_PROFILE_STATE_ONLINE &&
	    target == MRC_PROFILE_STATE_OFFLINE && p->online_users) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EV_FMT_PROFILE_STATE],
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
		p->id = id;
		mrc_list_insert(&ctl->fmts, &p->node);
		ctl->nfmts++;
	}
	p->cfg = c;
out:
	mutex_unlock(&ctl->lock);
	return err < 0 ? err : 0;
}

static int mrc_fmt_fill(struct sk_buff *skb, struct mrc_dev *dev,
			const struct mrc_fmt_profile *p, u32 portid, u32 seq,
			int flags)
{
	struct nlattr *nest;
	void *hdr;
	u32 i;

	hdr = mrc_nl_msg_put(skb, portid, seq, flags,
			     MRC_CMD_EV_FMT_PROFILE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_EV_FMT_PROFILE_ID, p->id,
			      MRC_A_EV_FMT_PROFILE_PAD) ||
	    nla_put_u32(skb, MRC_A_EV_FMT_PROFILE_STATE, p->cfg.state) ||
	    nla_put_u32(skb, MRC_A_EV_FMT_PROFILE_MODE, p->cfg.mode))
		goto cancel;
	for (i = 0; i < p->cfg.nfields; i++) {
		nest = nla_nest_start(skb, MRC_A_EV_FMT_PROFILE_FIELD);
		if (!nest ||
		    nla_put_u32(skb, MRC_A_FMT_FIELD_WIDTH, p->cfg.width[i]))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	if (nla_put_u32(skb, MRC_A_EV_FMT_PROFILE_WIDTH,
			mrc_fmt_width(&p->cfg)) ||
	    nla_put_u32(skb, MRC_A_EV_FMT_PROFILE_USERS, p->users))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

struct sk_buff *mrc_profile_fmt_get(struct mrc_dev *dev,
				    struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_fmt_profile *p;
	struct sk_buff *msg;
	u64 id;
	int err;

	id = mrc_attr_id(tb, MRC_A_EV_FMT_PROFILE_ID, info->extack);
	if (!id)
		return ERR_PTR(-EINVAL);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&ctl->lock);
	p = mrc_fmt_find(&ctl->fmts, id);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_A_EV_FMT_PROFILE_ID],
				    "the format profile is in INIT");
		err = -ENOENT;
	} else if (tb[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE] &&
		   nla_get_u32(tb[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE]) <
		   p->cfg.nfields) {
		mrc_nl_set_e2big(info->extack,
				 tb[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE],
				 p->cfg.nfields);
		err = -E2BIG;
	} else {
		err = mrc_fmt_fill(msg, dev, p, info->snd_portid,
				   info->snd_seq, 0);
	}
	mutex_unlock(&ctl->lock);
	if (err) {
		nlmsg_free(msg);
		return ERR_PTR(err);
	}
	return msg;
}

int mrc_profile_fmt_dump(struct sk_buff *skb, struct netlink_callback *cb,
			 struct mrc_dev *dev, unsigned long *pos)
{
	struct mrc_fmt_profile *p;
	int err = 0;

	mutex_lock(&dev->ctl->lock);
	list_for_each_entry(p, &dev->ctl->fmts, node) {
		if (p->id < *pos)
			continue;
		err = mrc_fmt_fill(skb, dev, p, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*pos = p->id;
			break;
		}
	}
	mutex_unlock(&dev->ctl->lock);
	return err;
}

/* --- EV profiles ------------------------------------------------------------ */

/* Check one field against the rules that need no format. */
static int mrc_ev_field_check(const struct mrc_ev_field *f,
			      const struct nlattr *nest,
			      struct netlink_ext_ack *extack)
{
	u32 wmask = f->width == 32 ? U32_MAX : BIT(f->width) - 1;
	u32 n = hweight32(f->mask);
	u32 vmax = n == 32 ? U32_MAX : BIT(n) - 1;

	if (f->init_val & ~wmask) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "init-val does not fit the width");
		return -EINVAL;
	}
	if (f->mask & ~wmask) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "mask bits lie outside the width");
		return -EINVAL;
	}
	if (f->max_val > vmax) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "max-val is above 2^popcount(mask) - 1");
		return -EINVAL;
	}
	if (f->min_val > f->max_val) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "min-val is above max-val");
		return -EINVAL;
	}
	return 0;
}

static int mrc_ev_parse_fields(struct genl_info *info, struct mrc_ev_cfg *c)
{
	struct nlattr *first = info->attrs[MRC_A_EV_PROFILE_FIELD];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *ftb[MRC_A_EV_FIELD_MAX + 1];
	struct nlattr *nest;
	u32 n = 0, bits = 0;
	int rem, err;

	nla_for_each_attr(nest, mrc_req_attrs(info), mrc_req_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_PROFILE_FIELD)
			continue;
		struct mrc_ev_field *f = &c->field[n];

		if (n == MRC_CTL_MAX_FIELDS) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "too many fields");
			return -E2BIG;
		}
		err = nla_parse_nested(ftb, MRC_A_EV_FIELD_MAX, nest,
				       mrc_ev_field_nl_policy, extack);
		if (err)
			return err;
		if (!ftb[MRC_A_EV_FIELD_WIDTH]) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "a field needs its width");
			NL_SET_ERR_ATTR_MISS(extack, nest, MRC_A_EV_FIELD_WIDTH);
			return -EINVAL;
		}
		f->width = nla_get_u32(ftb[MRC_A_EV_FIELD_WIDTH]);
		f->init_val = mrc_get_u32(ftb[MRC_A_EV_FIELD_INIT_VAL]);
		f->min_val = mrc_get_u32(ftb[MRC_A_EV_FIELD_MIN_VAL]);
		f->max_val = mrc_get_u32(ftb[MRC_A_EV_FIELD_MAX_VAL]);
		f->mask = mrc_get_u32(ftb[MRC_A_EV_FIELD_MASK]);
		err = mrc_ev_field_check(f, nest, extack);
		if (err)
			return err;
		bits += hweight32(f->mask);
		n++;
	}
	if (bits > MRC_EV_MAX_BITS) {
		NL_SET_ERR_MSG_ATTR(extack, first,
				    "the fields take more EV bits than an EV has");
		return -E2BIG;
	}
	c->nfields = n;
	return 0;
}

/* Check the profile's fields against its format's (if it has them). */
static int mrc_ev_fields_vs_fmt(const struct mrc_ev_cfg *c,
				const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	const struct mrc_fmt_cfg *f = &c->fmt->cfg;
	u32 i;

	if (!f->nfields)
		return 0;
	if (c->nfields > f->nfields) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "more fields than the format profile has");
		return -E2BIG;
	}
	for (i = 0; i < c->nfields; i++) {
		if (c->field[i].width > f->width[i]) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
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
			   struct netlink_ext_ack *extack)
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
		NL_SET_ERR_MSG(extack, "the fields generate no usable EV");
		return -EINVAL;
	}
	c->ev_count = k;
	*slotsp = slots;
	return 0;
}

static bool mrc_slot_match(const struct mrc_evp_slot *s, const u8 *val,
			   u8 port)
{
	return s->port == port && !memcmp(s->val, val, MRC_EV_MAX_BYTES);
}

/* The EV an entry names by value (attribute @vtype) and port (@ptype). */
static int mrc_entry_ev(struct nlattr *const *etb, struct nlattr *nest,
			int vtype, int ptype, u8 *val, u8 *len, u8 *port,
			struct netlink_ext_ack *extack)
{
	int n;

	if (!etb[vtype] || !etb[ptype]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the entry needs a value and a port");
		NL_SET_ERR_ATTR_MISS(extack, nest, etb[vtype] ? ptype : vtype);
		return -EINVAL;
	}
	n = mrc_ev_attr_len(etb[vtype], extack);
	if (n < 0)
		return n;
	memset(val, 0, MRC_EV_MAX_BYTES);
	*len = n;
	memcpy(val, nla_data(etb[vtype]), n);
	*port = nla_get_u32(etb[ptype]);
	return 0;
}

/* One entry of a set request's EV operation, parsed. */
struct mrc_ev_entry {
	struct nlattr *tb[MRC_A_EV_ENTRY_MAX + 1];
	struct nlattr *nest;
	u32 state;			/* good or denied */
	u32 first;			/* the first slot it names */
	bool all;			/* ... and every other slot holding it */
	u8 val[MRC_EV_MAX_BYTES];	/* the EV it names, if by value */
	u8 len;
	u8 port;
};

/* Does slot @i hold the EV entry @e names? */
static bool mrc_ev_entry_names(const struct mrc_ev_entry *e,
			       const struct mrc_evp_slot *slots, u32 i)
{
	if (i == e->first)
		return true;
	return e->all && mrc_slot_match(&slots[i], e->val, e->port);
}

/*
 * Parse entry @nest of an @op request into @e: its state, and the slots
 * it names (by index, or by value and port) among @slots (@n of them).
 */
static int mrc_ev_entry_parse(struct mrc_ev_entry *e, struct nlattr *nest,
			      u32 op, const struct mrc_evp_slot *slots, u32 n,
			      struct netlink_ext_ack *extack)
{
	struct nlattr **etb = e->tb;
	int err;

	e->nest = nest;
	err = nla_parse_nested(etb, MRC_A_EV_ENTRY_MAX, nest,
			       mrc_ev_entry_nl_policy, extack);
	if (err)
		return err;
	if (!etb[MRC_A_EV_ENTRY_STATE]) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the entry needs a state");
		NL_SET_ERR_ATTR_MISS(extack, nest, MRC_A_EV_ENTRY_STATE);
		return -EINVAL;
	}
	e->state = nla_get_u32(etb[MRC_A_EV_ENTRY_STATE]);
	if (e->state != MRC_EV_STATE_GOOD && e->state != MRC_EV_STATE_DENIED) {
		NL_SET_ERR_MSG_ATTR(extack, etb[MRC_A_EV_ENTRY_STATE],
				    "the controller sets only good or denied");
		return -EINVAL;
	}

	if (etb[MRC_A_EV_ENTRY_INDEX]) {
		e->first = nla_get_u32(etb[MRC_A_EV_ENTRY_INDEX]);
		e->all = false;
		if (e->first < n)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, etb[MRC_A_EV_ENTRY_INDEX],
				    "no such slot");
		return -ENOENT;
	}
	err = mrc_entry_ev(etb, nest, MRC_A_EV_ENTRY_VALUE, MRC_A_EV_ENTRY_PORT,
			   e->val, &e->len, &e->port, extack);
	if (err)
		return err;
	for (e->first = 0; e->first < n; e->first++)
		if (mrc_slot_match(&slots[e->first], e->val, e->port))
			break;
	if (e->first == n) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "the profile has no such EV");
		return -ENOENT;
	}
	e->all = op == MRC_EV_OP_MODIFY_STATE ||
		 (etb[MRC_A_EV_ENTRY_FLAGS] &&
		  (nla_get_u32(etb[MRC_A_EV_ENTRY_FLAGS]) &
		   MRC_EV_OP_FLAGS_ALL_COPIES));
	return 0;
}

/* MODIFY_STATE: @e's state on every slot holding its EV. */
static int mrc_ev_entry_modify(const struct mrc_ev_entry *e,
			       struct mrc_evp_slot *slots, u32 n,
			       struct netlink_ext_ack *extack)
{
	u32 i;

	for (i = e->first; i < n; i++) {
		if (!mrc_ev_entry_names(e, slots, i))
			continue;
		if (!slots[i].port) {
			NL_SET_ERR_MSG_ATTR(extack, e->nest,
					    "the slot is unpopulated");
			return -EINVAL;
		}
		slots[i].denied = e->state == MRC_EV_STATE_DENIED;
	}
	return 0;
}

/* REPLACE: the new EV of @e, checked, in the slots it names. */
static int mrc_ev_entry_replace(struct mrc_dev *dev, const struct mrc_ev_cfg *c,
				const struct mrc_ev_entry *e,
				struct mrc_evp_slot *slots, u32 n,
				struct netlink_ext_ack *extack)
{
	struct nlattr *const *etb = e->tb;
	u8 nval[MRC_EV_MAX_BYTES], nlen, nport;
	struct mrc_path path = {};
	struct mrc_evp_slot *s;
	u32 i;
	int err;

	err = mrc_entry_ev(etb, e->nest, MRC_A_EV_ENTRY_NEW_VALUE,
			   MRC_A_EV_ENTRY_NEW_PORT, nval, &nlen, &nport, extack);
	if (err)
		return err;
	if (!rdma_is_port_valid(&dev->ibdev, nport)) {
		NL_SET_ERR_MSG_ATTR(extack, etb[MRC_A_EV_ENTRY_NEW_PORT],
				    "the device has no such port");
		return -EINVAL;
	}
	if (c->fmt->cfg.nfields &&
	    mrc_ev_expand(c, &c->fmt->cfg, nval, nport, &path)) {
		NL_SET_ERR_MSG_ATTR(extack, etb[MRC_A_EV_ENTRY_NEW_VALUE],
				    "the new EV does not fit the fields and format (or gives UDP source port 0)");
		return -EINVAL;
	}
	for (i = e->first; i < n; i++) {
		if (!mrc_ev_entry_names(e, slots, i))
			continue;
		s = &slots[i];
		if (s->port && s->port != nport) {
			NL_SET_ERR_MSG_ATTR(extack, etb[MRC_A_EV_ENTRY_NEW_PORT],
					    "a replacement EV must stay on the plane (port) of the old one");
			return -EINVAL;
		}
		memcpy(s->val, nval, MRC_EV_MAX_BYTES);
		s->len = nlen;
		s->port = nport;
		s->denied = e->state == MRC_EV_STATE_DENIED;
		s->path = path;
	}
	return 0;
}

/* Expand every slot again (going ONLINE, or new fields while ONLINE). */
static int mrc_ev_expand_all(const struct mrc_ev_cfg *c,
			     struct mrc_evp_slot *slots, u32 n,
			     struct netlink_ext_ack *extack)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (!slots[i].port) {
			NL_SET_ERR_MSG(extack,
				       "every slot must be populated to go ONLINE");
			return -EINVAL;
		}
		if (mrc_ev_expand(c, &c->fmt->cfg, slots[i].val, slots[i].port,
				  &slots[i].path)) {
			NL_SET_ERR_MSG(extack,
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

static bool mrc_ev_is_srv6(const struct mrc_ev_profile *p)
{
	return p->cfg.fmt && p->cfg.fmt->cfg.mode == MRC_EV_FMT_MODE_SRV6;
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
 * One ev-profile-set, in steps (mrc_profile_ev_set): the profile @p as it
 * is, the configuration @c and the array @slots it would have.  The
 * request owns @slots from the step that builds them until the commit
 * hands them to the profile, so a failing step leaves the profile as it
 * was, the entries of an EV operation included.
 */
struct mrc_ev_set {
	struct mrc_dev *dev;
	struct genl_info *info;
	struct nlattr **tb;
	struct netlink_ext_ack *extack;
	struct nlattr *change;		/* the first attribute that changes @c */
	u64 id;
	u32 op;				/* of the entries: MRC_EV_OP_* */
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

/* The request's id and EV operation; nothing locked, nothing looked up. */
static int mrc_ev_set_args(struct mrc_ev_set *s)
{
	struct nlattr *opa = s->tb[MRC_A_EV_PROFILE_EV_OP];
	struct nlattr *ops = s->tb[MRC_A_EV_PROFILE_EV];
	struct netlink_ext_ack *extack = s->extack;
	static const int changes[] = {
		MRC_A_EV_PROFILE_MODE, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
		MRC_A_EV_PROFILE_EV_COUNT, MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
		MRC_A_EV_PROFILE_EVENT_MASK, MRC_A_EV_PROFILE_FIELD,
	};

	s->change = mrc_first_attr(s->tb, changes, ARRAY_SIZE(changes));
	s->id = mrc_attr_id(s->tb, MRC_A_EV_PROFILE_ID, extack);
	if (!s->id)
		return -EINVAL;
	if (opa) {
		s->op = nla_get_u32(opa);
		if (s->op != MRC_EV_OP_REPLACE &&
		    s->op != MRC_EV_OP_MODIFY_STATE) {
			NL_SET_ERR_MSG_ATTR(extack, opa,
					    "ev-profile-set takes replace or modify-state; queries are in ev-profile-get");
			return -EINVAL;
		}
	}
	if (!ops)
		return 0;
	if (!opa) {
		NL_SET_ERR_MSG_ATTR(extack, ops, "ev entries need ev-op");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_EV_OP);
		return -EINVAL;
	}
	if (mrc_req_count(s->info, MRC_A_EV_PROFILE_EV) >
	    MRC_CTL_EV_OP_MAX_ENTRIES) {
		NL_SET_ERR_MSG_ATTR(extack, ops,
				    "more entries than ev-op-max-entries");
		return -E2BIG;
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
	static const int offline_only[] = {
		MRC_A_EV_PROFILE_MODE, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
		MRC_A_EV_PROFILE_EV_COUNT, MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
	};
	struct netlink_ext_ack *extack = s->extack;
	struct nlattr *state = s->tb[MRC_A_EV_PROFILE_STATE];
	struct mrc_ctl *ctl = s->dev->ctl;
	struct nlattr *bad;
	int err;

	s->p = mrc_evp_find(&ctl->evps, s->id);
	s->cur = s->p ? s->p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_state_target(s->cur, state,
			       s->tb[MRC_A_EV_PROFILE_CUR_STATE], &s->target,
			       extack);
	if (err)
		return err;

	if (s->target == MRC_PROFILE_STATE_INIT) {
		bad = s->change ?: s->tb[MRC_A_EV_PROFILE_EV];
		if (bad) {
			NL_SET_ERR_MSG_ATTR(extack, bad,
					    "a profile in or going to INIT takes no attributes");
			return -EINVAL;
		}
		if (s->p)
			mrc_ev_release(ctl, s->p);
		return 1;
	}
	if (s->cur == MRC_PROFILE_STATE_ONLINE) {
		bad = mrc_first_attr(s->tb, offline_only,
				     ARRAY_SIZE(offline_only));
		if (bad) {
			NL_SET_ERR_MSG_ATTR(extack, bad,
					    "this attribute cannot change while the profile is ONLINE");
			return -EINVAL;
		}
		if (s->target == MRC_PROFILE_STATE_OFFLINE)
			return mrc_prof_leave_online(s->p->qp_count,
						     ctl->def_ev == s->p,
						     state, extack);
	}
	if (!s->p && ctl->nevps >= MRC_CTL_MAX_EV_PROFILES) {
		NL_SET_ERR_MSG(extack, "the device has no room for another EV profile");
		return -ENOSPC;
	}
	return 0;
}

/* The mode and format profile the profile would have. */
static int mrc_ev_set_mode(struct mrc_ev_set *s)
{
	struct nlattr *mode = s->tb[MRC_A_EV_PROFILE_MODE];
	struct nlattr *fmt = s->tb[MRC_A_EV_PROFILE_FMT_PROFILE_ID];
	struct netlink_ext_ack *extack = s->extack;
	struct mrc_ev_cfg *c = &s->c;
	struct mrc_fmt_profile *f;
	u32 m;

	if (mode) {
		m = nla_get_u32(mode);
		if (hweight32(m) != 1) {
			NL_SET_ERR_MSG_ATTR(extack, mode,
					    "mode must be exactly one EV mode");
			return -EINVAL;
		}
		if (m != c->mode) {
			s->regen = true;
			s->resize = true;
		}
		c->mode = m;
	} else if (!s->p) {
		NL_SET_ERR_MSG(extack, "mode is required to leave INIT");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_MODE);
		return -EINVAL;
	}

	if (fmt) {
		if (c->mode == MRC_EV_MODE_AUTO) {
			NL_SET_ERR_MSG_ATTR(extack, fmt, "an auto profile has no format");
			return -EINVAL;
		}
		f = mrc_fmt_find(&s->dev->ctl->fmts, nla_get_u64(fmt));
		if (!f) {
			NL_SET_ERR_MSG_ATTR(extack, fmt, "the format profile is in INIT");
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
		NL_SET_ERR_MSG(extack, "exp and gen profiles need fmt-profile-id");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_FMT_PROFILE_ID);
		return -EINVAL;
	}
	return 0;
}

/* The EV count, the floor of active EVs and the event mask. */
static int mrc_ev_set_count(struct mrc_ev_set *s)
{
	struct nlattr *count = s->tb[MRC_A_EV_PROFILE_EV_COUNT];
	struct nlattr *min_active = s->tb[MRC_A_EV_PROFILE_EV_MIN_ACTIVE];
	struct nlattr *mask = s->tb[MRC_A_EV_PROFILE_EVENT_MASK];
	struct netlink_ext_ack *extack = s->extack;
	struct mrc_ev_cfg *c = &s->c;
	u32 n;

	if (count) {
		n = nla_get_u32(count);
		if (n > MRC_CTL_EV_MAX_COUNT_PROFILE) {
			NL_SET_ERR_MSG_ATTR(extack, count,
					    "ev-count is above ev-max-count-profile");
			return -E2BIG;
		}
		if (c->mode == MRC_EV_MODE_EXP && n % MRC_CTL_EV_COUNT_ALIGN) {
			NL_SET_ERR_MSG_ATTR(extack, count,
					    "ev-count is not a multiple of ev-count-align");
			return -EINVAL;
		}
		if (n != c->ev_count_req) {
			s->regen = true;
			s->resize = true;
		}
		c->ev_count_req = n;
	} else if (!s->p) {
		NL_SET_ERR_MSG(extack, "ev-count is required to leave INIT");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_EV_COUNT);
		return -EINVAL;
	}
	/* A GEN profile's count is what its fields generate (the array). */
	if (c->mode != MRC_EV_MODE_GEN)
		c->ev_count = c->ev_count_req;

	if (min_active) {
		c->min_active = nla_get_u32(min_active);
		c->has_min_active = true;
	}
	if (mask) {
		c->event_mask = nla_get_u32(mask);
		c->has_event_mask = true;
	}
	return 0;
}

/* The fields, and how they fit the format. */
static int mrc_ev_set_fields(struct mrc_ev_set *s)
{
	struct nlattr *fields = s->tb[MRC_A_EV_PROFILE_FIELD];
	struct netlink_ext_ack *extack = s->extack;
	struct mrc_ev_cfg *c = &s->c;
	int err;

	if (fields) {
		if (c->mode == MRC_EV_MODE_AUTO) {
			NL_SET_ERR_MSG_ATTR(extack, fields,
					    "an auto profile has no fields");
			return -EINVAL;
		}
		err = mrc_ev_parse_fields(s->info, c);
		if (err)
			return err;
		s->regen = true;
		s->reexpand = true;
	}
	if (c->mode == MRC_EV_MODE_GEN && !c->nfields) {
		NL_SET_ERR_MSG(extack, "gen profiles need fields");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_FIELD);
		return -EINVAL;
	}
	if (!c->fmt)
		return 0;
	return mrc_ev_fields_vs_fmt(c, fields ?:
				    s->tb[MRC_A_EV_PROFILE_FMT_PROFILE_ID],
				    extack);
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
		err = mrc_ev_generate(s->dev, c, &s->slots, s->extack);
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
	struct mrc_ev_cfg *c = &s->c;

	if (c->has_min_active && c->min_active > c->ev_count) {
		NL_SET_ERR_MSG_ATTR(s->extack,
				    s->tb[MRC_A_EV_PROFILE_EV_MIN_ACTIVE] ?:
				    s->tb[MRC_A_EV_PROFILE_EV_COUNT],
				    "ev-min-active is above ev-count");
		return -EINVAL;
	}
	if (c->ev_count > old &&
	    s->dev->ctl->ev_used - old + c->ev_count > MRC_CTL_EV_MAX_COUNT) {
		NL_SET_ERR_MSG_ATTR(s->extack, s->tb[MRC_A_EV_PROFILE_EV_COUNT],
				    "ev-count is above what the device has free");
		return -E2BIG;
	}
	return 0;
}

/* The entries of the EV operation, in order, on the request's array. */
static int mrc_ev_set_entries(struct mrc_ev_set *s)
{
	struct netlink_ext_ack *extack = s->extack;
	struct mrc_ev_entry e;
	struct nlattr *nest;
	int rem, err;

	if (!s->tb[MRC_A_EV_PROFILE_EV])
		return 0;
	if (s->c.mode == MRC_EV_MODE_AUTO) {
		NL_SET_ERR_MSG_ATTR(extack, s->tb[MRC_A_EV_PROFILE_EV],
				    "an auto profile has no EV array");
		return -EINVAL;
	}
	nla_for_each_attr(nest, mrc_req_attrs(s->info), mrc_req_len(s->info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_PROFILE_EV)
			continue;
		err = mrc_ev_entry_parse(&e, nest, s->op, s->slots, s->nslots,
					 extack);
		if (!err && s->op == MRC_EV_OP_MODIFY_STATE)
			err = mrc_ev_entry_modify(&e, s->slots, s->nslots,
						  extack);
		else if (!err)
			err = mrc_ev_entry_replace(s->dev, &s->c, &e, s->slots,
						   s->nslots, extack);
		if (err) {
			if (!extack->bad_attr)
				NL_SET_BAD_ATTR(extack, nest);
			return err;
		}
	}
	return 0;
}

/* What going (or staying) ONLINE needs; every slot expanded. */
static int mrc_ev_set_online(struct mrc_ev_set *s)
{
	struct nlattr *state = s->tb[MRC_A_EV_PROFILE_STATE];
	struct netlink_ext_ack *extack = s->extack;
	struct mrc_ev_cfg *c = &s->c;
	int err;

	if (s->target != MRC_PROFILE_STATE_ONLINE)
		return 0;
	if (c->mode != MRC_EV_MODE_AUTO &&
	    c->fmt->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		NL_SET_ERR_MSG_ATTR(extack, state,
				    "the format profile is not ONLINE");
		return -EINVAL;
	}
	if (!c->has_min_active) {
		NL_SET_ERR_MSG(extack, "ev-min-active is required to go ONLINE");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_EV_MIN_ACTIVE);
		return -EINVAL;
	}
	if (!c->has_event_mask) {
		NL_SET_ERR_MSG(extack, "event-mask is required to go ONLINE");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_EV_PROFILE_EVENT_MASK);
		return -EINVAL;
	}
	if (c->mode == MRC_EV_MODE_AUTO ||
	    (s->cur == MRC_PROFILE_STATE_ONLINE && !s->reexpand))
		return 0;
	err = mrc_ev_expand_all(c, s->slots, s->nslots, extack);
	if (err)
		NL_SET_BAD_ATTR(extack, state ?: s->tb[MRC_A_EV_PROFILE_FIELD]);
	return err;
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
		p->id = s->id;
		spin_lock_init(&p->lock);
		mrc_list_insert(&ctl->evps, &p->node);
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
 * ev-profile-set: every step checks or builds on the request's own copy;
 * only the commit changes the profile, so a request that fails at any
 * step (its third EV entry, say) leaves the profile as it was.
 */
int mrc_profile_ev_set(struct mrc_dev *dev, struct genl_info *info)
{
	struct mrc_ev_set s = {
		.dev = dev, .info = info, .tb = info->attrs,
		.extack = info->extack,
	};
	int err;

	err = mrc_ev_set_args(&s);
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

static int mrc_ev_put_entry(struct sk_buff *skb, int type,
			    const struct mrc_evp_slot *s, u32 index, u32 state)
{
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_u32(skb, MRC_A_EV_ENTRY_INDEX, index) ||
	    nla_put(skb, MRC_A_EV_ENTRY_VALUE, max_t(u8, s->len, 1), s->val) ||
	    nla_put_u32(skb, MRC_A_EV_ENTRY_PORT, s->port) ||
	    nla_put_u32(skb, MRC_A_EV_ENTRY_STATE, state))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One ev-profile-get message; with @op MRC_EV_OP_QUERY_ARRAY every EV, with
 * MRC_EV_OP_QUERY_STATE those of @query (slot indices, @nquery).
 */
static int mrc_ev_fill(struct sk_buff *skb, struct mrc_dev *dev,
		       struct mrc_ev_profile *p, u32 portid, u32 seq,
		       int flags, int op, const u32 *query, u32 nquery)
{
	const struct mrc_ev_cfg *c = &p->cfg;
	u32 i, usable = 0, *st;
	struct nlattr *nest;
	void *hdr;
	int err = -EMSGSIZE;

	st = mrc_ev_states(dev, p);
	if (!st)
		return -ENOMEM;
	for (i = 0; i < p->nslots; i++)
		usable += st[i] == MRC_EV_STATE_GOOD && p->slots[i].port;
	if (c->mode == MRC_EV_MODE_AUTO)
		usable = c->ev_count;

	hdr = mrc_nl_msg_put(skb, portid, seq, flags, MRC_CMD_EV_PROFILE_GET);
	if (!hdr)
		goto out;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_ID, p->id,
			      MRC_A_EV_PROFILE_PAD) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_STATE, c->state) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_MODE, c->mode) ||
	    (c->fmt &&
	     nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
			       c->fmt->id, MRC_A_EV_PROFILE_PAD)) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_EV_COUNT, c->ev_count) ||
	    (c->has_min_active &&
	     nla_put_u32(skb, MRC_A_EV_PROFILE_EV_MIN_ACTIVE, c->min_active)) ||
	    (c->has_event_mask &&
	     nla_put_u32(skb, MRC_A_EV_PROFILE_EVENT_MASK, c->event_mask)))
		goto cancel;
	for (i = 0; i < c->nfields; i++) {
		const struct mrc_ev_field *f = &c->field[i];

		nest = nla_nest_start(skb, MRC_A_EV_PROFILE_FIELD);
		if (!nest ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_WIDTH, f->width) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_INIT_VAL, f->init_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MIN_VAL, f->min_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MAX_VAL, f->max_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MASK, f->mask))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	if (op == MRC_EV_OP_QUERY_ARRAY) {
		for (i = 0; i < p->nslots; i++)
			if (mrc_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
					     &p->slots[i], i, st[i]))
				goto cancel;
	} else if (op == MRC_EV_OP_QUERY_STATE) {
		for (i = 0; i < nquery; i++)
			if (mrc_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
					     &p->slots[query[i]], query[i],
					     st[query[i]]))
				goto cancel;
	}
	if (nla_put_u32(skb, MRC_A_EV_PROFILE_QP_COUNT, p->qp_count) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_EV_USABLE, usable))
		goto cancel;
	genlmsg_end(skb, hdr);
	err = 0;
	goto out;
cancel:
	genlmsg_cancel(skb, hdr);
out:
	kvfree(st);
	return err;
}

/* The slots a query-state request names, in *@queryp. */
static int mrc_ev_query_slots(struct mrc_ev_profile *p, struct genl_info *info,
			      u32 **queryp, u32 *nqueryp)
{
	struct nlattr *ops = info->attrs[MRC_A_EV_PROFILE_EV];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *etb[MRC_A_EV_ENTRY_MAX + 1];
	u8 val[MRC_EV_MAX_BYTES], len, port;
	struct nlattr *nest;
	u32 *query, n = 0, i;
	int rem, err;

	n = mrc_req_count(info, MRC_A_EV_PROFILE_EV);
	if (n > MRC_CTL_EV_OP_MAX_ENTRIES) {
		NL_SET_ERR_MSG_ATTR(extack, ops, "more entries than ev-op-max-entries");
		return -E2BIG;
	}
	query = kvcalloc(max_t(u32, n, 1), sizeof(*query), GFP_KERNEL);
	if (!query)
		return -ENOMEM;
	n = 0;
	nla_for_each_attr(nest, mrc_req_attrs(info), mrc_req_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_PROFILE_EV)
			continue;
		err = nla_parse_nested(etb, MRC_A_EV_ENTRY_MAX, nest,
				       mrc_ev_entry_nl_policy, extack);
		if (err)
			goto fail;
		if (etb[MRC_A_EV_ENTRY_INDEX]) {
			i = nla_get_u32(etb[MRC_A_EV_ENTRY_INDEX]);
		} else {
			err = mrc_entry_ev(etb, nest, MRC_A_EV_ENTRY_VALUE,
					   MRC_A_EV_ENTRY_PORT, val, &len,
					   &port, extack);
			if (err)
				goto fail;
			for (i = 0; i < p->nslots; i++)
				if (mrc_slot_match(&p->slots[i], val, port))
					break;
		}
		if (i >= p->nslots) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "the profile has no such EV");
			err = -ENOENT;
			goto fail;
		}
		query[n++] = i;
	}
	*queryp = query;
	*nqueryp = n;
	return 0;
fail:
	kvfree(query);
	return err;
}

struct sk_buff *mrc_profile_ev_get(struct mrc_dev *dev,
				   struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *ops = tb[MRC_A_EV_PROFILE_EV];
	struct nlattr *size = tb[MRC_A_EV_PROFILE_ARRAY_SIZE];
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_ev_profile *p;
	struct sk_buff *msg = NULL;
	u32 *query = NULL, nquery = 0, nevs = 0;
	int op = -1, err;
	u64 id;

	id = mrc_attr_id(tb, MRC_A_EV_PROFILE_ID, extack);
	if (!id)
		return ERR_PTR(-EINVAL);
	if (tb[MRC_A_EV_PROFILE_EV_OP]) {
		op = nla_get_u32(tb[MRC_A_EV_PROFILE_EV_OP]);
		if (op != MRC_EV_OP_QUERY_STATE && op != MRC_EV_OP_QUERY_ARRAY) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EV_PROFILE_EV_OP],
					    "ev-profile-get takes query-state or query-array; changes are in ev-profile-set");
			return ERR_PTR(-EINVAL);
		}
	}
	if (ops && op != MRC_EV_OP_QUERY_STATE) {
		NL_SET_ERR_MSG_ATTR(extack, ops, "ev entries go with query-state");
		return ERR_PTR(-EINVAL);
	}

	mutex_lock(&ctl->lock);
	p = mrc_evp_find(&ctl->evps, id);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EV_PROFILE_ID],
				    "the EV profile is in INIT");
		err = -ENOENT;
		goto out;
	}
	if (op >= 0 && p->cfg.mode == MRC_EV_MODE_AUTO) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EV_PROFILE_EV_OP],
				    "an auto profile has no EV array");
		err = -EINVAL;
		goto out;
	}
	if (op == MRC_EV_OP_QUERY_STATE && ops) {
		err = mrc_ev_query_slots(p, info, &query, &nquery);
		if (err)
			goto out;
		nevs = nquery;
	}
	if (op == MRC_EV_OP_QUERY_ARRAY) {
		nevs = p->nslots;
		if (size && nla_get_u32(size) < nevs) {
			mrc_nl_set_e2big(extack, size, nevs);
			err = -E2BIG;
			goto out;
		}
	} else if (size && nla_get_u32(size) < p->cfg.nfields) {
		mrc_nl_set_e2big(extack, size, p->cfg.nfields);
		err = -E2BIG;
		goto out;
	}
	if (nevs > MRC_CTL_EV_OP_MAX_ENTRIES) {
		NL_SET_ERR_MSG(extack,
			       "more EVs than a reply holds: use ev-get");
		err = -EMSGSIZE;
		goto out;
	}

	/* Room for every EV entry: index, value, port, state. */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE +
			  nevs * nla_total_size(4 * nla_total_size(sizeof(u32)) +
						nla_total_size(MRC_EV_MAX_BYTES)),
			  GFP_KERNEL);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = mrc_ev_fill(msg, dev, p, info->snd_portid, info->snd_seq, 0, op,
			  query, nquery);
out:
	mutex_unlock(&ctl->lock);
	kvfree(query);
	if (err) {
		if (msg)
			nlmsg_free(msg);
		return ERR_PTR(err);
	}
	return msg;
}

int mrc_profile_ev_dump(struct sk_buff *skb, struct netlink_callback *cb,
			struct mrc_dev *dev, unsigned long *pos)
{
	struct mrc_ev_profile *p;
	int err = 0;

	mutex_lock(&dev->ctl->lock);
	list_for_each_entry(p, &dev->ctl->evps, node) {
		if (p->id < *pos)
			continue;
		err = mrc_ev_fill(skb, dev, p, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI, -1, NULL, 0);
		if (err) {
			*pos = p->id;
			break;
		}
	}
	mutex_unlock(&dev->ctl->lock);
	return err;
}

int mrc_profile_ev_array_dump(struct sk_buff *skb,
			      struct netlink_callback *cb,
			      struct mrc_dev *dev, u64 id, unsigned long *pos)
{
	struct mrc_ev_profile *p;
	void *hdr;
	u32 *st;
	int err = 0;

	mutex_lock(&dev->ctl->lock);
	p = mrc_evp_find(&dev->ctl->evps, id);
	if (!p) {
		NL_SET_ERR_MSG(cb->extack, "the EV profile is in INIT");
		err = -ENOENT;
		goto out;
	}
	st = mrc_ev_states(dev, p);
	if (!st) {
		err = -ENOMEM;
		goto out;
	}
	for (; *pos < p->nslots; (*pos)++) {
		hdr = mrc_nl_msg_put(skb, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI,
				     MRC_CMD_EV_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		if (nla_put_u32(skb, MRC_A_EV_PROFILE_DEV_INDEX,
				dev->ibdev.index) ||
		    nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_ID, p->id,
				      MRC_A_EV_PROFILE_PAD) ||
		    mrc_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
				     &p->slots[*pos], *pos, st[*pos])) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
	}
	kvfree(st);
out:
	mutex_unlock(&dev->ctl->lock);
	return err;
}

/* --- CC profiles --------------------------------------------------------------- */

static int mrc_cc_parse_nscc(struct nlattr *attr, struct mrc_cc_cfg *c,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *ntb[MRC_A_NSCC_MAX + 1];
	u32 nscc[MRC_A_NSCC_MAX + 1];
	int i, err;

	err = nla_parse_nested(ntb, MRC_A_NSCC_MAX, attr, mrc_nscc_nl_policy,
			       extack);
	if (err)
		return err;
	memcpy(nscc, c->nscc, sizeof(nscc));
	for (i = 1; i <= MRC_A_NSCC_MAX; i++) {
		if (!ntb[i]) {
			if (c->has_nscc)
				continue;
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "the first nscc nest must hold every parameter");
			NL_SET_ERR_ATTR_MISS(extack, attr, i);
			return -EINVAL;
		}
		if (i == MRC_A_NSCC_DISABLE_QA || i == MRC_A_NSCC_QA_GATE)
			nscc[i] = nla_get_u8(ntb[i]);
		else
			nscc[i] = nla_get_u32(ntb[i]);
	}
	if (nscc[MRC_A_NSCC_TARGET_DELAY] > nscc[MRC_A_NSCC_QA_THRESHOLD]) {
		NL_SET_ERR_MSG_ATTR(extack, ntb[MRC_A_NSCC_TARGET_DELAY] ?:
				    ntb[MRC_A_NSCC_QA_THRESHOLD] ?: attr,
				    "target-delay is above qa-threshold");
		return -EINVAL;
	}
	memcpy(c->nscc, nscc, sizeof(nscc));
	c->has_nscc = true;
	return 0;
}

/*
 * What a CC profile's state allows a set request (@change: the first
 * attribute that changes it): deleted going to INIT (returns 1: done),
 * no new algorithm while ONLINE, leaving ONLINE, room for a new one.
 */
static int mrc_cc_set_state(struct mrc_ctl *ctl, struct mrc_cc_profile *p,
			    u32 cur, u32 target, struct nlattr **tb,
			    struct nlattr *change,
			    struct netlink_ext_ack *extack)
{
	struct nlattr *algo = tb[MRC_A_CC_PROFILE_ALGORITHM];

	if (target == MRC_PROFILE_STATE_INIT) {
		if (change) {
			NL_SET_ERR_MSG_ATTR(extack, change,
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
		if (algo) {
			NL_SET_ERR_MSG_ATTR(extack, algo,
					    "the algorithm cannot change while the profile is ONLINE");
			return -EINVAL;
		}
		if (target == MRC_PROFILE_STATE_OFFLINE)
			return mrc_prof_leave_online(p->qp_count,
						     ctl->def_cc == p,
						     tb[MRC_A_CC_PROFILE_STATE],
						     extack);
	}
	if (!p && ctl->nccs >= MRC_CTL_MAX_CC_PROFILES) {
		NL_SET_ERR_MSG(extack, "the device has no room for another CC profile");
		return -ENOSPC;
	}
	return 0;
}

/* The configuration @c (the profile's, or empty) a set request makes. */
static int mrc_cc_set_cfg(struct nlattr **tb, bool exists, u32 target,
			  struct mrc_cc_cfg *c, struct netlink_ext_ack *extack)
{
	struct nlattr *algo = tb[MRC_A_CC_PROFILE_ALGORITHM];
	int err;

	if (algo) {
		if (!strcmp(nla_data(algo), MRC_CC_ALGO_NAME_NSCC)) {
			c->algo = MRC_CC_ALGO_NSCC;
		} else if (!strcmp(nla_data(algo), MRC_CC_ALGO_NAME_NONE)) {
			c->algo = MRC_CC_ALGO_NONE;
		} else {
			NL_SET_ERR_MSG_ATTR(extack, algo,
					    "unknown algorithm (uet-1.0-nscc or none)");
			return -EINVAL;
		}
	} else if (!exists) {
		NL_SET_ERR_MSG(extack, "algorithm is required to leave INIT");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_CC_PROFILE_ALGORITHM);
		return -EINVAL;
	}
	if (tb[MRC_A_CC_PROFILE_NSCC]) {
		err = mrc_cc_parse_nscc(tb[MRC_A_CC_PROFILE_NSCC], c, extack);
		if (err)
			return err;
	}
	if (target == MRC_PROFILE_STATE_ONLINE && c->algo == MRC_CC_ALGO_NSCC &&
	    !c->has_nscc) {
		NL_SET_ERR_MSG(extack, "nscc parameters are required to go ONLINE");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_CC_PROFILE_NSCC);
		return -EINVAL;
	}
	return 0;
}

int mrc_profile_cc_set(struct mrc_dev *dev, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	static const int changes[] = {
		MRC_A_CC_PROFILE_ALGORITHM, MRC_A_CC_PROFILE_NSCC,
	};
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_cc_profile *p;
	struct mrc_cc_cfg c = {};
	u32 cur, target;
	u64 id;
	int err;

	id = mrc_attr_id(tb, MRC_A_CC_PROFILE_ID, extack);
	if (!id)
		return -EINVAL;

	mutex_lock(&ctl->lock);
	p = mrc_cc_find(&ctl->ccs, id);
	cur = p ? p->cfg.state : MRC_PROFILE_STATE_INIT;
	err = mrc_state_target(cur, tb[MRC_A_CC_PROFILE_STATE],
			       tb[MRC_A_CC_PROFILE_CUR_STATE], &target,
			       extack) ?:
	      mrc_cc_set_state(ctl, p, cur, target, tb,
			       mrc_first_attr(tb, changes, ARRAY_SIZE(changes)),
			       extack);
	if (err)
		goto out;
	if (p)
		c = p->cfg;
	err = mrc_cc_set_cfg(tb, p, target, &c, extack);
	if (err)
		goto out;
	c.state = target;

	if (!p) {
		p = kzalloc(sizeof(*p), GFP_KERNEL);
		if (!p) {
			err = -ENOMEM;
			goto out;
		}
		p->id = id;
		mrc_list_insert(&ctl->ccs, &p->node);
		ctl->nccs++;
	}
	p->cfg = c;
out:
	mutex_unlock(&ctl->lock);
	return err < 0 ? err : 0;
}

static int mrc_cc_fill(struct sk_buff *skb, struct mrc_dev *dev,
		       const struct mrc_cc_profile *p, u32 portid, u32 seq,
		       int flags)
{
	const struct mrc_cc_cfg *c = &p->cfg;
	struct nlattr *nest;
	void *hdr;
	int i;

	hdr = mrc_nl_msg_put(skb, portid, seq, flags, MRC_CMD_CC_PROFILE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_CC_PROFILE_ID, p->id,
			      MRC_A_CC_PROFILE_PAD) ||
	    nla_put_u32(skb, MRC_A_CC_PROFILE_STATE, c->state) ||
	    nla_put_string(skb, MRC_A_CC_PROFILE_ALGORITHM,
			   c->algo == MRC_CC_ALGO_NSCC ? MRC_CC_ALGO_NAME_NSCC :
			   MRC_CC_ALGO_NAME_NONE))
		goto cancel;
	if (c->has_nscc) {
		nest = nla_nest_start(skb, MRC_A_CC_PROFILE_NSCC);
		if (!nest)
			goto cancel;
		for (i = 1; i <= MRC_A_NSCC_MAX; i++) {
			if (i == MRC_A_NSCC_DISABLE_QA ||
			    i == MRC_A_NSCC_QA_GATE) {
				if (nla_put_u8(skb, i, c->nscc[i]))
					goto cancel;
			} else if (nla_put_u32(skb, i, c->nscc[i])) {
				goto cancel;
			}
		}
		nla_nest_end(skb, nest);
	}
	if (nla_put_u32(skb, MRC_A_CC_PROFILE_QP_COUNT, p->qp_count))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

struct sk_buff *mrc_profile_cc_get(struct mrc_dev *dev,
				   struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_cc_profile *p;
	struct sk_buff *msg;
	u64 id;
	int err;

	id = mrc_attr_id(tb, MRC_A_CC_PROFILE_ID, info->extack);
	if (!id)
		return ERR_PTR(-EINVAL);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&ctl->lock);
	p = mrc_cc_find(&ctl->ccs, id);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_A_CC_PROFILE_ID],
				    "the CC profile is in INIT");
		err = -ENOENT;
	} else {
		err = mrc_cc_fill(msg, dev, p, info->snd_portid,
				  info->snd_seq, 0);
	}
	mutex_unlock(&ctl->lock);
	if (err) {
		nlmsg_free(msg);
		return ERR_PTR(err);
	}
	return msg;
}

int mrc_profile_cc_dump(struct sk_buff *skb, struct netlink_callback *cb,
			struct mrc_dev *dev, unsigned long *pos)
{
	struct mrc_cc_profile *p;
	int err = 0;

	mutex_lock(&dev->ctl->lock);
	list_for_each_entry(p, &dev->ctl->ccs, node) {
		if (p->id < *pos)
			continue;
		err = mrc_cc_fill(skb, dev, p, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*pos = p->id;
			break;
		}
	}
	mutex_unlock(&dev->ctl->lock);
	return err;
}

/* --- device -------------------------------------------------------------------- */

/* An EV profile a QP or a default may use: ONLINE, not SRv6. */
static int mrc_ev_usable(struct mrc_ctl *ctl, u64 id,
			 struct mrc_ev_profile **pp, const struct nlattr *attr,
			 struct netlink_ext_ack *extack)
{
	struct mrc_ev_profile *p;

	*pp = NULL;
	if (!id)
		return 0;
	p = mrc_evp_find(&ctl->evps, id);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the EV profile is in INIT");
		return -ENOENT;
	}
	if (p->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the EV profile is not ONLINE");
		return -EINVAL;
	}
	if (mrc_ev_is_srv6(p)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "SRv6 EV profiles cannot be used yet");
		return -EOPNOTSUPP;
	}
	*pp = p;
	return 0;
}

static int mrc_cc_usable(struct mrc_ctl *ctl, u64 id,
			 struct mrc_cc_profile **pp, const struct nlattr *attr,
			 struct netlink_ext_ack *extack)
{
	struct mrc_cc_profile *p;

	*pp = NULL;
	if (!id)
		return 0;
	p = mrc_cc_find(&ctl->ccs, id);
	if (!p) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the CC profile is in INIT");
		return -ENOENT;
	}
	if (p->cfg.state != MRC_PROFILE_STATE_ONLINE) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the CC profile is not ONLINE");
		return -EINVAL;
	}
	*pp = p;
	return 0;
}

int mrc_profile_dev_set(struct mrc_dev *dev, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct nlattr *ev_attr = tb[MRC_A_DEVICE_DEFAULT_EV_PROFILE];
	struct nlattr *cc_attr = tb[MRC_A_DEVICE_DEFAULT_CC_PROFILE];
	struct nlattr *hold = tb[MRC_A_DEVICE_EV_SKIP_HOLD_US];
	struct mrc_ctl *ctl = dev->ctl;
	struct mrc_ev_profile *evp = NULL;
	struct mrc_cc_profile *ccp = NULL;
	int err = 0;

	mutex_lock(&ctl->lock);
	if (ev_attr) {
		err = mrc_ev_usable(ctl, nla_get_u64(ev_attr), &evp, ev_attr,
				    extack);
		if (err)
			goto out;
	}
	if (cc_attr) {
		err = mrc_cc_usable(ctl, nla_get_u64(cc_attr), &ccp, cc_attr,
				    extack);
		if (err)
			goto out;
	}
	if (ev_attr)
		ctl->def_ev = evp;
	if (cc_attr)
		ctl->def_cc = ccp;
	if (hold)
		WRITE_ONCE(ctl->skip_hold_us, nla_get_u32(hold));
out:
	mutex_unlock(&ctl->lock);
	return err;
}

int mrc_profile_dev_fill(struct sk_buff *skb, struct mrc_dev *dev)
{
	struct mrc_ctl *ctl = dev->ctl;
	u64 def_ev, def_cc;
	u32 free;

	mutex_lock(&ctl->lock);
	def_ev = ctl->def_ev ? ctl->def_ev->id : 0;
	def_cc = ctl->def_cc ? ctl->def_cc->id : 0;
	free = MRC_CTL_EV_MAX_COUNT - ctl->ev_used;
	mutex_unlock(&ctl->lock);

	if (nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_FMT_PROFILES,
			MRC_CTL_MAX_FMT_PROFILES) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_PROFILES,
			MRC_CTL_MAX_EV_PROFILES) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_COUNT, MRC_CTL_EV_MAX_COUNT) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_FREE_COUNT, free) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_COUNT_PROFILE,
			MRC_CTL_EV_MAX_COUNT_PROFILE) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_COUNT_ALIGN,
			MRC_CTL_EV_COUNT_ALIGN) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_WIDTH, MRC_CTL_EV_MAX_WIDTH) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_FMT_MODES, MRC_EV_FMT_MODE_MASK) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MODES, MRC_EV_MODE_MASK) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_OP_MAX_ENTRIES,
			MRC_CTL_EV_OP_MAX_ENTRIES) ||
	    nla_put_u32(skb, MRC_A_DEVICE_CC_MAX_PROFILES,
			MRC_CTL_MAX_CC_PROFILES) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_EV_PROFILE, def_ev,
			      MRC_A_DEVICE_PAD) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_CC_PROFILE, def_cc,
			      MRC_A_DEVICE_PAD) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_SKIP_HOLD_US,
			READ_ONCE(ctl->skip_hold_us)) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EP_MAX_REQS, MRC_CTL_EP_MAX_REQS) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_EV_EVENT_DROPS,
			      atomic64_read(&ctl->ev_drops), MRC_A_DEVICE_PAD))
		return -EMSGSIZE;
	return 0;
}

/* --- contract: device life, binding, the datapath's reads ------------------------ */

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
	struct mrc_fmt_profile *f, *fn;
	struct mrc_ev_profile *e, *en;
	struct mrc_cc_profile *c, *cn;

	if (!ctl)
		return;
	list_for_each_entry_safe(e, en, &ctl->evps, node)
		mrc_ev_release(ctl, e);
	list_for_each_entry_safe(f, fn, &ctl->fmts, node)
		kfree(f);
	list_for_each_entry_safe(c, cn, &ctl->ccs, node)
		kfree(c);
	mutex_destroy(&ctl->lock);
	kfree(ctl);
	dev->ctl = NULL;
}

/*
 * Bind @qp to its profiles: with @explicit_bind to @ev_id and @cc_id (0:
 * built in), else to the device's defaults.  Process context.
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
		err = mrc_ev_usable(ctl, ev_id, &ev, NULL, NULL);
		if (!err)
			err = mrc_cc_usable(ctl, cc_id, &cc, NULL, NULL);
		if (err)
			goto out;
	} else {
		ev = ctl->def_ev;
		cc = ctl->def_cc;
	}
	if (ev)
		ev->qp_count++;
	if (cc)
		cc->qp_count++;
	qp->ev_profile = ev;
	qp->cc_profile = cc;
	qp->profile_explicit = explicit_bind;
out:
	mutex_unlock(&ctl->lock);
	return err;
}

void mrc_profile_unbind_qp(struct mrc_qp *qp)
{
	struct mrc_ctl *ctl = qp->dev->ctl;

	mutex_lock(&ctl->lock);
	if (qp->ev_profile)
		qp->ev_profile->qp_count--;
	if (qp->cc_profile)
		qp->cc_profile->qp_count--;
	qp->ev_profile = NULL;
	qp->cc_profile = NULL;
	mutex_unlock(&ctl->lock);
}

/* How long an EV stays in SKIP (dev-set ev-skip-hold-us), in us. */
u32 mrc_profile_skip_hold_us(struct mrc_dev *dev)
{
	return READ_ONCE(dev->ctl->skip_hold_us);
}

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
