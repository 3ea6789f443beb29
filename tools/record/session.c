// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx record: the session and its ring buffers.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmfile.h"
#include "record/session.h"

__u32 record_sample_flags(const struct record_opts *o)
{
	switch (o->call_graph) {
	case CG_FP:
		return PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK;
	case CG_DEFER:
		return PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK |
		       PMUCTX_SAMPLE_DEFER_USER;
	case CG_DWARF:
		return PMUCTX_SAMPLE_KERNEL_STACK | PMUCTX_SAMPLE_USER_STACK |
		       PMUCTX_SAMPLE_DEFER_USER | PMUCTX_SAMPLE_USER_DUMP;
	default:
		return 0;
	}
}

__u32 record_ring_records(const struct record_opts *o, __u64 features)
{
	return (o->have_records ? o->records : DEFAULT_RECORDS) |
	       (o->switch_events ? PMUCTX_REC_MASK_SWITCH : 0) |
	       (!o->have_records && o->call_graph &&
		(features & PMUCTX_FEAT_MMAP) ? PMUCTX_REC_MASK_MMAP : 0);
}

/* Does the module write MMAP records (PMUCTX_FEAT_MMAP)? */
static bool mmap_records(struct pmuctx *h)
{
	struct pmuctx_info info;

	return !pmuctx_info(h, &info) && (info.features & PMUCTX_FEAT_MMAP);
}

static int create_session(struct pmuctx *h, const struct record_opts *o,
			  const struct record_events *ev, __u32 pages,
			  pid_t child)
{
	struct pmuctx_event_spec specs[PMUCTX_MAX_EVENTS];
	LIBPMUCTX_OPTS(pmuctx_session_opts, so,
		.event_specs = specs,
		.nr_event_specs = (size_t)ev->nr,
		.ring_pages = pages,
		.ring_mode = o->overwrite ? PMUCTX_RING_OVERWRITE :
			     PMUCTX_RING_NORMAL,
	);
	long ps = sysconf(_SC_PAGESIZE);

	/* -e's modifiers and raw configs (parse_events()) */
	event_specs_of(ev->ids, ev->nr, specs);
	session_target(&so, o->t.system_wide, NULL,
		       o->t.pid ? o->t.pid : child, !o->t.no_inherit);
	so.ring_records = o->have_records ? o->records : DEFAULT_RECORDS;
	if (o->switch_events)
		so.ring_records |= PMUCTX_REC_MASK_SWITCH;
	if (!o->have_records && o->call_graph && mmap_records(h))
		so.ring_records |= PMUCTX_REC_MASK_MMAP;
	if (!o->overwrite)
		so.wakeup_bytes = (__u32)((uint64_t)pages * (uint64_t)ps / 4);
	if (ev->trig_idx >= 0) {
		so.trigger_event = (__u32)ev->trig_idx + 1;
		so.trigger_threshold = ev->threshold;
	}
	so.sample_freq = o->freq;
	/* a spec (cycles:u, r00c0) goes by name; its id is in the file */
	if (o->sample_spec.name[0] &&
	    (o->sample_spec.desc.flags || o->sample_event == PMUCTX_EV_RAW))
		so.sample_event_name = o->sample_spec.name;
	else
		so.sample_event = o->sample_event;
	so.sample_flags = record_sample_flags(o);
	if (o->call_graph == CG_DWARF)
		so.sample_user_dump = o->dump_size;
	if (o->call_graph)
		so.sample_max_stack = o->max_stack ? o->max_stack :
				      DEFAULT_MAX_STACK;
	return pmuctx_session_create(h, &so);
}

static __u32 pages_for(uint64_t bytes, long ps, bool *rounded)
{
	uint64_t pages = (bytes + (uint64_t)ps - 1) / (uint64_t)ps, p2 = 1;

	while (p2 < pages)
		p2 <<= 1;
	*rounded = p2 * (uint64_t)ps != bytes;
	return p2 > UINT32_MAX ? UINT32_MAX : (__u32)p2;
}

void record_buffer_pages(struct recorder *R)
{
	R->page_size = sysconf(_SC_PAGESIZE);
	if (R->page_size <= 0)
		R->page_size = 4096;
	R->pages = pages_for(R->o->buffer_size, R->page_size, &R->rounded);
}

int record_open_session(struct recorder *R)
{
	int err;

	err = create_session(R->h, R->o, &R->ev, R->pages, R->child);
	if (!err)
		err = pmuctx_info(R->h, &R->info);
	if (!err)
		err = pmuctx_ring_map(R->h, &R->ring);
	if (err) {
		lib_error(CMD, R->h, err);
		if (err == -EACCES && R->o->sample_event)
			fprintf(stderr, "  --sample-event needs CAP_PERFMON: "
				"its counters overflow on every CPU, whoever "
				"runs there; without it, sample on the "
				"hrtimer (no --sample-event)\n");
		if (err == -ENOMEM || err == -EPERM)
			fprintf(stderr, "  (--buffer-size %" PRIu64
				" bytes: %u pages of %ld bytes per CPU)\n",
				R->o->buffer_size, R->pages, R->page_size);
		return EXIT_RUNTIME;
	}
	if (R->rounded && !R->o->quiet)
		fprintf(stderr, "pmuctx record: note: buffer size rounded up "
			"to %u pages (%llu bytes) per CPU\n", R->pages,
			(unsigned long long)R->pages *
			(unsigned long long)R->page_size);
	R->nr_cpus = pmuctx_ring_nr_cpus(R->ring);
	R->prev_lost = calloc(R->nr_cpus, sizeof(*R->prev_lost));
	R->prev_over = calloc(R->nr_cpus, sizeof(*R->prev_over));
	R->stats = calloc(R->nr_cpus, sizeof(*R->stats));
	if (!R->prev_lost || !R->prev_over || !R->stats) {
		fprintf(stderr, "pmuctx record: out of memory\n");
		return EXIT_RUNTIME;
	}
	return 0;
}
