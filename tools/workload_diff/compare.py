#!/usr/bin/env python3
"""The real-workload differential's comparison (issue 25): reads the
NAME.MODE.strace / NAME.MODE.rtrace pairs run.sh wrote into OUT, aligns
the calls per process, and classifies each aligned call by the
information its line carries: same, rtrace shows more, rtrace shows less
(with a reason: the call and what is missing), not comparable.

Information is the multiset of a line's tokens after the normalisations
below: every constant, flag and field name is a token, every number is N,
every string STR, every `-y` annotation FD, every `..`/`...` ELL;
addresses (rtrace's `&0x..`, any hex of 6 digits or more) are dropped,
since ASLR makes them differ between runs and neither tracer can show
more than the address. Equal multisets: same; strace's a strict part of
rtrace's: more; the reverse, or strace having a name rtrace lacks: less.
rtrace's documented grammar differences (HACKING.md "Where we differ")
are normalised first: `[ENOENT]` for `ENOENT (text)`, `..` for `...`,
`&` before addresses, restarts folded, execve's missing `= 0`, the
child's own `clone() = 0` line, signals printed inside a call.

    compare.py OUT [--details N]
"""
import collections
import difflib
import glob
import os
import re
import sys

FORKS = {"clone", "clone3", "fork", "vfork"}
# Calls whose result counts what is ready: another count is another event.
COUNTED = {"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2"}


def parse_strace(path):
    procs = collections.OrderedDict()
    pending = {}
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"(\d+) +(.*)", line)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.startswith(("+++", "---")):
            continue
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            procs.setdefault(pid, [])
            continue
        r = re.match(r"<\.\.\. (\w+) resumed>\s?(.*)", rest)
        if r:
            head = pending.pop(pid, r.group(1) + "(")
            rest = head + (" " if not head.endswith(("(", " ")) and r.group(2) and not r.group(2).startswith((")", ",")) else "") + r.group(2)
            rest = rest.replace(", ,", ",")
        add_call(procs, pid, rest)
    return procs


def parse_rtrace(path, continuations=False):
    """Each process's calls. With `continuations`, a dump's lines (`  |
    00000 ...`, `  * 6 bytes in buffer 0`) join the call they follow, to
    be compared with it."""
    procs = collections.OrderedDict()
    pending = {}
    root = None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"(\d+)\| ?(.*)", line)
        if m:
            pid, rest = int(m.group(1)), m.group(2)
        else:
            t = re.match(r"Tracing .* \(pid (\d+)\)$", line)
            if root is None and t:
                root = int(t.group(1))
                procs.setdefault(root, [])
                continue
            pid, rest = root, line
        fresh = pid not in procs
        procs.setdefault(pid, [])
        if continuations and procs[pid] and re.match(r"\s+(\| [0-9a-f]{5} |\* \d)", rest):
            name, args, result = procs[pid][-1]
            procs[pid][-1] = (name, args, result + " // " + rest.strip())
            continue
        if rest.startswith(("Tracing ", "---", "Process ", "** ", "+++")) or rest.startswith("*"*2):
            continue
        if rest.endswith("<..>"):
            pending[pid] = rest[:-4].rstrip()
            continue  # its '*' line repeats it, whole or as `name(<..>` and the rest
        if rest.startswith("*"):
            rest = rest[1:]
            m = re.match(r"[a-z_0-9]+\(<\.\.>(.*)", rest)
            if m and pid in pending:
                head, tail = pending.pop(pid), m.group(1)
                if head.endswith(")") and tail.startswith(")"):
                    tail = tail[1:]
                rest = head + tail
            pending.pop(pid, None)
        rest = re.sub(r"\*\* SIG\w+ \*\* ?", "", rest)
        c = split_call(rest)
        if c and c[0] in FORKS and c[2] == "0" and not procs[pid]:
            continue  # the child's own return from fork
        add_call(procs, pid, rest)
    return procs


def add_call(procs, pid, text):
    c = split_call(text)
    if c:
        procs.setdefault(pid, []).append(c)


def split_call(text):
    """(name, [args], result text) of `name(args) = result`."""
    m = re.match(r"([a-z_0-9]+)\((.*)", text)
    if not m:
        return None
    name, s = m.group(1), m.group(2)
    depth, in_str, i, args, start = 0, False, 0, [], 0
    while i < len(s):
        ch = s[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0 and ch == ")":
                args.append(s[start:i].strip())
                res = s[i + 1 :].strip()
                if res.startswith("="):
                    res = res[1:].strip()
                return (name, [a for a in args if a], res)
            depth -= 1
        elif ch == "," and depth == 0:
            args.append(s[start:i].strip())
            start = i + 1
        i += 1
    args.append(s[start:].strip())
    return (name, [a for a in args if a], "")


ALIASES = {"RLIM64_INFINITY": "RLIM_INFINITY",
           # select's result: strace `(in [0], out [1])`, rtrace `{readfds=[0], writefds=[1]}`
           "in": "readfds", "out": "writefds", "except": "exceptfds"}


def rt_signals(t, tracer):
    """Real-time signals as numbers: strace counts from the kernel's 32
    (SIGRTMIN, SIGRT_2, masks RTMIN RT_2), rtrace names 32 and 33 RT_0 and
    RT_1 and the rest from libc's SIGRTMIN (34: SIGRTMIN+0 .. SIGRTMAX)."""
    if tracer == "strace":
        t = re.sub(r"\b(SIG)?RTMIN\b", "SIG32", t)
        t = re.sub(r"\b(SIG)?RT_(\d+)\b", lambda m: "SIG%d" % (32 + int(m.group(2))), t)
    else:
        t = re.sub(r"\b(SIG)?RT_(\d+)\b", lambda m: "SIG%d" % (32 + int(m.group(2))), t)
        t = re.sub(r"\b(SIG)?RTMIN\+(\d+)", lambda m: "SIG%d" % (34 + int(m.group(2))), t)
        t = re.sub(r"\b(SIG)?RTMIN\b", "SIG34", t)
        t = re.sub(r"\b(SIG)?RTMAX\b", "SIG64", t)
    return t


def grammar(t):
    """rtrace's spellings of what strace writes otherwise, same information."""
    # FUTEX_WAIT_PRIVATE is FUTEX_WAIT|FUTEX_PRIVATE_FLAG.
    t = re.sub(r"\b(FUTEX_\w+?)_PRIVATE\b", r"\1|FUTEX_PRIVATE_FLAG", t)
    # Wait statuses: strace's `{WIFEXITED(s) && WEXITSTATUS(s) == 0}`, rtrace's W_EXITED(0).
    t = re.sub(r"\{WIFEXITED\(s\) && WEXITSTATUS\(s\) == (\w+)\}", r"W_EXITED(\1)", t)
    t = re.sub(r"\{WIFSIGNALED\(s\) && WTERMSIG\(s\) == (\w+)( && WCOREDUMP\(s\))?\}", r"W_SIGNALED(\1\2)", t)
    t = re.sub(r"\{WIFSTOPPED\(s\) && WSTOPSIG\(s\) == (\w+)\}", r"W_STOPPED(\1)", t)
    # The same wait option: WUNTRACED is WSTOPPED.
    t = re.sub(r"\bWUNTRACED\b", "WSTOPPED", t)
    # -y on a deleted file: strace `<path>(deleted)`, rtrace `<path (deleted)>`.
    t = t.replace(">(deleted)", " (deleted)>")
    # strace's `0x30 /* CAP_??? */`: the name it lacks is no information.
    t = re.sub(r"/\* \w*\?\?\? \*/", "", t)
    return t


def tokens(text, tracer="strace"):
    t = grammar(rt_signals(text, tracer))
    t = re.sub(r'"(?:[^"\\]|\\.)*"', " STR ", t)
    t = re.sub(r"\.\.\.?", " ELL ", t)
    t = re.sub(r"/\*.*?\*/", lambda m: " " + m.group(0)[2:-2] + " ", t)
    t = re.sub(r"(?<=[\w\])])<[^<>]*(?:<[^<>]*>[^<>]*)*>", " FD ", t)
    t = re.sub(r"&?0x[0-9a-fA-F]{6,}", " ", t)
    t = re.sub(r"&0x[0-9a-fA-F]+", " ", t)
    t = re.sub(r"-?\b(0x[0-9a-fA-F]+|\d+(\*\d+)*)\b", " N ", t)
    out = []
    for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t):
        out.append(ALIASES.get(w, w))
    return out


def result_tokens(res, tracer):
    r = res
    if tracer == "strace":
        r = re.sub(r"^(-1 E[A-Z0-9]+) \([^)]*\)", r"\1", r)
        r = re.sub(r"^\? (ERESTART\w+|E\w+) \(.*\)$", r"? \1", r)
        r = re.sub(r"\(flags ", "(", r)  # fcntl's `0x1 (flags FD_CLOEXEC)`
    else:
        r = re.sub(r"\[(E[A-Z0-9]+)\]", r"\1", r)
    return tokens(r, tracer)


def compare_call(s, r):
    """'same' | 'more' | ('less', reason) | ('diff', reason)."""
    name = s[0]
    sres, rres = s[2], r[2]
    if name in ("execve", "execveat") and rres == "" and sres == "0":
        sres = ""
    if name in ("exit", "exit_group") or sres.startswith("?"):
        sres = rres = ""
    sargs = s[1]
    if name in ("clone", "clone3"):  # strace names clone's parameters
        sargs = [re.sub(r"^\w+=", "", a) for a in sargs]
    if name in ("capget", "capset"):  # strace `1<<CAP_X|..` and 0, rtrace `[X ..]` and []
        sargs = [re.sub(r"=0\b", "=[]", a.replace("1<<CAP_", "")) for a in sargs]
    if name == "futex" and len(s[1]) > 1 and len(r[1]) > 1:
        op = lambda a: re.sub(r"_PRIVATE|\|FUTEX_PRIVATE_FLAG|\|FUTEX_CLOCK_REALTIME", "", a)
        if op(s[1][1]) != op(r[1][1]):
            return ("diff", "futex: another operation (scheduling)")
    if name in COUNTED and sres.split(" ")[0] != rres.split(" ")[0]:
        return ("diff", "%s: another result (scheduling)" % name)
    if name == "ioctl" and len(sargs) > 1:  # strace's `A or B` where rtrace picks by the fd
        sargs = sargs[:1] + [re.sub(r"^(\w+ or )+", "", sargs[1])] + sargs[2:]
    st = tokens(" , ".join(sargs)) + ["="] + result_tokens(sres, "strace")
    rt = tokens(" , ".join(r[1]), "rtrace") + ["="] + result_tokens(rres, "rtrace")
    sc, rc = collections.Counter(st), collections.Counter(rt)
    if sc == rc:
        return "same"
    missing = sc - rc
    missing.pop("ELL", None)  # strace cut a string or struct rtrace shows whole
    extra = rc - sc
    if not missing:
        return "more"
    named = lambda c: [k for k in c if k not in ("N", "STR", "ELL", "FD")]
    if set(missing) <= {"STR", "N"} and named(extra):
        return "more"  # bytes or a number strace shows, rtrace decodes
    if named(missing) and named(extra):
        # Both name something the other does not. Another call instance
        # (scheduling: another result, another fd set to wait on), or a
        # capability set rtrace spells as its complement: not comparable.
        # Anything else counts as less.
        skind = lambda x: re.sub(r"-?\d+|0x[0-9a-f]+", "N", x.split(" (")[0].split(" [")[0].split(" {")[0])
        if skind(sres) != skind(re.sub(r"\[(E\w+)\]", r"\1", rres)):
            return ("diff", "%s: another result (scheduling)" % name)
        if name in ("poll", "ppoll") and s[1][0].count("{") != r[1][0].count("{"):
            return ("diff", "%s: another fd set (scheduling)" % name)
        if name in ("capget", "capset") and "~[" in " ".join(r[1]):
            return ("diff", "%s: a set as its complement" % name)
    # Which argument lacks it: the first whose tokens differ.
    where = "result"
    for i, a in enumerate(s[1]):
        b = r[1][i] if i < len(r[1]) else ""
        if collections.Counter(tokens(a)) - collections.Counter(tokens(b)):
            where = "arg%d" % (i + 1)
            break
    names = sorted(k for k in missing if k not in ("N", "STR", "ELL"))
    what = " ".join(names[:4]) or " ".join(sorted(missing)[:3])
    return ("less", "%s %s: %s" % (name, where, what))


def children(procs):
    """pid -> its fork children's pids in order."""
    out = {}
    for pid, calls in procs.items():
        kids = []
        for c in calls:
            if c[0] in FORKS and re.fullmatch(r"\d+", c[2].split("<")[0].split(" ")[0] or "x"):
                k = int(c[2].split("<")[0].split(" ")[0])
                if k > 0:
                    kids.append(k)
        out[pid] = kids
    return out


def fold_restarts(calls):
    out = []
    for c in calls:
        if c[0] == "restart_syscall" and out and out[-1][2].startswith("? ERESTART"):
            out[-1] = (out[-1][0], out[-1][1], c[2])
            continue
        if out and out[-1][2].startswith("? ERESTART") and c[0] == out[-1][0]:
            out[-1] = c
            continue
        out.append(c)
    return [c for c in out if c[0] != "rt_sigreturn"]


def compare_pair(spath, rpath, stats, reasons, examples, ncreasons):
    sp, rp = parse_strace(spath), parse_rtrace(rpath)
    if not sp or not rp:
        stats["missing trace"] += 1
        return
    sk, rk = children(sp), children(rp)
    pairs = [(next(iter(sp)), next(iter(rp)))]
    seen = set()
    while pairs:
        a, b = pairs.pop()
        if a in seen or a not in sp or b not in rp:
            continue
        seen.add(a)
        pairs.extend(zip(sk.get(a, []), rk.get(b, [])))
        sc, rc = fold_restarts(sp[a]), [c for c in rp[b] if c[0] != "rt_sigreturn"]
        sm = difflib.SequenceMatcher(None, [c[0] for c in sc], [c[0] for c in rc], autojunk=False)
        matched = 0
        for blk in sm.get_matching_blocks():
            for k in range(blk.size):
                s, r = sc[blk.a + k], rc[blk.b + k]
                matched += 1
                v = compare_call(s, r)
                if isinstance(v, tuple) and v[0] == "diff":
                    stats["not comparable"] += 1
                    ncreasons[v[1]] += 1
                elif isinstance(v, tuple):
                    stats[v[0]] += 1
                    reasons[v[1]] += 1
                    if len(examples[v[1]]) < 2:
                        examples[v[1]].append((os.path.basename(spath), s, r))
                else:
                    stats[v] += 1
        stats["unaligned"] += len(sc) - matched
    for pid in sp:
        if pid not in seen:
            stats["unaligned"] += len(sp[pid])


def line(c):
    return "%s(%s) = %s" % (c[0], ", ".join(c[1]), c[2])


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/rtrace-workload-diff"
    details = int(sys.argv[sys.argv.index("--details") + 1]) if "--details" in sys.argv else 25
    stats, reasons, ncreasons = collections.Counter(), collections.Counter(), collections.Counter()
    examples = collections.defaultdict(list)
    per = {}
    for spath in sorted(glob.glob(os.path.join(out, "*.strace"))):
        rpath = spath[: -len(".strace")] + ".rtrace"
        if not os.path.exists(rpath):
            continue
        one = collections.Counter()
        compare_pair(spath, rpath, one, reasons, examples, ncreasons)
        per[os.path.basename(spath)[: -len(".strace")]] = one
        stats.update(one)
    aligned = stats["same"] + stats["more"] + stats["less"]
    print("workload runs: %d" % len(per))
    for k, v in sorted(per.items()):
        n = v["same"] + v["more"] + v["less"]
        print("  %-28s aligned %6d  less %5d  more %5d  unaligned %5d" % (k, n, v["less"], v["more"], v["unaligned"]))
    print("calls aligned: %d (not comparable: %d unaligned, %d aligned with another operation or count)"
          % (aligned, stats["unaligned"], stats["not comparable"]))
    for r, n in ncreasons.most_common(12):
        print("  %6d  %s" % (n, r))
    for k in ("same", "more", "less"):
        print("  %-5s %7d  %6.2f%%" % (k, stats[k], 100.0 * stats[k] / max(aligned, 1)))
    print("top reasons for less:")
    for r, n in reasons.most_common(details):
        print("  %6d  %s" % (n, r))
        for ex in examples[r][:1]:
            print("          %s\n          S: %s\n          R: %s" % (ex[0], line(ex[1])[:300], line(ex[2])[:300]))


if __name__ == "__main__":
    main()
