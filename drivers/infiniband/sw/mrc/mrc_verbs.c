// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the ib_device, its ports (one per plane netdev), and the verbs
 * objects that need no file of their own (ucontext, PD, AH).
 */
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/uverbs_ioctl.h>

#include "mrc.h"
#include "mrc_compat.h"
#include "mrc_hdr.h"

static void mrc_init_device_attr(struct mrc_dev *dev)
{
	struct ib_device_attr *attr = &dev->attr;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = MRC_FW_VER;
	attr->sys_image_guid = dev->ibdev.node_guid;
	attr->max_mr_size = MRC_MAX_MR_SIZE;
	attr->page_size_cap = PAGE_SIZE;
	attr->vendor_id = MRC_VENDOR_ID;
	attr->vendor_part_id = MRC_VENDOR_PART_ID;
	attr->hw_ver = MRC_HW_VER;
	attr->max_qp = MRC_MAX_QP;
	attr->max_qp_wr = MRC_MAX_QP_WR;
	/* No RNR (MRC has none), no SRQ, no memory windows. */
	attr->device_cap_flags = 0;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = MRC_MAX_SGE;
	attr->max_recv_sge = MRC_MAX_SGE;
	attr->max_sge_rd = 0;
	attr->max_cq = MRC_MAX_CQ;
	attr->max_cqe = MRC_MAX_CQE - 1;
	attr->max_mr = MRC_MAX_MR;
	attr->max_pd = MRC_MAX_PD;
	/* MRC has no RDMA READ and no atomics. */
	attr->max_qp_rd_atom = 0;
	attr->max_qp_init_rd_atom = 0;
	attr->max_res_rd_atom = 0;
	attr->atomic_cap = IB_ATOMIC_NONE;
	attr->masked_atomic_cap = IB_ATOMIC_NONE;
	attr->max_ah = MRC_MAX_AH;
	attr->max_srq = 0;
	attr->max_pkeys = MRC_PKEY_TBL_LEN;
	attr->local_ca_ack_delay = MRC_LOCAL_CA_ACK_DELAY;
}

static int mrc_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata->inlen || udata->outlen)
		return -EINVAL;
	*attr = to_mdev(ibdev)->attr;
	return 0;
}

/* The netdev's state as an IB port state. */
static enum ib_port_state mrc_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
		IB_PORT_ACTIVE : IB_PORT_DOWN;
}

/* The largest IB MTU whose packets fit in the netdev's MTU. */
static enum ib_mtu mrc_active_mtu(struct net_device *ndev)
{
	return ib_mtu_int_to_enum(READ_ONCE(ndev->mtu) - MRC_MAX_DATA_OVERHEAD);
}

static int mrc_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *attr)
{
	struct mrc_dev *dev = to_mdev(ibdev);
	struct net_device *ndev = mrc_port_ndev(dev, port);

	if (!ndev)
		return -EINVAL;
	/* The core cleared *attr. */
	attr->state = mrc_port_admin_enabled(dev, port) ?
		mrc_netdev_port_state(ndev) : IB_PORT_DOWN;
	attr->phys_state = attr->state == IB_PORT_ACTIVE ?
		IB_PORT_PHYS_STATE_LINK_UP : IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = MRC_MAX_IB_MTU;
	attr->active_mtu = mrc_active_mtu(ndev);
	attr->gid_tbl_len = MRC_GID_TBL_LEN;
	attr->pkey_tbl_len = MRC_PKEY_TBL_LEN;
	attr->max_msg_sz = MRC_MAX_MSG_SIZE;
	attr->max_vl_num = 1;

	return ib_get_eth_speed(ibdev, port, &attr->active_speed,
				&attr->active_width);
}

static int mrc_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *immutable)
{
	/*
	 * RoCEv2-style UDP encapsulation and Ethernet address handles, but
	 * no MAD and no CM: MRC has no QP1.
	 */
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP |
				    RDMA_CORE_CAP_ETH_AH;
	immutable->gid_tbl_len = MRC_GID_TBL_LEN;
	immutable->pkey_tbl_len = MRC_PKEY_TBL_LEN;
	immutable->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer mrc_get_link_layer(struct ib_device *ibdev,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int mrc_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index >= MRC_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = MRC_DEFAULT_PKEY;
	return 0;
}

/* The state @port should be in: its netdev's, unless admin-disabled. */
static enum ib_port_state mrc_port_state_now(struct mrc_dev *dev, u32 port)
{
	struct mrc_port *p = &dev->ports[port - 1];

	return p->admin_enabled ? mrc_netdev_port_state(p->ndev) :
		IB_PORT_DOWN;
}

/**
 * mrc_port_update - follow the port's netdev and admin state
 * @dev: the device
 * @port: 1-based, one the device has
 *
 * Consumers get IB_EVENT_PORT_ACTIVE / IB_EVENT_PORT_ERR on a change, in
 * the order of the changes.  Any context.
 */
void mrc_port_update(struct mrc_dev *dev, u32 port)
{
	struct ib_event ev = {
		.device = &dev->ibdev,
		.element.port_num = port,
	};
	enum ib_port_state state;
	unsigned long flags;

	spin_lock_irqsave(&dev->port_lock, flags);
	state = mrc_port_state_now(dev, port);
	if (dev->ports[port - 1].state != state) {
		WRITE_ONCE(dev->ports[port - 1].state, state);
		if (state != IB_PORT_ACTIVE)
			mrc_counter_inc(dev, MRC_CNT_LINK_DOWNED);
		ev.event = state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
			IB_EVENT_PORT_ERR;
		/* Callable in atomic context; under the lock events keep order. */
		ib_dispatch_event(&ev);
	}
	spin_unlock_irqrestore(&dev->port_lock, flags);
}

/**
 * mrc_port_read_speed - note the link speed @port's netdev reports
 * @dev: the device
 * @port: 1-based, one the device has
 *
 * For NSCC's derived parameters (mrc_nscc.c).  RTNL held (ethtool).
 */
void mrc_port_read_speed(struct mrc_dev *dev, u32 port)
{
	struct ethtool_link_ksettings ks;
	u32 speed = 0;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(mrc_port_ndev(dev, port), &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN)
		speed = ks.base.speed;
	WRITE_ONCE(dev->ports[port - 1].speed_mbps, speed);
}

/* The path MTU of connected QPs is checked against it on modify. */
void mrc_port_mtu_changed(struct mrc_dev *dev, u32 port)
{
	struct net_device *ndev = mrc_port_ndev(dev, port);

	dev_dbg(&dev->ibdev.dev, "port %u: netdev mtu now %u, active IB mtu %d\n",
		port, ndev->mtu, ib_mtu_enum_to_int(mrc_active_mtu(ndev)));
}

static int mrc_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibuc->device);
	struct mrc_alloc_ucontext_resp resp = {
		.abi_version = MRC_UVERBS_ABI_VERSION,
	};
	int err;

	err = mrc_obj_get(dev, MRC_OBJ_UCONTEXT);
	if (err)
		return err;

	if (udata->outlen) {
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			mrc_obj_put(dev, MRC_OBJ_UCONTEXT);
			return err;
		}
	}
	return 0;
}

static void mrc_dealloc_ucontext(struct ib_ucontext *ibuc)
{
	mrc_obj_put(to_mdev(ibuc->device), MRC_OBJ_UCONTEXT);
}

/*
 * Device removal with contexts open: the core has already zapped the
 * context's mappings and will destroy its objects; the rings' pages stay
 * valid until the process unmaps them, so nothing is left to do here.
 * Having this op is what lets removal proceed without waiting for the
 * processes to close their files.
 */
static void mrc_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int mrc_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return mrc_obj_get(to_mdev(ibpd->device), MRC_OBJ_PD);
}

static int mrc_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	mrc_obj_put(to_mdev(ibpd->device), MRC_OBJ_PD);
	return 0;
}

static int mrc_check_ah_attr(const struct rdma_ah_attr *attr)
{
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE)
		return -EINVAL;
	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	if (!attr->grh.sgid_attr)
		return -EINVAL;
	return 0;
}

static int mrc_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			 struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibah->device);
	struct mrc_ah *ah = to_mah(ibah);
	int err;

	err = mrc_check_ah_attr(init->ah_attr);
	if (err)
		return err;
	err = mrc_obj_get(dev, MRC_OBJ_AH);
	if (err)
		return err;

	/* The core holds the sgid_attr reference for the AH's lifetime. */
	ah->attr = *init->ah_attr;
	ah->attr.grh.sgid_attr = NULL;
	return 0;
}

static int mrc_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct mrc_ah *ah = to_mah(ibah);

	*attr = ah->attr;
	attr->grh.sgid_attr = ibah->sgid_attr;
	return 0;
}

static int mrc_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	mrc_obj_put(to_mdev(ibah->device), MRC_OBJ_AH);
	return 0;
}

static const struct ib_device_ops mrc_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = MRC_DRIVER_ID,
	.uverbs_abi_ver = MRC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = mrc_alloc_hw_port_stats,
	.alloc_pd = mrc_alloc_pd,
	.alloc_ucontext = mrc_alloc_ucontext,
	.create_ah = mrc_create_ah,
	.create_cq = mrc_create_cq_compat,
	.create_qp = mrc_create_qp,
	.create_user_ah = mrc_create_ah,
	.dealloc_driver = mrc_dealloc_driver,
	.dealloc_pd = mrc_dealloc_pd,
	.dealloc_ucontext = mrc_dealloc_ucontext,
	.dereg_mr = mrc_dereg_mr,
	.destroy_ah = mrc_destroy_ah,
	.destroy_cq = mrc_destroy_cq,
	.destroy_qp = mrc_destroy_qp,
	.disassociate_ucontext = mrc_disassociate_ucontext,
	.get_dma_mr = mrc_get_dma_mr,
	.get_hw_stats = mrc_get_hw_stats,
	.get_link_layer = mrc_get_link_layer,
	.get_port_immutable = mrc_get_port_immutable,
	.mmap = mrc_mmap,
	.mmap_free = mrc_mmap_free,
	.modify_qp = mrc_modify_qp,
	.poll_cq = mrc_poll_cq,
	.post_recv = mrc_post_recv,
	.post_send = mrc_post_send,
	.query_ah = mrc_query_ah,
	.query_device = mrc_query_device,
	.query_pkey = mrc_query_pkey,
	.query_port = mrc_query_port,
	.query_qp = mrc_query_qp,
	.reg_user_mr = mrc_reg_user_mr,
	.req_notify_cq = mrc_req_notify_cq,
	.resize_cq = mrc_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, mrc_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, mrc_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, mrc_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, mrc_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, mrc_ucontext, ibuc),
};

/**
 * mrc_register_device - make @dev visible as an RDMA device named @name
 * @dev: allocated by ib_alloc_device(), its ports and their netdevs set
 * @name: the device name
 *
 * One verbs port per plane: port N sits on ports[N - 1].ndev, so the RDMA
 * core lists that netdev's addresses as port N's GIDs.
 */
int mrc_register_device(struct mrc_dev *dev, const char *name)
{
	struct ib_device *ibdev = &dev->ibdev;
	unsigned long flags;
	u32 port;
	int err;

	strscpy(ibdev->node_desc, MRC_NODE_DESC, sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = dev->nports;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    dev->ndev->dev_addr);
	/* Doorbells and CQ arming go through the kernel. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_POST_RECV) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	mrc_init_device_attr(dev);

	ib_set_device_ops(ibdev, &mrc_dev_ops);
	for (port = 1; port <= dev->nports; port++) {
		spin_lock_irqsave(&dev->port_lock, flags);
		WRITE_ONCE(dev->ports[port - 1].state,
			   mrc_port_state_now(dev, port));
		spin_unlock_irqrestore(&dev->port_lock, flags);
		err = ib_device_set_netdev(ibdev, mrc_port_ndev(dev, port),
					   port);
		if (err)
			return err;
	}

	return ib_register_device(ibdev, name, NULL);
}
