/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the EV state machine's interface to the datapath (requester,
 * completer, responder).  Everything here runs with qp->dp.lock held.
 */
#ifndef MRC_EV_H
#define MRC_EV_H

#include "mrc.h"

/* No slot to avoid (mrc_ev_select) or none known (mrc_ev_echo). */
#define MRC_EV_NONE		U32_MAX

void mrc_ev_setup(struct mrc_qp *qp);
void mrc_ev_stop(struct mrc_qp *qp);
u16 mrc_ev_select(struct mrc_qp *qp, u32 avoid);
void mrc_ev_echo(struct mrc_qp *qp, u32 entropy, u32 hint, u32 state,
		 u32 reason);
void mrc_ev_timeout(struct mrc_qp *qp, u32 slot);
void mrc_ev_loss(struct mrc_qp *qp, u32 slot);
void mrc_ev_probe_answer(struct mrc_qp *qp, u16 id, u32 entropy);
void mrc_ev_tick(struct mrc_qp *qp, struct sk_buff_head *txq);

/* mrc_req.c: a reliability probe on EV slot @slot, for the state machine */
bool mrc_req_ev_probe(struct mrc_qp *qp, u32 slot, struct sk_buff_head *txq);

#endif /* MRC_EV_H */
