/* SPDX-License-Identifier: Apache-2.0 */
/* The names of the port contract's error codes: see error_text.h. */
#include "error_text.h"

#include "rtb_port.h"

const char *rtb_error_text(int err, const char *nomem, const char *other)
{
	switch (err) {
	case RTB_OK:
		return "ok";
	case RTB_E_UNSUPPORTED:
		return "not supported";
	case RTB_E_NOMEM:
		return nomem;
	case RTB_E_INVALID:
		return "invalid argument";
	case RTB_E_TIMEOUT:
		return "timed out";
	case RTB_E_PERM:
		return "not permitted";
	case RTB_E_AGAIN:
		return "would block";
	case RTB_E_BUSY:
		return "busy";
	case RTB_E_DEADLOCK:
		return "deadlock";
	default:
		return other;
	}
}
