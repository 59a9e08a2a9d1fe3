// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: encapsulation and the UDP tunnel sockets, one IPv4 and one
 * IPv6 socket per network namespace that holds at least one mrc device.
 * Devices take a reference on their netdevs' namespace entry when created
 * and drop it when a netdev of theirs goes away, so a namespace with no mrc
 * device has no socket and the port stays free for others (e.g. rxe).
 * Packets leave on the plane (port) their EV names: the route lookup is
 * bound to that port's netdev.
 */
#include <linux/module.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "mrc.h"
#include "mrc_hdr.h"
#include "mrc_opcode.h"

struct mrc_net {
	struct net *net;	/* not counted: the entry dies with the namespace */
	struct socket *sock4;
	struct socket *sock6;
	unsigned int users;
};

/* Any non-zero encap type makes UDP hand packets to our encap_rcv. */
#define MRC_UDP_ENCAP_TYPE	1

static unsigned int mrc_net_id __read_mostly;

/* Serialises socket creation and release across namespaces. */
static DEFINE_MUTEX(mrc_net_mutex);

/* Send what was queued under the QP's lock, now that it is released. */
void mrc_net_xmit_list(struct mrc_qp *qp, struct sk_buff_head *list)
{
	struct mrc_tx_cb cb;
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(list))) {
		/* A copy: sending clears skb->cb, and with it the path. */
		cb = *(struct mrc_tx_cb *)skb->cb;
		mrc_net_xmit(qp, skb, &cb.path, cb.dscp, cb.ect);
	}
}

/* UDP hands us every packet for udp_port; we always consume it. */
static int mrc_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	mrc_recv(skb);
	return 0;
}

/**
 * mrc_net_alloc_skb - a packet with room for IP, UDP and the ICRC
 * @qp: the sending QP
 * @len: bytes from the BTH to the ICRC, put and left for the caller to fill
 */
struct sk_buff *mrc_net_alloc_skb(struct mrc_qp *qp, unsigned int len)
{
	return mrc_net_alloc_skb_dev(qp->dev, len);
}

/**
 * mrc_net_alloc_hdrs - a header-only packet of @op to @qp's peer
 * @qp: the sending QP
 * @op: its opcode: the headers after the BTH are those of its row
 * @psn: BTH PSN
 *
 * The BTH is filled in (P_Key that of control packets, no flags), the
 * headers after it are zeroed for the caller to fill.
 */
struct sk_buff *mrc_net_alloc_hdrs(struct mrc_qp *qp, u8 op, u32 psn)
{
	unsigned int len = MRC_BTH_LEN + mrc_op_hdr_len(op, false);
	struct sk_buff *skb = mrc_net_alloc_skb(qp, len);
	struct mrc_bth *bth;

	if (!skb)
		return NULL;
	bth = (struct mrc_bth *)skb->data;
	memset(bth, 0, len);
	bth->opcode = op;
	bth->pkey = htons(mrc_param_control_pkey);
	mrc_put24(bth->dqpn, qp->attr.dest_qp_num);
	mrc_put24(bth->psn, psn);
	return skb;
}

/*
 * As mrc_net_alloc_skb(), for packets of no QP (endpoint operations).  The
 * port a packet leaves on is chosen later: reserve the link-layer room of
 * the most demanding port's netdev.
 */
struct sk_buff *mrc_net_alloc_skb_dev(struct mrc_dev *dev, unsigned int len)
{
	unsigned int ll = 0, head;
	struct sk_buff *skb;
	u32 i;

	for (i = 0; i < dev->nports; i++)
		ll = max_t(unsigned int, ll,
			   LL_RESERVED_SPACE(dev->ports[i].ndev));
	head = ll + MRC_IPV6_HLEN + MRC_UDP_HLEN;
	skb = alloc_skb(head + len + MRC_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, head);
	skb_put(skb, len);
	return skb;
}

static void mrc_put_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *udph;

	udph = skb_push(skb, MRC_UDP_HLEN);
	skb_reset_transport_header(skb);
	udph->source = htons(sport);
	udph->dest = htons(mrc_param_udp_port);
	udph->len = htons(skb->len);
	udph->check = 0;	/* MRC sends no UDP checksum */
}

static int mrc_xmit4(struct net_device *ndev, const struct mrc_xmit_addr *addr,
		     struct sk_buff *skb, u16 sport, u8 tos)
{
	struct net *net = dev_net(ndev);
	struct flowi4 fl4 = {
		.flowi4_oif = ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(tos),
		.fl4_sport = htons(sport),
		.fl4_dport = htons(mrc_param_udp_port),
	};
	struct rtable *rt;
	struct iphdr *iph;
	bool bound;

	memcpy(&fl4.saddr, addr->sgid->raw + MRC_GID_V4_OFFSET,
	       sizeof(fl4.saddr));
	memcpy(&fl4.daddr, addr->dgid->raw + MRC_GID_V4_OFFSET,
	       sizeof(fl4.daddr));
	/*
	 * A peer on this host (another device, or this one) is reached
	 * through loopback: bound to our netdev the packet would leave on
	 * the wire and come back with a local source, a martian.
	 */
	if (inet_addr_type(net, fl4.daddr) == RTN_LOCAL)
		fl4.flowi4_oif = 0;
	/* The lookup rewrites flowi4_oif (to lo's, for a local peer). */
	bound = fl4.flowi4_oif;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	/* Bound to the plane: never leave through another one. */
	if (bound && rt->dst.dev != ndev) {
		ip_rt_put(rt);
		return -ENETUNREACH;
	}

	iph = skb_push(skb, MRC_IPV4_HLEN);
	skb_reset_network_header(skb);
	iph->version = IPVERSION;
	iph->ihl = MRC_IPV4_HLEN / sizeof(u32);
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	/* An atomic datagram (DF): the ID carries nothing (RFC 6864). */
	iph->id = 0;
	iph->frag_off = htons(IP_DF);
	iph->ttl = MRC_DEFAULT_TTL;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = fl4.saddr;
	iph->daddr = fl4.daddr;
	iph->check = 0;

	skb_dst_set(skb, &rt->dst);
	skb->protocol = htons(ETH_P_IP);
	return 0;
}

static int mrc_xmit6(struct net_device *ndev, const struct mrc_xmit_addr *addr,
		     struct sk_buff *skb, u16 sport, u16 flow, u8 tclass)
{
	struct net *net = dev_net(ndev);
	struct flowi6 fl6 = {
		.flowi6_oif = ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.fl6_sport = htons(sport),
		.fl6_dport = htons(mrc_param_udp_port),
	};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	bool bound;

	memcpy(&fl6.saddr, addr->sgid->raw, sizeof(fl6.saddr));
	memcpy(&fl6.daddr, addr->dgid->raw, sizeof(fl6.daddr));
	/* A peer on this host: through loopback, as for IPv4. */
	if (ipv6_chk_addr(net, &fl6.daddr, NULL, 0))
		fl6.flowi6_oif = 0;
	bound = fl6.flowi6_oif;
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	/*
	 * With a source address given, IPv6 takes the outgoing interface as
	 * a preference only: a route through another plane must not do.
	 */
	if (bound && dst->dev != ndev) {
		dst_release(dst);
		return -ENETUNREACH;
	}

	ip6h = skb_push(skb, MRC_IPV6_HLEN);
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tclass, htonl(flow));
	ip6h->payload_len = htons(skb->len - MRC_IPV6_HLEN);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = MRC_DEFAULT_TTL;
	ip6h->saddr = fl6.saddr;
	ip6h->daddr = fl6.daddr;

	skb_dst_set(skb, dst);
	skb->protocol = htons(ETH_P_IPV6);
	return 0;
}

/**
 * mrc_net_xmit_addr - encapsulate and send one MRC packet
 * @dev: the sending device
 * @addr: the source and destination GIDs and their network type
 * @skb: from mrc_net_alloc_skb(), BTH and what follows filled in
 * @path: the packet's entropy value and port (plane)
 * @dscp: its DSCP class
 * @ect: mark it ECN-capable (data) or not (control)
 *
 * The route lookup is bound to the netdev of @path's port: the next hop and
 * its neighbour are that plane's.  A port that is not active (netdev down,
 * or admin-disabled) sends nothing; that, like a failed lookup, counts as
 * a route error.  Consumes @skb.  Softirq or process context; never sleeps.
 */
void mrc_net_xmit_addr(struct mrc_dev *dev, const struct mrc_xmit_addr *addr,
		       struct sk_buff *skb, const struct mrc_path *path,
		       u8 dscp, bool ect)
{
	u8 tos = (dscp << MRC_DSCP_SHIFT) | (ect ? INET_ECN_ECT_0 : 0);
	struct net_device *ndev = mrc_port_ndev(dev, path->port);
	unsigned int mrc_len = skb->len;
	struct udphdr *udph;
	int err;

	if (!ndev || !mrc_port_active(dev, path->port))
		goto route_error;

	/* The IP layer's control block shares skb->cb with mrc_tx_cb. */
	memset(skb->cb, 0, sizeof(skb->cb));
	mrc_put_udp(skb, path->sport);
	udph = udp_hdr(skb);
	/* The UDP length covers the ICRC, appended below. */
	udph->len = htons(skb->len + MRC_ICRC_LEN);

	if (addr->net_type == RDMA_NETWORK_IPV4)
		err = mrc_xmit4(ndev, addr, skb, path->sport, tos);
	else
		err = mrc_xmit6(ndev, addr, skb, path->sport, path->flow, tos);
	if (err)
		goto route_error;

	/* The IP length fields must count the ICRC before it is computed. */
	skb_put(skb, MRC_ICRC_LEN);
	if (ip_hdr(skb)->version == IPVERSION)
		ip_hdr(skb)->tot_len = htons(skb->len);
	else
		ipv6_hdr(skb)->payload_len = htons(skb->len - MRC_IPV6_HLEN);
	put_unaligned_le32(mrc_icrc(skb, udph, mrc_len),
			   skb_tail_pointer(skb) - MRC_ICRC_LEN);

	skb->ip_summed = CHECKSUM_NONE;
	mrc_counter_inc(dev, MRC_CNT_TX_PKTS);
	mrc_counter_add(dev, MRC_CNT_TX_BYTES, skb->len);
	if (ip_hdr(skb)->version == IPVERSION)
		ip_local_out(dev_net(ndev), NULL, skb);
	else
		ip6_local_out(dev_net(ndev), NULL, skb);
	return;

route_error:
	mrc_counter_inc(dev, MRC_CNT_TX_ROUTE_ERRORS);
	kfree_skb(skb);
}

/* Send one packet of @qp to its peer; see mrc_net_xmit_addr(). */
void mrc_net_xmit(struct mrc_qp *qp, struct sk_buff *skb,
		  const struct mrc_path *path, u8 dscp, bool ect)
{
	struct mrc_xmit_addr addr = {
		.sgid = &qp->path.sgid,
		.dgid = &qp->path.dgid,
		.net_type = qp->path.net_type,
	};

	mrc_net_xmit_addr(qp->dev, &addr, skb, path, dscp, ect);
}

static struct socket *mrc_udp_tunnel_open(struct net *net, bool ipv6)
{
	struct udp_port_cfg port_cfg = {};
	struct udp_tunnel_sock_cfg tnl_cfg = {};
	struct socket *sock;
	int err;

	if (ipv6) {
		port_cfg.family = AF_INET6;
		port_cfg.ipv6_v6only = 1;
		/* MRC sends UDP checksum 0, over IPv6 too. */
		port_cfg.use_udp6_tx_checksums = 0;
		port_cfg.use_udp6_rx_checksums = 0;
	} else {
		port_cfg.family = AF_INET;
		port_cfg.use_udp_checksums = 0;
	}
	port_cfg.local_udp_port = htons(mrc_param_udp_port);

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);

	tnl_cfg.encap_type = MRC_UDP_ENCAP_TYPE;
	tnl_cfg.encap_rcv = mrc_udp_encap_recv;
	setup_udp_tunnel_sock(net, sock, &tnl_cfg);
	return sock;
}

static void mrc_net_close(struct mrc_net *mn)
{
	if (mn->sock6) {
		udp_tunnel_sock_release(mn->sock6);
		mn->sock6 = NULL;
	}
	if (mn->sock4) {
		udp_tunnel_sock_release(mn->sock4);
		mn->sock4 = NULL;
	}
}

static int mrc_net_open(struct mrc_net *mn)
{
	struct socket *sock;

	sock = mrc_udp_tunnel_open(mn->net, false);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	mn->sock4 = sock;

	if (!ipv6_mod_enabled())
		return 0;
	sock = mrc_udp_tunnel_open(mn->net, true);
	if (IS_ERR(sock)) {
		mrc_net_close(mn);
		return PTR_ERR(sock);
	}
	mn->sock6 = sock;
	return 0;
}

/**
 * mrc_net_get - take a reference on the UDP tunnel of @net
 * @net: the namespace of the device's netdev
 *
 * Opens the namespace's sockets on first use.  Returns the entry or an
 * ERR_PTR (e.g. -EADDRINUSE when another driver holds the port).
 */
struct mrc_net *mrc_net_get(struct net *net)
{
	struct mrc_net *mn = net_generic(net, mrc_net_id);
	int err = 0;

	mutex_lock(&mrc_net_mutex);
	if (!mn->users)
		err = mrc_net_open(mn);
	if (!err)
		mn->users++;
	mutex_unlock(&mrc_net_mutex);

	return err ? ERR_PTR(err) : mn;
}

/* Drop a reference taken by mrc_net_get(); closes the sockets on the last. */
void mrc_net_put(struct mrc_net *mn)
{
	mutex_lock(&mrc_net_mutex);
	if (!WARN_ON(!mn->users) && !--mn->users)
		mrc_net_close(mn);
	mutex_unlock(&mrc_net_mutex);
}

static int __net_init mrc_net_ns_init(struct net *net)
{
	struct mrc_net *mn = net_generic(net, mrc_net_id);

	mn->net = net;
	return 0;
}

static void __net_exit mrc_net_ns_exit(struct net *net)
{
	struct mrc_net *mn = net_generic(net, mrc_net_id);

	/*
	 * Netdevs leave a dying namespace before its subsystems exit, and a
	 * device drops its reference when its netdev unregisters, so nobody
	 * should be left here.
	 */
	mutex_lock(&mrc_net_mutex);
	if (WARN_ON(mn->users)) {
		mn->users = 0;
		mrc_net_close(mn);
	}
	mutex_unlock(&mrc_net_mutex);
}

static struct pernet_operations mrc_net_ops = {
	.init = mrc_net_ns_init,
	.exit = mrc_net_ns_exit,
	.id = &mrc_net_id,
	.size = sizeof(struct mrc_net),
};

int mrc_net_init(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

void mrc_net_exit(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
