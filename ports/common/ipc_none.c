/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IPC channels of the port contract (signals, System V semaphores, POSIX
 * message queues) for a port whose OS has none of them, as on most RTOSes:
 * every call returns RTB_E_UNSUPPORTED, and the port leaves the
 * RTB_CAP_IPC_* flags clear so the IPC scenarios report `unsupported`. A port
 * links this file instead of writing the same stubs again.
 */
#include "rtb_port.h"

int rtb_port_ipc_create(struct rtb_ipc **out, enum rtb_ipc_kind kind, struct rtb_thread *receiver)
{
	(void)out;
	(void)kind;
	(void)receiver;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_ipc_delete(struct rtb_ipc *c)
{
	(void)c;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_ipc_post(struct rtb_ipc *c)
{
	(void)c;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_ipc_wait(struct rtb_ipc *c)
{
	(void)c;
	return RTB_E_UNSUPPORTED;
}

int rtb_port_ipc_timedwait(struct rtb_ipc *c, uint64_t timeout_ns)
{
	(void)c;
	(void)timeout_ns;
	return RTB_E_UNSUPPORTED;
}

const char *rtb_port_ipc_mechanism(enum rtb_ipc_kind kind)
{
	(void)kind;
	return NULL;
}
