/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the "mrc" generic netlink family, the controller interface
 * (Documentation/mrc/netlink.rst).
 */
#ifndef MRC_NL_H
#define MRC_NL_H

#include <net/genetlink.h>

struct mrc_dev;

int mrc_nl_init(void);
void mrc_nl_exit(void);

/* Message helpers for the profile code (mrc_profile.c, mrc_nl_profile.c). */
void *mrc_nl_msg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd);
int mrc_nl_put_dev(struct sk_buff *skb, struct mrc_dev *dev);
void mrc_nl_set_e2big(struct netlink_ext_ack *extack,
		      const struct nlattr *attr, u32 needed);

/*
 * The attributes of a request, to walk the multi-attr ones (info->attrs
 * holds only the last of each type).
 */
static inline struct nlattr *mrc_nl_attrs(struct genl_info *info)
{
	return genlmsg_data(info->genlhdr);
}

static inline int mrc_nl_attrs_len(struct genl_info *info)
{
	return genlmsg_len(info->genlhdr);
}

/* How many attributes of @type a request has. */
static inline unsigned int mrc_nl_count(struct genl_info *info, int type)
{
	unsigned int n = 0;
	struct nlattr *attr;
	int rem;

	nla_for_each_attr(attr, mrc_nl_attrs(info), mrc_nl_attrs_len(info), rem)
		n += nla_type(attr) == type;
	return n;
}

/*
 * The length of EV value attribute @attr, or -ERANGE if it is longer than
 * an EV: the generated policy bounds it only from below.
 */
static inline int mrc_ev_attr_len(const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (nla_len(attr) <= MRC_EV_MAX_BYTES)
		return nla_len(attr);
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "an EV is at most ev-max-bytes (32) bytes");
	return -ERANGE;
}

/* The device of an MRC_NL_F_DEV op, pinned until its doit returns. */
static inline struct mrc_dev *mrc_nl_dev(struct genl_info *info)
{
	return info->user_ptr[0];
}

/*
 * Dump something of every device the requester may see, or of the one
 * the request names (mrc_nl.c): @fn fills from *pos on and sets it to
 * where it stopped.
 */
typedef int (*mrc_nl_dump_fn)(struct sk_buff *skb, struct netlink_callback *cb,
			      struct mrc_dev *dev, struct nlattr **tb,
			      unsigned long *pos);
int mrc_nl_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
		     bool dev_required, mrc_nl_dump_fn fn);

/* mrc_nl_profile.c: the commands on profiles */
int mrc_nl_fmt_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_fmt_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_fmt_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_ev_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_ev_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_ev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_ev_array_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_cc_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_cc_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_cc_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* MRC_NL_H */
