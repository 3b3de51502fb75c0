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

static void put_str(rtb_serial_write_fn *out, const char *s)
{
	out(s, text_len(s));
}

static void put_encoded(rtb_serial_write_fn *out, const char *s, size_t len)
{
	static const char hex[] = "0123456789ABCDEF";
	char buf[ENCODE_BUF_BYTES];
	size_t used = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (used + 3 > sizeof(buf)) {
			out(buf, used);
			used = 0;
		}
		if (c > ' ' && c <= '~' && c != '%') {
			buf[used++] = (char)c;
		} else {
			buf[used++] = '%';
			buf[used++] = hex[c >> 4];
			buf[used++] = hex[c & 15];
		}
	}
	if (used > 0)
		out(buf, used);
}

/* The decimal digits of v, with a '-' when it is negative. */
static void put_int(rtb_serial_write_fn *out, int v)
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
	out(digits + at, sizeof(digits) - at);
}

void rtb_serial_put_chunks(rtb_serial_write_fn *out, const char *word, const char *text, size_t len)
{
	do {
		size_t n = len < RTB_SERIAL_DATA_CHUNK ? len : RTB_SERIAL_DATA_CHUNK;
		put_str(out, "#rtb ");
		put_str(out, word);
		put_str(out, " ");
		put_encoded(out, text, n);
		put_str(out, "\n");
		text += n;
		len -= n;
	} while (len > 0);
}

void rtb_serial_put_ready(rtb_serial_write_fn *out, const char *release, const char *machine)
{
	put_str(out, "#rtb ready ");
	put_int(out, RTB_SERIAL_PROTOCOL_VERSION);
	put_str(out, " ");
	put_encoded(out, release, text_len(release));
	put_str(out, " ");
	put_encoded(out, machine, text_len(machine));
	put_str(out, "\n");
}

void rtb_serial_put_fail(rtb_serial_write_fn *out, int err, const char *text, const char *detail)
{
	put_str(out, "#rtb fail ");
	put_int(out, err);
	put_str(out, " ");
	put_encoded(out, text, text_len(text));
	if (detail != NULL) {
		put_str(out, ": ");
		put_encoded(out, detail, text_len(detail));
	}
	put_str(out, "\n");
}

void rtb_serial_put_exit(rtb_serial_write_fn *out, int status)
{
	put_str(out, "#rtb exit ");
	put_int(out, status);
	put_str(out, "\n");
}

void rtb_serial_put_done(rtb_serial_write_fn *out)
{
	put_str(out, "#rtb done\n");
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
