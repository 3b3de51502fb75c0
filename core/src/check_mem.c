/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MEM checks: the MEM-B-LEK decision (rules in rtb/check_mem.h).
 */
#include "rtb/check_mem.h"

const char *rtb_mem_metric_name(enum rtb_mem_metric m)
{
	static const char *const names[RTB_MEM_METRICS] = {"resident", "heap", "threads",
							   "handles"};

	return (unsigned)m < RTB_MEM_METRICS ? names[m] : "?";
}

const char *rtb_mem_metric_unit(enum rtb_mem_metric m)
{
	return m == RTB_MEM_RESIDENT || m == RTB_MEM_HEAP ? "bytes" : "count";
}

const char *rtb_mem_shape_name(enum rtb_mem_shape s)
{
	switch (s) {
	case RTB_MEM_FLAT:
		return "flat";
	case RTB_MEM_ONE_STEP:
		return "one-time step";
	case RTB_MEM_GROWING:
		return "growing";
	case RTB_MEM_UNRELIABLE:
		return "not judged in this build";
	default:
		return "not judged";
	}
}

void rtb_mem_params_default(struct rtb_mem_params *p)
{
	rtb_memset(p, 0, sizeof(*p));
	p->warmup_pct = 10;
	p->segments = 8;
	/* Resident memory moves in pages, and a thread's stack is resident
	 * while the thread lives: 256 KiB. The allocator's count of bytes in
	 * use includes blocks parked in per-thread caches and the OS's
	 * per-thread data: 64 KiB. Object counts must come back exactly. */
	p->tolerance[RTB_MEM_RESIDENT] = 256 * 1024;
	p->tolerance[RTB_MEM_HEAP] = 64 * 1024;
	p->tolerance[RTB_MEM_THREADS] = 0;
	p->tolerance[RTB_MEM_HANDLES] = 0;
}

/* Median of metric m over samples [a, b). */
static uint64_t level(const struct rtb_mem_sample *s, size_t a, size_t b, unsigned m,
		      uint64_t *scratch)
{
	for (size_t i = a; i < b; i++)
		scratch[i - a] = s[i].value[m];
	rtb_sort_u64(scratch, b - a);
	return scratch[(b - a) / 2];
}

static void judge(const struct rtb_mem_sample *s, size_t first, size_t m_count,
		  const struct rtb_mem_params *p, unsigned m, uint64_t *scratch,
		  struct rtb_mem_trend *t)
{
	uint32_t segs = p->segments;
	uint64_t tol = p->tolerance[m];
	uint64_t prev = 0;
	bool any = false;

	rtb_memset(t, 0, sizeof(*t));
	for (size_t i = first; i < first + m_count; i++)
		any = any || s[i].value[m] != 0;
	if (!any)
		return;
	for (uint32_t k = 0; k < segs; k++) {
		size_t a = first + m_count * k / segs;
		size_t b = first + m_count * (k + 1) / segs;
		uint64_t l = level(s, a, b, m, scratch);
		if (k == 0) {
			t->first_level = l;
		} else {
			int64_t rise = (int64_t)(l - prev);
			if (rise > t->step) {
				t->step = rise;
				t->step_segment = k;
				t->step_loop = s[a].loop;
			}
		}
		prev = l;
	}
	t->last_level = prev;
	t->growth = (int64_t)(t->last_level - t->first_level);
	t->growth_beyond_step = t->growth - t->step;
	size_t mid_first = first + m_count / segs / 2;
	size_t mid_last = first + m_count * (segs - 1) / segs + m_count / segs / 2;
	t->loops = s[mid_last].loop - s[mid_first].loop;
	t->per_kloop = t->loops > 0 ? t->growth * 1000 / (int64_t)t->loops : 0;

	bool growing = t->growth_beyond_step > (int64_t)tol;
	bool late_step = t->step > (int64_t)tol && t->step_segment >= segs - 1;
	if (p->unreliable & (1u << m))
		t->shape = RTB_MEM_UNRELIABLE;
	else if (growing || late_step)
		t->shape = RTB_MEM_GROWING;
	else if (t->step > (int64_t)tol && t->growth > (int64_t)tol)
		t->shape = RTB_MEM_ONE_STEP;
	else
		t->shape = RTB_MEM_FLAT;
}

void rtb_mem_decide(const struct rtb_mem_sample *s, size_t n, const struct rtb_mem_params *p,
		    uint64_t *scratch, struct rtb_mem_decision *d)
{
	uint32_t segs = p->segments < 4 ? 4 : p->segments;
	struct rtb_mem_params q = *p;

	q.segments = segs;
	rtb_memset(d, 0, sizeof(*d));
	d->samples = n;
	d->warmup_samples = n * p->warmup_pct / 100;
	if (d->warmup_samples == 0 && n > 0 && p->warmup_pct > 0)
		d->warmup_samples = 1;
	size_t judged = n > d->warmup_samples ? n - d->warmup_samples : 0;
	if (judged < 2 * (size_t)segs) {
		d->outcome = RTB_INCONCLUSIVE;
		rtb_fmt(d->reason, sizeof(d->reason),
			"too few samples to judge: %zu after warm-up, %" RTB_PRIu32 " needed",
			judged, 2 * segs);
		return;
	}

	/* RTB_MEM_METRICS: none (a bound the compiler sees when indexing). */
	unsigned grows = RTB_MEM_METRICS, steps = RTB_MEM_METRICS;
	int available = 0;
	for (unsigned m = 0; m < RTB_MEM_METRICS; m++) {
		judge(s, d->warmup_samples, judged, &q, m, scratch, &d->trend[m]);
		if (d->trend[m].shape == RTB_MEM_NOT_JUDGED ||
		    d->trend[m].shape == RTB_MEM_UNRELIABLE)
			continue;
		available++;
		if (d->trend[m].shape == RTB_MEM_GROWING && grows == RTB_MEM_METRICS)
			grows = m;
		if (d->trend[m].shape == RTB_MEM_ONE_STEP && steps == RTB_MEM_METRICS)
			steps = m;
	}
	if (available == 0) {
		d->outcome = RTB_INCONCLUSIVE;
		rtb_fmt(d->reason, sizeof(d->reason),
			"the port reports no memory or object counts to judge");
		return;
	}
	if (grows < RTB_MEM_METRICS) {
		const struct rtb_mem_trend *t = &d->trend[grows];
		d->outcome = RTB_FAIL;
		rtb_fmt(d->reason, sizeof(d->reason),
			"%s grows: +%lld %s over %llu loops (%lld per 1000 loops), tolerance %llu",
			rtb_mem_metric_name((enum rtb_mem_metric)grows), (long long)t->growth,
			rtb_mem_metric_unit((enum rtb_mem_metric)grows),
			(unsigned long long)t->loops, (long long)t->per_kloop,
			(unsigned long long)p->tolerance[grows]);
		return;
	}
	d->outcome = RTB_PASS;
	if (steps < RTB_MEM_METRICS)
		rtb_fmt(d->reason, sizeof(d->reason),
			"every level flat after warm-up, but for a one-time %s increase of %lld %s "
			"near loop %llu",
			rtb_mem_metric_name((enum rtb_mem_metric)steps),
			(long long)d->trend[steps].step,
			rtb_mem_metric_unit((enum rtb_mem_metric)steps),
			(unsigned long long)d->trend[steps].step_loop);
	else
		rtb_fmt(d->reason, sizeof(d->reason),
			"memory in use and object counts came back to the same level over %llu "
			"loops",
			(unsigned long long)(s[n - 1].loop - s[d->warmup_samples].loop));
}
