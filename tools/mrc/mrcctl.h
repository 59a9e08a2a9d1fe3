/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * mrcctl: the controller CLI of the "mrc" generic netlink family
 * (Documentation/mrc/mrcctl.rst).  Shared declarations of its parts:
 * netlink (nl.c), output (out.c), argument parsing and dispatch
 * (mrcctl.c), and the objects (dev.c, profile.c, ev.c).
 */
#ifndef MRCCTL_H
#define MRCCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>
#include <linux/mrc_netlink.h>

#include "mrc_genl.h"

#define MRCCTL_VERSION		"1.0"

/* Exit codes. */
#define EXIT_OK			0
#define EXIT_FAILED		1	/* the kernel refused, or I/O failed */
#define EXIT_USAGE		2	/* bad command line */

/* Every attribute set of the family starts with these two. */
#define ATTR_DEV_INDEX		1
#define ATTR_DEV_NAME		2

/* ---- netlink (nl.c, over the provider's mrc_genl.c) --------------------- */

/*
 * The family's socket, opened by nl_open() (which exits on failure): the
 * CLI's one struct genl.
 */
extern struct genl nl;

/* A request of the family's command @cmd. */
void msg_init(struct genl_msg *m, uint8_t cmd, uint16_t flags);
/* The device argument: all digits is a dev-index, otherwise a dev-name. */
void put_dev(struct genl_msg *m, const char *dev);

/* Open the socket and resolve the family; exits on failure. */
void nl_open(void);
/* The id of a multicast group of the family, or -1 if it has none. */
int nl_mcgrp(const char *name);
/* Join a multicast group; exits on failure. */
void nl_join(int group);
/*
 * Send @m and read the answer, calling @cb for each reply message; 0 on
 * success, else the kernel's refusal in *@e (and its errno returned).
 */
int nl_request(struct genl_msg *m, genl_reply_cb cb, void *arg,
	       struct genl_err *e);
/* Read multicast messages forever (until @cb returns non-zero). */
int nl_listen(genl_event_cb cb, void *arg);
/* Print a refusal ("Error: MSG: strerror (ENAME)") to stderr. */
void nl_perror(const char *what, const struct genl_err *e);
/* nl_request, and on failure nl_perror and the EXIT_FAILED code. */
int nl_run(const char *what, struct genl_msg *m, genl_reply_cb cb,
	   void *arg);
/* nl_run of a request whose replies print as a list. */
int nl_show(const char *what, struct genl_msg *m, genl_reply_cb cb,
	    void *arg);

/* ---- output (out.c) ----------------------------------------------------- */

extern bool opt_json;
extern bool opt_pretty;
extern bool opt_timestamp;

/* A show prints a list: a JSON array, or one text block per object. */
void out_list_start(void);
void out_list_end(void);
/* After a failed request: a list with members is closed, else nothing. */
void out_list_abort(void);
/* monitor: one JSON object per line, not inside a list. */
void out_set_stream(bool stream);
void out_obj_start(void);
void out_obj_end(void);
/* A nested list of objects (fields, EVs): key [ {...}, ... ]. */
void out_arr_start(const char *key);
void out_arr_end(void);
/* One nested object: key { ... } (text: on its own line). */
void out_nest_start(const char *key);
void out_nest_end(void);
/* A nested list of scalars: key [ ... ]. */
void out_vals_start(const char *key);
void out_vals_end(void);

void out_u64(const char *key, uint64_t v);
void out_hex(const char *key, uint64_t v);
void out_str(const char *key, const char *s);
void out_bool(const char *key, bool v);
/* A bare value inside out_vals_start(). */
void out_val_u64(uint64_t v);
void out_val_str(const char *s);
/* Bytes as "0x..." hex. */
void out_bytes(const char *key, const void *p, size_t len);
/* A GID as IPv6 text. */
void out_gid(const char *key, const void *p, size_t len);
/* Text only: start a new line (indented inside an object). */
void out_nl(void);
/* Text only: a word with no key (a title such as "mrc0:"). */
void out_title(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print attribute @type of @t under @key if present. */
#define OUT_U32(t, type, key)						\
	do {								\
		if ((t)->a[type])					\
			out_u64(key, genl_attr_u32((t)->a[type]));		\
	} while (0)
#define OUT_U64(t, type, key)						\
	do {								\
		if ((t)->a[type])					\
			out_u64(key, genl_attr_u64((t)->a[type]));		\
	} while (0)
#define OUT_ENUM(t, type, key, names)					\
	do {								\
		if ((t)->a[type])					\
			out_enum(key, names, genl_attr_u32((t)->a[type]));	\
	} while (0)

/* ---- names of enums and flag bits (mrcctl.c) ---------------------------- */

struct names {
	const char *const *name;	/* by value, or by bit number */
	unsigned int count;
	bool flags;			/* bit set, not a plain enum */
};

extern const struct names profile_state_names, admin_state_names,
	port_state_names, fmt_mode_names, ev_mode_names, ev_state_names,
	ev_reason_names, caps_names, ep_op_names, proto_names,
	ev_op_flags_names, cc_event_names;

/* Print an enum value by name (number if unknown), or a flag set as a list. */
void out_enum(const char *key, const struct names *n, uint32_t v);
/* Parse a name (or a number) of an enum, or a comma list of flag names. */
bool parse_enum(const struct names *n, const char *s, uint32_t *v);

/* ---- arguments (mrcctl.c) ---------------------------------------------- */

struct args {
	int argc;
	char **argv;
};

bool args_more(const struct args *a);
const char *args_peek(const struct args *a);
const char *args_next(struct args *a);
/* The next word is @kw: consume it and return true. */
bool args_is(struct args *a, const char *kw);
/* The value of keyword @kw (the next word); exits with a usage error. */
const char *args_val(struct args *a, const char *kw);
uint64_t args_u64(struct args *a, const char *kw, uint64_t max);
uint32_t args_u32(struct args *a, const char *kw);
uint32_t args_enum(struct args *a, const char *kw, const struct names *n);
/* A profile id: "id ID", or ID alone; @what names the command. */
uint64_t args_id(struct args *a, const char *what);
/* A hex EV value ("0x1f2e" or "1f2e") into @buf; returns its length. */
size_t args_ev(struct args *a, const char *kw, unsigned char *buf);
/* A GID: an IPv6 or IPv4 address into 16 bytes. */
void args_gid(struct args *a, const char *kw, unsigned char *gid);

/* Usage error: print it and exit with EXIT_USAGE. */
void usage_err(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
bool is_help(const char *s);
/* Split "DEV/N" into @dev (a copy) and *@n; false without "/N". */
bool split_dev(const char *s, char *dev, size_t size, uint32_t *n);
/*
 * The head of a reply object: text "NAME:" or "NAME/N:", JSON dev-index,
 * dev-name and @nkey (attribute @ntype of @t, a u32) if @nkey.
 */
void out_dev_head(const struct genl_tb *t, const char *nkey, uint16_t ntype);

/* ---- objects and their commands (mrcctl.c walks the tables) ------------ */

#define ARRAY_SIZE(x)		(sizeof(x) / sizeof((x)[0]))

/*
 * The words that name an object or a command.  A word names the entry one
 * of whose words it is, or else the one entry one of whose words it begins
 * ("sh" for "show"); a word that begins words of several entries is an
 * error that names them.
 */
struct cmd_names {
	const char *name;
	const char *alias;	/* another name, or NULL */
};

/* A command of an object: "mrcctl OBJ NAME ...". */
struct cmd {
	struct cmd_names id;
	/* Runs with the words after NAME, the netlink socket open. */
	int (*fn)(struct args *a);
	/*
	 * Its usage: the words after "mrcctl OBJ NAME ", a line per form.  A
	 * line that starts with a space continues the one before, indented
	 * from under NAME.
	 */
	const char *help;
};

/* An object: "mrcctl OBJ { COMMAND | help }". */
struct obj {
	struct cmd_names id;
	const char *summary;		/* its line in "mrcctl help" */
	const struct cmd *cmds;		/* NULL: @run parses every word */
	size_t n_cmds;
	const struct cmd *dflt;		/* run when no command is given */
					/* (NULL: print the help) */
	int (*run)(struct args *a);	/* an object without commands, */
	const char *usage;		/* and its words after "mrcctl OBJ " */
	const char *notes;		/* help after the usage, or NULL */
};

extern const struct obj obj_dev, obj_port, obj_qp, obj_fmt, obj_evp, obj_cc,
	obj_ev, obj_ep, obj_monitor;

/*
 * An unknown command @cmd of @o: says so and prints @o's help on stderr;
 * returns EXIT_USAGE.
 */
int obj_usage(const struct obj *o, const char *cmd);

/* Print the ev entries (attribute @type) of @t as a list "ev". */
void out_ev_entries(const struct genl_tb *t, uint16_t type);

/* Print an EV event or a peer-status event (monitor, and ev.c). */
int print_event(uint8_t cmd, const struct genl_tb *t, void *arg);

#endif /* MRCCTL_H */
