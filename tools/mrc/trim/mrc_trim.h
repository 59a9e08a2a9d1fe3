/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc-trim: a packet-trimming switch for MRC test fabrics, as a tc egress
 * program (mrc_trim.bpf.c) and its loader (mrc-trim.c).  What the two
 * share: the configuration the loader writes into the program's map, the
 * statistics the program keeps, and the few MRC wire facts the program
 * needs (Documentation/mrc/wire-format.rst; the driver's mrc_hdr.h is the
 * reference, this header copies only what trimming reads).
 */
#ifndef MRC_TRIM_H
#define MRC_TRIM_H

#include <linux/bpf.h>
#include <linux/types.h>

/* MRC over UDP: the destination port, and the headers a trim keeps. */
#define MRC_TRIM_UDP_PORT	4791
#define MRC_TRIM_BTH_LEN	12
#define MRC_TRIM_METH_LEN	4
#define MRC_TRIM_TSETH_LEN	4
#define MRC_TRIM_RETH_LEN	16
/* BTH byte 8 (ack_flags): a TSETH follows the METH. */
#define MRC_TRIM_BTH_ACK_FLAGS	8
#define MRC_TRIM_BTH_TSH	0x10
/* The data opcodes (RDMA WRITE First ... Only with Immediate). */
#define MRC_TRIM_OP_DATA_FIRST	0xc6
#define MRC_TRIM_OP_DATA_LAST	0xcb

/* DSCP defaults (MRC-FACTS, "DSCP classes"). */
#define MRC_TRIM_DSCP_TRIMMABLE	8
#define MRC_TRIM_DSCP_TRIMMABLE_RETX 16
#define MRC_TRIM_DSCP_TRIMMED	24
#define MRC_TRIM_DSCP_TRIMMED_LASTHOP 26

/* The configuration: one entry of the program's "cfg" map. */
struct mrc_trim_cfg {
	__u64 rate_bps;		/* the link's rate, bits per second */
	__u32 threshold;	/* virtual queue bytes past which to trim */
	__u32 port;		/* UDP destination port of MRC */
	__u32 priority;		/* skb->priority of a trimmed packet */
	__u8 dscp_trimmable;	/* data of this DSCP may be trimmed ... */
	__u8 dscp_trimmable_retx; /* ... and of this one */
	__u8 dscp_trimmed;	/* a trimmed packet's DSCP */
	__u8 enabled;		/* 0: count, never trim */
};

/* The virtual queue: one entry of the "vq" map. */
struct mrc_trim_vq {
	struct bpf_spin_lock lock;
	__u64 bytes;		/* in the virtual queue */
	__u64 last_ns;		/* when it was last drained */
};

/* Statistics, per CPU: one entry of the "stats" map. */
struct mrc_trim_stats {
	__u64 pkts;		/* every packet seen */
	__u64 mrc_data;		/* MRC data packets of a trimmable DSCP */
	__u64 over;		/* packets that found the queue past threshold */
	__u64 trimmed;		/* MRC data packets trimmed */
	__u64 trim_failed;	/* trims the kernel refused */
};

#endif /* MRC_TRIM_H */
