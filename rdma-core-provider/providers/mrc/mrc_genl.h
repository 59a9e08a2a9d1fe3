/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A small generic netlink client over a raw socket, safe in a library: no
 * global state (everything hangs off a struct genl), no exit(), every
 * failure returned as a positive errno.  libmrc's controller API
 * (mrc_ctl.c) and the mrcctl CLI (tools/mrc/) both speak the "mrc" family
 * through it.
 */
#ifndef MRC_GENL_H
#define MRC_GENL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/netlink.h>

#define GENL_MAX_MCGRPS		8
#define GENL_MAX_NEST		8
#define GENL_GRP_NAMSIZ		16	/* GENL_NAMSIZ */

/* An open socket bound to one generic netlink family. */
struct genl {
	int fd;
	uint16_t family;
	uint8_t version;	/* of the family's messages we send */
	uint32_t seq;
	unsigned char *rbuf;
	size_t rbuf_cap;
	struct {
		char name[GENL_GRP_NAMSIZ];
		uint32_t id;
	} grps[GENL_MAX_MCGRPS];
	unsigned int n_grps;
};

/*
 * A request being built.  A failed allocation or too deep a nest is
 * remembered in @err (a positive errno) and reported by genl_request(),
 * so that building needs no checks.
 */
struct genl_msg {
	unsigned char *buf;
	size_t len;		/* bytes used */
	size_t cap;
	size_t nest[GENL_MAX_NEST];	/* offsets of the open nests */
	int depth;
	int err;
};

/* An attribute table of one message or nest: a[type] is the last one. */
#define GENL_TB_MAX		32
struct genl_tb {
	const struct nlattr *a[GENL_TB_MAX + 1];
	const void *start;	/* the attributes, to walk multi-attrs */
	size_t len;
};

/* What the kernel said when it refused a request. */
struct genl_err {
	int err;		/* positive errno */
	char msg[256];		/* extack message, "" if none */
	bool has_cookie;
	uint32_t cookie;	/* E2BIG: the needed size */
	uint32_t miss_type;	/* a missing attribute, 0 if none */
};

/* Called for each reply message with its top-level attributes. */
typedef int (*genl_reply_cb)(const struct genl_tb *t, void *arg);
/* Called for each multicast message of the family. */
typedef int (*genl_event_cb)(uint8_t cmd, const struct genl_tb *t,
			     void *arg);

/*
 * Open a socket and resolve @family (version @version of its messages);
 * 0, or a positive errno (ENOENT: no such family registered).
 */
int genl_open(struct genl *g, const char *family, uint8_t version);
void genl_close(struct genl *g);
/* The id of a multicast group of the family, or -1 if it has none. */
int genl_mcgrp(const struct genl *g, const char *name);
/* Join a group; 0 or a positive errno. */
int genl_join(struct genl *g, int group);
/*
 * Send @m and read the answer, calling @cb for each reply message (until
 * it returns non-zero); 0 on success, else the refusal in *@e, its errno
 * returned.  @m is left as it was, to be sent again or freed.
 */
int genl_request(struct genl *g, struct genl_msg *m, genl_reply_cb cb,
		 void *arg, struct genl_err *e);
/*
 * Read multicast messages of the family and call @cb for each, until it
 * returns non-zero (that value is returned); with @nonblock, return 0 as
 * soon as none is queued.  A negative errno on a socket error (-ENOBUFS:
 * the socket overflowed and messages were lost; the caller may go on).
 */
int genl_recv_events(struct genl *g, bool nonblock, genl_event_cb cb,
		     void *arg);

void genl_msg_init(struct genl_msg *m, const struct genl *g, uint8_t cmd,
		   uint16_t flags);
void genl_msg_free(struct genl_msg *m);
void genl_put_bin(struct genl_msg *m, uint16_t type, const void *p,
		  size_t len);
void genl_put_u8(struct genl_msg *m, uint16_t type, uint8_t v);
void genl_put_u16(struct genl_msg *m, uint16_t type, uint16_t v);
void genl_put_u32(struct genl_msg *m, uint16_t type, uint32_t v);
void genl_put_u64(struct genl_msg *m, uint16_t type, uint64_t v);
void genl_put_str(struct genl_msg *m, uint16_t type, const char *s);
void genl_put_flag(struct genl_msg *m, uint16_t type);
void genl_nest_start(struct genl_msg *m, uint16_t type);
void genl_nest_end(struct genl_msg *m);

void genl_tb_parse(struct genl_tb *t, const void *data, size_t len);
void genl_tb_nest(struct genl_tb *t, const struct nlattr *nest);
/* Walk the attributes of @t of @type: pass NULL first, then the previous. */
const struct nlattr *genl_tb_next(const struct genl_tb *t, uint16_t type,
				  const struct nlattr *prev);
unsigned int genl_tb_count(const struct genl_tb *t, uint16_t type);

const void *genl_attr_data(const struct nlattr *a);
size_t genl_attr_len(const struct nlattr *a);
/* Integers of any width the kernel sent (0 for a missing attribute). */
uint8_t genl_attr_u8(const struct nlattr *a);
uint16_t genl_attr_u16(const struct nlattr *a);
uint32_t genl_attr_u32(const struct nlattr *a);
uint64_t genl_attr_u64(const struct nlattr *a);
/* A string attribute, NUL-terminated into @buf. */
const char *genl_attr_str(const struct nlattr *a, char *buf, size_t size);

#endif /* MRC_GENL_H */
