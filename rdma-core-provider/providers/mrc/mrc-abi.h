/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The uverbs commands the mrc provider sends, each with the driver-private
 * response the rdma_mrc kernel driver appends to the core one.  The
 * driver-private structs come from the kernel's uapi header
 * <rdma/mrc-abi.h>; <kernel-abi/mrc-abi.h> is generated from it by
 * rdma-core's build.
 */
#ifndef MRC_PROVIDER_ABI_H
#define MRC_PROVIDER_ABI_H

#include <infiniband/kern-abi.h>
#include <rdma/mrc-abi.h>
#include <kernel-abi/mrc-abi.h>

DECLARE_DRV_CMD(umrc_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		empty, mrc_alloc_ucontext_resp);
DECLARE_DRV_CMD(umrc_create_cq, IB_USER_VERBS_CMD_CREATE_CQ,
		empty, mrc_create_cq_resp);
DECLARE_DRV_CMD(umrc_create_cq_ex, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		empty, mrc_create_cq_resp);
DECLARE_DRV_CMD(umrc_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		empty, mrc_resize_cq_resp);
DECLARE_DRV_CMD(umrc_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		mrc_create_qp_cmd, mrc_create_qp_resp);
DECLARE_DRV_CMD(umrc_modify_qp_ex, IB_USER_VERBS_EX_CMD_MODIFY_QP,
		mrc_modify_qp_cmd, empty);

#endif /* MRC_PROVIDER_ABI_H */
