// SPDX-License-Identifier: BSD-2-Clause
/*
 * lib-stat: count this process with libpmuctx (the same job as raw-ioctl.c).
 * Build: cc -Wall lib-stat.c $(pkg-config --cflags --libs libpmuctx)
 */
#include <stdio.h>
#include <stdlib.h>
#include <pmuctx.h>

static int fail(struct pmuctx *h, int err, const char *what)
{
	char msg[1024];

	pmuctx_errmsg(h, err, msg, sizeof(msg));	/* what failed and why */
	fprintf(stderr, "lib-stat: %s: %s\n", what, msg);
	pmuctx_close(h);
	return 1;
}

int main(void)
{
	LIBPMUCTX_OPTS(pmuctx_session_opts, opts,
		       .events = "task-clock,context-switches,page-faults");
	struct pmuctx_counts c;
	struct pmuctx *h;
	volatile unsigned long x = 0;
	int err;

	err = pmuctx_open(&h, NULL);			/* /dev/pmuctx */
	if (err)
		return fail(NULL, err, "open");
	err = pmuctx_session_create(h, &opts);		/* pid 0: ourselves */
	if (err)
		return fail(h, err, "session");
	if ((err = pmuctx_enable(h)))
		return fail(h, err, "enable");
	char *p = malloc(8u << 20);			/* the work to count */
	for (size_t i = 0; p && i < (8u << 20); i += 4096)
		p[i] = 1;
	for (unsigned long i = 0; i < 20000000; i++)
		x += i;
	free(p);
	if ((err = pmuctx_disable(h)) || (err = pmuctx_read(h, &c, NULL)))
		return fail(h, err, "read");
	for (unsigned int i = 0; i < c.nr_events; i++)
		printf("%-16s %12llu %s\n", pmuctx_event_name(c.events[i]),
		       (unsigned long long)c.values[i],
		       pmuctx_event_unit(c.events[i]));
	pmuctx_close(h);				/* ends the session */
	return 0;
}
