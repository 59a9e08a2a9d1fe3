// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the opcode table and the header parser that reads it.
 * Documentation/mrc/wire-format.rst describes the opcodes and headers; an
 * opcode without a row here is one rdma_mrc does not accept.
 */
#include <linux/bitops.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>

#include "mrc.h"
#include "mrc_opcode.h"
#include "mrc_pkt.h"

static const u8 mrc_hdr_lens[MRC_NUM_HDRS] = {
	[MRC_H_METH]		= MRC_METH_LEN,
	[MRC_H_TSETH]		= MRC_TSETH_LEN,
	[MRC_H_RETH]		= MRC_RETH_LEN,
	[MRC_H_IMMDT]		= MRC_IMMDT_LEN,
	[MRC_H_AETH]		= MRC_AETH_LEN,
	[MRC_H_SETH]		= MRC_SETH_LEN,
	[MRC_H_CC_STATE]	= MRC_CC_STATE_LEN,
	[MRC_H_NETH]		= MRC_NETH_LEN,
	[MRC_H_PETH]		= MRC_PETH_LEN,
	[MRC_H_ERTH]		= MRC_ERTH_LEN,
	[MRC_H_EETH]		= MRC_EETH_LEN,
};

/* struct mrc_pkt names each header where the parser puts it. */
#define MRC_PKT_HDR_IS(member, id)					\
	static_assert(offsetof(struct mrc_pkt, h.member) ==		\
		      offsetof(struct mrc_pkt, h.at[MRC_H_##id]))
MRC_PKT_HDR_IS(meth, METH);
MRC_PKT_HDR_IS(tseth, TSETH);
MRC_PKT_HDR_IS(reth, RETH);
MRC_PKT_HDR_IS(immdt, IMMDT);
MRC_PKT_HDR_IS(aeth, AETH);
MRC_PKT_HDR_IS(seth, SETH);
MRC_PKT_HDR_IS(cc_state, CC_STATE);
MRC_PKT_HDR_IS(neth, NETH);
MRC_PKT_HDR_IS(peth, PETH);
MRC_PKT_HDR_IS(erth, ERTH);
MRC_PKT_HDR_IS(eeth, EETH);
static_assert(sizeof(((struct mrc_pkt *)0)->h) ==
	      MRC_NUM_HDRS * sizeof(void *));

/* Every request packet: METH, TSETH when BTH.tsh, RETH. */
#define MRC_WRITE_HDRS	(MRC_HDR(METH) | MRC_HDR(TSETH) | MRC_HDR(RETH))
#define MRC_WRITE_OPF	(MRC_OPF_WRITE | MRC_OPF_PAYLOAD)

const struct mrc_opcode_info mrc_opcodes[256] = {
	/* IBTA RC opcodes name no MRC message: the responder refuses them. */
	[MRC_OP_RC_FIRST ... MRC_OP_RC_LAST] = {
		.name	= "RC",
		.flags	= MRC_OPF_RC,
		.qp_rcv	= mrc_resp_unexpected,
	},
	[MRC_OP_WRITE_FIRST] = {
		.name	= "WRITE_FIRST",
		.hdrs	= MRC_WRITE_HDRS,
		.flags	= MRC_WRITE_OPF | MRC_OPF_FIRST,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_WRITE_MIDDLE] = {
		.name	= "WRITE_MIDDLE",
		.hdrs	= MRC_WRITE_HDRS,
		.flags	= MRC_WRITE_OPF,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_WRITE_LAST] = {
		.name	= "WRITE_LAST",
		.hdrs	= MRC_WRITE_HDRS,
		.flags	= MRC_WRITE_OPF | MRC_OPF_LAST,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_WRITE_LAST_IMM] = {
		.name	= "WRITE_LAST_IMM",
		.hdrs	= MRC_WRITE_HDRS | MRC_HDR(IMMDT),
		.flags	= MRC_WRITE_OPF | MRC_OPF_LAST | MRC_OPF_IMM,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_WRITE_ONLY] = {
		.name	= "WRITE_ONLY",
		.hdrs	= MRC_WRITE_HDRS,
		.flags	= MRC_WRITE_OPF | MRC_OPF_FIRST | MRC_OPF_LAST,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_WRITE_ONLY_IMM] = {
		.name	= "WRITE_ONLY_IMM",
		.hdrs	= MRC_WRITE_HDRS | MRC_HDR(IMMDT),
		.flags	= MRC_WRITE_OPF | MRC_OPF_FIRST | MRC_OPF_LAST |
			  MRC_OPF_IMM,
		.qp_rcv	= mrc_resp_rcv,
	},
	[MRC_OP_ACK] = {
		.name	= "ACK",
		.hdrs	= MRC_HDR(AETH),
		.qp_rcv	= mrc_comp_rcv_ack,
	},
	[MRC_OP_EP_REQUEST] = {
		.name	= "EP_REQUEST",
		.hdrs	= MRC_HDR(ERTH),
		.flags	= MRC_OPF_EP | MRC_OPF_EXACT,
		.ep_rcv	= mrc_ep_rcv,
	},
	[MRC_OP_EP_RESPONSE] = {
		.name	= "EP_RESPONSE",
		.hdrs	= MRC_HDR(EETH),
		.flags	= MRC_OPF_EP | MRC_OPF_EXACT,
		.ep_rcv	= mrc_ep_rcv,
	},
	[MRC_OP_SACK] = {
		.name	= "SACK",
		.hdrs	= MRC_HDR(SETH) | MRC_HDR(CC_STATE),
		.qp_rcv	= mrc_comp_rcv_sack,
	},
	[MRC_OP_NACK] = {
		.name	= "NACK",
		.hdrs	= MRC_HDR(NETH),
		.qp_rcv	= mrc_comp_rcv_nack,
	},
	[MRC_OP_PROBE] = {
		.name	= "PROBE",
		.hdrs	= MRC_HDR(PETH),
		.qp_rcv	= mrc_resp_probe,
	},
};

/* The headers' length after @op's BTH; @tsh: BTH.tsh set (TSETH there). */
unsigned int mrc_op_hdr_len(u8 op, bool tsh)
{
	unsigned long hdrs = mrc_opcodes[op].hdrs;
	unsigned int id, len = 0;

	if (!tsh)
		hdrs &= ~MRC_HDR(TSETH);
	for_each_set_bit(id, &hdrs, MRC_NUM_HDRS)
		len += mrc_hdr_lens[id];
	return len;
}

/**
 * mrc_opcode_parse - find the headers @pkt's opcode says it has
 * @pkt: opcode, BTH and hdr_len set; its headers in the skb's head
 *
 * Sets @pkt->h and, for a request, the payload's offset and length
 * (pointers only: nothing past the BTH is read here).  Returns false when
 * the packet is too short for them (or, for an opcode of fixed length,
 * not exactly as long), or its pad does not fit; @pkt->h is then not to
 * be used.
 */
bool mrc_opcode_parse(struct mrc_pkt *pkt)
{
	const struct mrc_opcode_info *row = &mrc_opcodes[pkt->opcode];
	unsigned long hdrs = row->hdrs;
	u8 *start = (u8 *)(pkt->bth + 1), *p = start;
	unsigned int id, need, pad = 0;

	if (!(pkt->ack_flags & MRC_BTH_TSH))
		hdrs &= ~MRC_HDR(TSETH);
	/* One pass: where each header is, and so how long they are. */
	for_each_set_bit(id, &hdrs, MRC_NUM_HDRS) {
		pkt->h.at[id] = p;
		p += mrc_hdr_lens[id];
	}
	need = p - start;
	if (row->flags & MRC_OPF_PAYLOAD)
		pad = mrc_bth_padcnt(pkt->bth);
	if (pkt->hdr_len < need + pad)
		return false;
	if ((row->flags & MRC_OPF_EXACT) && pkt->hdr_len != need)
		return false;
	if (row->flags & MRC_OPF_PAYLOAD) {
		pkt->payload = p - pkt->skb->data;
		pkt->paylen = pkt->hdr_len - need - pad;
	}
	return true;
}

/**
 * mrc_opcode_parse_trimmed - where the headers of a trimmed packet are
 * @pkt: a data packet a switch trimmed: its headers through RETH are all
 *	it has left (no ImmDt, payload or ICRC); @pkt->hdr_len counts them
 *
 * Returns false when they are not all there.
 */
bool mrc_opcode_parse_trimmed(struct mrc_pkt *pkt)
{
	unsigned long hdrs = mrc_opcodes[pkt->opcode].hdrs &
			     (MRC_HDR(METH) | MRC_HDR(TSETH) | MRC_HDR(RETH));
	u8 *start = (u8 *)(pkt->bth + 1), *p = start;
	unsigned int id;

	if (!(pkt->ack_flags & MRC_BTH_TSH))
		hdrs &= ~MRC_HDR(TSETH);
	for_each_set_bit(id, &hdrs, MRC_NUM_HDRS) {
		pkt->h.at[id] = p;
		p += mrc_hdr_lens[id];
	}
	return pkt->h.reth && pkt->hdr_len >= p - start;
}
