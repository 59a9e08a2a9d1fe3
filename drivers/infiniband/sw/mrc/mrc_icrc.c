// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the invariant CRC, computed as RoCEv2 defines it: CRC-32 over
 * eight bytes of ones (standing for the absent IB LRH), the IP header with
 * its variant fields set to ones, the UDP header with its checksum set to
 * ones, the BTH with its reserved byte 4 set to ones, and everything after
 * the BTH up to the ICRC.
 */
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>

#include "mrc.h"
#include "mrc_hdr.h"

#define MRC_ICRC_LRH_LEN	8
#define MRC_ICRC_SEED		0xffffffff
#define MRC_ICRC_ONES		0xff	/* a masked byte */
#define MRC_IPV6_VER_MASKED	htonl(0x6fffffff)	/* TC, flow label */

static __wsum mrc_icrc_update(const void *buf, int len, __wsum crc)
{
	return (__force __wsum)crc32_le((__force u32)crc, buf, len);
}

static __wsum mrc_icrc_combine(__wsum crc, __wsum crc2, int offset, int len)
{
	return (__force __wsum)crc32_le_combine((__force u32)crc,
						(__force u32)crc2, len);
}

/* CRC-32 as skb_checksum() walks it: over the head and every fragment. */
static const struct skb_checksum_ops mrc_icrc_ops = {
	.update = mrc_icrc_update,
	.combine = mrc_icrc_combine,
};

/**
 * mrc_icrc - the ICRC of the MRC packet that follows @udph
 * @skb: the packet, its network header set, linear up to the end of the
 *	 BTH; the rest may be in fragments
 * @udph: its UDP header
 * @mrc_len: bytes from the BTH up to (not including) the ICRC
 */
u32 mrc_icrc(const struct sk_buff *skb, const struct udphdr *udph,
	     unsigned int mrc_len)
{
	u8 pseudo[MRC_ICRC_LRH_LEN + MRC_IPV6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN];
	const u8 *bth = (const u8 *)(udph + 1);
	struct mrc_bth *mbth;
	struct udphdr *mudp;
	unsigned int n;
	u32 crc;

	memset(pseudo, MRC_ICRC_ONES, MRC_ICRC_LRH_LEN);
	n = MRC_ICRC_LRH_LEN;
	if (ip_hdr(skb)->version == 4) {
		struct iphdr *ip = (struct iphdr *)(pseudo + n);

		memcpy(ip, ip_hdr(skb), MRC_IPV4_HLEN);
		ip->tos = MRC_ICRC_ONES;
		ip->ttl = MRC_ICRC_ONES;
		ip->check = CSUM_MANGLED_0;
		n += MRC_IPV4_HLEN;
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(pseudo + n);

		memcpy(ip6, ipv6_hdr(skb), MRC_IPV6_HLEN);
		*(__be32 *)ip6 = MRC_IPV6_VER_MASKED;
		ip6->hop_limit = MRC_ICRC_ONES;
		n += MRC_IPV6_HLEN;
	}
	mudp = (struct udphdr *)(pseudo + n);
	memcpy(mudp, udph, MRC_UDP_HLEN);
	mudp->check = CSUM_MANGLED_0;
	n += MRC_UDP_HLEN;
	mbth = (struct mrc_bth *)(pseudo + n);
	memcpy(mbth, bth, MRC_BTH_LEN);
	mbth->rsvd_ecn = MRC_ICRC_ONES;
	n += MRC_BTH_LEN;

	crc = crc32_le(MRC_ICRC_SEED, pseudo, n);
	crc = (__force u32)__skb_checksum(skb, bth + MRC_BTH_LEN - skb->data,
					  mrc_len - MRC_BTH_LEN,
					  (__force __wsum)crc, &mrc_icrc_ops);
	return ~crc;
}
