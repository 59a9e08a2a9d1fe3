// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: memory regions.  A key is an index into the device's MR table
 * (so a packet's rkey is looked up in O(1)) with an 8-bit tag that changes
 * each time an index is reused.
 */
#include <linux/random.h>
#include <rdma/ib_umem.h>

#include "mrc.h"

static u32 mrc_mr_key(u32 index, u8 tag)
{
	return (index << MRC_KEY_TAG_BITS) | tag;
}

/* Allocate a table slot and keys for @mr; -ENOMEM past the device limit. */
static int mrc_mr_add(struct mrc_dev *dev, struct mrc_mr *mr)
{
	u32 key;
	int err;

	err = mrc_obj_get(dev, MRC_OBJ_MR);
	if (err)
		return err;

	err = xa_alloc_cyclic(&dev->mr_xa, &mr->index, mr,
			      XA_LIMIT(MRC_MR_INDEX_FIRST, MRC_MR_INDEX_MAX),
			      &dev->mr_index_next, GFP_KERNEL);
	if (err < 0) {
		mrc_obj_put(dev, MRC_OBJ_MR);
		return err;
	}

	key = mrc_mr_key(mr->index, get_random_u32() & MRC_KEY_TAG_MASK);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

static void mrc_mr_del(struct mrc_dev *dev, struct mrc_mr *mr)
{
	xa_erase(&dev->mr_xa, mr->index);
	mrc_obj_put(dev, MRC_OBJ_MR);
}

/* A region of all memory for kernel consumers' local access. */
struct ib_mr *mrc_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct mrc_dev *dev = to_mdev(ibpd->device);
	struct mrc_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->type = MRC_MR_DMA;
	mr->access = access;
	mr->length = U64_MAX;

	err = mrc_mr_add(dev, mr);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *mrc_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct mrc_dev *dev = to_mdev(ibpd->device);
	struct ib_umem *umem;
	struct mrc_mr *mr;
	u64 end;
	int err;

	if (!length || length > MRC_MAX_MR_SIZE ||
	    check_add_overflow(iova, length, &end) ||
	    check_add_overflow(start, length, &end))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);

	umem = ib_umem_get(&dev->ibdev, start, length, access);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free;
	}

	mr->type = MRC_MR_USER;
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	err = mrc_mr_add(dev, mr);
	if (err)
		goto err_umem;
	return &mr->ibmr;

err_umem:
	ib_umem_release(umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mrc_mr *mr = to_mmr(ibmr);

	mrc_mr_del(to_mdev(ibmr->device), mr);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}
