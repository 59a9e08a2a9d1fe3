// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrc_qp_walk: the life of an MRC QP through the OCP MRC application API
 * (<mrc.h>), step by step, on one device: the device's MRC attributes, a
 * context, a QP hint, one CQ, two QPs bound explicitly to the EV and CC
 * profiles a controller made (their ids given on the command line, or in
 * MRC_QP_EV_PROFILE_ID / MRC_QP_CC_PROFILE_ID), each transition with the
 * MRC attributes it carries, a query of every attribute, and a WRITE with
 * immediate from one QP to the other whose bytes are checked.  Builds with
 *
 *	cc -o mrc_qp_walk mrc_qp_walk.c -lmrc -libverbs
 *
 * With --hold FILE it prints "ready QPN QPN" once both QPs are connected
 * and waits until FILE exists before it tears down, so that the QPs can be
 * inspected meanwhile (mrcctl qp show).  Exit status 0 when the WRITE
 * arrived intact.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>
#include <mrc.h>

#define IB_PORT		1
#define CQ_SIZE		128	/* one CQ for sends and receives, as the OCP's */
#define QP_WRS		128
#define WALK_MPR	8	/* 8 x 128 PSNs, both ways */
#define WALK_WIMM	128
#define WALK_TIMEOUT	8	/* 1.024 us x 2^8: 262 us (the floor decides) */
#define WALK_LINEAR	7
#define WALK_EXP	25	/* retry forever */
#define MSG_LEN		(64 * 1024)
#define IMM		0x57414c4bu
#define PSN_A		0x000100
#define PSN_B		0x000200
#define WAIT_S		60
#define POLL_PAUSE_US	1000
#define US_PER_S	1000000

struct walk {
	struct ibv_context *ibv;
	struct mrc_context *mctx;
	struct mrc_qp_hint *hint;
	struct ibv_pd *pd;
	struct mrc_cq *cq;
	struct mrc_qp *qp[2];
	uint32_t qpn[2];
	struct ibv_mr *mr;
	uint8_t *buf;		/* [A's message][B's landing area] */
	union ibv_gid gid;
	int gid_index;
};

static void die(const char *what, int err)
{
	fprintf(stderr, "mrc_qp_walk: %s: %s\n", what, strerror(err));
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mrc_qp_walk [-d DEV] [-g GIDX] [-e EV_PROFILE_ID] [-c CC_PROFILE_ID]\n"
		"                   [--hold FILE]\n"
		"  -d, --dev NAME          RDMA device (default: the first MRC one)\n"
		"  -g, --gid INDEX         GID index (default: the first IPv4 RoCE v2 GID)\n"
		"  -e, --ev-profile ID     EV profile to bind (default $MRC_QP_EV_PROFILE_ID, or 0)\n"
		"  -c, --cc-profile ID     CC profile to bind (default $MRC_QP_CC_PROFILE_ID, or 0)\n"
		"      --hold FILE         once connected, wait for FILE before tearing down\n"
		"  -h, --help\n");
}

static uint64_t env_id(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : 0;
}

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct mrc_device_attr attr;
	int i, supported;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i] && !ctx; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (ctx && (mrc_query_device(ctx, &attr, &supported) ||
			    !supported)) {
			ibv_close_device(ctx);
			ctx = NULL;
		}
	}
	ibv_free_device_list(list);
	if (!ctx)
		die(name ? name : "no MRC device", ENODEV);
	printf("device %s: protocol %#x, max mpr %u, max wimm %u/%u, cap %#x\n",
	       ibv_get_device_name(ctx->device), attr.mrc_protocol_version,
	       attr.mpr_attr.max_mpr, attr.wimm_attr.max_wimm,
	       attr.wimm_attr.max_wimm_dest, attr.cap);
	return ctx;
}

static int find_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pattr;
	struct ibv_gid_entry e;
	int i;

	if (ibv_query_port(ctx, IB_PORT, &pattr))
		die("ibv_query_port", errno);
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, IB_PORT, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    !memcmp(e.gid.raw, v4, sizeof(v4))) {
			memcpy(gid->raw, e.gid.raw, sizeof(gid->raw));
			return i;
		}
	}
	die("no IPv4 RoCE v2 GID", ENOENT);
	return -1;
}

static struct mrc_qp *make_qp(struct walk *w)
{
	struct mrc_qp_init_attr init = {
		.send_cq = w->cq, .recv_cq = w->cq, .pd = w->pd,
		.sq_sig_all = 1,
		.cap = { .max_send_wr = QP_WRS, .max_recv_wr = QP_WRS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	};
	struct mrc_qp *qp = mrc_create_qp(w->mctx, &init);

	if (!qp)
		die("mrc_create_qp", errno);
	return qp;
}

/* RESET -> INIT: the profiles and the hint, the verbs state alone. */
static void to_init(struct walk *w, struct mrc_qp *qp, uint64_t ev_id,
		    uint64_t cc_id)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT };
	struct mrc_qp_attr m = {
		.profile = { .ev_profile_id = ev_id, .cc_profile_id = cc_id },
		.qp_hint = w->hint,
	};
	int r = mrc_modify_qp(qp, &a, IBV_QP_STATE, &m, MRC_QP_EV_PROFILE_ID |
			      MRC_QP_CC_PROFILE_ID | MRC_QP_HINT);

	if (r)
		die("INIT (are the profiles ONLINE?)", r);
}

/* INIT -> RTR towards @dest_qpn: the responder's MPR and WIMM. */
static void to_rtr(struct walk *w, struct mrc_qp *qp, uint32_t dest_qpn,
		   uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest_qpn, .rq_psn = rq_psn,
		.ah_attr = { .is_global = 1, .port_num = IB_PORT,
			     .grh = { .dgid = w->gid,
				      .sgid_index = w->gid_index } },
	};
	struct mrc_qp_attr m = {
		.mpr = { .mpr_dest = WALK_MPR },
		.wimm = { .max_wimm_dest = WALK_WIMM },
		.cap = MRC_QP_CAP_DYNAMIC_MPR,
	};
	int r = mrc_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			      IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			      IBV_QP_RQ_PSN, &m, MRC_QP_MPR_DEST |
			      MRC_QP_MAX_WIMM_DEST | MRC_QP_CAP);

	if (r)
		die("RTR", r);
}

/* RTR -> RTS: the requester's MPR and WIMM, the timeout and retries. */
static void to_rts(struct mrc_qp *qp, uint32_t sq_psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RTS, .sq_psn = sq_psn };
	struct mrc_qp_attr m = {
		.mpr = { .mpr = WALK_MPR },
		.wimm = { .max_wimm = WALK_WIMM },
		.timeout = WALK_TIMEOUT,
		.retry = { .linear_cnt = WALK_LINEAR, .exp_cnt = WALK_EXP },
	};
	int r = mrc_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, &m,
			      MRC_QP_MPR | MRC_QP_MAX_WIMM | MRC_QP_TIMEOUT |
			      MRC_QP_RETRY_CNT);

	if (r)
		die("RTS", r);
}

static void show_qp(const char *name, struct mrc_qp *qp, uint32_t qpn)
{
	struct ibv_qp_attr a;
	struct mrc_qp_attr m;
	int r;

	r = mrc_query_qp(qp, &a, IBV_QP_STATE, &m, MRC_QP_MAX_WIMM |
			 MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR | MRC_QP_MPR_DEST |
			 MRC_QP_TIMEOUT | MRC_QP_EV_PROFILE_ID |
			 MRC_QP_CC_PROFILE_ID | MRC_QP_HINT |
			 MRC_QP_RETRY_CNT | MRC_QP_CAP, NULL);
	if (r)
		die("mrc_query_qp", r);
	printf("qp %s %u: state %d mpr %u mpr_dest %u wimm %u wimm_dest %u "
	       "timeout %u retry %u/%u ev-profile %" PRIu64 " cc-profile %"
	       PRIu64 " hint %s cap %#x\n", name, qpn, a.qp_state, m.mpr.mpr,
	       m.mpr.mpr_dest, m.wimm.max_wimm, m.wimm.max_wimm_dest,
	       m.timeout, m.retry.linear_cnt, m.retry.exp_cnt,
	       m.profile.ev_profile_id, m.profile.cc_profile_id,
	       m.qp_hint ? "yes" : "no", m.cap);
}

/* A's message into B's half, with an immediate B's receive absorbs. */
static int write_and_check(struct walk *w)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)w->buf, .length = MSG_LEN,
		.lkey = w->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE_WITH_IMM, .imm_data = htonl(IMM),
		.wr.rdma = { .remote_addr = (uintptr_t)(w->buf + MSG_LEN),
			     .rkey = w->mr->rkey },
	}, *bad;
	struct ibv_recv_wr rwr = { .wr_id = 2 }, *rbad;
	struct ibv_wc wc[2];
	int got = 0, waited = 0, i, ok = 1, r;

	for (i = 0; i < MSG_LEN; i++)
		w->buf[i] = (uint8_t)(i * 13 + 7);
	r = mrc_post_recv(w->qp[1], &rwr, &rbad);
	if (r)
		die("mrc_post_recv", r);
	r = mrc_post_send(w->qp[0], &wr, &bad);
	if (r)
		die("mrc_post_send", r);
	while (got < 2 && waited < WAIT_S * (US_PER_S / POLL_PAUSE_US)) {
		r = mrc_poll_cq(w->cq, 2 - got, wc + got);
		if (r < 0)
			die("mrc_poll_cq", errno);
		got += r;
		if (!r) {
			usleep(POLL_PAUSE_US);
			waited++;
		}
	}
	if (got < 2) {
		fprintf(stderr, "mrc_qp_walk: %d of 2 completions\n", got);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if (wc[i].status != IBV_WC_SUCCESS)
			ok = 0;
		if (wc[i].wr_id == 2 &&
		    (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		     ntohl(wc[i].imm_data) != IMM))
			ok = 0;
	}
	if (memcmp(w->buf, w->buf + MSG_LEN, MSG_LEN))
		ok = 0;
	printf("write %u bytes with immediate %#x: %s\n", MSG_LEN, IMM,
	       ok ? "intact" : "CORRUPT");
	return ok;
}

static void hold(const char *file, const struct walk *w)
{
	int waited = 0;

	printf("ready %u %u\n", w->qpn[0], w->qpn[1]);
	fflush(stdout);
	while (access(file, F_OK) &&
	       waited++ < WAIT_S * (US_PER_S / POLL_PAUSE_US))
		usleep(POLL_PAUSE_US);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "ev-profile", required_argument, NULL, 'e' },
		{ "cc-profile", required_argument, NULL, 'c' },
		{ "hold", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	uint64_t ev_id = env_id("MRC_QP_EV_PROFILE_ID");
	uint64_t cc_id = env_id("MRC_QP_CC_PROFILE_ID");
	struct mrc_context_attr cattr = {
		.mrc_api_version_used = MRC_API_CURRENT_VERSION,
	};
	struct mrc_qp_hint_init_attr hattr = {
		.attr = { .num_qps_per_peer = 2, .num_send_peers = 1,
			  .num_remote_recv_peers = 1 },
	};
	const char *dev = NULL, *hold_file = NULL;
	struct walk w = { .gid_index = -1 };
	int c, ok;

	while ((c = getopt_long(argc, argv, "d:g:e:c:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'g': w.gid_index = atoi(optarg); break;
		case 'e': ev_id = strtoull(optarg, NULL, 0); break;
		case 'c': cc_id = strtoull(optarg, NULL, 0); break;
		case 'H': hold_file = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	w.ibv = open_device(dev);
	if (w.gid_index < 0)
		w.gid_index = find_gid(w.ibv, &w.gid);
	else if (ibv_query_gid(w.ibv, IB_PORT, w.gid_index, &w.gid))
		die("ibv_query_gid", errno);
	w.mctx = mrc_create_context(w.ibv, &cattr);
	if (!w.mctx)
		die("mrc_create_context", errno);
	w.hint = mrc_create_qp_hint(w.mctx, &hattr);
	if (!w.hint)
		die("mrc_create_qp_hint", errno);
	w.pd = ibv_alloc_pd(w.ibv);
	if (!w.pd)
		die("ibv_alloc_pd", errno);
	w.cq = mrc_create_cq(w.mctx, CQ_SIZE, NULL, NULL, 0);
	if (!w.cq)
		die("mrc_create_cq", errno);
	w.buf = calloc(2, MSG_LEN);
	if (!w.buf)
		die("buffer", ENOMEM);
	w.mr = ibv_reg_mr(w.pd, w.buf, 2 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE);
	if (!w.mr)
		die("ibv_reg_mr", errno);

	for (c = 0; c < 2; c++) {
		w.qp[c] = make_qp(&w);
		if (mrc_get_qpn(w.qp[c], &w.qpn[c]))
			die("mrc_get_qpn", errno);
		to_init(&w, w.qp[c], ev_id, cc_id);
	}
	to_rtr(&w, w.qp[0], w.qpn[1], PSN_B);
	to_rtr(&w, w.qp[1], w.qpn[0], PSN_A);
	to_rts(w.qp[0], PSN_A);
	to_rts(w.qp[1], PSN_B);
	show_qp("a", w.qp[0], w.qpn[0]);
	show_qp("b", w.qp[1], w.qpn[1]);
	ok = write_and_check(&w);
	if (hold_file)
		hold(hold_file, &w);

	/* Teardown: the context after everything made under it. */
	mrc_destroy_qp(w.qp[0]);
	mrc_destroy_qp(w.qp[1]);
	mrc_destroy_qp_hint(w.hint);
	mrc_destroy_cq(w.cq);
	ibv_dereg_mr(w.mr);
	ibv_dealloc_pd(w.pd);
	if (mrc_destroy_context(w.mctx))
		die("mrc_destroy_context", errno);
	ibv_close_device(w.ibv);
	free(w.buf);
	return ok ? 0 : 1;
}
