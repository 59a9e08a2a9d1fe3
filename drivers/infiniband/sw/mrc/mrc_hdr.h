/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_mrc: MRC wire format.  Header sizes, opcodes and field accessors
 * live here and nowhere else; Documentation/mrc/wire-format.rst describes
 * every field.
 */
#ifndef MRC_HDR_H
#define MRC_HDR_H

#include <linux/ipv6.h>
#include <linux/udp.h>

/* Header lengths in bytes. */
#define MRC_IPV6_HLEN		sizeof(struct ipv6hdr)
#define MRC_UDP_HLEN		sizeof(struct udphdr)
#define MRC_BTH_LEN		12
#define MRC_METH_LEN		4
#define MRC_TSETH_LEN		4
#define MRC_RETH_LEN		16
#define MRC_IMMDT_LEN		4
#define MRC_ICRC_LEN		4

/* The most header bytes a data packet carries around its payload. */
#define MRC_MAX_DATA_OVERHEAD	(MRC_IPV6_HLEN + MRC_UDP_HLEN + MRC_BTH_LEN + \
				 MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN + \
				 MRC_IMMDT_LEN + MRC_ICRC_LEN)

#endif /* MRC_HDR_H */
