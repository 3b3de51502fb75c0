/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The serial line protocol's shared part (ports/common/serial_proto.c), which
 * the guest agent and the FreeRTOS image both build: the control lines as
 * docs/targets.md writes them, percent-encoding of every byte outside
 * '!'..'~' and of '%', text split into lines of RTB_SERIAL_DATA_CHUNK bytes,
 * and requests split into decoded fields; every byte value goes through an
 * encode and decode unchanged.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "serial_proto.h"

static char line[8192];
static size_t line_len;

static void capture(const char *buf, size_t len)
{
	if (line_len + len >= sizeof(line)) {
		check_failures++;
		fprintf(stderr, "captured output too long\n");
		return;
	}
	memcpy(line + line_len, buf, len);
	line_len += len;
	line[line_len] = '\0';
}

static void reset(void)
{
	line_len = 0;
	line[0] = '\0';
}

#define CHECK_LINE(want)                                                                          \
	do {                                                                                      \
		if (strcmp(line, want) != 0) {                                                    \
			fprintf(stderr, "%s:%d: wrote \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
				line, want);                                                      \
			check_failures++;                                                         \
		}                                                                                 \
	} while (0)

static void test_control_lines(void)
{
	reset();
	rtb_serial_put_ready(capture, "6.1.0-18 #1 SMP", "x86_64");
	CHECK_LINE("#rtb ready 1 6.1.0-18%20#1%20SMP x86_64\n");
	reset();
	rtb_serial_put_fail(capture, 2, "/no such", "No such file or directory");
	CHECK_LINE("#rtb fail 2 /no%20such: No%20such%20file%20or%20directory\n");
	reset();
	rtb_serial_put_fail(capture, 38, "100% off", NULL);
	CHECK_LINE("#rtb fail 38 100%25%20off\n");
	reset();
	rtb_serial_put_exit(capture, 0);
	rtb_serial_put_exit(capture, -9);
	rtb_serial_put_exit(capture, INT_MIN);
	rtb_serial_put_done(capture);
	char want[96];
	snprintf(want, sizeof(want), "#rtb exit 0\n#rtb exit -9\n#rtb exit %d\n#rtb done\n",
		 INT_MIN);
	CHECK_LINE(want);
}

static void test_chunks(void)
{
	char text[2 * RTB_SERIAL_DATA_CHUNK + 5];

	reset();
	rtb_serial_put_chunks(capture, "data", "", 0);
	CHECK_LINE("#rtb data \n");

	/* Long enough to cross the encoder's buffer within one line: every byte
	 * an escape. */
	memset(text, '\n', sizeof(text));
	reset();
	rtb_serial_put_chunks(capture, "err", text, sizeof(text));
	int lines = 0;
	size_t escapes = 0;
	for (char *p = line; (p = strchr(p, '\n')) != NULL; p++)
		lines++;
	for (char *p = line; (p = strstr(p, "%0A")) != NULL; p += 3)
		escapes++;
	CHECK(lines == 3);
	CHECK_EQ_U64(escapes, sizeof(text));
	CHECK(strncmp(line, "#rtb err %0A", 12) == 0);
	size_t first = (size_t)(strchr(line, '\n') - line);
	CHECK_EQ_U64(first, strlen("#rtb err ") + 3 * RTB_SERIAL_DATA_CHUNK);
}

static void test_split(void)
{
	char req[] = "  run --scenario a%20b%25  %zz 50%2 x%41 ";
	char *f[8];

	int n = rtb_serial_split(req, f, 8);
	CHECK(n == 6);
	CHECK(strcmp(f[0], "run") == 0);
	CHECK(strcmp(f[1], "--scenario") == 0);
	CHECK(strcmp(f[2], "a b%") == 0);
	CHECK(strcmp(f[3], "%zz") == 0); /* not an escape: kept */
	CHECK(strcmp(f[4], "50%2") == 0);
	CHECK(strcmp(f[5], "xA") == 0);

	char few[] = "read /a b c";
	n = rtb_serial_split(few, f, 2);
	CHECK(n == 2);
	CHECK(strcmp(f[0], "read") == 0);
	CHECK(strcmp(f[1], "/a") == 0);

	char none[] = "   ";
	CHECK(rtb_serial_split(none, f, 8) == 0);
}

static void test_every_byte_round_trips(void)
{
	char text[256];
	char *f[2];

	for (int i = 0; i < 255; i++)
		text[i] = (char)(i + 1); /* a field ends at NUL: 1..255 */
	reset();
	rtb_serial_put_chunks(capture, "data", text, 255);
	/* Each line is `#rtb data FIELD`: one field after the word. */
	char joined[256] = "";
	size_t used = 0;
	for (char *p = line; *p != '\0';) {
		char *end = strchr(p, '\n');
		CHECK(end != NULL);
		if (end == NULL)
			break;
		*end = '\0';
		CHECK(strncmp(p, "#rtb data ", 10) == 0);
		for (char *c = p + 10; *c != '\0'; c++)
			CHECK(*c > ' ' && *c <= '~');
		int n = rtb_serial_split(p + 5, f, 2);
		CHECK(n == 2 && strcmp(f[0], "data") == 0);
		if (n == 2) {
			size_t len = strlen(f[1]);
			CHECK(used + len < sizeof(joined));
			memcpy(joined + used, f[1], len);
			used += len;
		}
		p = end + 1;
	}
	CHECK_EQ_U64(used, 255);
	CHECK(memcmp(joined, text, 255) == 0);
}

int main(void)
{
	test_control_lines();
	test_chunks();
	test_split();
	test_every_byte_round_trips();
	return check_exit();
}
