// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: the EV array of an EV profile (ev), endpoint operations (ep) and
 * the event monitor (monitor).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mrcctl.h"

/* Request sizes of "ev show ... array" without "size". */
#define EV_ARRAY_FIRST_SIZE	16
#define EV_ARRAY_TRIES		3
/* More than any device's ep-max-reqs; the kernel refuses too many. */
#define EP_MAX_REQS_CLI		256
/* ep: how long to wait for the responses unless "timeout" says (1 s). */
#define EP_DEFAULT_TIMEOUT_NS	1000000000u
/* EVs of up to this many bytes default to the udp format mode. */
#define EP_UDP_EV_BYTES		2

static void out_ev_entry(const struct nlattr *e)
{
	struct genl_tb t;

	genl_tb_nest(&t, e);
	out_obj_start();
	OUT_U32(&t, MRC_A_EV_ENTRY_INDEX, "index");
	if (t.a[MRC_A_EV_ENTRY_VALUE])
		out_bytes("value", genl_attr_data(t.a[MRC_A_EV_ENTRY_VALUE]),
			  genl_attr_len(t.a[MRC_A_EV_ENTRY_VALUE]));
	OUT_U32(&t, MRC_A_EV_ENTRY_PORT, "port");
	OUT_ENUM(&t, MRC_A_EV_ENTRY_STATE, "state", &ev_state_names);
	if (t.a[MRC_A_EV_ENTRY_FLAGS])
		out_enum("flags", &ev_op_flags_names,
			 genl_attr_u32(t.a[MRC_A_EV_ENTRY_FLAGS]));
	out_obj_end();
}

void out_ev_entries(const struct genl_tb *t, uint16_t type)
{
	const struct nlattr *e = NULL;

	out_arr_start("ev");
	while ((e = genl_tb_next(t, type, e)))
		out_ev_entry(e);
	out_arr_end();
}

/* Each EV of a reply as an object of the top list. */
static int ev_list_cb(const struct genl_tb *t, void *arg)
{
	const struct nlattr *e = NULL;

	(void)arg;
	while ((e = genl_tb_next(t, MRC_A_EV_PROFILE_EV, e)))
		out_ev_entry(e);
	return 0;
}

/* "DEV id ID" of every ev command. */
static void ev_target(struct args *a, struct genl_msg *m, uint8_t cmd,
		      uint16_t flags, const char *what)
{
	const char *dev = args_next(a);

	if (!dev)
		usage_err("%s needs a device", what);
	msg_init(m, cmd, flags);
	put_dev(m, dev);
	genl_put_u64(m, MRC_A_EV_PROFILE_ID, args_id(a, what));
}

/*
 * query-array with array-size @size; with @retry, again with the size the
 * kernel says it needs (E2BIG and its cookie).
 */
static int ev_array(struct genl_msg *m, uint32_t size, bool retry)
{
	struct genl_msg copy = *m;
	struct genl_err e;
	int tries;

	for (tries = 0; tries < EV_ARRAY_TRIES; tries++) {
		/* Re-send the same request with another array-size. */
		copy.buf = malloc(m->cap);
		if (!copy.buf) {
			fprintf(stderr, "mrcctl: out of memory\n");
			return EXIT_FAILED;
		}
		memcpy(copy.buf, m->buf, m->len);
		genl_put_u32(&copy, MRC_A_EV_PROFILE_ARRAY_SIZE, size);
		out_list_start();
		if (!nl_request(&copy, ev_list_cb, NULL, &e)) {
			out_list_end();
			genl_msg_free(&copy);
			genl_msg_free(m);
			return EXIT_OK;
		}
		out_list_abort();
		genl_msg_free(&copy);
		copy = *m;
		if (!retry || e.err != E2BIG || !e.has_cookie ||
		    e.cookie <= size)
			break;
		size = e.cookie;
	}
	nl_perror("ev show array", &e);
	genl_msg_free(m);
	return EXIT_FAILED;
}

static int ev_show(struct args *a)
{
	uint32_t size = EV_ARRAY_FIRST_SIZE;
	bool array = false, sized = false;
	struct genl_msg m;
	int ret;

	ev_target(a, &m, MRC_CMD_EV_GET, NLM_F_DUMP, "ev show");
	while (args_more(a)) {
		if (args_is(a, "array")) {
			array = true;
		} else if (args_is(a, "size") || args_is(a, "array-size")) {
			size = args_u32(a, "size");
			sized = true;
		} else {
			usage_err("unexpected \"%s\"", args_peek(a));
		}
	}
	if (sized && !array)
		usage_err("\"size\" goes with \"array\"");
	if (array) {
		struct nlmsghdr *h = (struct nlmsghdr *)m.buf;
		unsigned char *cmd = m.buf + NLMSG_HDRLEN;

		/* The same device and id, as a query-array get. */
		h->nlmsg_flags &= (uint16_t)~NLM_F_DUMP;
		*cmd = MRC_CMD_EV_PROFILE_GET;
		genl_put_u32(&m, MRC_A_EV_PROFILE_EV_OP, MRC_EV_OP_QUERY_ARRAY);
		return ev_array(&m, size, !sized);
	}
	ret = nl_show("ev show", &m, ev_list_cb, NULL);
	return ret;
}

/*
 * The entries of an EV operation: "ev VALUE" or "index N" starts one;
 * "port", "new", "new-port", "state", "all-copies" add to it.  @replace
 * allows the replacement keywords.
 */
static unsigned int ev_entries(struct args *a, struct genl_msg *m, bool replace,
			       int state)
{
	unsigned char val[MRC_EV_MAX_BYTES];
	unsigned int n = 0;
	bool open = false;
	size_t len;

	while (args_more(a)) {
		if (args_is(a, "ev") || (replace && args_is(a, "value")) ||
		    (replace && !strcmp(args_peek(a), "index"))) {
			if (open)
				genl_nest_end(m);
			genl_nest_start(m, MRC_A_EV_PROFILE_EV);
			open = true;
			n++;
			if (args_is(a, "index")) {
				genl_put_u32(m, MRC_A_EV_ENTRY_INDEX,
					args_u32(a, "index"));
			} else {
				len = args_ev(a, "ev", val);
				genl_put_bin(m, MRC_A_EV_ENTRY_VALUE, val, len);
			}
			if (state >= 0)
				genl_put_u32(m, MRC_A_EV_ENTRY_STATE,
					(uint32_t)state);
			continue;
		}
		if (!open)
			usage_err("\"%s\": an entry starts with \"ev VALUE\"%s",
				  args_peek(a), replace ? " or \"index N\"" : "");
		if (args_is(a, "port")) {
			genl_put_u32(m, MRC_A_EV_ENTRY_PORT, args_u32(a, "port"));
		} else if (replace && args_is(a, "new")) {
			len = args_ev(a, "new", val);
			genl_put_bin(m, MRC_A_EV_ENTRY_NEW_VALUE, val, len);
		} else if (replace && args_is(a, "new-port")) {
			genl_put_u32(m, MRC_A_EV_ENTRY_NEW_PORT,
				args_u32(a, "new-port"));
		} else if (replace && args_is(a, "state")) {
			genl_put_u32(m, MRC_A_EV_ENTRY_STATE,
				args_enum(a, "state", &ev_state_names));
		} else if (replace && args_is(a, "all-copies")) {
			genl_put_u32(m, MRC_A_EV_ENTRY_FLAGS,
				MRC_EV_OP_FLAGS_ALL_COPIES);
		} else {
			usage_err("unexpected \"%s\"", args_peek(a));
		}
	}
	if (open)
		genl_nest_end(m);
	if (!n)
		usage_err("no EV given (\"ev VALUE port PORT\")");
	return n;
}

static int ev_query(struct args *a)
{
	struct genl_msg m;
	int ret;

	ev_target(a, &m, MRC_CMD_EV_PROFILE_GET, 0, "ev query");
	genl_put_u32(&m, MRC_A_EV_PROFILE_EV_OP, MRC_EV_OP_QUERY_STATE);
	ev_entries(a, &m, false, -1);
	ret = nl_show("ev query", &m, ev_list_cb, NULL);
	return ret;
}

static int ev_set(struct args *a, const char *what, uint32_t op, int state)
{
	struct genl_msg m;

	ev_target(a, &m, MRC_CMD_EV_PROFILE_SET, 0, what);
	genl_put_u32(&m, MRC_A_EV_PROFILE_EV_OP, op);
	ev_entries(a, &m, op == MRC_EV_OP_REPLACE, state);
	return nl_run(what, &m, NULL, NULL);
}

static int ev_replace(struct args *a)
{
	return ev_set(a, "ev replace", MRC_EV_OP_REPLACE, -1);
}

static int ev_deny(struct args *a)
{
	return ev_set(a, "ev deny", MRC_EV_OP_MODIFY_STATE,
		      MRC_EV_STATE_DENIED);
}

static int ev_allow(struct args *a)
{
	return ev_set(a, "ev allow", MRC_EV_OP_MODIFY_STATE,
		      MRC_EV_STATE_GOOD);
}

static const struct cmd ev_cmds[] = {
	{ { "show", "list" }, ev_show,
	  "DEV id ID                 (ev-get dump)\n"
	  "DEV id ID array [ size N ] (query-array)" },
	{ { "query", NULL }, ev_query,
	  "DEV id ID EV ...          (query-state)" },
	{ { "replace", NULL }, ev_replace, "DEV id ID REPLACE ..." },
	{ { "deny", NULL }, ev_deny,
	  "DEV id ID EV ...           (modify-state denied)" },
	{ { "allow", NULL }, ev_allow,
	  "DEV id ID EV ...          (modify-state good)" },
};

const struct obj obj_ev = {
	.id = { "ev", NULL },
	.summary = "the EVs of an EV profile: show, query, replace, deny, allow",
	.cmds = ev_cmds,
	.n_cmds = ARRAY_SIZE(ev_cmds),
	.notes =
"EV      := ev VALUE port PORT\n"
"REPLACE := { EV | index SLOT } new VALUE new-port PORT\n"
"           [ state { good | denied } ] [ all-copies ]\n"
"VALUE is hex (0x optional), 1 to 32 bytes, most significant first.\n"
"Without \"size\", \"array\" sizes its request itself (again with the\n"
"size the kernel asks for); with it, a too small size fails with E2BIG\n"
"and the needed size.\n",
};

/* ---- ep -------------------------------------------------------------------------- */

struct ep_req {
	uint16_t id;
	bool id_set;
	bool sgid_set, dgid_set;
	unsigned char sgid[MRC_GID_LEN], dgid[MRC_GID_LEN];
	unsigned char ev[MRC_EV_MAX_BYTES];
	size_t ev_len;
	uint32_t mode;		/* 0: by the EV's length */
	uint32_t port;
	uint32_t status;
	bool status_set;
};

static int ep_cb(const struct genl_tb *t, void *arg)
{
	const struct nlattr *r = NULL;
	struct genl_tb rt;

	(void)arg;
	while ((r = genl_tb_next(t, MRC_A_EP_RSP, r))) {
		genl_tb_nest(&rt, r);
		out_obj_start();
		if (rt.a[MRC_A_EP_RSP_REQ_ID])
			out_u64("req-id", genl_attr_u16(rt.a[MRC_A_EP_RSP_REQ_ID]));
		out_bool("timed-out", rt.a[MRC_A_EP_RSP_TIMED_OUT] != NULL);
		OUT_U32(&rt, MRC_A_EP_RSP_PORT, "port");
		OUT_U32(&rt, MRC_A_EP_RSP_RTT, "rtt");
		if (rt.a[MRC_A_EP_RSP_ADJ_SVC_TIME])
			out_u64("adj-svc-time",
				genl_attr_u8(rt.a[MRC_A_EP_RSP_ADJ_SVC_TIME]));
		out_obj_end();
	}
	return 0;
}

static void ep_put_req(struct genl_msg *m, const struct ep_req *r, uint32_t op)
{
	uint32_t mode = r->mode;

	if (!r->sgid_set || !r->dgid_set || !r->ev_len || !r->port)
		usage_err("request %u needs sgid, dgid, port and ev", r->id);
	if (op == MRC_EP_OP_TYPE_PORT_STATUS_UPDATE && !r->status_set)
		usage_err("request %u needs \"status PORTMASK\"", r->id);
	if (!mode)
		mode = r->ev_len <= EP_UDP_EV_BYTES ? MRC_EV_FMT_MODE_UDP :
						      MRC_EV_FMT_MODE_STEV;
	genl_nest_start(m, MRC_A_EP_REQ);
	genl_put_u16(m, MRC_A_EP_REQ_REQ_ID, r->id);
	genl_put_bin(m, MRC_A_EP_REQ_SGID, r->sgid, MRC_GID_LEN);
	genl_put_bin(m, MRC_A_EP_REQ_DGID, r->dgid, MRC_GID_LEN);
	genl_put_u32(m, MRC_A_EP_REQ_EV_FMT_MODE, mode);
	genl_put_bin(m, MRC_A_EP_REQ_EV_VALUE, r->ev, r->ev_len);
	genl_put_u32(m, MRC_A_EP_REQ_PORT, r->port);
	if (r->status_set)
		genl_put_u32(m, MRC_A_EP_REQ_PORT_STATUS, r->status);
	genl_nest_end(m);
}

static int ep_op(struct args *a, uint32_t op, const char *what)
{
	static struct ep_req reqs[EP_MAX_REQS_CLI];
	const char *dev = args_next(a);
	uint32_t timeout = EP_DEFAULT_TIMEOUT_NS;
	unsigned int n = 1, i;
	struct ep_req *r = &reqs[0];
	struct genl_msg m;
	int ret;

	if (!dev)
		usage_err("%s needs a device", what);
	msg_init(&m, MRC_CMD_EP_OP, 0);
	put_dev(&m, dev);
	genl_put_u32(&m, MRC_A_EP_OP_TYPE, op);
	r->id = 1;
	while (args_more(a)) {
		if (args_is(a, "timeout")) {
			timeout = args_u32(a, "timeout");
		} else if (args_is(a, "dscp")) {
			genl_put_u32(&m, MRC_A_EP_DSCP, args_u32(a, "dscp"));
		} else if (args_is(a, "req")) {
			if (n == EP_MAX_REQS_CLI)
				usage_err("more than %d requests",
					  EP_MAX_REQS_CLI);
			reqs[n] = *r;
			r = &reqs[n++];
			r->id = (uint16_t)n;
			r->id_set = false;
		} else if (args_is(a, "id") || args_is(a, "req-id")) {
			r->id = (uint16_t)args_u64(a, "id", UINT16_MAX);
			r->id_set = true;
		} else if (args_is(a, "sgid")) {
			args_gid(a, "sgid", r->sgid);
			r->sgid_set = true;
		} else if (args_is(a, "dgid")) {
			args_gid(a, "dgid", r->dgid);
			r->dgid_set = true;
		} else if (args_is(a, "port")) {
			r->port = args_u32(a, "port");
		} else if (args_is(a, "ev")) {
			r->ev_len = args_ev(a, "ev", r->ev);
		} else if (args_is(a, "mode")) {
			r->mode = args_enum(a, "mode", &fmt_mode_names);
		} else if (args_is(a, "status") ||
			   args_is(a, "port-status")) {
			r->status = args_u32(a, "status");
			r->status_set = true;
		} else {
			usage_err("unknown %s attribute \"%s\"", what,
				  args_peek(a));
		}
	}
	genl_put_u32(&m, MRC_A_EP_TIMEOUT, timeout);
	for (i = 0; i < n; i++)
		ep_put_req(&m, &reqs[i], op);
	ret = nl_show(what, &m, ep_cb, NULL);
	return ret;
}

static int ep_probe(struct args *a)
{
	return ep_op(a, MRC_EP_OP_TYPE_EV_PROBE, "ep probe");
}

static int ep_port_status(struct args *a)
{
	return ep_op(a, MRC_EP_OP_TYPE_PORT_STATUS_UPDATE, "ep port-status");
}

static const struct cmd ep_cmds[] = {
	{ { "probe", "ev-probe" }, ep_probe,
	  "DEV [ timeout NS ] [ dscp D ] REQ [ req REQ ] ..." },
	{ { "port-status", "port-status-update" }, ep_port_status,
	  "DEV [ timeout NS ] [ dscp D ] REQ\n"
	  "            [ req REQ ] ..." },
};

const struct obj obj_ep = {
	.id = { "ep", "endpoint" },
	.summary = "endpoint operations: EV probe, Port Status Update",
	.cmds = ep_cmds,
	.n_cmds = ARRAY_SIZE(ep_cmds),
	.notes =
"REQ := [ id N ] sgid GID dgid GID port PORT ev VALUE\n"
"       [ mode { udp | stev | srv6 } ] [ status PORTMASK ]\n"
"Each \"req\" starts another request that starts as a copy of the one\n"
"before; ids default to 1, 2, ...  GIDs are IPv6 or IPv4 addresses.  The\n"
"EV's mode defaults to udp for values of up to 2 bytes, else stev.\n"
"status (port-status) is the mask of our ports that are down (bit N for\n"
"port N).  timeout defaults to 1000000000 (1 s).  A request not answered\n"
"in time prints as timed-out.\n",
};

/* ---- monitor --------------------------------------------------------------------- */

#define NSEC_PER_SEC	1000000000ULL

struct monitor {
	unsigned long count;	/* events to print; 0: no limit */
	unsigned long seen;
};

/* With -t: when the event arrived, as "time-ns" or a "[sec.ns]" prefix. */
static void out_event_time(const struct timespec *ts)
{
	if (!opt_timestamp)
		return;
	if (opt_json)
		out_u64("time-ns", (uint64_t)ts->tv_sec * NSEC_PER_SEC +
				   (uint64_t)ts->tv_nsec);
	else
		out_title("[%lld.%09ld]", (long long)ts->tv_sec, ts->tv_nsec);
}

/* A CLOCK_REALTIME time: nanoseconds in JSON, "sec.ns" in text. */
static void out_time_ns(const char *key, uint64_t ns)
{
	char buf[32];

	if (opt_json) {
		out_u64(key, ns);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu.%09llu",
		 (unsigned long long)(ns / NSEC_PER_SEC),
		 (unsigned long long)(ns % NSEC_PER_SEC));
	out_str(key, buf);
}

int print_event(uint8_t cmd, const struct genl_tb *t, void *arg)
{
	struct monitor *mon = arg;
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	if (cmd == MRC_CMD_EV_EVENT) {
		out_obj_start();
		out_event_time(&now);
		if (opt_json)
			out_str("event", "ev-event");
		else
			out_title("ev-event");
		out_dev_head(t, NULL, 0);
		OUT_U64(t, MRC_A_EV_EVENT_PROFILE_ID, "profile-id");
		if (t->a[MRC_A_EV_EVENT_VALUE])
			out_bytes("value", genl_attr_data(t->a[MRC_A_EV_EVENT_VALUE]),
				  genl_attr_len(t->a[MRC_A_EV_EVENT_VALUE]));
		OUT_U32(t, MRC_A_EV_EVENT_PORT, "port");
		OUT_ENUM(t, MRC_A_EV_EVENT_STATE, "state", &ev_state_names);
		OUT_ENUM(t, MRC_A_EV_EVENT_PREV_STATE, "prev-state",
			 &ev_state_names);
		OUT_ENUM(t, MRC_A_EV_EVENT_REASON, "reason", &ev_reason_names);
		OUT_U32(t, MRC_A_EV_EVENT_QPN, "qpn");
		OUT_U32(t, MRC_A_EV_EVENT_EV_USABLE, "ev-usable");
		OUT_U32(t, MRC_A_EV_EVENT_DROP_COUNT, "drop-count");
		if (t->a[MRC_A_EV_EVENT_TIMESTAMP])
			out_time_ns("timestamp",
				    genl_attr_u64(t->a[MRC_A_EV_EVENT_TIMESTAMP]));
		out_obj_end();
	} else if (cmd == MRC_CMD_PEER_STATUS_EVENT) {
		out_obj_start();
		out_event_time(&now);
		if (opt_json)
			out_str("event", "peer-status-event");
		else
			out_title("peer-status-event");
		out_dev_head(t, NULL, 0);
		OUT_U32(t, MRC_A_PEER_STATUS_PORT, "port");
		if (t->a[MRC_A_PEER_STATUS_PEER_GID])
			out_gid("peer-gid",
				genl_attr_data(t->a[MRC_A_PEER_STATUS_PEER_GID]),
				genl_attr_len(t->a[MRC_A_PEER_STATUS_PEER_GID]));
		if (t->a[MRC_A_PEER_STATUS_PORT_STATUS])
			out_hex("port-status",
				genl_attr_u32(t->a[MRC_A_PEER_STATUS_PORT_STATUS]));
		out_obj_end();
	} else {
		return 0;
	}
	mon->seen++;
	return mon->count && mon->seen >= mon->count ? 1 : 0;
}

static void monitor_join(const char *name)
{
	int id = nl_mcgrp(name);

	if (id < 0) {
		fprintf(stderr,
			"Error: the kernel's \"%s\" family has no multicast group \"%s\"\n",
			MRC_FAMILY_NAME, name);
		exit(EXIT_FAILED);
	}
	nl_join(id);
}

static int monitor(struct args *a)
{
	struct monitor mon = { 0 };
	bool ev = true, ep = true;

	while (args_more(a)) {
		if (args_is(a, "ev")) {
			ev = true;
			ep = false;
		} else if (args_is(a, "ep")) {
			ep = true;
			ev = false;
		} else if (args_is(a, "all")) {
			ev = ep = true;
		} else if (args_is(a, "count")) {
			mon.count = (unsigned long)args_u64(a, "count",
							    UINT32_MAX);
		} else {
			return obj_usage(&obj_monitor, args_peek(a));
		}
	}
	nl_open();
	if (ev)
		monitor_join(MRC_MCGRP_EV);
	if (ep)
		monitor_join(MRC_MCGRP_EP);
	/* Scripts wait for this line before they cause events. */
	fprintf(stderr, "mrcctl: monitoring%s%s\n", ev ? " ev" : "",
		ep ? " ep" : "");
	out_set_stream(true);
	return nl_listen(print_event, &mon);
}

const struct obj obj_monitor = {
	.id = { "monitor", "mon" },
	.summary = "print EV events and peer status events as they come",
	.run = monitor,
	.usage = "[ ev | ep | all ] [ count N ]",
	.notes =
"Prints EV events (group ev) and peer status events (group ep); with -j\n"
"one JSON object per line.  count N: exit after N events.  Needs\n"
"CAP_NET_ADMIN.\n",
};
