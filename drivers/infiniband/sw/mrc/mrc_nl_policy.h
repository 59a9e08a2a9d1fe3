/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN kernel header */
/* Cut by scripts/check-netlink-spec to the policies, for 6.1 too: the
 * op table is mrc_nl.c's (6.1 has no split ops), one policy per
 * command, binary minimums as NLA_BINARY, the ranges not const.
 * Regenerate with scripts/check-netlink-spec --write-header.
 */

#ifndef _LINUX_MRC_GEN_H
#define _LINUX_MRC_GEN_H

#include <net/netlink.h>
#include <net/genetlink.h>

#include <uapi/linux/mrc_netlink.h>

/* Common nested types */
extern const struct nla_policy mrc_ep_req_nl_policy[MRC_A_EP_REQ_PORT_STATUS + 1];
extern const struct nla_policy mrc_ev_entry_nl_policy[MRC_A_EV_ENTRY_FLAGS + 1];
extern const struct nla_policy mrc_ev_field_nl_policy[MRC_A_EV_FIELD_MASK + 1];
extern const struct nla_policy mrc_fmt_field_nl_policy[MRC_A_FMT_FIELD_WIDTH + 1];
extern const struct nla_policy mrc_nscc_nl_policy[MRC_A_NSCC_TARGET_DELAY + 1];

/* The commands' requests */
extern const struct nla_policy mrc_dev_get_nl_policy[MRC_A_DEVICE_DEV_NAME + 1];
extern const struct nla_policy mrc_dev_set_nl_policy[MRC_A_DEVICE_EV_SKIP_HOLD_US + 1];
extern const struct nla_policy mrc_dev_new_nl_policy[MRC_A_DEVICE_NETDEV_IFINDEX + 1];
extern const struct nla_policy mrc_dev_del_nl_policy[MRC_A_DEVICE_DEV_NAME + 1];
extern const struct nla_policy mrc_port_get_do_nl_policy[MRC_A_PORT_PORT_INDEX + 1];
extern const struct nla_policy mrc_port_set_nl_policy[MRC_A_PORT_ADMIN_STATE + 1];
extern const struct nla_policy mrc_ev_fmt_profile_get_do_nl_policy[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE + 1];
extern const struct nla_policy mrc_ev_fmt_profile_set_nl_policy[MRC_A_EV_FMT_PROFILE_FIELD + 1];
extern const struct nla_policy mrc_ev_profile_get_do_nl_policy[MRC_A_EV_PROFILE_ARRAY_SIZE + 1];
extern const struct nla_policy mrc_ev_profile_set_nl_policy[MRC_A_EV_PROFILE_EV + 1];
extern const struct nla_policy mrc_ev_get_nl_policy[MRC_A_EV_PROFILE_ID + 1];
extern const struct nla_policy mrc_cc_profile_get_do_nl_policy[MRC_A_CC_PROFILE_ID + 1];
extern const struct nla_policy mrc_cc_profile_set_nl_policy[MRC_A_CC_PROFILE_NSCC + 1];
extern const struct nla_policy mrc_qp_get_do_nl_policy[MRC_A_QP_QPN + 1];
extern const struct nla_policy mrc_ep_op_nl_policy[MRC_A_EP_REQ + 1];

enum {
	MRC_NLGRP_EV,
	MRC_NLGRP_EP,
};

#endif /* _LINUX_MRC_GEN_H */
