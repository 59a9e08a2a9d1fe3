/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the controller's objects (EV format, EV and CC profiles, the
 * device's defaults), the plain requests that change them and the copies
 * that report them.  No netlink here but the extack a refusal's message
 * goes to: mrc_nl_profile.c turns attributes into requests and points a
 * refusal (struct mrc_prof_err) at the attribute it came in.
 */
#ifndef MRC_PROFILE_H
#define MRC_PROFILE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <net/netlink.h>
#include <uapi/linux/mrc_netlink.h>

#include "mrc.h"

/* Bits of an EV a format mode places in the headers. */
#define MRC_FMT_UDP_BITS	16
#define MRC_FMT_STEV_BITS	32
#define MRC_FMT_SRV6_BITS	256
#define MRC_EV_MAX_BITS		(MRC_EV_MAX_BYTES * BITS_PER_BYTE)

/* Position of the UDP source port and flow label bits in an expanded EV. */
#define MRC_EV_SPORT_BITS	16
#define MRC_EV_FLOW_BITS	16

struct mrc_fmt_cfg {
	u32 state;			/* MRC_PROFILE_STATE_* (never INIT) */
	u32 mode;			/* one MRC_EV_FMT_MODE_* bit */
	u32 nfields;
	u32 width[MRC_CTL_MAX_FIELDS];
};

struct mrc_fmt_profile {
	struct list_head node;
	u64 id;
	struct mrc_fmt_cfg cfg;
	u32 users;			/* EV profiles out of INIT using it */
	u32 online_users;		/* ... of which ONLINE */
};

struct mrc_ev_field {
	u32 width;
	u32 init_val;
	u32 min_val;
	u32 max_val;
	u32 mask;
};

/* One slot of an EV array. */
struct mrc_evp_slot {
	u8 val[MRC_EV_MAX_BYTES];	/* the EV, zero padded */
	u8 len;				/* bytes as given (0: unpopulated) */
	u8 port;			/* 1-based; 0: unpopulated */
	bool denied;
	struct mrc_path path;		/* expanded, for the datapath */
};

struct mrc_ev_cfg {
	u32 state;
	u32 mode;			/* one MRC_EV_MODE_* bit */
	struct mrc_fmt_profile *fmt;	/* EXP and GEN; holds a user */
	u32 ev_count;
	u32 ev_count_req;		/* GEN: the count asked for */
	u32 min_active;
	u32 event_mask;
	bool has_min_active;
	bool has_event_mask;
	u32 nfields;
	struct mrc_ev_field field[MRC_CTL_MAX_FIELDS];
};

struct mrc_ev_profile {
	struct list_head node;
	u64 id;
	u32 qp_count;			/* QPs bound; under ctl->lock */

	/*
	 * What the datapath reads in atomic context (cfg.min_active,
	 * cfg.event_mask, the array) changes only with @lock held, taken
	 * with bottom halves off, besides ctl->lock; a replaced array is
	 * freed after @lock is dropped.
	 */
	spinlock_t lock;
	struct mrc_ev_cfg cfg;
	struct mrc_evp_slot *slots;
	u32 nslots;
};

/*
 * MRC_NSCC_* number a CC profile's NSCC parameters (struct
 * mrc_nscc_params, mrc_cc.h) for a request that sets some of them.
 */

enum mrc_nscc_param {
	MRC_NSCC_DISABLE_QA,
	MRC_NSCC_ADJUST_BYTES_THRESHOLD,
	MRC_NSCC_ADJUST_PERIOD_THRESHOLD,
	MRC_NSCC_BASE_RTT,
	MRC_NSCC_ETA,
	MRC_NSCC_FI,
	MRC_NSCC_FI_SCALE,
	MRC_NSCC_GAMMA,
	MRC_NSCC_MAX_MD_JUMP,
	MRC_NSCC_MAX_CWND,
	MRC_NSCC_QA_GATE,
	MRC_NSCC_QA_THRESHOLD,
	MRC_NSCC_TARGET_DELAY,
	MRC_NSCC_NPARAMS,
};

#define MRC_NSCC_ALL		GENMASK(MRC_NSCC_NPARAMS - 1, 0)

struct mrc_cc_cfg {
	u32 state;
	u32 algo;			/* MRC_CC_ALGO_* */
	bool has_nscc;
	struct mrc_nscc_params nscc;
};

struct mrc_cc_profile {
	struct list_head node;
	u64 id;
	struct mrc_cc_cfg cfg;
	u32 qp_count;
};

/* The congestion-control algorithms; mrc_cc.c names them. */
enum {
	MRC_CC_ALGO_NONE,
	MRC_CC_ALGO_NSCC,
	MRC_CC_NALGOS,			/* in a request: an unknown name */
};

/*
 * What a refused request points at, for the caller to report (netlink:
 * the bad attribute, and the missing one).  Fields are the request's own
 * MRC_PROF_F_* / MRC_*_F_* values, 0 for none; parts are an object's own
 * numbering of what a field holds (an NSCC parameter, an entry's value),
 * 0 for the field itself.
 */
struct mrc_prof_err {
	u8 field;			/* the bad field ... */
	u8 part;			/* ... or this part of it ... */
	u16 index;			/* ... of its instance 1 + i (0: last) */
	u8 missing;			/* a required field that is absent */
	u8 missing_part;		/* ... or a part absent from @field */
};

/* The fields every profile set request has; object fields follow them. */
enum {
	MRC_PROF_F_NONE,
	MRC_PROF_F_ID,
	MRC_PROF_F_STATE,
	MRC_PROF_F_CUR_STATE,
	MRC_PROF_F_OBJ,			/* the first of an object's own */
};

/* What every set request carries, first. */
struct mrc_prof_args {
	u64 id;				/* non-zero */
	u32 state;
	u32 cur_state;
	bool has_state;
	bool has_cur_state;
	struct netlink_ext_ack *extack;	/* the message of a refusal */
	struct mrc_prof_err err;	/* ... and what it points at */
};

/*
 * Refuse request @args (any request struct with an extack and an err)
 * because of its field @f: message @msg (a string literal) into its
 * extack.
 */
#define mrc_prof_refuse(args, f, msg) do {			\
	typeof(args) __refused = (args);				\
								\
	NL_SET_ERR_MSG(__refused->extack, msg);			\
	__refused->err.field = (f);				\
} while (0)

/* ... because @f, required, is absent. */
#define mrc_prof_require(args, f, msg) do {			\
	typeof(args) __required = (args);			\
								\
	NL_SET_ERR_MSG(__required->extack, msg);		\
	__required->err.missing = (f);				\
} while (0)

/* A dev-set request's part for the controller: the device's defaults. */
enum {
	MRC_DEV_F_DEF_EV = MRC_PROF_F_OBJ,
	MRC_DEV_F_DEF_CC,
};

struct mrc_dev_args {
	bool has_def_ev;
	bool has_def_cc;
	bool has_skip_hold;
	u64 def_ev;			/* 0: the built-in behaviour */
	u64 def_cc;
	u32 skip_hold_us;
	struct netlink_ext_ack *extack;
	struct mrc_prof_err err;
};

/* The controller's part of a device's description. */
struct mrc_dev_info {
	u64 def_ev;
	u64 def_cc;
	u32 ev_free;			/* EV slots no profile holds */
	u32 skip_hold_us;
	u64 ev_event_drops;
};

/* An EV format profile set request: state, mode, the fields' widths. */
enum {
	MRC_FMT_F_MODE = MRC_PROF_F_OBJ,
	MRC_FMT_F_FIELD,
};

struct mrc_fmt_args {
	struct mrc_prof_args prof;
	bool has_mode;
	u32 mode;			/* MRC_EV_FMT_MODE_* (one bit) */
	bool has_fields;		/* the fields are replaced by these */
	u32 nfields;
	u32 width[MRC_CTL_MAX_FIELDS];
};

/* An EV format profile as read, for a reply. */
struct mrc_fmt_info {
	u64 id;
	struct mrc_fmt_cfg cfg;
	u32 users;
};

/* An EV profile set or get request; its entries' parts are MRC_EV_E_*. */
enum {
	MRC_EV_F_MODE = MRC_PROF_F_OBJ,
	MRC_EV_F_FMT,
	MRC_EV_F_COUNT,
	MRC_EV_F_MIN_ACTIVE,
	MRC_EV_F_EVENT_MASK,
	MRC_EV_F_FIELD,
	MRC_EV_F_OP,
	MRC_EV_F_ENTRY,
};

enum {
	MRC_EV_E_STATE = 1,
	MRC_EV_E_INDEX,
	MRC_EV_E_VALUE,
	MRC_EV_E_PORT,
	MRC_EV_E_NEW_VALUE,
	MRC_EV_E_NEW_PORT,
	MRC_EV_E_NPARTS = MRC_EV_E_NEW_PORT,
};

/* An EV given by value: @len bytes of @val (zero padded), port @port. */
struct mrc_ev_val {
	u8 val[MRC_EV_MAX_BYTES];
	u8 len;
	u8 port;
};

/*
 * One entry of an EV operation as the request gives it: the slot it
 * names (by index, or by value and port), the state, and for REPLACE the
 * new EV.  Which of them a request needs depends on the operation, so
 * the profile code checks that.
 */
struct mrc_ev_entry_args {
	bool has_state;
	bool has_index;
	bool has_value;
	bool has_port;
	bool has_new_value;
	bool has_new_port;
	u32 state;			/* MRC_EV_STATE_* */
	u32 index;
	u32 flags;			/* MRC_EV_OP_FLAGS_* */
	struct mrc_ev_val ev;
	struct mrc_ev_val new_ev;
};

struct mrc_ev_args {
	struct mrc_prof_args prof;
	bool has_mode;
	bool has_fmt;
	bool has_count;
	bool has_min_active;
	bool has_event_mask;
	bool has_fields;
	bool has_op;
	u32 mode;			/* MRC_EV_MODE_* (one bit) */
	u64 fmt_id;
	u32 count;
	u32 min_active;
	u32 event_mask;
	u32 nfields;
	struct mrc_ev_field field[MRC_CTL_MAX_FIELDS];
	u32 op;				/* MRC_EV_OP_* */
	u32 nentries;			/* at most MRC_CTL_EV_OP_MAX_ENTRIES */
	struct mrc_ev_entry_args *entries;
};

/*
 * An EV profile as read, for a reply: its configuration, each slot's
 * state as queries report it, and (when asked for) a copy of its array
 * and the slots a query names.
 */
struct mrc_ev_info {
	u64 id;
	struct mrc_ev_cfg cfg;		/* cfg.fmt: not to be followed */
	u64 fmt_id;			/* 0: none */
	u32 qp_count;
	u32 usable;
	u32 nslots;
	struct mrc_evp_slot *slots;	/* NULL unless asked for */
	u32 *states;			/* ... the same */
	u32 *query;			/* the slots the query names, in order */
	u32 nquery;
};

/* What mrc_ev_read() copies besides the configuration. */
#define MRC_EV_READ_ARRAY	BIT(0)

/* A CC profile set request: state, algorithm, some NSCC parameters. */
enum {
	MRC_CC_F_ALGO = MRC_PROF_F_OBJ,
	MRC_CC_F_NSCC,
};

struct mrc_cc_args {
	struct mrc_prof_args prof;
	bool has_algo;
	u32 algo;			/* MRC_CC_ALGO_* */
	bool has_nscc;			/* NSCC parameters are set ... */
	u32 nscc_given;			/* ... these: BIT(MRC_NSCC_*) */
	struct mrc_nscc_params nscc;
};

/* A CC profile as read, for a reply. */
struct mrc_cc_info {
	u64 id;
	struct mrc_cc_cfg cfg;
	u32 qp_count;
};

struct mrc_ctl {
	/* Serialises every change of the controller's objects. */
	struct mutex lock;
	struct list_head fmts;		/* sorted by id */
	struct list_head evps;
	struct list_head ccs;
	u32 nfmts;
	u32 nevps;
	u32 nccs;
	u32 ev_used;			/* slots of all EV profiles */
	struct mrc_ev_profile *def_ev;	/* NULL: built in */
	struct mrc_cc_profile *def_cc;
	u32 skip_hold_us;

	/* EV events (mrc_nl.c): rate bound and drops; atomic context. */
	spinlock_t ev_lock;
	unsigned long ev_window;	/* jiffies the window started */
	u32 ev_in_window;
	u32 ev_pending_drops;
	atomic64_t ev_drops;
};

/* mrc_profile.c: what the objects share; the device's defaults */
struct list_head *mrc_prof_find(struct list_head *head, u64 id);
struct list_head *mrc_prof_next(struct list_head *head, u64 id);
void mrc_prof_insert(struct list_head *head, struct list_head *node);
int mrc_prof_state_target(struct mrc_prof_args *args, u32 cur, u32 *target);
int mrc_prof_leave_online(struct mrc_prof_args *args, u32 qp_count,
			  bool is_default);
int mrc_profile_dev_set(struct mrc_dev *dev, struct mrc_dev_args *args);
void mrc_profile_dev_read(struct mrc_dev *dev, struct mrc_dev_info *info);

/* mrc_fmt.c: EV format profiles */
int mrc_fmt_set(struct mrc_dev *dev, struct mrc_fmt_args *args);
int mrc_fmt_read(struct mrc_dev *dev, u64 id, bool next,
		 struct mrc_fmt_info *info);
struct mrc_fmt_profile *mrc_fmt_find(struct mrc_ctl *ctl, u64 id);
void mrc_fmt_free_all(struct mrc_ctl *ctl);
u32 mrc_fmt_width(const struct mrc_fmt_cfg *f);
u32 mrc_fmt_mode_bits(u32 mode);

/* mrc_ev_profile.c: EV profiles */
int mrc_ev_set(struct mrc_dev *dev, struct mrc_ev_args *args);
int mrc_ev_get(struct mrc_dev *dev, struct mrc_ev_args *args,
	       struct mrc_ev_info *info);
int mrc_ev_read(struct mrc_dev *dev, u64 id, bool next, u32 what,
		struct mrc_ev_info *info);
void mrc_ev_info_release(struct mrc_ev_info *info);
struct mrc_ev_profile *mrc_evp_find(struct mrc_ctl *ctl, u64 id);
bool mrc_evp_is_srv6(const struct mrc_ev_profile *p);
void mrc_ev_free_all(struct mrc_ctl *ctl);
/* For events: the value bytes and port of slot @slot of @qp's profile. */
bool mrc_profile_qp_ev_value(struct mrc_qp *qp, u32 slot, u8 *val, u8 *len,
			     u8 *port, u64 *profile_id, u32 *event_mask);

/* mrc_cc.c: CC profiles */
int mrc_cc_set(struct mrc_dev *dev, struct mrc_cc_args *args);
int mrc_cc_read(struct mrc_dev *dev, u64 id, bool next,
		struct mrc_cc_info *info);
struct mrc_cc_profile *mrc_cc_find(struct mrc_ctl *ctl, u64 id);
void mrc_cc_free_all(struct mrc_ctl *ctl);
const char *mrc_cc_algo_name(u32 algo);
u32 *mrc_nscc_param(struct mrc_nscc_params *p, unsigned int i);
u32 mrc_cc_algo_lookup(const char *name);

#endif /* MRC_PROFILE_H */
