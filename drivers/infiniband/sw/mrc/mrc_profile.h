/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the controller's objects (EV format, EV and CC profiles, device
 * defaults) as mrc_profile.c keeps them, and what the netlink family
 * (mrc_nl.c) calls to change and report them.
 */
#ifndef MRC_PROFILE_H
#define MRC_PROFILE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <net/genetlink.h>
#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_nl.h"
#include "mrc_nl_policy.h"

/* Bits of an EV a format mode places in the headers. */
#define MRC_FMT_UDP_BITS	16
#define MRC_FMT_STEV_BITS	32
#define MRC_FMT_SRV6_BITS	256
#define MRC_EV_MAX_BITS		(MRC_EV_MAX_BYTES * BITS_PER_BYTE)

/* Position of the UDP source port and flow label bits in an expanded EV. */
#define MRC_EV_SPORT_BITS	16
#define MRC_EV_FLOW_BITS	16

struct mrc_fmt_cfg {
	u32 state;			/* MRC_PROFILE_STATE_* (never INIT) */
	u32 mode;			/* one MRC_EV_FMT_MODE_* bit */
	u32 nfields;
	u32 width[MRC_CTL_MAX_FIELDS];
};

struct mrc_fmt_profile {
	struct list_head node;
	u64 id;
	struct mrc_fmt_cfg cfg;
	u32 users;			/* EV profiles out of INIT using it */
	u32 online_users;		/* ... of which ONLINE */
};

struct mrc_ev_field {
	u32 width;
	u32 init_val;
	u32 min_val;
	u32 max_val;
	u32 mask;
};

/* One slot of an EV array. */
struct mrc_evp_slot {
	u8 val[MRC_EV_MAX_BYTES];	/* the EV, zero padded */
	u8 len;				/* bytes as given (0: unpopulated) */
	u8 port;			/* 1-based; 0: unpopulated */
	bool denied;
	struct mrc_path path;		/* expanded, for the datapath */
};

struct mrc_ev_cfg {
	u32 state;
	u32 mode;			/* one MRC_EV_MODE_* bit */
	struct mrc_fmt_profile *fmt;	/* EXP and GEN; holds a user */
	u32 ev_count;
	u32 ev_count_req;		/* GEN: the count asked for */
	u32 min_active;
	u32 event_mask;
	bool has_min_active;
	bool has_event_mask;
	u32 nfields;
	struct mrc_ev_field field[MRC_CTL_MAX_FIELDS];
};

struct mrc_ev_profile {
	struct list_head node;
	u64 id;
	u32 qp_count;			/* QPs bound; under ctl->lock */

	/*
	 * What the datapath reads in atomic context (cfg.min_active,
	 * cfg.event_mask, the array) changes only with @lock held, taken
	 * with bottom halves off, besides ctl->lock; a replaced array is
	 * freed after @lock is dropped.
	 */
	spinlock_t lock;
	struct mrc_ev_cfg cfg;
	struct mrc_evp_slot *slots;
	u32 nslots;
};

/* The NSCC parameters are kept by MRC_A_NSCC_* attribute. */
struct mrc_cc_cfg {
	u32 state;
	u32 algo;			/* MRC_CC_ALGO_* */
	bool has_nscc;
	u32 nscc[MRC_A_NSCC_MAX + 1];
};

struct mrc_cc_profile {
	struct list_head node;
	u64 id;
	struct mrc_cc_cfg cfg;
	u32 qp_count;
};

enum {
	MRC_CC_ALGO_NONE,
	MRC_CC_ALGO_NSCC,
};

#define MRC_CC_ALGO_NAME_NONE	"none"
#define MRC_CC_ALGO_NAME_NSCC	"uet-1.0-nscc"

struct mrc_ctl {
	/* Serialises every change of the controller's objects. */
	struct mutex lock;
	struct list_head fmts;		/* sorted by id */
	struct list_head evps;
	struct list_head ccs;
	u32 nfmts;
	u32 nevps;
	u32 nccs;
	u32 ev_used;			/* slots of all EV profiles */
	struct mrc_ev_profile *def_ev;	/* NULL: built in */
	struct mrc_cc_profile *def_cc;
	u32 skip_hold_us;

	/* EV events (mrc_nl.c): rate bound and drops; atomic context. */
	spinlock_t ev_lock;
	unsigned long ev_window;	/* jiffies the window started */
	u32 ev_in_window;
	u32 ev_pending_drops;
	atomic64_t ev_drops;
};

/*
 * The attributes of a request, to walk the multi-attr ones (info->attrs
 * holds only the last of each type).
 */
static inline struct nlattr *mrc_req_attrs(struct genl_info *info)
{
	return genlmsg_data(info->genlhdr);
}

static inline int mrc_req_len(struct genl_info *info)
{
	return genlmsg_len(info->genlhdr);
}

/* How many attributes of @type a request has. */
static inline unsigned int mrc_req_count(struct genl_info *info, int type)
{
	unsigned int n = 0;
	struct nlattr *attr;
	int rem;

	nla_for_each_attr(attr, mrc_req_attrs(info), mrc_req_len(info), rem)
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

/* mrc_profile.c: the netlink commands on profiles. */
int mrc_profile_dev_set(struct mrc_dev *dev, struct genl_info *info);
int mrc_profile_dev_fill(struct sk_buff *skb, struct mrc_dev *dev);

int mrc_profile_fmt_set(struct mrc_dev *dev, struct genl_info *info);
int mrc_profile_ev_set(struct mrc_dev *dev, struct genl_info *info);
int mrc_profile_cc_set(struct mrc_dev *dev, struct genl_info *info);

struct sk_buff *mrc_profile_fmt_get(struct mrc_dev *dev,
				    struct genl_info *info);
struct sk_buff *mrc_profile_ev_get(struct mrc_dev *dev,
				   struct genl_info *info);
struct sk_buff *mrc_profile_cc_get(struct mrc_dev *dev,
				   struct genl_info *info);

/* Dumps: *@pos is the next id (profiles) or slot (ev-get) to report. */
int mrc_profile_fmt_dump(struct sk_buff *skb, struct netlink_callback *cb,
			 struct mrc_dev *dev, unsigned long *pos);
int mrc_profile_ev_dump(struct sk_buff *skb, struct netlink_callback *cb,
			struct mrc_dev *dev, unsigned long *pos);
int mrc_profile_cc_dump(struct sk_buff *skb, struct netlink_callback *cb,
			struct mrc_dev *dev, unsigned long *pos);
int mrc_profile_ev_array_dump(struct sk_buff *skb,
			      struct netlink_callback *cb,
			      struct mrc_dev *dev, u64 id, unsigned long *pos);

/* For events: the value bytes and port of slot @slot of @qp's profile. */
bool mrc_profile_qp_ev_value(struct mrc_qp *qp, u32 slot, u8 *val, u8 *len,
			     u8 *port, u64 *profile_id, u32 *event_mask);

#endif /* MRC_PROFILE_H */
