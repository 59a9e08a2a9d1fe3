// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the receive path.  Packets arrive from the UDP tunnel's
 * encap_rcv in softirq; they are checked (lengths, ICRC, opcode, QP) and
 * handed to the responder (requests, probes) or to the requester's
 * completer (SACK, NACK, ACK).  Replies are queued while the QP's lock is
 * held and sent after it is released.
 */
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/inet_ecn.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include "mrc.h"
#include "mrc_hdr.h"
#include "mrc_pkt.h"

/*
 * The mrc device a packet is for, and the port it came in on.  A packet is
 * for the device one of whose ports' netdev received it: every plane netdev
 * is in the core's netdev hash, so any plane finds the device.  A packet
 * looped back on this host (from another device, or this one) arrives on
 * lo: the device is then that of a netdev holding the destination address
 * (with the host address on every plane netdev, any of them will do, and
 * the port is that netdev's).
 */
static struct ib_device *mrc_recv_device(struct sk_buff *skb, u32 *port)
{
	struct net_device *ndev = skb->dev;
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, MRC_DRIVER_ID);
	if (!ibdev && (ndev->flags & IFF_LOOPBACK)) {
		if (ip_hdr(skb)->version == IPVERSION)
			ndev = __ip_dev_find(dev_net(ndev), ip_hdr(skb)->daddr,
					     false);
		else
			ndev = ipv6_stub->ipv6_dev_find(dev_net(ndev),
							&ipv6_hdr(skb)->daddr,
							NULL);
		ibdev = ndev ? ib_device_get_by_netdev(ndev, MRC_DRIVER_ID) :
			NULL;
	}
	if (!ibdev)
		return NULL;
	*port = mrc_port_of_ndev(to_mdev(ibdev), ndev);
	if (!*port) {
		/* Not one of its ports after all (a netdev being replaced). */
		ib_device_put(ibdev);
		return NULL;
	}
	return ibdev;
}

static bool mrc_recv_ce(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == IPVERSION)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/* An address of the packet's IP header against a GID, family-aware. */
static bool mrc_addr_is_gid(const struct sk_buff *skb, bool src,
			    const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ip_hdr(skb)->version == IPVERSION)
		return ipv6_addr_v4mapped(a) &&
		       a->s6_addr32[3] == (src ? ip_hdr(skb)->saddr :
					     ip_hdr(skb)->daddr);
	return !ipv6_addr_v4mapped(a) &&
	       ipv6_addr_equal(a, src ? &ipv6_hdr(skb)->saddr :
				    &ipv6_hdr(skb)->daddr);
}

/* P_Key matching as IB has it: the same key, one end a full member. */
static bool mrc_pkey_match(u16 a, u16 b)
{
	return (a & MRC_PKEY_KEY_MASK) && (b & MRC_PKEY_KEY_MASK) &&
	       (a & MRC_PKEY_KEY_MASK) == (b & MRC_PKEY_KEY_MASK) &&
	       ((a | b) & MRC_PKEY_FULL_MEMBER);
}

/**
 * mrc_recv_check_peer - is @pkt for @qp as connected?
 * @qp: the QP it names, dp.lock held (the path is written under it)
 * @pkt: the packet
 *
 * It must come from the QP's peer to the QP's own address (the path of
 * INIT -> RTR, both of one IP version), and a data packet must carry a
 * P_Key of the QP's partition.  Before RTR there is no path: the caller
 * drops the packet for the QP's state.  Returns a drop counter, or -1.
 */
static int mrc_recv_check_peer(struct mrc_qp *qp, const struct mrc_pkt *pkt)
{
	if (qp->state < IB_QPS_RTR)
		return -1;
	if (!mrc_addr_is_gid(pkt->skb, true, &qp->path.dgid))
		return MRC_CNT_DROP_BAD_SOURCE;
	if (!mrc_addr_is_gid(pkt->skb, false, &qp->path.sgid))
		return MRC_CNT_DROP_BAD_DEST;
	if (mrc_op_is_write(pkt->opcode) &&
	    !mrc_pkey_match(ntohs(pkt->bth->pkey), MRC_DEFAULT_PKEY))
		return MRC_CNT_DROP_BAD_PKEY;
	return -1;
}

/* A datagram to a broadcast or multicast address: for no QP. */
static bool mrc_recv_not_unicast(const struct sk_buff *skb)
{
	const struct rtable *rt = skb_rtable(skb);

	if (skb->pkt_type != PACKET_HOST)
		return true;
	if (ip_hdr(skb)->version == IPVERSION)
		return ipv4_is_multicast(ip_hdr(skb)->daddr) ||
		       ipv4_is_lbcast(ip_hdr(skb)->daddr) ||
		       (rt && (rt->rt_flags & (RTCF_BROADCAST | RTCF_MULTICAST)));
	return ipv6_addr_is_multicast(&ipv6_hdr(skb)->daddr);
}

/* The packet's DSCP. */
static u8 mrc_recv_dscp(struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == IPVERSION)
		return ip_hdr(skb)->tos >> MRC_DSCP_SHIFT;
	return ipv6_get_dsfield(ipv6_hdr(skb)) >> MRC_DSCP_SHIFT;
}

/*
 * Check its UDP length and pull every header there is, never the payload
 * (no large allocation): the packet (data at its UDP header) need not be
 * linear, its payload may stay in fragments.  Returns the UDP length, or
 * 0 with *@drop set.
 */
static unsigned int mrc_recv_pull(struct sk_buff *skb, unsigned int min_len,
				  int *drop)
{
	unsigned int len = ntohs(udp_hdr(skb)->len);

	if (len < min_len || len > skb->len) {
		*drop = MRC_CNT_DROP_SHORT;
		return 0;
	}
	if (!pskb_may_pull(skb, min(len, MRC_RECV_PULL_LEN))) {
		*drop = MRC_CNT_RX_NOMEM;
		return 0;
	}
	return len;
}

/* @pkt's BTH fields, and where it came from; @mrc_len: BTH to ICRC. */
static void mrc_recv_fill(struct sk_buff *skb, struct mrc_pkt *pkt,
			  unsigned int mrc_len)
{
	struct udphdr *udph = udp_hdr(skb);

	pkt->skb = skb;
	pkt->bth = (struct mrc_bth *)(udph + 1);
	pkt->hdr_len = mrc_len - MRC_BTH_LEN;
	pkt->opcode = pkt->bth->opcode;
	pkt->ack_flags = pkt->bth->ack_flags;
	pkt->psn = mrc_bth_psn(pkt->bth);
	pkt->dqpn = mrc_bth_dqpn(pkt->bth);
	pkt->sport = ntohs(udph->source);
	pkt->flow = ip_hdr(skb)->version == IPVERSION ? 0 :
		    ntohl(ip6_flowlabel(ipv6_hdr(skb))) & MRC_EV_FLOW_MASK;
	pkt->ce = mrc_recv_ce(skb);
}

/*
 * A packet a switch trimmed (DSCP_TRIMMED or _LASTHOP): its payload and
 * ICRC are gone, so neither is checked; it must be a data packet with its
 * headers through RETH.  Fill @pkt; returns a drop counter or -1.
 */
static int mrc_recv_parse_trimmed(struct sk_buff *skb, struct mrc_pkt *pkt)
{
	unsigned int len;
	int drop;

	len = mrc_recv_pull(skb, MRC_UDP_HLEN + MRC_BTH_LEN, &drop);
	if (!len)
		return drop;
	mrc_recv_fill(skb, pkt, len - MRC_UDP_HLEN);
	if (!mrc_op_is_write(pkt->opcode) || !mrc_opcode_parse_trimmed(pkt))
		return MRC_CNT_DROP_BAD_TRIMMED;
	return -1;
}

/*
 * Check lengths, ICRC, opcode and the headers the opcode has; fill @pkt.
 * Returns a drop counter or -1.
 */
static int mrc_recv_parse(struct sk_buff *skb, struct mrc_pkt *pkt)
{
	unsigned int len, mrc_len;
	__le32 icrc_buf;
	const __le32 *icrc;
	int drop;

	len = mrc_recv_pull(skb, MRC_UDP_HLEN + MRC_BTH_LEN + MRC_ICRC_LEN,
			    &drop);
	if (!len)
		return drop;
	mrc_len = len - MRC_UDP_HLEN - MRC_ICRC_LEN;

	icrc = skb_header_pointer(skb, len - MRC_ICRC_LEN, MRC_ICRC_LEN,
				  &icrc_buf);
	if (!icrc || le32_to_cpu(*icrc) != mrc_icrc(skb, udp_hdr(skb), mrc_len))
		return MRC_CNT_DROP_BAD_ICRC;
	mrc_recv_fill(skb, pkt, mrc_len);

	if (!mrc_op_known(pkt->opcode))
		return MRC_CNT_DROP_BAD_OPCODE;
	if (!mrc_opcode_parse(pkt))
		return mrc_op_is_ep(pkt->opcode) ? MRC_CNT_EP_DROP_MALFORMED :
						   MRC_CNT_DROP_BAD_HEADER;
	return -1;
}

/*
 * With dynamic debug on for the module (`module rdma_mrc +p`), a line per
 * packet the receive path drops, naming its opcode and the counter.
 */
static void mrc_recv_debug_drop(struct mrc_dev *dev, const struct mrc_pkt *pkt,
				int drop)
{
	const char *op;

	if (!pkt->bth) {
		/* Dropped before its headers were read. */
		ibdev_dbg_ratelimited(&dev->ibdev, "dropped a packet: %s\n",
				      mrc_counter_name(drop));
		return;
	}
	op = mrc_opcodes[pkt->opcode].name;
	ibdev_dbg_ratelimited(&dev->ibdev,
			      "dropped %s (opcode %#x) for QP %#x: %s\n",
			      op ?: "a packet", pkt->opcode, pkt->dqpn,
			      mrc_counter_name(drop));
}

/**
 * mrc_recv - receive one packet from the UDP tunnel
 * @skb: the packet, data at its UDP header; always consumed
 */
void mrc_recv(struct sk_buff *skb)
{
	const struct mrc_opcode_info *row;
	struct sk_buff_head txq;
	struct mrc_pkt pkt = {};
	struct ib_device *ibdev;
	struct mrc_dev *dev;
	struct mrc_qp *qp;
	bool trimmed, lasthop;
	u32 port;
	u8 dscp;
	int drop;

	ibdev = mrc_recv_device(skb, &port);
	if (!ibdev) {
		kfree_skb(skb);
		return;
	}
	dev = to_mdev(ibdev);
	pkt.dev = dev;
	pkt.port = port;
	mrc_counter_inc(dev, MRC_CNT_RX_PKTS);
	mrc_counter_add(dev, MRC_CNT_RX_BYTES, skb->len);

	/* An admin-disabled port carries nothing, in either direction. */
	drop = MRC_CNT_DROP_PORT_DISABLED;
	if (!mrc_port_admin_enabled(dev, port))
		goto drop;
	drop = MRC_CNT_DROP_NOT_UNICAST;
	if (mrc_recv_not_unicast(skb))
		goto drop;

	/* A trimmed packet is known by its DSCP, before any other check. */
	dscp = mrc_recv_dscp(skb);
	lasthop = dscp == READ_ONCE(mrc_param_dscp_trimmed_lasthop);
	trimmed = lasthop || dscp == READ_ONCE(mrc_param_dscp_trimmed);
	drop = trimmed ? mrc_recv_parse_trimmed(skb, &pkt) :
			 mrc_recv_parse(skb, &pkt);
	if (drop >= 0)
		goto drop;

	row = &mrc_opcodes[pkt.opcode];
	if (row->ep_rcv) {
		/* Endpoint operations: stateless, no QP. */
		row->ep_rcv(&pkt);
		ib_device_put(ibdev);
		kfree_skb(skb);
		return;
	}

	/* Transport header version 0 is the only one there is. */
	drop = MRC_CNT_DROP_BAD_HEADER;
	if (mrc_bth_tver(pkt.bth))
		goto drop;

	__skb_queue_head_init(&txq);
	qp = mrc_qp_lookup(dev, pkt.dqpn);
	drop = MRC_CNT_DROP_BAD_QPN;
	if (!qp)
		goto drop;
	/* The path is modify_qp's, under the lock: read it there. */
	spin_lock_bh(&qp->dp.lock);
	drop = mrc_recv_check_peer(qp, &pkt);
	spin_unlock_bh(&qp->dp.lock);
	if (drop >= 0) {
		mrc_qp_put(qp);
		goto drop;
	}
	/* MRs are found, and placed into, under RCU. */
	rcu_read_lock();

	if (trimmed)
		mrc_resp_trimmed(qp, &pkt, &txq, lasthop);
	else
		row->qp_rcv(qp, &pkt, &txq);

	rcu_read_unlock();
	mrc_net_xmit_list(qp, &txq);
	mrc_qp_put(qp);
	ib_device_put(ibdev);
	kfree_skb(skb);
	return;

drop:
	mrc_counter_inc(dev, drop);
	mrc_recv_debug_drop(dev, &pkt, drop);
	ib_device_put(ibdev);
	kfree_skb(skb);
}
