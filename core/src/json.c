/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A streaming JSON writer. Output is buffered and handed to the writer
 * function (the port's console by default) whenever the buffer fills and at
 * the end of each record, so records of any size need only a small buffer.
 * Strings are escaped per RFC 8259; non-finite doubles become null.
 */
#include "rtb/core.h"

static void put(struct rtb_json *j, char c)
{
	if (j->len == sizeof(j->buf))
		rtb_json_flush(j);
	j->buf[j->len++] = c;
}

static void puts_raw(struct rtb_json *j, const char *s)
{
	while (*s != '\0')
		put(j, *s++);
}

void rtb_json_init(struct rtb_json *j)
{
	j->len = 0;
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
	if (j->write == NULL)
		j->write = rtb_port_console_write;
}

void rtb_json_flush(struct rtb_json *j)
{
	if (j->len > 0)
		(void)j->write(j->buf, j->len);
	j->len = 0;
}

void rtb_json_end_line(struct rtb_json *j)
{
	put(j, '\n');
	rtb_json_flush(j);
	j->depth = 0;
	j->first[0] = true;
	j->after_key = false;
}

/* Comma handling: a value directly after a key needs none; otherwise every
 * element but the first of its container is preceded by one. */
static void before_value(struct rtb_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		put(j, ',');
	j->first[j->depth] = false;
}

static void open_container(struct rtb_json *j, char c)
{
	before_value(j);
	put(j, c);
	if (j->depth + 1 < RTB_JSON_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_container(struct rtb_json *j, char c)
{
	put(j, c);
	if (j->depth > 0)
		j->depth--;
}

void rtb_json_obj_begin(struct rtb_json *j)
{
	open_container(j, '{');
}

void rtb_json_obj_end(struct rtb_json *j)
{
	close_container(j, '}');
}

void rtb_json_arr_begin(struct rtb_json *j)
{
	open_container(j, '[');
}

void rtb_json_arr_end(struct rtb_json *j)
{
	close_container(j, ']');
}

static void string_body(struct rtb_json *j, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	put(j, '"');
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			put(j, '\\');
			put(j, (char)c);
		} else if (c == '\n') {
			puts_raw(j, "\\n");
		} else if (c == '\t') {
			puts_raw(j, "\\t");
		} else if (c == '\r') {
			puts_raw(j, "\\r");
		} else if (c < 0x20 || c == 0x7f) {
			puts_raw(j, "\\u00");
			put(j, hex[c >> 4]);
			put(j, hex[c & 15]);
		} else {
			put(j, (char)c);
		}
	}
	put(j, '"');
}

void rtb_json_key(struct rtb_json *j, const char *key)
{
	before_value(j);
	string_body(j, key);
	put(j, ':');
	j->after_key = true;
}

void rtb_json_str(struct rtb_json *j, const char *s)
{
	before_value(j);
	if (s == NULL) {
		puts_raw(j, "null");
		return;
	}
	string_body(j, s);
}

static void digits_u64(struct rtb_json *j, uint64_t v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		put(j, tmp[--n]);
}

void rtb_json_u64(struct rtb_json *j, uint64_t v)
{
	before_value(j);
	digits_u64(j, v);
}

void rtb_json_i64(struct rtb_json *j, int64_t v)
{
	before_value(j);
	if (v < 0) {
		put(j, '-');
		digits_u64(j, (uint64_t)0 - (uint64_t)v);
	} else {
		digits_u64(j, (uint64_t)v);
	}
}

void rtb_json_u128(struct rtb_json *j, struct rtb_u128 v)
{
	char tmp[48];

	before_value(j);
	rtb_u128_to_dec(v, tmp);
	puts_raw(j, tmp);
}

void rtb_json_dbl(struct rtb_json *j, double v)
{
	before_value(j);
	if (v != v || v - v != 0.0) { /* NaN, or infinite (inf - inf is NaN) */
		puts_raw(j, "null");
		return;
	}
	if (v < 0) {
		put(j, '-');
		v = -v;
	}
	if (v < 1e15) {
		/* fixed point, three decimals, rounded half up. The integer part
		 * and the fraction are split first (both exact below 2^53), as
		 * v * 1000 would round away the digits of large values. */
		uint64_t whole = (uint64_t)v;
		uint64_t frac = (uint64_t)((v - (double)whole) * 1000.0 + 0.5);
		if (frac >= 1000) {
			whole++;
			frac -= 1000;
		}
		digits_u64(j, whole);
		put(j, '.');
		put(j, (char)('0' + frac / 100));
		put(j, (char)('0' + frac / 10 % 10));
		put(j, (char)('0' + frac % 10));
		return;
	}
	/* scientific: d.dddddde+N */
	int exp = 0;
	while (v >= 10.0) {
		v /= 10.0;
		exp++;
	}
	uint64_t mant = (uint64_t)(v * 1e6 + 0.5);
	if (mant >= 10000000u) {
		mant /= 10;
		exp++;
	}
	digits_u64(j, mant / 1000000u);
	put(j, '.');
	char frac[7];
	uint64_t f = mant % 1000000u;
	for (int i = 5; i >= 0; i--) {
		frac[i] = (char)('0' + f % 10);
		f /= 10;
	}
	frac[6] = '\0';
	puts_raw(j, frac);
	put(j, 'e');
	digits_u64(j, (uint64_t)exp);
}

void rtb_json_bool(struct rtb_json *j, bool v)
{
	before_value(j);
	puts_raw(j, v ? "true" : "false");
}

void rtb_json_null(struct rtb_json *j)
{
	before_value(j);
	puts_raw(j, "null");
}

void rtb_json_kstr(struct rtb_json *j, const char *key, const char *s)
{
	rtb_json_key(j, key);
	rtb_json_str(j, s);
}

void rtb_json_ku64(struct rtb_json *j, const char *key, uint64_t v)
{
	rtb_json_key(j, key);
	rtb_json_u64(j, v);
}

void rtb_json_ki64(struct rtb_json *j, const char *key, int64_t v)
{
	rtb_json_key(j, key);
	rtb_json_i64(j, v);
}

void rtb_json_kdbl(struct rtb_json *j, const char *key, double v)
{
	rtb_json_key(j, key);
	rtb_json_dbl(j, v);
}

void rtb_json_kbool(struct rtb_json *j, const char *key, bool v)
{
	rtb_json_key(j, key);
	rtb_json_bool(j, v);
}
