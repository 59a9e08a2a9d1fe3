/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the functions one file of the driver offers the others,
 * grouped under the file that defines them.  The EV state machine's are
 * in mrc_ev.h, the opcode table's in mrc_opcode.h, the controller's
 * object model's in mrc_profile.h.
 */
#ifndef MRC_LOC_H
#define MRC_LOC_H

#include <linux/skbuff.h>

#include "mrc_ev.h"

struct mrc_cqe;
struct mrc_dev;
struct mrc_net;
struct mrc_pkt;
struct mrc_qp;
struct mrc_qp_win;
struct mrc_txpkt;
struct mrc_queue_info;
struct udphdr;

/* mrc_main.c: the module, devices and their ports (planes) */
int mrc_obj_get(struct mrc_dev *dev, enum mrc_obj_type type);
void mrc_obj_put(struct mrc_dev *dev, enum mrc_obj_type type);
struct net_device *mrc_port_ndev(struct mrc_dev *dev, u32 port);
u32 mrc_port_of_ndev(struct mrc_dev *dev, const struct net_device *ndev);
int mrc_dev_new(const char *name, struct net_device *const *ndevs,
		unsigned int n, struct netlink_ext_ack *extack);
int mrc_port_set_admin(struct mrc_dev *dev, u32 port, bool enabled,
		       struct netlink_ext_ack *extack);
bool mrc_port_admin_enabled(struct mrc_dev *dev, u32 port);
bool mrc_port_active(struct mrc_dev *dev, u32 port);
void mrc_dealloc_driver(struct ib_device *ibdev);

/* mrc_verbs.c: registration, port attributes */
int mrc_register_device(struct mrc_dev *dev, const char *name);
void mrc_port_update(struct mrc_dev *dev, u32 port);
void mrc_port_mtu_changed(struct mrc_dev *dev, u32 port);
void mrc_port_read_speed(struct mrc_dev *dev, u32 port);

/* mrc_queue.c: rings shared with userspace, and their mmap */
int mrc_queue_init(struct mrc_queue *q, u32 num, u32 entry_size);
void mrc_queue_cleanup(struct mrc_queue *q);
int mrc_queue_expose(struct mrc_queue *q, struct ib_ucontext *ibuc,
		     struct mrc_queue_info *info);
void *mrc_queue_slot(struct mrc_queue *q, u32 index);
int mrc_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void mrc_mmap_free(struct rdma_user_mmap_entry *rdma_entry);

/* mrc_cq.c: completion queues */
int mrc_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct ib_udata *udata);
int mrc_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int mrc_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int mrc_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc);
int mrc_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int mrc_cq_post(struct mrc_cq *cq, const struct mrc_cqe *cqe, bool solicited);

/* mrc_mr.c: memory regions */
struct ib_mr *mrc_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *mrc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
int mrc_mr_init(void);
void mrc_mr_exit(void);
struct mrc_mr *mrc_mr_lookup(struct mrc_dev *dev, u32 key);
bool mrc_mr_covers(const struct mrc_mr *mr, u64 va, u64 len);
void mrc_mr_read(struct mrc_mr *mr, u64 va, void *buf, u32 len);
void mrc_mr_copy_skb(struct mrc_mr *mr, u64 va, const struct sk_buff *skb,
		     u32 off, u32 len);

/* mrc_qp.c: queue pairs, their state, posting, lookup */
int mrc_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int mrc_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int mrc_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int mrc_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int mrc_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
int mrc_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
void mrc_qp_error(struct mrc_qp *qp);
struct mrc_qp *mrc_qp_lookup(struct mrc_dev *dev, u32 qpn);
struct mrc_qp *mrc_qp_next(struct mrc_dev *dev, unsigned long *index);
void mrc_qp_put(struct mrc_qp *qp);
u32 mrc_queue_pending(struct mrc_queue *q, u32 cons);
void mrc_qp_post_cqe(struct mrc_qp *qp, bool send, struct mrc_cqe *cqe);

/* mrc_req.c: the requester (send, segment, resend, RTO, probes) */
int mrc_req_init(struct mrc_qp *qp);
void mrc_req_cleanup(struct mrc_qp *qp);
int mrc_req_win_alloc(struct mrc_qp_win *w);
void mrc_req_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w);
void mrc_req_start(struct mrc_qp *qp);
void mrc_req_kick(struct mrc_qp *qp);
bool mrc_req_outstanding(struct mrc_qp *qp);
void mrc_req_setup(struct mrc_qp *qp);
void mrc_req_stop(struct mrc_qp *qp);
void mrc_req_update_rto(struct mrc_qp *qp);
void mrc_req_mark_lost(struct mrc_qp *qp, struct mrc_txpkt *tp, u8 why);
u32 mrc_now_us(void);
bool mrc_req_ev_probe(struct mrc_qp *qp, u32 slot,
		      struct sk_buff_head *txq);

/* mrc_comp.c: the completer (ACK, SACK, NACK; send completions) */
void mrc_comp_rcv_ack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		      struct sk_buff_head *txq);
void mrc_comp_rcv_sack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq);
void mrc_comp_rcv_nack(struct mrc_qp *qp, struct mrc_pkt *pkt,
		       struct sk_buff_head *txq);
void mrc_comp_complete(struct mrc_qp *qp);
void mrc_comp_fail(struct mrc_qp *qp, enum ib_wc_status status);
void mrc_comp_fail_wr(struct mrc_qp *qp, u32 index, enum ib_wc_status status);

/* mrc_resp.c: the responder (place, execute, acknowledge) */
int mrc_resp_win_alloc(struct mrc_qp_win *w, u32 mpr_units);
void mrc_resp_win_swap(struct mrc_qp *qp, struct mrc_qp_win *w);
void mrc_resp_start(struct mrc_qp *qp);
void mrc_qp_win_free(struct mrc_qp_win *w);
void mrc_resp_rcv(struct mrc_qp *qp, struct mrc_pkt *pkt,
		  struct sk_buff_head *txq);
void mrc_resp_probe(struct mrc_qp *qp, struct mrc_pkt *pkt,
		    struct sk_buff_head *txq);
void mrc_resp_unexpected(struct mrc_qp *qp, struct mrc_pkt *pkt,
			 struct sk_buff_head *txq);
void mrc_resp_trimmed(struct mrc_qp *qp, struct mrc_pkt *pkt,
		      struct sk_buff_head *txq, bool lasthop);

/* mrc_recv.c: the receive path up to the QP */
void mrc_recv(struct sk_buff *skb);

/* mrc_net.c: the UDP tunnel, packet allocation and transmission */
/* How a queued packet is to be sent; lives in skb->cb. */
struct mrc_tx_cb {
	struct mrc_path path;
	u8 dscp;
	bool ect;
};

static inline void mrc_txq_add(struct sk_buff_head *txq, struct sk_buff *skb,
			       const struct mrc_path *path, u8 dscp, bool ect)
{
	struct mrc_tx_cb *cb = (struct mrc_tx_cb *)skb->cb;

	cb->path = *path;
	cb->dscp = dscp;
	cb->ect = ect;
	__skb_queue_tail(txq, skb);
}

/* Where a packet of no QP goes (endpoint operations); see mrc_net.c. */
struct mrc_xmit_addr {
	const union ib_gid *sgid;
	const union ib_gid *dgid;
	enum rdma_network_type net_type;
};

int mrc_net_init(void);
void mrc_net_exit(void);
struct mrc_net *mrc_net_get(struct net *net);
void mrc_net_put(struct mrc_net *mn);
struct sk_buff *mrc_net_alloc_skb(struct mrc_qp *qp, unsigned int len);
struct sk_buff *mrc_net_alloc_skb_dev(struct mrc_dev *dev, unsigned int len);
struct sk_buff *mrc_net_alloc_hdrs(struct mrc_qp *qp, u8 op, u32 psn);
void mrc_net_xmit_addr(struct mrc_dev *dev, const struct mrc_xmit_addr *addr,
		       struct sk_buff *skb, const struct mrc_path *path,
		       u8 dscp, bool ect);
void mrc_net_xmit(struct mrc_qp *qp, struct sk_buff *skb,
		  const struct mrc_path *path, u8 dscp, bool ect);
void mrc_net_xmit_list(struct mrc_qp *qp, struct sk_buff_head *list);

/* mrc_icrc.c */
u32 mrc_icrc(const struct sk_buff *skb, const struct udphdr *udph,
	     unsigned int mrc_len);

/* mrc_peer.c: the peers of a device's QPs */
void mrc_peer_dev_init(struct mrc_dev *dev);
void mrc_peer_dev_cleanup(struct mrc_dev *dev);
struct mrc_peer *mrc_peer_lookup(struct mrc_dev *dev, const union ib_gid *gid);
struct mrc_peer *mrc_peer_get(struct mrc_dev *dev, const union ib_gid *gid);
void mrc_peer_put(struct mrc_dev *dev, struct mrc_peer *peer);

/* mrc_ep.c: endpoint operations on QP 0x2 */
/* One request of an endpoint operation batch, and its outcome. */
struct mrc_ep_request {
	u16 id;				/* BTH PSN[15:0] */
	union ib_gid sgid;
	union ib_gid dgid;
	struct mrc_path ev;
	u32 port_status;		/* Port Status Update: our ports down */
	/* outcome */
	bool answered;
	u32 rx_port;
	u32 rtt_ns;
	u8 adj_svc_time;
	u32 order;			/* arrival rank among the answered */
};

void mrc_ep_rcv(struct mrc_pkt *pkt);
int mrc_ep_batch(struct mrc_dev *dev, u32 op_type, u8 dscp, u64 timeout_ns,
		 struct mrc_ep_request *reqs, unsigned int n,
		 struct netlink_ext_ack *extack);

/* mrc_profile.c: the controller; binding QPs to profiles */
int mrc_profile_dev_init(struct mrc_dev *dev);
void mrc_profile_dev_cleanup(struct mrc_dev *dev);
int mrc_profile_bind_qp(struct mrc_qp *qp, u64 ev_id, u64 cc_id,
			bool explicit_bind);
void mrc_profile_unbind_qp(struct mrc_qp *qp);
u32 mrc_profile_skip_hold_us(struct mrc_dev *dev);

/* mrc_ev_profile.c: the datapath's reads of EV profiles */
unsigned int mrc_profile_qp_evs(struct mrc_qp *qp, struct mrc_path *evs,
				unsigned long *denied, unsigned int max,
				u32 *min_active);

/* mrc_nl.c: events to the family's multicast groups; atomic context */
void mrc_nl_ev_event(struct mrc_qp *qp, const struct mrc_ev_event *ev);
void mrc_nl_ev_ctl_event(struct mrc_dev *dev, u64 id, u32 event_mask,
			 const u8 *val, u8 len, u8 port, u32 state,
			 u32 prev_state, u32 usable);
void mrc_nl_peer_status(struct mrc_dev *dev, u32 port,
			const union ib_gid *peer, u32 port_status);

#endif /* MRC_LOC_H */
