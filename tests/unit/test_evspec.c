// SPDX-License-Identifier: GPL-2.0
/*
 * Event specs: perf's :u/:k/:h modifiers, raw events (rNNNN) and sysfs
 * PMU events (pmu/terms/) resolved against a fake
 * /sys/bus/event_source/devices ($PMUCTX_SYSFS_ROOT), what the library
 * puts in the session attr, and its messages for the module's refusals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <pmuctx.h>

#include "fake_kernel.h"
#include "test.h"

static char msg[4096];
static char root[64];

static const char *last_msg(int err)
{
	pmuctx_errmsg(NULL, err, msg, sizeof(msg));
	return msg;
}

static void put(const char *rel, const char *text)
{
	t_sysfs_put(root, rel, text);
}

/* an x86-like cpu PMU (type 4 = PERF_TYPE_RAW), an arm64 one, others */
static void make_sysfs(void)
{
	snprintf(root, sizeof(root), "/tmp/pmuctx-sysfs.XXXXXX");
	if (!mkdtemp(root))
		return;
	put("cpu/type", "4\n");
	put("cpu/format/event", "config:0-7\n");
	put("cpu/format/umask", "config:8-15\n");
	put("cpu/format/edge", "config:18\n");
	put("cpu/format/cmask", "config:24-31\n");
	put("cpu/format/ldlat", "config1:0-15\n");
	put("cpu/format/split", "config:0-3,32-35\n");
	put("cpu/events/cpu-cycles", "event=0x3c\n");
	put("cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=3\n");
	put("cpu/events/param", "event=0x1,umask=?\n");
	put("armv8_pmuv3_0/type", "10\n");
	put("armv8_pmuv3_0/format/event", "config:0-15\n");
	put("armv8_pmuv3_0/events/cpu_cycles", "event=0x0011\n");
	put("armv8_pmuv3_0/events/br_mis_pred", "event=0x0010\n");
	put("software/type", "1\n");
	setenv("PMUCTX_SYSFS_ROOT", root, 1);
}

static void rm_sysfs(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", root);
	unsetenv("PMUCTX_SYSFS_ROOT");
}

static void test_modifiers(void)
{
	struct pmuctx_event_spec sp;

	CHECK_EQ(pmuctx_event_spec_parse("cycles", &sp), PMUCTX_EV_CYCLES,
		 "cycles");
	CHECK(sp.desc.flags == 0 && !strcmp(sp.name, "cycles"),
	      "cycles: no modes, name cycles");
	CHECK_EQ(pmuctx_event_spec_parse("cycles:u", &sp), PMUCTX_EV_CYCLES,
		 "cycles:u");
	CHECK(sp.desc.flags == PMUCTX_EVF_USER && !strcmp(sp.name, "cycles:u"),
	      "cycles:u: user mode, printed cycles:u (%s)", sp.name);
	CHECK_EQ(pmuctx_event_spec_parse("instructions:k", &sp),
		 PMUCTX_EV_INSTRUCTIONS, "instructions:k");
	CHECK(sp.desc.flags == PMUCTX_EVF_KERNEL, "instructions:k: kernel");
	CHECK_EQ(pmuctx_event_spec_parse(" cpu-cycles:ku ", &sp),
		 PMUCTX_EV_CYCLES, "cpu-cycles:ku (alias, either order)");
	CHECK(sp.desc.flags == (PMUCTX_EVF_USER | PMUCTX_EVF_KERNEL) &&
	      !strcmp(sp.name, "cycles:ku"),
	      "cpu-cycles:ku: both modes, canonical name cycles:ku (%s)",
	      sp.name);
	CHECK_EQ(pmuctx_event_spec_parse("page-faults:h", &sp),
		 PMUCTX_EV_PAGE_FAULTS, "page-faults:h");
	CHECK(sp.desc.flags == PMUCTX_EVF_HV, "page-faults:h: hypervisor");

	CHECK_EQ(pmuctx_event_spec_parse("cycles:p", &sp), -EINVAL,
		 "cycles:p: unsupported modifier");
	CHECK_HAS(last_msg(-EINVAL), "modifier 'p' is not supported",
		  "cycles:p: the message names the modifier");
	CHECK_EQ(pmuctx_event_spec_parse("cycles:uu", &sp), -EINVAL,
		 "cycles:uu: twice");
	CHECK_EQ(pmuctx_event_spec_parse("cycles:", &sp), -EINVAL,
		 "cycles: with an empty modifier");
	CHECK_HAS(last_msg(-EINVAL), "empty modifier", "empty modifier: said");
	CHECK_EQ(pmuctx_event_spec_parse("task-clock:u", &sp), -EINVAL,
		 "task-clock:u: module-native, no modes");
	CHECK_HAS(last_msg(-EINVAL), "task-clock has no user/kernel modes",
		  "task-clock:u: the message says why");
	CHECK_EQ(pmuctx_event_spec_parse("cs:k", &sp), -EINVAL,
		 "cs:k: module-native, no modes");
	CHECK_EQ(pmuctx_event_spec_parse("cyclez:u", &sp), -EINVAL,
		 "cyclez:u: unknown");
	CHECK_HAS(last_msg(-EINVAL), "did you mean 'cycles'",
		  "cyclez:u: a suggestion");
}

static void test_raw(void)
{
	struct pmuctx_event_spec sp;

	CHECK_EQ(pmuctx_event_spec_parse("r003c", &sp), PMUCTX_EV_RAW,
		 "r003c: raw");
	CHECK(sp.desc.type == PERF_TYPE_RAW && sp.desc.config == 0x3c &&
	      !sp.desc.flags && !strcmp(sp.name, "r003c"),
	      "r003c: PERF_TYPE_RAW config 0x3c");
	CHECK_EQ(pmuctx_event_spec_parse("R11:u", &sp), PMUCTX_EV_RAW,
		 "R11:u");
	CHECK(sp.desc.config == 0x11 && sp.desc.flags == PMUCTX_EVF_USER &&
	      !strcmp(sp.name, "r11:u"), "r11:u: config 0x11, user (%s)",
	      sp.name);
	CHECK_EQ(pmuctx_event_spec_parse("rffffffffffffffff", &sp),
		 PMUCTX_EV_RAW, "16 hex digits");
	CHECK(sp.desc.config == ~0ULL, "16 hex digits: all ones");
	CHECK_EQ(pmuctx_event_spec_parse("r1ffffffffffffffff", &sp), -EINVAL,
		 "17 hex digits: not raw");
	CHECK_EQ(pmuctx_event_spec_parse("r", &sp), -EINVAL, "r alone");
	CHECK_EQ(pmuctx_event_spec_parse("rxyz", &sp), -EINVAL,
		 "rxyz: not hex");
}

static void test_pmu(void)
{
	struct pmuctx_event_spec sp;

	make_sysfs();
	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=0x3c,umask=0x01/", &sp),
		 PMUCTX_EV_RAW, "cpu/event=0x3c,umask=0x01/");
	CHECK(sp.desc.type == 4 && sp.desc.config == 0x13c && !sp.desc.flags,
	      "cpu/...: type 4, config 0x13c (0x%llx)",
	      (unsigned long long)sp.desc.config);
	CHECK(!strcmp(sp.name, "cpu/event=0x3c,umask=0x01/"),
	      "printed as written (%s)", sp.name);
	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=0xc0,edge,cmask=2/u", &sp),
		 PMUCTX_EV_RAW, "a term without a value, modifiers after /");
	CHECK(sp.desc.config == (0xc0 | 1ULL << 18 | 2ULL << 24) &&
	      sp.desc.flags == PMUCTX_EVF_USER,
	      "edge is 1, cmask at 24, :u (0x%llx)",
	      (unsigned long long)sp.desc.config);
	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=0x1/:k", &sp),
		 PMUCTX_EV_RAW, "/:k also");
	CHECK(sp.desc.flags == PMUCTX_EVF_KERNEL, "/:k: kernel");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/mem-loads/", &sp),
		 PMUCTX_EV_RAW, "a named event of the PMU");
	CHECK(sp.desc.config == 0x1cd && sp.desc.config1 == 3,
	      "mem-loads: config 0x1cd, config1 3 (ldlat)");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/split=0xff/", &sp),
		 PMUCTX_EV_RAW, "a split format");
	CHECK(sp.desc.config == (0xfULL | 0xfULL << 32),
	      "split: low nibble at 0-3, high at 32-35 (0x%llx)",
	      (unsigned long long)sp.desc.config);
	CHECK_EQ(pmuctx_event_spec_parse("cpu/config=0x1234,config2=7/", &sp),
		 PMUCTX_EV_RAW, "config and config2 directly");
	CHECK(sp.desc.config == 0x1234 && sp.desc.config2 == 7,
	      "config=, config2=");
	CHECK_EQ(pmuctx_event_spec_parse("armv8_pmuv3_0/cpu_cycles/u", &sp),
		 PMUCTX_EV_RAW, "arm64: a named event, :u");
	CHECK(sp.desc.type == 10 && sp.desc.config == 0x11 &&
	      sp.desc.flags == PMUCTX_EVF_USER,
	      "armv8_pmuv3_0/cpu_cycles/u: type 10, config 0x11");
	CHECK_EQ(pmuctx_event_spec_parse("armv8_pmuv3_0/event=0x8/", &sp),
		 PMUCTX_EV_RAW, "arm64: event=0x8 (INST_RETIRED)");

	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=0x100/", &sp), -EINVAL,
		 "a value too wide for its format");
	CHECK_HAS(last_msg(-EINVAL), "too wide", "too wide: said");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/bogus=1/", &sp), -EINVAL,
		 "an unknown term");
	CHECK_HAS(last_msg(-EINVAL), "has no format or event 'bogus'",
		  "unknown term: named");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/param/", &sp), -EINVAL,
		 "a named event with a parameter");
	CHECK_EQ(pmuctx_event_spec_parse("nosuch/event=1/", &sp), -EINVAL,
		 "no such PMU");
	CHECK_HAS(last_msg(-EINVAL), "no PMU 'nosuch'", "no such PMU: said");
	CHECK_EQ(pmuctx_event_spec_parse("../cpu/event=1/", &sp), -EINVAL,
		 "a PMU name with a path");
	CHECK_EQ(pmuctx_event_spec_parse("software/config=0/", &sp), -EINVAL,
		 "the software PMU is not a CPU PMU");
	CHECK_HAS(last_msg(-EINVAL), "not a CPU PMU", "software: said");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=1", &sp), -EINVAL,
		 "no closing slash");
	CHECK_EQ(pmuctx_event_spec_parse("cpu//", &sp), -EINVAL, "no terms");
	CHECK_EQ(pmuctx_event_spec_parse("cpu/event=zz/", &sp), -EINVAL,
		 "a value that is not a number");
	rm_sysfs();
}

static void test_list(void)
{
	struct pmuctx_event_spec sp[PMUCTX_MAX_EVENTS];
	int n;

	make_sysfs();
	n = pmuctx_event_spec_list_parse(
		"cycles:u,cycles:k,cpu/event=0x3c,umask=0x0/,r00c0,task-clock",
		sp, PMUCTX_MAX_EVENTS);
	CHECK_EQ(n, 5, "a list with a PMU event's commas: 5 events");
	if (n == 5)
		CHECK(sp[0].desc.flags == PMUCTX_EVF_USER &&
		      sp[1].desc.flags == PMUCTX_EVF_KERNEL &&
		      sp[2].id == PMUCTX_EV_RAW && sp[2].desc.config == 0x3c &&
		      sp[3].id == PMUCTX_EV_RAW && sp[3].desc.config == 0xc0 &&
		      sp[4].id == PMUCTX_EV_TASK_CLOCK,
		      "each element in order");
	CHECK_EQ(pmuctx_event_spec_list_parse("cycles:u,cpu-cycles:u", sp,
					      PMUCTX_MAX_EVENTS), -EINVAL,
		 "cycles:u twice (alias): EINVAL");
	CHECK_HAS(last_msg(-EINVAL), "listed twice", "twice: said");
	CHECK_EQ(pmuctx_event_spec_list_parse("r3c,r003c", sp,
					      PMUCTX_MAX_EVENTS), -EINVAL,
		 "the same raw config twice: EINVAL");
	CHECK_EQ(pmuctx_event_spec_list_parse("cycles,,cs", sp,
					      PMUCTX_MAX_EVENTS), -EINVAL,
		 "an empty element");
	CHECK_HAS(last_msg(-EINVAL), "empty event name in list",
		  "empty element: said");
	CHECK_EQ(pmuctx_event_spec_list_parse(
		"r1,r2,r3,r4,r5,r6,r7,r8,r9", sp, PMUCTX_MAX_EVENTS), -E2BIG,
		"nine events: E2BIG");
	rm_sysfs();
}

static struct pmuctx *open_fake(void)
{
	LIBPMUCTX_OPTS(pmuctx_open_opts, o, .path = FAKE_PATH);
	struct pmuctx *h = NULL;

	if (pmuctx_open(&h, &o))
		return NULL;
	return h;
}

static void test_session(void)
{
	struct pmuctx *h;
	int err;

	fake_install();
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "cycles:u,r00c0:k,task-clock");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, 0, "session with cycles:u,r00c0:k,task-clock");
	CHECK(fake.last_attr.events[0] == PMUCTX_EV_CYCLES &&
	      fake.last_attr.event_desc[0].flags == PMUCTX_EVF_USER &&
	      fake.last_attr.events[1] == PMUCTX_EV_RAW &&
	      fake.last_attr.event_desc[1].type == PERF_TYPE_RAW &&
	      fake.last_attr.event_desc[1].config == 0xc0 &&
	      fake.last_attr.event_desc[1].flags == PMUCTX_EVF_KERNEL &&
	      fake.last_attr.events[2] == PMUCTX_EV_TASK_CLOCK &&
	      !fake.last_attr.event_desc[2].flags,
	      "the attr carries each event's modes and raw config");
	CHECK(!strcmp(pmuctx_session_event_name(h, 0) ?: "", "cycles:u") &&
	      !strcmp(pmuctx_session_event_name(h, 1) ?: "", "r00c0:k") &&
	      !strcmp(pmuctx_session_event_name(h, 2) ?: "", "task-clock") &&
	      !pmuctx_session_event_name(h, 3),
	      "pmuctx_session_event_name(): as written");
	pmuctx_close(h);

	fake_install();
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "task-clock", .ring_pages = 4,
			       .sample_freq = 99,
			       .sample_event_name = "cycles:u");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, 0, "sample_event_name cycles:u");
	CHECK(fake.last_attr.sample_event == PMUCTX_EV_CYCLES &&
	      fake.last_attr.sample_desc.flags == PMUCTX_EVF_USER,
	      "sample_event and sample_desc from the name");
	pmuctx_close(h);

	/* the module refuses :k to this caller (perf_event_paranoid) */
	fake_install();
	fake.create_err = -EACCES;
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "cycles:u,instructions:k");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, -EACCES, ":k refused: EACCES");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK(!strchr(msg, '\n'), ":k refused: one line (%s)", msg);
	CHECK_HAS(msg, "event 'instructions:k' counts kernel mode",
		  ":k refused: names the event");
	CHECK_HAS(msg, "use ':u'", ":k refused: says what to do");
	pmuctx_close(h);

	/* a module older than the descs: E2BIG, said plainly */
	fake_install();
	fake.attr_size = PMUCTX_SESSION_ATTR_SIZE_VER3;
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so, .events = "cycles:u");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, -E2BIG, "old module, cycles:u: E2BIG");
	pmuctx_errmsg(h, err, msg, sizeof(msg));
	CHECK_HAS(msg, "older than event modifiers",
		  "old module: the message says modifiers need a newer one");
	pmuctx_close(h);

	/* ... but plain events still work with it (zero tail) */
	fake_install();
	fake.attr_size = PMUCTX_SESSION_ATTR_SIZE_VER3;
	h = open_fake();
	{
		LIBPMUCTX_OPTS(pmuctx_session_opts, so,
			       .events = "cycles,task-clock");

		err = pmuctx_session_create(h, &so);
	}
	CHECK_EQ(err, 0, "old module, plain events: created");
	pmuctx_close(h);
}

void test_evspec(void)
{
	test_modifiers();
	test_raw();
	test_pmu();
	test_list();
	test_session();
}
