/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: device counters, shown by `rdma statistic show link DEV/1`.
 */
#ifndef MRC_HW_COUNTERS_H
#define MRC_HW_COUNTERS_H

#include <rdma/ib_verbs.h>

enum mrc_counter {
	MRC_CNT_TX_PKTS,
	MRC_CNT_TX_BYTES,
	MRC_CNT_RX_PKTS,
	MRC_CNT_RX_BYTES,
	MRC_CNT_TX_DATA_PKTS,
	MRC_CNT_RX_DATA_PKTS,
	MRC_CNT_RETRANSMITS,
	MRC_CNT_FAST_RETRANSMITS,
	MRC_CNT_TIMEOUT_RETRANSMITS,
	MRC_CNT_TIMEOUTS,
	MRC_CNT_RETRY_EXCEEDED,
	MRC_CNT_SACKS_SENT,
	MRC_CNT_SACKS_RCVD,
	MRC_CNT_ACKS_SENT,
	MRC_CNT_ACKS_RCVD,
	MRC_CNT_NAKS_SENT,
	MRC_CNT_NAKS_RCVD,
	MRC_CNT_NACKS_SENT,
	MRC_CNT_NACKS_RCVD,
	MRC_CNT_NACK_TRIMMED,
	MRC_CNT_NACK_TRIMMED_LASTHOP,
	MRC_CNT_NACK_NO_RESOURCE,
	MRC_CNT_NACK_PSN_OOR_WINDOW,
	MRC_CNT_NACK_UNEXP_EVENT,
	MRC_CNT_NACK_OTHER,
	MRC_CNT_DUPLICATES,
	MRC_CNT_OUT_OF_WINDOW,
	MRC_CNT_STASHED_WRITE_IMM,
	MRC_CNT_ECN_MARKED,
	MRC_CNT_PROBES_SENT,
	MRC_CNT_PROBES_RCVD,
	MRC_CNT_PROBE_SACKS_RCVD,
	MRC_CNT_DROP_SHORT,
	MRC_CNT_DROP_BAD_ICRC,
	MRC_CNT_DROP_BAD_OPCODE,
	MRC_CNT_DROP_BAD_QPN,
	MRC_CNT_DROP_BAD_STATE,
	MRC_CNT_DROP_BAD_HEADER,
	MRC_CNT_DROP_BAD_SOURCE,
	MRC_CNT_REMOTE_ACCESS_ERRORS,
	MRC_CNT_TX_ROUTE_ERRORS,
	MRC_CNT_LINK_DOWNED,
	MRC_CNT_DROP_PORT_DISABLED,
	MRC_NUM_COUNTERS,
};

struct mrc_dev;

void mrc_counter_inc(struct mrc_dev *dev, enum mrc_counter c);
void mrc_counter_add(struct mrc_dev *dev, enum mrc_counter c, u64 n);
struct rdma_hw_stats *mrc_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int mrc_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

#endif /* MRC_HW_COUNTERS_H */
