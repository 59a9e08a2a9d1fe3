/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: the "mrc" generic netlink family, the controller interface
 * (Documentation/mrc/netlink.rst).
 */
#ifndef MRC_NL_H
#define MRC_NL_H

int mrc_nl_init(void);
void mrc_nl_exit(void);

#endif /* MRC_NL_H */
