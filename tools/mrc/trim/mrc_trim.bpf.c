// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-trim: the egress half of a trimming switch, as a tc (clsact egress,
 * direct-action) program.  It keeps a virtual queue of the link's
 * configured rate: every packet adds its length, time drains it.  When a
 * packet finds the queue past the threshold and it is MRC data of a
 * trimmable DSCP, the program cuts its payload (and ICRC) off, keeping the
 * headers through RETH, fixes the IP and UDP lengths and the IPv4 header
 * checksum, marks it DSCP_TRIMMED (or _LASTHOP) and raises its priority,
 * so that the receiver learns of it at once instead of after a timeout.
 * Everything else passes unchanged.  The loader is mrc-trim.c;
 * Documentation/mrc/trimming.rst tells how to use it.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc_trim.h"

#define NSEC_PER_SEC		1000000000ULL
/* Drain at most a second's worth at once: no overflow in rate x time. */
#define MAX_DRAIN_NS		NSEC_PER_SEC
#define BITS_PER_BYTE		8
#define DSCP_SHIFT		2
#define ECN_MASK		0x03
#define IPV4_IHL_NOOPT		5

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_trim_cfg);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_trim_vq);
} vq SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_trim_stats);
} stats SEC(".maps");

/*
 * Drain the virtual queue to now and add @len; true if it was past the
 * threshold before (the packet then waits behind more than it).
 */
static __always_inline int vq_enqueue(struct mrc_trim_vq *q,
				      const struct mrc_trim_cfg *c, __u32 len,
				      __u32 *over)
{
	__u64 now = bpf_ktime_get_ns(), gone, elapsed;

	bpf_spin_lock(&q->lock);
	elapsed = now - q->last_ns;
	if (elapsed > MAX_DRAIN_NS)
		elapsed = MAX_DRAIN_NS;
	gone = elapsed * (c->rate_bps / BITS_PER_BYTE) / NSEC_PER_SEC;
	q->bytes = q->bytes > gone ? q->bytes - gone : 0;
	q->last_ns = now;
	*over = q->bytes > c->threshold;
	q->bytes += len;
	bpf_spin_unlock(&q->lock);
	return 0;
}

/* Take back what a packet added, less what it still weighs after a trim. */
static __always_inline void vq_shrink(struct mrc_trim_vq *q, __u32 by)
{
	bpf_spin_lock(&q->lock);
	q->bytes = q->bytes > by ? q->bytes - by : 0;
	bpf_spin_unlock(&q->lock);
}

/* The MRC headers a trim keeps, from the BTH at @bth. */
static __always_inline __u32 mrc_keep(const __u8 *bth)
{
	__u32 keep = MRC_TRIM_BTH_LEN + MRC_TRIM_METH_LEN + MRC_TRIM_RETH_LEN;

	if (bth[MRC_TRIM_BTH_ACK_FLAGS] & MRC_TRIM_BTH_TSH)
		keep += MRC_TRIM_TSETH_LEN;
	return keep;
}

static __always_inline int trimmable(const struct mrc_trim_cfg *c, __u8 dscp,
				     __u8 opcode)
{
	return (dscp == c->dscp_trimmable || dscp == c->dscp_trimmable_retx) &&
	       opcode >= MRC_TRIM_OP_DATA_FIRST && opcode <= MRC_TRIM_OP_DATA_LAST;
}

SEC("tc")
int mrc_trim(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct mrc_trim_stats *st;
	struct mrc_trim_cfg *c;
	struct mrc_trim_vq *q;
	__u32 key = 0, l3_off = sizeof(*eth), l4_off, over = 0, keep, len, orig;
	__u8 dscp, *bth;
	struct udphdr *udp;
	int v4;

	c = bpf_map_lookup_elem(&cfg, &key);
	q = bpf_map_lookup_elem(&vq, &key);
	st = bpf_map_lookup_elem(&stats, &key);
	if (!c || !q || !st || !c->rate_bps)
		return TC_ACT_OK;
	st->pkts++;
	vq_enqueue(q, c, skb->len, &over);

	if ((void *)(eth + 1) > end)
		return TC_ACT_OK;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = data + l3_off;

		if ((void *)(ip + 1) > end || ip->ihl != IPV4_IHL_NOOPT ||
		    ip->protocol != IPPROTO_UDP)
			return TC_ACT_OK;
		dscp = ip->tos >> DSCP_SHIFT;
		l4_off = l3_off + sizeof(*ip);
		v4 = 1;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = data + l3_off;

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_UDP)
			return TC_ACT_OK;
		dscp = ((ip6->priority << 4) | (ip6->flow_lbl[0] >> 4)) >> DSCP_SHIFT;
		l4_off = l3_off + sizeof(*ip6);
		v4 = 0;
	} else {
		return TC_ACT_OK;
	}
	udp = data + l4_off;
	bth = (__u8 *)(udp + 1);
	if (bth + MRC_TRIM_BTH_LEN > (__u8 *)end ||
	    udp->dest != bpf_htons(c->port) || !trimmable(c, dscp, bth[0]))
		return TC_ACT_OK;
	st->mrc_data++;
	if (!over)
		return TC_ACT_OK;
	st->over++;
	if (!c->enabled)
		return TC_ACT_OK;

	keep = mrc_keep(bth);
	len = l4_off + sizeof(*udp) + keep;
	orig = skb->len;
	if (len >= orig)
		return TC_ACT_OK;
	if (bpf_skb_change_tail(skb, len, 0)) {
		st->trim_failed++;
		return TC_ACT_OK;
	}
	/* The queue holds what is left of it. */
	vq_shrink(q, orig - len);

	/* The pointers are stale after the resize: read the headers again. */
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if (v4) {
		struct iphdr *ip = data + l3_off;
		__u16 old_len, new_len, old_tos, new_tos;
		__u8 tos;

		if ((void *)(ip + 1) > end)
			return TC_ACT_SHOT;
		udp = (void *)(ip + 1);
		if ((void *)(udp + 1) > end)
			return TC_ACT_SHOT;
		/* The checksum follows each 16-bit word that changes. */
		tos = (c->dscp_trimmed << DSCP_SHIFT) | (ip->tos & ECN_MASK);
		old_len = ip->tot_len;
		new_len = bpf_htons(len - l3_off);
		old_tos = bpf_htons(ip->tos);
		new_tos = bpf_htons(tos);
		ip->tot_len = new_len;
		ip->tos = tos;
		udp->len = bpf_htons(sizeof(*udp) + keep);
		udp->check = 0;
		bpf_l3_csum_replace(skb, l3_off + offsetof(struct iphdr, check),
				    old_len, new_len, sizeof(__u16));
		bpf_l3_csum_replace(skb, l3_off + offsetof(struct iphdr, check),
				    old_tos, new_tos, sizeof(__u16));
	} else {
		struct ipv6hdr *ip6 = data + l3_off;
		__u8 tc;

		if ((void *)(ip6 + 1) > end)
			return TC_ACT_SHOT;
		udp = (void *)(ip6 + 1);
		if ((void *)(udp + 1) > end)
			return TC_ACT_SHOT;
		tc = (c->dscp_trimmed << DSCP_SHIFT) |
		     ((ip6->flow_lbl[0] >> 4) & ECN_MASK);
		ip6->priority = tc >> 4;
		ip6->flow_lbl[0] = (ip6->flow_lbl[0] & 0x0f) | ((tc & 0x0f) << 4);
		ip6->payload_len = bpf_htons(sizeof(*udp) + keep);
		udp->len = bpf_htons(sizeof(*udp) + keep);
		udp->check = 0;
	}
	skb->priority = c->priority;
	st->trimmed++;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
