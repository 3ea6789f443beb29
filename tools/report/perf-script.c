// SPDX-License-Identifier: GPL-2.0
/*
 * pmuctx report --format perf-script: the records as perf script prints
 * its own, tracepoint lines for the scheduler records and samples with
 * their stitched, symbolized callchains, as stackcollapse-perf.pl and
 * other perf script readers take them.
 */
#include <inttypes.h>
#include <stdint.h>

#include "report/perf-script.h"
#include "report/records.h"
#include "report/tasks.h"
#include "report/windows.h"

static void perf_frame(FILE *f, const struct prof_frame *fr)
{
	fprintf(f, "\t%16llx ", (unsigned long long)fr->addr);
	if (fr->name && fr->addr >= fr->sym_start)
		fprintf(f, "%s+0x%llx", fr->name,
			(unsigned long long)(fr->addr - fr->sym_start));
	else
		fprintf(f, "[unknown]");
	fprintf(f, " (%s)\n", fr->module ? fr->module :
		fr->kernel ? "[kernel.kallsyms]" : "[unknown]");
}

/*
 * A sample as perf script prints one recorded with -g: the header, then
 * its stitched callchain innermost first (kernel, then user), symbolized,
 * and a blank line.  Deferred samples whose user callchain never came show
 * their kernel part only.
 */
static void perf_sample(struct report *R, const struct pmuctx_rec_sample *sm)
{
	const struct prof_sample *x;
	FILE *f = R->out;
	__u32 i;

	const char *ev = report_sample_event(R->info);
	const struct pmuctx_rec_common *c = &sm->c;
	__u64 period = sm->period;
	char cb[32];

	x = prof_find_sample(R->prof, sm->c.cpu, sm->c.time, sm->c.tid,
			     sm->ip);
	if (!x && R->filter)
		return;		/* --comms ... --time left it out */
	/* the period the other outputs weigh it by (--weight) */
	if (x && R->weight != PROF_WEIGHT_RAW_PERIOD)
		period = x->weight;

	/*
	 * perf script's header of a sample with a callchain: the comm not
	 * padded, pid/tid, [cpu], time, the period and the event, ':' after
	 * it (then a space, as perf prints it).  One name per event, as perf
	 * prints its evsel's name whatever mode a sample interrupted: readers
	 * (stackcollapse-perf.pl, speedscope) keep the samples of the first
	 * event name they meet and drop the others.  The mode shows in the
	 * frames, as in perf's: kernel ones are in [kernel.kallsyms].  The
	 * period is the one the report weighs (capped at the sampling
	 * period; raw with --weight raw-period), so that the readers'
	 * totals are --format folded's.
	 */
	fprintf(f, "%s %5d/%-5d [%03u] %5" PRIu64 ".%06" PRIu64 ": %10llu "
		"%s: \n",
		report_comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb)),
		(int)c->pid, (int)c->tid, c->cpu,
		(uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL / 1000ULL),
		(unsigned long long)period, ev ? ev : "cpu-clock");
	if (x) {
		for (i = 0; i < x->nr; i++)
			perf_frame(f, &R->prof->frames[R->prof->sample_frames[
					x->first + i] - 1]);
	} else {
		fprintf(f, "\t%16llx [unknown] (%s)\n",
			(unsigned long long)sm->ip,
			sm->hdr.misc & PMUCTX_SAMPLE_M_USER ? "[unknown]" :
			"[kernel.kallsyms]");
	}
	fputc('\n', f);
}

static bool has_id(const __s32 *v, size_t n, __s32 id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] == id)
			return true;
	return false;
}

/* --comms, --pid, --tid, --time: does the line of @h stay? */
static bool line_passes(struct report *R, const struct pmuctx_rec_header *h)
{
	const struct prof_filter *F = R->filter;
	const struct pmuctx_rec_common *c = rec_common(h);
	char cb[32];
	const char *comm;
	size_t i;

	if (!F)
		return true;
	if ((F->nr_pids && !has_id(F->pids, F->nr_pids, c->pid)) ||
	    (F->nr_tids && !has_id(F->tids, F->nr_tids, c->tid)))
		return false;
	for (i = 0; i < F->nr_times; i++)
		if (c->time >= F->times[i].start &&
		    (!F->times[i].end || c->time <= F->times[i].end))
			break;
	if (F->nr_times && i == F->nr_times)
		return false;
	if (!F->nr_comms)
		return true;
	comm = report_comm_of(R, c->pid, c->tid, c->cpu, cb, sizeof(cb));
	for (i = 0; i < F->nr_comms; i++)
		if (!strcmp(F->comms[i], comm))
			return true;
	return false;
}

static void perf_line(struct report *R, const struct pmuctx_rec_header *h)
{
	const struct pmuctx_rec_common *c = rec_common(h);
	FILE *f = R->out;
	char cb[32], cb2[32], st[8];
	const char *comm = !c->tid && !c->pid ? "swapper" :
			   report_comm_of(R, c->pid, c->tid, c->cpu, cb,
					  sizeof(cb));

	switch (h->type) {
	case PMUCTX_REC_FORK:
	case PMUCTX_REC_EXEC:
	case PMUCTX_REC_EXIT:
		/*
		 * with samples, the task records are side-band, as perf's
		 * (perf script shows them with --show-task-events only):
		 * they name the tasks, a sample reader gets samples alone
		 */
		if (R->samples)
			return;
		break;
	case PMUCTX_REC_SWITCH:
	case PMUCTX_REC_USER:
		break;
	case PMUCTX_REC_SAMPLE:
		perf_sample(R, (const struct pmuctx_rec_sample *)h);
		return;
	default:
		return;
	}
	if (!line_passes(R, h))
		return;
	/* perf script's header of a tracepoint: the comm right-aligned */
	fprintf(f, "%16s %6d [%03u] %5" PRIu64 ".%06" PRIu64 ": ", comm,
		(int)c->tid, c->cpu, (uint64_t)(c->time / 1000000000ULL),
		(uint64_t)(c->time % 1000000000ULL / 1000ULL));
	switch (h->type) {
	case PMUCTX_REC_SWITCH: {
		const struct pmuctx_rec_switch *s = (const void *)h;

		report_state_str(s->prev_state,
				 h->misc & PMUCTX_SWITCH_PREEMPT, st,
				 sizeof(st));
		fprintf(f, "pmuctx:sched_switch: prev_comm=%s prev_pid=%d "
			"prev_state=%s ==> next_comm=%s next_pid=%d\n",
			report_comm_of(R, c->pid, c->tid, c->cpu, cb,
				       sizeof(cb)),
			(int)c->tid, st,
			report_comm_of(R, s->next_pid, s->next_tid, c->cpu, cb2,
				       sizeof(cb2)), (int)s->next_tid);
		break;
	}
	case PMUCTX_REC_FORK: {
		const struct pmuctx_rec_fork *k = (const void *)h;

		fprintf(f, "pmuctx:sched_process_fork: comm=%s pid=%d "
			"child_comm=%s child_pid=%d\n", comm, (int)c->tid,
			comm, (int)k->child_tid);
		break;
	}
	case PMUCTX_REC_EXEC: {
		const struct pmuctx_rec_exec *e = (const void *)h;

		fprintf(f, "pmuctx:sched_process_exec: filename=%s pid=%d "
			"old_pid=%d\n", h->size > sizeof(*e) ? e->filename :
			"", (int)c->tid, (int)c->tid);
		break;
	}
	case PMUCTX_REC_EXIT:
		fprintf(f, "pmuctx:sched_process_exit: comm=%s pid=%d\n",
			comm, (int)c->tid);
		break;
	case PMUCTX_REC_USER: {
		const struct pmuctx_rec_user *u = (const void *)h;

		fprintf(f, "pmuctx:user: len=%u data=\"", u->len);
		report_print_escaped(f, u->data, u->len);
		fprintf(f, "\"\n");
		break;
	}
	}
}

void report_perf_script(struct report *R,
			const struct pmuctx_rec_header **all, size_t n)
{
	size_t i, k;

	for (i = 0; i < R->cap; i++)
		R->tasks[i].have_comm = false;
	for (k = 0; k < n; k++) {
		report_account(R, all[k], false);
		perf_line(R, all[k]);
	}
	if (report_lost_total(R))
		fprintf(stderr, "pmuctx report: %llu record(s) were lost while "
			"recording\n",
			(unsigned long long)report_lost_total(R));
}
