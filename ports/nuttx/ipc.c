/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NuttX port: the IPC channels of the contract (rtb_port.h), the one-way
 * wake-ups the rt-tests tools measure. RTB_IPC_POSIX_MQ is a NuttX message
 * queue of IPC_MQ_DEPTH messages of 8 bytes, opened twice (a blocking
 * descriptor to receive, a non-blocking one so that a post never blocks and
 * a full queue is RTB_E_AGAIN) and unlinked at once, as pmqtest does. The
 * signal kinds are not ported (NuttX has signals; mapping the channels'
 * counting onto them is not done), and NuttX has no System V semaphores:
 * those kinds return RTB_E_UNSUPPORTED and their capabilities stay clear.
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "port_nuttx.h"

#define IPC_MQ_DEPTH 8
#define IPC_MQ_BYTES 8

struct rtb_ipc {
	mqd_t rx, tx;
	unsigned long long sent;
};

static unsigned mq_serial;

int rtb_port_ipc_create(struct rtb_ipc **out, enum rtb_ipc_kind kind, struct rtb_thread *receiver)
{
	char name[32];
	struct mq_attr attr = {.mq_maxmsg = IPC_MQ_DEPTH, .mq_msgsize = IPC_MQ_BYTES};

	(void)receiver; /* a queue is read by whoever waits */
	if (out == NULL)
		return RTB_E_INVALID;
	if (kind != RTB_IPC_POSIX_MQ)
		return RTB_E_UNSUPPORTED;
	struct rtb_ipc *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return RTB_E_NOMEM;
	snprintf(name, sizeof(name), "/rtbench-ipc-%u", mq_serial++);
	c->rx = mq_open(name, O_RDONLY | O_CREAT | O_EXCL, 0600, &attr);
	if (c->rx == (mqd_t)-1) {
		int err = errno;
		free(c);
		return posix_error(err);
	}
	c->tx = mq_open(name, O_WRONLY | O_NONBLOCK);
	int err = errno;
	mq_unlink(name); /* nothing left behind, whatever happens next */
	if (c->tx == (mqd_t)-1) {
		mq_close(c->rx);
		free(c);
		return posix_error(err);
	}
	*out = c;
	return RTB_OK;
}

int rtb_port_ipc_delete(struct rtb_ipc *c)
{
	if (c == NULL)
		return RTB_E_INVALID;
	mq_close(c->tx);
	mq_close(c->rx);
	free(c);
	return RTB_OK;
}

int rtb_port_ipc_post(struct rtb_ipc *c)
{
	char msg[IPC_MQ_BYTES];
	unsigned long long seq = c->sent++;

	memcpy(msg, &seq, sizeof(msg));
	while (mq_send(c->tx, msg, sizeof(msg), 0) != 0) {
		if (errno != EINTR)
			return posix_error(errno); /* EAGAIN: full */
	}
	return RTB_OK;
}

static int receive(struct rtb_ipc *c, const struct timespec *deadline)
{
	char msg[IPC_MQ_BYTES];

	for (;;) {
		ssize_t n = deadline == NULL
				    ? mq_receive(c->rx, msg, sizeof(msg), NULL)
				    : mq_timedreceive(c->rx, msg, sizeof(msg), NULL, deadline);
		if (n == (ssize_t)sizeof(msg))
			return RTB_OK;
		if (n >= 0)
			return RTB_E_OS; /* a message this channel never sends */
		if (errno == ETIMEDOUT)
			return RTB_E_TIMEOUT;
		if (errno != EINTR)
			return posix_error(errno);
	}
}

int rtb_port_ipc_wait(struct rtb_ipc *c)
{
	return receive(c, NULL);
}

int rtb_port_ipc_timedwait(struct rtb_ipc *c, uint64_t timeout_ns)
{
	/* mq_timedreceive() takes a CLOCK_REALTIME deadline; one already passed
	 * (a timeout of 0) takes a message waiting and never blocks */
	struct timespec at;

	clock_gettime(CLOCK_REALTIME, &at);
	uint64_t ns = (uint64_t)at.tv_nsec + timeout_ns;
	at.tv_sec += (time_t)(ns / 1000000000u);
	at.tv_nsec = (long)(ns % 1000000000u);
	return receive(c, &at);
}

const char *rtb_port_ipc_mechanism(enum rtb_ipc_kind kind)
{
	return kind == RTB_IPC_POSIX_MQ ? "POSIX message queue, mq_send() / mq_receive() of 8 bytes"
					: NULL;
}
