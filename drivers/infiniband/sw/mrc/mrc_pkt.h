/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: a received packet, as the receive path has parsed it for the
 * handler its opcode names (mrc_recv.c, mrc_opcode.c).
 */
#ifndef MRC_PKT_H
#define MRC_PKT_H

#include <linux/build_bug.h>
#include <linux/skbuff.h>
#include <linux/types.h>

#include "mrc_hdr.h"
#include "mrc_opcode.h"

struct mrc_dev;

/**
 * struct mrc_pkt - a received packet, parsed
 * @dev: the device it is for
 * @skb: the packet, data at its UDP header
 * @bth: its BTH
 * @hdr_len: bytes from the end of the BTH to the ICRC
 * @opcode: BTH opcode
 * @ack_flags: BTH AckReq / rtx / tsh byte
 * @psn: BTH PSN
 * @dqpn: BTH DestQP
 * @sport: the sender's EV: the UDP source port ...
 * @flow: ... and IPv6 flow label bits 15:0
 * @port: the port it arrived on, 1-based
 * @ce: it arrived ECN CE-marked
 * @h: the headers its opcode has, each where it is in the packet's head;
 *	NULL for those it has not (@h.at is the same, by enum mrc_hdr_id)
 * @payload: where its payload starts, an offset from @skb's data (the
 *	payload may be in fragments)
 * @paylen: payload bytes, pad excluded
 */
struct mrc_pkt {
	struct mrc_dev *dev;
	struct sk_buff *skb;
	struct mrc_bth *bth;
	unsigned int hdr_len;
	u8 opcode;
	u8 ack_flags;
	u32 psn;
	u32 dqpn;
	u16 sport;
	u16 flow;
	u8 port;
	bool ce;
	union {
		void *at[MRC_NUM_HDRS];
		struct {
			struct mrc_meth *meth;
			struct mrc_tseth *tseth;
			struct mrc_reth *reth;
			struct mrc_immdt *immdt;
			struct mrc_aeth *aeth;
			struct mrc_seth *seth;
			struct mrc_cc_state *cc_state;
			struct mrc_neth *neth;
			struct mrc_peth *peth;
			struct mrc_erth *erth;
			struct mrc_eeth *eeth;
		};
	} h;
	u32 payload;
	u32 paylen;
};

/* The EV a packet came on, as SACKs and NACKs echo it. */
static inline u32 mrc_pkt_entropy(const struct mrc_pkt *pkt)
{
	return mrc_ev_entropy(pkt->sport, pkt->flow);
}

#endif /* MRC_PKT_H */
