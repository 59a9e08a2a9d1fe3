/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * mrcdv: direct verbs of the mrc provider (rdma_mrc devices), installed as
 * <infiniband/mrcdv.h>; link with -lmrc.
 *
 * A QP made by ibv_create_qp() / ibv_create_qp_ex() uses its device's
 * default EV and CC profiles (the controller sets them: mrcctl dev set ...
 * default-ev-profile / default-cc-profile).  mrcdv_create_qp() makes the
 * same QP bound explicitly to the profiles it names.  The binding holds for
 * the QP's life; see Documentation/mrc/netlink.rst, "Binding QPs to
 * profiles".
 */
#ifndef MRCDV_H
#define MRCDV_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mrcdv_qp_init_attr.comp_mask: which of its fields are set. */
enum mrcdv_qp_init_attr_mask {
	MRCDV_QP_INIT_ATTR_MASK_FLAGS = 1 << 0,	/* flags */
};

/* mrcdv_qp_init_attr.flags */
enum mrcdv_qp_create_flags {
	/*
	 * Bind the QP to ev_profile_id and cc_profile_id instead of the
	 * device's defaults.  0 names the built-in profile.
	 */
	MRCDV_QP_CREATE_BIND_PROFILES = 1 << 0,
};

struct mrcdv_qp_init_attr {
	uint64_t comp_mask;	/* enum mrcdv_qp_init_attr_mask */
	uint32_t flags;		/* enum mrcdv_qp_create_flags */
	uint32_t reserved;	/* 0 */
	uint64_t ev_profile_id;	/* with MRCDV_QP_CREATE_BIND_PROFILES */
	uint64_t cc_profile_id;	/* with MRCDV_QP_CREATE_BIND_PROFILES */
};

/*
 * True if @device is an rdma_mrc device driven by this library.
 */
bool mrcdv_is_supported(struct ibv_device *device);

/*
 * Create a QP as ibv_create_qp_ex(@context, @attr) does (the same QP: it
 * works with every verb, ibv_qp_to_qp_ex() included), with the mrc-specific
 * attributes @mrc_attr (NULL, or comp_mask 0: as ibv_create_qp_ex()).
 * Returns NULL with errno set on failure:
 *   EOPNOTSUPP  not an mrc device, unknown comp_mask bits or flags, a
 *               nonzero reserved field, or an EV profile whose format mode
 *               is SRv6
 *   ENOENT      a profile that does not exist or is in INIT
 *   EINVAL      a profile that is not ONLINE, or a bad @attr
 * and whatever ibv_create_qp_ex() fails with.
 */
struct ibv_qp *mrcdv_create_qp(struct ibv_context *context,
			       struct ibv_qp_init_attr_ex *attr,
			       struct mrcdv_qp_init_attr *mrc_attr);

#ifdef __cplusplus
}
#endif

#endif /* MRCDV_H */
