/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CLK checks: loop classification, period search and the CLK-B-CFG
 * decision (see rtb/check_clk.h for the rules).
 */
#include "rtb/check_clk.h"

/* ---- helpers -------------------------------------------------------------- */

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* ---- classification and period ------------------------------------------ */

/* Events kept for the period search; more than this means the loop is too
 * long for the disturbance rate (or the system too busy). */
static size_t events_max(size_t n)
{
	return n / 8 + 16;
}

size_t rtb_clk_scratch_words(size_t n)
{
	return n + 7 * events_max(n);
}

/* Is loop i the first loop of a cluster found on the period? ev_i holds the
 * clusters' first loops in ascending order. */
static bool on_period(const uint64_t *ev_i, const uint64_t *ev_tick, size_t m, size_t i)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ev_i[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m && ev_i[lo] == i && ev_tick[lo] != 0;
}

static uint64_t tolerance(uint64_t res, uint64_t period)
{
	return 2 * res + period / 64;
}

/* Work bound of the pair histogram: at most this many pairs are counted. */
#define PAIRS_WORK_MAX 40000000ull

struct lag_hist {
	uint64_t *cum; /* cum[k] = pairs with distance below k * bw */
	size_t bins;
	uint64_t bw; /* bin width */
};

/* Histogram of the distances between all pairs of events up to max_lag,
 * stored as cumulative counts so any window is counted in O(1). */
static void lag_histogram(const uint64_t *ev_t, size_t m, uint64_t max_lag, uint64_t res,
			  uint64_t *space, size_t space_words, struct lag_hist *h)
{
	h->bins = space_words - 1;
	h->bw = RTB_MAX(res / 2, 1u);
	if (max_lag / h->bw + 1 > h->bins)
		h->bw = max_lag / h->bins + 1;
	h->bins = (size_t)RTB_MIN((uint64_t)h->bins, max_lag / h->bw + 1);
	h->cum = space;
	rtb_memset(space, 0, sizeof(uint64_t) * (h->bins + 1));
	for (size_t i = 0; i < m; i++) {
		for (size_t j = i + 1; j < m; j++) {
			uint64_t d = ev_t[j] - ev_t[i];
			size_t b = (size_t)(d / h->bw);
			if (b >= h->bins)
				break;
			space[b + 1]++;
		}
	}
	for (size_t k = 1; k <= h->bins; k++)
		space[k] += space[k - 1];
}

/* Pairs in bins [a, b) (clipped to the histogram). */
static uint64_t lag_count(const struct lag_hist *h, int64_t a, int64_t b)
{
	a = a < 0 ? 0 : a;
	b = b > (int64_t)h->bins ? (int64_t)h->bins : b;
	return b > a ? h->cum[b] - h->cum[a] : 0;
}

/* Pairs around lag bin c beyond the local background: the window c +- hw
 * against the density of four window widths on either side. */
static int64_t lag_excess(const struct lag_hist *h, int64_t c, int64_t hw, int64_t *bg)
{
	int64_t w = 2 * hw + 1, flank = 4 * w;
	uint64_t in = lag_count(h, c - hw, c + hw + 1);
	int64_t la = RTB_MAX(c - hw - flank, (int64_t)0), lb = c - hw;
	int64_t ra = c + hw + 1, rb = RTB_MIN(c + hw + 1 + flank, (int64_t)h->bins);
	int64_t fb = (lb > la ? lb - la : 0) + (rb > ra ? rb - ra : 0);
	uint64_t fc = lag_count(h, la, lb) + lag_count(h, ra, rb);
	int64_t background = fb > 0 ? (int64_t)(fc * (uint64_t)w / (uint64_t)fb) : 0;
	if (bg != NULL)
		*bg = background;
	return (int64_t)in - background;
}

/* The candidate period: the shortest lag (at least four loops) whose pairs
 * beyond the local background number at least half of span / lag (each
 * tick pairs with the next one, whatever happens in between), moved to the
 * densest window next to it. Random disturbances add background, not
 * excess; multiples of the period also pass but are longer. */
static uint64_t candidate_period(const struct lag_hist *h, uint64_t span, uint64_t res)
{
	for (uint64_t c = (4 * res + h->bw - 1) / h->bw; c < h->bins; c++) {
		uint64_t lag = c * h->bw + h->bw / 2;
		int64_t hw = (int64_t)(tolerance(res, lag) / h->bw);
		int64_t bg;
		int64_t excess = lag_excess(h, (int64_t)c, hw, &bg);
		/* enough pairs, and three standard deviations above a random
		 * background (whose count is about Poisson) */
		if (excess < (int64_t)RTB_CLK_PAIRS_MIN || (uint64_t)excess * 2 * lag < span ||
		    excess * excess < 9 * bg)
			continue;
		uint64_t best = c;
		int64_t best_excess = excess;
		for (uint64_t d = c + 1; d < h->bins && d <= c + 2 * (uint64_t)hw; d++) {
			int64_t e = lag_excess(h, (int64_t)d, hw, NULL);
			if (e > best_excess) {
				best_excess = e;
				best = d;
			}
		}
		return best * h->bw + h->bw / 2;
	}
	return 0;
}

/* First event at or after time t. */
static size_t first_at(const uint64_t *ev_t, size_t m, uint64_t t)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ev_t[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct period_result {
	uint64_t period, pmin, pmax, tol;
	size_t pairs, expected, chance;
	bool periodic;
};

/* Pair every event with the event closest to one period later (within
 * tol), mark both as tick events and keep the distances of those pairs,
 * sorted. */
static void pair_events(const uint64_t *ev_t, size_t m, uint64_t p, uint64_t tol, uint64_t *ev_tick,
			uint64_t *dist, struct period_result *r)
{
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * m);
	r->pairs = 0;
	r->tol = tol;
	for (size_t i = 0; i < m; i++) {
		uint64_t lo = ev_t[i] + (p > tol ? p - tol : 0);
		uint64_t hi = ev_t[i] + p + tol;
		size_t best = m;
		for (size_t j = first_at(ev_t, m, lo); j < m && ev_t[j] <= hi; j++) {
			if (j != i && (best == m || absdiff(ev_t[j] - ev_t[i], p) <
							    absdiff(ev_t[best] - ev_t[i], p)))
				best = j;
		}
		if (best < m) {
			ev_tick[i] = ev_tick[best] = 1;
			dist[r->pairs++] = ev_t[best] - ev_t[i];
		}
	}
	rtb_sort_u64(dist, r->pairs);
}

/* Check a candidate period. The search tolerance is wide (jittery ticks);
 * once the pairs are known it is narrowed to the spread they really show,
 * so that fewer unrelated disturbances pass for tick loops. The pairs that
 * count towards the period are those beyond the background: the pairs the
 * same number of events would form at random within the tolerance. */
static void check_period(const uint64_t *ev_t, size_t m, uint64_t span, size_t holes, uint64_t res,
			 uint64_t p, uint64_t *ev_tick, uint64_t *dist, struct period_result *r)
{
	rtb_memset(r, 0, sizeof(*r));
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * m);
	if (p == 0 || span == 0)
		return;
	pair_events(ev_t, m, p, tolerance(res, p), ev_tick, dist, r);
	if (r->pairs >= RTB_CLK_PAIRS_MIN) {
		uint64_t median = dist[r->pairs / 2];
		uint64_t narrow = RTB_MAX(2 * res, dist[r->pairs * 9 / 10] - dist[r->pairs / 10]);
		if (narrow < r->tol) {
			p = median;
			pair_events(ev_t, m, p, narrow, ev_tick, dist, r);
		}
	}
	/* each hole (a loop the CPU was taken from) breaks one chain of pairs */
	r->expected = span / p > 1 + holes ? (size_t)(span / p) - 1 - holes : 0;
	if (r->pairs == 0)
		return;
	r->period = dist[r->pairs / 2];
	r->pmin = dist[0];
	r->pmax = dist[r->pairs - 1];
	/* chance pairs: each event sees the others at density m / span */
	double chance = (double)m * (double)m * (double)(2 * r->tol + 1) / (double)span;
	double beyond = (double)r->pairs - chance;
	r->chance = (size_t)RTB_MIN(chance, (double)r->pairs);
	r->periodic = p >= 4 * res && r->pairs >= RTB_CLK_PAIRS_MIN &&
		      beyond >= (double)RTB_CLK_PAIRS_MIN && 2.0 * beyond >= (double)r->expected &&
		      beyond >= 5.0 * rtb_sqrt(chance);
}

/* A loop this many normal loops long or longer is a hole: far beyond what a
 * tick costs, as the long-gap limit's floor (8 normal loops of excess). */
#define HOLE_LOOPS 9u

#define CLUSTER_BINS 128
#define CLUSTER_LOW 32 /* bins below the median */

/* Where the lower line ends: the loop times are binned (normal / 128 wide)
 * around the median; walking up from the median, the line ends at the
 * first bin from which four bins in a row hold less than 1/64 of the
 * densest bin at or below the median. Undisturbed loops need not be
 * symmetric about the median (two close lower lines are common), so the
 * spread below the median says little about the spread above it. */
static uint64_t cluster_end(const uint64_t *sorted, size_t n, uint64_t normal, uint64_t *bins)
{
	uint64_t bw = RTB_MAX(normal / 128, 1u);
	uint64_t lo = normal > CLUSTER_LOW * bw ? normal - CLUSTER_LOW * bw : 0;
	uint64_t peak = 0;

	rtb_memset(bins, 0, sizeof(uint64_t) * CLUSTER_BINS);
	for (size_t i = 0; i < n; i++) {
		if (sorted[i] < lo)
			continue;
		uint64_t b = (sorted[i] - lo) / bw;
		if (b >= CLUSTER_BINS)
			break;
		bins[b]++;
	}
	uint64_t mb = (normal - lo) / bw;
	for (uint64_t b = 0; b <= mb; b++)
		peak = RTB_MAX(peak, bins[b]);
	for (uint64_t b = mb + 1; b + 4 <= CLUSTER_BINS; b++) {
		if (64 * bins[b] < peak && 64 * bins[b + 1] < peak && 64 * bins[b + 2] < peak &&
		    64 * bins[b + 3] < peak)
			return lo + b * bw;
	}
	return lo + CLUSTER_BINS * bw;
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
	uint64_t margin = RTB_MAX(out->normal_ticks / 32, RTB_MAX(min_excess_ticks, 1u));
	out->threshold_ticks = RTB_MAX(out->normal_ticks + margin,
				       cluster_end(sorted, n, out->normal_ticks, dist));

	/* Events for the period search: the first disturbed loop of each
	 * cluster (disturbed loops less than four normal loops apart). A
	 * burst of disturbed loops is one event, so its inner rhythm cannot
	 * pass for a period. */
	uint64_t res = RTB_MAX(out->normal_ticks, 1u);
	size_t m = 0, clusters = 0;
	uint64_t t = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] > out->threshold_ticks) {
			out->disturbed++;
			if (out->disturbed == 1 || t - last > 4 * res) {
				clusters++;
				if (m < me) {
					ev_t[m] = t;
					ev_i[m] = i;
					m++;
				}
			}
			last = t;
		}
		t += loop_ticks[i];
	}
	out->span_ticks = t;
	/* Loops far longer than a tick could make (the CPU taken away: the host
	 * of an emulator, a hypervisor) hide the ticks inside them: the period
	 * is judged over the time the loop ran, not the time it lost. */
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] > HOLE_LOOPS * res) {
			out->holes++;
			out->hole_ticks += loop_ticks[i];
		}
	}
	uint64_t seen = t - out->hole_ticks;
	out->normal = n - out->disturbed;
	out->too_dense = clusters > me;

	struct period_result pr;
	rtb_memset(&pr, 0, sizeof(pr));
	rtb_memset(ev_tick, 0, sizeof(uint64_t) * me);
	if (!out->too_dense && m >= 2) {
		/* a period must repeat at least RTB_CLK_PAIRS_MIN + 1 times */
		uint64_t max_lag = t / (RTB_CLK_PAIRS_MIN + 1);
		/* about m * m * max_lag / t pairs are counted: bound the work */
		double work = (double)m * (double)m * (double)max_lag / (double)t;
		if (work > (double)PAIRS_WORK_MAX)
			max_lag = (uint64_t)((double)max_lag * (double)PAIRS_WORK_MAX / work);
		struct lag_hist h;
		lag_histogram(ev_t, m, max_lag, res, dist, 4 * me, &h);
		uint64_t p = candidate_period(&h, seen, res);
		check_period(ev_t, m, seen, out->holes, res, p, ev_tick, dist, &pr);
	}
	out->tolerance_ticks = pr.tol;
	out->expected_pairs = pr.expected;
	out->period_pairs = pr.pairs;
	out->chance_pairs = pr.chance;
	out->periodic = pr.periodic;
	if (pr.periodic) {
		out->period_ticks = pr.period;
		out->period_min_ticks = pr.pmin;
		out->period_max_ticks = pr.pmax;
	} else {
		rtb_memset(ev_tick, 0, sizeof(uint64_t) * me);
	}

	/* kinds: the disturbed loops on the period are tick candidates; the
	 * median of their excess sets the long-gap limit */
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
	uint64_t limit = 8 * out->normal_ticks;
	if (nt > 0) {
		rtb_sort_u64(sorted, nt);
		limit = RTB_MAX(limit, 16 * sorted[nt / 2]);
	}
	out->gap_limit_ticks = limit;

	/* long gaps out, then the tick loops' figures (`sorted` is reused) */
	nt = 0;
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] <= out->threshold_ticks)
			continue;
		uint64_t excess = loop_ticks[i] - out->normal_ticks;
		if (excess > limit) {
			out->gap++;
			out->gap_excess_total_ticks += excess;
			out->gap_excess_longest_ticks =
				RTB_MAX(out->gap_excess_longest_ticks, excess);
			if (kinds != NULL)
				kinds[i] = RTB_CLK_GAP;
		} else if (on_period(ev_i, ev_tick, m, i)) {
			sorted[nt++] = excess;
		}
	}
	out->tick = nt;
	out->other = out->disturbed - nt - out->gap;
	if (nt > 0) {
		rtb_sort_u64(sorted, nt);
		out->tick_excess_min_ticks = sorted[0];
		out->tick_excess_typical_ticks = sorted[nt / 2];
		out->tick_excess_worst_ticks = sorted[nt - 1];
		out->tick_loop_min_ticks = out->normal_ticks + sorted[0];
		out->tick_loop_typical_ticks = out->normal_ticks + sorted[nt / 2];
		out->tick_loop_worst_ticks = out->normal_ticks + sorted[nt - 1];
	}
	/* the other disturbed loops: neither on the period nor long gaps */
	size_t no = 0;
	for (size_t i = 0; i < n; i++) {
		if (loop_ticks[i] <= out->threshold_ticks ||
		    loop_ticks[i] - out->normal_ticks > limit || on_period(ev_i, ev_tick, m, i))
			continue;
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

uint64_t rtb_clk_phase_offset(uint64_t i, uint64_t period)
{
	/* frac(i * 0.6180339887...) in 32-bit fixed point: 2^64 / golden ratio,
	 * times i, modulo 2^64, top half */
	uint64_t frac = (i * 0x9E3779B97F4A7C15ull) >> 32;
	/* period * frac / 2^32 without 128-bit arithmetic */
	return (period >> 32) * frac + (((period & 0xFFFFFFFFu) * frac) >> 32);
}

/* The 90th percentile, never below the median (older facts leave it 0). */
static uint64_t high_of(uint64_t typical, uint64_t high)
{
	return RTB_MAX(typical, high);
}

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

/* k when the longer of a and b is k >= 2 times the shorter (within
 * max(5 % of the longer, tol)), else 0. */
static uint64_t harmonic(uint64_t a, uint64_t b, uint64_t tol)
{
	uint64_t lo = RTB_MIN(a, b), hi = RTB_MAX(a, b);

	if (lo == 0)
		return 0;
	uint64_t k = (hi + lo / 2) / lo;
	if (k < 2 || k > 64)
		return 0;
	return absdiff(hi, k * lo) <= RTB_MAX(hi / 20, tol) ? k : 0;
}

static void decide_period(const struct rtb_clk_facts *f, uint64_t stated_period,
			  struct rtb_clk_decision *d)
{
	char measured[32], stated[32], sleep[32];
	uint64_t k;

	rtb_fmt_ns(measured, sizeof(measured), f->period_ns);
	rtb_fmt_ns(stated, sizeof(stated), stated_period);
	rtb_fmt_ns(sleep, sizeof(sleep), f->sleep_typical_ns);
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
		} else if ((k = harmonic(f->period_ns, stated_period, tol)) != 0) {
			/* Harmonic with the statement: the stated tick may hide among
			 * a faster disturbance from elsewhere (a hypervisor's timer),
			 * or only every k-th tick may cost enough to be seen. Neither
			 * confirms nor contradicts the statement. */
			d->outcome = RTB_INCONCLUSIVE;
			d->tick_period_ns = 0;
			if (f->period_ns < stated_period)
				rtb_fmt(d->reason, sizeof(d->reason),
					"a disturbance every %s, %llu per stated %llu Hz tick: "
					"another periodic source masks the tick, which cannot be "
					"confirmed",
					measured, (unsigned long long)k,
					(unsigned long long)f->stated_hz);
			else
				rtb_fmt(d->reason, sizeof(d->reason),
					"a disturbance every %s, once per %llu stated %llu Hz "
					"ticks: the other ticks were not seen, so the tick "
					"cannot be confirmed",
					measured, (unsigned long long)k,
					(unsigned long long)f->stated_hz);
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
		} else if (f->span_ns != 0 && f->hole_ns * 10 >= f->span_ns) {
			char ran[32], span[32];
			rtb_fmt_ns(ran, sizeof(ran), f->span_ns - f->hole_ns);
			rtb_fmt_ns(span, sizeof(span), f->span_ns);
			d->outcome = RTB_INCONCLUSIVE;
			rtb_fmt(d->reason, sizeof(d->reason),
				"the OS states a %llu Hz tick but no periodic disturbance "
				"was found: the busy loop ran %s of %s, the CPU was taken "
				"away %zu times",
				(unsigned long long)f->stated_hz, ran, span, f->holes);
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

/* The short sleep the coarse-resolution rule judges: the longest request of
 * at most a quarter of the stated resolution (rtb/check_clk.h), else the
 * 1 us one. */
static struct rtb_clk_sleep coarse_probe(const struct rtb_clk_facts *f)
{
	struct rtb_clk_sleep probe = {1000, f->sleep_typical_ns, f->sleep_high_ns};

	for (size_t i = 0; i < f->sleeps && i < RTB_CLK_SLEEPS_MAX; i++) {
		const struct rtb_clk_sleep *s = &f->sleep[i];
		if (s->requested_ns != 0 && s->requested_ns * 4 <= f->stated_resolution_ns &&
		    s->requested_ns >= probe.requested_ns)
			probe = *s;
	}
	return probe;
}

static void decide_resolution(const struct rtb_clk_facts *f, uint64_t ref_period,
			      struct rtb_clk_decision *d)
{
	char res[32], sleep[32], period[32], asked[32];

	if (!f->sleep_measured || f->stated_resolution_ns == 0 || ref_period == 0)
		return;
	rtb_fmt_ns(res, sizeof(res), f->stated_resolution_ns);
	rtb_fmt_ns(sleep, sizeof(sleep), high_of(f->sleep_typical_ns, f->sleep_high_ns));
	rtb_fmt_ns(period, sizeof(period), ref_period);
	if (f->stated_resolution_ns * 10 < ref_period && d->sleep_tick_bound) {
		d->outcome = RTB_FAIL;
		rtb_fmt(d->reason, sizeof(d->reason),
			"the OS states a %s timer resolution but 1 us sleeps last "
			"up to %s (90th percentile), about a tick (%s)",
			res, sleep, period);
	} else if (f->stated_resolution_ns * 2 >= ref_period) {
		struct rtb_clk_sleep probe = coarse_probe(f);
		uint64_t high = high_of(probe.typical_ns, probe.high_ns);
		if (high * 2 >= f->stated_resolution_ns)
			return;
		rtb_fmt_ns(asked, sizeof(asked), probe.requested_ns);
		rtb_fmt_ns(sleep, sizeof(sleep), high);
		d->outcome = RTB_FAIL;
		rtb_fmt(d->reason, sizeof(d->reason),
			"the OS states a %s timer resolution but a %s sleep "
			"lasts only %s (90th percentile)",
			res, asked, sleep);
	}
}

void rtb_clk_decide(const struct rtb_clk_facts *f, struct rtb_clk_decision *d)
{
	rtb_memset(d, 0, sizeof(*d));
	uint64_t stated_period = f->stated_hz != 0 ? 1000000000u / f->stated_hz : 0;
	uint64_t ref_period = f->periodic ? f->period_ns : stated_period;

	d->tickless = !f->periodic;
	d->tick_period_ns = f->periodic ? f->period_ns : 0;
	decide_period(f, stated_period, d);
	if (d->tick_period_ns != 0)
		ref_period = d->tick_period_ns;
	/* bound to the tick: from starts spread over the tick, the sleeps last
	 * up to a tick (the median would be about half of one, on either side
	 * of the limit by chance) */
	d->sleep_tick_bound = f->sleep_measured && ref_period != 0 &&
			      high_of(f->sleep_typical_ns, f->sleep_high_ns) * 2 >= ref_period;
	if (d->outcome != RTB_FAIL)
		decide_resolution(f, ref_period, d);
}
