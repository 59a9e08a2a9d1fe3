// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libmrc: the OCP MRC application API (<mrc.h>) on top of libibverbs and
 * this provider.  This file holds the library's versions, the MRC context
 * and the objects that are libibverbs objects underneath: completion
 * channels and CQs.  QP hints and QPs come later (Documentation/mrc/
 * ocp-api.rst, "Status").
 *
 * No global state: everything hangs off an mrc_context, which counts the
 * objects made under it, so that several contexts (and several users of
 * the library) live side by side in one process.
 *
 * Error conventions of the API: "errno style" calls return 0, or -1 with
 * errno set; "ibv style" int calls return 0 or the errno value (and set
 * errno too); calls returning a pointer return NULL with errno set.
 */
#include <config.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include <infiniband/verbs.h>
#include <infiniband/mrcdv.h>
#include <mrc.h>

struct mrc_context {
	struct ibv_context *ibv;
	uint32_t api_version;		/* the caller's, or the current one */
	uint32_t vendor_api_version;
	atomic_uint nobjs;		/* objects made under it, alive */
};

struct mrc_comp_channel {
	struct mrc_context *ctx;
	struct ibv_comp_channel *ibv;
};

struct mrc_cq {
	struct mrc_context *ctx;
	struct mrc_comp_channel *channel;	/* NULL: none */
	struct ibv_cq *ibv;		/* its cq_context is this mrc_cq */
	void *cq_context;		/* the caller's */
};

static int errno_style(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}

static int ibv_style(int err)
{
	if (err)
		errno = err;
	return err;
}

static void *null_with(int err)
{
	errno = err;
	return NULL;
}

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
	ctx->ibv = context;
	ctx->api_version = api;
	ctx->vendor_api_version = vendor;
	atomic_init(&ctx->nobjs, 0);
	return ctx;
}

/* errno style: EINVAL, EBUSY while objects made under it are alive. */
int mrc_destroy_context(struct mrc_context *mcontext)
{
	if (!mcontext)
		return errno_style(EINVAL);
	if (atomic_load(&mcontext->nobjs))
		return errno_style(EBUSY);
	free(mcontext);
	return 0;
}

static void mrc_ctx_get(struct mrc_context *ctx)
{
	atomic_fetch_add(&ctx->nobjs, 1);
}

static void mrc_ctx_put(struct mrc_context *ctx)
{
	atomic_fetch_sub(&ctx->nobjs, 1);
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
	return cq;
}

int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n;

	if (!cq || num_entries < 0 || (num_entries && !wc))
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
	err = ibv_destroy_cq(cq->ibv);
	if (err)
		return ibv_style(err);
	free(cq);
	mrc_ctx_put(ctx);
	return 0;
}

int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only)
{
	if (!cq)
		return ibv_style(EINVAL);
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
	if (cq && nevents)
		ibv_ack_cq_events(cq->ibv, nevents);
}
