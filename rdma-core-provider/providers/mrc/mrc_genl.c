// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A generic netlink client over a raw socket (mrc_genl.h): building
 * requests, reading replies, dumps, acks with extended ack TLVs, and
 * multicast messages.  No library beyond libc, no global state.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "mrc_genl.h"

#define MSG_START_CAP	4096
#define RECV_MIN	(64 * 1024)

/* ---- building ------------------------------------------------------------ */

static bool msg_reserve(struct genl_msg *m, size_t more)
{
	unsigned char *p;
	size_t cap = m->cap;

	if (m->err)
		return false;
	while (m->len + more > cap)
		cap *= 2;
	if (cap == m->cap)
		return true;
	p = realloc(m->buf, cap);
	if (!p) {
		m->err = ENOMEM;
		return false;
	}
	m->buf = p;
	m->cap = cap;
	return true;
}

static void msg_init_type(struct genl_msg *m, uint16_t type, uint8_t cmd,
			  uint8_t version, uint16_t flags)
{
	struct nlmsghdr *h;
	struct genlmsghdr *gh;

	memset(m, 0, sizeof(*m));
	m->buf = malloc(MSG_START_CAP);
	if (!m->buf) {
		m->err = ENOMEM;
		return;
	}
	m->cap = MSG_START_CAP;
	memset(m->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	m->len = NLMSG_HDRLEN + GENL_HDRLEN;
	h = (struct nlmsghdr *)m->buf;
	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	gh = (struct genlmsghdr *)(m->buf + NLMSG_HDRLEN);
	gh->cmd = cmd;
	gh->version = version;
}

void genl_msg_init(struct genl_msg *m, const struct genl *g, uint8_t cmd,
		   uint16_t flags)
{
	msg_init_type(m, g->family, cmd, g->version, flags);
}

void genl_msg_free(struct genl_msg *m)
{
	free(m->buf);
	m->buf = NULL;
	m->len = 0;
	m->cap = 0;
}

void genl_put_bin(struct genl_msg *m, uint16_t type, const void *p,
		  size_t len)
{
	struct nlattr *a;
	size_t total = NLA_HDRLEN + len;

	if (total > UINT16_MAX) {
		if (!m->err)
			m->err = EMSGSIZE;
		return;
	}
	if (!msg_reserve(m, NLA_ALIGN(total)))
		return;
	a = (struct nlattr *)(m->buf + m->len);
	a->nla_type = type;
	a->nla_len = (uint16_t)total;
	if (len)
		memcpy(m->buf + m->len + NLA_HDRLEN, p, len);
	memset(m->buf + m->len + total, 0, NLA_ALIGN(total) - total);
	m->len += NLA_ALIGN(total);
}

void genl_put_u8(struct genl_msg *m, uint16_t type, uint8_t v)
{
	genl_put_bin(m, type, &v, sizeof(v));
}

void genl_put_u16(struct genl_msg *m, uint16_t type, uint16_t v)
{
	genl_put_bin(m, type, &v, sizeof(v));
}

void genl_put_u32(struct genl_msg *m, uint16_t type, uint32_t v)
{
	genl_put_bin(m, type, &v, sizeof(v));
}

/*
 * A u64 attribute.  No pad attribute is needed: the kernel reads 64-bit
 * attributes with unaligned-safe accessors.
 */
void genl_put_u64(struct genl_msg *m, uint16_t type, uint64_t v)
{
	genl_put_bin(m, type, &v, sizeof(v));
}

void genl_put_str(struct genl_msg *m, uint16_t type, const char *s)
{
	genl_put_bin(m, type, s, strlen(s) + 1);
}

void genl_put_flag(struct genl_msg *m, uint16_t type)
{
	genl_put_bin(m, type, NULL, 0);
}

void genl_nest_start(struct genl_msg *m, uint16_t type)
{
	if (m->depth == GENL_MAX_NEST) {
		if (!m->err)
			m->err = EMSGSIZE;
		return;
	}
	m->nest[m->depth++] = m->len;
	genl_put_bin(m, type | NLA_F_NESTED, NULL, 0);
}

void genl_nest_end(struct genl_msg *m)
{
	size_t off;
	struct nlattr *a;

	if (!m->depth)
		return;
	off = m->nest[--m->depth];
	if (m->err)
		return;
	if (m->len - off > UINT16_MAX) {
		m->err = EMSGSIZE;
		return;
	}
	a = (struct nlattr *)(m->buf + off);
	a->nla_len = (uint16_t)(m->len - off);
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

void genl_tb_parse(struct genl_tb *t, const void *data, size_t len)
{
	const struct nlattr *a;

	memset(t, 0, sizeof(*t));
	t->start = data;
	t->len = len;
	for (a = attr_first(data, len); a; a = attr_after(data, len, a)) {
		uint16_t type = a->nla_type & NLA_TYPE_MASK;

		if (type <= GENL_TB_MAX)
			t->a[type] = a;
	}
}

void genl_tb_nest(struct genl_tb *t, const struct nlattr *nest)
{
	genl_tb_parse(t, genl_attr_data(nest), genl_attr_len(nest));
}

const struct nlattr *genl_tb_next(const struct genl_tb *t, uint16_t type,
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

unsigned int genl_tb_count(const struct genl_tb *t, uint16_t type)
{
	const struct nlattr *a = NULL;
	unsigned int n = 0;

	while ((a = genl_tb_next(t, type, a)))
		n++;
	return n;
}

const void *genl_attr_data(const struct nlattr *a)
{
	return (const unsigned char *)a + NLA_HDRLEN;
}

size_t genl_attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static uint64_t attr_uint(const struct nlattr *a, size_t size)
{
	uint64_t v64 = 0;
	uint32_t v32 = 0;
	uint16_t v16 = 0;
	uint8_t v8 = 0;

	if (!a || genl_attr_len(a) < size)
		return 0;
	switch (size) {
	case 1:
		memcpy(&v8, genl_attr_data(a), 1);
		return v8;
	case 2:
		memcpy(&v16, genl_attr_data(a), 2);
		return v16;
	case 4:
		memcpy(&v32, genl_attr_data(a), 4);
		return v32;
	default:
		memcpy(&v64, genl_attr_data(a), 8);
		return v64;
	}
}

uint8_t genl_attr_u8(const struct nlattr *a)
{
	return (uint8_t)attr_uint(a, 1);
}

uint16_t genl_attr_u16(const struct nlattr *a)
{
	return (uint16_t)attr_uint(a, 2);
}

uint32_t genl_attr_u32(const struct nlattr *a)
{
	return (uint32_t)attr_uint(a, 4);
}

uint64_t genl_attr_u64(const struct nlattr *a)
{
	/* A u64 the kernel sent as 4 bytes is still read right. */
	if (a && genl_attr_len(a) == 4)
		return genl_attr_u32(a);
	return attr_uint(a, 8);
}

const char *genl_attr_str(const struct nlattr *a, char *buf, size_t size)
{
	size_t n;

	if (!a) {
		buf[0] = '\0';
		return buf;
	}
	n = genl_attr_len(a);
	if (n >= size)
		n = size - 1;
	memcpy(buf, genl_attr_data(a), n);
	buf[n] = '\0';
	return buf;
}

/* ---- the socket ------------------------------------------------------------ */

/* One datagram into g->rbuf (grown to fit): its length or -errno. */
static ssize_t genl_recv(struct genl *g, bool nonblock)
{
	int flags = nonblock ? MSG_DONTWAIT : 0;
	unsigned char *p;
	ssize_t n;

	for (;;) {
		n = recv(g->fd, g->rbuf, g->rbuf_cap,
			 MSG_PEEK | MSG_TRUNC | flags);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n > g->rbuf_cap) {
			p = realloc(g->rbuf, (size_t)n);
			if (!p)
				return -ENOMEM;
			g->rbuf = p;
			g->rbuf_cap = (size_t)n;
		}
		n = recv(g->fd, g->rbuf, g->rbuf_cap, flags);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

static int genl_send(struct genl *g, struct genl_msg *m)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->buf;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	ssize_t n;

	h->nlmsg_len = (uint32_t)m->len;
	h->nlmsg_seq = ++g->seq;
	n = sendto(g->fd, m->buf, m->len, 0, (struct sockaddr *)&sa,
		   sizeof(sa));
	return n < 0 ? errno : 0;
}

/* The extended ack TLVs at @data into @e. */
static void parse_ack_tlvs(const void *data, size_t len, struct genl_err *e)
{
	struct genl_tb t;

	genl_tb_parse(&t, data, len);
	if (t.a[NLMSGERR_ATTR_MSG])
		genl_attr_str(t.a[NLMSGERR_ATTR_MSG], e->msg, sizeof(e->msg));
	if (t.a[NLMSGERR_ATTR_COOKIE] &&
	    genl_attr_len(t.a[NLMSGERR_ATTR_COOKIE]) >= sizeof(uint32_t)) {
		e->has_cookie = true;
		e->cookie = genl_attr_u32(t.a[NLMSGERR_ATTR_COOKIE]);
	}
	if (t.a[NLMSGERR_ATTR_MISS_TYPE])
		e->miss_type = genl_attr_u32(t.a[NLMSGERR_ATTR_MISS_TYPE]);
}

/* An NLMSG_ERROR message: 0 for an ack, else the errno, and @e filled. */
static int parse_error(const struct nlmsghdr *h, struct genl_err *e)
{
	const struct nlmsgerr *err = NLMSG_DATA(h);
	size_t paylen = h->nlmsg_len - NLMSG_HDRLEN;
	size_t off;

	if (paylen < sizeof(*err))
		return e->err = EPROTO;
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
static int parse_done(const struct nlmsghdr *h, struct genl_err *e)
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

static void tb_of(struct genl_tb *t, const struct nlmsghdr *h)
{
	genl_tb_parse(t, (const unsigned char *)NLMSG_DATA(h) + GENL_HDRLEN,
		      h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN);
}

int genl_request(struct genl *g, struct genl_msg *m, genl_reply_cb cb,
		 void *arg, struct genl_err *e)
{
	struct nlmsghdr *req;
	bool dump;
	int cb_ret = 0;
	int ret;

	memset(e, 0, sizeof(*e));
	if (m->err)
		return e->err = m->err;
	req = (struct nlmsghdr *)m->buf;
	dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	if (!dump)
		req->nlmsg_flags |= NLM_F_ACK;
	ret = genl_send(g, m);
	if (ret)
		return e->err = ret;
	for (;;) {
		ssize_t n = genl_recv(g, false);
		const struct nlmsghdr *h;
		size_t left;

		if (n < 0)
			return e->err = (int)-n;
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)g->rbuf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			struct genl_tb t;

			if (h->nlmsg_seq != g->seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return parse_error(h, e);
			if (h->nlmsg_type == NLMSG_DONE)
				return parse_done(h, e);
			if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
				continue;
			if (!cb || cb_ret)
				continue;
			tb_of(&t, h);
			cb_ret = cb(&t, arg);
		}
	}
}

static int family_cb(const struct genl_tb *t, void *arg)
{
	struct genl *g = arg;
	const struct nlattr *grp;
	struct genl_tb gt, gr;

	g->family = genl_attr_u16(t->a[CTRL_ATTR_FAMILY_ID]);
	if (!t->a[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	genl_tb_nest(&gt, t->a[CTRL_ATTR_MCAST_GROUPS]);
	/* The groups are nests numbered 1, 2, ...: walk every attribute. */
	for (grp = attr_first(gt.start, gt.len); grp;
	     grp = attr_after(gt.start, gt.len, grp)) {
		if (g->n_grps == GENL_MAX_MCGRPS)
			break;
		genl_tb_nest(&gr, grp);
		if (!gr.a[CTRL_ATTR_MCAST_GRP_NAME] ||
		    !gr.a[CTRL_ATTR_MCAST_GRP_ID])
			continue;
		genl_attr_str(gr.a[CTRL_ATTR_MCAST_GRP_NAME],
			      g->grps[g->n_grps].name, GENL_GRP_NAMSIZ);
		g->grps[g->n_grps].id =
			genl_attr_u32(gr.a[CTRL_ATTR_MCAST_GRP_ID]);
		g->n_grps++;
	}
	return 0;
}

int genl_open(struct genl *g, const char *family, uint8_t version)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct genl_err e;
	struct genl_msg m;
	int one = 1;
	int err;

	memset(g, 0, sizeof(*g));
	g->version = version;
	g->rbuf = malloc(RECV_MIN);
	if (!g->rbuf)
		return ENOMEM;
	g->rbuf_cap = RECV_MIN;
	g->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (g->fd < 0) {
		err = errno;
		goto out_free;
	}
	/* Extended acks (messages, cookies); acks without the request. */
	setsockopt(g->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(g->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(g->fd, SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
		   sizeof(one));
	if (bind(g->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = errno;
		goto out_close;
	}

	msg_init_type(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, 0);
	genl_put_str(&m, CTRL_ATTR_FAMILY_NAME, family);
	err = genl_request(g, &m, family_cb, g, &e);
	genl_msg_free(&m);
	if (!err && !g->family)
		err = ENOENT;
	if (err)
		goto out_close;
	return 0;

out_close:
	close(g->fd);
out_free:
	free(g->rbuf);
	g->rbuf = NULL;
	g->fd = -1;
	return err;
}

void genl_close(struct genl *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
	free(g->rbuf);
	g->rbuf = NULL;
}

int genl_mcgrp(const struct genl *g, const char *name)
{
	unsigned int i;

	for (i = 0; i < g->n_grps; i++)
		if (!strcmp(g->grps[i].name, name))
			return (int)g->grps[i].id;
	return -1;
}

int genl_join(struct genl *g, int group)
{
	if (setsockopt(g->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group,
		       sizeof(group)) < 0)
		return errno;
	return 0;
}

int genl_recv_events(struct genl *g, bool nonblock, genl_event_cb cb,
		     void *arg)
{
	for (;;) {
		ssize_t n = genl_recv(g, nonblock);
		const struct nlmsghdr *h;
		size_t left;

		if (n == -EAGAIN && nonblock)
			return 0;
		if (n < 0)
			return (int)n;
		left = (size_t)n;
		for (h = (const struct nlmsghdr *)g->rbuf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			const struct genlmsghdr *gh = NLMSG_DATA(h);
			struct genl_tb t;
			int ret;

			if (h->nlmsg_type != g->family ||
			    h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN)
				continue;
			tb_of(&t, h);
			ret = cb(gh->cmd, &t, arg);
			if (ret)
				return ret;
		}
	}
}
