#!/usr/bin/env python3
"""The real-workload differential between rtrace's two engines (issue 21):
reads the NAME.MODE.ptrace / NAME.MODE.bpf pairs run.sh writes with
TRACERS="ptrace bpf", matches processes through the fork tree, aligns
each process's calls by name (difflib, as compare.py does) and sorts
every aligned pair of lines:

- same: the whole lines are equal once addresses are dropped (ASLR);
- values: the same names, fields and shapes, other numbers or string
  bytes (the two runs read another clock, another inode, another amount
  of input: values of the moment, not decoding);
- less: ptrace's line names something --bpf's lacks (a struct shown as a
  pointer, a flag, a field): the differences issue 21 asks to close or
  list, with the call, the argument and the missing names;
- more: the reverse.

With a third trace of each workload under ptrace (NAME.MODE.ptrace2,
TRACERS="ptrace bpf ptrace2"), a `values` pair whose call (by workload
and name) also differs between the two ptrace runs is of the moment;
the others are listed apart ("values ptrace runs agree on"), to be read
one by one.

    engines.py OUT [--details N] [--values]
"""
import collections
import difflib
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import children, parse_rtrace, tokens  # noqa: E402

ADDR = re.compile(r"&?0x[0-9a-f]{6,}")


def text(c):
    return "%s(%s) = %s" % (c[0], ", ".join(c[1]), c[2])


def classify(p, b):
    """'same' | 'values' | ('less'|'more', reason)."""
    pt, bt = ADDR.sub("ADDR", text(p)), ADDR.sub("ADDR", text(b))
    if pt == bt:
        return "same"
    pc = collections.Counter(tokens(pt, "rtrace"))
    bc = collections.Counter(tokens(bt, "rtrace"))
    if pc == bc:
        return "values"
    missing, extra = pc - bc, bc - pc
    kind = "less" if missing else "more"
    diff = missing or extra
    where = "result"
    for i, a in enumerate(p[1] if missing else b[1]):
        other = (b[1] if missing else p[1])
        o = other[i] if i < len(other) else ""
        if collections.Counter(tokens(a, "rtrace")) - collections.Counter(tokens(o, "rtrace")):
            where = "arg%d" % (i + 1)
            break
    names = sorted(k for k in diff if k not in ("N", "STR", "ELL", "FD"))
    what = " ".join(names[:4]) or " ".join(sorted(diff)[:3])
    return (kind, "%s %s: %s" % (p[0], where, what))


def aligned_pairs(ppath, bpath):
    """Every aligned pair of calls of the two traces, and the count of
    calls left unaligned (None: a trace is missing)."""
    pp, bp = parse_rtrace(ppath, True), parse_rtrace(bpath, True)
    if not pp or not bp:
        return None, 0
    pk, bk = children(pp), children(bp)
    pairs = [(next(iter(pp)), next(iter(bp)))]
    seen, out, unaligned = set(), [], 0
    while pairs:
        a, b = pairs.pop()
        if a in seen or a not in pp or b not in bp:
            continue
        seen.add(a)
        pairs.extend(zip(pk.get(a, []), bk.get(b, [])))
        pc, bc = pp[a], bp[b]
        sm = difflib.SequenceMatcher(None, [c[0] for c in pc], [c[0] for c in bc], autojunk=False)
        matched = 0
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                out.append((pc[blk.a + k], bc[blk.b + k]))
                matched += 1
        unaligned += len(pc) - matched
    unaligned += sum(len(pp[pid]) for pid in pp if pid not in seen)
    return out, unaligned


def moment_calls(ppath):
    """The names of the calls whose values differ between two ptrace runs
    of the workload (empty without NAME.MODE.ptrace2)."""
    other = ppath + "2"
    if not os.path.exists(other):
        return None
    pairs, _ = aligned_pairs(ppath, other)
    return {p[0] for p, q in pairs or [] if classify(p, q) != "same"}


def compare_pair(ppath, bpath, stats, reasons, examples):
    moment = moment_calls(ppath)
    pairs, unaligned = aligned_pairs(ppath, bpath)
    if pairs is None:
        stats["missing trace"] += 1
        return
    stats["unaligned"] += unaligned
    for p, q in pairs:
        v = classify(p, q)
        if isinstance(v, tuple):
            stats[v[0]] += 1
            reasons[v] += 1
            if len(examples[v]) < 2:
                examples[v].append((os.path.basename(ppath), p, q))
            continue
        stats[v] += 1
        if v == "values" and moment is not None and p[0] not in moment:
            stats["values ptrace runs agree on"] += 1
            key = ("agree", p[0])
            reasons[key] += 1
            if len(examples[key]) < 2:
                examples[key].append((os.path.basename(ppath), p, q))
        elif v == "values" and len(examples[("values", p[0])]) < 1:
            examples[("values", p[0])].append((os.path.basename(ppath), p, q))
            reasons[("values", p[0])] += 0


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/rtrace-workload-diff"
    details = int(sys.argv[sys.argv.index("--details") + 1]) if "--details" in sys.argv else 25
    stats, reasons = collections.Counter(), collections.Counter()
    examples = collections.defaultdict(list)
    per = {}
    for ppath in sorted(glob.glob(os.path.join(out, "*.ptrace"))):
        bpath = ppath[: -len(".ptrace")] + ".bpf"
        if not os.path.exists(bpath):
            continue
        one = collections.Counter()
        compare_pair(ppath, bpath, one, reasons, examples)
        per[os.path.basename(ppath)[: -len(".ptrace")]] = one
        stats.update(one)
    aligned = sum(stats[k] for k in ("same", "values", "less", "more"))
    print("workload runs: %d" % len(per))
    for k, v in sorted(per.items()):
        n = sum(v[x] for x in ("same", "values", "less", "more"))
        print("  %-28s aligned %6d  values %5d  less %5d  more %5d  unaligned %5d"
              % (k, n, v["values"], v["less"], v["more"], v["unaligned"]))
    print("calls aligned: %d (%d unaligned)" % (aligned, stats["unaligned"]))
    for k in ("same", "values", "less", "more"):
        print("  %-6s %7d  %6.2f%%" % (k, stats[k], 100.0 * stats[k] / max(aligned, 1)))
    if stats["values ptrace runs agree on"]:
        print("  of values, %d in calls two ptrace runs agree on:" % stats["values ptrace runs agree on"])
        for r, n in [x for x in reasons.most_common() if x[0][0] == "agree"][:details]:
            print("  %6d  %s" % (n, r[1]))
            for ex in examples[r][:2]:
                print("          %s\n          P: %s\n          B: %s" % (ex[0], text(ex[1])[:300], text(ex[2])[:300]))
    for kind in ("less", "more"):
        print("top reasons for %s:" % kind)
        for r, n in [x for x in reasons.most_common() if x[0][0] == kind][:details]:
            print("  %6d  %s" % (n, r[1]))
            for ex in examples[r][:1]:
                print("          %s\n          P: %s\n          B: %s" % (ex[0], text(ex[1])[:300], text(ex[2])[:300]))
    if "--values" in sys.argv:
        print("one call of each name whose values differ:")
        for r in sorted(k for k in examples if k[0] == "values"):
            ex = examples[r][0]
            print("  %s\n    P: %s\n    B: %s" % (ex[0], text(ex[1])[:300], text(ex[2])[:300]))


if __name__ == "__main__":
    main()
