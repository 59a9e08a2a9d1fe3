// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The OCP MRC API headers (include/mrc/) against the interface's x86-64
 * layout: every size and offset the interface's description gives, and
 * the values of its constants.  A mismatch fails the compilation; run by
 * scripts/check-api-headers (make check), which also builds it as C++.
 * On other ABIs only what does not depend on pointer size is checked.
 */
#include <stddef.h>
#include <limits.h>
#include <stdio.h>

#include <mrc.h>
#include <mrc_ctl.h>

#ifdef __cplusplus
#define LAYOUT_ASSERT(cond, what) static_assert(cond, what)
#define ALIGN_OF(type) alignof(type)
#else
#define LAYOUT_ASSERT(cond, what) _Static_assert(cond, what)
#define ALIGN_OF(type) _Alignof(type)
#endif

#define SIZE(type, n) LAYOUT_ASSERT(sizeof(type) == (n), "sizeof " #type)
#define OFF(type, member, n) \
	LAYOUT_ASSERT(offsetof(type, member) == (n), #type "." #member)
#define VAL(name, v) LAYOUT_ASSERT((long long)(name) == (long long)(v), #name)

/* Versions. */
VAL(MRC_API_VERSION(1, 2, 3), 0x01020003);
VAL(MRC_API_VERSION_LATEST, 0xffffffffu);
VAL(MRC_API_CURRENT_VERSION, 0x01000001);
VAL(MRC_API_LAST_SUPPORTED_VERSION, 0);
VAL(MRC_VENDOR_API_CURRENT_VERSION, 0x01000000);
VAL(MRC_CTL_API_CURRENT_VERSION, 0x01000001);
VAL(MRC_CTL_VENDOR_API_CURRENT_VERSION, 0x01000000);
/* Built with no version chosen (LAYOUT_VER_GIVEN: the script chose one). */
#ifndef LAYOUT_VER_GIVEN
VAL(MRC_API_VER_USED, MRC_API_CURRENT_VERSION);
VAL(MRC_VENDOR_API_VER_USED, MRC_VENDOR_API_CURRENT_VERSION);
VAL(MRC_CTL_API_VER_USED, MRC_CTL_API_CURRENT_VERSION);
VAL(MRC_CTL_VENDOR_API_VER_USED, MRC_CTL_VENDOR_API_CURRENT_VERSION);
#endif

/* Application API constants. */
VAL(MRC_MAX_VENDOR_CFG_SIZE, 128);
VAL(MRC_PROTOCOL_VERSION_0, 0);
VAL(MRC_PROTOCOL_VERSION_1, 1);
VAL(MRC_DEVICE_CAP_TRIM_NACK, 1);
VAL(MRC_DEVICE_CAP_DYNAMIC_MPR, 2);
VAL(MRC_DEVICE_CAP_SVC_TIME, 4);
VAL(MRC_QP_HINT_NUM_QPS_PER_PEER, 1);
VAL(MRC_QP_HINT_NUM_SEND_PEERS, 2);
VAL(MRC_QP_HINT_NUM_REMOTE_RECV_PEERS, 4);
VAL(MRC_QP_HINT_VENDOR_CFG, INT_MIN);
VAL(MRC_QP_MAX_WIMM, 1 << 0);
VAL(MRC_QP_MAX_WIMM_DEST, 1 << 1);
VAL(MRC_QP_MPR, 1 << 2);
VAL(MRC_QP_MPR_DEST, 1 << 3);
VAL(MRC_QP_TIMEOUT, 1 << 4);
VAL(MRC_QP_EV_PROFILE_ID, 1 << 5);
VAL(MRC_QP_CC_PROFILE_ID, 1 << 6);
VAL(MRC_QP_HINT, 1 << 7);
VAL(MRC_QP_RETRY_CNT, 1 << 8);
VAL(MRC_QP_CAP, 1 << 9);
VAL(MRC_QP_VENDOR_CFG, INT_MIN);
VAL(MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED, 1);
VAL(MRC_QP_CAP_DYNAMIC_MPR, 2);
VAL(MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED, 4);

/* Controller API constants. */
VAL(MRC_CTL_MAX_VENDOR_CFG_SIZE, 128);
VAL(MRC_CTL_EV_MAX_BYTES, 32);
VAL(MRC_CTL_PROTOCOL_VERSION_1, 1);
VAL(MRC_CTL_PROFILE_INIT, 0);
VAL(MRC_CTL_PROFILE_OFFLINE, 1);
VAL(MRC_CTL_PROFILE_ONLINE, 2);
VAL(MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE, 1 << 0);
VAL(MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE, 1 << 1);
VAL(MRC_CTL_OPT_CAP_EV_EVENT, 1 << 2);
VAL(MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE, 1 << 3);
VAL(MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT, 1 << 4);
VAL(MRC_CTL_OPT_CAP_EP_OP_EV_PROBE, 1 << 5);
VAL(MRC_CTL_PORT_ADMIN_STATE_DISABLED, 0);
VAL(MRC_CTL_PORT_ADMIN_STATE_ENABLED, 1);
VAL(MRC_CTL_PORT_ADMIN_STATE, 1);
VAL(MRC_CTL_EV_FMT_MODE_STEV, 1);
VAL(MRC_CTL_EV_FMT_MODE_SRV6, 2);
VAL(MRC_CTL_EV_FMT_MODE_UDP, 4);
VAL(MRC_CTL_EV_FMT_OP_MODIFY_FIELDS, 0);
VAL(MRC_CTL_EV_FMT_OP_QUERY_FIELDS, 1);
VAL(MRC_CTL_EV_FMT_PROFILE_STATE, 1 << 0);
VAL(MRC_CTL_EV_FMT_PROFILE_CUR_STATE, 1 << 1);
VAL(MRC_CTL_EV_FMT_PROFILE_MODE, 1 << 2);
VAL(MRC_CTL_EV_FMT_PROFILE_OP, 1 << 3);
VAL(MRC_CTL_EV_FMT_VENDOR_CFG, INT_MIN);
VAL(MRC_CTL_EV_GOOD, 1);
VAL(MRC_CTL_EV_ASSUMED_BAD, 2);
VAL(MRC_CTL_EV_DENIED, 4);
VAL(MRC_CTL_EV_UNKNOWN, INT_MIN);
VAL(MRC_CTL_EV_MODE_AUTO, 1);
VAL(MRC_CTL_EV_MODE_EXP, 2);
VAL(MRC_CTL_EV_MODE_GEN, 4);
VAL(MRC_CTL_EV_OP_REPLACE_EV, 0);
VAL(MRC_CTL_EV_OP_MODIFY_EV_STATE, 1);
VAL(MRC_CTL_EV_OP_QUERY_EV_STATE, 2);
VAL(MRC_CTL_EV_OP_QUERY_EV_ARRAY, 3);
VAL(MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS, 0);
VAL(MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS, 1);
VAL(MRC_CTL_EV_OP_F_ALL_COPIES, 1);
VAL(MRC_CTL_EV_PROFILE_STATE, 1 << 0);
VAL(MRC_CTL_EV_PROFILE_CUR_STATE, 1 << 1);
VAL(MRC_CTL_EV_PROFILE_MODE, 1 << 2);
VAL(MRC_CTL_EV_PROFILE_FMT_ID, 1 << 3);
VAL(MRC_CTL_EV_PROFILE_COUNT, 1 << 4);
VAL(MRC_CTL_EV_PROFILE_MIN_ACTIVE, 1 << 5);
VAL(MRC_CTL_EV_PROFILE_EVENT_MASK, 1 << 6);
VAL(MRC_CTL_EV_PROFILE_EV_OP, 1 << 7);
VAL(MRC_CTL_EV_PROFILE_EV_FIELDS_OP, 1 << 8);
VAL(MRC_CTL_EV_PROFILE_VENDOR_CFG, INT_MIN);
VAL(MRC_CTL_CC_PROFILE_STATE, 1 << 0);
VAL(MRC_CTL_CC_PROFILE_CUR_STATE, 1 << 1);
VAL(MRC_CTL_CC_PROFILE_ALGORITHM, 1 << 2);
VAL(MRC_CTL_CC_PROFILE_CONFIG, 1 << 3);
VAL(MRC_CTL_CC_PROFILE_VENDOR_CFG, INT_MIN);
VAL(MRC_CTL_EP_OP_EV_PROBE, 0);
VAL(MRC_CTL_EP_OP_PORT_STATUS_UPDATE, 1);

/* Layouts that do not depend on pointer size. */
SIZE(struct mrc_device_attr, 20);
OFF(struct mrc_device_attr, wimm_attr, 4);
OFF(struct mrc_device_attr, mpr_attr, 8);
OFF(struct mrc_device_attr, qp_attr, 12);
OFF(struct mrc_device_attr, cap, 16);
SIZE(struct mrc_context_attr, 8);
OFF(struct mrc_context_attr, mrc_vendor_api_version_used, 4);
SIZE(struct mrc_qp_hint_attr, 140);
OFF(struct mrc_qp_hint_attr, num_send_peers, 4);
OFF(struct mrc_qp_hint_attr, num_remote_recv_peers, 8);
OFF(struct mrc_qp_hint_attr, vendor_cfg, 12);
SIZE(struct mrc_qp_hint_init_attr, 140);
SIZE(struct mrc_ctl_port_attr, 4);
SIZE(struct mrc_ctl_ev_fmt_field, 1);
SIZE(mrc_ctl_ev_t, 32);
SIZE(struct mrc_ctl_ev, 33);
OFF(struct mrc_ctl_ev, port, 32);
LAYOUT_ASSERT(ALIGN_OF(struct mrc_ctl_ev) == 1, "mrc_ctl_ev alignment");
SIZE(struct mrc_ctl_ev_field, 20);
OFF(struct mrc_ctl_ev_field, init_val, 4);
OFF(struct mrc_ctl_ev_field, min_val, 8);
OFF(struct mrc_ctl_ev_field, max_val, 12);
OFF(struct mrc_ctl_ev_field, mask, 16);
SIZE(struct mrc_ctl_ev_op_entry, 76);
LAYOUT_ASSERT(ALIGN_OF(struct mrc_ctl_ev_op_entry) == 4, "mrc_ctl_ev_op_entry alignment");
OFF(struct mrc_ctl_ev_op_entry, ev_new, 33);
OFF(struct mrc_ctl_ev_op_entry, state, 68);
OFF(struct mrc_ctl_ev_op_entry, flags, 72);
SIZE(struct mrc_ctl_cc_nscc_cfg, 52);
OFF(struct mrc_ctl_cc_nscc_cfg, adjust_bytes_threshold, 4);
OFF(struct mrc_ctl_cc_nscc_cfg, adjust_period_threshold, 8);
OFF(struct mrc_ctl_cc_nscc_cfg, base_rtt, 12);
OFF(struct mrc_ctl_cc_nscc_cfg, eta, 16);
OFF(struct mrc_ctl_cc_nscc_cfg, fi, 20);
OFF(struct mrc_ctl_cc_nscc_cfg, fi_scale, 24);
OFF(struct mrc_ctl_cc_nscc_cfg, gamma, 28);
OFF(struct mrc_ctl_cc_nscc_cfg, max_md_jump, 32);
OFF(struct mrc_ctl_cc_nscc_cfg, max_cwnd, 36);
OFF(struct mrc_ctl_cc_nscc_cfg, qa_gate, 40);
OFF(struct mrc_ctl_cc_nscc_cfg, qa_threshold, 44);
OFF(struct mrc_ctl_cc_nscc_cfg, target_delay, 48);
SIZE(struct mrc_ctl_ep_rsp, 12);
OFF(struct mrc_ctl_ep_rsp, port, 2);
OFF(struct mrc_ctl_ep_rsp, rtt, 4);
OFF(struct mrc_ctl_ep_rsp, adj_svc_time, 8);

#if defined(__x86_64__) && defined(__LP64__)
SIZE(struct mrc_qp_init_attr, 72);
OFF(struct mrc_qp_init_attr, send_cq, 8);
OFF(struct mrc_qp_init_attr, recv_cq, 16);
OFF(struct mrc_qp_init_attr, cap, 24);
OFF(struct mrc_qp_init_attr, sq_sig_all, 44);
OFF(struct mrc_qp_init_attr, pd, 48);
OFF(struct mrc_qp_init_attr, send_ops_flags, 56);
OFF(struct mrc_qp_init_attr, protocol_version, 64);
SIZE(struct mrc_qp_attr, 176);
OFF(struct mrc_qp_attr, wimm, 2);
OFF(struct mrc_qp_attr, timeout, 6);
OFF(struct mrc_qp_attr, profile, 8);
OFF(struct mrc_qp_attr, profile.cc_profile_id, 16);
OFF(struct mrc_qp_attr, retry, 24);
OFF(struct mrc_qp_attr, retry.exp_cnt, 25);
OFF(struct mrc_qp_attr, qp_hint, 32);
OFF(struct mrc_qp_attr, cap, 40);
OFF(struct mrc_qp_attr, vendor_cfg, 44);
SIZE(struct mrc_async_event, 16);
OFF(struct mrc_async_event, event_type, 8);

SIZE(struct mrc_ctl_device_attr, 72);
OFF(struct mrc_ctl_device_attr, ev, 4);
OFF(struct mrc_ctl_device_attr, ev.ev_max_profiles, 8);
OFF(struct mrc_ctl_device_attr, ev.ev_max_count, 12);
OFF(struct mrc_ctl_device_attr, ev.ev_free_count, 16);
OFF(struct mrc_ctl_device_attr, ev.ev_max_count_profile, 20);
OFF(struct mrc_ctl_device_attr, ev.ev_count_align, 24);
OFF(struct mrc_ctl_device_attr, ev.ev_max_width, 28);
OFF(struct mrc_ctl_device_attr, ev.ev_fmt_mode_mask, 32);
OFF(struct mrc_ctl_device_attr, ev.ev_mode_mask, 36);
OFF(struct mrc_ctl_device_attr, ev.ev_op_max_entries, 40);
OFF(struct mrc_ctl_device_attr, cc, 48);
OFF(struct mrc_ctl_device_attr, cc.algorithms, 56);
OFF(struct mrc_ctl_device_attr, phy_port_mask, 64);
OFF(struct mrc_ctl_device_attr, opt_attr, 68);
SIZE(struct mrc_ctl_ev_fmt_profile_attr, 168);
OFF(struct mrc_ctl_ev_fmt_profile_attr, cur_profile_state, 4);
OFF(struct mrc_ctl_ev_fmt_profile_attr, ev_fmt_mode, 8);
OFF(struct mrc_ctl_ev_fmt_profile_attr, ev_fmt_op, 16);
OFF(struct mrc_ctl_ev_fmt_profile_attr, ev_fmt_op.fmt_fields, 24);
OFF(struct mrc_ctl_ev_fmt_profile_attr, ev_fmt_op.fmt_field_count, 32);
OFF(struct mrc_ctl_ev_fmt_profile_attr, vendor_cfg, 40);
SIZE(struct mrc_ctl_ev_profile_attr, 216);
OFF(struct mrc_ctl_ev_profile_attr, ev_mode, 8);
OFF(struct mrc_ctl_ev_profile_attr, ev_fmt_profile_id, 16);
OFF(struct mrc_ctl_ev_profile_attr, ev_count, 24);
OFF(struct mrc_ctl_ev_profile_attr, ev_min_active, 28);
OFF(struct mrc_ctl_ev_profile_attr, ev_event_mask, 32);
OFF(struct mrc_ctl_ev_profile_attr, ev_op, 40);
OFF(struct mrc_ctl_ev_profile_attr, ev_op.entries, 48);
OFF(struct mrc_ctl_ev_profile_attr, ev_op.entry_count, 56);
OFF(struct mrc_ctl_ev_profile_attr, ev_fields_op, 64);
OFF(struct mrc_ctl_ev_profile_attr, ev_fields_op.fields, 72);
OFF(struct mrc_ctl_ev_profile_attr, ev_fields_op.field_count, 80);
OFF(struct mrc_ctl_ev_profile_attr, vendor_cfg, 88);
SIZE(struct mrc_ctl_cc_profile_attr, 152);
OFF(struct mrc_ctl_cc_profile_attr, algorithm, 8);
OFF(struct mrc_ctl_cc_profile_attr, cc_config, 16);
OFF(struct mrc_ctl_cc_profile_attr, vendor_cfg, 24);
OFF(struct mrc_ctl_ev_event, ev, 8);
OFF(struct mrc_ctl_ev_event, drop_count, 44);
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VERSION_1_0_1
SIZE(struct mrc_ctl_ev_event, 56);
OFF(struct mrc_ctl_ev_event, state, 48);
#else
SIZE(struct mrc_ctl_ev_event, 48);
#endif
SIZE(struct mrc_ctl_ep_req, 88);
OFF(struct mrc_ctl_ep_req, sgid, 8);
OFF(struct mrc_ctl_ep_req, dgid, 24);
OFF(struct mrc_ctl_ep_req, ev_fmt_mode, 40);
OFF(struct mrc_ctl_ep_req, req_ev, 44);
OFF(struct mrc_ctl_ep_req, op, 80);
#endif

int main(void)
{
	struct mrc_ctl_ev unpopulated = MRC_CTL_EV_UNPOPULATED;
	size_t i;

	for (i = 0; i < sizeof(unpopulated.val); i++)
		if (unpopulated.val[i])
			return 1;
	if (unpopulated.port)
		return 1;
	printf("mrc API headers: layouts and constants as the interface gives them\n");
	return 0;
}
