// SPDX-License-Identifier: GPL-2.0
/*
 * The MRC attributes of modify QP (<rdma/mrc-abi.h>, struct
 * mrc_modify_qp_cmd) as a hostile process sends them: written straight to
 * the uverbs command file, past libmrc and its own range checks.  Each
 * variant takes a RESET QP to INIT with one bad value (out of range, an
 * unknown mask or capability bit, non-zero reserved or trailing bytes):
 * the kernel refuses it with the variant's errno and the QP stays in
 * RESET; the same command with good values then succeeds (so the refusal
 * was the value's, not the command's shape).
 *
 * Run by with_device.sh, which creates the device and sets $MRC_DEV.
 */
#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/mrc-abi.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define CQE		16
#define MAX_WR		8
#define PORT		1
#define WORD		8	/* uverbs counts command sizes in 8-byte words */
#define MRC_MODIFY_QP_UNKNOWN	(1u << 8)	/* past MRC_MODIFY_QP_RETRY */
#define MRC_QP_CAP_UNKNOWN	(1u << 5)

/* What is written: the headers, the command, the driver's part. */
struct modify_msg {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_modify_qp cmd;
	struct mrc_modify_qp_cmd drv;
	uint64_t trailing;	/* sent only by the variant that sets it */
};

static_assert(sizeof(struct ib_uverbs_ex_modify_qp) % WORD == 0,
	      "the command is whole words");
static_assert(sizeof(struct mrc_modify_qp_cmd) % WORD == 0,
	      "the driver's part is whole words");

FIXTURE(attack)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

FIXTURE_VARIANT(attack)
{
	uint32_t mask;		/* MRC_MODIFY_QP_* of the bad command */
	void (*spoil)(struct modify_msg *m);
	int err;		/* the kernel's errno */
};

/* Good values of every attribute a RESET -> INIT may carry. */
static void good_values(struct mrc_modify_qp_cmd *drv, uint32_t mask)
{
	memset(drv, 0, sizeof(*drv));
	drv->mask = mask;
	drv->attr.mpr = 4;
	drv->attr.mpr_dest = 4;
	drv->attr.max_wimm = 32;
	drv->attr.max_wimm_dest = 32;
	drv->attr.timeout = 14;
	drv->attr.retry_linear = 7;
	drv->attr.retry_exp = 3;
}

static void spoil_mpr_zero(struct modify_msg *m) { m->drv.attr.mpr = 0; }
static void spoil_mpr_over(struct modify_msg *m)
{
	m->drv.attr.mpr = MRC_ABI_MAX_MPR_UNITS + 1;
}
static void spoil_mpr_dest_over(struct modify_msg *m)
{
	m->drv.attr.mpr_dest = MRC_ABI_MAX_MPR_UNITS + 1;
}
static void spoil_wimm_zero(struct modify_msg *m) { m->drv.attr.max_wimm = 0; }
static void spoil_wimm_over(struct modify_msg *m)
{
	m->drv.attr.max_wimm = MRC_ABI_MAX_WIMM + 1;
}
static void spoil_wimm_dest_over(struct modify_msg *m)
{
	m->drv.attr.max_wimm_dest = MRC_ABI_MAX_WIMM + 1;
}
static void spoil_timeout_over(struct modify_msg *m)
{
	m->drv.attr.timeout = MRC_ABI_MAX_TIMEOUT + 1;
}
static void spoil_linear_over(struct modify_msg *m)
{
	m->drv.attr.retry_linear = MRC_ABI_MAX_RETRY_LINEAR + 1;
}
static void spoil_exp_over(struct modify_msg *m)
{
	m->drv.attr.retry_exp = MRC_ABI_RETRY_EXP_FOREVER + 1;
}
static void spoil_unknown_mask(struct modify_msg *m)
{
	m->drv.mask |= MRC_MODIFY_QP_UNKNOWN;
}
static void spoil_unknown_cap(struct modify_msg *m)
{
	m->drv.mask |= MRC_MODIFY_QP_CAP;
	m->drv.attr.cap = MRC_QP_CAP_UNKNOWN;
}
static void spoil_reserved(struct modify_msg *m) { m->drv.reserved = 1; }
static void spoil_attr_reserved(struct modify_msg *m)
{
	m->drv.attr.reserved[0] = 1;
}
static void spoil_trailing(struct modify_msg *m) { m->trailing = 1; }

#define ALL_VALUES	(MRC_MODIFY_QP_MPR | MRC_MODIFY_QP_MPR_DEST |	\
			 MRC_MODIFY_QP_MAX_WIMM | MRC_MODIFY_QP_MAX_WIMM_DEST | \
			 MRC_MODIFY_QP_TIMEOUT | MRC_MODIFY_QP_RETRY)

#define ATTACK(name, fn, e)						\
	FIXTURE_VARIANT_ADD(attack, name) {				\
		.mask = ALL_VALUES, .spoil = fn, .err = e,		\
	}

ATTACK(mpr_zero, spoil_mpr_zero, EINVAL);
ATTACK(mpr_over, spoil_mpr_over, EINVAL);
ATTACK(mpr_dest_over, spoil_mpr_dest_over, EINVAL);
ATTACK(wimm_zero, spoil_wimm_zero, EINVAL);
ATTACK(wimm_over, spoil_wimm_over, EINVAL);
ATTACK(wimm_dest_over, spoil_wimm_dest_over, EINVAL);
ATTACK(timeout_over, spoil_timeout_over, EINVAL);
ATTACK(linear_over, spoil_linear_over, EINVAL);
ATTACK(exp_over, spoil_exp_over, EINVAL);
ATTACK(unknown_mask, spoil_unknown_mask, EOPNOTSUPP);
ATTACK(unknown_cap, spoil_unknown_cap, EOPNOTSUPP);
ATTACK(reserved, spoil_reserved, EINVAL);
ATTACK(attr_reserved, spoil_attr_reserved, EINVAL);
ATTACK(trailing, spoil_trailing, EOPNOTSUPP);

FIXTURE_SETUP(attack)
{
	self->ctx = mrc_open_device();
	ASSERT_NE(NULL, self->ctx)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->qp = mrc_create_rc_qp(self->pd, self->cq, MAX_WR, 1, 0);
	ASSERT_NE(NULL, self->qp) TH_LOG("create_qp: %s", strerror(errno));
}

FIXTURE_TEARDOWN(attack)
{
	if (self->qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->qp));
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
}

/* RESET -> INIT with driver data @m->drv; 0 or the write's errno. */
static int send_modify(struct ibv_qp *qp, struct modify_msg *m)
{
	struct ib_uverbs_ex_modify_qp_resp resp;
	size_t drv_len = sizeof(m->drv) + (m->trailing ? sizeof(m->trailing) : 0);
	size_t len = offsetof(struct modify_msg, drv) + drv_len;

	m->hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			 IB_USER_VERBS_EX_CMD_MODIFY_QP;
	m->hdr.in_words = sizeof(m->cmd) / WORD;
	m->hdr.out_words = sizeof(resp) / WORD;
	m->ex.response = (uintptr_t)&resp;
	m->ex.provider_in_words = drv_len / WORD;
	m->ex.provider_out_words = 0;
	m->ex.cmd_hdr_reserved = 0;
	memset(&m->cmd, 0, sizeof(m->cmd));
	m->cmd.base.qp_handle = qp->handle;
	m->cmd.base.attr_mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	m->cmd.base.qp_state = IBV_QPS_INIT;
	m->cmd.base.port_num = PORT;
	m->cmd.base.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				      IBV_ACCESS_REMOTE_WRITE;
	if (write(qp->context->cmd_fd, m, len) == (ssize_t)len)
		return 0;
	return errno;
}

TEST_F(attack, refused)
{
	struct modify_msg m;

	memset(&m, 0, sizeof(m));
	good_values(&m.drv, variant->mask);
	variant->spoil(&m);
	EXPECT_EQ(variant->err, send_modify(self->qp, &m));
	EXPECT_EQ(IBV_QPS_RESET, mrc_qp_state(self->qp));

	/* The same command, good: accepted. */
	memset(&m, 0, sizeof(m));
	good_values(&m.drv, variant->mask);
	ASSERT_EQ(0, send_modify(self->qp, &m));
	EXPECT_EQ(IBV_QPS_INIT, mrc_qp_state(self->qp));
}

TEST_HARNESS_MAIN
