// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * mrcctl: a small generic netlink client over a raw socket (no library):
 * building requests, reading replies, dumps, acks with extended ack TLVs,
 * and multicast listening.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "mrcctl.h"

#define MSG_START_CAP	4096
#define RECV_MIN	(64 * 1024)
#define MAX_MCGRPS	8

static int nl_fd = -1;
static uint16_t family_id;
static uint32_t nl_seq;
static unsigned char *rbuf;
static size_t rbuf_cap;

static struct {
	char name[GENL_NAMSIZ];
	uint32_t id;
} mcgrps[MAX_MCGRPS];
static unsigned int n_mcgrps;

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fprintf(stderr, "mrcctl: out of memory\n");
		exit(EXIT_FAILED);
	}
	return p;
}

/* ---- building ------------------------------------------------------------ */

static void msg_reserve(struct msg *m, size_t more)
{
	while (m->len + more > m->cap) {
		m->cap *= 2;
		m->buf = xrealloc(m->buf, m->cap);
	}
}

static void msg_init_type(struct msg *m, uint16_t type, uint8_t cmd,
			  uint8_t version, uint16_t flags)
{
	struct nlmsghdr *h;
	struct genlmsghdr *g;

	m->cap = MSG_START_CAP;
	m->buf = xrealloc(NULL, m->cap);
	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	m->depth = 0;
	h = (struct nlmsghdr *)m->buf;
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	g = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = version;
}

void msg_init(struct msg *m, uint8_t cmd, uint16_t flags)
{
	msg_init_type(m, family_id, cmd, MRC_FAMILY_VERSION, flags);
}

void msg_free(struct msg *m)
{
	free(m->buf);
	m->buf = NULL;
}

void put_bin(struct msg *m, uint16_t type, const void *p, size_t len)
{
	struct nlattr *a;
	size_t total = NLA_HDRLEN + len;

	msg_reserve(m, NLA_ALIGN(total));
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)total;
	if (len)
		memcpy(m->buf + m->len + NLA_HDRLEN, p, len);
	memset(m->buf + m->len + total, 0, NLA_ALIGN(total) - total);
	m->len += NLA_ALIGN(total);
}

void put_u8(struct msg *m, uint16_t type, uint8_t v)
{
	put_bin(m, type, &v, sizeof(v));
}

void put_u16(struct msg *m, uint16_t type, uint16_t v)
{
	put_bin(m, type, &v, sizeof(v));
}

void put_u32(struct msg *m, uint16_t type, uint32_t v)
{
	put_bin(m, type, &v, sizeof(v));
}

/*
 * A u64 attribute.  The family's pad attribute is not needed: the kernel
 * reads 64-bit attributes with unaligned-safe accessors.
 */
void put_u64(struct msg *m, uint16_t type, uint64_t v)
{
	put_bin(m, type, &v, sizeof(v));
}

void put_str(struct msg *m, uint16_t type, const char *s)
{
	put_bin(m, type, s, strlen(s) + 1);
}

void put_flag(struct msg *m, uint16_t type)
{
	put_bin(m, type, NULL, 0);
}

void nest_start(struct msg *m, uint16_t type)
{
	if (m->depth == (int)(sizeof(m->nest) / sizeof(m->nest[0]))) {
		fprintf(stderr, "mrcctl: nests too deep\n");
		exit(EXIT_FAILED);
	}
	m->nest[m->depth++] = m->len;
	put_bin(m, type | NLA_F_NESTED, NULL, 0);
}

void nest_end(struct msg *m)
{
	size_t off = m->nest[--m->depth];
	struct nlattr *a = (struct nlattr *)(m->buf + off);

	a->nla_len = (uint16_t)(m->len - off);
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

void put_dev(struct msg *m, const char *dev)
{
	if (all_digits(dev))
		put_u32(m, ATTR_DEV_INDEX, (uint32_t)strtoul(dev, NULL, 10));
	else
		put_str(m, ATTR_DEV_NAME, dev);
}

/* ---- parsing -------------------------------------------------------------- */

static const struct nlattr *attr_first(const void *data, size_t len)
{
	const struct nlattr *a = data;

	if (len < NLA_HDRLEN || a->nla_len < NLA_HDRLEN || a->nla_len > len)
		return NULL;
	return a;
}

static const struct nlattr *attr_after(const void *start, size_t len,
				       const struct nlattr *a)
{
	size_t off = (size_t)((const unsigned char *)a -
			      (const unsigned char *)start) +
		     NLA_ALIGN(a->nla_len);

	if (off >= len)
		return NULL;
	return attr_first((const unsigned char *)start + off, len - off);
}

void tb_parse(struct tb *t, const void *data, size_t len)
{
	const struct nlattr *a;

	memset(t, 0, sizeof(*t));
	t->start = data;
	t->len = len;
	for (a = attr_first(data, len); a; a = attr_after(data, len, a)) {
		uint16_t type = a->nla_type & NLA_TYPE_MASK;

		if (type <= TB_MAX)
			t->a[type] = a;
	}
}

void tb_nest(struct tb *t, const struct nlattr *nest)
{
	tb_parse(t, attr_data(nest), attr_len(nest));
}

const struct nlattr *tb_next(const struct tb *t, uint16_t type,
			     const struct nlattr *prev)
{
	const struct nlattr *a;

	a = prev ? attr_after(t->start, t->len, prev) :
		   attr_first(t->start, t->len);
	for (; a; a = attr_after(t->start, t->len, a))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

unsigned int tb_count(const struct tb *t, uint16_t type)
{
	const struct nlattr *a = NULL;
	unsigned int n = 0;

	while ((a = tb_next(t, type, a)))
		n++;
	return n;
}

const void *attr_data(const struct nlattr *a)
{
	return (const unsigned char *)a + NLA_HDRLEN;
}

size_t attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static uint64_t attr_uint(const struct nlattr *a, size_t size)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;
	uint16_t v16 = 0;
	uint8_t v8 = 0;

	if (!a || attr_len(a) < size)
		return 0;
	switch (size) {
	case 1:
		memcpy(&v8, attr_data(a), 1);
		return v8;
	case 2:
		memcpy(&v16, attr_data(a), 2);
		return v16;
	case 4:
		memcpy(&v32, attr_data(a), 4);
		return v32;
	default:
		memcpy(&v64, attr_data(a), 8);
		return v64;
	}
}

uint8_t attr_u8(const struct nlattr *a)
{
	return (uint8_t)attr_uint(a, 1);
}

uint16_t attr_u16(const struct nlattr *a)
{
	return (uint16_t)attr_uint(a, 2);
}

uint32_t attr_u32(const struct nlattr *a)
{
	return (uint32_t)attr_uint(a, 4);
}

uint64_t attr_u64(const struct nlattr *a)
{
	/* A u64 the kernel sent as 4 bytes is still read right. */
	if (a && attr_len(a) == 4)
		return attr_u32(a);
	return attr_uint(a, 8);
}

const char *attr_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t n;

	if (!a) {
		buf[0] = '\0';
		return buf;
	}
	n = attr_len(a);
	if (n >= size)
		n = size - 1;
	memcpy(buf, attr_data(a), n);
	buf[n] = '\0';
	return buf;
}

/* ---- the socket ------------------------------------------------------------ */

static ssize_t nl_recv(void)
{
	ssize_t n;

	for (;;) {
		n = recv(nl_fd, rbuf, rbuf_cap, MSG_PEEK | MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n > rbuf_cap) {
			rbuf_cap = (size_t)n;
			rbuf = xrealloc(rbuf, rbuf_cap);
		}
		n = recv(nl_fd, rbuf, rbuf_cap, 0);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

static int nl_send(struct msg *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n;

	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++nl_seq;
	n = sendto(nl_fd, m->buf, m->len, 0, (struct sockaddr *)&sa,
		   sizeof(sa));
	if (n < 0)
		return -errno;
	return 0;
}

/* The extended ack TLVs at @data into @e. */
static void parse_ack_tlvs(const void *data, size_t len, struct nl_err *e)
{
	struct tb t;

	tb_parse(&t, data, len);
	if (t.a[NLMSGERR_ATTR_MSG])
		attr_str(t.a[NLMSGERR_ATTR_MSG], e->msg, sizeof(e->msg));
	if (t.a[NLMSGERR_ATTR_COOKIE] &&
	    attr_len(t.a[NLMSGERR_ATTR_COOKIE]) >= sizeof(uint32_t)) {
		e->has_cookie = true;
		e->cookie = attr_u32(t.a[NLMSGERR_ATTR_COOKIE]);
	}
	if (t.a[NLMSGERR_ATTR_MISS_TYPE])
		e->miss_type = attr_u32(t.a[NLMSGERR_ATTR_MISS_TYPE]);
}

/* An NLMSG_ERROR message: 0 for an ack, else the errno, and @e filled. */
static int parse_error(const struct nlmsghdr *h, struct nl_err *e)
{
	const struct nlmsgerr *err = NLMSG_DATA(h);
	size_t paylen = h->nlmsg_len - NLMSG_HDRLEN;
	size_t off;

	if (paylen < sizeof(*err))
		return EPROTO;
	e->err = -err->error;
	if (h->nlmsg_flags & NLM_F_ACK_TLVS) {
		off = sizeof(int) + ((h->nlmsg_flags & NLM_F_CAPPED) ?
				     NLMSG_HDRLEN :
				     NLMSG_ALIGN(err->msg.nlmsg_len));
		if (off < paylen)
			parse_ack_tlvs((const unsigned char *)err + off,
				       paylen - off, e);
	}
	return e->err;
}

/* NLMSG_DONE of a dump: its status, and ack TLVs after it. */
static int parse_done(const struct nlmsghdr *h, struct nl_err *e)
{
	size_t paylen = h->nlmsg_len - NLMSG_HDRLEN;
	int status = 0;

	if (paylen >= sizeof(int))
		memcpy(&status, NLMSG_DATA(h), sizeof(int));
	e->err = status < 0 ? -status : 0;
	if (e->err && (h->nlmsg_flags & NLM_F_ACK_TLVS) &&
	    paylen > sizeof(int))
		parse_ack_tlvs((const unsigned char *)NLMSG_DATA(h) +
			       sizeof(int), paylen - sizeof(int), e);
	return e->err;
}

static int request_type(struct msg *m, reply_cb cb, void *arg,
			struct nl_err *e)
{
	struct nlmsghdr *req = (struct nlmsghdr *)m->buf;
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	int cb_ret = 0;
	int ret;

	memset(e, 0, sizeof(*e));
	if (!dump)
		req->nlmsg_flags |= NLM_F_ACK;
	ret = nl_send(m);
	if (ret) {
		e->err = -ret;
		return e->err;
	}
	for (;;) {
		ssize_t n = nl_recv();
		const struct nlmsghdr *h;
		size_t left;

		if (n < 0) {
			e->err = (int)-n;
			return e->err;
		}
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)rbuf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			struct tb t;

			if (h->nlmsg_seq != nl_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return parse_error(h, e);
			if (h->nlmsg_type == NLMSG_DONE)
				return parse_done(h, e);
			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
				continue;
			if (!cb || cb_ret)
				continue;
			tb_parse(&t, (const unsigned char *)NLMSG_DATA(h) +
				 GENL_HDRLEN,
				 h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
			cb_ret = cb(&t, arg);
		}
	}
}

int nl_request(struct msg *m, reply_cb cb, void *arg, struct nl_err *e)
{
	return request_type(m, cb, arg, e);
}

static int family_cb(const struct tb *t, void *arg)
{
	const struct nlattr *grp = NULL;
	struct tb gt, g;

	(void)arg;
	family_id = attr_u16(t->a[CTRL_ATTR_FAMILY_ID]);
	if (!t->a[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	tb_nest(&gt, t->a[CTRL_ATTR_MCAST_GROUPS]);
	/* The groups are nests numbered 1, 2, ...: walk every attribute. */
	for (grp = attr_first(gt.start, gt.len); grp;
	     grp = attr_after(gt.start, gt.len, grp)) {
		if (n_mcgrps == MAX_MCGRPS)
			break;
		tb_nest(&g, grp);
		if (!g.a[CTRL_ATTR_MCAST_GRP_NAME] ||
		    !g.a[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		attr_str(g.a[CTRL_ATTR_MCAST_GRP_NAME],
			 mcgrps[n_mcgrps].name, sizeof(mcgrps[0].name));
		mcgrps[n_mcgrps].id = attr_u32(g.a[CTRL_ATTR_MCAST_GRP_ID]);
		n_mcgrps++;
	}
	return 0;
}

void nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nl_err e;
	struct msg m;
	int one = 1;

	rbuf_cap = RECV_MIN;
	rbuf = xrealloc(NULL, rbuf_cap);
	nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl_fd < 0) {
		perror("mrcctl: netlink socket");
		exit(EXIT_FAILED);
	}
	/* Extended acks (messages, cookies); acks without the request. */
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(nl_fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
		   sizeof(one));
	if (bind(nl_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("mrcctl: netlink bind");
		exit(EXIT_FAILED);
	}

	msg_init_type(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	put_str(&m, CTRL_ATTR_FAMILY_NAME, MRC_FAMILY_NAME);
	if (request_type(&m, family_cb, NULL, &e) || !family_id) {
		if (e.err == ENOENT || !e.err)
			fprintf(stderr,
				"Error: the \"%s\" netlink family is not registered (is rdma_mrc loaded?)\n",
				MRC_FAMILY_NAME);
		else
			nl_perror("resolving the netlink family", &e);
		exit(EXIT_FAILED);
	}
	msg_free(&m);
}

int nl_mcgrp(const char *name)
{
	unsigned int i;

	for (i = 0; i < n_mcgrps; i++)
		if (!strcmp(mcgrps[i].name, name))
			return (int)mcgrps[i].id;
	return -1;
}

void nl_join(int group)
{
	if (setsockopt(nl_fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group)) < 0) {
		struct nl_err e = { .err = errno };

		nl_perror("joining the multicast group", &e);
		exit(EXIT_FAILED);
	}
}

int nl_listen(int (*cb)(uint8_t cmd, const struct tb *t, void *arg),
	      void *arg)
{
	for (;;) {
		ssize_t n = nl_recv();
		const struct nlmsghdr *h;
		size_t left;

		if (n == -ENOBUFS) {
			/* Our socket overflowed: say so and go on. */
			fprintf(stderr, "mrcctl: events lost (%s)\n",
				strerror(ENOBUFS));
			continue;
		}
		if (n < 0) {
			struct nl_err e = { .err = (int)-n };

			nl_perror("receiving events", &e);
			return EXIT_FAILED;
		}
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)rbuf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct genlmsghdr *g = NLMSG_DATA(h);
			struct tb t;
			int ret;

			if (h->nlmsg_type != family_id ||
			    h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
				continue;
			tb_parse(&t, (const unsigned char *)g + GENL_HDRLEN,
				 h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
			ret = cb(g->cmd, &t, arg);
			if (ret)
				return ret > 0 ? EXIT_OK : EXIT_FAILED;
		}
	}
}

/*
 * "Error: MSG: STRERROR (ENAME)" with the kernel's extack message; without
 * one, the request's description in its place and a second line saying so.
 */
void nl_perror(const char *what, const struct nl_err *e)
{
	const char *name = strerrorname_np(e->err);

	fprintf(stderr, "Error: %s: %s (%s)\n", e->msg[0] ? e->msg : what,
		strerror(e->err), name ? name : "?");
	if (!e->msg[0])
		fprintf(stderr, "(no message from the kernel)\n");
	if (e->has_cookie && e->err == E2BIG)
		fprintf(stderr, "needed size: %u\n", e->cookie);
	if (e->miss_type)
		fprintf(stderr, "missing attribute: %u\n", e->miss_type);
	if (e->err == EOPNOTSUPP && !e->msg[0])
		fprintf(stderr,
			"hint: the kernel may not serve this command yet\n");
}

int nl_run(const char *what, struct msg *m, reply_cb cb, void *arg)
{
	struct nl_err e;

	if (nl_request(m, cb, arg, &e)) {
		nl_perror(what, &e);
		msg_free(m);
		return EXIT_FAILED;
	}
	msg_free(m);
	return EXIT_OK;
}

int nl_show(const char *what, struct msg *m, reply_cb cb, void *arg)
{
	int ret;

	out_list_start();
	ret = nl_run(what, m, cb, arg);
	if (ret)
		out_list_abort();
	else
		out_list_end();
	return ret;
}
