/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libmrc's objects of the OCP MRC API that both halves see: the
 * application API (mrc_api.c) and the controller API (mrc_ctl.c).
 * Internal to libmrc; includes <mrc.h>, so never alongside the provider's
 * own mrc.h, whose type names it shares.
 */
#ifndef MRC_API_H
#define MRC_API_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#include <infiniband/verbs.h>
#include <mrc.h>

struct mrc_ctl;
struct mrc_ctl_evq;

/* An entry of a context's list of CQs or QPs. */
struct mrc_link {
	struct mrc_link *prev, *next;
};

struct mrc_context {
	struct ibv_context *ibv;
	uint32_t api_version;		/* the caller's, or the current one */
	uint32_t vendor_api_version;
	atomic_uint nobjs;		/* objects made under it, alive */
	atomic_uint nhints;		/* of which QP hints */
	pthread_mutex_t lock;		/* the lists, ctl */
	struct mrc_link cqs;
	struct mrc_link qps;
	/* The controller API's state, made by its first call (mrc_ctl.c). */
	struct mrc_ctl *ctl;
};

struct mrc_comp_channel {
	struct mrc_context *ctx;
	struct ibv_comp_channel *ibv;
};

/*
 * A CQ of work completions (ibv), or of EV events (evq, made by
 * mrc_ctl_create_ev_event_cq(); ibv is NULL).
 */
struct mrc_cq {
	struct mrc_link link;		/* first: in ctx->cqs (ibv CQs) */
	struct mrc_context *ctx;
	struct mrc_comp_channel *channel;	/* NULL: none */
	struct ibv_cq *ibv;		/* its cq_context is this mrc_cq */
	void *cq_context;		/* the caller's */
	struct mrc_ctl_evq *evq;
};

/* The API's error conventions (mrc_api.c's header comment). */
static inline int errno_style(int err)
{
	if (!err)
		return 0;
	errno = err;
	return -1;
}

static inline int ibv_style(int err)
{
	if (err)
		errno = err;
	return err;
}

static inline void *null_with(int err)
{
	errno = err;
	return NULL;
}

/* Objects made under a context keep it from being destroyed. */
static inline void mrc_ctx_get(struct mrc_context *ctx)
{
	atomic_fetch_add(&ctx->nobjs, 1);
}

static inline void mrc_ctx_put(struct mrc_context *ctx)
{
	atomic_fetch_sub(&ctx->nobjs, 1);
}

/* mrc_ctl.c, for mrc_api.c: what a context and an EV event CQ free. */
void mrc_ctl_free(struct mrc_ctl *ctl);
void mrc_ctl_evq_free(struct mrc_ctl_evq *q);

#endif /* MRC_API_H */
