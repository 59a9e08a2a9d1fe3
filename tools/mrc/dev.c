// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: devices (dev), ports (port) and QPs (qp).
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

#define NAME_BUF	(MRC_DEV_NAME_MAX + 1)

bool split_dev(const char *s, char *dev, size_t size, uint32_t *n)
{
	const char *slash = strrchr(s, '/');
	unsigned long v;
	char *end;
	size_t len;

	len = slash ? (size_t)(slash - s) : strlen(s);
	if (!len || len >= size)
		usage_err("bad device \"%s\"", s);
	memcpy(dev, s, len);
	dev[len] = '\0';
	if (!slash)
		return false;
	v = strtoul(slash + 1, &end, 0);
	if (end == slash + 1 || *end || v > UINT32_MAX)
		usage_err("bad number after \"/\" in \"%s\"", s);
	*n = (uint32_t)v;
	return true;
}

void out_dev_head(const struct genl_tb *t, const char *nkey, uint16_t ntype)
{
	char name[NAME_BUF];

	genl_attr_str(t->a[ATTR_DEV_NAME], name, sizeof(name));
	if (!name[0])
		snprintf(name, sizeof(name), "%u", genl_attr_u32(t->a[ATTR_DEV_INDEX]));
	if (!opt_json) {
		if (nkey)
			out_title("%s/%u:", name, genl_attr_u32(t->a[ntype]));
		else
			out_title("%s:", name);
		return;
	}
	if (t->a[ATTR_DEV_INDEX])
		out_u64("dev-index", genl_attr_u32(t->a[ATTR_DEV_INDEX]));
	if (t->a[ATTR_DEV_NAME])
		out_str("dev-name", name);
	if (nkey && t->a[ntype])
		out_u64(nkey, genl_attr_u32(t->a[ntype]));
}

/* ---- dev ---------------------------------------------------------------------- */

static void out_netdevs(const struct genl_tb *t)
{
	const struct nlattr *a = NULL;
	char name[IF_NAMESIZE];

	if (!t->a[MRC_A_DEVICE_NETDEV_IFINDEX])
		return;
	out_vals_start("netdev");
	while ((a = genl_tb_next(t, MRC_A_DEVICE_NETDEV_IFINDEX, a))) {
		if (if_indextoname(genl_attr_u32(a), name))
			out_val_str(name);
		else
			out_val_str("?");
	}
	out_vals_end();
	if (!opt_json)
		return;
	out_vals_start("netdev-ifindex");
	while ((a = genl_tb_next(t, MRC_A_DEVICE_NETDEV_IFINDEX, a)))
		out_val_u64(genl_attr_u32(a));
	out_vals_end();
}

static void out_algorithms(const struct genl_tb *t)
{
	const struct nlattr *a = NULL;
	char name[MRC_ALGO_NAME_MAX + 1];
	struct genl_tb n;

	if (!t->a[MRC_A_DEVICE_CC_ALGORITHM])
		return;
	out_vals_start("cc-algorithm");
	while ((a = genl_tb_next(t, MRC_A_DEVICE_CC_ALGORITHM, a))) {
		genl_tb_nest(&n, a);
		out_val_str(genl_attr_str(n.a[MRC_A_CC_ALGORITHM_NAME], name,
				     sizeof(name)));
	}
	out_vals_end();
}

static int dev_cb(const struct genl_tb *t, void *arg)
{
	(void)arg;
	out_obj_start();
	out_dev_head(t, NULL, 0);
	if (!opt_json)
		OUT_U32(t, MRC_A_DEVICE_DEV_INDEX, "dev-index");
	OUT_ENUM(t, MRC_A_DEVICE_PROTOCOL_VERSION, "protocol-version",
		 &proto_names);
	if (t->a[MRC_A_DEVICE_PORT_MASK])
		out_hex("port-mask", genl_attr_u32(t->a[MRC_A_DEVICE_PORT_MASK]));
	out_netdevs(t);
	out_nl();
	OUT_U64(t, MRC_A_DEVICE_DEFAULT_EV_PROFILE, "default-ev-profile");
	OUT_U64(t, MRC_A_DEVICE_DEFAULT_CC_PROFILE, "default-cc-profile");
	OUT_U32(t, MRC_A_DEVICE_EV_SKIP_HOLD_US, "ev-skip-hold-us");
	OUT_U64(t, MRC_A_DEVICE_EV_EVENT_DROPS, "ev-event-drops");
	out_nl();
	OUT_ENUM(t, MRC_A_DEVICE_CAPS, "caps", &caps_names);
	out_nl();
	OUT_U32(t, MRC_A_DEVICE_EV_MAX_FMT_PROFILES, "ev-max-fmt-profiles");
	OUT_U32(t, MRC_A_DEVICE_EV_MAX_PROFILES, "ev-max-profiles");
	OUT_U32(t, MRC_A_DEVICE_CC_MAX_PROFILES, "cc-max-profiles");
	OUT_U32(t, MRC_A_DEVICE_EV_MAX_COUNT, "ev-max-count");
	OUT_U32(t, MRC_A_DEVICE_EV_FREE_COUNT, "ev-free-count");
	OUT_U32(t, MRC_A_DEVICE_EV_MAX_COUNT_PROFILE, "ev-max-count-profile");
	out_nl();
	OUT_U32(t, MRC_A_DEVICE_EV_COUNT_ALIGN, "ev-count-align");
	OUT_U32(t, MRC_A_DEVICE_EV_MAX_WIDTH, "ev-max-width");
	OUT_U32(t, MRC_A_DEVICE_EV_OP_MAX_ENTRIES, "ev-op-max-entries");
	OUT_U32(t, MRC_A_DEVICE_EP_MAX_REQS, "ep-max-reqs");
	out_nl();
	OUT_ENUM(t, MRC_A_DEVICE_EV_FMT_MODES, "ev-fmt-modes", &fmt_mode_names);
	OUT_ENUM(t, MRC_A_DEVICE_EV_MODES, "ev-modes", &ev_mode_names);
	out_algorithms(t);
	out_obj_end();
	return 0;
}

static int dev_show(struct args *a)
{
	const char *dev = args_next(a);
	struct genl_msg m;
	int ret;

	if (args_more(a))
		usage_err("unexpected \"%s\"", args_peek(a));
	msg_init(&m, MRC_CMD_DEV_GET, dev ? 0 : NLM_F_DUMP);
	if (dev)
		put_dev(&m, dev);
	ret = nl_show("dev show", &m, dev_cb, NULL);
	return ret;
}

static int dev_set(struct args *a)
{
	const char *dev = args_next(a);
	struct genl_msg m;

	if (!dev)
		usage_err("dev set needs a device");
	msg_init(&m, MRC_CMD_DEV_SET, 0);
	put_dev(&m, dev);
	while (args_more(a)) {
		if (args_is(a, "default-ev-profile"))
			genl_put_u64(&m, MRC_A_DEVICE_DEFAULT_EV_PROFILE,
				args_u64(a, "default-ev-profile", UINT64_MAX));
		else if (args_is(a, "default-cc-profile"))
			genl_put_u64(&m, MRC_A_DEVICE_DEFAULT_CC_PROFILE,
				args_u64(a, "default-cc-profile", UINT64_MAX));
		else if (args_is(a, "skip-hold-us") ||
			 args_is(a, "ev-skip-hold-us"))
			genl_put_u32(&m, MRC_A_DEVICE_EV_SKIP_HOLD_US,
				args_u32(a, "skip-hold-us"));
		else
			usage_err("unknown dev set attribute \"%s\"",
				  args_peek(a));
	}
	return nl_run("dev set", &m, NULL, NULL);
}

static int dev_add_cb(const struct genl_tb *t, void *arg)
{
	(void)arg;
	out_obj_start();
	out_dev_head(t, NULL, 0);
	if (!opt_json)
		OUT_U32(t, MRC_A_DEVICE_DEV_INDEX, "dev-index");
	out_obj_end();
	return 0;
}

static int dev_add(struct args *a)
{
	const char *name = args_next(a);
	unsigned int n = 0;
	struct genl_msg m;
	int ret;

	if (!name)
		usage_err("dev add needs a name");
	msg_init(&m, MRC_CMD_DEV_NEW, 0);
	genl_put_str(&m, MRC_A_DEVICE_DEV_NAME, name);
	while (args_more(a)) {
		const char *ifname;
		unsigned int ifindex;

		if (!args_is(a, "netdev"))
			usage_err("unknown dev add attribute \"%s\"",
				  args_peek(a));
		ifname = args_val(a, "netdev");
		ifindex = if_nametoindex(ifname);
		if (!ifindex)
			usage_err("no netdev \"%s\"", ifname);
		genl_put_u32(&m, MRC_A_DEVICE_NETDEV_IFINDEX, ifindex);
		n++;
	}
	if (!n)
		usage_err("dev add needs at least one netdev");
	ret = nl_show("dev add", &m, dev_add_cb, NULL);
	return ret;
}

static int dev_del(struct args *a)
{
	const char *dev = args_next(a);
	struct genl_msg m;

	if (!dev)
		usage_err("dev del needs a device");
	if (args_more(a))
		usage_err("unexpected \"%s\"", args_peek(a));
	msg_init(&m, MRC_CMD_DEV_DEL, 0);
	put_dev(&m, dev);
	return nl_run("dev del", &m, NULL, NULL);
}

static const struct cmd dev_cmds[] = {
	{ { "show", "list" }, dev_show, "[ DEV ]" },
	{ { "set", NULL }, dev_set,
	  "DEV [ default-ev-profile ID ] [ default-cc-profile ID ]\n"
	  "        [ skip-hold-us US ]" },
	{ { "add", "new" }, dev_add, "NAME netdev IFNAME [ netdev IFNAME ... ]" },
	{ { "del", "delete" }, dev_del, "DEV" },
};

const struct obj obj_dev = {
	.id = { "dev", "device" },
	.summary = "MRC devices: limits, default profiles, multi-plane create/delete",
	.cmds = dev_cmds,
	.n_cmds = ARRAY_SIZE(dev_cmds),
	.dflt = &dev_cmds[0],
	.notes =
"dev add makes one device with a port per netdev, in order (port 1 first).\n"
"A default profile 0 is the built-in behaviour.\n",
};

/* ---- port ---------------------------------------------------------------------- */

static int port_cb(const struct genl_tb *t, void *arg)
{
	char ifname[IF_NAMESIZE + 1];

	(void)arg;
	out_obj_start();
	out_dev_head(t, "port-index", MRC_A_PORT_PORT_INDEX);
	if (t->a[MRC_A_PORT_IFNAME])
		out_str("ifname", genl_attr_str(t->a[MRC_A_PORT_IFNAME], ifname,
					   sizeof(ifname)));
	OUT_U32(t, MRC_A_PORT_IFINDEX, "ifindex");
	OUT_ENUM(t, MRC_A_PORT_ADMIN_STATE, "admin-state", &admin_state_names);
	OUT_ENUM(t, MRC_A_PORT_STATE, "state", &port_state_names);
	out_obj_end();
	return 0;
}

static int port_show(struct args *a)
{
	const char *arg = args_next(a);
	char dev[NAME_BUF];
	uint32_t port = 0;
	bool one = false;
	struct genl_msg m;
	int ret;

	if (args_more(a))
		usage_err("unexpected \"%s\"", args_peek(a));
	if (arg)
		one = split_dev(arg, dev, sizeof(dev), &port);
	msg_init(&m, MRC_CMD_PORT_GET, one ? 0 : NLM_F_DUMP);
	if (arg)
		put_dev(&m, dev);
	if (one)
		genl_put_u32(&m, MRC_A_PORT_PORT_INDEX, port);
	ret = nl_show("port show", &m, port_cb, NULL);
	return ret;
}

static int port_set(struct args *a)
{
	const char *arg = args_next(a);
	char dev[NAME_BUF];
	uint32_t port = 0;
	struct genl_msg m;

	if (!arg || !split_dev(arg, dev, sizeof(dev), &port))
		usage_err("port set needs DEV/PORT");
	msg_init(&m, MRC_CMD_PORT_SET, 0);
	put_dev(&m, dev);
	genl_put_u32(&m, MRC_A_PORT_PORT_INDEX, port);
	while (args_more(a)) {
		if (args_is(a, "admin") || args_is(a, "admin-state")) {
			const char *v = args_val(a, "admin");
			uint32_t st;

			if (!strcmp(v, "up"))
				st = MRC_PORT_ADMIN_STATE_ENABLED;
			else if (!strcmp(v, "down"))
				st = MRC_PORT_ADMIN_STATE_DISABLED;
			else if (!parse_enum(&admin_state_names, v, &st))
				usage_err("bad admin state \"%s\" (up|down)", v);
			genl_put_u32(&m, MRC_A_PORT_ADMIN_STATE, st);
		} else {
			usage_err("unknown port set attribute \"%s\"",
				  args_peek(a));
		}
	}
	return nl_run("port set", &m, NULL, NULL);
}

static const struct cmd port_cmds[] = {
	{ { "show", "list" }, port_show, "[ DEV[/PORT] ]" },
	{ { "set", NULL }, port_set, "DEV/PORT admin { up | down }" },
};

const struct obj obj_port = {
	.id = { "port", "link" },
	.summary = "ports (one per plane / netdev): admin state",
	.cmds = port_cmds,
	.n_cmds = ARRAY_SIZE(port_cmds),
	.dflt = &port_cmds[0],
	.notes =
"An admin-down (disabled) port carries no traffic and reads as DOWN.\n",
};

/* ---- qp ------------------------------------------------------------------------ */

/* One EV of a QP: its slot, its state there, the evidence against it. */
static void out_qp_ev(const struct nlattr *e)
{
	struct genl_tb t;

	genl_tb_nest(&t, e);
	out_obj_start();
	OUT_U32(&t, MRC_A_QP_EV_INDEX, "index");
	OUT_ENUM(&t, MRC_A_QP_EV_STATE, "state", &ev_state_names);
	OUT_U32(&t, MRC_A_QP_EV_SCORE, "score");
	out_obj_end();
}

static int qp_cb(const struct genl_tb *t, void *arg)
{
	const struct nlattr *e = NULL;

	(void)arg;
	out_obj_start();
	out_dev_head(t, "qpn", MRC_A_QP_QPN);
	OUT_U64(t, MRC_A_QP_EV_PROFILE_ID, "ev-profile-id");
	OUT_U64(t, MRC_A_QP_CC_PROFILE_ID, "cc-profile-id");
	out_bool("explicit", t->a[MRC_A_QP_EXPLICIT] != NULL);
	if (t->a[MRC_A_QP_PEER_GID])
		out_gid("peer-gid", genl_attr_data(t->a[MRC_A_QP_PEER_GID]),
			genl_attr_len(t->a[MRC_A_QP_PEER_GID]));
	OUT_U32(t, MRC_A_QP_EV_COUNT, "ev-count");
	OUT_U32(t, MRC_A_QP_EV_USABLE, "ev-usable");
	OUT_U32(t, MRC_A_QP_SRTT_US, "srtt-us");
	OUT_U32(t, MRC_A_QP_MIN_RTT_US, "min-rtt-us");
	OUT_U32(t, MRC_A_QP_REO_WND_US, "reo-wnd-us");
	if (genl_tb_count(t, MRC_A_QP_EV)) {
		out_arr_start("ev");
		while ((e = genl_tb_next(t, MRC_A_QP_EV, e)))
			out_qp_ev(e);
		out_arr_end();
	}
	OUT_U32(t, MRC_A_QP_CWND, "cwnd");
	OUT_U32(t, MRC_A_QP_INFLIGHT_BYTES, "inflight-bytes");
	OUT_U32(t, MRC_A_QP_BASE_RTT_NS, "base-rtt-ns");
	OUT_U32(t, MRC_A_QP_AVG_DELAY_NS, "avg-delay-ns");
	OUT_ENUM(t, MRC_A_QP_CC_EVENT, "cc-event", &cc_event_names);
	out_obj_end();
	return 0;
}

static int qp_show(struct args *a)
{
	const char *arg = args_next(a);
	char dev[NAME_BUF];
	uint32_t qpn = 0;
	bool one = false;
	struct genl_msg m;
	int ret;

	if (args_more(a))
		usage_err("unexpected \"%s\"", args_peek(a));
	if (arg)
		one = split_dev(arg, dev, sizeof(dev), &qpn);
	msg_init(&m, MRC_CMD_QP_GET, one ? 0 : NLM_F_DUMP);
	if (arg)
		put_dev(&m, dev);
	if (one)
		genl_put_u32(&m, MRC_A_QP_QPN, qpn);
	ret = nl_show("qp show", &m, qp_cb, NULL);
	return ret;
}

static const struct cmd qp_cmds[] = {
	{ { "show", "list" }, qp_show, "[ DEV[/QPN] ]" },
};

const struct obj obj_qp = {
	.id = { "qp", NULL },
	.summary = "QPs and their profile bindings (read only)",
	.cmds = qp_cmds,
	.n_cmds = ARRAY_SIZE(qp_cmds),
	.dflt = &qp_cmds[0],
};
