// SPDX-License-Identifier: GPL-2.0
/*
 * Shared helpers for the rdma_mrc C selftests (see mrc_common.h).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrc_common.h"

#define NSEC_PER_MSEC	1000000L
#define MSEC_PER_SEC	1000L
#define POLL_BACKOFF_US	1000	/* between empty polls in mrc_poll_n */
/* Bytes 0-9 zero, 10-11 0xffff: the ::ffff:a.b.c.d prefix. */
#define V4MAPPED_ZERO_BYTES	10
#define V4MAPPED_PREFIX_LEN	12
#define V4MAPPED_FF		0xff

const char *mrc_device_name(void)
{
	return getenv(MRC_ENV_DEV);
}

const char *mrc_env_or(const char *name, const char *fallback)
{
	const char *value = getenv(name);

	return value ? value : fallback;
}

struct ibv_context *mrc_open_device(void)
{
	const char *name = mrc_device_name();
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int saved = ENODEV;
	int n, i;

	if (!name || !*name) {
		errno = EINVAL;
		return NULL;
	}
	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		saved = ctx ? 0 : errno;
		break;
	}
	ibv_free_device_list(list);
	if (!ctx)
		errno = saved;
	return ctx;
}

bool mrc_gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t prefix[V4MAPPED_PREFIX_LEN] = {
		[V4MAPPED_ZERO_BYTES] = V4MAPPED_FF,
		[V4MAPPED_ZERO_BYTES + 1] = V4MAPPED_FF,
	};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

int mrc_gid_from_ipv4(const char *addr, union ibv_gid *gid)
{
	struct in_addr in;

	if (inet_pton(AF_INET, addr, &in) != 1)
		return EINVAL;
	memset(gid, 0, sizeof(*gid));
	gid->raw[V4MAPPED_ZERO_BYTES] = V4MAPPED_FF;
	gid->raw[V4MAPPED_ZERO_BYTES + 1] = V4MAPPED_FF;
	memcpy(&gid->raw[V4MAPPED_PREFIX_LEN], &in, sizeof(in));
	return 0;
}

static bool gid_is_zero(const union ibv_gid *gid)
{
	static const union ibv_gid zero;

	return !memcmp(gid, &zero, sizeof(zero));
}

int mrc_find_gid(struct ibv_context *ctx, bool want_ipv4,
		 union ibv_gid *gid, int *index)
{
	const char *want_addr = getenv(MRC_ENV_IPV4);
	union ibv_gid wanted;
	bool exact = false;
	struct ibv_port_attr port;
	struct ibv_gid_entry entry;
	int i, ret;

	if (want_ipv4 && want_addr && *want_addr) {
		if (mrc_gid_from_ipv4(want_addr, &wanted))
			return EINVAL;
		exact = true;
	}
	ret = ibv_query_port(ctx, MRC_PORT, &port);
	if (ret)
		return ret;
	for (i = 0; i < port.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, MRC_PORT, i, &entry, 0))
			continue;	/* an empty slot */
		if (entry.gid_type != IBV_GID_TYPE_ROCE_V2 ||
		    gid_is_zero(&entry.gid))
			continue;
		if (want_ipv4 && !mrc_gid_is_ipv4(&entry.gid))
			continue;
		if (exact && memcmp(&entry.gid, &wanted, sizeof(wanted)))
			continue;
		*gid = entry.gid;
		*index = i;
		return 0;
	}
	return ENOENT;
}

int mrc_loopback_path(struct ibv_context *ctx, uint32_t qpn,
		      struct mrc_path *path)
{
	memset(path, 0, sizeof(*path));
	path->dest_qpn = qpn;
	path->rd_atomic = MRC_RD_ATOMIC;
	return mrc_find_gid(ctx, true, &path->dgid, &path->sgid_index);
}

void mrc_init_attr(struct ibv_qp_attr *attr, int *mask)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_INIT;
	attr->pkey_index = MRC_PKEY_INDEX;
	attr->port_num = MRC_PORT;
	attr->qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		IBV_QP_ACCESS_FLAGS;
}

void mrc_rtr_attr(struct ibv_qp_attr *attr, int *mask,
		  const struct mrc_path *path)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_RTR;
	attr->path_mtu = MRC_PATH_MTU;
	attr->dest_qp_num = path->dest_qpn;
	attr->rq_psn = MRC_RQ_PSN;
	attr->max_dest_rd_atomic = path->rd_atomic;
	attr->min_rnr_timer = MRC_MIN_RNR_TIMER;
	attr->ah_attr.is_global = 1;
	attr->ah_attr.port_num = MRC_PORT;
	attr->ah_attr.grh.dgid = path->dgid;
	attr->ah_attr.grh.sgid_index = path->sgid_index;
	attr->ah_attr.grh.hop_limit = MRC_HOP_LIMIT;
	*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
		IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		IBV_QP_MIN_RNR_TIMER;
}

void mrc_rts_attr(struct ibv_qp_attr *attr, int *mask,
		  const struct mrc_path *path)
{
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = IBV_QPS_RTS;
	attr->sq_psn = MRC_SQ_PSN;
	attr->timeout = MRC_TIMEOUT;
	attr->retry_cnt = MRC_RETRY_CNT;
	attr->rnr_retry = MRC_RNR_RETRY;
	attr->max_rd_atomic = path->rd_atomic;
	*mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

int mrc_qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_init_attr(&attr, &mask);
	return ibv_modify_qp(qp, &attr, mask);
}

int mrc_qp_to_rtr(struct ibv_qp *qp, const struct mrc_path *path)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_rtr_attr(&attr, &mask, path);
	return ibv_modify_qp(qp, &attr, mask);
}

int mrc_qp_to_rts(struct ibv_qp *qp, const struct mrc_path *path)
{
	struct ibv_qp_attr attr;
	int mask;

	mrc_rts_attr(&attr, &mask, path);
	return ibv_modify_qp(qp, &attr, mask);
}

int mrc_qp_to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };

	return ibv_modify_qp(qp, &attr, IBV_QP_STATE);
}

int mrc_qp_connect_self(struct ibv_context *ctx, struct ibv_qp *qp,
			uint32_t sq_psn)
{
	struct ibv_qp_attr attr;
	struct mrc_path path;
	int mask, ret;

	ret = mrc_loopback_path(ctx, qp->qp_num, &path);
	if (!ret)
		ret = mrc_qp_to_init(qp);
	if (!ret)
		ret = mrc_qp_to_rtr(qp, &path);
	if (ret)
		return ret;
	mrc_rts_attr(&attr, &mask, &path);
	attr.sq_psn = sq_psn;
	return ibv_modify_qp(qp, &attr, mask);
}

int mrc_qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	memset(&attr, 0, sizeof(attr));
	if (ibv_query_qp(qp, &attr, IBV_QP_STATE, &init))
		return -1;
	return attr.qp_state;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MSEC_PER_SEC + ts.tv_nsec / NSEC_PER_MSEC;
}

int mrc_poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms)
{
	long deadline = now_ms() + timeout_ms;
	int got = 0;

	while (got < n) {
		int ret = ibv_poll_cq(cq, n - got, wc + got);

		if (ret < 0)
			return -1;
		got += ret;
		if (got < n) {
			if (now_ms() > deadline)
				break;
			if (!ret)
				usleep(POLL_BACKOFF_US);
		}
	}
	return got;
}

struct ibv_qp *mrc_create_rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
				uint32_t max_wr, uint32_t max_sge,
				uint32_t max_inline)
{
	struct ibv_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0;
	attr.cap.max_send_wr = max_wr;
	attr.cap.max_recv_wr = max_wr;
	attr.cap.max_send_sge = max_sge;
	attr.cap.max_recv_sge = max_sge;
	attr.cap.max_inline_data = max_inline;
	return ibv_create_qp(pd, &attr);
}
