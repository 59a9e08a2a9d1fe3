// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the "mrc" generic netlink family (Documentation/mrc/netlink.rst,
 * Documentation/netlink/specs/mrc.yaml): devices, ports, profiles, QPs,
 * endpoint operations, and the events of groups ev and ep.
 *
 * The profiles themselves live in mrc_profile.c; this file finds the
 * device a request names, frames the messages and walks the dumps.
 */
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_compat.h"
#include "mrc_nl.h"
#include "mrc_nl_policy.h"
#include "mrc_profile.h"

unsigned int mrc_param_ev_event_rate = MRC_DEFAULT_EV_EVENT_RATE;
module_param_named(ev_event_rate, mrc_param_ev_event_rate, uint, 0644);
MODULE_PARM_DESC(ev_event_rate, "EV events a device sends per second at most; the rest are counted as dropped (default 1000)");

/*
 * The registered MRC devices by ib_device index.  An ib_client fills it: the
 * core calls its add once a device is registered and its remove during
 * unregistration, after the last registration reference is gone and before
 * the device is freed.  So an entry is valid memory while the xarray lock is
 * held, and ib_device_try_get() under that lock pins a live device.
 */
static DEFINE_XARRAY(mrc_nl_devs);

static struct genl_family mrc_nl_family;

/*
 * The policies are mrc_nl_policy.c's, generated from the spec; what YNL
 * cannot say there (an EV value's maximum length) the parsers check.  A
 * command's policy is as long as its last attribute.
 */
#define MRC_NL_MAXATTR(_policy)	(ARRAY_SIZE(_policy) - 1)

/* --- devices ------------------------------------------------------------- */

/* A registration reference on the MRC device at @index, or NULL. */
static struct ib_device *mrc_nl_get_by_index(u32 index)
{
	struct ib_device *ibdev;

	xa_lock(&mrc_nl_devs);
	ibdev = xa_load(&mrc_nl_devs, index);
	if (ibdev && !ib_device_try_get(ibdev))
		ibdev = NULL;
	xa_unlock(&mrc_nl_devs);
	return ibdev;
}

/*
 * The first MRC device at index *@index or above that @net may see, with a
 * registration reference, and its index in *@index; NULL when none is left.
 */
static struct ib_device *mrc_nl_get_next(struct net *net, unsigned long *index)
{
	struct ib_device *ibdev;

	xa_lock(&mrc_nl_devs);
	xa_for_each_start(&mrc_nl_devs, *index, ibdev, *index) {
		if (rdma_dev_access_netns(ibdev, net) &&
		    ib_device_try_get(ibdev))
			break;
	}
	xa_unlock(&mrc_nl_devs);
	return ibdev;
}

/*
 * The device a request names by its dev-index and/or dev-name attribute
 * (numbers 1 and 2 in every attribute set), with a registration
 * reference.  NULL if it names none and @required is false; an ERR_PTR,
 * with the reason in @extack, on a refusal.
 */
static struct ib_device *mrc_nl_dev_find(struct net *net,
					 struct nlattr **attrs, bool required,
					 struct netlink_ext_ack *extack)
{
	struct nlattr *idx = attrs[MRC_A_DEVICE_DEV_INDEX];
	struct nlattr *name = attrs[MRC_A_DEVICE_DEV_NAME];
	struct ib_device *ibdev;

	if (!idx && !name) {
		if (!required)
			return NULL;
		NL_SET_ERR_MSG(extack, "dev-index or dev-name is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_DEVICE_DEV_INDEX);
		return ERR_PTR(-EINVAL);
	}

	if (idx)
		ibdev = mrc_nl_get_by_index(nla_get_u32(idx));
	else
		ibdev = ib_device_get_by_name(nla_data(name), MRC_DRIVER_ID);
	if (ibdev && !rdma_dev_access_netns(ibdev, net)) {
		ib_device_put(ibdev);
		ibdev = NULL;
	}
	if (!ibdev) {
		NL_SET_ERR_MSG_ATTR(extack, idx ?: name, "no such MRC device");
		return ERR_PTR(-ENODEV);
	}

	if (idx && name && strcmp(dev_name(&ibdev->dev), nla_data(name))) {
		ib_device_put(ibdev);
		NL_SET_ERR_MSG_ATTR(extack, name,
				    "dev-index and dev-name name different devices");
		return ERR_PTR(-EINVAL);
	}
	return ibdev;
}

/*
 * Ops flagged MRC_NL_F_DEV act on the device their request names: the
 * pre_doit hook finds it (and refuses the request when there is none),
 * the doit reads it with mrc_nl_dev() and the post_doit hook drops it.
 */
#define MRC_NL_F_DEV	BIT(0)

static int mrc_nl_pre_doit(const struct mrc_genl_hook_ops *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	struct ib_device *ibdev;

	info->user_ptr[0] = NULL;
	if (!(ops->internal_flags & MRC_NL_F_DEV))
		return 0;
	ibdev = mrc_nl_dev_find(genl_info_net(info), info->attrs, true,
				info->extack);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	info->user_ptr[0] = to_mdev(ibdev);
	return 0;
}

static void mrc_nl_post_doit(const struct mrc_genl_hook_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_dev *dev = info->user_ptr[0];

	if (dev)
		ib_device_put(&dev->ibdev);
}

/* Ends a dump step: an skb with messages makes the caller come back. */
static int mrc_nl_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

void *mrc_nl_msg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd)
{
	return genlmsg_put(skb, portid, seq, &mrc_nl_family, flags, cmd);
}

/* dev-index and dev-name: attributes 1 and 2 of every set. */
int mrc_nl_put_dev(struct sk_buff *skb, struct mrc_dev *dev)
{
	if (nla_put_u32(skb, MRC_A_DEVICE_DEV_INDEX, dev->ibdev.index) ||
	    nla_put_string(skb, MRC_A_DEVICE_DEV_NAME, dev_name(&dev->ibdev.dev)))
		return -EMSGSIZE;
	return 0;
}

/*
 * E2BIG on a get: the extack says how many entries are needed, and the
 * ack's cookie holds that number (u32, host order).
 */
void mrc_nl_set_e2big(struct netlink_ext_ack *extack,
		      const struct nlattr *attr, u32 needed)
{
	mrc_nl_msg_u32(extack, "array-size is too small: need %u entries",
		       needed);
	if (!extack)
		return;
	extack->bad_attr = attr;
	BUILD_BUG_ON(sizeof(needed) > NETLINK_MAX_COOKIE_LEN);
	memcpy(extack->cookie, &needed, sizeof(needed));
	extack->cookie_len = sizeof(needed);
}

/*
 * Dump something of every device the requester may see, or of the one
 * the request names.  @fn fills from *pos on and sets it to where it
 * stopped.  cb->args: [0] device index, [1] position, [2] the one device
 * of a filtered dump is done.
 */
int mrc_nl_dump_devs(struct sk_buff *skb, struct netlink_callback *cb,
		     bool dev_required, mrc_nl_dump_fn fn)
{
	struct nlattr **tb = mrc_nl_dump_attrs(cb);
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	unsigned long pos = cb->args[1];
	struct ib_device *ibdev;
	int err = 0;

	ibdev = mrc_nl_dev_find(net, tb, dev_required, cb->extack);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	if (ibdev) {
		if (!cb->args[2]) {
			err = fn(skb, cb, to_mdev(ibdev), tb, &pos);
			cb->args[1] = pos;
			cb->args[2] = !err;
		}
		ib_device_put(ibdev);
		return mrc_nl_dump_ret(skb, err);
	}

	while ((ibdev = mrc_nl_get_next(net, &index))) {
		if (index != cb->args[0])
			pos = 0;
		err = fn(skb, cb, to_mdev(ibdev), tb, &pos);
		ib_device_put(ibdev);
		if (err)
			break;
		index++;
	}
	cb->args[0] = index;
	cb->args[1] = pos;
	return mrc_nl_dump_ret(skb, err);
}

/* --- dev-* ------------------------------------------------------------------ */

#define MRC_NL_DEV_CAPS	(MRC_DEV_CAPS_EV_PROFILE_MODIFY_ONLINE |	\
			 MRC_DEV_CAPS_CC_PROFILE_MODIFY_ONLINE |	\
			 MRC_DEV_CAPS_EV_EVENT |			\
			 MRC_DEV_CAPS_EV_EVENT_PRECISE_DROP_CNT |	\
			 MRC_DEV_CAPS_EP_OP_EV_PROBE |			\
			 MRC_DEV_CAPS_EP_OP_PORT_STATUS_UPDATE |	\
			 MRC_DEV_CAPS_MULTI_PLANE)

/* One dev-get reply for @ibdev. */
/* The controller's part of a device's description: limits, defaults. */
static int mrc_nl_dev_ctl_fill(struct sk_buff *skb, struct mrc_dev *dev)
{
	struct mrc_dev_info d;

	mrc_profile_dev_read(dev, &d);
	if (nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_FMT_PROFILES,
			MRC_CTL_MAX_FMT_PROFILES) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_PROFILES,
			MRC_CTL_MAX_EV_PROFILES) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_MAX_COUNT, MRC_CTL_EV_MAX_COUNT) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_FREE_COUNT, d.ev_free) ||
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
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_EV_PROFILE, d.def_ev,
			      MRC_A_DEVICE_PAD) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_CC_PROFILE, d.def_cc,
			      MRC_A_DEVICE_PAD) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EV_SKIP_HOLD_US, d.skip_hold_us) ||
	    nla_put_u32(skb, MRC_A_DEVICE_EP_MAX_REQS, MRC_CTL_EP_MAX_REQS) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_EV_EVENT_DROPS,
			      d.ev_event_drops, MRC_A_DEVICE_PAD))
		return -EMSGSIZE;
	return 0;
}

static int mrc_nl_dev_fill(struct sk_buff *skb, struct ib_device *ibdev,
			   u32 portid, u32 seq, int flags)
{
	struct mrc_dev *dev = to_mdev(ibdev);
	struct nlattr *nest;
	u32 port_mask = 0;
	void *hdr;
	u32 port;

	hdr = genlmsg_put(skb, portid, seq, &mrc_nl_family, flags,
			  MRC_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	rdma_for_each_port(ibdev, port)
		port_mask |= BIT(port);

	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u32(skb, MRC_A_DEVICE_PROTOCOL_VERSION,
			MRC_PROTOCOL_VERSION_V1) ||
	    nla_put_u32(skb, MRC_A_DEVICE_PORT_MASK, port_mask) ||
	    nla_put_u32(skb, MRC_A_DEVICE_CAPS, MRC_NL_DEV_CAPS) ||
	    mrc_nl_dev_ctl_fill(skb, dev))
		goto cancel;

	nest = nla_nest_start(skb, MRC_A_DEVICE_CC_ALGORITHM);
	if (!nest ||
	    nla_put_string(skb, MRC_A_CC_ALGORITHM_NAME, mrc_cc_algo_name(MRC_CC_ALGO_NSCC)))
		goto cancel;
	nla_nest_end(skb, nest);

	rdma_for_each_port(ibdev, port) {
		struct net_device *ndev = mrc_port_ndev(dev, port);

		if (ndev &&
		    nla_put_u32(skb, MRC_A_DEVICE_NETDEV_IFINDEX, ndev->ifindex))
			goto cancel;
	}

	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int mrc_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mrc_nl_dev_fill(msg, &mrc_nl_dev(info)->ibdev, info->snd_portid,
			      info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int mrc_nl_dev_dump_one(struct sk_buff *skb,
			       struct netlink_callback *cb,
			       struct mrc_dev *dev, struct nlattr **tb,
			       unsigned long *pos)
{
	if (*pos)
		return 0;
	if (mrc_nl_dev_fill(skb, &dev->ibdev, NETLINK_CB(cb->skb).portid,
			    cb->nlh->nlmsg_seq, NLM_F_MULTI))
		return -EMSGSIZE;
	*pos = 1;
	return 0;
}

static int mrc_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_dev_dump_one);
}

static int mrc_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *ev = info->attrs[MRC_A_DEVICE_DEFAULT_EV_PROFILE];
	struct nlattr *cc = info->attrs[MRC_A_DEVICE_DEFAULT_CC_PROFILE];
	struct nlattr *hold = info->attrs[MRC_A_DEVICE_EV_SKIP_HOLD_US];
	struct mrc_dev_args args = { .extack = info->extack };
	int err;

	args.has_def_ev = ev;
	if (ev)
		args.def_ev = nla_get_u64(ev);
	args.has_def_cc = cc;
	if (cc)
		args.def_cc = nla_get_u64(cc);
	args.has_skip_hold = hold;
	if (hold)
		args.skip_hold_us = nla_get_u32(hold);
	err = mrc_profile_dev_set(mrc_nl_dev(info), &args);
	if (err && args.err.field == MRC_DEV_F_DEF_EV)
		NL_SET_BAD_ATTR(info->extack, ev);
	else if (err && args.err.field == MRC_DEV_F_DEF_CC)
		NL_SET_BAD_ATTR(info->extack, cc);
	return err;
}

static int mrc_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *ndevs[MRC_MAX_PORTS] = {};
	struct nlattr *name = info->attrs[MRC_A_DEVICE_DEV_NAME];
	struct netlink_ext_ack *extack = info->extack;
	struct ib_device *ibdev;
	struct sk_buff *msg;
	unsigned int n = 0, i;
	struct nlattr *attr;
	void *hdr;
	int rem, err;

	if (!name) {
		NL_SET_ERR_MSG(extack, "dev-name is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_DEVICE_DEV_NAME);
		return -EINVAL;
	}
	if (!info->attrs[MRC_A_DEVICE_NETDEV_IFINDEX]) {
		NL_SET_ERR_MSG(extack, "at least one netdev-ifindex is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, MRC_A_DEVICE_NETDEV_IFINDEX);
		return -EINVAL;
	}

	nla_for_each_attr(attr, mrc_nl_attrs(info), mrc_nl_attrs_len(info),
			  rem) {
		if (nla_type(attr) != MRC_A_DEVICE_NETDEV_IFINDEX)
			continue;
		u32 ifindex = nla_get_u32(attr);

		if (n == MRC_MAX_PORTS) {
			NL_SET_ERR_MSG_ATTR(extack, attr,
					    "more netdevs than max-ports");
			err = -E2BIG;
			goto out;
		}
		for (i = 0; i < n; i++) {
			if (ndevs[i]->ifindex == ifindex) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "a netdev is named twice");
				err = -EINVAL;
				goto out;
			}
		}
		ndevs[n] = dev_get_by_index(genl_info_net(info), ifindex);
		if (!ndevs[n]) {
			NL_SET_ERR_MSG_ATTR(extack, attr, "no such netdev");
			err = -ENODEV;
			goto out;
		}
		n++;
	}

	err = mrc_dev_new(nla_data(name), ndevs, n, extack);
	if (err) {
		if (!extack->_msg)
			NL_SET_ERR_MSG(extack, "the device could not be created");
		goto out;
	}

	ibdev = ib_device_get_by_name(nla_data(name), MRC_DRIVER_ID);
	if (!ibdev) {
		/* Deleted again at once: nothing to report. */
		err = -ENODEV;
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ib_device_put(ibdev);
		err = -ENOMEM;
		goto out;
	}
	hdr = genlmsg_put_reply(msg, info, &mrc_nl_family, 0, MRC_CMD_DEV_NEW);
	if (!hdr || mrc_nl_put_dev(msg, to_mdev(ibdev))) {
		ib_device_put(ibdev);
		nlmsg_free(msg);
		err = -EMSGSIZE;
		goto out;
	}
	genlmsg_end(msg, hdr);
	ib_device_put(ibdev);
	err = genlmsg_reply(msg, info);
out:
	for (i = 0; i < n; i++)
		dev_put(ndevs[i]);
	return err;
}

static int mrc_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_dev *dev = mrc_nl_dev(info);

	/*
	 * As `rdma link delete`: user contexts are disassociated.  The
	 * unregistration consumes the hook's reference.
	 */
	info->user_ptr[0] = NULL;
	ib_unregister_device_and_put(&dev->ibdev);
	return 0;
}

/* --- port-* -------------------------------------------------------------------- */

/* One port-get reply for port @port of @ibdev; may sleep. */
static int mrc_nl_port_fill(struct sk_buff *skb, struct ib_device *ibdev,
			    u32 port, u32 portid, u32 seq, int flags)
{
	struct mrc_dev *dev = to_mdev(ibdev);
	struct net_device *ndev = mrc_port_ndev(dev, port);
	struct ib_port_attr attr;
	void *hdr;
	int err;

	/* The state verbs report, as ibv_query_port() and `rdma link` see it. */
	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;

	hdr = genlmsg_put(skb, portid, seq, &mrc_nl_family, flags,
			  MRC_CMD_PORT_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u32(skb, MRC_A_PORT_PORT_INDEX, port) ||
	    (ndev && (nla_put_u32(skb, MRC_A_PORT_IFINDEX, ndev->ifindex) ||
		      nla_put_string(skb, MRC_A_PORT_IFNAME, ndev->name))) ||
	    nla_put_u32(skb, MRC_A_PORT_ADMIN_STATE,
			mrc_port_admin_enabled(dev, port) ?
			MRC_PORT_ADMIN_STATE_ENABLED :
			MRC_PORT_ADMIN_STATE_DISABLED) ||
	    nla_put_u32(skb, MRC_A_PORT_STATE, attr.state)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}

	genlmsg_end(skb, hdr);
	return 0;
}

/* The port a do request names; -ENOENT if the device has no such port. */
static int mrc_nl_port_arg(struct genl_info *info, struct ib_device *ibdev,
			   u32 *port)
{
	struct nlattr *attr = info->attrs[MRC_A_PORT_PORT_INDEX];

	if (!attr) {
		NL_SET_ERR_MSG(info->extack, "port-index is required");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_A_PORT_PORT_INDEX);
		return -EINVAL;
	}
	*port = nla_get_u32(attr);
	if (!rdma_is_port_valid(ibdev, *port)) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr,
				    "the device has no such port");
		return -ENOENT;
	}
	return 0;
}

static int mrc_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ib_device *ibdev = &mrc_nl_dev(info)->ibdev;
	struct sk_buff *msg;
	u32 port;
	int err;

	err = mrc_nl_port_arg(info, ibdev, &port);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = mrc_nl_port_fill(msg, ibdev, port, info->snd_portid,
			       info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int mrc_nl_port_dump_one(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct mrc_dev *dev, struct nlattr **tb,
				unsigned long *pos)
{
	struct ib_device *ibdev = &dev->ibdev;
	unsigned long p;
	int err;

	if (tb[MRC_A_PORT_PORT_INDEX]) {
		NL_SET_ERR_MSG_ATTR(cb->extack, tb[MRC_A_PORT_PORT_INDEX],
				    "a port dump takes no port-index");
		return -EINVAL;
	}
	for (p = max_t(unsigned long, *pos, rdma_start_port(ibdev));
	     p <= rdma_end_port(ibdev); p++) {
		err = mrc_nl_port_fill(skb, ibdev, p,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*pos = p;
			return err;
		}
	}
	return 0;
}

static int mrc_nl_port_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_port_dump_one);
}

static int mrc_nl_port_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *admin = info->attrs[MRC_A_PORT_ADMIN_STATE];
	struct mrc_dev *dev = mrc_nl_dev(info);
	u32 port;
	int err;

	err = mrc_nl_port_arg(info, &dev->ibdev, &port);
	if (err)
		return err;
	if (!admin) {
		NL_SET_ERR_MSG(info->extack, "admin-state is required");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_A_PORT_ADMIN_STATE);
		return -EINVAL;
	}
	return mrc_port_set_admin(dev, port,
				  nla_get_u32(admin) ==
				  MRC_PORT_ADMIN_STATE_ENABLED, info->extack);
}

/* --- qp-get ---------------------------------------------------------------------- */

/* The room one qp-get message takes at most: its EVs dominate. */
#define MRC_NL_QP_MSG_SIZE	(NLMSG_DEFAULT_SIZE + MRC_MAX_EV_COUNT * \
				 (nla_total_size(0) + 3 * nla_total_size(sizeof(u32))))

/* NSCC's view of the window, zero for the fixed one. */
static int mrc_nl_qp_put_cc(struct sk_buff *skb, struct mrc_qp *qp)
{
	const struct mrc_qp_cc *cc = &qp->dp.cc;
	bool nscc = cc->algo == MRC_CC_ALGO_NSCC;

	if (nla_put_u32(skb, MRC_A_QP_CWND, mrc_cc_window(qp)) ||
	    nla_put_u32(skb, MRC_A_QP_INFLIGHT_BYTES, cc->bytes) ||
	    nla_put_u32(skb, MRC_A_QP_BASE_RTT_NS,
			nscc ? cc->nscc.base_rtt_ns : 0) ||
	    nla_put_u32(skb, MRC_A_QP_AVG_DELAY_NS,
			nscc ? cc->nscc.avg_delay_ns : 0) ||
	    nla_put_u32(skb, MRC_A_QP_CC_EVENT, cc->last_event))
		return -EMSGSIZE;
	return 0;
}

/*
 * The requester's loss detection, its congestion window and the EVs as
 * its datapath sees them, under dp.lock: one consistent snapshot.
 */
static int mrc_nl_qp_put_dp(struct sk_buff *skb, struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct nlattr *nest;
	int err = 0;
	u32 i;

	spin_lock_bh(&dp->lock);
	if (nla_put_u32(skb, MRC_A_QP_SRTT_US, dp->rto.srtt_us) ||
	    nla_put_u32(skb, MRC_A_QP_MIN_RTT_US, dp->rack.min_rtt_us) ||
	    nla_put_u32(skb, MRC_A_QP_REO_WND_US, mrc_rack_reo_wnd_us(qp))) {
		err = -EMSGSIZE;
		goto out;
	}
	for (i = 0; i < dp->ev.count; i++) {
		nest = nla_nest_start(skb, MRC_A_QP_EV);
		if (!nest || nla_put_u32(skb, MRC_A_QP_EV_INDEX, i) ||
		    nla_put_u32(skb, MRC_A_QP_EV_STATE, dp->ev.slots[i].state) ||
		    nla_put_u32(skb, MRC_A_QP_EV_SCORE, dp->ev.slots[i].score)) {
			err = -EMSGSIZE;
			goto out;
		}
		nla_nest_end(skb, nest);
	}
	err = mrc_nl_qp_put_cc(skb, qp);
out:
	spin_unlock_bh(&dp->lock);
	return err;
}

/*
 * One qp-get message.  Under rcu_read_lock(): the QP's memory stays valid
 * until destroy has waited for readers; its profiles are named by the ids
 * kept beside the pointers (they may change in RESET and INIT).
 */
static int mrc_nl_qp_fill(struct sk_buff *skb, struct mrc_dev *dev,
			  struct mrc_qp *qp, u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &mrc_nl_family, flags,
			  MRC_CMD_QP_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u32(skb, MRC_A_QP_QPN, qp->ibqp.qp_num) ||
	    nla_put_u64_64bit(skb, MRC_A_QP_EV_PROFILE_ID,
			      READ_ONCE(qp->ev_profile_id), MRC_A_QP_PAD) ||
	    nla_put_u64_64bit(skb, MRC_A_QP_CC_PROFILE_ID,
			      READ_ONCE(qp->cc_profile_id), MRC_A_QP_PAD) ||
	    (READ_ONCE(qp->profile_explicit) &&
	     nla_put_flag(skb, MRC_A_QP_EXPLICIT)) ||
	    (READ_ONCE(qp->state) >= IB_QPS_RTR &&
	     READ_ONCE(qp->state) <= IB_QPS_SQD &&
	     nla_put(skb, MRC_A_QP_PEER_GID, MRC_GID_LEN,
		     qp->path.dgid.raw)) ||
	    nla_put_u32(skb, MRC_A_QP_EV_COUNT, READ_ONCE(qp->dp.ev.count)) ||
	    nla_put_u32(skb, MRC_A_QP_EV_USABLE, mrc_ev_qp_usable(qp)) ||
	    mrc_nl_qp_put_dp(skb, qp)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Who sees a QP: with CAP_NET_ADMIN (over the netlink socket's namespace)
 * every QP of the device; without, only the QPs of the calling process,
 * whose peers and profiles are its own business.
 */
static bool mrc_nl_qp_visible(const struct mrc_qp *qp, bool privileged)
{
	struct task_struct *owner = qp->ibqp.res.task;

	return privileged || (owner && same_thread_group(owner, current));
}

static int mrc_nl_qp_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *qpn = info->attrs[MRC_A_QP_QPN];
	struct mrc_dev *dev = mrc_nl_dev(info);
	struct sk_buff *msg;
	struct mrc_qp *qp;
	int err;

	if (!qpn) {
		NL_SET_ERR_MSG(info->extack, "qpn is required");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_A_QP_QPN);
		return -EINVAL;
	}
	msg = genlmsg_new(MRC_NL_QP_MSG_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	qp = mrc_qp_lookup(dev, nla_get_u32(qpn));
	if (qp && !mrc_nl_qp_visible(qp, netlink_capable(skb, CAP_NET_ADMIN))) {
		mrc_qp_put(qp);
		qp = NULL;	/* as if there were none */
	}
	if (qp) {
		err = mrc_nl_qp_fill(msg, dev, qp, info->snd_portid,
				     info->snd_seq, 0);
		mrc_qp_put(qp);
	} else {
		NL_SET_ERR_MSG_ATTR(info->extack, qpn, "no such QP");
		err = -ENOENT;
	}
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int mrc_nl_qp_dump_one(struct sk_buff *skb,
			      struct netlink_callback *cb,
			      struct mrc_dev *dev, struct nlattr **tb,
			      unsigned long *pos)
{
	bool privileged = netlink_capable(cb->skb, CAP_NET_ADMIN);
	unsigned long index = *pos;
	struct mrc_qp *qp;
	int err = 0;

	while ((qp = mrc_qp_next(dev, &index))) {
		if (mrc_nl_qp_visible(qp, privileged))
			err = mrc_nl_qp_fill(skb, dev, qp,
					     NETLINK_CB(cb->skb).portid,
					     cb->nlh->nlmsg_seq, NLM_F_MULTI);
		mrc_qp_put(qp);
		if (err) {
			/* This one again, in the next part of the dump. */
			*pos = index - 1;
			break;
		}
	}
	return err;
}

static int mrc_nl_qp_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	return mrc_nl_dump_devs(skb, cb, false, mrc_nl_qp_dump_one);
}

/* --- ep-op ------------------------------------------------------------------------ */

/* The path of EV @val (@len bytes) in format mode @mode. */
static int mrc_nl_ep_ev(u32 mode, const u8 *val, int len, u8 port,
			struct mrc_path *path, const struct nlattr *attr,
			struct netlink_ext_ack *extack)
{
	u8 buf[MRC_EV_MAX_BYTES] = {};
	int bytes;

	memcpy(buf, val, len);
	memset(path, 0, sizeof(*path));
	path->port = port;
	switch (mode) {
	case MRC_EV_FMT_MODE_UDP:
		bytes = MRC_FMT_UDP_BITS / BITS_PER_BYTE;
		break;
	case MRC_EV_FMT_MODE_STEV:
		bytes = MRC_FMT_STEV_BITS / BITS_PER_BYTE;
		break;
	case MRC_EV_FMT_MODE_SRV6:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "SRv6 endpoint requests are not supported yet");
		return -EOPNOTSUPP;
	default:
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ev-fmt-mode must be exactly one mode");
		return -EINVAL;
	}
	if (memchr_inv(buf + bytes, 0, MRC_EV_MAX_BYTES - bytes)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the EV does not fit its mode");
		return -EINVAL;
	}
	path->sport = (buf[0] << BITS_PER_BYTE) | buf[1];
	if (mode == MRC_EV_FMT_MODE_STEV)
		path->flow = (buf[2] << BITS_PER_BYTE) | buf[3];
	if (!path->sport) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "the EV gives UDP source port 0");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_ep_parse(struct genl_info *info, struct ib_device *ibdev,
			   struct nlattr *nest, struct mrc_ep_request *req)
{
	static const int required[] = {
		MRC_A_EP_REQ_REQ_ID, MRC_A_EP_REQ_SGID, MRC_A_EP_REQ_DGID,
		MRC_A_EP_REQ_EV_FMT_MODE, MRC_A_EP_REQ_EV_VALUE,
		MRC_A_EP_REQ_PORT,
	};
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[MRC_A_EP_REQ_MAX + 1];
	const struct ib_gid_attr *gattr;
	unsigned int i;
	int err;

	err = nla_parse_nested(tb, MRC_A_EP_REQ_MAX, nest, mrc_ep_req_nl_policy,
			       extack);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(required); i++) {
		if (!tb[required[i]]) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "a request needs req-id, sgid, dgid, ev-fmt-mode, ev-value and port");
			NL_SET_ERR_ATTR_MISS(extack, nest, required[i]);
			return -EINVAL;
		}
	}
	req->id = nla_get_u16(tb[MRC_A_EP_REQ_REQ_ID]);
	memcpy(req->sgid.raw, nla_data(tb[MRC_A_EP_REQ_SGID]), MRC_GID_LEN);
	memcpy(req->dgid.raw, nla_data(tb[MRC_A_EP_REQ_DGID]), MRC_GID_LEN);
	req->port_status = tb[MRC_A_EP_REQ_PORT_STATUS] ?
			   nla_get_u32(tb[MRC_A_EP_REQ_PORT_STATUS]) : 0;

	if (!rdma_is_port_valid(ibdev, nla_get_u32(tb[MRC_A_EP_REQ_PORT]))) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EP_REQ_PORT],
				    "the device has no such port");
		return -EINVAL;
	}
	err = mrc_ev_attr_len(tb[MRC_A_EP_REQ_EV_VALUE], extack);
	if (err < 0)
		return err;
	err = mrc_nl_ep_ev(nla_get_u32(tb[MRC_A_EP_REQ_EV_FMT_MODE]),
			   nla_data(tb[MRC_A_EP_REQ_EV_VALUE]), err,
			   nla_get_u32(tb[MRC_A_EP_REQ_PORT]), &req->ev,
			   tb[MRC_A_EP_REQ_EV_VALUE], extack);
	if (err)
		return err;

	gattr = rdma_find_gid(ibdev, &req->sgid, IB_GID_TYPE_ROCE_UDP_ENCAP,
			      NULL);
	if (IS_ERR(gattr)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EP_REQ_SGID],
				    "the device has no such RoCE v2 GID");
		return -EINVAL;
	}
	rdma_put_gid_attr(gattr);
	return 0;
}

/* Answered requests by arrival, then the ones that timed out. */
static int mrc_nl_ep_reply(struct genl_info *info, struct mrc_dev *dev,
			   const struct mrc_ep_request *reqs, unsigned int n)
{
	struct sk_buff *msg;
	struct nlattr *nest;
	unsigned int i, k, done = 0;
	void *hdr;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_nl_family, 0, MRC_CMD_EP_OP);
	if (!hdr || nla_put_u32(msg, MRC_A_EP_DEV_INDEX, dev->ibdev.index))
		goto fail;

	/* Answered, by their order (n is small: a selection pass). */
	for (k = 0; k < n; k++) {
		const struct mrc_ep_request *r = NULL;

		for (i = 0; i < n; i++) {
			if (reqs[i].answered && reqs[i].order >= done &&
			    (!r || reqs[i].order < r->order))
				r = &reqs[i];
		}
		if (!r)
			break;
		done = r->order + 1;
		nest = nla_nest_start(msg, MRC_A_EP_RSP);
		if (!nest ||
		    nla_put_u16(msg, MRC_A_EP_RSP_REQ_ID, r->id) ||
		    nla_put_u32(msg, MRC_A_EP_RSP_PORT, r->rx_port) ||
		    nla_put_u32(msg, MRC_A_EP_RSP_RTT, r->rtt_ns) ||
		    nla_put_u8(msg, MRC_A_EP_RSP_ADJ_SVC_TIME, r->adj_svc_time))
			goto fail;
		nla_nest_end(msg, nest);
	}
	for (i = 0; i < n; i++) {
		if (reqs[i].answered)
			continue;
		nest = nla_nest_start(msg, MRC_A_EP_RSP);
		if (!nest ||
		    nla_put_u16(msg, MRC_A_EP_RSP_REQ_ID, reqs[i].id) ||
		    nla_put_flag(msg, MRC_A_EP_RSP_TIMED_OUT))
			goto fail;
		nla_nest_end(msg, nest);
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
fail:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int mrc_nl_ep_op_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct mrc_dev *dev = mrc_nl_dev(info);
	struct mrc_ep_request *reqs = NULL;
	unsigned int n = 0, i, j;
	struct nlattr *nest;
	u32 op;
	u8 dscp;
	int rem, err;

	if (!tb[MRC_A_EP_OP_TYPE] || !tb[MRC_A_EP_TIMEOUT] ||
	    !tb[MRC_A_EP_REQ]) {
		int miss = !tb[MRC_A_EP_OP_TYPE] ? MRC_A_EP_OP_TYPE :
			   !tb[MRC_A_EP_TIMEOUT] ? MRC_A_EP_TIMEOUT :
			   MRC_A_EP_REQ;

		NL_SET_ERR_MSG(extack, "op-type, timeout and at least one req are required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, miss);
		err = -EINVAL;
		goto out;
	}
	op = nla_get_u32(tb[MRC_A_EP_OP_TYPE]);
	dscp = tb[MRC_A_EP_DSCP] ? nla_get_u32(tb[MRC_A_EP_DSCP]) :
				   mrc_param_dscp_control;

	n = mrc_nl_count(info, MRC_A_EP_REQ);
	if (n > MRC_CTL_EP_MAX_REQS) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_A_EP_REQ],
				    "more requests than ep-max-reqs");
		err = -E2BIG;
		goto out;
	}
	reqs = kcalloc(n, sizeof(*reqs), GFP_KERNEL);
	if (!reqs) {
		err = -ENOMEM;
		goto out;
	}
	i = 0;
	nla_for_each_attr(nest, mrc_nl_attrs(info), mrc_nl_attrs_len(info),
			  rem) {
		if (nla_type(nest) != MRC_A_EP_REQ)
			continue;
		err = mrc_nl_ep_parse(info, &dev->ibdev, nest, &reqs[i]);
		if (err)
			goto out;
		for (j = 0; j < i; j++) {
			if (reqs[j].id == reqs[i].id) {
				NL_SET_ERR_MSG_ATTR(extack, nest,
						    "req-id is not unique in the batch");
				err = -EINVAL;
				goto out;
			}
		}
		i++;
	}

	err = mrc_ep_batch(dev, op, dscp,
			   nla_get_u32(tb[MRC_A_EP_TIMEOUT]), reqs, n, extack);
	if (!err)
		err = mrc_nl_ep_reply(info, dev, reqs, n);
out:
	kfree(reqs);
	return err;
}

/* --- operations and the family -------------------------------------------------- */

/*
 * struct genl_ops, not genl_split_ops: 6.1 has no split ops.  One policy
 * serves the do and the dump form of a command.
 */
static const struct genl_ops mrc_nl_ops[] = {
	{
		.cmd = MRC_CMD_DEV_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_dev_get_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_dev_get_nl_policy),
		.doit = mrc_nl_dev_get_doit,
		.dumpit = mrc_nl_dev_get_dumpit,
	},
	{
		.cmd = MRC_CMD_DEV_SET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_dev_set_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_dev_set_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_dev_set_doit,
	},
	{
		.cmd = MRC_CMD_DEV_NEW,
		.policy = mrc_dev_new_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_dev_new_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_dev_new_doit,
	},
	{
		.cmd = MRC_CMD_DEV_DEL,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_dev_del_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_dev_del_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_dev_del_doit,
	},
	{
		.cmd = MRC_CMD_PORT_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_port_get_do_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_port_get_do_nl_policy),
		.doit = mrc_nl_port_get_doit,
		.dumpit = mrc_nl_port_get_dumpit,
	},
	{
		.cmd = MRC_CMD_PORT_SET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_port_set_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_port_set_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_port_set_doit,
	},
	{
		.cmd = MRC_CMD_EV_FMT_PROFILE_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_ev_fmt_profile_get_do_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ev_fmt_profile_get_do_nl_policy),
		.doit = mrc_nl_fmt_get_doit,
		.dumpit = mrc_nl_fmt_get_dumpit,
	},
	{
		.cmd = MRC_CMD_EV_FMT_PROFILE_SET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_ev_fmt_profile_set_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ev_fmt_profile_set_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_fmt_set_doit,
	},
	{
		.cmd = MRC_CMD_EV_PROFILE_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_ev_profile_get_do_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ev_profile_get_do_nl_policy),
		.doit = mrc_nl_ev_get_doit,
		.dumpit = mrc_nl_ev_get_dumpit,
	},
	{
		.cmd = MRC_CMD_EV_PROFILE_SET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_ev_profile_set_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ev_profile_set_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_ev_set_doit,
	},
	{
		.cmd = MRC_CMD_EV_GET,
		.policy = mrc_ev_get_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ev_get_nl_policy),
		.dumpit = mrc_nl_ev_array_dumpit,
	},
	{
		.cmd = MRC_CMD_CC_PROFILE_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_cc_profile_get_do_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_cc_profile_get_do_nl_policy),
		.doit = mrc_nl_cc_get_doit,
		.dumpit = mrc_nl_cc_get_dumpit,
	},
	{
		.cmd = MRC_CMD_CC_PROFILE_SET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_cc_profile_set_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_cc_profile_set_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_cc_set_doit,
	},
	{
		.cmd = MRC_CMD_QP_GET,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_qp_get_do_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_qp_get_do_nl_policy),
		.doit = mrc_nl_qp_get_doit,
		.dumpit = mrc_nl_qp_get_dumpit,
	},
	{
		.cmd = MRC_CMD_EP_OP,
		.internal_flags = MRC_NL_F_DEV,
		.policy = mrc_ep_op_nl_policy,
		.maxattr = MRC_NL_MAXATTR(mrc_ep_op_nl_policy),
		.flags = GENL_ADMIN_PERM,
		.doit = mrc_nl_ep_op_doit,
	},
};

static const struct genl_multicast_group mrc_nl_mcgrps[] = {
	[MRC_NLGRP_EV] = { .name = MRC_MCGRP_EV,
			   .flags = GENL_MCAST_CAP_NET_ADMIN },
	[MRC_NLGRP_EP] = { .name = MRC_MCGRP_EP,
			   .flags = GENL_MCAST_CAP_NET_ADMIN },
};

/*
 * Each command has its own policy, so the family has none (and no family
 * maxattr).  parallel_ops: ep-op sleeps while it waits for answers.
 */
static struct genl_family mrc_nl_family __ro_after_init = {
	.name = MRC_FAMILY_NAME,
	.version = MRC_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.pre_doit = mrc_nl_pre_doit,
	.post_doit = mrc_nl_post_doit,
	.ops = mrc_nl_ops,
	.n_ops = ARRAY_SIZE(mrc_nl_ops),
	.mcgrps = mrc_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(mrc_nl_mcgrps),
};

/* --- events ---------------------------------------------------------------------- */

/* Events go to the namespace of the device's (first) netdev. */
static struct net *mrc_nl_dev_net(struct mrc_dev *dev, u32 port)
{
	struct net_device *ndev = mrc_port_ndev(dev, port);

	if (!ndev)
		ndev = mrc_port_ndev(dev, rdma_start_port(&dev->ibdev));
	return ndev ? dev_net(ndev) : NULL;
}

/*
 * Whether one more EV event of @ctl may go out now; if so *@drops takes
 * the events lost since the previous one that went out.
 */
static bool mrc_nl_ev_admit(struct mrc_ctl *ctl, u32 *drops)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&ctl->ev_lock, flags);
	if (time_after_eq(jiffies, ctl->ev_window + HZ)) {
		ctl->ev_window = jiffies;
		ctl->ev_in_window = 0;
	}
	ok = ctl->ev_in_window < READ_ONCE(mrc_param_ev_event_rate);
	if (ok) {
		ctl->ev_in_window++;
		*drops = ctl->ev_pending_drops;
		ctl->ev_pending_drops = 0;
	} else {
		ctl->ev_pending_drops++;
		atomic64_inc(&ctl->ev_drops);
	}
	spin_unlock_irqrestore(&ctl->ev_lock, flags);
	return ok;
}

/* An event that was admitted could not be sent after all. */
static void mrc_nl_ev_lost(struct mrc_ctl *ctl, u32 drops)
{
	unsigned long flags;

	spin_lock_irqsave(&ctl->ev_lock, flags);
	ctl->ev_pending_drops += drops + 1;
	spin_unlock_irqrestore(&ctl->ev_lock, flags);
	atomic64_inc(&ctl->ev_drops);
}

/*
 * Send one ev-event of @dev to group ev: EV @val (@len bytes) on @port of
 * profile @id, @ev's states, reason and usable count; @qpn < 0: no QP (the
 * controller's change).  Atomic context.
 */
static void mrc_nl_ev_send(struct mrc_dev *dev, u64 id, const u8 *val,
			   u8 len, u8 port, const struct mrc_ev_event *ev,
			   s64 qpn)
{
	/* Called at the change: its time, on the clock captures use. */
	u64 now = ktime_get_real_ns();
	struct mrc_ctl *ctl = dev->ctl;
	struct sk_buff *skb;
	struct net *net;
	void *hdr;
	u32 drops;

	net = mrc_nl_dev_net(dev, port);
	if (!net || !genl_has_listeners(&mrc_nl_family, net, MRC_NLGRP_EV))
		return;
	if (!mrc_nl_ev_admit(ctl, &drops))
		return;

	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!skb)
		goto lost;
	hdr = genlmsg_put(skb, 0, 0, &mrc_nl_family, 0, MRC_CMD_EV_EVENT);
	if (!hdr)
		goto free;
	if (mrc_nl_put_dev(skb, dev) ||
	    nla_put_u64_64bit(skb, MRC_A_EV_EVENT_PROFILE_ID, id,
			      MRC_A_EV_EVENT_PAD) ||
	    nla_put(skb, MRC_A_EV_EVENT_VALUE, len, val) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_PORT, port) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_STATE, ev->state) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_PREV_STATE, ev->prev_state) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_REASON, ev->reason) ||
	    (qpn >= 0 && nla_put_u32(skb, MRC_A_EV_EVENT_QPN, qpn)) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_DROP_COUNT, drops) ||
	    nla_put_u32(skb, MRC_A_EV_EVENT_EV_USABLE, ev->usable) ||
	    nla_put_u64_64bit(skb, MRC_A_EV_EVENT_TIMESTAMP, now,
			      MRC_A_EV_EVENT_PAD))
		goto free;
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&mrc_nl_family, net, skb, 0, MRC_NLGRP_EV,
				GFP_ATOMIC);
	return;
free:
	nlmsg_free(skb);
lost:
	mrc_nl_ev_lost(ctl, drops);
}

/* An EV of @qp changed state (mrc_ev.c), if its profile's mask says so. */
void mrc_nl_ev_event(struct mrc_qp *qp, const struct mrc_ev_event *ev)
{
	u8 val[MRC_EV_MAX_BYTES], len, port;
	u32 mask;
	u64 id;

	if (!mrc_profile_qp_ev_value(qp, ev->slot, val, &len, &port, &id,
				     &mask))
		return;
	if (mask & ev->state)
		mrc_nl_ev_send(qp->dev, id, val, len, port, ev,
			       qp->ibqp.qp_num);
}

/* The controller moved an EV of profile @id between GOOD and DENIED. */
void mrc_nl_ev_ctl_event(struct mrc_dev *dev, u64 id, u32 event_mask,
			 const u8 *val, u8 len, u8 port, u32 state,
			 u32 prev_state, u32 usable)
{
	struct mrc_ev_event ev = {
		.state = state,
		.prev_state = prev_state,
		.reason = MRC_EV_REASON_CONTROLLER,
		.usable = usable,
	};

	if (event_mask & state)
		mrc_nl_ev_send(dev, id, val, len, port, &ev, -1);
}

/* A Port Status Update arrived from @peer: peer-status-event, group ep. */
void mrc_nl_peer_status(struct mrc_dev *dev, u32 port,
			const union ib_gid *peer, u32 port_status)
{
	struct net *net = mrc_nl_dev_net(dev, port);
	struct sk_buff *skb;
	void *hdr;

	if (!net || !genl_has_listeners(&mrc_nl_family, net, MRC_NLGRP_EP))
		return;
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &mrc_nl_family, 0,
			  MRC_CMD_PEER_STATUS_EVENT);
	if (!hdr ||
	    mrc_nl_put_dev(skb, dev) ||
	    nla_put_u32(skb, MRC_A_PEER_STATUS_PORT, port) ||
	    nla_put(skb, MRC_A_PEER_STATUS_PEER_GID, MRC_GID_LEN, peer->raw) ||
	    nla_put_u32(skb, MRC_A_PEER_STATUS_PORT_STATUS, port_status)) {
		nlmsg_free(skb);
		return;
	}
	genlmsg_end(skb, hdr);
	genlmsg_multicast_netns(&mrc_nl_family, net, skb, 0, MRC_NLGRP_EP,
				GFP_ATOMIC);
}

/* --- registration ---------------------------------------------------------------- */

static int mrc_nl_add_one(struct ib_device *ibdev)
{
	if (ibdev->ops.driver_id != MRC_DRIVER_ID)
		return -EOPNOTSUPP;
	return xa_err(xa_store(&mrc_nl_devs, ibdev->index, ibdev, GFP_KERNEL));
}

static void mrc_nl_remove_one(struct ib_device *ibdev, void *client_data)
{
	xa_erase(&mrc_nl_devs, ibdev->index);
}

static struct ib_client mrc_nl_client = {
	.name = "mrc_nl",
	.add = mrc_nl_add_one,
	.remove = mrc_nl_remove_one,
};

int mrc_nl_init(void)
{
	int err;

	err = ib_register_client(&mrc_nl_client);
	if (err)
		return err;

	err = genl_register_family(&mrc_nl_family);
	if (err) {
		ib_unregister_client(&mrc_nl_client);
		return err;
	}
	return 0;
}

void mrc_nl_exit(void)
{
	genl_unregister_family(&mrc_nl_family);
	ib_unregister_client(&mrc_nl_client);
	WARN_ON(!xa_empty(&mrc_nl_devs));
}
