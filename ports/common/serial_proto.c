/* SPDX-License-Identifier: Apache-2.0 */
/* The serial line protocol's shared part: see serial_proto.h. */
#include "serial_proto.h"

/* Encoded bytes gathered before one write: small, since a board's fatal
 * handler writes an error line on whatever stack it runs on. */
#define ENCODE_BUF_BYTES 64u

static size_t text_len(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

static void put_str(rtb_serial_write_fn *write, const char *s)
{
	write(s, text_len(s));
}

static void put_encoded(rtb_serial_write_fn *write, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	char out[ENCODE_BUF_BYTES];
	size_t used = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (used + 3 > sizeof(out)) {
			write(out, used);
			used = 0;
		}
		if (c > ' ' && c <= '~' && c != '%') {
			out[used++] = (char)c;
		} else {
			out[used++] = '%';
			out[used++] = hex[c >> 4];
			out[used++] = hex[c & 15];
		}
	}
	if (used > 0)
		write(out, used);
}

/* The decimal digits of v, with a '-' when it is negative. */
static void put_int(rtb_serial_write_fn *write, int v)
{
	char digits[12];
	size_t at = sizeof(digits);
	unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;

	do {
		digits[--at] = (char)('0' + u % 10u);
		u /= 10u;
	} while (u != 0);
	if (v < 0)
		digits[--at] = '-';
	write(digits + at, sizeof(digits) - at);
}

void rtb_serial_put_chunks(rtb_serial_write_fn *write, const char *word, const char *text,
			   size_t len)
{
	do {
		size_t n = len < RTB_SERIAL_DATA_CHUNK ? len : RTB_SERIAL_DATA_CHUNK;
		put_str(write, "#rtb ");
		put_str(write, word);
		put_str(write, " ");
		put_encoded(write, text, n);
		put_str(write, "\n");
		text += n;
		len -= n;
	} while (len > 0);
}

void rtb_serial_put_ready(rtb_serial_write_fn *write, const char *release, const char *machine)
{
	put_str(write, "#rtb ready ");
	put_int(write, RTB_SERIAL_PROTOCOL_VERSION);
	put_str(write, " ");
	put_encoded(write, release, text_len(release));
	put_str(write, " ");
	put_encoded(write, machine, text_len(machine));
	put_str(write, "\n");
}

void rtb_serial_put_fail(rtb_serial_write_fn *write, int err, const char *text, const char *detail)
{
	put_str(write, "#rtb fail ");
	put_int(write, err);
	put_str(write, " ");
	put_encoded(write, text, text_len(text));
	if (detail != NULL) {
		put_str(write, ": ");
		put_encoded(write, detail, text_len(detail));
	}
	put_str(write, "\n");
}

void rtb_serial_put_exit(rtb_serial_write_fn *write, int status)
{
	put_str(write, "#rtb exit ");
	put_int(write, status);
	put_str(write, "\n");
}

void rtb_serial_put_done(rtb_serial_write_fn *write)
{
	put_str(write, "#rtb done\n");
}

/* ---- requests ------------------------------------------------------------ */

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Decodes a percent-encoded field in place; a '%' not followed by two hex
 * digits stays as it is. */
static void decode(char *s)
{
	char *out = s;

	for (char *in = s; *in != '\0'; in++) {
		int hi, lo;
		if (*in == '%' && (hi = hex_value(in[1])) >= 0 && (lo = hex_value(in[2])) >= 0) {
			*out++ = (char)(hi * 16 + lo);
			in += 2;
		} else {
			*out++ = *in;
		}
	}
	*out = '\0';
}

int rtb_serial_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line;

	while (*p != '\0' && n < max) {
		while (*p == ' ')
			*p++ = '\0';
		if (*p == '\0')
			break;
		fields[n++] = p;
		while (*p != '\0' && *p != ' ')
			p++;
	}
	while (*p == ' ')
		*p++ = '\0';
	for (int i = 0; i < n; i++)
		decode(fields[i]);
	return n;
}
