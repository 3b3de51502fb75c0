/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virt-a7 startup. QEMU loads the ELF and enters reset_handler in
 * non-secure SVC mode, IRQ and FIQ masked, MMU and caches off (they stay
 * off). Before any C code: the FPU is enabled (CPACR cp10/cp11, then
 * FPEXC.EN), since GCC vectorises C with NEON at -O2 (the first loop of
 * the RTOS would take an undefined-instruction exception), the vector table
 * is installed (VBAR), and every mode gets its stack. Then .bss is cleared,
 * the thread pointer set for picolibc's thread-local data, and main() runs
 * in SVC mode. The RTOS's own handlers (its supervisor call and interrupt
 * entry, and its FIQ entry when it has one, named by the port's
 * rtb_fw_rtos.h) are in the table directly.
 */
#include <stdint.h>

#include "board.h"
#include "rtb_fw_rtos.h"

#define STR_(x) #x
#define STR(x) STR_(x)

extern uint32_t __bss_start, __bss_end, __tls_base;

int main(void);
void reset_handler(void);
void board_start(void);
void ca_undef_handler(void);
void ca_prefetch_abort_handler(void);
void ca_data_abort_handler(void);
void ca_unexpected_handler(void);
void _set_tls(void *tls);

/* An RTOS without an FIQ entry of its own: an unexpected exception. */
#ifndef RTB_FW_FIQ_HANDLER
#define RTB_FW_FIQ_HANDLER ca_unexpected_handler
#endif

/* ARM-state branches: the table is 32-byte aligned for VBAR. */
#define VECTOR(handler) "\tb " STR(handler) "\n"
#define VECTORS_ENTRIES                   \
	VECTOR(reset_handler)             \
	VECTOR(ca_undef_handler)          \
	VECTOR(RTB_FW_SWI_HANDLER)        \
	VECTOR(ca_prefetch_abort_handler) \
	VECTOR(ca_data_abort_handler)     \
	VECTOR(ca_unexpected_handler)     \
	VECTOR(RTB_FW_IRQ_HANDLER)        \
	VECTOR(RTB_FW_FIQ_HANDLER)
__asm(".section .vectors, \"ax\", %progbits\n"
      ".arm\n"
      ".balign 32\n"
      ".global vectors\n"
      "vectors:\n" VECTORS_ENTRIES ".text\n");

__attribute__((naked, section(".text.reset"))) void reset_handler(void)
{
	__asm volatile("cpsid if\n\t"
		       /* CPACR: cp10 and cp11 full access, then FPEXC.EN */
		       "mrc p15, 0, r0, c1, c0, 2\n\t"
		       "orr r0, r0, #0xF00000\n\t"
		       "mcr p15, 0, r0, c1, c0, 2\n\t"
		       "isb\n\t"
		       "mov r0, #0x40000000\n\t"
		       "vmsr fpexc, r0\n\t"
		       "ldr r0, =vectors\n\t"
		       "mcr p15, 0, r0, c12, c0, 0\n\t"
		       "isb\n\t"
		       "cps #0x11\n\t"
		       "ldr sp, =__stack_fiq_top\n\t"
		       "cps #0x12\n\t"
		       "ldr sp, =__stack_irq_top\n\t"
		       "cps #0x17\n\t"
		       "ldr sp, =__stack_abt_top\n\t"
		       "cps #0x1B\n\t"
		       "ldr sp, =__stack_und_top\n\t"
		       "cps #0x1F\n\t"
		       "ldr sp, =__stack_sys_top\n\t"
		       "cps #0x13\n\t"
		       "ldr sp, =__stack_svc_top\n\t"
		       "b board_start\n\t"
		       ".ltorg\n\t");
}

void board_start(void)
{
	for (uint32_t *dst = &__bss_start; dst < &__bss_end;)
		*dst++ = 0;
	_set_tls(&__tls_base);
	main();
	board_reset();
}
