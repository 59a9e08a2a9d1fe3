// SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause)
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN kernel source */
/* Cut by scripts/check-netlink-spec to the policies, for 6.1 too: the
 * op table is mrc_nl.c's (6.1 has no split ops), one policy per
 * command, binary minimums as NLA_BINARY, the ranges not const.
 * Regenerate with scripts/check-netlink-spec --write-header.
 */

#include <net/netlink.h>
#include <net/genetlink.h>

#include "mrc_nl_policy.h"

#include <uapi/linux/mrc_netlink.h>

/* Integer value ranges */
static struct netlink_range_validation mrc_a_nscc_gamma_range = {
	.max	= MRC_FRACTION_ONE,
};

static struct netlink_range_validation mrc_a_nscc_max_md_jump_range = {
	.min	= 1ULL,
	.max	= MRC_FRACTION_ONE,
};

/* Common nested types */
const struct nla_policy mrc_ep_req_nl_policy[MRC_A_EP_REQ_PORT_STATUS + 1] = {
	[MRC_A_EP_REQ_REQ_ID] = { .type = NLA_U16, },
	[MRC_A_EP_REQ_SGID] = NLA_POLICY_EXACT_LEN(MRC_GID_LEN),
	[MRC_A_EP_REQ_DGID] = NLA_POLICY_EXACT_LEN(MRC_GID_LEN),
	[MRC_A_EP_REQ_EV_FMT_MODE] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[MRC_A_EP_REQ_EV_VALUE] = NLA_POLICY_MIN_LEN(1),
	[MRC_A_EP_REQ_PORT] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_MAX_PORTS),
	[MRC_A_EP_REQ_PORT_STATUS] = { .type = NLA_U32, },
};

const struct nla_policy mrc_ev_entry_nl_policy[MRC_A_EV_ENTRY_FLAGS + 1] = {
	[MRC_A_EV_ENTRY_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_ENTRY_VALUE] = NLA_POLICY_MIN_LEN(1),
	[MRC_A_EV_ENTRY_PORT] = NLA_POLICY_MAX(NLA_U32, MRC_MAX_PORTS),
	[MRC_A_EV_ENTRY_NEW_VALUE] = NLA_POLICY_MIN_LEN(1),
	[MRC_A_EV_ENTRY_NEW_PORT] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_MAX_PORTS),
	[MRC_A_EV_ENTRY_STATE] = NLA_POLICY_MASK(NLA_U32, 0xf),
	[MRC_A_EV_ENTRY_FLAGS] = NLA_POLICY_MASK(NLA_U32, 0x1),
};

const struct nla_policy mrc_ev_field_nl_policy[MRC_A_EV_FIELD_MASK + 1] = {
	[MRC_A_EV_FIELD_WIDTH] = NLA_POLICY_RANGE(NLA_U32, 1, 32),
	[MRC_A_EV_FIELD_INIT_VAL] = { .type = NLA_U32, },
	[MRC_A_EV_FIELD_MIN_VAL] = { .type = NLA_U32, },
	[MRC_A_EV_FIELD_MAX_VAL] = { .type = NLA_U32, },
	[MRC_A_EV_FIELD_MASK] = { .type = NLA_U32, },
};

const struct nla_policy mrc_fmt_field_nl_policy[MRC_A_FMT_FIELD_WIDTH + 1] = {
	[MRC_A_FMT_FIELD_WIDTH] = NLA_POLICY_RANGE(NLA_U32, 1, 32),
};

const struct nla_policy mrc_nscc_nl_policy[MRC_A_NSCC_TARGET_DELAY + 1] = {
	[MRC_A_NSCC_DISABLE_QA] = NLA_POLICY_MAX(NLA_U8, 1),
	[MRC_A_NSCC_ADJUST_BYTES_THRESHOLD] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_NSCC_BASE_RTT] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_NSCC_ETA] = { .type = NLA_U32, },
	[MRC_A_NSCC_FI] = { .type = NLA_U32, },
	[MRC_A_NSCC_FI_SCALE] = { .type = NLA_U32, },
	[MRC_A_NSCC_GAMMA] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_a_nscc_gamma_range),
	[MRC_A_NSCC_MAX_MD_JUMP] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_a_nscc_max_md_jump_range),
	[MRC_A_NSCC_MAX_CWND] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_NSCC_QA_GATE] = NLA_POLICY_MAX(NLA_U8, 31),
	[MRC_A_NSCC_QA_THRESHOLD] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_NSCC_TARGET_DELAY] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* MRC_CMD_DEV_GET - do */
const struct nla_policy mrc_dev_get_nl_policy[MRC_A_DEVICE_DEV_NAME + 1] = {
	[MRC_A_DEVICE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_DEVICE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
};

/* MRC_CMD_DEV_SET - do */
const struct nla_policy mrc_dev_set_nl_policy[MRC_A_DEVICE_EV_SKIP_HOLD_US + 1] = {
	[MRC_A_DEVICE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_DEVICE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_DEVICE_DEFAULT_EV_PROFILE] = { .type = NLA_U64, },
	[MRC_A_DEVICE_DEFAULT_CC_PROFILE] = { .type = NLA_U64, },
	[MRC_A_DEVICE_EV_SKIP_HOLD_US] = NLA_POLICY_MIN(NLA_U32, 1),
};

/* MRC_CMD_DEV_NEW - do */
const struct nla_policy mrc_dev_new_nl_policy[MRC_A_DEVICE_NETDEV_IFINDEX + 1] = {
	[MRC_A_DEVICE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_DEVICE_NETDEV_IFINDEX] = { .type = NLA_U32, },
};

/* MRC_CMD_DEV_DEL - do */
const struct nla_policy mrc_dev_del_nl_policy[MRC_A_DEVICE_DEV_NAME + 1] = {
	[MRC_A_DEVICE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_DEVICE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
};

/* MRC_CMD_PORT_GET - do */
const struct nla_policy mrc_port_get_do_nl_policy[MRC_A_PORT_PORT_INDEX + 1] = {
	[MRC_A_PORT_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_PORT_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_PORT_PORT_INDEX] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_MAX_PORTS),
};

/* MRC_CMD_PORT_SET - do */
const struct nla_policy mrc_port_set_nl_policy[MRC_A_PORT_ADMIN_STATE + 1] = {
	[MRC_A_PORT_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_PORT_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_PORT_PORT_INDEX] = NLA_POLICY_RANGE(NLA_U32, 1, MRC_MAX_PORTS),
	[MRC_A_PORT_ADMIN_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
};

/* MRC_CMD_EV_FMT_PROFILE_GET - do */
const struct nla_policy mrc_ev_fmt_profile_get_do_nl_policy[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE + 1] = {
	[MRC_A_EV_FMT_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_FMT_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EV_FMT_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[MRC_A_EV_FMT_PROFILE_ARRAY_SIZE] = { .type = NLA_U32, },
};

/* MRC_CMD_EV_FMT_PROFILE_SET - do */
const struct nla_policy mrc_ev_fmt_profile_set_nl_policy[MRC_A_EV_FMT_PROFILE_FIELD + 1] = {
	[MRC_A_EV_FMT_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_FMT_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EV_FMT_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[MRC_A_EV_FMT_PROFILE_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_EV_FMT_PROFILE_CUR_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_EV_FMT_PROFILE_MODE] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[MRC_A_EV_FMT_PROFILE_FIELD] = NLA_POLICY_NESTED(mrc_fmt_field_nl_policy),
};

/* MRC_CMD_EV_PROFILE_GET - do */
const struct nla_policy mrc_ev_profile_get_do_nl_policy[MRC_A_EV_PROFILE_ARRAY_SIZE + 1] = {
	[MRC_A_EV_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EV_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[MRC_A_EV_PROFILE_EV_OP] = NLA_POLICY_MAX(NLA_U32, 3),
	[MRC_A_EV_PROFILE_EV] = NLA_POLICY_NESTED(mrc_ev_entry_nl_policy),
	[MRC_A_EV_PROFILE_ARRAY_SIZE] = { .type = NLA_U32, },
};

/* MRC_CMD_EV_PROFILE_SET - do */
const struct nla_policy mrc_ev_profile_set_nl_policy[MRC_A_EV_PROFILE_EV + 1] = {
	[MRC_A_EV_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EV_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[MRC_A_EV_PROFILE_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_EV_PROFILE_CUR_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_EV_PROFILE_MODE] = NLA_POLICY_MASK(NLA_U32, 0x7),
	[MRC_A_EV_PROFILE_FMT_PROFILE_ID] = { .type = NLA_U64, },
	[MRC_A_EV_PROFILE_EV_COUNT] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_EV_PROFILE_EV_MIN_ACTIVE] = { .type = NLA_U32, },
	[MRC_A_EV_PROFILE_EVENT_MASK] = NLA_POLICY_MASK(NLA_U32, 0xf),
	[MRC_A_EV_PROFILE_FIELD] = NLA_POLICY_NESTED(mrc_ev_field_nl_policy),
	[MRC_A_EV_PROFILE_EV_OP] = NLA_POLICY_MAX(NLA_U32, 3),
	[MRC_A_EV_PROFILE_EV] = NLA_POLICY_NESTED(mrc_ev_entry_nl_policy),
};

/* MRC_CMD_EV_GET - dump */
const struct nla_policy mrc_ev_get_nl_policy[MRC_A_EV_PROFILE_ID + 1] = {
	[MRC_A_EV_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EV_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EV_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
};

/* MRC_CMD_CC_PROFILE_GET - do */
const struct nla_policy mrc_cc_profile_get_do_nl_policy[MRC_A_CC_PROFILE_ID + 1] = {
	[MRC_A_CC_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_CC_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_CC_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
};

/* MRC_CMD_CC_PROFILE_SET - do */
const struct nla_policy mrc_cc_profile_set_nl_policy[MRC_A_CC_PROFILE_NSCC + 1] = {
	[MRC_A_CC_PROFILE_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_CC_PROFILE_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_CC_PROFILE_ID] = NLA_POLICY_MIN(NLA_U64, 1),
	[MRC_A_CC_PROFILE_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_CC_PROFILE_CUR_STATE] = NLA_POLICY_MAX(NLA_U32, 2),
	[MRC_A_CC_PROFILE_ALGORITHM] = { .type = NLA_NUL_STRING, .len = MRC_ALGO_NAME_MAX, },
	[MRC_A_CC_PROFILE_NSCC] = NLA_POLICY_NESTED(mrc_nscc_nl_policy),
};

/* MRC_CMD_QP_GET - do */
const struct nla_policy mrc_qp_get_do_nl_policy[MRC_A_QP_QPN + 1] = {
	[MRC_A_QP_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_QP_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_QP_QPN] = { .type = NLA_U32, },
};

/* MRC_CMD_EP_OP - do */
const struct nla_policy mrc_ep_op_nl_policy[MRC_A_EP_REQ + 1] = {
	[MRC_A_EP_DEV_INDEX] = { .type = NLA_U32, },
	[MRC_A_EP_DEV_NAME] = { .type = NLA_NUL_STRING, .len = MRC_DEV_NAME_MAX, },
	[MRC_A_EP_OP_TYPE] = NLA_POLICY_MAX(NLA_U32, 1),
	[MRC_A_EP_DSCP] = NLA_POLICY_MAX(NLA_U32, 63),
	[MRC_A_EP_TIMEOUT] = NLA_POLICY_MIN(NLA_U32, 1),
	[MRC_A_EP_REQ] = NLA_POLICY_NESTED(mrc_ep_req_nl_policy),
};
