/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The OCP MRC controller API, version 1.0.1, as rdma_mrc's libmrc
 * provides it over the "mrc" generic netlink family: ports, EV format
 * profiles, EV profiles, congestion-control profiles, EV events and
 * endpoint operations (EV probes, Port Status Updates) of an MRC device.
 *
 * One controller per node, with CAP_NET_ADMIN (EPERM otherwise).  It gets
 * its mrc_context from mrc_create_context() (<mrc.h>).  Profiles are not
 * created or destroyed: the controller names them by 64-bit ids and moves
 * them through INIT -> OFFLINE -> ONLINE and back by setting the target in
 * profile_state with the mask's STATE bit.  Unless stated otherwise a call
 * returns 0, or -1 with errno set.
 *
 * rdma_mrc's own definitions, written from the published description of
 * the interface: names, values and layouts are the interface's (x86-64
 * offsets are asserted by tools/testing/selftests/mrc/mrc_api_layout.c),
 * the wording is ours.
 */
#ifndef MRC_CTL_H
#define MRC_CTL_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <mrc.h>
#include <mrc_ctl_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_CTL_MAX_VENDOR_CFG_SIZE	128
#define MRC_CTL_EV_MAX_BYTES		32

enum mrc_ctl_protocol_version {
	MRC_CTL_PROTOCOL_VERSION_0 = 0,
	MRC_CTL_PROTOCOL_VERSION_1 = 1 << 0,
};

enum mrc_ctl_profile_state {
	MRC_CTL_PROFILE_INIT,		/* exists, not configured */
	MRC_CTL_PROFILE_OFFLINE,	/* configured, not in use; editable */
	MRC_CTL_PROFILE_ONLINE,		/* usable; few edits */
};

/* Optional capabilities, mrc_ctl_device_attr.opt_attr. */
enum mrc_ctl_attr_opt {
	MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE = 1 << 0,
	MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE = 1 << 1,
	MRC_CTL_OPT_CAP_EV_EVENT = 1 << 2,
	/* Explicit EVs only as one range: base .. base + ev_count - 1. */
	MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE = 1 << 3,
	/* drop_count is exact, not a 0/1 flag. */
	MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT = 1 << 4,
	MRC_CTL_OPT_CAP_EP_OP_EV_PROBE = 1 << 5,
};

enum mrc_ctl_port_admin_state {
	MRC_CTL_PORT_ADMIN_STATE_DISABLED,	/* the port reads IBV_PORT_DOWN */
	MRC_CTL_PORT_ADMIN_STATE_ENABLED,
};

enum mrc_ctl_port_attr_mask {
	MRC_CTL_PORT_ADMIN_STATE = 1 << 0,
};

enum mrc_ctl_ev_fmt_mode {
	MRC_CTL_EV_FMT_MODE_STEV = 1 << 0,	/* IPv6 flow label + UDP source port */
	MRC_CTL_EV_FMT_MODE_SRV6 = 1 << 1,	/* SRv6 uSIDs, SRH optional */
	MRC_CTL_EV_FMT_MODE_UDP = 1 << 2,	/* the UDP source port */
};

enum mrc_ctl_ev_fmt_op {
	MRC_CTL_EV_FMT_OP_MODIFY_FIELDS,
	MRC_CTL_EV_FMT_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_fmt_profile_attr_mask {
	MRC_CTL_EV_FMT_PROFILE_STATE = 1 << 0,
	MRC_CTL_EV_FMT_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_EV_FMT_PROFILE_MODE = 1 << 2,
	MRC_CTL_EV_FMT_PROFILE_OP = 1 << 3,
	MRC_CTL_EV_FMT_VENDOR_CFG = (int)(1u << 31),
};

enum mrc_ctl_ev_state {
	MRC_CTL_EV_GOOD = 1 << 0,
	MRC_CTL_EV_ASSUMED_BAD = 1 << 1,
	MRC_CTL_EV_DENIED = 1 << 2,
	MRC_CTL_EV_UNKNOWN = (int)(1u << 31),
};

enum mrc_ctl_ev_mode {
	MRC_CTL_EV_MODE_AUTO = 1 << 0,		/* the device's own EVs */
	MRC_CTL_EV_MODE_EXP = 1 << 1,		/* an explicit array */
	MRC_CTL_EV_MODE_GEN = 1 << 2,		/* generated from fields */
};

enum mrc_ctl_ev_op {
	MRC_CTL_EV_OP_REPLACE_EV,
	MRC_CTL_EV_OP_MODIFY_EV_STATE,
	MRC_CTL_EV_OP_QUERY_EV_STATE,
	MRC_CTL_EV_OP_QUERY_EV_ARRAY,
};

enum mrc_ctl_ev_fields_op {
	MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS,
	MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS,
};

enum mrc_ctl_ev_op_flags {
	MRC_CTL_EV_OP_F_ALL_COPIES = 1 << 0,	/* every occurrence of ev */
};

enum mrc_ctl_ev_profile_attr_mask {
	MRC_CTL_EV_PROFILE_STATE = 1 << 0,
	MRC_CTL_EV_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_EV_PROFILE_MODE = 1 << 2,
	MRC_CTL_EV_PROFILE_FMT_ID = 1 << 3,
	MRC_CTL_EV_PROFILE_COUNT = 1 << 4,
	MRC_CTL_EV_PROFILE_MIN_ACTIVE = 1 << 5,
	MRC_CTL_EV_PROFILE_EVENT_MASK = 1 << 6,
	MRC_CTL_EV_PROFILE_EV_OP = 1 << 7,
	MRC_CTL_EV_PROFILE_EV_FIELDS_OP = 1 << 8,
	MRC_CTL_EV_PROFILE_VENDOR_CFG = (int)(1u << 31),
};

enum mrc_ctl_cc_profile_attr_mask {
	MRC_CTL_CC_PROFILE_STATE = 1 << 0,
	MRC_CTL_CC_PROFILE_CUR_STATE = 1 << 1,
	MRC_CTL_CC_PROFILE_ALGORITHM = 1 << 2,
	MRC_CTL_CC_PROFILE_CONFIG = 1 << 3,
	MRC_CTL_CC_PROFILE_VENDOR_CFG = (int)(1u << 31),
};

enum mrc_ctl_ep_op_type {
	MRC_CTL_EP_OP_EV_PROBE,
	MRC_CTL_EP_OP_PORT_STATUS_UPDATE,
};

struct mrc_ctl_device_attr {
	uint32_t mrc_ctl_protocol_version;	/* enum mrc_ctl_protocol_version bits */
	struct {
		uint32_t ev_max_fmt_profiles;
		uint32_t ev_max_profiles;
		uint32_t ev_max_count;		/* EVs, all profiles */
		uint32_t ev_free_count;		/* ... not yet in a profile */
		uint32_t ev_max_count_profile;	/* EVs in one profile */
		uint32_t ev_count_align;	/* an explicit array's multiple */
		uint32_t ev_max_width;		/* EV bits in all */
		uint32_t ev_fmt_mode_mask;	/* enum mrc_ctl_ev_fmt_mode bits */
		uint32_t ev_mode_mask;		/* enum mrc_ctl_ev_mode bits */
		uint32_t ev_op_max_entries;	/* one EV op's entries; 0: any */
	} ev;
	struct {
		uint32_t cc_max_profiles;
		/* NULL-terminated; the library's, not to be freed */
		const char **algorithms;
	} cc;
	uint32_t phy_port_mask;			/* bit N: port N (1-based) */
	uint32_t opt_attr;			/* enum mrc_ctl_attr_opt bits */
};

struct mrc_ctl_port_attr {
	enum mrc_ctl_port_admin_state port_admin_state;
};

struct mrc_ctl_ev_fmt_field {
	uint8_t width;				/* bits */
};

struct mrc_ctl_ev_fmt_profile_attr {
	enum mrc_ctl_profile_state profile_state;	/* the target */
	enum mrc_ctl_profile_state cur_profile_state;
	enum mrc_ctl_ev_fmt_mode ev_fmt_mode;
	struct {
		enum mrc_ctl_ev_fmt_op op;
		struct mrc_ctl_ev_fmt_field *fmt_fields;
		int fmt_field_count;		/* in: room; out: used */
	} ev_fmt_op;
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

/*
 * An EV's value: STEV and UDP in the first 4 bytes; SRv6 the address in
 * bytes 0-15 and the single-segment SRH's in 16-31.
 */
typedef uint8_t mrc_ctl_ev_t[MRC_CTL_EV_MAX_BYTES];

struct mrc_ctl_ev {
	mrc_ctl_ev_t val;
	uint8_t port;				/* 1-based */
};

/* An explicit slot not filled yet: every byte zero, port 0. */
#ifdef __cplusplus
#define MRC_CTL_EV_UNPOPULATED (mrc_ctl_ev{})
#else
#define MRC_CTL_EV_UNPOPULATED ((struct mrc_ctl_ev){ { 0 }, 0 })
#endif

/* A field of a generated or explicit EV profile (EV expansion). */
struct mrc_ctl_ev_field {
	uint32_t width;
	uint32_t init_val;
	uint32_t min_val;			/* generated values' bounds */
	uint32_t max_val;
	uint32_t mask;				/* where EV bits go in the field */
};

struct mrc_ctl_ev_op_entry {
	struct mrc_ctl_ev ev;
	struct mrc_ctl_ev ev_new;		/* REPLACE_EV */
	enum mrc_ctl_ev_state state;
	uint32_t flags;				/* enum mrc_ctl_ev_op_flags */
};

struct mrc_ctl_ev_profile_attr {
	enum mrc_ctl_profile_state profile_state;	/* the target */
	enum mrc_ctl_profile_state cur_profile_state;
	enum mrc_ctl_ev_mode ev_mode;
	uint64_t ev_fmt_profile_id;
	uint32_t ev_count;
	uint32_t ev_min_active;			/* never fewer usable EVs */
	int ev_event_mask;			/* GOOD, ASSUMED_BAD */
	struct {
		enum mrc_ctl_ev_op op;
		struct mrc_ctl_ev_op_entry *entries;
		int entry_count;		/* in: room; out: used */
	} ev_op;
	struct {
		enum mrc_ctl_ev_fields_op op;
		struct mrc_ctl_ev_field *fields;
		int field_count;		/* in: room; out: used */
	} ev_fields_op;
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

struct mrc_ctl_cc_profile_attr {
	enum mrc_ctl_profile_state profile_state;	/* the target */
	enum mrc_ctl_profile_state cur_profile_state;
	const char *algorithm;			/* one of algorithms; NULL: none */
	const void *cc_config;			/* the algorithm's own struct */
	uint8_t vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE];
};

/* cc_config of "uet-1.0-nscc". */
struct mrc_ctl_cc_nscc_cfg {
	uint8_t disable_qa;			/* non-zero: no quick adapt */
	uint32_t adjust_bytes_threshold;	/* bytes */
	uint32_t adjust_period_threshold;	/* ns */
	uint32_t base_rtt;			/* ns */
	float eta;
	float fi;
	float fi_scale;
	float gamma;
	float max_md_jump;
	uint32_t max_cwnd;			/* bytes */
	uint8_t qa_gate;
	uint32_t qa_threshold;			/* ns */
	uint32_t target_delay;			/* ns */
};

struct mrc_ctl_ev_event {
	uint64_t profile_id;
	struct mrc_ctl_ev ev;
	uint32_t drop_count;	/* events lost before this one (or 0/1) */
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VERSION_1_0_1
	enum mrc_ctl_ev_state state;
#endif
};

struct mrc_ctl_ep_req {
	uint16_t req_id;			/* unique among those outstanding */
	union ibv_gid sgid;			/* RoCE v2 GIDs */
	union ibv_gid dgid;
	enum mrc_ctl_ev_fmt_mode ev_fmt_mode;
	struct mrc_ctl_ev req_ev;		/* the EV and port it goes on */
	union {
		struct {
			uint32_t port_status;	/* bit N: port N down */
		} port_status_update;
	} op;
};

struct mrc_ctl_ep_rsp {
	uint16_t req_id;
	uint8_t port;				/* it arrived on (1-based) */
	unsigned int rtt;			/* ns */
	uint8_t adj_svc_time;			/* rtt less the responder's time */
};

int mrc_ctl_query_device(struct ibv_context *context,
			 struct mrc_ctl_device_attr *attr);
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VERSION_1_0_1
int mrc_ctl_query_device_ex(struct ibv_context *context,
			    struct mrc_context *mcontext,
			    struct mrc_ctl_device_attr *attr, int *supported);
#endif
void mrc_ctl_query_version(uint32_t *current, uint32_t *last_supported,
			   uint32_t *vendor_current,
			   uint32_t *vendor_last_supported);

/* EINVAL, EIO, EPERM. */
int mrc_ctl_query_port(struct mrc_context *mcontext, uint8_t port_num,
		       struct mrc_ctl_port_attr *attr, int attr_mask);
int mrc_ctl_modify_port(struct mrc_context *mcontext, uint8_t port_num,
			struct mrc_ctl_port_attr *attr, int attr_mask);

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *mcontext,
				  uint64_t ev_fmt_profile_id,
				  struct mrc_ctl_ev_fmt_profile_attr *attr,
				  int attr_mask);
int mrc_ctl_query_ev_fmt_profile(struct mrc_context *mcontext,
				 uint64_t ev_fmt_profile_id,
				 struct mrc_ctl_ev_fmt_profile_attr *attr,
				 int attr_mask);
int mrc_ctl_modify_ev_profile(struct mrc_context *mcontext,
			      uint64_t ev_profile_id,
			      struct mrc_ctl_ev_profile_attr *attr,
			      int attr_mask);
int mrc_ctl_query_ev_profile(struct mrc_context *mcontext,
			     uint64_t ev_profile_id,
			     struct mrc_ctl_ev_profile_attr *attr,
			     int attr_mask);
int mrc_ctl_modify_cc_profile(struct mrc_context *mcontext,
			      uint64_t cc_profile_id,
			      struct mrc_ctl_cc_profile_attr *attr,
			      int attr_mask);
int mrc_ctl_query_cc_profile(struct mrc_context *mcontext,
			     uint64_t cc_profile_id,
			     struct mrc_ctl_cc_profile_attr *attr,
			     int attr_mask);

/* Events that find it full are dropped and counted (drop_count). */
struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *mcontext,
					  int cqe, void *cq_context,
					  struct mrc_comp_channel *channel,
					  int comp_vector);
/*
 * Events polled, or a negative errno value.  The array's stride is the
 * struct's size under the version used: a 1.0.0 caller links to the
 * entry point that writes the 1.0.0 layout.
 */
#if MRC_CTL_API_VER_USED >= MRC_CTL_API_VERSION_1_0_1
int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			  struct mrc_ctl_ev_event *events);
#else
int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			  struct mrc_ctl_ev_event *events)
	__asm__("mrc_ctl_poll_ev_event_1_0_0");
#endif

/*
 * One batch of requests of one type, sent with DSCP req_tc; waits for their
 * responses (in arrival order) or rsp_timeout ns.  EAGAIN, EINVAL, EIO,
 * ENOMEM, ENOTSUP, EPERM, ETIMEDOUT (not every response came).
 */
int mrc_ctl_ep_batch_send_wait(struct mrc_context *mcontext, uint8_t req_tc,
			       enum mrc_ctl_ep_op_type op_type,
			       struct mrc_ctl_ep_req *req, int num_req,
			       uint32_t rsp_timeout,
			       struct mrc_ctl_ep_rsp *rsp, int *num_rsp);

#ifdef __cplusplus
}
#endif

#endif /* MRC_CTL_H */
