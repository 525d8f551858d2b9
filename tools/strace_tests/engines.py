#!/usr/bin/env python3
"""rtrace's two engines on strace's own test programs (issue 21: what
--bpf shows is what ptrace shows, for every decoder those programs reach).

A local measure, not a CI test, beside compare.py (HACKING.md, "The
strace test-program measure"): run.sh builds strace's test programs
outside the repository; then

    engines.py --strace-src DIR --rtrace BIN --out FILE [--only REGEX]
               [--jobs N] [--logs DIR] [--recompare]

runs each program of tests/gen_tests.in that compare.py can run (its plan
and its options translated to rtrace's) under `rtrace`, `rtrace --bpf` and
`rtrace` again, each as compare.py runs a tracer (a fresh pid namespace,
no address-space randomisation, the same scratch directory and
environment), and compares the traces as tools/workload_diff/engines.py
compares a workload's: processes matched through the fork tree, calls
aligned by name, and each aligned pair

  same    the same line once addresses are dropped;
  values  the same names, fields and shapes, other numbers or bytes;
  less    ptrace's line names something --bpf's lacks (a struct shown as
          a pointer, a flag, a field);
  more    the reverse.

A `values` pair whose call also differs between the two ptrace runs is of
the moment (a time, a counter) and counts as same. A call one engine shows
and the other does not is `less` or `more` when the two ptrace runs agree
on how many there are.

Per program the verdict is the worst of its pairs (less, more, values,
same), or n/c with the reason (not built, the program skipped itself,
compare.py cannot run its test, an engine refused: --bpf cannot inject or
stop, so -e inject= and the like are refused). FILE gets one JSON object
per program; stdout a summary by family and the reasons for less, more
and values, each with its first example. With --logs DIR each program's
three traces are kept there, and a program whose traces are there
already is compared again, not run (delete them to run it again);
--recompare runs nothing at all.
"""
import argparse
import collections
import concurrent.futures
import gzip
import importlib.util
import json
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name, path):
    """A module by path, under a name of its own (both tool directories
    have a compare.py)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


st = load("strace_tests_compare", os.path.join(HERE, "compare.py"))
wd = load("workload_engines", os.path.join(HERE, "..", "workload_diff", "engines.py"))

ORDER = {"same": 0, "values": 1, "more": 2, "less": 3}


def compare_program(name, rest, args):
    """Run and compare one test; a result dict."""
    res = dict(name=name, family=st.family(name, args.families))
    try:
        p = st.plan(name, rest)
        prog = os.path.join(args.strace_src, "tests", p["prog"])
        if not os.path.exists(prog):
            raise st.NotComparable("not built")
        ropts = st.translate(p["opts"])
    except st.NotComparable as e:
        res.update(verdict="n/c", reason=str(e))
        return res
    scratch = os.path.join(args.scratch, name)
    os.makedirs(scratch, exist_ok=True)
    # The names tools/workload_diff/engines.py reads a second ptrace run by.
    logs = [os.path.join(scratch, f) for f in ("t.ptrace", "t.bpf", "t.ptrace2")]
    saved = os.path.join(args.logs, name + ".json.gz") if args.logs else None
    if saved and os.path.exists(saved):
        # Kept by an earlier run (--logs): compared again, not run.
        with gzip.open(saved, "rt", errors="surrogateescape") as f:
            outs = [tuple(o) for o in json.load(f)]
    elif args.recompare:
        res.update(verdict="n/c", reason="no saved logs")
        return res
    else:
        target = [prog] + p["prog_args"]
        base = [args.rtrace, "-e", "diag=none"] + ropts
        # The ptrace engine forks two processes of its own before the
        # program (its pin guard): two that end at once before --bpf's
        # rtrace starts give the program the same pid in its namespace.
        two_first = ["sh", "-c", '/bin/true; /bin/true; exec "$@"', "sh"]
        cmds = [
            base[:1] + ["-o", logs[0]] + base[1:] + target,
            two_first + base[:1] + ["--bpf", "-o", logs[1]] + base[1:] + target,
            base[:1] + ["-o", logs[2]] + base[1:] + target,
        ]
        outs = []
        for cmd, log in zip(cmds, logs):
            r = st.run_one(cmd, os.path.join(scratch, "w"), log, target, p["redirs"])
            if r[0] == 77:
                res.update(verdict="n/c", reason="program skipped (77)")
                shutil.rmtree(scratch, ignore_errors=True)
                return res
            outs.append(r)
        if saved and all(o[0] is not None for o in outs):
            with gzip.open(saved, "wt", errors="surrogateescape") as f:
                json.dump(outs, f)
    for (_, text, _), log in zip(outs, logs):
        with open(log, "w", errors="surrogateescape") as f:
            f.write(text or "")
    try:
        return compare_outputs(res, outs, logs)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def compare_outputs(res, outs, logs):
    (rc1, t1, e1), (rcb, tb, eb), (rc2, t2, _) = outs
    if rc1 is None or rc2 is None:
        res.update(verdict="n/c", reason="timeout under ptrace")
        return res
    if rcb is None:
        res.update(verdict="less", reason="timeout under --bpf")
        return res
    if not t1:
        res.update(verdict="n/c", reason="ptrace: " + (e1.strip().splitlines() or ["no trace"])[-1][:100])
        return res
    if not tb:
        msg = (eb.strip().splitlines() or ["rc=%s" % rcb])[-1]
        res.update(verdict="n/c", reason="--bpf refused: " + msg[:120])
        return res
    if max(len(t1), len(tb), len(t2)) > st.LOG_LIMIT:
        res.update(verdict="n/c", reason="log over %d MiB" % (st.LOG_LIMIT >> 20))
        return res
    x1, xb = st.exit_code(t1, True), st.exit_code(tb, True)
    if x1 != xb:
        res.update(verdict="less", reason="program exit %s under ptrace, %s under --bpf" % (x1, xb))
        return res
    moment = wd.moment_calls(logs[0])
    pairs, _ = wd.aligned_pairs(logs[0], logs[1])
    if pairs is None:
        res.update(verdict="n/c", reason="no calls")
        return res
    counts, reasons, first = collections.Counter(), collections.Counter(), {}
    for p, b in pairs:
        v = wd.classify(p, b)
        if v == "values" and moment is not None and p[0] in moment:
            v = "same"
        if isinstance(v, tuple):
            kind, why = v
        else:
            kind, why = v, ("%s values" % p[0] if v == "values" else None)
        counts[kind] += 1
        if why:
            reasons[(kind, why)] += 1
            first.setdefault((kind, why), around_difference(wd.text(p), wd.text(b)))
    # Calls one engine shows and the other not, where both ptrace runs
    # show as many of them.
    n1, nb, n2 = (call_names(x) for x in logs)
    for call in set(n1) | set(nb):
        if n1[call] != n2[call] or n1[call] == nb[call]:
            continue
        kind = "less" if n1[call] > nb[call] else "more"
        counts[kind] += abs(n1[call] - nb[call])
        reasons[(kind, "%s: %d under ptrace, %d under --bpf" % (call, n1[call], nb[call]))] += 1
    verdict = max((k for k in counts if counts[k]), key=ORDER.get, default="same")
    res.update(verdict=verdict, calls=dict(counts),
               reasons={"%s: %s" % k: n for k, n in reasons.most_common(6)},
               first={"%s: %s" % k: v for k, v in first.items() if k in dict(reasons.most_common(6))})
    return res


def around_difference(a, b, width=150):
    """The two lines from a little before their first difference on."""
    at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - width // 3)
    cut = lambda s: ("..." if start else "") + s[start:start + width]
    return cut(a), cut(b)


def call_names(log):
    """How many calls of each name the trace `log` shows."""
    procs = wd.parse_rtrace(log, True)
    return collections.Counter(c[0] for calls in procs.values() for c in calls)


def summarise(results):
    fams = collections.defaultdict(collections.Counter)
    nc, why = collections.Counter(), collections.defaultdict(list)
    for r in results:
        fams[r["family"]][r["verdict"]] += 1
        if r["verdict"] == "n/c":
            nc[re.sub(r"\d+", "N", r.get("reason", ""))[:60]] += 1
        for reason in r.get("reasons", {}):
            why[reason].append(r)
    cols = ["same", "values", "more", "less", "n/c"]
    print("| family | " + " | ".join(cols) + " |")
    print("|---|" + "---:|" * len(cols))
    total = collections.Counter()
    for fam in sorted(fams):
        total.update(fams[fam])
        print("| %s | " % fam + " | ".join(str(fams[fam][c]) for c in cols) + " |")
    print("| **total** | " + " | ".join(str(total[c]) for c in cols) + " |")
    print("\nnot comparable:")
    for reason, n in nc.most_common(12):
        print("  %4d  %s" % (n, reason))
    for kind in ("less", "more", "values"):
        rows = sorted(((len(rs), reason, rs) for reason, rs in why.items()
                       if reason.startswith(kind + ":")), reverse=True)
        if not rows:
            continue
        print("\n%s (programs, reason, first example):" % kind)
        for n, reason, rs in rows:
            ex = rs[0].get("first", {}).get(reason)
            print("  %3d  %s   [%s]" % (n, reason, rs[0]["name"]))
            if ex:
                print("         P: %s\n         B: %s" % ex)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--summarise", metavar="FILE",
                    help="only print the summary of an earlier --out FILE")
    ap.add_argument("--strace-src")
    ap.add_argument("--rtrace")
    ap.add_argument("--out")
    ap.add_argument("--only", default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--logs", metavar="DIR",
                    help="keep each program's three traces in DIR; a program whose traces "
                    "are there already is compared again, not run")
    ap.add_argument("--recompare", action="store_true",
                    help="run nothing: a program without traces in --logs DIR is n/c")
    args = ap.parse_args()
    if args.summarise:
        with open(args.summarise) as f:
            summarise([json.loads(line) for line in f])
        return
    if not (args.strace_src and args.rtrace and args.out):
        ap.error("--strace-src, --rtrace and --out are needed")
    args.families = st.load_families(args.strace_src)
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    args.scratch = tempfile.mkdtemp(prefix="rtrace-engines-")
    tests = st.load_tests(args.strace_src)
    if args.only:
        tests = [t for t in tests if re.search(args.only, t[0])]
    results = []
    with open(args.out, "w") as out, concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(compare_program, n, r, args) for n, r in tests]
        for (n, _), f in zip(tests, futs):
            results.append(f.result())
            out.write(json.dumps(results[-1], default=str) + "\n")
            out.flush()
            print("%-40s %s %s" % (n, results[-1]["verdict"], results[-1].get("reason", "")),
                  file=sys.stderr, flush=True)
    shutil.rmtree(args.scratch, ignore_errors=True)
    summarise(results)


if __name__ == "__main__":
    main()
