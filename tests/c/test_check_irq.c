/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The IRQ-S-SUS search driven by synthetic interrupt sources: each source
 * is a rule "how many interrupts does a phase of N at period P lose".
 */
#include "check.h"
#include "rtb/check_irq.h"
#include "rtb/core.h"

struct source {
	/* lost interrupts for a phase of `count` at `period_ns` */
	uint64_t (*lost)(const struct source *src, uint64_t period_ns, uint64_t count);
	uint64_t threshold_ns[RTB_IRQ_LEVELS_MAX]; /* loss-free at and above, per level */
	uint64_t short_by;			   /* generated = count - short_by */
};

struct trace {
	uint64_t periods[RTB_IRQ_SEARCH_STEPS_MAX + 1];
	uint64_t counts[RTB_IRQ_SEARCH_STEPS_MAX + 1];
	uint32_t n;
};

static uint32_t level_of(const struct rtb_irq_search_config *cfg, uint64_t count)
{
	for (uint32_t k = 0; k < cfg->nlevels; k++) {
		if (cfg->counts[k] == count)
			return k;
	}
	return 0;
}

static const struct rtb_irq_search_config *current_cfg;

static uint64_t lose_everything(const struct source *src, uint64_t period_ns, uint64_t count)
{
	(void)src;
	(void)period_ns;
	return count;
}

static uint64_t never_lose(const struct source *src, uint64_t period_ns, uint64_t count)
{
	(void)src;
	(void)period_ns;
	(void)count;
	return 0;
}

/* Loses a share that grows as the period shrinks below the level's threshold. */
static uint64_t threshold(const struct source *src, uint64_t period_ns, uint64_t count)
{
	uint64_t t = src->threshold_ns[level_of(current_cfg, count)];

	if (period_ns >= t)
		return 0;
	uint64_t lost = count - count * period_ns / t;
	return lost > 0 ? lost : 1;
}

static struct rtb_irq_search run(const struct rtb_irq_search_config *cfg, const struct source *src,
				 struct trace *tr)
{
	struct rtb_irq_search s;
	uint64_t period, count;

	current_cfg = cfg;
	tr->n = 0;
	rtb_irq_search_init(&s, cfg);
	while (rtb_irq_search_next(&s, &period, &count)) {
		CHECK(tr->n <= RTB_IRQ_SEARCH_STEPS_MAX);
		if (tr->n > RTB_IRQ_SEARCH_STEPS_MAX)
			break;
		tr->periods[tr->n] = period;
		tr->counts[tr->n] = count;
		tr->n++;
		uint64_t lost = src->lost(src, period, count);
		uint64_t generated = count - src->short_by;
		rtb_irq_search_record(&s, generated, RTB_MIN(lost, generated));
	}
	return s;
}

static struct rtb_irq_search_config base_cfg(void)
{
	struct rtb_irq_search_config c = {
		.start_period_ns = 100000,
		.min_period_ns = 1000,
		.max_period_ns = 5000000,
		.resolution_div = 16,
		.max_backoffs = 6,
		.counts = {1000, 1000000, 100000000},
		.nlevels = 3,
	};
	return c;
}

static void check_range(const struct rtb_irq_search_config *c, const struct trace *tr)
{
	for (uint32_t i = 0; i < tr->n; i++) {
		CHECK(tr->periods[i] >= c->min_period_ns);
		CHECK(tr->periods[i] <= c->max_period_ns);
	}
}

static void test_lose_everything(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = lose_everything};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(!s.found);
	CHECK(s.lossy_at_ceiling);
	CHECK(!s.aborted);
	check_range(&c, &tr);
	/* only upwards from the start, ending at the ceiling, only small phases */
	CHECK_EQ_U64(tr.periods[0], c.start_period_ns);
	CHECK_EQ_U64(tr.periods[tr.n - 1], c.max_period_ns);
	for (uint32_t i = 0; i < tr.n; i++) {
		CHECK_EQ_U64(tr.counts[i], 1000);
		if (i > 0)
			CHECK(tr.periods[i] > tr.periods[i - 1]);
	}
	CHECK(tr.n <= 8);
}

static void test_never_lose(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = never_lose};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK(s.at_floor);
	CHECK_EQ_U64(s.result_ns, c.min_period_ns);
	CHECK_EQ_U64(s.result_count, 100000000);
	CHECK_EQ_U64(s.result_level, 2);
	CHECK(!s.confirm_failed);
	check_range(&c, &tr);
	/* 100 us halved to 1.5625 us, then the floor, then one phase per level */
	CHECK_EQ_U64(tr.periods[tr.n - 3], 1000);
	CHECK_EQ_U64(tr.counts[tr.n - 2], 1000000);
	CHECK_EQ_U64(tr.counts[tr.n - 1], 100000000);
	CHECK(tr.n <= 12);
}

static void test_threshold_below_start(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = threshold, .threshold_ns = {7300, 7300, 7300}};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK(!s.at_floor);
	CHECK(s.result_ns >= 7300);
	CHECK(s.result_ns <= 7300 + 7300 / 16 + 1);
	CHECK_EQ_U64(s.result_count, 100000000);
	check_range(&c, &tr);
	/* the large phases only ever run loss-free-candidate periods */
	for (uint32_t i = 0; i < tr.n; i++) {
		if (tr.counts[i] > 1000)
			CHECK(tr.periods[i] >= 7300);
	}
}

static void test_threshold_above_start(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = threshold, .threshold_ns = {300000, 300000, 300000}};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK(s.result_ns >= 300000);
	CHECK(s.result_ns <= 300000 + 300000 / 16 + 1);
	CHECK_EQ_U64(tr.periods[1], 200000); /* doubled after the lossy start */
	check_range(&c, &tr);
}

/* Longer phases lose at periods the short ones survived: back off. */
static void test_confirmation_backs_off(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = threshold, .threshold_ns = {5000, 9000, 9000}};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK(!s.confirm_failed);
	CHECK(s.result_ns >= 9000);
	CHECK(s.result_ns <= 9000 * 5 / 4 + 1);
	CHECK_EQ_U64(s.result_count, 100000000);
	uint32_t lossy_big = 0;
	for (uint32_t i = 0; i < tr.n; i++) {
		if (tr.counts[i] == 1000000 && tr.periods[i] < 9000)
			lossy_big++;
	}
	CHECK(lossy_big >= 1);
}

/* The largest phase never passes: the result stays at the level below. */
static void test_confirmation_fails(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = threshold, .threshold_ns = {5000, 5000, 4000000}};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK(s.confirm_failed);
	CHECK_EQ_U64(s.result_count, 1000000);
	CHECK_EQ_U64(s.result_level, 1);
	CHECK(s.result_ns >= 5000 && s.result_ns <= 5000 + 5000 / 16 + 1);
	uint32_t biggest = 0;
	for (uint32_t i = 0; i < tr.n; i++)
		biggest += tr.counts[i] == 100000000;
	CHECK_EQ_U64(biggest, c.max_backoffs + 1);
}

/* A phase that generated fewer interrupts than asked proves nothing. */
static void test_short_phase_is_not_loss_free(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct source src = {.lost = never_lose, .short_by = 1};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(!s.found);
	CHECK(s.lossy_at_ceiling);
}

static void test_single_level_and_abort(void)
{
	struct rtb_irq_search_config c = base_cfg();
	c.nlevels = 1;
	struct source src = {.lost = threshold, .threshold_ns = {20000}};
	struct trace tr;
	struct rtb_irq_search s = run(&c, &src, &tr);

	CHECK(s.found);
	CHECK_EQ_U64(s.result_count, 1000);
	for (uint32_t i = 0; i < tr.n; i++)
		CHECK_EQ_U64(tr.counts[i], 1000);

	/* aborting keeps what was found and ends the search */
	struct rtb_irq_search a;
	uint64_t p, n;
	rtb_irq_search_init(&a, &c);
	CHECK(rtb_irq_search_next(&a, &p, &n));
	rtb_irq_search_record(&a, n, 0);
	rtb_irq_search_abort(&a);
	CHECK(a.aborted);
	CHECK(!rtb_irq_search_next(&a, &p, &n));
	CHECK(!a.found); /* one loss-free halving step is not a finished level */
	CHECK_EQ_U64(a.good_ns, c.start_period_ns);
}

static void test_config_is_sanitised(void)
{
	struct rtb_irq_search_config c = {.start_period_ns = 0,
					  .min_period_ns = 0,
					  .max_period_ns = 0,
					  .resolution_div = 0,
					  .counts = {10},
					  .nlevels = 9};
	struct rtb_irq_search s;
	uint64_t p, n;

	rtb_irq_search_init(&s, &c);
	CHECK(s.cfg.min_period_ns >= 1);
	CHECK(s.cfg.max_period_ns >= s.cfg.min_period_ns);
	CHECK(s.cfg.resolution_div >= 2);
	CHECK(s.cfg.nlevels <= RTB_IRQ_LEVELS_MAX);
	CHECK(rtb_irq_search_next(&s, &p, &n));
	CHECK(p >= 1);
	CHECK(rtb_strcmp(rtb_irq_stage_name(s.stage), "halving") == 0);
}

/* The headline is the answer at the largest phase size run. */
static void test_headline(void)
{
	struct rtb_irq_search_config c = base_cfg();
	struct rtb_irq_headline h;
	struct trace tr;

	/* confirmed at every level: found at the largest */
	struct source ok = {.lost = threshold, .threshold_ns = {7300, 7300, 7300}};
	struct rtb_irq_search s = run(&c, &ok, &tr);
	rtb_irq_search_headline(&s, &h);
	CHECK(h.found);
	CHECK_EQ_U64(h.phase_count, 100000000);
	CHECK_EQ_U64(h.period_ns, s.result_ns);
	CHECK(!h.smaller_found);

	/* A recorded standard run: loss-free at 62.5 us in 1,000-interrupt
	 * phases, while every 1,000,000-interrupt phase lost interrupts up to
	 * the last back-off. The headline is "not found at 1,000,000", never
	 * the 62.5 us of the small phases. */
	c.nlevels = 2;
	c.start_period_ns = 62500;
	struct source lossy = {.lost = threshold, .threshold_ns = {62500, 10000000}};
	s = run(&c, &lossy, &tr);
	rtb_irq_search_headline(&s, &h);
	CHECK(!h.found);
	CHECK_EQ_U64(h.phase_count, 1000000);
	CHECK(h.smaller_found);
	CHECK_EQ_U64(h.smaller_count, 1000);
	CHECK_EQ_U64(h.smaller_period_ns, 62500);
	uint64_t largest = 0;
	for (uint32_t i = 0; i < tr.n; i++) {
		if (tr.counts[i] == 1000000 && tr.periods[i] > largest)
			largest = tr.periods[i];
	}
	CHECK(largest > 62500);
	CHECK_EQ_U64(h.lossy_up_to_ns, largest);

	/* the third level fails after the second passed */
	c = base_cfg();
	struct source third = {.lost = threshold, .threshold_ns = {5000, 5000, 4000000}};
	s = run(&c, &third, &tr);
	rtb_irq_search_headline(&s, &h);
	CHECK(!h.found);
	CHECK_EQ_U64(h.phase_count, 100000000);
	CHECK(h.smaller_found && h.smaller_count == 1000000);

	/* lossy everywhere at the first level */
	struct source none = {.lost = lose_everything};
	s = run(&c, &none, &tr);
	rtb_irq_search_headline(&s, &h);
	CHECK(!h.found && !h.smaller_found);
	CHECK_EQ_U64(h.phase_count, 1000);
	CHECK_EQ_U64(h.lossy_up_to_ns, c.max_period_ns);

	/* aborted before the second level ran: the first level is the answer */
	c.nlevels = 2;
	rtb_irq_search_init(&s, &c);
	uint64_t p, n;
	while (rtb_irq_search_next(&s, &p, &n) && s.level == 0)
		rtb_irq_search_record(&s, n, p < 20000 ? 1 : 0);
	rtb_irq_search_abort(&s);
	rtb_irq_search_headline(&s, &h);
	CHECK(h.found);
	CHECK_EQ_U64(h.phase_count, 1000);

	/* nothing ran */
	rtb_irq_search_init(&s, &c);
	rtb_irq_search_abort(&s);
	rtb_irq_search_headline(&s, &h);
	CHECK(!h.found && h.phase_count == 0);
}

int main(void)
{
	test_lose_everything();
	test_never_lose();
	test_threshold_below_start();
	test_threshold_above_start();
	test_confirmation_backs_off();
	test_confirmation_fails();
	test_short_phase_is_not_loss_free();
	test_single_level_and_abort();
	test_config_is_sanitised();
	test_headline();
	return check_exit();
}
