// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the UDP tunnel sockets, one IPv4 and one IPv6 socket per
 * network namespace that holds at least one mrc device.  Devices take a
 * reference on their netdev's namespace entry when created and drop it when
 * their netdev goes away, so a namespace with no mrc device has no socket
 * and the port stays free for others (e.g. rxe).
 */
#include <linux/module.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "mrc.h"

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

static int mrc_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	/*
	 * The receive path is not part of this build yet: consume the
	 * packet so that it does not reach the socket's queue.
	 */
	kfree_skb(skb);
	return 0;
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
