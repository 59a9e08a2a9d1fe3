/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the OCP MRC API layer (mrc_api.c) asks of the provider (mrc.c)
 * beyond libibverbs: the MRC attributes of a QP, which only the driver's
 * private ABI carries.  Internal to libmrc (not exported: libmrc.map).
 *
 * This header sees neither the provider's private objects nor <mrc.h>,
 * whose type names they share.
 */
#ifndef MRC_PROV_H
#define MRC_PROV_H

#include <infiniband/verbs.h>
#include <rdma/mrc-abi.h>

/* The MRC attributes @qp (an mrc provider QP) was created with. */
void mrc_prov_qp_created_attr(struct ibv_qp *qp,
			      struct mrc_qp_mrc_attr *attr);

/*
 * ibv_modify_qp(@qp, @attr, @attr_mask) with the MRC attributes of @drv
 * (<rdma/mrc-abi.h>, struct mrc_modify_qp_cmd).  Returns 0 or an errno
 * value.
 */
int mrc_prov_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		       int attr_mask, const struct mrc_modify_qp_cmd *drv);

#endif /* MRC_PROV_H */
