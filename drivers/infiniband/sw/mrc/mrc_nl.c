// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the "mrc" generic netlink family (Documentation/mrc/netlink.rst,
 * Documentation/netlink/specs/mrc.yaml).
 *
 * This first slice serves the read-only commands dev-get and port-get.  The
 * other commands of the spec are not registered yet, so genetlink answers
 * them with EOPNOTSUPP by itself.
 */
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_nl.h"

/*
 * The registered MRC devices by ib_device index.  An ib_client fills it: the
 * core calls its add once a device is registered and its remove during
 * unregistration, after the last registration reference is gone and before
 * the device is freed.  So an entry is valid memory while the xarray lock is
 * held, and ib_device_try_get() under that lock pins a live device.
 */
static DEFINE_XARRAY(mrc_nl_devs);

static struct genl_family mrc_nl_family;

static struct net_device *mrc_nl_port_ndev(struct ib_device *ibdev, u32 port)
{
	return mrc_port_ndev(to_mdev(ibdev), port);
}

/* dev-get: request attributes of the do form (the dump takes none). */
static const struct nla_policy mrc_nl_dev_get_policy[MRC_A_DEVICE_DEV_NAME + 1] = {
	[MRC_A_DEVICE_DEV_INDEX] = { .type = NLA_U32 },
	[MRC_A_DEVICE_DEV_NAME] = { .type = NLA_NUL_STRING,
				    .len = MRC_DEV_NAME_MAX },
};

static const struct nla_policy mrc_nl_port_get_policy[MRC_A_PORT_PORT_INDEX + 1] = {
	[MRC_A_PORT_DEV_INDEX] = { .type = NLA_U32 },
	[MRC_A_PORT_DEV_NAME] = { .type = NLA_NUL_STRING,
				  .len = MRC_DEV_NAME_MAX },
	[MRC_A_PORT_PORT_INDEX] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_MAX_PORTS),
};

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
 * The device a request names by its dev-index (@idx_type) and/or dev-name
 * (@name_type) attribute, with a registration reference.  NULL if it names
 * none and @required is false; an ERR_PTR, with the reason in @extack, on a
 * refusal.
 */
static struct ib_device *mrc_nl_dev_find(struct net *net,
					 struct nlattr **attrs, int idx_type,
					 int name_type, bool required,
					 struct netlink_ext_ack *extack)
{
	struct nlattr *idx = attrs[idx_type];
	struct nlattr *name = attrs[name_type];
	struct ib_device *ibdev;

	if (!idx && !name) {
		if (!required)
			return NULL;
		NL_SET_ERR_MSG(extack, "dev-index or dev-name is required");
		NL_SET_ERR_ATTR_MISS(extack, NULL, idx_type);
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

/* Ends a dump step: an skb with messages makes the caller come back. */
static int mrc_nl_dump_ret(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ?: skb->len;
}

/* One dev-get reply for @ibdev. */
static int mrc_nl_dev_fill(struct sk_buff *skb, struct ib_device *ibdev,
			   u32 portid, u32 seq, int flags)
{
	u32 port_mask = 0;
	void *hdr;
	u32 port;

	hdr = genlmsg_put(skb, portid, seq, &mrc_nl_family, flags,
			  MRC_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	rdma_for_each_port(ibdev, port)
		port_mask |= BIT(port);

	if (nla_put_u32(skb, MRC_A_DEVICE_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, MRC_A_DEVICE_DEV_NAME, dev_name(&ibdev->dev)) ||
	    nla_put_u32(skb, MRC_A_DEVICE_PROTOCOL_VERSION,
			MRC_PROTOCOL_VERSION_V1) ||
	    nla_put_u32(skb, MRC_A_DEVICE_PORT_MASK, port_mask) ||
	    /* No profiles yet: the built-in behaviour, id 0. */
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_EV_PROFILE, 0,
			      MRC_A_DEVICE_PAD) ||
	    nla_put_u64_64bit(skb, MRC_A_DEVICE_DEFAULT_CC_PROFILE, 0,
			      MRC_A_DEVICE_PAD))
		goto cancel;

	rdma_for_each_port(ibdev, port) {
		struct net_device *ndev = mrc_nl_port_ndev(ibdev, port);

		if (nla_put_u32(skb, MRC_A_DEVICE_NETDEV_IFINDEX, ndev->ifindex))
			goto cancel;
	}

	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* One port-get reply for port @port of @ibdev; may sleep. */
static int mrc_nl_port_fill(struct sk_buff *skb, struct ib_device *ibdev,
			    u32 port, u32 portid, u32 seq, int flags)
{
	struct net_device *ndev = mrc_nl_port_ndev(ibdev, port);
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

	if (nla_put_u32(skb, MRC_A_PORT_DEV_INDEX, ibdev->index) ||
	    nla_put_string(skb, MRC_A_PORT_DEV_NAME, dev_name(&ibdev->dev)) ||
	    nla_put_u32(skb, MRC_A_PORT_PORT_INDEX, port) ||
	    nla_put_u32(skb, MRC_A_PORT_IFINDEX, ndev->ifindex) ||
	    nla_put_string(skb, MRC_A_PORT_IFNAME, ndev->name) ||
	    /* No port-set yet: every port follows its netdev. */
	    nla_put_u32(skb, MRC_A_PORT_ADMIN_STATE,
			MRC_PORT_ADMIN_STATE_ENABLED) ||
	    nla_put_u32(skb, MRC_A_PORT_STATE, attr.state)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}

	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * Answer a do request with @ibdev (@port 0) or one of its ports; drops the
 * reference on @ibdev.
 */
static int mrc_nl_reply(struct genl_info *info, struct ib_device *ibdev,
			u32 port)
{
	struct sk_buff *msg;
	int err = -ENOMEM;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		goto out;
	if (port)
		err = mrc_nl_port_fill(msg, ibdev, port, info->snd_portid,
				       info->snd_seq, 0);
	else
		err = mrc_nl_dev_fill(msg, ibdev, info->snd_portid,
				      info->snd_seq, 0);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	err = genlmsg_reply(msg, info);
out:
	ib_device_put(ibdev);
	return err;
}

static int mrc_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ib_device *ibdev;

	ibdev = mrc_nl_dev_find(genl_info_net(info), info->attrs,
				MRC_A_DEVICE_DEV_INDEX, MRC_A_DEVICE_DEV_NAME,
				true, info->extack);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	return mrc_nl_reply(info, ibdev, 0);
}

static int mrc_nl_dev_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	struct ib_device *ibdev;
	int err = 0;

	while ((ibdev = mrc_nl_get_next(net, &index))) {
		err = mrc_nl_dev_fill(skb, ibdev,
				      NETLINK_CB(cb->skb).portid,
				      cb->nlh->nlmsg_seq, NLM_F_MULTI);
		ib_device_put(ibdev);
		if (err)
			break;
		index++;
	}
	cb->args[0] = index;
	return mrc_nl_dump_ret(skb, err);
}

static int mrc_nl_port_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *port_attr = info->attrs[MRC_A_PORT_PORT_INDEX];
	struct ib_device *ibdev;
	u32 port;

	if (!port_attr) {
		NL_SET_ERR_MSG(info->extack, "port-index is required");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_A_PORT_PORT_INDEX);
		return -EINVAL;
	}
	port = nla_get_u32(port_attr);

	ibdev = mrc_nl_dev_find(genl_info_net(info), info->attrs,
				MRC_A_PORT_DEV_INDEX, MRC_A_PORT_DEV_NAME,
				true, info->extack);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);

	if (!rdma_is_port_valid(ibdev, port)) {
		NL_SET_ERR_MSG_ATTR(info->extack, port_attr,
				    "the device has no such port");
		ib_device_put(ibdev);
		return -ENOENT;
	}
	return mrc_nl_reply(info, ibdev, port);
}

/*
 * Dump the ports of @ibdev from port *@port on; on failure *@port is the
 * port to resume at.
 */
static int mrc_nl_port_dump_dev(struct sk_buff *skb,
				struct netlink_callback *cb,
				struct ib_device *ibdev, u32 *port)
{
	u32 p;
	int err;

	for (p = max_t(u32, *port, rdma_start_port(ibdev));
	     p <= rdma_end_port(ibdev); p++) {
		err = mrc_nl_port_fill(skb, ibdev, p,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err) {
			*port = p;
			return err;
		}
	}
	return 0;
}

/*
 * cb->args: [0] index of the device to go on with, [1] its next port,
 * [2] set when the one device of a filtered dump is done.
 */
static int mrc_nl_port_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct nlattr *attrs[ARRAY_SIZE(mrc_nl_port_get_policy)];
	struct net *net = sock_net(skb->sk);
	unsigned long index = cb->args[0];
	struct ib_device *ibdev;
	u32 port = cb->args[1];
	int err;

	/*
	 * genetlink validated the request already; where it keeps the parsed
	 * attributes differs between 6.1 and 6.12, so parse them again.
	 */
	err = nlmsg_parse(cb->nlh, GENL_HDRLEN, attrs,
			  ARRAY_SIZE(mrc_nl_port_get_policy) - 1,
			  mrc_nl_port_get_policy, cb->extack);
	if (err)
		return err;

	if (attrs[MRC_A_PORT_PORT_INDEX]) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attrs[MRC_A_PORT_PORT_INDEX],
				    "a port dump takes no port-index");
		return -EINVAL;
	}

	ibdev = mrc_nl_dev_find(net, attrs, MRC_A_PORT_DEV_INDEX,
				MRC_A_PORT_DEV_NAME, false, cb->extack);
	if (IS_ERR(ibdev))
		return PTR_ERR(ibdev);
	if (ibdev) {
		/* Filtered by device: only its ports. */
		if (!cb->args[2]) {
			err = mrc_nl_port_dump_dev(skb, cb, ibdev, &port);
			cb->args[1] = port;
			cb->args[2] = !err;
		}
		ib_device_put(ibdev);
		return mrc_nl_dump_ret(skb, err);
	}

	while ((ibdev = mrc_nl_get_next(net, &index))) {
		if (index != cb->args[0])
			port = 0;
		err = mrc_nl_port_dump_dev(skb, cb, ibdev, &port);
		ib_device_put(ibdev);
		if (err)
			break;
		index++;
	}
	cb->args[0] = index;
	cb->args[1] = port;
	return mrc_nl_dump_ret(skb, err);
}

/*
 * struct genl_ops, not genl_split_ops: 6.1 has no split ops.  One policy
 * serves the do and the dump form of a command.
 */
static const struct genl_ops mrc_nl_ops[] = {
	{
		.cmd = MRC_CMD_DEV_GET,
		.doit = mrc_nl_dev_get_doit,
		.dumpit = mrc_nl_dev_get_dumpit,
		.policy = mrc_nl_dev_get_policy,
		.maxattr = ARRAY_SIZE(mrc_nl_dev_get_policy) - 1,
	},
	{
		.cmd = MRC_CMD_PORT_GET,
		.doit = mrc_nl_port_get_doit,
		.dumpit = mrc_nl_port_get_dumpit,
		.policy = mrc_nl_port_get_policy,
		.maxattr = ARRAY_SIZE(mrc_nl_port_get_policy) - 1,
	},
};

/*
 * Each command has its own policy, so the family has none (and no family
 * maxattr).  parallel_ops: ep-op will sleep while it waits for answers.
 */
static struct genl_family mrc_nl_family __ro_after_init = {
	.name = MRC_FAMILY_NAME,
	.version = MRC_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = mrc_nl_ops,
	.n_ops = ARRAY_SIZE(mrc_nl_ops),
};

/* An EV of @qp changed state; sent to group ev (not yet registered). */
void mrc_nl_ev_event(struct mrc_qp *qp, const struct mrc_ev_event *ev)
{
}

/* A Port Status Update arrived from @peer; for group ep. */
void mrc_nl_peer_status(struct mrc_dev *dev, u32 port,
			const union ib_gid *peer, u32 port_status)
{
}

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
