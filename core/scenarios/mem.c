/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEM: memory.
 *
 * mem.alloc / mem.free. One thread at relative priority 0 allocates a block
 * and frees it at once, over and over: t0, allocate, t1, t2, free, t3;
 * alloc = t1 - t0, free = t3 - t2 (minus the timestamp overhead; each pair
 * the two reads of a timed call, rtb/sample.h). 128 bytes in the
 * quick profile, a sweep from 16 bytes to 64 KiB (one metric per size,
 * param `bytes`) otherwise; option mem.alloc.bytes=N times one size. An
 * allocation that fails is counted invalid. Allocating and freeing in
 * pairs measures the allocator's recycling path, as Thread-Metric does; a
 * fragmented heap is not modelled.
 *
 * mem.behavior.leak (MEM-B-LEK). The controlling thread (priority 0)
 * creates and removes OS objects in a loop for the profile's duration: a
 * semaphore; a thread (priority 1) that signals it and ends, waited for
 * and deleted; a mutex (priority inheritance where the port has it) locked
 * and unlocked; a message queue with one message sent and received; event
 * flags set and waited for; each deleted again. Objects the port lacks are
 * skipped and named in the evidence. After loops (every loop at first,
 * then every 2nd, 4th, ... so that at most 4096 samples cover the whole
 * run) the memory in use and the object counts are sampled
 * (rtb_port_mem_usage); the decision (rtb/check_mem.h) passes when they
 * come back to the same level after a warm-up. The run ends at its
 * duration, its time budget or a stop request (SIGTERM), always after a
 * whole loop, and the verdict covers what was measured. Negative control,
 * run first: the same loop, sampling and decision with a 4 KiB block
 * allocated and kept in every loop, judged after 1000 loops (and up to
 * 8000 while not caught); it must fail. Option
 * mem.behavior.leak.leak_bytes=N makes the loop under test leak N bytes
 * per loop (the verdict must then fail).
 */
#include "rtb/check_mem.h"
#include "rtb/core.h"

/* The timed calls (rtb/sample.h): nothing but the call between the reads. */
RTB_TIMED(timed_alloc, void *, rtb_port_mem_alloc(bytes), size_t bytes)
RTB_TIMED_VOID(timed_free, rtb_port_mem_free(p), void *p)

/* ---- mem.alloc / mem.free ----------------------------------------------------- */

static const uint32_t sweep_bytes[] = {16,   32,   64,	 128,	256,   512,  1024,
				       2048, 4096, 8192, 16384, 32768, 65536};

static int alloc_one_size(struct rtb_ctx *ctx, uint32_t bytes, uint64_t n)
{
	struct rtb_metric ma = {.scenario = "mem.alloc",
				.metric = "alloc",
				.title = "Allocate a block (block freed right after)",
				.unit = "ticks"};
	struct rtb_metric mf = {.scenario = "mem.free",
				.metric = "free",
				.title = "Free the block just allocated",
				.unit = "ticks"};
	struct rtb_recorder ra, rf;
	uint32_t warm = rtb_warmup_for(n);
	uint64_t failed = 0;
	char blocks[32];

	rtb_fmt(blocks, sizeof(blocks), "blocks of %" RTB_PRIu32 " bytes", bytes);
	rtb_metric_param(&ma, "bytes", bytes);
	rtb_metric_param(&mf, "bytes", bytes);
	if (rtb_recorder_init_pair(&ra, &ma, &rf, &mf, warm, ctx->raw_max) != RTB_OK)
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the recorders");
	/* timed calls (rtb/sample.h): they subtract the timed-call overhead */
	rtb_recorder_timed_calls(&ra);
	rtb_recorder_timed_calls(&rf);
	for (uint64_t i = 0; i < n + warm; i++) {
		struct rtb_span a, f;
		void *p = timed_alloc(bytes, &a);
		if (p == NULL) {
			rtb_recorder_add_invalid(&ra);
			rtb_recorder_add_invalid(&rf);
			failed++;
			continue;
		}
		timed_free(p, &f);
		rtb_recorder_add_interval(&ra, a.t0, a.t1);
		rtb_recorder_add_interval(&rf, f.t0, f.t1);
		if ((i & 1023) == 0 && rtb_ctx_expired_after(ctx, i + 1, n + warm, blocks))
			break;
	}
	if (failed > 0)
		rtb_emit_log("mem.alloc", "warning",
			     "%llu allocations of %" RTB_PRIu32 " bytes failed",
			     (unsigned long long)failed, bytes);
	rtb_emit_result(&ra);
	rtb_emit_result(&rf);
	rtb_recorder_free(&ra);
	rtb_recorder_free(&rf);
	return RTB_OK;
}

static int run_alloc(struct rtb_ctx *ctx)
{
	uint64_t n = rtb_ctx_count(ctx, "iterations", 10000, 100000, 1000000);
	const char *opt = rtb_ctx_option(ctx, "mem.alloc.bytes");
	uint64_t one;

	if (opt != NULL) {
		if (!rtb_parse_u64(opt, &one) || one == 0 || one > 0xffffffffu)
			return rtb_ctx_fail(ctx, RTB_E_INVALID,
					    "mem.alloc.bytes must be a positive byte count");
		return alloc_one_size(ctx, (uint32_t)one, n);
	}
	if (ctx->profile == RTB_PROFILE_QUICK)
		return alloc_one_size(ctx, 128, n);
	for (size_t k = 0; k < RTB_ARRAY_SIZE(sweep_bytes) && !rtb_ctx_expired(ctx); k++) {
		int rc = alloc_one_size(ctx, sweep_bytes[k], n);
		if (rc != RTB_OK)
			return rc;
	}
	return RTB_OK;
}

static const struct rtb_option_spec mem_alloc_options[] = {
	RTB_OPT_LEN("iterations", 1u, 10000000000ull, "measured iterations (samples)"),
	RTB_OPT_N("mem.alloc.bytes", 1u, 4294967295u, "time one block size instead of the sweep"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mem_alloc = {
	.name = "mem.alloc",
	.ids = {{"mem.alloc", NULL}, {"mem.free", NULL}},
	.summary = "Allocate and free a memory block (128 bytes; 16 B to 64 KiB in standard)",
	.estimate_ms = {50, 2000, 20000},
	.deadline_ms = {20000, 60000, 300000},
	.options = mem_alloc_options,
	.run = run_alloc,
};

/* ---- mem.behavior.leak --------------------------------------------------------- */

#define LEAK_SAMPLES_MAX 4096u
#define CONTROL_LEAK_BYTES 4096u
#define CONTROL_LOOPS 1000u
#define CONTROL_LOOPS_MAX 8000u
#define WAIT_NS 1000000000u

struct leak_run {
	/* what to do */
	uint64_t leak_bytes; /* kept per loop on purpose */
	uint64_t max_loops;
	uint64_t end_ticks;
	bool progress;
	bool final_sample; /* sample the last loop even off the stride */
	/* what was done */
	uint64_t loops;
	uint64_t started_ticks;
	uint64_t elapsed_ticks;
	bool stopped; /* ended by the budget or a stop request */
	int failure;  /* error code of a loop that failed, else 0 */
	char failed_step[64];
	uint32_t stride; /* loops per sample */
	struct rtb_mem_sample *samples;
	size_t nsamples;
	void *leaked;	     /* list of kept blocks (first word: next) */
	uint32_t unreliable; /* RTB_MEM_*_UNRELIABLE seen in any sample */
	const char *note;    /* the port's note on its figures, or NULL */
};

struct leak_objects {
	bool mutex, mq, evt;
	enum rtb_mutex_protocol protocol;
	int thread_prio;
};

static void leak_thread_main(void *arg)
{
	rtb_port_sem_signal(arg);
}

/* One loop: create, use and delete every object. Returns RTB_OK or the
 * error of the step named in r->failed_step. */
static int leak_loop(const struct leak_objects *o, struct leak_run *r)
{
	struct rtb_sem *sem;
	struct rtb_thread *th;
	int rc;

	rtb_fmt(r->failed_step, sizeof(r->failed_step), "semaphore create");
	if ((rc = rtb_port_sem_create(&sem, 0)) != RTB_OK)
		return rc;
	struct rtb_thread_attr a = {.name = "mem-leak", .prio = o->thread_prio};
	rtb_fmt(r->failed_step, sizeof(r->failed_step), "thread create");
	rc = rtb_port_thread_create(&th, &a, leak_thread_main, sem);
	if (rc == RTB_OK) {
		rtb_fmt(r->failed_step, sizeof(r->failed_step), "wait for the thread");
		rc = rtb_port_sem_timedwait(sem, WAIT_NS);
		int drc = rtb_port_thread_delete(th);
		if (rc == RTB_OK && drc != RTB_OK) {
			rtb_fmt(r->failed_step, sizeof(r->failed_step), "thread delete");
			rc = drc;
		}
	}
	rtb_port_sem_delete(sem);
	if (rc != RTB_OK)
		return rc;

	if (o->mutex) {
		struct rtb_mutex *m;
		rtb_fmt(r->failed_step, sizeof(r->failed_step), "mutex create");
		if ((rc = rtb_port_mutex_create(&m, o->protocol, 0)) != RTB_OK)
			return rc;
		rc = rtb_port_mutex_lock(m);
		if (rc == RTB_OK)
			rc = rtb_port_mutex_unlock(m);
		rtb_port_mutex_delete(m);
		if (rc != RTB_OK)
			return rc;
	}
	if (o->mq) {
		struct rtb_mq *q;
		uint8_t msg[16] = {1};
		rtb_fmt(r->failed_step, sizeof(r->failed_step), "message queue create");
		if ((rc = rtb_port_mq_create(&q, sizeof(msg), 4)) != RTB_OK)
			return rc;
		rc = rtb_port_mq_send(q, msg, sizeof(msg));
		if (rc == RTB_OK)
			rc = rtb_port_mq_receive(q, msg, sizeof(msg));
		rtb_port_mq_delete(q);
		if (rc != RTB_OK)
			return rc;
	}
	if (o->evt) {
		struct rtb_evt *e;
		uint32_t got;
		rtb_fmt(r->failed_step, sizeof(r->failed_step), "event flags create");
		if ((rc = rtb_port_evt_create(&e)) != RTB_OK)
			return rc;
		rc = rtb_port_evt_set(e, 1);
		if (rc == RTB_OK)
			rc = rtb_port_evt_wait(e, 1, RTB_EVT_ANY, true, &got);
		rtb_port_evt_delete(e);
		if (rc != RTB_OK)
			return rc;
	}
	if (r->leak_bytes > 0) {
		size_t bytes = (size_t)RTB_MAX(r->leak_bytes, (uint64_t)sizeof(void *));
		rtb_fmt(r->failed_step, sizeof(r->failed_step), "deliberate leak");
		void **p = rtb_port_mem_alloc(bytes);
		if (p == NULL)
			return RTB_E_NOMEM;
		rtb_memset(p, 0x5a, bytes); /* make it resident */
		*p = r->leaked;
		r->leaked = p;
	}
	r->failed_step[0] = '\0';
	return RTB_OK;
}

static void free_leaked(struct leak_run *r)
{
	while (r->leaked != NULL) {
		void **p = r->leaked;
		r->leaked = *p;
		rtb_port_mem_free(p);
	}
}

static bool take_sample(struct leak_run *r)
{
	struct rtb_mem_usage u;

	if (rtb_port_mem_usage(&u) != RTB_OK)
		return false;
	if (r->nsamples == LEAK_SAMPLES_MAX) {
		/* keep every other sample: the rest stays evenly spaced */
		for (size_t i = 1; 2 * i < LEAK_SAMPLES_MAX; i++)
			r->samples[i] = r->samples[2 * i];
		r->nsamples = LEAK_SAMPLES_MAX / 2;
		r->stride *= 2;
		if (r->loops % r->stride != 0)
			return true;
	}
	struct rtb_mem_sample *s = &r->samples[r->nsamples++];
	s->loop = r->loops;
	s->time_ns = rtb_ticks_to_ns(rtb_port_counter_read() - r->started_ticks);
	s->value[RTB_MEM_RESIDENT] = u.resident_bytes;
	s->value[RTB_MEM_HEAP] = u.heap_used_bytes;
	s->value[RTB_MEM_THREADS] = u.threads;
	s->value[RTB_MEM_HANDLES] = u.handles;
	r->unreliable |= u.unreliable;
	if (u.note != NULL)
		r->note = u.note;
	return true;
}

/* The decision, leaving out what the port called unreliable in this build. */
static void leak_decide(const struct leak_run *r, const struct rtb_mem_params *p, uint64_t *scratch,
			struct rtb_mem_decision *d)
{
	struct rtb_mem_params q = *p;

	if (r->unreliable & RTB_MEM_RESIDENT_UNRELIABLE)
		q.unreliable |= 1u << RTB_MEM_RESIDENT;
	if (r->unreliable & RTB_MEM_HEAP_UNRELIABLE)
		q.unreliable |= 1u << RTB_MEM_HEAP;
	rtb_mem_decide(r->samples, r->nsamples, &q, scratch, d);
}

static void leak_progress(const char *id, const struct leak_run *r)
{
	char msg[160];
	const struct rtb_mem_sample *s = &r->samples[r->nsamples - 1];
	uint64_t now = rtb_port_counter_read();
	uint64_t total = r->end_ticks - r->started_ticks;

	rtb_fmt(msg, sizeof(msg),
		"%llu loops; resident %llu KiB, heap in use %llu KiB, %llu threads, %llu "
		"handles",
		(unsigned long long)r->loops,
		(unsigned long long)(s->value[RTB_MEM_RESIDENT] / 1024),
		(unsigned long long)(s->value[RTB_MEM_HEAP] / 1024),
		(unsigned long long)s->value[RTB_MEM_THREADS],
		(unsigned long long)s->value[RTB_MEM_HANDLES]);
	rtb_emit_progress(id, total > 0 ? (double)(now - r->started_ticks) / (double)total : 1.0,
			  msg);
}

/* Loop until max_loops, end_ticks or a stop, sampling as described. */
static void leak_measure(const struct rtb_ctx *ctx, const char *id, const struct leak_objects *o,
			 struct leak_run *r)
{
	/* progress every 5 s, every 30 s in runs longer than 10 minutes */
	bool long_run = (int64_t)(r->end_ticks - rtb_port_counter_read()) >
			(int64_t)rtb_ns_to_ticks(600000000000ull);
	uint64_t every = rtb_ns_to_ticks(long_run ? 30000000000ull : 5000000000ull);

	if (r->nsamples == 0) {
		r->started_ticks = rtb_port_counter_read();
		r->stride = 1;
		take_sample(r); /* loop 0: before any object was created */
	}
	uint64_t next_progress = rtb_port_counter_read() + every;
	while (r->loops < r->max_loops) {
		int rc = leak_loop(o, r);
		if (rc != RTB_OK) {
			r->failure = rc;
			break;
		}
		r->loops++;
		if (r->loops % r->stride == 0 && !take_sample(r)) {
			r->failure = RTB_E_UNSUPPORTED;
			rtb_fmt(r->failed_step, sizeof(r->failed_step), "memory usage");
			break;
		}
		uint64_t now = rtb_port_counter_read();
		if (r->progress && (int64_t)(now - next_progress) >= 0) {
			leak_progress(id, r);
			next_progress = now + every;
		}
		if ((int64_t)(now - r->end_ticks) >= 0)
			break;
		if (rtb_ctx_expired(ctx)) {
			r->stopped = true;
			break;
		}
	}
	r->elapsed_ticks = rtb_port_counter_read() - r->started_ticks;
	/* the last loop, when it was not sampled yet */
	if (r->final_sample && r->failure == RTB_OK && r->loops > 0 &&
	    r->samples[r->nsamples - 1].loop != r->loops && r->nsamples < LEAK_SAMPLES_MAX)
		take_sample(r);
}

static void fmt_bytes(char *buf, size_t len, uint64_t v)
{
	if (v >= 10u * 1024 * 1024)
		rtb_fmt(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else if (v >= 10u * 1024)
		rtb_fmt(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
	else
		rtb_fmt(buf, len, "%llu B", (unsigned long long)v);
}

static void fmt_level(char *buf, size_t len, enum rtb_mem_metric m, uint64_t v)
{
	if (m == RTB_MEM_RESIDENT || m == RTB_MEM_HEAP)
		fmt_bytes(buf, len, v);
	else
		rtb_fmt(buf, len, "%llu", (unsigned long long)v);
}

/* One evidence line per metric. */
static void trend_lines(const struct rtb_mem_decision *d, const struct rtb_mem_params *p,
			bool control, struct rtb_verdict *v)
{
	for (unsigned m = 0; m < RTB_MEM_METRICS; m++) {
		const struct rtb_mem_trend *t = &d->trend[m];
		char a[32], b[32], tol[32], line[RTB_LINE_MAX];
		if (t->shape == RTB_MEM_NOT_JUDGED) {
			rtb_fmt(line, sizeof(line), "%s: not reported by the port",
				rtb_mem_metric_name((enum rtb_mem_metric)m));
		} else {
			fmt_level(a, sizeof(a), (enum rtb_mem_metric)m, t->first_level);
			fmt_level(b, sizeof(b), (enum rtb_mem_metric)m, t->last_level);
			fmt_level(tol, sizeof(tol), (enum rtb_mem_metric)m, p->tolerance[m]);
			rtb_fmt(line, sizeof(line),
				"%s: %s -> %s (%s%lld, %lld per 1000 loops; largest step %lld): "
				"%s, "
				"tolerance %s",
				rtb_mem_metric_name((enum rtb_mem_metric)m), a, b,
				t->growth >= 0 ? "+" : "", (long long)t->growth,
				(long long)t->per_kloop, (long long)t->step,
				rtb_mem_shape_name(t->shape), tol);
		}
		if (control)
			rtb_verdict_control_evidence(v, "%s", line);
		else
			rtb_verdict_evidence(v, "%s", line);
	}
}

static void trend_table(const char *id, const struct leak_run *r)
{
	static const struct rtb_column cols[] = {{"loop", "count"},	{"time", "ns"},
						 {"resident", "bytes"}, {"heap_used", "bytes"},
						 {"threads", "count"},	{"handles", "count"}};
	struct rtb_json *j = rtb_table_begin(id, "trend",
					     "Memory in use and object counts over the run "
					     "(samples at the end of loops)",
					     cols, RTB_ARRAY_SIZE(cols));
	size_t rows = RTB_MIN(r->nsamples, (size_t)24);

	for (size_t k = 0; k < rows; k++) {
		size_t i = rows > 1 ? k * (r->nsamples - 1) / (rows - 1) : 0;
		const struct rtb_mem_sample *s = &r->samples[i];
		rtb_json_arr_begin(j);
		rtb_json_u64(j, s->loop);
		rtb_json_u64(j, s->time_ns);
		for (unsigned m = 0; m < RTB_MEM_METRICS; m++)
			rtb_json_u64(j, s->value[m]);
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
}

static void objects_for_port(struct leak_objects *o)
{
	const struct rtb_port_info *info = rtb_port_info();

	rtb_memset(o, 0, sizeof(*o));
	o->mutex = true;
	o->protocol = (info->caps & RTB_CAP_MUTEX_INHERIT) ? RTB_MUTEX_INHERIT : RTB_MUTEX_NONE;
	o->mq = (info->caps & RTB_CAP_MQ) != 0;
	o->evt = (info->caps & RTB_CAP_EVT) != 0;
	o->thread_prio = info->prio_max >= 1 ? 1 : 0;
}

/* The deliberately leaking control: same loop, sampling and decision,
 * judged after 1000 loops and, while not caught, after 2000, 4000 and 8000:
 * where freed memory stays resident (RSS on POSIX) and the allocator's
 * count is not available, a leak is only seen once it has used up memory
 * freed earlier. The kept blocks are freed before the main run. */
static void leak_control(const struct rtb_ctx *ctx, const char *id, const struct leak_objects *o,
			 const struct rtb_mem_params *p, struct leak_run *r, uint64_t *scratch,
			 struct rtb_verdict *v)
{
	struct rtb_mem_decision d;

	rtb_fmt(v->control_description, sizeof(v->control_description),
		"the same loop keeping a %u-byte block every loop (judged after %u loops, "
		"then up to %u)",
		CONTROL_LEAK_BYTES, CONTROL_LOOPS, CONTROL_LOOPS_MAX);
	r->leak_bytes = CONTROL_LEAK_BYTES;
	r->end_ticks = ctx->budget_end_ticks;
	rtb_memset(&d, 0, sizeof(d));
	for (uint64_t target = CONTROL_LOOPS; target <= CONTROL_LOOPS_MAX; target *= 2) {
		r->max_loops = target;
		leak_measure(ctx, id, o, r);
		if (r->failure != RTB_OK)
			break;
		leak_decide(r, p, scratch, &d);
		if (d.outcome == RTB_FAIL || r->loops < target)
			break;
	}
	free_leaked(r);
	if (r->failure != RTB_OK) {
		v->control = RTB_CONTROL_NOT_RUN;
		rtb_verdict_control_evidence(v, "the control loop failed at '%s': %s",
					     r->failed_step, rtb_port_strerror(r->failure));
		return;
	}
	rtb_verdict_control_evidence(v, "%llu loops (%llu KiB kept), %zu samples: %s (%s)",
				     (unsigned long long)r->loops,
				     (unsigned long long)(r->loops * CONTROL_LEAK_BYTES / 1024),
				     r->nsamples, rtb_outcome_name(d.outcome), d.reason);
	trend_lines(&d, p, true, v);
	v->control = d.outcome == RTB_FAIL ? RTB_CONTROL_CAUGHT : RTB_CONTROL_MISSED;
}

static int run_leak(struct rtb_ctx *ctx)
{
	const char *id = "mem.behavior.leak";
	uint64_t ms = rtb_ctx_count(ctx, "duration_ms", 3000, 300000, 36000000);
	uint64_t leak = rtb_ctx_count(ctx, "mem.behavior.leak.leak_bytes", 0, 0, 0);
	struct leak_objects o;
	struct rtb_mem_params p;
	struct rtb_verdict v;
	struct leak_run r;
	char buf[32];

	objects_for_port(&o);
	rtb_mem_params_default(&p);
	rtb_memset(&r, 0, sizeof(r));
	r.samples = rtb_port_mem_alloc(sizeof(struct rtb_mem_sample) * LEAK_SAMPLES_MAX);
	uint64_t *scratch = rtb_port_mem_alloc(sizeof(uint64_t) * LEAK_SAMPLES_MAX);
	if (r.samples == NULL || scratch == NULL) {
		if (r.samples != NULL)
			rtb_port_mem_free(r.samples);
		if (scratch != NULL)
			rtb_port_mem_free(scratch);
		return rtb_ctx_fail(ctx, RTB_E_NOMEM, "no memory for the samples");
	}
	rtb_verdict_init(&v, id, "MEM-B-LEK", "leak");

	leak_control(ctx, id, &o, &p, &r, scratch, &v);

	struct rtb_mem_sample *samples = r.samples;
	rtb_memset(&r, 0, sizeof(r));
	r.samples = samples;
	r.leak_bytes = leak;
	r.max_loops = UINT64_MAX;
	r.progress = true;
	r.final_sample = true;
	uint64_t end = rtb_port_counter_read() + rtb_ns_to_ticks(ms * 1000000u);
	r.end_ticks = (int64_t)(end - ctx->budget_end_ticks) > 0 ? ctx->budget_end_ticks : end;
	leak_measure(ctx, id, &o, &r);
	free_leaked(&r);

	struct rtb_mem_decision d;
	leak_decide(&r, &p, scratch, &d);
	v.outcome = d.outcome;
	rtb_fmt(v.reason, sizeof(v.reason), "%s", d.reason);
	if (r.failure != RTB_OK) {
		/* an object that can no longer be created after loops that
		 * worked is what a leak ends in */
		v.outcome = r.loops > 0 ? RTB_FAIL : RTB_INCONCLUSIVE;
		rtb_fmt(v.reason, sizeof(v.reason), "loop %llu failed at '%s': %s",
			(unsigned long long)r.loops + 1, r.failed_step,
			rtb_port_strerror(r.failure));
	}
	rtb_fmt_ns(buf, sizeof(buf), rtb_ticks_to_ns(r.elapsed_ticks));
	rtb_verdict_evidence(&v,
			     "%llu loops in %s, each creating and deleting a semaphore, a thread, "
			     "%s%s%s",
			     (unsigned long long)r.loops, buf,
			     o.protocol == RTB_MUTEX_INHERIT ? "a mutex (inherit)" : "a mutex",
			     o.mq ? ", a message queue" : "", o.evt ? ", event flags" : "");
	if (!o.mq || !o.evt)
		rtb_verdict_evidence(&v, "skipped, the port lacks them:%s%s",
				     o.mq ? "" : " message queues", o.evt ? "" : " event flags");
	rtb_verdict_evidence(
		&v, "%zu samples (every %" RTB_PRIu32 " loops at the end), the first %zu a warm-up",
		r.nsamples, r.stride, d.warmup_samples);
	trend_lines(&d, &p, false, &v);
	if (r.note != NULL)
		rtb_verdict_evidence(&v, "%s", r.note);
	if (leak > 0)
		rtb_verdict_evidence(&v,
				     "option mem.behavior.leak.leak_bytes=%llu: the loop leaks on "
				     "purpose",
				     (unsigned long long)leak);
	if (r.stopped)
		rtb_verdict_evidence(&v,
				     "stopped before the planned %llu ms (time budget or stop "
				     "request); judged on what ran",
				     (unsigned long long)ms);
	rtb_verdict_settle(&v);
	rtb_emit_verdict(&v);
	trend_table(id, &r);
	rtb_port_mem_free(r.samples);
	rtb_port_mem_free(scratch);
	return RTB_OK;
}

static const struct rtb_option_spec mem_behavior_leak_options[] = {
	RTB_OPT_LEN("duration_ms", 1u, 864000000u, "how long the scenario measures, in ms"),
	RTB_OPT_N("mem.behavior.leak.leak_bytes", 0u, 1073741824u,
		  "bytes the loop under test keeps each loop (simulates a leaking platform)"),
	RTB_OPT_END,
};

const struct rtb_scenario rtb_scn_mem_behavior_leak = {
	.name = "mem.behavior.leak",
	.ids = {{"mem.behavior.leak", "MEM-B-LEK"}},
	.summary = "OS objects created and removed in a loop: memory and handles must not grow",
	.estimate_ms = {3500, 301000, 36001000},
	.deadline_ms = {30000, 420000, 46800000},
	.caps = RTB_CAP_MEM_USAGE,
	.options = mem_behavior_leak_options,
	.run = run_leak,
};
