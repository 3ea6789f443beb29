/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the options (record/options.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_OPTIONS_H
#define PMUCTX_TOOLS_RECORD_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* --buffer-size: 256K, 4M, 1GiB, 65536; 0 or -EINVAL */
int record_parse_size(const char *s, uint64_t *out);
/* --records switch,fork,...|all: the PMUCTX_REC_MASK_* bits; 0 or -EINVAL */
int record_parse_mask(const char *list, __u32 *out);
/* --trigger 'EVENT>VALUE': 0, or -EINVAL with the reason in @why */
int record_parse_trigger(const char *s, int *event, uint64_t *threshold,
			 char *why, size_t why_len);

/*
 * the command line into @o (which has the defaults): 0, -1 after --help,
 * or EXIT_USAGE (printed); o->t.events is the caller's to free
 */
int record_parse_opts(int argc, char **argv, struct record_opts *o);
/*
 * the events of -e (or the default) with --trigger's added: 0, or
 * EXIT_USAGE (printed); frees o->t.events
 */
int record_events(struct record_opts *o, struct record_events *ev);

#endif
