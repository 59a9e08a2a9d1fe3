// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmrc: the OCP MRC application API (<mrc.h>) on top of libibverbs and
 * this provider: the library's versions, the device's MRC attributes, the
 * MRC context, completion channels, CQs, QP hints, QPs and their
 * attributes, and async events.  Documentation/mrc/libmrc.rst says what
 * each attribute maps to in rdma_mrc.
 *
 * No global state: everything hangs off an mrc_context, which counts the
 * objects made under it and keeps a list of its CQs and QPs (an async
 * event names libibverbs objects, which it maps back), so that several
 * contexts (and several users of the library) live side by side in one
 * process.
 *
 * Error conventions of the API: "errno style" calls return 0, or -1 with
 * errno set; "ibv style" int calls return 0 or the errno value (and set
 * errno too); calls returning a pointer return NULL with errno set.
 */
#include <config.h>

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <infiniband/mrcdv.h>
#include <mrc.h>

#include "mrc_prov.h"
#include "mrc_api.h"

/* The driver's ABI names must not hide the API's (both start MRC_). */
static_assert(MRC_QP_MAX_WIMM == 1 << 0 && MRC_QP_CAP == 1 << 9,
	      "a macro of <rdma/mrc-abi.h> hides a name of <mrc.h>");

/* QP hints one context holds at most (mrc_device_attr.qp_attr). */
#define MRC_API_MAX_QP_HINTS		1024
/* rdma_mrc devices have one port; the MRC API fixes QPs to it. */
#define MRC_API_PORT_NUM		1

#define MRC_QP_HINT_ATTR_ALL						\
	(MRC_QP_HINT_NUM_QPS_PER_PEER | MRC_QP_HINT_NUM_SEND_PEERS |	\
	 MRC_QP_HINT_NUM_REMOTE_RECV_PEERS | MRC_QP_HINT_VENDOR_CFG)
#define MRC_QP_ATTR_ALL							\
	(MRC_QP_MAX_WIMM | MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR |		\
	 MRC_QP_MPR_DEST | MRC_QP_TIMEOUT | MRC_QP_EV_PROFILE_ID |	\
	 MRC_QP_CC_PROFILE_ID | MRC_QP_HINT | MRC_QP_RETRY_CNT |	\
	 MRC_QP_CAP | MRC_QP_VENDOR_CFG)
#define MRC_QP_CAP_ALL							\
	(MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED | MRC_QP_CAP_DYNAMIC_MPR |	\
	 MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED)
/*
 * Verbs attributes the MRC API has its own of, or none: mrc_modify_qp()
 * ignores them (the OCP examples pass some) and supplies what the verbs
 * state machine needs itself (mrc_qp_fill_verbs()).
 */
#define MRC_API_IGNORED_IBV_ATTRS					\
	(IBV_QP_PORT | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |		\
	 IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER |			\
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC |		\
	 IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)
/* Access of a QP whose caller names none at INIT: a WRITE target. */
#define MRC_API_DEFAULT_ACCESS	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE)

struct mrc_qp_hint {
	struct mrc_context *ctx;
	pthread_mutex_t lock;		/* attr */
	struct mrc_qp_hint_attr attr;
	atomic_uint users;		/* QPs naming it */
};

struct mrc_qp {
	struct mrc_link link;		/* first: in ctx->qps */
	struct mrc_context *ctx;
	struct ibv_qp *ibv;
	struct mrc_qp_init_attr init;	/* as created, the caps granted */
	pthread_mutex_t lock;		/* attr, and modify as a whole */
	struct mrc_qp_attr attr;	/* MRC attributes: as set, or defaults */
};

void mrc_query_version(uint32_t *current, uint32_t *last_supported,
		       uint32_t *vendor_current,
		       uint32_t *vendor_last_supported)
{
	if (current)
		*current = MRC_API_CURRENT_VERSION;
	if (last_supported)
		*last_supported = MRC_API_LAST_SUPPORTED_VERSION;
	if (vendor_current)
		*vendor_current = MRC_VENDOR_API_CURRENT_VERSION;
	if (vendor_last_supported)
		*vendor_last_supported = MRC_VENDOR_API_LAST_SUPPORTED_VERSION;
}

/*
 * A version a context may be made for: 0 (not stated: the current one),
 * or one from the oldest supported to the current one.  The OCP benchmark
 * states MRC_PROTOCOL_VERSION_1, which reads as 0.0.1: within the range.
 */
static bool mrc_version_ok(uint32_t v, uint32_t oldest, uint32_t current,
			   uint32_t *out)
{
	if (!v || v == MRC_API_VERSION_LATEST) {
		*out = current;
		return true;
	}
	if (v < oldest || v > current)
		return false;
	*out = v;
	return true;
}

struct mrc_context *mrc_create_context(struct ibv_context *context,
				       struct mrc_context_attr *attr)
{
	struct mrc_context_attr none = {};
	struct mrc_context *ctx;
	uint32_t api, vendor;

	if (!context)
		return null_with(EINVAL);
	if (!mrcdv_is_supported(context->device))
		return null_with(EOPNOTSUPP);
	if (!attr)
		attr = &none;
	if (!mrc_version_ok(attr->mrc_api_version_used,
			    MRC_API_LAST_SUPPORTED_VERSION,
			    MRC_API_CURRENT_VERSION, &api) ||
	    !mrc_version_ok(attr->mrc_vendor_api_version_used,
			    MRC_VENDOR_API_LAST_SUPPORTED_VERSION,
			    MRC_VENDOR_API_CURRENT_VERSION, &vendor))
		return null_with(EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return null_with(ENOMEM);
	if (pthread_mutex_init(&ctx->lock, NULL)) {
		free(ctx);
		return null_with(ENOMEM);
	}
	ctx->ibv = context;
	ctx->api_version = api;
	ctx->vendor_api_version = vendor;
	atomic_init(&ctx->nobjs, 0);
	atomic_init(&ctx->nhints, 0);
	ctx->cqs.prev = ctx->cqs.next = &ctx->cqs;
	ctx->qps.prev = ctx->qps.next = &ctx->qps;
	return ctx;
}

/* errno style: EINVAL, EBUSY while objects made under it are alive. */
int mrc_destroy_context(struct mrc_context *mcontext)
{
	if (!mcontext)
		return errno_style(EINVAL);
	if (atomic_load(&mcontext->nobjs))
		return errno_style(EBUSY);
	if (mcontext->ctl)
		mrc_ctl_free(mcontext->ctl);
	pthread_mutex_destroy(&mcontext->lock);
	free(mcontext);
	return 0;
}

static void mrc_link_add(struct mrc_context *ctx, struct mrc_link *head,
			 struct mrc_link *l)
{
	pthread_mutex_lock(&ctx->lock);
	l->next = head;
	l->prev = head->prev;
	head->prev->next = l;
	head->prev = l;
	pthread_mutex_unlock(&ctx->lock);
}

static void mrc_link_del(struct mrc_context *ctx, struct mrc_link *l)
{
	pthread_mutex_lock(&ctx->lock);
	l->prev->next = l->next;
	l->next->prev = l->prev;
	pthread_mutex_unlock(&ctx->lock);
}

int mrc_create_comp_channel(struct mrc_context *mcontext,
			    struct mrc_comp_channel **channel)
{
	struct mrc_comp_channel *ch;

	if (!mcontext || !channel)
		return ibv_style(EINVAL);
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return ibv_style(ENOMEM);
	ch->ibv = ibv_create_comp_channel(mcontext->ibv);
	if (!ch->ibv) {
		int err = errno ? errno : ENOMEM;

		free(ch);
		return ibv_style(err);
	}
	ch->ctx = mcontext;
	mrc_ctx_get(mcontext);
	*channel = ch;
	return 0;
}

int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd)
{
	if (!channel || !fd)
		return errno_style(EINVAL);
	*fd = channel->ibv->fd;
	return 0;
}

/* ibv style: EBUSY while a CQ uses it (as ibv_destroy_comp_channel). */
int mrc_destroy_comp_channel(struct mrc_comp_channel *channel)
{
	struct mrc_context *ctx;
	int err;

	if (!channel)
		return ibv_style(EINVAL);
	ctx = channel->ctx;
	err = ibv_destroy_comp_channel(channel->ibv);
	if (err)
		return ibv_style(err);
	free(channel);
	mrc_ctx_put(ctx);
	return 0;
}

struct mrc_cq *mrc_create_cq(struct mrc_context *mcontext, int cqe,
			     void *cq_context,
			     struct mrc_comp_channel *channel,
			     int comp_vector)
{
	struct mrc_cq *cq;

	if (!mcontext || cqe <= 0 || (channel && channel->ctx != mcontext))
		return null_with(EINVAL);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return null_with(ENOMEM);
	cq->ibv = ibv_create_cq(mcontext->ibv, cqe, cq,
				channel ? channel->ibv : NULL, comp_vector);
	if (!cq->ibv) {
		int err = errno ? errno : ENOMEM;

		free(cq);
		return null_with(err);
	}
	cq->ctx = mcontext;
	cq->channel = channel;
	cq->cq_context = cq_context;
	mrc_ctx_get(mcontext);
	mrc_link_add(mcontext, &mcontext->cqs, &cq->link);
	return cq;
}

int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n;

	/* An EV event CQ is polled with mrc_ctl_poll_ev_event(). */
	if (!cq || cq->evq || num_entries < 0 || (num_entries && !wc))
		return errno_style(EINVAL);
	n = ibv_poll_cq(cq->ibv, num_entries, wc);
	if (n < 0)
		return errno_style(-n > 0 ? -n : EIO);
	return n;
}

/* ibv style; waits for every CQ event got to be acknowledged. */
int mrc_destroy_cq(struct mrc_cq *cq)
{
	struct mrc_context *ctx;
	int err;

	if (!cq)
		return ibv_style(EINVAL);
	ctx = cq->ctx;
	if (cq->evq) {
		mrc_ctl_evq_free(cq->evq);
		free(cq);
		mrc_ctx_put(ctx);
		return 0;
	}
	err = ibv_destroy_cq(cq->ibv);
	if (err)
		return ibv_style(err);
	mrc_link_del(ctx, &cq->link);
	free(cq);
	mrc_ctx_put(ctx);
	return 0;
}

int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only)
{
	if (!cq)
		return ibv_style(EINVAL);
	/* EV events reach no completion channel: they are polled. */
	if (cq->evq)
		return ibv_style(EOPNOTSUPP);
	return ibv_style(ibv_req_notify_cq(cq->ibv, solicited_only));
}

int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq,
		     void **cq_context)
{
	struct ibv_cq *ibcq;
	void *ours;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	if (ibv_get_cq_event(channel->ibv, &ibcq, &ours))
		return -1;
	*cq = ours;
	*cq_context = (*cq)->cq_context;
	return 0;
}

void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents)
{
	if (cq && cq->ibv && nevents)
		ibv_ack_cq_events(cq->ibv, nevents);
}

/* ------------------------------------------------------------------------
 * The device.
 */
static void mrc_fill_device_attr(struct mrc_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->mrc_protocol_version = MRC_PROTOCOL_VERSION_1;
	attr->wimm_attr.max_wimm = MRC_ABI_MAX_WIMM;
	attr->wimm_attr.max_wimm_dest = MRC_ABI_MAX_WIMM;
	attr->mpr_attr.max_mpr = MRC_ABI_MAX_MPR_UNITS;
	attr->mpr_attr.mpr_resolution = 1;
	attr->qp_attr.max_qp_hint = MRC_API_MAX_QP_HINTS;
	/* No Dynamic MPR, no service time in CC_STATE (libmrc.rst). */
	attr->cap = MRC_DEVICE_CAP_TRIM_NACK;
}

/* errno style; a device that is not an rdma_mrc one: 0, *supported 0. */
int mrc_query_device(struct ibv_context *context,
		     struct mrc_device_attr *attr, int *supported)
{
	struct ibv_device_attr dev_attr;
	int err;

	if (!context || !attr || !supported)
		return errno_style(EINVAL);
	*supported = 0;
	memset(attr, 0, sizeof(*attr));
	if (!mrcdv_is_supported(context->device))
		return 0;
	/* The device must still be there. */
	err = ibv_query_device(context, &dev_attr);
	if (err)
		return errno_style(err);
	mrc_fill_device_attr(attr);
	*supported = 1;
	return 0;
}

/* 1.0.1: the same attributes; @mcontext, if given, must be @context's. */
int mrc_query_device_ex(struct ibv_context *context,
			struct mrc_context *mcontext,
			struct mrc_device_attr *attr, int *supported)
{
	if (mcontext && mcontext->ibv != context)
		return errno_style(EINVAL);
	return mrc_query_device(context, attr, supported);
}

/* ------------------------------------------------------------------------
 * QP hints: sizing advice, kept by the library (libmrc.rst).
 */
static int mrc_hint_check(const struct mrc_qp_hint_attr *attr, int mask)
{
	if (!attr || (mask & ~MRC_QP_HINT_ATTR_ALL))
		return EINVAL;
	if (((mask & MRC_QP_HINT_NUM_QPS_PER_PEER) &&
	     attr->num_qps_per_peer < 0) ||
	    ((mask & MRC_QP_HINT_NUM_SEND_PEERS) &&
	     attr->num_send_peers < 0) ||
	    ((mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS) &&
	     attr->num_remote_recv_peers < 0))
		return EINVAL;
	return 0;
}

static void mrc_hint_copy(struct mrc_qp_hint_attr *to,
			  const struct mrc_qp_hint_attr *from, int mask)
{
	if (mask & MRC_QP_HINT_NUM_QPS_PER_PEER)
		to->num_qps_per_peer = from->num_qps_per_peer;
	if (mask & MRC_QP_HINT_NUM_SEND_PEERS)
		to->num_send_peers = from->num_send_peers;
	if (mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS)
		to->num_remote_recv_peers = from->num_remote_recv_peers;
	if (mask & MRC_QP_HINT_VENDOR_CFG)
		memcpy(to->vendor_cfg, from->vendor_cfg,
		       sizeof(to->vendor_cfg));
}

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *mcontext,
				       struct mrc_qp_hint_init_attr *attr)
{
	struct mrc_qp_hint *hint;
	int err;

	if (!mcontext || !attr)
		return null_with(EINVAL);
	err = mrc_hint_check(&attr->attr, MRC_QP_HINT_ATTR_ALL);
	if (err)
		return null_with(err);
	if (atomic_fetch_add(&mcontext->nhints, 1) >= MRC_API_MAX_QP_HINTS) {
		atomic_fetch_sub(&mcontext->nhints, 1);
		return null_with(ENOMEM);
	}
	hint = calloc(1, sizeof(*hint));
	if (!hint || pthread_mutex_init(&hint->lock, NULL)) {
		free(hint);
		atomic_fetch_sub(&mcontext->nhints, 1);
		return null_with(ENOMEM);
	}
	hint->ctx = mcontext;
	hint->attr = attr->attr;
	atomic_init(&hint->users, 0);
	mrc_ctx_get(mcontext);
	return hint;
}

/* errno style: EINVAL, EBUSY while a QP names it. */
int mrc_destroy_qp_hint(struct mrc_qp_hint *hint)
{
	struct mrc_context *ctx;

	if (!hint)
		return errno_style(EINVAL);
	if (atomic_load(&hint->users))
		return errno_style(EBUSY);
	ctx = hint->ctx;
	pthread_mutex_destroy(&hint->lock);
	free(hint);
	atomic_fetch_sub(&ctx->nhints, 1);
	mrc_ctx_put(ctx);
	return 0;
}

int mrc_query_qp_hint(struct mrc_qp_hint *hint, struct mrc_qp_hint_attr *attr,
		      int attr_mask)
{
	if (!hint || !attr || (attr_mask & ~MRC_QP_HINT_ATTR_ALL))
		return errno_style(EINVAL);
	pthread_mutex_lock(&hint->lock);
	mrc_hint_copy(attr, &hint->attr, attr_mask);
	pthread_mutex_unlock(&hint->lock);
	return 0;
}

int mrc_modify_qp_hint(struct mrc_qp_hint *hint, struct mrc_qp_hint_attr *attr,
		       int attr_mask)
{
	int err;

	if (!hint)
		return errno_style(EINVAL);
	err = mrc_hint_check(attr, attr_mask);
	if (err)
		return errno_style(err);
	pthread_mutex_lock(&hint->lock);
	mrc_hint_copy(&hint->attr, attr, attr_mask);
	pthread_mutex_unlock(&hint->lock);
	return 0;
}

/* ------------------------------------------------------------------------
 * QPs: a libibverbs QP of the provider, and the MRC attributes the
 * provider's modify extension gives the kernel.
 */

/* The MRC attributes of a new QP: what the kernel reports it made. */
static void mrc_qp_attr_created(struct mrc_qp *qp)
{
	struct mrc_qp_mrc_attr k;
	struct mrc_qp_attr *a = &qp->attr;

	mrc_prov_qp_created_attr(qp->ibv, &k);
	memset(a, 0, sizeof(*a));
	a->mpr.mpr = k.mpr;
	a->mpr.mpr_dest = k.mpr_dest;
	a->wimm.max_wimm = k.max_wimm;
	a->wimm.max_wimm_dest = k.max_wimm_dest;
	a->timeout = k.timeout;
	a->profile.ev_profile_id = k.ev_profile_id;
	a->profile.cc_profile_id = k.cc_profile_id;
	a->retry.linear_cnt = k.retry_linear;
	a->retry.exp_cnt = k.retry_exp;
}

struct mrc_qp *mrc_create_qp(struct mrc_context *mcontext,
			     struct mrc_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ex = {};
	struct mrc_qp *qp;

	if (!mcontext || !attr || !attr->pd || !attr->send_cq ||
	    !attr->recv_cq || attr->pd->context != mcontext->ibv ||
	    attr->send_cq->ctx != mcontext || attr->recv_cq->ctx != mcontext)
		return null_with(EINVAL);
	if (attr->protocol_version != MRC_PROTOCOL_VERSION_0 &&
	    attr->protocol_version != MRC_PROTOCOL_VERSION_1)
		return null_with(EINVAL);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return null_with(ENOMEM);
	if (pthread_mutex_init(&qp->lock, NULL)) {
		free(qp);
		return null_with(ENOMEM);
	}
	ex.qp_context = qp;
	ex.send_cq = attr->send_cq->ibv;
	ex.recv_cq = attr->recv_cq->ibv;
	ex.cap = attr->cap;
	ex.qp_type = IBV_QPT_RC;
	ex.sq_sig_all = attr->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = attr->pd;
	if (attr->send_ops_flags) {
		ex.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		ex.send_ops_flags = attr->send_ops_flags;
	}
	qp->ibv = ibv_create_qp_ex(mcontext->ibv, &ex);
	if (!qp->ibv) {
		int err = errno ? errno : ENOMEM;

		pthread_mutex_destroy(&qp->lock);
		free(qp);
		return null_with(err);
	}
	attr->cap = ex.cap;
	qp->init = *attr;
	qp->ctx = mcontext;
	mrc_qp_attr_created(qp);
	mrc_ctx_get(mcontext);
	mrc_link_add(mcontext, &mcontext->qps, &qp->link);
	return qp;
}

/* ibv style. */
int mrc_destroy_qp(struct mrc_qp *qp)
{
	struct mrc_context *ctx;
	int err;

	if (!qp)
		return ibv_style(EINVAL);
	ctx = qp->ctx;
	err = ibv_destroy_qp(qp->ibv);
	if (err)
		return ibv_style(err);
	mrc_link_del(ctx, &qp->link);
	if (qp->attr.qp_hint)
		atomic_fetch_sub(&qp->attr.qp_hint->users, 1);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
	mrc_ctx_put(ctx);
	return 0;
}

int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn)
{
	if (!qp || !qpn)
		return errno_style(EINVAL);
	*qpn = qp->ibv->qp_num;
	return 0;
}

static void mrc_qp_attr_copy(struct mrc_qp_attr *to,
			     const struct mrc_qp_attr *from, int mask)
{
	if (mask & MRC_QP_MAX_WIMM)
		to->wimm.max_wimm = from->wimm.max_wimm;
	if (mask & MRC_QP_MAX_WIMM_DEST)
		to->wimm.max_wimm_dest = from->wimm.max_wimm_dest;
	if (mask & MRC_QP_MPR)
		to->mpr.mpr = from->mpr.mpr;
	if (mask & MRC_QP_MPR_DEST)
		to->mpr.mpr_dest = from->mpr.mpr_dest;
	if (mask & MRC_QP_TIMEOUT)
		to->timeout = from->timeout;
	if (mask & MRC_QP_EV_PROFILE_ID)
		to->profile.ev_profile_id = from->profile.ev_profile_id;
	if (mask & MRC_QP_CC_PROFILE_ID)
		to->profile.cc_profile_id = from->profile.cc_profile_id;
	if (mask & MRC_QP_HINT)
		to->qp_hint = from->qp_hint;
	if (mask & MRC_QP_RETRY_CNT)
		to->retry = from->retry;
	if (mask & MRC_QP_CAP)
		to->cap = from->cap;
	if (mask & MRC_QP_VENDOR_CFG)
		memcpy(to->vendor_cfg, from->vendor_cfg, sizeof(to->vendor_cfg));
}

/* In any state; ibv style. */
int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct mrc_qp_attr *mrc_attr, int mrc_attr_mask,
		 struct mrc_qp_init_attr *init_attr)
{
	struct ibv_qp_init_attr ibv_init;
	int err;

	if (!qp || (attr_mask && !attr) ||
	    (mrc_attr_mask & ~MRC_QP_ATTR_ALL) ||
	    (mrc_attr_mask && !mrc_attr))
		return ibv_style(EINVAL);
	if (attr) {
		err = ibv_query_qp(qp->ibv, attr, attr_mask, &ibv_init);
		if (err)
			return ibv_style(err);
	}
	pthread_mutex_lock(&qp->lock);
	if (mrc_attr)
		mrc_qp_attr_copy(mrc_attr, &qp->attr, mrc_attr_mask);
	if (init_attr)
		*init_attr = qp->init;
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

/* The MRC attributes of @mask in range, the hint of this context? */
static int mrc_qp_attr_check(struct mrc_qp *qp, const struct mrc_qp_attr *a,
			     int mask)
{
	if (((mask & MRC_QP_MPR) &&
	     (!a->mpr.mpr || a->mpr.mpr > MRC_ABI_MAX_MPR_UNITS)) ||
	    ((mask & MRC_QP_MPR_DEST) &&
	     (!a->mpr.mpr_dest || a->mpr.mpr_dest > MRC_ABI_MAX_MPR_UNITS)) ||
	    ((mask & MRC_QP_MAX_WIMM) &&
	     (!a->wimm.max_wimm || a->wimm.max_wimm > MRC_ABI_MAX_WIMM)) ||
	    ((mask & MRC_QP_MAX_WIMM_DEST) &&
	     (!a->wimm.max_wimm_dest ||
	      a->wimm.max_wimm_dest > MRC_ABI_MAX_WIMM)) ||
	    ((mask & MRC_QP_TIMEOUT) && a->timeout > MRC_ABI_MAX_TIMEOUT) ||
	    ((mask & MRC_QP_RETRY_CNT) &&
	     (a->retry.linear_cnt > MRC_ABI_MAX_RETRY_LINEAR ||
	      a->retry.exp_cnt > MRC_ABI_RETRY_EXP_FOREVER)) ||
	    ((mask & MRC_QP_CAP) && (a->cap & ~MRC_QP_CAP_ALL)) ||
	    ((mask & MRC_QP_HINT) && a->qp_hint && a->qp_hint->ctx != qp->ctx))
		return EINVAL;
	return 0;
}

/*
 * The kernel's part of a modify: the MRC attributes @mask changes, from
 * @a; the profiles (changed as a pair) and, at RTR -> RTS, the timeout
 * and retries always, from @a where the caller named them and from what
 * the QP has otherwise.
 */
static void mrc_qp_drv_cmd(const struct mrc_qp_attr *a, int mask, bool to_rts,
			   struct mrc_modify_qp_cmd *cmd)
{
	struct mrc_qp_mrc_attr *k = &cmd->attr;

	memset(cmd, 0, sizeof(*cmd));
	if (mask & MRC_QP_MAX_WIMM)
		cmd->mask |= MRC_MODIFY_QP_MAX_WIMM;
	if (mask & MRC_QP_MAX_WIMM_DEST)
		cmd->mask |= MRC_MODIFY_QP_MAX_WIMM_DEST;
	if (mask & MRC_QP_MPR)
		cmd->mask |= MRC_MODIFY_QP_MPR;
	if (mask & MRC_QP_MPR_DEST)
		cmd->mask |= MRC_MODIFY_QP_MPR_DEST;
	if ((mask & MRC_QP_TIMEOUT) || to_rts)
		cmd->mask |= MRC_MODIFY_QP_TIMEOUT;
	if ((mask & MRC_QP_RETRY_CNT) || to_rts)
		cmd->mask |= MRC_MODIFY_QP_RETRY;
	if (mask & (MRC_QP_EV_PROFILE_ID | MRC_QP_CC_PROFILE_ID))
		cmd->mask |= MRC_MODIFY_QP_PROFILES;
	if (mask & MRC_QP_CAP)
		cmd->mask |= MRC_MODIFY_QP_CAP;
	k->ev_profile_id = a->profile.ev_profile_id;
	k->cc_profile_id = a->profile.cc_profile_id;
	k->max_wimm = a->wimm.max_wimm;
	k->max_wimm_dest = a->wimm.max_wimm_dest;
	k->mpr = a->mpr.mpr;
	k->mpr_dest = a->mpr.mpr_dest;
	k->timeout = a->timeout;
	k->retry_linear = a->retry.linear_cnt;
	k->retry_exp = a->retry.exp_cnt;
	if (a->cap & MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED)
		k->cap |= MRC_ABI_QP_CAP_NO_TRIM_NACK;
	if (a->cap & MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED)
		k->cap |= MRC_ABI_QP_CAP_NO_SVC_TIME;
}

/*
 * The verbs attributes a transition needs that the MRC API does not let
 * its caller give (or that the caller may leave out), filled in: the one
 * port at INIT, a P_Key index and WRITE access if not named; at RTR and
 * RTS the RNR and RDMA READ attributes MRC has no use for, and the verbs
 * timeout and retry count (the MRC ones, which the kernel applies after
 * them, decide).
 */
static void mrc_qp_fill_verbs(struct ibv_qp_attr *v, int *mask,
			      enum ibv_qp_state cur, enum ibv_qp_state next,
			      const struct mrc_qp_attr *a)
{
	if (cur == IBV_QPS_RESET && next == IBV_QPS_INIT) {
		v->port_num = MRC_API_PORT_NUM;
		*mask |= IBV_QP_PORT;
		if (!(*mask & IBV_QP_PKEY_INDEX)) {
			v->pkey_index = 0;
			*mask |= IBV_QP_PKEY_INDEX;
		}
		if (!(*mask & IBV_QP_ACCESS_FLAGS)) {
			v->qp_access_flags = MRC_API_DEFAULT_ACCESS;
			*mask |= IBV_QP_ACCESS_FLAGS;
		}
	} else if (cur == IBV_QPS_INIT && next == IBV_QPS_RTR) {
		v->max_dest_rd_atomic = 0;
		v->min_rnr_timer = 0;
		*mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	} else if (cur == IBV_QPS_RTR && next == IBV_QPS_RTS) {
		v->timeout = 0;
		v->retry_cnt = a->retry.linear_cnt;
		v->rnr_retry = 0;
		v->max_rd_atomic = 0;
		*mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			 IBV_QP_MAX_QP_RD_ATOMIC;
	}
}

/* ibv style. */
int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct mrc_qp_attr *mrc_attr, int mrc_attr_mask)
{
	struct ibv_qp_attr v = {}, now;
	struct ibv_qp_init_attr ibv_init;
	struct mrc_modify_qp_cmd cmd;
	enum ibv_qp_state cur, next;
	struct mrc_qp_hint *old_hint;
	struct mrc_qp_attr want;
	int mask, err;

	if (!qp || (attr_mask && !attr) ||
	    (mrc_attr_mask & ~MRC_QP_ATTR_ALL) ||
	    (mrc_attr_mask && !mrc_attr))
		return ibv_style(EINVAL);
	pthread_mutex_lock(&qp->lock);
	err = mrc_attr ? mrc_qp_attr_check(qp, mrc_attr, mrc_attr_mask) : 0;
	if (err)
		goto out;
	err = ibv_query_qp(qp->ibv, &now, IBV_QP_STATE, &ibv_init);
	if (err)
		goto out;
	cur = (attr_mask & IBV_QP_CUR_STATE) ? attr->cur_qp_state :
					       now.qp_state;
	next = (attr_mask & IBV_QP_STATE) ? attr->qp_state : cur;

	want = qp->attr;
	if (mrc_attr)
		mrc_qp_attr_copy(&want, mrc_attr, mrc_attr_mask);
	if (attr)
		v = *attr;
	mask = attr_mask & ~MRC_API_IGNORED_IBV_ATTRS;
	mrc_qp_fill_verbs(&v, &mask, cur, next, &want);
	mrc_qp_drv_cmd(&want, mrc_attr_mask,
		       cur == IBV_QPS_RTR && next == IBV_QPS_RTS, &cmd);
	err = mrc_prov_modify_qp(qp->ibv, &v, mask, &cmd);
	if (err)
		goto out;
	old_hint = qp->attr.qp_hint;
	qp->attr = want;
	if (want.qp_hint != old_hint) {
		if (want.qp_hint)
			atomic_fetch_add(&want.qp_hint->users, 1);
		if (old_hint)
			atomic_fetch_sub(&old_hint->users, 1);
	}
out:
	pthread_mutex_unlock(&qp->lock);
	return ibv_style(err);
}

static int mrc_check_send_wrs(struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr)
{
	for (; wr; wr = wr->next) {
		if (wr->opcode != IBV_WR_RDMA_WRITE &&
		    wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM) {
			*bad_wr = wr;
			return EINVAL;
		}
	}
	return 0;
}

/* As ibv_post_send: 0 or the errno value; RDMA WRITE (with IMM) only. */
int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	int err;

	if (!qp || !bad_wr)
		return ibv_style(EINVAL);
	err = mrc_check_send_wrs(wr, bad_wr);
	if (!err)
		err = ibv_post_send(qp->ibv, wr, bad_wr);
	return ibv_style(err);
}

/* As ibv_post_recv: 0 or the errno value. */
int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	if (!qp || !bad_wr)
		return ibv_style(EINVAL);
	return ibv_style(ibv_post_recv(qp->ibv, wr, bad_wr));
}

/* ------------------------------------------------------------------------
 * Async events: libibverbs' events of this context's objects, named by
 * the MRC objects.
 */
static struct mrc_link *mrc_link_find(struct mrc_context *ctx,
				      struct mrc_link *head, const void *ibv,
				      bool qps)
{
	struct mrc_link *l, *found = NULL;

	pthread_mutex_lock(&ctx->lock);
	for (l = head->next; l != head && !found; l = l->next) {
		const void *obj = qps ? (const void *)((struct mrc_qp *)l)->ibv :
					(const void *)((struct mrc_cq *)l)->ibv;

		if (obj == ibv)
			found = l;
	}
	pthread_mutex_unlock(&ctx->lock);
	return found;
}

static bool mrc_event_is_qp(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		return true;
	default:
		return false;
	}
}

/*
 * ibv style.  Blocks as ibv_get_async_event does.  Events of objects not
 * made by this context (a program may use libibverbs beside it) are
 * acknowledged and passed over.
 */
int mrc_get_async_event(struct mrc_context *mcontext,
			struct mrc_async_event *event)
{
	struct ibv_async_event ev;
	struct mrc_link *l;

	if (!mcontext || !event)
		return ibv_style(EINVAL);
	for (;;) {
		if (ibv_get_async_event(mcontext->ibv, &ev))
			return ibv_style(errno ? errno : EIO);
		memset(event, 0, sizeof(*event));
		event->event_type = ev.event_type;
		if (mrc_event_is_qp(ev.event_type)) {
			l = mrc_link_find(mcontext, &mcontext->qps,
					  ev.element.qp, true);
			event->element.qp = (struct mrc_qp *)l;
		} else if (ev.event_type == IBV_EVENT_CQ_ERR) {
			l = mrc_link_find(mcontext, &mcontext->cqs,
					  ev.element.cq, false);
			event->element.cq = (struct mrc_cq *)l;
		} else {
			event->element.port_num = ev.element.port_num;
			return 0;
		}
		if (l)
			return 0;
		ibv_ack_async_event(&ev);
	}
}

void mrc_ack_async_event(struct mrc_async_event *event)
{
	struct ibv_async_event ev = {};

	if (!event)
		return;
	ev.event_type = event->event_type;
	if (mrc_event_is_qp(event->event_type)) {
		if (!event->element.qp)
			return;
		ev.element.qp = event->element.qp->ibv;
	} else if (event->event_type == IBV_EVENT_CQ_ERR) {
		if (!event->element.cq)
			return;
		ev.element.cq = event->element.cq->ibv;
	} else {
		ev.element.port_num = event->element.port_num;
	}
	ibv_ack_async_event(&ev);
}
