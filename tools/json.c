// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal streaming JSON writer.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

void json_init(struct json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

/* separator before a value (or a key) */
static void sep(struct json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
}

static void push(struct json *j, char c)
{
	sep(j);
	fputc(c, j->f);
	if (j->depth < JSON_MAX_DEPTH - 1)
		j->depth++;
	j->first[j->depth] = true;
}

static void pop(struct json *j, char c)
{
	fputc(c, j->f);
	if (j->depth > 0)
		j->depth--;
}

void json_begin_object(struct json *j) { push(j, '{'); }
void json_end_object(struct json *j) { pop(j, '}'); }
void json_begin_array(struct json *j) { push(j, '['); }
void json_end_array(struct json *j) { pop(j, ']'); }

/* length of a valid UTF-8 sequence at s (max n bytes), 0 if invalid */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong, surrogates, out of range */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

void json_write_escaped(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	fputc('"', f);
	while (i < n && s[i]) {
		unsigned char c = s[i];
		size_t l;

		switch (c) {
		case '"':  fputs("\\\"", f); i++; continue;
		case '\\': fputs("\\\\", f); i++; continue;
		case '\n': fputs("\\n", f); i++; continue;
		case '\r': fputs("\\r", f); i++; continue;
		case '\t': fputs("\\t", f); i++; continue;
		case '\b': fputs("\\b", f); i++; continue;
		case '\f': fputs("\\f", f); i++; continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			i++;
			continue;
		}
		l = utf8_len(s + i, n - i);
		if (!l) {
			fputs("\\ufffd", f);
			i++;
			continue;
		}
		fwrite(s + i, 1, l, f);
		i += l;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	sep(j);
	json_write_escaped(j->f, key, strlen(key));
	fputc(':', j->f);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	if (!s) {
		json_null(j);
		return;
	}
	json_string_n(j, s, strlen(s));
}

void json_string_n(struct json *j, const char *s, size_t n)
{
	sep(j);
	json_write_escaped(j->f, s, n);
}

void json_u64(struct json *j, uint64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	sep(j);
	fprintf(j->f, "%" PRId64, v);
}

void json_double(struct json *j, double v)
{
	sep(j);
	if (isfinite(v))
		fprintf(j->f, "%.9g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, bool v)
{
	sep(j);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	sep(j);
	fputs("null", j->f);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}
