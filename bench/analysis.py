# SPDX-License-Identifier: GPL-2.0
"""bench/analysis.py - the prose of docs/PERFORMANCE.md that depends on the
numbers: what they say, why a target is missed, and what the module should
change.  Called by bench/report.py with the results dict and its units;
returns (paragraphs, recommendations), both lists of markdown strings.

Every number quoted here is read from the results, so the text stays true
when the suite is rerun; where the text explains a mechanism (perf's
context swap, the module's hash lookup) it names the code.  Differences
are stated with their 95 % confidence intervals (report.py's estimators);
"no measurable cost" means an interval that contains 0.
"""


def _f(v, nd=0, signed=False):
    if v is None:
        return "n/a"
    if abs(v) < 0.5 * 10 ** -nd:
        v = 0.0         # no "-0"
    if signed:
        return "{:+,.{nd}f}".format(v, nd=nd)
    return "{:,.{nd}f}".format(v, nd=nd)


def _ci(c, nd=0, signed=True):
    """'+655 [+650, +660]' from a mean_ci dict"""
    if not c:
        return "n/a"
    s = _f(c["mean"], nd, signed)
    if c.get("lo") is not None:
        s += " [%s, %s]" % (_f(c["lo"], nd, signed),
                            _f(c["hi"], nd, signed))
    return s


def _rx(r, nd=2):
    """'0.00x [-0.01, 0.01]' from a boot_ratio dict"""
    if not r or r.get("ratio") is None:
        return "n/a"
    def x(v):
        if v in (float("inf"), float("-inf")):
            return "inf" if v > 0 else "-inf"
        return "{:.{nd}f}".format(0.0 if abs(v) < 0.5 * 10 ** -nd else v,
                                  nd=nd)
    s = x(r["ratio"]) + "x"
    if r.get("lo") is not None:
        s += " [%s, %s]" % (x(r["lo"]), x(r["hi"]))
    return s


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _zero_in(c):
    """the interval of c contains 0 (or there is none)"""
    return c is None or c.get("lo") is None or c["lo"] <= 0 <= c["hi"]


def _above0(c):
    return c is not None and c.get("lo") is not None and c["lo"] > 0


def _verdict(res, prefix):
    for t in res["targets"]:
        if t["name"].startswith(prefix):
            return t["result"]
    return None


def _peer(bench, num, den):
    for r in (bench or {}).get("peer_ratios", {}).values():
        if r.get("num_cfg") == num and r.get("den_cfg") == den:
            return r
    return None


def write(res, U):
    A, REC = [], []
    t = U.t
    cs = _get(res, "cases", "context_switch") or {}
    benches = cs.get("benches") or {}
    ppb, pib = benches.get("pingpong"), benches.get("pipe")
    pp = _get(ppb, "configs") or {}
    pi = _get(pib, "configs") or {}
    probe = _get(cs, "probe_time", "configs") or {}

    def added(c, cfg):
        return _get(c, cfg, "added")

    def pct(c, cfg):
        v = _get(c, cfg, "added_pct_of_idle")
        return "n/a" if v is None else _f(v, 1, True) + " %"

    # ---- loaded, idle
    if ppb and ppb.get("idle_vs_unloaded"):
        iv, ivp = ppb["idle_vs_unloaded"], _get(pib, "idle_vs_unloaded")
        sess = _get(cs, "counts", "idle_sessions", "max")
        prb = _get(cs, "counts", "idle_probes_registered", "max")

        def ivs(v):
            if not v:
                return "n/a"
            s = _f(v["pct"], 2, True) + " %"
            if v.get("pct_lo") is not None:
                s += " [%s, %s]" % (_f(v["pct_lo"], 2, True),
                                    _f(v["pct_hi"], 2, True))
            return s
        A.append(
            "**Loaded but idle.** With the module loaded and no session "
            "(`pmuctx info`: %s sessions, probes_registered %s during "
            "those runs) no probe is hooked, so the switch path is the "
            "same code as without the module. idle against not loaded, "
            "per switch: %s on the ping-pong (%s %s), %s on pipe. %s" % (
                _f(sess), _f(prb), ivs(iv), _ci(iv["diff"]), t, ivs(ivp),
                "Both intervals contain 0." if _zero_in(iv["diff"]) and
                (not ivp or _zero_in(ivp["diff"])) else
                "Where an interval excludes 0 the difference is not the "
                "module's work at a switch (it registers no probe without "
                "a session) but elsewhere in the kernel; instruction "
                "counts resolve differences that host time cannot."))

    # ---- default events: switchless
    switchless = "switchless" in (_get(res, "environment", "features") or "")
    if "pmuctx" in pp and "perf" in pp:
        r_pp, r_pi = _peer(ppb, "pmuctx", "perf"), _peer(pib, "pmuctx",
                                                          "perf")
        cnt = _get(cs, "counts") or {}
        txt = (
            "**Default events: no cost per switch.** `pmuctx stat` with "
            "its 4 default events is switchless: it registers no "
            "`sched_switch` probe and reads the kernel's per-task counts "
            "when asked. " if switchless else
            "**Default events.** The module of this run predates "
            "switchless sessions (its features do not list "
            "`switchless`): `pmuctx stat` counted its 4 default events "
            "in the `sched_switch` probe at every switch. ")
        txt += (
            "On the ping-pong it adds %s %s per switch over "
            "idle, perf stat with the same events %s (%s); pmuctx / perf "
            "= %s. On pipe: %s against %s, ratio %s." % (
                _ci(added(pp, "pmuctx")), t, _ci(added(pp, "perf")),
                pct(pp, "perf"), _rx(r_pp),
                _ci(added(pi, "pmuctx")), _ci(added(pi, "perf")),
                _rx(r_pi)))
        if cnt.get("pmuctx") and cnt.get("perf"):
            txt += (
                " It still counts: for one ping-pong run pmuctx reported "
                "%s context switches and perf %s (medians over rounds)." %
                (_f(cnt["pmuctx"]["median"]), _f(cnt["perf"]["median"])))
        if switchless and not _zero_in(added(pp, "pmuctx")):
            txt += (
                " The ping-pong's interval for pmuctx excludes 0: what "
                "remains is not in `sched_switch` (no probe is "
                "registered) but elsewhere: the session's other work "
                "(entries opened at clone), or the other vCPU, whose "
                "instructions the shared icount clock counts too." if
                U.icount is not None else
                " The ping-pong's interval for pmuctx excludes 0: what "
                "remains is not in `sched_switch` (no probe is "
                "registered).")
        A.append(txt)

    # ---- per-switch accounting: --per-switch and counter-backed
    if "pmuctx_ps" in pp or "pmuctx_cc" in pp:
        bits = []
        for cfg, label, peer in (("pmuctx_ps", "`--per-switch` (the 4 "
                                  "default events accounted in the probe)",
                                  "perf"),
                                 ("pmuctx_cc", "`-e cpu-clock,...` (cpu-clock "
                                  "is a perf software counter, read at "
                                  "every switch)", "perf_cc")):
            if cfg not in pp:
                continue
            bits.append(
                "%s adds %s %s per switch on the ping-pong (%s), against "
                "%s for perf stat with the same events: ratio %s (pipe: "
                "%s against %s, %s)" % (
                    label, _ci(added(pp, cfg)), t, pct(pp, cfg),
                    _ci(added(pp, peer)), _rx(_peer(ppb, cfg, peer)),
                    _ci(added(pi, cfg)), _ci(added(pi, peer)),
                    _rx(_peer(pib, cfg, peer))))
        txt = "**When pmuctx works at each switch.** " + \
            "; ".join(bits) + "."
        if probe.get("pmuctx_ps") and probe["pmuctx_ps"].get("calls"):
            pc = probe["pmuctx_ps"]
            txt += (
                " Inside the probe (debug build, section 1b) a "
                "`--per-switch` session spends %s %s per call, %s of its "
                "calls switching a monitored task in" % (
                    _ci(pc["per_call"], signed=False), t,
                    "n/a" if pc["hit_share"] is None else
                    "%.1f %%" % (100 * pc["hit_share"])))
            cc = probe.get("pmuctx_cc")
            if cc and cc.get("calls"):
                txt += ", with cpu-clock %s" % _ci(cc["per_call"],
                                                    signed=False)
            a_ps = added(pp, "pmuctx_ps")
            if a_ps and pc["per_call"] and \
                    pc["per_call"]["mean"] < 0.9 * a_ps["mean"]:
                txt += (
                    "; the rest of the added cost is outside the probe: "
                    "the tracepoint's call into it and, for cpu-clock, "
                    "perf's software-event callbacks that start and stop "
                    "the counter.")
            else:
                txt += (
                    ": about the whole added cost per switch, which is "
                    "therefore the probe's own work (closing the outgoing "
                    "task's slice, looking up and opening the incoming "
                    "one's; the debug build's timing includes its own "
                    "clock read).")
        r_ni = _peer(ppb, "pmuctx_noinherit", "perf_noinherit")
        txt += (
            " Both benchmarks are perf's best case: the two tasks' perf "
            "contexts are clones of the same parent context, so at each "
            "switch `perf_event_context_sched_out()` finds them "
            "equivalent (`context_equiv()`) and only swaps the two "
            "context pointers; no event is stopped, read or started.")
        if "perf_noinherit" in pp:
            txt += (
                " Without that fast path (`--no-inherit`: only the main "
                "thread is monitored, every switch goes between a "
                "monitored and an unmonitored task) perf adds %s %s and "
                "a default pmuctx session %s (ratio %s)." % (
                    _ci(added(pp, "perf_noinherit")), t,
                    _ci(added(pp, "pmuctx_noinherit")), _rx(r_ni)))
        A.append(txt)

    # ---- sessions on another process
    if "pmuctx_other" in pp and "pmuctx_other_ps" not in pp:
        o = added(pp, "pmuctx_other")
        A.append(
            "**Unmonitored tasks.** While a pmuctx session counts another "
            "process, the ping-pong's switches cost %s %s more than idle." %
            (_ci(o), t))
    elif "pmuctx_other_ps" in pp:
        o, ops = added(pp, "pmuctx_other"), added(pp, "pmuctx_other_ps")
        txt = (
            "**Unmonitored tasks.** While a default session counts another "
            "process, the ping-pong's switches cost %s %s more than idle; "
            "while a `--per-switch` session does, %s %s: " % (
                _ci(o), t, _ci(ops), t))
        if _above0(ops):
            txt += (
                "that is the probe running for tasks that no session "
                "watches: the tracepoint call and the "
                "`rhltable_lookup()` of the incoming task that every "
                "switch-in does (`pmuctx_probe_switch()`; the probe reads "
                "the clock only for sampling sessions)")
            if probe.get("pmuctx_other_ps", {}).get("calls"):
                txt += ", %s %s per call inside the probe" % (
                    _ci(probe["pmuctx_other_ps"]["per_call"],
                        signed=False), t)
            txt += "."
        else:
            txt += "the probe's miss path is not measurable here."
        A.append(txt)

    if "pmuctx_sys" in pp:
        a_sys, a_tot = added(pp, "pmuctx_sys"), added(pp, "pmuctx_sys_total")
        txt = (
            "**System-wide.** `pmuctx stat -a --per-task` adds %s %s per "
            "switch (%s without `--per-task`), against %s for the "
            "bpftrace script that keeps per-task on-CPU time in a BPF "
            "hash map (ratio %s) and %s for `perf stat -a`, which keeps "
            "only per-CPU totals." % (
                _ci(a_sys), t, _ci(a_tot), _ci(added(pp, "bpftrace")),
                _rx(_peer(ppb, "pmuctx_sys", "bpftrace")),
                _ci(added(pp, "perf_sys"))))
        r = _peer(ppb, "pmuctx_sys", "pmuctx_ps")
        if _zero_in(a_sys) and _zero_in(a_tot):
            txt += (
                " Both intervals contain 0: a system-wide session of the "
                "default events is switchless too, it only hashes every "
                "task at its start and at each fork.")
        elif r and r.get("ratio") is not None:
            txt += (
                " Against a per-process `--per-switch` session on the "
                "same two tasks: %s." % _rx(r))
        A.append(txt)

    # ---- churn
    ch = _get(res, "cases", "churn") or {}
    th, pr = ch.get("threads") or {}, ch.get("procs") or {}
    if th or pr:
        bits = []
        for rows, what in ((th, "thread"), (pr, "process")):
            if not rows:
                continue
            top = max(rows, key=int)
            row = rows[top]
            bits.append(
                "%s %s: %s %s per %s without a monitor; pmuctx stat "
                "adds %s, perf stat %s; ratio %s" % (
                    top, what + "es" if what == "process" else what + "s",
                    _f(_get(row, "none", "mean"), 1), U.kt,
                    what, _ci(_get(row, "pmuctx", "added"), 1),
                    _ci(_get(row, "perf", "added"), 1),
                    _rx(row.get("ratio_added"))))
        txt = "**Task churn.** " + "; ".join(bits) + "."
        bp = ch.get("breakpoint") or {}
        if bp.get("none") and bp.get("pmuctx"):
            txt += (
                " perf's own reference, `perf bench breakpoint thread` "
                "(threads inheriting 4 breakpoint events), runs at %s of "
                "its unmonitored cost under pmuctx stat and %s under "
                "perf stat." % (_rx(bp["pmuctx"].get("vs_none"), 3),
                                _rx(_get(bp, "perf", "vs_none"), 3)))
        txt += (
            " Per created task pmuctx allocates one entry, inserts it in "
            "the rhashtable and, when the task is freed, folds its counts "
            "into the parent's and removes it; perf allocates a context "
            "and an event per counted event and tears them down, folding "
            "the counts into the parent.")
        A.append(txt)

    # ---- scale
    sc = _get(res, "cases", "lookup_scale") or {}
    if sc.get("params"):
        lo, hi = str(sc["params"][0]), str(sc["params"][-1])
        mon = sc["monitor"]
        A.append(
            "**Lookup scale.** With %s other monitored threads "
            "(tasks_tracked %s) a switch of the ping-pong pair under %s "
            "costs %s of its cost with %s; without a monitor the same "
            "populations give %s. The rhashtable keeps about one entry "
            "per bucket whatever its size, and the per-CPU cache of the "
            "current task's entries means the outgoing task is not looked "
            "up. TCG has no cache model, so this shows that the lookup is "
            "O(1) in instructions, not that %s entries stay "
            "cache-resident on hardware." % (
                hi, _f(_get(sc, "rows", hi, "tasks_tracked")),
                "`pmuctx stat --per-switch`" if mon == "pmuctx_ps" else
                "`pmuctx stat`",
                _rx(_get(sc, "rows", hi, mon, "vs_smallest"), 3), lo,
                _rx(_get(sc, "rows", hi, "none", "vs_smallest"), 3), hi))

    # ---- memory
    mem = _get(res, "cases", "memory") or {}
    if mem:
        p = _get(mem, "configs", "pmuctx") or {}
        q = _get(mem, "configs", "perf") or {}
        pb = _get(p, "bytes_per_task", "SUnreclaim")
        qb = _get(q, "bytes_per_task", "SUnreclaim")
        tt = _get(p, "tasks_tracked", "median")
        sb = _get(p, "store_bytes", "median")
        pool = _get(p, "pool_entries", "median")
        esz = sb / (tt + (pool or 0)) if sb and tt else None
        A.append(
            "**Memory.** With %s monitored threads the kernel's "
            "unreclaimable slab grows by %s bytes per thread under pmuctx "
            "and %s under perf stat (ratio %s). `pmuctx info` accounts "
            "%s bytes per entry (store_bytes over tasks_tracked plus the "
            "%s pre-allocated pool entries), from a slab cache of exactly "
            "that size (`pmuctx_entry_<size>` in /proc/slabinfo); on top "
            "come the rhashtable's bucket array (one pointer per bucket, "
            "rounded up to a power of two by kmalloc) and slab page tails "
            "(section 9 accounts for them). perf keeps a task context and "
            "a `struct perf_event` per event per inherited thread. "
            "Per-round values: pmuctx %s B, perf %s B." % (
                _f(mem.get("threads")), _ci(pb, signed=False),
                _ci(qb, signed=False),
                _rx(mem.get("ratio_sunreclaim"), 3), _f(esz), _f(pool),
                ", ".join("%.0f" % v for v in (pb or {}).get("values", [])),
                ", ".join("%.0f" % v for v in (qb or {}).get("values", []))))

    # ---- ring
    ring = _get(res, "cases", "ring") or {}
    if ring.get("status") == "measured":
        rows = ring.get("rows", {})
        bits = []
        for key in ("32/1cpu", "256/1cpu", "32/allcpu", "256/allcpu"):
            row = rows.get(key, {})
            if not row:
                continue
            bits.append("%s B on %s: normal %s, overwrite %s, "
                        "trace_marker %s, write(/dev/null) %s" % (
                            key.split("/")[0],
                            "one CPU" if key.endswith("1cpu") else
                            "all CPUs",
                            _f(_get(row, "pmuctx_normal", "median")),
                            _f(_get(row, "pmuctx_overwrite", "median")),
                            _f(_get(row, "ftrace_marker", "median")),
                            _f(_get(row, "devnull", "median"))))
        lost = sum(_get(row, "pmuctx_normal", "lost_max") or 0
                   for row in rows.values())
        r1 = rows.get("32/1cpu", {})
        pm1 = _get(r1, "pmuctx_overwrite", "median")
        dn1 = _get(r1, "devnull", "median")
        ft1 = _get(r1, "ftrace_marker", "median")
        A.append(
            "**Ring buffer.** %s per USER record (median over rounds): " %
            t + "; ".join(bits) +
            ". For a 32-byte record on one CPU, what pmuctx adds beyond "
            "the bare system call is %s %s against %s for ftrace's "
            "trace_marker. %s" % (
                _f(pm1 - dn1 if pm1 is not None and dn1 is not None
                   else None), t,
                _f(ft1 - dn1 if ft1 is not None and dn1 is not None
                   else None),
                "No record was lost in normal mode (the writer consumed as "
                "it went)." if lost == 0 else
                "%s records were lost in normal mode." % _f(lost)))

    # ---- recommendations
    v_cc = [_verdict(res, "counter-backed set (-e %s): pmuctx stat <= 0.2x"
                     " perf stat's (%s)" % ("cpu-clock,context-switches,"
                                           "cpu-migrations,page-faults", b))
            for b in ("pingpong", "pipe")]
    if any(v and v != "PASS" and v != "n/a" for v in v_cc) and \
            "pmuctx_cc" in pp and "perf_cc" in pp:
        pc = probe.get("pmuctx_cc") or {}
        REC.append(
            "%d. **Counter-backed sessions against perf's best case** "
            "(`module/hooks.c`). With `-e %s` pmuctx adds %s %s per "
            "ping-pong switch and perf %s (ratio %s)%s. perf does no work "
            "on this path (it swaps two equivalent contexts); pmuctx "
            "closes the outgoing task's slice and opens the incoming "
            "one's for every counter-backed event. Two ways to close the "
            "gap: (a) cpu-clock of a task is its on-CPU time, which the "
            "kernel keeps per task like task-clock; sourcing it from "
            "`se.sum_exec_runtime` would make such sessions switchless, "
            "as the default ones are (only for cpu-clock; hardware "
            "events still need the switch); (b) for sessions that only "
            "report totals (no `--per-task`, no SWITCH records), leave "
            "the slice open when `prev` and `next` are in exactly the "
            "same sessions with the same events and charge it to the "
            "session's per-CPU total, as perf does, attributing only at "
            "exit and when per-task values are read." % (
                len(REC) + 1, "cpu-clock,context-switches,cpu-migrations,"
                "page-faults", _ci(added(pp, "pmuctx_cc")), t,
                _ci(added(pp, "perf_cc")),
                _rx(_peer(ppb, "pmuctx_cc", "perf_cc")),
                "; %s %s of it inside the probe per call" % (
                    _ci(pc["per_call"], signed=False), t)
                if pc.get("calls") else ""))
    if "pmuctx_other_ps" in pp:
        ops = added(pp, "pmuctx_other_ps")
        REC.append(
            "%d. **Skip the hash lookup on switch-in when possible** "
            "(`pmuctx_probe_switch()`). While a session with a probe "
            "exists, every switch-in calls `rhltable_lookup(&pmuctx_store, "
            "&next, ...)`, for every task on the machine (a `--per-switch` "
            "session on another process: %s %s per switch here). In TCG, "
            "which has no cache model, that is instructions only; on "
            "hardware it is a hash of the task pointer and at least two dependent cache "
            "misses (bucket, entry) in a table that grows with the "
            "monitored tasks. Keep the outgoing task's entries in a "
            "second per-CPU slot instead of dropping them (`cc->task = "
            "next; cc->nr = 0`), so a task that comes back to the CPU next "
            "(ping-pong, producer/consumer, a task woken where it slept) "
            "is found without hashing, and add a small per-CPU negative "
            "cache for unmonitored tasks (cleared when an entry is "
            "inserted)." % (len(REC) + 1, _ci(ops), t))
    for rows, what in ((pr, "fork/exit"), (th, "thread")):
        v = _verdict(res, "%s churn" % what)
        if rows and v and v != "PASS":
            REC.append(
                "%d. **Churn: take shared cache lines off the per-task "
                "path** (`module/store.c`; the %s churn target is %s). "
                "Each created and freed task does atomic read-modify-writes "
                "on global and per-session words (`pmuctx_stats.entries`, "
                "`.bytes`, `.created`, `.freed`, `s->tasks_seen`, "
                "`s->tasks_exited`, `s->retiring`, `s->retired`, the "
                "rhashtable's `nelems`) and adds its counts to the parent "
                "entry's children sums, shared by all siblings. Two vCPUs "
                "cannot show the contention; a large machine running "
                "`make -j` will. Per-CPU counters for the statistics "
                "(summed by PMUCTX_IOC_INFO) and a per-CPU delta of the "
                "parent's children sums would take them off." % (
                    len(REC) + 1, what, v.split(" ")[0]))
            break
    return A, REC
