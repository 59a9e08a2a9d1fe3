/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the "mrc" generic netlink family, the controller interface
 * (Documentation/mrc/netlink.rst).
 */
#ifndef MRC_NL_H
#define MRC_NL_H

#include <net/genetlink.h>

struct mrc_dev;

int mrc_nl_init(void);
void mrc_nl_exit(void);

/* Message helpers for the profile code (mrc_profile.c). */
void *mrc_nl_msg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		     u8 cmd);
int mrc_nl_put_dev(struct sk_buff *skb, struct mrc_dev *dev);
void mrc_nl_set_e2big(struct netlink_ext_ack *extack,
		      const struct nlattr *attr, u32 needed);

#endif /* MRC_NL_H */
