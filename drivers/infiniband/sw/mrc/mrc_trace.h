/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc tracepoints (events/rdma_mrc/ in tracefs; trace-cmd and perf
 * take them by name).  Documentation/mrc/congestion.rst shows how a run's
 * windows are plotted from mrc_cc_window.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM rdma_mrc

#if !defined(MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define MRC_TRACE_H

#include <linux/tracepoint.h>

#include "mrc_cc.h"

/* The event names, resolvable by tools reading the format. */
TRACE_DEFINE_ENUM(MRC_CC_EVENT_NONE);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_INCREASE);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_FAST_INCREASE);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_DECREASE);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_QUICK_ADAPT);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_NACK);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_TIMEOUT);
TRACE_DEFINE_ENUM(MRC_CC_EVENT_PENALTY);

/*
 * A QP of device @dev (its ib_device index) changed its congestion window:
 * @cwnd bytes now, @inflight payload
 * bytes sent and not SACKed, the base RTT and smoothed queueing delay it
 * judged by, and why (enum mrc_cc_event).
 */
TRACE_EVENT(mrc_cc_window,
	    TP_PROTO(u32 dev, u32 qpn, u32 cwnd, u32 inflight,
		     u32 base_rtt_ns, u32 avg_delay_ns, u8 event),
	    TP_ARGS(dev, qpn, cwnd, inflight, base_rtt_ns, avg_delay_ns, event),
	    TP_STRUCT__entry(__field(u32, dev)
			     __field(u32, qpn)
			     __field(u32, cwnd)
			     __field(u32, inflight)
			     __field(u32, base_rtt_ns)
			     __field(u32, avg_delay_ns)
			     __field(u8, event)),
	    TP_fast_assign(__entry->dev = dev;
			   __entry->qpn = qpn;
			   __entry->cwnd = cwnd;
			   __entry->inflight = inflight;
			   __entry->base_rtt_ns = base_rtt_ns;
			   __entry->avg_delay_ns = avg_delay_ns;
			   __entry->event = event;),
	    TP_printk("dev=%u qpn=%u cwnd=%u inflight=%u base_rtt_ns=%u avg_delay_ns=%u event=%s",
		      __entry->dev, __entry->qpn, __entry->cwnd, __entry->inflight,
		      __entry->base_rtt_ns, __entry->avg_delay_ns,
		      __print_symbolic(__entry->event,
				       { MRC_CC_EVENT_NONE, "none" },
				       { MRC_CC_EVENT_INCREASE, "increase" },
				       { MRC_CC_EVENT_FAST_INCREASE, "fast_increase" },
				       { MRC_CC_EVENT_DECREASE, "decrease" },
				       { MRC_CC_EVENT_QUICK_ADAPT, "quick_adapt" },
				       { MRC_CC_EVENT_NACK, "nack" },
				       { MRC_CC_EVENT_TIMEOUT, "timeout" },
				       { MRC_CC_EVENT_PENALTY, "penalty" }))
);

#endif /* MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mrc_trace
#include <trace/define_trace.h>
