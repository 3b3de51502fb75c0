/* SPDX-License-Identifier: Apache-2.0 */
/*
 * String, formatting and arithmetic helpers. The core links no C library of
 * its own, so these stand in for the few libc functions it needs.
 */
#include "rtb/core.h"

size_t rtb_strlen(const char *s)
{
	size_t n = 0;

	while (s[n] != '\0')
		n++;
	return n;
}

int rtb_strcmp(const char *a, const char *b)
{
	while (*a != '\0' && *a == *b) {
		a++;
		b++;
	}
	return (int)(unsigned char)*a - (int)(unsigned char)*b;
}

bool rtb_str_starts(const char *s, const char *prefix)
{
	while (*prefix != '\0') {
		if (*s++ != *prefix++)
			return false;
	}
	return true;
}

void rtb_memset(void *p, int c, size_t n)
{
	volatile unsigned char *d = p;

	while (n-- > 0)
		*d++ = (unsigned char)c;
}

void rtb_memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n-- > 0)
		*d++ = *s++;
}

bool rtb_parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (s == NULL || *s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		uint64_t digit = (uint64_t)(*s - '0');
		if (v > (UINT64_MAX - digit) / 10)
			return false;
		v = v * 10 + digit;
	}
	*out = v;
	return true;
}

/* ---- formatter ---------------------------------------------------------- */

struct out {
	char *buf;
	size_t len;
	size_t pos;
};

static void out_char(struct out *o, char c)
{
	if (o->pos + 1 < o->len)
		o->buf[o->pos++] = c;
}

static void out_str(struct out *o, const char *s)
{
	if (s == NULL)
		s = "(null)";
	while (*s != '\0')
		out_char(o, *s++);
}

/* A number padded to width: spaces go before the sign, zeros after it. */
static void out_number(struct out *o, uint64_t v, bool negative, unsigned base, int width, char pad)
{
	char digits[24];
	int n = 0;

	do {
		unsigned d = (unsigned)(v % base);
		digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v != 0);
	if (negative && pad == '0')
		out_char(o, '-');
	for (int i = n + (negative ? 1 : 0); i < width; i++)
		out_char(o, pad);
	if (negative && pad != '0')
		out_char(o, '-');
	while (n > 0)
		out_char(o, digits[--n]);
}

size_t rtb_vfmt(char *buf, size_t len, const char *fmt, va_list ap)
{
	struct out o = {buf, len, 0};

	if (len == 0)
		return 0;
	for (; *fmt != '\0'; fmt++) {
		if (*fmt != '%') {
			out_char(&o, *fmt);
			continue;
		}
		fmt++;
		char pad = ' ';
		int width = 0;
		if (*fmt == '0') {
			pad = '0';
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		int longs = 0;
		bool size = false;
		while (*fmt == 'l') {
			longs++;
			fmt++;
		}
		if (*fmt == 'z') {
			size = true;
			fmt++;
		}
		switch (*fmt) {
		case '%':
			out_char(&o, '%');
			break;
		case 'c':
			out_char(&o, (char)va_arg(ap, int));
			break;
		case 's':
			out_str(&o, va_arg(ap, const char *));
			break;
		case 'd':
		case 'i': {
			int64_t v;
			if (size)
				v = (int64_t)va_arg(ap, long);
			else if (longs >= 2)
				v = va_arg(ap, long long);
			else if (longs == 1)
				v = va_arg(ap, long);
			else
				v = va_arg(ap, int);
			if (v < 0)
				out_number(&o, (uint64_t)0 - (uint64_t)v, true, 10, width, pad);
			else
				out_number(&o, (uint64_t)v, false, 10, width, pad);
			break;
		}
		case 'u':
		case 'x': {
			uint64_t v;
			if (size)
				v = va_arg(ap, size_t);
			else if (longs >= 2)
				v = va_arg(ap, unsigned long long);
			else if (longs == 1)
				v = va_arg(ap, unsigned long);
			else
				v = va_arg(ap, unsigned int);
			out_number(&o, v, false, *fmt == 'x' ? 16 : 10, width, pad);
			break;
		}
		case '\0':
			fmt--; /* trailing '%': stop at the terminator */
			break;
		default:
			out_char(&o, '%');
			out_char(&o, *fmt);
			break;
		}
	}
	o.buf[o.pos] = '\0';
	return o.pos;
}

size_t rtb_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	size_t n = rtb_vfmt(buf, len, fmt, ap);
	va_end(ap);
	return n;
}

void rtb_fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 1000u)
		rtb_fmt(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 1000000u)
		rtb_fmt(buf, len, "%llu.%03llu us", (unsigned long long)(ns / 1000u),
			(unsigned long long)(ns % 1000u));
	else if (ns < 1000000000u)
		rtb_fmt(buf, len, "%llu.%03llu ms", (unsigned long long)(ns / 1000000u),
			(unsigned long long)(ns / 1000u % 1000u));
	else
		rtb_fmt(buf, len, "%llu.%03llu s", (unsigned long long)(ns / 1000000000u),
			(unsigned long long)(ns / 1000000u % 1000u));
}

/* ---- sorting ------------------------------------------------------------ */

static void sift_down(uint64_t *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		uint64_t t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

void rtb_sort_u64(uint64_t *v, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n - 1; end > 0; end--) {
		uint64_t t = v[0];
		v[0] = v[end];
		v[end] = t;
		sift_down(v, 0, end);
	}
}

/* ---- square root -------------------------------------------------------- */

double rtb_sqrt(double x)
{
	if (!(x > 0.0))
		return 0.0;
	/* Newton's iteration from a power-of-two start converges in < 64 steps
	 * for any finite double; stop when it no longer moves. The start is
	 * halved while r^2 > 4x, written so that neither side can overflow. */
	double r = x >= 1.0 ? x : 1.0;
	while (r > 4.0 * (x / r))
		r *= 0.5;
	for (int i = 0; i < 200; i++) {
		double next = 0.5 * (r + x / r);
		if (next == r)
			break;
		r = next;
	}
	return r;
}

/* ---- 128-bit accumulator ------------------------------------------------ */

void rtb_u128_add(struct rtb_u128 *acc, uint64_t v)
{
	uint64_t lo = acc->lo + v;

	acc->hi += lo < acc->lo;
	acc->lo = lo;
}

void rtb_u128_add_square(struct rtb_u128 *acc, uint64_t v)
{
	/* 64 x 64 -> 128 multiply from 32-bit halves, portable to any C11
	 * compiler (no __int128 on 32-bit targets). */
	uint64_t a = v & 0xffffffffu, b = v >> 32;
	uint64_t aa = a * a, ab = a * b, bb = b * b;
	uint64_t mid = ab << 1;	       /* may lose bit 64 of 2ab */
	uint64_t mid_carry = ab >> 63; /* that bit */
	uint64_t lo = aa + (mid << 32);
	uint64_t hi = bb + (mid >> 32) + (mid_carry << 32) + (lo < aa);
	uint64_t sum_lo = acc->lo + lo;

	acc->hi += hi + (sum_lo < acc->lo);
	acc->lo = sum_lo;
}

double rtb_u128_to_double(struct rtb_u128 v)
{
	return (double)v.hi * 18446744073709551616.0 + (double)v.lo;
}

void rtb_u128_to_dec(struct rtb_u128 v, char *buf)
{
	char digits[40];
	int n = 0;

	do {
		/* Divide the 128-bit value by 10 in 32-bit limbs. */
		uint32_t limbs[4] = {(uint32_t)(v.hi >> 32), (uint32_t)v.hi, (uint32_t)(v.lo >> 32),
				     (uint32_t)v.lo};
		uint64_t rem = 0;
		for (int i = 0; i < 4; i++) {
			uint64_t cur = (rem << 32) | limbs[i];
			limbs[i] = (uint32_t)(cur / 10);
			rem = cur % 10;
		}
		v.hi = ((uint64_t)limbs[0] << 32) | limbs[1];
		v.lo = ((uint64_t)limbs[2] << 32) | limbs[3];
		digits[n++] = (char)('0' + rem);
	} while (v.hi != 0 || v.lo != 0);
	int i = 0;
	while (n > 0)
		buf[i++] = digits[--n];
	buf[i] = '\0';
}

void rtb_note_thread_memory(const char *scenario, uint64_t threads)
{
	char v[32];
	uint64_t stack = 0;

	if (rtb_port_property("thread_stack_bytes", v, sizeof(v)) != RTB_OK ||
	    !rtb_parse_u64(v, &stack) || stack == 0)
		return;
	uint64_t kib = threads * stack / 1024;
	rtb_emit_log(scenario, "info", "%llu threads: %llu.%01llu MiB of stacks at %llu KiB each",
		     (unsigned long long)threads, (unsigned long long)(kib / 1024),
		     (unsigned long long)(kib % 1024 * 10 / 1024),
		     (unsigned long long)(stack / 1024));
}

const char *rtb_port_lacks(const char *what, char *buf, size_t len)
{
	char key[48];

	rtb_fmt(key, sizeof(key), "lacks.%s", what);
	if (len == 0 || rtb_port_property(key, buf, len) != RTB_OK || buf[0] == '\0')
		return NULL;
	return buf;
}
