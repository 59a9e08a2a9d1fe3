/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: MRC wire format.  Header layouts, opcodes, field accessors and
 * sizes live here and nowhere else; Documentation/mrc/wire-format.rst
 * describes every field and which layouts are corroborated by public
 * implementations and which are this project's choice.
 *
 * A packet is  IP / UDP (dport udp_port, checksum 0) / BTH / ... / ICRC.
 * All multi-byte fields are big endian.
 */
#ifndef MRC_HDR_H
#define MRC_HDR_H

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/ipv6.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/udp.h>
#include <asm/byteorder.h>

/* ---- opcodes: the MRC space has the upper three bits 0b110 ---- */
enum mrc_opcode {
	MRC_OP_WRITE_FIRST		= 0xc6,
	MRC_OP_WRITE_MIDDLE		= 0xc7,
	MRC_OP_WRITE_LAST		= 0xc8,
	MRC_OP_WRITE_LAST_IMM		= 0xc9,
	MRC_OP_WRITE_ONLY		= 0xca,
	MRC_OP_WRITE_ONLY_IMM		= 0xcb,
	MRC_OP_ACK			= 0xd1,
	MRC_OP_EP_REQUEST		= 0xd8,
	MRC_OP_EP_RESPONSE		= 0xd9,
	MRC_OP_SACK			= 0xdc,
	MRC_OP_NACK			= 0xdd,
	MRC_OP_PROBE			= 0xde,
};

/* IBTA's RC opcodes, which MRC QPs refuse (mrc_opcode.c). */
#define MRC_OP_RC_FIRST			0x00
#define MRC_OP_RC_LAST			0x1f

/* ---- BTH, 12 bytes ---- */
struct mrc_bth {
	u8 opcode;
	u8 flags;		/* SE, M (unused: 0), PadCnt (2), TVer (4) = 0 */
	__be16 pkey;
	u8 rsvd_ecn;		/* reserved; masked in the ICRC */
	u8 dqpn[3];
	u8 ack_flags;		/* AckReq | R | rtx | tsh | reserved */
	u8 psn[3];
} __packed;

/* BTH.flags */
#define MRC_BTH_PADCNT			GENMASK(5, 4)
#define MRC_BTH_TVER			GENMASK(3, 0)
/* BTH.ack_flags */
#define MRC_BTH_ACKREQ			BIT(7)
#define MRC_BTH_RTX			BIT(5)
#define MRC_BTH_TSH			BIT(4)
#define MRC_BTH_ACK_FLAGS_KNOWN		(MRC_BTH_ACKREQ | MRC_BTH_RTX | \
					 MRC_BTH_TSH)

#define MRC_PSN_BITS			24
#define MRC_PSN_MASK			GENMASK(MRC_PSN_BITS - 1, 0)
/* Half the PSN space: a serial difference beyond it means "before". */
#define MRC_PSN_HALF			BIT(MRC_PSN_BITS - 1)
/* MSNs (AETH) are 24-bit serial numbers too. */
#define MRC_MSN_HALF			BIT(MRC_PSN_BITS - 1)
#define MRC_QPN_BITS			24
/* MRC reserves QP 0x2 for endpoint operations (ERTH, EETH). */
#define MRC_QPN_ENDPOINT		0x2

/* BTH P_Key: the key, and the full-membership bit. */
#define MRC_PKEY_KEY_MASK		0x7fff
#define MRC_PKEY_FULL_MEMBER		0x8000

static inline u32 mrc_get24(const u8 *p)
{
	return (p[0] << 16) | (p[1] << 8) | p[2];
}

static inline void mrc_put24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline u32 mrc_bth_psn(const struct mrc_bth *bth)
{
	return mrc_get24(bth->psn);
}

static inline u32 mrc_bth_dqpn(const struct mrc_bth *bth)
{
	return mrc_get24(bth->dqpn);
}

static inline u8 mrc_bth_padcnt(const struct mrc_bth *bth)
{
	return FIELD_GET(MRC_BTH_PADCNT, bth->flags);
}

static inline u8 mrc_bth_tver(const struct mrc_bth *bth)
{
	return FIELD_GET(MRC_BTH_TVER, bth->flags);
}

/* BTH.flags of a packet with @pad pad bytes (TVer 0, SE and M clear). */
static inline u8 mrc_bth_flags(unsigned int pad)
{
	return FIELD_PREP(MRC_BTH_PADCNT, pad);
}

/* ---- METH, 4 bytes, every request packet ---- */
struct mrc_meth {
	__be16 rqmsn;		/* WriteIMM sequence number (receive queue MSN) */
	__be16 msn;		/* message sequence number */
} __packed;

/* ---- TSETH, 4 bytes, iff BTH.tsh ---- */
struct mrc_tseth {
	__be16 tx_ts;		/* sender's clock, MRC_TS_UNIT_NS units */
	__be16 flags;		/* TSR (1) | reserved (11) | ftype (4) */
} __packed;

#define MRC_TSETH_TSR			BIT(15)
#define MRC_TSETH_FTYPE			GENMASK(3, 0)
/* The ftype of rdma_mrc's timestamps. */
#define MRC_TSETH_FTYPE_TS		1
#define MRC_TS_UNIT_NS			128
/* With TSR set (what rdma_mrc sends): units of 2^15 ns, about 32.8 us. */
#define MRC_TS_COARSE_SHIFT		15

/*
 * The one clock of every timestamp rdma_mrc sends (TSETH, PETH, ERTH): now,
 * in TSR units; and the flags word that goes with it.
 */
static inline u16 mrc_ts_now(void)
{
	return ktime_get_ns() >> MRC_TS_COARSE_SHIFT;
}

static inline __be16 mrc_ts_flags(void)
{
	return htons(MRC_TSETH_TSR |
		     FIELD_PREP(MRC_TSETH_FTYPE, MRC_TSETH_FTYPE_TS));
}

/*
 * Nanoseconds from timestamp @ts of ours to @now_ns (ktime_get_ns()); it
 * wraps at 2.1 s.
 */
static inline u32 mrc_ts_age_ns_at(u16 ts, u64 now_ns)
{
	return (u32)(u16)((u16)(now_ns >> MRC_TS_COARSE_SHIFT) - ts) <<
	       MRC_TS_COARSE_SHIFT;
}

/* Nanoseconds since timestamp @ts of ours was taken. */
static inline u32 mrc_ts_age_ns(u16 ts)
{
	return mrc_ts_age_ns_at(ts, ktime_get_ns());
}

/* ---- RETH, 16 bytes, every request packet ---- */
struct mrc_reth {
	__be64 va;		/* where this packet's payload goes */
	__be32 rkey;
	__be32 dmalen;		/* length of the whole operation */
} __packed;

/* ---- ImmDt, 4 bytes ---- */
struct mrc_immdt {
	__be32 imm;
} __packed;

/* ---- AETH, 4 bytes: the semantic ACK / NAK (opcode 0xd1) ---- */
struct mrc_aeth {
	__be32 smsn;		/* syndrome (8) | MSN (24) */
} __packed;

#define MRC_AETH_SYNDROME		GENMASK(31, 24)
#define MRC_AETH_MSN_MASK		GENMASK(23, 0)
/* Syndromes: IBTA's ACK with the credit field fixed at 0x1f, and NAKs. */
#define MRC_AETH_ACK			0x1f
#define MRC_AETH_NAK_INV_REQ		0x61
#define MRC_AETH_NAK_REM_ACCESS		0x62
#define MRC_AETH_NAK_REM_OP		0x63
#define MRC_AETH_TYPE_MASK		0x60
#define MRC_AETH_TYPE_NAK		0x60

static inline u8 mrc_aeth_syndrome(const struct mrc_aeth *aeth)
{
	return FIELD_GET(MRC_AETH_SYNDROME, ntohl(aeth->smsn));
}

static inline u32 mrc_aeth_msn(const struct mrc_aeth *aeth)
{
	return FIELD_GET(MRC_AETH_MSN_MASK, ntohl(aeth->smsn));
}

static inline __be32 mrc_aeth_smsn(u8 syndrome, u32 msn)
{
	return htonl(FIELD_PREP(MRC_AETH_SYNDROME, syndrome) |
		     FIELD_PREP(MRC_AETH_MSN_MASK, msn & MRC_AETH_MSN_MASK));
}

/* ---- SETH, 28 bytes, then CC_STATE, 8 bytes: Reliability SACK ---- */
struct mrc_seth {
	__be16 flags;		/* reserved | M (2) | reserved | PR (1) | rsvd */
	__be16 ack_psn_off;	/* signed; probe id when PR */
	__be32 entropy;		/* EV of the packet that triggered this SACK */
	__be16 scid;
	__be16 dcid;
	u8 dups;		/* ours: duplicates received, modulo 256 */
	u8 cack_psn[3];
	u8 cc;			/* cc_type (4) | cc_flags (4) */
	u8 mpr;			/* units of MRC_MPR_UNIT PSNs */
	__be16 sack_off;	/* signed: bitmap base = cack_psn + sack_off */
	__be64 bitmap;		/* bit i: PSN base + i arrived */
} __packed;

/* SETH.flags is big endian; byte 1 holds M in bits 6-5 and PR in bit 1. */
#define MRC_SETH_M			GENMASK(6, 5)
#define MRC_SETH_PR			BIT(1)

static inline u8 mrc_seth_m(const struct mrc_seth *seth)
{
	return FIELD_GET(MRC_SETH_M, ntohs(seth->flags));
}

static inline bool mrc_seth_pr(const struct mrc_seth *seth)
{
	return ntohs(seth->flags) & MRC_SETH_PR;
}

static inline __be16 mrc_seth_flags(u8 m, bool pr)
{
	return htons(FIELD_PREP(MRC_SETH_M, m) | (pr ? MRC_SETH_PR : 0));
}

enum mrc_sack_m {
	MRC_SACK_M_NONE		= 0,
	MRC_SACK_M_SKIP_ONCE	= 1,
	MRC_SACK_M_ALWAYS_SKIP	= 2,
};

#define MRC_SACK_BITMAP_BITS		64
#define MRC_MPR_UNIT			128	/* also the API's MPR unit */

struct mrc_cc_state {
	__be16 tx_ts;		/* reflected TSETH timestamp */
	__be16 ooo_count;	/* reserved (1) | ooo_count (15) */
	__be32 rcv;		/* rc (1) | rcv_cwnd_pen (7) | rcvd_bytes (24) */
} __packed;

#define MRC_CC_OOO			GENMASK(14, 0)	/* of ooo_count */
#define MRC_CC_RC			BIT(31)
#define MRC_CC_PEN			GENMASK(30, 24)
#define MRC_CC_RCVD_BYTES		GENMASK(23, 0)
#define MRC_CC_RCVD_BYTES_UNIT		256

/* CC_STATE.rcv reporting @bytes received and penalty @pen (rc clear). */
static inline __be32 mrc_cc_rcv(u64 bytes, u32 pen)
{
	return htonl(FIELD_PREP(MRC_CC_PEN, pen) |
		     FIELD_PREP(MRC_CC_RCVD_BYTES,
				DIV_ROUND_UP_ULL(bytes, MRC_CC_RCVD_BYTES_UNIT) &
				FIELD_MAX(MRC_CC_RCVD_BYTES)));
}

/* ---- NETH, 20 bytes: Reliability NACK ---- */
struct mrc_neth {
	__be16 rsvd0;
	u8 reason;
	u8 vendor;
	__be32 entropy;
	__be16 scid;
	__be16 dcid;
	u8 rsvd1;
	u8 nack_psn[3];
	u8 cc;
	u8 rsvd2;
	__be16 tx_ts;
} __packed;

enum mrc_nack_reason {
	MRC_NACK_TRIMMED		= 0x01,
	MRC_NACK_TRIMMED_LASTHOP	= 0x02,
	MRC_NACK_NO_BITMAP		= 0x06,
	MRC_NACK_NO_PKT_BUFFER		= 0x07,
	MRC_NACK_NO_RESOURCE		= 0x0a,
	MRC_NACK_PSN_OOR_WINDOW		= 0x0b,
	MRC_NACK_UNEXP_EVENT		= 0x19,
};

/* ---- PETH, 16 bytes: Reliability PROBE ---- */
struct mrc_peth {
	u8 rsvd0[3];
	u8 vendor;
	__be16 probe_id;
	__be16 rsvd1;
	__be16 scid;
	__be16 dcid;
	__be16 tx_ts;
	__be16 ts_flags;	/* TSR / ftype, as TSETH */
} __packed;

/* SETH/NETH entropy: the UDP source port is EV[31:16] (structured EV). */
#define MRC_EV_SPORT			GENMASK(31, 16)
#define MRC_EV_FLOW			GENMASK(15, 0)	/* flow label bits */
#define MRC_EV_FLOW_MASK		FIELD_MAX(MRC_EV_FLOW)

/* The 32-bit entropy field naming an EV: sport (31:16), flow label (15:0). */
static inline u32 mrc_ev_entropy(u16 sport, u16 flow)
{
	return FIELD_PREP(MRC_EV_SPORT, sport) | FIELD_PREP(MRC_EV_FLOW, flow);
}

/* IP: DSCP sits above the two ECN bits; an IPv4 GID is ::ffff:a.b.c.d. */
#define MRC_DSCP_SHIFT			2
#define MRC_GID_V4_OFFSET		12

/* ---- lengths ---- */
#define MRC_IPV4_HLEN		sizeof(struct iphdr)
#define MRC_IPV6_HLEN		sizeof(struct ipv6hdr)
#define MRC_UDP_HLEN		sizeof(struct udphdr)
#define MRC_BTH_LEN		sizeof(struct mrc_bth)
#define MRC_METH_LEN		sizeof(struct mrc_meth)
#define MRC_TSETH_LEN		sizeof(struct mrc_tseth)
#define MRC_RETH_LEN		sizeof(struct mrc_reth)
#define MRC_IMMDT_LEN		sizeof(struct mrc_immdt)
#define MRC_AETH_LEN		sizeof(struct mrc_aeth)
#define MRC_SETH_LEN		sizeof(struct mrc_seth)
#define MRC_CC_STATE_LEN	sizeof(struct mrc_cc_state)
#define MRC_NETH_LEN		sizeof(struct mrc_neth)
#define MRC_PETH_LEN		sizeof(struct mrc_peth)
#define MRC_ICRC_LEN		sizeof(__be32)
#define MRC_PAD_ALIGN		4

/* The most header bytes a data packet carries around its payload. */
#define MRC_MAX_DATA_OVERHEAD	(MRC_IPV6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + \
				 MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN + \
				 MRC_IMMDT_LEN + MRC_ICRC_LEN)

/*
 * What the receive path pulls into a packet's head: the UDP header, the
 * BTH and the longest header stack after it (SETH + CC_STATE, EETH), so
 * that every header is linear and the payload may stay in fragments.
 */
#define MRC_RECV_PULL_LEN	(MRC_UDP_HLEN + MRC_BTH_LEN + \
				 max3(MRC_SETH_LEN + MRC_CC_STATE_LEN, \
				      MRC_EETH_LEN, MRC_NETH_LEN))

/* ---- endpoint operations on QP 0x2 (0xd8, 0xd9) ---- */

/* ERTH, 16 bytes: Endpoint Request. */
struct mrc_erth {
	u8 rsvd0[2];
	u8 op;			/* reserved (6) | op (2) */
	u8 vendor;
	__be32 port_status;	/* Port Status Update: sender's ports down */
	__be32 rsvd1;
	__be16 tx_ts;		/* sender's clock, as TSETH */
	__be16 ts_flags;	/* TSR / ftype, as TSETH */
} __packed;

/* EETH, 36 bytes: Endpoint Response (layout: rdma_mrc's own). */
struct mrc_eeth {
	u8 rsvd0[2];
	u8 op;			/* SV (1) | reserved (5) | op (2) */
	u8 vendor;
	__be32 port_status;	/* the request's, echoed */
	__be32 entropy;		/* the request's EV, structured form */
	u8 req_port;		/* responder's port the request came in on */
	u8 rsvd1[3];
	__be16 req_ts;		/* the request's tx_ts, echoed */
	__be16 req_ts_flags;	/* ... and its TSR / ftype */
	__be32 svc_time;	/* ns from request arrival to response (SV) */
	u8 rsvd2[12];
} __packed;

#define MRC_EP_OP			GENMASK(1, 0)
#define MRC_EETH_SV			BIT(7)	/* svc_time is valid */

/* The op of an ERTH or EETH op byte. */
static inline u8 mrc_ep_op(u8 op_byte)
{
	return FIELD_GET(MRC_EP_OP, op_byte);
}

/* ERTH/EETH op values (the OCP API numbers its ops differently). */
enum mrc_ep_wire_op {
	MRC_EP_WIRE_PORT_STATUS		= 0,
	MRC_EP_WIRE_EV_PROBE		= 1,
};

/* Endpoint operations carry their request id in BTH PSN[15:0]. */
#define MRC_EP_ID_MASK			0xffff

#define MRC_ERTH_LEN		sizeof(struct mrc_erth)
#define MRC_EETH_LEN		sizeof(struct mrc_eeth)

#endif /* MRC_HDR_H */
