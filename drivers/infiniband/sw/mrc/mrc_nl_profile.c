// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the netlink side of the controller's profiles.  Each command
 * is parsed here into the object's plain request (struct mrc_fmt_args,
 * mrc_ev_args, mrc_cc_args), the object (mrc_fmt.c, mrc_ev_profile.c,
 * mrc_cc.c) applies it, and what it refused (struct mrc_prof_err) is
 * pointed at here, by the attribute it came in; replies are built here
 * from the object's copy of a profile.
 */

#include <linux/slab.h>

#include "mrc.h"
#include "mrc_nl.h"
#include "mrc_nl_policy.h"
#include "mrc_profile.h"

/* --- common to every profile kind ----------------------------------------- */

/* Fields of a request (MRC_PROF_F_*, MRC_*_F_*) are below this. */
#define MRC_NL_MAX_FIELDS	16
/* Attribute types inside a nest with numbered parts are at most this. */
#define MRC_NL_MAX_PART_TYPE	16

/*
 * How a profile kind's request fields map to its attributes: field f is
 * attribute types[f]; the parts of field part_field (1..nparts) are the
 * attributes part_type() names inside its nest.
 */
struct mrc_nl_kind {
	u16 types[MRC_NL_MAX_FIELDS];
	u8 part_field;
	u8 nparts;
	u16 (*part_type)(u8 part);
	const struct nla_policy *part_policy;
	u16 part_maxtype;
};

/* A request without the profile id it must name. */
static int mrc_nl_id_required(struct netlink_ext_ack *extack, u16 type)
{
	NL_SET_ERR_MSG(extack, "id is required");
	NL_SET_ERR_ATTR_MISS(extack, NULL, type);
	return -EINVAL;
}

/* The common fields of a request from @info's attributes. */
static int mrc_nl_prof_req(struct genl_info *info, const struct mrc_nl_kind *k,
			   struct mrc_prof_args *args)
{
	struct nlattr *id = info->attrs[k->types[MRC_PROF_F_ID]];
	struct nlattr *state = info->attrs[k->types[MRC_PROF_F_STATE]];
	struct nlattr *cur = info->attrs[k->types[MRC_PROF_F_CUR_STATE]];

	args->extack = info->extack;
	if (!id)
		return mrc_nl_id_required(info->extack,
					  k->types[MRC_PROF_F_ID]);
	args->id = nla_get_u64(id);
	args->has_state = state;
	if (state)
		args->state = nla_get_u32(state);
	args->has_cur_state = cur;
	if (cur)
		args->cur_state = nla_get_u32(cur);
	return 0;
}

/* The @index-th (1-based; 0: the last) attribute of @type in @info. */
static struct nlattr *mrc_nl_nth(struct genl_info *info, u16 type, u16 index)
{
	struct nlattr *attr;
	u16 n = 0;
	int rem;

	if (!index)
		return info->attrs[type];
	nla_for_each_attr(attr, mrc_nl_attrs(info), mrc_nl_attrs_len(info), rem)
		if (nla_type(attr) == type && ++n == index)
			return attr;
	return NULL;
}

/* Part @part of nest @nest of kind @k, or NULL. */
static struct nlattr *mrc_nl_part(struct nlattr *nest,
				  const struct mrc_nl_kind *k, u8 part)
{
	struct nlattr *tb[MRC_NL_MAX_PART_TYPE + 1];

	if (k->part_maxtype > MRC_NL_MAX_PART_TYPE || part > k->nparts ||
	    nla_parse_nested(tb, k->part_maxtype, nest, k->part_policy, NULL))
		return NULL;
	return tb[k->part_type(part)];
}

/* The attribute type of field @f of kind @k, 0 for none. */
static u16 mrc_nl_type(const struct mrc_nl_kind *k, u8 f)
{
	return f < MRC_NL_MAX_FIELDS ? k->types[f] : 0;
}

/*
 * Point the extack at what the object refused (@e; its message is set):
 * the bad attribute (a field, one instance of it, or a part inside it)
 * and the missing one (at top level, or a part inside the bad field).
 */
static void mrc_nl_refused(struct genl_info *info, const struct mrc_nl_kind *k,
			   const struct mrc_prof_err *e)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *bad = NULL, *part;
	u16 type = mrc_nl_type(k, e->field);

	if (type)
		bad = mrc_nl_nth(info, type, e->index);
	if (bad && e->field == k->part_field && k->nparts) {
		if (e->missing_part && e->missing_part <= k->nparts)
			NL_SET_ERR_ATTR_MISS(extack, bad,
					     k->part_type(e->missing_part));
		part = e->part ? mrc_nl_part(bad, k, e->part) : NULL;
		if (part)
			bad = part;
	}
	if (bad)
		NL_SET_BAD_ATTR(extack, bad);
	type = mrc_nl_type(k, e->missing);
	if (type)
		NL_SET_ERR_ATTR_MISS(extack, NULL, type);
}

/* Ends a dump of profiles at the one after @id (none after U64_MAX). */
static bool mrc_nl_dump_next(unsigned long *pos, u64 id)
{
	if (id == U64_MAX)
		return false;
	*pos = id + 1;
	return true;
}

/* --- EV format profiles ---------------------------------------------------- */

static const struct mrc_nl_kind mrc_nl_fmt = {
	.types = {
		[MRC_PROF_F_ID] = MRC_A_EV_FMT_PROFILE_ID,
		[MRC_PROF_F_STATE] = MRC_A_EV_FMT_PROFILE_STATE,
		[MRC_PROF_F_CUR_STATE] = MRC_A_EV_FMT_PROFILE_CUR_STATE,
		[MRC_FMT_F_MODE] = MRC_A_EV_FMT_PROFILE_MODE,
		[MRC_FMT_F_FIELD] = MRC_A_EV_FMT_PROFILE_FIELD,
	},
};

/* The field nests of @info, in order, into @args. */
static int mrc_nl_fmt_fields(struct genl_info *info, struct mrc_fmt_args *args)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *ftb[MRC_A_FMT_FIELD_MAX + 1];
	struct nlattr *nest;
	u32 n = 0;
	int rem, err;

	nla_for_each_attr(nest, mrc_nl_attrs(info), mrc_nl_attrs_len(info),
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
		args->width[n++] = nla_get_u32(ftb[MRC_A_FMT_FIELD_WIDTH]);
	}
	args->nfields = n;
	return 0;
}

static int mrc_nl_fmt_parse(struct genl_info *info, struct mrc_fmt_args *args)
{
	struct nlattr *mode = info->attrs[MRC_A_EV_FMT_PROFILE_MODE];
	int err;

	err = mrc_nl_prof_req(info, &mrc_nl_fmt, &args->prof);
	if (err)
		return err;
	if (mode) {
		args->has_mode = true;
		args->mode = nla_get_u32(mode);
	}
	if (!info->attrs[MRC_A_EV_FMT_PROFILE_FIELD])
		return 0;
	args->has_fields = true;
	return mrc_nl_fmt_fields(info, args);
}

int mrc_nl_fmt_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_fmt_args args = {};
	int err;

	err = mrc_nl_fmt_parse(info, &args);
	if (err)
		return err;
	err = mrc_fmt_set(mrc_nl_dev(info), &args);
	if (err)
		mrc_nl_refused(info, &mrc_nl_fmt, &args.prof.err);
	return err;
}

static int mrc_nl_fmt_fill(struct sk_buff *skb, struct mrc_dev *dev,
			   const struct mrc_fmt_info *p, u32 portid, u32 seq,
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

int mrc_nl_fmt_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *size = info->attrs[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE];
	struct nlattr *id = info->attrs[MRC_A_EV_FMT_PROFILE_ID];
	struct mrc_dev *dev = mrc_nl_dev(info);
	struct mrc_fmt_info p;
	struct sk_buff *msg;
	int err;

	if (!id)
		return mrc_nl_id_required(info->extack, MRC_A_EV_FMT_PROFILE_ID);
	if (mrc_fmt_read(dev, nla_get_u64(id), false, &p)) {
		NL_SET_ERR_MSG_ATTR(info->extack, id,
				    "the format profile is in INIT");
		return -ENOENT;
	}
	if (size && nla_get_u32(size) < p.cfg.nfields) {
		mrc_nl_set_e2big(info->extack, size, p.cfg.nfields);
		return -E2BIG;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mrc_nl_fmt_fill(msg, dev, &p, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int mrc_nl_fmt_dump_one(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       struct mrc_dev *dev, struct nlattr **tb,
			       unsigned long *pos)
{
	struct mrc_fmt_info p;
	int err;

	while (!mrc_fmt_read(dev, *pos, true, &p)) {
		err = mrc_nl_fmt_fill(skb, dev, &p, NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*pos = p.id;
			return err;
		}
		if (!mrc_nl_dump_next(pos, p.id))
			break;
	}
	return 0;
}

int mrc_nl_fmt_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_fmt_dump_one);
}

/* --- EV profiles ------------------------------------------------------------ */

/* Part p of an EV entry (MRC_EV_E_*) is this attribute of its nest. */
static u16 mrc_nl_entry_type(u8 part)
{
	static const u16 types[MRC_EV_E_NPARTS + 1] = {
		[MRC_EV_E_STATE] = MRC_A_EV_ENTRY_STATE,
		[MRC_EV_E_INDEX] = MRC_A_EV_ENTRY_INDEX,
		[MRC_EV_E_VALUE] = MRC_A_EV_ENTRY_VALUE,
		[MRC_EV_E_PORT] = MRC_A_EV_ENTRY_PORT,
		[MRC_EV_E_NEW_VALUE] = MRC_A_EV_ENTRY_NEW_VALUE,
		[MRC_EV_E_NEW_PORT] = MRC_A_EV_ENTRY_NEW_PORT,
	};

	return types[part];
}

static const struct mrc_nl_kind mrc_nl_ev = {
	.types = {
		[MRC_PROF_F_ID] = MRC_A_EV_PROFILE_ID,
		[MRC_PROF_F_STATE] = MRC_A_EV_PROFILE_STATE,
		[MRC_PROF_F_CUR_STATE] = MRC_A_EV_PROFILE_CUR_STATE,
		[MRC_EV_F_MODE] = MRC_A_EV_PROFILE_MODE,
		[MRC_EV_F_FMT] = MRC_A_EV_PROFILE_FMT_PROFILE_ID,
		[MRC_EV_F_COUNT] = MRC_A_EV_PROFILE_EV_COUNT,
		[MRC_EV_F_MIN_ACTIVE] = MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
		[MRC_EV_F_EVENT_MASK] = MRC_A_EV_PROFILE_EVENT_MASK,
		[MRC_EV_F_FIELD] = MRC_A_EV_PROFILE_FIELD,
		[MRC_EV_F_OP] = MRC_A_EV_PROFILE_EV_OP,
		[MRC_EV_F_ENTRY] = MRC_A_EV_PROFILE_EV,
	},
	.part_field = MRC_EV_F_ENTRY,
	.nparts = MRC_EV_E_NPARTS,
	.part_type = mrc_nl_entry_type,
	.part_policy = mrc_ev_entry_nl_policy,
	.part_maxtype = MRC_A_EV_ENTRY_MAX,
};

/* A u32 attribute into *@val, and whether it was there. */
static bool mrc_nl_u32(const struct nlattr *attr, u32 *val)
{
	if (attr)
		*val = nla_get_u32(attr);
	return attr;
}

/* The field nests of @info, in order, into @args. */
static int mrc_nl_ev_fields(struct genl_info *info, struct mrc_ev_args *args)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *ftb[MRC_A_EV_FIELD_MAX + 1];
	struct mrc_ev_field *f;
	struct nlattr *nest;
	int rem, err;

	args->has_fields = info->attrs[MRC_A_EV_PROFILE_FIELD];
	nla_for_each_attr(nest, mrc_nl_attrs(info), mrc_nl_attrs_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_PROFILE_FIELD)
			continue;
		if (args->nfields == MRC_CTL_MAX_FIELDS) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "too many fields");
			return -E2BIG;
		}
		err = nla_parse_nested(ftb, MRC_A_EV_FIELD_MAX, nest,
				       mrc_ev_field_nl_policy, extack);
		if (err)
			return err;
		f = &args->field[args->nfields++];
		if (!mrc_nl_u32(ftb[MRC_A_EV_FIELD_WIDTH], &f->width)) {
			NL_SET_ERR_MSG_ATTR(extack, nest, "a field needs its width");
			NL_SET_ERR_ATTR_MISS(extack, nest, MRC_A_EV_FIELD_WIDTH);
			return -EINVAL;
		}
		mrc_nl_u32(ftb[MRC_A_EV_FIELD_INIT_VAL], &f->init_val);
		mrc_nl_u32(ftb[MRC_A_EV_FIELD_MIN_VAL], &f->min_val);
		mrc_nl_u32(ftb[MRC_A_EV_FIELD_MAX_VAL], &f->max_val);
		mrc_nl_u32(ftb[MRC_A_EV_FIELD_MASK], &f->mask);
	}
	return 0;
}

/* An EV value attribute and its port attribute into @ev. */
static int mrc_nl_ev_val(const struct nlattr *val, const struct nlattr *port,
			 struct mrc_ev_val *ev, struct netlink_ext_ack *extack)
{
	int n;

	if (val) {
		n = mrc_ev_attr_len(val, extack);
		if (n < 0)
			return n;
		ev->len = n;
		memcpy(ev->val, nla_data(val), n);
	}
	if (port)
		ev->port = nla_get_u32(port);
	return 0;
}

/* Entry nest @nest into @e: what it has (the profile code checks it). */
static int mrc_nl_ev_entry(struct nlattr *nest, struct mrc_ev_entry_args *e,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *etb[MRC_A_EV_ENTRY_MAX + 1];
	int err;

	err = nla_parse_nested(etb, MRC_A_EV_ENTRY_MAX, nest,
			       mrc_ev_entry_nl_policy, extack);
	if (err)
		return err;
	e->has_state = mrc_nl_u32(etb[MRC_A_EV_ENTRY_STATE], &e->state);
	e->has_index = mrc_nl_u32(etb[MRC_A_EV_ENTRY_INDEX], &e->index);
	mrc_nl_u32(etb[MRC_A_EV_ENTRY_FLAGS], &e->flags);
	e->has_value = etb[MRC_A_EV_ENTRY_VALUE];
	e->has_port = etb[MRC_A_EV_ENTRY_PORT];
	e->has_new_value = etb[MRC_A_EV_ENTRY_NEW_VALUE];
	e->has_new_port = etb[MRC_A_EV_ENTRY_NEW_PORT];
	return mrc_nl_ev_val(etb[MRC_A_EV_ENTRY_VALUE],
			     etb[MRC_A_EV_ENTRY_PORT], &e->ev, extack) ?:
	       mrc_nl_ev_val(etb[MRC_A_EV_ENTRY_NEW_VALUE],
			     etb[MRC_A_EV_ENTRY_NEW_PORT], &e->new_ev, extack);
}

/* The EV operation's entries, in order, into args->entries. */
static int mrc_nl_ev_entries(struct genl_info *info, struct mrc_ev_args *args)
{
	struct nlattr *last = info->attrs[MRC_A_EV_PROFILE_EV];
	struct nlattr *nest;
	unsigned int n;
	int rem, err;

	if (!last)
		return 0;
	n = mrc_nl_count(info, MRC_A_EV_PROFILE_EV);
	if (n > MRC_CTL_EV_OP_MAX_ENTRIES) {
		NL_SET_ERR_MSG_ATTR(info->extack, last,
				    "more entries than ev-op-max-entries");
		return -E2BIG;
	}
	args->entries = kvcalloc(n, sizeof(*args->entries), GFP_KERNEL);
	if (!args->entries)
		return -ENOMEM;
	nla_for_each_attr(nest, mrc_nl_attrs(info), mrc_nl_attrs_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EV_PROFILE_EV)
			continue;
		err = mrc_nl_ev_entry(nest, &args->entries[args->nentries++],
				      info->extack);
		if (err)
			return err;
	}
	return 0;
}

/* An ev-profile-set or -get request; args->entries to be freed. */
static int mrc_nl_ev_parse(struct genl_info *info, struct mrc_ev_args *args)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *fmt = tb[MRC_A_EV_PROFILE_FMT_PROFILE_ID];
	int err;

	err = mrc_nl_prof_req(info, &mrc_nl_ev, &args->prof);
	if (err)
		return err;
	args->has_mode = mrc_nl_u32(tb[MRC_A_EV_PROFILE_MODE], &args->mode);
	args->has_fmt = fmt;
	if (fmt)
		args->fmt_id = nla_get_u64(fmt);
	args->has_count = mrc_nl_u32(tb[MRC_A_EV_PROFILE_EV_COUNT],
				     &args->count);
	args->has_min_active = mrc_nl_u32(tb[MRC_A_EV_PROFILE_EV_MIN_ACTIVE],
					  &args->min_active);
	args->has_event_mask = mrc_nl_u32(tb[MRC_A_EV_PROFILE_EVENT_MASK],
					  &args->event_mask);
	args->has_op = mrc_nl_u32(tb[MRC_A_EV_PROFILE_EV_OP], &args->op);
	return mrc_nl_ev_fields(info, args) ?: mrc_nl_ev_entries(info, args);
}

int mrc_nl_ev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_ev_args *args;
	int err;

	/* Too big for the stack: 32 fields. */
	args = kzalloc(sizeof(*args), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	err = mrc_nl_ev_parse(info, args);
	if (!err) {
		err = mrc_ev_set(mrc_nl_dev(info), args);
		if (err)
			mrc_nl_refused(info, &mrc_nl_ev, &args->prof.err);
	}
	kvfree(args->entries);
	kfree(args);
	return err;
}

static int mrc_nl_ev_put_entry(struct sk_buff *skb, int type,
			       const struct mrc_evp_slot *s, u32 index,
			       u32 state)
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

static int mrc_nl_ev_put_fields(struct sk_buff *skb,
				const struct mrc_ev_cfg *c)
{
	const struct mrc_ev_field *f;
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < c->nfields; i++) {
		f = &c->field[i];
		nest = nla_nest_start(skb, MRC_A_EV_PROFILE_FIELD);
		if (!nest ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_WIDTH, f->width) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_INIT_VAL, f->init_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MIN_VAL, f->min_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MAX_VAL, f->max_val) ||
		    nla_put_u32(skb, MRC_A_EV_FIELD_MASK, f->mask))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/*
 * One ev-profile-get message; with @op MRC_EV_OP_QUERY_ARRAY every EV, with
 * MRC_EV_OP_QUERY_STATE those of p->query.
 */
static int mrc_nl_ev_fill(struct sk_buff *skb, struct mrc_dev *dev,
			  const struct mrc_ev_info *p, u32 portid, u32 seq,
			  int flags, int op)
{
	const struct mrc_ev_cfg *c = &p->cfg;
	void *hdr;
	u32 i, k;

	hdr = mrc_nl_msg_put(skb, portid, seq, flags, MRC_CMD_EV_PROFILE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_ID, p->id,
			      MRC_A_EV_PROFILE_PAD) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_STATE, c->state) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_MODE, c->mode) ||
	    (p->fmt_id &&
	     nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
			       p->fmt_id, MRC_A_EV_PROFILE_PAD)) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_EV_COUNT, c->ev_count) ||
	    (c->has_min_active &&
	     nla_put_u32(skb, MRC_A_EV_PROFILE_EV_MIN_ACTIVE, c->min_active)) ||
	    (c->has_event_mask &&
	     nla_put_u32(skb, MRC_A_EV_PROFILE_EVENT_MASK, c->event_mask)) ||
	    mrc_nl_ev_put_fields(skb, c))
		goto cancel;
	if (op == MRC_EV_OP_QUERY_ARRAY) {
		for (i = 0; i < p->nslots; i++)
			if (mrc_nl_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
						&p->slots[i], i, p->states[i]))
				goto cancel;
	} else if (op == MRC_EV_OP_QUERY_STATE) {
		for (k = 0; k < p->nquery; k++) {
			i = p->query[k];
			if (mrc_nl_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
						&p->slots[i], i, p->states[i]))
				goto cancel;
		}
	}
	if (nla_put_u32(skb, MRC_A_EV_PROFILE_QP_COUNT, p->qp_count) ||
	    nla_put_u32(skb, MRC_A_EV_PROFILE_EV_USABLE, p->usable))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* What a reply with @p's EVs for op @op must fit: array-size, the cap. */
static int mrc_nl_ev_reply_fits(struct genl_info *info,
				const struct mrc_ev_info *p, int op,
				u32 *nevs)
{
	struct nlattr *size = info->attrs[MRC_A_EV_PROFILE_ARRAY_SIZE];

	*nevs = op == MRC_EV_OP_QUERY_STATE ? p->nquery : 0;
	if (op == MRC_EV_OP_QUERY_ARRAY) {
		*nevs = p->nslots;
		if (size && nla_get_u32(size) < *nevs) {
			mrc_nl_set_e2big(info->extack, size, *nevs);
			return -E2BIG;
		}
	} else if (size && nla_get_u32(size) < p->cfg.nfields) {
		mrc_nl_set_e2big(info->extack, size, p->cfg.nfields);
		return -E2BIG;
	}
	if (*nevs > MRC_CTL_EV_OP_MAX_ENTRIES) {
		NL_SET_ERR_MSG(info->extack,
			       "more EVs than a reply holds: use ev-get");
		return -EMSGSIZE;
	}
	return 0;
}

static int mrc_nl_ev_reply(struct genl_info *info, const struct mrc_ev_info *p,
			   int op)
{
	struct sk_buff *msg;
	u32 nevs;
	int err;

	err = mrc_nl_ev_reply_fits(info, p, op, &nevs);
	if (err)
		return err;
	/* Room for every EV entry: index, value, port, state. */
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE +
			  nevs * nla_total_size(4 * nla_total_size(sizeof(u32)) +
						nla_total_size(MRC_EV_MAX_BYTES)),
			  GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mrc_nl_ev_fill(msg, mrc_nl_dev(info), p, info->snd_portid,
			     info->snd_seq, 0, op);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int mrc_nl_ev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_ev_info p;
	struct mrc_ev_args *args;
	int err;

	args = kzalloc(sizeof(*args), GFP_KERNEL);
	if (!args)
		return -ENOMEM;
	err = mrc_nl_ev_parse(info, args);
	if (err)
		goto out;
	err = mrc_ev_get(mrc_nl_dev(info), args, &p);
	if (err) {
		mrc_nl_refused(info, &mrc_nl_ev, &args->prof.err);
		goto out;
	}
	err = mrc_nl_ev_reply(info, &p, args->has_op ? args->op : -1);
	mrc_ev_info_release(&p);
out:
	kvfree(args->entries);
	kfree(args);
	return err;
}

static int mrc_nl_ev_dump_one(struct sk_buff *skb,
			      struct netlink_callback *cb,
			      struct mrc_dev *dev, struct nlattr **tb,
			      unsigned long *pos)
{
	struct mrc_ev_info p;
	int err;

	for (;;) {
		err = mrc_ev_read(dev, *pos, true, 0, &p);
		if (err)
			return err == -ENOENT ? 0 : err;
		err = mrc_nl_ev_fill(skb, dev, &p, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI, -1);
		mrc_ev_info_release(&p);
		if (err) {
			*pos = p.id;
			return err;
		}
		if (!mrc_nl_dump_next(pos, p.id))
			return 0;
	}
}

int mrc_nl_ev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_ev_dump_one);
}

/* ev-get: one message per slot of the profile, from slot *@pos on. */
static int mrc_nl_ev_array_dump_one(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct mrc_dev *dev, struct nlattr **tb,
				    unsigned long *pos)
{
	struct mrc_ev_info p;
	void *hdr;
	int err;

	if (!tb[MRC_A_EV_PROFILE_ID])
		return mrc_nl_id_required(cb->extack, MRC_A_EV_PROFILE_ID);
	err = mrc_ev_read(dev, nla_get_u64(tb[MRC_A_EV_PROFILE_ID]), false,
			  MRC_EV_READ_ARRAY, &p);
	if (err == -ENOENT)
		NL_SET_ERR_MSG(cb->extack, "the EV profile is in INIT");
	if (err)
		return err;
	for (; *pos < p.nslots; (*pos)++) {
		hdr = mrc_nl_msg_put(skb, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI,
				     MRC_CMD_EV_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		if (nla_put_u32(skb, MRC_A_EV_PROFILE_DEV_INDEX,
				dev->ibdev.index) ||
		    nla_put_u64_64bit(skb, MRC_A_EV_PROFILE_ID, p.id,
				      MRC_A_EV_PROFILE_PAD) ||
		    mrc_nl_ev_put_entry(skb, MRC_A_EV_PROFILE_EV,
					&p.slots[*pos], *pos, p.states[*pos])) {
			genlmsg_cancel(skb, hdr);
			err = -EMSGSIZE;
			break;
		}
		genlmsg_end(skb, hdr);
	}
	mrc_ev_info_release(&p);
	return err;
}

int mrc_nl_ev_array_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, true, mrc_nl_ev_array_dump_one);
}

/* --- CC profiles ----------------------------------------------------------- */

/* NSCC parameters: the attribute of each, and its width on the wire. */
static const struct {
	u16 type;
	bool is_u8;
} mrc_nl_nscc[MRC_NSCC_NPARAMS] = {
	[MRC_NSCC_DISABLE_QA] = { MRC_A_NSCC_DISABLE_QA, true },
	[MRC_NSCC_ADJUST_BYTES_THRESHOLD] = {
		MRC_A_NSCC_ADJUST_BYTES_THRESHOLD },
	[MRC_NSCC_ADJUST_PERIOD_THRESHOLD] = {
		MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD },
	[MRC_NSCC_BASE_RTT] = { MRC_A_NSCC_BASE_RTT },
	[MRC_NSCC_ETA] = { MRC_A_NSCC_ETA },
	[MRC_NSCC_FI] = { MRC_A_NSCC_FI },
	[MRC_NSCC_FI_SCALE] = { MRC_A_NSCC_FI_SCALE },
	[MRC_NSCC_GAMMA] = { MRC_A_NSCC_GAMMA },
	[MRC_NSCC_MAX_MD_JUMP] = { MRC_A_NSCC_MAX_MD_JUMP },
	[MRC_NSCC_MAX_CWND] = { MRC_A_NSCC_MAX_CWND },
	[MRC_NSCC_QA_GATE] = { MRC_A_NSCC_QA_GATE, true },
	[MRC_NSCC_QA_THRESHOLD] = { MRC_A_NSCC_QA_THRESHOLD },
	[MRC_NSCC_TARGET_DELAY] = { MRC_A_NSCC_TARGET_DELAY },
};

/* Part p of the NSCC nest is parameter p - 1. */
static u16 mrc_nl_nscc_type(u8 part)
{
	return mrc_nl_nscc[part - 1].type;
}

static const struct mrc_nl_kind mrc_nl_cc = {
	.types = {
		[MRC_PROF_F_ID] = MRC_A_CC_PROFILE_ID,
		[MRC_PROF_F_STATE] = MRC_A_CC_PROFILE_STATE,
		[MRC_PROF_F_CUR_STATE] = MRC_A_CC_PROFILE_CUR_STATE,
		[MRC_CC_F_ALGO] = MRC_A_CC_PROFILE_ALGORITHM,
		[MRC_CC_F_NSCC] = MRC_A_CC_PROFILE_NSCC,
	},
	.part_field = MRC_CC_F_NSCC,
	.nparts = MRC_NSCC_NPARAMS,
	.part_type = mrc_nl_nscc_type,
	.part_policy = mrc_nscc_nl_policy,
	.part_maxtype = MRC_A_NSCC_MAX,
};

static int mrc_nl_cc_parse(struct genl_info *info, struct mrc_cc_args *args)
{
	struct nlattr *nscc = info->attrs[MRC_A_CC_PROFILE_NSCC];
	struct nlattr *algo = info->attrs[MRC_A_CC_PROFILE_ALGORITHM];
	struct nlattr *ntb[MRC_A_NSCC_MAX + 1];
	struct nlattr *a;
	unsigned int i;
	int err;

	err = mrc_nl_prof_req(info, &mrc_nl_cc, &args->prof);
	if (err)
		return err;
	if (algo) {
		args->has_algo = true;
		args->algo = mrc_cc_algo_lookup(nla_data(algo));
	}
	if (!nscc)
		return 0;
	args->has_nscc = true;
	err = nla_parse_nested(ntb, MRC_A_NSCC_MAX, nscc, mrc_nscc_nl_policy,
			       info->extack);
	if (err)
		return err;
	for (i = 0; i < MRC_NSCC_NPARAMS; i++) {
		a = ntb[mrc_nl_nscc[i].type];
		if (!a)
			continue;
		*mrc_nscc_param(&args->nscc, i) = mrc_nl_nscc[i].is_u8 ?
			nla_get_u8(a) : nla_get_u32(a);
		args->nscc_given |= BIT(i);
	}
	return 0;
}

int mrc_nl_cc_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_cc_args args = {};
	int err;

	err = mrc_nl_cc_parse(info, &args);
	if (err)
		return err;
	err = mrc_cc_set(mrc_nl_dev(info), &args);
	if (err)
		mrc_nl_refused(info, &mrc_nl_cc, &args.prof.err);
	return err;
}

static int mrc_nl_cc_fill(struct sk_buff *skb, struct mrc_dev *dev,
			  struct mrc_cc_info *p, u32 portid, u32 seq,
			  int flags)
{
	struct mrc_cc_cfg *c = &p->cfg;
	struct nlattr *nest;
	unsigned int i;
	void *hdr;
	u32 v;

	hdr = mrc_nl_msg_put(skb, portid, seq, flags, MRC_CMD_CC_PROFILE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_CC_PROFILE_ID, p->id,
			      MRC_A_CC_PROFILE_PAD) ||
	    nla_put_u32(skb, MRC_A_CC_PROFILE_STATE, c->state) ||
	    nla_put_string(skb, MRC_A_CC_PROFILE_ALGORITHM,
			   mrc_cc_algo_name(c->algo)))
		goto cancel;
	if (c->has_nscc) {
		nest = nla_nest_start(skb, MRC_A_CC_PROFILE_NSCC);
		if (!nest)
			goto cancel;
		for (i = 0; i < MRC_NSCC_NPARAMS; i++) {
			v = *mrc_nscc_param(&c->nscc, i);
			if (mrc_nl_nscc[i].is_u8 ?
			    nla_put_u8(skb, mrc_nl_nscc[i].type, v) :
			    nla_put_u32(skb, mrc_nl_nscc[i].type, v))
				goto cancel;
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

int mrc_nl_cc_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *id = info->attrs[MRC_A_CC_PROFILE_ID];
	struct mrc_dev *dev = mrc_nl_dev(info);
	struct mrc_cc_info p;
	struct sk_buff *msg;
	int err;

	if (!id)
		return mrc_nl_id_required(info->extack, MRC_A_CC_PROFILE_ID);
	if (mrc_cc_read(dev, nla_get_u64(id), false, &p)) {
		NL_SET_ERR_MSG_ATTR(info->extack, id, "the CC profile is in INIT");
		return -ENOENT;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mrc_nl_cc_fill(msg, dev, &p, info->snd_portid, info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* Dump from CC profile id *@pos on; *@pos: where to go on. */
static int mrc_nl_cc_dump_one(struct sk_buff *skb,
			      struct netlink_callback *cb,
			      struct mrc_dev *dev, struct nlattr **tb,
			      unsigned long *pos)
{
	struct mrc_cc_info p;
	int err;

	while (!mrc_cc_read(dev, *pos, true, &p)) {
		err = mrc_nl_cc_fill(skb, dev, &p, NETLINK_CB(cb->skb).portid,
				     cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*pos = p.id;
			return err;
		}
		if (!mrc_nl_dump_next(pos, p.id))
			break;
	}
	return 0;
}

int mrc_nl_cc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_cc_dump_one);
}
