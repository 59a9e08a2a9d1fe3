/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_MRC_NETLINK_H
#define _UAPI_LINUX_MRC_NETLINK_H

#define MRC_FAMILY_NAME		"mrc"
#define MRC_FAMILY_VERSION	1

#define MRC_EV_MAX_BYTES	32
#define MRC_GID_LEN		16
#define MRC_MAX_PORTS		31
#define MRC_DEV_NAME_MAX	63
#define MRC_ALGO_NAME_MAX	31
#define MRC_FRACTION_ONE	1000000

/**
 * enum mrc_protocol_version - MRC wire protocol versions, as a bitmap.
 * @MRC_PROTOCOL_VERSION_V1: MRC version 1.
 */
enum mrc_protocol_version {
	MRC_PROTOCOL_VERSION_V1 = 1,
};

/**
 * enum mrc_profile_state - Life cycle of a profile (EV format, EV and CC
 *   profiles). The only transitions are INIT to OFFLINE, OFFLINE to ONLINE,
 *   ONLINE to OFFLINE and OFFLINE to INIT.
 * @MRC_PROFILE_STATE_INIT: Not configured. Every profile id that was never
 *   configured, or was taken back to INIT, is in this state and holds nothing.
 * @MRC_PROFILE_STATE_OFFLINE: Configured but not usable by QPs; every
 *   attribute may change.
 * @MRC_PROFILE_STATE_ONLINE: Usable by QPs; only some attributes may change.
 */
enum mrc_profile_state {
	MRC_PROFILE_STATE_INIT,
	MRC_PROFILE_STATE_OFFLINE,
	MRC_PROFILE_STATE_ONLINE,

	/* private: */
	__MRC_PROFILE_STATE_MAX,
	MRC_PROFILE_STATE_MAX = (__MRC_PROFILE_STATE_MAX - 1)
};

/**
 * enum mrc_port_admin_state - Administrative state of a port, set by the
 *   controller.
 * @MRC_PORT_ADMIN_STATE_DISABLED: The port carries no traffic and reads as
 *   PORT_DOWN, whatever its netdev's state.
 * @MRC_PORT_ADMIN_STATE_ENABLED: The port follows its netdev (the default).
 */
enum mrc_port_admin_state {
	MRC_PORT_ADMIN_STATE_DISABLED,
	MRC_PORT_ADMIN_STATE_ENABLED,

	/* private: */
	__MRC_PORT_ADMIN_STATE_MAX,
	MRC_PORT_ADMIN_STATE_MAX = (__MRC_PORT_ADMIN_STATE_MAX - 1)
};

/**
 * enum mrc_port_state - Operational state of a port, with the values of the
 *   verbs port states (enum ibv_port_state).
 * @MRC_PORT_STATE_NOP: No state reported.
 * @MRC_PORT_STATE_DOWN: Down (netdev down, no carrier, or admin state
 *   disabled).
 * @MRC_PORT_STATE_INIT: Not used by rdma_mrc.
 * @MRC_PORT_STATE_ARMED: Not used by rdma_mrc.
 * @MRC_PORT_STATE_ACTIVE: Up and carrying traffic.
 */
enum mrc_port_state {
	MRC_PORT_STATE_NOP,
	MRC_PORT_STATE_DOWN,
	MRC_PORT_STATE_INIT,
	MRC_PORT_STATE_ARMED,
	MRC_PORT_STATE_ACTIVE,
};

/**
 * enum mrc_ev_fmt_mode - How the bits of an EV reach the packet headers. A
 *   format profile has exactly one mode; the device reports the modes it
 *   supports as a mask.
 * @MRC_EV_FMT_MODE_STEV: Structured EV: 32 bits, the first 16 in the UDP
 *   source port and the next 16 in the low bits of the IPv6 flow label (IPv4:
 *   16 bits).
 * @MRC_EV_FMT_MODE_SRV6: SRv6 uSID: a 128-bit outer IPv6 destination,
 *   optionally followed by a 128-bit single-segment SRH. Stored only; QPs
 *   cannot use it yet (EOPNOTSUPP).
 * @MRC_EV_FMT_MODE_UDP: The whole EV (16 bits) in the UDP source port.
 */
enum mrc_ev_fmt_mode {
	MRC_EV_FMT_MODE_STEV = 1,
	MRC_EV_FMT_MODE_SRV6 = 2,
	MRC_EV_FMT_MODE_UDP = 4,

	/* private: */
	MRC_EV_FMT_MODE_MASK = 7,
};

/**
 * enum mrc_ev_mode - Where the EVs of an EV profile come from. An EV profile
 *   has exactly one mode; the device reports the modes it supports as a mask.
 * @MRC_EV_MODE_AUTO: The device chooses the EVs for each QP itself (ECMP over
 *   the UDP source port); there is no format, no fields and no EV array.
 * @MRC_EV_MODE_EXP: Explicit: the controller fills every slot of the EV array
 *   with REPLACE operations.
 * @MRC_EV_MODE_GEN: Generated: the device generates the EV array from the
 *   profile's fields.
 */
enum mrc_ev_mode {
	MRC_EV_MODE_AUTO = 1,
	MRC_EV_MODE_EXP = 2,
	MRC_EV_MODE_GEN = 4,

	/* private: */
	MRC_EV_MODE_MASK = 7,
};

/**
 * enum mrc_ev_state - State of one EV. A state attribute holds exactly one
 *   bit; an event mask holds any combination.
 * @MRC_EV_STATE_GOOD: Usable; the only state the datapath sends on.
 * @MRC_EV_STATE_ASSUMED_BAD: Excluded after a retransmission timeout
 *   attributed to this EV or a SACK with M=ALWAYS_SKIP; GOOD again only after
 *   a successful EV probe on it.
 * @MRC_EV_STATE_DENIED: Excluded by the controller; only the controller clears
 *   it.
 * @MRC_EV_STATE_SKIP: Excluded for a hold time after an ECN echo (M=SKIP_ONCE)
 *   or a trim NACK; GOOD again when the hold time has passed.
 */
enum mrc_ev_state {
	MRC_EV_STATE_GOOD = 1,
	MRC_EV_STATE_ASSUMED_BAD = 2,
	MRC_EV_STATE_DENIED = 4,
	MRC_EV_STATE_SKIP = 8,

	/* private: */
	MRC_EV_STATE_MASK = 15,
};

/**
 * enum mrc_cc_event - What last changed a QP's congestion window (qp-get
 *   cc-event; the tracepoint rdma_mrc:mrc_cc_window reports each change).
 * @MRC_CC_EVENT_NONE: Nothing yet, or the algorithm keeps no window (none).
 * @MRC_CC_EVENT_INCREASE: A fulfil period added the pending proportional or
 *   fair increase.
 * @MRC_CC_EVENT_FAST_INCREASE: A window of bytes arrived with no queueing
 *   delay.
 * @MRC_CC_EVENT_DECREASE: Multiplicative decrease on ECN with the delay past
 *   its target.
 * @MRC_CC_EVENT_QUICK_ADAPT: Quick adapt set the window to what the last
 *   period delivered.
 * @MRC_CC_EVENT_NACK: A trim NACK took a packet's size off the window.
 * @MRC_CC_EVENT_TIMEOUT: A retransmission timeout took a packet's size off the
 *   window.
 * @MRC_CC_EVENT_PENALTY: The receiver's window penalty (CC_STATE
 *   rcv_cwnd_pen).
 */
enum mrc_cc_event {
	MRC_CC_EVENT_NONE,
	MRC_CC_EVENT_INCREASE,
	MRC_CC_EVENT_FAST_INCREASE,
	MRC_CC_EVENT_DECREASE,
	MRC_CC_EVENT_QUICK_ADAPT,
	MRC_CC_EVENT_NACK,
	MRC_CC_EVENT_TIMEOUT,
	MRC_CC_EVENT_PENALTY,
};

/**
 * enum mrc_ev_op - Operation on the EV array of an EV profile.
 * @MRC_EV_OP_REPLACE: Replace EVs (ev-profile-set): each entry names the EV to
 *   replace (value and port, or its slot index) and gives the new value, port
 *   and state.
 * @MRC_EV_OP_MODIFY_STATE: Set the state of EVs (ev-profile-set): to DENIED,
 *   or from DENIED back to GOOD.
 * @MRC_EV_OP_QUERY_STATE: Report the state of the EVs the request names
 *   (ev-profile-get).
 * @MRC_EV_OP_QUERY_ARRAY: Report the whole EV array (ev-profile-get).
 */
enum mrc_ev_op {
	MRC_EV_OP_REPLACE,
	MRC_EV_OP_MODIFY_STATE,
	MRC_EV_OP_QUERY_STATE,
	MRC_EV_OP_QUERY_ARRAY,
};

/**
 * enum mrc_ev_op_flags - Flags of one EV operation entry.
 * @MRC_EV_OP_FLAGS_ALL_COPIES: REPLACE: replace every slot holding the EV, not
 *   only the first one.
 */
enum mrc_ev_op_flags {
	MRC_EV_OP_FLAGS_ALL_COPIES = 1,

	/* private: */
	MRC_EV_OP_FLAGS_MASK = 1,
};

/**
 * enum mrc_ev_reason - Why an EV changed state (in EV events).
 * @MRC_EV_REASON_ECN: A SACK echoed ECN on this EV (M=SKIP_ONCE).
 * @MRC_EV_REASON_TRIM: A TRIMMED NACK named this EV.
 * @MRC_EV_REASON_TIMEOUT: A retransmission timeout was attributed to this EV.
 * @MRC_EV_REASON_ALWAYS_SKIP: A SACK marked this EV M=ALWAYS_SKIP.
 * @MRC_EV_REASON_HOLD_EXPIRED: The SKIP hold time passed.
 * @MRC_EV_REASON_PROBE: An EV probe on this EV succeeded.
 * @MRC_EV_REASON_CONTROLLER: The controller changed the state (modify-state or
 *   replace).
 * @MRC_EV_REASON_MIN_ACTIVE: Excluding the EV would leave fewer than
 *   ev-min-active usable EVs, so the least bad excluded EV stays in use.
 * @MRC_EV_REASON_LOSS: The SACKs showed a packet sent on this EV lost without
 *   a trace (a hole past the reordering window, no trim NACK).
 * @MRC_EV_REASON_SPURIOUS: The packet whose loss made this EV suspect arrived
 *   after all (it was only late): the suspicion is withdrawn.
 */
enum mrc_ev_reason {
	MRC_EV_REASON_ECN,
	MRC_EV_REASON_TRIM,
	MRC_EV_REASON_TIMEOUT,
	MRC_EV_REASON_ALWAYS_SKIP,
	MRC_EV_REASON_HOLD_EXPIRED,
	MRC_EV_REASON_PROBE,
	MRC_EV_REASON_CONTROLLER,
	MRC_EV_REASON_MIN_ACTIVE,
	MRC_EV_REASON_LOSS,
	MRC_EV_REASON_SPURIOUS,
};

/**
 * enum mrc_dev_caps - Optional capabilities of a device.
 * @MRC_DEV_CAPS_EV_PROFILE_MODIFY_ONLINE: The event mask, EV replacement and
 *   the fields of an ONLINE EV profile may change.
 * @MRC_DEV_CAPS_CC_PROFILE_MODIFY_ONLINE: The NSCC parameters of an ONLINE CC
 *   profile may change.
 * @MRC_DEV_CAPS_EV_EVENT: The device sends EV events.
 * @MRC_DEV_CAPS_EV_EXPLICIT_RANGE: Explicit EV arrays must be one contiguous
 *   range of values (rdma_mrc does not set this).
 * @MRC_DEV_CAPS_EV_EVENT_PRECISE_DROP_CNT: The drop count of an EV event is
 *   exact, not a flag.
 * @MRC_DEV_CAPS_EP_OP_EV_PROBE: The device sends EV probes (endpoint
 *   operation).
 * @MRC_DEV_CAPS_EP_OP_PORT_STATUS_UPDATE: The device sends Port Status Updates
 *   (endpoint operation).
 * @MRC_DEV_CAPS_MULTI_PLANE: The device may have several ports, one per netdev
 *   (plane).
 */
enum mrc_dev_caps {
	MRC_DEV_CAPS_EV_PROFILE_MODIFY_ONLINE = 1,
	MRC_DEV_CAPS_CC_PROFILE_MODIFY_ONLINE = 2,
	MRC_DEV_CAPS_EV_EVENT = 4,
	MRC_DEV_CAPS_EV_EXPLICIT_RANGE = 8,
	MRC_DEV_CAPS_EV_EVENT_PRECISE_DROP_CNT = 16,
	MRC_DEV_CAPS_EP_OP_EV_PROBE = 32,
	MRC_DEV_CAPS_EP_OP_PORT_STATUS_UPDATE = 64,
	MRC_DEV_CAPS_MULTI_PLANE = 128,

	/* private: */
	MRC_DEV_CAPS_MASK = 255,
};

/**
 * enum mrc_ep_op_type - Endpoint operation, sent on the reserved QP 0x2.
 * @MRC_EP_OP_TYPE_EV_PROBE: EV probe: ask the peer to answer on the same EV;
 *   measures the RTT and tells whether the EV's path works.
 * @MRC_EP_OP_TYPE_PORT_STATUS_UPDATE: Port Status Update: tell the peer which
 *   of our ports are down, so that every QP towards us avoids their planes.
 */
enum mrc_ep_op_type {
	MRC_EP_OP_TYPE_EV_PROBE,
	MRC_EP_OP_TYPE_PORT_STATUS_UPDATE,
};

enum {
	MRC_A_DEVICE_DEV_INDEX = 1,
	MRC_A_DEVICE_DEV_NAME,
	MRC_A_DEVICE_PAD,
	MRC_A_DEVICE_PROTOCOL_VERSION,
	MRC_A_DEVICE_EV_MAX_FMT_PROFILES,
	MRC_A_DEVICE_EV_MAX_PROFILES,
	MRC_A_DEVICE_EV_MAX_COUNT,
	MRC_A_DEVICE_EV_FREE_COUNT,
	MRC_A_DEVICE_EV_MAX_COUNT_PROFILE,
	MRC_A_DEVICE_EV_COUNT_ALIGN,
	MRC_A_DEVICE_EV_MAX_WIDTH,
	MRC_A_DEVICE_EV_FMT_MODES,
	MRC_A_DEVICE_EV_MODES,
	MRC_A_DEVICE_EV_OP_MAX_ENTRIES,
	MRC_A_DEVICE_CC_MAX_PROFILES,
	MRC_A_DEVICE_CC_ALGORITHM,
	MRC_A_DEVICE_PORT_MASK,
	MRC_A_DEVICE_CAPS,
	MRC_A_DEVICE_DEFAULT_EV_PROFILE,
	MRC_A_DEVICE_DEFAULT_CC_PROFILE,
	MRC_A_DEVICE_EV_SKIP_HOLD_US,
	MRC_A_DEVICE_EP_MAX_REQS,
	MRC_A_DEVICE_EV_EVENT_DROPS,
	MRC_A_DEVICE_NETDEV_IFINDEX,

	__MRC_A_DEVICE_MAX,
	MRC_A_DEVICE_MAX = (__MRC_A_DEVICE_MAX - 1)
};

enum {
	MRC_A_CC_ALGORITHM_NAME = 1,

	__MRC_A_CC_ALGORITHM_MAX,
	MRC_A_CC_ALGORITHM_MAX = (__MRC_A_CC_ALGORITHM_MAX - 1)
};

enum {
	MRC_A_PORT_DEV_INDEX = 1,
	MRC_A_PORT_DEV_NAME,
	MRC_A_PORT_PORT_INDEX,
	MRC_A_PORT_IFINDEX,
	MRC_A_PORT_IFNAME,
	MRC_A_PORT_ADMIN_STATE,
	MRC_A_PORT_STATE,

	__MRC_A_PORT_MAX,
	MRC_A_PORT_MAX = (__MRC_A_PORT_MAX - 1)
};

enum {
	MRC_A_FMT_FIELD_WIDTH = 1,

	__MRC_A_FMT_FIELD_MAX,
	MRC_A_FMT_FIELD_MAX = (__MRC_A_FMT_FIELD_MAX - 1)
};

enum {
	MRC_A_EV_FMT_PROFILE_DEV_INDEX = 1,
	MRC_A_EV_FMT_PROFILE_DEV_NAME,
	MRC_A_EV_FMT_PROFILE_PAD,
	MRC_A_EV_FMT_PROFILE_ID,
	MRC_A_EV_FMT_PROFILE_STATE,
	MRC_A_EV_FMT_PROFILE_CUR_STATE,
	MRC_A_EV_FMT_PROFILE_MODE,
	MRC_A_EV_FMT_PROFILE_FIELD,
	MRC_A_EV_FMT_PROFILE_ARRAY_SIZE,
	MRC_A_EV_FMT_PROFILE_WIDTH,
	MRC_A_EV_FMT_PROFILE_USERS,

	__MRC_A_EV_FMT_PROFILE_MAX,
	MRC_A_EV_FMT_PROFILE_MAX = (__MRC_A_EV_FMT_PROFILE_MAX - 1)
};

enum {
	MRC_A_EV_FIELD_WIDTH = 1,
	MRC_A_EV_FIELD_INIT_VAL,
	MRC_A_EV_FIELD_MIN_VAL,
	MRC_A_EV_FIELD_MAX_VAL,
	MRC_A_EV_FIELD_MASK,

	__MRC_A_EV_FIELD_MAX,
	MRC_A_EV_FIELD_MAX = (__MRC_A_EV_FIELD_MAX - 1)
};

enum {
	MRC_A_EV_ENTRY_INDEX = 1,
	MRC_A_EV_ENTRY_VALUE,
	MRC_A_EV_ENTRY_PORT,
	MRC_A_EV_ENTRY_NEW_VALUE,
	MRC_A_EV_ENTRY_NEW_PORT,
	MRC_A_EV_ENTRY_STATE,
	MRC_A_EV_ENTRY_FLAGS,

	__MRC_A_EV_ENTRY_MAX,
	MRC_A_EV_ENTRY_MAX = (__MRC_A_EV_ENTRY_MAX - 1)
};

enum {
	MRC_A_EV_PROFILE_DEV_INDEX = 1,
	MRC_A_EV_PROFILE_DEV_NAME,
	MRC_A_EV_PROFILE_PAD,
	MRC_A_EV_PROFILE_ID,
	MRC_A_EV_PROFILE_STATE,
	MRC_A_EV_PROFILE_CUR_STATE,
	MRC_A_EV_PROFILE_MODE,
	MRC_A_EV_PROFILE_FMT_PROFILE_ID,
	MRC_A_EV_PROFILE_EV_COUNT,
	MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
	MRC_A_EV_PROFILE_EVENT_MASK,
	MRC_A_EV_PROFILE_FIELD,
	MRC_A_EV_PROFILE_EV_OP,
	MRC_A_EV_PROFILE_EV,
	MRC_A_EV_PROFILE_ARRAY_SIZE,
	MRC_A_EV_PROFILE_QP_COUNT,
	MRC_A_EV_PROFILE_EV_USABLE,

	__MRC_A_EV_PROFILE_MAX,
	MRC_A_EV_PROFILE_MAX = (__MRC_A_EV_PROFILE_MAX - 1)
};

enum {
	MRC_A_NSCC_DISABLE_QA = 1,
	MRC_A_NSCC_ADJUST_BYTES_THRESHOLD,
	MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD,
	MRC_A_NSCC_BASE_RTT,
	MRC_A_NSCC_ETA,
	MRC_A_NSCC_FI,
	MRC_A_NSCC_FI_SCALE,
	MRC_A_NSCC_GAMMA,
	MRC_A_NSCC_MAX_MD_JUMP,
	MRC_A_NSCC_MAX_CWND,
	MRC_A_NSCC_QA_GATE,
	MRC_A_NSCC_QA_THRESHOLD,
	MRC_A_NSCC_TARGET_DELAY,

	__MRC_A_NSCC_MAX,
	MRC_A_NSCC_MAX = (__MRC_A_NSCC_MAX - 1)
};

enum {
	MRC_A_CC_PROFILE_DEV_INDEX = 1,
	MRC_A_CC_PROFILE_DEV_NAME,
	MRC_A_CC_PROFILE_PAD,
	MRC_A_CC_PROFILE_ID,
	MRC_A_CC_PROFILE_STATE,
	MRC_A_CC_PROFILE_CUR_STATE,
	MRC_A_CC_PROFILE_ALGORITHM,
	MRC_A_CC_PROFILE_NSCC,
	MRC_A_CC_PROFILE_QP_COUNT,

	__MRC_A_CC_PROFILE_MAX,
	MRC_A_CC_PROFILE_MAX = (__MRC_A_CC_PROFILE_MAX - 1)
};

enum {
	MRC_A_QP_DEV_INDEX = 1,
	MRC_A_QP_DEV_NAME,
	MRC_A_QP_PAD,
	MRC_A_QP_QPN,
	MRC_A_QP_EV_PROFILE_ID,
	MRC_A_QP_CC_PROFILE_ID,
	MRC_A_QP_EXPLICIT,
	MRC_A_QP_PEER_GID,
	MRC_A_QP_EV_COUNT,
	MRC_A_QP_EV_USABLE,
	MRC_A_QP_SRTT_US,
	MRC_A_QP_MIN_RTT_US,
	MRC_A_QP_REO_WND_US,
	MRC_A_QP_EV,
	MRC_A_QP_CWND,
	MRC_A_QP_INFLIGHT_BYTES,
	MRC_A_QP_BASE_RTT_NS,
	MRC_A_QP_AVG_DELAY_NS,
	MRC_A_QP_CC_EVENT,

	__MRC_A_QP_MAX,
	MRC_A_QP_MAX = (__MRC_A_QP_MAX - 1)
};

enum {
	MRC_A_QP_EV_INDEX = 1,
	MRC_A_QP_EV_STATE,
	MRC_A_QP_EV_SCORE,

	__MRC_A_QP_EV_MAX,
	MRC_A_QP_EV_MAX = (__MRC_A_QP_EV_MAX - 1)
};

enum {
	MRC_A_EP_REQ_REQ_ID = 1,
	MRC_A_EP_REQ_SGID,
	MRC_A_EP_REQ_DGID,
	MRC_A_EP_REQ_EV_FMT_MODE,
	MRC_A_EP_REQ_EV_VALUE,
	MRC_A_EP_REQ_PORT,
	MRC_A_EP_REQ_PORT_STATUS,

	__MRC_A_EP_REQ_MAX,
	MRC_A_EP_REQ_MAX = (__MRC_A_EP_REQ_MAX - 1)
};

enum {
	MRC_A_EP_RSP_REQ_ID = 1,
	MRC_A_EP_RSP_PORT,
	MRC_A_EP_RSP_RTT,
	MRC_A_EP_RSP_ADJ_SVC_TIME,
	MRC_A_EP_RSP_TIMED_OUT,

	__MRC_A_EP_RSP_MAX,
	MRC_A_EP_RSP_MAX = (__MRC_A_EP_RSP_MAX - 1)
};

enum {
	MRC_A_EP_DEV_INDEX = 1,
	MRC_A_EP_DEV_NAME,
	MRC_A_EP_OP_TYPE,
	MRC_A_EP_DSCP,
	MRC_A_EP_TIMEOUT,
	MRC_A_EP_REQ,
	MRC_A_EP_RSP,

	__MRC_A_EP_MAX,
	MRC_A_EP_MAX = (__MRC_A_EP_MAX - 1)
};

enum {
	MRC_A_EV_EVENT_DEV_INDEX = 1,
	MRC_A_EV_EVENT_DEV_NAME,
	MRC_A_EV_EVENT_PAD,
	MRC_A_EV_EVENT_PROFILE_ID,
	MRC_A_EV_EVENT_VALUE,
	MRC_A_EV_EVENT_PORT,
	MRC_A_EV_EVENT_STATE,
	MRC_A_EV_EVENT_PREV_STATE,
	MRC_A_EV_EVENT_REASON,
	MRC_A_EV_EVENT_QPN,
	MRC_A_EV_EVENT_DROP_COUNT,
	MRC_A_EV_EVENT_EV_USABLE,
	MRC_A_EV_EVENT_TIMESTAMP,

	__MRC_A_EV_EVENT_MAX,
	MRC_A_EV_EVENT_MAX = (__MRC_A_EV_EVENT_MAX - 1)
};

enum {
	MRC_A_PEER_STATUS_DEV_INDEX = 1,
	MRC_A_PEER_STATUS_DEV_NAME,
	MRC_A_PEER_STATUS_PORT,
	MRC_A_PEER_STATUS_PEER_GID,
	MRC_A_PEER_STATUS_PORT_STATUS,

	__MRC_A_PEER_STATUS_MAX,
	MRC_A_PEER_STATUS_MAX = (__MRC_A_PEER_STATUS_MAX - 1)
};

enum {
	MRC_CMD_DEV_GET = 1,
	MRC_CMD_DEV_SET,
	MRC_CMD_DEV_NEW,
	MRC_CMD_DEV_DEL,
	MRC_CMD_PORT_GET,
	MRC_CMD_PORT_SET,
	MRC_CMD_EV_FMT_PROFILE_GET,
	MRC_CMD_EV_FMT_PROFILE_SET,
	MRC_CMD_EV_PROFILE_GET,
	MRC_CMD_EV_PROFILE_SET,
	MRC_CMD_EV_GET,
	MRC_CMD_CC_PROFILE_GET,
	MRC_CMD_CC_PROFILE_SET,
	MRC_CMD_QP_GET,
	MRC_CMD_EP_OP,
	MRC_CMD_EV_EVENT,
	MRC_CMD_PEER_STATUS_EVENT,

	__MRC_CMD_MAX,
	MRC_CMD_MAX = (__MRC_CMD_MAX - 1)
};

#define MRC_MCGRP_EV	"ev"
#define MRC_MCGRP_EP	"ep"

#endif /* _UAPI_LINUX_MRC_NETLINK_H */
