/* SPDX-License-Identifier: Apache-2.0 */
/*
 * uC/OS-III port: memory. uC/OS-III has no general heap, only fixed-size
 * partitions (OSMem: OSMemCreate over memory the caller gives, OSMemGet,
 * OSMemPut, no delete). The contract's fixed-size block pools
 * (rtb_port_pool_*, tm.mem) are OSMem partitions of their own, one each, over
 * storage from the allocator below. rtb_port_mem_alloc() serves the core's
 * buffers, the port's kernel objects and stacks, and the memory scenarios
 * (mem.alloc) with size classes built on them:
 *
 *  - A request of n bytes, plus an 8-byte header, is rounded up to a class:
 *    32 bytes, then four classes per doubling (40, 48, 56, 64, 80, ...), so
 *    at most a quarter of a block is lost to rounding.
 *  - Classes up to 56 KiB (an OSMem block size is 16 bits) are OSMem
 *    partitions: the first request of a class carves a partition of at
 *    least two blocks (32 KiB of them for small classes) from the board's
 *    heap section, and more when those are in use. An allocation is
 *    OSMemGet() on the class's current partition, a free OSMemPut() on the
 *    partition named in the block's header: a 128-byte mem.alloc times the
 *    class lookup and OSMemGet.
 *  - Larger classes (the core's recorders and buffers, a probe for the
 *    largest buffer that fits) take one block each from the heap section and
 *    keep it on the class's free list when freed.
 *
 * The heap section is only ever carved, never given back, so a class keeps
 * what it took: when a run has ended and every block is back
 * (ucos3_mem_reset_if_idle(), from the runner), the allocator starts over
 * from an empty section, and a run's memory does not depend on the runs
 * before it. Interrupt handlers do not allocate; tasks carve and keep the
 * lists with the scheduler locked (OSSchedLock), while OSMemGet and
 * OSMemPut are the kernel's own atomic steps.
 */
#include "port_ucos3.h"

#include "rtb/core.h"

#define HEAD_BYTES 8u
#define CLASS_MIN_BYTES 32u
#define CLASSES 77u		/* up to 16 MiB, more than the section holds */
#define PART_MAX_BYTES 57344u	/* the largest class an OSMem block can be */
#define PART_CHUNK_BYTES 32768u /* blocks carved at once for a small class */
#define ALIGN_UP(n) (((n) + 7u) & ~(size_t)7u)

/* Before every block handed out. */
struct head {
	OS_MEM *part; /* the partition it came from; NULL: a large class */
	uint32_t cls;
};

/* A partition carved for a class, followed by its blocks. */
struct chunk {
	OS_MEM mem;
	struct chunk *next;
};

struct size_class {
	struct chunk *chunks;
	struct chunk *cur; /* where the next OSMemGet goes first */
	void *free_large;  /* large classes: freed blocks, linked through their first word */
	uint32_t large_used;
};

/* The board's heap section (the linker script's .heap, BOARD_HEAP_BYTES). */
static uint8_t heap[BOARD_HEAP_BYTES] __attribute__((section(".heap"), aligned(8)));
static size_t heap_top; /* bytes carved */
static struct size_class classes[CLASSES];

static size_t class_bytes(uint32_t c)
{
	if (c == 0)
		return CLASS_MIN_BYTES;
	uint32_t e = 5u + (c - 1u) / 4u, m = (c - 1u) % 4u + 1u;
	return ((size_t)1 << e) + (size_t)m * ((size_t)1 << (e - 2u));
}

/* The smallest class of at least t bytes; CLASSES when none is. */
static uint32_t class_of(size_t t)
{
	if (t <= CLASS_MIN_BYTES)
		return 0;
	uint32_t e = 31u - (uint32_t)__builtin_clz((unsigned)(t - 1u)); /* 2^e < t <= 2^(e+1) */
	uint32_t step_shift = e - 2u;
	size_t m = (t - ((size_t)1 << e) + ((size_t)1 << step_shift) - 1u) >> step_shift;
	uint32_t c = (e - 5u) * 4u + (uint32_t)m;
	return c < CLASSES ? c : CLASSES;
}

static void *carve(size_t bytes)
{
	if (bytes > sizeof(heap) - heap_top)
		return NULL;
	void *p = &heap[heap_top];
	heap_top += bytes;
	return p;
}

/* A new partition for class c (scheduler locked), or NULL. */
static struct chunk *add_chunk(uint32_t c)
{
	size_t size = class_bytes(c);
	size_t n = PART_CHUNK_BYTES / size;
	OS_ERR err;

	if (n < 2)
		n = 2;
	struct chunk *k = carve(ALIGN_UP(sizeof(struct chunk)) + n * size);
	if (k == NULL)
		return NULL;
	rtb_memset(k, 0, sizeof(*k));
	OSMemCreate(&k->mem, (CPU_CHAR *)"rtb-heap", (uint8_t *)k + ALIGN_UP(sizeof(struct chunk)),
		    (OS_MEM_QTY)n, (OS_MEM_SIZE)size, &err);
	if (err != OS_ERR_NONE)
		return NULL;
	k->next = classes[c].chunks;
	classes[c].chunks = k;
	return k;
}

/* A block of partition class c when its current partition is used up. */
static struct head *part_slow(uint32_t c)
{
	struct size_class *sc = &classes[c];
	struct head *h = NULL;
	OS_ERR err;

	OSSchedLock(&err);
	for (struct chunk *k = sc->chunks; k != NULL && h == NULL; k = k->next) {
		if (k->mem.NbrFree > 0) {
			sc->cur = k;
			h = OSMemGet(&k->mem, &err);
		}
	}
	if (h == NULL) {
		struct chunk *k = add_chunk(c);
		if (k != NULL) {
			sc->cur = k;
			h = OSMemGet(&k->mem, &err);
		}
	}
	if (h != NULL)
		h->part = &sc->cur->mem;
	OSSchedUnlock(&err);
	return h;
}

static struct head *large_get(uint32_t c)
{
	struct size_class *sc = &classes[c];
	OS_ERR err;

	OSSchedLock(&err);
	struct head *h = sc->free_large;
	if (h != NULL)
		sc->free_large = *(void **)h;
	else
		h = carve(class_bytes(c));
	if (h != NULL)
		sc->large_used++;
	OSSchedUnlock(&err);
	if (h != NULL)
		h->part = NULL;
	return h;
}

void *rtb_port_mem_alloc(size_t bytes)
{
	struct head *h = NULL;
	OS_ERR err;

	if (bytes > sizeof(heap))
		return NULL;
	uint32_t c = class_of(bytes + HEAD_BYTES);
	if (c == CLASSES)
		return NULL;
	if (class_bytes(c) <= PART_MAX_BYTES) {
		struct chunk *k = classes[c].cur;
		if (k != NULL)
			h = OSMemGet(&k->mem, &err);
		if (h != NULL)
			h->part = &k->mem;
		else
			h = part_slow(c);
	} else {
		h = large_get(c);
	}
	if (h == NULL)
		return NULL;
	h->cls = c;
	return (uint8_t *)h + HEAD_BYTES;
}

void rtb_port_mem_free(void *p)
{
	OS_ERR err;

	if (p == NULL)
		return;
	struct head *h = (struct head *)(void *)((uint8_t *)p - HEAD_BYTES);
	struct size_class *sc = &classes[h->cls];
	if (h->part != NULL) {
		OS_MEM *part = h->part;
		OSMemPut(part, h, &err);
		/* the next allocation of the class goes where this one was */
		sc->cur = (struct chunk *)(void *)part;
		return;
	}
	OSSchedLock(&err);
	*(void **)h = sc->free_large;
	sc->free_large = h;
	sc->large_used--;
	OSSchedUnlock(&err);
}

void ucos3_mem_stats(struct ucos3_mem_stats *out)
{
	OS_ERR err;

	rtb_memset(out, 0, sizeof(*out));
	OSSchedLock(&err);
	for (uint32_t c = 0; c < CLASSES; c++) {
		const struct size_class *sc = &classes[c];
		for (const struct chunk *k = sc->chunks; k != NULL; k = k->next) {
			uint64_t in_use = k->mem.NbrMax - k->mem.NbrFree;
			out->blocks += in_use;
			out->used_bytes += in_use * k->mem.BlkSize;
			out->partitions++;
		}
		out->blocks += sc->large_used;
		out->used_bytes += (uint64_t)sc->large_used * class_bytes(c);
	}
	out->reserved_bytes = heap_top;
	OSSchedUnlock(&err);
}

void ucos3_mem_reset_if_idle(void)
{
	struct ucos3_mem_stats s;
	OS_ERR err;

	OSSchedLock(&err);
	ucos3_mem_stats(&s);
	/* a block still in use outlived its run: keep everything */
	if (s.blocks == 0) {
		rtb_memset(classes, 0, sizeof(classes));
		heap_top = 0;
	}
	OSSchedUnlock(&err);
}

/* ---- the contract's fixed-size block pools -------------------------------- */

/* An OSMem partition of its own, followed by its blocks, in one block of the
 * allocator above: a get is OSMemGet, a put OSMemPut, as an application of
 * uC/OS-III takes its fixed-size blocks. */
struct rtb_pool {
	OS_MEM mem;
};

#define POOL_HEAD_BYTES ALIGN_UP(sizeof(struct rtb_pool))

int rtb_port_pool_create(struct rtb_pool **out, size_t block_bytes, uint32_t count)
{
	OS_ERR err;

	if (out == NULL || block_bytes == 0 || count == 0 || block_bytes > 0xFFFFu ||
	    count > 0xFFFFu)
		return RTB_E_INVALID;
	/* a free block holds the link to the next: at least a pointer, aligned */
	size_t block = (block_bytes + sizeof(void *) - 1u) & ~(sizeof(void *) - 1u);
	struct rtb_pool *p = rtb_port_mem_alloc(POOL_HEAD_BYTES + count * block);
	if (p == NULL)
		return RTB_E_NOMEM;
	rtb_memset(p, 0, sizeof(*p));
	OSMemCreate(&p->mem, (CPU_CHAR *)"rtb-pool", (uint8_t *)p + POOL_HEAD_BYTES,
		    (OS_MEM_QTY)count, (OS_MEM_SIZE)block, &err);
	if (err != OS_ERR_NONE) {
		rtb_port_mem_free(p);
		return RTB_E_OS;
	}
	*out = p;
	return RTB_OK;
}

int rtb_port_pool_delete(struct rtb_pool *p)
{
	if (p == NULL)
		return RTB_E_INVALID;
	if (p->mem.NbrFree != p->mem.NbrMax)
		return RTB_E_BUSY;
#if OS_CFG_DBG_EN > 0u
	/* uC/OS-III has no OSMemDel: take the partition off the kernel's debug
	 * list before its memory goes back */
	CPU_SR_ALLOC();
	CPU_CRITICAL_ENTER();
	if (p->mem.DbgPrevPtr != NULL)
		p->mem.DbgPrevPtr->DbgNextPtr = p->mem.DbgNextPtr;
	else
		OSMemDbgListPtr = p->mem.DbgNextPtr;
	if (p->mem.DbgNextPtr != NULL)
		p->mem.DbgNextPtr->DbgPrevPtr = p->mem.DbgPrevPtr;
	OSMemQty--;
	CPU_CRITICAL_EXIT();
#endif
	rtb_port_mem_free(p);
	return RTB_OK;
}

int rtb_port_pool_get(struct rtb_pool *p, void **block)
{
	OS_ERR err;
	void *b = OSMemGet(&p->mem, &err);

	if (err != OS_ERR_NONE)
		return err == OS_ERR_MEM_NO_FREE_BLKS ? RTB_E_AGAIN : RTB_E_OS;
	*block = b;
	return RTB_OK;
}

int rtb_port_pool_put(struct rtb_pool *p, void *block)
{
	OS_ERR err;

	OSMemPut(&p->mem, block, &err);
	return err == OS_ERR_NONE ? RTB_OK : RTB_E_OS;
}

const char *rtb_port_pool_mechanism(void)
{
	return "OSMemGet / OSMemPut (a uC/OS-III memory partition)";
}

int rtb_port_mem_usage(struct rtb_mem_usage *out)
{
	struct ucos3_mem_stats s;

	if (out == NULL)
		return RTB_E_INVALID;
	ucos3_mem_stats(&s);
	rtb_memset(out, 0, sizeof(*out));
	out->resident_bytes = s.reserved_bytes;
	out->heap_used_bytes = s.used_bytes;
	out->threads = OSTaskQty;
	out->handles = 0;
	out->note = "resident: bytes the port's allocator carved from the heap section for its "
		    "OSMem partitions and large blocks; heap: bytes of the blocks in use (by size "
		    "class); threads: uC/OS-III tasks (OSTaskQty)";
	return RTB_OK;
}
