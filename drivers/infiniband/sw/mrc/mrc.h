/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: a software RDMA device speaking MRC (Multipath Reliable
 * Connection) over UDP.  The device, its ports (planes) and its peers;
 * the verbs objects are in mrc_verbs.h, the prototypes every file shares
 * in mrc_loc.h.
 */
#ifndef MRC_H
#define MRC_H

#include <linux/hashtable.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <uapi/linux/mrc_netlink.h>

#include "mrc_hw_counters.h"
#include "mrc_param.h"
#include "mrc_verbs.h"

struct mrc_net;
struct mrc_ctl;

/* Object counts, checked against the device limits on creation. */
enum mrc_obj_type {
	MRC_OBJ_UCONTEXT,
	MRC_OBJ_PD,
	MRC_OBJ_AH,
	MRC_OBJ_CQ,
	MRC_OBJ_QP,
	MRC_OBJ_MR,
	MRC_NUM_OBJ_TYPES,
};

/*
 * One port (plane) of a device: the netdev it sends and receives on, and
 * its state.  ndev is fixed from creation until the device unregisters.
 */
struct mrc_port {
	struct net_device *ndev;
	/*
	 * The verbs port state: the netdev's (running with carrier: ACTIVE),
	 * DOWN whatever the netdev does while the port is admin-disabled.
	 * Written under dev->port_lock, read locklessly (READ_ONCE).
	 */
	enum ib_port_state state;
	/* Written under dev->port_lock, read locklessly. */
	bool admin_enabled;
	/*
	 * The netdev's link speed in Mb/s, 0 when it reports none: NSCC's
	 * derived parameters.  Written under RTNL, read locklessly.
	 */
	u32 speed_mbps;
};

/*
 * A remote GID some QP of the device is connected to, and what it told us
 * of itself (mrc_peer.c).  Found under RCU; nqps under dev->peer_lock.
 */
struct mrc_peer {
	struct hlist_node node;
	struct rcu_head rcu;
	union ib_gid gid;
	u32 nqps;			/* QPs connected to it */
	/* Its ports reported down (Port Status Update), bit n: port n. */
	u32 down_mask;
};

#define MRC_PEER_HASH_BITS	8

struct mrc_dev {
	struct ib_device ibdev;
	struct ib_device_attr attr;

	/* Ports 1..nports are ports[0..nports - 1]; fixed at creation. */
	struct mrc_port ports[MRC_MAX_PORTS];
	u32 nports;
	/* Port 1's netdev (ports[0].ndev): the identity of the device. */
	struct net_device *ndev;
	/* The UDP tunnel of the netdevs' namespace, while we hold it. */
	struct mrc_net *net;

	/* Serialises port state changes and their events. */
	spinlock_t port_lock;

	atomic_t obj_count[MRC_NUM_OBJ_TYPES];
	atomic64_t counters[MRC_NUM_COUNTERS];

	struct xarray qp_xa;		/* qpn -> struct mrc_qp (lock: bh) */
	u32 qpn_next;
	struct xarray mr_xa;		/* key index -> struct mrc_mr */

	/* Controller state: profiles, defaults (mrc_profile.c). */
	struct mrc_ctl *ctl;

	/* The peers of its QPs (mrc_peer.c). */
	spinlock_t peer_lock;
	DECLARE_HASHTABLE(peers, MRC_PEER_HASH_BITS);

	/* What the host's receive path shows of its load (mrc_cc.c). */
	struct mrc_cc_host cc_host;

	/* What its QPs may spend on EV probes (mrc_ev.c). */
	struct mrc_ev_budget ev_budget;

	/* Endpoint requests answered in the current second (mrc_ep.c). */
	spinlock_t ep_rate_lock;
	unsigned long ep_rate_window;
	u32 ep_rate_count;
};

static inline struct mrc_dev *to_mdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct mrc_dev, ibdev);
}

#include "mrc_loc.h"

#endif /* MRC_H */
