// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the peers of a device.  One entry per remote GID that a QP of
 * the device is connected to (from INIT -> RTR until the QP leaves that
 * path), holding what that peer told us of itself: which of its ports are
 * down (Port Status Updates, mrc_ep.c).  QPs read their peer's entry; an
 * update changes one entry, whatever the number of QPs, and an update from
 * a GID no QP is connected to finds none and changes nothing.
 *
 * Writers (attaching, detaching QPs) run in process context under
 * dev->peer_lock; readers (the receive path, the requester) find entries
 * under RCU and read their fields locklessly.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/slab.h>

#include "mrc.h"

static u32 mrc_peer_hash(const union ib_gid *gid)
{
	return jhash(gid->raw, sizeof(gid->raw), 0);
}

void mrc_peer_dev_init(struct mrc_dev *dev)
{
	spin_lock_init(&dev->peer_lock);
	hash_init(dev->peers);
}

/* Every QP has detached by now: nothing may be left. */
void mrc_peer_dev_cleanup(struct mrc_dev *dev)
{
	struct mrc_peer *peer;
	struct hlist_node *tmp;
	unsigned int bkt;

	hash_for_each_safe(dev->peers, bkt, tmp, peer, node) {
		WARN_ON_ONCE(1);
		hash_del_rcu(&peer->node);
		kfree_rcu(peer, rcu);
	}
}

static struct mrc_peer *mrc_peer_find(struct mrc_dev *dev,
				      const union ib_gid *gid, u32 hash)
{
	struct mrc_peer *peer;

	hash_for_each_possible_rcu(dev->peers, peer, node, hash)
		if (!memcmp(&peer->gid, gid, sizeof(*gid)))
			return peer;
	return NULL;
}

/**
 * mrc_peer_lookup - the entry of @gid, if a QP of @dev is connected to it
 * @dev: the device
 * @gid: the remote GID
 *
 * Under rcu_read_lock(); the entry lives until the caller drops it.
 */
struct mrc_peer *mrc_peer_lookup(struct mrc_dev *dev, const union ib_gid *gid)
{
	return mrc_peer_find(dev, gid, mrc_peer_hash(gid));
}

/**
 * mrc_peer_get - the entry of @gid, created if none, with a QP reference
 * @dev: the device
 * @gid: the GID a QP of @dev connects to
 *
 * Process context.  Returns the entry or ERR_PTR(-ENOMEM).
 */
struct mrc_peer *mrc_peer_get(struct mrc_dev *dev, const union ib_gid *gid)
{
	u32 hash = mrc_peer_hash(gid);
	struct mrc_peer *peer, *fresh;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return ERR_PTR(-ENOMEM);
	fresh->gid = *gid;
	fresh->nqps = 1;

	spin_lock_bh(&dev->peer_lock);
	peer = mrc_peer_find(dev, gid, hash);
	if (peer) {
		peer->nqps++;
	} else {
		hash_add_rcu(dev->peers, &fresh->node, hash);
		peer = fresh;
		fresh = NULL;
	}
	spin_unlock_bh(&dev->peer_lock);
	kfree(fresh);
	return peer;
}

/* Drop a QP's reference; the last one removes the entry. */
void mrc_peer_put(struct mrc_dev *dev, struct mrc_peer *peer)
{
	if (!peer)
		return;
	spin_lock_bh(&dev->peer_lock);
	if (--peer->nqps)
		peer = NULL;
	else
		hash_del_rcu(&peer->node);
	spin_unlock_bh(&dev->peer_lock);
	if (peer)
		kfree_rcu(peer, rcu);
}
