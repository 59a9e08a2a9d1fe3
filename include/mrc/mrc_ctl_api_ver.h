/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Versions of the OCP MRC controller API that <mrc_ctl.h> declares,
 * numbered apart from the application API's but encoded the same way
 * (MRC_API_VERSION in <mrc_api_ver.h>).  A controller may define
 * MRC_CTL_API_VER_USED and MRC_CTL_VENDOR_API_VER_USED before including
 * <mrc_ctl.h>, with the rules <mrc_api_ver.h> gives for the application's.
 *
 * rdma_mrc's own definitions, written from the published description of
 * the interface: the values are the interface's, the wording is ours.
 */
#ifndef MRC_CTL_API_VER_H
#define MRC_CTL_API_VER_H

#include <mrc_api_ver.h>

#define MRC_CTL_API_VERSION_LATEST		MRC_API_VERSION_LATEST
#define MRC_CTL_API_CURRENT_VERSION		MRC_API_VERSION(1, 0, 1)
#define MRC_CTL_API_LAST_SUPPORTED_VERSION	MRC_API_VERSION(0, 0, 0)
#define MRC_CTL_VENDOR_API_CURRENT_VERSION	MRC_API_VERSION(1, 0, 0)
#define MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION MRC_API_VERSION(0, 0, 0)

/* Versions in which declarations appeared (see <mrc_ctl.h>). */
#define MRC_CTL_API_VERSION_1_0_1		MRC_API_VERSION(1, 0, 1)

#if !defined(MRC_CTL_API_VER_USED)
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#elif (MRC_CTL_API_VER_USED) == MRC_CTL_API_VERSION_LATEST
#undef MRC_CTL_API_VER_USED
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#endif

#if !defined(MRC_CTL_VENDOR_API_VER_USED)
#define MRC_CTL_VENDOR_API_VER_USED MRC_CTL_VENDOR_API_CURRENT_VERSION
#elif (MRC_CTL_VENDOR_API_VER_USED) == MRC_CTL_API_VERSION_LATEST
#undef MRC_CTL_VENDOR_API_VER_USED
#define MRC_CTL_VENDOR_API_VER_USED MRC_CTL_VENDOR_API_CURRENT_VERSION
#endif

#if (MRC_CTL_API_VER_USED) > MRC_CTL_API_CURRENT_VERSION
#error "MRC_CTL_API_VER_USED is newer than this <mrc_ctl.h> (1.0.1)"
#elif (MRC_CTL_API_VER_USED) < MRC_CTL_API_LAST_SUPPORTED_VERSION
#error "MRC_CTL_API_VER_USED is older than this <mrc_ctl.h> supports"
#elif (MRC_CTL_API_VER_USED) == MRC_CTL_API_LAST_SUPPORTED_VERSION
#warning "MRC_CTL_API_VER_USED is the oldest version supported: it may become obsolete"
#endif

#if (MRC_CTL_VENDOR_API_VER_USED) > MRC_CTL_VENDOR_API_CURRENT_VERSION
#error "MRC_CTL_VENDOR_API_VER_USED is newer than this <mrc_ctl.h> (1.0.0)"
#elif (MRC_CTL_VENDOR_API_VER_USED) < MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION
#error "MRC_CTL_VENDOR_API_VER_USED is older than this <mrc_ctl.h> supports"
#elif (MRC_CTL_VENDOR_API_VER_USED) == MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION
#warning "MRC_CTL_VENDOR_API_VER_USED is the oldest version supported: it may become obsolete"
#endif

#endif /* MRC_CTL_API_VER_H */
