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

#include "mrc.h"
#include "mrc_hdr.h"

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

/* Whether the packet comes from the peer @qp is connected to. */
static bool mrc_recv_from_peer(struct mrc_qp *qp, struct sk_buff *skb)
{
	const u8 *dgid = qp->path.dgid.raw;

	if (READ_ONCE(qp->state) < IB_QPS_RTR)
		return true;	/* dropped later for its state */
	if (ip_hdr(skb)->version == IPVERSION)
		return !memcmp(dgid + MRC_GID_V4_OFFSET, &ip_hdr(skb)->saddr,
			       sizeof(ip_hdr(skb)->saddr));
	return !memcmp(dgid, &ipv6_hdr(skb)->saddr, sizeof(struct in6_addr));
}

/* Check lengths and ICRC; fill @pkt.  Returns a drop counter or -1. */
static int mrc_recv_parse(struct sk_buff *skb, struct mrc_pkt *pkt)
{
	struct udphdr *udph = udp_hdr(skb);
	unsigned int len = ntohs(udph->len);
	unsigned int mrc_len;
	u32 icrc;

	if (len < MRC_UDP_HLEN + MRC_BTH_LEN + MRC_ICRC_LEN ||
	    (u8 *)udph + len > skb_tail_pointer(skb))
		return MRC_CNT_DROP_SHORT;
	mrc_len = len - MRC_UDP_HLEN - MRC_ICRC_LEN;

	icrc = get_unaligned_le32((u8 *)udph + len - MRC_ICRC_LEN);
	if (icrc != mrc_icrc(skb, udph, mrc_len))
		return MRC_CNT_DROP_BAD_ICRC;

	pkt->skb = skb;
	pkt->bth = (struct mrc_bth *)(udph + 1);
	pkt->hdr = (u8 *)pkt->bth + MRC_BTH_LEN;
	pkt->hdr_len = mrc_len - MRC_BTH_LEN;
	pkt->opcode = pkt->bth->opcode;
	pkt->ack_flags = pkt->bth->ack_flags;
	pkt->psn = mrc_bth_psn(pkt->bth);
	pkt->dqpn = mrc_bth_dqpn(pkt->bth);
	pkt->sport = ntohs(udph->source);
	pkt->flow = ip_hdr(skb)->version == IPVERSION ? 0 :
		    ntohl(ip6_flowlabel(ipv6_hdr(skb))) & MRC_EV_FLOW_MASK;
	pkt->ce = mrc_recv_ce(skb);
	return -1;
}

static bool mrc_op_known(u8 op)
{
	switch (op) {
	case MRC_OP_WRITE_FIRST ... MRC_OP_WRITE_ONLY_IMM:
	case MRC_OP_ACK:
	case MRC_OP_SACK:
	case MRC_OP_NACK:
	case MRC_OP_PROBE:
	case MRC_OP_EP_REQUEST ... MRC_OP_EP_RESPONSE:
		return true;
	default:
		return false;
	}
}

/**
 * mrc_recv - receive one packet from the UDP tunnel
 * @skb: the packet, data at its UDP header; always consumed
 */
void mrc_recv(struct sk_buff *skb)
{
	struct sk_buff_head txq;
	struct mrc_pkt pkt = {};
	struct ib_device *ibdev;
	struct mrc_dev *dev;
	struct mrc_qp *qp;
	u32 port;
	int drop;

	if (skb_linearize(skb)) {
		kfree_skb(skb);
		return;
	}
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

	drop = mrc_recv_parse(skb, &pkt);
	if (drop >= 0)
		goto drop;

	drop = MRC_CNT_DROP_BAD_OPCODE;
	if ((pkt.opcode & MRC_OP_SPACE_MASK) != MRC_OP_SPACE &&
	    (pkt.opcode & MRC_OP_RC_SPACE_MASK) != MRC_OP_RC_SPACE)
		goto drop;
	if ((pkt.opcode & MRC_OP_SPACE_MASK) == MRC_OP_SPACE &&
	    !mrc_op_known(pkt.opcode))
		goto drop;

	if (pkt.dqpn == MRC_QPN_ENDPOINT || mrc_op_is_ep(pkt.opcode)) {
		/* Endpoint operations: stateless, no QP. */
		mrc_ep_rcv(&pkt);
		ib_device_put(ibdev);
		kfree_skb(skb);
		return;
	}

	__skb_queue_head_init(&txq);
	rcu_read_lock();
	qp = xa_load(&dev->qp_xa, pkt.dqpn);
	if (!qp) {
		rcu_read_unlock();
		drop = MRC_CNT_DROP_BAD_QPN;
		goto drop;
	}
	if (!mrc_recv_from_peer(qp, skb)) {
		rcu_read_unlock();
		drop = MRC_CNT_DROP_BAD_SOURCE;
		goto drop;
	}

	if ((pkt.opcode & MRC_OP_RC_SPACE_MASK) == MRC_OP_RC_SPACE)
		mrc_resp_unexpected(qp, &pkt, &txq);
	else if (mrc_op_is_write(pkt.opcode))
		mrc_resp_rcv(qp, &pkt, &txq);
	else if (pkt.opcode == MRC_OP_PROBE)
		mrc_resp_probe(qp, &pkt, &txq);
	else
		mrc_comp_rcv(qp, &pkt, &txq);

	mrc_net_xmit_list(qp, &txq);
	rcu_read_unlock();
	ib_device_put(ibdev);
	kfree_skb(skb);
	return;

drop:
	mrc_counter_inc(dev, drop);
	ib_device_put(ibdev);
	kfree_skb(skb);
}
