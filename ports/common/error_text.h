/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The names of the port contract's error codes, for a port's
 * rtb_port_strerror() (ports/rtb_port.h). A port links error_text.c and
 * returns rtb_error_text() with its own words for the two codes whose
 * meaning depends on the OS, instead of writing the same table again.
 */
#ifndef RTB_ERROR_TEXT_H
#define RTB_ERROR_TEXT_H

/* The short English name of err: the same words on every port for the codes
 * whose meaning the contract fixes; nomem for RTB_E_NOMEM (what can run out
 * on this OS) and other for RTB_E_OS and any code the contract does not
 * define. */
const char *rtb_error_text(int err, const char *nomem, const char *other);

#endif
