/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * rdma_mrc user/kernel ABI: the driver-private parts of the uverbs commands
 * and the layout of the queues shared between the kernel and the provider
 * through mmap.
 *
 * Every queue (send queue, receive queue, completion queue) is one
 * virtually contiguous region mapped into the process:
 *
 *   offset 0                  struct mrc_ring_idx (producer, consumer)
 *   offset MRC_RING_IDX_SIZE  num_entries slots of entry_size bytes
 *
 * num_entries is a power of two; the indices are free-running 32-bit
 * counters and a slot is (index & (num_entries - 1)).  The queue is empty
 * when prod == cons and full when prod - cons == num_entries.  The side
 * that owns an index writes it with release semantics after filling or
 * draining slots; the other side reads it with acquire semantics.
 *
 *   queue   producer    consumer
 *   SQ      provider    kernel
 *   RQ      provider    kernel
 *   CQ      kernel      provider
 *
 * The kernel never trusts an index or a slot written by the process: it
 * bounds the producer index by num_entries and copies and checks each WQE
 * before using it.
 */
#ifndef MRC_ABI_USER_H
#define MRC_ABI_USER_H

#include <linux/types.h>

/* uverbs ABI version of this driver (ib_device_ops.uverbs_abi_ver). */
#define MRC_UVERBS_ABI_VERSION	1

/*
 * Driver id reported to userspace through netlink
 * (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID).  rdma_mrc is out of tree, so it has no
 * entry in enum rdma_driver_id; it uses a value far outside that enum
 * ("MRC" in ASCII) so that it cannot collide with a driver added upstream.
 * The provider matches devices by this id, never by name.
 */
#define MRC_DRIVER_ID		0x004d5243

/* Size reserved at the start of every mapped ring for its indices. */
#define MRC_RING_IDX_SIZE	128

/* A ring's indices, each on its own cache line. */
struct mrc_ring_idx {
	__u32 prod;		/* written by the producer only */
	__u32 reserved0[15];
	__u32 cons;		/* written by the consumer only */
	__u32 reserved1[15];
};

struct mrc_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/* mrc_cqe.wc_flags: IBV_WC_WITH_IMM's value. */
#define MRC_CQE_WITH_IMM	(1 << 1)

/* mrc_send_wqe.flags */
enum mrc_wqe_flags {
	MRC_WQE_SIGNALED	= 1 << 0,	/* IBV_SEND_SIGNALED */
	MRC_WQE_SOLICITED	= 1 << 1,	/* IBV_SEND_SOLICITED */
	MRC_WQE_INLINE		= 1 << 2,	/* data follows the header */
	MRC_WQE_FENCE		= 1 << 3,	/* IBV_SEND_FENCE */
};

/* mrc_send_wqe.opcode: the only operations MRC carries. */
enum mrc_wqe_opcode {
	MRC_WQE_RDMA_WRITE		= 0,	/* IB_UVERBS_WR_RDMA_WRITE */
	MRC_WQE_RDMA_WRITE_WITH_IMM	= 1,	/* IB_UVERBS_WR_RDMA_WRITE_WITH_IMM */
};

/*
 * Send queue slot.  The header is followed by num_sge struct mrc_sge, or,
 * with MRC_WQE_INLINE, by inline_len bytes of data.
 */
struct mrc_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;		/* enum mrc_wqe_opcode */
	__u32 flags;		/* enum mrc_wqe_flags */
	__aligned_u64 remote_addr;
	__u32 rkey;
	__be32 imm_data;
	__u32 num_sge;
	__u32 inline_len;
	struct mrc_sge sge[];
};

/* Receive queue slot: the header is followed by num_sge struct mrc_sge. */
struct mrc_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct mrc_sge sge[];
};

/*
 * mrc_cqe.opcode: the same numbers as libibverbs' enum ibv_wc_opcode and
 * the kernel's enum ib_wc_opcode.
 */
enum mrc_cqe_opcode {
	MRC_CQE_RDMA_WRITE		= 1,
	MRC_CQE_RECV			= 128,
	MRC_CQE_RECV_RDMA_WITH_IMM	= 129,
};

/*
 * Completion queue slot.  status takes the numbers of libibverbs' enum
 * ibv_wc_status (the kernel's enum ib_wc_status has the same ones); opcode
 * is an enum mrc_cqe_opcode; wc_flags uses IBV_WC_WITH_IMM's value.
 */
struct mrc_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	__be32 imm_data;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u32 reserved[2];
};

/* Where and how large a queue is: the argument for mmap(2) on the cmd fd. */
struct mrc_queue_info {
	__aligned_u64 mmap_offset;
	__u32 mmap_size;
	__u32 num_entries;
	__u32 entry_size;
	__u32 reserved;
};

struct mrc_alloc_ucontext_resp {
	__u32 abi_version;	/* MRC_UVERBS_ABI_VERSION */
	__u32 reserved;
};

struct mrc_create_cq_resp {
	struct mrc_queue_info cq;
};

/* After a resize the provider unmaps the old queue and maps this one. */
struct mrc_resize_cq_resp {
	struct mrc_queue_info cq;
};

/*
 * Driver-specific input of the create QP command: an explicit binding to
 * an EV and a CC profile of the controller (Documentation/mrc/netlink.rst,
 * "Binding QPs to profiles"), filled by the provider's mrcdv_create_qp().
 * Without MRC_CREATE_QP_BIND_PROFILES (ibv_create_qp sends this struct all
 * zero) or with no driver input at all the QP takes its device's default
 * profiles.  Profile id 0 is the built-in behaviour.
 * Binding fails with ENOENT (profile in INIT), EINVAL (not ONLINE) or
 * EOPNOTSUPP (an SRv6 EV profile, or unknown flags).  Fields may be
 * appended later; the kernel requires bytes it does not know to be 0.
 */
enum mrc_create_qp_flags {
	MRC_CREATE_QP_BIND_PROFILES	= 1 << 0,
};

struct mrc_create_qp_cmd {
	__u32 flags;		/* enum mrc_create_qp_flags */
	__u32 reserved;		/* 0 */
	__aligned_u64 ev_profile_id;
	__aligned_u64 cc_profile_id;
};

/*
 * The MRC attributes of a QP (what the OCP MRC API's struct mrc_qp_attr
 * holds), in the driver's terms.  The create QP response reports those a
 * new QP has (the device's defaults, or the profiles it was bound to; for
 * the timeout and linear retries, which verbs sets at RTS, the defaults
 * the MRC API applies); the modify QP extension below changes them.
 */
#define MRC_ABI_MAX_MPR_UNITS		32	/* 32 x 128 = 4096 PSNs */
#define MRC_ABI_MAX_WIMM		16384	/* in flight; RQMSN has 16 bits */
#define MRC_ABI_MAX_TIMEOUT		24	/* 1.024 us x 2^24: about 17 s */
#define MRC_ABI_MAX_RETRY_LINEAR	7
#define MRC_ABI_RETRY_EXP_FOREVER	25	/* retry_exp: never give up */

/* mrc_qp_mrc_attr.cap */
enum mrc_qp_cap_flags {
	/* Trimmed packets from the peer are not NACKed (it cannot use them). */
	MRC_ABI_QP_CAP_NO_TRIM_NACK	= 1 << 0,
	/* The peer does not use a service time (none is sent: no effect). */
	MRC_ABI_QP_CAP_NO_SVC_TIME	= 1 << 1,
};

struct mrc_qp_mrc_attr {
	__aligned_u64 ev_profile_id;	/* 0: the built-in behaviour */
	__aligned_u64 cc_profile_id;
	__u32 cap;		/* enum mrc_qp_cap_flags */
	__u16 max_wimm;		/* WriteIMMs this QP has in flight, sending */
	__u16 max_wimm_dest;	/* ... it accepts at once, receiving */
	__u8 mpr;		/* PSN range it sends over, 128-PSN units */
	__u8 mpr_dest;		/* PSN range it accepts, 128-PSN units */
	__u8 timeout;		/* 1.024 us x 2^timeout; 0: none */
	__u8 retry_linear;	/* expiries at the timeout */
	__u8 retry_exp;		/* then doubling ones; MRC_ABI_RETRY_EXP_FOREVER */
	__u8 reserved[3];	/* 0 */
};

struct mrc_create_qp_resp {
	struct mrc_queue_info sq;
	struct mrc_queue_info rq;
	__u32 max_inline_data;
	__u32 reserved;
	struct mrc_qp_mrc_attr attr;	/* what the new QP has */
};

/*
 * Driver-specific input of the extended modify QP command: the MRC
 * attributes named in @mask take their values from @attr.  When each may
 * change (otherwise EINVAL):
 *   PROFILES              in RESET -> INIT and INIT -> INIT
 *   MPR_DEST, WIMM_DEST   up to INIT -> RTR (the receive window is made then)
 *   the others            up to RTR -> RTS
 * Unknown mask or cap bits: EOPNOTSUPP; a value out of range, or nonzero
 * reserved bytes: EINVAL; profiles as at create.  Trailing bytes the
 * kernel does not know must be 0.
 */
enum mrc_modify_qp_mask {
	MRC_MODIFY_QP_PROFILES		= 1 << 0,	/* both ids */
	MRC_MODIFY_QP_CAP		= 1 << 1,
	MRC_MODIFY_QP_MAX_WIMM		= 1 << 2,
	MRC_MODIFY_QP_MAX_WIMM_DEST	= 1 << 3,
	MRC_MODIFY_QP_MPR		= 1 << 4,
	MRC_MODIFY_QP_MPR_DEST		= 1 << 5,
	MRC_MODIFY_QP_TIMEOUT		= 1 << 6,
	MRC_MODIFY_QP_RETRY		= 1 << 7,	/* linear and exp */
};

struct mrc_modify_qp_cmd {
	__u32 mask;		/* enum mrc_modify_qp_mask */
	__u32 reserved;		/* 0 */
	struct mrc_qp_mrc_attr attr;
};

#endif /* MRC_ABI_USER_H */
