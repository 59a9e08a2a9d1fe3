// SPDX-License-Identifier: GPL-2.0
/*
 * The OCP MRC application API (<mrc.h>) as libmrc provides it so far:
 * versions, contexts (several at once, versions they accept and refuse,
 * no destruction under live objects), completion channels and CQs, and
 * the errno of each bad call.
 *
 * Run by with_device.sh, which creates the device and sets $MRC_DEV.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include <mrc.h>

#include "kselftest_harness.h"
#include "mrc_common.h"

#define CQE		16
#define NO_WAIT_MS	0
#define COMP_VECTOR	0
#define POLL_ENTRIES	4

TEST(versions)
{
	uint32_t cur = 0, last = 1, vcur = 0, vlast = 1;

	mrc_query_version(&cur, &last, &vcur, &vlast);
	EXPECT_EQ(MRC_API_VERSION(1, 0, 1), cur);
	EXPECT_EQ(MRC_API_VERSION(0, 0, 0), last);
	EXPECT_EQ(MRC_API_VERSION(1, 0, 0), vcur);
	EXPECT_EQ(MRC_API_VERSION(0, 0, 0), vlast);
	/* Any output may be left out. */
	mrc_query_version(NULL, NULL, NULL, NULL);
}

FIXTURE(ctx)
{
	struct ibv_context *ibv;
	struct mrc_context *mctx;
};

FIXTURE_SETUP(ctx)
{
	struct mrc_context_attr attr = {
		.mrc_api_version_used = MRC_API_CURRENT_VERSION,
	};

	self->ibv = mrc_open_device();
	ASSERT_NE(NULL, self->ibv)
		TH_LOG("cannot open $%s=%s: %s", MRC_ENV_DEV,
		       mrc_env_or(MRC_ENV_DEV, "(unset)"), strerror(errno));
	self->mctx = mrc_create_context(self->ibv, &attr);
	ASSERT_NE(NULL, self->mctx) TH_LOG("create_context: %s", strerror(errno));
}

FIXTURE_TEARDOWN(ctx)
{
	if (self->mctx)
		EXPECT_EQ(0, mrc_destroy_context(self->mctx));
	if (self->ibv)
		EXPECT_EQ(0, ibv_close_device(self->ibv));
}

/* What the OCP examples pass: no attributes, 0, and 1 (read as 0.0.1). */
TEST_F(ctx, versions_accepted)
{
	static const uint32_t ok[] = {
		0, MRC_PROTOCOL_VERSION_1, MRC_API_VERSION(1, 0, 0),
		MRC_API_CURRENT_VERSION, MRC_API_VERSION_LATEST,
	};
	struct mrc_context_attr attr = {};
	struct mrc_context *more;
	unsigned int i;

	more = mrc_create_context(self->ibv, NULL);
	ASSERT_NE(NULL, more) TH_LOG("NULL attr: %s", strerror(errno));
	EXPECT_EQ(0, mrc_destroy_context(more));
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		attr.mrc_api_version_used = ok[i];
		more = mrc_create_context(self->ibv, &attr);
		EXPECT_NE(NULL, more) TH_LOG("version %#x: %s", ok[i], strerror(errno));
		if (more)
			EXPECT_EQ(0, mrc_destroy_context(more));
	}
}

TEST_F(ctx, versions_refused)
{
	struct mrc_context_attr attr = {
		.mrc_api_version_used = MRC_API_VERSION(1, 0, 2),
	};

	errno = 0;
	EXPECT_EQ(NULL, mrc_create_context(self->ibv, &attr));
	EXPECT_EQ(EINVAL, errno);
	attr = (struct mrc_context_attr){
		.mrc_vendor_api_version_used = MRC_API_VERSION(2, 0, 0),
	};
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_context(self->ibv, &attr));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_context(NULL, NULL));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_context(NULL));
	EXPECT_EQ(EINVAL, errno);
}

/* Two contexts on one device, each with its own objects. */
TEST_F(ctx, two_contexts)
{
	struct mrc_context *other = mrc_create_context(self->ibv, NULL);
	struct mrc_cq *a, *b;

	ASSERT_NE(NULL, other) TH_LOG("second context: %s", strerror(errno));
	a = mrc_create_cq(self->mctx, CQE, NULL, NULL, COMP_VECTOR);
	b = mrc_create_cq(other, CQE, NULL, NULL, COMP_VECTOR);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	/* Each context is busy with its own CQ only. */
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_context(other));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, mrc_destroy_cq(b));
	EXPECT_EQ(0, mrc_destroy_context(other));
	EXPECT_EQ(0, mrc_destroy_cq(a));
}

TEST_F(ctx, cq_empty)
{
	struct ibv_wc wc[POLL_ENTRIES];
	struct mrc_cq *cq;

	cq = mrc_create_cq(self->mctx, CQE, NULL, NULL, COMP_VECTOR);
	ASSERT_NE(NULL, cq) TH_LOG("create_cq: %s", strerror(errno));
	EXPECT_EQ(0, mrc_poll_cq(cq, POLL_ENTRIES, wc));
	EXPECT_EQ(0, mrc_poll_cq(cq, 0, NULL));
	errno = 0;
	EXPECT_EQ(-1, mrc_poll_cq(cq, -1, wc));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_destroy_context(self->mctx));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, mrc_destroy_cq(cq));
}

TEST_F(ctx, cq_refused)
{
	struct mrc_context *other = mrc_create_context(self->ibv, NULL);
	struct mrc_comp_channel *ch = NULL;

	ASSERT_NE(NULL, other);
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_cq(self->mctx, 0, NULL, NULL, COMP_VECTOR));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_cq(NULL, CQE, NULL, NULL, COMP_VECTOR));
	EXPECT_EQ(EINVAL, errno);
	/* A channel of another context. */
	ASSERT_EQ(0, mrc_create_comp_channel(other, &ch));
	errno = 0;
	EXPECT_EQ(NULL, mrc_create_cq(self->mctx, CQE, NULL, ch, COMP_VECTOR));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, mrc_destroy_comp_channel(ch));
	EXPECT_EQ(0, mrc_destroy_context(other));
	EXPECT_EQ(EINVAL, mrc_destroy_cq(NULL));
	EXPECT_EQ(EINVAL, mrc_req_notify_cq(NULL, 0));
}

/* A channel's fd: nothing to read before a completion; refusals. */
TEST_F(ctx, comp_channel)
{
	struct mrc_comp_channel *ch = NULL;
	struct pollfd pfd = { .events = POLLIN };
	struct mrc_cq *cq;
	void *got_ctx = NULL;
	int fd = -1;

	ASSERT_EQ(0, mrc_create_comp_channel(self->mctx, &ch));
	ASSERT_NE(NULL, ch);
	ASSERT_EQ(0, mrc_get_comp_channel_fd(ch, &fd));
	EXPECT_GE(fd, 0);
	cq = mrc_create_cq(self->mctx, CQE, self, ch, COMP_VECTOR);
	ASSERT_NE(NULL, cq) TH_LOG("create_cq: %s", strerror(errno));
	EXPECT_EQ(0, mrc_req_notify_cq(cq, 0));
	pfd.fd = fd;
	EXPECT_EQ(0, poll(&pfd, 1, NO_WAIT_MS));
	/* A CQ on it: the channel stays. */
	EXPECT_EQ(EBUSY, mrc_destroy_comp_channel(ch));
	errno = 0;
	EXPECT_EQ(-1, mrc_get_cq_event(ch, NULL, &got_ctx));
	EXPECT_EQ(EINVAL, errno);
	errno = 0;
	EXPECT_EQ(-1, mrc_get_comp_channel_fd(NULL, &fd));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(EINVAL, mrc_create_comp_channel(self->mctx, NULL));
	mrc_ack_cq_events(cq, 0);
	EXPECT_EQ(0, mrc_destroy_cq(cq));
	EXPECT_EQ(0, mrc_destroy_comp_channel(ch));
}

TEST_HARNESS_MAIN
