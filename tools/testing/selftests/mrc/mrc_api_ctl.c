// SPDX-License-Identifier: GPL-2.0
/*
 * The OCP MRC controller API (<mrc_ctl.h>) as libmrc provides it over the
 * "mrc" netlink family: the device's limits, a port's admin state (as
 * verbs then sees it), EV format profiles, generated and explicit EV
 * profiles in the call sequences of the OCP examples (mrc_ctl_gen_ev.md,
 * mrc_ctl_exp_ev.md: EVs denied, replaced while ONLINE, read back), CC
 * profiles with NSCC parameters read back, EV events (one per controller
 * change the event mask selects; a full CQ counts what it dropped), an EV
 * probe answered and one that times out, and the refusals the API
 * specifies.
 *
 * Each test uses profile ids of its own and takes them back to INIT.
 * Run by with_device.sh, which creates the device and sets $MRC_DEV.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include <mrc.h>
#include <mrc_ctl.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define PORT		1
#define ABSENT_PORT	9
#define NSCC_NAME	"uet-1.0-nscc"
/* What rdma_mrc reports (drivers/infiniband/sw/mrc/mrc_param.h). */
#define DEV_MAX_COUNT_PROFILE	4096
#define DEV_OP_MAX_ENTRIES	1024

/* Profile ids, one set per test (the examples' 13/14/16 and 1/2). */
#define GEN_FMT_ID	13
#define GEN_EVP_ID	1
#define EXP_FMT_ID	16
#define EXP_EVP_ID	2
#define FMT_TEST_ID	20
#define CC_ID		5
#define CC_NONE_ID	6
#define EVENT_FMT_ID	30
#define EVENT_EVP_ID	31
#define ERR_FMT_ID	40
#define ERR_EVP_ID	41

/* mrc_ctl_gen_ev.md: T0 8 bits (180 links used), T1 and T2 4 bits. */
#define GEN_T0_WIDTH	8
#define GEN_T12_WIDTH	4
#define GEN_T0_LINKS	180
#define GEN_DENY_MAX	8	/* EVs denied one per call here */
/*
 * mrc_ctl_exp_ev.md: 16/16, EVs (i << 16) | i, 13..42 denied, +128; from
 * i = 1 here: EV 0 would be UDP source port 0, which rdma_mrc refuses.
 */
#define EXP_HALF_WIDTH	16
#define EXP_DENY_FIRST	13
#define EXP_DENY_LAST	42
#define EXP_REPLACE_ADD	128

#define EVENT_CQE	2
#define EVENT_EVS	8
#define EVENT_WAIT_MS	5000
#define EP_TIMEOUT_NS	200000000u	/* 200 ms */
#define EP_ABSENT_IPV4	"192.0.2.1"	/* TEST-NET-1: nobody answers */
#define EP_EV		0x5678u	/* no flow-label half: IPv4 carries none */

#define FLOAT_EPS	1e-6
#define NOBODY_ID	65534	/* uid and gid without privileges */

FIXTURE(ctl)
{
	struct ibv_context *ibv;
	struct mrc_context *mctx;
	struct mrc_ctl_device_attr dev;
};

FIXTURE_SETUP(ctl)
{
	self->ibv = mrc_open_device();
	ASSERT_NE(NULL, self->ibv)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	self->mctx = mrc_create_context(self->ibv, NULL);
	ASSERT_NE(NULL, self->mctx) TH_LOG("create_context: %s", strerror(errno));
	ASSERT_EQ(0, mrc_ctl_query_device(self->ibv, &self->dev))
		TH_LOG("query_device: %s", strerror(errno));
}

FIXTURE_TEARDOWN(ctl)
{
	if (self->mctx)
		EXPECT_EQ(0, mrc_destroy_context(self->mctx));
	if (self->ibv)
		EXPECT_EQ(0, ibv_close_device(self->ibv));
}

/* The host u32 of the examples, as they memcpy it into an EV. */
static struct mrc_ctl_ev ev_u32(uint32_t v, uint8_t port)
{
	struct mrc_ctl_ev ev = MRC_CTL_EV_UNPOPULATED;

	memcpy(ev.val, &v, sizeof(v));
	ev.port = port;
	return ev;
}

static uint32_t ev_val_u32(const struct mrc_ctl_ev *ev)
{
	uint32_t v;

	memcpy(&v, ev->val, sizeof(v));
	return v;
}

/* A profile's state by the API. */
static int fmt_state(struct mrc_context *mctx, uint64_t id)
{
	struct mrc_ctl_ev_fmt_profile_attr a = {};

	if (mrc_ctl_query_ev_fmt_profile(mctx, id, &a,
					 MRC_CTL_EV_FMT_PROFILE_CUR_STATE))
		return -errno;
	return (int)a.cur_profile_state;
}

static int evp_state(struct mrc_context *mctx, uint64_t id)
{
	struct mrc_ctl_ev_profile_attr a = {};

	if (mrc_ctl_query_ev_profile(mctx, id, &a,
				     MRC_CTL_EV_PROFILE_CUR_STATE))
		return -errno;
	return (int)a.cur_profile_state;
}

/* INIT -> OFFLINE -> ONLINE of an STEV format with @n fields. */
static int fmt_online(struct mrc_context *mctx, uint64_t id,
		      const uint8_t *widths, int n)
{
	struct mrc_ctl_ev_fmt_field f[MRC_CTL_EV_MAX_BYTES] = {};
	struct mrc_ctl_ev_fmt_profile_attr a = {};
	int i;

	for (i = 0; i < n; i++)
		f[i].width = widths[i];
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	a.ev_fmt_op.fmt_fields = f;
	a.ev_fmt_op.fmt_field_count = n;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE |
					  MRC_CTL_EV_FMT_PROFILE_MODE |
					  MRC_CTL_EV_FMT_PROFILE_OP))
		return -errno;
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE))
		return -errno;
	return 0;
}

/* A profile's way back: ONLINE -> OFFLINE -> INIT. */
static int fmt_down(struct mrc_context *mctx, uint64_t id)
{
	struct mrc_ctl_ev_fmt_profile_attr a = {};

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE))
		return -errno;
	a.profile_state = MRC_CTL_PROFILE_INIT;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE))
		return -errno;
	return 0;
}

static int evp_down(struct mrc_context *mctx, uint64_t id)
{
	struct mrc_ctl_ev_profile_attr a = {};

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	if (mrc_ctl_modify_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_STATE))
		return -errno;
	a.profile_state = MRC_CTL_PROFILE_INIT;
	if (mrc_ctl_modify_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_STATE))
		return -errno;
	return 0;
}

/* One EV's state (QUERY_EV_STATE). */
static int ev_state(struct mrc_context *mctx, uint64_t id,
		    const struct mrc_ctl_ev *ev)
{
	struct mrc_ctl_ev_op_entry e = { .ev = *ev };
	struct mrc_ctl_ev_profile_attr a = {};

	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_STATE;
	a.ev_op.entries = &e;
	a.ev_op.entry_count = 1;
	if (mrc_ctl_query_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_EV_OP))
		return -errno;
	return (int)e.state;
}

/* Set one EV's state (MODIFY_EV_STATE). */
static int ev_set_state(struct mrc_context *mctx, uint64_t id,
			const struct mrc_ctl_ev *ev,
			enum mrc_ctl_ev_state state)
{
	struct mrc_ctl_ev_op_entry e = { .ev = *ev, .state = state };
	struct mrc_ctl_ev_profile_attr a = {};

	a.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	a.ev_op.entries = &e;
	a.ev_op.entry_count = 1;
	if (mrc_ctl_modify_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_EV_OP))
		return -errno;
	return 0;
}

TEST(versions)
{
	uint32_t cur = 0, last = 1, vcur = 0, vlast = 1;

	mrc_ctl_query_version(&cur, &last, &vcur, &vlast);
	EXPECT_EQ(MRC_CTL_API_CURRENT_VERSION, cur);
	EXPECT_EQ(MRC_CTL_API_LAST_SUPPORTED_VERSION, last);
	EXPECT_EQ(MRC_CTL_VENDOR_API_CURRENT_VERSION, vcur);
	EXPECT_EQ(MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION, vlast);
	EXPECT_EQ(MRC_API_VERSION(1, 0, 1), cur);
	/* Usable before any context, with outputs left out. */
	mrc_ctl_query_version(NULL, NULL, NULL, NULL);
}

TEST_F(ctl, device)
{
	const struct mrc_ctl_device_attr *d = &self->dev;
	struct mrc_ctl_device_attr ex;
	int supported = -1, i;
	bool nscc = false;

	EXPECT_EQ(MRC_CTL_PROTOCOL_VERSION_1, d->mrc_ctl_protocol_version);
	EXPECT_LT(0, d->ev.ev_max_fmt_profiles);
	EXPECT_LT(0, d->ev.ev_max_profiles);
	EXPECT_EQ(DEV_MAX_COUNT_PROFILE, d->ev.ev_max_count_profile);
	EXPECT_LE(d->ev.ev_max_count_profile, d->ev.ev_max_count);
	EXPECT_LE(d->ev.ev_free_count, d->ev.ev_max_count);
	EXPECT_LT(0, d->ev.ev_count_align);
	EXPECT_LE(32, d->ev.ev_max_width);
	EXPECT_EQ(MRC_CTL_EV_FMT_MODE_STEV | MRC_CTL_EV_FMT_MODE_SRV6 |
		  MRC_CTL_EV_FMT_MODE_UDP, d->ev.ev_fmt_mode_mask);
	EXPECT_EQ(MRC_CTL_EV_MODE_AUTO | MRC_CTL_EV_MODE_EXP |
		  MRC_CTL_EV_MODE_GEN, d->ev.ev_mode_mask);
	EXPECT_EQ(DEV_OP_MAX_ENTRIES, d->ev.ev_op_max_entries);
	EXPECT_LT(0, d->cc.cc_max_profiles);
	ASSERT_NE(NULL, d->cc.algorithms);
	for (i = 0; d->cc.algorithms[i]; i++)
		if (!strcmp(d->cc.algorithms[i], NSCC_NAME))
			nscc = true;
	EXPECT_TRUE(nscc);
	/* One port (the with_device.sh device): bit 1. */
	EXPECT_EQ(1u << PORT, d->phy_port_mask);
	EXPECT_TRUE(d->opt_attr & MRC_CTL_OPT_CAP_EV_EVENT);
	EXPECT_TRUE(d->opt_attr & MRC_CTL_OPT_CAP_EP_OP_EV_PROBE);
	EXPECT_TRUE(d->opt_attr & MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE);
	EXPECT_TRUE(d->opt_attr & MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT);
	EXPECT_FALSE(d->opt_attr & MRC_CTL_OPT_CAP_EV_EXPLICIT_RANGE);

	/* The _ex form, through the context's socket, says the same. */
	ASSERT_EQ(0, mrc_ctl_query_device_ex(self->ibv, self->mctx, &ex,
					     &supported));
	EXPECT_EQ(1, supported);
	EXPECT_EQ(d->ev.ev_max_count, ex.ev.ev_max_count);
	EXPECT_EQ(d->phy_port_mask, ex.phy_port_mask);
	EXPECT_EQ(d->opt_attr, ex.opt_attr);
	EXPECT_EQ(d->cc.algorithms, ex.cc.algorithms);

	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_device(self->ibv, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_device(NULL, &ex));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_device_ex(self->ibv, self->mctx, &ex,
					      NULL));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ctl, port)
{
	struct mrc_ctl_port_attr a = {};
	struct ibv_port_attr pa;

	ASSERT_EQ(0, mrc_ctl_query_port(self->mctx, PORT, &a,
					MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(MRC_CTL_PORT_ADMIN_STATE_ENABLED, a.port_admin_state);
	ASSERT_EQ(0, ibv_query_port(self->ibv, PORT, &pa));
	EXPECT_EQ(IBV_PORT_ACTIVE, pa.state);

	/* Disabled: the port reads DOWN in verbs. */
	a.port_admin_state = MRC_CTL_PORT_ADMIN_STATE_DISABLED;
	ASSERT_EQ(0, mrc_ctl_modify_port(self->mctx, PORT, &a,
					 MRC_CTL_PORT_ADMIN_STATE));
	a.port_admin_state = MRC_CTL_PORT_ADMIN_STATE_ENABLED;
	ASSERT_EQ(0, mrc_ctl_query_port(self->mctx, PORT, &a,
					MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(MRC_CTL_PORT_ADMIN_STATE_DISABLED, a.port_admin_state);
	ASSERT_EQ(0, ibv_query_port(self->ibv, PORT, &pa));
	EXPECT_EQ(IBV_PORT_DOWN, pa.state);

	a.port_admin_state = MRC_CTL_PORT_ADMIN_STATE_ENABLED;
	ASSERT_EQ(0, mrc_ctl_modify_port(self->mctx, PORT, &a,
					 MRC_CTL_PORT_ADMIN_STATE));
	ASSERT_EQ(0, ibv_query_port(self->ibv, PORT, &pa));
	EXPECT_EQ(IBV_PORT_ACTIVE, pa.state);

	/* Ports are 1-based and must exist; one mask bit exists. */
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_port(self->mctx, 0, &a,
					 MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_port(self->mctx, ABSENT_PORT, &a,
					 MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_port(self->mctx, PORT, &a, 1 << 1));
	EXPECT_EQ(EINVAL, errno);
	a.port_admin_state = (enum mrc_ctl_port_admin_state)7;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_port(self->mctx, PORT, &a,
					  MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(ctl, fmt_profile)
{
	static const uint8_t widths[] = { 8, 4, 4 };
	struct mrc_ctl_ev_fmt_field f[3] = {};
	struct mrc_ctl_ev_fmt_profile_attr a = {};
	int i;

	EXPECT_EQ(MRC_CTL_PROFILE_INIT, fmt_state(self->mctx, FMT_TEST_ID));
	/* Leaving INIT needs a mode. */
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						    &a,
						    MRC_CTL_EV_FMT_PROFILE_STATE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, fmt_state(self->mctx, FMT_TEST_ID));

	ASSERT_EQ(0, fmt_online(self->mctx, FMT_TEST_ID, widths, 3));
	EXPECT_EQ(MRC_CTL_PROFILE_ONLINE, fmt_state(self->mctx, FMT_TEST_ID));

	/* Too small an array: E2BIG and the count needed. */
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
	a.ev_fmt_op.fmt_fields = f;
	a.ev_fmt_op.fmt_field_count = 1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						   &a,
						   MRC_CTL_EV_FMT_PROFILE_OP));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(3, a.ev_fmt_op.fmt_field_count);

	memset(&a, 0, sizeof(a));
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
	a.ev_fmt_op.fmt_fields = f;
	a.ev_fmt_op.fmt_field_count = 3;
	ASSERT_EQ(0, mrc_ctl_query_ev_fmt_profile(self->mctx, FMT_TEST_ID, &a,
						  MRC_CTL_EV_FMT_PROFILE_STATE |
						  MRC_CTL_EV_FMT_PROFILE_MODE |
						  MRC_CTL_EV_FMT_PROFILE_OP |
						  MRC_CTL_EV_FMT_VENDOR_CFG));
	EXPECT_EQ(MRC_CTL_PROFILE_ONLINE, a.profile_state);
	EXPECT_EQ(MRC_CTL_EV_FMT_MODE_STEV, a.ev_fmt_mode);
	EXPECT_EQ(3, a.ev_fmt_op.fmt_field_count);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(widths[i], f[i].width);

	/* A query may not modify; ONLINE takes no field changes. */
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						   &a,
						   MRC_CTL_EV_FMT_PROFILE_OP));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						    &a,
						    MRC_CTL_EV_FMT_PROFILE_OP));
	EXPECT_NE(0, errno);
	/* A vendor configuration rdma_mrc does not have. */
	a.vendor_cfg[0] = 1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						    &a,
						    MRC_CTL_EV_FMT_VENDOR_CFG));
	EXPECT_EQ(EINVAL, errno);
	/* ONLINE -> INIT skips OFFLINE: refused. */
	a.profile_state = MRC_CTL_PROFILE_INIT;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_fmt_profile(self->mctx, FMT_TEST_ID,
						    &a,
						    MRC_CTL_EV_FMT_PROFILE_STATE));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MRC_CTL_PROFILE_ONLINE, fmt_state(self->mctx, FMT_TEST_ID));

	EXPECT_EQ(0, fmt_down(self->mctx, FMT_TEST_ID));
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, fmt_state(self->mctx, FMT_TEST_ID));
}

/* mrc_ctl_gen_ev.md: format 13 (8/4/4), generated profile 1. */
TEST_F(ctl, gen_ev)
{
	static const uint8_t widths[] = { GEN_T0_WIDTH, GEN_T12_WIDTH,
					  GEN_T12_WIDTH };
	struct mrc_ctl_ev_field fields[3] = {
		{ GEN_T0_WIDTH, 0, 0, (1u << GEN_T0_WIDTH) - 1,
		  (1u << GEN_T0_WIDTH) - 1 },
		{ GEN_T12_WIDTH, 0, 0, (1u << GEN_T12_WIDTH) - 1,
		  (1u << GEN_T12_WIDTH) - 1 },
		{ GEN_T12_WIDTH, 0, 0, (1u << GEN_T12_WIDTH) - 1,
		  (1u << GEN_T12_WIDTH) - 1 },
	};
	struct mrc_ctl_ev_field got[3] = {};
	struct mrc_ctl_ev_profile_attr a = {};
	struct mrc_ctl_ev_op_entry *evs;
	uint32_t count, align = self->dev.ev.ev_count_align;
	unsigned int t0_max = 0, t0_links;
	int i, j, denied = 0;

	ASSERT_TRUE(self->dev.ev.ev_mode_mask & MRC_CTL_EV_MODE_GEN);
	ASSERT_EQ(0, fmt_online(self->mctx, GEN_FMT_ID, widths, 3));

	count = 1u << (GEN_T0_WIDTH + 2 * GEN_T12_WIDTH);
	if (count > self->dev.ev.ev_max_count_profile)
		count = self->dev.ev.ev_max_count_profile;
	count -= count % align;

	/* One call: INIT -> OFFLINE with every attribute and the fields. */
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_GEN;
	a.ev_fmt_profile_id = GEN_FMT_ID;
	a.ev_count = count;
	a.ev_min_active = count / 4;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	a.ev_fields_op.fields = fields;
	a.ev_fields_op.field_count = 3;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, GEN_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE |
					       MRC_CTL_EV_PROFILE_MODE |
					       MRC_CTL_EV_PROFILE_FMT_ID |
					       MRC_CTL_EV_PROFILE_COUNT |
					       MRC_CTL_EV_PROFILE_MIN_ACTIVE |
					       MRC_CTL_EV_PROFILE_EVENT_MASK |
					       MRC_CTL_EV_PROFILE_EV_FIELDS_OP))
		TH_LOG("GEN INIT -> OFFLINE: %s", strerror(errno));
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, GEN_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE));

	/* The fields back: E2BIG with the count, then the values. */
	memset(&a, 0, sizeof(a));
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
	a.ev_fields_op.fields = got;
	a.ev_fields_op.field_count = 2;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_profile(self->mctx, GEN_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_FIELDS_OP));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(3, a.ev_fields_op.field_count);
	ASSERT_EQ(0, mrc_ctl_query_ev_profile(self->mctx, GEN_EVP_ID, &a,
					      MRC_CTL_EV_PROFILE_STATE |
					      MRC_CTL_EV_PROFILE_MODE |
					      MRC_CTL_EV_PROFILE_FMT_ID |
					      MRC_CTL_EV_PROFILE_COUNT |
					      MRC_CTL_EV_PROFILE_MIN_ACTIVE |
					      MRC_CTL_EV_PROFILE_EVENT_MASK |
					      MRC_CTL_EV_PROFILE_EV_FIELDS_OP));
	EXPECT_EQ(MRC_CTL_PROFILE_ONLINE, a.profile_state);
	EXPECT_EQ(MRC_CTL_EV_MODE_GEN, a.ev_mode);
	EXPECT_EQ(GEN_FMT_ID, a.ev_fmt_profile_id);
	EXPECT_EQ(count, a.ev_count);
	EXPECT_EQ(count / 4, a.ev_min_active);
	EXPECT_EQ(MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD, a.ev_event_mask);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(fields[i].width, got[i].width);
		EXPECT_EQ(fields[i].init_val, got[i].init_val);
		EXPECT_EQ(fields[i].min_val, got[i].min_val);
		EXPECT_EQ(fields[i].max_val, got[i].max_val);
		EXPECT_EQ(fields[i].mask, got[i].mask);
	}

	/* The array: E2BIG says how many; then distinct GOOD EVs on port 1. */
	evs = calloc(count, sizeof(*evs));
	ASSERT_NE(NULL, evs);
	memset(&a, 0, sizeof(a));
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = evs;
	a.ev_op.entry_count = 1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_profile(self->mctx, GEN_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_OP));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ((int)count, a.ev_op.entry_count);
	a.ev_op.entry_count = (int)count;
	ASSERT_EQ(0, mrc_ctl_query_ev_profile(self->mctx, GEN_EVP_ID, &a,
					      MRC_CTL_EV_PROFILE_EV_OP));
	ASSERT_EQ((int)count, a.ev_op.entry_count);
	for (i = 0; i < (int)count; i++) {
		EXPECT_EQ(MRC_CTL_EV_GOOD, evs[i].state);
		EXPECT_EQ(PORT, evs[i].ev.port);
		/* Only the 16 bits the fields make; the rest zero. */
		for (j = 2; j < MRC_CTL_EV_MAX_BYTES; j++)
			EXPECT_EQ(0, evs[i].ev.val[j]);
		for (j = 0; j < i && j < 64; j++)
			EXPECT_NE(0, memcmp(evs[i].ev.val, evs[j].ev.val, 2));
	}

	/*
	 * Deny EVs whose T0 (byte 0, the first field) is past the links in
	 * use, one per call: the example's 180 of 256, here of the T0 values
	 * the device's 4096 EVs reach (the last field varies fastest).
	 */
	for (i = 0; i < (int)count; i++)
		if (evs[i].ev.val[0] > t0_max)
			t0_max = evs[i].ev.val[0];
	t0_links = (t0_max + 1) * GEN_T0_LINKS / (1u << GEN_T0_WIDTH);
	for (i = 0; i < (int)count && denied < GEN_DENY_MAX; i++) {
		if (evs[i].ev.val[0] < t0_links)
			continue;
		ASSERT_EQ(0, ev_set_state(self->mctx, GEN_EVP_ID, &evs[i].ev,
					  MRC_CTL_EV_DENIED));
		EXPECT_EQ(MRC_CTL_EV_DENIED,
			  ev_state(self->mctx, GEN_EVP_ID, &evs[i].ev));
		denied++;
	}
	EXPECT_EQ(GEN_DENY_MAX, denied);
	/* A GOOD one is still GOOD. */
	for (i = 0; i < (int)count; i++)
		if (evs[i].ev.val[0] < t0_links)
			break;
	ASSERT_LT(i, (int)count);
	EXPECT_EQ(MRC_CTL_EV_GOOD, ev_state(self->mctx, GEN_EVP_ID, &evs[i].ev));
	free(evs);

	/* The format is in use by an ONLINE profile: it stays. */
	{
		struct mrc_ctl_ev_fmt_profile_attr f = {
			.profile_state = MRC_CTL_PROFILE_OFFLINE,
		};

		errno = 0;
		EXPECT_EQ(-1, mrc_ctl_modify_ev_fmt_profile(self->mctx,
							    GEN_FMT_ID, &f,
							    MRC_CTL_EV_FMT_PROFILE_STATE));
		EXPECT_EQ(EBUSY, errno);
	}
	EXPECT_EQ(0, evp_down(self->mctx, GEN_EVP_ID));
	EXPECT_EQ(0, fmt_down(self->mctx, GEN_FMT_ID));
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, evp_state(self->mctx, GEN_EVP_ID));
}

/* mrc_ctl_exp_ev.md: format 16 (16/16), explicit profile 2. */
TEST_F(ctl, exp_ev)
{
	static const uint8_t widths[] = { EXP_HALF_WIDTH, EXP_HALF_WIDTH };
	uint32_t count = self->dev.ev.ev_max_count_profile;
	uint32_t chunk = self->dev.ev.ev_op_max_entries;
	struct mrc_ctl_ev_profile_attr a = {};
	struct mrc_ctl_ev_op_entry *ops;
	uint32_t i, v;

	ASSERT_TRUE(self->dev.ev.ev_mode_mask & MRC_CTL_EV_MODE_EXP);
	count -= count % self->dev.ev.ev_count_align;
	if (!chunk)
		chunk = count;
	ASSERT_EQ(0, fmt_online(self->mctx, EXP_FMT_ID, widths, 2));

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_EXP;
	a.ev_fmt_profile_id = EXP_FMT_ID;
	a.ev_count = count;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE |
					       MRC_CTL_EV_PROFILE_MODE |
					       MRC_CTL_EV_PROFILE_FMT_ID |
					       MRC_CTL_EV_PROFILE_COUNT |
					       MRC_CTL_EV_PROFILE_MIN_ACTIVE |
					       MRC_CTL_EV_PROFILE_EVENT_MASK))
		TH_LOG("EXP INIT -> OFFLINE: %s", strerror(errno));

	/* Slots not all filled: it may not go ONLINE. */
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID, &a,
						MRC_CTL_EV_PROFILE_STATE));
	EXPECT_NE(0, errno);

	ops = calloc(count + 1, sizeof(*ops));
	ASSERT_NE(NULL, ops);
	for (i = 0; i < count + 1; i++) {
		ops[i].ev = MRC_CTL_EV_UNPOPULATED;
		ops[i].ev_new = ev_u32(((i + 1) << EXP_HALF_WIDTH) | (i + 1),
				       PORT);
		ops[i].state = MRC_CTL_EV_GOOD;
	}
	/* More entries than one operation may carry. */
	memset(&a, 0, sizeof(a));
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	a.ev_op.entries = ops;
	a.ev_op.entry_count = (int)chunk + 1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID, &a,
						MRC_CTL_EV_PROFILE_EV_OP));
	EXPECT_EQ(E2BIG, errno);
	/* Every slot, in operations of at most the device's limit. */
	for (i = 0; i < count; i += chunk) {
		a.ev_op.entries = ops + i;
		a.ev_op.entry_count = (int)(count - i < chunk ? count - i : chunk);
		ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID,
						       &a,
						       MRC_CTL_EV_PROFILE_EV_OP))
			TH_LOG("REPLACE from slot %u: %s", i, strerror(errno));
	}
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE))
		TH_LOG("EXP -> ONLINE: %s", strerror(errno));

	/* Deny 13..42. */
	for (v = EXP_DENY_FIRST; v <= EXP_DENY_LAST; v++) {
		struct mrc_ctl_ev ev = ev_u32((v << EXP_HALF_WIDTH) | v, PORT);

		ASSERT_EQ(0, ev_set_state(self->mctx, EXP_EVP_ID, &ev,
					  MRC_CTL_EV_DENIED));
	}
	/* An EV the profile does not hold: ENOENT. */
	{
		struct mrc_ctl_ev ev = ev_u32(0xffffffffu, PORT);

		EXPECT_EQ(-ENOENT, ev_set_state(self->mctx, EXP_EVP_ID, &ev,
						MRC_CTL_EV_DENIED));
	}

	/* Replace the same values with value + 128 while ONLINE. */
	memset(&a, 0, sizeof(a));
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	a.ev_op.entries = ops;
	a.ev_op.entry_count = EXP_DENY_LAST - EXP_DENY_FIRST + 1;
	for (v = EXP_DENY_FIRST; v <= EXP_DENY_LAST; v++) {
		uint32_t w = v + EXP_REPLACE_ADD;

		ops[v - EXP_DENY_FIRST].ev = ev_u32((v << EXP_HALF_WIDTH) | v,
						    PORT);
		ops[v - EXP_DENY_FIRST].ev_new =
			ev_u32((w << EXP_HALF_WIDTH) | w, PORT);
		ops[v - EXP_DENY_FIRST].state = MRC_CTL_EV_GOOD;
		ops[v - EXP_DENY_FIRST].flags = MRC_CTL_EV_OP_F_ALL_COPIES;
	}
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EXP_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_OP))
		TH_LOG("REPLACE while ONLINE: %s", strerror(errno));

	/* The array: every slot as filled, the replaced ones moved. */
	memset(ops, 0, (count + 1) * sizeof(*ops));
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = ops;
	a.ev_op.entry_count = (int)count;
	ASSERT_EQ(0, mrc_ctl_query_ev_profile(self->mctx, EXP_EVP_ID, &a,
					      MRC_CTL_EV_PROFILE_EV_OP));
	ASSERT_EQ((int)count, a.ev_op.entry_count);
	for (i = 0; i < count; i++) {
		uint32_t w = i + 1;

		if (w >= EXP_DENY_FIRST && w <= EXP_DENY_LAST)
			w += EXP_REPLACE_ADD;
		EXPECT_EQ((w << EXP_HALF_WIDTH) | w, ev_val_u32(&ops[i].ev));
		EXPECT_EQ(PORT, ops[i].ev.port);
		EXPECT_EQ(MRC_CTL_EV_GOOD, ops[i].state);
	}
	free(ops);

	EXPECT_EQ(0, evp_down(self->mctx, EXP_EVP_ID));
	EXPECT_EQ(0, fmt_down(self->mctx, EXP_FMT_ID));
}

static const struct mrc_ctl_cc_nscc_cfg nscc_cfg = {
	.disable_qa = 0,
	.adjust_bytes_threshold = 32768,
	.adjust_period_threshold = 20000,
	.base_rtt = 12000,
	.eta = 716.0f,
	.fi = 23900.0f,
	.fi_scale = 0.29f,
	.gamma = 0.8f,
	.max_md_jump = 0.5f,
	.max_cwnd = 262144,
	.qa_gate = 3,
	.qa_threshold = 42000,
	.target_delay = 15000,
};

TEST_F(ctl, cc_profile)
{
	struct mrc_ctl_cc_nscc_cfg got = {};
	struct mrc_ctl_cc_profile_attr a = {};
	const struct mrc_ctl_cc_nscc_cfg *p;

	/* INIT -> OFFLINE needs the algorithm; ONLINE needs the config. */
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
						MRC_CTL_CC_PROFILE_STATE));
	EXPECT_EQ(EINVAL, errno);
	a.algorithm = "no-such-algorithm";
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
						MRC_CTL_CC_PROFILE_STATE |
						MRC_CTL_CC_PROFILE_ALGORITHM));
	EXPECT_EQ(EINVAL, errno);
	a.algorithm = NSCC_NAME;
	ASSERT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_ALGORITHM));
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
						MRC_CTL_CC_PROFILE_CONFIG));
	EXPECT_EQ(EINVAL, errno);
	a.cc_config = &nscc_cfg;
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	ASSERT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_CONFIG))
		TH_LOG("CC -> ONLINE: %s", strerror(errno));

	/* Back into the caller's struct, every parameter. */
	memset(&a, 0, sizeof(a));
	a.cc_config = &got;
	ASSERT_EQ(0, mrc_ctl_query_cc_profile(self->mctx, CC_ID, &a,
					      MRC_CTL_CC_PROFILE_STATE |
					      MRC_CTL_CC_PROFILE_ALGORITHM |
					      MRC_CTL_CC_PROFILE_CONFIG |
					      MRC_CTL_CC_PROFILE_VENDOR_CFG));
	EXPECT_EQ(MRC_CTL_PROFILE_ONLINE, a.profile_state);
	ASSERT_NE(NULL, a.algorithm);
	EXPECT_STREQ(NSCC_NAME, a.algorithm);
	EXPECT_EQ(&got, a.cc_config);
	EXPECT_EQ(nscc_cfg.disable_qa, got.disable_qa);
	EXPECT_EQ(nscc_cfg.adjust_bytes_threshold, got.adjust_bytes_threshold);
	EXPECT_EQ(nscc_cfg.adjust_period_threshold,
		  got.adjust_period_threshold);
	EXPECT_EQ(nscc_cfg.base_rtt, got.base_rtt);
	EXPECT_EQ(nscc_cfg.eta, got.eta);
	EXPECT_EQ(nscc_cfg.fi, got.fi);
	EXPECT_GT(FLOAT_EPS, fabs(nscc_cfg.fi_scale - got.fi_scale));
	EXPECT_GT(FLOAT_EPS, fabs(nscc_cfg.gamma - got.gamma));
	EXPECT_GT(FLOAT_EPS, fabs(nscc_cfg.max_md_jump - got.max_md_jump));
	EXPECT_EQ(nscc_cfg.max_cwnd, got.max_cwnd);
	EXPECT_EQ(nscc_cfg.qa_gate, got.qa_gate);
	EXPECT_EQ(nscc_cfg.qa_threshold, got.qa_threshold);
	EXPECT_EQ(nscc_cfg.target_delay, got.target_delay);

	/* With no struct of its own: the library's, the same values. */
	a.cc_config = NULL;
	ASSERT_EQ(0, mrc_ctl_query_cc_profile(self->mctx, CC_ID, &a,
					      MRC_CTL_CC_PROFILE_CONFIG));
	p = a.cc_config;
	ASSERT_NE(NULL, p);
	EXPECT_EQ(nscc_cfg.base_rtt, p->base_rtt);
	EXPECT_EQ(nscc_cfg.max_cwnd, p->max_cwnd);

	/* A negative or infinite float is no parameter. */
	got = nscc_cfg;
	got.gamma = -1.0f;
	a.cc_config = &got;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
						MRC_CTL_CC_PROFILE_CONFIG));
	EXPECT_EQ(EINVAL, errno);
	got.gamma = INFINITY;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
						MRC_CTL_CC_PROFILE_CONFIG));
	EXPECT_EQ(EINVAL, errno);

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	EXPECT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE));
	a.profile_state = MRC_CTL_PROFILE_INIT;
	EXPECT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE));

	/* Algorithm NULL: congestion control off, no config. */
	memset(&a, 0, sizeof(a));
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.algorithm = NULL;
	ASSERT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_NONE_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_ALGORITHM));
	a.algorithm = NSCC_NAME;
	a.cc_config = &got;
	ASSERT_EQ(0, mrc_ctl_query_cc_profile(self->mctx, CC_NONE_ID, &a,
					      MRC_CTL_CC_PROFILE_ALGORITHM |
					      MRC_CTL_CC_PROFILE_CONFIG));
	EXPECT_EQ(NULL, a.algorithm);
	EXPECT_EQ(NULL, a.cc_config);
	a.cc_config = &nscc_cfg;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_cc_profile(self->mctx, CC_NONE_ID, &a,
						MRC_CTL_CC_PROFILE_CONFIG));
	EXPECT_EQ(EINVAL, errno);
	a.profile_state = MRC_CTL_PROFILE_INIT;
	EXPECT_EQ(0, mrc_ctl_modify_cc_profile(self->mctx, CC_NONE_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE));
}

/* Poll @cq until @n events or EVENT_WAIT_MS; returns how many came. */
static int poll_events(struct mrc_cq *cq, struct mrc_ctl_ev_event *out,
		       int n)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int got = 0, tries, r;

	for (tries = 0; tries < EVENT_WAIT_MS / 10 && got < n; tries++) {
		r = mrc_ctl_poll_ev_event(cq, n - got, out + got);
		if (r < 0)
			return r;
		got += r;
		if (got < n)
			nanosleep(&pause, NULL);
	}
	return got;
}

/*
 * mrc_ctl_ev_events.md: an EV the controller takes from DENIED back to
 * GOOD posts one event (the mask selects GOOD); a CQ with room for
 * EVENT_CQE events keeps the first ones and counts the rest in the next
 * one's drop_count (the device's count is precise).
 */
TEST_F(ctl, ev_events)
{
	static const uint8_t widths[] = { EXP_HALF_WIDTH, EXP_HALF_WIDTH };
	struct mrc_ctl_ev_op_entry ops[EVENT_EVS];
	struct mrc_ctl_ev_event got[EVENT_EVS];
	struct mrc_ctl_ev_profile_attr a = {};
	struct mrc_cq *cq, *wc_cq;
	struct mrc_comp_channel *ch;
	int i, n;

	ASSERT_TRUE(self->dev.opt_attr & MRC_CTL_OPT_CAP_EV_EVENT);
	ASSERT_EQ(0, fmt_online(self->mctx, EVENT_FMT_ID, widths, 2));
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_EXP;
	a.ev_fmt_profile_id = EVENT_FMT_ID;
	a.ev_count = EVENT_EVS;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EVENT_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE |
					       MRC_CTL_EV_PROFILE_MODE |
					       MRC_CTL_EV_PROFILE_FMT_ID |
					       MRC_CTL_EV_PROFILE_COUNT |
					       MRC_CTL_EV_PROFILE_MIN_ACTIVE |
					       MRC_CTL_EV_PROFILE_EVENT_MASK));
	for (i = 0; i < EVENT_EVS; i++) {
		ops[i].ev = MRC_CTL_EV_UNPOPULATED;
		ops[i].ev_new = ev_u32(0x10001u * (uint32_t)(i + 1), PORT);
		ops[i].state = MRC_CTL_EV_GOOD;
		ops[i].flags = 0;
	}
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	a.ev_op.entries = ops;
	a.ev_op.entry_count = EVENT_EVS;
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EVENT_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_OP));
	ASSERT_EQ(0, mrc_ctl_modify_ev_profile(self->mctx, EVENT_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_STATE));

	/* Refused: no size, or a completion channel (events are polled). */
	errno = 0;
	EXPECT_EQ(NULL, mrc_ctl_create_ev_event_cq(self->mctx, 0, NULL, NULL,
						   0));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, mrc_create_comp_channel(self->mctx, &ch));
	errno = 0;
	EXPECT_EQ(NULL, mrc_ctl_create_ev_event_cq(self->mctx, EVENT_CQE,
						   NULL, ch, 0));
	EXPECT_EQ(EOPNOTSUPP, errno);
	EXPECT_EQ(0, mrc_destroy_comp_channel(ch));

	cq = mrc_ctl_create_ev_event_cq(self->mctx, EVENT_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, cq) TH_LOG("create_ev_event_cq: %s", strerror(errno));
	EXPECT_EQ(0, mrc_ctl_poll_ev_event(cq, EVENT_EVS, got));
	/* A work completion CQ is no EV event CQ, and the other way. */
	wc_cq = mrc_create_cq(self->mctx, EVENT_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, wc_cq);
	EXPECT_EQ(-EINVAL, mrc_ctl_poll_ev_event(wc_cq, 1, got));
	errno = 0;
	EXPECT_EQ(-1, mrc_poll_cq(cq, 1, NULL));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, mrc_destroy_cq(wc_cq));

	/* One event: DENIED -> GOOD of EV 0 (DENIED is not in the mask). */
	ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID, &ops[0].ev_new,
				  MRC_CTL_EV_DENIED));
	ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID, &ops[0].ev_new,
				  MRC_CTL_EV_GOOD));
	n = poll_events(cq, got, 1);
	ASSERT_EQ(1, n);
	EXPECT_EQ(EVENT_EVP_ID, got[0].profile_id);
	EXPECT_EQ(0, memcmp(got[0].ev.val, ops[0].ev_new.val,
			    MRC_CTL_EV_MAX_BYTES));
	EXPECT_EQ(PORT, got[0].ev.port);
	EXPECT_EQ(MRC_CTL_EV_GOOD, got[0].state);
	EXPECT_EQ(0, got[0].drop_count);
	EXPECT_EQ(0, mrc_ctl_poll_ev_event(cq, EVENT_EVS, got));

	/* EVENT_EVS events into room for EVENT_CQE, then one more. */
	for (i = 0; i < EVENT_EVS; i++)
		ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID,
					  &ops[i].ev_new, MRC_CTL_EV_DENIED));
	for (i = 0; i < EVENT_EVS; i++)
		ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID,
					  &ops[i].ev_new, MRC_CTL_EV_GOOD));
	n = poll_events(cq, got, EVENT_CQE);
	ASSERT_EQ(EVENT_CQE, n);
	for (i = 0; i < EVENT_CQE; i++) {
		EXPECT_EQ(0, memcmp(got[i].ev.val, ops[i].ev_new.val,
				    MRC_CTL_EV_MAX_BYTES));
		EXPECT_EQ(0, got[i].drop_count);
	}
	ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID, &ops[0].ev_new,
				  MRC_CTL_EV_DENIED));
	ASSERT_EQ(0, ev_set_state(self->mctx, EVENT_EVP_ID, &ops[0].ev_new,
				  MRC_CTL_EV_GOOD));
	n = poll_events(cq, got, 1);
	ASSERT_EQ(1, n);
	EXPECT_EQ(0, memcmp(got[0].ev.val, ops[0].ev_new.val,
			    MRC_CTL_EV_MAX_BYTES));
	EXPECT_EQ(EVENT_EVS - EVENT_CQE, got[0].drop_count);

	EXPECT_EQ(0, mrc_destroy_cq(cq));
	EXPECT_EQ(0, evp_down(self->mctx, EVENT_EVP_ID));
	EXPECT_EQ(0, fmt_down(self->mctx, EVENT_FMT_ID));
}

/*
 * mrc_ctl_ev_probes.md: a probe to our own address is answered (through
 * loopback, on port 1); one to an address nobody holds is not:
 * ETIMEDOUT, with the response that did come.
 */
TEST_F(ctl, ev_probe)
{
	struct mrc_ctl_ep_req req[2] = {};
	struct mrc_ctl_ep_rsp rsp[2] = {};
	int n = -1, gid_index, i;
	union ibv_gid gid;

	ASSERT_TRUE(self->dev.opt_attr & MRC_CTL_OPT_CAP_EP_OP_EV_PROBE);
	ASSERT_EQ(0, mrc_find_gid(self->ibv, true, &gid, &gid_index));
	for (i = 0; i < 2; i++) {
		req[i].req_id = (uint16_t)(i + 1);
		req[i].sgid = gid;
		req[i].dgid = gid;
		req[i].ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
		req[i].req_ev = ev_u32(EP_EV, PORT);
	}
	ASSERT_EQ(0, mrc_gid_from_ipv4(EP_ABSENT_IPV4, &req[1].dgid));

	ASSERT_EQ(0, mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						MRC_CTL_EP_OP_EV_PROBE, req, 1,
						EP_TIMEOUT_NS, rsp, &n))
		TH_LOG("probe to ourselves: %s", strerror(errno));
	ASSERT_EQ(1, n);
	EXPECT_EQ(1, rsp[0].req_id);
	EXPECT_EQ(PORT, rsp[0].port);
	EXPECT_LT(0u, rsp[0].rtt);

	n = -1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						 MRC_CTL_EP_OP_EV_PROBE, req,
						 2, EP_TIMEOUT_NS, rsp, &n));
	EXPECT_EQ(ETIMEDOUT, errno);
	ASSERT_EQ(1, n);
	EXPECT_EQ(1, rsp[0].req_id);

	/* Refusals before anything is sent. */
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_ep_batch_send_wait(self->mctx, 64,
						 MRC_CTL_EP_OP_EV_PROBE, req,
						 1, EP_TIMEOUT_NS, rsp, &n));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						 MRC_CTL_EP_OP_EV_PROBE, req,
						 0, EP_TIMEOUT_NS, rsp, &n));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						 MRC_CTL_EP_OP_EV_PROBE, req,
						 1, 0, rsp, &n));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						 (enum mrc_ctl_ep_op_type)5,
						 req, 1, EP_TIMEOUT_NS, rsp,
						 &n));
	EXPECT_EQ(EINVAL, errno);
}

/* The API's own rules, checked before the device is asked. */
TEST_F(ctl, refusals)
{
	struct mrc_ctl_ev_op_entry e = {};
	struct mrc_ctl_ev_field f = {};
	struct mrc_ctl_ev_profile_attr a = {};

	/* EV_OP with EV_FIELDS_OP. */
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = &e;
	a.ev_op.entry_count = 1;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
	a.ev_fields_op.fields = &f;
	a.ev_fields_op.field_count = 1;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_profile(self->mctx, ERR_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_OP |
					       MRC_CTL_EV_PROFILE_EV_FIELDS_OP));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, ERR_EVP_ID, &a,
						MRC_CTL_EV_PROFILE_EV_OP |
						MRC_CTL_EV_PROFILE_EV_FIELDS_OP));
	EXPECT_EQ(EINVAL, errno);
	/* A query may not replace; a modify of an array it does not have. */
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_profile(self->mctx, ERR_EVP_ID, &a,
					       MRC_CTL_EV_PROFILE_EV_OP));
	EXPECT_EQ(EINVAL, errno);
	a.ev_op.entries = NULL;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, ERR_EVP_ID, &a,
						MRC_CTL_EV_PROFILE_EV_OP));
	EXPECT_EQ(EINVAL, errno);
	/* Event masks select GOOD and ASSUMED_BAD only. */
	a.ev_event_mask = MRC_CTL_EV_DENIED;
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, ERR_EVP_ID, &a,
						MRC_CTL_EV_PROFILE_EVENT_MASK));
	EXPECT_EQ(EINVAL, errno);
	/* Mask bits the API does not define. */
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_modify_ev_profile(self->mctx, ERR_EVP_ID, &a,
						1 << 12));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_ev_fmt_profile(self->mctx, ERR_FMT_ID,
						   NULL,
						   MRC_CTL_EV_FMT_PROFILE_STATE));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_ctl_query_cc_profile(NULL, CC_ID, NULL, 0));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing of this changed the profile. */
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, evp_state(self->mctx, ERR_EVP_ID));
}

/*
 * Without CAP_NET_ADMIN (a child that became nobody): every modify and
 * endpoint operation is EPERM and changes nothing; queries still work.
 */
TEST_F(ctl, eperm)
{
	struct mrc_ctl_cc_profile_attr a = {};
	struct mrc_ctl_port_attr pa = {};
	int status = -1;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct mrc_ctl_ev_fmt_profile_attr f = {};
		struct mrc_ctl_ep_req req = {};
		struct mrc_ctl_ep_rsp rsp;
		int n, bad = 0;

		if (setgid(NOBODY_ID) || setuid(NOBODY_ID))
			_exit(2);
		a.profile_state = MRC_CTL_PROFILE_OFFLINE;
		a.algorithm = NSCC_NAME;
		if (!mrc_ctl_modify_cc_profile(self->mctx, CC_ID, &a,
					       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_ALGORITHM) ||
		    errno != EPERM)
			bad |= 1 << 0;
		pa.port_admin_state = MRC_CTL_PORT_ADMIN_STATE_DISABLED;
		if (!mrc_ctl_modify_port(self->mctx, PORT, &pa,
					 MRC_CTL_PORT_ADMIN_STATE) ||
		    errno != EPERM)
			bad |= 1 << 1;
		f.profile_state = MRC_CTL_PROFILE_OFFLINE;
		f.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
		if (!mrc_ctl_modify_ev_fmt_profile(self->mctx, ERR_FMT_ID, &f,
						   MRC_CTL_EV_FMT_PROFILE_STATE |
						   MRC_CTL_EV_FMT_PROFILE_MODE) ||
		    errno != EPERM)
			bad |= 1 << 2;
		req.req_id = 1;
		req.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
		req.req_ev = ev_u32(EP_EV, PORT);
		if (mrc_find_gid(self->ibv, true, &req.sgid, &n) ||
		    !memcpy(&req.dgid, &req.sgid, sizeof(req.dgid)) ||
		    !mrc_ctl_ep_batch_send_wait(self->mctx, 0,
						MRC_CTL_EP_OP_EV_PROBE, &req, 1,
						EP_TIMEOUT_NS, &rsp, &n) ||
		    errno != EPERM)
			bad |= 1 << 3;
		/* Reading needs no privilege. */
		if (mrc_ctl_query_port(self->mctx, PORT, &pa,
				       MRC_CTL_PORT_ADMIN_STATE) ||
		    pa.port_admin_state != MRC_CTL_PORT_ADMIN_STATE_ENABLED)
			bad |= 1 << 4;
		_exit(bad ? 100 + bad : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: bit mask of the calls not refused with EPERM: %d",
		       WEXITSTATUS(status) - 100);
	/* Nothing changed. */
	ASSERT_EQ(0, mrc_ctl_query_cc_profile(self->mctx, CC_ID, &a,
					      MRC_CTL_CC_PROFILE_STATE));
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, a.profile_state);
	EXPECT_EQ(MRC_CTL_PROFILE_INIT, fmt_state(self->mctx, ERR_FMT_ID));
	ASSERT_EQ(0, mrc_ctl_query_port(self->mctx, PORT, &pa,
					MRC_CTL_PORT_ADMIN_STATE));
	EXPECT_EQ(MRC_CTL_PORT_ADMIN_STATE_ENABLED, pa.port_admin_state);
}

/* A controller's context outlives nothing: objects keep it. */
TEST_F(ctl, context_busy)
{
	struct mrc_cq *cq;

	cq = mrc_ctl_create_ev_event_cq(self->mctx, EVENT_CQE, NULL, NULL, 0);
	ASSERT_NE(NULL, cq);
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_context(self->mctx));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, mrc_destroy_cq(cq));
}

TEST_HARNESS_MAIN
