/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mps2-an385 peripherals: CMSDK UART0 (polled transmit, receive interrupt),
 * the dual timer as the free-running counter, APB timers 0 and 1 as the
 * port's interrupt sources, and the spare lines they are raised on from
 * software.
 */
#include "board.h"

#include "cm.h"
#include "rtb_fw_rtos.h"

/* CMSDK UART registers */
#define UART_DATA 0x00u
#define UART_STATE 0x04u
#define UART_CTRL 0x08u
#define UART_INT 0x0Cu
#define UART_BAUDDIV 0x10u
#define UART_STATE_TXFULL 1u
#define UART_STATE_RXFULL 2u
#define UART_CTRL_TX 1u
#define UART_CTRL_RX 2u
#define UART_CTRL_RXINT 8u
#define UART_INT_RX 2u

/* CMSDK APB timer registers */
#define TIMER_CTRL 0x00u
#define TIMER_VALUE 0x04u
#define TIMER_RELOAD 0x08u
#define TIMER_INT 0x0Cu
#define TIMER_CTRL_EN 1u
#define TIMER_CTRL_IE 8u

/* CMSDK dual timer, timer 1 */
#define DUAL_LOAD 0x00u
#define DUAL_CTRL 0x08u
#define DUAL_CTRL_32BIT 0x02u
#define DUAL_CTRL_EN 0x80u

/* Interrupt priorities: both may call the RTOS from their handlers. The
 * timer is the more urgent: it is what the interrupt scenarios measure. A
 * source's software line has the timer's priority. */
#define PRIO_TIMER RTB_FW_IRQ_PRIO
#define PRIO_UART (RTB_FW_IRQ_PRIO + 0x20u)

static void (*rx_byte)(uint8_t);
static uint8_t timer_periodic[BOARD_TIMERS];

static const uint32_t timer_base[BOARD_TIMERS] = {BOARD_TIMER0_BASE, BOARD_TIMER1_BASE};
static const unsigned timer_irq[BOARD_TIMERS] = {BOARD_TIMER0_IRQ, BOARD_TIMER1_IRQ};

void board_counter_restart(void)
{
	CM_REG(BOARD_DUALTIMER_BASE + DUAL_CTRL) = 0;
	CM_REG(BOARD_DUALTIMER_BASE + DUAL_LOAD) = 0xFFFFFFFFu;
	/* free-running, 32 bits */
	CM_REG(BOARD_DUALTIMER_BASE + DUAL_CTRL) = DUAL_CTRL_EN | DUAL_CTRL_32BIT;
}

void board_init(void (*rx)(uint8_t byte))
{
	board_counter_restart();

	rx_byte = rx;
	CM_REG(BOARD_UART0_BASE + UART_BAUDDIV) = 16;
	CM_REG(BOARD_UART0_BASE + UART_CTRL) = UART_CTRL_TX | UART_CTRL_RX | UART_CTRL_RXINT;
	cm_nvic_enable(BOARD_UART0_RX_IRQ, PRIO_UART);
	for (unsigned n = 0; n < BOARD_TIMERS; n++) {
		CM_REG(timer_base[n] + TIMER_CTRL) = 0;
		CM_REG(timer_base[n] + TIMER_INT) = 1;
		cm_nvic_enable(timer_irq[n], PRIO_TIMER);
		cm_nvic_enable(BOARD_SOFT_IRQ(n), PRIO_TIMER);
	}
}

void board_console_write(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		while (CM_REG(BOARD_UART0_BASE + UART_STATE) & UART_STATE_TXFULL)
			;
		CM_REG(BOARD_UART0_BASE + UART_DATA) = (uint8_t)buf[i];
	}
}

void board_uart0_rx_handler(void);
void board_uart0_rx_handler(void)
{
	RTB_FW_ISR_ENTER();
	CM_REG(BOARD_UART0_BASE + UART_INT) = UART_INT_RX;
	while (CM_REG(BOARD_UART0_BASE + UART_STATE) & UART_STATE_RXFULL) {
		uint8_t b = (uint8_t)CM_REG(BOARD_UART0_BASE + UART_DATA);
		if (rx_byte != NULL)
			rx_byte(b);
	}
	RTB_FW_ISR_EXIT();
}

void board_timer_start(unsigned n, uint32_t ticks, int periodic)
{
	uint32_t base = timer_base[n];

	if (ticks == 0)
		ticks = 1;
	CM_REG(base + TIMER_CTRL) = 0;
	CM_REG(base + TIMER_INT) = 1;
	timer_periodic[n] = (uint8_t)(periodic != 0);
	/* The timer counts VALUE down to 0, interrupts, and takes one more tick
	 * to load RELOAD: the first interrupt comes after VALUE ticks, the next
	 * every RELOAD + 1 ticks. */
	CM_REG(base + TIMER_RELOAD) = periodic && ticks > 1 ? ticks - 1 : ticks;
	CM_REG(base + TIMER_VALUE) = ticks;
	CM_REG(base + TIMER_CTRL) = TIMER_CTRL_EN | TIMER_CTRL_IE;
}

void board_timer_stop(unsigned n)
{
	CM_REG(timer_base[n] + TIMER_CTRL) = 0;
	CM_REG(timer_base[n] + TIMER_INT) = 1;
	CM_REG(CM_NVIC_ICPR) = 1u << timer_irq[n];
}

int board_timer_expired(unsigned n)
{
	/* INTSTATUS on a read, INTCLEAR on a write */
	return (int)(CM_REG(timer_base[n] + TIMER_INT) & 1u);
}

static void timer_handler(unsigned n)
{
	uint32_t base = timer_base[n];

	if (!timer_periodic[n])
		CM_REG(base + TIMER_CTRL) = 0;
	CM_REG(base + TIMER_INT) = 1;
	rtb_fw_timer_isr(n);
}

void board_timer0_handler(void);
void board_timer0_handler(void)
{
	timer_handler(0);
}

void board_timer1_handler(void);
void board_timer1_handler(void)
{
	timer_handler(1);
}

void board_reset(void)
{
	cm_system_reset();
}
