/* SPDX-License-Identifier: Apache-2.0 */
/* errno values turned into the contract's codes (posix_error.h). */
#include "posix_error.h"

#include <errno.h>

#include "rtb_port.h"

int posix_error(int err)
{
	switch (err) {
	case 0:
		return RTB_OK;
	case ENOMEM:
	case ENOSPC:
	case EMFILE:
	case ENFILE:
		return RTB_E_NOMEM;
	case EAGAIN:
		return RTB_E_AGAIN;
	case EINVAL:
	case ERANGE:
		return RTB_E_INVALID;
	case ETIMEDOUT:
		return RTB_E_TIMEOUT;
	case EPERM:
	case EACCES:
		return RTB_E_PERM;
	case EBUSY:
		return RTB_E_BUSY;
	case EDEADLK:
		return RTB_E_DEADLOCK;
	case ENOSYS:
	case ENOTSUP:
		return RTB_E_UNSUPPORTED;
	default:
		return RTB_E_OS;
	}
}
