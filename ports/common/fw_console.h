/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The console of a firmware image: the serial line protocol (docs/targets.md,
 * "The serial line protocol") on the board's UART, for every RTOS port on
 * every board (ports/boards/<board>/board.h).
 *
 *   image -> host  `#rtb ready 1 <release> <machine>` after boot and on hello
 *                  `{...}` record lines of a run, `#rtb err <text>`,
 *                  `#rtb exit <status>` at the end of a run
 *                  `#rtb data <text>` ... `#rtb done` (read), `#rtb fail <errno> <text>`
 *   host -> image  `#rtb hello`, `#rtb run <arg>...`, `#rtb term`, `#rtb kill`,
 *                  `#rtb read <the facts path>`, `#rtb off`
 *
 * fw_console.c does all that does not depend on the RTOS: the ring the UART's
 * receive interrupt fills, line assembly, the requests, the facts file's
 * framing, and the runner, which starts each run on a tick boundary with the
 * counter back at zero and calls rtb_main() (the core's session API resets
 * its state each time). It also implements rtb_port_console_read() and
 * rtb_port_stop_requested() of the contract. rtb_port_console_write(), the
 * path of a run's records, stays with the port: a run's timeline, and so
 * its figures under QEMU's -icount, count every instruction executed on it
 * (board_console_write() under the port's write lock, taken only from a task
 * once the scheduler runs, as rtb_fw_os_lock() does).
 *
 * The port creates two tasks: the console task, at a priority above every
 * scenario's, whose body is rtb_fw_console_main(), and the runner task, at
 * the scenarios' lowest priority with a large stack (it runs the core),
 * whose body is rtb_fw_runner_main(). It calls rtb_fw_console_init() once
 * before its scheduler starts, and implements the hooks below.
 */
#ifndef RTB_FW_CONSOLE_H
#define RTB_FW_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>

/* ---- what fw_console.c gives the port ----------------------------------- */

/* Start the board (board_init) with the console's receive interrupt
 * feeding the ring. Before the scheduler starts. */
void rtb_fw_console_init(void);
/* The console task's body: `ready`, then lines assembled and answered,
 * forever. */
void rtb_fw_console_main(void);
/* The runner task's body: one rtb_main() per `run`, forever. */
void rtb_fw_runner_main(void);
/* `"board":...,"cpu":...,"cpu_hz":...,"counter":{...}`: the board's members
 * of the facts object, for the port's rtb_fw_os_facts(). Returns the length
 * written (as rtb_fmt). */
size_t rtb_fw_facts_board(char *buf, size_t len);
/* A configuration macro of the kernel whose value is a number, for the
 * facts' "config" object: RTB_FW_CFG(configTICK_RATE_HZ). */
struct rtb_fw_cfg {
	const char *key;
	unsigned long value;
};
#define RTB_FW_CFG(macro)                                      \
	{                                                      \
		.key = #macro, .value = (unsigned long)(macro) \
	}
/* `"key":value` for each of the n values, between commas: the members of
 * the facts' "config" object. Returns the length written (as rtb_fmt). */
size_t rtb_fw_facts_config(char *buf, size_t len, const struct rtb_fw_cfg *cfg, size_t n);

/* ---- what the port gives fw_console.c ------------------------------------ */

/* Serialise writes to the console, so lines of the console task, the runner
 * and the scenarios' threads do not mix. Returns true when it took the
 * lock, false when it cannot be taken here (an interrupt handler, the
 * scheduler not started yet, the lock not created): the caller then writes
 * without it and does not unlock. The console task's own control lines
 * are always written from a task once the scheduler runs. */
bool rtb_fw_os_lock(void);
void rtb_fw_os_unlock(void);
/* From the UART's receive interrupt, after a byte went into the ring: wake
 * the console task (a wake while it is not waiting is kept for its next
 * wait). The interrupt is bracketed by RTB_FW_ISR_ENTER/EXIT (rtb_fw_rtos.h). */
void rtb_fw_os_console_wake_from_isr(void);
/* Console task: block until woken. */
void rtb_fw_os_console_wait(void);
/* Hand a run to the runner task (from the console task); the runner's
 * wait. A wake while the runner is not waiting is kept. */
void rtb_fw_os_runner_wake(void);
void rtb_fw_os_runner_wait(void);
/* Runner: block until the next OS tick has passed, so that a run starts on
 * a tick boundary (called twice: fw_console.c says why). */
void rtb_fw_os_tick_wait(void);
/* Restart the port's counter from zero (rtb_port_counter_read()), right
 * after rtb_fw_os_tick_wait(): every timestamp of a run comes from one
 * counter epoch that starts on a tick. */
void rtb_fw_os_counter_restart(void);
/* Runner, after rtb_main() returned: undo what a run may have left on the
 * runner (its priority back to the scenarios' lowest, ...). */
void rtb_fw_os_run_done(void);
/* The release in the `ready` line, e.g. "FreeRTOS V11.1.0". */
const char *rtb_fw_os_release(void);
/* The one file `#rtb read` answers, e.g. "/rtbench/freertos.json". */
const char *rtb_fw_os_facts_path(void);
/* Its content: one JSON object describing the kernel, its configuration and
 * the board (rtb_fw_facts_board()). Writes at most len bytes with a NUL,
 * returns the length written. */
size_t rtb_fw_os_facts(char *buf, size_t len);

#endif /* RTB_FW_CONSOLE_H */
