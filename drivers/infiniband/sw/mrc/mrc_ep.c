// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: endpoint operations on the reserved QP 0x2.
 *
 * Requests (0xd8, ERTH) and responses (0xd9, EETH) belong to no QP.  The
 * responder is stateless: it answers a request in the softirq that
 * received it, with a packet built from the request by swapping its
 * Ethernet and IP addresses, keeping its UDP source port (the EV) and flow
 * label, and sends it back out of the netdev the request came in on.  A
 * Port Status Update is acted upon (every QP towards the sender avoids the
 * reported ports) and acknowledged the same way.  A request from this host
 * (to a GID of the sending device itself, or of another device of the
 * host) comes in on loopback and is answered through the routing table
 * instead, back through loopback.
 *
 * The requester sends a batch of requests from process context
 * (mrc_ep_batch(), for the netlink family's ep-op), one batch per device at
 * a time, and sleeps until every request is answered or the timeout
 * passes.  Responses are matched by request id and addresses; the ones
 * that match nothing are dropped and counted, as are malformed packets
 * and requests to an address that is not a GID of the device.
 */
#include <linux/etherdevice.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/wait.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_hdr.h"
#include "mrc_pkt.h"

/* A batch in flight: at most one per device, found by device index. */
struct mrc_ep_batch {
	struct mrc_ep_request *reqs;	/* the caller's; outcomes written here */
	struct sk_buff **skbs;		/* each request's, until it is sent */
	u64 *sent_ns;			/* when each request left */
	u16 *sent_ts;			/* ... and its ERTH timestamp */
	unsigned int n;
	unsigned int nanswered;
	u8 op;				/* enum mrc_ep_wire_op */
	wait_queue_head_t wq;
};

/*
 * ib_device index -> struct mrc_ep_batch.  Its lock (taken with bottom
 * halves disabled) also guards the batches' outcome fields: the receive
 * path writes them under it, and the requester reads them after erasing
 * its batch, which takes it too.
 */
static DEFINE_XARRAY_FLAGS(mrc_ep_batches, XA_FLAGS_LOCK_BH);

static bool mrc_gid_is_v4(const union ib_gid *gid)
{
	return ipv6_addr_v4mapped((const struct in6_addr *)gid->raw);
}

/* Whether @gid can be a peer: a unicast address of either family. */
static bool mrc_ep_gid_unicast(const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;
	__be32 v4;

	if (mrc_gid_is_v4(gid)) {
		v4 = a->s6_addr32[3];
		return !ipv4_is_zeronet(v4) && !ipv4_is_multicast(v4) &&
		       !ipv4_is_lbcast(v4) && !ipv4_is_loopback(v4);
	}
	return !(ipv6_addr_type(a) &
		 (IPV6_ADDR_ANY | IPV6_ADDR_MULTICAST | IPV6_ADDR_LOOPBACK));
}

/* Whether @gid is in the GID table of @port; any context. */
static bool mrc_ep_gid_ours(struct mrc_dev *dev, u32 port,
			    const union ib_gid *gid)
{
	union ib_gid entry;
	int i, err;

	for (i = 0; i < MRC_GID_TBL_LEN; i++) {
		err = rdma_query_gid(&dev->ibdev, port, i, &entry);
		if (err == -EINVAL)
			break;		/* past the table */
		if (!err && !memcmp(&entry, gid, sizeof(entry)))
			return true;
	}
	return false;
}

/* Source and destination address of a received packet, as GIDs. */
static void mrc_ep_pkt_gids(const struct sk_buff *skb, union ib_gid *src,
			    union ib_gid *dst)
{
	if (ip_hdr(skb)->version == IPVERSION) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr,
				       (struct in6_addr *)src->raw);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dst->raw);
	} else {
		memcpy(src->raw, &ipv6_hdr(skb)->saddr, sizeof(src->raw));
		memcpy(dst->raw, &ipv6_hdr(skb)->daddr, sizeof(dst->raw));
	}
}

static void mrc_ep_fill_bth(struct mrc_bth *bth, u8 opcode, u16 id)
{
	memset(bth, 0, MRC_BTH_LEN);
	bth->opcode = opcode;
	bth->pkey = htons(mrc_param_control_pkey);
	mrc_put24(bth->dqpn, MRC_QPN_ENDPOINT);
	mrc_put24(bth->psn, id);
}

/* The response to request @pkt: BTH and EETH at @bth. */
static void mrc_ep_fill_rsp(struct mrc_pkt *pkt, struct mrc_bth *bth,
			    u64 t_arrival)
{
	const struct mrc_erth *erth = pkt->h.erth;
	struct mrc_eeth *eeth = (struct mrc_eeth *)(bth + 1);
	u64 svc;

	mrc_ep_fill_bth(bth, MRC_OP_EP_RESPONSE, pkt->psn & MRC_EP_ID_MASK);
	memset(eeth, 0, MRC_EETH_LEN);
	eeth->op = FIELD_PREP(MRC_EP_OP, mrc_ep_op(erth->op)) | MRC_EETH_SV;
	eeth->port_status = erth->port_status;
	eeth->entropy = htonl(mrc_pkt_entropy(pkt));
	eeth->req_port = pkt->port;
	eeth->req_ts = erth->tx_ts;
	eeth->req_ts_flags = erth->ts_flags;
	svc = ktime_get_ns() - t_arrival;
	eeth->svc_time = htonl(min_t(u64, svc, U32_MAX));
}

/*
 * Answer through the routing table, for a request that came in without an
 * Ethernet header (e.g. on a tunnel device) or on loopback.  A request on
 * loopback comes from this host, and so does its reply: sent with no route
 * attached, the reply would go through IPv4's input route lookup on lo,
 * which drops a packet whose source is a local address as a martian; the
 * route attached here makes loopback deliver it as it delivers the
 * requests.
 */
static void mrc_ep_reply_routed(struct mrc_pkt *pkt, const union ib_gid *src,
				const union ib_gid *dst, u64 t_arrival)
{
	struct mrc_path path = {
		.sport = pkt->sport,
		.flow = pkt->flow,
		.port = pkt->port,
	};
	struct mrc_xmit_addr addr = {
		.sgid = dst,
		.dgid = src,
		.net_type = mrc_gid_is_v4(src) ? RDMA_NETWORK_IPV4 :
						 RDMA_NETWORK_IPV6,
	};
	struct sk_buff *skb;

	skb = mrc_net_alloc_skb_dev(pkt->dev, MRC_BTH_LEN +
				    mrc_op_hdr_len(MRC_OP_EP_RESPONSE, false));
	if (!skb)
		return;
	mrc_ep_fill_rsp(pkt, (struct mrc_bth *)skb->data, t_arrival);
	mrc_counter_inc(pkt->dev, MRC_CNT_EP_RSPS_SENT);
	mrc_net_xmit_addr(pkt->dev, &addr, skb, &path,
			  mrc_param_dscp_control, false);
}

/*
 * Answer request @pkt statelessly: the reply's Ethernet and IP addresses
 * are the request's, swapped; its UDP source port and IPv6 flow label are
 * the request's (the EV it came on), so that it travels back on that EV;
 * it leaves through the netdev the request arrived on, with no route
 * lookup (unless that is loopback: see mrc_ep_reply_routed()).
 */
static void mrc_ep_reply(struct mrc_pkt *pkt, const union ib_gid *src,
			 const union ib_gid *dst, u64 t_arrival)
{
	const unsigned int mrc_len = MRC_BTH_LEN +
		mrc_op_hdr_len(MRC_OP_EP_RESPONSE, false);
	struct sk_buff *req = pkt->skb;
	struct net_device *ndev = req->dev;
	bool v4 = ip_hdr(req)->version == IPVERSION;
	unsigned int ip_hlen = v4 ? MRC_IPV4_HLEN : MRC_IPV6_HLEN;
	u8 tos = mrc_param_dscp_control << MRC_DSCP_SHIFT;
	const struct ethhdr *req_eth;
	struct udphdr *udph;
	struct sk_buff *skb;
	struct ethhdr *eth;

	if (!skb_mac_header_was_set(req) ||
	    skb_network_header(req) - skb_mac_header(req) != ETH_HLEN ||
	    (ndev->flags & IFF_LOOPBACK) || !(ndev->flags & IFF_UP)) {
		mrc_ep_reply_routed(pkt, src, dst, t_arrival);
		return;
	}
	req_eth = eth_hdr(req);

	skb = alloc_skb(LL_RESERVED_SPACE(ndev) + ip_hlen + MRC_UDP_HLEN +
			mrc_len + MRC_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return;
	skb_reserve(skb, LL_RESERVED_SPACE(ndev) + ip_hlen + MRC_UDP_HLEN);
	mrc_ep_fill_rsp(pkt, skb_put(skb, mrc_len), t_arrival);

	udph = skb_push(skb, MRC_UDP_HLEN);
	skb_reset_transport_header(skb);
	udph->source = udp_hdr(req)->source;	/* the EV */
	udph->dest = htons(mrc_param_udp_port);
	udph->len = htons(MRC_UDP_HLEN + mrc_len + MRC_ICRC_LEN);
	udph->check = 0;

	if (v4) {
		struct iphdr *iph = skb_push(skb, MRC_IPV4_HLEN);

		skb_reset_network_header(skb);
		memset(iph, 0, MRC_IPV4_HLEN);
		iph->version = IPVERSION;
		iph->ihl = MRC_IPV4_HLEN / sizeof(u32);
		iph->tos = tos;
		iph->tot_len = htons(skb->len + MRC_ICRC_LEN);
		iph->frag_off = htons(IP_DF);
		iph->ttl = MRC_DEFAULT_TTL;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = ip_hdr(req)->daddr;
		iph->daddr = ip_hdr(req)->saddr;
		ip_send_check(iph);
	} else {
		struct ipv6hdr *ip6h = skb_push(skb, MRC_IPV6_HLEN);

		skb_reset_network_header(skb);
		ip6_flow_hdr(ip6h, tos, ip6_flowlabel(ipv6_hdr(req)));
		ip6h->payload_len = htons(skb->len - MRC_IPV6_HLEN +
					  MRC_ICRC_LEN);
		ip6h->nexthdr = IPPROTO_UDP;
		ip6h->hop_limit = MRC_DEFAULT_TTL;
		ip6h->saddr = ipv6_hdr(req)->daddr;
		ip6h->daddr = ipv6_hdr(req)->saddr;
	}

	skb_put(skb, MRC_ICRC_LEN);
	put_unaligned_le32(mrc_icrc(skb, udph, mrc_len),
			   skb_tail_pointer(skb) - MRC_ICRC_LEN);
	mrc_counter_inc(pkt->dev, MRC_CNT_TX_PKTS);
	mrc_counter_add(pkt->dev, MRC_CNT_TX_BYTES, skb->len);
	mrc_counter_inc(pkt->dev, MRC_CNT_EP_RSPS_SENT);

	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	ether_addr_copy(eth->h_dest, req_eth->h_source);
	ether_addr_copy(eth->h_source, req_eth->h_dest);
	eth->h_proto = req_eth->h_proto;
	skb->protocol = req_eth->h_proto;
	skb->dev = ndev;
	skb->ip_summed = CHECKSUM_NONE;
	dev_queue_xmit(skb);
}

/*
 * Whether the device may answer one more request now: at most ep_rate a
 * second, so that a flood of requests costs a bounded share of the CPU
 * and reflects a bounded number of packets.
 */
static bool mrc_ep_rate_ok(struct mrc_dev *dev)
{
	bool ok;

	spin_lock(&dev->ep_rate_lock);
	if (time_after_eq(jiffies, dev->ep_rate_window + HZ)) {
		dev->ep_rate_window = jiffies;
		dev->ep_rate_count = 0;
	}
	ok = dev->ep_rate_count < READ_ONCE(mrc_param_ep_rate);
	dev->ep_rate_count += ok;
	spin_unlock(&dev->ep_rate_lock);
	return ok;
}

/*
 * A Port Status Update from @src, which came in on our port @port: its
 * ports in @mask are down.  Planes are numbered alike on both ends, so it
 * names ports we have (else it is malformed: false), and its port @port
 * is up whatever it says: it just sent on it.  Applied to the peer's entry
 * if a QP of the device is connected to @src (every QP towards it reads
 * it); with none there is nothing to apply it to.
 */
static bool mrc_ep_port_status(struct mrc_dev *dev, u32 port,
			       const union ib_gid *src, u32 mask)
{
	struct mrc_peer *peer;

	if (mask & ~GENMASK(dev->nports, 1))
		return false;
	mrc_counter_inc(dev, MRC_CNT_EP_PORT_STATUS_RCVD);
	rcu_read_lock();
	peer = mrc_peer_lookup(dev, src);
	if (peer)
		WRITE_ONCE(peer->down_mask, mask & ~BIT(port));
	rcu_read_unlock();
	if (!peer)
		mrc_counter_inc(dev, MRC_CNT_EP_PORT_STATUS_NO_PEER);
	/* The controller hears what the peer said. */
	mrc_nl_peer_status(dev, port, src, mask);
	return true;
}

static void mrc_ep_rcv_req(struct mrc_pkt *pkt, const union ib_gid *src,
			   const union ib_gid *dst, u64 t_arrival)
{
	const struct mrc_erth *erth = pkt->h.erth;
	struct mrc_dev *dev = pkt->dev;

	if (!mrc_ep_rate_ok(dev)) {
		mrc_counter_inc(dev, MRC_CNT_EP_DROP_RATE);
		return;
	}
	if (!mrc_ep_gid_unicast(src) || !mrc_ep_gid_ours(dev, pkt->port, dst)) {
		mrc_counter_inc(dev, MRC_CNT_EP_DROP_UNKNOWN_GID);
		return;
	}
	if (mrc_ep_op(erth->op) == MRC_EP_WIRE_PORT_STATUS &&
	    !mrc_ep_port_status(dev, pkt->port, src,
				ntohl(erth->port_status))) {
		mrc_counter_inc(dev, MRC_CNT_EP_DROP_MALFORMED);
		return;
	}
	mrc_counter_inc(dev, MRC_CNT_EP_REQS_RCVD);
	mrc_ep_reply(pkt, src, dst, t_arrival);
}

/* Match response @pkt to the device's batch; false if it matches none. */
static bool mrc_ep_rcv_rsp(struct mrc_pkt *pkt, const union ib_gid *src,
			   const union ib_gid *dst, u64 t_arrival)
{
	const struct mrc_eeth *eeth = pkt->h.eeth;
	u16 id = pkt->psn & MRC_EP_ID_MASK;
	struct mrc_ep_request *req = NULL;
	struct mrc_ep_batch *b;
	bool matched = false;
	unsigned int i;
	u64 rtt, svc;

	xa_lock_bh(&mrc_ep_batches);
	b = xa_load(&mrc_ep_batches, pkt->dev->ibdev.index);
	if (!b || mrc_ep_op(eeth->op) != b->op)
		goto out;
	for (i = 0; i < b->n; i++) {
		req = &b->reqs[i];
		if (req->id == id)
			break;
	}
	/*
	 * The answer to a request of ours: its id, between its addresses,
	 * back on its EV, echoing its EV, timestamp and port status.
	 */
	if (i == b->n || req->answered ||
	    memcmp(src, &req->dgid, sizeof(*src)) ||
	    memcmp(dst, &req->sgid, sizeof(*dst)) ||
	    pkt->sport != req->ev.sport || pkt->flow != req->ev.flow ||
	    ntohl(eeth->entropy) != mrc_ev_entropy(req->ev.sport,
						   req->ev.flow) ||
	    ntohs(eeth->req_ts) != b->sent_ts[i] ||
	    ntohl(eeth->port_status) != (b->op == MRC_EP_WIRE_PORT_STATUS ?
					 req->port_status : 0))
		goto out;

	rtt = t_arrival - b->sent_ns[i];
	svc = ntohl(eeth->svc_time);
	req->adj_svc_time = 0;
	if ((eeth->op & MRC_EETH_SV) && svc < rtt) {
		rtt -= svc;
		req->adj_svc_time = 1;
	}
	req->rtt_ns = clamp_t(u64, rtt, 1, U32_MAX);
	/*
	 * Through loopback the exchange crossed no plane: it came back on
	 * the port it was sent on, as a port's internal loopback would,
	 * rather than on the port the receive path attributes lo's packets
	 * to (that of the first netdev holding the address).
	 */
	if (pkt->skb->dev->flags & IFF_LOOPBACK)
		req->rx_port = req->ev.port;
	else
		req->rx_port = pkt->port;
	req->order = b->nanswered;
	req->answered = true;
	WRITE_ONCE(b->nanswered, b->nanswered + 1);
	if (b->nanswered == b->n)
		wake_up(&b->wq);
	matched = true;
out:
	xa_unlock_bh(&mrc_ep_batches);
	return matched;
}

/*
 * Header checks common to requests and responses (mrc_opcode_parse() saw
 * that the ERTH or EETH is there, and nothing after it).
 */
static bool mrc_ep_hdr_ok(const struct mrc_pkt *pkt)
{
	u8 op = mrc_ep_op(pkt->h.erth ? pkt->h.erth->op : pkt->h.eeth->op);

	return pkt->dqpn == MRC_QPN_ENDPOINT &&
	       !mrc_bth_padcnt(pkt->bth) && !mrc_bth_tver(pkt->bth) &&
	       ntohs(pkt->bth->pkey) == mrc_param_control_pkey &&
	       (op == MRC_EP_WIRE_PORT_STATUS || op == MRC_EP_WIRE_EV_PROBE);
}

/**
 * mrc_ep_rcv - an endpoint packet: opcode 0xd8 or 0xd9
 * @pkt: parsed and ICRC-checked by mrc_recv(); the caller frees its skb
 *
 * Softirq context.
 */
void mrc_ep_rcv(struct mrc_pkt *pkt)
{
	u64 t_arrival = ktime_get_ns();
	union ib_gid src, dst;

	if (!mrc_ep_hdr_ok(pkt)) {
		mrc_counter_inc(pkt->dev, MRC_CNT_EP_DROP_MALFORMED);
		return;
	}
	mrc_ep_pkt_gids(pkt->skb, &src, &dst);
	if (pkt->opcode == MRC_OP_EP_REQUEST)
		mrc_ep_rcv_req(pkt, &src, &dst, t_arrival);
	else if (mrc_ep_rcv_rsp(pkt, &src, &dst, t_arrival))
		mrc_counter_inc(pkt->dev, MRC_CNT_EP_RSPS_RCVD);
	else
		mrc_counter_inc(pkt->dev, MRC_CNT_EP_DROP_UNMATCHED);
}

static int mrc_ep_check_req(struct mrc_dev *dev, const struct mrc_ep_request *reqs,
			    unsigned int i, struct netlink_ext_ack *extack)
{
	const struct mrc_ep_request *req = &reqs[i];
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (reqs[j].id == req->id) {
			NL_SET_ERR_MSG(extack, "duplicate request id in the batch");
			return -EINVAL;
		}
	}
	if (!mrc_port_ndev(dev, req->ev.port)) {
		NL_SET_ERR_MSG(extack, "the device has no such port");
		return -EINVAL;
	}
	if (!mrc_ep_gid_ours(dev, req->ev.port, &req->sgid)) {
		NL_SET_ERR_MSG(extack, "sgid is not a GID of the device on that port");
		return -EINVAL;
	}
	if (!mrc_ep_gid_unicast(&req->dgid)) {
		NL_SET_ERR_MSG(extack, "dgid is not a unicast address");
		return -EINVAL;
	}
	if (mrc_gid_is_v4(&req->sgid) != mrc_gid_is_v4(&req->dgid)) {
		NL_SET_ERR_MSG(extack, "sgid and dgid are of different IP versions");
		return -EINVAL;
	}
	if (!req->ev.sport) {
		NL_SET_ERR_MSG(extack, "EV 0: not a usable UDP source port");
		return -EINVAL;
	}
	if (req->ev.flow && mrc_gid_is_v4(&req->sgid)) {
		NL_SET_ERR_MSG(extack, "the EV has flow label bits, which IPv4 cannot carry");
		return -EINVAL;
	}
	return 0;
}

static struct sk_buff *mrc_ep_build_req(struct mrc_dev *dev, u8 op,
					const struct mrc_ep_request *req)
{
	struct sk_buff *skb;
	struct mrc_erth *erth;

	skb = mrc_net_alloc_skb_dev(dev, MRC_BTH_LEN +
				    mrc_op_hdr_len(MRC_OP_EP_REQUEST, false));
	if (!skb)
		return NULL;
	mrc_ep_fill_bth((struct mrc_bth *)skb->data, MRC_OP_EP_REQUEST, req->id);
	erth = (struct mrc_erth *)(skb->data + MRC_BTH_LEN);
	memset(erth, 0, MRC_ERTH_LEN);
	erth->op = op;
	if (op == MRC_EP_WIRE_PORT_STATUS)
		erth->port_status = htonl(req->port_status);
	erth->ts_flags = mrc_ts_flags();
	return skb;
}

/*
 * Check a batch's parameters and requests; clear the requests' outcomes.
 * Returns 0 and the wire op in @op, or why the batch is refused.
 */
static int mrc_ep_batch_check(struct mrc_dev *dev, u32 op_type, u8 dscp,
			      u64 timeout_ns, struct mrc_ep_request *reqs,
			      unsigned int n, u8 *op,
			      struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	switch (op_type) {
	case MRC_EP_OP_TYPE_EV_PROBE:
		*op = MRC_EP_WIRE_EV_PROBE;
		break;
	case MRC_EP_OP_TYPE_PORT_STATUS_UPDATE:
		*op = MRC_EP_WIRE_PORT_STATUS;
		break;
	default:
		NL_SET_ERR_MSG(extack, "unknown endpoint operation type");
		return -EINVAL;
	}
	if (!n) {
		NL_SET_ERR_MSG(extack, "no request in the batch");
		return -EINVAL;
	}
	if (n > MRC_EP_MAX_REQS) {
		NL_SET_ERR_MSG(extack, "too many requests in the batch");
		return -E2BIG;
	}
	if (dscp > (U8_MAX >> MRC_DSCP_SHIFT)) {
		NL_SET_ERR_MSG(extack, "DSCP out of range");
		return -EINVAL;
	}
	if (!timeout_ns || timeout_ns > MRC_EP_MAX_TIMEOUT_NS) {
		NL_SET_ERR_MSG(extack, "timeout out of range");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		err = mrc_ep_check_req(dev, reqs, i, extack);
		if (err)
			return err;
		reqs[i].answered = false;
		reqs[i].rx_port = 0;
		reqs[i].rtt_ns = 0;
		reqs[i].adj_svc_time = 0;
		reqs[i].order = 0;
	}
	return 0;
}

static void mrc_ep_batch_free(struct mrc_ep_batch *b)
{
	unsigned int i;

	if (!b)
		return;
	if (b->skbs)
		for (i = 0; i < b->n; i++)
			kfree_skb(b->skbs[i]);
	kfree(b->skbs);
	kfree(b->sent_ns);
	kfree(b->sent_ts);
	kfree(b);
}

/* A batch of @n requests of wire op @op, every packet built. */
static struct mrc_ep_batch *mrc_ep_batch_alloc(struct mrc_dev *dev, u8 op,
					       struct mrc_ep_request *reqs,
					       unsigned int n)
{
	struct mrc_ep_batch *b;
	unsigned int i;

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return NULL;
	b->reqs = reqs;
	b->n = n;
	b->op = op;
	init_waitqueue_head(&b->wq);
	b->skbs = kcalloc(n, sizeof(*b->skbs), GFP_KERNEL);
	b->sent_ns = kcalloc(n, sizeof(*b->sent_ns), GFP_KERNEL);
	b->sent_ts = kcalloc(n, sizeof(*b->sent_ts), GFP_KERNEL);
	if (!b->skbs || !b->sent_ns || !b->sent_ts)
		goto err;
	for (i = 0; i < n; i++) {
		b->skbs[i] = mrc_ep_build_req(dev, op, &reqs[i]);
		if (!b->skbs[i])
			goto err;
	}
	return b;
err:
	mrc_ep_batch_free(b);
	return NULL;
}

/* Send every request of published batch @b, each stamped as it leaves. */
static void mrc_ep_batch_send(struct mrc_dev *dev, struct mrc_ep_batch *b,
			      u8 dscp)
{
	struct mrc_xmit_addr addr;
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		struct mrc_ep_request *req = &b->reqs[i];
		struct mrc_erth *erth;

		addr.sgid = &req->sgid;
		addr.dgid = &req->dgid;
		addr.net_type = mrc_gid_is_v4(&req->sgid) ?
				RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
		erth = (struct mrc_erth *)(b->skbs[i]->data + MRC_BTH_LEN);
		/* Ordered before the xmit, and so before its response. */
		xa_lock_bh(&mrc_ep_batches);
		b->sent_ts[i] = mrc_ts_now();
		b->sent_ns[i] = ktime_get_ns();
		xa_unlock_bh(&mrc_ep_batches);
		erth->tx_ts = htons(b->sent_ts[i]);
		mrc_counter_inc(dev, MRC_CNT_EP_REQS_SENT);
		local_bh_disable();
		mrc_net_xmit_addr(dev, &addr, b->skbs[i], &req->ev, dscp,
				  false);
		local_bh_enable();
		b->skbs[i] = NULL;
	}
}

/**
 * mrc_ep_batch - send a batch of endpoint requests and wait for responses
 * @dev: the sending device
 * @op_type: MRC_EP_OP_TYPE_* (uapi), the same for every request
 * @dscp: DSCP of the requests
 * @timeout_ns: how long to wait for the responses
 * @reqs: the requests; their outcome fields are filled in
 * @n: how many
 * @extack: why the batch was refused
 *
 * Process context; sleeps.  Returns 0 when the batch was sent (requests
 * not answered in time have answered == false), -EINVAL / -E2BIG for bad
 * requests, -EAGAIN when another batch of @dev is in flight, -ENOMEM, or
 * -EINTR when a signal ended the wait.
 */
int mrc_ep_batch(struct mrc_dev *dev, u32 op_type, u8 dscp, u64 timeout_ns,
		 struct mrc_ep_request *reqs, unsigned int n,
		 struct netlink_ext_ack *extack)
{
	struct mrc_ep_batch *b;
	unsigned long wait;
	unsigned int i;
	long left;
	int err;
	u8 op;

	err = mrc_ep_batch_check(dev, op_type, dscp, timeout_ns, reqs, n, &op,
				 extack);
	if (err)
		return err;
	b = mrc_ep_batch_alloc(dev, op, reqs, n);
	if (!b)
		return -ENOMEM;

	err = xa_insert_bh(&mrc_ep_batches, dev->ibdev.index, b, GFP_KERNEL);
	if (err) {
		if (err == -EBUSY) {
			NL_SET_ERR_MSG(extack,
				       "another endpoint batch of this device is in flight");
			err = -EAGAIN;
		}
		goto out;
	}
	mrc_ep_batch_send(dev, b, dscp);

	wait = max_t(unsigned long, nsecs_to_jiffies(timeout_ns), 1);
	left = wait_event_interruptible_timeout(b->wq,
						READ_ONCE(b->nanswered) == n,
						wait);
	/* After this no response can touch @reqs. */
	xa_erase_bh(&mrc_ep_batches, dev->ibdev.index);
	if (left == -ERESTARTSYS) {
		NL_SET_ERR_MSG(extack, "interrupted while waiting for responses");
		err = -EINTR;
		goto out;
	}

	for (i = 0; i < n; i++) {
		if (!reqs[i].answered) {
			mrc_counter_inc(dev, MRC_CNT_EP_TIMEOUTS);
			continue;
		}
		if (op == MRC_EP_WIRE_EV_PROBE)
			mrc_ev_probe_ok(dev, &reqs[i].dgid, &reqs[i].ev);
	}
out:
	mrc_ep_batch_free(b);
	return err;
}
