/* SPDX-License-Identifier: Apache-2.0 */
/*
 * SEM: counting semaphores, behaviour checks.
 *
 * sem.behavior.lock (SEM-B-LCK). The controller runs at relative priority 0
 * and one helper thread at priority 1 makes every P, so the controller sees
 * whether a P blocked (it gets the CPU back at once) or returned. Sequence
 * on a semaphore created with count 2: two P return without blocking and
 * leave count 0; a third P blocks (and is still blocked 2 ms later); one V
 * must switch to the helper before the V call returns (the helper's "P
 * returned" counter has moved when the controller reads it right after V),
 * and leave the count at 0; three V with no waiter take the count from 0 to
 * 3, and three P then return without blocking. The maximum count is
 * rtb_port_sem_max(); it is verified cheaply by creating a semaphore at
 * max - 1, giving one V (count max) and checking that the next V is refused.
 * Negative control: a "deferred wake-up" semaphore built here from a mutex
 * and a count that a blocked P polls every millisecond, so V only counts and
 * the waiter runs at its next poll (what a kernel that reschedules only at
 * the tick does). It must fail with "no immediate switch". Option
 * sem.behavior.lock.semaphore=deferred puts it in place of the platform's.
 *
 * sem.behavior.release_order (SEM-B-REL). W waiters (8 in quick, 16
 * otherwise) at distinct priorities 1..W above the controller. Round 1: the
 * controller resumes them lowest priority first; each calls P on a
 * zero-count semaphore and blocks. Then W V, one at a time: the waiter
 * released records its arrival index as its first action after P returns,
 * and the controller reads who it was after each V. Round 2 repeats it with
 * a mixed blocking order that still starts with the lowest (which a
 * last-in first-out semaphore would fail). Every V must release the
 * highest-priority waiter still blocked. Negative control: a FIFO semaphore
 * built here from the port's mutex and one private semaphore per waiter
 * (waiters queued in arrival order, V hands the count to the head of the
 * queue); it must fail. Option sem.behavior.release_order.semaphore=fifo
 * puts it in place of the platform's semaphore, so the verdict is fail.
 *
 * Both checks need the real-time policy (RTB_CAP_REALTIME): without it the
 * order threads run in says nothing about the semaphore.
 */
#include "rtb/check_sem.h"

/* ---- semaphores under test ---------------------------------------------- */

enum tsem_kind {
	TSEM_PLATFORM, /* rtb_port_sem_* */
	TSEM_FIFO,     /* releases waiters in arrival order */
	TSEM_DEFERRED, /* V only counts; a blocked P polls */
};

#define DEFERRED_POLL_NS 1000000u
#define DEFERRED_GIVE_UP_NS 2000000000u

/* One per waiting thread: the private semaphore the FIFO variant wakes it
 * through (only its owner ever waits on it, so its own order is moot). */
struct tsem_waiter {
	struct rtb_sem *wake;
	struct tsem_waiter *next;
};

struct tsem {
	enum tsem_kind kind;
	struct rtb_sem *sem;
	struct rtb_mutex *lock;
	volatile uint32_t count;
	struct tsem_waiter *head, *tail;
};

static const char *tsem_describe(enum tsem_kind kind)
{
	switch (kind) {
	case TSEM_FIFO:
		return "FIFO semaphore built in the test from the port's mutex and one private "
		       "semaphore per waiter, queued in arrival order";
	case TSEM_DEFERRED:
		return "deferred wake-up semaphore built in the test from a mutex and a count: V "
		       "only counts, a blocked P polls every 1 ms";
	default:
		return "the platform's semaphore (rtb_port_sem_*)";
	}
}

static int tsem_create(struct tsem *s, enum tsem_kind kind, uint32_t initial)
{
	rtb_memset(s, 0, sizeof(*s));
	s->kind = kind;
	if (kind == TSEM_PLATFORM)
		return rtb_port_sem_create(&s->sem, initial);
	s->count = initial;
	bool inherit = (rtb_port_info()->caps & RTB_CAP_MUTEX_INHERIT) != 0;
	return rtb_port_mutex_create(&s->lock, inherit ? RTB_MUTEX_INHERIT : RTB_MUTEX_NONE, 0);
}

static void tsem_delete(struct tsem *s)
{
	if (s->sem != NULL)
		rtb_port_sem_delete(s->sem);
	if (s->lock != NULL)
		rtb_port_mutex_delete(s->lock);
	s->sem = NULL;
	s->lock = NULL;
}

static int tsem_wait(struct tsem *s, struct tsem_waiter *self)
{
	if (s->kind == TSEM_PLATFORM)
		return rtb_port_sem_wait(s->sem);
	if (s->kind == TSEM_DEFERRED) {
		uint64_t give_up = rtb_port_time_ns() + DEFERRED_GIVE_UP_NS;
		for (;;) {
			rtb_port_mutex_lock(s->lock);
			bool got = s->count > 0;
			if (got)
				s->count--;
			rtb_port_mutex_unlock(s->lock);
			if (got)
				return RTB_OK;
			if (rtb_port_time_ns() >= give_up)
				return RTB_E_TIMEOUT;
			rtb_port_sleep_ns(DEFERRED_POLL_NS);
		}
	}
	rtb_port_mutex_lock(s->lock);
	if (s->count > 0) {
		s->count--;
		rtb_port_mutex_unlock(s->lock);
		return RTB_OK;
	}
	self->next = NULL;
	if (s->tail != NULL)
		s->tail->next = self;
	else
		s->head = self;
	s->tail = self;
	rtb_port_mutex_unlock(s->lock);
	return rtb_port_sem_wait(self->wake);
}

static int tsem_signal(struct tsem *s)
{
	if (s->kind == TSEM_PLATFORM)
		return rtb_port_sem_signal(s->sem);
	struct tsem_waiter *w = NULL;
	rtb_port_mutex_lock(s->lock);
	if (s->kind == TSEM_FIFO && s->head != NULL) {
		w = s->head;
		s->head = w->next;
		if (s->head == NULL)
			s->tail = NULL;
	} else {
		s->count++;
	}
	rtb_port_mutex_unlock(s->lock);
	/* the count goes straight to the oldest waiter */
	return w != NULL ? rtb_port_sem_signal(w->wake) : RTB_OK;
}

static uint32_t tsem_value(struct tsem *s)
{
	uint32_t v = 0;

	if (s->kind == TSEM_PLATFORM) {
		rtb_port_sem_value(s->sem, &v);
		return v;
	}
	rtb_port_mutex_lock(s->lock);
	v = s->count;
	rtb_port_mutex_unlock(s->lock);
	return v;
}

/* Evidence lines collected before they go into the verdict or its control. */
struct lines {
	char line[RTB_EVIDENCE_MAX][RTB_LINE_MAX];
	uint32_t n;
};

static void lines_add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void lines_add(struct lines *l, const char *fmt, ...)
{
	va_list ap;

	if (l->n >= RTB_EVIDENCE_MAX)
		return;
	va_start(ap, fmt);
	rtb_vfmt(l->line[l->n++], RTB_LINE_MAX, fmt, ap);
	va_end(ap);
}

static void verdict_lines(struct rtb_verdict *v, const struct lines *l, bool control)
{
	for (uint32_t i = 0; i < l->n; i++) {
		if (control)
			rtb_verdict_control_evidence(v, "%s", l->line[i]);
		else
			rtb_verdict_evidence(v, "%s", l->line[i]);
	}
}

/* The option `key`: platform (default) or the broken variant's name. */
static bool parse_kind(const struct rtb_ctx *ctx, const char *key, enum tsem_kind broken,
		       const char *broken_name, enum tsem_kind *out)
{
	const char *const words[] = {"platform", broken_name};
	int k = rtb_ctx_choice(ctx, key, words, 2);

	*out = k == 1 ? broken : TSEM_PLATFORM;
	return k >= 0;
}

/* ---- SEM-B-LCK ------------------------------------------------------------- */

#define LCK_INITIAL 2u
#define LCK_SIGNALS 3u

struct lck_shared {
	struct tsem sem;
	struct rtb_thread *helper;
	volatile uint32_t calls;   /* P calls made by the helper */
	volatile uint32_t returns; /* P calls that returned */
	volatile int last_rc;
	volatile bool stop;
};

static void lck_helper(void *arg)
{
	struct lck_shared *sh = arg;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		sh->calls++;
		sh->last_rc = tsem_wait(&sh->sem, NULL);
		sh->returns++;
	}
}

/* Make the helper call P once; false if it did not run at once. */
static bool lck_poke(struct lck_shared *sh)
{
	uint32_t before = sh->calls;

	rtb_port_thread_resume(sh->helper);
	return sh->calls == before + 1;
}

/* Release a helper left blocked by a misbehaving semaphore. */
static bool lck_unstick(struct lck_shared *sh)
{
	for (int i = 0; i < 8 && sh->returns < sh->calls; i++) {
		tsem_signal(&sh->sem);
		rtb_wait_count(&sh->returns, sh->calls, 100000000u);
	}
	return sh->returns == sh->calls;
}

/* Positive-count P calls by the helper; false if one blocked. */
static bool lck_take(struct lck_shared *sh, struct rtb_sem_lock_obs *o, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t before = sh->returns;
		if (!lck_poke(sh))
			o->helper_ran = false;
		o->waits_positive++;
		if (sh->returns != before + 1)
			return false;
		o->waits_positive_done++;
	}
	return true;
}

static int lck_observe(struct lck_shared *sh, enum tsem_kind kind, struct rtb_sem_lock_obs *o,
		       struct lines *ev)
{
	int rc = tsem_create(&sh->sem, kind, LCK_INITIAL);

	rtb_memset(o, 0, sizeof(*o));
	if (rc != RTB_OK)
		return rc;
	o->helper_ran = true;
	bool ok = lck_take(sh, o, LCK_INITIAL);
	o->value_after_waits = tsem_value(&sh->sem);
	lines_add(ev,
		  "P on count %u: %" RTB_PRIu32 " of %" RTB_PRIu32
		  " returned without blocking, count then %" RTB_PRIu32 "",
		  LCK_INITIAL, o->waits_positive_done, o->waits_positive, o->value_after_waits);
	if (!ok)
		goto out;

	uint32_t before = sh->returns;
	if (!lck_poke(sh))
		o->helper_ran = false;
	o->zero_wait_blocked = sh->returns == before;
	if (o->zero_wait_blocked) {
		rtb_port_sleep_ns(2000000);
		o->zero_wait_blocked = sh->returns == before;
	}
	lines_add(ev, "P on count 0: %s",
		  o->zero_wait_blocked ? "blocked (still blocked 2 ms later)" : "returned");
	if (!o->zero_wait_blocked)
		goto out;

	tsem_signal(&sh->sem);
	o->released_in_signal = sh->returns == before + 1;
	o->released =
		o->released_in_signal || rtb_wait_count(&sh->returns, before + 1, 1000000000u);
	o->value_after_release = tsem_value(&sh->sem);
	lines_add(ev, "V with the priority-1 helper blocked: %s; count then %" RTB_PRIu32 "",
		  o->released_in_signal ? "the helper ran before V returned"
		  : o->released		? "V returned first, the helper ran later"
					: "the helper was not released within 1 s",
		  o->value_after_release);
	if (!o->released)
		goto out;

	for (uint32_t i = 0; i < LCK_SIGNALS; i++)
		tsem_signal(&sh->sem);
	o->signals = LCK_SIGNALS;
	o->value_after_signals = tsem_value(&sh->sem);
	uint32_t done = o->waits_positive_done;
	lck_take(sh, o, o->value_after_signals < 16 ? o->value_after_signals : 16);
	lines_add(ev,
		  "%u V with no waiter: count 0 -> %" RTB_PRIu32 "; %" RTB_PRIu32
		  " P then returned without blocking",
		  LCK_SIGNALS, o->value_after_signals, o->waits_positive_done - done);
out:
	rc = lck_unstick(sh) ? RTB_OK : RTB_E_TIMEOUT;
	tsem_delete(&sh->sem);
	return rc;
}

/* The largest count, verified at the limit when the port's creation call
 * can express max - 1 (one V to reach it, one more must be refused). */
static void lck_max_count(struct lines *ev)
{
	static const struct rtb_column cols[] = {{"property", ""}, {"value", "count"}, {"how", ""}};
	uint64_t max = rtb_port_sem_max();
	char how[RTB_LINE_MAX];
	struct rtb_sem *s;

	if (max == 0 || max > UINT32_MAX) {
		rtb_fmt(how, sizeof(how), "stated by the port, not verified");
	} else if (rtb_port_sem_create(&s, (uint32_t)(max - 1)) != RTB_OK) {
		rtb_fmt(how, sizeof(how),
			"stated by the port; a semaphore created at max-1 was "
			"refused, so not verified");
	} else {
		uint32_t v1 = 0, v2 = 0;
		int rc1 = rtb_port_sem_signal(s);
		rtb_port_sem_value(s, &v1);
		int rc2 = rtb_port_sem_signal(s);
		rtb_port_sem_value(s, &v2);
		rtb_port_sem_delete(s);
		if (rc1 == RTB_OK && v1 == max && rc2 != RTB_OK && v2 == max)
			rtb_fmt(how, sizeof(how),
				"verified: from max-1 one V reached it, the next V was refused "
				"(%s)",
				rtb_port_strerror(rc2));
		else
			rtb_fmt(how, sizeof(how),
				"NOT confirmed: from max-1, V gave %s (count %" RTB_PRIu32
				"), the next V %s "
				"(count %" RTB_PRIu32 ")",
				rtb_port_strerror(rc1), v1,
				rc2 == RTB_OK ? "was accepted" : "failed", v2);
	}
	lines_add(ev, "maximum count: %llu (%s)", (unsigned long long)max, how);
	struct rtb_json *j = rtb_table_begin("sem.behavior.lock", "limits",
					     "Largest semaphore count the OS allows", cols, 3);
	rtb_json_arr_begin(j);
	rtb_json_str(j, "maximum count");
	rtb_json_u64(j, max);
	rtb_json_str(j, how);
	rtb_json_arr_end(j);
	rtb_table_end(j);
}

static int run_lock(struct rtb_ctx *ctx)
{
	const char *id = "sem.behavior.lock";
	enum tsem_kind kind;
	struct lck_shared *sh;
	struct rtb_verdict *v;
	struct lines *ev, *cev;
	struct rtb_sem_lock_obs obs, cobs;
	char creason[RTB_LINE_MAX];
	int rc;

	if (!parse_kind(ctx, "sem.behavior.lock.semaphore", TSEM_DEFERRED, "deferred", &kind))
		return rtb_ctx_fail(ctx, RTB_E_INVALID,
				    "sem.behavior.lock.semaphore must be platform or deferred");
	if (rtb_port_info()->prio_max < 1)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least two priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	v = rtb_port_mem_alloc(sizeof(*v));
	ev = rtb_port_mem_alloc(sizeof(*ev));
	cev = rtb_port_mem_alloc(sizeof(*cev));
	if (sh == NULL || v == NULL || ev == NULL || cev == NULL) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
		goto free_mem;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	rtb_memset(ev, 0, sizeof(*ev));
	rtb_memset(cev, 0, sizeof(*cev));
	struct rtb_thread_attr a = {.name = "sem-lck-helper", .prio = 1};
	rc = rtb_port_thread_create(&sh->helper, &a, lck_helper, sh);
	if (rc != RTB_OK) {
		rtb_ctx_fail(ctx, rc, "cannot create the helper thread: %s", rtb_port_strerror(rc));
		goto free_mem;
	}

	rc = lck_observe(sh, kind, &obs, ev);
	int crc = rc == RTB_OK ? lck_observe(sh, TSEM_DEFERRED, &cobs, cev) : rc;

	sh->stop = true;
	rtb_port_thread_resume(sh->helper);
	rtb_port_thread_delete(sh->helper);
	if (rc != RTB_OK || crc != RTB_OK) {
		rc = rc != RTB_OK ? rc : crc;
		rtb_ctx_fail(ctx, rc, "a semaphore under test misbehaved beyond recovery: %s",
			     rtb_port_strerror(rc));
		goto free_mem;
	}

	rtb_verdict_init(v, id, "SEM-B-LCK", "lock");
	v->outcome = rtb_check_sem_lock(&obs, v->reason, sizeof(v->reason));
	rtb_verdict_evidence(v, "semaphore under test: %s", tsem_describe(kind));
	lck_max_count(ev);
	verdict_lines(v, ev, false);
	enum rtb_outcome co = rtb_check_sem_lock(&cobs, creason, sizeof(creason));
	rtb_verdict_control_evidence(v, "%s: %s", rtb_outcome_name(co), creason);
	verdict_lines(v, cev, true);
	rtb_verdict_conclude(v, co, "%s", tsem_describe(TSEM_DEFERRED));
free_mem:
	rtb_port_mem_free(sh);
	rtb_port_mem_free(v);
	rtb_port_mem_free(ev);
	rtb_port_mem_free(cev);
	return rc;
}

static const struct rtb_option_spec sem_behavior_lock_options[] = {
	RTB_OPT_WORD("sem.behavior.lock.semaphore", "platform|deferred",
		     "semaphore under test (deferred: one that does not switch at once)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sem_behavior_lock = {
	.name = "sem.behavior.lock",
	.ids = {{"sem.behavior.lock", "SEM-B-LCK"}},
	.summary = "P blocks only on a zero count, V counts, V switches at once to a higher waiter",
	.estimate_ms = {50, 50, 50},
	.deadline_ms = {20000, 20000, 20000},
	.caps = RTB_CAP_REALTIME,
	.options = sem_behavior_lock_options,
	.run = run_lock,
};

/* ---- SEM-B-REL --------------------------------------------------------------- */

#define REL_WAITERS_MAX 64u

struct rel_shared;

struct rel_waiter {
	struct rtb_thread *thread;
	struct rel_shared *sh;
	struct tsem_waiter node;
	int prio;
	volatile uint32_t arrival;
};

struct rel_shared {
	struct tsem sem;
	volatile uint32_t calls; /* P calls made */
	volatile uint32_t wakes; /* P calls returned */
	volatile uint32_t wake_seq[REL_WAITERS_MAX];
	volatile bool stop;
	uint32_t n;
	struct rel_waiter w[REL_WAITERS_MAX];
	/* one round's observation */
	int prio[REL_WAITERS_MAX];
	uint32_t released[REL_WAITERS_MAX];
};

static void rel_waiter_main(void *arg)
{
	struct rel_waiter *w = arg;
	struct rel_shared *sh = w->sh;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		sh->calls++;
		tsem_wait(&sh->sem, &w->node);
		uint32_t k = sh->wakes;
		if (k < REL_WAITERS_MAX)
			sh->wake_seq[k] = w->arrival;
		sh->wakes = k + 1;
	}
}

/* "what (priority): p p p ...", continued on further lines when long. */
static void rel_line(struct lines *ev, const char *what, const struct rel_shared *sh,
		     const uint32_t *arrivals)
{
	char buf[RTB_LINE_MAX];
	char item[16];
	size_t pos = rtb_fmt(buf, sizeof(buf), "%s (priority):", what);

	for (uint32_t i = 0; i < sh->n; i++) {
		if (arrivals[i] == RTB_SEM_NONE || arrivals[i] >= sh->n)
			rtb_fmt(item, sizeof(item), " -");
		else
			rtb_fmt(item, sizeof(item), " %d", sh->prio[arrivals[i]]);
		size_t len = rtb_strlen(item);
		if (pos + len >= sizeof(buf)) {
			lines_add(ev, "%s", buf);
			pos = rtb_fmt(buf, sizeof(buf), "%s, continued:", what);
		}
		rtb_memcpy(buf + pos, item, len + 1);
		pos += len;
	}
	lines_add(ev, "%s", buf);
}

/* One round: block the waiters in `order` (waiter indices, 0 = lowest
 * priority), then one V per waiter. */
static int rel_round(struct rel_shared *sh, enum tsem_kind kind, const uint32_t *order,
		     const char *name, struct lines *ev, char *reason, size_t len,
		     enum rtb_outcome *out)
{
	struct rtb_sem_release_obs o = {
		.nwaiters = sh->n, .prio = sh->prio, .released = sh->released};
	uint32_t arrivals[REL_WAITERS_MAX];
	int rc = tsem_create(&sh->sem, kind, 0);

	if (rc != RTB_OK)
		return rc;
	sh->calls = sh->wakes = 0;
	for (uint32_t a = 0; a < sh->n; a++) {
		struct rel_waiter *w = &sh->w[order[a]];
		uint32_t calls = sh->calls, wakes = sh->wakes;
		w->arrival = a;
		sh->prio[a] = w->prio;
		arrivals[a] = a;
		rtb_port_thread_resume(w->thread);
		if (sh->calls == calls + 1 && sh->wakes == wakes)
			o.blocked++;
	}
	for (uint32_t i = 0; i < sh->n; i++) {
		uint32_t before = sh->wakes;
		tsem_signal(&sh->sem);
		o.nsignals++;
		if (sh->wakes == before)
			rtb_wait_count(&sh->wakes, before + 1, 200000000u);
		sh->released[i] = sh->wakes > before ? sh->wake_seq[before] : RTB_SEM_NONE;
		if (sh->wakes > before + 1)
			o.extra_wakes += sh->wakes - before - 1;
	}
	/* a misbehaving semaphore may still hold waiters: free them */
	for (uint32_t i = 0; i < 2 * sh->n + 8 && sh->wakes < sh->n; i++) {
		tsem_signal(&sh->sem);
		rtb_wait_count(&sh->wakes, sh->wakes + 1, 50000000u);
	}
	rc = sh->wakes >= sh->n ? RTB_OK : RTB_E_TIMEOUT;
	tsem_delete(&sh->sem);

	char what[64];
	rtb_fmt(what, sizeof(what), "%s, block order", name);
	rel_line(ev, what, sh, arrivals);
	rtb_fmt(what, sizeof(what), "%s, wake order", name);
	rel_line(ev, what, sh, sh->released);
	*out = rtb_check_sem_release(&o, reason, len);
	return rc;
}

/* Both rounds against one semaphore kind; the worst outcome wins. */
static int rel_observe(struct rel_shared *sh, enum tsem_kind kind, struct lines *ev, char *reason,
		       size_t len, enum rtb_outcome *out)
{
	uint32_t order[REL_WAITERS_MAX];
	uint32_t n = sh->n;
	uint32_t step = 1;
	char r[RTB_LINE_MAX];
	enum rtb_outcome o;
	int rc;

	rtb_memset(order, 0, sizeof(order));
	for (uint32_t a = 0; a < n; a++)
		order[a] = a;
	rc = rel_round(sh, kind, order, "lowest first", ev, reason, len, out);
	if (rc != RTB_OK)
		return rc;
	/* a step coprime with n gives a permutation starting at 0 that is
	 * neither ascending nor descending */
	for (uint32_t s = 3; s < n; s++) {
		uint32_t x = s, y = n;
		while (y != 0) {
			uint32_t t = x % y;
			x = y;
			y = t;
		}
		if (x == 1 && s != n - 1) {
			step = s;
			break;
		}
	}
	if (step == 1)
		return RTB_OK;
	for (uint32_t a = 0; a < n; a++)
		order[a] = (a * step) % n;
	rc = rel_round(sh, kind, order, "mixed", ev, r, sizeof(r), &o);
	if (rc == RTB_OK && *out != RTB_FAIL && o != RTB_PASS) {
		*out = o;
		rtb_fmt(reason, len, "%s", r);
	}
	return rc;
}

static int run_release_order(struct rtb_ctx *ctx)
{
	const char *id = "sem.behavior.release_order";
	const struct rtb_port_info *info = rtb_port_info();
	uint64_t want = rtb_ctx_count(ctx, "waiters", 8, 16, 16);
	enum tsem_kind kind;
	struct rel_shared *sh;
	struct rtb_verdict *v;
	struct lines *ev, *cev;
	char creason[RTB_LINE_MAX];
	enum rtb_outcome co = RTB_INCONCLUSIVE;
	uint32_t created = 0;
	int rc = RTB_OK, crc = RTB_OK;

	if (!parse_kind(ctx, "sem.behavior.release_order.semaphore", TSEM_FIFO, "fifo", &kind))
		return rtb_ctx_fail(
			ctx, RTB_E_INVALID,
			"sem.behavior.release_order.semaphore must be platform or fifo");
	if (want < 2 || want > REL_WAITERS_MAX)
		return rtb_ctx_fail(ctx, RTB_E_INVALID, "waiters must be 2..%u", REL_WAITERS_MAX);
	if (info->prio_max < 2)
		return rtb_ctx_fail(ctx, RTB_E_UNSUPPORTED, "needs at least three priority levels");
	sh = rtb_port_mem_alloc(sizeof(*sh));
	v = rtb_port_mem_alloc(sizeof(*v));
	ev = rtb_port_mem_alloc(sizeof(*ev));
	cev = rtb_port_mem_alloc(sizeof(*cev));
	if (sh == NULL || v == NULL || ev == NULL || cev == NULL) {
		rc = rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory");
		goto free_mem;
	}
	rtb_memset(sh, 0, sizeof(*sh));
	rtb_memset(ev, 0, sizeof(*ev));
	rtb_memset(cev, 0, sizeof(*cev));
	rtb_verdict_init(v, id, "SEM-B-REL", "release_order");
	sh->n = (uint32_t)RTB_MIN(want, (uint64_t)info->prio_max);
	if (sh->n < want)
		rtb_emit_log(id, "info",
			     "%" RTB_PRIu32
			     " waiters instead of %llu: the port has %d levels above "
			     "the controller",
			     sh->n, (unsigned long long)want, info->prio_max);

	for (uint32_t k = 0; k < sh->n; k++) {
		struct rel_waiter *w = &sh->w[k];
		w->sh = sh;
		w->prio = (int)k + 1;
		rc = rtb_port_sem_create(&w->node.wake, 0);
		if (rc != RTB_OK)
			break;
		struct rtb_thread_attr a = {.name = "sem-rel-waiter", .prio = w->prio};
		rc = rtb_port_thread_create(&w->thread, &a, rel_waiter_main, w);
		if (rc != RTB_OK) {
			rtb_port_sem_delete(w->node.wake);
			break;
		}
		created++;
	}
	if (rc == RTB_OK)
		rc = rel_observe(sh, kind, ev, v->reason, sizeof(v->reason), &v->outcome);
	if (rc == RTB_OK)
		crc = rel_observe(sh, TSEM_FIFO, cev, creason, sizeof(creason), &co);

	sh->stop = true;
	for (uint32_t k = 0; k < created; k++) {
		rtb_port_thread_resume(sh->w[k].thread);
		rtb_port_thread_delete(sh->w[k].thread);
		rtb_port_sem_delete(sh->w[k].node.wake);
	}
	if (rc != RTB_OK || crc != RTB_OK) {
		rc = rc != RTB_OK ? rc : crc;
		rtb_ctx_fail(ctx, rc, "%s",
			     created < sh->n ? "cannot create the waiters"
					     : "waiters stayed blocked");
		goto free_mem;
	}
	rtb_verdict_evidence(v, "semaphore under test: %s", tsem_describe(kind));
	verdict_lines(v, ev, false);
	rtb_verdict_control_evidence(v, "%s: %s", rtb_outcome_name(co), creason);
	verdict_lines(v, cev, true);
	rtb_verdict_conclude(v, co, "%s", tsem_describe(TSEM_FIFO));
free_mem:
	rtb_port_mem_free(sh);
	rtb_port_mem_free(v);
	rtb_port_mem_free(ev);
	rtb_port_mem_free(cev);
	return rc;
}

static const struct rtb_option_spec sem_behavior_release_order_options[] = {
	RTB_OPT_N("waiters", 2u, 1000u, "waiters of distinct priorities"),
	RTB_OPT_WORD("sem.behavior.release_order.semaphore", "platform|fifo",
		     "semaphore under test (fifo: one that releases in arrival order)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_sem_behavior_release_order = {
	.name = "sem.behavior.release_order",
	.ids = {{"sem.behavior.release_order", "SEM-B-REL"}},
	.summary = "Each V releases the highest-priority waiter, whatever order they blocked in",
	.estimate_ms = {50, 50, 50},
	.deadline_ms = {30000, 30000, 30000},
	.caps = RTB_CAP_REALTIME,
	.options = sem_behavior_release_order_options,
	.run = run_release_order,
};
