// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: endpoint operations on the reserved QP 0x2.
 *
 * First slice: none; endpoint packets are dropped and counted.
 */
#include "mrc.h"

void mrc_ep_rcv(struct mrc_pkt *pkt)
{
	mrc_counter_inc(pkt->dev, MRC_CNT_DROP_BAD_QPN);
}

int mrc_ep_batch(struct mrc_dev *dev, u32 op_type, u8 dscp, u64 timeout_ns,
		 struct mrc_ep_req *reqs, unsigned int n,
		 struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(extack, "endpoint operations are not supported yet");
	return -EOPNOTSUPP;
}
