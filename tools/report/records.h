/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmuctx report: the records of a file in time order, and the fields
 * every output prints the same way (report/records.c).
 */
#ifndef PMUCTX_TOOLS_REPORT_RECORDS_H
#define PMUCTX_TOOLS_REPORT_RECORDS_H

#include "report/report.h"

static inline const struct pmuctx_rec_common *
rec_common(const struct pmuctx_rec_header *h)
{
	return (const struct pmuctx_rec_common *)(h + 1);
}

/*
 * report_read() - read and check the recording @path (PMF_READ_* @flags)
 * into *@out, R->r and R->info; why it cannot be read, or what a
 * --partial read dropped, on standard error after "pmuctx @cmd: ".
 * 0, or EXIT_RUNTIME.
 */
int report_read(struct report *R, const char *path, unsigned int flags,
		const char *cmd, struct pmf_reader **out);
/* qsort() order of records: time, CPU, type, tid, size, contents */
int report_cmp_rec(const void *a, const void *b);
/* all records of the file, in time order, each distinct one once */
const struct pmuctx_rec_header **report_merged(const struct pmf_reader *r,
					       size_t *n);
/* the name of event @i of the recording ("event3" if unknown) */
const char *report_event_label(const struct pmf_info *info, unsigned int i,
			       char *buf, size_t len);
/* a value of event @i: "12.345 ms" for ns, else the count */
void report_print_value(FILE *f, const struct pmf_info *info, unsigned int i,
			__u64 v);
/* bytes as C writes them in a string: printable ASCII, else \xNN */
void report_print_escaped(FILE *f, const unsigned char *p, size_t n);
/* the sampled event of a recording: NULL for the hrtimer (cpu-clock) */
const char *report_sample_event(const struct pmf_info *in);
/* the hrtimer sampler's nominal period, ns */
__u64 report_nominal_period_ns(const struct pmf_info *in);
/* the periods of the recording's samples are ns (hrtimer, clock events) */
bool report_sample_period_ns(const struct pmf_info *in);
/* a THROTTLE record, zero-filled where an older module's stops short */
void report_throttle_of(const struct pmuctx_rec_header *h,
			struct pmuctx_rec_throttle *t);

#endif
