/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx record: the session and its ring buffers (record/session.c).
 */
#ifndef PMUCTX_TOOLS_RECORD_SESSION_H
#define PMUCTX_TOOLS_RECORD_SESSION_H

#include "record/record.h"

/* the PMUCTX_SAMPLE_* flags of -g / --call-graph */
__u32 record_sample_flags(const struct record_opts *o);
/* the records the session writes (--records, --switch-events, -g) */
__u32 record_ring_records(const struct record_opts *o, __u64 features);
/* R->pages, R->page_size and R->rounded from R->o's --buffer-size */
void record_buffer_pages(struct recorder *R);
/*
 * create the session of R->o and R->ev on the device R->h for R->child
 * (or -p's process), read the module's info and map the buffers: 0, or
 * EXIT_RUNTIME (printed)
 */
int record_open_session(struct recorder *R);

#endif
