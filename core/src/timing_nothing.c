/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The call the calibration times (rtb/sample.h): it returns its argument
 * and nothing else. In a file of its own so that the compiler, which sees
 * only its declaration where it is called, treats it like any port call
 * (every caller-saved register clobbered): the code around the call is then
 * the same as around an operation's.
 */
#include "rtb/core.h"

int rtb_timing_nothing(int value)
{
	return value;
}
