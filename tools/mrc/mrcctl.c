// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: the controller CLI of MRC devices (rdma_mrc), over the "mrc"
 * generic netlink family.  Options, help, argument helpers, enum names and
 * the one dispatcher, which walks the objects' tables of commands.
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
      "hold-expired", "probe", "controller", "min-active", "loss",
      "spurious");
NAMES(caps_names, true, "ev-profile-modify-online",
      "cc-profile-modify-online", "ev-event", "ev-explicit-range",
      "ev-event-precise-drop-cnt", "ep-op-ev-probe",
      "ep-op-port-status-update", "multi-plane");
NAMES(ep_op_names, false, "ev-probe", "port-status-update");
NAMES(proto_names, true, "v1");
NAMES(ev_op_flags_names, true, "all-copies");
NAMES(cc_event_names, false, "none", "increase", "fast-increase", "decrease",
      "quick-adapt", "nack", "timeout", "penalty");

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

#define PROG			"mrcctl"
#define USAGE_FIRST		"Usage: "
#define USAGE_NEXT		"       "
/* The width of the object names in "mrcctl help". */
#define SUMMARY_NAME_WIDTH	8

_Static_assert(sizeof(USAGE_FIRST) == sizeof(USAGE_NEXT),
	       "usage lines line up");

static const char usage_options[] =
"OPTIONS := { -j[son] | -p[retty] | -t[imestamp] | -V[ersion] | -h[elp] }\n";

static const char usage_notes[] =
"DEV is a device name, or its index (all digits).  -j prints JSON (a list\n"
"for every show), -p indents it, -t stamps each event monitor prints with\n"
"the time it arrived (CLOCK_REALTIME).  Exit status: 0 ok, 1 the kernel refused\n"
"(its message and errno on stderr), 2 bad command line.\n"
"See \"mrcctl OBJECT help\" and Documentation/mrc/mrcctl.rst.\n";

/* In the order "mrcctl help" lists them. */
static const struct obj *const objects[] = {
	&obj_dev, &obj_port, &obj_fmt, &obj_evp, &obj_ev, &obj_cc, &obj_qp,
	&obj_ep, &obj_monitor,
};

/*
 * The usage lines of command @cmd of @obj (@cmd NULL: of the object
 * itself), @help as struct cmd describes it; @first: the first of the
 * object's usage lines.
 */
static void usage_lines(FILE *f, const char *obj, const char *cmd,
			const char *help, bool *first)
{
	int indent = (int)(strlen(USAGE_FIRST PROG " ") + strlen(obj) + 1);
	const char *line = help, *end;

	do {
		end = strchrnul(line, '\n');
		if (*line == ' ')
			fprintf(f, "%*s", indent, "");
		else
			fprintf(f, "%s" PROG " %s %s%s",
				*first ? USAGE_FIRST : USAGE_NEXT, obj,
				cmd ? cmd : "", cmd ? " " : "");
		fprintf(f, "%.*s\n", (int)(end - line), line);
		*first = false;
		line = *end ? end + 1 : end;
	} while (*line);
}

/* "mrcctl OBJ help": every command's usage lines, then the notes. */
static int print_obj_usage(const struct obj *o, FILE *f)
{
	bool first = true;
	size_t i;

	if (!o->cmds)
		usage_lines(f, o->id.name, NULL, o->usage, &first);
	for (i = 0; o->cmds && i < o->n_cmds; i++)
		usage_lines(f, o->id.name, o->cmds[i].id.name,
			    o->cmds[i].help, &first);
	if (o->notes)
		fputs(o->notes, f);
	return EXIT_OK;
}

/* "OBJECT := { dev | ... }": the objects that have commands. */
static void usage_object_list(FILE *f)
{
	const char *sep = " ";
	size_t i;

	fputs("OBJECT := {", f);
	for (i = 0; i < ARRAY_SIZE(objects); i++) {
		if (!objects[i]->cmds)
			continue;
		fprintf(f, "%s%s", sep, objects[i]->id.name);
		sep = " | ";
	}
	fputs(" }\n", f);
}

/* "mrcctl help": the forms, the objects with their summaries, the notes. */
static int print_usage(FILE *f)
{
	size_t i;

	fputs(USAGE_FIRST PROG " [OPTIONS] OBJECT { COMMAND | help }\n", f);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		if (!objects[i]->cmds)
			fprintf(f, USAGE_NEXT PROG " [OPTIONS] %s %s\n",
				objects[i]->id.name, objects[i]->usage);
	usage_object_list(f);
	fputs(usage_options, f);
	fputc('\n', f);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		fprintf(f, "  %-*s %s\n", SUMMARY_NAME_WIDTH,
			objects[i]->id.name, objects[i]->summary);
	fputc('\n', f);
	fputs(usage_notes, f);
	return EXIT_OK;
}

int obj_usage(const struct obj *o, const char *cmd)
{
	fprintf(stderr, "mrcctl: unknown command \"%s\"\n", cmd);
	print_obj_usage(o, stderr);
	return EXIT_USAGE;
}

/* ---- finding a word in a table ------------------------------------------- */

/* The words of the entries that a word begins, for the ambiguity error. */
#define CANDIDATES_MAX		256
#define NOT_FOUND		SIZE_MAX

struct match {
	const char *word;
	size_t found;		/* the entry, or NOT_FOUND */
	bool exact;		/* @word is one of its words */
	unsigned int prefixed;	/* entries one of whose words @word begins */
	char candidates[CANDIDATES_MAX];
	size_t len;		/* of @candidates */
};

static void match_init(struct match *m, const char *word)
{
	m->word = word;
	m->found = NOT_FOUND;
	m->exact = false;
	m->prefixed = 0;
	m->candidates[0] = '\0';
	m->len = 0;
}

static bool named(const struct cmd_names *id, const char *word)
{
	return !strcmp(word, id->name) ||
	       (id->alias && !strcmp(word, id->alias));
}

static bool begins(const char *word, const char *s)
{
	return s && *word && !strncmp(s, word, strlen(word));
}

/* Entry @i, named by @id: an exact match wins over every prefix. */
static void match_try(struct match *m, const struct cmd_names *id, size_t i)
{
	const char *w;

	if (m->exact)
		return;
	if (named(id, m->word)) {
		m->found = i;
		m->exact = true;
		return;
	}
	w = begins(m->word, id->name) ? id->name :
	    begins(m->word, id->alias) ? id->alias : NULL;
	if (!w)
		return;
	if (!m->prefixed++)
		m->found = i;
	if (m->len < sizeof(m->candidates))
		m->len += (size_t)snprintf(m->candidates + m->len,
					   sizeof(m->candidates) - m->len,
					   "%s%s", m->len ? ", " : "", w);
}

/*
 * The entry the word names, or NOT_FOUND; a usage error if it begins words
 * of several, naming them (@obj: the object of the commands, NULL for the
 * objects).
 */
static size_t match_end(const struct match *m, const char *obj)
{
	if (m->exact || m->prefixed <= 1)
		return m->found;
	if (!obj)
		usage_err("ambiguous object \"%s\": %s", m->word,
			  m->candidates);
	fprintf(stderr,
		"mrcctl: ambiguous %s command \"%s\": %s (try \"mrcctl %s help\")\n",
		obj, m->word, m->candidates, obj);
	exit(EXIT_USAGE);
}

static const struct obj *find_obj(const char *word)
{
	struct match m;
	size_t i;

	match_init(&m, word);
	for (i = 0; i < ARRAY_SIZE(objects); i++)
		match_try(&m, &objects[i]->id, i);
	i = match_end(&m, NULL);
	return i == NOT_FOUND ? NULL : objects[i];
}

static const struct cmd *find_cmd(const struct obj *o, const char *word)
{
	struct match m;
	size_t i;

	match_init(&m, word);
	for (i = 0; i < o->n_cmds; i++)
		match_try(&m, &o->cmds[i].id, i);
	i = match_end(&m, o->id.name);
	return i == NOT_FOUND ? NULL : &o->cmds[i];
}

/* ---- main ------------------------------------------------------------------ */

/*
 * "mrcctl OBJ ...": help, the object's own parser, or the command the next
 * word names (or the object's default one) with the socket open.
 */
static int run_obj(const struct obj *o, struct args *a)
{
	const char *word = args_peek(a);
	const struct cmd *c = o->dflt;

	if (word && is_help(word))
		return print_obj_usage(o, stdout);
	if (!o->cmds)
		return o->run(a);
	if (word) {
		c = find_cmd(o, word);
		if (!c)
			return obj_usage(o, word);
		args_next(a);
	}
	if (!c)
		return print_obj_usage(o, stdout);
	nl_open();
	return c->fn(a);
}

/* "mrcctl help [ OBJ ]" */
static int help(struct args *a)
{
	const char *word = args_next(a);
	const struct obj *o = word ? find_obj(word) : NULL;

	return o ? print_obj_usage(o, stdout) : print_usage(stdout);
}

static bool opt_is(const char *o, const char *s1, const char *s2,
		   const char *s3)
{
	return !strcmp(o, s1) || !strcmp(o, s2) || !strcmp(o, s3);
}

static void print_version(void)
{
	printf(PROG " %s (netlink family \"%s\" version %d)\n",
	       MRCCTL_VERSION, MRC_FAMILY_NAME, MRC_FAMILY_VERSION);
}

/* parse_opts: the options are read, the object comes next. */
#define OPTS_GO_ON		(-1)

/*
 * The options before the object; OPTS_GO_ON, or the exit status of an
 * option that was all there is to do (-V, -h).
 */
static int parse_opts(struct args *a)
{
	while (args_more(a) && args_peek(a)[0] == '-') {
		const char *o = args_next(a);

		if (opt_is(o, "-j", "-json", "--json")) {
			opt_json = true;
		} else if (opt_is(o, "-p", "-pretty", "--pretty")) {
			opt_pretty = true;
		} else if (opt_is(o, "-t", "-timestamp", "--timestamp")) {
			opt_timestamp = true;
		} else if (!strcmp(o, "-jp") || !strcmp(o, "-pj")) {
			opt_json = true;
			opt_pretty = true;
		} else if (opt_is(o, "-V", "-Version", "--version")) {
			print_version();
			return EXIT_OK;
		} else if (is_help(o) || !strcmp(o, "-help")) {
			return print_usage(stdout);
		} else if (!strcmp(o, "--")) {
			break;
		} else {
			usage_err("unknown option \"%s\"", o);
		}
	}
	return OPTS_GO_ON;
}

int main(int argc, char **argv)
{
	struct args a = { argc - 1, argv + 1 };
	const struct obj *o;
	const char *word;
	int ret;

	ret = parse_opts(&a);
	if (ret != OPTS_GO_ON)
		return ret;
	if (!args_more(&a)) {
		print_usage(stderr);
		return EXIT_USAGE;
	}
	word = args_next(&a);
	if (is_help(word))
		return help(&a);
	o = find_obj(word);
	if (!o)
		usage_err("unknown object \"%s\"", word);
	return run_obj(o, &a);
}
