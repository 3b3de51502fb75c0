/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ThreadX port: what the core inlines (rtb_port.h). The counter read, the
 * board's free-running timer turned into a 64-bit up-count by the
 * architecture's code (fw_counter.h), the same read as every other firmware
 * port on the board, so figures compare. A fire with delay 0, the firmware
 * ports' software line (fw_irq.h). The semaphore's take without waiting and
 * its signal from a handler: one ThreadX call each, tx_semaphore_get with
 * TX_NO_WAIT and tx_semaphore_put, the calls the port's other semaphore
 * functions make (sync.c), with ThreadX's status turned into rtbench's.
 *
 * No ThreadX header: the core reads this one, freestanding. It reads the
 * configuration, tx_user.h (#define lines only), which says which functions
 * tx_api.h names tx_semaphore_get and tx_semaphore_put: the kernel's own
 * (_tx_semaphore_get, _tx_semaphore_put) with TX_DISABLE_ERROR_CHECKING,
 * declared here with the kernel's types (UINT is unsigned int, ULONG
 * unsigned long, on every ThreadX port rtbench builds; sync.c, which reads
 * both this header and tx_api.h, has the compiler check that the two
 * declarations agree). Without TX_DISABLE_ERROR_CHECKING (the checking
 * wrappers), or with RTB_THREADX_SEM_PRIORITIZE (a tx_semaphore_prioritize
 * before each put), the two calls stay in sync.c.
 */
#ifndef RTB_PORT_INLINE_H
#define RTB_PORT_INLINE_H

#include <stdint.h>

#include "fw_counter.h"
#include "fw_irq.h"
#include "rtb_port.h"
#include "tx_user.h"

#ifndef RTB_THREADX_SEM_PRIORITIZE
#define RTB_THREADX_SEM_PRIORITIZE 0
#endif
#if defined(TX_DISABLE_ERROR_CHECKING) && !RTB_THREADX_SEM_PRIORITIZE
#define TXP_SEM_INLINE 1
#else
#define TXP_SEM_INLINE 0
#endif

static inline uint64_t rtb_port_counter_read(void)
{
	return RTB_FW_COUNTER_READ();
}

static inline int rtb_port_irq_fire_now(struct rtb_irq *irq)
{
	return rtb_fw_irq_fire_now(irq);
}

#if TXP_SEM_INLINE
struct TX_SEMAPHORE_STRUCT;
unsigned int _tx_semaphore_get(struct TX_SEMAPHORE_STRUCT *semaphore_ptr,
			       unsigned long wait_option);
unsigned int _tx_semaphore_put(struct TX_SEMAPHORE_STRUCT *semaphore_ptr);

static inline int rtb_port_sem_trywait(struct rtb_sem *s)
{
	/* TX_NO_WAIT; TX_SUCCESS is 0 */
	return _tx_semaphore_get((struct TX_SEMAPHORE_STRUCT *)s, 0ul) == 0u ? RTB_OK : RTB_E_AGAIN;
}

/* From a handler as from a thread: ThreadX tells them apart itself. */
static inline int rtb_port_sem_signal_from_irq(struct rtb_sem *s)
{
	return _tx_semaphore_put((struct TX_SEMAPHORE_STRUCT *)s) == 0u ? RTB_OK : RTB_E_OS;
}
#else
int rtb_port_sem_trywait(struct rtb_sem *s);
int rtb_port_sem_signal_from_irq(struct rtb_sem *s);
#endif

#endif /* RTB_PORT_INLINE_H */
