// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: EV format profiles (fmt), EV profiles (evp) and CC profiles (cc).
 */
#include <stdio.h>
#include <string.h>

#include "mrcctl.h"

/* The attributes every profile set shares (same numbers in the three sets). */
#define PROF_ID		4
#define PROF_STATE	5
#define PROF_CUR_STATE	6

_Static_assert(MRC_A_EV_FMT_PROFILE_ID == PROF_ID &&
	       MRC_A_EV_PROFILE_ID == PROF_ID &&
	       MRC_A_CC_PROFILE_ID == PROF_ID, "profile id attribute");
_Static_assert(MRC_A_EV_FMT_PROFILE_STATE == PROF_STATE &&
	       MRC_A_EV_PROFILE_STATE == PROF_STATE &&
	       MRC_A_CC_PROFILE_STATE == PROF_STATE, "profile state attribute");
_Static_assert(MRC_A_EV_FMT_PROFILE_CUR_STATE == PROF_CUR_STATE &&
	       MRC_A_EV_PROFILE_CUR_STATE == PROF_CUR_STATE &&
	       MRC_A_CC_PROFILE_CUR_STATE == PROF_CUR_STATE,
	       "profile cur-state attribute");

/* The head of a profile reply: device, id, state. */
static void out_prof_head(const struct genl_tb *t)
{
	out_obj_start();
	out_dev_head(t, NULL, 0);
	OUT_U64(t, PROF_ID, "id");
	OUT_ENUM(t, PROF_STATE, "state", &profile_state_names);
}

/*
 * "show [DEV [id ID]]": a dump (of one device or all), or a do.  Returns the
 * request to send.
 */
static void prof_show_msg(struct args *a, struct genl_msg *m, uint8_t cmd)
{
	const char *dev = args_next(a);
	bool one = false;
	uint64_t id = 0;

	if (dev && !strcmp(dev, "id"))
		usage_err("an id needs a device before it");
	if (args_more(a)) {
		id = args_id(a, "show");
		one = true;
	}
	if (args_more(a))
		usage_err("unexpected \"%s\"", args_peek(a));
	msg_init(m, cmd, one ? 0 : NLM_F_DUMP);
	if (dev)
		put_dev(m, dev);
	if (one)
		genl_put_u64(m, PROF_ID, id);
}

/* "set DEV id ID": the start of every profile set; the id is required. */
static void prof_set_msg(struct args *a, struct genl_msg *m, uint8_t cmd,
			 const char *what)
{
	const char *dev = args_next(a);

	if (!dev)
		usage_err("%s set needs a device", what);
	msg_init(m, cmd, 0);
	put_dev(m, dev);
	genl_put_u64(m, PROF_ID, args_id(a, what));
}

/* The state keywords every profile set takes; true if one was consumed. */
static bool prof_set_state(struct args *a, struct genl_msg *m)
{
	if (args_is(a, "state")) {
		genl_put_u32(m, PROF_STATE,
			args_enum(a, "state", &profile_state_names));
		return true;
	}
	if (args_is(a, "cur-state")) {
		genl_put_u32(m, PROF_CUR_STATE,
			args_enum(a, "cur-state", &profile_state_names));
		return true;
	}
	return false;
}

/* ---- fmt ------------------------------------------------------------------------ */

static int fmt_cb(const struct genl_tb *t, void *arg)
{
	const struct nlattr *f = NULL;
	struct genl_tb ft;

	(void)arg;
	out_prof_head(t);
	OUT_ENUM(t, MRC_A_EV_FMT_PROFILE_MODE, "mode", &fmt_mode_names);
	OUT_U32(t, MRC_A_EV_FMT_PROFILE_WIDTH, "width");
	OUT_U32(t, MRC_A_EV_FMT_PROFILE_USERS, "users");
	out_arr_start("field");
	while ((f = genl_tb_next(t, MRC_A_EV_FMT_PROFILE_FIELD, f))) {
		genl_tb_nest(&ft, f);
		out_obj_start();
		OUT_U32(&ft, MRC_A_FMT_FIELD_WIDTH, "width");
		out_obj_end();
	}
	out_arr_end();
	out_obj_end();
	return 0;
}

static int fmt_set(struct args *a)
{
	struct genl_msg m;

	prof_set_msg(a, &m, MRC_CMD_EV_FMT_PROFILE_SET, "fmt");
	while (args_more(a)) {
		if (prof_set_state(a, &m))
			continue;
		if (args_is(a, "mode")) {
			genl_put_u32(&m, MRC_A_EV_FMT_PROFILE_MODE,
				args_enum(a, "mode", &fmt_mode_names));
		} else if (args_is(a, "field")) {
			args_is(a, "width");
			genl_nest_start(&m, MRC_A_EV_FMT_PROFILE_FIELD);
			genl_put_u32(&m, MRC_A_FMT_FIELD_WIDTH,
				args_u32(a, "field width"));
			genl_nest_end(&m);
		} else {
			usage_err("unknown fmt set attribute \"%s\"",
				  args_peek(a));
		}
	}
	return nl_run("fmt set", &m, NULL, NULL);
}

static int fmt_show(struct args *a)
{
	struct genl_msg m;

	prof_show_msg(a, &m, MRC_CMD_EV_FMT_PROFILE_GET);
	return nl_show("fmt show", &m, fmt_cb, NULL);
}

static const struct cmd fmt_cmds[] = {
	{ { "show", "list" }, fmt_show, "[ DEV [ id ID ] ]" },
	{ { "set", NULL }, fmt_set,
	  "DEV id ID [ state STATE ] [ cur-state STATE ]\n"
	  "    [ mode { udp | stev | srv6 } ]\n"
	  "    [ field [ width ] BITS ] ..." },
};

const struct obj obj_fmt = {
	.id = { "fmt", "ev-fmt-profile" },
	.summary = "EV format profiles (how EV bits reach the headers)",
	.cmds = fmt_cmds,
	.n_cmds = ARRAY_SIZE(fmt_cmds),
	.dflt = &fmt_cmds[0],
	.notes =
"STATE := { init | offline | online }\n"
"Each \"field\" gives one format field, most significant first; the fields\n"
"of a set replace all of them.\n",
};

/* ---- evp ------------------------------------------------------------------------ */

static void out_ev_fields(const struct genl_tb *t)
{
	const struct nlattr *f = NULL;
	struct genl_tb ft;

	out_arr_start("field");
	while ((f = genl_tb_next(t, MRC_A_EV_PROFILE_FIELD, f))) {
		genl_tb_nest(&ft, f);
		out_obj_start();
		OUT_U32(&ft, MRC_A_EV_FIELD_WIDTH, "width");
		OUT_U32(&ft, MRC_A_EV_FIELD_INIT_VAL, "init-val");
		OUT_U32(&ft, MRC_A_EV_FIELD_MIN_VAL, "min-val");
		OUT_U32(&ft, MRC_A_EV_FIELD_MAX_VAL, "max-val");
		if (ft.a[MRC_A_EV_FIELD_MASK])
			out_hex("mask", genl_attr_u32(ft.a[MRC_A_EV_FIELD_MASK]));
		out_obj_end();
	}
	out_arr_end();
}

static int evp_cb(const struct genl_tb *t, void *arg)
{
	(void)arg;
	out_prof_head(t);
	OUT_ENUM(t, MRC_A_EV_PROFILE_MODE, "mode", &ev_mode_names);
	OUT_U64(t, MRC_A_EV_PROFILE_FMT_PROFILE_ID, "fmt-profile-id");
	OUT_U32(t, MRC_A_EV_PROFILE_EV_COUNT, "ev-count");
	OUT_U32(t, MRC_A_EV_PROFILE_EV_MIN_ACTIVE, "ev-min-active");
	OUT_U32(t, MRC_A_EV_PROFILE_EV_USABLE, "ev-usable");
	OUT_U32(t, MRC_A_EV_PROFILE_QP_COUNT, "qp-count");
	OUT_ENUM(t, MRC_A_EV_PROFILE_EVENT_MASK, "event-mask",
		 &ev_state_names);
	out_ev_fields(t);
	if (t->a[MRC_A_EV_PROFILE_EV])
		out_ev_entries(t, MRC_A_EV_PROFILE_EV);
	out_obj_end();
	return 0;
}

/* "field width W [init V] [min V] [max V] [mask M]" */
static void evp_field(struct args *a, struct genl_msg *m)
{
	bool width = false;

	genl_nest_start(m, MRC_A_EV_PROFILE_FIELD);
	while (args_more(a)) {
		if (args_is(a, "width")) {
			genl_put_u32(m, MRC_A_EV_FIELD_WIDTH, args_u32(a, "width"));
			width = true;
		} else if (args_is(a, "init") || args_is(a, "init-val")) {
			genl_put_u32(m, MRC_A_EV_FIELD_INIT_VAL, args_u32(a, "init"));
		} else if (args_is(a, "min") || args_is(a, "min-val")) {
			genl_put_u32(m, MRC_A_EV_FIELD_MIN_VAL, args_u32(a, "min"));
		} else if (args_is(a, "max") || args_is(a, "max-val")) {
			genl_put_u32(m, MRC_A_EV_FIELD_MAX_VAL, args_u32(a, "max"));
		} else if (args_is(a, "mask")) {
			genl_put_u32(m, MRC_A_EV_FIELD_MASK, args_u32(a, "mask"));
		} else {
			break;
		}
	}
	if (!width)
		usage_err("a field needs \"width BITS\"");
	genl_nest_end(m);
}

static int evp_set(struct args *a)
{
	struct genl_msg m;

	prof_set_msg(a, &m, MRC_CMD_EV_PROFILE_SET, "evp");
	while (args_more(a)) {
		if (prof_set_state(a, &m))
			continue;
		if (args_is(a, "mode"))
			genl_put_u32(&m, MRC_A_EV_PROFILE_MODE,
				args_enum(a, "mode", &ev_mode_names));
		else if (args_is(a, "fmt") || args_is(a, "fmt-profile-id"))
			genl_put_u64(&m, MRC_A_EV_PROFILE_FMT_PROFILE_ID,
				args_u64(a, "fmt", UINT64_MAX));
		else if (args_is(a, "count") || args_is(a, "ev-count"))
			genl_put_u32(&m, MRC_A_EV_PROFILE_EV_COUNT,
				args_u32(a, "count"));
		else if (args_is(a, "min-active") ||
			 args_is(a, "ev-min-active"))
			genl_put_u32(&m, MRC_A_EV_PROFILE_EV_MIN_ACTIVE,
				args_u32(a, "min-active"));
		else if (args_is(a, "event-mask"))
			genl_put_u32(&m, MRC_A_EV_PROFILE_EVENT_MASK,
				args_enum(a, "event-mask", &ev_state_names));
		else if (args_is(a, "field"))
			evp_field(a, &m);
		else
			usage_err("unknown evp set attribute \"%s\"",
				  args_peek(a));
	}
	return nl_run("evp set", &m, NULL, NULL);
}

static int evp_show(struct args *a)
{
	struct genl_msg m;

	prof_show_msg(a, &m, MRC_CMD_EV_PROFILE_GET);
	return nl_show("evp show", &m, evp_cb, NULL);
}

static const struct cmd evp_cmds[] = {
	{ { "show", "list" }, evp_show, "[ DEV [ id ID ] ]" },
	{ { "set", NULL }, evp_set,
	  "DEV id ID [ state STATE ] [ cur-state STATE ]\n"
	  "    [ mode { auto | exp | gen } ] [ fmt ID ] [ count N ]\n"
	  "    [ min-active N ] [ event-mask STATES ]\n"
	  "    [ field width BITS [ init V ] [ min V ] [ max V ]\n"
	  "            [ mask M ] ] ..." },
};

const struct obj obj_evp = {
	.id = { "evp", "ev-profile" },
	.summary = "EV profiles (the EVs QPs spray over)",
	.cmds = evp_cmds,
	.n_cmds = ARRAY_SIZE(evp_cmds),
	.dflt = &evp_cmds[0],
	.notes =
"STATE  := { init | offline | online }\n"
"STATES := comma list of { good | skip | assumed-bad | denied }, or none\n"
"The EV array: see \"mrcctl ev help\".\n",
};

/* ---- cc --------------------------------------------------------------------------- */

static const struct {
	const char *name;
	uint16_t type;
	bool u8;
} nscc_params[] = {
	{ "disable-qa", MRC_A_NSCC_DISABLE_QA, true },
	{ "adjust-bytes-threshold", MRC_A_NSCC_ADJUST_BYTES_THRESHOLD, false },
	{ "adjust-period-threshold", MRC_A_NSCC_ADJUST_PERIOD_THRESHOLD, false },
	{ "base-rtt", MRC_A_NSCC_BASE_RTT, false },
	{ "eta", MRC_A_NSCC_ETA, false },
	{ "fi", MRC_A_NSCC_FI, false },
	{ "fi-scale", MRC_A_NSCC_FI_SCALE, false },
	{ "gamma", MRC_A_NSCC_GAMMA, false },
	{ "max-md-jump", MRC_A_NSCC_MAX_MD_JUMP, false },
	{ "max-cwnd", MRC_A_NSCC_MAX_CWND, false },
	{ "qa-gate", MRC_A_NSCC_QA_GATE, true },
	{ "qa-threshold", MRC_A_NSCC_QA_THRESHOLD, false },
	{ "target-delay", MRC_A_NSCC_TARGET_DELAY, false },
};

#define N_NSCC	(sizeof(nscc_params) / sizeof(nscc_params[0]))

static int cc_cb(const struct genl_tb *t, void *arg)
{
	char algo[MRC_ALGO_NAME_MAX + 1];
	unsigned int i;
	struct genl_tb n;

	(void)arg;
	out_prof_head(t);
	if (t->a[MRC_A_CC_PROFILE_ALGORITHM])
		out_str("algorithm", genl_attr_str(t->a[MRC_A_CC_PROFILE_ALGORITHM],
					      algo, sizeof(algo)));
	OUT_U32(t, MRC_A_CC_PROFILE_QP_COUNT, "qp-count");
	if (t->a[MRC_A_CC_PROFILE_NSCC]) {
		genl_tb_nest(&n, t->a[MRC_A_CC_PROFILE_NSCC]);
		out_nest_start("nscc");
		for (i = 0; i < N_NSCC; i++) {
			const struct nlattr *p = n.a[nscc_params[i].type];

			if (p)
				out_u64(nscc_params[i].name,
					nscc_params[i].u8 ? genl_attr_u8(p) :
							    genl_attr_u32(p));
		}
		out_nest_end();
	}
	out_obj_end();
	return 0;
}

static int cc_set(struct args *a)
{
	unsigned char val_u8[N_NSCC];
	uint32_t val[N_NSCC];
	bool given[N_NSCC] = { false };
	bool any = false;
	unsigned int i;
	struct genl_msg m;

	prof_set_msg(a, &m, MRC_CMD_CC_PROFILE_SET, "cc");
	while (args_more(a)) {
		if (prof_set_state(a, &m))
			continue;
		if (args_is(a, "algorithm")) {
			genl_put_str(&m, MRC_A_CC_PROFILE_ALGORITHM,
				args_val(a, "algorithm"));
			continue;
		}
		for (i = 0; i < N_NSCC; i++)
			if (!strcmp(args_peek(a), nscc_params[i].name))
				break;
		if (i == N_NSCC)
			usage_err("unknown cc set attribute \"%s\"",
				  args_peek(a));
		args_next(a);
		if (nscc_params[i].u8)
			val_u8[i] = (unsigned char)args_u64(a,
					nscc_params[i].name, UINT8_MAX);
		else
			val[i] = args_u32(a, nscc_params[i].name);
		given[i] = true;
		any = true;
	}
	if (any) {
		genl_nest_start(&m, MRC_A_CC_PROFILE_NSCC);
		for (i = 0; i < N_NSCC; i++) {
			if (!given[i])
				continue;
			if (nscc_params[i].u8)
				genl_put_u8(&m, nscc_params[i].type, val_u8[i]);
			else
				genl_put_u32(&m, nscc_params[i].type, val[i]);
		}
		genl_nest_end(&m);
	}
	return nl_run("cc set", &m, NULL, NULL);
}

static int cc_show(struct args *a)
{
	struct genl_msg m;

	prof_show_msg(a, &m, MRC_CMD_CC_PROFILE_GET);
	return nl_show("cc show", &m, cc_cb, NULL);
}

static const struct cmd cc_cmds[] = {
	{ { "show", "list" }, cc_show, "[ DEV [ id ID ] ]" },
	{ { "set", NULL }, cc_set,
	  "DEV id ID [ state STATE ] [ cur-state STATE ]\n"
	  "    [ algorithm { uet-1.0-nscc | none } ] [ NSCC ... ]" },
};

const struct obj obj_cc = {
	.id = { "cc", "cc-profile" },
	.summary = "congestion control profiles (algorithm, NSCC parameters)",
	.cmds = cc_cmds,
	.n_cmds = ARRAY_SIZE(cc_cmds),
	.dflt = &cc_cmds[0],
	.notes =
"STATE := { init | offline | online }\n"
"NSCC  := { disable-qa 0|1 | adjust-bytes-threshold BYTES |\n"
"           adjust-period-threshold NS | base-rtt NS | eta BYTES |\n"
"           fi BYTES | fi-scale MILLIONTHS | gamma MILLIONTHS |\n"
"           max-md-jump MILLIONTHS | max-cwnd BYTES | qa-gate SHIFT |\n"
"           qa-threshold NS | target-delay NS }\n"
"The first NSCC parameters a profile gets must be all thirteen.\n",
};
