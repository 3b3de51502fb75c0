/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The L/M/H mutex sequence (rtb/mut_pi.h), looping form: L, M and H are
 * created once at relative priorities 1, 2 and 3 and suspend themselves;
 * each iteration the controller (priority 0) resumes L, which locks the
 * mutex, resumes H (H preempts, takes t_h_lock and requests the mutex, and
 * blocks), takes t_l_run as its first action after H blocked (L now runs
 * boosted), resumes M, takes t_l_unlock and unlocks; H takes t_h_acquired
 * as soon as its lock returns, then releases the mutex; M runs last. With
 * real-time scheduling all three are done when the controller runs again;
 * rtb_ctx_settle() waits (boundedly) when they are not, and that iteration
 * is invalid.
 */
#include "rtb/mut_pi.h"

/* All scenario threads share one CPU and only our own calls make one of
 * them ready, so a plain increment cannot be interleaved. */
void rtb_pi_mark(struct rtb_pi_shared *sh, uint32_t *event)
{
	uint32_t n = sh->seq + 1;

	sh->seq = n;
	*(volatile uint32_t *)event = n;
}

void rtb_pi_h_request_release(struct rtb_pi_shared *sh)
{
	rtb_pi_mark(sh, &sh->ev.h_request);
	sh->t_h_lock = rtb_port_counter_read();
	int rc = rtb_port_mutex_lock(sh->mutex);
	sh->t_h_acquired = rtb_port_counter_read();
	if (rc == RTB_OK) {
		rtb_pi_mark(sh, &sh->ev.h_acquired);
		rtb_port_mutex_unlock(sh->mutex);
		rtb_pi_mark(sh, &sh->ev.h_released);
	} else {
		sh->rc = rc;
	}
}

static void loop_high(void *arg)
{
	struct rtb_pi_shared *sh = arg;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		rtb_pi_h_request_release(sh);
		sh->h_done++;
	}
}

static void loop_medium(void *arg)
{
	struct rtb_pi_shared *sh = arg;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		rtb_pi_mark(sh, &sh->ev.m_ran);
		sh->m_done++;
	}
}

static void loop_low(void *arg)
{
	struct rtb_pi_shared *sh = arg;

	for (;;) {
		rtb_port_thread_suspend_self();
		if (sh->stop)
			return;
		int rc = rtb_port_mutex_lock(sh->mutex);
		if (rc != RTB_OK) {
			/* let H and M finish their iteration anyway */
			sh->rc = rc;
			rtb_port_thread_resume(sh->h);
			rtb_port_thread_resume(sh->m);
			sh->l_done++;
			continue;
		}
		rtb_pi_mark(sh, &sh->ev.l_locked);
		rtb_pi_mark(sh, &sh->ev.h_ready);
		rtb_port_thread_resume(sh->h);
		sh->t_l_run = rtb_port_counter_read();
		rtb_pi_mark(sh, &sh->ev.m_ready);
		rtb_port_thread_resume(sh->m);
		rtb_pi_mark(sh, &sh->ev.l_unlock);
		sh->t_l_unlock = rtb_port_counter_read();
		rtb_port_mutex_unlock(sh->mutex);
		sh->l_done++;
	}
}

int rtb_pi_loop_start(struct rtb_pi_shared *sh, enum rtb_mutex_protocol protocol)
{
	static const struct rtb_thread_attr attr_h = {.name = "mut-high", .prio = RTB_PI_PRIO_H};
	static const struct rtb_thread_attr attr_m = {.name = "mut-medium", .prio = RTB_PI_PRIO_M};
	static const struct rtb_thread_attr attr_l = {.name = "mut-low", .prio = RTB_PI_PRIO_L};
	int rc;

	rtb_memset(sh, 0, sizeof(*sh));
	sh->ev.protocol = protocol;
	rc = rtb_port_mutex_create(&sh->mutex, protocol, 0);
	if (rc != RTB_OK)
		return rc;
	rc = rtb_port_thread_create(&sh->h, &attr_h, loop_high, sh);
	if (rc == RTB_OK) {
		rc = rtb_port_thread_create(&sh->m, &attr_m, loop_medium, sh);
		if (rc == RTB_OK) {
			rc = rtb_port_thread_create(&sh->l, &attr_l, loop_low, sh);
			if (rc != RTB_OK) {
				sh->stop = true;
				rtb_port_thread_resume(sh->m);
				rtb_port_thread_delete(sh->m);
			}
		}
		if (rc != RTB_OK) {
			sh->stop = true;
			rtb_port_thread_resume(sh->h);
			rtb_port_thread_delete(sh->h);
		}
	}
	if (rc != RTB_OK)
		rtb_port_mutex_delete(sh->mutex);
	return rc;
}

bool rtb_pi_loop_once(const struct rtb_ctx *ctx, struct rtb_pi_shared *sh, char *reason, size_t len)
{
	uint32_t l = sh->l_done, h = sh->h_done, m = sh->m_done;
	enum rtb_mutex_protocol protocol = sh->ev.protocol;

	rtb_memset(&sh->ev, 0, sizeof(sh->ev));
	sh->ev.protocol = protocol;
	sh->seq = 0;
	rtb_port_thread_resume(sh->l);
	/* with real-time scheduling all three are done already */
	bool ok = rtb_ctx_settle(ctx, &sh->l_done, l + 1);
	ok = rtb_ctx_settle(ctx, &sh->h_done, h + 1) && ok;
	ok = rtb_ctx_settle(ctx, &sh->m_done, m + 1) && ok;
	struct rtb_mut_pi_obs ev = sh->ev;
	bool order = rtb_check_mut_pi(&ev, reason, len) == RTB_PASS;
	if (!ok)
		rtb_fmt(reason, len, "a thread did not run when made ready");
	return ok && order;
}

int rtb_pi_loop_stop(struct rtb_pi_shared *sh)
{
	sh->stop = true;
	rtb_port_thread_resume(sh->l);
	rtb_port_thread_resume(sh->m);
	rtb_port_thread_resume(sh->h);
	rtb_port_thread_delete(sh->l);
	rtb_port_thread_delete(sh->m);
	rtb_port_thread_delete(sh->h);
	rtb_port_mutex_delete(sh->mutex);
	return sh->rc;
}
