/* SPDX-License-Identifier: GPL-2.0 */
/* tools/profile: a small open-addressing index, hash -> element index */
#ifndef PMUCTX_TOOLS_HIDX_H
#define PMUCTX_TOOLS_HIDX_H

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

struct hidx {
	__u64 *hash;
	__u32 *idx;		/* element index + 1; 0: empty */
	size_t cap;		/* power of two */
	size_t n;
};

static inline __u64 mix64(__u64 x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static inline __u64 hash_bytes(__u64 h, const void *p, size_t n)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < n; i++)
		h = (h ^ c[i]) * 0x100000001b3ULL;
	return mix64(h);
}

typedef bool (*hidx_eq)(const void *ctx, __u32 idx, const void *key);

/* the element index of @key, or -1 */
static inline long hidx_find(const struct hidx *h, __u64 hash, hidx_eq eq,
		      const void *ctx, const void *key)
{
	size_t i;

	if (!h->cap)
		return -1;
	for (i = hash & (h->cap - 1); h->idx[i]; i = (i + 1) & (h->cap - 1))
		if (h->hash[i] == hash && eq(ctx, h->idx[i] - 1, key))
			return (long)h->idx[i] - 1;
	return -1;
}

static inline int hidx_insert(struct hidx *h, __u64 hash, __u32 idx)
{
	size_t i;

	if ((h->n + 1) * 2 > h->cap) {
		size_t nc = h->cap ? h->cap * 2 : 1024, j;
		__u64 *nh = calloc(nc, sizeof(*nh));
		__u32 *ni = calloc(nc, sizeof(*ni));

		if (!nh || !ni) {
			free(nh);
			free(ni);
			return -ENOMEM;
		}
		for (j = 0; j < h->cap; j++) {
			if (!h->idx[j])
				continue;
			for (i = h->hash[j] & (nc - 1); ni[i];
			     i = (i + 1) & (nc - 1))
				;
			nh[i] = h->hash[j];
			ni[i] = h->idx[j];
		}
		free(h->hash);
		free(h->idx);
		h->hash = nh;
		h->idx = ni;
		h->cap = nc;
	}
	for (i = hash & (h->cap - 1); h->idx[i]; i = (i + 1) & (h->cap - 1))
		;
	h->hash[i] = hash;
	h->idx[i] = idx + 1;
	h->n++;
	return 0;
}

static inline void hidx_free(struct hidx *h)
{
	free(h->hash);
	free(h->idx);
	memset(h, 0, sizeof(*h));
}

#endif
