/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: differences between the kernel versions rdma_mrc builds
 * against, in one place.  Each difference is detected from the kernel's
 * headers by the Makefile (no version numbers), which defines MRC_HAVE_*.
 */
#ifndef MRC_COMPAT_H
#define MRC_COMPAT_H

#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mrc.h"

/* Newer kernels hand create_cq the whole attribute bundle. */
#ifdef MRC_HAVE_CREATE_CQ_ATTRS
static inline int mrc_create_cq_compat(struct ib_cq *ibcq,
				       const struct ib_cq_init_attr *attr,
				       struct uverbs_attr_bundle *attrs)
{
	return mrc_create_cq(ibcq, attr, attrs ? &attrs->driver_udata : NULL);
}
#else
static inline int mrc_create_cq_compat(struct ib_cq *ibcq,
				       const struct ib_cq_init_attr *attr,
				       struct ib_udata *udata)
{
	return mrc_create_cq(ibcq, attr, udata);
}
#endif

#endif /* MRC_COMPAT_H */
