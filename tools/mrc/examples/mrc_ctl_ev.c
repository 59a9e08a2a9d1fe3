// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrc_ctl_ev: a node's controller through the OCP MRC controller API
 * (<mrc_ctl.h>) alone, in four commands:
 *
 *   gen     a generated EV profile: an STEV format of three fields (8, 4
 *           and 4 bits: tiers T0, T1, T2), the profile generating every
 *           combination the device holds, brought ONLINE; then every EV
 *           whose T0 is past the links in use is denied, one per call,
 *           and the array read back
 *   exp     an explicit EV profile: an STEV format of two 16-bit fields,
 *           every slot filled with (i << 16) | i, ONLINE; EVs 13 to 42
 *           denied, then replaced by value + 128 while ONLINE; the array
 *           read back
 *   events  EV events of a profile: its event mask set to GOOD and
 *           ASSUMED_BAD, then every event printed as it comes
 *   probe   EV probes to a peer, one per EV given, with their RTTs
 *
 * Builds with
 *
 *	cc -o mrc_ctl_ev mrc_ctl_ev.c -lmrc -libverbs
 *
 * and needs CAP_NET_ADMIN.  gen and exp take their profiles back to INIT
 * before they exit; with --hold FILE they print "ready" once ONLINE and
 * wait for FILE first.  Exit status 0 when every step did what it should.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <infiniband/verbs.h>
#include <mrc.h>
#include <mrc_ctl.h>

#define IB_PORT		1
/* gen: the ids and tiers of the OCP's generated-EV walk-through. */
#define GEN_FMT_ID	13
#define GEN_EVP_ID	1
#define T0_BITS		8
#define T12_BITS	4
#define T0_LINKS	180	/* of 256 T0 values, those with a link */
/* exp: the ids of the explicit-EV walk-through; EVs from 1 (port 0 is none). */
#define EXP_FMT_ID	16
#define EXP_EVP_ID	2
#define EXP_HALF	16
#define EXP_DENY_FIRST	13
#define EXP_DENY_LAST	42
#define EXP_ADD		128
#define EVENT_BATCH	4
#define EVENT_CQE	128
#define POLL_PAUSE_MS	10
#define MAX_PROBES	16
#define PROBE_TIMEOUT_MS 2	/* as the OCP's */
#define PROBE_TIMEOUT_MAX_MS 4000	/* what fits the call's 32-bit ns */
#define HOLD_PAUSE_MS	100
#define NS_PER_MS	1000000L

struct opts {
	const char *dev;
	const char *hold;
	uint64_t evp_id;
	int count;		/* events: stop after this many (0: never) */
	int secs;		/* events: stop after this long (0: never) */
	union ibv_gid sgid, dgid;
	bool have_sgid, have_dgid;
	uint32_t evs[MAX_PROBES];
	int n_evs;
	uint8_t tc;
	unsigned int wait_ms;	/* probe: how long the answers may take */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mrc_ctl_ev [-d DEV] gen [--hold FILE]\n"
		"       mrc_ctl_ev [-d DEV] exp [--hold FILE]\n"
		"       mrc_ctl_ev [-d DEV] events -i EV_PROFILE_ID [-n COUNT] [-t SECS]\n"
		"       mrc_ctl_ev [-d DEV] probe -s SGID -D DGID -e EV [-e EV]... [-q DSCP] [-w MS]\n"
		"  -d, --dev NAME      RDMA device (default: the first MRC one)\n"
		"      --hold FILE     gen, exp: once ONLINE, wait for FILE before teardown\n"
		"  -i, --id ID         events: the EV profile\n"
		"  -n, --count N       events: stop after N events\n"
		"  -t, --time SECS     events: stop after SECS seconds\n"
		"  -s, --sgid ADDR     probe: our address (IPv4 or IPv6)\n"
		"  -D, --dgid ADDR     probe: the peer's address\n"
		"  -e, --ev VALUE      probe: an STEV (32 bits: UDP source port, then flow label)\n"
		"  -q, --dscp N        probe: the requests' DSCP (default 0)\n"
		"  -w, --wait MS       probe: how long the answers may take (1-4000,\n"
		"                      default 2, as the OCP example's)\n"
		"  -h, --help\n");
}

static int fail(const char *what)
{
	fprintf(stderr, "mrc_ctl_ev: %s: %s\n", what, strerror(errno));
	return 1;
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * NS_PER_MS };

	nanosleep(&ts, NULL);
}

static int hold(const char *file)
{
	if (!file)
		return 0;
	printf("ready\n");
	fflush(stdout);
	while (access(file, F_OK))
		pause_ms(HOLD_PAUSE_MS);
	return 0;
}

/* An EV as the OCP's examples make one: a host u32 copied in. */
static struct mrc_ctl_ev ev_of(uint32_t v, uint8_t port)
{
	struct mrc_ctl_ev ev = MRC_CTL_EV_UNPOPULATED;

	memcpy(ev.val, &v, sizeof(v));
	ev.port = port;
	return ev;
}

static uint32_t ev_u32(const struct mrc_ctl_ev *ev)
{
	uint32_t v;

	memcpy(&v, ev->val, sizeof(v));
	return v;
}

static const char *state_name(enum mrc_ctl_ev_state s)
{
	switch (s) {
	case MRC_CTL_EV_GOOD:
		return "good";
	case MRC_CTL_EV_ASSUMED_BAD:
		return "assumed-bad";
	case MRC_CTL_EV_DENIED:
		return "denied";
	default:
		return "unknown";
	}
}

/* A format of STEV fields of @widths: INIT -> OFFLINE -> ONLINE. */
static int fmt_up(struct mrc_context *mctx, uint64_t id,
		  const uint8_t *widths, int n)
{
	struct mrc_ctl_ev_fmt_field fields[MRC_CTL_EV_MAX_BYTES];
	struct mrc_ctl_ev_fmt_profile_attr a;
	int i;

	memset(&a, 0, sizeof(a));
	for (i = 0; i < n; i++)
		fields[i].width = widths[i];
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	a.ev_fmt_op.fmt_fields = fields;
	a.ev_fmt_op.fmt_field_count = n;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE |
					  MRC_CTL_EV_FMT_PROFILE_MODE |
					  MRC_CTL_EV_FMT_PROFILE_OP))
		return fail("format INIT -> OFFLINE");
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	if (mrc_ctl_modify_ev_fmt_profile(mctx, id, &a,
					  MRC_CTL_EV_FMT_PROFILE_STATE))
		return fail("format OFFLINE -> ONLINE");
	printf("format %" PRIu64 " online: %d fields\n", id, n);
	return 0;
}

/* EV profile @evp, then format @fmt: ONLINE -> OFFLINE -> INIT. */
static int down(struct mrc_context *mctx, uint64_t evp, uint64_t fmt)
{
	struct mrc_ctl_ev_fmt_profile_attr f = { 0 };
	struct mrc_ctl_ev_profile_attr e = { 0 };
	int ret = 0;

	e.profile_state = MRC_CTL_PROFILE_OFFLINE;
	ret |= mrc_ctl_modify_ev_profile(mctx, evp, &e,
					 MRC_CTL_EV_PROFILE_STATE);
	e.profile_state = MRC_CTL_PROFILE_INIT;
	ret |= mrc_ctl_modify_ev_profile(mctx, evp, &e,
					 MRC_CTL_EV_PROFILE_STATE);
	f.profile_state = MRC_CTL_PROFILE_OFFLINE;
	ret |= mrc_ctl_modify_ev_fmt_profile(mctx, fmt, &f,
					     MRC_CTL_EV_FMT_PROFILE_STATE);
	f.profile_state = MRC_CTL_PROFILE_INIT;
	ret |= mrc_ctl_modify_ev_fmt_profile(mctx, fmt, &f,
					     MRC_CTL_EV_FMT_PROFILE_STATE);
	if (ret)
		return fail("teardown");
	printf("profiles %" PRIu64 " and %" PRIu64 " back in INIT\n", evp,
	       fmt);
	return 0;
}

/* The whole EV array of @id, sized by asking first (E2BIG). */
static struct mrc_ctl_ev_op_entry *read_array(struct mrc_context *mctx,
					      uint64_t id, int *n)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };
	struct mrc_ctl_ev_op_entry one, *all;

	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = &one;
	a.ev_op.entry_count = 1;
	if (!mrc_ctl_query_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_EV_OP)) {
		*n = a.ev_op.entry_count;
		all = malloc(sizeof(one));
		if (all)
			*all = one;
		return all;
	}
	if (errno != E2BIG)
		return NULL;
	all = calloc((size_t)a.ev_op.entry_count, sizeof(*all));
	if (!all)
		return NULL;
	a.ev_op.entries = all;
	if (mrc_ctl_query_ev_profile(mctx, id, &a, MRC_CTL_EV_PROFILE_EV_OP)) {
		free(all);
		return NULL;
	}
	*n = a.ev_op.entry_count;
	return all;
}

static int set_state(struct mrc_context *mctx, uint64_t id,
		     const struct mrc_ctl_ev *ev, enum mrc_ctl_ev_state state)
{
	struct mrc_ctl_ev_op_entry e = { .ev = *ev, .state = state };
	struct mrc_ctl_ev_profile_attr a = { 0 };

	a.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	a.ev_op.entries = &e;
	a.ev_op.entry_count = 1;
	return mrc_ctl_modify_ev_profile(mctx, id, &a,
					 MRC_CTL_EV_PROFILE_EV_OP);
}

static int cmd_gen(struct mrc_context *mctx,
		   const struct mrc_ctl_device_attr *dev, const struct opts *o)
{
	static const uint8_t widths[] = { T0_BITS, T12_BITS, T12_BITS };
	struct mrc_ctl_ev_field fields[3] = {
		{ T0_BITS, 0, 0, (1u << T0_BITS) - 1, (1u << T0_BITS) - 1 },
		{ T12_BITS, 0, 0, (1u << T12_BITS) - 1, (1u << T12_BITS) - 1 },
		{ T12_BITS, 0, 0, (1u << T12_BITS) - 1, (1u << T12_BITS) - 1 },
	};
	struct mrc_ctl_ev_profile_attr a = { 0 };
	struct mrc_ctl_ev_op_entry *evs;
	unsigned int t0_max = 0, links;
	int n, i, denied = 0, bad = 0;
	uint32_t count;

	if (!(dev->ev.ev_mode_mask & MRC_CTL_EV_MODE_GEN)) {
		fprintf(stderr, "mrc_ctl_ev: the device cannot generate EVs\n");
		return 1;
	}
	if (fmt_up(mctx, GEN_FMT_ID, widths, 3))
		return 1;
	/* Every combination (the product of max + 1), as the device allows. */
	count = 1u << (T0_BITS + 2 * T12_BITS);
	if (count > dev->ev.ev_max_count_profile)
		count = dev->ev.ev_max_count_profile;
	count -= count % dev->ev.ev_count_align;

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_GEN;
	a.ev_fmt_profile_id = GEN_FMT_ID;
	a.ev_count = count;
	a.ev_min_active = count / 4;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	a.ev_fields_op.fields = fields;
	a.ev_fields_op.field_count = 3;
	if (mrc_ctl_modify_ev_profile(mctx, GEN_EVP_ID, &a,
				      MRC_CTL_EV_PROFILE_STATE |
				      MRC_CTL_EV_PROFILE_MODE |
				      MRC_CTL_EV_PROFILE_FMT_ID |
				      MRC_CTL_EV_PROFILE_COUNT |
				      MRC_CTL_EV_PROFILE_MIN_ACTIVE |
				      MRC_CTL_EV_PROFILE_EVENT_MASK |
				      MRC_CTL_EV_PROFILE_EV_FIELDS_OP))
		return fail("EV profile INIT -> OFFLINE");
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	if (mrc_ctl_modify_ev_profile(mctx, GEN_EVP_ID, &a,
				      MRC_CTL_EV_PROFILE_STATE))
		return fail("EV profile OFFLINE -> ONLINE");
	if (mrc_ctl_query_ev_profile(mctx, GEN_EVP_ID, &a,
				     MRC_CTL_EV_PROFILE_COUNT |
				     MRC_CTL_EV_PROFILE_MIN_ACTIVE))
		return fail("EV profile query");
	printf("ev profile %d online: generated, %u EVs, min-active %u\n",
	       GEN_EVP_ID, a.ev_count, a.ev_min_active);

	evs = read_array(mctx, GEN_EVP_ID, &n);
	if (!evs)
		return fail("reading the EV array");
	/* Links in use: T0 values up to the same share as 180 of 256. */
	for (i = 0; i < n; i++)
		if (evs[i].ev.val[0] > t0_max)
			t0_max = evs[i].ev.val[0];
	links = (t0_max + 1) * T0_LINKS / (1u << T0_BITS);
	for (i = 0; i < n; i++) {
		if (evs[i].ev.val[0] < links)
			continue;
		if (set_state(mctx, GEN_EVP_ID, &evs[i].ev, MRC_CTL_EV_DENIED)) {
			free(evs);
			return fail("denying an EV");
		}
		denied++;
	}
	printf("denied %d EVs: T0 >= %u\n", denied, links);
	free(evs);

	evs = read_array(mctx, GEN_EVP_ID, &n);
	if (!evs)
		return fail("reading the EV array");
	for (i = 0; i < n; i++)
		if ((evs[i].state == MRC_CTL_EV_DENIED) !=
		    (evs[i].ev.val[0] >= links))
			bad++;
	printf("array: %d EVs, %d in the wrong state\n", n, bad);
	free(evs);
	hold(o->hold);
	return down(mctx, GEN_EVP_ID, GEN_FMT_ID) || bad;
}

static uint32_t exp_value(uint32_t i)
{
	return (i << EXP_HALF) | i;
}

static int cmd_exp(struct mrc_context *mctx,
		   const struct mrc_ctl_device_attr *dev, const struct opts *o)
{
	static const uint8_t widths[] = { EXP_HALF, EXP_HALF };
	uint32_t count = dev->ev.ev_max_count_profile, chunk, i, v;
	struct mrc_ctl_ev_profile_attr a = { 0 };
	struct mrc_ctl_ev_op_entry *ops;
	int n, bad = 0;

	if (!(dev->ev.ev_mode_mask & MRC_CTL_EV_MODE_EXP)) {
		fprintf(stderr, "mrc_ctl_ev: the device takes no explicit EVs\n");
		return 1;
	}
	count -= count % dev->ev.ev_count_align;
	chunk = dev->ev.ev_op_max_entries ? dev->ev.ev_op_max_entries : count;
	if (fmt_up(mctx, EXP_FMT_ID, widths, 2))
		return 1;
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_EXP;
	a.ev_fmt_profile_id = EXP_FMT_ID;
	a.ev_count = count;
	a.ev_min_active = count / 4;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	if (mrc_ctl_modify_ev_profile(mctx, EXP_EVP_ID, &a,
				      MRC_CTL_EV_PROFILE_STATE |
				      MRC_CTL_EV_PROFILE_MODE |
				      MRC_CTL_EV_PROFILE_FMT_ID |
				      MRC_CTL_EV_PROFILE_COUNT |
				      MRC_CTL_EV_PROFILE_MIN_ACTIVE |
				      MRC_CTL_EV_PROFILE_EVENT_MASK))
		return fail("EV profile INIT -> OFFLINE");

	/* Every slot: UNPOPULATED -> (i << 16) | i on port 1. */
	ops = calloc(count, sizeof(*ops));
	if (!ops)
		return fail("allocating the EV operations");
	for (i = 0; i < count; i++) {
		ops[i].ev = MRC_CTL_EV_UNPOPULATED;
		ops[i].ev_new = ev_of(exp_value(i + 1), IB_PORT);
		ops[i].state = MRC_CTL_EV_GOOD;
	}
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	for (i = 0; i < count; i += chunk) {
		a.ev_op.entries = ops + i;
		a.ev_op.entry_count = (int)(count - i < chunk ? count - i : chunk);
		if (mrc_ctl_modify_ev_profile(mctx, EXP_EVP_ID, &a,
					      MRC_CTL_EV_PROFILE_EV_OP)) {
			free(ops);
			return fail("filling the EV array");
		}
	}
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	if (mrc_ctl_modify_ev_profile(mctx, EXP_EVP_ID, &a,
				      MRC_CTL_EV_PROFILE_STATE)) {
		free(ops);
		return fail("EV profile OFFLINE -> ONLINE");
	}
	printf("ev profile %d online: explicit, %u EVs\n", EXP_EVP_ID, count);

	for (v = EXP_DENY_FIRST; v <= EXP_DENY_LAST; v++) {
		struct mrc_ctl_ev ev = ev_of(exp_value(v), IB_PORT);

		if (set_state(mctx, EXP_EVP_ID, &ev, MRC_CTL_EV_DENIED)) {
			free(ops);
			return fail("denying an EV");
		}
	}
	printf("denied EVs %d to %d\n", EXP_DENY_FIRST, EXP_DENY_LAST);

	/* Replaced while ONLINE, if the device allows it. */
	if (dev->opt_attr & MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE) {
		n = 0;
		for (v = EXP_DENY_FIRST; v <= EXP_DENY_LAST; v++, n++) {
			ops[n].ev = ev_of(exp_value(v), IB_PORT);
			ops[n].ev_new = ev_of(exp_value(v + EXP_ADD), IB_PORT);
			ops[n].state = MRC_CTL_EV_GOOD;
			ops[n].flags = MRC_CTL_EV_OP_F_ALL_COPIES;
		}
		a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
		a.ev_op.entries = ops;
		a.ev_op.entry_count = n;
		if (mrc_ctl_modify_ev_profile(mctx, EXP_EVP_ID, &a,
					      MRC_CTL_EV_PROFILE_EV_OP)) {
			free(ops);
			return fail("replacing EVs while ONLINE");
		}
		printf("replaced EVs %d to %d by value + %d\n", EXP_DENY_FIRST,
		       EXP_DENY_LAST, EXP_ADD);
	}
	free(ops);

	ops = read_array(mctx, EXP_EVP_ID, &n);
	if (!ops)
		return fail("reading the EV array");
	for (i = 0; i < (uint32_t)n; i++) {
		v = i + 1;
		if (v >= EXP_DENY_FIRST && v <= EXP_DENY_LAST &&
		    (dev->opt_attr & MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE))
			v += EXP_ADD;
		if (ev_u32(&ops[i].ev) != exp_value(v) ||
		    ops[i].ev.port != IB_PORT)
			bad++;
	}
	printf("array: %d EVs, %d not as set\n", n, bad);
	free(ops);
	hold(o->hold);
	return down(mctx, EXP_EVP_ID, EXP_FMT_ID) || bad;
}

static int cmd_events(struct mrc_context *mctx,
		      const struct mrc_ctl_device_attr *dev,
		      const struct opts *o)
{
	struct mrc_ctl_ev_event ev[EVENT_BATCH];
	struct mrc_ctl_ev_profile_attr a = { 0 };
	struct timespec start, now;
	struct mrc_cq *cq;
	int got = 0, n, i;

	if (!(dev->opt_attr & MRC_CTL_OPT_CAP_EV_EVENT)) {
		fprintf(stderr, "mrc_ctl_ev: the device sends no EV events\n");
		return 1;
	}
	cq = mrc_ctl_create_ev_event_cq(mctx, EVENT_CQE, NULL, NULL, 0);
	if (!cq)
		return fail("creating the EV event CQ");
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	if (mrc_ctl_modify_ev_profile(mctx, o->evp_id, &a,
				      MRC_CTL_EV_PROFILE_EVENT_MASK)) {
		mrc_destroy_cq(cq);
		return fail("setting the event mask");
	}
	printf("listening: profile %" PRIu64 "\n", o->evp_id);
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		n = mrc_ctl_poll_ev_event(cq, EVENT_BATCH, ev);
		if (n < 0) {
			errno = -n;
			mrc_destroy_cq(cq);
			return fail("polling EV events");
		}
		for (i = 0; i < n; i++, got++)
			printf("event profile %" PRIu64 " ev 0x%08x port %u state %s drops %u\n",
			       ev[i].profile_id, ev_u32(&ev[i].ev),
			       ev[i].ev.port, state_name(ev[i].state),
			       ev[i].drop_count);
		fflush(stdout);
		if (o->count && got >= o->count)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (o->secs && now.tv_sec - start.tv_sec >= o->secs)
			break;
		if (!n)
			pause_ms(POLL_PAUSE_MS);
	}
	printf("%d events\n", got);
	if (mrc_destroy_cq(cq))
		return fail("destroying the EV event CQ");
	return o->count && got < o->count;
}

static int cmd_probe(struct mrc_context *mctx,
		     const struct mrc_ctl_device_attr *dev,
		     const struct opts *o)
{
	struct mrc_ctl_ep_req req[MAX_PROBES];
	struct mrc_ctl_ep_rsp rsp[MAX_PROBES];
	bool answered[MAX_PROBES] = { false };
	int n = 0, i, ret;

	if (!(dev->opt_attr & MRC_CTL_OPT_CAP_EP_OP_EV_PROBE)) {
		fprintf(stderr, "mrc_ctl_ev: the device sends no EV probes\n");
		return 1;
	}
	memset(req, 0, sizeof(req));
	for (i = 0; i < o->n_evs; i++) {
		req[i].req_id = (uint16_t)(i + 1);
		req[i].sgid = o->sgid;
		req[i].dgid = o->dgid;
		req[i].ev_fmt_mode = MRC_CTL_EV_FMT_MODE_STEV;
		req[i].req_ev = ev_of(o->evs[i], IB_PORT);
	}
	ret = mrc_ctl_ep_batch_send_wait(mctx, o->tc, MRC_CTL_EP_OP_EV_PROBE,
					 req, o->n_evs, o->wait_ms * 1000000u, rsp,
					 &n);
	if (ret && errno != ETIMEDOUT)
		return fail("sending the probes");
	for (i = 0; i < n; i++) {
		printf("rsp req %u port %u rtt %u ns adj-svc-time %u\n",
		       rsp[i].req_id, rsp[i].port, rsp[i].rtt,
		       rsp[i].adj_svc_time);
		if (rsp[i].req_id >= 1 && rsp[i].req_id <= o->n_evs)
			answered[rsp[i].req_id - 1] = true;
	}
	for (i = 0; i < o->n_evs; i++)
		if (!answered[i])
			printf("timeout req %d ev 0x%08x\n", i + 1, o->evs[i]);
	return n == o->n_evs ? 0 : 2;
}

static bool parse_gid(const char *s, union ibv_gid *gid)
{
	struct in_addr v4;

	memset(gid, 0, sizeof(*gid));
	if (inet_pton(AF_INET, s, &v4) == 1) {
		/* IPv4-mapped, as RoCE v2 GIDs of IPv4 addresses are. */
		gid->raw[10] = 0xff;
		gid->raw[11] = 0xff;
		memcpy(&gid->raw[12], &v4, sizeof(v4));
		return true;
	}
	return inet_pton(AF_INET6, s, gid->raw) == 1;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list)
		return NULL;
	for (i = 0; list[i] && !ctx; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (ctx && !name) {
			struct mrc_device_attr attr;
			int supported = 0;

			if (mrc_query_device(ctx, &attr, &supported) ||
			    !supported) {
				ibv_close_device(ctx);
				ctx = NULL;
			}
		}
	}
	ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "hold", required_argument, NULL, 'H' },
		{ "id", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "time", required_argument, NULL, 't' },
		{ "sgid", required_argument, NULL, 's' },
		{ "dgid", required_argument, NULL, 'D' },
		{ "ev", required_argument, NULL, 'e' },
		{ "dscp", required_argument, NULL, 'q' },
		{ "wait", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mrc_ctl_device_attr dev;
	struct opts o = { .wait_ms = PROBE_TIMEOUT_MS };
	struct mrc_context *mctx;
	struct ibv_context *ibv;
	const char *cmd;
	bool have_id = false;
	int c, ret;

	while ((c = getopt_long(argc, argv, "d:i:n:t:s:D:e:q:w:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			o.dev = optarg;
			break;
		case 'H':
			o.hold = optarg;
			break;
		case 'i':
			o.evp_id = strtoull(optarg, NULL, 0);
			have_id = true;
			break;
		case 'n':
			o.count = atoi(optarg);
			break;
		case 't':
			o.secs = atoi(optarg);
			break;
		case 's':
			o.have_sgid = parse_gid(optarg, &o.sgid);
			break;
		case 'D':
			o.have_dgid = parse_gid(optarg, &o.dgid);
			break;
		case 'e':
			if (o.n_evs == MAX_PROBES) {
				fprintf(stderr, "mrc_ctl_ev: at most %d EVs\n",
					MAX_PROBES);
				return 2;
			}
			o.evs[o.n_evs++] = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'q':
			o.tc = (uint8_t)atoi(optarg);
			break;
		case 'w':
			o.wait_ms = (unsigned int)strtoul(optarg, NULL, 0);
			if (!o.wait_ms || o.wait_ms > PROBE_TIMEOUT_MAX_MS) {
				fprintf(stderr, "mrc_ctl_ev: --wait is 1 to %d ms\n",
					PROBE_TIMEOUT_MAX_MS);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	/* GNU getopt moves the command past the options, wherever it was. */
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	cmd = argv[optind];
	if (strcmp(cmd, "gen") && strcmp(cmd, "exp") &&
	    strcmp(cmd, "events") && strcmp(cmd, "probe")) {
		fprintf(stderr, "mrc_ctl_ev: unknown command \"%s\"\n", cmd);
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "events") && !have_id) {
		fprintf(stderr, "mrc_ctl_ev: events needs -i EV_PROFILE_ID\n");
		return 2;
	}
	if (!strcmp(cmd, "probe") &&
	    (!o.have_sgid || !o.have_dgid || !o.n_evs)) {
		fprintf(stderr, "mrc_ctl_ev: probe needs -s, -D and -e\n");
		return 2;
	}

	ibv = open_dev(o.dev);
	if (!ibv) {
		fprintf(stderr, "mrc_ctl_ev: no MRC device %s\n",
			o.dev ? o.dev : "found");
		return 1;
	}
	if (mrc_ctl_query_device(ibv, &dev)) {
		ret = fail("mrc_ctl_query_device");
		goto out_close;
	}
	mctx = mrc_create_context(ibv, NULL);
	if (!mctx) {
		ret = fail("mrc_create_context");
		goto out_close;
	}
	if (!strcmp(cmd, "gen"))
		ret = cmd_gen(mctx, &dev, &o);
	else if (!strcmp(cmd, "exp"))
		ret = cmd_exp(mctx, &dev, &o);
	else if (!strcmp(cmd, "events"))
		ret = cmd_events(mctx, &dev, &o);
	else
		ret = cmd_probe(mctx, &dev, &o);
	if (mrc_destroy_context(mctx))
		ret = fail("mrc_destroy_context");
out_close:
	ibv_close_device(ibv);
	return ret;
}
