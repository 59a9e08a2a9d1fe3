// SPDX-License-Identifier: GPL-2.0
/*
 * Holds a user context of $MRC_DEV open, with a PD, an MR, a CQ and an RC
 * QP connected to itself in RTS with one RDMA WRITE posted, and reports the
 * async events it receives, for port_test.sh and fatal_test.sh.
 *
 *   mrc_async_helper TIMEOUT_SECONDS EVENT...
 *
 * EVENT is PORT_ERR, PORT_ACTIVE, DEVICE_FATAL, ...  The helper prints
 * "READY" once everything is set up, then "EVENT <EVENT> [port <n>]" for each
 * event (the expected ones must come in the given order; others are
 * printed and skipped), and exits 0 when all of them came.  After
 * DEVICE_FATAL it checks that a new verb (ibv_alloc_pd) fails, then that
 * destroying its objects and closing the device succeed.  It exits 1 on a
 * timeout or any failed check, 2 on bad usage.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mrc_common.h"

#define EXIT_USAGE	2
#define MAX_EXPECTED	8
#define CQE		16
#define MAX_WR		4
#define ONE_SGE		1
#define NO_INLINE	0
#define BUF_BYTES	4096
#define WRITE_WR_ID	0x5a
#define MSEC_PER_SEC	1000L
#define NSEC_PER_MSEC	1000000L
#define MAX_TIMEOUT_S	3600

/* The events EVENT arguments can name, and how the output names them. */
static const struct {
	const char *name;
	enum ibv_event_type type;
} event_names[] = {
	{ "PORT_ERR", IBV_EVENT_PORT_ERR },
	{ "PORT_ACTIVE", IBV_EVENT_PORT_ACTIVE },
	{ "DEVICE_FATAL", IBV_EVENT_DEVICE_FATAL },
	{ "GID_CHANGE", IBV_EVENT_GID_CHANGE },
	{ "QP_FATAL", IBV_EVENT_QP_FATAL },
	{ "CQ_ERR", IBV_EVENT_CQ_ERR },
};

static const char *event_name(enum ibv_event_type type)
{
	size_t i;

	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++)
		if (event_names[i].type == type)
			return event_names[i].name;
	return ibv_event_type_str(type);
}

struct objects {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	char buf[BUF_BYTES];
};

static int parse_event(const char *name, enum ibv_event_type *type)
{
	size_t i;

	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
		if (!strcmp(name, event_names[i].name)) {
			*type = event_names[i].type;
			return 0;
		}
	}
	return -1;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * MSEC_PER_SEC + ts.tv_nsec / NSEC_PER_MSEC;
}

static int fail(const char *what, int err)
{
	printf("FAIL %s: %s\n", what, strerror(err));
	return -1;
}

static int setup(struct objects *o)
{
	struct mrc_path path;
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad = NULL;
	int ret;

	o->ctx = mrc_open_device();
	if (!o->ctx)
		return fail("open device", errno);
	o->pd = ibv_alloc_pd(o->ctx);
	if (!o->pd)
		return fail("alloc_pd", errno);
	o->mr = ibv_reg_mr(o->pd, o->buf, sizeof(o->buf),
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!o->mr)
		return fail("reg_mr", errno);
	o->cq = ibv_create_cq(o->ctx, CQE, NULL, NULL, 0);
	if (!o->cq)
		return fail("create_cq", errno);
	o->qp = mrc_create_rc_qp(o->pd, o->cq, MAX_WR, ONE_SGE, NO_INLINE);
	if (!o->qp)
		return fail("create_qp", errno);
	ret = mrc_loopback_path(o->ctx, o->qp->qp_num, &path);
	if (ret)
		return fail("find IPv4 GID", ret);
	ret = mrc_qp_to_init(o->qp);
	if (!ret)
		ret = mrc_qp_to_rtr(o->qp, &path);
	if (!ret)
		ret = mrc_qp_to_rts(o->qp, &path);
	if (ret)
		return fail("connect QP", ret);

	sge.addr = (uintptr_t)o->buf;
	sge.length = sizeof(o->buf) / 2;
	sge.lkey = o->mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WRITE_WR_ID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)o->buf + sizeof(o->buf) / 2;
	wr.wr.rdma.rkey = o->mr->rkey;
	ret = ibv_post_send(o->qp, &wr, &bad);
	if (ret)
		return fail("post_send", ret);
	return 0;
}

/* Destroy everything; every call must succeed, also after a fatal event. */
static int teardown(struct objects *o)
{
	int ret, result = 0;

	if (o->qp && (ret = ibv_destroy_qp(o->qp)))
		result = fail("destroy_qp", ret);
	if (o->cq && (ret = ibv_destroy_cq(o->cq)))
		result = fail("destroy_cq", ret);
	if (o->mr && (ret = ibv_dereg_mr(o->mr)))
		result = fail("dereg_mr", ret);
	if (o->pd && (ret = ibv_dealloc_pd(o->pd)))
		result = fail("dealloc_pd", ret);
	if (o->ctx && (ret = ibv_close_device(o->ctx)))
		result = fail("close_device", ret);
	return result;
}

static bool is_port_event(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		return true;
	default:
		return false;
	}
}

/* Wait for the expected events in order; 0 when all came. */
static int wait_events(struct objects *o, const enum ibv_event_type *want,
		       int n, long deadline)
{
	int seen = 0;

	while (seen < n) {
		struct pollfd pfd = { .fd = o->ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;
		long left = deadline - now_ms();
		int ret;

		if (left <= 0) {
			printf("FAIL timeout waiting for %s\n",
			       event_name(want[seen]));
			return -1;
		}
		ret = poll(&pfd, 1, (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return fail("poll async fd", errno);
		if (!ret)
			continue;
		if (ibv_get_async_event(o->ctx, &ev))
			return fail("get_async_event", errno);
		if (is_port_event(ev.event_type))
			printf("EVENT %s port %d\n", event_name(ev.event_type),
			       ev.element.port_num);
		else
			printf("EVENT %s\n", event_name(ev.event_type));
		if (ev.event_type == want[seen])
			seen++;
		ibv_ack_async_event(&ev);
	}
	return 0;
}

int main(int argc, char **argv)
{
	enum ibv_event_type want[MAX_EXPECTED];
	bool fatal = false;
	struct objects *o;
	long timeout_s;
	char *end;
	int n, i, result = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 3 || argc - 2 > MAX_EXPECTED) {
		fprintf(stderr, "usage: %s TIMEOUT_SECONDS EVENT...\n", argv[0]);
		return EXIT_USAGE;
	}
	timeout_s = strtol(argv[1], &end, 10);
	if (*end || timeout_s <= 0 || timeout_s > MAX_TIMEOUT_S) {
		fprintf(stderr, "bad timeout %s\n", argv[1]);
		return EXIT_USAGE;
	}
	n = argc - 2;
	for (i = 0; i < n; i++) {
		if (parse_event(argv[i + 2], &want[i])) {
			fprintf(stderr, "unknown event %s\n", argv[i + 2]);
			return EXIT_USAGE;
		}
		if (want[i] == IBV_EVENT_DEVICE_FATAL)
			fatal = true;
	}

	o = calloc(1, sizeof(*o));
	if (!o)
		return EXIT_FAILURE;
	if (setup(o)) {
		teardown(o);
		free(o);
		return EXIT_FAILURE;
	}
	printf("READY\n");

	if (wait_events(o, want, n, now_ms() + timeout_s * MSEC_PER_SEC))
		result = -1;

	if (!result && fatal) {
		struct ibv_pd *pd = ibv_alloc_pd(o->ctx);

		if (pd) {
			printf("FAIL alloc_pd succeeded after DEVICE_FATAL\n");
			ibv_dealloc_pd(pd);
			result = -1;
		} else {
			printf("POSTFATAL alloc_pd refused: %s\n",
			       strerror(errno));
		}
	}
	if (teardown(o))
		result = -1;
	free(o);
	if (!result)
		printf("DONE\n");
	return result ? EXIT_FAILURE : EXIT_SUCCESS;
}
