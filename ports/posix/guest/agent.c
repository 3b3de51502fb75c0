/* SPDX-License-Identifier: Apache-2.0 */
/*
 * rtbench guest agent: /init of the initramfs a QEMU guest boots.
 *
 * It mounts proc, sysfs, devtmpfs, tracefs, a tmpfs on /tmp and /dev/shm and
 * the POSIX message queue file system, takes its host name from the kernel
 * command line's `rtb.host=`, opens the serial line named by its `rtb.port=`
 * (default ttyS1), puts it in raw mode and
 * speaks rtbench's guest line protocol on it (docs/targets.md):
 *
 *   agent -> host  `#rtb ready 1 <release> <machine>` after boot and on `hello`
 *                  `{...}` a record line of the running core, unchanged
 *                  `#rtb err <text>`  one line the core wrote on its error stream
 *                  `#rtb exit <n>`    the core ended: status n, or -signal
 *                  `#rtb data <text>` part of a reply (file bytes, a name, output)
 *                  (a command's reply ends with `#rtb exit <n>`, 124 when it
 *                  ran out of time and was killed)
 *                  `#rtb done` / `#rtb fail <errno> <text>`  end of a reply
 *   host -> agent  `#rtb hello`, `#rtb run <arg>...`, `#rtb term`, `#rtb kill`,
 *                  `#rtb read <path>`, `#rtb list <path>`, `#rtb stat <path>`,
 *                  `#rtb exec <timeout_ms> <arg>...`, `#rtb off`
 *
 * <text>, <path> and <arg> are percent-encoded: every byte outside '!'..'~',
 * and '%' itself, is written %XX, so a field never holds a space or a newline.
 * The lines are encoded and the requests split by ports/common/serial_proto.c,
 * which the FreeRTOS image builds too; the agent is built from both files.
 * A run's core is started in its own process group; `term` and `kill` send
 * SIGTERM and SIGKILL to that group. As process 1 the agent never exits: on
 * `off`, or when it cannot go on, it powers the machine off.
 *
 * Started as `chrt` or `getconf` (links in /bin), it is instead the small part
 * of those tools the system probes and the run's settings use, which busybox
 * lacks: `chrt -m`, `chrt -f PRIO COMMAND...`, `chrt -p PID` (prints the
 * policy's name and the priority), `chrt -f|-o -p PRIO PID`,
 * `getconf GNU_LIBC_VERSION|CLK_TCK`.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "serial_proto.h"

#define CORE_PATH "/rtbench-core"
#define LINE_MAX_BYTES (256 * 1024)
#define MAX_ARGS 128

static int serial_fd = -1;

/* ---- output on the serial line ------------------------------------------ */

static void write_all(const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(serial_fd, buf, len);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

static void put_chunks(const char *word, const char *buf, size_t len)
{
	rtb_serial_put_chunks(write_all, word, buf, len);
}

/* `#rtb fail <err> <what>: <strerror(err)>`. */
static void put_fail(int err, const char *what)
{
	rtb_serial_put_fail(write_all, err, what, strerror(err));
}

static void put_ready(void)
{
	struct utsname u;
	if (uname(&u) != 0)
		memset(&u, 0, sizeof(u));
	rtb_serial_put_ready(write_all, u.release, u.machine);
}

/* ---- the child: a core run or a short command --------------------------- */

struct stream {
	int fd;
	char *buf;
	size_t used;
};

static struct {
	pid_t pid;
	int is_run; /* a core run (records forwarded) or a command (data lines) */
	struct stream out, err;
	struct timespec deadline; /* commands only */
	int has_deadline;
	int timed_out;
} child = {.pid = -1, .out = {.fd = -1}, .err = {.fd = -1}};

static void monotonic_after_ms(struct timespec *t, long ms)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += ms / 1000;
	t->tv_nsec += (ms % 1000) * 1000000L;
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

static int past(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

/* In a child before exec: an ordinary process allowed on every CPU, whatever
 * priority and CPUs the run gave the agent itself (targets/guest/tuning.py), so
 * the core and every command start as they would from a shell. */
static void ordinary_process(void)
{
	struct sched_param param = {.sched_priority = 0};
	cpu_set_t all;

	sched_setscheduler(0, SCHED_OTHER, &param);
	CPU_ZERO(&all);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		CPU_SET(cpu, &all);
	sched_setaffinity(0, sizeof(all), &all); /* the kernel keeps the CPUs that exist */
}

static void start_child(char **argv, int is_run, long timeout_ms)
{
	int out[2], err[2];
	if (child.pid > 0) {
		put_fail(EBUSY, "a command is already running");
		return;
	}
	if (pipe2(out, O_CLOEXEC) != 0) {
		put_fail(errno, "pipe");
		return;
	}
	if (pipe2(err, O_CLOEXEC) != 0) {
		put_fail(errno, "pipe");
		close(out[0]);
		close(out[1]);
		return;
	}
	pid_t pid = fork();
	if (pid < 0) {
		put_fail(errno, "fork");
		close(out[0]);
		close(out[1]);
		close(err[0]);
		close(err[1]);
		return;
	}
	if (pid == 0) {
		setsid();
		ordinary_process();
		int null = open("/dev/null", O_RDONLY);
		dup2(null >= 0 ? null : 0, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	child.pid = pid;
	child.is_run = is_run;
	child.out.fd = out[0];
	child.out.used = 0;
	child.err.fd = err[0];
	child.err.used = 0;
	child.has_deadline = timeout_ms > 0;
	child.timed_out = 0;
	if (child.has_deadline)
		monotonic_after_ms(&child.deadline, timeout_ms);
}

static void emit_line(int is_err, const char *buf, size_t len)
{
	if (is_err) {
		put_chunks("err", buf, len);
	} else {
		write_all(buf, len);
		write_all("\n", 1);
	}
}

/* Reads what a child wrote; forwards whole lines of a core run, the bytes of a
 * command's output. Returns 0 at end of file. */
static int pump(struct stream *s, int is_err)
{
	ssize_t n = read(s->fd, s->buf + s->used, LINE_MAX_BYTES - s->used);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 1;
	if (n <= 0) {
		if (s->used > 0)
			emit_line(is_err, s->buf, s->used);
		s->used = 0;
		close(s->fd);
		s->fd = -1;
		return 0;
	}
	if (!is_err && !child.is_run) {
		put_chunks("data", s->buf, (size_t)n); /* a command's output: bytes as they are */
		return 1;
	}
	s->used += (size_t)n;
	size_t start = 0;
	for (size_t i = s->used - (size_t)n; i < s->used; i++) {
		if (s->buf[i] == '\n') {
			emit_line(is_err, s->buf + start, i - start);
			start = i + 1;
		}
	}
	if (start == 0 && s->used == LINE_MAX_BYTES) {
		emit_line(is_err, s->buf, s->used); /* an overlong line: passed on cut */
		s->used = 0;
	} else if (start > 0) {
		memmove(s->buf, s->buf + start, s->used - start);
		s->used -= start;
	}
	return 1;
}

static void reap_child(void)
{
	int status;
	if (child.pid <= 0 || child.out.fd >= 0 || child.err.fd >= 0)
		return;
	pid_t got = waitpid(child.pid, &status, WNOHANG);
	if (got != child.pid)
		return;
	int code = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
	if (child.timed_out)
		code = 124; /* as timeout(1) says it */
	rtb_serial_put_exit(write_all, code);
	child.pid = -1;
}

static void signal_child(int signo)
{
	if (child.pid > 0)
		kill(-child.pid, signo);
}

/* ---- file requests ------------------------------------------------------- */

static void read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		put_fail(errno, path);
		return;
	}
	char buf[RTB_SERIAL_DATA_CHUNK];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			put_fail(errno, path);
			close(fd);
			return;
		}
		if (n == 0)
			break;
		put_chunks("data", buf, (size_t)n);
	}
	close(fd);
	rtb_serial_put_done(write_all);
}

static void list_dir(const char *path)
{
	DIR *dir = opendir(path);
	if (!dir) {
		put_fail(errno, path);
		return;
	}
	struct dirent *e;
	while ((e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		put_chunks("data", e->d_name, strlen(e->d_name));
	}
	closedir(dir);
	rtb_serial_put_done(write_all);
}

static void power_off(void)
{
	signal_child(SIGKILL);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}

static void handle_request(char *line)
{
	char *f[MAX_ARGS + 2];
	if (strncmp(line, "#rtb ", 5) != 0)
		return; /* noise, e.g. an echo */
	int n = rtb_serial_split(line + 5, f, MAX_ARGS + 1);
	if (n == 0)
		return;
	f[n] = NULL;
	if (strcmp(f[0], "hello") == 0) {
		put_ready();
	} else if (strcmp(f[0], "run") == 0) {
		f[0] = CORE_PATH;
		start_child(f, 1, 0);
	} else if (strcmp(f[0], "exec") == 0 && n >= 3) {
		start_child(f + 2, 0, atol(f[1]));
	} else if (strcmp(f[0], "term") == 0) {
		signal_child(SIGTERM);
	} else if (strcmp(f[0], "kill") == 0) {
		signal_child(SIGKILL);
	} else if (strcmp(f[0], "read") == 0 && n == 2) {
		read_file(f[1]);
	} else if (strcmp(f[0], "list") == 0 && n == 2) {
		list_dir(f[1]);
	} else if (strcmp(f[0], "stat") == 0 && n == 2) {
		struct stat st;
		if (stat(f[1], &st) == 0)
			rtb_serial_put_done(write_all);
		else
			put_fail(errno, f[1]);
	} else if (strcmp(f[0], "off") == 0) {
		power_off();
	} else {
		put_fail(EINVAL, f[0]);
	}
}

/* ---- boot ---------------------------------------------------------------- */

static void mount_all(void)
{
	static const struct {
		const char *source, *target, *type;
	} mounts[] = {
		{"proc", "/proc", "proc"},	     {"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},    {"tracefs", "/sys/kernel/tracing", "tracefs"},
		{"tmpfs", "/tmp", "tmpfs"},	     {"tmpfs", "/dev/shm", "tmpfs"},
		{"mqueue", "/dev/mqueue", "mqueue"},
	};
	for (size_t i = 0; i < sizeof(mounts) / sizeof(mounts[0]); i++) {
		mkdir(mounts[i].target, 0755);
		mount(mounts[i].source, mounts[i].target, mounts[i].type, 0, NULL);
	}
}

/* The value of `name=` on the kernel command line, or `fallback`. */
static void cmdline_value(const char *name, const char *fallback, char *out, size_t size)
{
	char cmdline[4096] = "";
	snprintf(out, size, "%s", fallback);
	int fd = open("/proc/cmdline", O_RDONLY);
	if (fd < 0)
		return;
	ssize_t n = read(fd, cmdline, sizeof(cmdline) - 1);
	close(fd);
	if (n <= 0)
		return;
	cmdline[n] = '\0';
	size_t name_len = strlen(name);
	for (char *p = cmdline; (p = strstr(p, name)) != NULL; p += name_len) {
		if ((p == cmdline || p[-1] == ' ') && p[name_len] == '=') {
			p += name_len + 1;
			snprintf(out, size, "%.*s", (int)strcspn(p, " \n"), p);
			return;
		}
	}
}

static int open_serial(void)
{
	char name[64], dev[128];
	cmdline_value("rtb.port", "ttyS1", name, sizeof(name));
	snprintf(dev, sizeof(dev), "/dev/%s", name);
	int fd = -1;
	for (int tries = 0; tries < 50 && fd < 0; tries++) {
		fd = open(dev, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			usleep(100000);
	}
	if (fd < 0) {
		dprintf(2, "rtbench agent: cannot open %s: %s\n", dev, strerror(errno));
		return -1;
	}
	struct termios t;
	if (tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		cfsetispeed(&t, B115200);
		cfsetospeed(&t, B115200);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* ---- the chrt and getconf subsets --------------------------------------- */

static const struct {
	const char *name;
	int policy;
} policies[] = {{"SCHED_OTHER", SCHED_OTHER}, {"SCHED_FIFO", SCHED_FIFO}, {"SCHED_RR", SCHED_RR}};

/* `chrt -p PID`: "POLICY PRIORITY"; `chrt -f|-o -p PRIORITY PID`: set them. */
static int chrt_pid(int argc, char **argv)
{
	struct sched_param param;
	if (argc == 3) {
		pid_t pid = (pid_t)atoi(argv[2]);
		int policy = sched_getscheduler(pid);
		if (policy < 0 || sched_getparam(pid, &param) != 0) {
			fprintf(stderr, "chrt: cannot read pid %d's policy: %s\n", (int)pid,
				strerror(errno));
			return 1;
		}
		const char *name = "SCHED_OTHER";
		for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
			if (policies[i].policy == (policy & ~SCHED_RESET_ON_FORK))
				name = policies[i].name;
		printf("%s %d\n", name, param.sched_priority);
		return 0;
	}
	pid_t pid = (pid_t)atoi(argv[4]);
	int policy = strcmp(argv[1], "-f") == 0 ? SCHED_FIFO : SCHED_OTHER;
	param.sched_priority = atoi(argv[3]);
	if (sched_setscheduler(pid, policy, &param) != 0) {
		fprintf(stderr, "chrt: failed to set pid %d's policy: %s\n", (int)pid,
			strerror(errno));
		return 1;
	}
	return 0;
}

static int chrt_main(int argc, char **argv)
{
	if ((argc == 3 && strcmp(argv[1], "-p") == 0) ||
	    (argc == 5 && (strcmp(argv[1], "-f") == 0 || strcmp(argv[1], "-o") == 0) &&
	     strcmp(argv[2], "-p") == 0))
		return chrt_pid(argc, argv);
	if (argc == 2 && strcmp(argv[1], "-m") == 0) {
		for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
			printf("%s min/max priority\t: %d/%d\n", policies[i].name,
			       sched_get_priority_min(policies[i].policy),
			       sched_get_priority_max(policies[i].policy));
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "-f") == 0) {
		struct sched_param param = {.sched_priority = atoi(argv[2])};
		if (sched_setscheduler(0, SCHED_FIFO, &param) != 0) {
			fprintf(stderr, "chrt: failed to set pid 0's policy: %s\n",
				strerror(errno));
			return 1;
		}
		execvp(argv[3], argv + 3);
		fprintf(stderr, "chrt: failed to execute %s: %s\n", argv[3], strerror(errno));
		return 127;
	}
	fprintf(stderr, "usage: chrt -m | chrt -f PRIORITY COMMAND [ARG]... | chrt -p PID | "
			"chrt -f|-o -p PRIORITY PID\n");
	return 1;
}

static int getconf_main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "GNU_LIBC_VERSION") == 0) {
		char text[64];
		if (confstr(_CS_GNU_LIBC_VERSION, text, sizeof(text)) == 0)
			return 1;
		printf("%s\n", text);
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "CLK_TCK") == 0) {
		printf("%ld\n", sysconf(_SC_CLK_TCK));
		return 0;
	}
	fprintf(stderr, "getconf: unsupported name\n");
	return 1;
}

static _Noreturn void agent_main(void)
{
	static char out_buf[LINE_MAX_BYTES], err_buf[LINE_MAX_BYTES], in_buf[LINE_MAX_BYTES];
	size_t in_used = 0;

	char host[64];
	mount_all();
	cmdline_value("rtb.host", "rtbench-guest", host, sizeof(host));
	sethostname(host, strlen(host));
	setenv("PATH", "/:/bin:/sbin:/usr/bin:/usr/sbin", 1);
	signal(SIGPIPE, SIG_IGN);
	serial_fd = open_serial();
	if (serial_fd < 0)
		power_off();
	child.out.buf = out_buf;
	child.err.buf = err_buf;
	put_ready();

	for (;;) {
		struct pollfd p[3] = {{.fd = serial_fd, .events = POLLIN},
				      {.fd = child.out.fd, .events = POLLIN},
				      {.fd = child.err.fd, .events = POLLIN}};
		int timeout_ms = child.pid > 0 ? 50 : -1;
		int ready = poll(p, 3, timeout_ms);
		if (ready < 0 && errno != EINTR)
			power_off();
		if (ready > 0 && (p[0].revents & (POLLIN | POLLHUP | POLLERR))) {
			ssize_t n = read(serial_fd, in_buf + in_used, sizeof(in_buf) - in_used - 1);
			if (n > 0) {
				in_used += (size_t)n;
				char *start = in_buf;
				char *nl;
				while ((nl = memchr(start, '\n',
						    in_used - (size_t)(start - in_buf)))) {
					*nl = '\0';
					if (nl > start && nl[-1] == '\r')
						nl[-1] = '\0';
					handle_request(start);
					start = nl + 1;
				}
				in_used -= (size_t)(start - in_buf);
				memmove(in_buf, start, in_used);
				if (in_used == sizeof(in_buf) - 1)
					in_used = 0; /* an overlong request: dropped */
			}
		}
		if (ready > 0 && child.out.fd >= 0 && (p[1].revents & (POLLIN | POLLHUP | POLLERR)))
			pump(&child.out, 0);
		if (ready > 0 && child.err.fd >= 0 && (p[2].revents & (POLLIN | POLLHUP | POLLERR)))
			pump(&child.err, 1);
		if (child.pid > 0 && child.has_deadline && past(&child.deadline)) {
			signal_child(SIGKILL);
			child.has_deadline = 0;
			child.timed_out = 1;
		}
		reap_child();
	}
}

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? basename(argv[0]) : "";
	if (strcmp(name, "chrt") == 0)
		return chrt_main(argc, argv);
	if (strcmp(name, "getconf") == 0)
		return getconf_main(argc, argv);
	agent_main();
}
