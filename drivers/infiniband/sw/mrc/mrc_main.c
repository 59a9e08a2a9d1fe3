// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: module entry, devices and their ports (planes): `rdma link
 * add ... type mrc` (one port) and mrc_dev_new() (a port per netdev), port
 * admin state, and the device's life cycle as its netdevs come and go.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>

#include "mrc.h"
#include "mrc_nl.h"

MODULE_AUTHOR("rdma_mrc developers");
MODULE_DESCRIPTION("Software RDMA device speaking MRC (Multipath Reliable Connection) over UDP");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_ALIAS_RDMA_LINK("mrc");

unsigned short mrc_param_udp_port = MRC_DEFAULT_UDP_PORT;
module_param_named(udp_port, mrc_param_udp_port, ushort, 0444);
MODULE_PARM_DESC(udp_port, "UDP destination port of MRC packets (default 4791, as RoCEv2)");

unsigned int mrc_param_mpr_units = MRC_DEFAULT_MPR_UNITS;
module_param_named(mpr_units, mrc_param_mpr_units, uint, 0644);
MODULE_PARM_DESC(mpr_units, "Receive window (MPR) advertised by new QPs, in units of 128 PSNs (1-32, default 32)");

unsigned int mrc_param_max_inflight = MRC_DEFAULT_MAX_INFLIGHT;
module_param_named(max_inflight, mrc_param_max_inflight, uint, 0644);
MODULE_PARM_DESC(max_inflight, "Packets a QP keeps in flight before congestion control sizes its window (default 64)");

unsigned int mrc_param_max_wimm = MRC_DEFAULT_MAX_WIMM;
module_param_named(max_wimm_inflight, mrc_param_max_wimm, uint, 0644);
MODULE_PARM_DESC(max_wimm_inflight, "WriteIMMs a requester keeps in flight (default 64)");

unsigned int mrc_param_ev_count = MRC_DEFAULT_EV_COUNT;
module_param_named(ev_count, mrc_param_ev_count, uint, 0644);
MODULE_PARM_DESC(ev_count, "Entropy values per QP under plain verbs (1-256, default 64)");

unsigned int mrc_param_dupthresh = MRC_DEFAULT_DUPTHRESH;
module_param_named(dupthresh, mrc_param_dupthresh, uint, 0644);
MODULE_PARM_DESC(dupthresh, "Also resend a PSN once this many later PSNs are SACKed, beside the reordering window (default 0: off)");

unsigned int mrc_param_sack_hole_every = MRC_DEFAULT_SACK_HOLE_EVERY;
module_param_named(sack_hole_every, mrc_param_sack_hole_every, uint, 0644);
MODULE_PARM_DESC(sack_hole_every, "Also SACK at once a packet that opens or fills a gap while one is open, and every this many packets while one is (default 0: only the first gap is SACKed at once)");

bool mrc_param_sack_follow = MRC_DEFAULT_SACK_FOLLOW;
module_param_named(sack_follow, mrc_param_sack_follow, bool, 0644);
MODULE_PARM_DESC(sack_follow, "Start a SACK's bitmap where it reports the newest arrivals, not always at cack_psn + 1 (default Y)");

unsigned int mrc_param_rto_min_us = MRC_DEFAULT_RTO_MIN_US;
module_param_named(rto_min_us, mrc_param_rto_min_us, uint, 0644);
MODULE_PARM_DESC(rto_min_us, "Floor of the adaptive retransmission timeout in microseconds (default 1000)");

unsigned int mrc_param_exp_retries = MRC_DEFAULT_EXP_RETRIES;
module_param_named(exp_retries, mrc_param_exp_retries, uint, 0644);
MODULE_PARM_DESC(exp_retries, "Doubling timeouts after retry_cnt ones before RETRY_EXC (default 7)");

unsigned int mrc_param_dscp_data = MRC_DEFAULT_DSCP_TRIMMABLE;
module_param_named(dscp_data, mrc_param_dscp_data, uint, 0644);
MODULE_PARM_DESC(dscp_data, "DSCP of data packets (DSCP_TRIMMABLE, default 8)");

unsigned int mrc_param_dscp_retx = MRC_DEFAULT_DSCP_TRIMMABLE_RETX;
module_param_named(dscp_retx, mrc_param_dscp_retx, uint, 0644);
MODULE_PARM_DESC(dscp_retx, "DSCP of retransmitted data packets (DSCP_TRIMMABLE_RETX, default 16)");

unsigned int mrc_param_dscp_control = MRC_DEFAULT_DSCP_CONTROL;
module_param_named(dscp_control, mrc_param_dscp_control, uint, 0644);
MODULE_PARM_DESC(dscp_control, "DSCP of SACK/NACK/ACK packets (DSCP_CONTROL, default 46)");

unsigned int mrc_param_dscp_trimmed = MRC_DEFAULT_DSCP_TRIMMED;
module_param_named(dscp_trimmed, mrc_param_dscp_trimmed, uint, 0644);
MODULE_PARM_DESC(dscp_trimmed, "DSCP a switch marks a trimmed data packet with (DSCP_TRIMMED, default 24)");

unsigned int mrc_param_dscp_trimmed_lasthop = MRC_DEFAULT_DSCP_TRIMMED_LASTHOP;
module_param_named(dscp_trimmed_lasthop, mrc_param_dscp_trimmed_lasthop, uint, 0644);
MODULE_PARM_DESC(dscp_trimmed_lasthop, "... when trimmed at the receiver's last hop (DSCP_TRIMMED_LASTHOP, default 26)");

unsigned int mrc_param_ep_rate = MRC_DEFAULT_EP_RATE;
module_param_named(ep_rate, mrc_param_ep_rate, uint, 0644);
MODULE_PARM_DESC(ep_rate, "Endpoint requests (EV probes, Port Status Updates) a device answers per second at most (default 1000)");

unsigned int mrc_param_control_pkey = MRC_DEFAULT_CONTROL_PKEY;
module_param_named(control_pkey, mrc_param_control_pkey, uint, 0644);
MODULE_PARM_DESC(control_pkey, "P_Key carried by control packets (default 0xffff)");

static const int mrc_obj_limit[MRC_NUM_OBJ_TYPES] = {
	[MRC_OBJ_UCONTEXT] = INT_MAX,
	[MRC_OBJ_PD] = MRC_MAX_PD,
	[MRC_OBJ_AH] = MRC_MAX_AH,
	[MRC_OBJ_CQ] = MRC_MAX_CQ,
	[MRC_OBJ_QP] = MRC_MAX_QP,
	[MRC_OBJ_MR] = MRC_MAX_MR,
};

/* Count one more object of @type; -ENOMEM past the device limit. */
int mrc_obj_get(struct mrc_dev *dev, enum mrc_obj_type type)
{
	if (atomic_inc_return(&dev->obj_count[type]) > mrc_obj_limit[type]) {
		atomic_dec(&dev->obj_count[type]);
		return -ENOMEM;
	}
	return 0;
}

void mrc_obj_put(struct mrc_dev *dev, enum mrc_obj_type type)
{
	WARN_ON(atomic_dec_return(&dev->obj_count[type]) < 0);
}

/* Give up the namespace's UDP tunnel; once, whoever comes first. */
static void mrc_dev_release_net(struct mrc_dev *dev)
{
	struct mrc_net *mn = xchg(&dev->net, NULL);

	if (mn)
		mrc_net_put(mn);
}

/*
 * Serialises device creation: checking that no netdev belongs to an MRC
 * device yet and registering the device that takes them.
 */
static DEFINE_MUTEX(mrc_dev_mutex);

/* Refuse a set of netdevs that cannot make one device; see mrc_dev_new(). */
static int mrc_dev_check_ndevs(struct net_device *const *ndevs,
			       unsigned int n, struct netlink_ext_ack *extack)
{
	struct ib_device *existing;
	unsigned int i, j;

	if (!n) {
		NL_SET_ERR_MSG(extack, "a device needs at least one netdev");
		return -EINVAL;
	}
	if (n > MRC_MAX_PORTS) {
		NL_SET_ERR_MSG(extack, "too many netdevs: a device has at most 31 ports");
		return -E2BIG;
	}
	for (i = 0; i < n; i++) {
		if (ndevs[i]->type != ARPHRD_ETHER) {
			NL_SET_ERR_MSG(extack, "MRC runs over Ethernet netdevs only");
			return -EPROTONOSUPPORT;
		}
		for (j = 0; j < i; j++) {
			if (ndevs[j] == ndevs[i]) {
				NL_SET_ERR_MSG(extack, "a netdev is named twice");
				return -EINVAL;
			}
		}
		/* One UDP tunnel per namespace serves all the ports. */
		if (!net_eq(dev_net(ndevs[i]), dev_net(ndevs[0]))) {
			NL_SET_ERR_MSG(extack, "the netdevs are in different network namespaces");
			return -EINVAL;
		}
		existing = ib_device_get_by_netdev(ndevs[i], MRC_DRIVER_ID);
		if (existing) {
			ib_device_put(existing);
			NL_SET_ERR_MSG(extack, "a netdev already belongs to an MRC device");
			return -EEXIST;
		}
	}
	return 0;
}

/*
 * Both xarrays are initialised here, so lockdep would give their locks
 * one class: qp_xa's is taken in softirq (receive looks QPs up under it),
 * mr_xa's only in process context (receive reads it under RCU), and one
 * class makes the latter look like a softirq-unsafe use of the former.
 */
static struct lock_class_key mrc_mr_xa_key;

/* Make and register a device with a port per netdev; see mrc_dev_new(). */
static int mrc_dev_create(const char *name, struct net_device *const *ndevs,
			  unsigned int n, struct netlink_ext_ack *extack)
{
	struct mrc_net *mn;
	struct mrc_dev *dev;
	unsigned int i;
	int err;

	mutex_lock(&mrc_dev_mutex);
	err = mrc_dev_check_ndevs(ndevs, n, extack);
	if (err)
		goto out_unlock;

	dev = ib_alloc_device(mrc_dev, ibdev);
	if (!dev) {
		err = -ENOMEM;
		goto out_unlock;
	}

	dev->nports = n;
	for (i = 0; i < n; i++) {
		dev->ports[i].ndev = ndevs[i];
		dev->ports[i].admin_enabled = true;
		dev->ports[i].state = IB_PORT_DOWN;
	}
	dev->ndev = ndevs[0];
	rtnl_lock();
	for (i = 0; i < n; i++)
		mrc_port_read_speed(dev, i + 1);
	rtnl_unlock();
	spin_lock_init(&dev->port_lock);
	/* Looked up from softirq under its lock: the lock disables bh. */
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_BH);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC);
	lockdep_set_class(&dev->mr_xa.xa_lock, &mrc_mr_xa_key);
	mrc_peer_dev_init(dev);
	spin_lock_init(&dev->ep_rate_lock);
	spin_lock_init(&dev->ev_budget.lock);
	mrc_cc_host_init(dev);

	mn = mrc_net_get(dev_net(ndevs[0]));
	if (IS_ERR(mn)) {
		err = PTR_ERR(mn);
		NL_SET_ERR_MSG(extack, "cannot open the namespace's MRC UDP socket");
		goto err_dealloc;
	}
	dev->net = mn;

	err = mrc_profile_dev_init(dev);
	if (err)
		goto err_dealloc;

	/*
	 * On failure the core calls dealloc_driver, which drops the net and
	 * the profiles.
	 */
	err = mrc_register_device(dev, name);
	if (err) {
		if (err == -ENFILE)
			NL_SET_ERR_MSG(extack, "the device name is taken");
		else
			NL_SET_ERR_MSG(extack, "the RDMA core refused to register the device");
		goto err_dealloc;
	}
	mutex_unlock(&mrc_dev_mutex);
	return 0;

err_dealloc:
	mrc_profile_dev_cleanup(dev);
	mrc_dev_release_net(dev);
	ib_dealloc_device(&dev->ibdev);
out_unlock:
	mutex_unlock(&mrc_dev_mutex);
	return err;
}

/* `rdma link add NAME type mrc netdev DEV`: a device with one port. */
static int mrc_newlink(const char *name, struct net_device *ndev)
{
	return mrc_dev_create(name, &ndev, MRC_NUM_PORTS, NULL);
}

/* The netdev of @port (1-based), or NULL if the device has no such port. */
struct net_device *mrc_port_ndev(struct mrc_dev *dev, u32 port)
{
	if (port < 1 || port > dev->nports)
		return NULL;
	return dev->ports[port - 1].ndev;
}

/* The port (1-based) @ndev is the netdev of, or 0 if none. */
u32 mrc_port_of_ndev(struct mrc_dev *dev, const struct net_device *ndev)
{
	u32 i;

	for (i = 0; i < dev->nports; i++)
		if (dev->ports[i].ndev == ndev)
			return i + 1;
	return 0;
}

/**
 * mrc_dev_new - create a device named @name with a port per netdev
 * @name: the RDMA device name
 * @ndevs: the netdevs, port 1 first; the caller holds references on them
 * @n: how many, 1 to MRC_MAX_PORTS
 * @extack: why it failed
 *
 * Every netdev must be Ethernet, in one network namespace, named once and
 * not yet part of an MRC device.  Process context; sleeps.
 */
int mrc_dev_new(const char *name, struct net_device *const *ndevs,
		unsigned int n, struct netlink_ext_ack *extack)
{
	return mrc_dev_create(name, ndevs, n, extack);
}

/**
 * mrc_port_set_admin - set the admin state of @port
 * @dev: the device
 * @port: 1-based
 * @enabled: false: the port carries nothing and reads PORT_DOWN whatever
 *	its netdev does; true: it follows its netdev again
 * @extack: why it failed
 *
 * Consumers get IB_EVENT_PORT_ERR / IB_EVENT_PORT_ACTIVE when the port's
 * state changes.  Returns 0, or -ENOENT for a port the device lacks.
 */
int mrc_port_set_admin(struct mrc_dev *dev, u32 port, bool enabled,
		       struct netlink_ext_ack *extack)
{
	unsigned long flags;

	if (port < 1 || port > dev->nports) {
		NL_SET_ERR_MSG(extack, "the device has no such port");
		return -ENOENT;
	}
	spin_lock_irqsave(&dev->port_lock, flags);
	WRITE_ONCE(dev->ports[port - 1].admin_enabled, enabled);
	spin_unlock_irqrestore(&dev->port_lock, flags);
	mrc_port_update(dev, port);
	return 0;
}

/* Whether @port is admin-enabled (false for a port the device lacks). */
bool mrc_port_admin_enabled(struct mrc_dev *dev, u32 port)
{
	if (port < 1 || port > dev->nports)
		return false;
	return READ_ONCE(dev->ports[port - 1].admin_enabled);
}

/*
 * Whether @port may carry traffic now: its netdev running with carrier and
 * the port admin-enabled.  Any context, lockless.
 */
bool mrc_port_active(struct mrc_dev *dev, u32 port)
{
	if (port < 1 || port > dev->nports)
		return false;
	return READ_ONCE(dev->ports[port - 1].state) == IB_PORT_ACTIVE;
}

static struct rdma_link_ops mrc_link_ops = {
	.type = "mrc",
	.newlink = mrc_newlink,
};

/* ib_device_ops.dealloc_driver: the last reference to the device is gone. */
void mrc_dealloc_driver(struct ib_device *ibdev)
{
	struct mrc_dev *dev = to_mdev(ibdev);

	mrc_dev_release_net(dev);
	mrc_profile_dev_cleanup(dev);
	WARN_ON(!xa_empty(&dev->qp_xa));
	WARN_ON(!xa_empty(&dev->mr_xa));
	mrc_peer_dev_cleanup(dev);
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->mr_xa);
}

static int mrc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct mrc_dev *dev;
	u32 port;

	/* Whichever port's netdev it is, the core's netdev hash finds us. */
	ibdev = ib_device_get_by_netdev(ndev, MRC_DRIVER_ID);
	if (!ibdev)
		return NOTIFY_DONE;
	dev = to_mdev(ibdev);
	port = mrc_port_of_ndev(dev, ndev);
	if (WARN_ON_ONCE(!port)) {
		ib_device_put(ibdev);
		return NOTIFY_DONE;
	}

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * Any port's netdev going away takes the whole device with it
		 * (ports are fixed for a device's life; Documentation/mrc/
		 * multi-plane.rst).  The namespace may be going away with its
		 * netdev: give the socket back now, unregister the device
		 * asynchronously (user contexts are disassociated there).
		 */
		mrc_dev_release_net(dev);
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_CHANGE:
		mrc_port_read_speed(dev, port);
		fallthrough;
	case NETDEV_DOWN:
		mrc_port_update(dev, port);
		break;
	case NETDEV_CHANGEMTU:
		mrc_port_mtu_changed(dev, port);
		break;
	default:
		break;
	}

	ib_device_put(ibdev);
	return NOTIFY_OK;
}

static struct notifier_block mrc_netdev_notifier = {
	.notifier_call = mrc_netdev_event,
};

static int __init mrc_init(void)
{
	int err;

	err = mrc_mr_init();
	if (err)
		return err;

	err = mrc_net_init();
	if (err)
		goto err_mr;

	err = register_netdevice_notifier(&mrc_netdev_notifier);
	if (err)
		goto err_net;

	err = mrc_nl_init();
	if (err)
		goto err_notifier;

	rdma_link_register(&mrc_link_ops);
	return 0;

err_notifier:
	unregister_netdevice_notifier(&mrc_netdev_notifier);
err_net:
	mrc_net_exit();
err_mr:
	mrc_mr_exit();
	return err;
}

static void __exit mrc_exit(void)
{
	rdma_link_unregister(&mrc_link_ops);
	ib_unregister_driver(MRC_DRIVER_ID);
	mrc_nl_exit();
	unregister_netdevice_notifier(&mrc_netdev_notifier);
	mrc_net_exit();
	mrc_mr_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);
