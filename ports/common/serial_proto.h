/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The serial line protocol (docs/targets.md, "The serial line protocol"):
 * the part every side that answers the host shares, whatever its OS. The
 * Linux guest agent (ports/posix/guest/agent.c) and the console of every
 * firmware image (ports/common/fw_console.c) both build it.
 *
 * It encodes the target's control lines and splits and decodes the host's
 * requests; what a request does, and how bytes reach the line, stay with the
 * caller. A field is percent-encoded: every byte outside '!'..'~', and '%'
 * itself, is written %XX, so a field never holds a space or a newline.
 *
 * Freestanding C: no C library call, so it builds for a hosted Linux program
 * (glibc or musl, static, cross) and for a board with picolibc alike. The
 * writer is called from the caller's context only; any locking is the
 * caller's.
 */
#ifndef RTB_SERIAL_PROTO_H
#define RTB_SERIAL_PROTO_H

#include <stddef.h>

/* The protocol version the `ready` line announces. */
#define RTB_SERIAL_PROTOCOL_VERSION 1
/* How many bytes of text one `#rtb data` or `#rtb err` line carries. */
#define RTB_SERIAL_DATA_CHUNK 96u

/* Writes len bytes to the line, all of them. */
typedef void rtb_serial_write_fn(const char *buf, size_t len);

/* `#rtb <word> <text>` lines, the text split into pieces of
 * RTB_SERIAL_DATA_CHUNK bytes, each encoded; one line when len is 0. */
void rtb_serial_put_chunks(rtb_serial_write_fn *out, const char *word, const char *text,
			   size_t len);

/* `#rtb ready <version> <release> <machine>`. */
void rtb_serial_put_ready(rtb_serial_write_fn *out, const char *release, const char *machine);

/* `#rtb fail <err> <text>`, or `#rtb fail <err> <text>: <detail>` when
 * detail is not NULL (text and detail encoded, ": " as it is). */
void rtb_serial_put_fail(rtb_serial_write_fn *out, int err, const char *text, const char *detail);

/* `#rtb exit <status>`. */
void rtb_serial_put_exit(rtb_serial_write_fn *out, int status);

/* `#rtb done`. */
void rtb_serial_put_done(rtb_serial_write_fn *out);

/* Splits a request line (what follows `#rtb `) in place into at most max
 * fields separated by spaces, each decoded; returns how many. */
int rtb_serial_split(char *line, char **fields, int max);

#endif
