/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A small strict JSON parser for the tests (RFC 8259): it rejects anything
 * a conforming reader would reject (leading zeros, raw control characters
 * in strings, bad escapes, lone surrogates, malformed UTF-8, trailing
 * commas, trailing garbage) and also duplicate keys, which the rtbench
 * protocol never produces. Parsed values form a small tree; numbers keep
 * their literal text so 128-bit integers can be compared exactly.
 */
#ifndef RTB_JSON_MINI_H
#define RTB_JSON_MINI_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jv_type { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_type type;
	bool b;
	char *text;	  /* JV_NUM: the literal; JV_STR: decoded bytes, NUL-terminated */
	size_t text_len;  /* decoded length (a string may contain NUL as \u0000) */
	struct jv *items; /* JV_ARR, JV_OBJ */
	char **keys;	  /* JV_OBJ */
	size_t n;
};

struct jv_parser {
	const char *p;
	const char *end;
	char error[160];
};

static inline bool jv_fail(struct jv_parser *ps, const char *fmt, ...)
{
	if (ps->error[0] == '\0') {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->error, sizeof(ps->error), fmt, ap);
		va_end(ap);
	}
	return false;
}

static inline void jv_skip_ws(struct jv_parser *ps)
{
	while (ps->p < ps->end &&
	       (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
}

static inline void jv_clear(struct jv *v)
{
	if (v->type == JV_ARR || v->type == JV_OBJ) {
		for (size_t i = 0; i < v->n; i++) {
			jv_clear(&v->items[i]);
			if (v->keys != NULL)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
	free(v->text);
	memset(v, 0, sizeof(*v));
}

struct jv_buf {
	char *s;
	size_t len, cap;
};

static inline void jv_buf_put(struct jv_buf *b, char c)
{
	if (b->len + 2 > b->cap) {
		b->cap = b->cap ? b->cap * 2 : 32;
		b->s = realloc(b->s, b->cap);
	}
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

static inline void jv_buf_utf8(struct jv_buf *b, uint32_t cp)
{
	if (cp < 0x80) {
		jv_buf_put(b, (char)cp);
	} else if (cp < 0x800) {
		jv_buf_put(b, (char)(0xc0 | (cp >> 6)));
		jv_buf_put(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		jv_buf_put(b, (char)(0xe0 | (cp >> 12)));
		jv_buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		jv_buf_put(b, (char)(0x80 | (cp & 0x3f)));
	} else {
		jv_buf_put(b, (char)(0xf0 | (cp >> 18)));
		jv_buf_put(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		jv_buf_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		jv_buf_put(b, (char)(0x80 | (cp & 0x3f)));
	}
}

static inline bool jv_hex4(struct jv_parser *ps, uint32_t *out)
{
	uint32_t v = 0;

	if (ps->end - ps->p < 4)
		return jv_fail(ps, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		char c = *ps->p++;
		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return jv_fail(ps, "bad hex digit in \\u escape");
	}
	*out = v;
	return true;
}

/* One UTF-8 sequence starting at a byte >= 0x80: well-formed, shortest
 * form, no surrogates, at most U+10FFFF. */
static inline bool jv_utf8(struct jv_parser *ps, struct jv_buf *b)
{
	const unsigned char *s = (const unsigned char *)ps->p;
	size_t avail = (size_t)(ps->end - ps->p);
	uint32_t cp;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		cp = s[0] & 0x1fu;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		cp = s[0] & 0x0fu;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		cp = s[0] & 0x07u;
	} else {
		return jv_fail(ps, "invalid UTF-8 lead byte 0x%02x", s[0]);
	}
	if (avail < n)
		return jv_fail(ps, "truncated UTF-8 sequence");
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return jv_fail(ps, "invalid UTF-8 continuation byte");
		cp = (cp << 6) | (s[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000))
		return jv_fail(ps, "overlong UTF-8 sequence");
	if ((cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return jv_fail(ps, "UTF-8 encodes an invalid code point");
	for (size_t i = 0; i < n; i++)
		jv_buf_put(b, (char)s[i]);
	ps->p += n;
	return true;
}

static inline bool jv_string(struct jv_parser *ps, struct jv_buf *b)
{
	ps->p++; /* opening quote */
	jv_buf_put(b, 'x');
	b->len = 0;
	b->s[0] = '\0';
	while (ps->p < ps->end) {
		unsigned char c = (unsigned char)*ps->p;
		if (c == '"') {
			ps->p++;
			return true;
		}
		if (c < 0x20)
			return jv_fail(ps, "raw control character 0x%02x in a string", c);
		if (c >= 0x80) {
			if (!jv_utf8(ps, b))
				return false;
			continue;
		}
		ps->p++;
		if (c != '\\') {
			jv_buf_put(b, (char)c);
			continue;
		}
		if (ps->p >= ps->end)
			return jv_fail(ps, "unterminated escape");
		char e = *ps->p++;
		switch (e) {
		case '"':
		case '\\':
		case '/':
			jv_buf_put(b, e);
			break;
		case 'b':
			jv_buf_put(b, '\b');
			break;
		case 'f':
			jv_buf_put(b, '\f');
			break;
		case 'n':
			jv_buf_put(b, '\n');
			break;
		case 'r':
			jv_buf_put(b, '\r');
			break;
		case 't':
			jv_buf_put(b, '\t');
			break;
		case 'u': {
			uint32_t cp = 0, lo = 0;
			if (!jv_hex4(ps, &cp))
				return false;
			if (cp >= 0xdc00 && cp <= 0xdfff)
				return jv_fail(ps, "lone low surrogate");
			if (cp >= 0xd800 && cp <= 0xdbff) {
				if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
					return jv_fail(ps, "lone high surrogate");
				ps->p += 2;
				if (!jv_hex4(ps, &lo))
					return false;
				if (lo < 0xdc00 || lo > 0xdfff)
					return jv_fail(ps, "bad low surrogate");
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			}
			jv_buf_utf8(b, cp);
			break;
		}
		default:
			return jv_fail(ps, "bad escape \\%c", e);
		}
	}
	return jv_fail(ps, "unterminated string");
}

static inline bool jv_digits(struct jv_parser *ps)
{
	const char *start = ps->p;

	while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
		ps->p++;
	return ps->p > start;
}

static inline bool jv_number(struct jv_parser *ps, struct jv *v)
{
	const char *start = ps->p;

	if (*ps->p == '-')
		ps->p++;
	if (ps->p < ps->end && *ps->p == '0') {
		ps->p++;
		if (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9')
			return jv_fail(ps, "leading zero in a number");
	} else if (!jv_digits(ps)) {
		return jv_fail(ps, "number without digits");
	}
	if (ps->p < ps->end && *ps->p == '.') {
		ps->p++;
		if (!jv_digits(ps))
			return jv_fail(ps, "fraction without digits");
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (!jv_digits(ps))
			return jv_fail(ps, "exponent without digits");
	}
	v->type = JV_NUM;
	v->text_len = (size_t)(ps->p - start);
	v->text = malloc(v->text_len + 1);
	memcpy(v->text, start, v->text_len);
	v->text[v->text_len] = '\0';
	return true;
}

static inline bool jv_literal(struct jv_parser *ps, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
		return jv_fail(ps, "unexpected character '%c'", *ps->p);
	ps->p += n;
	return true;
}

static inline bool jv_value(struct jv_parser *ps, struct jv *v, int depth);

static inline bool jv_container(struct jv_parser *ps, struct jv *v, int depth, bool object)
{
	char close = object ? '}' : ']';
	size_t cap = 0;

	v->type = object ? JV_OBJ : JV_ARR;
	ps->p++;
	jv_skip_ws(ps);
	if (ps->p < ps->end && *ps->p == close) {
		ps->p++;
		return true;
	}
	for (;;) {
		if (v->n == cap) {
			cap = cap ? cap * 2 : 8;
			v->items = realloc(v->items, cap * sizeof(*v->items));
			if (object)
				v->keys = realloc(v->keys, cap * sizeof(*v->keys));
		}
		struct jv *item = &v->items[v->n];
		memset(item, 0, sizeof(*item));
		jv_skip_ws(ps);
		if (object) {
			struct jv_buf key = {0};
			if (ps->p >= ps->end || *ps->p != '"')
				return jv_fail(ps, "object key is not a string");
			bool ok = jv_string(ps, &key);
			v->keys[v->n] = key.s;
			if (!ok) {
				v->n++;
				return false;
			}
			for (size_t i = 0; i < v->n; i++) {
				if (strcmp(v->keys[i], key.s) == 0) {
					v->n++;
					return jv_fail(ps, "duplicate key \"%s\"", key.s);
				}
			}
			jv_skip_ws(ps);
			if (ps->p >= ps->end || *ps->p != ':') {
				v->n++;
				return jv_fail(ps, "missing ':' after a key");
			}
			ps->p++;
		}
		v->n++;
		if (!jv_value(ps, item, depth + 1))
			return false;
		jv_skip_ws(ps);
		if (ps->p >= ps->end)
			return jv_fail(ps, "unterminated container");
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p == close) {
			ps->p++;
			return true;
		}
		return jv_fail(ps, "expected ',' or '%c'", close);
	}
}

static inline bool jv_value(struct jv_parser *ps, struct jv *v, int depth)
{
	if (depth > 64)
		return jv_fail(ps, "nesting too deep");
	jv_skip_ws(ps);
	if (ps->p >= ps->end)
		return jv_fail(ps, "missing value");
	switch (*ps->p) {
	case '{':
		return jv_container(ps, v, depth, true);
	case '[':
		return jv_container(ps, v, depth, false);
	case '"': {
		struct jv_buf b = {0};
		v->type = JV_STR;
		bool ok = jv_string(ps, &b);
		v->text = b.s;
		v->text_len = b.len;
		return ok;
	}
	case 't':
		v->type = JV_BOOL;
		v->b = true;
		return jv_literal(ps, "true");
	case 'f':
		v->type = JV_BOOL;
		return jv_literal(ps, "false");
	case 'n':
		v->type = JV_NULL;
		return jv_literal(ps, "null");
	default:
		if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
			return jv_number(ps, v);
		return jv_fail(ps, "unexpected character '%c'", *ps->p);
	}
}

/* Parse exactly one JSON text from [text, text + len). Returns a tree to
 * release with jv_free(), or NULL with the reason in err. */
static inline struct jv *jv_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct jv_parser ps = {text, text + len, ""};
	struct jv *v = calloc(1, sizeof(*v));
	bool ok = jv_value(&ps, v, 0);

	if (ok) {
		jv_skip_ws(&ps);
		if (ps.p != ps.end)
			ok = jv_fail(&ps, "trailing characters after the value");
	}
	if (!ok) {
		if (err != NULL)
			snprintf(err, errlen, "%s at offset %zu", ps.error, (size_t)(ps.p - text));
		jv_clear(v);
		free(v);
		return NULL;
	}
	return v;
}

static inline void jv_free(struct jv *v)
{
	if (v != NULL) {
		jv_clear(v);
		free(v);
	}
}

/* Member of an object, or NULL. */
static inline const struct jv *jv_get(const struct jv *obj, const char *key)
{
	if (obj == NULL || obj->type != JV_OBJ)
		return NULL;
	for (size_t i = 0; i < obj->n; i++) {
		if (strcmp(obj->keys[i], key) == 0)
			return &obj->items[i];
	}
	return NULL;
}

/* Dotted path of object members: "stats.count". */
static inline const struct jv *jv_path(const struct jv *v, const char *path)
{
	char key[64];

	while (v != NULL && *path != '\0') {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		v = jv_get(v, key);
		path += n;
		if (*path == '.')
			path++;
	}
	return v;
}

/* A non-negative integer literal that fits uint64_t. */
static inline bool jv_u64(const struct jv *v, uint64_t *out)
{
	uint64_t x = 0;

	if (v == NULL || v->type != JV_NUM)
		return false;
	for (const char *s = v->text; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
		uint64_t d = (uint64_t)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*out = x;
	return true;
}

static inline double jv_dbl(const struct jv *v)
{
	return v != NULL && v->type == JV_NUM ? strtod(v->text, NULL) : 0.0 / 0.0;
}

static inline const char *jv_str(const struct jv *v)
{
	return v != NULL && v->type == JV_STR ? v->text : NULL;
}

/* Split text into lines; parse each. Returns the number of lines, or -1
 * (with the line number and reason in err) if one is not valid JSON or the
 * text does not end with a newline. The trees go to lines[] (up to max). */
static inline int jv_parse_lines(const char *text, struct jv **lines, int max, char *err,
				 size_t errlen)
{
	int n = 0;
	const char *p = text;

	while (*p != '\0') {
		const char *nl = strchr(p, '\n');
		if (nl == NULL) {
			snprintf(err, errlen, "line %d has no terminating newline", n + 1);
			return -1;
		}
		char why[200];
		struct jv *v = jv_parse(p, (size_t)(nl - p), why, sizeof(why));
		if (v == NULL || v->type != JV_OBJ) {
			snprintf(err, errlen, "line %d: %s", n + 1,
				 v == NULL ? why : "not an object");
			jv_free(v);
			return -1;
		}
		if (n < max)
			lines[n] = v;
		else
			jv_free(v);
		n++;
		p = nl + 1;
	}
	return n;
}

#endif
