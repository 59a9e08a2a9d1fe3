// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: device counters.  Each counter is a per-device atomic, bumped
 * from any context and read through the RDMA core's hw_stats interface.
 */
#include "mrc.h"
#include "mrc_hw_counters.h"

static const struct rdma_stat_desc mrc_counter_descs[MRC_NUM_COUNTERS] = {
	[MRC_CNT_TX_PKTS].name = "tx_pkts",
	[MRC_CNT_TX_BYTES].name = "tx_bytes",
	[MRC_CNT_RX_PKTS].name = "rx_pkts",
	[MRC_CNT_RX_BYTES].name = "rx_bytes",
	[MRC_CNT_TX_DATA_PKTS].name = "tx_data_pkts",
	[MRC_CNT_RX_DATA_PKTS].name = "rx_data_pkts",
	[MRC_CNT_RETRANSMITS].name = "retransmits",
	[MRC_CNT_FAST_RETRANSMITS].name = "fast_retransmits",
	[MRC_CNT_TIMEOUT_RETRANSMITS].name = "timeout_retransmits",
	[MRC_CNT_TIMEOUTS].name = "timeouts",
	[MRC_CNT_RETRY_EXCEEDED].name = "retry_exceeded",
	[MRC_CNT_SACKS_SENT].name = "sacks_sent",
	[MRC_CNT_SACKS_RCVD].name = "sacks_rcvd",
	[MRC_CNT_ACKS_SENT].name = "acks_sent",
	[MRC_CNT_ACKS_RCVD].name = "acks_rcvd",
	[MRC_CNT_NAKS_SENT].name = "naks_sent",
	[MRC_CNT_NAKS_RCVD].name = "naks_rcvd",
	[MRC_CNT_NACKS_SENT].name = "nacks_sent",
	[MRC_CNT_NACKS_RCVD].name = "nacks_rcvd",
	[MRC_CNT_NACK_TRIMMED].name = "nack_trimmed",
	[MRC_CNT_NACK_TRIMMED_LASTHOP].name = "nack_trimmed_lasthop",
	[MRC_CNT_NACK_NO_RESOURCE].name = "nack_no_resource",
	[MRC_CNT_NACK_PSN_OOR_WINDOW].name = "nack_psn_oor_window",
	[MRC_CNT_NACK_UNEXP_EVENT].name = "nack_unexp_event",
	[MRC_CNT_NACK_OTHER].name = "nack_other",
	[MRC_CNT_DUPLICATES].name = "duplicates",
	[MRC_CNT_OUT_OF_WINDOW].name = "out_of_window",
	[MRC_CNT_STASHED_WRITE_IMM].name = "stashed_write_imm",
	[MRC_CNT_ECN_MARKED].name = "ecn_marked",
	[MRC_CNT_PROBES_SENT].name = "probes_sent",
	[MRC_CNT_PROBES_RCVD].name = "probes_rcvd",
	[MRC_CNT_PROBE_SACKS_RCVD].name = "probe_sacks_rcvd",
	[MRC_CNT_DROP_SHORT].name = "drop_short",
	[MRC_CNT_DROP_BAD_ICRC].name = "drop_bad_icrc",
	[MRC_CNT_DROP_BAD_OPCODE].name = "drop_bad_opcode",
	[MRC_CNT_DROP_BAD_QPN].name = "drop_bad_qpn",
	[MRC_CNT_DROP_BAD_STATE].name = "drop_bad_state",
	[MRC_CNT_DROP_BAD_HEADER].name = "drop_bad_header",
	[MRC_CNT_DROP_BAD_SOURCE].name = "drop_bad_source",
	[MRC_CNT_REMOTE_ACCESS_ERRORS].name = "remote_access_errors",
	[MRC_CNT_TX_ROUTE_ERRORS].name = "tx_route_errors",
	[MRC_CNT_LINK_DOWNED].name = "link_downed",
	[MRC_CNT_DROP_PORT_DISABLED].name = "drop_port_disabled",
	[MRC_CNT_DROP_UNMATCHED_ACK].name = "drop_unmatched_ack",
	[MRC_CNT_DROP_BAD_PKEY].name = "drop_bad_pkey",
	[MRC_CNT_DROP_BAD_DEST].name = "drop_bad_dest",
	[MRC_CNT_DROP_NOT_UNICAST].name = "drop_not_unicast",
	[MRC_CNT_DROP_BAD_TRIMMED].name = "drop_bad_trimmed",
	[MRC_CNT_TRIMMED_RCVD].name = "trimmed_rcvd",
	[MRC_CNT_TRIMMED_STALE].name = "trimmed_stale",
	[MRC_CNT_TRIMMED_NOT_NACKED].name = "trimmed_not_nacked",
	[MRC_CNT_TX_NOMEM].name = "tx_nomem",
	[MRC_CNT_RX_NOMEM].name = "rx_nomem",
	[MRC_CNT_CQ_OVERFLOWS].name = "cq_overflows",
	[MRC_CNT_EV_SKIP].name = "ev_skip",
	[MRC_CNT_EV_ASSUMED_BAD].name = "ev_assumed_bad",
	[MRC_CNT_EV_SKIP_EXPIRED].name = "ev_skip_expired",
	[MRC_CNT_EV_RECOVERED].name = "ev_recovered",
	[MRC_CNT_EV_PROBES_SENT].name = "ev_probes_sent",
	[MRC_CNT_EV_PROBES_ANSWERED].name = "ev_probes_answered",
	[MRC_CNT_EV_MIN_ACTIVE_HOLDS].name = "ev_min_active_holds",
	[MRC_CNT_SPURIOUS_RETRANSMITS].name = "spurious_retransmits",
	[MRC_CNT_REO_WND_WIDENED].name = "reo_wnd_widened",
	[MRC_CNT_TLP_PROBES_SENT].name = "tlp_probes_sent",
	[MRC_CNT_TX_SPAN_GROWN].name = "tx_span_grown",
	[MRC_CNT_TX_WND_STALL_US].name = "tx_wnd_stall_us",
	[MRC_CNT_TX_SPAN_STALL_US].name = "tx_span_stall_us",
	[MRC_CNT_EV_SUSPECT_LOSS].name = "ev_suspect_loss",
	[MRC_CNT_EV_SUSPECT_TIMEOUT].name = "ev_suspect_timeout",
	[MRC_CNT_EV_SUSPECT_SPURIOUS].name = "ev_suspect_spurious",
	[MRC_CNT_EV_BAD_LOSS].name = "ev_bad_loss",
	[MRC_CNT_EV_BAD_TIMEOUT].name = "ev_bad_timeout",
	[MRC_CNT_EV_PROBES_DEFERRED].name = "ev_probes_deferred",
	/* congestion control */
	[MRC_CNT_CC_INCREASES].name = "cc_increases",
	[MRC_CNT_CC_DECREASES].name = "cc_decreases",
	[MRC_CNT_CC_QUICK_ADAPTS].name = "cc_quick_adapts",
	[MRC_CNT_CC_PENALTIES].name = "cc_penalties",
	[MRC_CNT_CC_BAD_RCVD].name = "cc_bad_rcvd",
	[MRC_CNT_CC_BAD_OOO].name = "cc_bad_ooo",
	[MRC_CNT_CC_PENALTIES_SENT].name = "cc_penalties_sent",
	[MRC_CNT_RX_BACKLOG_DROPS].name = "rx_backlog_drops",
	/* endpoint operations */
	[MRC_CNT_EP_REQS_SENT].name = "ep_reqs_sent",
	[MRC_CNT_EP_REQS_RCVD].name = "ep_reqs_rcvd",
	[MRC_CNT_EP_RSPS_SENT].name = "ep_rsps_sent",
	[MRC_CNT_EP_RSPS_RCVD].name = "ep_rsps_rcvd",
	[MRC_CNT_EP_TIMEOUTS].name = "ep_timeouts",
	[MRC_CNT_EP_PORT_STATUS_RCVD].name = "ep_port_status_rcvd",
	[MRC_CNT_EP_DROP_MALFORMED].name = "ep_drop_malformed",
	[MRC_CNT_EP_DROP_UNKNOWN_GID].name = "ep_drop_unknown_gid",
	[MRC_CNT_EP_DROP_UNMATCHED].name = "ep_drop_unmatched",
	[MRC_CNT_EP_PORT_STATUS_NO_PEER].name = "ep_port_status_no_peer",
	[MRC_CNT_EP_DROP_RATE].name = "ep_drop_rate",
};

void mrc_counter_inc(struct mrc_dev *dev, enum mrc_counter c)
{
	atomic64_inc(&dev->counters[c]);
}

void mrc_counter_add(struct mrc_dev *dev, enum mrc_counter c, u64 n)
{
	atomic64_add(n, &dev->counters[c]);
}

/* The name `rdma statistic` shows counter @c under. */
const char *mrc_counter_name(enum mrc_counter c)
{
	return mrc_counter_descs[c].name;
}

struct rdma_hw_stats *mrc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return rdma_alloc_hw_stats_struct(mrc_counter_descs, MRC_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int mrc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct mrc_dev *dev = to_mdev(ibdev);
	int i;

	for (i = 0; i < MRC_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->counters[i]);
	return MRC_NUM_COUNTERS;
}
