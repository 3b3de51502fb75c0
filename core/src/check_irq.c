/* SPDX-License-Identifier: Apache-2.0 */
/* IRQ-S-SUS search for the smallest loss-free period (see check_irq.h). */
#include "rtb/check_irq.h"

#include "rtb/core.h"

void rtb_irq_search_init(struct rtb_irq_search *s, const struct rtb_irq_search_config *cfg)
{
	struct rtb_irq_search_config *c = &s->cfg;

	rtb_memset(s, 0, sizeof(*s));
	rtb_memcpy(c, cfg, sizeof(*c));
	if (c->min_period_ns == 0)
		c->min_period_ns = 1;
	if (c->max_period_ns < c->min_period_ns)
		c->max_period_ns = c->min_period_ns;
	if (c->start_period_ns < c->min_period_ns)
		c->start_period_ns = c->min_period_ns;
	if (c->start_period_ns > c->max_period_ns)
		c->start_period_ns = c->max_period_ns;
	if (c->resolution_div < 2)
		c->resolution_div = 2;
	if (c->nlevels == 0)
		c->nlevels = 1;
	if (c->nlevels > RTB_IRQ_LEVELS_MAX)
		c->nlevels = RTB_IRQ_LEVELS_MAX;
	s->stage = RTB_IRQ_STAGE_DOWN;
	s->period_ns = c->start_period_ns;
}

bool rtb_irq_search_next(const struct rtb_irq_search *s, uint64_t *period_ns, uint64_t *count)
{
	if (s->stage == RTB_IRQ_STAGE_DONE)
		return false;
	*period_ns = s->period_ns;
	*count = s->cfg.counts[s->level];
	return true;
}

/* `period` was loss-free at the current level: it is the level's result. */
static void finish_level(struct rtb_irq_search *s, uint64_t period)
{
	s->found = true;
	s->result_ns = period;
	s->result_count = s->cfg.counts[s->level];
	s->result_level = s->level;
	s->at_floor = period <= s->cfg.min_period_ns;
	if (s->level + 1 < s->cfg.nlevels) {
		s->level++;
		s->stage = RTB_IRQ_STAGE_CONFIRM;
		s->backoffs = 0;
		s->period_ns = period;
	} else {
		s->stage = RTB_IRQ_STAGE_DONE;
	}
}

static void bisect_next(struct rtb_irq_search *s)
{
	uint64_t gap = s->good_ns - s->bad_ns;

	s->stage = RTB_IRQ_STAGE_BISECT;
	if (gap <= 1 || gap <= s->good_ns / s->cfg.resolution_div)
		finish_level(s, s->good_ns);
	else
		s->period_ns = s->bad_ns + gap / 2;
}

void rtb_irq_search_record(struct rtb_irq_search *s, uint64_t generated, uint64_t lost)
{
	const struct rtb_irq_search_config *c = &s->cfg;
	uint64_t p = s->period_ns;

	if (s->stage == RTB_IRQ_STAGE_DONE)
		return;
	s->steps++;
	bool clean = lost == 0 && generated >= c->counts[s->level];
	if (s->steps == 1 || s->level > s->run_level) {
		s->run_level = s->level;
		s->run_lossy_ns = 0;
	}
	if (!clean && p > s->run_lossy_ns)
		s->run_lossy_ns = p;

	switch (s->stage) {
	case RTB_IRQ_STAGE_DOWN:
		if (clean) {
			s->good_ns = p;
			if (p <= c->min_period_ns)
				finish_level(s, p);
			else
				s->period_ns = RTB_MAX(p / 2, c->min_period_ns);
		} else if (s->good_ns == 0) {
			/* lossy at the start: look upwards */
			s->bad_ns = p;
			s->stage = RTB_IRQ_STAGE_UP;
			if (p >= c->max_period_ns) {
				s->lossy_at_ceiling = true;
				s->stage = RTB_IRQ_STAGE_DONE;
			} else {
				s->period_ns = p > c->max_period_ns / 2 ? c->max_period_ns : 2 * p;
			}
		} else {
			s->bad_ns = p;
			bisect_next(s);
		}
		break;
	case RTB_IRQ_STAGE_UP:
		if (clean) {
			s->good_ns = p;
			bisect_next(s);
		} else if (p >= c->max_period_ns) {
			s->bad_ns = p;
			s->lossy_at_ceiling = true;
			s->stage = RTB_IRQ_STAGE_DONE;
		} else {
			s->bad_ns = p;
			s->period_ns = p > c->max_period_ns / 2 ? c->max_period_ns : 2 * p;
		}
		break;
	case RTB_IRQ_STAGE_BISECT:
		if (clean)
			s->good_ns = p;
		else
			s->bad_ns = p;
		bisect_next(s);
		break;
	case RTB_IRQ_STAGE_CONFIRM:
		if (clean) {
			finish_level(s, p);
		} else if (s->backoffs >= c->max_backoffs || p >= c->max_period_ns) {
			s->confirm_failed = true;
			s->stage = RTB_IRQ_STAGE_DONE;
		} else {
			s->backoffs++;
			uint64_t step = RTB_MAX(p / 4, 1);
			s->period_ns = p > c->max_period_ns - step ? c->max_period_ns : p + step;
		}
		break;
	case RTB_IRQ_STAGE_DONE:
		break;
	}
	if (s->stage != RTB_IRQ_STAGE_DONE && s->steps >= RTB_IRQ_SEARCH_STEPS_MAX)
		rtb_irq_search_abort(s);
}

void rtb_irq_search_abort(struct rtb_irq_search *s)
{
	if (s->stage != RTB_IRQ_STAGE_DONE) {
		s->aborted = true;
		s->stage = RTB_IRQ_STAGE_DONE;
	}
}

void rtb_irq_search_headline(const struct rtb_irq_search *s, struct rtb_irq_headline *h)
{
	rtb_memset(h, 0, sizeof(*h));
	if (s->steps == 0)
		return;
	h->phase_count = s->cfg.counts[s->run_level];
	if (s->found && s->result_level == s->run_level) {
		h->found = true;
		h->period_ns = s->result_ns;
		h->at_floor = s->at_floor;
		return;
	}
	h->lossy_up_to_ns = s->run_lossy_ns;
	if (s->found) {
		h->smaller_found = true;
		h->smaller_period_ns = s->result_ns;
		h->smaller_count = s->result_count;
	}
}

const char *rtb_irq_stage_name(enum rtb_irq_stage stage)
{
	switch (stage) {
	case RTB_IRQ_STAGE_DOWN:
		return "halving";
	case RTB_IRQ_STAGE_UP:
		return "doubling";
	case RTB_IRQ_STAGE_BISECT:
		return "bisecting";
	case RTB_IRQ_STAGE_CONFIRM:
		return "confirming";
	default:
		return "done";
	}
}
