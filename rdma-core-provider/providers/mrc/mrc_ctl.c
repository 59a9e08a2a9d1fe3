// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmrc: the OCP MRC controller API (<mrc_ctl.h>) over rdma_mrc's "mrc"
 * generic netlink family (Documentation/netlink/specs/mrc.yaml): device
 * limits, port admin state, EV format, EV and CC profiles, EV events and
 * endpoint operations.  Documentation/mrc/libmrc.rst says how each call
 * maps and answers the questions the API leaves open.
 *
 * A context's controller state (its netlink socket and what it caches of
 * the device) is made by its first controller call and freed with the
 * context; requests on it are serialized by its own lock.  An EV event CQ
 * has a socket of its own, joined to the family's "ev" group, and a ring
 * of cqe events that never overruns: what finds it full is counted.
 *
 * Every call returns 0, or -1 with errno set, except
 * mrc_ctl_poll_ev_event() (a count or a negative errno value) and the
 * calls that return a pointer (NULL with errno set).
 */
#include <config.h>

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <stdio.h>

#include <infiniband/verbs.h>
#include <infiniband/mrcdv.h>
/*
 * The family's uapi and the API's header both name an enum
 * mrc_protocol_version: the family's is renamed here (its values differ
 * in name and are only read from replies).
 */
#define mrc_protocol_version mrc_nl_protocol_version
#include <linux/mrc_netlink.h>
#undef mrc_protocol_version
#include <mrc.h>
#include <mrc_ctl.h>

#include "mrc_api.h"
#include "mrc_genl.h"

/* Every attribute set of the family starts with the device's index, name. */
#define CTL_A_DEV_NAME		2
static_assert(MRC_A_DEVICE_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_PORT_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_EV_FMT_PROFILE_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_EV_PROFILE_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_CC_PROFILE_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_EP_DEV_NAME == CTL_A_DEV_NAME &&
	      MRC_A_EV_EVENT_DEV_NAME == CTL_A_DEV_NAME,
	      "an attribute set of the mrc family moved its dev-name");

/* The API's values that are the family's too (checked, then passed). */
static_assert((int)MRC_CTL_PROFILE_INIT == MRC_PROFILE_STATE_INIT &&
	      (int)MRC_CTL_PROFILE_OFFLINE == MRC_PROFILE_STATE_OFFLINE &&
	      (int)MRC_CTL_PROFILE_ONLINE == MRC_PROFILE_STATE_ONLINE,
	      "profile states differ");
static_assert((int)MRC_CTL_EV_FMT_MODE_STEV == MRC_EV_FMT_MODE_STEV &&
	      (int)MRC_CTL_EV_FMT_MODE_SRV6 == MRC_EV_FMT_MODE_SRV6 &&
	      (int)MRC_CTL_EV_FMT_MODE_UDP == MRC_EV_FMT_MODE_UDP,
	      "EV format modes differ");
static_assert((int)MRC_CTL_EV_MODE_AUTO == MRC_EV_MODE_AUTO &&
	      (int)MRC_CTL_EV_MODE_EXP == MRC_EV_MODE_EXP &&
	      (int)MRC_CTL_EV_MODE_GEN == MRC_EV_MODE_GEN,
	      "EV modes differ");
static_assert((int)MRC_CTL_EV_OP_REPLACE_EV == MRC_EV_OP_REPLACE &&
	      (int)MRC_CTL_EV_OP_MODIFY_EV_STATE == MRC_EV_OP_MODIFY_STATE &&
	      (int)MRC_CTL_EV_OP_QUERY_EV_STATE == MRC_EV_OP_QUERY_STATE &&
	      (int)MRC_CTL_EV_OP_QUERY_EV_ARRAY == MRC_EV_OP_QUERY_ARRAY,
	      "EV operations differ");
static_assert((int)MRC_CTL_EP_OP_EV_PROBE == MRC_EP_OP_TYPE_EV_PROBE &&
	      (int)MRC_CTL_EP_OP_PORT_STATUS_UPDATE ==
	      MRC_EP_OP_TYPE_PORT_STATUS_UPDATE,
	      "endpoint operations differ");
static_assert(MRC_CTL_EV_MAX_BYTES == MRC_EV_MAX_BYTES,
	      "EV sizes differ");

#define FMT_MASK_ALL							\
	(MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_CUR_STATE | \
	 MRC_CTL_EV_FMT_PROFILE_MODE | MRC_CTL_EV_FMT_PROFILE_OP |	\
	 MRC_CTL_EV_FMT_VENDOR_CFG)
/* The format attributes a set request carries, one per mask bit. */
#define FMT_SET_ATTRS							\
	(MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_CUR_STATE | \
	 MRC_CTL_EV_FMT_PROFILE_MODE)
#define EVP_MASK_ALL							\
	(MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_CUR_STATE |	\
	 MRC_CTL_EV_PROFILE_MODE | MRC_CTL_EV_PROFILE_FMT_ID |		\
	 MRC_CTL_EV_PROFILE_COUNT | MRC_CTL_EV_PROFILE_MIN_ACTIVE |	\
	 MRC_CTL_EV_PROFILE_EVENT_MASK | MRC_CTL_EV_PROFILE_EV_OP |	\
	 MRC_CTL_EV_PROFILE_EV_FIELDS_OP | MRC_CTL_EV_PROFILE_VENDOR_CFG)
#define CC_MASK_ALL							\
	(MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CUR_STATE |	\
	 MRC_CTL_CC_PROFILE_ALGORITHM | MRC_CTL_CC_PROFILE_CONFIG |	\
	 MRC_CTL_CC_PROFILE_VENDOR_CFG)
/* The only states an EV profile's event mask may select (the API's rule). */
#define EV_EVENT_MASK_ALLOWED	(MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD)

/* The family's name of "no congestion control" (algorithm NULL here). */
#define CTL_ALGO_NONE		"none"
/*
 * The algorithms this library knows, NULL-terminated.  query_device's
 * algorithms points at the entries the device offers: a suffix of this
 * list (the library's, never freed).
 */
static const char *ctl_algos[] = { "uet-1.0-nscc", NULL };
#define CTL_ALGO_NSCC		0

/* EV operation entries sent in one request: well inside a socket's sndbuf. */
#define CTL_EV_OP_CHUNK		256
/* The DSCP an endpoint operation's requests may carry (6 bits). */
#define CTL_DSCP_MAX		63
/* Receive room of an EV event CQ's socket, so bursts are not lost there. */
#define CTL_EVQ_RCVBUF		(1 << 20)

struct mrc_ctl {
	pthread_mutex_t lock;		/* one request at a time on g */
	struct genl g;
	char dev[MRC_DEV_NAME_MAX + 1];
	uint32_t ev_op_max_entries;	/* the device's; 0: any */
	/* cc_config of a query that brought none of its own. */
	struct mrc_ctl_cc_nscc_cfg nscc;
};

struct mrc_ctl_evq {
	pthread_mutex_t lock;
	struct genl g;
	char dev[MRC_DEV_NAME_MAX + 1];
	struct mrc_ctl_ev_event *ring;	/* the 1.0.1 layout */
	unsigned int size, head, count;
	uint32_t dropped;		/* since the last event queued */
};

/* ---- the context's netlink ----------------------------------------------------- */

static int ctl_dev_limits_cb(const struct genl_tb *t, void *arg)
{
	struct mrc_ctl *c = arg;

	c->ev_op_max_entries =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_OP_MAX_ENTRIES]);
	return 0;
}

static void ctl_msg(struct genl_msg *m, const struct genl *g,
		    const char *dev, uint8_t cmd)
{
	genl_msg_init(m, g, cmd, 0);
	genl_put_str(m, CTL_A_DEV_NAME, dev);
}

/* A request on the context's socket; its errno, or 0. */
static int ctl_request(struct mrc_ctl *c, struct genl_msg *m,
		       genl_reply_cb cb, void *arg, struct genl_err *e)
{
	int err;

	pthread_mutex_lock(&c->lock);
	err = genl_request(&c->g, m, cb, arg, e);
	pthread_mutex_unlock(&c->lock);
	return err;
}

/* The family's ENOENT for "not registered": the module is not loaded. */
static int ctl_open_errno(int err)
{
	return err == ENOENT ? ENODEV : err;
}

static int ctl_get(struct mrc_context *ctx, struct mrc_ctl **out)
{
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	int err = 0;

	if (!ctx)
		return EINVAL;
	pthread_mutex_lock(&ctx->lock);
	c = ctx->ctl;
	if (c)
		goto out;
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = ENOMEM;
		goto out;
	}
	snprintf(c->dev, sizeof(c->dev), "%s",
		 ibv_get_device_name(ctx->ibv->device));
	err = genl_open(&c->g, MRC_FAMILY_NAME, MRC_FAMILY_VERSION);
	if (err) {
		err = ctl_open_errno(err);
		free(c);
		c = NULL;
		goto out;
	}
	pthread_mutex_init(&c->lock, NULL);
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_DEV_GET);
	err = genl_request(&c->g, &m, ctl_dev_limits_cb, c, &e);
	genl_msg_free(&m);
	if (err) {
		mrc_ctl_free(c);
		c = NULL;
		goto out;
	}
	ctx->ctl = c;
out:
	pthread_mutex_unlock(&ctx->lock);
	*out = c;
	return err;
}

void mrc_ctl_free(struct mrc_ctl *ctl)
{
	genl_close(&ctl->g);
	pthread_mutex_destroy(&ctl->lock);
	free(ctl);
}

/* rdma_mrc defines no vendor configuration: only zeroes are accepted. */
static bool vendor_cfg_empty(const uint8_t *cfg)
{
	unsigned int i;

	for (i = 0; i < MRC_CTL_MAX_VENDOR_CFG_SIZE; i++)
		if (cfg[i])
			return false;
	return true;
}

/* An EV value from the family (1 to 32 bytes) into @ev, zero-padded. */
static void ev_from_attr(struct mrc_ctl_ev *ev, const struct nlattr *val,
			 const struct nlattr *port)
{
	size_t n = 0;

	memset(ev, 0, sizeof(*ev));
	if (val) {
		n = genl_attr_len(val);
		if (n > sizeof(ev->val))
			n = sizeof(ev->val);
		memcpy(ev->val, genl_attr_data(val), n);
	}
	ev->port = (uint8_t)genl_attr_u32(port);
}

/*
 * The family's EV state as the API's: SKIP (an ECN or trim hold, over by
 * itself) is a GOOD EV the datapath rests for a moment.
 */
static enum mrc_ctl_ev_state ev_state_from(uint32_t s)
{
	switch (s) {
	case MRC_EV_STATE_GOOD:
	case MRC_EV_STATE_SKIP:
		return MRC_CTL_EV_GOOD;
	case MRC_EV_STATE_ASSUMED_BAD:
		return MRC_CTL_EV_ASSUMED_BAD;
	case MRC_EV_STATE_DENIED:
		return MRC_CTL_EV_DENIED;
	default:
		return MRC_CTL_EV_UNKNOWN;
	}
}

/*
 * Every id names a profile, INIT until configured; the family answers a
 * get of an INIT one with ENOENT.  The reply it would have been: state
 * INIT, nothing else.
 */
static const struct genl_tb ctl_init_reply;

/* ---- versions and the device --------------------------------------------- */

void mrc_ctl_query_version(uint32_t *current, uint32_t *last_supported,
			   uint32_t *vendor_current,
			   uint32_t *vendor_last_supported)
{
	if (current)
		*current = MRC_CTL_API_CURRENT_VERSION;
	if (last_supported)
		*last_supported = MRC_CTL_API_LAST_SUPPORTED_VERSION;
	if (vendor_current)
		*vendor_current = MRC_CTL_VENDOR_API_CURRENT_VERSION;
	if (vendor_last_supported)
		*vendor_last_supported =
			MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION;
}

static const struct {
	uint32_t dev;		/* enum mrc_dev_caps */
	uint32_t api;		/* enum mrc_ctl_attr_opt */
} ctl_caps[] = {
	{ MRC_DEV_CAPS_EV_PROFILE_MODIFY_ONLINE,
	  MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE },
	{ MRC_DEV_CAPS_CC_PROFILE_MODIFY_ONLINE,
	  MRC_CTL_OPT_CAP_CC_PROFILE_MODIFY_ONLINE },
	{ MRC_DEV_CAPS_EV_EVENT, MRC_CTL_OPT_CAP_EV_EVENT },
	{ MRC_DEV_CAPS_EV_EXPLICIT_RANGE, MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE },
	{ MRC_DEV_CAPS_EV_EVENT_PRECISE_DROP_CNT,
	  MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT },
	{ MRC_DEV_CAPS_EP_OP_EV_PROBE, MRC_CTL_OPT_CAP_EP_OP_EV_PROBE },
};

static int dev_attr_cb(const struct genl_tb *t, void *arg)
{
	struct mrc_ctl_device_attr *attr = arg;
	const struct nlattr *a = NULL;
	uint32_t caps;
	unsigned int i;
	bool nscc = false;

	memset(attr, 0, sizeof(*attr));
	if (genl_attr_u32(t->a[MRC_A_DEVICE_PROTOCOL_VERSION]) &
	    MRC_PROTOCOL_VERSION_V1)
		attr->mrc_ctl_protocol_version = MRC_CTL_PROTOCOL_VERSION_1;
	attr->ev.ev_max_fmt_profiles =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_MAX_FMT_PROFILES]);
	attr->ev.ev_max_profiles =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_MAX_PROFILES]);
	attr->ev.ev_max_count = genl_attr_u32(t->a[MRC_A_DEVICE_EV_MAX_COUNT]);
	attr->ev.ev_free_count =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_FREE_COUNT]);
	attr->ev.ev_max_count_profile =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_MAX_COUNT_PROFILE]);
	attr->ev.ev_count_align =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_COUNT_ALIGN]);
	attr->ev.ev_max_width = genl_attr_u32(t->a[MRC_A_DEVICE_EV_MAX_WIDTH]);
	attr->ev.ev_fmt_mode_mask =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_FMT_MODES]) &
		MRC_EV_FMT_MODE_MASK;
	attr->ev.ev_mode_mask = genl_attr_u32(t->a[MRC_A_DEVICE_EV_MODES]) &
				MRC_EV_MODE_MASK;
	attr->ev.ev_op_max_entries =
		genl_attr_u32(t->a[MRC_A_DEVICE_EV_OP_MAX_ENTRIES]);
	attr->cc.cc_max_profiles =
		genl_attr_u32(t->a[MRC_A_DEVICE_CC_MAX_PROFILES]);
	while ((a = genl_tb_next(t, MRC_A_DEVICE_CC_ALGORITHM, a))) {
		struct genl_tb at;
		char name[MRC_ALGO_NAME_MAX + 1];

		genl_tb_nest(&at, a);
		genl_attr_str(at.a[MRC_A_CC_ALGORITHM_NAME], name,
			      sizeof(name));
		if (!strcmp(name, ctl_algos[CTL_ALGO_NSCC]))
			nscc = true;
	}
	attr->cc.algorithms = nscc ? &ctl_algos[CTL_ALGO_NSCC] :
				     &ctl_algos[CTL_ALGO_NSCC + 1];
	/* Bit N is port N in both. */
	attr->phy_port_mask = genl_attr_u32(t->a[MRC_A_DEVICE_PORT_MASK]);
	caps = genl_attr_u32(t->a[MRC_A_DEVICE_CAPS]);
	for (i = 0; i < sizeof(ctl_caps) / sizeof(ctl_caps[0]); i++)
		if (caps & ctl_caps[i].dev)
			attr->opt_attr |= ctl_caps[i].api;
	return 0;
}

static int ctl_query_device(struct ibv_context *context, struct genl *g,
			    struct mrc_ctl *c, struct mrc_ctl_device_attr *attr)
{
	struct genl_err e;
	struct genl_msg m;
	int err;

	ctl_msg(&m, g, ibv_get_device_name(context->device), MRC_CMD_DEV_GET);
	err = c ? ctl_request(c, &m, dev_attr_cb, attr, &e) :
		  genl_request(g, &m, dev_attr_cb, attr, &e);
	genl_msg_free(&m);
	return err;
}

int mrc_ctl_query_device(struct ibv_context *context,
			 struct mrc_ctl_device_attr *attr)
{
	struct genl g;
	int err;

	if (!context || !attr)
		return errno_style(EINVAL);
	if (!mrcdv_is_supported(context->device))
		return errno_style(EOPNOTSUPP);
	err = genl_open(&g, MRC_FAMILY_NAME, MRC_FAMILY_VERSION);
	if (err)
		return errno_style(ctl_open_errno(err));
	err = ctl_query_device(context, &g, NULL, attr);
	genl_close(&g);
	return errno_style(err);
}

int mrc_ctl_query_device_ex(struct ibv_context *context,
			    struct mrc_context *mcontext,
			    struct mrc_ctl_device_attr *attr, int *supported)
{
	struct mrc_ctl *c;
	int err;

	if (!context || !attr || !supported ||
	    (mcontext && mcontext->ibv != context))
		return errno_style(EINVAL);
	*supported = 0;
	if (!mrcdv_is_supported(context->device))
		return 0;
	if (!mcontext) {
		if (mrc_ctl_query_device(context, attr))
			return -1;
		*supported = 1;
		return 0;
	}
	err = ctl_get(mcontext, &c);
	if (!err)
		err = ctl_query_device(context, &c->g, c, attr);
	if (!err)
		*supported = 1;
	return errno_style(err);
}

/* ---- ports ----------------------------------------------------------------------- */

static int port_cb(const struct genl_tb *t, void *arg)
{
	struct mrc_ctl_port_attr *attr = arg;

	attr->port_admin_state =
		genl_attr_u32(t->a[MRC_A_PORT_ADMIN_STATE]) ==
		MRC_PORT_ADMIN_STATE_DISABLED ?
		MRC_CTL_PORT_ADMIN_STATE_DISABLED :
		MRC_CTL_PORT_ADMIN_STATE_ENABLED;
	return 0;
}

/* The family's ENOENT for a port the device lacks is the API's EINVAL. */
static int port_errno(int err)
{
	return err == ENOENT || err == ERANGE ? EINVAL : err;
}

int mrc_ctl_query_port(struct mrc_context *mcontext, uint8_t port_num,
		       struct mrc_ctl_port_attr *attr, int attr_mask)
{
	struct mrc_ctl_port_attr got;
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	int err;

	if (!mcontext || !attr || !port_num || port_num > MRC_MAX_PORTS ||
	    (attr_mask & ~MRC_CTL_PORT_ADMIN_STATE))
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_PORT_GET);
	genl_put_u32(&m, MRC_A_PORT_PORT_INDEX, port_num);
	err = ctl_request(c, &m, port_cb, &got, &e);
	genl_msg_free(&m);
	if (err)
		return errno_style(port_errno(err));
	if (attr_mask & MRC_CTL_PORT_ADMIN_STATE)
		attr->port_admin_state = got.port_admin_state;
	return 0;
}

int mrc_ctl_modify_port(struct mrc_context *mcontext, uint8_t port_num,
			struct mrc_ctl_port_attr *attr, int attr_mask)
{
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	int err;

	if (!mcontext || !attr || !port_num || port_num > MRC_MAX_PORTS ||
	    (attr_mask & ~MRC_CTL_PORT_ADMIN_STATE))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_PORT_ADMIN_STATE) &&
	    attr->port_admin_state != MRC_CTL_PORT_ADMIN_STATE_DISABLED &&
	    attr->port_admin_state != MRC_CTL_PORT_ADMIN_STATE_ENABLED)
		return errno_style(EINVAL);
	if (!attr_mask)
		return 0;
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_PORT_SET);
	genl_put_u32(&m, MRC_A_PORT_PORT_INDEX, port_num);
	genl_put_u32(&m, MRC_A_PORT_ADMIN_STATE,
		     attr->port_admin_state == MRC_CTL_PORT_ADMIN_STATE_ENABLED ?
		     MRC_PORT_ADMIN_STATE_ENABLED :
		     MRC_PORT_ADMIN_STATE_DISABLED);
	err = ctl_request(c, &m, NULL, NULL, &e);
	genl_msg_free(&m);
	return errno_style(port_errno(err));
}

/* ---- EV format profiles ---------------------------------------------------- */

/* What a query asked for, and where its arrays go. */
struct fmt_query {
	struct mrc_ctl_ev_fmt_profile_attr *attr;
	int mask;
};

static int fmt_cb(const struct genl_tb *t, void *arg)
{
	struct fmt_query *q = arg;
	struct mrc_ctl_ev_fmt_profile_attr *attr = q->attr;
	const struct nlattr *a = NULL;
	uint32_t state = genl_attr_u32(t->a[MRC_A_EV_FMT_PROFILE_STATE]);
	int n = 0;

	if (q->mask & MRC_CTL_EV_FMT_PROFILE_STATE)
		attr->profile_state = state;
	if (q->mask & MRC_CTL_EV_FMT_PROFILE_CUR_STATE)
		attr->cur_profile_state = state;
	if (q->mask & MRC_CTL_EV_FMT_PROFILE_MODE)
		attr->ev_fmt_mode = genl_attr_u32(t->a[MRC_A_EV_FMT_PROFILE_MODE]);
	if (q->mask & MRC_CTL_EV_FMT_VENDOR_CFG)
		memset(attr->vendor_cfg, 0, sizeof(attr->vendor_cfg));
	if (!(q->mask & MRC_CTL_EV_FMT_PROFILE_OP))
		return 0;
	while ((a = genl_tb_next(t, MRC_A_EV_FMT_PROFILE_FIELD, a))) {
		struct genl_tb ft;

		if (n == attr->ev_fmt_op.fmt_field_count)
			break;
		genl_tb_nest(&ft, a);
		attr->ev_fmt_op.fmt_fields[n++].width =
			(uint8_t)genl_attr_u32(ft.a[MRC_A_FMT_FIELD_WIDTH]);
	}
	attr->ev_fmt_op.fmt_field_count = n;
	return 0;
}

/* E2BIG of a query: the needed array size, written back to @count. */
static int array_errno(int err, const struct genl_err *e, int *count)
{
	if (err == E2BIG && e->has_cookie && e->cookie <= INT32_MAX)
		*count = (int)e->cookie;
	return err;
}

static int fmt_query(struct mrc_ctl *c, uint64_t id,
		     struct mrc_ctl_ev_fmt_profile_attr *attr, int mask)
{
	struct fmt_query q = { .attr = attr, .mask = mask };
	struct genl_err e;
	struct genl_msg m;
	int err;

	ctl_msg(&m, &c->g, c->dev, MRC_CMD_EV_FMT_PROFILE_GET);
	genl_put_u64(&m, MRC_A_EV_FMT_PROFILE_ID, id);
	if (mask & MRC_CTL_EV_FMT_PROFILE_OP)
		genl_put_u32(&m, MRC_A_EV_FMT_PROFILE_ARRAY_SIZE,
			     (uint32_t)attr->ev_fmt_op.fmt_field_count);
	err = ctl_request(c, &m, fmt_cb, &q, &e);
	genl_msg_free(&m);
	if (err == ENOENT)
		return fmt_cb(&ctl_init_reply, &q);
	return array_errno(err, &e, &attr->ev_fmt_op.fmt_field_count);
}

static bool fmt_fields_ok(const struct mrc_ctl_ev_fmt_profile_attr *attr)
{
	int n = attr->ev_fmt_op.fmt_field_count;

	return n >= 0 && (!n || attr->ev_fmt_op.fmt_fields);
}

int mrc_ctl_query_ev_fmt_profile(struct mrc_context *mcontext,
				 uint64_t ev_fmt_profile_id,
				 struct mrc_ctl_ev_fmt_profile_attr *attr,
				 int attr_mask)
{
	struct mrc_ctl *c;
	int err;

	if (!mcontext || !attr || (attr_mask & ~FMT_MASK_ALL))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_FMT_PROFILE_OP) &&
	    (attr->ev_fmt_op.op != MRC_CTL_EV_FMT_OP_QUERY_FIELDS ||
	     !fmt_fields_ok(attr)))
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (!err)
		err = fmt_query(c, ev_fmt_profile_id, attr, attr_mask);
	return errno_style(err);
}

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *mcontext,
				  uint64_t ev_fmt_profile_id,
				  struct mrc_ctl_ev_fmt_profile_attr *attr,
				  int attr_mask)
{
	bool query = false, fields, set;
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	int err, i;

	if (!mcontext || !attr || (attr_mask & ~FMT_MASK_ALL))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_FMT_VENDOR_CFG) &&
	    !vendor_cfg_empty(attr->vendor_cfg))
		return errno_style(EINVAL);
	if (attr_mask & MRC_CTL_EV_FMT_PROFILE_OP) {
		if (!fmt_fields_ok(attr))
			return errno_style(EINVAL);
		if (attr->ev_fmt_op.op == MRC_CTL_EV_FMT_OP_QUERY_FIELDS)
			query = true;
		else if (attr->ev_fmt_op.op != MRC_CTL_EV_FMT_OP_MODIFY_FIELDS)
			return errno_style(EINVAL);
	}
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_EV_FMT_PROFILE_SET);
	genl_put_u64(&m, MRC_A_EV_FMT_PROFILE_ID, ev_fmt_profile_id);
	if (attr_mask & MRC_CTL_EV_FMT_PROFILE_STATE)
		genl_put_u32(&m, MRC_A_EV_FMT_PROFILE_STATE, attr->profile_state);
	if (attr_mask & MRC_CTL_EV_FMT_PROFILE_CUR_STATE)
		genl_put_u32(&m, MRC_A_EV_FMT_PROFILE_CUR_STATE,
			     attr->cur_profile_state);
	if (attr_mask & MRC_CTL_EV_FMT_PROFILE_MODE)
		genl_put_u32(&m, MRC_A_EV_FMT_PROFILE_MODE, attr->ev_fmt_mode);
	fields = (attr_mask & MRC_CTL_EV_FMT_PROFILE_OP) && !query;
	for (i = 0; fields && i < attr->ev_fmt_op.fmt_field_count; i++) {
		genl_nest_start(&m, MRC_A_EV_FMT_PROFILE_FIELD);
		genl_put_u32(&m, MRC_A_FMT_FIELD_WIDTH,
			     attr->ev_fmt_op.fmt_fields[i].width);
		genl_nest_end(&m);
	}
	set = fields || (attr_mask & FMT_SET_ATTRS);
	err = set ? ctl_request(c, &m, NULL, NULL, &e) : 0;
	genl_msg_free(&m);
	if (!err && query)
		err = fmt_query(c, ev_fmt_profile_id, attr,
				MRC_CTL_EV_FMT_PROFILE_OP);
	return errno_style(err);
}

/* ---- EV profiles ------------------------------------------------------------- */

struct evp_query {
	struct mrc_ctl_ev_profile_attr *attr;
	int mask;
	int n;			/* entries or fields filled so far */
};

static void evp_fields_cb(const struct genl_tb *t, struct evp_query *q)
{
	struct mrc_ctl_ev_profile_attr *attr = q->attr;
	const struct nlattr *a = NULL;

	while ((a = genl_tb_next(t, MRC_A_EV_PROFILE_FIELD, a))) {
		struct mrc_ctl_ev_field *f;
		struct genl_tb ft;

		if (q->n == attr->ev_fields_op.field_count)
			break;
		genl_tb_nest(&ft, a);
		f = &attr->ev_fields_op.fields[q->n++];
		f->width = genl_attr_u32(ft.a[MRC_A_EV_FIELD_WIDTH]);
		f->init_val = genl_attr_u32(ft.a[MRC_A_EV_FIELD_INIT_VAL]);
		f->min_val = genl_attr_u32(ft.a[MRC_A_EV_FIELD_MIN_VAL]);
		f->max_val = genl_attr_u32(ft.a[MRC_A_EV_FIELD_MAX_VAL]);
		f->mask = genl_attr_u32(ft.a[MRC_A_EV_FIELD_MASK]);
	}
}

/* QUERY_EV_STATE: the states of the EVs asked for, in order. */
static void evp_evs_cb(const struct genl_tb *t, struct evp_query *q)
{
	struct mrc_ctl_ev_profile_attr *attr = q->attr;
	const struct nlattr *a = NULL;

	while ((a = genl_tb_next(t, MRC_A_EV_PROFILE_EV, a))) {
		struct mrc_ctl_ev_op_entry *ent;
		struct genl_tb et;

		if (q->n == attr->ev_op.entry_count)
			break;
		genl_tb_nest(&et, a);
		ent = &attr->ev_op.entries[q->n++];
		ent->state = ev_state_from(genl_attr_u32(et.a[MRC_A_EV_ENTRY_STATE]));
	}
}

static int evp_cb(const struct genl_tb *t, void *arg)
{
	struct evp_query *q = arg;
	struct mrc_ctl_ev_profile_attr *attr = q->attr;
	uint32_t state = genl_attr_u32(t->a[MRC_A_EV_PROFILE_STATE]);

	if (q->mask & MRC_CTL_EV_PROFILE_STATE)
		attr->profile_state = state;
	if (q->mask & MRC_CTL_EV_PROFILE_CUR_STATE)
		attr->cur_profile_state = state;
	if (q->mask & MRC_CTL_EV_PROFILE_MODE)
		attr->ev_mode = genl_attr_u32(t->a[MRC_A_EV_PROFILE_MODE]);
	if (q->mask & MRC_CTL_EV_PROFILE_FMT_ID)
		attr->ev_fmt_profile_id =
			genl_attr_u64(t->a[MRC_A_EV_PROFILE_FMT_PROFILE_ID]);
	if (q->mask & MRC_CTL_EV_PROFILE_COUNT)
		attr->ev_count = genl_attr_u32(t->a[MRC_A_EV_PROFILE_EV_COUNT]);
	if (q->mask & MRC_CTL_EV_PROFILE_MIN_ACTIVE)
		attr->ev_min_active =
			genl_attr_u32(t->a[MRC_A_EV_PROFILE_EV_MIN_ACTIVE]);
	if (q->mask & MRC_CTL_EV_PROFILE_EVENT_MASK)
		attr->ev_event_mask = (int)(genl_attr_u32(t->a[MRC_A_EV_PROFILE_EVENT_MASK]) &
					    EV_EVENT_MASK_ALLOWED);
	if (q->mask & MRC_CTL_EV_PROFILE_VENDOR_CFG)
		memset(attr->vendor_cfg, 0, sizeof(attr->vendor_cfg));
	if (q->mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP)
		evp_fields_cb(t, q);
	if (q->mask & MRC_CTL_EV_PROFILE_EV_OP)
		evp_evs_cb(t, q);
	return 0;
}

static void put_ev(struct genl_msg *m, uint16_t vtype, uint16_t ptype,
		   const struct mrc_ctl_ev *ev)
{
	genl_put_bin(m, vtype, ev->val, sizeof(ev->val));
	genl_put_u32(m, ptype, ev->port);
}

static bool evp_entries_ok(const struct mrc_ctl_ev_profile_attr *attr)
{
	int n = attr->ev_op.entry_count;

	return n >= 0 && (!n || attr->ev_op.entries);
}

static bool evp_fields_ok(const struct mrc_ctl_ev_profile_attr *attr)
{
	int n = attr->ev_fields_op.field_count;

	return n >= 0 && (!n || attr->ev_fields_op.fields);
}

struct ev_array {
	struct mrc_ctl_ev_op_entry *entries;
	int room;
	int n;			/* EVs in the array, filled or not */
};

static int ev_array_cb(const struct genl_tb *t, void *arg)
{
	struct ev_array *r = arg;
	struct mrc_ctl_ev_op_entry *ent;
	struct genl_tb et;

	if (!t->a[MRC_A_EV_PROFILE_EV])
		return 0;
	if (r->n++ >= r->room)
		return 0;
	genl_tb_nest(&et, t->a[MRC_A_EV_PROFILE_EV]);
	ent = &r->entries[r->n - 1];
	ev_from_attr(&ent->ev, et.a[MRC_A_EV_ENTRY_VALUE],
		     et.a[MRC_A_EV_ENTRY_PORT]);
	ent->state = ev_state_from(genl_attr_u32(et.a[MRC_A_EV_ENTRY_STATE]));
	ent->flags = 0;
	return 0;
}

/*
 * QUERY_EV_ARRAY: the family's ev-get dump (a message per EV: a whole
 * array does not fit one reply); E2BIG with the size if it has no room.
 */
static int evp_query_array(struct mrc_ctl *c, uint64_t id,
			   struct mrc_ctl_ev_profile_attr *attr)
{
	struct ev_array r = { .entries = attr->ev_op.entries,
			      .room = attr->ev_op.entry_count };
	struct genl_err e;
	struct genl_msg m;
	int err;

	genl_msg_init(&m, &c->g, MRC_CMD_EV_GET, NLM_F_DUMP);
	genl_put_str(&m, CTL_A_DEV_NAME, c->dev);
	genl_put_u64(&m, MRC_A_EV_PROFILE_ID, id);
	err = ctl_request(c, &m, ev_array_cb, &r, &e);
	genl_msg_free(&m);
	if (err == ENOENT)
		r.n = 0;
	else if (err)
		return err;
	attr->ev_op.entry_count = r.n;
	return r.n > r.room ? E2BIG : 0;
}

static int evp_query(struct mrc_ctl *c, uint64_t id,
		     struct mrc_ctl_ev_profile_attr *attr, int mask)
{
	struct evp_query q = { .attr = attr, .mask = mask };
	struct genl_err e;
	struct genl_msg m;
	int *count = NULL;
	int err, i;

	if ((mask & MRC_CTL_EV_PROFILE_EV_OP) &&
	    attr->ev_op.op == MRC_CTL_EV_OP_QUERY_EV_ARRAY) {
		err = evp_query(c, id, attr, mask & ~MRC_CTL_EV_PROFILE_EV_OP);
		return err ? err : evp_query_array(c, id, attr);
	}
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_EV_PROFILE_GET);
	genl_put_u64(&m, MRC_A_EV_PROFILE_ID, id);
	if (mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
		count = &attr->ev_fields_op.field_count;
		genl_put_u32(&m, MRC_A_EV_PROFILE_ARRAY_SIZE, (uint32_t)*count);
	}
	if (mask & MRC_CTL_EV_PROFILE_EV_OP) {
		genl_put_u32(&m, MRC_A_EV_PROFILE_EV_OP, attr->ev_op.op);
		for (i = 0; i < attr->ev_op.entry_count; i++) {
			genl_nest_start(&m, MRC_A_EV_PROFILE_EV);
			put_ev(&m, MRC_A_EV_ENTRY_VALUE, MRC_A_EV_ENTRY_PORT,
			       &attr->ev_op.entries[i].ev);
			genl_nest_end(&m);
		}
	}
	err = ctl_request(c, &m, evp_cb, &q, &e);
	genl_msg_free(&m);
	/*
	 * ENOENT: the profile is in INIT, or (QUERY_EV_STATE) an EV it does
	 * not hold, which an INIT profile holds none of either.
	 */
	if (err == ENOENT && (mask & MRC_CTL_EV_PROFILE_EV_OP))
		return ENOENT;
	if (err == ENOENT) {
		q.n = 0;
		err = evp_cb(&ctl_init_reply, &q);
	}
	if (!err && count)
		*count = q.n;
	if (err && count)
		err = array_errno(err, &e, count);
	return err;
}

int mrc_ctl_query_ev_profile(struct mrc_context *mcontext,
			     uint64_t ev_profile_id,
			     struct mrc_ctl_ev_profile_attr *attr,
			     int attr_mask)
{
	struct mrc_ctl *c;
	int err;

	if (!mcontext || !attr || (attr_mask & ~EVP_MASK_ALL))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) &&
	    (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) &&
	    ((attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_STATE &&
	      attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_ARRAY) ||
	     !evp_entries_ok(attr)))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) &&
	    (attr->ev_fields_op.op != MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS ||
	     !evp_fields_ok(attr)))
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (!err)
		err = evp_query(c, ev_profile_id, attr, attr_mask);
	return errno_style(err);
}

/* The EV profile attributes a set request carries, one per mask bit. */
#define EVP_SET_ATTRS							\
	(MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_CUR_STATE |	\
	 MRC_CTL_EV_PROFILE_MODE | MRC_CTL_EV_PROFILE_FMT_ID |		\
	 MRC_CTL_EV_PROFILE_COUNT | MRC_CTL_EV_PROFILE_MIN_ACTIVE |	\
	 MRC_CTL_EV_PROFILE_EVENT_MASK)

/*
 * The attributes of a set request besides the EV operation; whether there
 * are any.
 */
static bool evp_put_attrs(struct genl_msg *m,
			  const struct mrc_ctl_ev_profile_attr *attr, int mask)
{
	bool fields = (mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) &&
		      attr->ev_fields_op.op ==
		      MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	int i;

	if (mask & MRC_CTL_EV_PROFILE_STATE)
		genl_put_u32(m, MRC_A_EV_PROFILE_STATE, attr->profile_state);
	if (mask & MRC_CTL_EV_PROFILE_CUR_STATE)
		genl_put_u32(m, MRC_A_EV_PROFILE_CUR_STATE,
			     attr->cur_profile_state);
	if (mask & MRC_CTL_EV_PROFILE_MODE)
		genl_put_u32(m, MRC_A_EV_PROFILE_MODE, attr->ev_mode);
	if (mask & MRC_CTL_EV_PROFILE_FMT_ID)
		genl_put_u64(m, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
			     attr->ev_fmt_profile_id);
	if (mask & MRC_CTL_EV_PROFILE_COUNT)
		genl_put_u32(m, MRC_A_EV_PROFILE_EV_COUNT, attr->ev_count);
	if (mask & MRC_CTL_EV_PROFILE_MIN_ACTIVE)
		genl_put_u32(m, MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
			     attr->ev_min_active);
	if (mask & MRC_CTL_EV_PROFILE_EVENT_MASK)
		genl_put_u32(m, MRC_A_EV_PROFILE_EVENT_MASK,
			     (uint32_t)attr->ev_event_mask);
	for (i = 0; fields && i < attr->ev_fields_op.field_count; i++) {
		const struct mrc_ctl_ev_field *f = &attr->ev_fields_op.fields[i];

		genl_nest_start(m, MRC_A_EV_PROFILE_FIELD);
		genl_put_u32(m, MRC_A_EV_FIELD_WIDTH, f->width);
		genl_put_u32(m, MRC_A_EV_FIELD_INIT_VAL, f->init_val);
		genl_put_u32(m, MRC_A_EV_FIELD_MIN_VAL, f->min_val);
		genl_put_u32(m, MRC_A_EV_FIELD_MAX_VAL, f->max_val);
		genl_put_u32(m, MRC_A_EV_FIELD_MASK, f->mask);
		genl_nest_end(m);
	}
	return (mask & EVP_SET_ATTRS) || fields;
}

/* The API's EV state of a REPLACE or MODIFY_EV_STATE entry. */
static int ev_state_to(enum mrc_ctl_ev_state s, uint32_t *out)
{
	switch (s) {
	case MRC_CTL_EV_GOOD:
		*out = MRC_EV_STATE_GOOD;
		return 0;
	case MRC_CTL_EV_ASSUMED_BAD:
		*out = MRC_EV_STATE_ASSUMED_BAD;
		return 0;
	case MRC_CTL_EV_DENIED:
		*out = MRC_EV_STATE_DENIED;
		return 0;
	default:
		return EINVAL;
	}
}

/*
 * REPLACE_EV or MODIFY_EV_STATE: the entries in order, CTL_EV_OP_CHUNK to
 * a request; the first refusal stops them (the API lets earlier entries
 * stand).
 */
static int evp_ev_op(struct mrc_ctl *c, uint64_t id,
		     const struct mrc_ctl_ev_profile_attr *attr)
{
	bool replace = attr->ev_op.op == MRC_CTL_EV_OP_REPLACE_EV;
	int n = attr->ev_op.entry_count, i, j;
	struct genl_err e;
	struct genl_msg m;
	uint32_t state;
	int err = 0;

	for (i = 0; i < n; i++)
		if (ev_state_to(attr->ev_op.entries[i].state, &state) ||
		    (attr->ev_op.entries[i].flags & ~MRC_CTL_EV_OP_F_ALL_COPIES))
			return EINVAL;
	for (i = 0; i < n && !err; i += CTL_EV_OP_CHUNK) {
		ctl_msg(&m, &c->g, c->dev, MRC_CMD_EV_PROFILE_SET);
		genl_put_u64(&m, MRC_A_EV_PROFILE_ID, id);
		genl_put_u32(&m, MRC_A_EV_PROFILE_EV_OP, attr->ev_op.op);
		for (j = i; j < n && j < i + CTL_EV_OP_CHUNK; j++) {
			const struct mrc_ctl_ev_op_entry *ent =
				&attr->ev_op.entries[j];

			ev_state_to(ent->state, &state);
			genl_nest_start(&m, MRC_A_EV_PROFILE_EV);
			put_ev(&m, MRC_A_EV_ENTRY_VALUE, MRC_A_EV_ENTRY_PORT,
			       &ent->ev);
			if (replace) {
				put_ev(&m, MRC_A_EV_ENTRY_NEW_VALUE,
				       MRC_A_EV_ENTRY_NEW_PORT, &ent->ev_new);
				if (ent->flags & MRC_CTL_EV_OP_F_ALL_COPIES)
					genl_put_u32(&m, MRC_A_EV_ENTRY_FLAGS,
						     MRC_EV_OP_FLAGS_ALL_COPIES);
			}
			genl_put_u32(&m, MRC_A_EV_ENTRY_STATE, state);
			genl_nest_end(&m);
		}
		err = ctl_request(c, &m, NULL, NULL, &e);
		genl_msg_free(&m);
	}
	return err;
}

int mrc_ctl_modify_ev_profile(struct mrc_context *mcontext,
			      uint64_t ev_profile_id,
			      struct mrc_ctl_ev_profile_attr *attr,
			      int attr_mask)
{
	int query = 0, set_op = 0;
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	bool set;
	int err;

	if (!mcontext || !attr || (attr_mask & ~EVP_MASK_ALL))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_EV_OP) &&
	    (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_VENDOR_CFG) &&
	    !vendor_cfg_empty(attr->vendor_cfg))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_EV_PROFILE_EVENT_MASK) &&
	    (attr->ev_event_mask & ~EV_EVENT_MASK_ALLOWED))
		return errno_style(EINVAL);
	if (attr_mask & MRC_CTL_EV_PROFILE_EV_OP) {
		if (!evp_entries_ok(attr))
			return errno_style(EINVAL);
		switch (attr->ev_op.op) {
		case MRC_CTL_EV_OP_REPLACE_EV:
		case MRC_CTL_EV_OP_MODIFY_EV_STATE:
			set_op = 1;
			break;
		case MRC_CTL_EV_OP_QUERY_EV_STATE:
		case MRC_CTL_EV_OP_QUERY_EV_ARRAY:
			query = MRC_CTL_EV_PROFILE_EV_OP;
			break;
		default:
			return errno_style(EINVAL);
		}
	}
	if (attr_mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP) {
		if (!evp_fields_ok(attr))
			return errno_style(EINVAL);
		if (attr->ev_fields_op.op == MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS)
			query = MRC_CTL_EV_PROFILE_EV_FIELDS_OP;
		else if (attr->ev_fields_op.op !=
			 MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS)
			return errno_style(EINVAL);
	}
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	if (set_op && c->ev_op_max_entries &&
	    (uint32_t)attr->ev_op.entry_count > c->ev_op_max_entries)
		return errno_style(E2BIG);

	/*
	 * The profile's attributes first (they may take it INIT -> OFFLINE,
	 * which EV operations need), then its EVs.
	 */
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_EV_PROFILE_SET);
	genl_put_u64(&m, MRC_A_EV_PROFILE_ID, ev_profile_id);
	set = evp_put_attrs(&m, attr, attr_mask);
	err = set ? ctl_request(c, &m, NULL, NULL, &e) : 0;
	genl_msg_free(&m);
	if (!err && set_op)
		err = evp_ev_op(c, ev_profile_id, attr);
	if (!err && query)
		err = evp_query(c, ev_profile_id, attr, query);
	return errno_style(err);
}

/* ---- CC profiles --------------------------------------------------------------- */

/* A float parameter in millionths (the family's fractions), or false. */
static bool to_fraction(float v, uint32_t *out)
{
	double f = (double)v * MRC_FRACTION_ONE;

	if (!isfinite(f) || f < 0 || f + 0.5 >= (double)UINT32_MAX + 1)
		return false;
	*out = (uint32_t)(f + 0.5);	/* rounded; no libm */
	return true;
}

/* A float parameter in bytes, or false. */
static bool to_bytes(float v, uint32_t *out)
{
	if (!isfinite(v) || v < 0 || (double)v + 0.5 >= (double)UINT32_MAX + 1)
		return false;
	*out = (uint32_t)((double)v + 0.5);
	return true;
}

static int nscc_put(struct genl_msg *m, const struct mrc_ctl_cc_nscc_cfg *cfg)
{
	uint32_t eta, fi, fi_scale, gamma, max_md_jump;

	if (!to_bytes(cfg->eta, &eta) || !to_bytes(cfg->fi, &fi) ||
	    !to_fraction(cfg->fi_scale, &fi_scale) ||
	    !to_fraction(cfg->gamma, &gamma) ||
	    !to_fraction(cfg->max_md_jump, &max_md_jump))
		return EINVAL;
	genl_nest_start(m, MRC_A_CC_PROFILE_NSCC);
	genl_put_u8(m, MRC_A_NSCC_DISABLE_QA, cfg->disable_qa ? 1 : 0);
	genl_put_u32(m, MRC_A_NSCC_ADJUST_BYTES_THRESHOLD,
		     cfg->adjust_bytes_threshold);
	genl_put_u32(m, MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD,
		     cfg->adjust_period_threshold);
	genl_put_u32(m, MRC_A_NSCC_BASE_RTT, cfg->base_rtt);
	genl_put_u32(m, MRC_A_NSCC_ETA, eta);
	genl_put_u32(m, MRC_A_NSCC_FI, fi);
	genl_put_u32(m, MRC_A_NSCC_FI_SCALE, fi_scale);
	genl_put_u32(m, MRC_A_NSCC_GAMMA, gamma);
	genl_put_u32(m, MRC_A_NSCC_MAX_MD_JUMP, max_md_jump);
	genl_put_u32(m, MRC_A_NSCC_MAX_CWND, cfg->max_cwnd);
	genl_put_u8(m, MRC_A_NSCC_QA_GATE, cfg->qa_gate);
	genl_put_u32(m, MRC_A_NSCC_QA_THRESHOLD, cfg->qa_threshold);
	genl_put_u32(m, MRC_A_NSCC_TARGET_DELAY, cfg->target_delay);
	genl_nest_end(m);
	return 0;
}

static void nscc_get(const struct nlattr *nest, struct mrc_ctl_cc_nscc_cfg *cfg)
{
	struct genl_tb t;

	memset(cfg, 0, sizeof(*cfg));
	if (!nest)
		return;
	genl_tb_nest(&t, nest);
	cfg->disable_qa = genl_attr_u8(t.a[MRC_A_NSCC_DISABLE_QA]);
	cfg->adjust_bytes_threshold =
		genl_attr_u32(t.a[MRC_A_NSCC_ADJUST_BYTES_THRESHOLD]);
	cfg->adjust_period_threshold =
		genl_attr_u32(t.a[MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD]);
	cfg->base_rtt = genl_attr_u32(t.a[MRC_A_NSCC_BASE_RTT]);
	cfg->eta = (float)genl_attr_u32(t.a[MRC_A_NSCC_ETA]);
	cfg->fi = (float)genl_attr_u32(t.a[MRC_A_NSCC_FI]);
	cfg->fi_scale = (float)((double)genl_attr_u32(t.a[MRC_A_NSCC_FI_SCALE]) /
				MRC_FRACTION_ONE);
	cfg->gamma = (float)((double)genl_attr_u32(t.a[MRC_A_NSCC_GAMMA]) /
			     MRC_FRACTION_ONE);
	cfg->max_md_jump =
		(float)((double)genl_attr_u32(t.a[MRC_A_NSCC_MAX_MD_JUMP]) /
			MRC_FRACTION_ONE);
	cfg->max_cwnd = genl_attr_u32(t.a[MRC_A_NSCC_MAX_CWND]);
	cfg->qa_gate = genl_attr_u8(t.a[MRC_A_NSCC_QA_GATE]);
	cfg->qa_threshold = genl_attr_u32(t.a[MRC_A_NSCC_QA_THRESHOLD]);
	cfg->target_delay = genl_attr_u32(t.a[MRC_A_NSCC_TARGET_DELAY]);
}

struct cc_query {
	uint32_t state;
	int algo;		/* index into ctl_algos; -1: none */
	struct mrc_ctl_cc_nscc_cfg nscc;
};

static int cc_cb(const struct genl_tb *t, void *arg)
{
	struct cc_query *q = arg;
	char name[MRC_ALGO_NAME_MAX + 1];

	q->state = genl_attr_u32(t->a[MRC_A_CC_PROFILE_STATE]);
	genl_attr_str(t->a[MRC_A_CC_PROFILE_ALGORITHM], name, sizeof(name));
	q->algo = strcmp(name, ctl_algos[CTL_ALGO_NSCC]) ? -1 : CTL_ALGO_NSCC;
	nscc_get(t->a[MRC_A_CC_PROFILE_NSCC], &q->nscc);
	return 0;
}

static int cc_query(struct mrc_ctl *c, uint64_t id, struct cc_query *q)
{
	struct genl_err e;
	struct genl_msg m;
	int err;

	ctl_msg(&m, &c->g, c->dev, MRC_CMD_CC_PROFILE_GET);
	genl_put_u64(&m, MRC_A_CC_PROFILE_ID, id);
	err = ctl_request(c, &m, cc_cb, q, &e);
	genl_msg_free(&m);
	if (err == ENOENT)
		return cc_cb(&ctl_init_reply, q);
	return err;
}

int mrc_ctl_query_cc_profile(struct mrc_context *mcontext,
			     uint64_t cc_profile_id,
			     struct mrc_ctl_cc_profile_attr *attr,
			     int attr_mask)
{
	struct cc_query q;
	struct mrc_ctl *c;
	int err;

	if (!mcontext || !attr || (attr_mask & ~CC_MASK_ALL))
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (!err)
		err = cc_query(c, cc_profile_id, &q);
	if (err)
		return errno_style(err);
	if (attr_mask & MRC_CTL_CC_PROFILE_STATE)
		attr->profile_state = q.state;
	if (attr_mask & MRC_CTL_CC_PROFILE_CUR_STATE)
		attr->cur_profile_state = q.state;
	if (attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM)
		attr->algorithm = q.algo < 0 ? NULL : ctl_algos[q.algo];
	if (attr_mask & MRC_CTL_CC_PROFILE_CONFIG) {
		/*
		 * Into the caller's struct if it points at one, else into
		 * the context's (valid until its next CC query).
		 */
		if (q.algo < 0) {
			attr->cc_config = NULL;
		} else if (attr->cc_config) {
			memcpy((void *)attr->cc_config, &q.nscc, sizeof(q.nscc));
		} else {
			pthread_mutex_lock(&c->lock);
			c->nscc = q.nscc;
			pthread_mutex_unlock(&c->lock);
			attr->cc_config = &c->nscc;
		}
	}
	if (attr_mask & MRC_CTL_CC_PROFILE_VENDOR_CFG)
		memset(attr->vendor_cfg, 0, sizeof(attr->vendor_cfg));
	return 0;
}

int mrc_ctl_modify_cc_profile(struct mrc_context *mcontext,
			      uint64_t cc_profile_id,
			      struct mrc_ctl_cc_profile_attr *attr,
			      int attr_mask)
{
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	bool nscc;
	int err;

	if (!mcontext || !attr || (attr_mask & ~CC_MASK_ALL))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_CC_PROFILE_VENDOR_CFG) &&
	    !vendor_cfg_empty(attr->vendor_cfg))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM) && attr->algorithm &&
	    strcmp(attr->algorithm, ctl_algos[CTL_ALGO_NSCC]))
		return errno_style(EINVAL);
	if ((attr_mask & MRC_CTL_CC_PROFILE_CONFIG) && !attr->cc_config)
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	/* The config is the algorithm's: the one set now, or the profile's. */
	if (attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM) {
		nscc = attr->algorithm != NULL;
	} else if (attr_mask & MRC_CTL_CC_PROFILE_CONFIG) {
		struct cc_query q;

		err = cc_query(c, cc_profile_id, &q);
		if (err)
			return errno_style(err);
		nscc = q.algo == CTL_ALGO_NSCC;
	} else {
		nscc = false;
	}
	if ((attr_mask & MRC_CTL_CC_PROFILE_CONFIG) && !nscc)
		return errno_style(EINVAL);

	ctl_msg(&m, &c->g, c->dev, MRC_CMD_CC_PROFILE_SET);
	genl_put_u64(&m, MRC_A_CC_PROFILE_ID, cc_profile_id);
	if (attr_mask & MRC_CTL_CC_PROFILE_STATE)
		genl_put_u32(&m, MRC_A_CC_PROFILE_STATE, attr->profile_state);
	if (attr_mask & MRC_CTL_CC_PROFILE_CUR_STATE)
		genl_put_u32(&m, MRC_A_CC_PROFILE_CUR_STATE,
			     attr->cur_profile_state);
	if (attr_mask & MRC_CTL_CC_PROFILE_ALGORITHM)
		genl_put_str(&m, MRC_A_CC_PROFILE_ALGORITHM,
			     attr->algorithm ? attr->algorithm : CTL_ALGO_NONE);
	if (attr_mask & MRC_CTL_CC_PROFILE_CONFIG)
		err = nscc_put(&m, attr->cc_config);
	if (!err && (attr_mask & ~MRC_CTL_CC_PROFILE_VENDOR_CFG))
		err = ctl_request(c, &m, NULL, NULL, &e);
	genl_msg_free(&m);
	return errno_style(err);
}

/* ---- EV events ------------------------------------------------------------------- */

struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *mcontext,
					  int cqe, void *cq_context,
					  struct mrc_comp_channel *channel,
					  int comp_vector)
{
	struct mrc_ctl_evq *q;
	struct mrc_cq *cq;
	int rcvbuf = CTL_EVQ_RCVBUF;
	int err, grp;

	(void)comp_vector;
	if (!mcontext || cqe <= 0 ||
	    (channel && channel->ctx != mcontext))
		return null_with(EINVAL);
	/* Polled only: EV events reach no completion channel. */
	if (channel)
		return null_with(EOPNOTSUPP);
	q = calloc(1, sizeof(*q));
	cq = calloc(1, sizeof(*cq));
	if (q)
		q->ring = calloc((size_t)cqe, sizeof(*q->ring));
	if (!q || !cq || !q->ring) {
		err = ENOMEM;
		goto err_free;
	}
	q->size = (unsigned int)cqe;
	snprintf(q->dev, sizeof(q->dev), "%s",
		 ibv_get_device_name(mcontext->ibv->device));
	err = genl_open(&q->g, MRC_FAMILY_NAME, MRC_FAMILY_VERSION);
	if (err) {
		err = ctl_open_errno(err);
		goto err_free;
	}
	grp = genl_mcgrp(&q->g, MRC_MCGRP_EV);
	err = grp < 0 ? EOPNOTSUPP : genl_join(&q->g, grp);
	if (err)
		goto err_close;
	setsockopt(q->g.fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	pthread_mutex_init(&q->lock, NULL);
	cq->ctx = mcontext;
	cq->cq_context = cq_context;
	cq->evq = q;
	mrc_ctx_get(mcontext);
	return cq;

err_close:
	genl_close(&q->g);
err_free:
	if (q)
		free(q->ring);
	free(q);
	free(cq);
	return null_with(err);
}

void mrc_ctl_evq_free(struct mrc_ctl_evq *q)
{
	genl_close(&q->g);
	pthread_mutex_destroy(&q->lock);
	free(q->ring);
	free(q);
}

/* One EV event of the family into the ring, or counted if it is full. */
static int evq_event_cb(uint8_t cmd, const struct genl_tb *t, void *arg)
{
	struct mrc_ctl_evq *q = arg;
	struct mrc_ctl_ev_event *ev;
	char dev[MRC_DEV_NAME_MAX + 1];

	if (cmd != MRC_CMD_EV_EVENT)
		return 0;
	genl_attr_str(t->a[MRC_A_EV_EVENT_DEV_NAME], dev, sizeof(dev));
	if (strcmp(dev, q->dev))
		return 0;
	/* What the kernel could not send counts as well. */
	q->dropped += genl_attr_u32(t->a[MRC_A_EV_EVENT_DROP_COUNT]);
	if (q->count == q->size) {
		q->dropped++;
		return 0;
	}
	ev = &q->ring[(q->head + q->count) % q->size];
	memset(ev, 0, sizeof(*ev));
	ev->profile_id = genl_attr_u64(t->a[MRC_A_EV_EVENT_PROFILE_ID]);
	ev_from_attr(&ev->ev, t->a[MRC_A_EV_EVENT_VALUE],
		     t->a[MRC_A_EV_EVENT_PORT]);
	ev->state = ev_state_from(genl_attr_u32(t->a[MRC_A_EV_EVENT_STATE]));
	ev->drop_count = q->dropped;
	q->dropped = 0;
	q->count++;
	return 0;
}

/*
 * The events of @cq into @out, @size bytes each: the 1.0.1 layout, or the
 * 1.0.0 one (no state), whose callers link to mrc_ctl_poll_ev_event_1_0_0
 * (<mrc_ctl.h>).
 */
static int evq_poll(struct mrc_cq *cq, int num_entries, void *out,
		    size_t size)
{
	struct mrc_ctl_evq *q;
	unsigned char *p = out;
	int n = 0, err;

	if (!cq || !cq->evq || num_entries < 0 || (num_entries && !out))
		return -EINVAL;
	q = cq->evq;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		err = genl_recv_events(&q->g, true, evq_event_cb, q);
		/* The socket overflowed: at least one event is lost. */
		if (err == -ENOBUFS) {
			q->dropped++;
			continue;
		}
		break;
	}
	if (err < 0) {
		pthread_mutex_unlock(&q->lock);
		return err;
	}
	for (; n < num_entries && q->count; n++) {
		memcpy(p + (size_t)n * size, &q->ring[q->head], size);
		q->head = (q->head + 1) % q->size;
		q->count--;
	}
	pthread_mutex_unlock(&q->lock);
	return n;
}

int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			  struct mrc_ctl_ev_event *events)
{
	return evq_poll(ev_cq, num_entries, events, sizeof(*events));
}

/* The 1.0.0 struct: the 1.0.1 one without its state (and its padding). */
#define EV_EVENT_1_0_0_SIZE	offsetof(struct mrc_ctl_ev_event, state)
static_assert(EV_EVENT_1_0_0_SIZE == 48, "1.0.0 mrc_ctl_ev_event is 48 bytes");

int mrc_ctl_poll_ev_event_1_0_0(struct mrc_cq *ev_cq, int num_entries,
				void *events);
int mrc_ctl_poll_ev_event_1_0_0(struct mrc_cq *ev_cq, int num_entries,
				void *events)
{
	return evq_poll(ev_cq, num_entries, events, EV_EVENT_1_0_0_SIZE);
}

/* ---- endpoint operations --------------------------------------------------------- */

struct ep_result {
	struct mrc_ctl_ep_rsp *rsp;
	int room;
	int n;			/* responses */
	int timed_out;		/* requests without one */
};

static int ep_cb(const struct genl_tb *t, void *arg)
{
	struct ep_result *r = arg;
	const struct nlattr *a = NULL;

	while ((a = genl_tb_next(t, MRC_A_EP_RSP, a))) {
		struct mrc_ctl_ep_rsp *rsp;
		struct genl_tb rt;

		genl_tb_nest(&rt, a);
		if (rt.a[MRC_A_EP_RSP_TIMED_OUT]) {
			r->timed_out++;
			continue;
		}
		if (r->n == r->room)
			continue;
		rsp = &r->rsp[r->n++];
		memset(rsp, 0, sizeof(*rsp));
		rsp->req_id = genl_attr_u16(rt.a[MRC_A_EP_RSP_REQ_ID]);
		rsp->port = (uint8_t)genl_attr_u32(rt.a[MRC_A_EP_RSP_PORT]);
		rsp->rtt = genl_attr_u32(rt.a[MRC_A_EP_RSP_RTT]);
		rsp->adj_svc_time = genl_attr_u8(rt.a[MRC_A_EP_RSP_ADJ_SVC_TIME]);
	}
	return 0;
}

int mrc_ctl_ep_batch_send_wait(struct mrc_context *mcontext, uint8_t req_tc,
			       enum mrc_ctl_ep_op_type op_type,
			       struct mrc_ctl_ep_req *req, int num_req,
			       uint32_t rsp_timeout,
			       struct mrc_ctl_ep_rsp *rsp, int *num_rsp)
{
	struct ep_result r = { .rsp = rsp, .room = num_req };
	bool psu = op_type == MRC_CTL_EP_OP_PORT_STATUS_UPDATE;
	struct mrc_ctl *c;
	struct genl_err e;
	struct genl_msg m;
	int err, i;

	if (num_rsp)
		*num_rsp = 0;
	if (!mcontext || !req || num_req <= 0 || !rsp || !num_rsp ||
	    !rsp_timeout || req_tc > CTL_DSCP_MAX ||
	    (op_type != MRC_CTL_EP_OP_EV_PROBE && !psu))
		return errno_style(EINVAL);
	err = ctl_get(mcontext, &c);
	if (err)
		return errno_style(err);
	ctl_msg(&m, &c->g, c->dev, MRC_CMD_EP_OP);
	genl_put_u32(&m, MRC_A_EP_OP_TYPE, op_type);
	genl_put_u32(&m, MRC_A_EP_DSCP, req_tc);
	genl_put_u32(&m, MRC_A_EP_TIMEOUT, rsp_timeout);
	for (i = 0; i < num_req; i++) {
		genl_nest_start(&m, MRC_A_EP_REQ);
		genl_put_u16(&m, MRC_A_EP_REQ_REQ_ID, req[i].req_id);
		genl_put_bin(&m, MRC_A_EP_REQ_SGID, req[i].sgid.raw,
			     sizeof(req[i].sgid.raw));
		genl_put_bin(&m, MRC_A_EP_REQ_DGID, req[i].dgid.raw,
			     sizeof(req[i].dgid.raw));
		genl_put_u32(&m, MRC_A_EP_REQ_EV_FMT_MODE, req[i].ev_fmt_mode);
		genl_put_bin(&m, MRC_A_EP_REQ_EV_VALUE, req[i].req_ev.val,
			     sizeof(req[i].req_ev.val));
		genl_put_u32(&m, MRC_A_EP_REQ_PORT, req[i].req_ev.port);
		if (psu)
			genl_put_u32(&m, MRC_A_EP_REQ_PORT_STATUS,
				     req[i].op.port_status_update.port_status);
		genl_nest_end(&m);
	}
	err = ctl_request(c, &m, ep_cb, &r, &e);
	genl_msg_free(&m);
	if (err)
		return errno_style(err);
	/* The responses that came, and ETIMEDOUT if any did not. */
	*num_rsp = r.n;
	return errno_style(r.timed_out ? ETIMEDOUT : 0);
}
