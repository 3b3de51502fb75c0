/* SPDX-License-Identifier: Apache-2.0 */
/*
 * errno values turned into the contract's RTB_E_* codes, for every port whose
 * OS reports errors the POSIX way (the POSIX port on Linux, the NuttX port).
 */
#ifndef RTB_POSIX_ERROR_H
#define RTB_POSIX_ERROR_H

/* errno value -> RTB_E_* (0 -> RTB_OK) */
int posix_error(int err);

#endif /* RTB_POSIX_ERROR_H */
