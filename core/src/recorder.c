/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The recorder: exact count/min/max/sum/sum of squares, a log-linear
 * histogram over the whole uint64 range, a bounded raw series of the first
 * samples, warm-up and discard counts, and the worst and a spread of samples
 * kept whole (value, index, start and stop readings). rtb_recorder_add()
 * does no allocation and no call into the OS, so it may run between timed
 * sections.
 */
#include "rtb/core.h"

#define SUB_COUNT (1u << RTB_HIST_SUB_BITS)
#define HALF_COUNT (SUB_COUNT >> 1)

static unsigned msb64(uint64_t v)
{
	return 63u - (unsigned)__builtin_clzll(v);
}

uint32_t rtb_hist_index(uint64_t v)
{
	if (v < SUB_COUNT)
		return (uint32_t)v;
	unsigned shift = msb64(v) - (RTB_HIST_SUB_BITS - 1);
	/* v >> shift lies in [HALF_COUNT, SUB_COUNT) and shift >= 1 */
	return (uint32_t)(shift * HALF_COUNT + (v >> shift));
}

uint64_t rtb_hist_lower(uint32_t index)
{
	if (index < SUB_COUNT)
		return index;
	uint32_t shift = index / HALF_COUNT - 1;
	uint64_t mantissa = index - shift * HALF_COUNT;
	return mantissa << shift;
}

uint64_t rtb_hist_upper(uint32_t index)
{
	if (index < SUB_COUNT)
		return index;
	uint32_t shift = index / HALF_COUNT - 1;
	return rtb_hist_lower(index) + ((uint64_t)1 << shift) - 1;
}

uint32_t rtb_warmup_for(uint64_t n)
{
	uint64_t w = n / 100;

	if (w < 10)
		w = 10;
	if (w > n / 2)
		w = n / 2;
	return (uint32_t)(w > UINT32_MAX ? UINT32_MAX : w);
}

void rtb_metric_param(struct rtb_metric *m, const char *key, int64_t value)
{
	if (m->nparams < RTB_PARAMS_MAX) {
		m->params[m->nparams].key = key;
		m->params[m->nparams].str = NULL;
		m->params[m->nparams].num = value;
		m->nparams++;
	}
}

void rtb_metric_param_str(struct rtb_metric *m, const char *key, const char *value)
{
	if (m->nparams < RTB_PARAMS_MAX) {
		m->params[m->nparams].key = key;
		m->params[m->nparams].str = value;
		m->params[m->nparams].num = 0;
		m->nparams++;
	}
}

static void touch(void *p, size_t bytes)
{
	rtb_memset(p, 0, bytes);
}

int rtb_recorder_init(struct rtb_recorder *r, const struct rtb_metric *m, uint32_t warmup,
		      uint32_t raw_max)
{
	rtb_memset(r, 0, sizeof(*r));
	r->m = *m;
	r->warmup_target = warmup;
	r->raw_max = raw_max;
	r->hist = rtb_port_mem_alloc(sizeof(uint64_t) * RTB_HIST_BUCKETS);
	if (r->hist == NULL)
		return RTB_E_NOMEM;
	if (raw_max > 0) {
		r->raw = rtb_port_mem_alloc(sizeof(uint64_t) * raw_max);
		if (r->raw == NULL) {
			rtb_port_mem_free(r->hist);
			r->hist = NULL;
			return RTB_E_NOMEM;
		}
		touch(r->raw, sizeof(uint64_t) * raw_max);
	}
	touch(r->hist, sizeof(uint64_t) * RTB_HIST_BUCKETS);
	rtb_recorder_reset(r);
	return RTB_OK;
}

int rtb_recorder_init_pair(struct rtb_recorder *a, const struct rtb_metric *ma,
			   struct rtb_recorder *b, const struct rtb_metric *mb, uint32_t warmup,
			   uint32_t raw_max)
{
	int rc = rtb_recorder_init(a, ma, warmup, raw_max);

	if (rc != RTB_OK) {
		rtb_memset(b, 0, sizeof(*b));
		return rc;
	}
	rc = rtb_recorder_init(b, mb, warmup, raw_max);
	if (rc != RTB_OK)
		rtb_recorder_free(a);
	return rc;
}

void rtb_recorder_free(struct rtb_recorder *r)
{
	if (r->hist != NULL)
		rtb_port_mem_free(r->hist);
	if (r->raw != NULL)
		rtb_port_mem_free(r->raw);
	r->hist = NULL;
	r->raw = NULL;
}

void rtb_recorder_reset(struct rtb_recorder *r)
{
	r->origin_ticks = rtb_port_counter_read();
	r->count = 0;
	r->min = UINT64_MAX;
	r->max = 0;
	r->max_index = 0;
	r->max_at_ticks = 0;
	r->sum.lo = r->sum.hi = 0;
	r->sum_sq.lo = r->sum_sq.hi = 0;
	r->clamped = 0;
	r->invalid = 0;
	r->warmup_count = 0;
	r->warmup_first = 0;
	r->warmup_min = UINT64_MAX;
	r->warmup_max = 0;
	r->warmup_sum.lo = r->warmup_sum.hi = 0;
	r->raw_len = 0;
	r->nworst = 0;
	r->nspread = 0;
	r->spread_stride = 1;
	if (r->hist != NULL)
		rtb_memset(r->hist, 0, sizeof(uint64_t) * RTB_HIST_BUCKETS);
}

/* Is a worse than b? Larger value; on a tie the earlier sample. */
static bool kept_worse(const struct rtb_kept_sample *a, const struct rtb_kept_sample *b)
{
	return a->value > b->value || (a->value == b->value && a->index < b->index);
}

static void kept_swap(struct rtb_kept_sample *a, struct rtb_kept_sample *b)
{
	struct rtb_kept_sample t = *a;
	*a = *b;
	*b = t;
}

/* The heap's root is the least bad kept sample: a new sample replaces it
 * only when worse, so the common case is one comparison. */
static void keep_worst(struct rtb_recorder *r, const struct rtb_kept_sample *s)
{
	struct rtb_kept_sample *h = r->worst;
	uint32_t i;

	if (r->nworst < RTB_KEEP_WORST) {
		i = r->nworst++;
		h[i] = *s;
		while (i > 0 && kept_worse(&h[(i - 1) / 2], &h[i])) {
			kept_swap(&h[(i - 1) / 2], &h[i]);
			i = (i - 1) / 2;
		}
		return;
	}
	if (!kept_worse(s, &h[0]))
		return;
	h[0] = *s;
	i = 0;
	for (;;) {
		uint32_t l = 2 * i + 1, rr = l + 1, least = i;
		if (l < r->nworst && kept_worse(&h[least], &h[l]))
			least = l;
		if (rr < r->nworst && kept_worse(&h[least], &h[rr]))
			least = rr;
		if (least == i)
			break;
		kept_swap(&h[i], &h[least]);
		i = least;
	}
}

/* Every stride-th sample (the caller tests the stride); when full, drop
 * every other one and double the stride, so the kept ones stay evenly
 * spread over the whole run. */
static void keep_spread(struct rtb_recorder *r, const struct rtb_kept_sample *s)
{
	if (r->nspread == RTB_KEEP_SPREAD) {
		for (uint32_t i = 0; i < RTB_KEEP_SPREAD / 2; i++)
			r->spread[i] = r->spread[2 * i];
		r->nspread = RTB_KEEP_SPREAD / 2;
		r->spread_stride *= 2;
		if ((s->index & (r->spread_stride - 1)) != 0)
			return;
	}
	r->spread[r->nspread++] = *s;
}

/* The body of every add, inlined into each so that a plain add pays no
 * extra call for the readings it does not have. */
static inline void add_sample(struct rtb_recorder *r, uint64_t value, uint64_t start, uint64_t stop,
			      enum rtb_span_clock clock)
{
	if (r->warmup_count < r->warmup_target) {
		if (r->warmup_count == 0)
			r->warmup_first = value;
		if (value < r->warmup_min)
			r->warmup_min = value;
		if (value > r->warmup_max)
			r->warmup_max = value;
		rtb_u128_add(&r->warmup_sum, value);
		r->warmup_count++;
		return;
	}
	if (value < r->min)
		r->min = value;
	if (value > r->max || r->count == 0) {
		r->max = value;
		r->max_index = r->count;
		r->max_at_ticks = rtb_port_counter_read() - r->origin_ticks;
	}
	rtb_u128_add(&r->sum, value);
	rtb_u128_add_square(&r->sum_sq, value);
	r->hist[rtb_hist_index(value)]++;
	if (r->raw_len < r->raw_max)
		r->raw[r->raw_len++] = value;

	/* Usually neither branch is taken: a sample no worse than the least
	 * kept one (a later sample never wins a tie), off the spread's stride
	 * (a power of two, so a mask). */
	if (r->nworst < RTB_KEEP_WORST || value > r->worst[0].value) {
		struct rtb_kept_sample s = {value, r->count, start, stop, (uint8_t)clock};
		keep_worst(r, &s);
	}
	if ((r->count & (r->spread_stride - 1)) == 0) {
		struct rtb_kept_sample s = {value, r->count, start, stop, (uint8_t)clock};
		keep_spread(r, &s);
	}
	r->count++;
}

void rtb_recorder_add_span(struct rtb_recorder *r, uint64_t value, uint64_t start, uint64_t stop,
			   enum rtb_span_clock clock)
{
	add_sample(r, value, start, stop, clock);
}

void rtb_recorder_add(struct rtb_recorder *r, uint64_t value)
{
	add_sample(r, value, 0, 0, RTB_SPAN_NONE);
}

void rtb_recorder_timed_calls(struct rtb_recorder *r)
{
	r->timed_calls = true;
}

uint64_t rtb_recorder_overhead(const struct rtb_recorder *r)
{
	return r->timed_calls ? rtb_timing.overhead_ticks : rtb_timing.inline_overhead_ticks;
}

static uint64_t less_overhead(struct rtb_recorder *r, uint64_t d)
{
	uint64_t overhead = rtb_recorder_overhead(r);

	if (d >= overhead)
		return d - overhead;
	/* Only counted once past warm-up, like the sample itself. */
	if (r->warmup_count >= r->warmup_target)
		r->clamped++;
	return 0;
}

void rtb_recorder_add_interval(struct rtb_recorder *r, uint64_t t_start, uint64_t t_stop)
{
	add_sample(r, less_overhead(r, t_stop - t_start), t_start, t_stop, RTB_SPAN_COUNTER);
}

void rtb_recorder_add_ticks(struct rtb_recorder *r, uint64_t ticks)
{
	add_sample(r, less_overhead(r, ticks), 0, 0, RTB_SPAN_NONE);
}

uint32_t rtb_recorder_worst(const struct rtb_recorder *r, struct rtb_kept_sample *out, uint32_t n)
{
	uint32_t k = RTB_MIN(n, r->nworst);
	bool taken[RTB_KEEP_WORST] = {false};

	/* selection over at most RTB_KEEP_WORST entries, after the run */
	for (uint32_t o = 0; o < k; o++) {
		uint32_t best = RTB_KEEP_WORST;
		for (uint32_t i = 0; i < r->nworst; i++) {
			if (taken[i])
				continue;
			if (best == RTB_KEEP_WORST || kept_worse(&r->worst[i], &r->worst[best]))
				best = i;
		}
		taken[best] = true;
		out[o] = r->worst[best];
	}
	return k;
}

uint32_t rtb_recorder_near(const struct rtb_recorder *r, uint64_t median,
			   struct rtb_kept_sample *out, uint32_t n)
{
	uint32_t k = RTB_MIN(n, r->nspread);
	bool taken[RTB_KEEP_SPREAD] = {false};

	for (uint32_t o = 0; o < k; o++) {
		uint32_t best = RTB_KEEP_SPREAD;
		uint64_t best_d = 0;
		for (uint32_t i = 0; i < r->nspread; i++) {
			if (taken[i])
				continue;
			uint64_t v = r->spread[i].value;
			uint64_t d = v > median ? v - median : median - v;
			if (best == RTB_KEEP_SPREAD || d < best_d) {
				best = i;
				best_d = d;
			}
		}
		taken[best] = true;
		out[o] = r->spread[best];
	}
	return k;
}

void rtb_recorder_add_invalid(struct rtb_recorder *r)
{
	r->invalid++;
}

uint64_t rtb_recorder_percentile(const struct rtb_recorder *r, double q)
{
	if (r->count == 0)
		return 0;
	/* rank: the smallest k (1-based) with k >= q * count */
	double want = q * (double)r->count;
	uint64_t rank = (uint64_t)want;
	if ((double)rank < want)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > r->count)
		rank = r->count;
	uint64_t seen = 0;
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++) {
		seen += r->hist[i];
		if (seen >= rank) {
			uint64_t lo = rtb_hist_lower(i), hi = rtb_hist_upper(i);
			uint64_t mid = lo + (hi - lo) / 2;
			if (mid < r->min)
				mid = r->min;
			if (mid > r->max)
				mid = r->max;
			return mid;
		}
	}
	return r->max;
}

double rtb_recorder_mean(const struct rtb_recorder *r)
{
	if (r->count == 0)
		return 0.0;
	return rtb_u128_to_double(r->sum) / (double)r->count;
}

/* v / d for a quotient known to fit 64 bits; *rem receives v % d. */
static uint64_t u128_div(struct rtb_u128 v, uint64_t d, uint64_t *rem)
{
	uint64_t q = 0, r = 0;

	for (int i = 127; i >= 0; i--) {
		uint64_t bit = i >= 64 ? (v.hi >> (i - 64)) & 1u : (v.lo >> i) & 1u;
		uint64_t carry = r >> 63;
		r = (r << 1) | bit;
		q <<= 1;
		if (carry != 0 || r >= d) {
			r -= d;
			q |= 1u;
		}
	}
	*rem = r;
	return q;
}

/* v * m modulo 2^128. */
static struct rtb_u128 u128_mul(struct rtb_u128 v, uint64_t m)
{
	uint64_t a = v.lo & 0xffffffffu, b = v.lo >> 32;
	uint64_t c = m & 0xffffffffu, d = m >> 32;
	uint64_t ac = a * c, ad = a * d, bc = b * c, bd = b * d;
	uint64_t mid = (ac >> 32) + (ad & 0xffffffffu) + (bc & 0xffffffffu);
	struct rtb_u128 out;

	out.lo = (ac & 0xffffffffu) | (mid << 32);
	out.hi = bd + (ad >> 32) + (bc >> 32) + (mid >> 32) + v.hi * m;
	return out;
}

double rtb_recorder_stddev(const struct rtb_recorder *r)
{
	if (r->count < 2)
		return 0.0;
	/* sum_sq / n - mean^2 in doubles cancels catastrophically when the
	 * spread is small next to the mean (1e9 +- 10 gives 0). Instead take
	 * the squares about m = floor(mean) exactly, modulo 2^128:
	 *   D = sum((x - m)^2) = sum_sq - m * (sum + rem),  rem = sum - n * m
	 * which is exact whenever D itself fits 128 bits, even if sum_sq
	 * wrapped. Then sum((x - mean)^2) = D - rem^2 / n. */
	uint64_t rem;
	uint64_t m = u128_div(r->sum, r->count, &rem);
	struct rtb_u128 t = r->sum;
	rtb_u128_add(&t, rem);
	t = u128_mul(t, m);
	struct rtb_u128 dev = {r->sum_sq.lo - t.lo, r->sum_sq.hi - t.hi - (r->sum_sq.lo < t.lo)};
	double n = (double)r->count;
	double sq = rtb_u128_to_double(dev) - (double)rem * (double)rem / n;
	if (sq < 0.0)
		sq = 0.0;
	/* sample standard deviation */
	return rtb_sqrt(sq / (n - 1.0));
}
