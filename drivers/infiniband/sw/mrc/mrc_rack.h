/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the requester's loss detection (mrc_rack.c), in the spirit of
 * RFC 8985 (RACK-TLP): time, not a count of later PSNs, says a PSN is lost.
 */
#ifndef MRC_RACK_H
#define MRC_RACK_H

#include <linux/types.h>

struct mrc_qp;
struct mrc_txpkt;

/*
 * A PSN sent before the newest packet known delivered is lost once it is
 * older than that packet's RTT plus reo_wnd: at once if it was sent reo_wnd
 * before that packet, else when the reorder timer (the RTO timer, armed
 * earlier) says so.  reo_wnd is reo_mult quarters of the minimum RTT, at
 * most srtt + 4 rttvar.  A non-EV probe (the tail loss probe, the RTO's
 * probe) is such a packet too once its answer arrives: it consumes no PSN, yet it
 * travelled after everything sent before it.
 */
struct mrc_qp_rack {
	u32 xmit_us;			/* sent: newest packet known delivered */
	u32 rtt_us;			/* ... its RTT */
	bool valid;			/* ... xmit_us is set */
	u32 now_us;			/* the control packet being processed came */
	u32 min_rtt_us;			/* 0: no sample yet */
	u32 min_rtt_at_us;		/* when min_rtt_us was taken */
	u8 reo_mult;			/* reo_wnd in quarters of min_rtt */
	u8 peer_dups;			/* SETH.dups of the newest SACK */
	u16 losses;			/* rounds with losses since a widening */
	u32 loss_round_us;		/* the latest such round began */
	u32 widened_us;			/* when reo_mult last grew */
	u32 rtx_unproven;		/* resends that may yet prove spurious */
	u32 last_send_us;		/* newest data packet sent */
	u32 probe_sent_us;		/* the newest non-EV probe, ... */
	u16 probe_id;			/* ... its id, ... */
	bool probe_out;			/* ... unanswered so far */
	bool tlp_out;			/* a TLP went out for this flight */
	bool tlp_pending;		/* the timer asks for a TLP */
};

void mrc_rack_start(struct mrc_qp *qp);
void mrc_rack_begin(struct mrc_qp *qp);
void mrc_rack_delivered(struct mrc_qp *qp, const struct mrc_txpkt *tp);
void mrc_rack_rtt(struct mrc_qp *qp, u32 sample_us);
void mrc_rack_dups(struct mrc_qp *qp, u8 dups);
void mrc_rack_probe_sent(struct mrc_qp *qp, u16 id);
void mrc_rack_probe_answered(struct mrc_qp *qp, u16 id);
void mrc_rack_detect_loss(struct mrc_qp *qp);
u32 mrc_rack_reo_wnd_us(const struct mrc_qp *qp);
bool mrc_rack_tlp_due(struct mrc_qp *qp, u32 now);
void mrc_rack_arm_tlp(struct mrc_qp *qp);

#endif /* MRC_RACK_H */
