/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The OCP MRC application API, version 1.0.1, as rdma_mrc's libmrc
 * provides it: MRC queue pairs on an RDMA device opened with libibverbs.
 *
 * A program creates an mrc_context on an ibv_context; the context is the
 * parent of every MRC object (CQs, completion channels, QP hints, QPs) and
 * holds the library's state, so several contexts, and several libraries,
 * can live in one process.  Memory regions and protection domains are
 * plain libibverbs objects.  MRC QPs carry RDMA WRITE and RDMA WRITE with
 * immediate only; receive WRs absorb the immediates.
 *
 * Errors: calls documented as "errno style" return 0, or -1 with errno
 * set; "ibv style" ones fail as the matching ibv_* call does; calls that
 * return a pointer return NULL on failure, with errno set.
 *
 * rdma_mrc's own definitions, written from the published description of
 * the interface: names, values and layouts are the interface's (x86-64
 * offsets are asserted by tools/testing/selftests/mrc/mrc_api_layout.c),
 * the wording is ours.
 */
#ifndef MRC_H
#define MRC_H

#include <stdint.h>
#include <infiniband/verbs.h>
#include <mrc_api_ver.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MRC_MAX_VENDOR_CFG_SIZE		128

struct mrc_context;
struct mrc_qp_hint;
struct mrc_qp;
struct mrc_cq;
struct mrc_comp_channel;

/* Wire protocol versions, as bits: a device reports a set, a QP asks for one. */
enum mrc_protocol_version {
	MRC_PROTOCOL_VERSION_0 = 0,		/* none stated: the provider's */
	MRC_PROTOCOL_VERSION_1 = 1 << 0,
};

enum mrc_device_cap {
	MRC_DEVICE_CAP_TRIM_NACK = 1 << 0,	/* NACKs trimmed packets */
	MRC_DEVICE_CAP_DYNAMIC_MPR = 1 << 1,
	MRC_DEVICE_CAP_SVC_TIME = 1 << 2,	/* reports its service time */
};

struct mrc_device_attr {
	uint32_t mrc_protocol_version;		/* enum mrc_protocol_version bits */
	struct {
		uint16_t max_wimm;		/* as requester */
		uint16_t max_wimm_dest;		/* as responder */
	} wimm_attr;
	struct {
		uint8_t max_mpr;		/* 128-PSN units */
		uint8_t mpr_resolution;		/* 128-PSN units */
	} mpr_attr;
	struct {
		uint32_t max_qp_hint;
	} qp_attr;
	uint32_t cap;				/* enum mrc_device_cap bits */
};

struct mrc_context_attr {
	uint32_t mrc_api_version_used;		/* 0: not stated */
	uint32_t mrc_vendor_api_version_used;	/* 0: not stated */
};

enum mrc_qp_hint_attr_mask {
	MRC_QP_HINT_NUM_QPS_PER_PEER = 1 << 0,
	MRC_QP_HINT_NUM_SEND_PEERS = 1 << 1,
	MRC_QP_HINT_NUM_REMOTE_RECV_PEERS = 1 << 2,
	MRC_QP_HINT_VENDOR_CFG = (int)(1u << 31),
};

/* What the QPs sharing a hint do at once: sizing advice for the provider. */
struct mrc_qp_hint_attr {
	int num_qps_per_peer;		/* QPs sending to one destination IP */
	int num_send_peers;		/* destination IPs sent to */
	int num_remote_recv_peers;	/* remote QPs sending to the same target */
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

struct mrc_qp_hint_init_attr {
	struct mrc_qp_hint_attr attr;
};

struct mrc_qp_init_attr {
	void *qp_context;
	struct mrc_cq *send_cq;
	struct mrc_cq *recv_cq;
	struct ibv_qp_cap cap;
	int sq_sig_all;
	struct ibv_pd *pd;
	uint64_t send_ops_flags;		/* enum ibv_qp_create_send_ops_flags */
	enum mrc_protocol_version protocol_version;	/* 0: the default */
};

enum mrc_qp_attr_mask {
	MRC_QP_MAX_WIMM = 1 << 0,
	MRC_QP_MAX_WIMM_DEST = 1 << 1,
	MRC_QP_MPR = 1 << 2,
	MRC_QP_MPR_DEST = 1 << 3,
	MRC_QP_TIMEOUT = 1 << 4,
	MRC_QP_EV_PROFILE_ID = 1 << 5,
	MRC_QP_CC_PROFILE_ID = 1 << 6,
	MRC_QP_HINT = 1 << 7,
	MRC_QP_RETRY_CNT = 1 << 8,
	MRC_QP_CAP = 1 << 9,
	MRC_QP_VENDOR_CFG = (int)(1u << 31),
};

enum mrc_qp_cap {
	MRC_QP_CAP_TRIM_NACK_DEST_UNSUPPORTED = 1 << 0,
	MRC_QP_CAP_DYNAMIC_MPR = 1 << 1,
	MRC_QP_CAP_SVC_TIME_DEST_UNSUPPORTED = 1 << 2,
};

struct mrc_qp_attr {
	struct {
		uint8_t mpr;			/* 128-PSN units */
		uint8_t mpr_dest;		/* 128-PSN units */
	} mpr;
	struct {
		uint16_t max_wimm;		/* WRITE with IMM in flight, sent */
		uint16_t max_wimm_dest;		/* ... received */
	} wimm;
	uint8_t timeout;			/* 1.024 us x 2^timeout, at most 24 */
	struct {
		uint64_t ev_profile_id;
		uint64_t cc_profile_id;
	} profile;
	struct {
		uint8_t linear_cnt;		/* at fixed intervals, at most 7 */
		uint8_t exp_cnt;		/* backing off, at most 25: forever */
	} retry;
	struct mrc_qp_hint *qp_hint;		/* NULL: none */
	uint32_t cap;				/* enum mrc_qp_cap bits */
	uint8_t vendor_cfg[MRC_MAX_VENDOR_CFG_SIZE];
};

struct mrc_async_event {
	union {
		struct mrc_cq *cq;
		struct mrc_qp *qp;
		int port_num;
	} element;
	enum ibv_event_type event_type;
};

/* errno style; *supported is 0 when the device does not do MRC. */
int mrc_query_device(struct ibv_context *context,
		     struct mrc_device_attr *attr, int *supported);
#if MRC_API_VER_USED >= MRC_API_VERSION_1_0_1
int mrc_query_device_ex(struct ibv_context *context,
			struct mrc_context *mcontext,
			struct mrc_device_attr *attr, int *supported);
#endif
/* The library's versions; usable before any context exists. */
void mrc_query_version(uint32_t *current, uint32_t *last_supported,
		       uint32_t *vendor_current,
		       uint32_t *vendor_last_supported);

/* attr may be NULL. */
struct mrc_context *mrc_create_context(struct ibv_context *context,
				       struct mrc_context_attr *attr);
int mrc_destroy_context(struct mrc_context *mcontext);		/* errno style */

int mrc_create_comp_channel(struct mrc_context *mcontext,
			    struct mrc_comp_channel **channel);	/* ibv style */
int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel,
			    int *fd);				/* errno style */
int mrc_destroy_comp_channel(struct mrc_comp_channel *channel);	/* ibv style */

/* At least cqe entries. */
struct mrc_cq *mrc_create_cq(struct mrc_context *mcontext, int cqe,
			     void *cq_context,
			     struct mrc_comp_channel *channel,
			     int comp_vector);
/* Completions polled (fewer than num_entries: none left), or -1. */
int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc);
int mrc_destroy_cq(struct mrc_cq *cq);				/* ibv style */
int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only);
int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq,
		     void **cq_context);			/* -1 on failure */
void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents);

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *mcontext,
				       struct mrc_qp_hint_init_attr *attr);
/* errno style: EINVAL, EBUSY while a QP uses it. */
int mrc_destroy_qp_hint(struct mrc_qp_hint *hint);
int mrc_query_qp_hint(struct mrc_qp_hint *hint, struct mrc_qp_hint_attr *attr,
		      int attr_mask);				/* errno style */
int mrc_modify_qp_hint(struct mrc_qp_hint *hint, struct mrc_qp_hint_attr *attr,
		       int attr_mask);				/* errno style */

/* In RESET; ibv style. */
struct mrc_qp *mrc_create_qp(struct mrc_context *mcontext,
			     struct mrc_qp_init_attr *attr);
int mrc_destroy_qp(struct mrc_qp *qp);
int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn);		/* errno style */
/* In any state; ibv style. */
int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct mrc_qp_attr *mrc_attr, int mrc_attr_mask,
		 struct mrc_qp_init_attr *init_attr);
int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		  struct mrc_qp_attr *mrc_attr, int mrc_attr_mask);
/* As ibv_post_recv and ibv_post_send; WRITE and WRITE with IMM only. */
int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);

/* ibv style; every event got is acknowledged. */
int mrc_get_async_event(struct mrc_context *mcontext,
			struct mrc_async_event *event);
void mrc_ack_async_event(struct mrc_async_event *event);

#ifdef __cplusplus
}
#endif

#endif /* MRC_H */
