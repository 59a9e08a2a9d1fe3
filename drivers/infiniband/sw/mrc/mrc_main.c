// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: module entry, `rdma link add ... type mrc`, and the device's
 * life cycle as its netdev comes and goes.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
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
MODULE_PARM_DESC(dupthresh, "Later PSNs delivered before a missing one is resent (default 3)");

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

static int mrc_newlink(const char *name, struct net_device *ndev)
{
	struct ib_device *existing;
	struct mrc_net *mn;
	struct mrc_dev *dev;
	int err;

	if (ndev->type != ARPHRD_ETHER)
		return -EPROTONOSUPPORT;

	existing = ib_device_get_by_netdev(ndev, MRC_DRIVER_ID);
	if (existing) {
		ib_device_put(existing);
		return -EEXIST;
	}

	dev = ib_alloc_device(mrc_dev, ibdev);
	if (!dev)
		return -ENOMEM;

	dev->ndev = ndev;
	spin_lock_init(&dev->port_lock);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC);

	mn = mrc_net_get(dev_net(ndev));
	if (IS_ERR(mn)) {
		err = PTR_ERR(mn);
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
	if (err)
		goto err_dealloc;
	return 0;

err_dealloc:
	mrc_profile_dev_cleanup(dev);
	mrc_dev_release_net(dev);
	ib_dealloc_device(&dev->ibdev);
	return err;
}

/* The netdev of @port (1-based), or NULL if the device has no such port. */
struct net_device *mrc_port_ndev(struct mrc_dev *dev, u32 port)
{
	return port == MRC_PORT_NUM ? dev->ndev : NULL;
}

/**
 * mrc_dev_new - create a device named @name with a port per netdev
 * @name: the RDMA device name
 * @ndevs: the netdevs, port 1 first
 * @n: how many
 * @extack: why it failed
 */
int mrc_dev_new(const char *name, struct net_device *const *ndevs,
		unsigned int n, struct netlink_ext_ack *extack)
{
	if (n != 1) {
		NL_SET_ERR_MSG(extack, "multi-plane devices are not supported yet");
		return -EOPNOTSUPP;
	}
	return mrc_newlink(name, ndevs[0]);
}

/* Set the admin state of @port: disabled ports carry nothing. */
int mrc_port_set_admin(struct mrc_dev *dev, u32 port, bool enabled,
		       struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "port admin state is not supported yet");
	return -EOPNOTSUPP;
}

bool mrc_port_admin_enabled(struct mrc_dev *dev, u32 port)
{
	return true;
}

/* Whether @port may carry traffic now (up, and enabled); atomic context. */
bool mrc_port_active(struct mrc_dev *dev, u32 port)
{
	return port == MRC_PORT_NUM &&
	       READ_ONCE(dev->port_state) == IB_PORT_ACTIVE;
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
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->mr_xa);
}

static int mrc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct ib_device *ibdev;
	struct mrc_dev *dev;

	ibdev = ib_device_get_by_netdev(ndev, MRC_DRIVER_ID);
	if (!ibdev)
		return NOTIFY_DONE;
	dev = to_mdev(ibdev);

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * The namespace may be going away with its netdev: give the
		 * socket back now, unregister the device asynchronously
		 * (user contexts are disassociated there).
		 */
		mrc_dev_release_net(dev);
		ib_unregister_device_queued(ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		mrc_port_update(dev);
		break;
	case NETDEV_CHANGEMTU:
		mrc_port_mtu_changed(dev);
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

	err = mrc_net_init();
	if (err)
		return err;

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
	return err;
}

static void __exit mrc_exit(void)
{
	rdma_link_unregister(&mrc_link_ops);
	ib_unregister_driver(MRC_DRIVER_ID);
	mrc_nl_exit();
	unregister_netdevice_notifier(&mrc_netdev_notifier);
	mrc_net_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);
