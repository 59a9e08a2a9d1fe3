// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * mrc_bw: one-way RDMA WRITE bandwidth over an MRC QP, written against the
 * OCP MRC application API (<mrc.h>) alone, plus libibverbs for the device,
 * the PD and the memory region.  Builds with
 *
 *	cc -o mrc_bw mrc_bw.c -lmrc -libverbs
 *
 * The server (no address given) waits for one client on a TCP port; the
 * two exchange their QP's number, GID, first PSN and buffer (address and
 * rkey) over it, connect, and the client then writes each message size in
 * turn into the server's buffer: --iters WRITEs, at most --depth in
 * flight, then one WRITE with immediate whose immediate is the size.  The
 * server checks every byte of the last message and the immediate, and
 * says so over TCP before the next size.  The client prints a line per
 * size: bytes, WRITEs, Gb/s and million WRITEs per second.
 *
 * Exit status: 0 when every size was received intact, 1 otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <mrc.h>

#define DEFAULT_PORT		"18515"
#define DEFAULT_MIN		1
#define DEFAULT_MAX		(64u << 20)
#define DEFAULT_ITERS		1000
#define DEFAULT_DEPTH		128
#define IB_PORT			1
#define RTS_TIMEOUT		14	/* 1.024 us x 2^14: 16.8 ms */
#define RETRY_LINEAR		7
#define RETRY_EXP		7
#define PSN_MASK		0xffffff
#define CQ_POLL_BATCH		16
#define CONNECT_TRIES		300	/* 30 s in all */
#define CONNECT_PAUSE_US	100000
#define NS_PER_S		1000000000.0
#define BITS_PER_BYTE		8
#define MILLION			1e6
#define GIGA			1e9
/* The server's verdict on one size, over TCP. */
#define VERDICT_OK		'y'
#define VERDICT_BAD		'n'
#define READY			'r'
/* The WRITE with immediate that ends a size: its bytes and their value. */
#define IMM_LEN			8
#define IMM_FILL		0x5a

/* What each side tells the other, in network byte order. */
struct peer_info {
	uint32_t qpn;
	uint32_t psn;
	uint32_t rkey;
	uint32_t reserved;
	uint64_t addr;
	uint8_t gid[16];
};

struct opts {
	const char *dev;
	const char *server;
	const char *port;
	int gid_index;		/* -1: the port's first IPv4 RoCE v2 GID */
	size_t min, max;
	unsigned int iters, depth;
};

struct conn {
	struct ibv_context *ibv;
	struct mrc_context *mctx;
	struct ibv_pd *pd;
	struct mrc_cq *send_cq, *recv_cq;
	struct mrc_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	int gid_index;
	union ibv_gid gid;
	uint32_t psn;
	int sock;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mrc_bw [options]            server\n"
		"       mrc_bw [options] SERVER     client\n"
		"  -d, --dev NAME      RDMA device (default: the first MRC one)\n"
		"  -g, --gid INDEX     local GID index (default: the first IPv4 RoCE v2 GID)\n"
		"  -p, --port PORT     TCP port of the exchange (default %s)\n"
		"  -m, --min BYTES     smallest message (default %u)\n"
		"  -M, --max BYTES     largest message, sizes double up to it (default %u)\n"
		"  -n, --iters N       WRITEs per size (default %u)\n"
		"  -w, --depth N       WRITEs in flight at most (default %u)\n"
		"  -h, --help\n",
		DEFAULT_PORT, DEFAULT_MIN, DEFAULT_MAX, DEFAULT_ITERS,
		DEFAULT_DEPTH);
}

static int die(const char *what, int err)
{
	fprintf(stderr, "mrc_bw: %s: %s\n", what, strerror(err));
	exit(1);
}

static unsigned long parse_num(const char *s, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || *end || !v) {
		fprintf(stderr, "mrc_bw: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "gid", required_argument, NULL, 'g' },
		{ "port", required_argument, NULL, 'p' },
		{ "min", required_argument, NULL, 'm' },
		{ "max", required_argument, NULL, 'M' },
		{ "iters", required_argument, NULL, 'n' },
		{ "depth", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{},
	};
	int c;

	*o = (struct opts){
		.port = DEFAULT_PORT, .gid_index = -1, .min = DEFAULT_MIN,
		.max = DEFAULT_MAX, .iters = DEFAULT_ITERS,
		.depth = DEFAULT_DEPTH,
	};
	while ((c = getopt_long(argc, argv, "d:g:p:m:M:n:w:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'd': o->dev = optarg; break;
		case 'g':
			o->gid_index = strcmp(optarg, "0") ?
				(int)parse_num(optarg, "GID index") : 0;
			break;
		case 'p': o->port = optarg; break;
		case 'm': o->min = parse_num(optarg, "size"); break;
		case 'M': o->max = parse_num(optarg, "size"); break;
		case 'n': o->iters = parse_num(optarg, "count"); break;
		case 'w': o->depth = parse_num(optarg, "depth"); break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc || o->min > o->max) {
		usage(stderr);
		exit(2);
	}
}

/* The named device, or the first one the MRC API supports. */
static struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct mrc_device_attr attr;
	int i, supported;

	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; list[i] && !ctx; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			continue;
		if (mrc_query_device(ctx, &attr, &supported) || !supported) {
			ibv_close_device(ctx);
			ctx = NULL;
		}
	}
	ibv_free_device_list(list);
	if (!ctx)
		die(name ? name : "no MRC device", ENODEV);
	return ctx;
}

static bool gid_is_ipv4(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

static int find_gid(struct ibv_context *ctx, union ibv_gid *gid)
{
	struct ibv_port_attr pattr;
	int i;

	if (ibv_query_port(ctx, IB_PORT, &pattr))
		die("ibv_query_port", errno);
	for (i = 0; i < pattr.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(ctx, IB_PORT, i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2 &&
		    gid_is_ipv4((union ibv_gid *)&e.gid)) {
			memcpy(gid->raw, e.gid.raw, sizeof(gid->raw));
			return i;
		}
	}
	die("no IPv4 RoCE v2 GID on port 1", ENOENT);
	return -1;
}

static void setup(struct conn *c, const struct opts *o)
{
	struct mrc_context_attr cattr = {
		.mrc_api_version_used = MRC_API_CURRENT_VERSION,
	};
	struct mrc_qp_init_attr init = {};
	struct ibv_qp_attr a = {};
	unsigned int r;

	c->ibv = open_device(o->dev);
	c->mctx = mrc_create_context(c->ibv, &cattr);
	if (!c->mctx)
		die("mrc_create_context", errno);
	c->pd = ibv_alloc_pd(c->ibv);
	if (!c->pd)
		die("ibv_alloc_pd", errno);
	c->send_cq = mrc_create_cq(c->mctx, o->depth + 1, NULL, NULL, 0);
	c->recv_cq = mrc_create_cq(c->mctx, 1, NULL, NULL, 0);
	if (!c->send_cq || !c->recv_cq)
		die("mrc_create_cq", errno);
	init.send_cq = c->send_cq;
	init.recv_cq = c->recv_cq;
	init.cap.max_send_wr = o->depth + 1;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.pd = c->pd;
	c->qp = mrc_create_qp(c->mctx, &init);
	if (!c->qp)
		die("mrc_create_qp", errno);
	c->len = o->max + IMM_LEN;
	c->buf = aligned_alloc(sysconf(_SC_PAGESIZE),
			       (c->len + sysconf(_SC_PAGESIZE) - 1) &
			       ~(size_t)(sysconf(_SC_PAGESIZE) - 1));
	if (!c->buf)
		die("buffer", ENOMEM);
	memset(c->buf, 0, c->len);
	c->mr = ibv_reg_mr(c->pd, c->buf, c->len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->mr)
		die("ibv_reg_mr", errno);
	if (o->gid_index < 0) {
		c->gid_index = find_gid(c->ibv, &c->gid);
	} else {
		c->gid_index = o->gid_index;
		if (ibv_query_gid(c->ibv, IB_PORT, c->gid_index, &c->gid))
			die("ibv_query_gid", errno);
	}
	/* INIT: the state alone; the library supplies the port and access. */
	a.qp_state = IBV_QPS_INIT;
	r = mrc_modify_qp(c->qp, &a, IBV_QP_STATE, NULL, 0);
	if (r)
		die("mrc_modify_qp INIT", r);
	srand48(getpid() ^ time(NULL));
	c->psn = lrand48() & PSN_MASK;
}

static void connect_qp(struct conn *c, const struct peer_info *peer)
{
	struct mrc_qp_attr m = {};
	struct ibv_qp_attr a = {};
	int r;

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = ntohl(peer->qpn);
	a.rq_psn = ntohl(peer->psn);
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = IB_PORT;
	a.ah_attr.grh.sgid_index = c->gid_index;
	memcpy(a.ah_attr.grh.dgid.raw, peer->gid, sizeof(peer->gid));
	r = mrc_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			  NULL, 0);
	if (r)
		die("mrc_modify_qp RTR", r);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = c->psn;
	m.timeout = RTS_TIMEOUT;
	m.retry.linear_cnt = RETRY_LINEAR;
	m.retry.exp_cnt = RETRY_EXP;
	r = mrc_modify_qp(c->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, &m,
			  MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT);
	if (r)
		die("mrc_modify_qp RTS", r);
}

static int tcp_connect(const struct opts *o)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, one = 1, r;

	if (!o->server)
		hints.ai_flags = AI_PASSIVE;
	r = getaddrinfo(o->server, o->port, &hints, &res);
	if (r) {
		fprintf(stderr, "mrc_bw: %s: %s\n", o->server ? o->server :
			o->port, gai_strerror(r));
		exit(1);
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (o->server) {
			/* The server may not listen yet: retry a while. */
			for (r = 0; r < CONNECT_TRIES &&
			     connect(fd, ai->ai_addr, ai->ai_addrlen); r++)
				usleep(CONNECT_PAUSE_US);
			if (r == CONNECT_TRIES) {
				close(fd);
				fd = -1;
			}
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1)) {
			close(fd);
			fd = -1;
			continue;
		}
		r = accept(fd, NULL, NULL);
		close(fd);
		fd = r;
	}
	freeaddrinfo(res);
	if (fd < 0)
		die(o->server ? "connect" : "accept", errno);
	return fd;
}

static void xfer_all(int fd, void *p, size_t n, bool out)
{
	uint8_t *b = p;

	while (n) {
		ssize_t r = out ? write(fd, b, n) : read(fd, b, n);

		if (r <= 0)
			die(out ? "TCP write" : "TCP read", r ? errno : EPIPE);
		b += r;
		n -= r;
	}
}

static void exchange(struct conn *c, struct peer_info *peer)
{
	struct peer_info me = {
		.psn = htonl(c->psn), .rkey = htonl(c->mr->rkey),
	};
	uint32_t qpn;

	if (mrc_get_qpn(c->qp, &qpn))
		die("mrc_get_qpn", errno);
	me.qpn = htonl(qpn);
	me.addr = htobe64((uintptr_t)c->buf);
	memcpy(me.gid, c->gid.raw, sizeof(me.gid));
	xfer_all(c->sock, &me, sizeof(me), true);
	xfer_all(c->sock, peer, sizeof(*peer), false);
}

static uint8_t pattern(size_t i, size_t size)
{
	return (uint8_t)(i * 31 + size);
}

/* Send completions: at least one, at most @max; exits on a failed one. */
static unsigned int reap(struct conn *c, unsigned int max)
{
	struct ibv_wc wc[CQ_POLL_BATCH];
	int got, i;

	if (max > CQ_POLL_BATCH)
		max = CQ_POLL_BATCH;
	do {
		got = mrc_poll_cq(c->send_cq, (int)max, wc);
	} while (!got);
	if (got < 0)
		die("mrc_poll_cq", errno);
	for (i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "mrc_bw: WRITE failed: %s\n",
				ibv_wc_status_str(wc[i].status));
			exit(1);
		}
	}
	return got;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / NS_PER_S;
}

/* One size: --iters WRITEs, every one signaled, then the immediate. */
static double client_size(struct conn *c, const struct opts *o,
			  const struct peer_info *peer, size_t size)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)c->buf, .length = size, .lkey = c->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = be64toh(peer->addr),
			     .rkey = ntohl(peer->rkey) },
	}, *bad;
	unsigned int posted = 0, done = 0;
	double t0, t1;
	size_t i;
	int r;

	for (i = 0; i < size; i++)
		c->buf[i] = pattern(i, size);
	t0 = now_s();
	while (done < o->iters) {
		while (posted < o->iters && posted - done < o->depth) {
			wr.wr_id = posted;
			r = mrc_post_send(c->qp, &wr, &bad);
			if (r)
				die("mrc_post_send", r);
			posted++;
		}
		done += reap(c, posted - done);
	}
	t1 = now_s();
	/*
	 * The end of this size: IMM_LEN bytes into the slot past the
	 * largest message, with the size as the immediate.
	 */
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htonl((uint32_t)size);
	wr.wr.rdma.remote_addr += o->max;
	sge.addr += o->max;
	sge.length = IMM_LEN;
	memset(c->buf + o->max, IMM_FILL, IMM_LEN);
	r = mrc_post_send(c->qp, &wr, &bad);
	if (r)
		die("mrc_post_send", r);
	reap(c, 1);
	return t1 - t0;
}

static int run_client(struct conn *c, const struct opts *o,
		      const struct peer_info *peer)
{
	int failed = 0;
	size_t size;
	char v;

	printf("%12s %10s %12s %12s %s\n", "bytes", "writes", "Gb/s", "Mpps",
	       "received");
	for (size = o->min; size && size <= o->max; size *= 2) {
		double secs;

		xfer_all(c->sock, &v, 1, false);	/* the server is ready */
		secs = client_size(c, o, peer, size);
		xfer_all(c->sock, &v, 1, false);
		failed |= v != VERDICT_OK;
		printf("%12zu %10u %12.3f %12.6f %s\n", size, o->iters,
		       size * (double)o->iters * BITS_PER_BYTE / secs / GIGA,
		       o->iters / secs / MILLION,
		       v == VERDICT_OK ? "intact" : "CORRUPT");
		fflush(stdout);
		if (size > o->max / 2)
			break;
	}
	return failed;
}

static int run_server(struct conn *c, const struct opts *o)
{
	struct ibv_recv_wr rwr = { .num_sge = 0 }, *bad;
	int failed = 0;
	struct ibv_wc wc;
	size_t size, i;
	char v;

	for (size = o->min; size && size <= o->max; size *= 2) {
		int r = mrc_post_recv(c->qp, &rwr, &bad);

		if (r)
			die("mrc_post_recv", r);
		v = READY;
		xfer_all(c->sock, &v, 1, true);
		do {
			r = mrc_poll_cq(c->recv_cq, 1, &wc);
		} while (!r);
		if (r < 0)
			die("mrc_poll_cq", errno);
		v = VERDICT_OK;
		if (wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    ntohl(wc.imm_data) != size)
			v = VERDICT_BAD;
		for (i = 0; i < size && v == VERDICT_OK; i++)
			if (c->buf[i] != pattern(i, size))
				v = VERDICT_BAD;
		for (i = 0; i < IMM_LEN && v == VERDICT_OK; i++)
			if (c->buf[o->max + i] != IMM_FILL)
				v = VERDICT_BAD;
		memset(c->buf + o->max, 0, IMM_LEN);
		failed |= v != VERDICT_OK;
		xfer_all(c->sock, &v, 1, true);
		if (size > o->max / 2)
			break;
	}
	return failed;
}

/* The order the OCP benchmark uses: the PD before the context. */
static void teardown(struct conn *c)
{
	mrc_destroy_qp(c->qp);
	mrc_destroy_cq(c->send_cq);
	mrc_destroy_cq(c->recv_cq);
	ibv_dereg_mr(c->mr);
	ibv_dealloc_pd(c->pd);
	mrc_destroy_context(c->mctx);
	ibv_close_device(c->ibv);
	free(c->buf);
	close(c->sock);
}

int main(int argc, char **argv)
{
	struct peer_info peer;
	struct conn c = {};
	struct opts o;
	int failed;

	parse_opts(argc, argv, &o);
	setup(&c, &o);
	c.sock = tcp_connect(&o);
	exchange(&c, &peer);
	connect_qp(&c, &peer);
	failed = o.server ? run_client(&c, &o, &peer) : run_server(&c, &o);
	teardown(&c);
	return failed;
}
