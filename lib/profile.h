/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * libpmuctx internals shared by stitch.c and symbols.c.  Not installed.
 */
#ifndef __LIBPMUCTX_PROFILE_H
#define __LIBPMUCTX_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* 64-bit mix (splitmix64's finaliser) for the hash tables */
static inline uint64_t pmuctx__mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

#endif /* __LIBPMUCTX_PROFILE_H */
