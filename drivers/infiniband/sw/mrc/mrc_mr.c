// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: memory regions.  A key is an index into the device's MR table
 * (so a packet's rkey is looked up in O(1)) and an 8-bit tag.  Both are
 * random for each registration: the index is the first free one from a
 * random point of the table, the tag random, so that a key says nothing
 * of the keys of other registrations, of this process or of another
 * (Documentation/mrc/security.rst).
 */
#include <linux/highmem.h>
#include <linux/random.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>

#include "mrc.h"

static u32 mrc_mr_key(u32 index, u8 tag)
{
	return (index << MRC_KEY_TAG_BITS) | tag;
}

/* Allocate a table slot and keys for @mr; -ENOMEM past the device limit. */
static int mrc_mr_add(struct mrc_dev *dev, struct mrc_mr *mr)
{
	u32 key, next;
	int err;

	err = mrc_obj_get(dev, MRC_OBJ_MR);
	if (err)
		return err;

	/*
	 * Reserve an index (a lookup finds nothing there yet), fill in the
	 * keys, then publish: a packet never sees a half-made MR.
	 */
	next = get_random_u32_inclusive(MRC_MR_INDEX_FIRST, MRC_MR_INDEX_MAX);
	err = xa_alloc_cyclic(&dev->mr_xa, &mr->index, NULL,
			      XA_LIMIT(MRC_MR_INDEX_FIRST, MRC_MR_INDEX_MAX),
			      &next, GFP_KERNEL);
	if (err < 0) {
		mrc_obj_put(dev, MRC_OBJ_MR);
		return err;
	}

	key = mrc_mr_key(mr->index, get_random_u32() & MRC_KEY_TAG_MASK);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	xa_store(&dev->mr_xa, mr->index, mr, GFP_KERNEL);
	return 0;
}

static void mrc_mr_del(struct mrc_dev *dev, struct mrc_mr *mr)
{
	xa_erase(&dev->mr_xa, mr->index);
	mrc_obj_put(dev, MRC_OBJ_MR);
}

/* The pinned pages of a user MR, in address order, for placement. */
static int mrc_mr_map_pages(struct mrc_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	unsigned int i = 0;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (i == mr->npages)
			break;
		mr->pages[i++] = sg_page_iter_page(&iter);
	}
	mr->page_offset = ib_umem_offset(umem);
	return 0;
}

/* The MR a key names, under rcu_read_lock(); NULL if none. */
struct mrc_mr *mrc_mr_lookup(struct mrc_dev *dev, u32 key)
{
	struct mrc_mr *mr = xa_load(&dev->mr_xa, key >> MRC_KEY_TAG_BITS);

	if (!mr || mr->ibmr.rkey != key || mr->type != MRC_MR_USER)
		return NULL;
	return mr;
}

/* Whether [va, va + len) lies inside @mr; overflow-safe. */
bool mrc_mr_covers(const struct mrc_mr *mr, u64 va, u64 len)
{
	u64 end, mr_end;

	if (check_add_overflow(va, len, &end) ||
	    check_add_overflow(mr->iova, mr->length, &mr_end))
		return false;
	return va >= mr->iova && end <= mr_end;
}

/**
 * mrc_mr_read - copy @len bytes of the MR's memory at @va into @buf
 * @mr: a user MR covering [va, va + len) (checked by the caller)
 * @va: address in the MR's iova space
 * @buf: kernel buffer
 * @len: bytes
 *
 * Any context: the pages are pinned and mapped one at a time.
 */
void mrc_mr_read(struct mrc_mr *mr, u64 va, void *buf, u32 len)
{
	u64 off = va - mr->iova + mr->page_offset;

	while (len) {
		unsigned int idx = off >> PAGE_SHIFT;
		unsigned int in_page = offset_in_page(off);
		unsigned int n = min_t(u32, len, PAGE_SIZE - in_page);
		void *addr = kmap_local_page(mr->pages[idx]);

		memcpy(buf, addr + in_page, n);
		kunmap_local(addr);
		buf += n;
		off += n;
		len -= n;
	}
}

/**
 * mrc_mr_copy_skb - place @len bytes of @skb at @off into the MR at @va
 * @mr: a user MR covering [va, va + len) (checked by the caller)
 * @va: address in the MR's iova space
 * @skb: the packet; the bytes may be in its head or its fragments
 * @off: their offset from the skb's data
 * @len: how many
 *
 * Any context.
 */
void mrc_mr_copy_skb(struct mrc_mr *mr, u64 va, const struct sk_buff *skb,
		     u32 off, u32 len)
{
	u64 pos = va - mr->iova + mr->page_offset;

	while (len) {
		unsigned int idx = pos >> PAGE_SHIFT;
		unsigned int in_page = offset_in_page(pos);
		unsigned int n = min_t(u32, len, PAGE_SIZE - in_page);
		void *addr = kmap_local_page(mr->pages[idx]);

		/* In range (the caller's length checks): it cannot fail. */
		WARN_ON_ONCE(skb_copy_bits(skb, off, addr + in_page, n));
		kunmap_local(addr);
		off += n;
		pos += n;
		len -= n;
	}
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
	err = mrc_mr_map_pages(mr);
	if (err)
		goto err_umem;
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
	kvfree(mr->pages);
	ib_umem_release(umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Deregistered MRs are freed here, in process context (releasing the
 * pinned pages may sleep), once an RCU grace period has passed since
 * their key stopped finding them: packets place into MRs they looked up
 * under RCU.  A deregistration never waits for the grace period itself:
 * a process with many MRs exits at once.
 */
static struct workqueue_struct *mrc_mr_wq;

static void mrc_mr_free_work(struct work_struct *work)
{
	struct mrc_mr *mr = container_of(to_rcu_work(work), struct mrc_mr,
					 free_work);

	kvfree(mr->pages);
	ib_umem_release(mr->umem);
	kfree(mr);
}

int mrc_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct mrc_mr *mr = to_mmr(ibmr);

	mrc_mr_del(to_mdev(ibmr->device), mr);
	INIT_RCU_WORK(&mr->free_work, mrc_mr_free_work);
	queue_rcu_work(mrc_mr_wq, &mr->free_work);
	return 0;
}

int mrc_mr_init(void)
{
	mrc_mr_wq = alloc_workqueue("mrc_mr", WQ_UNBOUND, 0);
	return mrc_mr_wq ? 0 : -ENOMEM;
}

/* Module exit, every device gone: free what deregistration left. */
void mrc_mr_exit(void)
{
	/* The grace periods queue the works; then the works run. */
	rcu_barrier();
	destroy_workqueue(mrc_mr_wq);
}
