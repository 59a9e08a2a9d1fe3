// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_bind_qp: create an RC QP with the driver-specific input of the create
 * QP command (struct mrc_create_qp_cmd in include/uapi/rdma/mrc-abi.h),
 * which binds it explicitly to an EV and a CC profile, as libmrc will.
 * The provider sends no such input yet, so the command is written by hand
 * on the context's command fd (the uverbs write ABI).
 *
 *   mrc_bind_qp EV_PROFILE_ID CC_PROFILE_ID [FLAGS]
 *
 * $MRC_DEV names the device; FLAGS defaults to MRC_CREATE_QP_BIND_PROFILES.
 * On success it prints QPN=N (decimal) and READY, waits for a line or the
 * end of its input, destroys the QP and exits 0.  A refused create prints
 * ERRNO=N and exits 2; anything else exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "mrc_common.h"
#include "../../../../include/uapi/rdma/mrc-abi.h"

#define BIND_QP_WR	4

struct bind_create_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core;
	struct mrc_create_qp_cmd drv;
};

struct bind_create_resp {
	struct ib_uverbs_create_qp_resp core;
	struct mrc_create_qp_resp drv;
};

struct bind_destroy_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_qp core;
};

static int destroy_qp(struct ibv_context *ctx, uint32_t handle)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct bind_destroy_cmd cmd = {};

	cmd.hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core.response = (uintptr_t)&resp;
	cmd.core.qp_handle = handle;
	if (write(ctx->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd)) {
		perror("destroy QP");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bind_create_resp resp = {};
	struct bind_create_cmd cmd = {};
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char line[64];
	int ret = 1;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: %s EV_PROFILE_ID CC_PROFILE_ID [FLAGS]\n",
			argv[0]);
		return 1;
	}
	ctx = mrc_open_device();
	if (!ctx) {
		perror(mrc_env_or(MRC_ENV_DEV, "$" MRC_ENV_DEV));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, BIND_QP_WR, NULL, NULL, 0) : NULL;
	if (!cq) {
		perror("PD/CQ");
		goto out;
	}

	cmd.hdr.command = IB_USER_VERBS_CMD_CREATE_QP;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core.response = (uintptr_t)&resp;
	cmd.core.pd_handle = pd->handle;
	cmd.core.send_cq_handle = cq->handle;
	cmd.core.recv_cq_handle = cq->handle;
	cmd.core.max_send_wr = BIND_QP_WR;
	cmd.core.max_recv_wr = BIND_QP_WR;
	cmd.core.max_send_sge = 1;
	cmd.core.max_recv_sge = 1;
	cmd.core.qp_type = IBV_QPT_RC;
	cmd.drv.flags = argc > 3 ? strtoul(argv[3], NULL, 0) :
				   MRC_CREATE_QP_BIND_PROFILES;
	cmd.drv.ev_profile_id = strtoull(argv[1], NULL, 0);
	cmd.drv.cc_profile_id = strtoull(argv[2], NULL, 0);

	if (write(ctx->cmd_fd, &cmd, sizeof(cmd)) != sizeof(cmd)) {
		printf("ERRNO=%d\n", errno);
		ret = 2;
		goto out;
	}
	printf("QPN=%" PRIu32 "\nREADY\n", resp.core.qpn);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) && ferror(stdin))
		perror("stdin");
	ret = destroy_qp(ctx, resp.core.qp_handle) ? 1 : 0;
out:
	if (cq)
		ibv_destroy_cq(cq);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return ret;
}
