/* SPDX-License-Identifier: Apache-2.0 */
/*
 * virt-a7 devices: the GICv2, the PL011 UART0 (polled transmit, receive
 * interrupt), the generic timer's virtual timer as the RTOS's tick and its
 * non-secure physical timer as the ports' interrupt source, the source's
 * software-generated interrupt, and the power-off through PSCI.
 */
#include "board.h"

#include "ca.h"
#include "fw_arch.h"
#include "rtb_fw_rtos.h"

/* GICv2 distributor and CPU interface registers */
#define GICD_CTLR 0x000u
#define GICD_ISENABLER 0x100u
#define GICD_ICPENDR 0x280u
#define GICD_IPRIORITYR 0x400u
#define GICD_ITARGETSR 0x800u
#define GICC_CTLR 0x00u
#define GICC_PMR 0x04u
#define GICC_BPR 0x08u
#define GIC_FIRST_SPI 32u

/* PL011 registers */
#define UART_DR 0x00u
#define UART_FR 0x18u
#define UART_LCR_H 0x2Cu
#define UART_CR 0x30u
#define UART_IMSC 0x38u
#define UART_ICR 0x44u
#define UART_FR_RXFE 0x10u
#define UART_FR_TXFF 0x20u
#define UART_LCR_H_FEN_8BIT 0x70u
#define UART_CR_EN_TX_RX 0x301u
#define UART_INT_RX_RT 0x50u /* receive and receive-timeout */

/* Generic timer control: enable, and the condition met (ISTATUS) */
#define TIMER_CTL_ENABLE 1u
#define TIMER_CTL_ISTATUS 4u

/* PSCI 0.2 SYSTEM_OFF; on virt without EL2 or EL3 QEMU answers HVC itself */
#define PSCI_SYSTEM_OFF 0x84000008u

/* Interrupt priorities (8 bits, lower is more urgent). The timer and its
 * software interrupt may call the RTOS from their handlers, the UART too;
 * the timer is the more urgent (it is what the interrupt scenarios
 * measure). The tick is the RTOS's own choice. */
#define PRIO_TIMER RTB_FW_IRQ_PRIO
#define PRIO_UART (RTB_FW_IRQ_PRIO + 0x20u)
#define PRIO_TICK RTB_FW_TICK_PRIO

void RTB_FW_TICK_HANDLER(void);

static void (*rx_byte)(uint8_t);
static uint64_t tick_cval, tick_period;
static uint64_t timer_cval, timer_period;
static uint8_t timer_periodic;

/* ---- generic timer registers ---------------------------------------------- */

static inline uint64_t cntpct(void)
{
	uint32_t low, high;

	__asm volatile("isb\n\tmrrc p15, 0, %0, %1, c14" : "=r"(low), "=r"(high)::"memory");
	return ((uint64_t)high << 32) | low;
}

static inline uint64_t cntvct(void)
{
	uint32_t low, high;

	__asm volatile("isb\n\tmrrc p15, 1, %0, %1, c14" : "=r"(low), "=r"(high)::"memory");
	return ((uint64_t)high << 32) | low;
}

static inline void cntp_cval_set(uint64_t v)
{
	__asm volatile("mcrr p15, 2, %0, %1, c14\n\tisb" ::"r"((uint32_t)v),
		       "r"((uint32_t)(v >> 32))
		       : "memory");
}

static inline void cntp_ctl_set(uint32_t v)
{
	__asm volatile("mcr p15, 0, %0, c14, c2, 1\n\tisb" ::"r"(v) : "memory");
}

static inline uint32_t cntp_ctl(void)
{
	uint32_t v;

	__asm volatile("mrc p15, 0, %0, c14, c2, 1" : "=r"(v));
	return v;
}

static inline void cntv_cval_set(uint64_t v)
{
	__asm volatile("mcrr p15, 3, %0, %1, c14\n\tisb" ::"r"((uint32_t)v),
		       "r"((uint32_t)(v >> 32))
		       : "memory");
}

static inline void cntv_ctl_set(uint32_t v)
{
	__asm volatile("mcr p15, 0, %0, c14, c3, 1\n\tisb" ::"r"(v) : "memory");
}

/* ---- GIC ----------------------------------------------------------------- */

static void gic_enable(unsigned intid, uint8_t prio)
{
	*(volatile uint8_t *)(uintptr_t)(BOARD_GICD_BASE + GICD_IPRIORITYR + intid) = prio;
	if (intid >= GIC_FIRST_SPI)
		*(volatile uint8_t *)(uintptr_t)(BOARD_GICD_BASE + GICD_ITARGETSR + intid) = 1;
	CA_REG(BOARD_GICD_BASE + GICD_ICPENDR + 4u * (intid / 32u)) = 1u << (intid % 32u);
	CA_REG(BOARD_GICD_BASE + GICD_ISENABLER + 4u * (intid / 32u)) = 1u << (intid % 32u);
}

static void gic_init(void)
{
	CA_REG(BOARD_GICD_BASE + GICD_CTLR) = 0;
	CA_REG(BOARD_GICD_BASE + GICD_CTLR) = 1;
	CA_REG(BOARD_GICC_BASE + GICC_PMR) = 0xFFu;
	/* every priority bit a preemption bit (FreeRTOS's Cortex-A port checks) */
	CA_REG(BOARD_GICC_BASE + GICC_BPR) = 0;
	CA_REG(BOARD_GICC_BASE + GICC_CTLR) = 1;
}

/* ---- the board ------------------------------------------------------------ */

void board_init(void (*rx)(uint8_t byte))
{
	ca_counter_start();
	gic_init();

	rx_byte = rx;
	CA_REG(BOARD_UART0_BASE + UART_CR) = 0;
	CA_REG(BOARD_UART0_BASE + UART_LCR_H) = UART_LCR_H_FEN_8BIT;
	CA_REG(BOARD_UART0_BASE + UART_IMSC) = UART_INT_RX_RT;
	CA_REG(BOARD_UART0_BASE + UART_CR) = UART_CR_EN_TX_RX;
	gic_enable(BOARD_UART0_IRQ, PRIO_UART);

	cntp_ctl_set(0);
	gic_enable(BOARD_TIMER0_IRQ, PRIO_TIMER);
	gic_enable(BOARD_SOFT_IRQ(0), PRIO_TIMER);
}

void board_console_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		while (CA_REG(BOARD_UART0_BASE + UART_FR) & UART_FR_TXFF)
			;
		CA_REG(BOARD_UART0_BASE + UART_DR) = (uint8_t)buf[i];
	}
}

static void uart0_rx_handler(void)
{
	RTB_FW_ISR_ENTER();
	CA_REG(BOARD_UART0_BASE + UART_ICR) = UART_INT_RX_RT;
	while (!(CA_REG(BOARD_UART0_BASE + UART_FR) & UART_FR_RXFE)) {
		uint8_t b = (uint8_t)CA_REG(BOARD_UART0_BASE + UART_DR);
		if (rx_byte != NULL)
			rx_byte(b);
	}
	RTB_FW_ISR_EXIT();
}

/* The tick: the next deadline one period after the last one, not after
 * the handler's start (reloading TVAL would lose the handler's latency
 * at every tick). */
void board_tick_start(uint32_t hz)
{
	tick_period = BOARD_TIMER_HZ / hz;
	tick_cval = cntvct() + tick_period;
	cntv_cval_set(tick_cval);
	cntv_ctl_set(TIMER_CTL_ENABLE);
	gic_enable(BOARD_TICK_IRQ, PRIO_TICK);
}

static void tick_handler(void)
{
	tick_cval += tick_period;
	cntv_cval_set(tick_cval);
	RTB_FW_TICK_HANDLER();
}

/* The interrupt source's timer: one (BOARD_TIMERS), the physical timer;
 * n is checked by the shared code (fw_port.h). */
void board_timer_start(unsigned n, uint32_t ticks, int periodic)
{
	(void)n;
	if (ticks == 0)
		ticks = 1;
	cntp_ctl_set(0);
	timer_periodic = (uint8_t)(periodic != 0);
	timer_period = ticks;
	timer_cval = cntpct() + ticks;
	cntp_cval_set(timer_cval);
	cntp_ctl_set(TIMER_CTL_ENABLE);
}

void board_timer_stop(unsigned n)
{
	(void)n;
	cntp_ctl_set(0);
	CA_REG(BOARD_GICD_BASE + GICD_ICPENDR) = 1u << BOARD_TIMER0_IRQ;
}

int board_timer_expired(unsigned n)
{
	(void)n;
	return (cntp_ctl() & TIMER_CTL_ISTATUS) != 0;
}

static void timer_handler(void)
{
	if (timer_periodic) {
		timer_cval += timer_period;
		cntp_cval_set(timer_cval);
	} else {
		cntp_ctl_set(0);
	}
	rtb_fw_timer_isr(0);
}

_Static_assert(BOARD_TIMERS == 1, "one timer, one software interrupt");
_Static_assert(BOARD_SOFT_IRQ(0) < 16, "a software-generated interrupt is an SGI");

void board_irq_handler(uint32_t iar)
{
	uint32_t intid = iar & 0x3FFu;

	/* the software interrupt first: the few instructions tm.irq measures */
	if (intid == BOARD_SOFT_IRQ(0))
		rtb_fw_soft0_isr();
	else if (intid == BOARD_TIMER0_IRQ)
		timer_handler();
	else if (intid == BOARD_TICK_IRQ)
		tick_handler();
	else if (intid == BOARD_UART0_IRQ)
		uart0_rx_handler();
	else if (intid != BOARD_GIC_SPURIOUS)
		rtb_fw_fatal("unexpected interrupt, INTID", intid);
}

/* PSCI SYSTEM_OFF: QEMU exits. */
void board_reset(void)
{
	register uint32_t r0 __asm("r0") = PSCI_SYSTEM_OFF;

	__asm volatile("dsb\n\thvc #0" : "+r"(r0)::"memory");
	for (;;)
		__asm volatile("wfi");
}
