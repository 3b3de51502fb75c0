/* SPDX-License-Identifier: Apache-2.0 */
/*
 * POSIX port: IPC channels, the services the rt-tests tools measure
 * (signaltest, sigwaittest, svsematest, pmqtest).
 *
 * Signal kinds. Each signal channel owns one real-time signal of the range
 * SIGRTMIN+10 .. SIGRTMIN+17 (the interrupt sources use +2 .. +9), so at
 * most IPC_SIGNALS signal channels exist at once. rtb_port_init() blocks
 * the whole range in the thread that calls it and every thread the port
 * creates inherits that mask: the signal is never delivered asynchronously
 * to a thread that does not expect it, and a post that comes before the
 * receiver waits stays pending. A post is tgkill() of the receiver's kernel
 * thread id (what pthread_kill() does); real-time signals queue, so posts
 * count. RTB_IPC_SIGWAIT takes the signal with sigwaitinfo() (sigtimedwait()
 * for a timed wait). RTB_IPC_SIGNAL lets it in only while the receiver
 * sleeps in sigsuspend() (pselect() for a timed wait): the handler counts
 * it, and the wait returns once the count is positive. Both kinds install
 * that counting handler, so a delivery can never take the default action
 * (ending the process). Deleting a channel sets the signal to SIG_IGN,
 * which discards the posts still pending, then restores the old action.
 *
 * RTB_IPC_SYSV_SEM: a private System V semaphore set of one (semget with
 * IPC_PRIVATE, removed with IPC_RMID); post is semop +1, wait semop -1, a
 * timed wait semtimedop. RTB_IPC_POSIX_MQ: a queue of IPC_MQ_DEPTH messages
 * of 8 bytes, opened twice (a blocking descriptor to receive, a
 * non-blocking one so that a post never blocks) and unlinked at once.
 *
 * rtb_port_init() probes System V semaphores and message queues once (a
 * container may forbid them) and sets the RTB_CAP_IPC_* bits of what works.
 */
#include "port_posix.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define IPC_SIGNAL_OFFSET 10 /* from SIGRTMIN */
#define IPC_SIGNALS 8
#define IPC_MQ_DEPTH 8
#define IPC_MQ_BYTES 8

struct rtb_ipc {
	enum rtb_ipc_kind kind;
	/* signal kinds */
	int slot;
	int signo;
	pid_t pid;
	pid_t receiver;
	struct sigaction old_action;
	atomic_uint arrived; /* RTB_IPC_SIGNAL: counted by the handler */
	sigset_t open;	     /* RTB_IPC_SIGNAL: the receiver's mask while it sleeps */
	bool open_known;
	/* System V semaphore */
	int semid;
	/* POSIX message queue */
	mqd_t rx, tx;
	atomic_ullong sent;
};

static struct rtb_ipc *_Atomic slots[IPC_SIGNALS];
static atomic_uint mq_serial;

static int signo_of(int slot)
{
	return SIGRTMIN + IPC_SIGNAL_OFFSET + slot;
}

static void on_ipc_signal(int signo)
{
	int slot = signo - signo_of(0);

	if (slot < 0 || slot >= IPC_SIGNALS)
		return;
	struct rtb_ipc *c = atomic_load(&slots[slot]);
	if (c != NULL)
		atomic_fetch_add(&c->arrived, 1);
}

/* A deadline on CLOCK_MONOTONIC, and the time left until it (false once
 * it has passed). */
static struct timespec deadline_after(uint64_t ns)
{
	unsigned long long at = posix_now_ns() + ns;

	if (at < ns) /* overflow: as good as forever */
		at = ~0ull >> 2;
	return (struct timespec){(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
}

static bool time_left(const struct timespec *deadline, struct timespec *left)
{
	unsigned long long at = (unsigned long long)deadline->tv_sec * 1000000000ull +
				(unsigned long long)deadline->tv_nsec;
	unsigned long long now = posix_now_ns();

	if (now >= at)
		return false;
	left->tv_sec = (time_t)((at - now) / 1000000000u);
	left->tv_nsec = (long)((at - now) % 1000000000u);
	return true;
}

/* ---- signals ------------------------------------------------------------- */

static int signal_open(struct rtb_ipc *c, struct rtb_thread *receiver)
{
	int rc = posix_thread_tid(receiver, &c->receiver);

	if (rc != RTB_OK)
		return rc;
	c->pid = getpid();
	c->slot = -1;
	for (int i = 0; i < IPC_SIGNALS; i++) {
		struct rtb_ipc *expected = NULL;
		if (atomic_compare_exchange_strong(&slots[i], &expected, c)) {
			c->slot = i;
			break;
		}
	}
	if (c->slot < 0)
		return RTB_E_NOMEM;
	c->signo = signo_of(c->slot);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_ipc_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(c->signo, &sa, &c->old_action) != 0) {
		int err = errno;
		atomic_store(&slots[c->slot], NULL);
		return posix_error(err);
	}
	return RTB_OK;
}

static void signal_close(struct rtb_ipc *c)
{
	struct sigaction ign;

	/* SIG_IGN discards the posts still pending for the receiver. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(c->signo, &ign, NULL);
	sigaction(c->signo, &c->old_action, NULL);
	atomic_store(&slots[c->slot], NULL);
}

static int signal_post(struct rtb_ipc *c)
{
	if (syscall(SYS_tgkill, c->pid, c->receiver, c->signo) == 0)
		return RTB_OK;
	return errno == ESRCH ? RTB_E_INVALID : posix_error(errno);
}

static int sigwait_wait(struct rtb_ipc *c, const struct timespec *deadline)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, c->signo);
	for (;;) {
		int got;
		if (deadline == NULL) {
			got = sigwaitinfo(&set, NULL);
		} else {
			struct timespec left = {0, 0};
			time_left(deadline, &left); /* zero once passed: a last poll */
			got = sigtimedwait(&set, NULL, &left);
		}
		if (got == c->signo)
			return RTB_OK;
		if (got < 0 && errno == EAGAIN)
			return RTB_E_TIMEOUT;
		if (got < 0 && errno != EINTR)
			return posix_error(errno);
	}
}

static bool take_arrived(struct rtb_ipc *c)
{
	unsigned n = atomic_load(&c->arrived);

	while (n > 0) {
		if (atomic_compare_exchange_weak(&c->arrived, &n, n - 1))
			return true;
	}
	return false;
}

static int handler_wait(struct rtb_ipc *c, const struct timespec *deadline)
{
	/* The signal is blocked here, so it cannot arrive between the test
	 * of the count and the sleep: sigsuspend() and pselect() unblock it
	 * and sleep in one step. The receiver's mask is read once (only the
	 * receiver waits), so a wait makes no other system call. */
	if (!c->open_known) {
		pthread_sigmask(SIG_BLOCK, NULL, &c->open);
		sigdelset(&c->open, c->signo);
		c->open_known = true;
	}
	const sigset_t *open = &c->open;
	for (;;) {
		if (take_arrived(c))
			return RTB_OK;
		if (deadline == NULL) {
			sigsuspend(open);
			continue;
		}
		struct timespec left;
		if (!time_left(deadline, &left)) {
			/* a last look with the signal let in */
			struct timespec zero = {0, 0};
			pselect(0, NULL, NULL, NULL, &zero, open);
			return take_arrived(c) ? RTB_OK : RTB_E_TIMEOUT;
		}
		pselect(0, NULL, NULL, NULL, &left, open);
	}
}

/* ---- System V semaphore ---------------------------------------------------- */

static int sysv_open(struct rtb_ipc *c)
{
	c->semid = semget(IPC_PRIVATE, 1, IPC_CREAT | IPC_EXCL | 0600);
	return c->semid >= 0 ? RTB_OK : posix_error(errno);
}

static void sysv_close(struct rtb_ipc *c)
{
	semctl(c->semid, 0, IPC_RMID);
}

static int sysv_error(int err)
{
	if (err == ERANGE)
		return RTB_E_AGAIN; /* the semaphore holds SEMVMX */
	if (err == EIDRM || err == EINVAL)
		return RTB_E_INVALID;
	return posix_error(err);
}

static int sysv_post(struct rtb_ipc *c)
{
	struct sembuf op = {.sem_num = 0, .sem_op = 1, .sem_flg = 0};

	while (semop(c->semid, &op, 1) != 0) {
		if (errno != EINTR)
			return sysv_error(errno);
	}
	return RTB_OK;
}

static int sysv_wait(struct rtb_ipc *c, const struct timespec *deadline)
{
	struct sembuf op = {.sem_num = 0, .sem_op = -1, .sem_flg = 0};

	for (;;) {
		int r;
		if (deadline == NULL) {
			r = semop(c->semid, &op, 1);
		} else {
			struct timespec left;
			if (!time_left(deadline, &left)) {
				op.sem_flg = IPC_NOWAIT;
				r = semop(c->semid, &op, 1);
			} else {
				r = semtimedop(c->semid, &op, 1, &left);
			}
		}
		if (r == 0)
			return RTB_OK;
		if (errno == EAGAIN)
			return RTB_E_TIMEOUT;
		if (errno != EINTR)
			return sysv_error(errno);
	}
}

/* ---- POSIX message queue --------------------------------------------------- */

static int mq_channel_open(struct rtb_ipc *c)
{
	char name[64];
	struct mq_attr attr = {.mq_maxmsg = IPC_MQ_DEPTH, .mq_msgsize = IPC_MQ_BYTES};

	snprintf(name, sizeof(name), "/rtbench-ipc-%d-%u", (int)getpid(),
		 atomic_fetch_add(&mq_serial, 1));
	c->rx = mq_open(name, O_RDONLY | O_CREAT | O_EXCL, 0600, &attr);
	if (c->rx == (mqd_t)-1)
		return posix_error(errno);
	c->tx = mq_open(name, O_WRONLY | O_NONBLOCK);
	int err = errno;
	mq_unlink(name); /* nothing left behind, whatever happens next */
	if (c->tx == (mqd_t)-1) {
		mq_close(c->rx);
		return posix_error(err);
	}
	return RTB_OK;
}

static void mq_channel_close(struct rtb_ipc *c)
{
	mq_close(c->tx);
	mq_close(c->rx);
}

static int mq_post(struct rtb_ipc *c)
{
	unsigned long long seq = atomic_fetch_add(&c->sent, 1);
	char msg[IPC_MQ_BYTES];

	memcpy(msg, &seq, sizeof(msg));
	while (mq_send(c->tx, msg, sizeof(msg), 0) != 0) {
		if (errno != EINTR)
			return posix_error(errno); /* EAGAIN: full */
	}
	return RTB_OK;
}

static int mq_wait(struct rtb_ipc *c, const struct timespec *deadline)
{
	char msg[IPC_MQ_BYTES];
	struct timespec at = {0, 0};

	if (deadline != NULL) {
		/* mq_timedreceive() takes a CLOCK_REALTIME deadline */
		struct timespec left = {0, 0};
		time_left(deadline, &left);
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_sec += left.tv_sec;
		at.tv_nsec += left.tv_nsec;
		if (at.tv_nsec >= 1000000000l) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000l;
		}
	}
	for (;;) {
		ssize_t n = deadline == NULL ? mq_receive(c->rx, msg, sizeof(msg), NULL)
					     : mq_timedreceive(c->rx, msg, sizeof(msg), NULL, &at);
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

/* ---- the contract ------------------------------------------------------------ */

static uint32_t cap_of(enum rtb_ipc_kind kind)
{
	switch (kind) {
	case RTB_IPC_SIGNAL:
		return RTB_CAP_IPC_SIGNAL;
	case RTB_IPC_SIGWAIT:
		return RTB_CAP_IPC_SIGWAIT;
	case RTB_IPC_SYSV_SEM:
		return RTB_CAP_IPC_SYSV_SEM;
	case RTB_IPC_POSIX_MQ:
		return RTB_CAP_IPC_POSIX_MQ;
	}
	return 0;
}

void posix_ipc_init(void)
{
	sigset_t set;
	struct rtb_ipc probe;

	sigemptyset(&set);
	if (signo_of(IPC_SIGNALS - 1) <= SIGRTMAX) {
		for (int i = 0; i < IPC_SIGNALS; i++)
			sigaddset(&set, signo_of(i));
		if (pthread_sigmask(SIG_BLOCK, &set, NULL) == 0)
			posix.info.caps |= RTB_CAP_IPC_SIGNAL | RTB_CAP_IPC_SIGWAIT;
	}
	memset(&probe, 0, sizeof(probe));
	if (sysv_open(&probe) == RTB_OK) {
		sysv_close(&probe);
		posix.info.caps |= RTB_CAP_IPC_SYSV_SEM;
	}
	if (mq_channel_open(&probe) == RTB_OK) {
		mq_channel_close(&probe);
		posix.info.caps |= RTB_CAP_IPC_POSIX_MQ;
	}
}

int rtb_port_ipc_create(struct rtb_ipc **out, enum rtb_ipc_kind kind, struct rtb_thread *receiver)
{
	uint32_t cap = cap_of(kind);
	int rc;

	if (out == NULL || cap == 0)
		return RTB_E_INVALID;
	if (!(posix.info.caps & cap))
		return RTB_E_UNSUPPORTED;
	struct rtb_ipc *c = calloc(1, sizeof(*c));
	if (c == NULL)
		return RTB_E_NOMEM;
	c->kind = kind;
	switch (kind) {
	case RTB_IPC_SIGNAL:
	case RTB_IPC_SIGWAIT:
		rc = signal_open(c, receiver);
		break;
	case RTB_IPC_SYSV_SEM:
		rc = sysv_open(c);
		break;
	default:
		rc = mq_channel_open(c);
		break;
	}
	if (rc != RTB_OK) {
		free(c);
		return rc;
	}
	*out = c;
	return RTB_OK;
}

int rtb_port_ipc_delete(struct rtb_ipc *c)
{
	if (c == NULL)
		return RTB_E_INVALID;
	switch (c->kind) {
	case RTB_IPC_SIGNAL:
	case RTB_IPC_SIGWAIT:
		signal_close(c);
		break;
	case RTB_IPC_SYSV_SEM:
		sysv_close(c);
		break;
	case RTB_IPC_POSIX_MQ:
		mq_channel_close(c);
		break;
	}
	free(c);
	return RTB_OK;
}

int rtb_port_ipc_post(struct rtb_ipc *c)
{
	if (c == NULL)
		return RTB_E_INVALID;
	switch (c->kind) {
	case RTB_IPC_SIGNAL:
	case RTB_IPC_SIGWAIT:
		return signal_post(c);
	case RTB_IPC_SYSV_SEM:
		return sysv_post(c);
	case RTB_IPC_POSIX_MQ:
		return mq_post(c);
	}
	return RTB_E_INVALID;
}

static int wait_until(struct rtb_ipc *c, const struct timespec *deadline)
{
	if (c == NULL)
		return RTB_E_INVALID;
	switch (c->kind) {
	case RTB_IPC_SIGNAL:
		return handler_wait(c, deadline);
	case RTB_IPC_SIGWAIT:
		return sigwait_wait(c, deadline);
	case RTB_IPC_SYSV_SEM:
		return sysv_wait(c, deadline);
	case RTB_IPC_POSIX_MQ:
		return mq_wait(c, deadline);
	}
	return RTB_E_INVALID;
}

int rtb_port_ipc_wait(struct rtb_ipc *c)
{
	return wait_until(c, NULL);
}

int rtb_port_ipc_timedwait(struct rtb_ipc *c, uint64_t timeout_ns)
{
	struct timespec deadline = deadline_after(timeout_ns);

	return wait_until(c, &deadline);
}

const char *rtb_port_ipc_mechanism(enum rtb_ipc_kind kind)
{
	if (!(posix.info.caps & cap_of(kind)))
		return NULL;
	switch (kind) {
	case RTB_IPC_SIGNAL:
		return "real-time signal sent with tgkill(), run by a handler while the receiver "
		       "sleeps in sigsuspend()";
	case RTB_IPC_SIGWAIT:
		return "blocked real-time signal sent with tgkill(), taken with sigwaitinfo()";
	case RTB_IPC_SYSV_SEM:
		return "System V semaphore, semop() +1 / -1";
	case RTB_IPC_POSIX_MQ:
		return "POSIX message queue, mq_send() / mq_receive() of 8 bytes";
	}
	return NULL;
}
