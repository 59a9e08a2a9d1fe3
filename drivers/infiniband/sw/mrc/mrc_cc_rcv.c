// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: the responder's half of congestion control, what each SACK's
 * CC_STATE tells the requester beside the reflected timestamp:
 *
 *   rcvd_bytes    the payload this QP received, cumulative, in 256-byte
 *                 units rounded up: NSCC's ACK clock;
 *   ooo_count     the PSNs it holds past cack_psn (arrived out of order,
 *                 waiting for a hole to fill), saturating at 15 bits;
 *   rcv_cwnd_pen  the receiver window penalty, the soft device's host
 *                 backpressure: how far its host's receive path is behind.
 *
 * The penalty rule (Documentation/mrc/congestion.rst, "Host
 * backpressure"): the packets this CPU's receive backlog holds, waiting
 * for the softirq that is running us (what a NIC's receive buffer is to
 * a hardware MRC), give 0 up to rx_backlog_low packets, rising linearly to
 * 127 at rx_backlog_high; and once the backlog has dropped a packet (any
 * CPU's, counted at most once a jiffy), 127 for rx_backlog_hold_us.  An
 * incast shows there: N senders fill the backlog N times as fast, and
 * each of them gets the penalty on its own SACKs.
 */
#include <linux/bitfield.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>

#include "mrc.h"
#include "mrc_cc.h"
#include "mrc_compat.h"
#include "mrc_hdr.h"

static unsigned int mrc_param_rx_backlog_low = 64;
module_param_named(rx_backlog_low, mrc_param_rx_backlog_low, uint, 0644);
MODULE_PARM_DESC(rx_backlog_low, "Receive backlog (packets) at which the receiver window penalty starts (default 64)");

static unsigned int mrc_param_rx_backlog_high = 512;
module_param_named(rx_backlog_high, mrc_param_rx_backlog_high, uint, 0644);
MODULE_PARM_DESC(rx_backlog_high, "Receive backlog (packets) at which the penalty is the most, 127 (default 512)");

static unsigned int mrc_param_rx_backlog_hold_us = 1000;
module_param_named(rx_backlog_hold_us, mrc_param_rx_backlog_hold_us, uint, 0644);
MODULE_PARM_DESC(rx_backlog_hold_us, "After a receive backlog drop, the penalty is the most for this long, at least a jiffy (default 1000)");

#define MRC_CC_PEN_MAX		FIELD_MAX(MRC_CC_PEN)

/* Packets the backlogs of every CPU dropped so far. */
static u32 mrc_cc_backlog_drops(void)
{
	u32 drops = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		drops += mrc_softnet_dropped(&per_cpu(softnet_data, cpu));
	return drops;
}

void mrc_cc_host_init(struct mrc_dev *dev)
{
	dev->cc_host.checked = jiffies;
	dev->cc_host.pressed_until = jiffies;
	dev->cc_host.drops = mrc_cc_backlog_drops();
}

/* Whether the backlog dropped lately (a count at most once a jiffy). */
static bool mrc_cc_host_dropping(struct mrc_dev *dev)
{
	struct mrc_cc_host *h = &dev->cc_host;
	unsigned long now = jiffies;
	u32 drops, seen;

	if (READ_ONCE(h->checked) != now) {
		WRITE_ONCE(h->checked, now);
		drops = mrc_cc_backlog_drops();
		seen = READ_ONCE(h->drops);
		if (drops != seen) {
			WRITE_ONCE(h->drops, drops);
			mrc_counter_add(dev, MRC_CNT_RX_BACKLOG_DROPS, drops - seen);
			WRITE_ONCE(h->pressed_until, now +
				   max(1UL, usecs_to_jiffies(mrc_param_rx_backlog_hold_us)));
		}
	}
	return time_before(now, READ_ONCE(h->pressed_until));
}

/* The receiver window penalty the host's receive load asks for now. */
static u32 mrc_cc_host_penalty(struct mrc_dev *dev)
{
	struct softnet_data *sd = this_cpu_ptr(&softnet_data);
	u32 low = READ_ONCE(mrc_param_rx_backlog_low);
	u32 high = READ_ONCE(mrc_param_rx_backlog_high);
	u32 qlen;

	if (mrc_cc_host_dropping(dev))
		return MRC_CC_PEN_MAX;
	/* Waiting in the backlog, and taken from it by this softirq round. */
	qlen = skb_queue_len_lockless(&sd->input_pkt_queue) +
	       skb_queue_len_lockless(&sd->process_queue);
	if (qlen <= low)
		return 0;
	if (qlen >= high || high <= low)
		return MRC_CC_PEN_MAX;
	return DIV_ROUND_UP((qlen - low) * MRC_CC_PEN_MAX, high - low);
}

/* CC_STATE's rc | rcv_cwnd_pen | rcvd_bytes word for @qp's next SACK. */
__be32 mrc_cc_rcv_word(struct mrc_qp *qp)
{
	u32 pen = mrc_cc_host_penalty(qp->dev);

	if (pen)
		mrc_counter_inc(qp->dev, MRC_CNT_CC_PENALTIES_SENT);
	return mrc_cc_rcv(qp->dp.resp.rcvd_bytes, pen);
}

/* CC_STATE's reserved | ooo_count word for @qp's next SACK. */
__be16 mrc_cc_ooo_word(const struct mrc_qp *qp)
{
	return htons(FIELD_PREP(MRC_CC_OOO, min_t(u32, qp->dp.resp.ooo_held,
						  FIELD_MAX(MRC_CC_OOO))));
}
