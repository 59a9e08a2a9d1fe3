// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_xfer: a payload-verifying RDMA WRITE tool for the rdma_mrc selftests.
 *
 *   server:  mrc_xfer -d DEV -g GIDIDX [-p PORT] [--timeout S] [--offset B]
 *   client:  mrc_xfer -d DEV -g GIDIDX [-p PORT] [options] SERVER_IP
 *
 * The two sides exchange QPN, PSN, GID, rkey and address over a TCP socket
 * (as perftest does) and connect RC QPs.  The client chooses the transfer:
 * it sends its parameters in the first message and the server adopts them,
 * so transfer options are given to the client only.
 *
 * Default mode: the server gives each QP a target MR of `outstanding` slots
 * of --size bytes, with canary bytes right before and after the MR in the
 * same pages (the MR starts --offset bytes into a page) and a canary page
 * on each side.  Iteration i of QP q writes slot i % outstanding with a
 * pseudo-random pattern of (seed, q, i).  The client posts up to
 * `outstanding` WRs per QP, waits for all their completions, then names
 * the iterations to the server ("BATCH first count"); the server checks
 * every slot byte for byte (slots not written yet must still be zero) and
 * every canary byte, and answers OK or FAIL.  With --imm the writes carry
 * immediates (q << 24 | i); the server checks one receive CQE per WriteIMM,
 * in issue order, with the right byte_len, and no extra CQE; at the end it
 * moves its QPs to ERR and checks that exactly --extra-recvs receives per
 * QP were left unconsumed (flushed).
 *
 * --bad-rkey-middle: WR1 good, WR2 with a wrong rkey, WR3 good, posted
 * together: WR1 must succeed, WR2 end in REM_ACCESS_ERR, WR3 in
 * WR_FLUSH_ERR; WR2's target must be untouched and both QPs in ERR.
 * --straddle: one write that starts inside the MR and runs past its end:
 * REM_ACCESS_ERR; nothing after the MR end written, nothing before the
 * write's start written, both QPs in ERR.
 * --pingpong: 8-byte WriteIMM back and forth, round-trip percentiles.
 *
 * The last line printed is "RESULT ok bytes=N secs=T MBps=X [key=value...]"
 * or "RESULT fail reason=WORD [key=value...]"; the exit status is 0 or 1.
 * --timeout bounds the whole run (an alarm backs up every wait).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "mrc_common.h"

#define DEFAULT_TCP_PORT	18520
#define DEFAULT_SIZE		65536
#define DEFAULT_ITERS		10
#define DEFAULT_PP_ITERS	1000
#define DEFAULT_TIMEOUT_S	60.0
#define DEFAULT_SEED		1
#define MAX_SIZE		(64ULL << 20)
#define MAX_QPS			1024
/* --imm: the immediate names its QP in its top byte. */
#define MAX_IMM_QPS		256
#define MAX_OUTSTANDING		256
#define MAX_EXTRA_RECVS		1024
#define MAX_ITERS		100000000U
#define MAX_REGION_BYTES	(1ULL << 30)	/* per side, all QPs */
#define AUTO_OUTSTANDING_MAX	16
#define AUTO_OUTSTANDING_BYTES	(16ULL << 20)
#define PINGPONG_SIZE		8
#define PINGPONG_RQ		64
#define BADRKEY_WRS		3
#define BADRKEY_XOR		0x80	/* same MR index, another key tag */
#define LINE_LEN		512
#define RBUF_LEN		4096
#define CONNECT_RETRY_MS	100
#define STATE_WAIT_S		5.0
#define ALARM_SLACK_S		5
#define GEN_CHUNK		65536	/* a multiple of 8 */
#define CQ_SLACK		16
#define PSN_MASK		0xffffffU
#define IMM_QP_SHIFT		24
#define IMM_ITER_MASK		0xffffffU
#define WRID_QP_SHIFT		32
#define US_PER_S		1e6
#define BYTES_PER_MB		1e6
#define PCT_50			0.50
#define PCT_99			0.99
#define PCT_999			0.999
/* --batch-lat: batch times kept at first, doubled as needed. */
#define BATCH_LAT_CAP0		1024
#define EMPTY_POLLS_BEFORE_NAP	256
#define POLL_NAP_US		20
#define PAUSE_NAP_US		10000	/* --pause-file: how often to look */
#define PROTO_VERSION		1

enum mode { MODE_XFER, MODE_BADRKEY, MODE_STRADDLE, MODE_PINGPONG };

/* Faults mrc_xfer puts in on purpose, to show that its checks catch them. */
enum inject { INJECT_NONE, INJECT_PAYLOAD, INJECT_IMM, INJECT_CANARY };

static const char *const inject_names[] = {
	[INJECT_NONE] = "none",
	[INJECT_PAYLOAD] = "payload",	/* client: one byte of the last write */
	[INJECT_IMM] = "imm",		/* client: the last immediate */
	[INJECT_CANARY] = "canary",	/* server: the byte after the MR */
};

static const char *const mode_names[] = {
	[MODE_XFER] = "xfer",
	[MODE_BADRKEY] = "badrkey",
	[MODE_STRADDLE] = "straddle",
	[MODE_PINGPONG] = "pingpong",
};

struct opts {
	const char *dev;
	int gid_index;
	const char *port;
	const char *server;		/* NULL: this is the server */
	uint64_t size;
	uint32_t iters;
	uint32_t qps;
	bool imm;
	uint32_t extra_recvs;
	uint32_t outstanding;		/* 0: automatic */
	uint64_t seed;
	bool wr_api;
	double timeout;
	enum mode mode;
	uint32_t offset;
	int64_t psn;			/* -1: derived from the seed */
	bool verbose;
	enum inject inject;
	const char *stop_file;		/* stop early once it exists */
	const char *pause_file;		/* idle between batches while it exists */
	bool batch_lat;			/* client: batch time percentiles */
	bool transfer_opt_given;	/* a client-only option was given */
};

/* A buffer with its MR: [canary][start .. start+len)[canary]. */
struct region {
	uint8_t *base;
	size_t alloc;
	uint8_t *start;
	uint64_t len;			/* bytes of data (may be 0) */
	uint64_t mr_len;		/* bytes registered: max(len, 1) */
	struct ibv_mr *mr;
};

struct peer {
	uint32_t qpn;
	uint32_t psn;
	union ibv_gid gid;
	uint32_t rkey;
	uint64_t addr;
	uint64_t len;
};

struct xqp {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint32_t psn;
	struct region src;		/* what this side writes from */
	struct region dst;		/* what the peer writes into */
	struct peer remote;
	int64_t *slot_iter;		/* server: iteration in each slot, -1 */
	uint64_t recv_posted;
	uint64_t recv_done;		/* successful receive CQEs */
	uint64_t recv_flushed;
	uint64_t send_done;		/* client: send CQEs seen */
};

struct ctx {
	struct opts o;
	bool server;
	uint32_t slots;
	struct ibv_context *ibctx;
	struct ibv_pd *pd;
	struct ibv_cq *scq;
	struct ibv_cq *rcq;
	union ibv_gid gid;
	enum ibv_mtu mtu;
	struct xqp *q;
	int fd;
	char rbuf[RBUF_LEN];
	size_t rlen;
	uint64_t bytes;
	double secs;
	double *batch_us;		/* --batch-lat: each batch's time */
	uint32_t nbatch;
	uint32_t batch_cap;
	char extra[LINE_LEN];		/* extra key=value for the RESULT line */
};

static double g_deadline;
static char g_fail[LINE_LEN];
static bool g_verbose;
static long g_page;

/* ---- failure, time, logging ---------------------------------------- */

static int failf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int failf(const char *fmt, ...)
{
	va_list ap;

	if (g_fail[0])
		return -1;	/* keep the first reason */
	va_start(ap, fmt);
	vsnprintf(g_fail, sizeof(g_fail), fmt, ap);
	va_end(ap);
	return -1;
}

static void vlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vlog(const char *fmt, ...)
{
	va_list ap;

	if (!g_verbose)
		return;
	va_start(ap, fmt);
	fputs("mrc_xfer: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool expired(void)
{
	return now_s() >= g_deadline;
}

static int remaining_ms(void)
{
	double left = g_deadline - now_s();

	if (left <= 0)
		return 0;
	if (left > INT_MAX / 1000)
		return INT_MAX;
	return (int)(left * 1000) + 1;
}

/* The backstop: a wait that does not return by itself. */
static void on_alarm(int sig)
{
	static const char msg[] = "RESULT fail reason=timeout where=alarm\n";
	ssize_t ret;

	(void)sig;
	ret = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)ret;
	_exit(1);
}

/* ---- patterns ------------------------------------------------------- */

struct gen {
	uint64_t s;
};

static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static void gen_init(struct gen *g, uint64_t seed, uint32_t q, uint64_t iter)
{
	g->s = seed;
	g->s = splitmix64(&g->s) ^ ((uint64_t)(q + 1) * 0xD1B54A32D192ED03ULL);
	g->s = splitmix64(&g->s) ^ ((iter + 1) * 0x8CB92BA72F3D8DD7ULL);
}

/* n bytes of the stream; every call but the last must take a multiple of 8. */
static void gen_fill(struct gen *g, uint8_t *p, size_t n)
{
	uint64_t v;

	while (n >= sizeof(v)) {
		v = splitmix64(&g->s);
		memcpy(p, &v, sizeof(v));
		p += sizeof(v);
		n -= sizeof(v);
	}
	if (n) {
		v = splitmix64(&g->s);
		memcpy(p, &v, n);
	}
}

/*
 * Byte 0 of every payload is 1 + iter % 255: never the 0 an untouched
 * target holds, and different in consecutive writes to one slot even when
 * the payload is a single byte.
 */
static uint8_t pattern_marker(uint64_t iter)
{
	return 1 + iter % 255;
}

static void pattern_fill(uint8_t *buf, uint64_t len, uint64_t seed,
			 uint32_t q, uint64_t iter)
{
	struct gen g;

	if (!len)
		return;
	gen_init(&g, seed, q, iter);
	gen_fill(&g, buf, len);
	buf[0] = pattern_marker(iter);
}

struct mismatch {
	uint64_t off;
	uint8_t want;
	uint8_t got;
	uint64_t count;		/* bytes that differ */
};

/* Compare buf with the pattern; true if equal, else the first difference. */
static bool pattern_check(const uint8_t *buf, uint64_t len, uint64_t seed,
			  uint32_t q, uint64_t iter, struct mismatch *mm)
{
	static uint8_t want[GEN_CHUNK];
	uint64_t off = 0, i;
	struct gen g;
	bool ok = true;

	memset(mm, 0, sizeof(*mm));
	gen_init(&g, seed, q, iter);
	while (off < len) {
		size_t n = len - off < GEN_CHUNK ? len - off : GEN_CHUNK;

		gen_fill(&g, want, n);
		if (!off)
			want[0] = pattern_marker(iter);
		if (memcmp(buf + off, want, n)) {
			for (i = 0; i < n; i++) {
				if (buf[off + i] == want[i])
					continue;
				if (ok) {
					mm->off = off + i;
					mm->want = want[i];
					mm->got = buf[off + i];
					ok = false;
				}
				mm->count++;
			}
		}
		off += n;
	}
	return ok;
}

static bool zero_check(const uint8_t *buf, uint64_t len, struct mismatch *mm)
{
	uint64_t i;
	bool ok = true;

	memset(mm, 0, sizeof(*mm));
	for (i = 0; i < len; i++) {
		if (!buf[i])
			continue;
		if (ok) {
			mm->off = i;
			mm->got = buf[i];
			ok = false;
		}
		mm->count++;
	}
	return ok;
}

/* The canary byte at offset i of an allocation. */
static uint8_t canary_byte(size_t i)
{
	return (uint8_t)(0xA5 ^ (i * 0x3B) ^ (i >> 9));
}

/* ---- regions -------------------------------------------------------- */

static size_t round_up(size_t v, size_t to)
{
	return (v + to - 1) / to * to;
}

/*
 * [one canary page][offset canary bytes][len bytes, zero][canary up to the
 * end of that page][one canary page].  MR over max(len, 1) bytes.
 */
static int region_alloc(struct ctx *c, struct region *r, uint64_t len,
			uint32_t offset, int access)
{
	size_t i, mid, lo;

	memset(r, 0, sizeof(*r));
	r->len = len;
	r->mr_len = len ? len : 1;
	mid = round_up(offset + r->mr_len, g_page);
	r->alloc = g_page + mid + g_page;
	r->base = mmap(NULL, r->alloc, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		return failf("setup what=mmap bytes=%zu errno=%d", r->alloc,
			     errno);
	}
	r->start = r->base + g_page + offset;
	lo = r->start - r->base;
	for (i = 0; i < lo; i++)
		r->base[i] = canary_byte(i);
	for (i = lo + len; i < r->alloc; i++)
		r->base[i] = canary_byte(i);
	r->mr = ibv_reg_mr(c->pd, r->start, r->mr_len, access);
	if (!r->mr)
		return failf("setup what=reg_mr bytes=%" PRIu64 " errno=%d",
			     r->mr_len, errno);
	return 0;
}

static void region_free(struct region *r)
{
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->base)
		munmap(r->base, r->alloc);
	memset(r, 0, sizeof(*r));
}

/* Every byte outside [start, start + len) still holds its canary value. */
static bool region_canaries_ok(const struct region *r, struct mismatch *mm,
			       bool *after)
{
	size_t lo = r->start - r->base, hi = lo + r->len, i;
	bool ok = true;

	memset(mm, 0, sizeof(*mm));
	for (i = 0; i < r->alloc; i++) {
		if (i == lo)
			i = hi;
		if (i >= r->alloc)
			break;
		if (r->base[i] == canary_byte(i))
			continue;
		if (ok) {
			/* Relative to the MR start: negative is before it. */
			mm->off = i;
			mm->want = canary_byte(i);
			mm->got = r->base[i];
			*after = i >= hi;
			ok = false;
		}
		mm->count++;
	}
	return ok;
}

static int check_canaries(struct ctx *c, uint32_t q)
{
	const struct region *r = &c->q[q].dst;
	struct mismatch mm;
	bool after = false;
	long long rel;

	if (region_canaries_ok(r, &mm, &after))
		return 0;
	rel = after ? (long long)(mm.off - (r->start - r->base) - r->len) :
		      (long long)mm.off - (long long)(r->start - r->base);
	return failf("canary qp=%u where=%s offset=%lld want=0x%02x got=0x%02x bytes=%" PRIu64,
		     q, after ? "after_mr_end" : "before_mr_start", rel,
		     mm.want, mm.got, mm.count);
}

/* ---- TCP lines ------------------------------------------------------ */

static int send_line(struct ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int send_line(struct ctx *c, const char *fmt, ...)
{
	char line[LINE_LEN];
	size_t len, done = 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		return failf("internal what=line_too_long");
	len = n;
	line[len++] = '\n';
	vlog("-> %.*s", (int)len - 1, line);
	while (done < len) {
		struct pollfd pfd = { .fd = c->fd, .events = POLLOUT };
		ssize_t w;

		if (poll(&pfd, 1, remaining_ms()) <= 0)
			return failf("timeout where=tcp_send");
		w = send(c->fd, line + done, len - done, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return failf("tcp what=send errno=%d", errno);
		}
		done += w;
	}
	return 0;
}

/* One line (without its newline) into line; -1 on EOF, error, timeout. */
static int recv_line(struct ctx *c, char *line, size_t max)
{
	for (;;) {
		char *nl = memchr(c->rbuf, '\n', c->rlen);
		struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
		ssize_t r;

		if (nl) {
			size_t n = nl - c->rbuf;

			if (n >= max)
				return failf("tcp what=line_too_long");
			memcpy(line, c->rbuf, n);
			line[n] = 0;
			c->rlen -= n + 1;
			memmove(c->rbuf, nl + 1, c->rlen);
			vlog("<- %s", line);
			return 0;
		}
		if (c->rlen == sizeof(c->rbuf))
			return failf("tcp what=line_too_long");
		if (poll(&pfd, 1, remaining_ms()) <= 0)
			return failf("timeout where=tcp_recv");
		r = recv(c->fd, c->rbuf + c->rlen, sizeof(c->rbuf) - c->rlen, 0);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return failf("tcp what=recv errno=%d", errno);
		}
		if (r == 0)
			return failf("peer_closed");
		c->rlen += r;
	}
}

/* A reply: "OK ..." is 0; "FAIL reason" makes the peer's reason ours. */
static int recv_reply(struct ctx *c, char *line, size_t max)
{
	if (recv_line(c, line, max))
		return -1;
	if (!strncmp(line, "OK", 2) && (line[2] == 0 || line[2] == ' '))
		return 0;
	if (!strncmp(line, "FAIL ", 5))
		return failf("peer %s", line + 5);
	return failf("protocol got=\"%.64s\"", line);
}

/* A listening socket on the wildcard address of family; -1 and errno. */
static int listen_on(int family, const char *port)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE,
	};
	struct addrinfo *ai;
	int one = 1, zero = 0, lfd, ret;

	if (getaddrinfo(NULL, port, &hints, &ai)) {
		errno = EINVAL;
		return -1;
	}
	lfd = socket(ai->ai_family, ai->ai_socktype, 0);
	if (lfd < 0) {
		freeaddrinfo(ai);
		return -1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (family == AF_INET6)	/* IPv4 clients too */
		setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	ret = bind(lfd, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (ret || listen(lfd, 1)) {
		ret = errno;
		close(lfd);
		errno = ret;
		return -1;
	}
	return lfd;
}

static int tcp_listen_accept(struct ctx *c)
{
	int one = 1, lfd, ret;
	struct pollfd pfd;

	lfd = listen_on(AF_INET6, c->o.port);
	if (lfd < 0)
		lfd = listen_on(AF_INET, c->o.port);
	if (lfd < 0)
		return failf("tcp what=bind_listen port=%s errno=%d", c->o.port,
			     errno);
	printf("mrc_xfer: server listening on port %s\n", c->o.port);
	fflush(stdout);
	pfd.fd = lfd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, remaining_ms()) <= 0) {
		close(lfd);
		return failf("timeout where=accept");
	}
	c->fd = accept(lfd, NULL, NULL);
	ret = errno;
	close(lfd);
	if (c->fd < 0)
		return failf("tcp what=accept errno=%d", ret);
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/* Connect, retrying while the server is not listening yet (or no memory). */
static int tcp_connect(struct ctx *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *ai;
	int one = 1, ret, last = 0;

	ret = getaddrinfo(c->o.server, c->o.port, &hints, &ai);
	if (ret)
		return failf("tcp what=getaddrinfo host=%s err=\"%s\"",
			     c->o.server, gai_strerror(ret));
	while (!expired()) {
		c->fd = socket(ai->ai_family, ai->ai_socktype, 0);
		if (c->fd < 0) {
			last = errno;
			break;
		}
		if (!connect(c->fd, ai->ai_addr, ai->ai_addrlen)) {
			freeaddrinfo(ai);
			setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one,
				   sizeof(one));
			return 0;
		}
		last = errno;
		close(c->fd);
		c->fd = -1;
		/*
		 * Not listening yet, no route yet, or no memory for the
		 * SYN (a fault-injection kernel fails atomic allocations on
		 * purpose): try again.
		 */
		if (last != ECONNREFUSED && last != ENETUNREACH &&
		    last != EHOSTUNREACH && last != ETIMEDOUT &&
		    last != ENOMEM && last != ENOBUFS)
			break;
		usleep(CONNECT_RETRY_MS * 1000);
	}
	freeaddrinfo(ai);
	if (expired())
		return failf("timeout where=connect errno=%d", last);
	return failf("tcp what=connect errno=%d", last);
}

/* ---- verbs setup ---------------------------------------------------- */

static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list) {
		failf("setup what=get_device_list errno=%d", errno);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			failf("setup what=open_device dev=%s errno=%d", name,
			      errno);
		break;
	}
	if (i == n)
		failf("setup what=no_such_device dev=%s", name);
	ibv_free_device_list(list);
	return ctx;
}

static uint32_t derived_psn(const struct ctx *c, uint32_t q)
{
	uint64_t s = c->o.seed ^ ((uint64_t)q << 8) ^ (c->server ? 0x5E : 0xC1);

	if (c->o.psn >= 0)
		return (uint32_t)c->o.psn;
	return splitmix64(&s) & PSN_MASK;
}

static struct ibv_qp *create_qp(struct ctx *c, struct xqp *x, uint32_t sq,
				uint32_t rq)
{
	struct ibv_qp_init_attr_ex attr;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = c->scq;
	attr.recv_cq = c->rcq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = sq;
	attr.cap.max_recv_wr = rq;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.pd = c->pd;
	attr.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (c->o.wr_api) {
		attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				      IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	}
	x->qp = ibv_create_qp_ex(c->ibctx, &attr);
	if (!x->qp) {
		failf("setup what=create_qp errno=%d", errno);
		return NULL;
	}
	if (c->o.wr_api) {
		x->qpx = ibv_qp_to_qp_ex(x->qp);
		if (!x->qpx) {
			failf("setup what=qp_to_qp_ex errno=%d", errno);
			return NULL;
		}
	}
	return x->qp;
}

/*
 * Send depth, receive depth and the two buffer sizes of this side; a
 * buffer size of -1 means none (0 is a buffer of no data bytes).
 */
static void queue_sizes(const struct ctx *c, uint32_t *sq, uint32_t *rq,
			int64_t *src, int64_t *dst)
{
	int64_t region = (int64_t)c->slots * c->o.size;

	*sq = 1;
	*rq = 1;
	*src = -1;
	*dst = -1;
	switch (c->o.mode) {
	case MODE_PINGPONG:
		*sq = PINGPONG_RQ;
		*rq = PINGPONG_RQ;
		*src = PINGPONG_SIZE * PINGPONG_RQ;
		*dst = PINGPONG_SIZE;
		break;
	case MODE_XFER:
	case MODE_BADRKEY:
	case MODE_STRADDLE:
		if (c->server) {
			*dst = region;
			*rq = c->o.imm ? c->slots + c->o.extra_recvs : 1;
		} else {
			*src = region;
			*sq = c->slots;
		}
		break;
	}
}

static int setup_verbs(struct ctx *c)
{
	struct ibv_port_attr port;
	uint32_t sq, rq, q;
	int64_t src, dst;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;

	c->ibctx = open_device(c->o.dev);
	if (!c->ibctx)
		return -1;
	if (ibv_query_port(c->ibctx, MRC_PORT, &port))
		return failf("setup what=query_port errno=%d", errno);
	if (port.state != IBV_PORT_ACTIVE)
		return failf("setup what=port_not_active state=%d", port.state);
	c->mtu = port.active_mtu;
	if (ibv_query_gid(c->ibctx, MRC_PORT, c->o.gid_index, &c->gid))
		return failf("setup what=query_gid index=%d errno=%d",
			     c->o.gid_index, errno);
	c->pd = ibv_alloc_pd(c->ibctx);
	if (!c->pd)
		return failf("setup what=alloc_pd errno=%d", errno);

	queue_sizes(c, &sq, &rq, &src, &dst);
	c->scq = ibv_create_cq(c->ibctx, c->o.qps * sq + CQ_SLACK, NULL, NULL,
			       0);
	c->rcq = ibv_create_cq(c->ibctx, c->o.qps * rq + CQ_SLACK, NULL, NULL,
			       0);
	if (!c->scq || !c->rcq)
		return failf("setup what=create_cq errno=%d", errno);
	c->q = calloc(c->o.qps, sizeof(*c->q));
	if (!c->q)
		return failf("setup what=calloc");
	for (q = 0; q < c->o.qps; q++) {
		struct xqp *x = &c->q[q];

		if (!create_qp(c, x, sq, rq))
			return -1;
		x->psn = derived_psn(c, q);
		if (src >= 0 && region_alloc(c, &x->src, src, 0, access))
			return -1;
		if (dst >= 0 &&
		    region_alloc(c, &x->dst, dst, c->o.offset, access))
			return -1;
		x->slot_iter = malloc(c->slots * sizeof(*x->slot_iter));
		if (!x->slot_iter)
			return failf("setup what=malloc");
		memset(x->slot_iter, 0xff, c->slots * sizeof(*x->slot_iter));
	}
	return 0;
}

static void teardown(struct ctx *c)
{
	uint32_t q;

	if (c->q) {
		for (q = 0; q < c->o.qps; q++) {
			if (c->q[q].qp)
				ibv_destroy_qp(c->q[q].qp);
			region_free(&c->q[q].src);
			region_free(&c->q[q].dst);
			free(c->q[q].slot_iter);
		}
		free(c->q);
		c->q = NULL;
	}
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->ibctx)
		ibv_close_device(c->ibctx);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->batch_us);
	c->batch_us = NULL;
}

/* ---- exchange and connect ------------------------------------------ */

static void gid_to_hex(const union ibv_gid *gid, char *out)
{
	int i;

	for (i = 0; i < 16; i++)
		sprintf(out + 2 * i, "%02x", gid->raw[i]);
}

static int gid_from_hex(const char *hex, union ibv_gid *gid)
{
	int i;
	unsigned int b;

	if (strlen(hex) != 32)
		return -1;
	for (i = 0; i < 16; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			return -1;
		gid->raw[i] = b;
	}
	return 0;
}

static int send_qp_info(struct ctx *c)
{
	char hex[33];
	uint32_t q;

	gid_to_hex(&c->gid, hex);
	for (q = 0; q < c->o.qps; q++) {
		const struct region *r = &c->q[q].dst;

		if (send_line(c, "QP %u qpn=%u psn=%u gid=%s rkey=%u addr=%" PRIu64 " len=%" PRIu64,
			      q, c->q[q].qp->qp_num, c->q[q].psn, hex,
			      r->mr ? r->mr->rkey : 0,
			      (uint64_t)(uintptr_t)r->start, r->len))
			return -1;
	}
	return 0;
}

static int recv_qp_info(struct ctx *c)
{
	char line[LINE_LEN], hex[LINE_LEN];
	uint32_t q, idx;

	for (q = 0; q < c->o.qps; q++) {
		struct peer *p = &c->q[q].remote;

		if (recv_line(c, line, sizeof(line)))
			return -1;
		if (sscanf(line, "QP %u qpn=%u psn=%u gid=%64s rkey=%u addr=%" SCNu64 " len=%" SCNu64,
			   &idx, &p->qpn, &p->psn, hex, &p->rkey, &p->addr,
			   &p->len) != 7 || idx != q || gid_from_hex(hex, &p->gid))
			return failf("protocol what=qp_info got=\"%.64s\"", line);
	}
	return 0;
}

static int connect_qp(struct ctx *c, struct xqp *x)
{
	struct mrc_path path = {
		.dgid = x->remote.gid,
		.sgid_index = c->o.gid_index,
		.dest_qpn = x->remote.qpn,
		.rd_atomic = MRC_RD_ATOMIC,
	};
	struct ibv_qp_attr attr;
	int mask, ret;

	ret = mrc_qp_to_init(x->qp);
	if (ret)
		return failf("setup what=qp_to_init errno=%d", ret);
	mrc_rtr_attr(&attr, &mask, &path);
	attr.path_mtu = c->mtu;
	attr.rq_psn = x->remote.psn;
	ret = ibv_modify_qp(x->qp, &attr, mask);
	if (ret)
		return failf("setup what=qp_to_rtr errno=%d", ret);
	mrc_rts_attr(&attr, &mask, &path);
	attr.sq_psn = x->psn;
	ret = ibv_modify_qp(x->qp, &attr, mask);
	if (ret)
		return failf("setup what=qp_to_rts errno=%d", ret);
	return 0;
}

/* ---- posting -------------------------------------------------------- */

struct wr_desc {
	uint64_t wr_id;
	uint64_t laddr;
	uint32_t lkey;
	uint32_t len;
	uint64_t raddr;
	uint32_t rkey;
	bool imm;
	uint32_t imm_data;	/* host order */
};

static int post_writes(struct ctx *c, struct xqp *x, const struct wr_desc *d,
		       uint32_t n)
{
	struct ibv_send_wr wrs[MAX_OUTSTANDING];
	struct ibv_sge sges[MAX_OUTSTANDING];
	struct ibv_send_wr *bad = NULL;
	uint32_t i;
	int ret;

	if (c->o.wr_api) {
		ibv_wr_start(x->qpx);
		for (i = 0; i < n; i++) {
			x->qpx->wr_id = d[i].wr_id;
			x->qpx->wr_flags = IBV_SEND_SIGNALED;
			if (d[i].imm)
				ibv_wr_rdma_write_imm(x->qpx, d[i].rkey,
						      d[i].raddr,
						      htonl(d[i].imm_data));
			else
				ibv_wr_rdma_write(x->qpx, d[i].rkey,
						  d[i].raddr);
			if (d[i].len)
				ibv_wr_set_sge(x->qpx, d[i].lkey, d[i].laddr,
					       d[i].len);
			else
				ibv_wr_set_sge_list(x->qpx, 0, NULL);
		}
		ret = ibv_wr_complete(x->qpx);
		if (ret)
			return failf("post what=wr_complete n=%u errno=%d", n,
				     ret);
		return 0;
	}
	memset(wrs, 0, n * sizeof(wrs[0]));
	for (i = 0; i < n; i++) {
		sges[i].addr = d[i].laddr;
		sges[i].length = d[i].len;
		sges[i].lkey = d[i].lkey;
		wrs[i].wr_id = d[i].wr_id;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = d[i].len ? 1 : 0;
		wrs[i].opcode = d[i].imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
					   IBV_WR_RDMA_WRITE;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].imm_data = htonl(d[i].imm_data);
		wrs[i].wr.rdma.remote_addr = d[i].raddr;
		wrs[i].wr.rdma.rkey = d[i].rkey;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	ret = ibv_post_send(x->qp, wrs, &bad);
	if (ret)
		return failf("post what=post_send n=%u bad_wr=%td errno=%d", n,
			     bad ? bad - wrs : -1, ret);
	return 0;
}

static int post_recvs(struct ctx *c, uint32_t q, uint64_t n)
{
	struct xqp *x = &c->q[q];
	struct ibv_recv_wr wr, *bad;
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = ((uint64_t)q << WRID_QP_SHIFT) | x->recv_posted;
		wr.num_sge = 0;
		ret = ibv_post_recv(x->qp, &wr, &bad);
		if (ret)
			return failf("post what=post_recv qp=%u n=%" PRIu64 " errno=%d",
				     q, x->recv_posted, ret);
		x->recv_posted++;
	}
	return 0;
}

/*
 * Poll cq for one completion: 0; -1 if polling fails; 1 (and no reason
 * set: the caller says what was missing) when the deadline passes.
 */
static int poll_one(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	unsigned int empty = 0;

	for (;;) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n < 0)
			return failf("poll what=%s errno=%d", what, errno);
		if (n == 1)
			return 0;
		if (expired())
			return 1;
		if (++empty >= EMPTY_POLLS_BEFORE_NAP) {
			empty = 0;
			usleep(POLL_NAP_US);
		}
	}
}

static int qp_index(const struct ctx *c, uint32_t qp_num)
{
	uint32_t q;

	for (q = 0; q < c->o.qps; q++)
		if (c->q[q].qp->qp_num == qp_num)
			return q;
	return -1;
}

/* Wait (briefly) for the QP to reach a state; 0, or -1 with the reason. */
static int wait_qp_state(struct xqp *x, enum ibv_qp_state want,
			 const char *side)
{
	double until = now_s() + STATE_WAIT_S;
	int st;

	for (;;) {
		st = mrc_qp_state(x->qp);
		if (st == (int)want)
			return 0;
		if (now_s() > until || expired())
			return failf("qp_state side=%s want=%d got=%d", side,
				     want, st);
		usleep(1000);
	}
}

/* ---- client --------------------------------------------------------- */

static int cmp_double(const void *a, const void *b);
static double percentile(const double *sorted, uint32_t n, double p);

/* --batch-lat: keep @us, one batch's time from first post to last CQE. */
static int batch_lat_add(struct ctx *c, double us)
{
	if (c->nbatch == c->batch_cap) {
		uint32_t cap = c->batch_cap ? 2 * c->batch_cap : BATCH_LAT_CAP0;
		double *p = realloc(c->batch_us, cap * sizeof(*p));

		if (!p)
			return failf("oom where=batch_lat");
		c->batch_us = p;
		c->batch_cap = cap;
	}
	c->batch_us[c->nbatch++] = us;
	return 0;
}

/* --batch-lat: the batch times' percentiles, appended to the RESULT line. */
static void batch_lat_report(struct ctx *c)
{
	size_t len = strlen(c->extra);

	if (!c->nbatch)
		return;
	qsort(c->batch_us, c->nbatch, sizeof(*c->batch_us), cmp_double);
	snprintf(c->extra + len, sizeof(c->extra) - len,
		 "%sbatches=%u batch_p50_us=%.1f batch_p99_us=%.1f batch_max_us=%.1f",
		 len ? " " : "", c->nbatch,
		 percentile(c->batch_us, c->nbatch, PCT_50),
		 percentile(c->batch_us, c->nbatch, PCT_99),
		 c->batch_us[c->nbatch - 1]);
}

static int client_batch(struct ctx *c, uint64_t first, uint32_t n)
{
	struct wr_desc d[MAX_OUTSTANDING];
	static uint32_t seen[MAX_QPS];
	uint32_t q, i, total = c->o.qps * n;
	double t0;

	memset(seen, 0, sizeof(seen));

	/* The payloads first, untimed. */
	for (q = 0; q < c->o.qps; q++)
		for (i = 0; i < n; i++)
			pattern_fill(c->q[q].src.start +
				     (first + i) % c->slots * c->o.size,
				     c->o.size, c->o.seed, q, first + i);
	if (c->o.inject == INJECT_PAYLOAD && first + n == c->o.iters) {
		uint64_t last = c->o.iters - 1;

		c->q[0].src.start[last % c->slots * c->o.size +
				  c->o.size / 2] ^= 0xff;
		printf("mrc_xfer: injected: byte %" PRIu64 " of iteration %" PRIu64 " on QP 0 flipped\n",
		       c->o.size / 2, last);
	}
	t0 = now_s();
	for (q = 0; q < c->o.qps; q++) {
		struct xqp *x = &c->q[q];

		for (i = 0; i < n; i++) {
			uint64_t iter = first + i;
			uint64_t off = iter % c->slots * c->o.size;

			d[i] = (struct wr_desc){
				.wr_id = ((uint64_t)q << WRID_QP_SHIFT) | iter,
				.laddr = (uintptr_t)(x->src.start + off),
				.lkey = x->src.mr->lkey,
				.len = c->o.size,
				.raddr = x->remote.addr + off,
				.rkey = x->remote.rkey,
				.imm = c->o.imm,
				.imm_data = (q << IMM_QP_SHIFT) |
					    (iter & IMM_ITER_MASK),
			};
		}
		if (c->o.inject == INJECT_IMM && !q &&
		    first + n == c->o.iters) {
			d[n - 1].imm_data ^= 1;
			printf("mrc_xfer: injected: immediate of iteration %" PRIu64 " on QP 0 is 0x%08x\n",
			       first + n - 1, d[n - 1].imm_data);
		}
		if (post_writes(c, x, d, n))
			return -1;
	}
	/* Every WR signaled: per QP, in posting order, all successful. */
	for (i = 0; i < total; i++) {
		struct ibv_wc wc;
		uint64_t want;
		int qi, ret;

		ret = poll_one(c->scq, &wc, "send_cqe");
		if (ret > 0)
			return failf("timeout where=send_cqe batch_first=%" PRIu64 " got=%u of=%u",
				     first, i, total);
		if (ret)
			return -1;
		qi = qp_index(c, wc.qp_num);
		if (qi < 0)
			return failf("cqe what=unknown_qp qp_num=%u", wc.qp_num);
		if (wc.status != IBV_WC_SUCCESS)
			return failf("cqe what=send_status qp=%d iter=%" PRIu64 " status=%s vendor_err=%u",
				     qi, (uint64_t)(wc.wr_id & 0xffffffffU),
				     ibv_wc_status_str(wc.status),
				     wc.vendor_err);
		want = ((uint64_t)qi << WRID_QP_SHIFT) | (first + seen[qi]);
		if (seen[qi] >= n || wc.wr_id != want)
			return failf("cqe what=send_order qp=%d want_iter=%" PRIu64 " got_iter=%" PRIu64,
				     qi, first + seen[qi],
				     (uint64_t)(wc.wr_id & 0xffffffffU));
		if (wc.opcode != IBV_WC_RDMA_WRITE)
			return failf("cqe what=send_opcode qp=%d opcode=%d", qi,
				     wc.opcode);
		seen[qi]++;
		c->q[qi].send_done++;
	}
	c->secs += now_s() - t0;
	c->bytes += (uint64_t)total * c->o.size;
	if (c->o.batch_lat)
		return batch_lat_add(c, (now_s() - t0) * US_PER_S);
	return 0;
}

/*
 * Between batches, while --pause-file exists: every WR posted so far has
 * completed, so the QPs stay connected with nothing outstanding.  Says so
 * once on stdout ("paused"), for a test that waits for the idle QPs.
 */
static int client_pause(struct ctx *c)
{
	bool said = false;

	while (c->o.pause_file && !access(c->o.pause_file, F_OK)) {
		if (!said) {
			printf("mrc_xfer: paused\n");
			fflush(stdout);
			said = true;
		}
		if (expired())
			return failf("timeout where=pause");
		usleep(PAUSE_NAP_US);
	}
	if (said) {
		printf("mrc_xfer: resumed\n");
		fflush(stdout);
	}
	return 0;
}

static int client_xfer(struct ctx *c)
{
	char line[LINE_LEN];
	uint64_t first;

	for (first = 0; first < c->o.iters; first += c->slots) {
		uint32_t n = c->o.iters - first < c->slots ?
			     c->o.iters - first : c->slots;

		/* A test ends an open-ended run once it has seen enough. */
		if (first && c->o.stop_file && !access(c->o.stop_file, F_OK))
			break;
		if (first && client_pause(c))
			return -1;
		if (client_batch(c, first, n))
			return -1;
		if (send_line(c, "BATCH %" PRIu64 " %u", first, n) ||
		    recv_reply(c, line, sizeof(line)))
			return -1;
	}
	if (send_line(c, "DONE") || recv_reply(c, line, sizeof(line)))
		return -1;
	if (line[2])
		snprintf(c->extra, sizeof(c->extra), "%s", line + 3);
	if (c->o.batch_lat)
		batch_lat_report(c);
	return 0;
}

/* Poll n send CQEs into wc, in any order; fail on timeout. */
static int client_poll_n(struct ctx *c, struct ibv_wc *wc, uint32_t n)
{
	uint32_t i;

	int ret;

	for (i = 0; i < n; i++) {
		ret = poll_one(c->scq, &wc[i], "send_cqe");
		if (ret > 0)
			return failf("timeout where=send_cqe got=%u of=%u", i,
				     n);
		if (ret)
			return -1;
	}
	return 0;
}

static int client_badrkey(struct ctx *c)
{
	static const enum ibv_wc_status want[BADRKEY_WRS] = {
		IBV_WC_SUCCESS, IBV_WC_REM_ACCESS_ERR, IBV_WC_WR_FLUSH_ERR,
	};
	struct xqp *x = &c->q[0];
	struct wr_desc d[BADRKEY_WRS];
	struct ibv_wc wc[BADRKEY_WRS];
	char line[LINE_LEN];
	uint32_t i;

	for (i = 0; i < BADRKEY_WRS; i++) {
		uint8_t *src = x->src.start + (uint64_t)i * c->o.size;

		pattern_fill(src, c->o.size, c->o.seed, 0, i);
		d[i] = (struct wr_desc){
			.wr_id = i + 1,
			.laddr = (uintptr_t)src,
			.lkey = x->src.mr->lkey,
			.len = c->o.size,
			.raddr = x->remote.addr + (uint64_t)i * c->o.size,
			.rkey = x->remote.rkey ^ (i == 1 ? BADRKEY_XOR : 0),
		};
	}
	printf("mrc_xfer: WR1 rkey 0x%x, WR2 rkey 0x%x (wrong), WR3 rkey 0x%x\n",
	       d[0].rkey, d[1].rkey, d[2].rkey);
	if (post_writes(c, x, d, BADRKEY_WRS) ||
	    client_poll_n(c, wc, BADRKEY_WRS))
		return -1;
	for (i = 0; i < BADRKEY_WRS; i++) {
		printf("mrc_xfer: WR%" PRIu64 " status %s\n", wc[i].wr_id,
		       ibv_wc_status_str(wc[i].status));
		if (wc[i].wr_id != i + 1)
			return failf("cqe what=order index=%u wr=%" PRIu64, i,
				     wc[i].wr_id);
		if (wc[i].status != want[i])
			return failf("cqe what=status wr=%u want=%s got=%s", i + 1,
				     ibv_wc_status_str(want[i]),
				     ibv_wc_status_str(wc[i].status));
	}
	if (wait_qp_state(x, IBV_QPS_ERR, "client"))
		return -1;
	if (send_line(c, "CHECK badrkey") || recv_reply(c, line, sizeof(line)))
		return -1;
	if (line[2])
		snprintf(c->extra, sizeof(c->extra), "%s", line + 3);
	c->bytes = c->o.size;
	return 0;
}

/* The part of a straddling write that lies inside the MR. */
static uint64_t straddle_inside(uint64_t size)
{
	return size - size / 3;
}

static int client_straddle(struct ctx *c)
{
	struct xqp *x = &c->q[0];
	uint64_t inside = straddle_inside(c->o.size);
	struct wr_desc d;
	struct ibv_wc wc;
	char line[LINE_LEN];

	pattern_fill(x->src.start, c->o.size, c->o.seed, 0, 0);
	d = (struct wr_desc){
		.wr_id = 1,
		.laddr = (uintptr_t)x->src.start,
		.lkey = x->src.mr->lkey,
		.len = c->o.size,
		.raddr = x->remote.addr + x->remote.len - inside,
		.rkey = x->remote.rkey,
	};
	printf("mrc_xfer: write of %" PRIu64 " bytes at MR end - %" PRIu64 " (%" PRIu64 " bytes past the end)\n",
	       c->o.size, inside, c->o.size - inside);
	if (post_writes(c, x, &d, 1) || client_poll_n(c, &wc, 1))
		return -1;
	printf("mrc_xfer: status %s\n", ibv_wc_status_str(wc.status));
	if (wc.status != IBV_WC_REM_ACCESS_ERR)
		return failf("cqe what=status want=%s got=%s",
			     ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
			     ibv_wc_status_str(wc.status));
	if (wait_qp_state(x, IBV_QPS_ERR, "client"))
		return -1;
	if (send_line(c, "CHECK straddle") || recv_reply(c, line, sizeof(line)))
		return -1;
	if (line[2])
		snprintf(c->extra, sizeof(c->extra), "%s", line + 3);
	return 0;
}

/* ---- server --------------------------------------------------------- */

/* Every slot and canary of every QP as expected. */
static int server_verify(struct ctx *c)
{
	struct mismatch mm;
	uint32_t q, s;

	for (q = 0; q < c->o.qps; q++) {
		struct xqp *x = &c->q[q];

		for (s = 0; s < c->slots; s++) {
			const uint8_t *p = x->dst.start +
					   (uint64_t)s * c->o.size;
			int64_t it = x->slot_iter[s];

			if (it < 0 ? zero_check(p, c->o.size, &mm) :
				     pattern_check(p, c->o.size, c->o.seed, q,
						   it, &mm))
				continue;
			return failf("mismatch qp=%u slot=%u iter=%" PRId64 " offset=%" PRIu64 " want=0x%02x got=0x%02x bytes=%" PRIu64,
				     q, s, it, mm.off, mm.want, mm.got,
				     mm.count);
		}
		if (check_canaries(c, q))
			return -1;
	}
	return 0;
}

/* The receive CQEs of iterations first .. first + n - 1 on every QP. */
static int server_recv_batch(struct ctx *c, uint64_t first, uint32_t n)
{
	uint32_t total = c->o.qps * n, i, q;
	uint64_t *seen = calloc(c->o.qps, sizeof(*seen));
	struct ibv_wc wc;
	int ret = -1;

	if (!seen)
		return failf("internal what=calloc");
	for (i = 0; i < total; i++) {
		uint64_t iter;
		uint32_t want_imm, got_imm;
		struct xqp *x;
		int qi;

		if (poll_one(c->rcq, &wc, "recv_cqe")) {
			failf("recv_cqe what=missing batch_first=%" PRIu64 " got=%u of=%u",
			      first, i, total);
			goto out;
		}	/* (a polling error has set its own reason first) */
		qi = qp_index(c, wc.qp_num);
		if (qi < 0) {
			failf("recv_cqe what=unknown_qp qp_num=%u", wc.qp_num);
			goto out;
		}
		x = &c->q[qi];
		iter = first + seen[qi];
		want_imm = (qi << IMM_QP_SHIFT) | (iter & IMM_ITER_MASK);
		got_imm = ntohl(wc.imm_data);
		if (wc.status != IBV_WC_SUCCESS) {
			failf("recv_cqe what=status qp=%d iter=%" PRIu64 " status=%s",
			      qi, iter, ibv_wc_status_str(wc.status));
			goto out;
		}
		if (seen[qi] >= n) {
			failf("recv_cqe what=extra qp=%d imm=0x%08x", qi,
			      got_imm);
			goto out;
		}
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    !(wc.wc_flags & IBV_WC_WITH_IMM)) {
			failf("recv_cqe what=opcode qp=%d opcode=%d flags=0x%x",
			      qi, wc.opcode, wc.wc_flags);
			goto out;
		}
		if (got_imm != want_imm) {
			failf("recv_cqe what=imm_order qp=%d want=0x%08x got=0x%08x",
			      qi, want_imm, got_imm);
			goto out;
		}
		if (wc.byte_len != c->o.size) {
			failf("recv_cqe what=byte_len qp=%d iter=%" PRIu64 " want=%" PRIu64 " got=%u",
			      qi, iter, c->o.size, wc.byte_len);
			goto out;
		}
		if (wc.wr_id != (((uint64_t)qi << WRID_QP_SHIFT) | x->recv_done)) {
			failf("recv_cqe what=wr_id qp=%d want=%" PRIu64 " got=%" PRIu64,
			      qi, x->recv_done, (uint64_t)(wc.wr_id & 0xffffffffU));
			goto out;
		}
		seen[qi]++;
		x->recv_done++;
	}
	/* One CQE per WriteIMM: nothing more may be there. */
	if (ibv_poll_cq(c->rcq, 1, &wc) != 0) {
		failf("recv_cqe what=extra_after_batch qp_num=%u status=%s imm=0x%08x",
		      wc.qp_num, ibv_wc_status_str(wc.status),
		      ntohl(wc.imm_data));
		goto out;
	}
	/* Keep iters + extra receives posted in all, no more. */
	for (q = 0; q < c->o.qps; q++) {
		uint64_t goal = (uint64_t)c->o.iters + c->o.extra_recvs;
		uint64_t more = goal - c->q[q].recv_posted;

		if (more > n)
			more = n;
		if (post_recvs(c, q, more))
			goto out;
	}
	ret = 0;
out:
	free(seen);
	return ret;
}

static int server_batch(struct ctx *c, const char *line)
{
	uint64_t first, it;
	uint32_t n, q;

	if (sscanf(line, "BATCH %" SCNu64 " %u", &first, &n) != 2 || !n ||
	    n > c->slots || first + n > c->o.iters)
		return failf("protocol got=\"%.64s\"", line);
	if (c->o.imm && server_recv_batch(c, first, n))
		return -1;
	for (q = 0; q < c->o.qps; q++)
		for (it = first; it < first + n; it++)
			c->q[q].slot_iter[it % c->slots] = it;
	if (c->o.inject == INJECT_CANARY && !first) {
		struct region *r = &c->q[0].dst;

		r->start[r->len] ^= 0xff;
		printf("mrc_xfer: injected: the byte after the MR of QP 0 flipped\n");
	}
	if (server_verify(c))
		return -1;
	c->bytes += (uint64_t)n * c->o.qps * c->o.size;
	return 0;
}

/* After the last batch: the extra receives are there, unconsumed. */
static int server_flush_recvs(struct ctx *c)
{
	uint64_t want = 0, got = 0;
	struct ibv_wc wc;
	uint32_t q;
	int ret;

	if (ibv_poll_cq(c->rcq, 1, &wc) != 0)
		return failf("recv_cqe what=extra_at_end qp_num=%u status=%s",
			     wc.qp_num, ibv_wc_status_str(wc.status));
	for (q = 0; q < c->o.qps; q++) {
		ret = mrc_qp_to_state(c->q[q].qp, IBV_QPS_ERR);
		if (ret)
			return failf("setup what=qp_to_err errno=%d", ret);
		want += c->q[q].recv_posted - c->q[q].recv_done;
	}
	while (got < want) {
		int qi;

		if (poll_one(c->rcq, &wc, "flush_cqe"))
			return failf("flush what=missing want=%" PRIu64 " got=%" PRIu64,
				     want, got);
		qi = qp_index(c, wc.qp_num);
		if (qi < 0 || wc.status != IBV_WC_WR_FLUSH_ERR)
			return failf("flush what=status qp_num=%u status=%s",
				     wc.qp_num, ibv_wc_status_str(wc.status));
		c->q[qi].recv_flushed++;
		got++;
	}
	if (ibv_poll_cq(c->rcq, 1, &wc) != 0)
		return failf("flush what=extra qp_num=%u status=%s", wc.qp_num,
			     ibv_wc_status_str(wc.status));
	for (q = 0; q < c->o.qps; q++)
		if (c->q[q].recv_flushed != c->o.extra_recvs)
			return failf("flush what=unconsumed qp=%u want=%u got=%" PRIu64,
				     q, c->o.extra_recvs,
				     c->q[q].recv_flushed);
	return 0;
}

static int server_check_badrkey(struct ctx *c)
{
	struct xqp *x = &c->q[0];
	const uint8_t *slot2 = x->dst.start + 2 * c->o.size;
	struct mismatch mm;
	bool landed;

	if (!pattern_check(x->dst.start, c->o.size, c->o.seed, 0, 0, &mm))
		return failf("mismatch wr=1 offset=%" PRIu64 " want=0x%02x got=0x%02x bytes=%" PRIu64,
			     mm.off, mm.want, mm.got, mm.count);
	if (!zero_check(x->dst.start + c->o.size, c->o.size, &mm))
		return failf("bad_rkey_wrote offset=%" PRIu64 " got=0x%02x bytes=%" PRIu64,
			     mm.off, mm.got, mm.count);
	if (check_canaries(c, 0))
		return -1;
	/* WR3 was flushed at the requester; its bytes may have landed. */
	landed = pattern_check(slot2, c->o.size, c->o.seed, 0, 2, &mm);
	if (!landed && !zero_check(slot2, c->o.size, &mm))
		return failf("mismatch wr=3 what=neither_pattern_nor_untouched offset=%" PRIu64,
			     mm.off);
	if (wait_qp_state(x, IBV_QPS_ERR, "server"))
		return -1;
	snprintf(c->extra, sizeof(c->extra), "wr3_landed=%d", landed);
	c->bytes = c->o.size;
	return 0;
}

static int server_check_straddle(struct ctx *c)
{
	struct xqp *x = &c->q[0];
	uint64_t inside = straddle_inside(c->o.size);
	uint64_t before = x->dst.len - inside, i, landed = 0;
	struct mismatch mm;
	struct gen g;
	uint8_t *want;

	if (check_canaries(c, 0))
		return -1;
	if (!zero_check(x->dst.start, before, &mm))
		return failf("wrote_before_start offset=%" PRIu64 " got=0x%02x",
			     mm.off, mm.got);
	/* Inside the MR each byte is untouched or the payload's. */
	want = malloc(c->o.size);
	if (!want)
		return failf("internal what=malloc");
	gen_init(&g, c->o.seed, 0, 0);
	gen_fill(&g, want, c->o.size);
	want[0] = pattern_marker(0);
	for (i = 0; i < inside; i++) {
		uint8_t b = x->dst.start[before + i];
		uint8_t w = want[i];

		if (b == w && b) {
			landed++;
		} else if (b) {
			free(want);
			return failf("mismatch offset=%" PRIu64 " want=0x%02x got=0x%02x",
				     before + i, w, b);
		}
	}
	free(want);
	if (wait_qp_state(x, IBV_QPS_ERR, "server"))
		return -1;
	snprintf(c->extra, sizeof(c->extra), "inside_landed_bytes=%" PRIu64,
		 landed);
	return 0;
}

static int server_run(struct ctx *c)
{
	char line[LINE_LEN];
	double t0 = now_s();

	for (;;) {
		if (recv_line(c, line, sizeof(line)))
			return -1;
		if (!strncmp(line, "BATCH ", 6)) {
			if (server_batch(c, line))
				return -1;
			if (send_line(c, "OK"))
				return -1;
		} else if (!strcmp(line, "DONE") && c->o.mode == MODE_XFER) {
			uint64_t cqes = 0;
			uint32_t q;

			if (c->o.imm && server_flush_recvs(c))
				return -1;
			if (server_verify(c))
				return -1;
			for (q = 0; q < c->o.qps; q++)
				cqes += c->q[q].recv_done;
			snprintf(c->extra, sizeof(c->extra),
				 "recv_cqes=%" PRIu64 " unconsumed_recvs=%" PRIu64,
				 cqes, c->o.imm ? (uint64_t)c->o.extra_recvs *
						  c->o.qps : 0);
			c->secs = now_s() - t0;
			return send_line(c, "OK %s", c->extra);
		} else if (!strcmp(line, "CHECK badrkey") &&
			   c->o.mode == MODE_BADRKEY) {
			if (server_check_badrkey(c))
				return -1;
			return send_line(c, "OK %s", c->extra);
		} else if (!strcmp(line, "CHECK straddle") &&
			   c->o.mode == MODE_STRADDLE) {
			if (server_check_straddle(c))
				return -1;
			return send_line(c, "OK %s", c->extra);
		} else if (!strncmp(line, "FAIL ", 5)) {
			return failf("peer %s", line + 5);
		} else {
			return failf("protocol got=\"%.64s\"", line);
		}
	}
}

/* ---- ping-pong ------------------------------------------------------ */

static uint64_t pp_value(uint64_t seed, bool from_server, uint64_t i)
{
	uint64_t s = seed ^ (from_server ? 0x5E5E5E5EULL : 0xC1C1C1C1ULL) ^
		     (i * 0x9E3779B97F4A7C15ULL);

	return splitmix64(&s);
}

/* Reap finished sends without waiting. */
static int pp_reap_sends(struct ctx *c, uint32_t *inflight)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(c->scq, 1, &wc)) == 1) {
		if (wc.status != IBV_WC_SUCCESS)
			return failf("cqe what=send_status status=%s",
				     ibv_wc_status_str(wc.status));
		(*inflight)--;
	}
	if (n < 0)
		return failf("poll what=send errno=%d", errno);
	return 0;
}

/* Wait for the peer's WriteIMM number i and check its 8 bytes. */
static int pp_wait(struct ctx *c, uint64_t i, uint32_t *inflight)
{
	struct xqp *x = &c->q[0];
	uint64_t want = pp_value(c->o.seed, !c->server, i), got;
	unsigned int empty = 0;
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(c->rcq, 1, &wc);
		if (n < 0)
			return failf("poll what=recv errno=%d", errno);
		if (n == 1)
			break;
		if (pp_reap_sends(c, inflight))
			return -1;
		if (expired())
			return failf("timeout where=pingpong iter=%" PRIu64, i);
		if (++empty >= EMPTY_POLLS_BEFORE_NAP * 16) {
			empty = 0;
			sched_yield();
		}
	}
	if (wc.status != IBV_WC_SUCCESS)
		return failf("recv_cqe what=status iter=%" PRIu64 " status=%s",
			     i, ibv_wc_status_str(wc.status));
	if (ntohl(wc.imm_data) != (i & 0xffffffffULL) ||
	    wc.byte_len != PINGPONG_SIZE)
		return failf("recv_cqe what=imm iter=%" PRIu64 " imm=%u byte_len=%u",
			     i, ntohl(wc.imm_data), wc.byte_len);
	memcpy(&got, x->dst.start, sizeof(got));
	if (got != want)
		return failf("mismatch iter=%" PRIu64 " want=0x%016" PRIx64 " got=0x%016" PRIx64,
			     i, want, got);
	x->recv_done++;
	return post_recvs(c, 0, 1);
}

static int pp_send(struct ctx *c, uint64_t i, uint32_t *inflight)
{
	struct xqp *x = &c->q[0];
	uint64_t v = pp_value(c->o.seed, c->server, i);
	uint8_t *src = x->src.start + i % PINGPONG_RQ * PINGPONG_SIZE;
	struct wr_desc d = {
		.wr_id = i,
		.laddr = (uintptr_t)src,
		.lkey = x->src.mr->lkey,
		.len = PINGPONG_SIZE,
		.raddr = x->remote.addr,
		.rkey = x->remote.rkey,
		.imm = true,
		.imm_data = (uint32_t)i,
	};

	while (*inflight >= PINGPONG_RQ / 2) {
		if (pp_reap_sends(c, inflight))
			return -1;
		if (expired())
			return failf("timeout where=pingpong_send iter=%" PRIu64, i);
	}
	/*
	 * A ring of source slots: with at most PINGPONG_RQ / 2 writes in
	 * flight (completions come in order), the one that used this slot
	 * last has completed.
	 */
	memcpy(src, &v, sizeof(v));
	if (post_writes(c, x, &d, 1))
		return -1;
	(*inflight)++;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double percentile(const double *sorted, uint32_t n, double p)
{
	double exact = p * n;
	uint32_t rank = (uint32_t)exact;

	/* Nearest rank: ceil(p * n). */
	if (rank < exact)
		rank++;

	return sorted[rank ? rank - 1 : 0];
}

static int run_pingpong(struct ctx *c)
{
	uint32_t inflight = 0;
	double *rtt = NULL, t0, start;
	char line[LINE_LEN];
	uint64_t i;
	int ret = -1;

	if (!c->server) {
		rtt = malloc(c->o.iters * sizeof(*rtt));
		if (!rtt)
			return failf("internal what=malloc");
	}
	start = now_s();
	for (i = 0; i < c->o.iters; i++) {
		if (c->server) {
			if (pp_wait(c, i, &inflight) ||
			    pp_send(c, i, &inflight))
				goto out;
		} else {
			t0 = now_s();
			if (pp_send(c, i, &inflight) ||
			    pp_wait(c, i, &inflight))
				goto out;
			rtt[i] = (now_s() - t0) * US_PER_S;
		}
	}
	while (inflight) {
		if (pp_reap_sends(c, &inflight))
			goto out;
		if (expired()) {
			failf("timeout where=pingpong_drain");
			goto out;
		}
	}
	c->secs = now_s() - start;
	c->bytes = 2 * PINGPONG_SIZE * (uint64_t)c->o.iters;
	if (c->server) {
		if (recv_line(c, line, sizeof(line)))
			goto out;
		if (strcmp(line, "DONE")) {
			failf("protocol got=\"%.64s\"", line);
			goto out;
		}
		ret = send_line(c, "OK");
		goto out;
	}
	qsort(rtt, c->o.iters, sizeof(*rtt), cmp_double);
	snprintf(c->extra, sizeof(c->extra),
		 "iters=%u min_us=%.1f p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f",
		 c->o.iters, rtt[0], percentile(rtt, c->o.iters, PCT_50),
		 percentile(rtt, c->o.iters, PCT_99),
		 percentile(rtt, c->o.iters, PCT_999), rtt[c->o.iters - 1]);
	printf("PINGPONG %s\n", c->extra);
	if (send_line(c, "DONE") || recv_reply(c, line, sizeof(line)))
		goto out;
	ret = 0;
out:
	free(rtt);
	return ret;
}

/* ---- the session ---------------------------------------------------- */

static int choose_slots(struct ctx *c)
{
	struct opts *o = &c->o;
	uint64_t per_qp;

	switch (o->mode) {
	case MODE_PINGPONG:
		c->slots = 1;
		return 0;
	case MODE_BADRKEY:
		c->slots = BADRKEY_WRS;
		return 0;
	case MODE_STRADDLE:
		c->slots = 1;
		return 0;
	case MODE_XFER:
		break;
	}
	if (!o->outstanding) {
		uint64_t fit = o->size ? AUTO_OUTSTANDING_BYTES / o->size : 0;

		if (!o->size || fit > AUTO_OUTSTANDING_MAX)
			fit = AUTO_OUTSTANDING_MAX;
		o->outstanding = fit ? fit : 1;
	}
	c->slots = o->outstanding < o->iters ? o->outstanding : o->iters;
	per_qp = (uint64_t)c->slots * o->size;
	if (per_qp * o->qps > MAX_REGION_BYTES)
		return failf("usage what=too_much_memory bytes=%" PRIu64 " max=%llu",
			     per_qp * o->qps, MAX_REGION_BYTES);
	return 0;
}

static const char *mode_name(enum mode m)
{
	return mode_names[m];
}

static int parse_mode(const char *s, enum mode *m)
{
	unsigned int i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*m = i;
			return 0;
		}
	}
	return -1;
}

static int client_hello(struct ctx *c)
{
	return send_line(c, "HELLO v=%d mode=%s size=%" PRIu64 " iters=%u qps=%u imm=%d slots=%u extra=%u seed=%" PRIu64 " psn=%" PRId64,
		      PROTO_VERSION, mode_name(c->o.mode), c->o.size,
		      c->o.iters, c->o.qps, c->o.imm, c->slots,
		      c->o.extra_recvs, c->o.seed, c->o.psn);
}

static int server_hello(struct ctx *c)
{
	char line[LINE_LEN], mode[32];
	int v, imm;
	struct opts *o = &c->o;

	if (recv_line(c, line, sizeof(line)))
		return -1;
	if (sscanf(line, "HELLO v=%d mode=%31s size=%" SCNu64 " iters=%u qps=%u imm=%d slots=%u extra=%u seed=%" SCNu64 " psn=%" SCNd64,
		   &v, mode, &o->size, &o->iters, &o->qps, &imm, &c->slots,
		   &o->extra_recvs, &o->seed, &o->psn) != 10 ||
	    v != PROTO_VERSION || parse_mode(mode, &o->mode) ||
	    o->size > MAX_SIZE || !o->qps || o->qps > MAX_QPS || !o->iters ||
	    (imm && o->qps > MAX_IMM_QPS) ||
	    !c->slots || c->slots > MAX_OUTSTANDING ||
	    o->extra_recvs > MAX_EXTRA_RECVS ||
	    (uint64_t)c->slots * o->size * o->qps > MAX_REGION_BYTES) {
		send_line(c, "FAIL protocol what=hello");
		return failf("protocol what=hello got=\"%.64s\"", line);
	}
	o->imm = imm;
	printf("mrc_xfer: client asks mode=%s size=%" PRIu64 " iters=%u qps=%u imm=%d slots=%u extra_recvs=%u\n",
	       mode, o->size, o->iters, o->qps, o->imm, c->slots,
	       o->extra_recvs);
	fflush(stdout);
	return 0;
}

static int session(struct ctx *c)
{
	char line[LINE_LEN];
	uint32_t q;

	/* The client's parameters; the server sets up and says OK. */
	if (c->server) {
		if (tcp_listen_accept(c) || server_hello(c) ||
		    setup_verbs(c) || send_line(c, "OK"))
			return -1;
	} else {
		if (choose_slots(c) || tcp_connect(c) || client_hello(c) ||
		    setup_verbs(c) || recv_reply(c, line, sizeof(line)))
			return -1;
	}
	if (send_qp_info(c) || recv_qp_info(c))
		return -1;
	for (q = 0; q < c->o.qps; q++)
		if (connect_qp(c, &c->q[q]))
			return -1;
	/* Receives before the peer may send. */
	if (c->o.mode == MODE_PINGPONG) {
		if (post_recvs(c, 0, PINGPONG_RQ))
			return -1;
	} else if (c->server && c->o.imm) {
		uint64_t first = (uint64_t)c->slots + c->o.extra_recvs;
		uint64_t all = (uint64_t)c->o.iters + c->o.extra_recvs;

		for (q = 0; q < c->o.qps; q++)
			if (post_recvs(c, q, first < all ? first : all))
				return -1;
	}
	/* Both sides ready: each says so and waits for the other. */
	if (send_line(c, "READY") || recv_line(c, line, sizeof(line)))
		return -1;
	if (strcmp(line, "READY"))
		return failf("protocol got=\"%.64s\"", line);
	printf("mrc_xfer: %s connected: %u QP(s), mtu %d, first QPN %u, remote QPN %u\n",
	       c->server ? "server" : "client", c->o.qps,
	       128 << c->mtu, c->q[0].qp->qp_num, c->q[0].remote.qpn);
	fflush(stdout);

	if (c->o.mode == MODE_PINGPONG)
		return run_pingpong(c);
	if (c->server)
		return server_run(c);
	switch (c->o.mode) {
	case MODE_BADRKEY:
		return client_badrkey(c);
	case MODE_STRADDLE:
		return client_straddle(c);
	default:
		return client_xfer(c);
	}
}

/* ---- options -------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
"usage: mrc_xfer -d DEV -g GIDIDX [-p PORT] [--timeout S] [--offset B]   (server)\n"
"       mrc_xfer -d DEV -g GIDIDX [-p PORT] [options] SERVER_IP           (client)\n"
"\n"
"  -d, --device DEV        the mrc device\n"
"  -g, --gid-index N       source GID index (the peer learns the GID)\n"
"  -p, --port PORT         TCP port of the exchange (default %d)\n"
"      --timeout S         bound on the whole run (default %.0f)\n"
"      --offset B          server: MR starts B bytes into a page (default 0)\n"
"  -v, --verbose           protocol trace on stderr\n"
"client only (the server adopts them):\n"
"      --size BYTES        per write, 0..64M, K/M suffixes (default %d)\n"
"  -n, --iters N           writes per QP (default %d; pingpong %d)\n"
"      --qps N             QPs (default 1, at most %d; %d with --imm)\n"
"      --outstanding N     WRs in flight per QP (default: up to %d, 16 MiB)\n"
"      --imm               RDMA WRITE with immediate\n"
"      --extra-recvs K     server posts K more receives per QP, checks\n"
"                          they are left unconsumed (with --imm)\n"
"      --seed S            payload seed (default %d)\n"
"      --psn P             first PSN of every QP (default from the seed)\n"
"      --wr-api            post with ibv_wr_* instead of ibv_post_send\n"
"      --stop-file PATH    stop after the batch during which PATH appears\n"
"      --pause-file PATH   between batches, post nothing while PATH exists\n"
"                          (prints \"mrc_xfer: paused\", then \"resumed\")\n"
"      --batch-lat         time each batch (first post to last CQE) and add\n"
"                          batches= batch_p50_us= batch_p99_us= batch_max_us=\n"
"                          to the RESULT line\n"
"                          (--iters is then the most it writes)\n"
"      --bad-rkey-middle   WR1 good, WR2 wrong rkey, WR3 good\n"
"      --straddle          one write running past the end of the MR\n"
"      --pingpong          8-byte WriteIMM round trips, percentiles\n"
"self-tests of the checks (the run must then fail):\n"
"      --inject payload    client: flip a byte of the last write's payload\n"
"      --inject imm        client: a wrong immediate on the last write\n"
"      --inject canary     server: flip the byte after the MR\n",
		DEFAULT_TCP_PORT, DEFAULT_TIMEOUT_S, DEFAULT_SIZE,
		DEFAULT_ITERS, DEFAULT_PP_ITERS, MAX_QPS, MAX_IMM_QPS,
		AUTO_OUTSTANDING_MAX, DEFAULT_SEED);
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v, bool suffix)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	if (suffix && (*end == 'K' || *end == 'k')) {
		x <<= 10;
		end++;
	} else if (suffix && (*end == 'M' || *end == 'm')) {
		x <<= 20;
		end++;
	}
	if (*end || x > max)
		return -1;
	*v = x;
	return 0;
}

enum {
	OPT_SIZE = 256, OPT_QPS, OPT_IMM, OPT_EXTRA, OPT_OUTSTANDING,
	OPT_SEED, OPT_WR_API, OPT_TIMEOUT, OPT_BADRKEY, OPT_STRADDLE,
	OPT_PINGPONG, OPT_OFFSET, OPT_PSN, OPT_INJECT, OPT_STOP_FILE,
	OPT_PAUSE_FILE,
	OPT_BATCH_LAT,
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "gid-index", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "iters", required_argument, NULL, 'n' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "qps", required_argument, NULL, OPT_QPS },
		{ "imm", no_argument, NULL, OPT_IMM },
		{ "extra-recvs", required_argument, NULL, OPT_EXTRA },
		{ "outstanding", required_argument, NULL, OPT_OUTSTANDING },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "wr-api", no_argument, NULL, OPT_WR_API },
		{ "timeout", required_argument, NULL, OPT_TIMEOUT },
		{ "bad-rkey-middle", no_argument, NULL, OPT_BADRKEY },
		{ "straddle", no_argument, NULL, OPT_STRADDLE },
		{ "pingpong", no_argument, NULL, OPT_PINGPONG },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "psn", required_argument, NULL, OPT_PSN },
		{ "inject", required_argument, NULL, OPT_INJECT },
		{ "stop-file", required_argument, NULL, OPT_STOP_FILE },
		{ "pause-file", required_argument, NULL, OPT_PAUSE_FILE },
		{ "batch-lat", no_argument, NULL, OPT_BATCH_LAT },
		{ NULL, 0, NULL, 0 },
	};
	bool iters_set = false, size_set = false;
	int ch, modes = 0;
	uint64_t v;
	char *end;

	memset(o, 0, sizeof(*o));
	o->gid_index = -1;
	o->port = NULL;
	o->size = DEFAULT_SIZE;
	o->iters = DEFAULT_ITERS;
	o->qps = 1;
	o->seed = DEFAULT_SEED;
	o->timeout = DEFAULT_TIMEOUT_S;
	o->psn = -1;
	o->mode = MODE_XFER;

	while ((ch = getopt_long(argc, argv, "d:g:p:n:vh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			o->dev = optarg;
			break;
		case 'g':
			if (parse_u64(optarg, INT_MAX, &v, false))
				return -1;
			o->gid_index = v;
			break;
		case 'p':
			if (parse_u64(optarg, 65535, &v, false) || !v)
				return -1;
			o->port = optarg;
			break;
		case 'n':
			if (parse_u64(optarg, MAX_ITERS, &v, false) || !v)
				return -1;
			o->iters = v;
			iters_set = true;
			o->transfer_opt_given = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case OPT_SIZE:
			if (parse_u64(optarg, MAX_SIZE, &o->size, true))
				return -1;
			size_set = true;
			o->transfer_opt_given = true;
			break;
		case OPT_QPS:
			if (parse_u64(optarg, MAX_QPS, &v, false) || !v)
				return -1;
			o->qps = v;
			o->transfer_opt_given = true;
			break;
		case OPT_IMM:
			o->imm = true;
			o->transfer_opt_given = true;
			break;
		case OPT_EXTRA:
			if (parse_u64(optarg, MAX_EXTRA_RECVS, &v, false))
				return -1;
			o->extra_recvs = v;
			o->transfer_opt_given = true;
			break;
		case OPT_OUTSTANDING:
			if (parse_u64(optarg, MAX_OUTSTANDING, &v, false) || !v)
				return -1;
			o->outstanding = v;
			o->transfer_opt_given = true;
			break;
		case OPT_SEED:
			if (parse_u64(optarg, UINT64_MAX, &o->seed, false))
				return -1;
			o->transfer_opt_given = true;
			break;
		case OPT_WR_API:
			o->wr_api = true;
			break;
		case OPT_TIMEOUT:
			o->timeout = strtod(optarg, &end);
			if (*end || !(o->timeout > 0) || o->timeout > 86400)
				return -1;
			break;
		case OPT_BADRKEY:
			o->mode = MODE_BADRKEY;
			modes++;
			o->transfer_opt_given = true;
			break;
		case OPT_STRADDLE:
			o->mode = MODE_STRADDLE;
			modes++;
			o->transfer_opt_given = true;
			break;
		case OPT_PINGPONG:
			o->mode = MODE_PINGPONG;
			modes++;
			o->transfer_opt_given = true;
			break;
		case OPT_OFFSET:
			if (parse_u64(optarg, g_page - 1, &v, false))
				return -1;
			o->offset = v;
			break;
		case OPT_PSN:
			if (parse_u64(optarg, PSN_MASK, &v, false))
				return -1;
			o->psn = v;
			o->transfer_opt_given = true;
			break;
		case OPT_INJECT:
			for (v = 0; v < sizeof(inject_names) / sizeof(inject_names[0]); v++)
				if (!strcmp(optarg, inject_names[v]))
					break;
			if (v == sizeof(inject_names) / sizeof(inject_names[0]))
				return -1;
			o->inject = v;
			break;
		case OPT_STOP_FILE:
			o->stop_file = optarg;
			o->transfer_opt_given = true;
			break;
		case OPT_PAUSE_FILE:
			o->pause_file = optarg;
			o->transfer_opt_given = true;
			break;
		case OPT_BATCH_LAT:
			o->batch_lat = true;
			o->transfer_opt_given = true;
			break;
		default:
			return -1;
		}
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc || !o->dev || o->gid_index < 0 || modes > 1)
		return -1;
	if (!o->server && o->transfer_opt_given) {
		fprintf(stderr, "mrc_xfer: transfer options go to the client\n");
		return -1;
	}
	/* Payload and immediate faults are the client's, canary the server's. */
	if ((o->inject == INJECT_CANARY && o->server) ||
	    ((o->inject == INJECT_PAYLOAD || o->inject == INJECT_IMM) &&
	     !o->server) ||
	    (o->inject != INJECT_NONE && o->mode != MODE_XFER) ||
	    (o->inject == INJECT_PAYLOAD && !o->size) ||
	    (o->inject == INJECT_IMM && !o->imm))
		return -1;
	/* An injected fault rides on the last write, which may never go. */
	if ((o->stop_file || o->pause_file) &&
	    (o->mode != MODE_XFER || o->inject != INJECT_NONE))
		return -1;
	if (o->batch_lat && o->mode != MODE_XFER)
		return -1;
	if (o->mode == MODE_PINGPONG) {
		if (!iters_set)
			o->iters = DEFAULT_PP_ITERS;
		if (o->qps != 1 || o->imm || size_set)
			return -1;
		o->size = PINGPONG_SIZE;
	}
	if (o->mode == MODE_BADRKEY || o->mode == MODE_STRADDLE) {
		if (o->qps != 1 || o->imm || o->size < BADRKEY_WRS)
			return -1;
		o->iters = 1;
	}
	if (o->extra_recvs && !o->imm)
		return -1;
	if (o->imm && o->qps > MAX_IMM_QPS)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static struct ctx c;
	char portbuf[16];
	int ret;

	g_page = sysconf(_SC_PAGESIZE);
	c.fd = -1;
	if (parse_opts(argc, argv, &c.o)) {
		usage(stderr);
		return 2;
	}
	if (!c.o.port) {
		snprintf(portbuf, sizeof(portbuf), "%d", DEFAULT_TCP_PORT);
		c.o.port = portbuf;
	}
	c.server = !c.o.server;
	g_verbose = c.o.verbose;
	g_deadline = now_s() + c.o.timeout;
	signal(SIGALRM, on_alarm);
	alarm((unsigned int)c.o.timeout + 1 + ALARM_SLACK_S);
	setvbuf(stdout, NULL, _IOLBF, 0);

	ret = session(&c);
	if (ret && c.fd >= 0 && strncmp(g_fail, "peer ", 5) &&
	    strncmp(g_fail, "peer_closed", 11)) {
		/* Tell the peer, so that it does not wait for its timeout. */
		char reason[LINE_LEN];

		snprintf(reason, sizeof(reason), "%s", g_fail);
		g_deadline = now_s() + 1;
		send_line(&c, "FAIL %s", reason);
		snprintf(g_fail, sizeof(g_fail), "%s", reason);
	}
	teardown(&c);
	if (ret) {
		printf("RESULT fail reason=%s\n", g_fail[0] ? g_fail : "unknown");
		return 1;
	}
	printf("RESULT ok bytes=%" PRIu64 " secs=%.3f MBps=%.2f%s%s\n", c.bytes,
	       c.secs, c.secs > 0 ? c.bytes / c.secs / BYTES_PER_MB : 0.0,
	       c.extra[0] ? " " : "", c.extra);
	return 0;
}
