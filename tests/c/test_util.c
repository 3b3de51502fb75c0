/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The core's libc stand-ins: rtb_fmt/rtb_vfmt against the C library's
 * snprintf, rtb_parse_u64, rtb_sqrt against sqrt(), the 128-bit
 * accumulator and its decimal conversion against unsigned __int128, the
 * string helpers, rtb_fmt_ns and rtb_sort_u64.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fake_port.h"
#include "rtb/core.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1du;
}

/* ---- formatter ---------------------------------------------------------- */

#define SAME_AS_PRINTF(fmt, ...)                                                             \
	do {                                                                                 \
		char want_[256], got_[256];                                                  \
		int wn_ = snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);                  \
		size_t gn_ = rtb_fmt(got_, sizeof(got_), fmt, __VA_ARGS__);                  \
		if (strcmp(want_, got_) != 0 || (size_t)wn_ != gn_) {                        \
			fprintf(stderr, "%s:%d: rtb_fmt(\"%s\") gave \"%s\", want \"%s\"\n", \
				__FILE__, __LINE__, fmt, got_, want_);                       \
			check_failures++;                                                    \
		}                                                                            \
	} while (0)

static void test_fmt_conversions(void)
{
	SAME_AS_PRINTF("plain text%s", "");
	SAME_AS_PRINTF("%s|%s", "abc", "");
	SAME_AS_PRINTF("%c%c%c", 'a', 'Z', '0');
	SAME_AS_PRINTF("%d %i %d %d", 0, 42, -42, INT_MIN);
	SAME_AS_PRINTF("%d", INT_MAX);
	SAME_AS_PRINTF("%u %u", 0u, UINT_MAX);
	SAME_AS_PRINTF("%x %x %x", 0u, 0xdeadbeefu, 255u);
	SAME_AS_PRINTF("%ld %ld", LONG_MIN, LONG_MAX);
	SAME_AS_PRINTF("%lu %lx", ULONG_MAX, ULONG_MAX);
	SAME_AS_PRINTF("%lld %lld", LLONG_MIN, LLONG_MAX);
	SAME_AS_PRINTF("%llu %llx", ULLONG_MAX, 0x0123456789abcdefull);
	SAME_AS_PRINTF("%zu %zx", SIZE_MAX, (size_t)4096);
	SAME_AS_PRINTF("%zu", (size_t)0);
	SAME_AS_PRINTF("100%% %d%%", 5);
	SAME_AS_PRINTF("%s=%llu (%s)", "key", 123456789012345ull, "ok");

	/* widths and zero padding */
	SAME_AS_PRINTF("[%5u] [%05u] [%1u] [%03u]", 42u, 42u, 12345u, 7u);
	SAME_AS_PRINTF("[%8x] [%08x]", 0xbeefu, 0xbeefu);
	SAME_AS_PRINTF("[%5d] [%05d]", 42, 42);
	SAME_AS_PRINTF("[%5d] [%05d]", -42, -42);
	SAME_AS_PRINTF("[%3d] [%03d]", -1234, -1234);
	SAME_AS_PRINTF("[%020llu]", ULLONG_MAX);
	SAME_AS_PRINTF("[%12lld] [%012lld]", LLONG_MIN / 1000000000000ll,
		       LLONG_MIN / 1000000000000ll);
	SAME_AS_PRINTF("[%10zu]", (size_t)77);

	/* random numbers of every size through every conversion */
	for (int i = 0; i < 2000; i++) {
		uint64_t r = rng() >> (rng() % 64);
		int w = (int)(rng() % 24);
		SAME_AS_PRINTF("%llu %llx %lld", (unsigned long long)r, (unsigned long long)r,
			       (long long)r);
		SAME_AS_PRINTF("%u %x %d", (unsigned)r, (unsigned)r, (int)r);
		SAME_AS_PRINTF("%lu|%ld", (unsigned long)r, (long)r);
		char fmt[32];
		snprintf(fmt, sizeof(fmt), "%%%dllu|%%0%dlld", w, w);
		char want[128], got[128];
		snprintf(want, sizeof(want), fmt, (unsigned long long)r, (long long)r);
		size_t n = rtb_fmt(got, sizeof(got), fmt, (unsigned long long)r, (long long)r);
		CHECK(n == strlen(want));
		if (strcmp(want, got) != 0) {
			fprintf(stderr, "width %d: got \"%s\", want \"%s\"\n", w, got, want);
			check_failures++;
		}
	}

	/* NULL string, unknown conversion, trailing percent (formats printf
	 * would reject, so the compiler's format check is off here) */
	char buf[64];
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
#pragma GCC diagnostic ignored "-Wformat-overflow"
	rtb_fmt(buf, sizeof(buf), "<%s>", (const char *)NULL);
	CHECK(strcmp(buf, "<(null)>") == 0);
	rtb_fmt(buf, sizeof(buf), "a%qb");
	CHECK(strcmp(buf, "a%qb") == 0);
	size_t n = rtb_fmt(buf, sizeof(buf), "end%");
	CHECK(strcmp(buf, "end") == 0);
	CHECK(n == 3);
#pragma GCC diagnostic pop
}

static void test_fmt_truncation(void)
{
	char buf[16];

	/* len 0: nothing written, not even the terminator */
	memset(buf, 'X', sizeof(buf));
	CHECK(rtb_fmt(buf, 0, "hello") == 0);
	CHECK(buf[0] == 'X');

	/* len 1: only the terminator */
	memset(buf, 'X', sizeof(buf));
	CHECK(rtb_fmt(buf, 1, "hello") == 0);
	CHECK(buf[0] == '\0');
	CHECK(buf[1] == 'X');

	/* every length: len-1 characters and a NUL, nothing past buf[len-1] */
	const char *full = "value=18446744073709551615 name=abc";
	for (size_t len = 1; len <= sizeof(buf); len++) {
		memset(buf, 'X', sizeof(buf));
		size_t got = rtb_fmt(buf, len, "value=%llu name=%s", ULLONG_MAX, "abc");
		size_t want = RTB_MIN(len - 1, strlen(full));
		CHECK(got == want);
		CHECK(buf[want] == '\0');
		CHECK(strncmp(buf, full, want) == 0);
		for (size_t k = len; k < sizeof(buf); k++)
			CHECK(buf[k] == 'X');
	}

	/* truncation inside padding and inside a number */
	char small[6];
	CHECK(rtb_fmt(small, sizeof(small), "%010u", 7u) == 5);
	CHECK(strcmp(small, "00000") == 0);
	CHECK(rtb_fmt(small, sizeof(small), "%d", -1234567) == 5);
	CHECK(strcmp(small, "-1234") == 0);
}

/* ---- parse_u64 ------------------------------------------------------------ */

static void test_parse_u64(void)
{
	uint64_t v = 12345;

	CHECK(rtb_parse_u64("0", &v) && v == 0);
	CHECK(rtb_parse_u64("7", &v) && v == 7);
	CHECK(rtb_parse_u64("007", &v) && v == 7);
	CHECK(rtb_parse_u64("4294967296", &v) && v == 4294967296u);
	CHECK(rtb_parse_u64("18446744073709551615", &v) && v == UINT64_MAX);
	CHECK(rtb_parse_u64("18446744073709551610", &v) && v == UINT64_MAX - 5);

	v = 99;
	CHECK(!rtb_parse_u64("18446744073709551616", &v)); /* 2^64 */
	CHECK(!rtb_parse_u64("18446744073709551620", &v));
	CHECK(!rtb_parse_u64("99999999999999999999", &v));
	CHECK(!rtb_parse_u64("184467440737095516150", &v));
	CHECK(!rtb_parse_u64("", &v));
	CHECK(!rtb_parse_u64(NULL, &v));
	CHECK(!rtb_parse_u64("12a", &v));
	CHECK(!rtb_parse_u64("a12", &v));
	CHECK(!rtb_parse_u64(" 12", &v));
	CHECK(!rtb_parse_u64("12 ", &v));
	CHECK(!rtb_parse_u64("-1", &v));
	CHECK(!rtb_parse_u64("+1", &v));
	CHECK(!rtb_parse_u64("1.5", &v));
	CHECK(!rtb_parse_u64("0x10", &v));
	CHECK(v == 99); /* untouched on failure */

	for (int i = 0; i < 10000; i++) {
		uint64_t r = rng() >> (rng() % 64);
		char text[32];
		snprintf(text, sizeof(text), "%llu", (unsigned long long)r);
		CHECK(rtb_parse_u64(text, &v) && v == r);
	}
}

/* ---- sqrt ------------------------------------------------------------------ */

static void check_sqrt(double x)
{
	double got = rtb_sqrt(x), want = sqrt(x);

	/* Newton's iteration ends within one unit in the last place. */
	if (!(fabs(got - want) <= want * 0x1p-52)) {
		fprintf(stderr, "rtb_sqrt(%.17g) = %.17g, sqrt gives %.17g\n", x, got, want);
		check_failures++;
	}
}

static void test_sqrt(void)
{
	CHECK(rtb_sqrt(0.0) == 0.0);
	CHECK(rtb_sqrt(-1.0) == 0.0);
	CHECK(rtb_sqrt(0.0 / 0.0) == 0.0);
	CHECK(rtb_sqrt(1.0) == 1.0);
	CHECK(rtb_sqrt(4.0) == 2.0);
	CHECK(rtb_sqrt(1e-300 * 1e-300) >= 0.0); /* underflows to 0 */
	for (int e = -1074; e <= 1023; e++) {
		check_sqrt(ldexp(1.0, e));
		check_sqrt(ldexp(1.5, e > 1022 ? 1022 : e));
	}
	check_sqrt(1.7976931348623157e308); /* largest finite double */
	check_sqrt(4.9e-324);		    /* smallest subnormal */
	for (int i = 0; i < 100000; i++) {
		/* random mantissa and exponent over the whole finite range */
		double m = 1.0 + (double)(rng() >> 11) * 0x1p-53;
		int e = (int)(rng() % 2046) - 1022;
		check_sqrt(ldexp(m, e));
	}
	/* the values the recorder takes roots of: variances of uint64 samples */
	for (int i = 0; i < 10000; i++)
		check_sqrt((double)(rng() >> (rng() % 64)) * (double)(rng() >> 32));
}

/* ---- 128-bit accumulator -------------------------------------------------- */

typedef unsigned __int128 u128;

static u128 to_native(struct rtb_u128 v)
{
	return ((u128)v.hi << 64) | v.lo;
}

static void native_to_dec(u128 v, char *buf)
{
	char tmp[48];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + (int)(v % 10));
		v /= 10;
	} while (v != 0);
	int i = 0;
	while (n > 0)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}

static void check_dec(u128 v)
{
	struct rtb_u128 x = {(uint64_t)v, (uint64_t)(v >> 64)};
	char got[48], want[48];

	rtb_u128_to_dec(x, got);
	native_to_dec(v, want);
	if (strcmp(got, want) != 0) {
		fprintf(stderr, "rtb_u128_to_dec gave %s, want %s\n", got, want);
		check_failures++;
	}
}

static void test_u128(void)
{
	char buf[48];
	struct rtb_u128 zero = {0, 0}, max = {UINT64_MAX, UINT64_MAX};

	rtb_u128_to_dec(zero, buf);
	CHECK(strcmp(buf, "0") == 0);
	rtb_u128_to_dec(max, buf);
	CHECK(strcmp(buf, "340282366920938463463374607431768211455") == 0);
	struct rtb_u128 two64 = {0, 1};
	rtb_u128_to_dec(two64, buf);
	CHECK(strcmp(buf, "18446744073709551616") == 0);

	/* powers of ten and their neighbours */
	u128 p = 1;
	for (int i = 0; i <= 38; i++) {
		check_dec(p);
		check_dec(p - 1);
		check_dec(p + 1);
		p *= 10;
	}
	for (int i = 0; i < 20000; i++) {
		u128 v = ((u128)rng() << 64) | rng();
		check_dec(v >> (rng() % 128));
	}

	/* add and add_square against native arithmetic (modulo 2^128) */
	struct rtb_u128 s = {0, 0}, sq = {0, 0};
	u128 ns = 0, nsq = 0;
	static const uint64_t edges[] = {0,
					 1,
					 0xffffffffu,
					 0x100000000u,
					 0x7fffffffffffffffu,
					 0x8000000000000000u,
					 UINT64_MAX - 1,
					 UINT64_MAX};
	for (size_t i = 0; i < RTB_ARRAY_SIZE(edges); i++) {
		struct rtb_u128 one = {0, 0};
		rtb_u128_add_square(&one, edges[i]);
		CHECK(to_native(one) == (u128)edges[i] * edges[i]);
		rtb_u128_add(&s, edges[i]);
		ns += edges[i];
	}
	CHECK(to_native(s) == ns);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = rng() >> (rng() % 64);
		rtb_u128_add(&s, v);
		rtb_u128_add_square(&sq, v);
		ns += v;
		nsq += (u128)v * v;
	}
	CHECK(to_native(s) == ns);
	CHECK(to_native(sq) == nsq);

	/* to_double within double precision */
	for (int i = 0; i < 1000; i++) {
		u128 v = ((u128)rng() << 64) | rng();
		v >>= rng() % 128;
		struct rtb_u128 x = {(uint64_t)v, (uint64_t)(v >> 64)};
		double d = rtb_u128_to_double(x), want = (double)v;
		CHECK(fabs(d - want) <= want * 0x1p-52);
	}
}

/* ---- strings ---------------------------------------------------------------- */

static void test_strings(void)
{
	CHECK(rtb_strlen("") == 0);
	CHECK(rtb_strlen("abc") == 3);
	CHECK(rtb_strcmp("abc", "abc") == 0);
	CHECK(rtb_strcmp("abc", "abd") < 0);
	CHECK(rtb_strcmp("abd", "abc") > 0);
	CHECK(rtb_strcmp("ab", "abc") < 0);
	CHECK(rtb_strcmp("abc", "ab") > 0);
	CHECK(rtb_strcmp("", "") == 0);
	CHECK(rtb_strcmp("\xe9", "e") > 0); /* compared as unsigned bytes */
	CHECK(rtb_str_starts("sem.wait.block", "sem."));
	CHECK(rtb_str_starts("sem", ""));
	CHECK(!rtb_str_starts("se", "sem"));
	CHECK(!rtb_str_starts("mut.x", "sem"));

	unsigned char a[64], b[64];
	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (unsigned char)i;
	rtb_memset(b, 0xab, sizeof(b));
	for (size_t i = 0; i < sizeof(b); i++)
		CHECK(b[i] == 0xab);
	rtb_memcpy(b + 3, a, 10);
	CHECK(memcmp(b + 3, a, 10) == 0);
	CHECK(b[2] == 0xab && b[13] == 0xab);
	rtb_memset(b, 0, 0);
	CHECK(b[0] == 0xab);
}

static void test_fmt_ns(void)
{
	char b[32];

	rtb_fmt_ns(b, sizeof(b), 850);
	CHECK(strcmp(b, "850 ns") == 0);
	rtb_fmt_ns(b, sizeof(b), 52300);
	CHECK(strcmp(b, "52.300 us") == 0);
	rtb_fmt_ns(b, sizeof(b), 4000000);
	CHECK(strcmp(b, "4.000 ms") == 0);
	rtb_fmt_ns(b, sizeof(b), 1500000000);
	CHECK(strcmp(b, "1.500 s") == 0);
}

static void test_sort(void)
{
	uint64_t v[200];
	for (size_t i = 0; i < 200; i++)
		v[i] = rng() % 1000;
	rtb_sort_u64(v, 200);
	for (size_t i = 1; i < 200; i++)
		CHECK(v[i - 1] <= v[i]);
	rtb_sort_u64(v, 0);
	rtb_sort_u64(v, 1);
}

int main(void)
{
	fake_reset();
	test_fmt_conversions();
	test_fmt_truncation();
	test_parse_u64();
	test_sqrt();
	test_u128();
	test_strings();
	test_fmt_ns();
	test_sort();
	return check_exit();
}
