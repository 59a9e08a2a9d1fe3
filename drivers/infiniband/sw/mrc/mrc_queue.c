// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_mrc: rings shared with userspace (SQ, RQ, CQ) and their mmap.
 *
 * A ring is pages charged to the memory cgroup of the process that made
 * it, mapped contiguously in the kernel (vmap, mappable to userspace): the
 * control block with the two indices, then the slots.  It is exposed to a
 * user context through an rdma mmap entry; the provider maps it on the
 * context's command fd.  Pages inserted into a process stay referenced by
 * its mapping, so freeing a ring while a process still maps it (destroy,
 * device removal) never frees pages the process can reach.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>

#include "mrc.h"

/**
 * mrc_queue_init - allocate a ring of @num slots of @entry_size bytes
 * @q: the ring
 * @num: slot count, rounded up to a power of two
 * @entry_size: bytes per slot, a multiple of 8
 */
/* Zeroed, accounted pages for a ring of @size bytes (page aligned). */
static int mrc_qmem_alloc(struct mrc_qmem *m, size_t size)
{
	unsigned int i;

	m->npages = size >> PAGE_SHIFT;
	m->pages = kvcalloc(m->npages, sizeof(*m->pages), GFP_KERNEL_ACCOUNT);
	if (!m->pages)
		return -ENOMEM;
	for (i = 0; i < m->npages; i++) {
		m->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!m->pages[i])
			goto err;
	}
	/* VM_USERMAP: remap_vmalloc_range() may map it to userspace. */
	m->addr = vmap(m->pages, m->npages, VM_MAP | VM_USERMAP, PAGE_KERNEL);
	if (m->addr)
		return 0;
err:
	while (i--)
		__free_page(m->pages[i]);
	kvfree(m->pages);
	m->pages = NULL;
	return -ENOMEM;
}

static void mrc_qmem_free(struct mrc_qmem *m)
{
	unsigned int i;

	if (!m->pages)
		return;
	vunmap(m->addr);
	for (i = 0; i < m->npages; i++)
		__free_page(m->pages[i]);
	kvfree(m->pages);
	m->pages = NULL;
	m->addr = NULL;
}

int mrc_queue_init(struct mrc_queue *q, u32 num, u32 entry_size)
{
	size_t bytes;
	int err;

	if (!num || num > U32_MAX / 2 || !entry_size)
		return -EINVAL;
	num = roundup_pow_of_two(num);

	if (check_mul_overflow((size_t)num, (size_t)entry_size, &bytes) ||
	    check_add_overflow(bytes, (size_t)MRC_RING_IDX_SIZE, &bytes))
		return -EINVAL;

	q->size = PAGE_ALIGN(bytes);
	err = mrc_qmem_alloc(&q->mem, q->size);
	if (err)
		return err;
	q->buf = q->mem.addr;
	q->num = num;
	q->entry_size = entry_size;
	q->idx = q->buf;
	q->mmap = NULL;
	return 0;
}

/*
 * Withdraw the ring from its context's mmap space and free it.  Once
 * exposed, the memory belongs to the mmap entry: mrc_mmap_free() frees it
 * when no mmap(2) call can be using it any more.
 */
void mrc_queue_cleanup(struct mrc_queue *q)
{
	if (q->mmap) {
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
		q->mmap = NULL;
	} else {
		mrc_qmem_free(&q->mem);
	}
	memset(&q->mem, 0, sizeof(q->mem));
	q->buf = NULL;
	q->idx = NULL;
}

/**
 * mrc_queue_expose - make the ring mappable by the user context @ibuc
 * @q: the ring
 * @ibuc: the context that will map it
 * @info: filled with what the provider passes to mmap(2)
 */
int mrc_queue_expose(struct mrc_queue *q, struct ib_ucontext *ibuc,
		     struct mrc_queue_info *info)
{
	struct mrc_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL_ACCOUNT);
	if (!entry)
		return -ENOMEM;
	entry->mem = q->mem;

	err = rdma_user_mmap_entry_insert(ibuc, &entry->rdma, q->size);
	if (err) {
		kfree(entry);
		return err;
	}
	q->mmap = entry;

	memset(info, 0, sizeof(*info));
	info->mmap_offset = rdma_user_mmap_get_offset(&entry->rdma);
	info->mmap_size = q->size;
	info->num_entries = q->num;
	info->entry_size = q->entry_size;
	return 0;
}

void *mrc_queue_slot(struct mrc_queue *q, u32 index)
{
	return q->buf + MRC_RING_IDX_SIZE +
		(size_t)(index & (q->num - 1)) * q->entry_size;
}

int mrc_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct mrc_mmap_entry *entry;
	size_t len = vma->vm_end - vma->vm_start;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;
	entry = container_of(rdma_entry, struct mrc_mmap_entry, rdma);

	if (len != rdma_entry->npages * PAGE_SIZE) {
		err = -EINVAL;
		goto out;
	}
	err = remap_vmalloc_range(vma, entry->mem.addr, 0);
out:
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

void mrc_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct mrc_mmap_entry *entry =
		container_of(rdma_entry, struct mrc_mmap_entry, rdma);

	mrc_qmem_free(&entry->mem);
	kfree(entry);
}
