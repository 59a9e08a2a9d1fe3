/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: what each opcode is.  One row per opcode (mrc_opcode.c): its
 * name, the headers that follow its BTH, what it means for its message,
 * and who receives it.  The receive path parses and dispatches from the
 * row; the builders size their packets from it; nothing else keeps a list
 * of opcodes.  The opcode values and header layouts are in mrc_hdr.h.
 */
#ifndef MRC_OPCODE_H
#define MRC_OPCODE_H

#include <linux/bits.h>
#include <linux/types.h>

#include "mrc_hdr.h"

struct mrc_pkt;
struct mrc_qp;
struct sk_buff_head;

/* The headers that may follow a BTH, in the order they stand on the wire. */
enum mrc_hdr_id {
	MRC_H_METH,
	MRC_H_TSETH,		/* only when BTH.tsh is set */
	MRC_H_RETH,
	MRC_H_IMMDT,
	MRC_H_AETH,
	MRC_H_SETH,
	MRC_H_CC_STATE,
	MRC_H_NETH,
	MRC_H_PETH,
	MRC_H_ERTH,
	MRC_H_EETH,
	MRC_NUM_HDRS,
};

#define MRC_HDR(id)		BIT(MRC_H_##id)

/* What an opcode means (struct mrc_opcode_info.flags). */
enum mrc_opcode_flags {
	MRC_OPF_WRITE	= BIT(0),	/* an RDMA WRITE request packet */
	MRC_OPF_FIRST	= BIT(1),	/* starts its message */
	MRC_OPF_LAST	= BIT(2),	/* ends it: carries its last byte */
	MRC_OPF_IMM	= BIT(3),	/* carries ImmDt */
	MRC_OPF_PAYLOAD	= BIT(4),	/* payload (and PadCnt pad) follow */
	MRC_OPF_EXACT	= BIT(5),	/* nothing may follow the headers */
	MRC_OPF_EP	= BIT(6),	/* an endpoint operation: QP 0x2 */
	MRC_OPF_RC	= BIT(7),	/* an IBTA RC opcode, not MRC's */
};

typedef void (*mrc_qp_rcv_fn)(struct mrc_qp *qp, struct mrc_pkt *pkt,
			      struct sk_buff_head *txq);
typedef void (*mrc_ep_rcv_fn)(struct mrc_pkt *pkt);

/**
 * struct mrc_opcode_info - one opcode
 * @name: as the wire-format document names it; NULL: not an opcode that
 *	rdma_mrc accepts (its packets are dropped as bad opcodes)
 * @hdrs: MRC_HDR() of the headers after the BTH
 * @flags: MRC_OPF_*
 * @qp_rcv: receives it for the QP it names
 * @ep_rcv: receives it for the device (endpoint operations)
 */
struct mrc_opcode_info {
	const char *name;
	u16 hdrs;
	u16 flags;
	mrc_qp_rcv_fn qp_rcv;
	mrc_ep_rcv_fn ep_rcv;
};

extern const struct mrc_opcode_info mrc_opcodes[256];

static inline bool mrc_op_known(u8 op)
{
	return mrc_opcodes[op].name;
}

static inline bool mrc_op_is(u8 op, u16 flags)
{
	return (mrc_opcodes[op].flags & flags) == flags;
}

static inline bool mrc_op_is_write(u8 op)
{
	return mrc_op_is(op, MRC_OPF_WRITE);
}

static inline bool mrc_op_has_imm(u8 op)
{
	return mrc_op_is(op, MRC_OPF_IMM);
}

/* The packet ends its message (carries the message's last byte). */
static inline bool mrc_op_is_last(u8 op)
{
	return mrc_op_is(op, MRC_OPF_LAST);
}

/* The packet is its message's only one. */
static inline bool mrc_op_is_only(u8 op)
{
	return mrc_op_is(op, MRC_OPF_FIRST | MRC_OPF_LAST);
}

static inline bool mrc_op_is_ep(u8 op)
{
	return mrc_op_is(op, MRC_OPF_EP);
}

unsigned int mrc_op_hdr_len(u8 op, bool tsh);
bool mrc_opcode_parse(struct mrc_pkt *pkt);
bool mrc_opcode_parse_trimmed(struct mrc_pkt *pkt);

#endif /* MRC_OPCODE_H */
