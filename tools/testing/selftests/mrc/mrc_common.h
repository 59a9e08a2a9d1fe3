/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the rdma_mrc C selftests: find the device under test,
 * pick a RoCE v2 GID, and build the modify_qp attributes of each state
 * transition.  Nothing here asserts: every helper returns 0 or an errno
 * value so that the kselftest harness' ASSERT_* stay in the tests.
 */
#ifndef MRC_COMMON_H
#define MRC_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <infiniband/verbs.h>

/* Environment variables set by with_device.sh (or by hand). */
#define MRC_ENV_DEV	"MRC_DEV"	/* ib device name, e.g. mrc0 */
#define MRC_ENV_IPV4	"MRC_IPV4"	/* IPv4 address of its netdev */

#define MRC_PORT	1		/* the only port of an mrc device */
#define MRC_PKEY_INDEX	0
#define MRC_DEFAULT_PKEY 0xffff
#define MRC_HOP_LIMIT	64
#define MRC_PATH_MTU	IBV_MTU_1024	/* below any Ethernet MTU used here */
#define MRC_RQ_PSN	0x123456
#define MRC_SQ_PSN	0x654321
#define MRC_MIN_RNR_TIMER 12
#define MRC_TIMEOUT	14		/* 4.096 us * 2^14 = 67 ms */
#define MRC_RETRY_CNT	7
#define MRC_RNR_RETRY	7
#define MRC_RD_ATOMIC	1		/* what unmodified applications set */
/* A QP number that no test creates: a peer that never answers. */
#define MRC_ABSENT_QPN	0xfffffe

/* Where a connected QP points. */
struct mrc_path {
	union ibv_gid dgid;
	int sgid_index;
	uint32_t dest_qpn;
	uint8_t rd_atomic;	/* max_dest_rd_atomic and max_rd_atomic */
};

/* The device named by $MRC_DEV; NULL with errno set if it is not there. */
struct ibv_context *mrc_open_device(void);
const char *mrc_device_name(void);
/* $name, or fallback if it is unset: for messages. */
const char *mrc_env_or(const char *name, const char *fallback);

/*
 * Find a RoCE v2 GID of the port: an IPv4-mapped one if want_ipv4, else
 * any non-zero one.  If $MRC_IPV4 is set and want_ipv4, the GID of exactly
 * that address.  Returns 0 or ENOENT.
 */
int mrc_find_gid(struct ibv_context *ctx, bool want_ipv4,
		 union ibv_gid *gid, int *index);
bool mrc_gid_is_ipv4(const union ibv_gid *gid);
/* The GID of an IPv4 address given as a string; 0 or EINVAL. */
int mrc_gid_from_ipv4(const char *addr, union ibv_gid *gid);

/* A path from the port's IPv4 GID back to itself, to qpn. */
int mrc_loopback_path(struct ibv_context *ctx, uint32_t qpn,
		      struct mrc_path *path);

/* Attributes and the minimal mask of each transition. */
void mrc_init_attr(struct ibv_qp_attr *attr, int *mask);
void mrc_rtr_attr(struct ibv_qp_attr *attr, int *mask,
		  const struct mrc_path *path);
void mrc_rts_attr(struct ibv_qp_attr *attr, int *mask,
		  const struct mrc_path *path);

/* RESET -> INIT -> RTR -> RTS along path; 0 or the failing errno. */
int mrc_qp_to_init(struct ibv_qp *qp);
int mrc_qp_to_rtr(struct ibv_qp *qp, const struct mrc_path *path);
int mrc_qp_to_rts(struct ibv_qp *qp, const struct mrc_path *path);
int mrc_qp_to_state(struct ibv_qp *qp, enum ibv_qp_state state);

/*
 * RESET -> RTS connected to itself (the port's IPv4 GID, its own QPN),
 * sending from sq_psn (MRC_RQ_PSN: from the PSN it expects); 0 or the
 * failing errno.
 */
int mrc_qp_connect_self(struct ibv_context *ctx, struct ibv_qp *qp,
			uint32_t sq_psn);

/* The QP's current state, or -1 if ibv_query_qp fails. */
int mrc_qp_state(struct ibv_qp *qp);

/*
 * Poll cq until n completions are in wc or timeout_ms passes; returns the
 * number polled (< n on timeout) or -1 if ibv_poll_cq fails.
 */
int mrc_poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms);

/* An RC QP on one CQ with small queues. */
struct ibv_qp *mrc_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				uint32_t max_wr, uint32_t max_sge,
				uint32_t max_inline);

#endif /* MRC_COMMON_H */
