/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The JSON writer and the emitter. Every line the emitter writes must be a
 * valid JSON object for a strict parser (tests/common/json_mini.h, itself
 * checked first against texts it must accept and reject), strings must
 * round-trip byte for byte, numbers must be exact (integers) or correctly
 * rounded (doubles), and records larger than the writer's buffer must come
 * out whole. Result records must agree with the recorder they describe; the
 * amortised cross-check table has no number where there was nothing to divide.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "json_mini.h"
#include "rtb/core.h"

static uint64_t rng_state = 0xbb67ae8584caa73bu;

static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

/* ---- a writer that captures into memory ---------------------------------- */

static char *cap_buf;
static size_t cap_len, cap_size;
static unsigned cap_calls;
static size_t cap_largest;

static int cap_write(const char *buf, size_t len)
{
	if (cap_len + len + 1 > cap_size) {
		cap_size = (cap_len + len + 1) * 2;
		cap_buf = realloc(cap_buf, cap_size);
	}
	memcpy(cap_buf + cap_len, buf, len);
	cap_len += len;
	cap_buf[cap_len] = '\0';
	cap_calls++;
	if (len > cap_largest)
		cap_largest = len;
	return 0;
}

static void cap_reset(struct rtb_json *j)
{
	cap_len = 0;
	cap_calls = 0;
	cap_largest = 0;
	if (cap_buf != NULL)
		cap_buf[0] = '\0';
	memset(j, 0, sizeof(*j));
	j->write = cap_write;
	rtb_json_init(j);
}

/* Parse one complete line; NULL (and a failure) if it is not valid. */
static struct jv *parse_line(const char *text, size_t len)
{
	char err[200];
	struct jv *v;

	if (len == 0 || text[len - 1] != '\n') {
		fprintf(stderr, "record does not end with a newline\n");
		check_failures++;
		return NULL;
	}
	v = jv_parse(text, len - 1, err, sizeof(err));
	if (v == NULL) {
		fprintf(stderr, "invalid JSON (%s): %.200s\n", err, text);
		check_failures++;
	}
	return v;
}

/* How far a double written by rtb_json_dbl() may be from its value: half a
 * thousandth in fixed point (plus the reader's own rounding), seven
 * significant digits in scientific notation. */
static double dbl_tolerance(double x)
{
	x = fabs(x);
	return x < 1e15 ? 0.0005 + 1e-12 + x * 0x1p-52 : x * 6e-7;
}

/* ---- the parser itself --------------------------------------------------- */

static void test_parser(void)
{
	static const char *const good[] = {
		"{}",
		"[]",
		"0",
		"-0",
		"1.5e10",
		"-1.25E-3",
		"\"\"",
		"\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"",
		"\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
		" { \"a\" : [ 1 , true , false , null , { } ] } ",
		"340282366920938463463374607431768211455",
	};
	static const char *const bad[] = {
		"",
		"{",
		"{\"a\":1,}",
		"[1,]",
		"[1 2]",
		"01",
		"-",
		"1.",
		".5",
		"1e",
		"+1",
		"NaN",
		"Infinity",
		"nul",
		"'a'",
		"\"unterminated",
		"\"raw\ttab\"",
		"\"bad \\x escape\"",
		"\"\\u12\"",
		"\"\\ud800\"",
		"\"\\udc00\"",
		"\"\xc3\"",
		"\"\xc0\xaf\"",
		"\"\xe0\x80\xaf\"",
		"\"\xed\xa0\x80\"",
		"\"\xf5\x80\x80\x80\"",
		"\"\x80\"",
		"{\"a\":1,\"a\":2}",
		"{1:2}",
		"{\"a\" 1}",
		"[1] x",
		"{} {}",
	};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(good); i++) {
		char err[200];
		struct jv *v = jv_parse(good[i], strlen(good[i]), err, sizeof(err));
		if (v == NULL) {
			fprintf(stderr, "parser rejected valid %s: %s\n", good[i], err);
			check_failures++;
		}
		jv_free(v);
	}
	for (size_t i = 0; i < RTB_ARRAY_SIZE(bad); i++) {
		struct jv *v = jv_parse(bad[i], strlen(bad[i]), NULL, 0);
		if (v != NULL) {
			fprintf(stderr, "parser accepted invalid %s\n", bad[i]);
			check_failures++;
		}
		jv_free(v);
	}
	/* decoding */
	const char *t = "\"\\u00e9\\ud83d\\ude00\\u0000x\"";
	struct jv *v = jv_parse(t, strlen(t), NULL, 0);
	CHECK(v != NULL && v->text_len == 2 + 4 + 1 + 1 &&
	      memcmp(v->text, "\xc3\xa9\xf0\x9f\x98\x80\0x", 8) == 0);
	jv_free(v);
}

/* ---- structure and commas ------------------------------------------------ */

static void test_structure(void)
{
	struct rtb_json j;

	cap_reset(&j);
	rtb_json_obj_begin(&j);
	rtb_json_ku64(&j, "a", 1);
	rtb_json_key(&j, "list");
	rtb_json_arr_begin(&j);
	rtb_json_u64(&j, 1);
	rtb_json_arr_begin(&j);
	rtb_json_arr_end(&j);
	rtb_json_obj_begin(&j);
	rtb_json_obj_end(&j);
	rtb_json_str(&j, "x");
	rtb_json_null(&j);
	rtb_json_bool(&j, true);
	rtb_json_bool(&j, false);
	rtb_json_i64(&j, -3);
	rtb_json_arr_end(&j);
	rtb_json_key(&j, "nested");
	rtb_json_obj_begin(&j);
	rtb_json_kbool(&j, "yes", true);
	rtb_json_kdbl(&j, "d", 2.5);
	rtb_json_ki64(&j, "i", -7);
	rtb_json_kstr(&j, "s", "t");
	rtb_json_key(&j, "none");
	rtb_json_str(&j, NULL);
	rtb_json_obj_end(&j);
	rtb_json_obj_end(&j);
	rtb_json_end_line(&j);
	CHECK(strcmp(cap_buf, "{\"a\":1,\"list\":[1,[],{},\"x\",null,true,false,-3],"
			      "\"nested\":{\"yes\":true,\"d\":2.500,\"i\":-7,\"s\":\"t\","
			      "\"none\":null}}\n") == 0);

	/* a second record on the same writer starts clean */
	size_t first = cap_len;
	rtb_json_obj_begin(&j);
	rtb_json_ku64(&j, "b", 2);
	rtb_json_obj_end(&j);
	rtb_json_end_line(&j);
	CHECK(strcmp(cap_buf + first, "{\"b\":2}\n") == 0);

	/* nesting up to the documented depth */
	cap_reset(&j);
	for (int d = 0; d < RTB_JSON_DEPTH - 1; d++) {
		rtb_json_arr_begin(&j);
		rtb_json_u64(&j, (uint64_t)d);
	}
	for (int d = 0; d < RTB_JSON_DEPTH - 1; d++)
		rtb_json_arr_end(&j);
	rtb_json_end_line(&j);
	struct jv *v = parse_line(cap_buf, cap_len);
	CHECK(v != NULL && v->type == JV_ARR && v->n == 2);
	jv_free(v);
}

/* ---- strings -------------------------------------------------------------- */

static void check_string_round_trip(const char *s, const char *want_json)
{
	struct rtb_json j;

	cap_reset(&j);
	rtb_json_str(&j, s);
	rtb_json_end_line(&j);
	if (want_json != NULL && (cap_len != strlen(want_json) + 1 ||
				  memcmp(cap_buf, want_json, strlen(want_json)) != 0)) {
		fprintf(stderr, "string written as %s, want %s\n", cap_buf, want_json);
		check_failures++;
	}
	struct jv *v = parse_line(cap_buf, cap_len);
	if (v != NULL) {
		CHECK(v->type == JV_STR);
		if (v->text_len != strlen(s) || memcmp(v->text, s, v->text_len) != 0) {
			fprintf(stderr, "string did not round-trip: %s\n", cap_buf);
			check_failures++;
		}
	}
	jv_free(v);
}

static void test_strings(void)
{
	check_string_round_trip("", "\"\"");
	check_string_round_trip("plain", "\"plain\"");
	check_string_round_trip("q\"uote", "\"q\\\"uote\"");
	check_string_round_trip("back\\slash", "\"back\\\\slash\"");
	check_string_round_trip("a\nb\tc\rd", "\"a\\nb\\tc\\rd\"");
	check_string_round_trip("\x01\x1f\x7f\b\f", "\"\\u0001\\u001f\\u007f\\u0008\\u000c\"");
	check_string_round_trip("/", "\"/\"");
	/* UTF-8 passes through unchanged */
	check_string_round_trip("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad",
				"\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xe4\xb8\xad\"");

	/* every ASCII byte */
	char all[128];
	for (int c = 1; c < 128; c++)
		all[c - 1] = (char)c;
	all[127] = '\0';
	check_string_round_trip(all, NULL);

	/* random mixes of specials and UTF-8 */
	static const char *const pieces[] = {
		"\"", "\\", "\n", "\x01", "a", "\xc3\xa9", "\xf0\x9f\x98\x80", "\x7f", "\t", " "};
	for (int i = 0; i < 2000; i++) {
		char s[256] = "";
		size_t n = 0;
		int count = (int)(rng() % 40);
		for (int k = 0; k < count; k++) {
			const char *p = pieces[rng() % RTB_ARRAY_SIZE(pieces)];
			memcpy(s + n, p, strlen(p) + 1);
			n += strlen(p);
		}
		check_string_round_trip(s, NULL);
	}

	/* keys are escaped like values */
	struct rtb_json j;
	cap_reset(&j);
	rtb_json_obj_begin(&j);
	rtb_json_kstr(&j, "k\"e\\y\n", "v");
	rtb_json_obj_end(&j);
	rtb_json_end_line(&j);
	struct jv *v = parse_line(cap_buf, cap_len);
	CHECK(v != NULL && jv_str(jv_get(v, "k\"e\\y\n")) != NULL);
	jv_free(v);
}

/* ---- long records: many buffer flushes ----------------------------------- */

static void test_long_records(void)
{
	struct rtb_json j;
	size_t n = 50000;
	char *s = malloc(n + 1);

	/* escapes that double the length straddle every flush boundary */
	for (size_t i = 0; i < n; i++)
		s[i] = "ab\"\\\ncd\xc3\xa9"[i % 9];
	s[n] = '\0';
	/* the 2-byte é must not be cut in the middle of the source string */
	if ((n % 9) == 8)
		s[n - 1] = 'x';
	cap_reset(&j);
	rtb_json_obj_begin(&j);
	rtb_json_kstr(&j, "long", s);
	rtb_json_key(&j, "numbers");
	rtb_json_arr_begin(&j);
	for (uint64_t i = 0; i < 5000; i++)
		rtb_json_u64(&j, i * 1000003);
	rtb_json_arr_end(&j);
	rtb_json_obj_end(&j);
	rtb_json_end_line(&j);
	CHECK(cap_calls > 10);
	CHECK(cap_largest <= sizeof(j.buf));
	CHECK(cap_len > 60000);
	struct jv *v = parse_line(cap_buf, cap_len);
	if (v != NULL) {
		const struct jv *l = jv_get(v, "long");
		CHECK(l != NULL && l->text_len == n && memcmp(l->text, s, n) == 0);
		const struct jv *nums = jv_get(v, "numbers");
		CHECK(nums != NULL && nums->n == 5000);
		for (size_t i = 0; nums != NULL && i < nums->n; i++) {
			uint64_t x;
			CHECK(jv_u64(&nums->items[i], &x) && x == i * 1000003);
		}
	}
	jv_free(v);
	free(s);

	/* the same through the emitter's record writer and the console */
	fake_reset();
	s = malloc(20001);
	for (size_t i = 0; i < 20000; i++)
		s[i] = (char)('a' + i % 26);
	s[20000] = '\0';
	struct rtb_json *r = rtb_record_begin("log", "test.long");
	rtb_json_kstr(r, "level", "info");
	rtb_json_kstr(r, "message", s);
	rtb_record_end(r);
	CHECK(fake_console_writes >= 5);
	v = parse_line(fake_console, fake_console_len);
	CHECK(v != NULL && strcmp(jv_str(jv_get(v, "message")), s) == 0);
	jv_free(v);
	free(s);
}

/* ---- numbers ---------------------------------------------------------------- */

static void check_number_text(void (*emit)(struct rtb_json *), const char *want)
{
	struct rtb_json j;

	cap_reset(&j);
	emit(&j);
	rtb_json_end_line(&j);
	if (strlen(cap_buf) != strlen(want) + 1 || strncmp(cap_buf, want, strlen(want)) != 0) {
		fprintf(stderr, "number written as %s, want %s\n", cap_buf, want);
		check_failures++;
	}
	struct jv *v = parse_line(cap_buf, cap_len);
	jv_free(v);
}

#define NUMBER_CASE(name, call)              \
	static void name(struct rtb_json *j) \
	{                                    \
		call;                        \
	}
NUMBER_CASE(u64_zero, rtb_json_u64(j, 0))
NUMBER_CASE(u64_max, rtb_json_u64(j, UINT64_MAX))
NUMBER_CASE(i64_min, rtb_json_i64(j, INT64_MIN))
NUMBER_CASE(i64_max, rtb_json_i64(j, INT64_MAX))
NUMBER_CASE(i64_minus_one, rtb_json_i64(j, -1))
NUMBER_CASE(u128_zero, rtb_json_u128(j, (struct rtb_u128){0, 0}))
NUMBER_CASE(u128_two64, rtb_json_u128(j, (struct rtb_u128){0, 1}))
NUMBER_CASE(u128_max, rtb_json_u128(j, (struct rtb_u128){UINT64_MAX, UINT64_MAX}))
NUMBER_CASE(dbl_zero, rtb_json_dbl(j, 0.0))
NUMBER_CASE(dbl_negzero, rtb_json_dbl(j, -0.0))
NUMBER_CASE(dbl_half_milli, rtb_json_dbl(j, 0.0005))
NUMBER_CASE(dbl_below_half_milli, rtb_json_dbl(j, 0.0004))
NUMBER_CASE(dbl_neg, rtb_json_dbl(j, -2.25))
NUMBER_CASE(dbl_plain, rtb_json_dbl(j, 123456.789))
NUMBER_CASE(dbl_round_up, rtb_json_dbl(j, 0.9999))
NUMBER_CASE(dbl_below_1e15, rtb_json_dbl(j, 999999999999999.0))
NUMBER_CASE(dbl_1e15, rtb_json_dbl(j, 1e15))
NUMBER_CASE(dbl_big, rtb_json_dbl(j, 1.2345678e20))
NUMBER_CASE(dbl_neg_big, rtb_json_dbl(j, -6.02214076e23))
NUMBER_CASE(dbl_huge, rtb_json_dbl(j, 1e300))
NUMBER_CASE(dbl_max, rtb_json_dbl(j, 1.7976931348623157e308))
NUMBER_CASE(dbl_nan, rtb_json_dbl(j, NAN))
NUMBER_CASE(dbl_inf, rtb_json_dbl(j, INFINITY))
NUMBER_CASE(dbl_neg_inf, rtb_json_dbl(j, -INFINITY))

static void test_numbers(void)
{
	check_number_text(u64_zero, "0");
	check_number_text(u64_max, "18446744073709551615");
	check_number_text(i64_min, "-9223372036854775808");
	check_number_text(i64_max, "9223372036854775807");
	check_number_text(i64_minus_one, "-1");
	check_number_text(u128_zero, "0");
	check_number_text(u128_two64, "18446744073709551616");
	check_number_text(u128_max, "340282366920938463463374607431768211455");
	check_number_text(dbl_zero, "0.000");
	check_number_text(dbl_negzero, "0.000");
	check_number_text(dbl_half_milli, "0.001");
	check_number_text(dbl_below_half_milli, "0.000");
	check_number_text(dbl_neg, "-2.250");
	check_number_text(dbl_plain, "123456.789");
	check_number_text(dbl_round_up, "1.000");
	check_number_text(dbl_below_1e15, "999999999999999.000");
	check_number_text(dbl_1e15, "1.000000e15");
	check_number_text(dbl_big, "1.234568e20");
	check_number_text(dbl_neg_big, "-6.022141e23");
	check_number_text(dbl_huge, "1.000000e300");
	check_number_text(dbl_max, "1.797693e308");
	check_number_text(dbl_nan, "null");
	check_number_text(dbl_inf, "null");
	check_number_text(dbl_neg_inf, "null");

	/* random doubles over the whole range: valid JSON, correctly rounded */
	struct rtb_json j;
	for (int i = 0; i < 100000; i++) {
		double m = (double)(rng() >> 11) * 0x1p-53;
		double x = ldexp(m, (int)(rng() % 1060) - 40);
		if (rng() & 1)
			x = -x;
		cap_reset(&j);
		rtb_json_dbl(&j, x);
		rtb_json_end_line(&j);
		struct jv *v = parse_line(cap_buf, cap_len);
		if (v == NULL)
			continue;
		double got = jv_dbl(v), ax = fabs(x);
		double tol = dbl_tolerance(ax);
		if (!(fabs(got - x) <= tol)) {
			fprintf(stderr, "double %.17g written as %s", x, cap_buf);
			check_failures++;
		}
		jv_free(v);
	}
	/* random integers */
	for (int i = 0; i < 10000; i++) {
		uint64_t u = rng() >> (rng() % 64);
		cap_reset(&j);
		rtb_json_u64(&j, u);
		rtb_json_end_line(&j);
		uint64_t back;
		struct jv *v = parse_line(cap_buf, cap_len);
		CHECK(v != NULL && jv_u64(v, &back) && back == u);
		jv_free(v);
		int64_t s = (int64_t)rng();
		cap_reset(&j);
		rtb_json_i64(&j, s);
		rtb_json_end_line(&j);
		CHECK(strtoll(cap_buf, NULL, 10) == s);
	}
}

/* ---- emitter records ------------------------------------------------------- */

/* Split the fake console into parsed lines; every line must be valid. */
static int console_lines(struct jv **lines, int max)
{
	char err[256];
	int n = jv_parse_lines(fake_console != NULL ? fake_console : "", lines, max, err,
			       sizeof(err));

	if (n < 0) {
		fprintf(stderr, "console output is not JSON Lines: %s\n", err);
		check_failures++;
		return 0;
	}
	for (int i = 0; i < n && i < max; i++) {
		uint64_t ver;
		CHECK(jv_u64(jv_get(lines[i], "v"), &ver) && ver == RTB_PROTOCOL_VERSION);
		CHECK(jv_str(jv_get(lines[i], "type")) != NULL);
	}
	return n;
}

static void free_lines(struct jv **lines, int n)
{
	for (int i = 0; i < n; i++)
		jv_free(lines[i]);
}

static bool is_str(const struct jv *v, const char *want)
{
	return v != NULL && v->type == JV_STR && strcmp(v->text, want) == 0;
}

static bool is_u64(const struct jv *v, uint64_t want)
{
	uint64_t x;
	return jv_u64(v, &x) && x == want;
}

static void test_log_and_progress(void)
{
	struct jv *l[8];

	fake_reset();
	rtb_emit_log("sem.x", "warning", "value %d \"quoted\" back\\slash %s", -5, "\xc3\xa9");
	rtb_emit_log(NULL, "error", "no scenario");
	rtb_emit_progress("mem.y", 0.25, "loop 1");
	rtb_emit_progress("mem.y", -1.0, "below");
	rtb_emit_progress("mem.y", 7.0, "above");
	char longmsg[600];
	memset(longmsg, 'z', sizeof(longmsg) - 1);
	longmsg[sizeof(longmsg) - 1] = '\0';
	rtb_emit_log("sem.x", "info", "%s", longmsg);
	int n = console_lines(l, 8);
	CHECK(n == 6);
	if (n == 6) {
		CHECK(is_str(jv_get(l[0], "type"), "log"));
		CHECK(is_str(jv_get(l[0], "scenario"), "sem.x"));
		CHECK(is_str(jv_get(l[0], "level"), "warning"));
		CHECK(is_str(jv_get(l[0], "message"), "value -5 \"quoted\" back\\slash \xc3\xa9"));
		CHECK(jv_get(l[1], "scenario") == NULL);
		CHECK(is_str(jv_get(l[1], "level"), "error"));
		CHECK(is_str(jv_get(l[2], "level"), "progress"));
		CHECK(jv_dbl(jv_get(l[2], "progress")) == 0.25);
		CHECK(is_str(jv_get(l[2], "message"), "loop 1"));
		CHECK(jv_dbl(jv_get(l[3], "progress")) == 0.0);
		CHECK(jv_dbl(jv_get(l[4], "progress")) == 1.0);
		/* messages are cut to the formatter's buffer, never overrun */
		const char *m = jv_str(jv_get(l[5], "message"));
		CHECK(m != NULL && strlen(m) == 255 && strspn(m, "z") == 255);
	}
	free_lines(l, n < 8 ? n : 8);
}

static void test_table(void)
{
	static const struct rtb_column cols[] = {
		{"period", "ns"}, {"generated", "count"}, {"note", ""}};
	struct jv *l[4];

	fake_reset();
	struct rtb_json *j = rtb_table_begin("irq.sustained", "phases", "A \"title\"", cols, 3);
	for (uint64_t row = 0; row < 300; row++) {
		rtb_json_arr_begin(j);
		rtb_json_u64(j, 10000 - row);
		rtb_json_u64(j, row * row);
		rtb_json_str(j, row % 2 ? "odd" : "even \"row\"");
		rtb_json_arr_end(j);
	}
	rtb_table_end(j);
	int n = console_lines(l, 4);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(is_str(jv_get(l[0], "type"), "table"));
		CHECK(is_str(jv_get(l[0], "scenario"), "irq.sustained"));
		CHECK(is_str(jv_get(l[0], "name"), "phases"));
		CHECK(is_str(jv_get(l[0], "title"), "A \"title\""));
		const struct jv *c = jv_get(l[0], "columns");
		CHECK(c != NULL && c->n == 3);
		if (c != NULL && c->n == 3) {
			CHECK(is_str(jv_get(&c->items[1], "name"), "generated"));
			CHECK(is_str(jv_get(&c->items[1], "unit"), "count"));
			CHECK(is_str(jv_get(&c->items[2], "unit"), ""));
		}
		const struct jv *rows = jv_get(l[0], "rows");
		CHECK(rows != NULL && rows->n == 300);
		for (size_t r = 0; rows != NULL && r < rows->n; r++) {
			const struct jv *row = &rows->items[r];
			CHECK(row->type == JV_ARR && row->n == 3);
			CHECK(is_u64(&row->items[0], 10000 - r));
			CHECK(is_u64(&row->items[1], r * r));
		}
	}
	free_lines(l, n < 4 ? n : 4);
}

/* The amortised cross-check table: the cost per call, and no number where
 * there were no calls to divide by. */
static void test_amortised(void)
{
	struct jv *l[2];

	fake_reset();
	struct rtb_json *j = rtb_amortised_begin("mut.lock.uncontended");
	rtb_amortised_row(j, "lock", 4, 10);
	rtb_amortised_row(j, "unlock", 0, 0);
	rtb_table_end(j);
	int n = console_lines(l, 2);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(is_str(jv_get(l[0], "name"), "amortised"));
		CHECK(is_str(jv_get(l[0], "scenario"), "mut.lock.uncontended"));
		const struct jv *c = jv_get(l[0], "columns");
		CHECK(c != NULL && c->n == 4);
		if (c != NULL && c->n == 4)
			CHECK(is_str(jv_get(&c->items[3], "name"), "per_call"));
		const struct jv *rows = jv_get(l[0], "rows");
		CHECK(rows != NULL && rows->n == 2);
		if (rows != NULL && rows->n == 2) {
			CHECK(is_str(&rows->items[0].items[0], "lock"));
			CHECK(is_u64(&rows->items[0].items[1], 4));
			CHECK(is_u64(&rows->items[0].items[2], 10));
			CHECK(jv_dbl(&rows->items[0].items[3]) == 2.5);
			CHECK(rows->items[1].items[3].type == JV_NULL);
		}
	}
	free_lines(l, n < 2 ? n : 2);
}

static void test_verdict(void)
{
	struct rtb_verdict v;
	struct jv *l[4];

	fake_reset();
	rtb_verdict_init(&v, "sem.behavior.release_order", "SEM-B-REL", "release_order");
	CHECK(v.outcome == RTB_INCONCLUSIVE);
	CHECK(v.control == RTB_CONTROL_NOT_RUN);
	v.outcome = RTB_FAIL;
	rtb_verdict_reason(&v, "woken %s first", "\"lowest\"");
	for (int i = 0; i < RTB_EVIDENCE_MAX + 3; i++)
		rtb_verdict_evidence(&v, "line %d", i);
	v.control = RTB_CONTROL_CAUGHT;
	rtb_fmt(v.control_description, sizeof(v.control_description), "FIFO semaphore");
	rtb_verdict_control_evidence(&v, "wake order: %s", "1 2 3");
	rtb_emit_verdict(&v);

	struct rtb_verdict none;
	rtb_verdict_init(&none, "x.y", NULL, "c");
	rtb_emit_verdict(&none);

	int n = console_lines(l, 4);
	CHECK(n == 2);
	if (n == 2) {
		CHECK(is_str(jv_get(l[0], "type"), "verdict"));
		CHECK(is_str(jv_get(l[0], "label"), "SEM-B-REL"));
		CHECK(is_str(jv_get(l[0], "check"), "release_order"));
		CHECK(is_str(jv_get(l[0], "outcome"), "fail"));
		CHECK(is_str(jv_get(l[0], "reason"), "woken \"lowest\" first"));
		const struct jv *ev = jv_get(l[0], "evidence");
		CHECK(ev != NULL && ev->n == RTB_EVIDENCE_MAX);
		CHECK(ev != NULL && ev->n > 3 && is_str(&ev->items[3], "line 3"));
		CHECK(is_str(jv_path(l[0], "control.outcome"), "caught"));
		CHECK(is_str(jv_path(l[0], "control.description"), "FIFO semaphore"));
		const struct jv *cev = jv_path(l[0], "control.evidence");
		CHECK(cev != NULL && cev->n == 1 && is_str(&cev->items[0], "wake order: 1 2 3"));
		CHECK(jv_get(l[1], "label") == NULL);
		CHECK(is_str(jv_get(l[1], "outcome"), "inconclusive"));
		CHECK(is_str(jv_path(l[1], "control.outcome"), "not_run"));
		CHECK(jv_path(l[1], "control.evidence") != NULL &&
		      jv_path(l[1], "control.evidence")->n == 0);
	}
	free_lines(l, n < 4 ? n : 4);

	CHECK(strcmp(rtb_outcome_name(RTB_PASS), "pass") == 0);
	CHECK(strcmp(rtb_outcome_name(RTB_UNSUPPORTED), "unsupported") == 0);
	CHECK(strcmp(rtb_control_name(RTB_CONTROL_MISSED), "missed") == 0);
}

static const struct rtb_metric result_metric = {
	.scenario = "test.emit",
	.label = "TST-P-EMT",
	.metric = "latency",
	.title = "A result \"with\" quotes",
	.unit = "ticks",
	.params = {{"waiters", NULL, 8}, {"protocol", "inherit", 0}, {"offset", NULL, -3}},
	.nparams = 3,
};

static void u128_text(struct rtb_u128 v, char *buf)
{
	rtb_u128_to_dec(v, buf);
}

/* Check a result record and its samples records against the recorder. */
static void check_result_lines(const struct rtb_recorder *r, struct jv **l, int n)
{
	const struct jv *res = l[0];
	char dec[48];

	CHECK(is_str(jv_get(res, "type"), "result"));
	CHECK(is_str(jv_get(res, "scenario"), r->m.scenario));
	CHECK(is_str(jv_get(res, "metric"), r->m.metric));
	CHECK(is_str(jv_get(res, "unit"), r->m.unit));
	CHECK((jv_get(res, "overhead_ticks") != NULL) == (strcmp(r->m.unit, "ticks") == 0));
	const struct jv *params = jv_get(res, "params");
	CHECK(params != NULL && params->type == JV_OBJ && params->n == r->m.nparams);
	const struct jv *st = jv_get(res, "stats");
	CHECK(is_u64(jv_get(st, "count"), r->count));
	CHECK(is_u64(jv_get(st, "clamped"), r->clamped));
	u128_text(r->sum, dec);
	CHECK(jv_get(st, "sum") != NULL && strcmp(jv_get(st, "sum")->text, dec) == 0);
	u128_text(r->sum_sq, dec);
	CHECK(jv_get(st, "sum_sq") != NULL && strcmp(jv_get(st, "sum_sq")->text, dec) == 0);
	if (r->count > 0) {
		CHECK(is_u64(jv_get(st, "min"), r->min));
		CHECK(is_u64(jv_get(st, "max"), r->max));
		CHECK(is_u64(jv_get(st, "max_index"), r->max_index));
		CHECK(is_u64(jv_get(st, "max_at_ticks"), r->max_at_ticks));
		double mean = rtb_recorder_mean(r), sd = rtb_recorder_stddev(r);
		CHECK(fabs(jv_dbl(jv_get(st, "mean")) - mean) <= dbl_tolerance(mean));
		CHECK(fabs(jv_dbl(jv_get(st, "stddev")) - sd) <= dbl_tolerance(sd));
		static const struct {
			const char *key;
			double q;
			uint64_t need;
		} pct[] = {{"p50", 0.5, 1},
			   {"p90", 0.9, 10},
			   {"p99", 0.99, 100},
			   {"p99_9", 0.999, 1000},
			   {"p99_99", 0.9999, 10000}};
		for (size_t k = 0; k < RTB_ARRAY_SIZE(pct); k++) {
			const struct jv *p = jv_get(st, pct[k].key);
			CHECK(p != NULL);
			if (r->count >= pct[k].need)
				CHECK(is_u64(p, rtb_recorder_percentile(r, pct[k].q)));
			else
				CHECK(p != NULL && p->type == JV_NULL);
		}
	} else {
		CHECK(jv_get(st, "min") == NULL && jv_get(st, "max") == NULL);
		CHECK(jv_get(st, "p50") == NULL && jv_get(st, "mean") == NULL);
	}
	CHECK(is_u64(jv_path(res, "discarded.warmup"), r->warmup_count));
	CHECK(is_u64(jv_path(res, "discarded.invalid"), r->invalid));
	CHECK(is_u64(jv_path(res, "warmup.count"), r->warmup_count));
	if (r->warmup_count > 0) {
		CHECK(is_u64(jv_path(res, "warmup.first"), r->warmup_first));
		CHECK(is_u64(jv_path(res, "warmup.min"), r->warmup_min));
		CHECK(is_u64(jv_path(res, "warmup.max"), r->warmup_max));
	}

	/* histogram: ascending non-empty buckets that add up to the count */
	CHECK(is_str(jv_path(res, "histogram.scheme"), "log-linear"));
	CHECK(is_u64(jv_path(res, "histogram.sub_bucket_bits"), RTB_HIST_SUB_BITS));
	const struct jv *b = jv_path(res, "histogram.buckets");
	uint64_t total = 0, prev_upper = 0, nonempty = 0;
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		nonempty += r->hist[i] != 0;
	CHECK(b != NULL && b->n == nonempty);
	for (size_t i = 0; b != NULL && i < b->n; i++) {
		uint64_t lo = 0, hi = 0, cnt = 0;
		const struct jv *row = &b->items[i];
		CHECK(row->n == 3 && jv_u64(&row->items[0], &lo) && jv_u64(&row->items[1], &hi) &&
		      jv_u64(&row->items[2], &cnt));
		if (row->n != 3)
			continue;
		uint32_t idx = rtb_hist_index(lo);
		CHECK_EQ_U64(rtb_hist_lower(idx), lo);
		CHECK_EQ_U64(rtb_hist_upper(idx), hi);
		CHECK_EQ_U64(r->hist[idx], cnt);
		CHECK(cnt > 0);
		CHECK(i == 0 || lo > prev_upper);
		prev_upper = hi;
		total += cnt;
	}
	CHECK_EQ_U64(total, r->count);

	/* raw series: chunks of RTB_SAMPLES_CHUNK covering it exactly */
	uint64_t chunks = (r->raw_len + RTB_SAMPLES_CHUNK - 1) / RTB_SAMPLES_CHUNK;
	CHECK(is_u64(jv_path(res, "raw.count"), r->raw_len));
	CHECK(is_u64(jv_path(res, "raw.capacity"), r->raw_max));
	CHECK(is_u64(jv_path(res, "raw.chunks"), chunks));
	CHECK_EQ_U64((uint64_t)n, 1 + chunks);
	uint64_t next = 0;
	for (int c = 1; c < n; c++) {
		const struct jv *s = l[c];
		CHECK(is_str(jv_get(s, "type"), "samples"));
		CHECK(is_str(jv_get(s, "scenario"), r->m.scenario));
		CHECK(is_str(jv_get(s, "metric"), r->m.metric));
		CHECK(jv_get(s, "params") != NULL && jv_get(s, "params")->n == r->m.nparams);
		CHECK(is_u64(jv_get(s, "chunk"), (uint64_t)(c - 1)));
		CHECK(is_u64(jv_get(s, "first_index"), next));
		const struct jv *vals = jv_get(s, "values");
		CHECK(vals != NULL && vals->n >= 1 && vals->n <= RTB_SAMPLES_CHUNK);
		for (size_t i = 0; vals != NULL && i < vals->n; i++) {
			CHECK(next < r->raw_len && is_u64(&vals->items[i], r->raw[next]));
			next++;
		}
	}
	CHECK_EQ_U64(next, r->raw_len);
}

static void emit_and_check(const struct rtb_recorder *r)
{
	enum { MAX_LINES = 64 };
	struct jv *l[MAX_LINES];

	fake_reset();
	rtb_emit_result(r);
	int n = console_lines(l, MAX_LINES);
	CHECK(n >= 1 && n <= MAX_LINES);
	if (n >= 1 && n <= MAX_LINES)
		check_result_lines(r, l, n);
	free_lines(l, n < MAX_LINES ? n : MAX_LINES);
}

static void test_results(void)
{
	struct rtb_recorder r;
	struct rtb_metric m = result_metric;

	rtb_timing.inline_overhead_ticks = 44;

	/* empty */
	CHECK(rtb_recorder_init(&r, &m, 5, 100) == RTB_OK);
	emit_and_check(&r);
	rtb_recorder_add_invalid(&r);
	emit_and_check(&r);

	/* too few samples for the upper percentiles; warm-up shown */
	for (uint64_t i = 0; i < 12; i++)
		rtb_recorder_add(&r, 100 + i * i);
	emit_and_check(&r);
	rtb_recorder_free(&r);

	/* a full histogram: one value in every bucket, sums beyond 2^64 */
	CHECK(rtb_recorder_init(&r, &m, 0, 4500) == RTB_OK);
	for (uint32_t i = 0; i < RTB_HIST_BUCKETS; i++)
		rtb_recorder_add(&r, rtb_hist_lower(i));
	for (int i = 0; i < 20000; i++)
		rtb_recorder_add(&r, rng() >> (rng() % 64));
	CHECK(r.raw_len == 4500);
	fake_reset();
	rtb_emit_result(&r);
	CHECK(fake_console_len > 100000);
	CHECK(fake_console_writes > 20); /* the record spans many buffer flushes */
	emit_and_check(&r);
	rtb_recorder_free(&r);

	/* raw series an exact multiple of the chunk size, other units */
	m.unit = "ns";
	m.label = NULL;
	m.title = NULL;
	m.nparams = 0;
	CHECK(rtb_recorder_init(&r, &m, 10, 2 * RTB_SAMPLES_CHUNK) == RTB_OK);
	for (int i = 0; i < 30000; i++)
		rtb_recorder_add(&r, 1000 + rng() % 5000);
	for (int i = 0; i < 7; i++)
		rtb_recorder_add_invalid(&r);
	emit_and_check(&r);
	fake_reset();
	rtb_emit_result(&r);
	struct jv *l[4];
	int n = console_lines(l, 4);
	CHECK(n == 3);
	if (n >= 1) {
		CHECK(jv_get(l[0], "label") == NULL);
		CHECK(jv_get(l[0], "title") == NULL);
		CHECK(jv_get(l[0], "overhead_ticks") == NULL);
		CHECK(jv_get(l[0], "params") != NULL && jv_get(l[0], "params")->n == 0);
	}
	free_lines(l, n < 4 ? n : 4);
	rtb_recorder_free(&r);

	/* no raw series */
	CHECK(rtb_recorder_init(&r, &m, 0, 0) == RTB_OK);
	rtb_recorder_add(&r, 5);
	emit_and_check(&r);
	rtb_recorder_free(&r);

	/* params of every kind are written as given */
	m = result_metric;
	CHECK(rtb_recorder_init(&r, &m, 0, 1) == RTB_OK);
	rtb_recorder_add(&r, 5);
	fake_reset();
	rtb_emit_result(&r);
	n = console_lines(l, 4);
	CHECK(n == 2);
	if (n == 2) {
		for (int k = 0; k < 2; k++) {
			const struct jv *p = jv_get(l[k], "params");
			CHECK(is_u64(jv_get(p, "waiters"), 8));
			CHECK(is_str(jv_get(p, "protocol"), "inherit"));
			CHECK(jv_get(p, "offset") != NULL &&
			      strcmp(jv_get(p, "offset")->text, "-3") == 0);
		}
		CHECK(is_str(jv_get(l[0], "label"), "TST-P-EMT"));
		CHECK(is_str(jv_get(l[0], "title"), "A result \"with\" quotes"));
		CHECK(is_u64(jv_get(l[0], "overhead_ticks"), 44));
		CHECK(is_str(jv_get(l[0], "overhead_shape"), "inline"));
	}
	free_lines(l, n < 4 ? n : 4);
	rtb_recorder_free(&r);
	rtb_timing.inline_overhead_ticks = 0;
}

/* A counter that moves in steps of 20 ticks: the histogram of a tick-valued
 * metric has no bucket narrower than a step, and its buckets still add up to
 * the count; a metric in another unit is not merged. */
static void test_step_histogram(void)
{
	struct rtb_metric m = result_metric;
	struct rtb_recorder r;
	struct jv *l[4];

	rtb_timing.step_ticks = 20;
	CHECK(rtb_recorder_init(&r, &m, 0, 0) == RTB_OK);
	for (uint64_t i = 0; i < 5000; i++)
		rtb_recorder_add(&r, 20 * (i % 400)); /* 0 .. 7980, narrow and wide buckets */
	rtb_recorder_add(&r, 20 * 100000);
	rtb_recorder_add(&r, 1380); /* in [1376, 1383], which straddles two steps */
	fake_reset();
	rtb_emit_result(&r);
	int n = console_lines(l, 4);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(is_u64(jv_path(l[0], "histogram.min_width"), 20));
		const struct jv *b = jv_path(l[0], "histogram.buckets");
		uint64_t total = 0, prev_hi = 0;
		bool covered = false;
		CHECK(b != NULL && b->n > 10);
		for (size_t i = 0; b != NULL && i < b->n; i++) {
			uint64_t lo = 0, hi = 0, c = 0;
			CHECK(jv_u64(&b->items[i].items[0], &lo) &&
			      jv_u64(&b->items[i].items[1], &hi) &&
			      jv_u64(&b->items[i].items[2], &c));
			CHECK(hi - lo + 1 >= 20);
			CHECK(i == 0 || lo > prev_hi);
			if (lo <= 1380 && 1380 <= hi) {
				CHECK(hi >= 1383); /* the whole recorder bucket is inside */
				covered = true;
			}
			prev_hi = hi;
			total += c;
		}
		CHECK_EQ_U64(total, r.count);
		CHECK(covered);
	}
	free_lines(l, n < 4 ? n : 4);
	rtb_recorder_free(&r);

	m.unit = "ns"; /* not counter ticks: buckets as the recorder has them */
	CHECK(rtb_recorder_init(&r, &m, 0, 0) == RTB_OK);
	rtb_recorder_add(&r, 3);
	rtb_recorder_add(&r, 4);
	fake_reset();
	rtb_emit_result(&r);
	n = console_lines(l, 4);
	CHECK(n == 1);
	if (n == 1) {
		CHECK(is_u64(jv_path(l[0], "histogram.min_width"), 1));
		CHECK(jv_path(l[0], "histogram.buckets") != NULL &&
		      jv_path(l[0], "histogram.buckets")->n == 2);
	}
	free_lines(l, n < 4 ? n : 4);
	rtb_recorder_free(&r);
	rtb_timing.step_ticks = 0;
}

int main(void)
{
	fake_reset();
	test_step_histogram();
	test_parser();
	test_structure();
	test_strings();
	test_long_records();
	test_numbers();
	test_log_and_progress();
	test_table();
	test_amortised();
	test_verdict();
	test_results();
	free(cap_buf);
	return check_exit();
}
