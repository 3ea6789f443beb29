// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel ABI: struct sizes and offsets, versioned sizes, ioctl numbers
 * and enum values must never change.
 */
#include <stddef.h>
#include <sys/ioctl.h>

#include <linux/pmuctx.h>

#include "test.h"

#define OFF(type, field, expect) \
	CHECK_EQ(offsetof(struct type, field), expect, \
		 "offsetof(struct " #type ", " #field ") == " #expect)
#define END(type, field) \
	(offsetof(struct type, field) + sizeof(((struct type *)0)->field))

void test_abi(void)
{
	/* struct pmuctx_info */
	CHECK_EQ(sizeof(struct pmuctx_info), PMUCTX_INFO_SIZE_VER1,
		 "sizeof(struct pmuctx_info) == PMUCTX_INFO_SIZE_VER1");
	CHECK_EQ(PMUCTX_INFO_SIZE_VER0, 72, "PMUCTX_INFO_SIZE_VER0 == 72");
	CHECK_EQ(PMUCTX_INFO_SIZE_VER1, 152, "PMUCTX_INFO_SIZE_VER1 == 152");
	CHECK_EQ(END(pmuctx_info, store_bytes), PMUCTX_INFO_SIZE_VER0,
		 "pmuctx_info VER0 ends right after store_bytes");
	CHECK_EQ(END(pmuctx_info, selftest_migrations), PMUCTX_INFO_SIZE_VER1,
		 "pmuctx_info VER1 ends right after selftest_migrations");
	OFF(pmuctx_info, size, 0);
	OFF(pmuctx_info, flags, 4);
	OFF(pmuctx_info, abi_version, 8);
	OFF(pmuctx_info, nr_cpus, 12);
	OFF(pmuctx_info, features, 16);
	OFF(pmuctx_info, version, 24);
	OFF(pmuctx_info, tasks_tracked, 56);
	OFF(pmuctx_info, store_bytes, 64);
	OFF(pmuctx_info, sessions, 72);
	OFF(pmuctx_info, probes_registered, 76);
	OFF(pmuctx_info, entry_bytes, 80);
	OFF(pmuctx_info, max_tasks, 84);
	OFF(pmuctx_info, entries_created, 88);
	OFF(pmuctx_info, entries_freed, 96);
	OFF(pmuctx_info, alloc_failures, 104);
	OFF(pmuctx_info, pool_entries, 112);
	OFF(pmuctx_info, dropped, 120);
	OFF(pmuctx_info, selftest_checks, 128);
	OFF(pmuctx_info, selftest_mismatches, 136);
	OFF(pmuctx_info, selftest_migrations, 144);
	CHECK_EQ(PMUCTX_VERSION_LEN, 32, "PMUCTX_VERSION_LEN == 32");

	/* struct pmuctx_session_attr */
	CHECK_EQ(sizeof(struct pmuctx_session_attr),
		 PMUCTX_SESSION_ATTR_SIZE_VER4,
		 "sizeof(struct pmuctx_session_attr) == _SIZE_VER4 (416)");
	CHECK_EQ(PMUCTX_SESSION_ATTR_SIZE_VER4, 416,
		 "PMUCTX_SESSION_ATTR_SIZE_VER4 == 416");
	CHECK_EQ(sizeof(struct pmuctx_event_desc), 32,
		 "sizeof(struct pmuctx_event_desc) == 32");
	OFF(pmuctx_session_attr, event_desc, PMUCTX_SESSION_ATTR_SIZE_VER3);
	OFF(pmuctx_session_attr, sample_desc, 384);
	OFF(pmuctx_event_desc, config, 8);
	OFF(pmuctx_event_desc, config2, 24);
	CHECK(PMUCTX_EVF_USER == 1 && PMUCTX_EVF_KERNEL == 2 &&
	      PMUCTX_EVF_HV == 4 && PMUCTX_EVF_FLAGS_ALL == 7,
	      "PMUCTX_EVF_* bits are stable");
	CHECK_EQ(PMUCTX_SESSION_ATTR_SIZE_VER3, 128,
		 "PMUCTX_SESSION_ATTR_SIZE_VER3 == 128");
	OFF(pmuctx_session_attr, sample_user_dump,
	    PMUCTX_SESSION_ATTR_SIZE_VER2);
	OFF(pmuctx_session_attr, __reserved4, 124);
	/* USER_STACK: the fixed part, the registers, the largest record */
	CHECK_EQ(sizeof(struct pmuctx_rec_user_stack), 56,
		 "sizeof(struct pmuctx_rec_user_stack) == 56");
	OFF(pmuctx_rec_user_stack, cookie, 32);
	OFF(pmuctx_rec_user_stack, abi, 40);
	OFF(pmuctx_rec_user_stack, nr_regs, 42);
	OFF(pmuctx_rec_user_stack, size, 44);
	OFF(pmuctx_rec_user_stack, dyn_size, 48);
	OFF(pmuctx_rec_user_stack, regs, 56);
	CHECK(PMUCTX_REC_USER_STACK_SIZE(PMUCTX_USER_DUMP_MAX) <= 65528 &&
	      PMUCTX_USER_DUMP_MAX % 8 == 0 && PMUCTX_USER_DUMP_DEFAULT % 8 == 0,
	      "the largest USER_STACK record fits a record's u16 size");
	CHECK_EQ(PMUCTX_REC_SIZE_MAX, 65528 - sizeof(struct pmuctx_rec_lost),
		 "PMUCTX_REC_SIZE_MAX: the largest u16 record less a LOST record");
	CHECK(pmuctx_user_dump_max_nr(PMUCTX_REGS_X86_64_NR) == PMUCTX_USER_DUMP_MAX &&
	      pmuctx_user_dump_max_nr(PMUCTX_REGS_ARM64_NR) == 65168 &&
	      PMUCTX_REC_USER_STACK_SIZE_NR(PMUCTX_REGS_ARM64_NR,
					    pmuctx_user_dump_max_nr(PMUCTX_REGS_ARM64_NR)) <= 65488 &&
	      PMUCTX_REC_USER_STACK_SIZE_NR(PMUCTX_REGS_ARM64_NR,
					    pmuctx_user_dump_max_nr(PMUCTX_REGS_ARM64_NR) + 8) > 65488,
	      "pmuctx_user_dump_max_nr(): 65280 with x86-64's registers, 65168 with arm64's (its record is one the ring takes after a LOST record, 8 more would not be)");
	CHECK_EQ(PMUCTX_REC_USER_STACK, 13, "PMUCTX_REC_USER_STACK == 13");
	CHECK_EQ(PMUCTX_SAMPLE_FLAGS_ALL, 0xf, "PMUCTX_SAMPLE_FLAGS_ALL == 0xf");
	CHECK_EQ(PMUCTX_SESSION_ATTR_SIZE_VER2, 120,
		 "PMUCTX_SESSION_ATTR_SIZE_VER2 == 120");
	OFF(pmuctx_session_attr, sample_freq, PMUCTX_SESSION_ATTR_SIZE_VER1);
	CHECK_EQ(PMUCTX_SESSION_ATTR_SIZE_VER1, 104,
		 "PMUCTX_SESSION_ATTR_SIZE_VER1 == 104");
	OFF(pmuctx_session_attr, ring_pages, PMUCTX_SESSION_ATTR_SIZE_VER0);
	OFF(pmuctx_session_attr, trigger_threshold, 96);
	CHECK_EQ(PMUCTX_SESSION_ATTR_SIZE_VER0, 72,
		 "PMUCTX_SESSION_ATTR_SIZE_VER0 == 72");
	OFF(pmuctx_session_attr, size, 0);
	OFF(pmuctx_session_attr, flags, 4);
	OFF(pmuctx_session_attr, target, 8);
	OFF(pmuctx_session_attr, pid, 12);
	OFF(pmuctx_session_attr, cgroup_fd, 16);
	OFF(pmuctx_session_attr, nr_events, 20);
	OFF(pmuctx_session_attr, events, 24);
	OFF(pmuctx_session_attr, backend, 56);
	OFF(pmuctx_session_attr, data_size, 60);
	OFF(pmuctx_session_attr, max_exited, 64);
	OFF(pmuctx_session_attr, __reserved, 68);

	/* struct pmuctx_read */
	CHECK_EQ(sizeof(struct pmuctx_read), PMUCTX_READ_SIZE_VER1,
		 "sizeof(struct pmuctx_read) == PMUCTX_READ_SIZE_VER1 (216)");
	CHECK_EQ(PMUCTX_READ_SIZE_VER0, 144, "PMUCTX_READ_SIZE_VER0 == 144");
	CHECK_EQ(PMUCTX_READ_SIZE_VER1, 216, "PMUCTX_READ_SIZE_VER1 == 216");
	CHECK_EQ(END(pmuctx_read, tasks_unlisted), PMUCTX_READ_SIZE_VER0,
		 "VER0 of pmuctx_read ends after tasks_unlisted");
	OFF(pmuctx_read, size, 0);
	OFF(pmuctx_read, flags, 4);
	OFF(pmuctx_read, nr_events, 8);
	OFF(pmuctx_read, nr_tasks, 12);
	OFF(pmuctx_read, task_size, 16);
	OFF(pmuctx_read, __pad, 20);
	OFF(pmuctx_read, tasks_ptr, 24);
	OFF(pmuctx_read, values, 32);
	OFF(pmuctx_read, time_enabled, 96);
	OFF(pmuctx_read, tasks_seen, 104);
	OFF(pmuctx_read, tasks_exited, 112);
	OFF(pmuctx_read, tasks_dropped, 120);
	OFF(pmuctx_read, priv_exec_stopped, 128);
	OFF(pmuctx_read, tasks_unlisted, 136);
	OFF(pmuctx_read, time_slices, 144);
	OFF(pmuctx_read, time_running, 152);

	/* struct pmuctx_task_values */
	CHECK_EQ(sizeof(struct pmuctx_task_values),
		 PMUCTX_TASK_VALUES_SIZE_VER0,
		 "sizeof(struct pmuctx_task_values) == _SIZE_VER0 (160)");
	CHECK_EQ(PMUCTX_TASK_VALUES_SIZE_VER0, 160,
		 "PMUCTX_TASK_VALUES_SIZE_VER0 == 160");
	OFF(pmuctx_task_values, pid, 0);
	OFF(pmuctx_task_values, tid, 4);
	OFF(pmuctx_task_values, ppid, 8);
	OFF(pmuctx_task_values, flags, 12);
	OFF(pmuctx_task_values, comm, 16);
	OFF(pmuctx_task_values, values, 32);
	OFF(pmuctx_task_values, children, 96);

	/* no implicit padding anywhere: 8-byte aligned sizes */
	CHECK(sizeof(struct pmuctx_info) % 8 == 0 &&
	      sizeof(struct pmuctx_session_attr) % 8 == 0 &&
	      sizeof(struct pmuctx_read) % 8 == 0 &&
	      sizeof(struct pmuctx_task_values) % 8 == 0,
	      "ABI struct sizes are multiples of 8 (same on 32/64-bit)");

	/* ioctl numbers */
	CHECK_EQ(PMUCTX_IOC_MAGIC, 0xB9, "PMUCTX_IOC_MAGIC == 0xB9");
	CHECK(_IOC_TYPE(PMUCTX_IOC_INFO) == PMUCTX_IOC_MAGIC &&
	      _IOC_NR(PMUCTX_IOC_INFO) == 0 &&
	      _IOC_DIR(PMUCTX_IOC_INFO) == (_IOC_READ | _IOC_WRITE) &&
	      _IOC_SIZE(PMUCTX_IOC_INFO) == PMUCTX_INFO_SIZE_VER1,
	      "PMUCTX_IOC_INFO is _IOWR(0xB9, 0, 152 bytes)");
	CHECK_EQ(PMUCTX_IOC_INFO,
		 _IOWR(0xB9, 0x00, struct pmuctx_info),
		 "PMUCTX_IOC_INFO value");
	CHECK_EQ(PMUCTX_IOC_SESSION_CREATE,
		 _IOW(0xB9, 0x01, struct pmuctx_session_attr),
		 "PMUCTX_IOC_SESSION_CREATE value");
	CHECK_EQ(PMUCTX_IOC_ENABLE, _IO(0xB9, 0x02), "PMUCTX_IOC_ENABLE");
	CHECK_EQ(PMUCTX_IOC_DISABLE, _IO(0xB9, 0x03), "PMUCTX_IOC_DISABLE");
	CHECK_EQ(PMUCTX_IOC_RESET, _IO(0xB9, 0x04), "PMUCTX_IOC_RESET");
	CHECK_EQ(PMUCTX_IOC_READ, _IOWR(0xB9, 0x05, struct pmuctx_read),
		 "PMUCTX_IOC_READ value");

	/* enums and bits */
	CHECK(PMUCTX_EV_TASK_CLOCK == 1 && PMUCTX_EV_CONTEXT_SWITCHES == 2 &&
	      PMUCTX_EV_CPU_MIGRATIONS == 3 && PMUCTX_EV_PAGE_FAULTS == 4 &&
	      PMUCTX_EV_CPU_CLOCK == 5 && PMUCTX_EV_CYCLES == 6 &&
	      PMUCTX_EV_INSTRUCTIONS == 7 && PMUCTX_EV_BRANCHES == 8 &&
	      PMUCTX_EV_BRANCH_MISSES == 9 &&
	      PMUCTX_EV_CACHE_REFERENCES == 10 &&
	      PMUCTX_EV_CACHE_MISSES == 11 && PMUCTX_EV_RAW == 12 &&
	      PMUCTX_EV_MAX == 12,
	      "event ids 1..12 are stable, PMUCTX_EV_MAX == 12");
	CHECK(PMUCTX_TARGET_PID == 1 && PMUCTX_TARGET_CGROUP == 2 &&
	      PMUCTX_TARGET_SYSTEM == 3, "target values are stable");
	CHECK(PMUCTX_BACKEND_NONE == 0 && PMUCTX_BACKEND_SELFTEST == 1,
	      "backend values are stable");
	CHECK_EQ(PMUCTX_SESSION_FLAGS_ALL,
		 PMUCTX_SESSION_INHERIT | PMUCTX_SESSION_THREAD |
		 PMUCTX_SESSION_KEEP_EXITED | PMUCTX_SESSION_PER_SWITCH,
		 "PMUCTX_SESSION_FLAGS_ALL is the OR of the session flags");
	CHECK_EQ(PMUCTX_READ_FLAGS_ALL, PMUCTX_READ_PER_TASK,
		 "PMUCTX_READ_FLAGS_ALL is the OR of the read flags");
	CHECK(PMUCTX_FEAT_COUNTING == 1 && PMUCTX_FEAT_INHERIT == 2 &&
	      PMUCTX_FEAT_SYSTEM_WIDE == 4 && PMUCTX_FEAT_CGROUP == 8 &&
	      PMUCTX_FEAT_SELFTEST == 16 && PMUCTX_FEAT_HW_PMU == 32 &&
	      PMUCTX_FEAT_USER_DUMP == 1ULL << 9 &&
	      PMUCTX_FEAT_SWITCHLESS == 1ULL << 10 &&
	      PMUCTX_FEAT_EVENT_DESC == 1ULL << 11 &&
	      PMUCTX_FEAT_PERF_THROTTLE == 1ULL << 12 &&
	      PMUCTX_THROTTLE_PERF == 4,
	      "feature bits are stable");
	CHECK(PMUCTX_SESSION_PER_SWITCH == 8 &&
	      PMUCTX_PROBES_LIFECYCLE == 1 && PMUCTX_PROBES_SWITCH == 2,
	      "PER_SWITCH and the probe bits are stable");
	CHECK(PMUCTX_TASK_EXITED == 1 && PMUCTX_TASK_PRIV_EXEC == 2 &&
	      PMUCTX_TASK_INHERITED == 4, "task flag bits are stable");
	CHECK(PMUCTX_MAX_EVENTS == 8 && PMUCTX_MAX_DATA_SIZE == 4096 &&
	      PMUCTX_COMM_LEN == 16, "limits are stable");
	/* THROTTLE grew @dropped at its end; older records stop before */
	CHECK_EQ(sizeof(struct pmuctx_rec_throttle), 56,
		 "sizeof(struct pmuctx_rec_throttle) == 56");
	CHECK_EQ(offsetof(struct pmuctx_rec_throttle, dropped),
		 PMUCTX_REC_THROTTLE_SIZE_VER0,
		 "THROTTLE's VER0 size ends right before dropped");
	CHECK(PMUCTX_THROTTLE_ON == 1 && PMUCTX_THROTTLE_BUDGET == 2,
	      "THROTTLE misc bits are stable");
}
