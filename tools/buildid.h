/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Build-ids (NT_GNU_BUILD_ID) of the files a recording maps: read by
 * pmuctx record when a file first appears in a memory map (pmfile.c's
 * BUILDID sections), compared by pmuctx report with the file there now.
 */
#ifndef PMUCTX_TOOLS_BUILDID_H
#define PMUCTX_TOOLS_BUILDID_H

#include <stddef.h>
#include <stdio.h>

#define BUILDID_MAX	32	/* bytes; GNU ld's sha1 is 20 */

struct pmf_reader;

/*
 * buildid_read() - the build-id of the ELF file at @path into @id
 * Returns its length (1..BUILDID_MAX); 0 when the file has none (not ELF,
 * no note, longer than BUILDID_MAX, not a regular file); -errno when it
 * cannot be opened (-ENOENT: gone).
 */
int buildid_read(const char *path, unsigned char id[BUILDID_MAX]);

/* @id (@len bytes) in hexadecimal into @buf (2 * BUILDID_MAX + 1) */
char *buildid_hex(const unsigned char *id, size_t len, char *buf);

/*
 * buildid_check() - the files of @r's BUILDID sections that are not the
 * ones recorded (another build-id, none, or gone), each named once on
 * @msgs after @prefix.  *@out (free() it) gets their paths (pointers
 * into @r), *@n their number.  0 or -ENOMEM.
 */
int buildid_check(const struct pmf_reader *r, const char *prefix, FILE *msgs,
		  const char ***out, size_t *n);

#endif
