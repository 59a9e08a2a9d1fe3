/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: differences between the kernel versions rdma_mrc builds
 * against, in one place.  Each difference is detected from the kernel's
 * headers by the Makefile (no version numbers), which defines MRC_HAVE_*.
 */
#ifndef MRC_COMPAT_H
#define MRC_COMPAT_H

#include <net/genetlink.h>
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

/*
 * The ops the family's pre_doit and post_doit hooks are handed: newer
 * kernels split every command into do and dump ops before calling them.
 */
#ifdef MRC_HAVE_GENL_SPLIT_HOOKS
#define mrc_genl_hook_ops genl_split_ops
#else
#define mrc_genl_hook_ops genl_ops
#endif

/*
 * The attributes genetlink parsed (and validated against the op's policy)
 * from a dump request: newer kernels keep them in a whole genl_info.
 */
static inline struct nlattr **mrc_nl_dump_attrs(struct netlink_callback *cb)
{
#ifdef MRC_HAVE_GENL_DUMPIT_INFO_INFO
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* Room for a formatted extack message on kernels without _msg_buf. */
#define MRC_NL_MSG_LEN		80
#define MRC_NL_MSG_BUFS		64

/*
 * An extack message naming one number (@fmt a literal).  Older kernels
 * keep only a pointer to the message, which must outlive the handler until
 * the ack is built: there, a ring of buffers.
 */
#ifdef NL_SET_ERR_MSG_FMT
#define mrc_nl_msg_u32(extack, fmt, val) NL_SET_ERR_MSG_FMT(extack, fmt, val)
#else
#define mrc_nl_msg_u32(extack, fmt, val) mrc_nl_msg_u32_ring(extack, fmt, val)

static inline __printf(2, 3)
void mrc_nl_msg_u32_ring(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	static char bufs[MRC_NL_MSG_BUFS][MRC_NL_MSG_LEN];
	static atomic_t next = ATOMIC_INIT(0);
	char *buf = bufs[(u32)atomic_inc_return(&next) % MRC_NL_MSG_BUFS];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, MRC_NL_MSG_LEN, fmt, args);
	va_end(args);
	if (extack)
		extack->_msg = buf;
}
#endif

/* A CPU's receive backlog drops (an atomic_t since Linux 6.10). */
static inline u32 mrc_softnet_dropped(struct softnet_data *sd)
{
#ifdef MRC_HAVE_SOFTNET_ATOMIC_DROPPED
	return atomic_read(&sd->dropped);
#else
	return READ_ONCE(sd->dropped);
#endif
}

#endif /* MRC_COMPAT_H */
