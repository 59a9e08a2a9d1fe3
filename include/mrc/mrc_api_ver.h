/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Versions of the OCP MRC application API that <mrc.h> declares, and the
 * choice a program makes among them at compile time.
 *
 * A version is one 32-bit number: major in bits 31-24 (an ABI break), minor
 * in 23-16 (compatible additions), subminor in 15-0 (fixes only).  Before
 * including <mrc.h> a program may define MRC_API_VER_USED (and
 * MRC_VENDOR_API_VER_USED for the vendor part) to the version it is
 * written for.  Left undefined, or defined to MRC_API_VERSION_LATEST, it
 * means the current version.  A version newer than the current one, or
 * older than the oldest one still supported, is an error; the oldest one
 * still supported draws a warning (it may be dropped).
 *
 * rdma_mrc's own definitions, written from the published description of
 * the interface: the values are the interface's, the wording is ours.
 */
#ifndef MRC_API_VER_H
#define MRC_API_VER_H

/* Usable in #if: no casts. */
#define MRC_API_VERSION(major, minor, subminor)			\
	((((major) & 0xffu) << 24) | (((minor) & 0xffu) << 16) |	\
	 ((subminor) & 0xffffu))
#define MRC_API_VERSION_MAJOR(v)	(((v) >> 24) & 0xffu)
#define MRC_API_VERSION_MINOR(v)	(((v) >> 16) & 0xffu)
#define MRC_API_VERSION_SUBMINOR(v)	((v) & 0xffffu)
/* "Whatever is newest", for MRC_API_VER_USED and MRC_VENDOR_API_VER_USED. */
#define MRC_API_VERSION_LATEST		MRC_API_VERSION(0xff, 0xff, 0xffff)

#define MRC_API_CURRENT_VERSION			MRC_API_VERSION(1, 0, 1)
#define MRC_API_LAST_SUPPORTED_VERSION		MRC_API_VERSION(0, 0, 0)
#define MRC_VENDOR_API_CURRENT_VERSION		MRC_API_VERSION(1, 0, 0)
#define MRC_VENDOR_API_LAST_SUPPORTED_VERSION	MRC_API_VERSION(0, 0, 0)

/* Versions in which declarations appeared (see <mrc.h>). */
#define MRC_API_VERSION_1_0_1			MRC_API_VERSION(1, 0, 1)

#if !defined(MRC_API_VER_USED)
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#elif (MRC_API_VER_USED) == MRC_API_VERSION_LATEST
#undef MRC_API_VER_USED
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#endif

#if !defined(MRC_VENDOR_API_VER_USED)
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#elif (MRC_VENDOR_API_VER_USED) == MRC_API_VERSION_LATEST
#undef MRC_VENDOR_API_VER_USED
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#endif

#if (MRC_API_VER_USED) > MRC_API_CURRENT_VERSION
#error "MRC_API_VER_USED is newer than this <mrc.h> (1.0.1)"
#elif (MRC_API_VER_USED) < MRC_API_LAST_SUPPORTED_VERSION
#error "MRC_API_VER_USED is older than this <mrc.h> supports"
#elif (MRC_API_VER_USED) == MRC_API_LAST_SUPPORTED_VERSION
#warning "MRC_API_VER_USED is the oldest version supported: it may become obsolete"
#endif

#if (MRC_VENDOR_API_VER_USED) > MRC_VENDOR_API_CURRENT_VERSION
#error "MRC_VENDOR_API_VER_USED is newer than this <mrc.h> (1.0.0)"
#elif (MRC_VENDOR_API_VER_USED) < MRC_VENDOR_API_LAST_SUPPORTED_VERSION
#error "MRC_VENDOR_API_VER_USED is older than this <mrc.h> supports"
#elif (MRC_VENDOR_API_VER_USED) == MRC_VENDOR_API_LAST_SUPPORTED_VERSION
#warning "MRC_VENDOR_API_VER_USED is the oldest version supported: it may become obsolete"
#endif

#endif /* MRC_API_VER_H */
