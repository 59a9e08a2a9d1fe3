// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: the controller CLI of MRC devices (rdma_mrc), over the "mrc"
 * generic netlink family.  Options, help, argument helpers, enum names and
 * the dispatch to the objects.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mrcctl.h"

/* ---- names ----------------------------------------------------------------- */

#define NAMES(var, isflags, ...)					\
	static const char *const var##_list[] = { __VA_ARGS__ };	\
	const struct names var = {					\
		.name = var##_list,					\
		.count = sizeof(var##_list) / sizeof(var##_list[0]),	\
		.flags = isflags,					\
	}

/* In the order of the uapi enums (flags: by bit number). */
NAMES(profile_state_names, false, "init", "offline", "online");
NAMES(admin_state_names, false, "disabled", "enabled");
NAMES(port_state_names, false, "nop", "down", "init", "armed", "active");
NAMES(fmt_mode_names, true, "stev", "srv6", "udp");
NAMES(ev_mode_names, true, "auto", "exp", "gen");
NAMES(ev_state_names, true, "good", "assumed-bad", "denied", "skip");
NAMES(ev_reason_names, false, "ecn", "trim", "timeout", "always-skip",
      "hold-expired", "probe", "controller", "min-active", "loss");
NAMES(caps_names, true, "ev-profile-modify-online",
      "cc-profile-modify-online", "ev-event", "ev-explicit-range",
      "ev-event-precise-drop-cnt", "ep-op-ev-probe",
      "ep-op-port-status-update", "multi-plane");
NAMES(ep_op_names, false, "ev-probe", "port-status-update");
NAMES(proto_names, true, "v1");
NAMES(ev_op_flags_names, true, "all-copies");

void out_enum(const char *key, const struct names *n, uint32_t v)
{
	unsigned int bit;
	char num[16];

	if (!n->flags) {
		if (v < n->count) {
			out_str(key, n->name[v]);
		} else {
			snprintf(num, sizeof(num), "%u", v);
			out_str(key, num);
		}
		return;
	}
	/* A single-bit value (a mode, an EV state) prints as one name. */
	if (v && !(v & (v - 1)) && !strstr(key, "mask") &&
	    !strstr(key, "modes") && strcmp(key, "caps") &&
	    strcmp(key, "protocol-version") && strcmp(key, "flags")) {
		bit = (unsigned int)__builtin_ctz(v);
		if (bit < n->count) {
			out_str(key, n->name[bit]);
			return;
		}
	}
	out_vals_start(key);
	for (bit = 0; bit < 32; bit++) {
		if (!(v & (1u << bit)))
			continue;
		if (bit < n->count) {
			out_val_str(n->name[bit]);
		} else {
			snprintf(num, sizeof(num), "0x%x", 1u << bit);
			out_val_str(num);
		}
	}
	if (!v && !opt_json)
		out_val_str("none");
	out_vals_end();
}

static bool parse_one(const struct names *n, const char *s, size_t len,
		      uint32_t *v)
{
	unsigned int i;
	char *end;

	for (i = 0; i < n->count; i++) {
		if (strlen(n->name[i]) == len && !strncmp(n->name[i], s, len)) {
			*v = n->flags ? 1u << i : i;
			return true;
		}
	}
	errno = 0;
	*v = (uint32_t)strtoul(s, &end, 0);
	return !errno && end == s + len && end != s;
}

bool parse_enum(const struct names *n, const char *s, uint32_t *v)
{
	const char *comma;
	uint32_t one;

	if (!n->flags)
		return parse_one(n, s, strlen(s), v);
	*v = 0;
	if (!strcmp(s, "none"))
		return true;
	for (;;) {
		comma = strchr(s, ',');
		if (!parse_one(n, s, comma ? (size_t)(comma - s) : strlen(s),
			       &one))
			return false;
		*v |= one;
		if (!comma)
			return true;
		s = comma + 1;
	}
}

static void names_list(char *buf, size_t size, const struct names *n)
{
	unsigned int i;
	size_t off = 0;

	buf[0] = '\0';
	for (i = 0; i < n->count && off < size; i++)
		off += (size_t)snprintf(buf + off, size - off, "%s%s",
					i ? "|" : "", n->name[i]);
}

/* ---- arguments ------------------------------------------------------------- */

void usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mrcctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (try \"mrcctl help\")\n", stderr);
	exit(EXIT_USAGE);
}

bool is_help(const char *s)
{
	return !strcmp(s, "help") || !strcmp(s, "-h") || !strcmp(s, "--help");
}

bool args_more(const struct args *a)
{
	return a->argc > 0;
}

const char *args_peek(const struct args *a)
{
	return a->argc > 0 ? a->argv[0] : NULL;
}

const char *args_next(struct args *a)
{
	if (a->argc <= 0)
		return NULL;
	a->argc--;
	return *a->argv++;
}

bool args_is(struct args *a, const char *kw)
{
	if (a->argc > 0 && !strcmp(a->argv[0], kw)) {
		args_next(a);
		return true;
	}
	return false;
}

const char *args_val(struct args *a, const char *kw)
{
	const char *v = args_next(a);

	if (!v)
		usage_err("\"%s\" needs a value", kw);
	return v;
}

uint64_t args_u64(struct args *a, const char *kw, uint64_t max)
{
	const char *s = args_val(a, kw);
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-' || v > max)
		usage_err("bad value \"%s\" for \"%s\"", s, kw);
	return v;
}

uint32_t args_u32(struct args *a, const char *kw)
{
	return (uint32_t)args_u64(a, kw, UINT32_MAX);
}

uint32_t args_enum(struct args *a, const char *kw, const struct names *n)
{
	const char *s = args_val(a, kw);
	char list[256];
	uint32_t v;

	if (!parse_enum(n, s, &v)) {
		names_list(list, sizeof(list), n);
		usage_err("bad value \"%s\" for \"%s\" (%s%s)", s, kw, list,
			  n->flags ? ", comma-separated" : "");
	}
	return v;
}

uint64_t args_id(struct args *a, const char *what)
{
	const char *s = args_peek(a);

	if (args_is(a, "id") ||
	    (s && s[0] >= '0' && s[0] <= '9'))
		return args_u64(a, "id", UINT64_MAX);
	usage_err("%s needs \"id ID\" after the device", what);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t args_ev(struct args *a, const char *kw, unsigned char *buf)
{
	const char *s = args_val(a, kw), *p = s;
	size_t digits, i, len;

	if (!strncmp(p, "0x", 2) || !strncmp(p, "0X", 2))
		p += 2;
	digits = strlen(p);
	if (!digits || digits > 2 * MRC_EV_MAX_BYTES)
		usage_err("bad EV \"%s\" for \"%s\" (1 to %d bytes in hex)", s,
			  kw, MRC_EV_MAX_BYTES);
	len = (digits + 1) / 2;
	memset(buf, 0, len);
	/* An odd number of digits: the first byte holds one. */
	for (i = 0; i < digits; i++) {
		int v = hexval(p[i]);
		size_t nib = i + (digits & 1);

		if (v < 0)
			usage_err("bad EV \"%s\" for \"%s\" (hex digits)", s,
				  kw);
		buf[nib / 2] |= (unsigned char)(nib & 1 ? v : v << 4);
	}
	return len;
}

void args_gid(struct args *a, const char *kw, unsigned char *gid)
{
	const char *s = args_val(a, kw);
	unsigned char v4[4];

	if (inet_pton(AF_INET6, s, gid) == 1)
		return;
	if (inet_pton(AF_INET, s, v4) == 1) {
		/* RoCE v2 GID of an IPv4 address: ::ffff:a.b.c.d */
		memset(gid, 0, MRC_GID_LEN);
		gid[10] = 0xff;
		gid[11] = 0xff;
		memcpy(gid + 12, v4, sizeof(v4));
		return;
	}
	usage_err("bad GID \"%s\" for \"%s\" (an IPv6 or IPv4 address)", s,
		  kw);
}

/* ---- help ------------------------------------------------------------------ */

static const char usage_top[] =
"Usage: mrcctl [OPTIONS] OBJECT { COMMAND | help }\n"
"       mrcctl [OPTIONS] monitor [ ev | ep | all ] [ count N ]\n"
"OBJECT := { dev | port | fmt | evp | ev | cc | qp | ep }\n"
"OPTIONS := { -j[son] | -p[retty] | -t[imestamp] | -V[ersion] | -h[elp] }\n"
"\n"
"  dev      MRC devices: limits, default profiles, multi-plane create/delete\n"
"  port     ports (one per plane / netdev): admin state\n"
"  fmt      EV format profiles (how EV bits reach the headers)\n"
"  evp      EV profiles (the EVs QPs spray over)\n"
"  ev       the EVs of an EV profile: show, query, replace, deny, allow\n"
"  cc       congestion control profiles (algorithm, NSCC parameters)\n"
"  qp       QPs and their profile bindings (read only)\n"
"  ep       endpoint operations: EV probe, Port Status Update\n"
"  monitor  print EV events and peer status events as they come\n"
"\n"
"DEV is a device name, or its index (all digits).  -j prints JSON (a list\n"
"for every show), -p indents it, -t stamps each event monitor prints with\n"
"the time it arrived (CLOCK_REALTIME).  Exit status: 0 ok, 1 the kernel refused\n"
"(its message and errno on stderr), 2 bad command line.\n"
"See \"mrcctl OBJECT help\" and Documentation/mrc/mrcctl.rst.\n";

static const struct {
	const char *obj;
	const char *text;
} usage_obj[] = {
	{ "dev",
"Usage: mrcctl dev show [ DEV ]\n"
"       mrcctl dev set DEV [ default-ev-profile ID ] [ default-cc-profile ID ]\n"
"                          [ skip-hold-us US ]\n"
"       mrcctl dev add NAME netdev IFNAME [ netdev IFNAME ... ]\n"
"       mrcctl dev del DEV\n"
"dev add makes one device with a port per netdev, in order (port 1 first).\n"
"A default profile 0 is the built-in behaviour.\n" },
	{ "port",
"Usage: mrcctl port show [ DEV[/PORT] ]\n"
"       mrcctl port set DEV/PORT admin { up | down }\n"
"An admin-down (disabled) port carries no traffic and reads as DOWN.\n" },
	{ "fmt",
"Usage: mrcctl fmt show [ DEV [ id ID ] ]\n"
"       mrcctl fmt set DEV id ID [ state STATE ] [ cur-state STATE ]\n"
"                      [ mode { udp | stev | srv6 } ]\n"
"                      [ field [ width ] BITS ] ...\n"
"STATE := { init | offline | online }\n"
"Each \"field\" gives one format field, most significant first; the fields\n"
"of a set replace all of them.\n" },
	{ "evp",
"Usage: mrcctl evp show [ DEV [ id ID ] ]\n"
"       mrcctl evp set DEV id ID [ state STATE ] [ cur-state STATE ]\n"
"                      [ mode { auto | exp | gen } ] [ fmt ID ] [ count N ]\n"
"                      [ min-active N ] [ event-mask STATES ]\n"
"                      [ field width BITS [ init V ] [ min V ] [ max V ]\n"
"                              [ mask M ] ] ...\n"
"STATE  := { init | offline | online }\n"
"STATES := comma list of { good | skip | assumed-bad | denied }, or none\n"
"The EV array: see \"mrcctl ev help\".\n" },
	{ "ev",
"Usage: mrcctl ev show DEV id ID                 (ev-get dump)\n"
"       mrcctl ev show DEV id ID array [ size N ] (query-array)\n"
"       mrcctl ev query DEV id ID EV ...          (query-state)\n"
"       mrcctl ev replace DEV id ID REPLACE ...\n"
"       mrcctl ev deny DEV id ID EV ...           (modify-state denied)\n"
"       mrcctl ev allow DEV id ID EV ...          (modify-state good)\n"
"EV      := ev VALUE port PORT\n"
"REPLACE := { EV | index SLOT } new VALUE new-port PORT\n"
"           [ state { good | denied } ] [ all-copies ]\n"
"VALUE is hex (0x optional), 1 to 32 bytes, most significant first.\n"
"Without \"size\", \"array\" sizes its request itself (again with the\n"
"size the kernel asks for); with it, a too small size fails with E2BIG\n"
"and the needed size.\n" },
	{ "cc",
"Usage: mrcctl cc show [ DEV [ id ID ] ]\n"
"       mrcctl cc set DEV id ID [ state STATE ] [ cur-state STATE ]\n"
"                     [ algorithm { uet-1.0-nscc | none } ] [ NSCC ... ]\n"
"STATE := { init | offline | online }\n"
"NSCC  := { disable-qa 0|1 | adjust-bytes-threshold BYTES |\n"
"           adjust-period-threshold NS | base-rtt NS | eta BYTES |\n"
"           fi BYTES | fi-scale MILLIONTHS | gamma MILLIONTHS |\n"
"           max-md-jump MILLIONTHS | max-cwnd BYTES | qa-gate SHIFT |\n"
"           qa-threshold NS | target-delay NS }\n"
"The first NSCC parameters a profile gets must be all thirteen.\n" },
	{ "qp",
"Usage: mrcctl qp show [ DEV[/QPN] ]\n" },
	{ "ep",
"Usage: mrcctl ep probe DEV [ timeout NS ] [ dscp D ] REQ [ req REQ ] ...\n"
"       mrcctl ep port-status DEV [ timeout NS ] [ dscp D ] REQ\n"
"                             [ req REQ ] ...\n"
"REQ := [ id N ] sgid GID dgid GID port PORT ev VALUE\n"
"       [ mode { udp | stev | srv6 } ] [ status PORTMASK ]\n"
"Each \"req\" starts another request that starts as a copy of the one\n"
"before; ids default to 1, 2, ...  GIDs are IPv6 or IPv4 addresses.  The\n"
"EV's mode defaults to udp for values of up to 2 bytes, else stev.\n"
"status (port-status) is the mask of our ports that are down (bit N for\n"
"port N).  timeout defaults to 1000000000 (1 s).  A request not answered\n"
"in time prints as timed-out.\n" },
	{ "monitor",
"Usage: mrcctl monitor [ ev | ep | all ] [ count N ]\n"
"Prints EV events (group ev) and peer status events (group ep); with -j\n"
"one JSON object per line.  count N: exit after N events.  Needs\n"
"CAP_NET_ADMIN.\n" },
};

static int print_usage(const char *obj, FILE *f)
{
	unsigned int i;

	if (!obj) {
		fputs(usage_top, f);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(usage_obj) / sizeof(usage_obj[0]); i++) {
		if (!strcmp(usage_obj[i].obj, obj)) {
			fputs(usage_obj[i].text, f);
			return EXIT_OK;
		}
	}
	fputs(usage_top, f);
	return EXIT_OK;
}

/* ---- main ------------------------------------------------------------------ */

static const struct {
	const char *name;
	const char *alias;
	const char *help;
	int (*fn)(struct args *a);
} objects[] = {
	{ "dev", "device", "dev", cmd_dev },
	{ "port", "link", "port", cmd_port },
	{ "fmt", "ev-fmt-profile", "fmt", cmd_fmt },
	{ "evp", "ev-profile", "evp", cmd_evp },
	{ "ev", NULL, "ev", cmd_ev },
	{ "cc", "cc-profile", "cc", cmd_cc },
	{ "qp", NULL, "qp", cmd_qp },
	{ "ep", "endpoint", "ep", cmd_ep },
	{ "monitor", "mon", "monitor", cmd_monitor },
};

int main(int argc, char **argv)
{
	struct args a = { argc - 1, argv + 1 };
	const char *obj;
	unsigned int i;

	while (args_more(&a) && args_peek(&a)[0] == '-') {
		const char *o = args_next(&a);

		if (!strcmp(o, "-j") || !strcmp(o, "-json") ||
		    !strcmp(o, "--json")) {
			opt_json = true;
		} else if (!strcmp(o, "-p") || !strcmp(o, "-pretty") ||
			   !strcmp(o, "--pretty")) {
			opt_pretty = true;
		} else if (!strcmp(o, "-t") || !strcmp(o, "-timestamp") ||
			   !strcmp(o, "--timestamp")) {
			opt_timestamp = true;
		} else if (!strcmp(o, "-jp") || !strcmp(o, "-pj")) {
			opt_json = true;
			opt_pretty = true;
		} else if (!strcmp(o, "-V") || !strcmp(o, "-Version") ||
			   !strcmp(o, "--version")) {
			printf("mrcctl %s (netlink family \"%s\" version %d)\n",
			       MRCCTL_VERSION, MRC_FAMILY_NAME,
			       MRC_FAMILY_VERSION);
			return EXIT_OK;
		} else if (is_help(o) || !strcmp(o, "-help")) {
			return print_usage(NULL, stdout);
		} else if (!strcmp(o, "--")) {
			break;
		} else {
			usage_err("unknown option \"%s\"", o);
		}
	}
	if (!args_more(&a)) {
		print_usage(NULL, stderr);
		return EXIT_USAGE;
	}
	obj = args_next(&a);
	if (is_help(obj)) {
		const char *what = args_next(&a);

		return print_usage(what, stdout);
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		if (strcmp(obj, objects[i].name) &&
		    (!objects[i].alias || strcmp(obj, objects[i].alias)))
			continue;
		if (args_more(&a) && is_help(args_peek(&a)))
			return print_usage(objects[i].help, stdout);
		return objects[i].fn(&a);
	}
	usage_err("unknown object \"%s\"", obj);
}

/* Shared by the objects: "mrcctl OBJ help" and unknown commands. */
int obj_usage(const char *obj, const char *cmd)
{
	if (cmd) {
		fprintf(stderr, "mrcctl: unknown command \"%s\"\n", cmd);
		print_usage(obj, stderr);
		return EXIT_USAGE;
	}
	return print_usage(obj, stdout);
}
