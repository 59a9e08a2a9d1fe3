// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_ring_attack: a process that writes its own send queue ring the way a
 * hostile one would (forge_test.sh, case "ring").
 *
 *   mrc_ring_attack --dev-a DEV --ip-a IP --dev-b DEV --ip-b IP
 *                   [--psn N] [--timeout S]
 *
 * One process holds QP A on device A and QP B on device B (RDMA devices
 * are reachable from any network namespace) and connects them.  QP A's
 * send queue has NUM (8) slots.  Steps, each announced on stdout and the
 * next awaited on stdin (a line "go"), so that the test can set its
 * filters and read counters in between:
 *
 *   READY ...      KEY=VALUE: QPN_A QPN_B PSN DST (B's MR address) NUM
 *   (go)           post WR0: an RDMA WRITE of WR0_LEN bytes of the source
 *                  pattern to DST (WR0_LEN / 1024 packets); then find the
 *                  ring among the process's mappings of the uverbs device
 *                  (the slot holding WR0's wr_id), write NUM - 1 zero-length
 *                  WRITEs into slots 1..NUM-1 and, into slot 0 (still
 *                  holding WR0, which the kernel has fetched and has in
 *                  flight), a 4-byte WRITE of the pattern's first bytes to
 *                  DST + TAIL_OFF, and publish prod = NUM + 1: one WQE more
 *                  than the ring has room for while WR0 is outstanding.
 *   ATTACKED
 *   (go)           wait for the NUM + 1 completions, check B's MR: WR0's
 *                  bytes at DST, the 4 bytes at DST + TAIL_OFF, zeros
 *                  elsewhere.
 *   RESULT ok | RESULT fail WHY
 *
 * A kernel that bounds what it fetches by what it has consumed fetches the
 * last WQE only once WR0 completed; one that does not takes it into WR0's
 * copy while WR0's PSNs are still in flight, and a retransmission of WR0
 * then sends what the new copy says (4 bytes of payload, the rest of the
 * packet whatever the fresh buffer held).  The source pattern is
 * pattern(i) = (i * PAT_MUL + PAT_ADD) & 0xff of the source offset i
 * (forge_test.sh checks every captured payload against it).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/mrc-abi.h>

#include "mrc_common.h"

#define NUM_SLOTS		8
#define WR0_LEN			8192
#define TAIL_OFF		49152
#define TAIL_LEN		4
#define ZERO_OFF		32768
#define DST_LEN			65536
#define PAT_MUL			31
#define PAT_ADD			7
#define WR0_ID			0x5a5a0000ULL
#define ZERO_ID			0x5a5a0100ULL
#define TAIL_ID			0x5a5a00ffULL
#define MAX_INLINE		64
#define DEFAULT_PSN		0x00abcd
#define DEFAULT_TIMEOUT_S	300
#define POLL_MS			120000
#define LINE_LEN		512
#define MAPS_LINE		512
#define PSN_MASK		0xffffffu

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t len;
	union ibv_gid gid;
	int gid_index;
};

static void die(const char *what, int err)
{
	printf("RESULT fail %s: %s\n", what, strerror(err));
	exit(1);
}

static void fail(const char *why)
{
	printf("RESULT fail %s\n", why);
	exit(1);
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * PAT_MUL + PAT_ADD);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; i < n && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		fail("no such device");
	return ctx;
}

static void side_init(struct side *s, const char *dev, const char *ip,
		      size_t len, bool fill)
{
	size_t i;
	int err;

	s->ctx = open_dev(dev);
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 4 * NUM_SLOTS, NULL, NULL, 0);
	if (!s->pd || !s->cq)
		die("pd/cq", errno);
	s->qp = mrc_create_rc_qp(s->pd, s->cq, NUM_SLOTS, 1, MAX_INLINE);
	if (!s->qp)
		die("ibv_create_qp", errno);
	s->len = len;
	s->buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (s->buf == MAP_FAILED)
		die("mmap", errno);
	for (i = 0; fill && i < len; i++)
		s->buf[i] = pattern(i);
	s->mr = ibv_reg_mr(s->pd, s->buf, len,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!s->mr)
		die("ibv_reg_mr", errno);
	if (setenv(MRC_ENV_IPV4, ip, 1))
		die("setenv", errno);
	err = mrc_find_gid(s->ctx, true, &s->gid, &s->gid_index);
	if (err)
		die("no GID of the address", err);
}

/* RESET -> RTS towards @peer, sending and expecting @psn. */
static void connect_qp(struct side *s, const struct side *peer, uint32_t psn)
{
	struct mrc_path path = {
		.dgid = peer->gid,
		.sgid_index = s->gid_index,
		.dest_qpn = peer->qp->qp_num,
		.rd_atomic = MRC_RD_ATOMIC,
	};
	struct ibv_qp_attr attr;
	int mask, err;

	err = mrc_qp_to_init(s->qp);
	if (err)
		die("to INIT", err);
	mrc_rtr_attr(&attr, &mask, &path);
	attr.rq_psn = psn;
	err = ibv_modify_qp(s->qp, &attr, mask);
	if (err)
		die("to RTR", err);
	mrc_rts_attr(&attr, &mask, &path);
	attr.sq_psn = psn;
	err = ibv_modify_qp(s->qp, &attr, mask);
	if (err)
		die("to RTS", err);
}

static void wait_go(void)
{
	char line[LINE_LEN];

	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin) || strncmp(line, "go", 2))
		fail("stdin closed before go");
}

static bool slot_is_wr0(const uint8_t *map, size_t size, uint32_t *prod)
{
	const struct mrc_ring_idx *idx = (const void *)map;
	const struct mrc_send_wqe *w = (const void *)(map + MRC_RING_IDX_SIZE);

	if (size < MRC_RING_IDX_SIZE + sizeof(*w))
		return false;
	*prod = __atomic_load_n(&idx->prod, __ATOMIC_ACQUIRE);
	return w->wr_id == WR0_ID && w->opcode == MRC_WQE_RDMA_WRITE &&
	       *prod == 1;
}

/* The process's mapping of QP A's send ring: the one holding WR0. */
static uint8_t *find_ring(void)
{
	char line[MAPS_LINE], path[MAPS_LINE];
	unsigned long lo, hi;
	uint8_t *found = NULL;
	uint32_t prod;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		die("/proc/self/maps", errno);
	while (!found && fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %511s", &lo, &hi,
			   path) < 2 || !strstr(path, "/dev/infiniband/uverbs"))
			continue;
		if (slot_is_wr0((uint8_t *)lo, hi - lo, &prod))
			found = (uint8_t *)lo;
	}
	fclose(f);
	if (!found)
		fail("send ring not found among the uverbs mappings");
	return found;
}

static void put_write(uint8_t *slot, uint64_t wr_id, uint64_t raddr,
		      uint32_t rkey, const struct ibv_mr *mr, uint32_t len)
{
	struct mrc_send_wqe *w = (struct mrc_send_wqe *)slot;

	memset(w, 0, sizeof(*w) + sizeof(struct mrc_sge));
	w->wr_id = wr_id;
	w->opcode = MRC_WQE_RDMA_WRITE;
	w->flags = MRC_WQE_SIGNALED;
	w->remote_addr = raddr;
	w->rkey = rkey;
	w->num_sge = len ? 1 : 0;
	if (len) {
		w->sge[0].addr = (uintptr_t)mr->addr;
		w->sge[0].length = len;
		w->sge[0].lkey = mr->lkey;
	}
}

static void check_dst(const struct side *b)
{
	size_t i;

	for (i = 0; i < b->len; i++) {
		uint8_t want = 0;

		if (i < WR0_LEN)
			want = pattern(i);
		else if (i >= TAIL_OFF && i < TAIL_OFF + TAIL_LEN)
			want = pattern(i - TAIL_OFF);
		if (b->buf[i] != want) {
			printf("RESULT fail dst byte %zu is 0x%02x, want 0x%02x\n",
			       i, b->buf[i], want);
			exit(1);
		}
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dev-a", required_argument, NULL, 'a' },
		{ "ip-a", required_argument, NULL, 'A' },
		{ "dev-b", required_argument, NULL, 'b' },
		{ "ip-b", required_argument, NULL, 'B' },
		{ "psn", required_argument, NULL, 'p' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev_a = NULL, *ip_a = NULL, *dev_b = NULL, *ip_b = NULL;
	unsigned int timeout = DEFAULT_TIMEOUT_S, i, es;
	uint32_t psn = DEFAULT_PSN;
	struct ibv_wc wc[NUM_SLOTS + 1];
	struct ibv_qp_init_attr init;
	struct ibv_send_wr wr, *bad;
	struct ibv_qp_attr qattr;
	struct side a = {}, b = {};
	struct mrc_ring_idx *idx;
	struct ibv_sge sge;
	uint64_t dst;
	uint8_t *ring;
	int c, n;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': dev_a = optarg; break;
		case 'A': ip_a = optarg; break;
		case 'b': dev_b = optarg; break;
		case 'B': ip_b = optarg; break;
		case 'p': psn = strtoul(optarg, NULL, 0) & PSN_MASK; break;
		case 't': timeout = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: mrc_ring_attack --dev-a DEV --ip-a IP --dev-b DEV --ip-b IP [--psn N] [--timeout S]\n");
			return 2;
		}
	}
	if (!dev_a || !ip_a || !dev_b || !ip_b) {
		fprintf(stderr, "mrc_ring_attack: --dev-a, --ip-a, --dev-b and --ip-b are required\n");
		return 2;
	}
	alarm(timeout);

	side_init(&a, dev_a, ip_a, WR0_LEN, true);
	side_init(&b, dev_b, ip_b, DST_LEN, false);
	connect_qp(&a, &b, psn);
	connect_qp(&b, &a, psn);
	if (ibv_query_qp(a.qp, &qattr, IBV_QP_CAP, &init))
		die("ibv_query_qp", errno);
	dst = (uintptr_t)b.buf;
	printf("QPN_A=0x%06x\nQPN_B=0x%06x\nPSN=0x%06" PRIx32 "\nDST=0x%" PRIx64
	       "\nNUM=%u\nREADY\n", a.qp->qp_num, b.qp->qp_num, psn, dst,
	       qattr.cap.max_send_wr);
	if (qattr.cap.max_send_wr != NUM_SLOTS)
		fail("the send queue is not NUM slots");
	wait_go();

	sge.addr = (uintptr_t)a.buf;
	sge.length = WR0_LEN;
	sge.lkey = a.mr->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = WR0_ID;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = dst;
	wr.wr.rdma.rkey = b.mr->rkey;
	if (ibv_post_send(a.qp, &wr, &bad))
		die("ibv_post_send", errno);

	/* The slot size the kernel granted: the header and the inline room. */
	es = qattr.cap.max_inline_data + sizeof(struct mrc_send_wqe);
	ring = find_ring();
	idx = (struct mrc_ring_idx *)ring;
	for (i = 1; i < NUM_SLOTS; i++)
		put_write(ring + MRC_RING_IDX_SIZE + i * es, ZERO_ID + i,
			  dst + ZERO_OFF, b.mr->rkey, a.mr, 0);
	put_write(ring + MRC_RING_IDX_SIZE, TAIL_ID, dst + TAIL_OFF,
		  b.mr->rkey, a.mr, TAIL_LEN);
	__atomic_store_n(&idx->prod, NUM_SLOTS + 1, __ATOMIC_RELEASE);
	printf("ATTACKED\n");
	wait_go();

	n = mrc_poll_n(a.cq, wc, NUM_SLOTS + 1, POLL_MS);
	if (n != NUM_SLOTS + 1) {
		printf("RESULT fail %d of %d completions\n", n, NUM_SLOTS + 1);
		return 1;
	}
	for (i = 0; i < NUM_SLOTS + 1; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			printf("RESULT fail completion %u (wr_id 0x%" PRIx64 "): %s\n",
			       i, wc[i].wr_id, ibv_wc_status_str(wc[i].status));
			return 1;
		}
	}
	if (wc[0].wr_id != WR0_ID || wc[NUM_SLOTS].wr_id != TAIL_ID)
		fail("completions out of order");
	check_dst(&b);
	printf("RESULT ok\n");
	return 0;
}
