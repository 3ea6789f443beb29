#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py - turn bench/guest.sh's raw.txt into bench/results.json,
docs/PERFORMANCE.md and docs/perf-*.png, and print one verdict per target.

usage: bench/report.py --raw RAW [--host HOST] [--json PATH] [--md PATH]
                       [--plots DIR]

Estimators (the report's "Method" says the same):
  * per round, a configuration's value is the median of its windows
    (ping-pong windows, pipe runs, ring repetitions) under icount, where
    guest time counts instructions; the minimum in wallclock mode, where
    the host's other load only ever adds time;
  * an added cost is the mean over rounds of (configuration - baseline),
    paired by round, with a 95 % confidence interval from Student's t
    over the rounds;
  * a ratio of added costs (pmuctx / perf) is the ratio of the mean added
    costs, with a 95 % interval from a paired bootstrap over rounds
    (round indices resampled with replacement, 2000 resamples, fixed
    seed: the report is reproducible);
  * a verdict is PASS when the interval's upper bound is within the
    target, MISS when its lower bound is beyond it, UNDECIDED otherwise.

Raw files of either mode are read: a wallclock run has no icount line
(host.txt "H icount=off" or none; raw "E icount=off" or none).  Only the
Python standard library and (for the plots) gnuplot are used.
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

EVENTS = "task-clock,context-switches,cpu-migrations,page-faults"
EVENTS_CC = "cpu-clock,context-switches,cpu-migrations,page-faults"

BOOT_RESAMPLES = 2000
BOOT_SEED = 17

CS_CFGS = [
    ("unloaded", "module not loaded (rmmod in the same boot)",
     "BENCH"),
    ("idle", "module loaded, no session: the baseline of the added costs",
     "BENCH"),
    ("pmuctx", "pmuctx stat, 4 default events, inherited: switchless "
     "(no sched_switch probe)",
     "pmuctx stat -- BENCH"),
    ("pmuctx_ps", "pmuctx stat --per-switch: the 4 default events "
     "accounted in the sched_switch probe",
     "pmuctx stat --per-switch -- BENCH"),
    ("pmuctx_cc", "pmuctx stat with cpu-clock (a perf software counter, "
     "read at each switch) instead of task-clock",
     "pmuctx stat -e %s -- BENCH" % EVENTS_CC),
    ("pmuctx_sys", "pmuctx stat -a --per-task (system-wide, per task)",
     "pmuctx stat -a --per-task -- BENCH"),
    ("perf", "perf stat, the same 4 events, inherited per-task counters",
     "perf stat -e %s -- BENCH" % EVENTS),
    ("perf_cc", "perf stat, the counter-backed set (cpu-clock, ...)",
     "perf stat -e %s -- BENCH" % EVENTS_CC),
    ("perf_sys", "perf stat -a, the 4 events (per-CPU counters)",
     "perf stat -a -e %s -- BENCH" % EVENTS),
    ("bpftrace", "bpftrace: per-task on-CPU time in a map "
     "(bench/sched_oncpu.bt)",
     "bpftrace bench/sched_oncpu.bt & BENCH"),
    ("pmuctx_noinherit", "pmuctx stat --no-inherit: only the main thread "
     "is monitored (ping-pong only)",
     "pmuctx stat --no-inherit -- BENCH"),
    ("perf_noinherit", "perf stat --no-inherit: only the main thread is "
     "monitored, no clone-equivalent fast path (ping-pong only)",
     "perf stat --no-inherit -e %s -- BENCH" % EVENTS),
    ("pmuctx_other", "a default (switchless) pmuctx session counts another "
     "process; the benchmark is not monitored",
     "pmuctx stat -- sleep 3600 & BENCH"),
    ("pmuctx_other_ps", "a --per-switch pmuctx session counts another "
     "process: its probe runs at every switch, the benchmark is not "
     "monitored",
     "pmuctx stat --per-switch -- sleep 3600 & BENCH"),
    ("pmuctx_sys_total", "pmuctx stat -a without --per-task (system-wide "
     "totals; exited tasks not kept)",
     "pmuctx stat -a -- BENCH"),
]
CS_DESC = {c: d for c, d, _ in CS_CFGS}
CS_BENCHES = [
    ("pingpong", "futex ping-pong, 2 threads pinned to CPU 0",
     "bench/pingpong -c 0 -l %(pp_loops)s -r %(pp_windows)s -w %(pp_loops)s"),
    ("pipe", "perf bench sched pipe, 2 processes pinned to CPU 0",
     "sh -c 'for i in $(seq %(pipe_runs)s); do taskset -c 0 perf bench sched "
     "pipe -l %(pipe_loops)s; done'"),
]
# (label, numerator, denominator) of the ratio table of case 1: ratios of
# the added costs over idle, paired by round
CS_PEERS = [
    ("pmuctx / perf (default events)", "pmuctx", "perf"),
    ("pmuctx -e cpu-clock,... / perf -e cpu-clock,... (counter-backed)",
     "pmuctx_cc", "perf_cc"),
    ("pmuctx --per-switch / perf (default events)", "pmuctx_ps", "perf"),
    ("pmuctx -e cpu-clock,... / pmuctx --per-switch", "pmuctx_cc",
     "pmuctx_ps"),
    ("pmuctx --per-switch / bpftrace", "pmuctx_ps", "bpftrace"),
    ("pmuctx -a --per-task / bpftrace", "pmuctx_sys", "bpftrace"),
    ("pmuctx -a --per-task / perf -a", "pmuctx_sys", "perf_sys"),
    ("pmuctx -a --per-task / pmuctx --per-switch", "pmuctx_sys",
     "pmuctx_ps"),
    ("pmuctx -a / pmuctx -a --per-task", "pmuctx_sys_total", "pmuctx_sys"),
    ("--per-switch session on another process / pmuctx --per-switch",
     "pmuctx_other_ps", "pmuctx_ps"),
    ("pmuctx --no-inherit / perf --no-inherit", "pmuctx_noinherit",
     "perf_noinherit"),
]
PROBE_CFGS = ["pmuctx", "pmuctx_ps", "pmuctx_cc", "pmuctx_sys",
              "pmuctx_other_ps"]


# ---------------------------------------------------------------------------
# units: wallclock runs are in ns of host time; icount runs in guest
# instructions (QEMU -icount shift=S: 1 instruction = 2^S ns of guest time,
# converted back to instructions here)

class Units:
    def __init__(self, icount):
        self.icount = icount          # None (wallclock) or the shift
        if icount is None:
            self.t = "ns"             # a time
            self.kt = "µs"            # a thousand of them
            self.long = "ns (host time)"
        else:
            self.t = "instr"
            self.kt = "k instr"
            self.long = "guest instructions (QEMU icount, shift %d)" % \
                icount

    @property
    def window(self):
        return "median" if self.icount is not None else "min"


U = Units(None)


def time_mode(env, host):
    """the icount shift of a run, None for host time"""
    v = host.get("icount", env.get("icount"))
    if v in (None, "", "off"):
        return None
    try:
        return int(v)
    except ValueError:
        return None


# ---------------------------------------------------------------------------
# parsing

def parse_kv(words):
    d = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def load(raw_path, host_path):
    env, host, R, I, F = {}, {}, [], [], []
    with open(raw_path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            kind, kv = w[0], parse_kv(w[1:])
            if kind == "E":
                env.update(kv)
            elif kind == "R":
                R.append(kv)
            elif kind == "I":
                I.append(kv)
            elif kind == "F":
                F.append(kv)
    if host_path and os.path.exists(host_path):
        with open(host_path) as f:
            for line in f:
                w = line.split()
                if w and w[0] == "H":
                    host.update(parse_kv(w[1:]))
    return env, host, R, I, F


def rescale(R, I, shift):
    """icount shift S > 0: guest ns -> instructions (divide by 2^S)"""
    if not shift:
        return
    k = float(2 ** shift)
    for r in R:
        if r.get("unit", "").startswith(("ns_", "us_")) and \
                num(r.get("value")) is not None:
            r["value"] = str(num(r["value"]) / k)
    for i in I:
        for key in ("probe_ns", "pp_ns_per_switch"):
            if num(i.get(key)) is not None:
                i[key] = str(num(i[key]) / k)


# ---------------------------------------------------------------------------
# statistics

# Student's t, two-sided 95 % (the 0.975 quantile), by degrees of freedom
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447,
        7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228, 11: 2.201, 12: 2.179,
        13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101,
        19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064,
        25: 2.060, 26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042,
        40: 2.021, 50: 2.009, 60: 2.000, 80: 1.990, 100: 1.984,
        120: 1.980}


def t975(df):
    """0.975 quantile of Student's t with df degrees of freedom: the
    table, linear in 1/df between its entries and towards 1.960"""
    if df < 1:
        return None
    if df in T975:
        return T975[df]
    keys = sorted(T975)
    if df > keys[-1]:
        lo, hi, tlo, thi = keys[-1], math.inf, T975[keys[-1]], 1.960
    else:
        hi = min(k for k in keys if k > df)
        lo = max(k for k in keys if k < df)
        tlo, thi = T975[lo], T975[hi]
    x, xlo, xhi = 1.0 / df, 1.0 / lo, (0.0 if hi == math.inf else 1.0 / hi)
    return thi + (tlo - thi) * (x - xhi) / (xlo - xhi)


def mean_ci(vals):
    """mean and 95 % t interval; lo/hi None with fewer than 2 values"""
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    m = statistics.fmean(vals)
    out = {"n": len(vals), "mean": m, "lo": None, "hi": None}
    if len(vals) >= 2:
        h = t975(len(vals) - 1) * statistics.stdev(vals) / \
            math.sqrt(len(vals))
        out["lo"], out["hi"] = m - h, m + h
    return out


def nearest_rank(sorted_vals, p):
    n = len(sorted_vals)
    return sorted_vals[min(n - 1, max(0, int(math.ceil(p * n)) - 1))]


def boot_ratio(pairs):
    """ratio mean(x) / mean(y) of paired (x, y) values (by round) and a
    95 % interval from a bootstrap over the pairs; a resample whose mean
    y is not above 0 has no ratio: it counts as unbounded (+inf), which
    only widens the interval"""
    pairs = [(x, y) for x, y in pairs if x is not None and y is not None]
    if not pairs:
        return None
    n = len(pairs)
    mx = statistics.fmean(p[0] for p in pairs)
    my = statistics.fmean(p[1] for p in pairs)
    out = {"n": n, "ratio": mx / my if my > 0 else None,
           "lo": None, "hi": None, "num": mx, "den": my}
    if n < 2:
        return out
    rng = random.Random(BOOT_SEED)
    rs = []
    for _ in range(BOOT_RESAMPLES):
        sx = sy = 0.0
        for _ in range(n):
            x, y = pairs[rng.randrange(n)]
            sx += x
            sy += y
        rs.append(sx / sy if sy > 0 else math.inf)
    rs.sort()
    out["lo"], out["hi"] = nearest_rank(rs, 0.025), nearest_rank(rs, 0.975)
    return out


def summary(vals):
    vals = [v for v in vals if v is not None]
    if not vals:
        return None
    return {"n": len(vals), "mean": statistics.fmean(vals),
            "min": min(vals), "median": statistics.median(vals),
            "max": max(vals), "values": [round(v, 3) for v in vals]}


def per_round(R, case, bench, cfg, param, skip_first_rep=False):
    """{round: value}: the median (icount) or the minimum (host time) of
    the round's windows/repetitions"""
    by = {}
    for r in R:
        if (r.get("case") != case or r.get("bench") != bench or
                r.get("cfg") != cfg or r.get("param") != str(param)):
            continue
        if skip_first_rep and r.get("rep") == "1":
            continue
        v = num(r.get("value"))
        if v is not None:
            by.setdefault(int(r["round"]), []).append(v)
    f = statistics.median if U.window == "median" else min
    return {k: f(v) for k, v in sorted(by.items()) if v}


def paired(a, b):
    """mean_ci of a[r] - b[r] over the rounds in both"""
    return mean_ci([a[r] - b[r] for r in a if r in b])


def paired_ratio(a, b, base):
    """boot_ratio of (a[r] - base[r], b[r] - base[r]) over the rounds in
    all three; base None: of (a[r], b[r])"""
    if base is None:
        return boot_ratio([(a[r], b[r]) for r in a if r in b])
    return boot_ratio([(a[r] - base[r], b[r] - base[r])
                       for r in a if r in b and r in base])


def verdict_le(ci, limit):
    """PASS if the interval's upper bound <= limit, MISS if its lower
    bound > limit, else UNDECIDED"""
    if not ci:
        return "n/a"
    lo, hi = ci.get("lo"), ci.get("hi")
    if lo is None or hi is None:
        return "UNDECIDED (no interval: 1 round)"
    if hi <= limit:
        return "PASS"
    if lo > limit:
        return "MISS"
    return "UNDECIDED (CI straddles)"


def verdict_within(lo, hi, limit):
    """|x| <= limit for an interval [lo, hi]"""
    if lo is None or hi is None:
        return "UNDECIDED (no interval: 1 round)"
    if lo >= -limit and hi <= limit:
        return "PASS"
    if lo > limit or hi < -limit:
        return "MISS"
    return "UNDECIDED (CI straddles)"


# ---------------------------------------------------------------------------
# formatting

def fmt(v, nd=0):
    if v is None:
        return "n/a"
    if isinstance(v, float) and math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return "{:,.{nd}f}".format(v, nd=nd)


def fmt_signed(v, nd=0):
    if v is None:
        return "n/a"
    if isinstance(v, float) and math.isinf(v):
        return "+inf" if v > 0 else "-inf"
    if abs(v) < 0.5 * 10 ** -nd:
        v = 0.0         # no "-0"
    return "{:+,.{nd}f}".format(v, nd=nd)


def fmt_x(v, nd):
    """a ratio's number (never "-0.00")"""
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if abs(v) < 0.5 * 10 ** -nd:
        v = 0.0
    return "{:.{nd}f}".format(v, nd=nd)


def fmt_ci(c, nd=0, signed=True):
    """'+655 [+650, +660]' from a mean_ci"""
    if not c:
        return "n/a"
    f = fmt_signed if signed else fmt
    s = f(c["mean"], nd)
    if c.get("lo") is not None:
        s += " [%s, %s]" % (f(c["lo"], nd), f(c["hi"], nd))
    return s


def fmt_ratio(c, nd=2):
    """'0.00x [-0.01, 0.01]' from a boot_ratio"""
    if not c or c.get("ratio") is None:
        return "n/a"
    s = fmt_x(c["ratio"], nd) + "x"
    if c.get("lo") is not None:
        s += " [%s, %s]" % (fmt_x(c["lo"], nd), fmt_x(c["hi"], nd))
    return s


def fmt_pct_ci(c, base):
    """a mean_ci of differences as % of base: '+0.1 % [-0.1, +0.3]'"""
    if not c or not base:
        return "n/a"
    s = fmt_signed(100 * c["mean"] / base, 2) + " %"
    if c.get("lo") is not None:
        s += " [%s, %s]" % (fmt_signed(100 * c["lo"] / base, 2),
                            fmt_signed(100 * c["hi"] / base, 2))
    return s


# ---------------------------------------------------------------------------
# the cases

def case_cs(R, I, env):
    out = {"benches": {}}
    if "switchless" not in env.get("features", ""):
        CS_DESC["pmuctx"] = "pmuctx stat, 4 default events, inherited " \
            "(this module predates switchless sessions: counted at every " \
            "switch)"
    for bench, bdesc, _ in CS_BENCHES:
        prs = {cfg: per_round(R, "cs", bench, cfg, 0) for cfg, _, _ in
               CS_CFGS}
        prs = {k: v for k, v in prs.items() if v}
        if not prs:
            continue
        base = prs.get("idle")
        cfgs = {}
        for cfg, desc, _ in CS_CFGS:
            pr = prs.get(cfg)
            if not pr:
                continue
            st = summary(list(pr.values()))
            st["desc"] = CS_DESC[cfg]
            st["per_round"] = {str(k): v for k, v in pr.items()}
            if base and cfg not in ("idle", "unloaded"):
                st["added"] = paired(pr, base)
                bm = statistics.fmean(base.values())
                ad = st["added"]
                st["added_pct_of_idle"] = 100 * ad["mean"] / bm \
                    if ad and bm else None
                st["added_pct_ci"] = [100 * ad["lo"] / bm,
                                      100 * ad["hi"] / bm] \
                    if ad and bm and ad["lo"] is not None else None
            cfgs[cfg] = st
        b = {"desc": bdesc, "unit": U.t + " per switch", "configs": cfgs,
             "peer_ratios": {}}
        if base and "unloaded" in prs:
            d = paired(base, prs["unloaded"])
            um = statistics.fmean(prs["unloaded"].values())
            if d:
                b["idle_vs_unloaded"] = {
                    "diff": d, "unloaded_mean": um,
                    "pct": 100 * d["mean"] / um,
                    "pct_lo": None if d["lo"] is None else
                    100 * d["lo"] / um,
                    "pct_hi": None if d["hi"] is None else
                    100 * d["hi"] / um}
        if base:
            for label, a, bb in CS_PEERS:
                if a in prs and bb in prs:
                    r = paired_ratio(prs[a], prs[bb], base)
                    den = paired(prs[bb], base)
                    r["den_above_0"] = bool(den and den["lo"] is not None
                                            and den["lo"] > 0)
                    b["peer_ratios"][label] = dict(r, num_cfg=a,
                                                   den_cfg=bb)
        out["benches"][bench] = b
    sw = [num(r.get("switches_per_op")) for r in R
          if r.get("case") == "cs" and r.get("bench") == "pipe" and
          r.get("cfg") in ("unloaded", "idle")]
    sw = [s for s in sw if s]
    if sw:
        out["pipe_switches_per_op_median"] = statistics.median(sw)
    cnt = {}
    for i in I:
        if i.get("case") != "cs":
            continue
        if "cs_counted" in i:
            cnt.setdefault(i["cfg"], []).append(num(i["cs_counted"]))
        if "map_tasks" in i:
            cnt.setdefault("bpftrace_map_tasks", []).append(
                num(i["map_tasks"]))
        if i.get("cfg") == "idle":
            if "probes_registered" in i:
                cnt.setdefault("idle_probes_registered", []).append(
                    1.0 if i["probes_registered"] in ("1", "true") else 0.0)
            if "sessions" in i:
                cnt.setdefault("idle_sessions", []).append(
                    num(i["sessions"]))
    out["counts"] = {k: summary(v) for k, v in cnt.items()}
    out["probe_time"] = case_cs_probe(I, out)
    return out


def case_cs_probe(I, cs):
    """the debug build's time inside the sched_switch probe, per config"""
    rows = {}
    unavailable = None
    for i in I:
        if i.get("case") != "cs":
            continue
        if i.get("probe_time") == "unavailable":
            unavailable = i.get("reason", "unavailable")
        if "probe_n" not in i:
            continue
        n, hit, ns = (num(i.get(k)) for k in ("probe_n", "probe_hit",
                                               "probe_ns"))
        if n is None or ns is None:
            continue
        rows.setdefault(i["cfg"], []).append({
            "round": int(i.get("round", 0)), "n": n, "hit": hit, "ns": ns,
            "per_call": ns / n if n else None,
            "pp": num(i.get("pp_ns_per_switch"))})
    if not rows:
        return {"status": "not_measured",
                "reason": unavailable or "no probe time lines"}
    out = {"status": "measured", "configs": {}}
    pp = cs.get("benches", {}).get("pingpong", {}).get("configs", {})
    for cfg in PROBE_CFGS + sorted(set(rows) - set(PROBE_CFGS)):
        rr = rows.get(cfg)
        if not rr:
            continue
        calls = statistics.fmean(r["n"] for r in rr)
        c = {"rounds": len(rr), "calls": calls,
             "hit_share": statistics.fmean(r["hit"] / r["n"] for r in rr
                                           if r["n"] and r["hit"]
                                           is not None)
             if any(r["n"] for r in rr) else None,
             "per_call": mean_ci([r["per_call"] for r in rr]),
             "total": mean_ci([r["ns"] for r in rr]),
             "pp": summary([r["pp"] for r in rr])}
        added = pp.get(cfg, {}).get("added")
        if added:
            c["added_release"] = added
        out["configs"][cfg] = c
    return out


def case_churn(R):
    out = {}
    for bench in ("threads", "procs"):
        params = sorted({int(r["param"]) for r in R
                         if r.get("case") == "churn" and
                         r.get("bench") == bench})
        rows = {}
        for p in params:
            prs = {}
            for cfg in ("none", "pmuctx", "perf"):
                pr = per_round(R, "churn", bench, cfg, p,
                               skip_first_rep=True)
                if pr:
                    prs[cfg] = {k: v / 1000 for k, v in pr.items()}
            row = {cfg: summary(list(pr.values())) for cfg, pr in
                   prs.items()}
            if "none" in prs:
                for cfg in ("pmuctx", "perf"):
                    if cfg in prs:
                        row[cfg]["added"] = paired(prs[cfg], prs["none"])
                if "pmuctx" in prs and "perf" in prs:
                    row["ratio_added"] = paired_ratio(
                        prs["pmuctx"], prs["perf"], prs["none"])
            rows[str(p)] = row
        out[bench] = rows
    bp = {}
    prs = {cfg: per_round(R, "churn", "breakpoint", cfg, 64)
           for cfg in ("none", "pmuctx", "perf")}
    for cfg, pr in prs.items():
        if pr:
            bp[cfg] = summary(list(pr.values()))
    if prs.get("none"):
        for cfg in ("pmuctx", "perf"):
            if cfg in bp:
                bp[cfg]["vs_none"] = paired_ratio(prs[cfg], prs["none"],
                                                  None)
    out["breakpoint"] = bp
    return out


def case_scale(R, I):
    params = sorted({int(r["param"]) for r in R if r.get("case") == "scale"})
    # the per-switch session (its probe looks the incoming task up); raw
    # files from before switchless sessions have "pmuctx", which then
    # counted at every switch
    cfgs = {r.get("cfg") for r in R if r.get("case") == "scale"}
    mon = "pmuctx_ps" if "pmuctx_ps" in cfgs else "pmuctx"
    rows, prs = {}, {}
    for p in params:
        row = {}
        for cfg in ("none", mon):
            pr = per_round(R, "scale", "pingpong", cfg, p)
            if pr:
                prs[(cfg, p)] = pr
                row[cfg] = summary(list(pr.values()))
        for k in ("tasks_tracked", "store_bytes"):
            v = [num(i.get(k)) for i in I
                 if i.get("case") == "scale" and i.get("cfg") == mon and
                 i.get("param") == str(p) and k in i]
            if v:
                row[k] = statistics.median(v)
        if (mon, p) in prs and ("none", p) in prs:
            row["added"] = paired(prs[(mon, p)], prs[("none", p)])
        rows[str(p)] = row
    if params:
        lo = params[0]
        for p in params:
            for cfg in ("none", mon):
                if (cfg, p) in prs and (cfg, lo) in prs:
                    rows[str(p)][cfg]["vs_smallest"] = paired_ratio(
                        prs[(cfg, p)], prs[(cfg, lo)], None)
    return {"params": params, "rows": rows, "monitor": mon}


def case_mem(I):
    rows = {}
    n = None
    for i in I:
        if i.get("case") != "mem":
            continue
        n = int(i["param"])
        d = {}
        for k in ("SUnreclaim", "Slab", "KernelStack", "PageTables",
                  "Percpu", "VmallocUsed"):
            a, b = num(i.get("m0_" + k)), num(i.get("m1_" + k))
            if a is not None and b is not None:
                d[k] = (b - a) * 1024
        a, b = num(i.get("m0_MemFree")), num(i.get("m1_MemFree"))
        if a is not None and b is not None:
            d["MemUsed"] = (a - b) * 1024
        for k in ("tasks_tracked", "store_bytes", "entry_bytes",
                  "pool_entries"):
            if k in i:
                d[k] = num(i[k])
        rows.setdefault(i["cfg"], {})[int(i["round"])] = d
    if not rows or n is None:
        return None
    out = {"threads": n, "configs": {}}
    for cfg, rounds in rows.items():
        c = {}
        for k in ("SUnreclaim", "Slab", "MemUsed", "KernelStack",
                  "PageTables", "Percpu", "VmallocUsed", "tasks_tracked",
                  "store_bytes", "entry_bytes", "pool_entries"):
            st = summary([d.get(k) for d in rounds.values()])
            if st:
                c[k] = st
        out["configs"][cfg] = c
    per_task = {}
    for cfg in ("pmuctx", "perf"):
        c = out["configs"].get(cfg)
        if not c or "none" not in rows:
            continue
        per = {}
        for k in ("SUnreclaim", "Slab", "MemUsed"):
            # paired by round: same round, same state of the caches
            d = {r: (rows[cfg][r][k] - rows["none"][r][k]) / n
                 for r in rows[cfg] if r in rows["none"] and
                 k in rows[cfg][r] and k in rows["none"][r]}
            if d:
                per[k] = dict(mean_ci(list(d.values())),
                              values=[round(x, 1) for x in d.values()])
                per_task.setdefault(k, {})[cfg] = d
        c["bytes_per_task"] = per
        if cfg == "pmuctx" and "store_bytes" in c and "tasks_tracked" in c:
            tt = c["tasks_tracked"]["median"]
            c["info_bytes_per_task"] = \
                c["store_bytes"]["median"] / tt if tt else None
    d = per_task.get("SUnreclaim", {})
    if "pmuctx" in d and "perf" in d:
        out["ratio_sunreclaim"] = paired_ratio(d["pmuctx"], d["perf"],
                                               None)
    return out


def case_ring(R, I):
    info = [i for i in I if i.get("case") == "ring"]
    status = [i for i in info if i.get("status")]
    rr = [r for r in R if r.get("case") == "ring" and
          not r.get("bench", "").startswith("kernel_")]
    if not rr:
        reason = status[0].get("reason", "") if status else "no data"
        return {"status": "not_measured", "reason": reason}
    out = {"status": "measured", "rows": {}}
    for i in info:
        for k in ("ring_pages", "page_size", "records", "nr_cpus",
                  "ftrace"):
            if k in i:
                out[k] = num(i[k])
    benches = ["pmuctx_normal", "pmuctx_overwrite", "ftrace_marker",
               "devnull", "memcpy"]
    for payload in sorted({int(r["param"]) for r in rr}):
        for cfg in ("1cpu", "allcpu"):
            row = {}
            for b in benches:
                pr = per_round(R, "ring", b, cfg, payload)
                st = summary(list(pr.values()))
                if st:
                    lost = [num(r.get("lost")) for r in rr
                            if r.get("bench") == b and r.get("cfg") == cfg
                            and r.get("param") == str(payload)]
                    lost = [x for x in lost if x is not None]
                    st["lost_max"] = max(lost) if lost else None
                    row[b] = st
            for b in ("pmuctx_normal", "pmuctx_overwrite"):
                if b in row:
                    for peer in ("ftrace_marker", "devnull", "memcpy"):
                        if peer in row:
                            row[b]["vs_" + peer] = \
                                row[b]["median"] / row[peer]["median"]
                    if "devnull" in row:
                        row[b]["beyond_syscall"] = \
                            row[b]["median"] - row["devnull"]["median"]
            if "ftrace_marker" in row and "devnull" in row:
                row["ftrace_marker"]["beyond_syscall"] = \
                    row["ftrace_marker"]["median"] - \
                    row["devnull"]["median"]
            if row:
                out["rows"]["%d/%s" % (payload, cfg)] = row
    return out


# ---------------------------------------------------------------------------
# targets

def target(name, case, limit, measured, result, est=None, note=""):
    return {"name": name, "case": case, "limit": limit,
            "measured": measured, "result": result, "estimate": est,
            "note": note}


def not_measured(name, case, limit, why):
    return target(name, case, limit, why, "n/a")


def ratio_target(name, case, limit_x, r, num_txt, den_txt, info=False):
    """a target on a boot_ratio: r['ratio'] <= limit_x"""
    lim = "ratio of added costs <= %gx (95 %% CI upper bound)" % limit_x \
        if not info else "none (informational)"
    if not r:
        return not_measured(name, case, lim, "not measured in this run")
    meas = "%s; added %s vs %s" % (fmt_ratio(r), num_txt, den_txt)
    if r.get("ratio") is None:
        return target(name, case, lim, meas, "n/a", None,
                      "the denominator's added cost is not above 0")
    res = "INFO" if info else verdict_le(r, limit_x)
    note = ""
    if not r.get("den_above_0", True):
        note = "the peer's added cost is not clearly above 0, so the " \
            "ratio is not defined within its interval"
        if not info:
            res = "UNDECIDED (peer's cost not above 0)"
    return target(name, case, lim, meas, res,
                  {"ratio": r["ratio"], "lo": r["lo"], "hi": r["hi"]},
                  note)


def targets(cs, churn, scale, mem, ran):
    T = []
    for bench in ("pingpong", "pipe"):
        b = cs.get("benches", {}).get(bench)
        if not b:
            if "cs" in ran:
                T.append(not_measured("context switch (%s)" % bench, "cs",
                                      "", "no data"))
            continue
        c = b["configs"]
        iv = b.get("idle_vs_unloaded")
        name = "loaded but idle within 2 %% of not loaded (%s)" % bench
        lim = "abs(idle - unloaded) / unloaded <= 2 % (95 % CI)"
        if iv:
            T.append(target(name, "cs", lim, fmt_pct_ci(
                iv["diff"], iv["unloaded_mean"]),
                verdict_within(iv["pct_lo"], iv["pct_hi"], 2.0),
                {"pct": iv["pct"], "lo": iv["pct_lo"],
                 "hi": iv["pct_hi"]}))
        else:
            T.append(not_measured(name, "cs", lim, "not measured"))
        pr = b["peer_ratios"]

        def added(cfg):
            return "%s %s" % (fmt_ci(c[cfg].get("added")), U.t) \
                if cfg in c else "n/a"
        for label, a, d, lim_x, info in (
                ("default events: pmuctx stat added cost <= 0.2x perf "
                 "stat's", "pmuctx", "perf", 0.2, False),
                ("counter-backed set (-e %s): pmuctx stat <= 0.2x perf "
                 "stat's" % EVENTS_CC, "pmuctx_cc", "perf_cc", 0.2, False),
                ("informational: pmuctx stat --per-switch vs perf stat, "
                 "default events", "pmuctx_ps", "perf", 0.2, True),
                ("pmuctx stat --per-switch <= 1.0x the bpftrace script",
                 "pmuctx_ps", "bpftrace", 1.0, False),
                ("system-wide per-task (-a --per-task) <= 1.0x the "
                 "bpftrace script", "pmuctx_sys", "bpftrace", 1.0, False)):
            r = next((v for v in pr.values()
                      if v["num_cfg"] == a and v["den_cfg"] == d), None)
            if r is None and info:
                continue
            if r is None and d == "bpftrace":
                continue
            T.append(ratio_target(
                "%s (%s)" % (label, bench), "cs", lim_x, r,
                "%s %s" % (a, added(a)), "%s %s" % (d, added(d)), info))
    for bench, what in (("procs", "fork/exit"), ("threads", "thread")):
        rows = churn.get(bench, {}) if churn else {}
        name = "%s churn <= 0.5x perf's added cost per task" % what
        if not rows:
            T.append(not_measured(name, "churn", "", "case not run"
                                  if "churn" not in ran else "no data"))
            continue
        top = max(rows, key=int)
        row = rows[top]
        r = row.get("ratio_added")
        if r:
            r = dict(r, den_above_0=bool(
                row["perf"]["added"] and row["perf"]["added"]["lo"]
                is not None and row["perf"]["added"]["lo"] > 0))
        T.append(ratio_target(
            "%s at %s" % (name, top), "churn", 0.5, r,
            "pmuctx %s %s" % (fmt_ci(row.get("pmuctx", {}).get("added"), 1),
                              U.kt),
            "perf %s %s" % (fmt_ci(row.get("perf", {}).get("added"), 1),
                            U.kt)))
    name = "lookup scale: ping-pong cost at the largest N <= 1.2x at the " \
        "smallest"
    if scale and scale["params"]:
        lo, hi = str(scale["params"][0]), str(scale["params"][-1])
        mon = scale["monitor"]
        r = scale["rows"][hi].get(mon, {}).get("vs_smallest")
        lim = "%s/switch(N=%s) <= 1.2 x (N=%s), under %s (95 %% CI)" % (
            U.t, hi, lo, "pmuctx stat --per-switch" if mon == "pmuctx_ps"
            else "pmuctx stat")
        if r and r.get("ratio") is not None:
            T.append(target(
                "lookup scale: cost at %s <= 1.2x cost at %s" % (hi, lo),
                "scale", lim, fmt_ratio(r, 3), verdict_le(r, 1.2),
                {"ratio": r["ratio"], "lo": r["lo"], "hi": r["hi"]}))
        else:
            T.append(not_measured(name, "scale", lim, "no data"))
    else:
        T.append(not_measured(name, "scale", "", "case not run"
                              if "scale" not in ran else "no data"))
    name = "memory <= 256 B per task (SUnreclaim delta)"
    if mem:
        p = mem["configs"].get("pmuctx", {}).get("bytes_per_task", {})
        k = "SUnreclaim"
        if k in p:
            info = mem["configs"]["pmuctx"].get("info_bytes_per_task")
            res = verdict_le(p[k], 256)
            note = ""
            if info is not None and info > 256 and res == "PASS":
                res, note = "MISS", "pmuctx info's store_bytes per task " \
                    "is above 256 B"
            T.append(target(
                name, "mem", "SUnreclaim delta per task, 95 % CI upper "
                "bound <= 256 B; store_bytes / tasks_tracked <= 256 B",
                "%s B (meminfo, mean [95 %% CI]), %s B (pmuctx info)" % (
                    fmt_ci(p[k], 0, signed=False), fmt(info)),
                res, {"mean": p[k]["mean"], "lo": p[k]["lo"],
                      "hi": p[k]["hi"]}, note))
        r = mem.get("ratio_sunreclaim")
        if r:
            q = mem["configs"].get("perf", {}).get("bytes_per_task", {})
            T.append(ratio_target(
                "memory <= 0.25x perf's bytes per task (4 inherited "
                "events)", "mem", 0.25, dict(r, den_above_0=True),
                "pmuctx %s B" % fmt_ci(p.get(k), 0, signed=False),
                "perf %s B" % fmt_ci(q.get(k), 0, signed=False)))
    else:
        T.append(not_measured(name, "mem", "", "case not run"
                              if "mem" not in ran else "no data"))
    return T


# ---------------------------------------------------------------------------
# plots

def plots(res, outdir):
    if not shutil.which("gnuplot"):
        return []
    made = []
    tmp = tempfile.mkdtemp(prefix="pmuctx-plot.")
    what = "guest instructions, QEMU icount" if U.icount is not None \
        else "host ns, QEMU TCG"
    sc = res["cases"].get("lookup_scale")
    if sc and sc["params"]:
        dat = os.path.join(tmp, "scale.dat")
        with open(dat, "w") as f:
            f.write("# N none_mean none_min none_max mon_mean mon_min "
                    "mon_max\n")
            for p in sc["params"]:
                row = sc["rows"][str(p)]
                vals = [p]
                for cfg in ("none", sc["monitor"]):
                    c = row.get(cfg)
                    vals += [c["mean"], c["min"], c["max"]] if c else \
                        ["NaN"] * 3
                f.write(" ".join(str(v) for v in vals) + "\n")
        png = os.path.join(outdir, "perf-lookup-scale.png")
        gp = """
set terminal pngcairo size 900,540 font ",11"
set termoption noenhanced
set output '%s'
set title "Lookup scale: ping-pong cost per switch vs monitored tasks (%s, 2 vCPUs)"
set logscale x
set xlabel "other monitored (sleeping) threads in the process"
set ylabel "%s per context switch"
set yrange [0:*]
set key bottom right
set grid
plot '%s' using 1:2:3:4 with yerrorlines lw 2 pt 7 title "no monitor (mean of rounds, min..max)", \\
     '' using 1:5:6:7 with yerrorlines lw 2 pt 5 title "%s (mean of rounds, min..max)"
""" % (png, what, U.t, dat, "pmuctx stat --per-switch"
       if sc["monitor"] == "pmuctx_ps" else "pmuctx stat")
        if run_gnuplot(gp, tmp):
            made.append(png)
    ch = res["cases"].get("churn")
    if ch and ch.get("threads") and ch.get("procs"):
        dat = os.path.join(tmp, "churn.dat")
        blocks = []
        for bench in ("threads", "procs"):
            lines = []
            for p in sorted(ch.get(bench, {}), key=int):
                row = ch[bench][p]
                vals = [p]
                for cfg in ("none", "pmuctx", "perf"):
                    c = row.get(cfg)
                    vals += [c["mean"]] if c else ["NaN"]
                lines.append(" ".join(str(v) for v in vals))
            blocks.append("\n".join(lines))
        with open(dat, "w") as f:
            f.write("\n\n\n".join(blocks) + "\n")
        png = os.path.join(outdir, "perf-churn.png")
        gp = """
set terminal pngcairo size 1000,480 font ",11"
set termoption noenhanced
set output '%s'
set multiplot layout 1,2 title "Task churn: %s per created task (mean of rounds; %s)"
set logscale x 2
set yrange [0:*]
set grid
set key top left box opaque
set xlabel "threads created and joined"
set ylabel "%s per task"
plot '%s' index 0 using 1:2 with linespoints lw 2 pt 7 title "no monitor", \\
     '' index 0 using 1:3 with linespoints lw 2 pt 5 title "pmuctx stat", \\
     '' index 0 using 1:4 with linespoints lw 2 pt 9 title "perf stat"
set xlabel "processes forked and reaped"
plot '%s' index 1 using 1:2 with linespoints lw 2 pt 7 title "no monitor", \\
     '' index 1 using 1:3 with linespoints lw 2 pt 5 title "pmuctx stat", \\
     '' index 1 using 1:4 with linespoints lw 2 pt 9 title "perf stat"
unset multiplot
""" % (png, U.kt, what, U.kt, dat, dat)
        if run_gnuplot(gp, tmp):
            made.append(png)
    cs = res["cases"].get("context_switch", {}).get("benches", {})
    if cs:
        dat = os.path.join(tmp, "cs.dat")
        with open(dat, "w") as f:
            f.write("# cfg, then per bench: added %, CI low, CI high\n")
            for cfg, _, _ in CS_CFGS[2:]:
                vals = []
                for bench in cs:
                    c = cs[bench]["configs"].get(cfg, {})
                    p, ci = c.get("added_pct_of_idle"), c.get("added_pct_ci")
                    vals += [str(p) if p is not None else "NaN"]
                    vals += [str(x) for x in ci] if ci else \
                        ([str(p)] * 2 if p is not None else ["NaN"] * 2)
                f.write(cfg + " " + " ".join(vals) + "\n")
        png = os.path.join(outdir, "perf-context-switch.png")
        using = ", ".join("'%s' using %d:%d:%d:xtic(1) title '%s'" % (
            dat if i == 0 else "", 3 * i + 2, 3 * i + 3, 3 * i + 4, b)
            for i, b in enumerate(cs))
        gp = """
set terminal pngcairo size 1000,520 font ",11"
set output '%s'
set title "Added cost per context switch over idle, %% of idle (mean, 95 %% CI; %s)"
set termoption noenhanced
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set ylabel "added %s per switch, %% of idle"
set grid ytics
set key top left box opaque
set xtics rotate by -30
set rmargin 9
set bmargin 6
plot %s
""" % (png, what, U.t, using)
        if run_gnuplot(gp, tmp):
            made.append(png)
    shutil.rmtree(tmp, ignore_errors=True)
    return made


def run_gnuplot(script, tmp):
    path = os.path.join(tmp, "plot.gp")
    with open(path, "w") as f:
        f.write(script)
    r = subprocess.run(["gnuplot", path], capture_output=True, text=True)
    if r.returncode:
        sys.stderr.write("report: gnuplot failed: %s\n" % r.stderr[-500:])
        return False
    return True


# ---------------------------------------------------------------------------
# markdown

def md_table(head, rows):
    out = ["| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c) for c in r) + " |")
    return "\n".join(out)


def note_files(notes):
    """bench/notes/*.md that are sections of the report (their first line
    is a "### " heading), in numeric order (5b before 10); other notes
    (a full write-up that a section links to) are not included"""
    def key(n):
        m = re.match(r"(\d+)(.*)", n)
        return (int(m.group(1)), m.group(2)) if m else (1 << 30, n)
    out = []
    for n in sorted(os.listdir(notes), key=key):
        if not n.endswith(".md"):
            continue
        p = os.path.join(notes, n)
        with open(p) as f:
            if f.readline().startswith("### "):
                out.append(p)
    return out


def write_md(res, path, plot_files):
    env, host = res["environment"], res["host"]
    cs = res["cases"].get("context_switch", {})
    churn = res["cases"].get("churn", {})
    scale = res["cases"].get("lookup_scale")
    mem = res["cases"].get("memory")
    ring = res["cases"].get("ring", {})
    icount = U.icount is not None
    P = {k: env.get(k, "?") for k in ("pp_loops", "pp_windows",
                                       "pipe_loops", "pipe_runs")}
    L = []
    a = L.append

    def paragraphs(heading, paras):
        """A section of paragraphs (bench/analysis.py's), none if empty."""
        if paras:
            a(heading)
            a("")
            for para in paras:
                a(para)
                a("")
    a("# pmuctx performance: context-switch cost and scale")
    a("")
    a("<!-- Generated by bench/report.py from `make bench`; do not edit "
      "by hand: edit bench/report.py (or bench/analysis.py, "
      "bench/notes/*.md) and rerun. -->")
    a("")
    a("This report is produced by `make bench` (`bench/run`). Every figure "
      "is a **difference or a ratio against a baseline measured in the "
      "same VM boot**: the guest is emulated by QEMU TCG, whose absolute "
      "costs mean little for real hardware (see *Caveats*). %s Raw "
      "numbers, every run, are in "
      "[`bench/results.json`](../bench/results.json)." % (
          "Times are **guest instructions**: QEMU ran with `-icount "
          "shift=%d,sleep=off`, so the guest's clock counts the "
          "instructions it executes%s and the figures do not depend on "
          "the host's load." % (
              U.icount, "" if U.icount == 0 else
              " (2^%d ns each, converted back to instructions here)" %
              U.icount)
          if icount else
          "Times are **ns of host time** (QEMU without icount): they move "
          "with the host's load."))
    a("")
    if host.get("quick") == "1" or env.get("quick") == "1":
        a("> **Quick (smoke) run**: few rounds and small sizes; the "
          "figures are not meant to be quoted.")
        a("")
    a("## Summary")
    a("")
    ls = num((host.get("load_start") or "").split(",")[0])
    if not icount and ls is not None and ls > 1.5:
        a("> **Noisy host.** This run started with a host load average of "
          "%s on %s CPUs (`bench/run` waited %s s, its --max-wait, for it "
          "to drop below 1.5). Host time moves with that load; the "
          "confidence intervals below include it, but rerun on a quiet "
          "host, or with icount (the default), before quoting small "
          "differences." % (ls, host.get("host_nproc", "?"),
                            host.get("waited_s", "?")))
        a("")
    a("Each target is decided on a 95 %% confidence interval over the "
      "rounds (%s): **PASS** when the whole interval is within the "
      "target, **MISS** when the whole interval is beyond it, "
      "**UNDECIDED** when it straddles the limit (more rounds would "
      "decide). Ratios are of *added* costs: a configuration minus the "
      "baseline of the same round (`idle`: module loaded, no session, for "
      "the context-switch rows; no monitor for churn and memory), pmuctx's "
      "over the peer's; the interval of a ratio comes from a paired "
      "bootstrap over rounds (%d resamples, seed %d). *Measured* shows "
      "the estimate and `[low, high]` of its interval." % (
          "*Method*", BOOT_RESAMPLES, BOOT_SEED))
    a("")
    rows = []
    for t in res["targets"]:
        rows.append([t["name"], t["limit"],
                     t["measured"] + (" (%s)" % t["note"] if t["note"]
                                      else ""),
                     "**%s**" % t["result"]])
    a(md_table(["target", "criterion", "measured", "verdict"], rows))
    a("")
    paragraphs("### What the numbers say", res.get("analysis"))
    a("## Environment")
    a("")
    a(md_table(["", ""], [
        ["date (UTC)", host.get("date", env.get("date", "?"))],
        ["guest kernel", "%s (`%s`)" % (env.get("kernel", "?"),
                                        env.get("kernel_version", "?")
                                        .replace("_", " "))],
        ["guest CPU / memory", "%s, %s vCPUs%s, %s MiB" % (
            env.get("cpu_model", "?").replace("_", " "),
            env.get("nr_cpus", "?"),
            " (the context-switch case: %s, static keys %s)" % (
                env["cs_nr_cpus"], "pinned" if env.get("cs_pinned_keys")
                == "1" else "not pinned")
            if env.get("cs_nr_cpus", env.get("nr_cpus")) !=
            env.get("nr_cpus") else "",
            int(num(env.get("mem_kb")) or 0) // 1024)],
        ["QEMU", "%s, `qemu-system-x86_64 %s` (plus the harness's "
         "9p/serial/isa-debug-exit devices, `tests/vm/run`)" % (
             host.get("qemu", "?"),
             host.get("qemu_flags", "").replace("_", " "))],
        ["time base", U.long],
        ["host", "%s, %s CPUs, kernel %s" % (
            host.get("host_cpu", "?").replace("_", " "),
            host.get("host_nproc", "?"), host.get("host_kernel", "?"))],
        ["host load (1/5/15 min)", "start %s, end %s%s%s" % (
            host.get("load_start", "?").replace(",", " / "),
            host.get("load_end", "?").replace(",", " / "),
            ", waited %ss for a quiet host" % host["waited_s"]
            if host.get("waited_s", "0") != "0" else "",
            " (does not change icount figures)" if icount else "")],
        ["pmuctx", "module %s, tree at commit %s%s%s" % (
            env.get("module_version", "?"), host.get("git_commit", "?"),
            " (module/ or include/ had %s uncommitted changes)" %
            host["git_dirty"] if host.get("git_dirty", "0") != "0" else "",
            "; measured: %s (sha256 %s)%s" % (
                host["module_src"], host.get("module_sha", "?"),
                ", debug build %s (sha256 %s)" % (
                    host["module_debug_src"],
                    host.get("module_debug_sha", "?"))
                if host.get("module_debug_src") else "")
            if host.get("module_src") else "")],
        ["peers", "perf %s, bpftrace %s" % (env.get("perf_version", "?"),
                                            env.get("bpftrace_version",
                                                    "?"))],
        ["run time", "VM %ss of host time (guest clock%s: warm-up %ss, "
         "%s)" % (
            host.get("vm_wall_s", "?"),
            ", which under icount counts instructions and jumps over "
            "the time every vCPU sleeps" if icount else "",
            env.get("warmup_s", "?"),
            ", ".join("%s %ss" % (c, env["case_%s_s" % c])
                      for c in ("cs", "churn", "scale", "mem", "ring")
                      if "case_%s_s" % c in env))],
    ]))
    a("")
    a("## Method")
    a("")
    if icount:
        a("* **Deterministic time (QEMU icount).** `bench/run` boots "
          "`tests/vm/run --smp N --mem 4096 --icount %d -- bench/guest.sh`, "
          "i.e. QEMU `-icount shift=%d,sleep=off`: the context-switch case "
          "in a boot of its own with one vCPU (N = 1), the other cases in "
          "one boot with two. The guest's clocks "
          "(`clock_gettime()`, `local_clock()`) then advance by 2^%d ns "
          "per executed guest instruction, whatever the host does: a "
          "measurement is a count of instructions, repeatable to a few "
          "tenths of a percent between windows and rounds (section 14), "
          "and the run "
          "does not wait for a quiet host. `sleep=off`: when every vCPU "
          "is idle the clock jumps to the next timer instead of following "
          "host time, so idle periods cost nothing. The count is of "
          "instructions, not cycles: TCG models no cache, TLB or "
          "pipeline, and neither does this time base (see *Caveats*). "
          "With icount QEMU runs the vCPUs in turn on one host thread "
          "and the clock is the total of all vCPUs' instructions: while "
          "the ping-pong runs on CPU 0, whatever CPU 1 does (a timer, a "
          "kworker, the monitoring tool) lands in the measured window. "
          "Such windows are outliers of a few percent, which the "
          "per-round median removes." % ((U.icount,) * 3))
    else:
        a("* **Host time.** `bench/run --wallclock` waits for the host's "
          "load average to drop below 1.5, then boots `tests/vm/run --smp "
          "2 --mem 4096 -- bench/guest.sh`; the guest's clocks follow the "
          "host's, so other guests on the host add time to any "
          "measurement.")
    a("* **Side by side in one boot.** %s Within a case the "
      "configurations are "
      "**interleaved round by round** (A B C ... A B C ..., the order "
      "rotated each round), so a slow drift hits every configuration "
      "alike. \"Not loaded\" is `rmmod pmuctx` in that same boot, and "
      "`insmod` again afterwards." % (
          "Every configuration of a case runs in the same boot (the "
          "context-switch case in its own, the other cases together; "
          "under icount the two boots run at the same time, which "
          "changes no figure)." if host.get("boots", "1") != "1" else
          "The guest script runs every case in one boot."))
    a("* **Warm-up.** The host backs guest RAM on first touch: the guest "
      "first touches almost all its memory (`bench/churn -W`), then runs "
      "each tool once.")
    a("* **Estimators.** Each configuration runs in every round (%s "
      "rounds for the context-switch case, %s for churn, %s for scale, "
      "%s for memory). Inside a run the work is cut into windows "
      "(ping-pong: %s windows of %s round trips after as many for "
      "warm-up; pipe: %s runs; churn: the repetitions after the first, "
      "which warms glibc's stack cache), and a round's value is the "
      "**%s** of its windows%s. An *added* cost is the mean over rounds "
      "of (configuration - baseline) paired by round, with a 95 %% "
      "confidence interval from Student's t over the rounds (`+x [lo, "
      "hi]`). A ratio of added costs is the ratio of their means, its "
      "interval from a paired bootstrap: round indices drawn with "
      "replacement, %d times, seed %d, the 2.5th and 97.5th "
      "percentiles of the resampled ratios (a resample whose "
      "denominator is not above 0 counts as an unbounded ratio; with "
      "5 rounds or fewer such an interval is narrower than it should "
      "be: read it with the t intervals of the two added costs). Tables "
      "give the mean of the per-round values and their range." % (
          env.get("cs_rounds", "?"), env.get("churn_rounds", "?"),
          env.get("scale_rounds", "?"), env.get("mem_rounds", "?"),
          env.get("pp_windows", "?"), env.get("pp_loops", "?"),
          env.get("pipe_runs", "?"), U.window,
          ": under icount a window is not disturbed by the host, so "
          "the minimum is not needed; the median drops the windows in "
          "which the other vCPU ran" if icount else
          ": the host's other load only ever adds time, so the "
          "fastest window is the least disturbed", BOOT_RESAMPLES,
          BOOT_SEED))
    a("* **Pinned ping-pong.** Both context-switch benchmarks pin the two "
      "tasks to CPU 0 (`taskset -c 0`, `sched_setaffinity`), so every "
      "hand-over is one plain `schedule()` from one task to the other: no "
      "IPI, no idle task in between. `bench/pingpong` counts the switches "
      "with `getrusage(RUSAGE_THREAD)` in both threads; `perf bench sched "
      "pipe` makes 2 switches per operation (the guest's `/proc/stat` "
      "ctxt, which also counts the tool's start-up and the other CPU, "
      "shows %s per op without a monitor)." %
      fmt(cs.get("pipe_switches_per_op_median"), 2))
    if env.get("cs_pinned_keys", env.get("pinned_keys")) == "0":
        a("* **The context-switch case in production's layout.** It runs "
          "with %s vCPU%s and nothing pinned: with the module loaded and no "
          "session (or only switchless ones) the sched tracepoints are "
          "patched out; a session that needs the probe makes it a direct "
          "static call, as on a user's kernel. QEMU TCG's text-poke race "
          "(below) needs a second vCPU running `__schedule` while the "
          "first patches it, so one vCPU is safe." % (
              env.get("cs_nr_cpus", env.get("nr_cpus", "?")),
              "" if env.get("cs_nr_cpus", env.get("nr_cpus")) == "1"
              else "s"))
    if env.get("pinned_keys") == "1":
        a("* **Pinned static keys%s.** QEMU TCG can hang the guest for good "
          "when attaching a tool live-patches `__schedule` while the other "
          "vCPU runs it (docs/TESTING.md, \"Static keys are pinned\"), so "
          "`tests/progs/pin_keys` holds two idle probes on the sched "
          "tracepoints (trace events in two tracefs instances, tracing "
          "off) and the perf software-event keys for the whole boot, in "
          "every configuration, the unloaded baseline included. Every "
          "tracepoint user therefore goes through the tracepoint's "
          "iterator rather than a direct static call, and the idle probes "
          "run at each switch: added costs are measured on top of that "
          "common floor (bench/notes/15-switch-path.md compares the two "
          "layouts: pinning understates perf's cost and overstates "
          "pmuctx's)." % (" (the 2-vCPU boot)" if env.get("cs_pinned_keys")
                         == "0" else ""))
    a("* **Events.** `pmuctx stat`'s 4 default events (task-clock, "
      "context-switches, cpu-migrations, page-faults) come from the "
      "kernel's own per-task counts: such a session is *switchless*, it "
      "registers no `sched_switch` probe (docs/DESIGN.md, \"Switchless "
      "sessions\"; section 9c). `--per-switch` accounts the same events "
      "in the probe at every switch of a monitored task, as every "
      "session did before. `-e %s` is a counter-backed set: cpu-clock "
      "is a perf software counter, which pmuctx reads at each switch. "
      "perf gets the same events with `-e`. The guest has no hardware "
      "PMU, so no configuration touches PMU registers." % EVENTS_CC)
    a("* **Probe-internal time.** With the debug build available "
      "(`make module-debug`), after the context-switch rounds the guest "
      "swaps it in for %s rounds and runs the ping-pong under each "
      "configuration that can register the probe; `module/probebench.c` "
      "sums `local_clock()` from the `sched_switch` probe's entry to its "
      "exit on each CPU and prints the totals at `rmmod` (the release "
      "build, which every other figure measures, has no such timer)." %
      env.get("probe_rounds", "?"))
    a("")
    a("Exact commands (BENCH is the benchmark command; `-o` sends the "
      "counts to a file):")
    a("")
    a("```")
    for bench, desc, cmd in CS_BENCHES:
        a("%-9s %s" % (bench + ":", cmd % P))
    for cfg, desc, cmd in CS_CFGS:
        a("%-17s %s" % (cfg + ":", cmd))
    a("churn:     bench/churn -t T -r 2 | bench/churn -f P -r 2 under "
      "none / pmuctx stat -- / perf stat -e %s --" % EVENTS)
    a("           perf bench breakpoint thread -b 4 -p 1 -t 64 under the "
      "same three")
    a("scale:     bench/pingpong -c 0 -l %s -r %s -i N (N sleeping threads "
      "first) under none / %s --" % (
          P["pp_loops"], P["pp_windows"],
          "pmuctx stat --per-switch" if (scale or {}).get("monitor") ==
          "pmuctx_ps" else "pmuctx stat"))
    a("memory:    bench/churn -H %s (sleeping threads) under none "
      "/ pmuctx stat -- / perf stat -e %s --" % (env.get("mem_n", "?"),
                                                 EVENTS))
    a("ring:      bench/ring -n %s -R %s" % (env.get("ring_n", "?"),
                                            env.get("ring_rounds", "?")))
    a("```")
    a("")

    # ---- case 1
    a("## 1. Context switch")
    a("")
    a("%s per switch. *Per round*: mean of the per-round values (each "
      "the %s of the round's windows) and their range over the rounds. "
      "*Added*: over `idle` (module loaded, no session), paired by round, "
      "mean [95 %% CI]." % (U.long[0].upper() + U.long[1:], U.window))
    a("")
    for bench, b in cs.get("benches", {}).items():
        a("### %s (%s)" % (bench, b["desc"]))
        a("")
        rows = []
        for cfg, _, _ in CS_CFGS:
            c = b["configs"].get(cfg)
            if not c:
                continue
            rows.append([cfg, c["desc"], c["n"], fmt(c["mean"]),
                         "%s .. %s" % (fmt(c["min"]), fmt(c["max"])),
                         "—" if "added" not in c else fmt_ci(c["added"]),
                         "—" if c.get("added_pct_of_idle") is None else
                         fmt_signed(c["added_pct_of_idle"], 2) + " %"])
        a(md_table(["config", "what", "rounds", "%s/switch" % U.t,
                    "range", "added %s [95 %% CI]" % U.t,
                    "added, % of idle"], rows))
        a("")
        iv = b.get("idle_vs_unloaded")
        if iv:
            a("Module loaded and idle against not loaded: %s %s per "
              "switch, %s." % (fmt_ci(iv["diff"]), U.t,
                               fmt_pct_ci(iv["diff"], iv["unloaded_mean"])))
            a("")
        pr = b.get("peer_ratios", {})
        if pr:
            a("Ratios of the **added** cost per switch (mean [95 % CI], "
              "paired bootstrap):")
            a("")
            rows = []
            for k, v in pr.items():
                if v.get("den_above_0"):
                    rows.append([k, fmt_ratio(v)])
                else:
                    rows.append([k, "— (the denominator's added cost, %s "
                                 "%s, is not clearly above 0)" % (
                                     fmt_ci(b["configs"][v["den_cfg"]].get(
                                         "added")), U.t)])
            a(md_table(["comparison", "ratio of added costs"], rows))
            a("")
    cnt = cs.get("counts", {})
    if cnt:
        bits = []
        counted = [(cfg, cnt[cfg]["median"]) for cfg in
                   ("pmuctx", "pmuctx_ps", "pmuctx_cc", "perf", "perf_cc")
                   if cnt.get(cfg)]
        if counted:
            bits.append("context switches counted for one ping-pong run "
                        "(median over rounds): " +
                        ", ".join("%s %s" % (c, fmt(v)) for c, v in counted))
        if cnt.get("bpftrace_map_tasks"):
            bits.append("the bpftrace map held %s tasks at the end of a "
                        "round" % fmt(cnt["bpftrace_map_tasks"]["median"]))
        if cnt.get("idle_sessions"):
            bits.append("with the module loaded and no session, "
                        "`pmuctx info` reported %s sessions%s" % (
                            fmt(cnt["idle_sessions"]["max"]),
                            " and probes_registered = %s" %
                            fmt(cnt["idle_probes_registered"]["max"])
                            if cnt.get("idle_probes_registered") else ""))
        a("Sanity: " + "; ".join(bits) + ".")
        a("")
    if "perf-context-switch.png" in plot_files:
        a("![added cost per switch, % of idle](perf-context-switch.png)")
        a("")
    pt = cs.get("probe_time", {})
    a("### 1b. Time inside the sched_switch probe (debug build)")
    a("")
    if pt.get("status") != "measured":
        a("Not measured in this run (%s)." % pt.get("reason", "no data"))
        a("")
    else:
        a("The ping-pong of case 1 under each configuration, on the debug "
          "build (`module/probebench.c`): probe calls on both CPUs during "
          "the run, the share of them that switched a monitored task in "
          "(*hit*), and the time from the probe's entry to its exit per "
          "call, mean over rounds [95 %% CI], in %s. A configuration "
          "without calls registered no probe. Next to it, for comparison, "
          "the release build's added cost per switch (case 1, over idle), "
          "which also holds what the probe's timing leaves out (the "
          "tracepoint's call into the probe, perf's callbacks of a "
          "counter-backed event) and leaves out what the debug build adds "
          "(the timer itself, its checks)." % U.long)
        a("")
        rows = []
        for cfg, c in pt["configs"].items():
            rows.append([cfg, c["rounds"], fmt(c["calls"]),
                         "n/a" if c["hit_share"] is None else
                         "%.1f %%" % (100 * c["hit_share"]),
                         fmt_ci(c["per_call"], signed=False)
                         if c["calls"] else "— (no probe)",
                         fmt_ci(c.get("added_release"))])
        a(md_table(["config", "rounds", "probe calls per run", "hit",
                    "%s per call [95 %% CI]" % U.t,
                    "added %s per switch (release, case 1)" % U.t], rows))
        a("")

    # ---- case 2
    a("## 2. Fork/exit and thread churn with inheritance")
    a("")
    a("%s per created task (create + exit + join/reap): mean over rounds "
      "of each round's value (the second repetition); *added* over no "
      "monitor, paired by round, mean [95 %% CI]; the ratio of the added "
      "costs with its bootstrap interval." % U.kt)
    a("")
    for bench, label in (("threads", "threads created then joined (all "
                          "alive at once)"),
                         ("procs", "processes forked and reaped (64 alive "
                          "at most), each `_exit(0)`s at once")):
        rows = []
        for p in sorted(churn.get(bench, {}), key=int):
            row = churn[bench][p]
            n, pm, pf = row.get("none"), row.get("pmuctx"), row.get("perf")
            rows.append([
                p, fmt(n["mean"], 1) if n else "n/a",
                fmt(pm["mean"], 1) if pm else "n/a",
                fmt(pf["mean"], 1) if pf else "n/a",
                fmt_ci(pm.get("added"), 1) if pm else "n/a",
                fmt_ci(pf.get("added"), 1) if pf else "n/a",
                fmt_ratio(row.get("ratio_added"))
                if pf and pf.get("added") and
                (pf["added"].get("lo") or 0) > 0 else
                "— (perf's added cost not clearly above 0)"])
        if rows:
            a("**%s** (%s):" % (bench, label))
            a("")
            a(md_table(["n", "none %s" % U.kt, "pmuctx", "perf",
                        "pmuctx added", "perf added",
                        "pmuctx / perf added"], rows))
            a("")
    bp = churn.get("breakpoint", {})
    if bp:
        a("`perf bench breakpoint thread -b 4 -p 1 -t 64` (perf's own "
          "reference: threads that inherit 4 breakpoint events), %s per "
          "op, and the ratio to no monitor (paired bootstrap):" % U.kt)
        a("")
        a(md_table(["config", "mean", "range", "vs none"],
                   [[cfg, fmt(c["mean"], 1), "%s .. %s" % (
                       fmt(c["min"], 1), fmt(c["max"], 1)),
                     fmt_ratio(c.get("vs_none"), 3) if cfg != "none"
                     else "—"] for cfg, c in bp.items()]))
        a("")
    if "perf-churn.png" in plot_files:
        a("![churn](perf-churn.png)")
        a("")

    # ---- case 3
    a("## 3. Lookup scale")
    a("")
    if scale and scale["params"]:
        mon = scale["monitor"]
        a("Ping-pong pair (pinned, as in case 1) while N other threads of "
          "the same process sleep on a futex, under %s. Every one of them "
          "has a store entry (inherited at clone), as `pmuctx info` "
          "confirms (tasks_tracked, read once the N threads exist)%s. "
          "%s per switch, mean over rounds; the ratio to the smallest N "
          "is paired by round (bootstrap interval)." % (
              "`pmuctx stat --per-switch`" if mon == "pmuctx_ps" else
              "`pmuctx stat`",
              ": its probe looks the incoming task up in the store at "
              "every switch (a default session is switchless and looks "
              "nothing up)" if mon == "pmuctx_ps" else "",
              U.t))
        a("")
        rows = []
        lo = scale["params"][0]
        for p in scale["params"]:
            row = scale["rows"][str(p)]
            n, pm = row.get("none"), row.get(mon)
            rows.append([
                p, fmt(row.get("tasks_tracked")),
                fmt(n["mean"]) if n else "n/a",
                fmt(pm["mean"]) if pm else "n/a",
                fmt_ci(row.get("added")),
                fmt_ratio(pm.get("vs_smallest"), 3) if pm else "n/a",
                fmt_ratio(n.get("vs_smallest"), 3) if n else "n/a"])
        a(md_table(["N", "tasks_tracked", "none %s/switch" % U.t,
                    "%s %s/switch" % (mon, U.t), "added [95 % CI]",
                    "%s vs N=%s" % (mon, lo), "none vs N=%s" % lo], rows))
        a("")
    else:
        a("Not run.")
        a("")
    if "perf-lookup-scale.png" in plot_files:
        a("![lookup scale](perf-lookup-scale.png)")
        a("")

    # ---- case 4
    a("## 4. Memory per monitored task")
    a("")
    if mem:
        n = mem["threads"]
        a("%s sleeping threads (`bench/churn -H %s`). `/proc/meminfo` is "
          "read before the monitor starts and while the threads exist, "
          "each time after `drop_caches` and a shrink of every slab cache; "
          "per-task bytes = (delta under the monitor - delta with no "
          "monitor) / %s, paired by round, mean over rounds [95 %% CI]. "
          "Not a time: the same under icount and host time." % (n, n, n))
        a("")
        rows = []
        for cfg in ("pmuctx", "perf"):
            c = mem["configs"].get(cfg, {})
            per = c.get("bytes_per_task", {})
            if not per:
                continue
            rows.append([cfg] + [
                fmt_ci(per[k], 0, signed=False) if k in per else "n/a"
                for k in ("SUnreclaim", "Slab", "MemUsed")] + [
                fmt(c.get("info_bytes_per_task"))
                if cfg == "pmuctx" else "—"])
        a(md_table(["config", "SUnreclaim B/task", "Slab B/task",
                    "MemFree drop B/task", "pmuctx info store_bytes / "
                    "tasks_tracked"], rows))
        a("")
        pc = mem["configs"].get("pmuctx", {})
        if pc.get("entry_bytes"):
            a("pmuctx info: entry_bytes %s (without events), tasks_tracked "
              "%s, pool_entries %s." % (
                  fmt(pc["entry_bytes"]["median"]),
                  fmt(pc.get("tasks_tracked", {}).get("median")),
                  fmt(pc.get("pool_entries", {}).get("median"))))
            a("")
    else:
        a("Not run.")
        a("")

    # ---- case 5
    a("## 5. Ring buffer")
    a("")
    if ring.get("status") != "measured":
        a("**Not measured in this run**: %s." % ring.get("reason",
                                                          "no data"))
        a("")
    else:
        a("Cost of one USER record written with `write(2)` on a session fd "
          "(ring of %s pages per CPU, no scheduler records), next to "
          "`trace_marker` writes into an ftrace buffer of the same size in "
          "overwrite mode, `write(2)` on /dev/null (the system call alone) "
          "and a bare memcpy of the record in user space. Payload 32 or "
          "256 bytes (records of 72 and 296 bytes). Normal mode: the "
          "writer itself frees the space (`PMUCTX_IOC_RING_CONSUME` every "
          "quarter buffer, counted in the time), nothing is lost. *All "
          "CPUs*: one writer pinned on each CPU, %s per record of the "
          "slowest writer (%s). Median and minimum over rounds." % (
              fmt(ring.get("ring_pages")), U.t,
              "under icount the guest clock is the sum of both vCPUs' "
              "instructions, so while both writers run each one's time "
              "counts the other's instructions too: not comparable with "
              "the 1-CPU figure"
              if icount else "equal to 1 CPU if it scales"))
        a("")
        rows = []
        for key, row in ring["rows"].items():
            payload, cfg = key.split("/")
            for b in ("pmuctx_normal", "pmuctx_overwrite", "ftrace_marker",
                      "devnull", "memcpy"):
                c = row.get(b)
                if not c:
                    continue
                rows.append([payload, cfg, b, fmt(c["median"]),
                             fmt(c["min"]),
                             "%.2fx" % c["vs_ftrace_marker"]
                             if "vs_ftrace_marker" in c else "—",
                             fmt(c.get("beyond_syscall"))
                             if "beyond_syscall" in c else "—",
                             fmt(c.get("lost_max"))
                             if b.startswith("pmuctx") else "—"])
        a(md_table(["payload B", "CPUs", "writer",
                    "%s/record median" % U.t, "min",
                    "vs trace_marker", "%s beyond the syscall" % U.t,
                    "lost"], rows))
        a("")

    # ---- measurements made by hand (bench/notes/*.md, in number order)
    notes = os.path.join(TOP, "bench", "notes")
    if os.path.isdir(notes):
        for p in note_files(notes):
            with open(p) as f:
                a(f.read().rstrip("\n"))
            a("")

    # ---- caveats
    a("## Caveats of TCG")
    a("")
    for c in caveats(icount):
        a("* " + c)
    a("")
    paragraphs("## Recommendations for the module",
               res.get("recommendations"))
    a("## Reproducing")
    a("")
    a("```sh\n"
      "make bench                     # everything (bench/run: icount, "
      "all cases)\n"
      "bench/run --quick              # smoke run, report in a temp dir\n"
      "bench/run --cases 'cs scale'   # some cases only\n"
      "bench/run --wallclock          # host time instead of icount\n"
      "PMUCTX_BENCH_MODULE=DIR/pmuctx.ko PMUCTX_BENCH_MODULE_DEBUG="
      "DIR/dbg.ko bench/run   # a saved build\n"
      "bench/run --raw DIR/raw.txt    # rebuild this report from raw data\n"
      "```")
    a("")
    a("Raw lines (`R`/`I`/`E`) are described at the top of "
      "`bench/guest.sh`; `bench/results.json` holds every run.")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def caveats(icount):
    C = [
        "TCG translates every guest instruction, and the mix differs from "
        "hardware: system calls, page-table switches (CR3 writes flush "
        "QEMU's soft TLB), MMIO (the HPET clocksource: TCG's TSC is marked "
        "unstable) and atomics are relatively dear, plain loads and stores "
        "cheap. Ratios carry over better than absolute costs, but only "
        "roughly.",
    ]
    if icount:
        C.append(
            "Under icount a cost is a count of guest instructions, not of "
            "cycles: every instruction weighs the same, a divide as much "
            "as a move, a cache miss nothing. The emulated clock device's "
            "reads are instructions like any other, so a timer read costs "
            "what its code path executes. Differences of a few "
            "instructions per switch are real in this model; whether they "
            "matter on hardware depends on what the instructions are.")
        C.append(
            "The icount clock is shared by the vCPUs (the total of their "
            "instructions): work on the other CPU during a window (a "
            "timer, a kworker, the monitoring tool's own thread) adds to "
            "it. The per-round median and the interleaving keep that out "
            "of the estimates; it is not host noise and does not shrink "
            "with a quieter host.")
    else:
        C.append(
            "The vCPUs are host threads on a host that other guests may "
            "share: their load adds time to any window. The suite "
            "interleaves configurations, keeps the fastest window of each "
            "round and decides on confidence intervals over rounds, but "
            "small differences need icount (the default) to be resolved.")
    C += [
        "There is no cache model: a hash-table lookup whose bucket and "
        "entry miss the CPU caches costs the same as a hit. The "
        "lookup-scale curve therefore shows the *algorithmic* cost (no "
        "chain growth, no rehash storm), not the cache footprint of "
        "50 000 entries on real hardware.",
        "No hardware PMU: only software events are counted, so neither "
        "pmuctx nor perf touches PMU MSRs at a switch. On hardware, perf's "
        "per-task hardware events add MSR writes per switch; this suite "
        "does not measure that.",
        "perf's per-task counting has a fast path for two tasks whose "
        "contexts are clones of the same parent (both ping-pong threads, "
        "both pipe processes): it swaps the context pointers instead of "
        "switching the events. The inherited benchmarks hit that path, "
        "which is perf's best case; the `--no-inherit` rows do not.",
    ]
    return C


# ---------------------------------------------------------------------------

def finite(x):
    """strict JSON: an unbounded interval end (inf) as a string"""
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return "inf" if x > 0 else ("-inf" if x < 0 else None)
    return x


def main():
    global U
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--host")
    ap.add_argument("--json", default=os.path.join(TOP, "bench",
                                                   "results.json"))
    ap.add_argument("--md", default=os.path.join(TOP, "docs",
                                                 "PERFORMANCE.md"))
    ap.add_argument("--plots", default=os.path.join(TOP, "docs"))
    args = ap.parse_args()

    env, host, R, I, F = load(args.raw, args.host)
    U = Units(time_mode(env, host))
    rescale(R, I, U.icount)
    ran = set((env.get("cases") or "cs,churn,scale,mem,ring").split(","))
    cs = case_cs(R, I, env)
    churn = case_churn(R)
    scale = case_scale(R, I)
    mem = case_mem(I)
    ring = case_ring(R, I)
    res = {
        "schema": 2,
        "generated_by": "bench/run + bench/report.py",
        "environment": env,
        "host": host,
        "time_base": {"icount_shift": U.icount, "unit": U.t,
                      "per_round": U.window,
                      "bootstrap": {"resamples": BOOT_RESAMPLES,
                                    "seed": BOOT_SEED}},
        "failures": F,
        "cases": {"context_switch": cs, "churn": churn,
                  "lookup_scale": scale, "memory": mem, "ring": ring},
    }
    res["targets"] = targets(cs, churn, scale, mem, ran)
    import analysis  # bench/analysis.py: the text that reads the numbers
    res["analysis"], res["recommendations"] = analysis.write(res, U)
    made = plots(res, args.plots)
    res["plots"] = [os.path.relpath(p, TOP) for p in made]
    with open(args.json, "w") as f:
        json.dump(finite(res), f, indent=1, sort_keys=False,
                  allow_nan=False)
        f.write("\n")
    write_md(res, args.md, [os.path.basename(p) for p in made])
    print("time base: %s; per round: %s of the windows" % (U.long,
                                                          U.window))
    for t in res["targets"]:
        print("%-9s %s: %s%s" % (
            t["result"].split(" ")[0], t["name"], t["measured"],
            "" if t["result"].find(" ") < 0 else
            " " + t["result"][t["result"].find(" ") + 1:]))
    if F:
        print("note: %d runs failed (see failures in %s)" % (
            len(F), os.path.relpath(args.json, TOP)))
    print("report: %s, %s%s" % (
        os.path.relpath(args.md, TOP), os.path.relpath(args.json, TOP),
        "".join(", " + os.path.relpath(p, TOP) for p in made)))


if __name__ == "__main__":
    sys.dont_write_bytecode = True      # no bench/__pycache__
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
