/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK checks: loop classification, period search and the CLK-B-CFG
 * decision (see rtb/check_clk.h for the rules).
 */
#include "rtb/check_clk.h"

/* ---- helpers -------------------------------------------------------------- */

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		uint64_t t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void rtb_sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint64_t t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

void rtb_clk_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000u)
		rtb_fmt(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000u)
		rtb_fmt(buf, len, "%llu.%03llu us", (unsigned long long)(ns / 1000u),
			(unsigned long long)(ns % 1000u));
	else if (ns < 1000000000u)
		rtb_fmt(buf, len, "%llu.%03llu ms", (unsigned long long)(ns / 1000000u),
			(unsigned long long)(ns / 1000u % 1000u));
	else
		rtb_fmt(buf, len, "%llu.%03llu s", (unsigned long long)(ns / 1000000000u),
			(unsigned long long)(ns / 1000000u % 1000u));
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* First index of sorted v[0..n) whose value is >= x. */
static size_t lower_bound(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Values of sorted v within [x - tol, x + tol]: first index and count. */
static size_t count_near(const uint64_t *v, size_t n, uint64_t x, uint64_t tol, size_t *first)
{
	size_t a = lower_bound(v, n, x > tol ? x - tol : 0);
	size_t b = lower_bound(v, n, x + tol + 1);

	if (first != NULL)
		*first = a;
	return b - a;
}

/* ---- classification and period ------------------------------------------ */

/* Events kept for the period search; more disturbed loops than this means
 * the loop is too long for the disturbance rate (or the system too busy). */
static size_t events_max(size_t n)
{
	return n / 8 + 16;
}

size_t rtb_clk_scratch_words(size_t n)
{
	return n + 7 * events_max(n);
}

static uint64_t tolerance(uint64_t res, uint64_t period)
{
	return 2 * res + period / 64;
}

/* Distances from each event to its next four neighbours, at least four
 * loops long, sorted. */
static size_t collect_distances(const uint64_t *ev_t, size_t m, uint64_t res, uint64_t *dist)
{
	size_t nd = 0;

	for (size_t i = 0; i < m; i++) {
		for (size_t j = i + 1; j < m && j <= i + 4; j++) {
			uint64_t d = ev_t[j] - ev_t[i];
			if (d >= 4 * res)
				dist[nd++] = d;
		}
	}
	rtb_sort_u64(dist, nd);
	return nd;
}

/* The candidate period: the median of the densest window of distances,
 * replaced by a third or a half of it when those are nearly as common. */
static uint64_t candidate_period(const uint64_t *dist, size_t nd, uint64_t res)
{
	size_t best = 0, best_a = 0, b = 0;

	for (size_t a = 0; a < nd; a++) {
		uint64_t reach = dist[a] + 2 * tolerance(res, dist[a]);
		if (b < a)
			b = a;
		while (b < nd && dist[b] <= reach)
			b++;
		if (b - a > best) {
			best = b - a;
			best_a = a;
		}
	}
	if (best == 0)
		return 0;
	uint64_t p = dist[best_a + best / 2];
	size_t base = count_near(dist, nd, p, tolerance(res, p), NULL);
	size_t best_sub = 0;
	uint64_t best_p = p;
	for (uint64_t k = 2; k <= 3; k++) {
		uint64_t q = p / k;
		if (q < 4 * res)
			continue;
		size_t first;
		size_t c = count_near(dist, nd, q, tolerance(res, q), &first);
		if (2 * c >= base && c > best_sub) {
			best_sub = c;
			best_p = dist[first + c / 2];
		}
	}
	return best_p;
}

struct period_result {
	uint64_t period, pmin, pmax, tol;
	size_t pairs, expected;
	bool periodic;
};

/* Pair every event with one a period later (within tol), mark both as tick
 * events and measure the distances of those pairs. */
static void pair_events(const uint64_t *ev_t, size_t m, uint64_t p, uint64_t tol, uint64_t *ev_tick,
			uint64_t *dist, struct period_result *r)
{
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * m);
	r->pairs = 0;
	r->tol = tol;
	for (size_t i = 0; i < m; i++) {
		for (size_t j = i + 1; j < m && j <= i + 4; j++) {
			uint64_t d = ev_t[j] - ev_t[i];
			if (absdiff(d, p) <= tol) {
				ev_tick[i] = ev_tick[j] = 1;
				dist[r->pairs++] = d;
				break;
			}
		}
	}
	rtb_sort_u64(dist, r->pairs);
}

/* Check a candidate period. The search tolerance is wide (jittery ticks);
 * once the pairs are known it is narrowed to the spread they really show,
 * so that fewer unrelated disturbances pass for tick loops. */
static void check_period(const uint64_t *ev_t, size_t m, uint64_t span, uint64_t res, uint64_t p,
			 uint64_t *ev_tick, uint64_t *dist, struct period_result *r)
{
	rtb_memset(r, 0, sizeof(*r));
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * m);
	if (p == 0)
		return;
	pair_events(ev_t, m, p, tolerance(res, p), ev_tick, dist, r);
	if (r->pairs >= RTB_CLK_PAIRS_MIN) {
		uint64_t median = dist[r->pairs / 2];
		uint64_t narrow = RTB_MAX(2 * res, dist[r->pairs * 9 / 10] - dist[r->pairs / 10]);
		if (narrow < r->tol)
			pair_events(ev_t, m, median, narrow, ev_tick, dist, r);
	}
	r->expected = span / p > 1 ? (size_t)(span / p) - 1 : 0;
	if (r->pairs == 0)
		return;
	r->period = dist[r->pairs / 2];
	r->pmin = dist[0];
	r->pmax = dist[r->pairs - 1];
	r->periodic = p >= 4 * res && r->pairs >= RTB_CLK_PAIRS_MIN && 2 * r->pairs >= r->expected;
}

bool rtb_clk_analyse(const uint64_t *loop_ticks, size_t n, uint64_t min_excess_ticks,
		     uint64_t *scratch, uint8_t *kinds, struct rtb_clk_analysis *out)
{
	rtb_memset(out, 0, sizeof(*out));
	if (n < RTB_CLK_LOOPS_MIN)
		return false;
	size_t me = events_max(n);
	uint64_t *sorted = scratch;
	uint64_t *ev_t = sorted + n;
	uint64_t *ev_i = ev_t + me;
	uint64_t *ev_tick = ev_i + me;
	uint64_t *dist = ev_tick + me; /* 4 * me words */

	rtb_memcpy(sorted, loop_ticks, sizeof(uint64_t) * n);
	rtb_sort_u64(sorted, n);
	out->valid = true;
	out->loops = n;
	out->normal_ticks = sorted[n / 2];
	out->spread_ticks = out->normal_ticks - sorted[n / 100];
	uint64_t margin = RTB_MAX(4 * out->spread_ticks, out->normal_ticks / 32);
	margin = RTB_MAX(margin, RTB_MAX(min_excess_ticks, 1u));
	out->threshold_ticks = out->normal_ticks + margin;

	size_t m = 0;
	uint64_t t = 0;
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] > out->threshold_ticks) {
			out->disturbed++;
			if (m < me) {
				ev_t[m] = t;
				ev_i[m] = i;
				m++;
			}
		}
		t += loop_ticks[i];
	}
	out->span_ticks = t;
	out->normal = n - out->disturbed;
	out->too_dense = out->disturbed > me;

	uint64_t res = RTB_MAX(out->normal_ticks, 1u);
	struct period_result pr;
	rtb_memset(&pr, 0, sizeof(pr));
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * me);
	if (!out->too_dense && m >= 2) {
		size_t nd = collect_distances(ev_t, m, res, dist);
		check_period(ev_t, m, t, res, candidate_period(dist, nd, res), ev_tick, dist, &pr);
	}
	out->tolerance_ticks = pr.tol;
	out->expected_pairs = pr.expected;
	out->period_pairs = pr.pairs;
	out->periodic = pr.periodic;
	if (pr.periodic) {
		out->period_ticks = pr.period;
		out->period_min_ticks = pr.pmin;
		out->period_max_ticks = pr.pmax;
	} else {
		rtb_memset(ev_tick, 0, sizeof(uint64_t) * me);
	}

	/* kinds, and the excess of the tick loops into `sorted` */
	size_t k = 0, nt = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t kind = RTB_CLK_NORMAL;
		if (loop_ticks[i] > out->threshold_ticks) {
			while (k < m && ev_i[k] < i)
				k++;
			kind = (k < m && ev_i[k] == i && ev_tick[k]) ? RTB_CLK_TICK : RTB_CLK_OTHER;
		}
		if (kind == RTB_CLK_TICK)
			sorted[nt++] = loop_ticks[i] - out->normal_ticks;
		if (kinds != NULL)
			kinds[i] = kind;
	}
	out->tick = nt;
	out->other = out->disturbed - nt;
	if (nt > 0) {
		rtb_sort_u64(sorted, nt);
		out->tick_excess_min_ticks = sorted[0];
		out->tick_excess_typical_ticks = sorted[nt / 2];
		out->tick_excess_worst_ticks = sorted[nt - 1];
		out->tick_loop_min_ticks = out->normal_ticks + sorted[0];
		out->tick_loop_typical_ticks = out->normal_ticks + sorted[nt / 2];
		out->tick_loop_worst_ticks = out->normal_ticks + sorted[nt - 1];
	}
	/* the other disturbed loops: the tick loops are exactly the disturbed
	 * loops flagged above, so recount them by kind */
	size_t no = 0;
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] <= out->threshold_ticks)
			continue;
		while (k < m && ev_i[k] < i)
			k++;
		if (!(k < m && ev_i[k] == i && ev_tick[k]))
			sorted[no++] = loop_ticks[i];
	}
	if (no > 0) {
		rtb_sort_u64(sorted, no);
		out->other_loop_typical_ticks = sorted[no / 2];
		out->other_loop_worst_ticks = sorted[no - 1];
	}
	return true;
}

/* ---- CLK-B-CFG ------------------------------------------------------------ */

enum rtb_clk_nohz rtb_clk_nohz_parse(const char *s)
{
	if (s == NULL)
		return RTB_CLK_NOHZ_UNKNOWN;
	if (rtb_strcmp(s, "periodic") == 0)
		return RTB_CLK_NOHZ_PERIODIC;
	if (rtb_strcmp(s, "idle") == 0)
		return RTB_CLK_NOHZ_IDLE;
	if (rtb_strcmp(s, "full") == 0)
		return RTB_CLK_NOHZ_FULL;
	return RTB_CLK_NOHZ_UNKNOWN;
}

const char *rtb_clk_nohz_name(enum rtb_clk_nohz m)
{
	switch (m) {
	case RTB_CLK_NOHZ_PERIODIC:
		return "periodic";
	case RTB_CLK_NOHZ_IDLE:
		return "idle";
	case RTB_CLK_NOHZ_FULL:
		return "full";
	default:
		return "unknown";
	}
}

static void decide_period(const struct rtb_clk_facts *f, uint64_t stated_period,
			  struct rtb_clk_decision *d)
{
	char measured[32], stated[32], sleep[32];

	rtb_clk_fmt_ns(measured, sizeof(measured), f->period_ns);
	rtb_clk_fmt_ns(stated, sizeof(stated), stated_period);
	rtb_clk_fmt_ns(sleep, sizeof(sleep), f->sleep_typical_ns);
	if (f->periodic && stated_period != 0) {
		uint64_t tol = RTB_MAX(stated_period / 20, 2 * f->loop_ns + f->period_tol_ns);
		if (absdiff(f->period_ns, stated_period) <= tol) {
			d->outcome = RTB_PASS;
			rtb_fmt(d->reason, sizeof(d->reason),
				"tick every %s, as the stated %llu Hz", measured,
				(unsigned long long)f->stated_hz);
		} else if (f->nohz == RTB_CLK_NOHZ_FULL && f->period_ns > stated_period) {
			d->outcome = RTB_PASS;
			rtb_fmt(d->reason, sizeof(d->reason),
				"tick every %s on the busy CPU, slower than the "
				"stated %llu Hz as full dynticks allow",
				measured, (unsigned long long)f->stated_hz);
		} else {
			d->outcome = RTB_FAIL;
			rtb_fmt(d->reason, sizeof(d->reason),
				"a disturbance every %s contradicts the stated "
				"%llu Hz tick (one every %s)",
				measured, (unsigned long long)f->stated_hz, stated);
		}
	} else if (stated_period != 0) {
		if (f->nohz == RTB_CLK_NOHZ_FULL) {
			d->outcome = RTB_PASS;
			rtb_fmt(d->reason, sizeof(d->reason),
				"no periodic tick on the busy CPU, as full "
				"dynticks allow (stated %llu Hz when running)",
				(unsigned long long)f->stated_hz);
		} else {
			d->outcome = RTB_INCONCLUSIVE;
			rtb_fmt(d->reason, sizeof(d->reason),
				"the OS states a %llu Hz tick but no periodic "
				"disturbance was found; it may cost less than the "
				"detection threshold",
				(unsigned long long)f->stated_hz);
		}
	} else if (f->periodic) {
		d->outcome = RTB_PASS;
		rtb_fmt(d->reason, sizeof(d->reason),
			"tick every %s (measured; the OS does not state its tick)", measured);
	} else {
		d->outcome = RTB_PASS;
		if (f->sleep_measured)
			rtb_fmt(d->reason, sizeof(d->reason),
				"tickless / high-resolution timers: no periodic "
				"disturbance; a 1 us sleep lasts %s",
				sleep);
		else
			rtb_fmt(d->reason, sizeof(d->reason),
				"tickless / high-resolution timers: no periodic "
				"disturbance");
	}
}

static void decide_resolution(const struct rtb_clk_facts *f, uint64_t ref_period,
			      struct rtb_clk_decision *d)
{
	char res[32], sleep[32], period[32];

	if (!f->sleep_measured || f->stated_resolution_ns == 0 || ref_period == 0)
		return;
	rtb_clk_fmt_ns(res, sizeof(res), f->stated_resolution_ns);
	rtb_clk_fmt_ns(sleep, sizeof(sleep), f->sleep_typical_ns);
	rtb_clk_fmt_ns(period, sizeof(period), ref_period);
	if (f->stated_resolution_ns * 10 < ref_period && d->sleep_tick_bound) {
		d->outcome = RTB_FAIL;
		rtb_fmt(d->reason, sizeof(d->reason),
			"the OS states a %s timer resolution but a 1 us sleep "
			"lasts %s, about a tick (%s)",
			res, sleep, period);
	} else if (f->stated_resolution_ns * 2 >= ref_period &&
		   f->sleep_typical_ns * 2 < f->stated_resolution_ns) {
		d->outcome = RTB_FAIL;
		rtb_fmt(d->reason, sizeof(d->reason),
			"the OS states a %s timer resolution but a 1 us sleep "
			"lasts only %s",
			res, sleep);
	}
}

void rtb_clk_decide(const struct rtb_clk_facts *f, struct rtb_clk_decision *d)
{
	rtb_memset(d, 0, sizeof(*d));
	uint64_t stated_period = f->stated_hz != 0 ? 1000000000u / f->stated_hz : 0;
	uint64_t ref_period = f->periodic ? f->period_ns : stated_period;

	d->tickless = !f->periodic;
	d->tick_period_ns = f->periodic ? f->period_ns : 0;
	d->sleep_tick_bound =
		f->sleep_measured && ref_period != 0 && f->sleep_typical_ns * 2 >= ref_period;
	decide_period(f, stated_period, d);
	if (d->outcome != RTB_FAIL)
		decide_resolution(f, ref_period, d);
}
