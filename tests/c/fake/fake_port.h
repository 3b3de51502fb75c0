/* SPDX-License-Identifier: Apache-2.0 */
/* Fake port controls for the core's unit tests. */
#ifndef RTB_FAKE_PORT_H
#define RTB_FAKE_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rtb_port.h"

extern char *fake_console; /* everything written to the console, NUL-terminated */
extern size_t fake_console_len;
extern bool fake_stop; /* what rtb_port_stop_requested() answers */

void fake_reset(void);
void fake_set_caps(uint32_t caps);

#endif
