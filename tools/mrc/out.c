// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: output.  One set of calls prints either text ("key value" words,
 * one block per object) or JSON (-j; -p indents it).  JSON keys are the
 * attribute names of the spec.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "mrcctl.h"

bool opt_json;
bool opt_timestamp;
bool opt_pretty;

#define OUT_DEPTH	8
#define TEXT_INDENT	4

enum frame_kind { FRAME_LIST, FRAME_OBJ, FRAME_ARR, FRAME_VALS };

static struct frame {
	enum frame_kind kind;
	unsigned int n;		/* members printed so far */
	const char *key;	/* text: the key of an array's members */
} stack[OUT_DEPTH];
static int depth;		/* frames in use */
static bool stream;		/* monitor: objects not inside a list */
static bool list_pending;	/* JSON: "[" not printed yet */
static bool line_start = true;	/* text: nothing printed on this line */
static int nl_pending = -1;	/* text: a new line at this indentation is due */

static struct frame *top(void)
{
	return depth ? &stack[depth - 1] : NULL;
}

static void push(enum frame_kind kind, const char *key)
{
	if (depth == OUT_DEPTH) {
		fprintf(stderr, "mrcctl: output nested too deep\n");
		return;
	}
	stack[depth].kind = kind;
	stack[depth].n = 0;
	stack[depth].key = key;
	depth++;
}

static void pop(void)
{
	if (depth)
		depth--;
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_indent(void)
{
	int i;

	if (!opt_pretty)
		return;
	putchar('\n');
	for (i = 0; i < depth; i++)
		fputs("  ", stdout);
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c == '\n')
			fputs("\\n", stdout);
		else if (c == '\t')
			fputs("\\t", stdout);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* Before a member: the comma, the indentation and the key if any. */
static void json_member(const char *key)
{
	struct frame *f = top();

	if (f) {
		if (f->n++)
			putchar(',');
		json_indent();
	}
	if (key && f && f->kind == FRAME_OBJ) {
		json_string(key);
		fputs(opt_pretty ? ": " : ":", stdout);
	}
}

/* ---- text ------------------------------------------------------------------ */

/*
 * Text lines break lazily: out_nl() only asks for a new line, which is
 * started by the next word, so that absent attributes leave no empty line.
 */
static void text_flush_nl(void)
{
	int i;

	if (nl_pending < 0)
		return;
	if (!line_start)
		putchar('\n');
	for (i = 0; i < nl_pending * TEXT_INDENT; i++)
		putchar(' ');
	line_start = true;
	nl_pending = -1;
}

static void text_word(const char *s)
{
	text_flush_nl();
	if (!line_start)
		putchar(' ');
	fputs(s, stdout);
	line_start = false;
}

static void text_newline(int level)
{
	if (!line_start)
		nl_pending = level;
}

static void text_key(const char *key)
{
	struct frame *f = top();

	if (f && f->kind == FRAME_VALS) {
		/* Values of a list: "key a,b,c". */
		if (f->n++)
			putchar(',');
		else
			text_word(f->key);
		if (f->n == 1)
			putchar(' ');
		return;
	}
	text_word(key);
	putchar(' ');
}

/* ---- the calls ------------------------------------------------------------- */

void out_set_stream(bool on)
{
	stream = on;
}

/*
 * The "[" of a list is printed with its first member, so that a request
 * that fails before any reply prints nothing (out_list_abort).
 */
void out_list_start(void)
{
	if (opt_json && !stream)
		list_pending = true;
}

static void list_open(void)
{
	if (!list_pending)
		return;
	list_pending = false;
	putchar('[');
	push(FRAME_LIST, NULL);
}

void out_list_end(void)
{
	if (opt_json && !stream) {
		bool empty;

		list_open();
		empty = !top()->n;
		pop();
		if (!empty)
			json_indent();
		puts("]");
	}
	fflush(stdout);
}

void out_list_abort(void)
{
	if (list_pending) {
		list_pending = false;
		return;
	}
	out_list_end();
}

void out_obj_start(void)
{
	struct frame *f = top();

	if (opt_json) {
		list_open();
		json_member(NULL);
		putchar('{');
		push(FRAME_OBJ, NULL);
		return;
	}
	if (f && f->kind == FRAME_ARR) {
		/* A member of a nested list: its own line, "key ...". */
		f->n++;
		text_newline(1);
		text_word(f->key);
		push(FRAME_OBJ, NULL);
		return;
	}
	push(FRAME_OBJ, NULL);
}

void out_obj_end(void)
{
	if (opt_json) {
		bool empty = !top()->n;

		pop();
		if (!empty)
			json_indent();
		putchar('}');
		if (!depth) {
			putchar('\n');
			fflush(stdout);
		}
		return;
	}
	pop();
	if (!depth) {
		nl_pending = -1;
		if (!line_start)
			putchar('\n');
		line_start = true;
		fflush(stdout);
	}
}

void out_arr_start(const char *key)
{
	if (opt_json) {
		json_member(key);
		putchar('[');
		push(FRAME_ARR, key);
		return;
	}
	push(FRAME_ARR, key);
}

void out_arr_end(void)
{
	if (opt_json) {
		bool empty = !top()->n;

		pop();
		if (!empty)
			json_indent();
		putchar(']');
		return;
	}
	pop();
}

void out_nest_start(const char *key)
{
	if (opt_json) {
		json_member(key);
		putchar('{');
		push(FRAME_OBJ, NULL);
		return;
	}
	text_newline(1);
	text_word(key);
	push(FRAME_OBJ, NULL);
}

void out_nest_end(void)
{
	if (opt_json) {
		bool empty = !top()->n;

		pop();
		if (!empty)
			json_indent();
		putchar('}');
		return;
	}
	pop();
}

void out_vals_start(const char *key)
{
	if (opt_json) {
		json_member(key);
		putchar('[');
		push(FRAME_VALS, key);
		return;
	}
	push(FRAME_VALS, key);
}

void out_vals_end(void)
{
	if (opt_json) {
		bool empty = !top()->n;

		pop();
		if (!empty && opt_pretty)
			json_indent();
		putchar(']');
		return;
	}
	pop();
}

void out_u64(const char *key, uint64_t v)
{
	if (opt_json) {
		json_member(key);
		printf("%llu", (unsigned long long)v);
		return;
	}
	text_key(key);
	printf("%llu", (unsigned long long)v);
}

void out_val_u64(uint64_t v)
{
	out_u64(NULL, v);
}

/* Hex in text; a number in JSON (JSON has no hex). */
void out_hex(const char *key, uint64_t v)
{
	if (opt_json) {
		out_u64(key, v);
		return;
	}
	text_key(key);
	printf("0x%llx", (unsigned long long)v);
}

void out_str(const char *key, const char *s)
{
	if (opt_json) {
		json_member(key);
		json_string(s);
		return;
	}
	text_key(key);
	fputs(s, stdout);
}

void out_val_str(const char *s)
{
	out_str(NULL, s);
}

void out_bool(const char *key, bool v)
{
	if (opt_json) {
		json_member(key);
		fputs(v ? "true" : "false", stdout);
		return;
	}
	if (v)
		text_word(key);
}

void out_bytes(const char *key, const void *p, size_t len)
{
	const unsigned char *b = p;
	char buf[2 + 2 * MRC_EV_MAX_BYTES * 2 + 1];
	size_t i, n = 0;

	if (len > sizeof(buf) / 2 - 2)
		len = sizeof(buf) / 2 - 2;
	n += (size_t)sprintf(buf, "0x");
	for (i = 0; i < len; i++)
		n += (size_t)sprintf(buf + n, "%02x", b[i]);
	if (!len)
		sprintf(buf + n, "0");
	out_str(key, buf);
}

void out_gid(const char *key, const void *p, size_t len)
{
	char buf[INET6_ADDRSTRLEN];

	if (len != MRC_GID_LEN || !inet_ntop(AF_INET6, p, buf, sizeof(buf))) {
		out_bytes(key, p, len);
		return;
	}
	out_str(key, buf);
}

void out_nl(void)
{
	if (!opt_json)
		text_newline(1);
}

void out_title(const char *fmt, ...)
{
	char buf[128];
	va_list ap;

	if (opt_json)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	text_word(buf);
}
