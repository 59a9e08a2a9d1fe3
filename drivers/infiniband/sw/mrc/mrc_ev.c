// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the entropy values (EVs) of a QP and their states.
 *
 * A QP holds its EVs in slots: the built-in set, or the EVs of its EV
 * profile (slot i is the profile's slot i).  Each slot has a state, a uapi
 * MRC_EV_STATE_* bit:
 *
 *   GOOD         the only state the requester sprays data on;
 *   SKIP         after an ECN echo (SACK M=SKIP_ONCE) or a TRIMMED NACK,
 *                until the device's SKIP hold time has passed; or
 *                "suspect", when its score reached MRC_EV_SUSPECT_SCORE,
 *                until a probe sent on it once the hold is over is
 *                answered;
 *   ASSUMED_BAD  when its score reached ev_bad_score (losses, timeouts and
 *                unanswered probes attributed to it) or after a SACK
 *                M=ALWAYS_SKIP, until a probe sent on it is answered (or
 *                an endpoint EV probe on it succeeds);
 *   DENIED       set and cleared by the controller only (profile reload).
 *
 * When one more exclusion would leave fewer than ev_min_active EVs usable,
 * the least bad excluded EV stays in use ("held").  Every state change is
 * reported to the netlink family, which filters and rate-limits.  The
 * per-QP EV timer wakes the requester's tasklet when a SKIP hold ends or an
 * excluded EV is due for its next probe; nothing else is timed.
 *
 * The score is the evidence against an EV's path: a loss the SACKs show
 * (ev_loss_pts), a timeout, a trim, an ECN echo, a probe unanswered add to
 * it; each delivery of a packet sent on it takes one off.  One random loss
 * among 64 EVs makes its EV suspect for a probe's round trip; an EV whose
 * every packet is lost is condemned by the probes that follow its first
 * loss, never carrying data meanwhile.
 *
 * Everything runs under qp->dp.lock unless said otherwise.
 */
#include <linux/bitmap.h>
#include <linux/jhash.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"
#include "mrc_ev.h"
#include "mrc_hdr.h"

unsigned int mrc_param_ev_min_active = MRC_DEFAULT_EV_MIN_ACTIVE;
module_param_named(ev_min_active, mrc_param_ev_min_active, uint, 0644);
MODULE_PARM_DESC(ev_min_active, "EVs of the built-in set a QP keeps usable at least (default 8)");

unsigned int mrc_param_ev_probe_rtos = MRC_DEFAULT_EV_PROBE_RTOS;
module_param_named(ev_probe_rtos, mrc_param_ev_probe_rtos, uint, 0644);
MODULE_PARM_DESC(ev_probe_rtos, "An ASSUMED_BAD EV is probed every this many RTOs (default 4; 1 ms to 1 s)");

unsigned int mrc_param_ev_loss_pts = MRC_DEFAULT_EV_LOSS_PTS;
module_param_named(ev_loss_pts, mrc_param_ev_loss_pts, uint, 0644);
MODULE_PARM_DESC(ev_loss_pts, "Score a packet the SACKs show lost adds to its EV (default 8: suspect; 0: none; ev_bad_score: condemned at once)");

unsigned int mrc_param_ev_bad_score = MRC_DEFAULT_EV_BAD_SCORE;
module_param_named(ev_bad_score, mrc_param_ev_bad_score, uint, 0644);
MODULE_PARM_DESC(ev_bad_score, "Score at which an EV is ASSUMED_BAD (default 32: a loss and three unanswered probes)");

/* The highest port bit of a peer-down mask. */
#define MRC_EV_PORT_BITS	32

static u32 mrc_ev_value(const struct mrc_path *p)
{
	return mrc_ev_entropy(p->sport, p->flow);
}

static bool mrc_ev_path_eq(const struct mrc_path *a, const struct mrc_path *b)
{
	return a->sport == b->sport && a->flow == b->flow && a->port == b->port;
}

/* The EV's port is up here and not reported down by the peer. */
/* Ports the QP's peer reported down (its entry is read locklessly). */
static u32 mrc_ev_peer_down(struct mrc_qp *qp)
{
	struct mrc_peer *peer;
	u32 down = 0;

	rcu_read_lock();
	peer = rcu_dereference(qp->peer);
	if (peer)
		down = READ_ONCE(peer->down_mask);
	rcu_read_unlock();
	return down;
}

static bool mrc_ev_port_ok(struct mrc_qp *qp, u32 port)
{
	if (port >= MRC_EV_PORT_BITS || (mrc_ev_peer_down(qp) & BIT(port)))
		return false;
	return mrc_port_active(qp->dev, port);
}

/* The slot's state lets the requester send on it. */
static bool mrc_ev_in_use(const struct mrc_ev_slot *s)
{
	return s->state == MRC_EV_STATE_GOOD || (s->flags & MRC_EV_SLOT_HELD);
}

static bool mrc_ev_sendable(struct mrc_qp *qp, u32 slot)
{
	return mrc_ev_in_use(&qp->dp.ev.slots[slot]) &&
	       mrc_ev_port_ok(qp, qp->dp.ev.paths[slot].port);
}

static u32 mrc_ev_count_usable(struct mrc_qp *qp)
{
	u32 i, n = 0;

	for (i = 0; i < qp->dp.ev.count; i++)
		n += mrc_ev_sendable(qp, i);
	return n;
}

static void mrc_ev_emit(struct mrc_qp *qp, u32 slot, u32 prev, u32 reason)
{
	struct mrc_ev_event ev = {
		.slot = slot,
		.state = qp->dp.ev.slots[slot].state,
		.prev_state = prev,
		.reason = reason,
		.usable = mrc_ev_count_usable(qp),
	};

	mrc_nl_ev_event(qp, &ev);
}

/* @a is less bad than @b: SKIP before ASSUMED_BAD, then the older one. */
static bool mrc_ev_less_bad(const struct mrc_ev_slot *a,
			    const struct mrc_ev_slot *b)
{
	if (a->state != b->state)
		return a->state == MRC_EV_STATE_SKIP;
	return (s32)(a->since_us - b->since_us) < 0;
}

/* Keep ev_min_active EVs usable: hold excluded ones, least bad first. */
static void mrc_ev_hold(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 usable = mrc_ev_count_usable(qp);
	u32 i, best;

	while (usable < dp->ev.min_active) {
		best = MRC_EV_NONE;
		for (i = 0; i < dp->ev.count; i++) {
			struct mrc_ev_slot *s = &dp->ev.slots[i];

			if ((s->state != MRC_EV_STATE_SKIP &&
			     s->state != MRC_EV_STATE_ASSUMED_BAD) ||
			    (s->flags & MRC_EV_SLOT_HELD) ||
			    !mrc_ev_port_ok(qp, dp->ev.paths[i].port))
				continue;
			if (best == MRC_EV_NONE ||
			    mrc_ev_less_bad(s, &dp->ev.slots[best]))
				best = i;
		}
		if (best == MRC_EV_NONE)
			return;
		dp->ev.slots[best].flags |= MRC_EV_SLOT_HELD;
		usable++;
		mrc_counter_inc(qp->dev, MRC_CNT_EV_MIN_ACTIVE_HOLDS);
		mrc_ev_emit(qp, best, dp->ev.slots[best].state,
			    MRC_EV_REASON_MIN_ACTIVE);
	}
}

/* An EV is usable again: let go of the holds no longer needed, worst first. */
static void mrc_ev_release(struct mrc_qp *qp)
{
	static const u8 order[] = {
		MRC_EV_STATE_ASSUMED_BAD, MRC_EV_STATE_SKIP,
	};
	struct mrc_qp_dp *dp = &qp->dp;
	u32 usable = mrc_ev_count_usable(qp);
	u32 i, k;

	for (k = 0; k < ARRAY_SIZE(order); k++) {
		for (i = 0; i < dp->ev.count; i++) {
			struct mrc_ev_slot *s = &dp->ev.slots[i];
			bool counted;

			if (!(s->flags & MRC_EV_SLOT_HELD) || s->state != order[k])
				continue;
			counted = mrc_ev_port_ok(qp, dp->ev.paths[i].port);
			if (counted && usable <= dp->ev.min_active)
				return;
			s->flags &= ~MRC_EV_SLOT_HELD;
			usable -= counted;
		}
	}
}

/*
 * How long an ASSUMED_BAD EV waits between probes, and a suspect one for
 * its probe's answer: ev_probe_rtos RTOs.  One RTO (1 ms at the floor) is
 * shorter than a probe's round trip through a busy responder, and
 * condemned paths that worked.
 */
static u32 mrc_ev_probe_ival(const struct mrc_qp_dp *dp)
{
	return clamp_t(u64, (u64)dp->rto.timeout_us * mrc_param_ev_probe_rtos,
		       MRC_EV_PROBE_MIN_US, MRC_EV_PROBE_MAX_US);
}

/* When an EV's next step is due, @hold and @ival given. */
struct mrc_ev_times {
	u32 now;
	u32 hold;			/* SKIP hold */
	u32 ival;			/* probe interval, and a probe's answer */
	bool idle;			/* nothing outstanding: no ASSUMED_BAD probes */
	bool starved;			/* the device's budget is spent: no probes */
};

static void mrc_ev_times(struct mrc_qp *qp, struct mrc_ev_times *t)
{
	t->now = mrc_now_us();
	t->hold = mrc_profile_skip_hold_us(qp->dev);
	t->ival = mrc_ev_probe_ival(&qp->dp);
	t->idle = !mrc_req_outstanding(qp);
	t->starved = false;
}

/*
 * The wait after an ASSUMED_BAD EV's latest probe: the interval, doubled
 * for each earlier probe that went unanswered (MRC_EV_PROBE_BACKOFF_*).
 * A path that stays broken costs fewer probes the longer it stays so,
 * and a burst that condemns many EVs of many QPs at once (a receiver
 * overrun, not a broken path) does not keep the receiver overrun with
 * their probes.
 */
static u32 mrc_ev_backoff(const struct mrc_ev_slot *s, u32 ival)
{
	u32 shift = min_t(u32, s->tries ? s->tries - 1 : 0,
			  MRC_EV_PROBE_BACKOFF_SHIFT);

	return min_t(u32, ival << shift, max_t(u32, ival,
					       MRC_EV_PROBE_BACKOFF_MAX_US));
}

/*
 * Microseconds until slot @s needs the tasklet (0: now; U32_MAX: never):
 * its SKIP hold ends, or it is due for a probe (a suspect one once its
 * hold is over, and again ev_probe_rtos RTOs after each unanswered one;
 * an ASSUMED_BAD one at once, then backing off, and only while the QP has
 * something outstanding: an idle QP's broken paths wait for its next
 * send, when the EVs it could send on matter again).
 */
static u32 mrc_ev_wait(const struct mrc_ev_slot *s, const struct mrc_ev_times *t)
{
	bool probed = s->flags & MRC_EV_SLOT_PROBED;
	u32 elapsed = t->now - s->since_us, period;

	if (s->state == MRC_EV_STATE_SKIP && (s->flags & MRC_EV_SLOT_SUSPECT) &&
	    t->starved)
		return U32_MAX;
	if (s->state == MRC_EV_STATE_SKIP)
		period = probed ? t->ival : t->hold;
	else if (s->state == MRC_EV_STATE_ASSUMED_BAD && (t->idle || t->starved))
		return U32_MAX;
	else if (s->state == MRC_EV_STATE_ASSUMED_BAD)
		period = probed ? mrc_ev_backoff(s, t->ival) : 0;
	else
		return U32_MAX;
	return elapsed < period ? period - elapsed : 0;
}

/*
 * Wake the tasklet when the next SKIP hold ends or the next probe is due
 * (none while the QP is parked: its next send runs the tick).
 */
static void mrc_ev_arm_at(struct mrc_qp *qp, const struct mrc_ev_times *t)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 wait = U32_MAX, i;
	unsigned long expires;

	for (i = 0; i < dp->ev.count; i++)
		wait = min(wait, mrc_ev_wait(&dp->ev.slots[i], t));
	if (wait == U32_MAX)
		return;
	expires = jiffies + max(1UL, usecs_to_jiffies(wait));
	if (!timer_pending(&dp->ev.timer) ||
	    time_before(expires, dp->ev.timer.expires))
		mod_timer(&dp->ev.timer, expires);
}

static void mrc_ev_arm(struct mrc_qp *qp)
{
	struct mrc_ev_times t;

	if (!qp->dp.ev.nskip && !qp->dp.ev.nbad)
		return;
	mrc_ev_times(qp, &t);
	t.starved = qp->dp.ev.starved;
	mrc_ev_arm_at(qp, &t);
}

/*
 * The device's EV probe budget (struct mrc_ev_budget) has a probe left.
 * Probes of broken paths are paid for by the data the device sends: a
 * burst that condemns many EVs of many QPs at once (a receiver overrun,
 * seen as losses everywhere) would otherwise have them probe many times
 * faster than their data, overrunning the receiver further, until no
 * answer and no resend gets through.  The floor keeps paths probed while
 * little data flows.  Called under the QP's lock, bottom halves off.
 */
static bool mrc_ev_probe_credit(struct mrc_dev *dev)
{
	struct mrc_ev_budget *b = &dev->ev_budget;
	u64 earned, sent = atomic64_read(&dev->counters[MRC_CNT_TX_DATA_PKTS]);
	bool ok;

	earned = div_u64(sent, MRC_EV_PROBE_DATA_PER) +
		 div_u64(get_jiffies_64() * MRC_EV_PROBE_FLOOR_PER_SEC, HZ);
	spin_lock(&b->lock);
	/* Never more than the bank ahead (a device idle for long, at first). */
	if (b->used + MRC_EV_PROBE_BANK < earned)
		b->used = earned - MRC_EV_PROBE_BANK;
	ok = b->used < earned;
	if (ok)
		b->used++;
	spin_unlock(&b->lock);
	return ok;
}

/* Move slot @slot to @state for @reason, and tell the controller. */
static void mrc_ev_set(struct mrc_qp *qp, u32 slot, u32 state, u32 reason)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_ev_slot *s = &dp->ev.slots[slot];
	u32 prev = s->state;
	u32 now = mrc_now_us();

	if (prev == state)
		return;
	dp->ev.nskip -= prev == MRC_EV_STATE_SKIP;
	dp->ev.nbad -= prev == MRC_EV_STATE_ASSUMED_BAD;
	s->state = state;
	s->flags = 0;
	s->tries = 0;
	s->since_us = now;
	switch (state) {
	case MRC_EV_STATE_SKIP:
		dp->ev.nskip++;
		mrc_counter_inc(qp->dev, MRC_CNT_EV_SKIP);
		break;
	case MRC_EV_STATE_ASSUMED_BAD:
		dp->ev.nbad++;
		mrc_counter_inc(qp->dev, MRC_CNT_EV_ASSUMED_BAD);
		break;
	case MRC_EV_STATE_GOOD:
		if (reason == MRC_EV_REASON_HOLD_EXPIRED)
			mrc_counter_inc(qp->dev, MRC_CNT_EV_SKIP_EXPIRED);
		else if (reason == MRC_EV_REASON_PROBE)
			mrc_counter_inc(qp->dev, MRC_CNT_EV_RECOVERED);
		/* A probe across it answered: the evidence is void. */
		if (reason == MRC_EV_REASON_PROBE)
			s->score = 0;
		break;
	default:
		break;
	}
	mrc_ev_emit(qp, slot, prev, reason);
	if (state == MRC_EV_STATE_GOOD) {
		mrc_ev_release(qp);
		return;
	}
	mrc_ev_hold(qp);
	if (state == MRC_EV_STATE_ASSUMED_BAD) {
		/* Its first probe goes out at once. */
		dp->ev.due = true;
		mrc_req_kick(qp);
	} else {
		mrc_ev_arm(qp);
	}
}

/* A SKIP slot whose hold time has passed is GOOD again. */
static void mrc_ev_expire(struct mrc_qp *qp, u32 slot, u32 now, u32 hold)
{
	struct mrc_ev_slot *s = &qp->dp.ev.slots[slot];

	if (s->state == MRC_EV_STATE_SKIP && !(s->flags & MRC_EV_SLOT_SUSPECT) &&
	    now - s->since_us >= hold)
		mrc_ev_set(qp, slot, MRC_EV_STATE_GOOD,
			   MRC_EV_REASON_HOLD_EXPIRED);
}

/**
 * mrc_ev_select - the slot the next packet of @qp goes on
 * @qp: the QP
 * @avoid: a slot not to use if another will do (MRC_EV_NONE: none)
 *
 * The next slot of the rotation that is in use (GOOD, or held for
 * ev_min_active) on a port that is active and that the peer did not report
 * down.  With none, a non-DENIED one on such a port whatever its state, and
 * failing that any slot: sending on a doubtful EV beats not sending.
 */
u16 mrc_ev_select(struct mrc_qp *qp, u32 avoid)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 n = dp->ev.count, now = 0, hold = 0, k, slot;
	u32 spare = MRC_EV_NONE, doubtful = MRC_EV_NONE;

	if (!n)
		return 0;
	if (dp->ev.nskip) {
		now = mrc_now_us();
		hold = mrc_profile_skip_hold_us(qp->dev);
	}
	for (k = 0; k < n; k++) {
		slot = dp->ev.next;
		dp->ev.next = slot + 1 < n ? slot + 1 : 0;
		if (dp->ev.nskip)
			mrc_ev_expire(qp, slot, now, hold);
		if (!mrc_ev_port_ok(qp, dp->ev.paths[slot].port))
			continue;
		if (!mrc_ev_in_use(&dp->ev.slots[slot])) {
			if (doubtful == MRC_EV_NONE &&
			    dp->ev.slots[slot].state != MRC_EV_STATE_DENIED)
				doubtful = slot;
			continue;
		}
		if (slot == avoid && n > 1) {
			spare = slot;
			continue;
		}
		return slot;
	}
	if (spare != MRC_EV_NONE)
		return spare;
	if (doubtful != MRC_EV_NONE)
		return doubtful;
	return dp->ev.next;
}

/* The slot whose EV is @entropy: @hint if it is, else the first. */
static u32 mrc_ev_find(struct mrc_qp_dp *dp, u32 entropy, u32 hint)
{
	u32 i;

	if (hint < dp->ev.count && mrc_ev_value(&dp->ev.paths[hint]) == entropy)
		return hint;
	for (i = 0; i < dp->ev.count; i++)
		if (mrc_ev_value(&dp->ev.paths[i]) == entropy)
			return i;
	return MRC_EV_NONE;
}

/**
 * mrc_ev_echo - the responder named an EV in a SACK or NACK
 * @qp: the QP
 * @entropy: the echoed entropy (UDP source port << 16 | flow label bits)
 * @hint: the slot the triggering packet went on, if known
 * @state: MRC_EV_STATE_SKIP (ECN, trim) or _ASSUMED_BAD (ALWAYS_SKIP)
 * @reason: MRC_EV_REASON_*
 *
 * A worse state replaces a better one; a new SKIP signal on a SKIP EV
 * starts its hold time again.
 */
void mrc_ev_echo(struct mrc_qp *qp, u32 entropy, u32 hint, u32 state,
		 u32 reason)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 slot = mrc_ev_find(dp, entropy, hint);
	struct mrc_ev_slot *s;

	if (slot == MRC_EV_NONE)
		return;
	s = &dp->ev.slots[slot];
	if (reason == MRC_EV_REASON_ECN || reason == MRC_EV_REASON_TRIM)
		s->score = min_t(u32, s->score + (reason == MRC_EV_REASON_ECN ?
				 MRC_EV_PTS_ECN : MRC_EV_PTS_TRIM), MRC_EV_SCORE_MAX);
	switch (s->state) {
	case MRC_EV_STATE_GOOD:
		mrc_ev_set(qp, slot, state, reason);
		break;
	case MRC_EV_STATE_SKIP:
		/* A suspect's clock times its probe: left alone. */
		if (state != MRC_EV_STATE_SKIP)
			mrc_ev_set(qp, slot, state, reason);
		else if (!(s->flags & MRC_EV_SLOT_SUSPECT))
			s->since_us = mrc_now_us();
		break;
	default:
		break;
	}
}

/* The counters of score crossings, by what made them. */
static void mrc_ev_count_crossing(struct mrc_qp *qp, bool bad, u32 cause)
{
	bool timeout = cause == MRC_EV_REASON_TIMEOUT;

	if (cause != MRC_EV_REASON_LOSS && !timeout)
		return;
	if (bad)
		mrc_counter_inc(qp->dev, timeout ? MRC_CNT_EV_BAD_TIMEOUT :
				MRC_CNT_EV_BAD_LOSS);
	else
		mrc_counter_inc(qp->dev, timeout ? MRC_CNT_EV_SUSPECT_TIMEOUT :
				MRC_CNT_EV_SUSPECT_LOSS);
}

/**
 * mrc_ev_evidence - @pts more against slot @slot's path
 * @qp: the QP
 * @slot: the slot (out of range: ignored)
 * @pts: score to add
 * @cause: MRC_EV_REASON_* of the evidence
 *
 * At ev_bad_score a GOOD or SKIP EV is ASSUMED_BAD (the event names the
 * cause that made it suspect, if it was); at MRC_EV_SUSPECT_SCORE a GOOD
 * or SKIP one becomes suspect.  ECN and trims add to the score (a loss
 * after them condemns sooner) but change no state by themselves: they
 * already SKIP the EV, and congestion is not a broken path.
 */
static void mrc_ev_evidence(struct mrc_qp *qp, u32 slot, u32 pts, u32 cause)
{
	struct mrc_ev_slot *s;
	u32 bad = max(READ_ONCE(mrc_param_ev_bad_score), 1U);

	if (slot >= qp->dp.ev.count || !pts)
		return;
	s = &qp->dp.ev.slots[slot];
	s->score = min_t(u32, s->score + pts, MRC_EV_SCORE_MAX);
	if (s->state != MRC_EV_STATE_GOOD && s->state != MRC_EV_STATE_SKIP)
		return;
	if (s->flags & MRC_EV_SLOT_SUSPECT)
		cause = s->cause;
	else if (cause != MRC_EV_REASON_LOSS && cause != MRC_EV_REASON_TIMEOUT)
		return;
	if (s->score >= bad) {
		mrc_ev_count_crossing(qp, true, cause);
		mrc_ev_set(qp, slot, MRC_EV_STATE_ASSUMED_BAD, cause);
		return;
	}
	if (s->score < MRC_EV_SUSPECT_SCORE || (s->flags & MRC_EV_SLOT_SUSPECT))
		return;
	mrc_ev_count_crossing(qp, false, cause);
	mrc_ev_set(qp, slot, MRC_EV_STATE_SKIP, cause);
	/* Already SKIP (ECN, trim): no state change, the hold restarts. */
	s->since_us = mrc_now_us();
	s->flags = (s->flags & MRC_EV_SLOT_HELD) | MRC_EV_SLOT_SUSPECT;
	s->cause = cause;
	mrc_ev_arm(qp);
}

/*
 * A loss or timeout on a suspect EV tells nothing new: what it lost was
 * sent before it became suspect, or while it was held for ev_min_active
 * (when many EVs are suspect at once: counting those would condemn the
 * held ones for random losses).  A suspect is judged by its probes.
 */
static bool mrc_ev_news(struct mrc_qp *qp, u32 slot)
{
	return !(qp->dp.ev.slots[slot].flags & MRC_EV_SLOT_SUSPECT);
}

/* A retransmission timeout, attributed to the EV in slot @slot. */
void mrc_ev_timeout(struct mrc_qp *qp, u32 slot)
{
	if (slot < qp->dp.ev.count && mrc_ev_news(qp, slot))
		mrc_ev_evidence(qp, slot, MRC_EV_PTS_TIMEOUT,
				MRC_EV_REASON_TIMEOUT);
}

/* The SACKs show the packet last sent on slot @slot silently lost. */
void mrc_ev_loss(struct mrc_qp *qp, u32 slot)
{
	if (slot < qp->dp.ev.count && mrc_ev_news(qp, slot))
		mrc_ev_evidence(qp, slot, READ_ONCE(mrc_param_ev_loss_pts),
				MRC_EV_REASON_LOSS);
}

/*
 * The packet whose loss was put on slot @slot arrived after all, before
 * it was resent: the loss's points come off, and a suspect made so by a
 * loss whose score falls below the threshold is GOOD again.
 */
void mrc_ev_unloss(struct mrc_qp *qp, u32 slot)
{
	struct mrc_ev_slot *s;
	u32 pts = READ_ONCE(mrc_param_ev_loss_pts);

	if (slot >= qp->dp.ev.count)
		return;
	s = &qp->dp.ev.slots[slot];
	s->score -= min_t(u32, s->score, pts);
	if (s->state != MRC_EV_STATE_SKIP || !(s->flags & MRC_EV_SLOT_SUSPECT) ||
	    s->cause != MRC_EV_REASON_LOSS || s->score >= MRC_EV_SUSPECT_SCORE)
		return;
	mrc_counter_inc(qp->dev, MRC_CNT_EV_SUSPECT_SPURIOUS);
	mrc_ev_set(qp, slot, MRC_EV_STATE_GOOD, MRC_EV_REASON_SPURIOUS);
}

/* A packet last sent on slot @slot was delivered: one off its score. */
void mrc_ev_delivered(struct mrc_qp *qp, u32 slot)
{
	if (slot < qp->dp.ev.count && qp->dp.ev.slots[slot].score)
		qp->dp.ev.slots[slot].score--;
}

/*
 * A SACK with PR set answered probe @id; @entropy is the EV the probe
 * arrived on.  An ASSUMED_BAD EV that sent it since it became bad is GOOD.
 */
void mrc_ev_probe_answer(struct mrc_qp *qp, u16 id, u32 entropy)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 i;

	if (!test_and_clear_bit(id % MRC_EV_PROBE_IDS, dp->ev.probe_ids))
		return;
	mrc_counter_inc(qp->dev, MRC_CNT_EV_PROBES_ANSWERED);
	for (i = 0; i < dp->ev.count; i++) {
		struct mrc_ev_slot *s = &dp->ev.slots[i];

		if ((s->state != MRC_EV_STATE_ASSUMED_BAD &&
		     s->state != MRC_EV_STATE_SKIP) ||
		    !(s->flags & MRC_EV_SLOT_PROBED) ||
		    mrc_ev_value(&dp->ev.paths[i]) != entropy)
			continue;
		/* id in [probe_first, the newest probe id] */
		if ((u16)(id - s->probe_first) >
		    (u16)(dp->rto.probe_id - s->probe_first))
			continue;
		mrc_ev_set(qp, i, MRC_EV_STATE_GOOD, MRC_EV_REASON_PROBE);
	}
}

/* Slot @s needs a probe now, the timer says: is it (still) due one? */
static bool mrc_ev_probe_due(struct mrc_qp *qp, u32 slot,
			     const struct mrc_ev_times *t)
{
	struct mrc_ev_slot *s = &qp->dp.ev.slots[slot];

	if (s->state == MRC_EV_STATE_SKIP && !(s->flags & MRC_EV_SLOT_SUSPECT))
		return false;
	if (mrc_ev_wait(s, t))
		return false;
	if (s->state == MRC_EV_STATE_SKIP && (s->flags & MRC_EV_SLOT_PROBED)) {
		/* A suspect's probe went unanswered in time. */
		mrc_ev_evidence(qp, slot, MRC_EV_PTS_PROBE_LOST, s->cause);
		/* Now ASSUMED_BAD, it is probed at once all the same. */
	}
	return s->state == MRC_EV_STATE_SKIP ||
	       s->state == MRC_EV_STATE_ASSUMED_BAD;
}

/**
 * mrc_ev_tick - the EV timer's work, from the requester's tasklet
 * @qp: the QP, sending (RTS or SQD)
 * @txq: where probes are queued
 *
 * Ends the SKIP holds that are over, judges the suspect EVs' probes and
 * probes the suspect and ASSUMED_BAD EVs that are due (at most
 * MRC_EV_PROBE_BURST per run), then re-arms the timer.
 */
void mrc_ev_tick(struct mrc_qp *qp, struct sk_buff_head *txq)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 budget = MRC_EV_PROBE_BURST, i;
	struct mrc_ev_times t;

	dp->ev.due = false;
	dp->ev.parked = false;
	dp->ev.starved = false;
	if (!dp->ev.nskip && !dp->ev.nbad)
		return;
	mrc_ev_times(qp, &t);
	for (i = 0; i < dp->ev.count; i++) {
		struct mrc_ev_slot *s = &dp->ev.slots[i];

		mrc_ev_expire(qp, i, t.now, t.hold);
		if (!budget || t.starved || mrc_ev_wait(s, &t))
			continue;
		if (!mrc_ev_probe_credit(qp->dev)) {
			/* Until the QP's next send (the budget grows by those). */
			t.starved = true;
			mrc_counter_inc(qp->dev, MRC_CNT_EV_PROBES_DEFERRED);
			continue;
		}
		if (!mrc_ev_probe_due(qp, i, &t))
			continue;
		if (!mrc_req_ev_probe(qp, i, txq))
			break;
		if (!(s->flags & MRC_EV_SLOT_PROBED)) {
			s->probe_first = dp->rto.probe_id;
			s->flags |= MRC_EV_SLOT_PROBED;
		}
		if (s->state == MRC_EV_STATE_ASSUMED_BAD && s->tries < U8_MAX)
			s->tries++;
		s->since_us = t.now;
		budget--;
	}
	dp->ev.parked = t.idle && dp->ev.nbad;
	dp->ev.starved = t.starved;
	mrc_ev_arm_at(qp, &t);
}

static void mrc_ev_timer(struct timer_list *t)
{
	struct mrc_qp *qp = from_timer(qp, t, dp.ev.timer);
	struct mrc_qp_dp *dp = &qp->dp;

	spin_lock_bh(&dp->lock);
	if (!dp->stopped) {
		dp->ev.due = true;
		tasklet_schedule(&dp->task);
	}
	spin_unlock_bh(&dp->lock);
}

void mrc_ev_setup(struct mrc_qp *qp)
{
	timer_setup(&qp->dp.ev.timer, mrc_ev_timer, 0);
}

/* Destroy: dp.stopped is set; process context, dp.lock not held. */
void mrc_ev_stop(struct mrc_qp *qp)
{
	del_timer_sync(&qp->dp.ev.timer);
}

/*
 * The built-in EV set: distinct UDP source ports, spread per QP, dealt
 * over the device's ports in turn.  Returns how many.
 */
static u32 mrc_ev_builtin(struct mrc_qp *qp, struct mrc_path *evs)
{
	u32 seed = jhash(qp->path.dgid.raw, sizeof(qp->path.dgid.raw),
			 qp->ibqp.qp_num);
	u32 step = jhash_2words(qp->ibqp.qp_num, qp->attr.dest_qp_num, seed);
	u32 nports = max_t(u32, rdma_end_port(&qp->dev->ibdev), 1);
	u32 i, n;

	/* An odd step visits every port of the power-of-two span once. */
	step |= 1;
	n = clamp_t(u32, mrc_param_ev_count, 1, MRC_MAX_EV_COUNT);
	for (i = 0; i < n; i++) {
		evs[i].sport = MRC_EV_SPORT_BASE +
			       ((seed + i * step) % MRC_EV_SPORT_SPAN);
		evs[i].flow = 0;
		evs[i].port = i % nports + 1;
	}
	return n;
}

/* The QP's EVs, DENIED slots and ev_min_active: its profile's or built-in. */
static u32 mrc_ev_fetch(struct mrc_qp *qp, struct mrc_path *evs,
			unsigned long *denied, u32 *min_active)
{
	u32 n;

	bitmap_zero(denied, MRC_MAX_EV_COUNT);
	*min_active = 0;
	n = mrc_profile_qp_evs(qp, evs, denied, MRC_MAX_EV_COUNT, min_active);
	if (n)
		return min_t(u32, n, MRC_MAX_EV_COUNT);
	bitmap_zero(denied, MRC_MAX_EV_COUNT);
	*min_active = mrc_param_ev_min_active;
	return mrc_ev_builtin(qp, evs);
}

static void mrc_ev_recount(struct mrc_qp_dp *dp)
{
	u32 i;

	dp->ev.nskip = 0;
	dp->ev.nbad = 0;
	for (i = 0; i < dp->ev.count; i++) {
		dp->ev.nskip += dp->ev.slots[i].state == MRC_EV_STATE_SKIP;
		dp->ev.nbad += dp->ev.slots[i].state ==
			       MRC_EV_STATE_ASSUMED_BAD;
	}
}

/*
 * The QP's entropy values, every one GOOD but the profile's DENIED ones.
 * Set when the path is known (INIT -> RTR): the responder's control
 * packets use them too.  Called with dp.lock held.
 */
void mrc_ev_qp_load(struct mrc_qp *qp)
{
	DECLARE_BITMAP(denied, MRC_MAX_EV_COUNT);
	struct mrc_qp_dp *dp = &qp->dp;
	u32 min_active, i;

	dp->ev.count = mrc_ev_fetch(qp, dp->ev.paths, denied, &min_active);
	for (i = 0; i < dp->ev.count; i++) {
		memset(&dp->ev.slots[i], 0, sizeof(dp->ev.slots[i]));
		dp->ev.slots[i].state = test_bit(i, denied) ?
					MRC_EV_STATE_DENIED :
					MRC_EV_STATE_GOOD;
	}
	dp->ev.min_active = clamp_t(u32, min_active, 1, dp->ev.count);
	dp->ev.next = 0;
	dp->ev.nskip = 0;
	dp->ev.nbad = 0;
	dp->ev.due = false;
	dp->ev.parked = false;
	dp->ev.starved = false;
	bitmap_zero(dp->ev.probe_ids, MRC_EV_PROBE_IDS);
}

/* What a reload works from, too big for the stack. */
struct mrc_ev_reload {
	struct mrc_path evs[MRC_MAX_EV_COUNT];
	DECLARE_BITMAP(denied, MRC_MAX_EV_COUNT);
	u8 prev[MRC_MAX_EV_COUNT];
};

/**
 * mrc_ev_qp_reload - the QP's EV profile changed (EV array, DENIED set)
 * @qp: the QP
 *
 * Slots whose EV is unchanged keep their state (DENIED follows the
 * profile); a slot with a new EV starts GOOD (or DENIED).  Each change of
 * a slot's state is an event with reason CONTROLLER.  Any context; takes
 * dp.lock, and calls mrc_profile_qp_evs() before taking it: the caller
 * holds neither dp.lock nor the lock mrc_profile_qp_evs() takes.
 */
void mrc_ev_qp_reload(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	struct mrc_ev_reload *r;
	u32 min_active, n, i, now;
	bool excluded = false;

	r = kzalloc(sizeof(*r), GFP_ATOMIC);
	if (!r)
		return;
	spin_lock_bh(&dp->lock);
	/* Before RTR there is no path yet: INIT -> RTR loads the EVs. */
	if (!dp->ev.count || qp->state < IB_QPS_RTR || dp->stopped) {
		spin_unlock_bh(&dp->lock);
		kfree(r);
		return;
	}
	spin_unlock_bh(&dp->lock);

	n = mrc_ev_fetch(qp, r->evs, r->denied, &min_active);

	spin_lock_bh(&dp->lock);
	if (!dp->ev.count || dp->stopped)
		goto out;
	now = mrc_now_us();
	for (i = 0; i < n; i++) {
		struct mrc_ev_slot *s = &dp->ev.slots[i];
		u32 want = test_bit(i, r->denied) ? MRC_EV_STATE_DENIED : 0;

		r->prev[i] = i < dp->ev.count ? s->state : 0;
		if (i >= dp->ev.count || !mrc_ev_path_eq(&dp->ev.paths[i], &r->evs[i])) {
			dp->ev.paths[i] = r->evs[i];
			memset(s, 0, sizeof(*s));
			s->state = want ? want : MRC_EV_STATE_GOOD;
			s->since_us = now;
		} else if (want && s->state != want) {
			memset(s, 0, sizeof(*s));
			s->state = want;
			s->since_us = now;
		} else if (!want && s->state == MRC_EV_STATE_DENIED) {
			s->state = MRC_EV_STATE_GOOD;
			s->since_us = now;
		}
	}
	dp->ev.count = n;
	dp->ev.min_active = clamp_t(u32, min_active, 1, n);
	if (dp->ev.next >= n)
		dp->ev.next = 0;
	mrc_ev_recount(dp);
	for (i = 0; i < n; i++) {
		if (!r->prev[i] || r->prev[i] == dp->ev.slots[i].state)
			continue;
		mrc_ev_emit(qp, i, r->prev[i], MRC_EV_REASON_CONTROLLER);
		excluded |= dp->ev.slots[i].state != MRC_EV_STATE_GOOD;
	}
	mrc_ev_release(qp);
	if (excluded)
		mrc_ev_hold(qp);
	mrc_ev_arm(qp);
out:
	spin_unlock_bh(&dp->lock);
	kfree(r);
}

/*
 * State of the EV in slot @slot of @qp, as a MRC_EV_STATE_* bit; GOOD for
 * a slot the QP does not use.  Lockless: a snapshot.
 */
u32 mrc_ev_qp_state(struct mrc_qp *qp, u32 slot)
{
	if (slot >= READ_ONCE(qp->dp.ev.count))
		return MRC_EV_STATE_GOOD;
	return READ_ONCE(qp->dp.ev.slots[slot].state);
}

/* EVs @qp currently sends on.  Lockless: a snapshot. */
u32 mrc_ev_qp_usable(struct mrc_qp *qp)
{
	struct mrc_qp_dp *dp = &qp->dp;
	u32 i, n = 0, nevs = min_t(u32, READ_ONCE(dp->ev.count), MRC_MAX_EV_COUNT);
	u32 down = mrc_ev_peer_down(qp);

	for (i = 0; i < nevs; i++) {
		u8 state = READ_ONCE(dp->ev.slots[i].state);
		u8 flags = READ_ONCE(dp->ev.slots[i].flags);
		u8 port = READ_ONCE(dp->ev.paths[i].port);

		if ((state == MRC_EV_STATE_GOOD || (flags & MRC_EV_SLOT_HELD)) &&
		    port < MRC_EV_PORT_BITS && !(down & BIT(port)) &&
		    mrc_port_active(qp->dev, port))
			n++;
	}
	return n;
}

/* @qp is connected to @peer. */
static bool mrc_ev_qp_peer(struct mrc_qp *qp, const union ib_gid *peer)
{
	return !qp->dp.stopped && qp->dp.ev.count &&
	       qp->state >= IB_QPS_RTR && qp->state != IB_QPS_ERR &&
	       !memcmp(qp->path.dgid.raw, peer->raw, sizeof(peer->raw));
}

/**
 * mrc_ev_probe_ok - an endpoint EV probe towards @peer on @ev was answered
 * @dev: the device
 * @peer: the peer's GID
 * @ev: the EV (and port) the probe went on
 *
 * Every QP of @dev towards @peer holding @ev ASSUMED_BAD makes it GOOD.
 * Any context; takes each QP's dp.lock (hold none).
 */
void mrc_ev_probe_ok(struct mrc_dev *dev, const union ib_gid *peer,
		     const struct mrc_path *ev)
{
	unsigned long index = 0;
	struct mrc_qp *qp;
	u32 i;

	while ((qp = mrc_qp_next(dev, &index))) {
		spin_lock_bh(&qp->dp.lock);
		if (mrc_ev_qp_peer(qp, peer)) {
			for (i = 0; i < qp->dp.ev.count; i++)
				if (qp->dp.ev.slots[i].state ==
				    MRC_EV_STATE_ASSUMED_BAD &&
				    mrc_ev_path_eq(&qp->dp.ev.paths[i], ev))
					mrc_ev_set(qp, i, MRC_EV_STATE_GOOD,
						   MRC_EV_REASON_PROBE);
		}
		spin_unlock_bh(&qp->dp.lock);
		mrc_qp_put(qp);
	}
}
