/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The contract's fixed-size block pool (rtb_port_pool_*) for a port whose OS
 * has none (FreeRTOS: its heap is the idiom; POSIX: malloc), emulated over
 * the port's own allocator: a get is rtb_port_mem_alloc(block_bytes), a put
 * rtb_port_mem_free(), and nothing else, so that what is measured is the
 * OS's allocator, the service an application of that OS would use, with no
 * bookkeeping of rtbench's around it. Such a pool reserves nothing: a get
 * fails only when the allocator does (RTB_E_NOMEM), never for `count`, and
 * its delete cannot tell whether blocks are still out (the caller gives them
 * back first, as the contract asks). A port using it leaves
 * RTB_CAP_MEM_POOL clear and names its allocator in
 * rtb_port_pool_mechanism(), which it defines itself.
 */
#include "rtb_port.h"

struct rtb_pool {
	size_t block_bytes;
};

int rtb_port_pool_create(struct rtb_pool **out, size_t block_bytes, uint32_t count)
{
	if (out == NULL || block_bytes == 0 || count == 0)
		return RTB_E_INVALID;
	struct rtb_pool *p = rtb_port_mem_alloc(sizeof(*p));
	if (p == NULL)
		return RTB_E_NOMEM;
	p->block_bytes = block_bytes;
	*out = p;
	return RTB_OK;
}

int rtb_port_pool_delete(struct rtb_pool *p)
{
	if (p == NULL)
		return RTB_E_INVALID;
	rtb_port_mem_free(p);
	return RTB_OK;
}

int rtb_port_pool_get(struct rtb_pool *p, void **block)
{
	void *b = rtb_port_mem_alloc(p->block_bytes);

	if (b == NULL)
		return RTB_E_NOMEM;
	*block = b;
	return RTB_OK;
}

int rtb_port_pool_put(struct rtb_pool *p, void *block)
{
	(void)p;
	rtb_port_mem_free(block);
	return RTB_OK;
}
