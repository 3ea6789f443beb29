// SPDX-License-Identifier: GPL-2.0
/*
 * A strict little JSON validator (RFC 8259), for checking --json output.
 */
#include <ctype.h>
#include <string.h>

#include "test.h"

struct jp {
	const char *p;
	int depth;
};

static void ws(struct jp *j)
{
	while (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' ||
	       *j->p == '\r')
		j->p++;
}

static int value(struct jp *j);

static int string(struct jp *j)
{
	if (*j->p != '"')
		return -1;
	j->p++;
	while (*j->p != '"') {
		unsigned char c = (unsigned char)*j->p;

		if (!c || c < 0x20)
			return -1;
		if (c == '\\') {
			j->p++;
			if (strchr("\"\\/bfnrt", *j->p) && *j->p) {
				j->p++;
			} else if (*j->p == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)j->p[i]))
						return -1;
				j->p += 5;
			} else {
				return -1;
			}
			continue;
		}
		if (c >= 0x80) {	/* valid UTF-8 required */
			int n = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ?
				2 : (c & 0xf8) == 0xf0 ? 3 : -1, i;

			if (n < 0)
				return -1;
			for (i = 1; i <= n; i++)
				if (((unsigned char)j->p[i] & 0xc0) != 0x80)
					return -1;
			j->p += n + 1;
			continue;
		}
		j->p++;
	}
	j->p++;
	return 0;
}

static int number(struct jp *j)
{
	const char *s = j->p;

	if (*j->p == '-')
		j->p++;
	if (*j->p == '0')
		j->p++;
	else if (isdigit((unsigned char)*j->p))
		while (isdigit((unsigned char)*j->p))
			j->p++;
	else
		return -1;
	if (*j->p == '.') {
		j->p++;
		if (!isdigit((unsigned char)*j->p))
			return -1;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!isdigit((unsigned char)*j->p))
			return -1;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	return j->p > s ? 0 : -1;
}

/*
 * An object ('{' ... '}') or an array ('[' ... ']'): the same loop of
 * members separated by ',', an object's member a string key and ':'
 * before its value.
 */
static int container(struct jp *j, int is_object)
{
	char close = is_object ? '}' : ']';

	j->p++;
	ws(j);
	if (*j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (is_object) {
			ws(j);
			if (string(j))
				return -1;
			ws(j);
			if (*j->p != ':')
				return -1;
			j->p++;
		}
		if (value(j))
			return -1;
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		return -1;
	}
}

static int value(struct jp *j)
{
	int r;

	ws(j);
	if (++j->depth > 64)
		return -1;
	switch (*j->p) {
	case '{': r = container(j, 1); break;
	case '[': r = container(j, 0); break;
	case '"': r = string(j); break;
	case 't': r = strncmp(j->p, "true", 4) ? -1 : (j->p += 4, 0); break;
	case 'f': r = strncmp(j->p, "false", 5) ? -1 : (j->p += 5, 0); break;
	case 'n': r = strncmp(j->p, "null", 4) ? -1 : (j->p += 4, 0); break;
	default: r = number(j);
	}
	j->depth--;
	return r;
}

int json_validate(const char *s, const char **err_at)
{
	struct jp j = { .p = s };
	int r = value(&j);

	if (!r) {
		ws(&j);
		if (*j.p)
			r = -1;
	}
	if (err_at)
		*err_at = j.p;
	return r;
}
