/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal streaming JSON writer (compact, one line).
 */
#ifndef PMUCTX_TOOLS_JSON_H
#define PMUCTX_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

struct json {
	FILE *f;
	int depth;
	bool first[JSON_MAX_DEPTH];	/* no element written yet at depth */
	bool after_key;
};

void json_init(struct json *j, FILE *f);
void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);
void json_string(struct json *j, const char *s);
/* at most @n bytes of @s (stops at NUL) */
void json_string_n(struct json *j, const char *s, size_t n);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* key + value shorthands */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_i64(struct json *j, const char *key, int64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);

/* write @s[0..n) as a JSON string literal (valid UTF-8 kept, bad bytes
 * become U+FFFD, control characters escaped) */
void json_write_escaped(FILE *f, const char *s, size_t n);

#endif
