/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: a QP's entropy values (EVs), their per-slot state machine
 * (mrc_ev.c) and the events it reports to the controller.
 */
#ifndef MRC_EV_H
#define MRC_EV_H

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "mrc_param.h"

struct mrc_dev;
struct mrc_qp;

/*
 * One entropy value as the datapath sends it: the UDP source port, the low
 * 16 bits of the IPv6 flow label (structured EVs; 0 otherwise) and the port
 * (plane) of the device it leaves on, 1-based.
 */
struct mrc_path {
	u16 sport;
	u16 flow;
	u8 port;
};

/*
 * The state of one EV slot of a QP (mrc_ev.c).  @state is a uapi
 * MRC_EV_STATE_* bit.
 */
struct mrc_ev_slot {
	u32 since_us;			/* SKIP: entered; probed: last probe */
	u16 probe_first;		/* probed: its first probe's id */
	u16 score;			/* evidence against its path */
	u8 state;
	u8 flags;			/* MRC_EV_SLOT_* */
	u8 cause;			/* suspect: MRC_EV_REASON_* that made it */
	u8 tries;			/* ASSUMED_BAD: probes sent, unanswered */
};

/* Excluded, yet kept in use so that ev_min_active EVs stay usable. */
#define MRC_EV_SLOT_HELD	BIT(0)
/* ASSUMED_BAD or suspect, and probed since: probe_first is valid. */
#define MRC_EV_SLOT_PROBED	BIT(1)
/* SKIP for its score: GOOD again only once a probe on it is answered. */
#define MRC_EV_SLOT_SUSPECT	BIT(2)

/* The QP's EVs: slot i of its EV profile (or built-in set) is paths[i]. */
struct mrc_qp_evs {
	struct mrc_path paths[MRC_MAX_EV_COUNT];
	struct mrc_ev_slot slots[MRC_MAX_EV_COUNT];
	u16 count;
	u16 next;			/* the rotation's next slot */
	u16 min_active;
	u16 nskip;			/* slots in SKIP */
	u16 nbad;			/* slots in ASSUMED_BAD */
	struct timer_list timer;	/* SKIP hold ends, EV probes due */
	bool due;			/* the EV timer expired */
	/* Until the QP's next send: its ASSUMED_BAD EVs are not probed ... */
	bool parked;			/* ... as it was idle */
	bool starved;			/* ... nor any, the budget was spent */
	/* bit (id % MRC_EV_PROBE_IDS): probe id was an EV probe */
	DECLARE_BITMAP(probe_ids, MRC_EV_PROBE_IDS);
};

/*
 * The EV probes a device's QPs may send: one per MRC_EV_PROBE_DATA_PER
 * data packets the device sent, and MRC_EV_PROBE_FLOOR_PER_SEC, at most
 * MRC_EV_PROBE_BANK ahead (mrc_ev_probe_credit()).
 */
struct mrc_ev_budget {
	spinlock_t lock;		/* guards used */
	u64 used;			/* probes charged, on the same scale */
};

/* An EV state change, for mrc_nl_ev_event(). */
struct mrc_ev_event {
	u32 slot;			/* index in the QP's EV profile */
	u32 state;			/* MRC_EV_STATE_* of the uapi */
	u32 prev_state;
	u32 reason;			/* MRC_EV_REASON_* of the uapi */
	u32 usable;			/* the QP's usable EVs afterwards */
};

/* No slot to avoid (mrc_ev_select) or none known (mrc_ev_echo). */
#define MRC_EV_NONE		U32_MAX

/* Loading and reading a QP's EVs; each says what it locks. */
void mrc_ev_qp_load(struct mrc_qp *qp);
void mrc_ev_qp_reload(struct mrc_qp *qp);
u32 mrc_ev_qp_state(struct mrc_qp *qp, u32 slot);
u32 mrc_ev_qp_usable(struct mrc_qp *qp);
void mrc_ev_probe_ok(struct mrc_dev *dev, const union ib_gid *peer,
		     const struct mrc_path *ev);

/* The datapath's (requester, completer, responder): dp.lock held. */
void mrc_ev_setup(struct mrc_qp *qp);
void mrc_ev_stop(struct mrc_qp *qp);
u16 mrc_ev_select(struct mrc_qp *qp, u32 avoid);
void mrc_ev_echo(struct mrc_qp *qp, u32 entropy, u32 hint, u32 state,
		 u32 reason);
void mrc_ev_timeout(struct mrc_qp *qp, u32 slot);
void mrc_ev_loss(struct mrc_qp *qp, u32 slot);
void mrc_ev_unloss(struct mrc_qp *qp, u32 slot);
void mrc_ev_delivered(struct mrc_qp *qp, u32 slot);
void mrc_ev_probe_answer(struct mrc_qp *qp, u16 id, u32 entropy);
void mrc_ev_tick(struct mrc_qp *qp, struct sk_buff_head *txq);

#endif /* MRC_EV_H */
