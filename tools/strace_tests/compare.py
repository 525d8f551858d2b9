#!/usr/bin/env python3
"""Run strace's own test programs under strace and rtrace and compare them.

A local measure (issue 25), not a CI test: nothing of strace (code or
expected output) lives in this repository. run.sh checks out and builds
strace's tests outside it; this script reads their gen_tests.in table from
that checkout, runs every program it can under strace (twice) and rtrace
with the options its test uses, and compares the information per call.

Per program the verdict is one of
  same      every call carries exactly strace's information
  more      every call carries at least strace's information, some more
  less      some call carries less (or is missing, or the program failed
            only under rtrace)
  n/c       not comparable, with the reason (not built, skipped by the
            program itself (exit 77), an option or test script this
            measure cannot translate, strace itself failed, rtrace refused
            the options)

How a call is compared (the normalisations; each is a spelling difference
of rtrace's grammar or a value that changes from run to run, never a
difference of information):
  - Runs are deterministic where they can be: each tracer runs in a fresh
    pid namespace (the tracee is pid 2 in both), without address-space
    randomisation (setarch -R), in the same scratch directory, with the
    same environment. Values that still differ between the two strace
    runs (times, inode numbers, counters) are not required of rtrace: an
    argument's required atoms are the multiset intersection of both
    strace runs' atoms.
  - Lines: timestamps, -T times, pid prefixes (strace `PID `/`[pid N] `,
    rtrace `PID| `/`PID' `) are dropped; strace's `<unfinished ...>` and
    `<... NAME resumed>` halves are joined; rtrace's `<..>` cut halves are
    dropped and its `*` replays (the whole call) kept; process lines
    (`+++ ... +++`, `Tracing ...`, `Process exited ...`) are not calls.
  - Tokens: each argument and the result become a multiset of atoms:
    identifiers, integers (any base, compared by value: 0x1f == 31,
    NULL == 0), strings (C escapes decoded, compared as bytes; a cut string
    is its bytes plus an ellipsis). Punctuation, field order and layout
    are grammar. `..` (rtrace) is `...` (strace); ellipses are not atoms.
    rtrace's pointer mark `&0x...` is `0x...`. Comments `/* ... */` are
    kept (their words are atoms).
  - Results: strace's `-1 ENOENT (No such file or directory)` and rtrace's
    `-1 [ENOENT]` are both `-1 ENOENT`: the strerror text is not
    information (rtrace prints it with --errno-text), also after an error
    a call returns as its value (modify_ldt); fcntl's `(flags FD_CLOEXEC)`
    is `(FD_CLOEXEC)`; select's ready sets `(in [3], out [4])` are
    rtrace's `{readfds=[3], writefds=[4]}`, and the time it left is not
    compared (the run's timing).
  - Nested comments (`/* QCMD(0x1 /* Q_??? */, 0) = */`) are one comment.
  - A test's start-of-output marker matches the same call in rtrace's
    spelling (the same name and atoms).
  - Signals: strace's `--- SIGX {siginfo} ---` and rtrace's `** SIGX {..} **`
    (also inside a call's line) are pseudo-calls `--- SIGX`; strace's
    `si_signo=SIGX` is dropped (rtrace's signal name says it).
  - An argument of rtrace is "same" when its atoms contain the required
    atoms and add none beyond those that varied between strace runs,
    "more" when they contain them and add more, "less" otherwise. A
    required number rtrace replaces by a name still counts as carried
    when strace's own xlat/*.in tables check the name: its value there is
    the number; strace marked the number unknown (`/* X_??? */`) and does
    not have the name (a newer kernel's); or the number is a flag set's
    unnamed rest (`A|0x30`) and rtrace names some of those bits, leaving
    unnamed only bits strace left unnamed too. Where
    the two argument counts differ, the whole call's atoms are compared.
  - Calls are aligned by name (difflib); a strace call rtrace lacks is
    "less", an rtrace call strace lacks is "more".

Usage: compare.py --strace-src DIR --rtrace BIN --out FILE [--only REGEX]
       [--jobs N]. Writes one line per program (verdict, family, reason,
       first differing call) to FILE and a summary by family to stdout.
"""

import argparse
import collections
import concurrent.futures
import difflib
import gzip
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

# ---------------------------------------------------------------- options

# strace options whose rtrace spelling is the same (with their argument
# count).
SAME_OPTS = {
    "-s": 1, "-v": 0, "-y": 0, "-yy": 0, "-x": 0, "-xx": 0, "-f": 0,
    "-q": 0, "-qq": 0, "-z": 0, "-Z": 0, "-Y": 0, "-P": 1, "-X": 1,
    "-e": 1, "-T": 0, "-t": 0, "-tt": 0, "-ttt": 0, "-r": 0,
}
# Long options: strace spelling -> rtrace spelling (None: same).
LONG_OPTS = {
    "--trace": "-e trace=", "--trace-path": "-P", "--signal": "-e signal=",
    "--status": "-e status=", "--inject": "-e inject=",
    "--fault": "-e fault=", "--raw": "-e raw=", "--abbrev": "-e abbrev=",
    "--verbose": "-e verbose=", "--decode-fds": "--decode-fds=",
    "--decode-pids": "--decode-pids ", "--pidns-translation": None,
    "--const-print-style": "-X ", "--strings-in-hex": "--strings-in-hex=",
    "--quiet": "-e quiet=", "--successful-only": None,
    "--failed-only": None, "--no-abbrev": None,
}
# -e qualifiers rtrace takes as strace does.
E_QUALS = {"trace", "t", "signal", "signals", "s", "status", "inject",
           "fault", "raw", "abbrev", "a", "verbose", "v", "decode-pids",
           "read", "write", "trace-fds"}


class NotComparable(Exception):
    """A test this measure cannot run on both tracers; the text says why."""


def translate(args):
    """strace's option words -> rtrace's, or NotComparable."""
    out = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if re.fullmatch(r"-a\d+", a) or a in ("-a",):
            if a == "-a":
                i += 1
            continue  # column alignment: layout only
        m = re.fullmatch(r"(-[sPX])(.+)", a)
        if m and a not in SAME_OPTS:
            out += [m.group(1), m.group(2)]
            continue
        m = re.fullmatch(r"-e(.+)", a)
        if m:
            a, args = "-e", args[:i] + [m.group(1)] + args[i:]
        if a == "-e":
            q = args[i]
            i += 1
            name, _, val = q.partition("=")
            if not _:
                name, val = "trace", q
            if name == "quiet" or name == "q":
                out += ["-q"] if "attach" in val or "exit" in val or val == "all" else []
                continue
            if name == "decode-fds":
                out += ["--decode-fds=" + val]
                continue
            if name == "kvm" or name == "secontext":
                raise NotComparable("option -e %s" % name)
            if name not in E_QUALS:
                raise NotComparable("option -e %s=" % name)
            if name in ("trace", "t"):
                val = classes(val)
            out += ["-e", "%s=%s" % (name, val)]
            continue
        if a.startswith("--"):
            name, eq, val = a.partition("=")
            if name not in LONG_OPTS:
                raise NotComparable("option %s" % name)
            sp = LONG_OPTS[name]
            if sp is None:
                out.append(a)
                continue
            if not eq:
                val = args[i]
                i += 1
            if name == "--trace":
                val = classes(val)
            if sp.endswith(" "):
                out += [sp.strip(), val]
            elif sp.startswith("-e "):
                out += ["-e", sp[3:] + val]
            elif sp.endswith("="):
                out.append(sp + val)
            else:
                out += [sp, val]
            continue
        if a in SAME_OPTS:
            out.append(a)
            for _ in range(SAME_OPTS[a]):
                out.append(args[i])
                i += 1
            continue
        if re.fullmatch(r"-X(raw|abbrev|verbose)", a):
            out += ["-X", a[2:]]
            continue
        raise NotComparable("option %s" % a)
    return out


def classes(val):
    """strace takes old class names without `%`; rtrace wants the `%`."""
    bare = {"file", "process", "network", "net", "signal", "ipc", "desc",
            "memory", "creds", "clock", "stat", "lstat", "fstat", "statfs",
            "fstatfs", "pure"}
    neg = val.startswith("!")
    parts = [("%" + p if p in bare else p) for p in val.lstrip("!").split(",")]
    return ("!" if neg else "") + ",".join(parts)


# ---------------------------------------------------------------- tests

def load_tests(src):
    """gen_tests.in rows -> (name, kind, args) for the kinds we can run."""
    rows = []
    with open(os.path.join(src, "tests", "gen_tests.in")) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            name = parts[0]
            rest = parts[1].strip() if len(parts) > 1 else ""
            rows.append((name, rest))
    return rows


def plan(name, rest):
    """The program, its arguments, strace's options and the line filters."""
    words = shlex.split(rest) if rest else []
    prog_args = []
    start_marker = None
    drop = None  # regex of lines (strace spelling) both logs drop
    uniq = False
    skip_to_marker = None
    redirs = []
    start_call = None
    prog = name
    if words and words[0].startswith("+"):
        script = words[0][1:]
        extra = words[1:]
        if script == "ioctl.test":
            opts = ["-eioctl"] + extra
            drop = "ioctl012"
        elif script == "netlink_sock_diag.test":
            opts = ["-e", "trace=sendto"] + extra
        elif script == "prctl.sh":
            opts = ["-eprctl"] + extra
            skip_to_marker = "prctl"
        elif script == "arch_prctl.sh":
            opts = ["-earch_prctl"] + extra
            skip_to_marker = "arch_prctl"
        elif script in ("faccessat.test", "faccessat2.test"):
            sc = script[:-len(".test")]
            opts = ["--trace=" + sc] + extra
            start_call = sc
        elif script == "fadvise64.test":
            opts = ["-e", name] + extra
            drop = "fd0123"
        elif script == "getuid.test":
            sc = name
            if name.endswith("-creds"):
                sc = "%creds"
                prog = name
            opts = ["-qq", "-e", sc] + extra
            uniq = True
        elif script == "ioctl-success.sh":
            opts = extra + ["-e", "trace=ioctl", "-e",
                            "inject=ioctl:retval=42:when=256+"]
            prog_args = ["256", "42"]
            drop = "ioctl012"
        else:
            raise NotComparable("test script %s" % script)
    elif words and not words[0].startswith("-"):
        raise NotComparable("test function %s" % words[0])
    else:
        opts = []
        inject = words and re.match(r"(-einject=|--inject=)", words[0])
        for w in words:
            if w.startswith("QUIRK:PROG-ARGS:"):
                prog_args += shlex.split(w[len("QUIRK:PROG-ARGS:"):])
            elif w.startswith("QUIRK:START-OF-TEST-OUTPUT:"):
                start_marker = w[len("QUIRK:START-OF-TEST-OUTPUT:"):]
            elif w.startswith("QUIRK:"):
                raise NotComparable("quirk %s" % w.split(":")[1])
            elif re.fullmatch(r"\d+(>>?|<)(/dev/\w+)|\d+>&(-|\d+)", w):
                redirs.append(w)
            elif re.match(r"\d*[<>]", w):
                raise NotComparable("redirection in test")
            else:
                opts.append(w)
        joined = " ".join(opts)
        if not inject and not re.search(r"(-e ?trace=|-etrace=|--trace=)",
                                        joined):
            opts = ["-e", "trace=" + name] + opts
    return dict(prog=prog, prog_args=prog_args, opts=opts, drop=drop,
                uniq=uniq, start_marker=start_marker,
                skip_to_marker=skip_to_marker, redirs=redirs,
                start_call=start_call)


# ---------------------------------------------------------------- running

def run_one(tracer_cmd, workdir, log, target, redirs, timeout=30):
    """One traced run in a fresh pid namespace without ASLR.

    As strace's run_strace_match_diff does, the program first runs once
    untraced in the same directory (tests such as fstat's -P need the file
    that run leaves), then traced; both with the test's redirections."""
    if os.path.exists(workdir):
        shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C",
           "HOME": "/root", "TERM": "dumb"}
    wrap = ["sh", "-c", 'exec "$@" ' + " ".join(redirs), "sh"]
    try:
        pre = subprocess.run(wrap + target, cwd=workdir, env=env,
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout", ""
    if pre.returncode == 77:
        return 77, "", "skipped"
    # strace forks two checks of its own before the tracee, rtrace its pin
    # guard (twice): the tracee is pid 4 in the new namespace under both.
    wrap = ["sh", "-c", 'exec "$@" ' + " ".join(redirs), "sh"]
    cmd = ["unshare", "-pf", "--mount-proc", "setarch", "x86_64", "-R"] + \
        wrap + tracer_cmd
    try:
        p = subprocess.run(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, "timeout", ""
    try:
        with open(log, errors="surrogateescape") as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    return p.returncode, text, p.stderr.decode(errors="replace")


# ---------------------------------------------------------------- parsing

STRACE_PID = re.compile(r"^(\[pid +\d+\] |\d+ +)")
RTRACE_PID = re.compile(r"^\d+[|'] ")
TIMESTAMP = re.compile(r"^(\d\d:\d\d:\d\d(\.\d+)?|\d+\.\d+) +(\(\+ *[\d.]+\) +)?")
REL = re.compile(r"^ *\d+\.\d+ +")
DURATION = re.compile(r" <\d+\.\d+>$")


def strip_prefix(line, rtrace):
    line = (RTRACE_PID if rtrace else STRACE_PID).sub("", line, count=1)
    line = TIMESTAMP.sub("", line, count=1)
    line = DURATION.sub("", line)
    return line


def scan_balanced(s, i, close_at_depth0=","):
    """Index of the first char in close_at_depth0 at depth 0 from i, or len."""
    depth = 0
    n = len(s)
    while i < n:
        c = s[i]
        if c == '"':
            i += 1
            while i < n and s[i] != '"':
                if s[i] == "\\":
                    i += 1
                i += 1
        elif c == "/" and s.startswith("/*", i):
            # strace nests comments (`/* QCMD(0xbad /* Q_??? */, 0) = */`).
            nest = 0
            while i < n:
                if s.startswith("/*", i):
                    nest += 1
                    i += 2
                elif s.startswith("*/", i):
                    nest -= 1
                    i += 2
                    if nest == 0:
                        break
                else:
                    i += 1
            i -= 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0 and c in close_at_depth0:
                return i
            depth -= 1
        elif depth == 0 and c in close_at_depth0:
            return i
        i += 1
    return n


def split_call(line):
    """`name(a, b) = r` -> (name, [a, b], r) or None."""
    m = re.match(r"([a-z_][a-z0-9_]*)\(", line)
    if not m:
        return None
    name = m.group(1)
    i = m.end()
    args = []
    while True:
        j = scan_balanced(line, i, ",)")
        a = line[i:j].strip()
        if a or args or (j < len(line) and line[j] == ","):
            args.append(a)
        if j >= len(line):
            return name, args, None
        if line[j] == ")":
            rest = line[j + 1:].strip()
            break
        i = j + 1
    if rest.startswith("="):
        res = rest[1:].strip()
    else:
        res = rest
    if args == [""]:
        args = []
    return name, args, res


SIG_RTRACE = re.compile(r"\*\* (SIG[A-Z0-9+]+|\d+)")


def rtrace_signals(line):
    """Cut rtrace's `** SIGX {..} **` out of a line: (line, [(sig, info)])."""
    sigs = []
    while True:
        m = SIG_RTRACE.search(line)
        if not m:
            return line, sigs
        j = m.end()
        info = ""
        if line[j:j + 2] == " {":
            k = scan_balanced(line, j + 2, "}")
            info = line[j + 1:k + 1]
            j = k + 1
        end = line.find(" **", j)
        if end < 0:
            return line, sigs
        sigs.append((m.group(1), info))
        line = (line[:m.start()] + line[end + 3:]).replace("  ", " ")


def parse_log(text, rtrace):
    """A log -> list of (name, [args], result) in order."""
    calls = []
    pending = {}
    for raw in text.splitlines():
        pid = None
        m = (RTRACE_PID if rtrace else STRACE_PID).match(raw)
        if m:
            pid = m.group(0)
        line = strip_prefix(raw, rtrace)
        if rtrace:
            line, sigs = rtrace_signals(line)
            sigs = [("--- " + s, [info] if info else [], None)
                    for s, info in sigs]
            if line.startswith("*"):
                line = line[1:]
            if line.rstrip().endswith("<..>") or line.startswith(
                    ("Tracing ", "Process ", "Attached", "Detached")):
                calls += sigs
                continue
            # strace prints a signal that interrupts a call after the
            # call's (interrupted) line; rtrace inside it.
            c = split_call(line)
            if c:
                calls.append(c)
            calls += sigs
            continue
        else:
            m = re.match(r"--- (SIG[A-Z0-9+]+|\d+) (\{.*\}) ---$", line)
            if m:
                info = re.sub(r"si_signo=SIG[A-Z0-9+]+(, )?", "", m.group(2))
                calls.append(("--- " + m.group(1), [info], None))
                continue
            if line.startswith(("+++", "---", "strace:")):
                continue
            if line.endswith("<unfinished ...>"):
                pending[pid] = line[:-len("<unfinished ...>")].rstrip()
                continue
            m = re.match(r"<\.\.\. ([a-z0-9_]+) resumed>(.*)", line)
            if m:
                head = pending.pop(pid, m.group(1) + "(")
                tail = m.group(2)
                line = head + ("" if head.endswith("(") or tail.startswith((",", ")")) else " ") + tail.lstrip()
                line = line.replace("( ", "(")
        c = split_call(line)
        if c and c[0] != "restart_syscall":
            calls.append(c)
    return calls


ATOM = re.compile(r'"((?:[^"\\]|\\.)*)"|/\*(.*?)\*/|(\.\.\.?)|'
                  r"(-?0x[0-9a-fA-F]+|-?\d+)|([A-Za-z_][A-Za-z0-9_]*)",
                  re.S)


def unescape(s):
    """C-escaped string content -> bytes."""
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        i += 1
        if i >= len(s):
            break
        c = s[i]
        simple = {"n": 10, "t": 9, "r": 13, "v": 11, "f": 12, "a": 7,
                  "b": 8, "e": 27, "\\": 92, '"': 34, "'": 39}
        if c in simple:
            out.append(simple[c])
            i += 1
        elif c == "x":
            m = re.match(r"[0-9a-fA-F]{1,2}", s[i + 1:])
            out.append(int(m.group(0), 16) if m else 0)
            i += 1 + (len(m.group(0)) if m else 0)
        elif c in "01234567":
            m = re.match(r"[0-7]{1,3}", s[i:])
            out.append(int(m.group(0), 8) & 255)
            i += len(m.group(0))
        else:
            out += c.encode()
            i += 1
    return bytes(out)


IOC_DIRS = {"_IOC_NONE": 0, "_IOC_WRITE": 1, "_IOC_READ": 2}
STRACE_IOC = re.compile(r"_IOC\(((?:_IOC_\w+\|?)+), ('(?:\\.|[^'])'|0x[0-9a-f]+|\d+), "
                        r"(0x[0-9a-f]+|\d+), (0x[0-9a-f]+|\d+)\)")
RTRACE_IOC = re.compile(r"_IO(R|W|WR|)\(('(?:\\.|[^'])'|0x[0-9a-f]+|\d+), "
                        r"(0x[0-9a-f]+|\d+)(?:, (0x[0-9a-f]+|\d+))?\)")


def ioc_number(text):
    """An unnamed ioctl request as its number: strace spells it
    `_IOC(_IOC_READ, 0x56, 0x1, 0)`, rtrace `_IOR('V', 0x1, 0)` (and a
    code with no direction but a size `_IOC(_IOC_NONE, '=', 0x0, 8)`)."""
    def num(x):
        if x.startswith("'"):
            return ord(unescape(x[1:-1])[:1] or b"\0")
        return int(x, 0)

    def strace(m):
        d = sum(IOC_DIRS.get(x, 0) for x in m.group(1).split("|") if x)
        return hex(d << 30 | num(m.group(4)) << 16 | num(m.group(2)) << 8
                   | num(m.group(3)))

    def rtrace(m):
        d = {"": 0, "W": 1, "R": 2, "WR": 3}[m.group(1)]
        size = num(m.group(4)) if m.group(4) else 0
        return hex(d << 30 | size << 16 | num(m.group(2)) << 8
                   | num(m.group(3)))
    return RTRACE_IOC.sub(rtrace, STRACE_IOC.sub(strace, text))


# Two names of one value: strace names an rlimit's all-ones value by the
# 64-bit call's macro whichever call it is; `<asm/termbits.h>`'s XTABS is
# TAB3.
ALIASES = {"RLIM64_INFINITY": "RLIM_INFINITY", "XTABS": "TAB3",
           # select's ready sets: strace's `(in [3], out [4], except [])`
           # and rtrace's `{readfds=[3], writefds=[4], exceptfds=[]}`.
           "in": "readfds", "out": "writefds", "except": "exceptfds"}

# The names strace 6.1 knows, from its xlat/*.in files, with the values
# those files give (a name under several #ifdefs has several): rtrace
# naming what strace printed as a number is more only where the name's
# value is that number, or strace could not have named it (see
# `named_by_rtrace`).
STRACE_NAMES = {}


def load_strace_names(src):
    """Fill STRACE_NAMES from strace's xlat/*.in files."""
    for path in glob.glob(os.path.join(src, "src", "xlat", "*.in")):
        with open(path, errors="replace") as f:
            for line in f:
                m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)(?:\s+(\S+))?", line)
                if not m:
                    continue
                vals = STRACE_NAMES.setdefault(m.group(1), set())
                try:
                    vals.add(int(m.group(2), 0) % (1 << 64))
                except (TypeError, ValueError):
                    pass

# A number strace marks as unknown (`0x4 /* MRT6MSG_??? */`), and a flag
# set's unnamed rest (`MFD_HUGETLB|0x3fffff8`): kept beside the atoms as
# markers, so that a name rtrace gives them can be judged.
UNKNOWN_NUM = re.compile(r"(-?0x[0-9a-fA-F]+|-?\d+) /\* [A-Z0-9_]*\?")
FLAG_REST = re.compile(r"(?<=[A-Za-z0-9_)])\|(0x[0-9a-fA-F]+)\b")


def wait_status(text):
    """rtrace's wait status words (trace(1)'s `W_EXITED(42)`,
    `W_SIGNALED(SIGUSR1)|W_COREDUMP`) in strace's spelling
    (`[{WIFEXITED(s) && WEXITSTATUS(s) == 42}]`): the same information."""
    forms = {"EXITED": ("WIFEXITED", "WEXITSTATUS"),
             "SIGNALED": ("WIFSIGNALED", "WTERMSIG"),
             "STOPPED": ("WIFSTOPPED", "WSTOPSIG")}

    def one(m):
        test, value = forms[m.group(1)]
        core = " && WCOREDUMP(s)" if m.group(3) else ""
        return "[{%s(s) && %s(s) == %s%s}]" % (test, value, m.group(2), core)
    text = re.sub(r"\bW_(EXITED|SIGNALED|STOPPED)\(([^()]*)\)(\|W_COREDUMP)?",
                  one, text)
    return re.sub(r"\bW_CONTINUED\b", "[{WIFCONTINUED(s)}]", text)


def rt_signals(text):
    """rtrace's real-time signal names (`RTMIN+1`, `SIGRTMIN+1`, counted
    from glibc's SIGRTMIN, 34) in strace's (`RT_3`, `SIGRT_3`, counted
    from the kernel's 32): the same signal."""
    def one(m):
        return "%sRT_%d" % (m.group(1) or "", 2 + int(m.group(2) or 0))
    return re.sub(r"\b(SIG)?RTMIN(?:\+(\d+))?\b", one, text)


def rusage_measures(text):
    """A `struct rusage`'s times and counters without their values.

    They measure the process under its tracer: its CPU time, the voluntary
    context switches every ptrace stop adds, the page faults and resident
    size its tracer's fork child had before exec (a larger tracer leaves a
    larger ru_maxrss). Two runs under strace often agree on them, so they
    would not count as volatile, yet a run under rtrace cannot: the fields
    are compared, their values not."""
    text = re.sub(r"\b(ru_utime|ru_stime)=\{tv_sec=-?\d+, tv_usec=-?\d+\}",
                  r"\1={}", text)
    return re.sub(r"\b(ru_maxrss|ru_minflt|ru_majflt|ru_nvcsw|ru_nivcsw|ru_inblock"
                  r"|ru_oublock)=\d+", r"\1=", text)


def atoms(text, is_rtrace):
    """A unit's text -> Counter of atoms."""
    if text is None:
        return collections.Counter()
    if is_rtrace:
        text = re.sub(r"&(0x[0-9a-fA-F]+)", r"\1", text)
        text = re.sub(r"~0ULL|~0UL", "0xffffffffffffffff", text)
        text = text.replace("~0U", "0xffffffff")
        text = wait_status(text)
        text = rt_signals(text)
    text = ioc_number(text)
    text = rusage_measures(text)
    # The time a select or pselect6 left is the run's timing, not the
    # call's information: the two strace runs agree to the microsecond
    # more often than a third, differently traced run does.
    text = re.sub(r"(left[ =]\{tv_sec=)-?\d+(, tv_[un]sec=)-?\d+",
                  r"\1T\2T", text)
    # strace writes a size that is a multiple of 1024 so (`8192*1024`).
    text = re.sub(r"\b(\d+)\*1024\b", lambda m: str(int(m.group(1)) * 1024),
                  text)
    # strace's comments that only say "unknown" (`0x8 /* ?_OK */`,
    # `0 /* ARCH_??? */`, a bit of no known name `0x100 /* 1<<X_??? */`)
    # carry no information.
    c = collections.Counter()
    if not is_rtrace:
        for m in UNKNOWN_NUM.finditer(text):
            c[("U", int(m.group(1), 0) % (1 << 64))] += 1
        for m in FLAG_REST.finditer(text):
            c[("R", int(m.group(1), 16))] += 1
    text = re.sub(r"/\* (1<<)?[A-Z0-9_]*\?[A-Z0-9_?]* \*/", "", text)
    for m in ATOM.finditer(text):
        s, com, ell, num, ident = m.groups()
        if s is not None:
            c[("s", unescape(s))] += 1
        elif com is not None:
            for a in atoms(com, is_rtrace):
                c[a] += 1
        elif ell is not None:
            continue
        elif num is not None:
            neg = num.startswith("-")
            body = num.lstrip("-")
            if body.startswith(("0x", "0X")):
                v = int(body, 16)
            elif len(body) > 1 and body.startswith("0") and body.isdigit() \
                    and all(ch in "01234567" for ch in body):
                v = int(body, 8)
            else:
                v = int(body)
            # Compared as the same 64 bits: strace prints some signed
            # fields unsigned (tv_nsec) and the reverse; a small negative
            # number is compared as its 32 bits (an int's -1 is strace's
            # 0xffffffff).
            v = (-v if neg else v) % (1 << 64)
            if v >= (1 << 64) - (1 << 31):
                v &= 0xffffffff
            c[("n", v)] += 1
        elif ident == "NULL":
            c[("n", 0)] += 1
        else:
            c[("i", ALIASES.get(ident, ident))] += 1
    return c


def norm_result(res):
    """Drop strace's strerror text after an errno name; an interrupted call.

    strace shows the kernel's restart code of an interrupted call
    (`? ERESTARTSYS (To be restarted ...)`) and then its restart as a new
    call; rtrace keeps the call open across the signal and shows what the
    program got (`-1 [EINTR]`, or the restarted call's result). Both
    spell "interrupted" here."""
    if res is None:
        return None
    if re.match(r"\? ERESTART\w+|-1 \[?EINTR\b", res):
        return "INTERRUPTED"
    res = re.sub(r"^(-1 E[A-Z0-9]+) \([^()]*\)", r"\1", res)
    res = re.sub(r"^(\? E[A-Z0-9]+) \([^()]*\)", r"\1", res)
    res = re.sub(r"^(-1 \[?E[A-Z0-9]+\]?) \([^()]*\)", r"\1", res)
    # An error a call returns as its value (modify_ldt's `4294967258
    # ENOSYS (Function not implemented)`); fcntl's `(flags FD_CLOEXEC)`
    # labels what follows.
    res = re.sub(r"\b(E[A-Z0-9]+) \([^()]*\)$", r"\1", res)
    res = res.replace("(flags ", "(")
    return res


def units(call, is_rtrace):
    name, args, res = call
    us = [atoms(a, is_rtrace) for a in args]
    return us, atoms(norm_result(res), is_rtrace)


def bare_pointer(c):
    """A unit that is one number (strace's address of what it did not
    read)."""
    return len(c) == 1 and sum(c.values()) == 1 and next(iter(c))[0] == "n"


def compare_unit(s1, s2, r):
    """Compare one unit: 'same', 'more' or 'less'.

    Where strace shows an address and rtrace what is there, rtrace shows
    more."""
    if bare_pointer(s1) and next(iter(s1))[1] > 0xffff and \
            not bare_pointer(r) and not (r & s1):
        return "more"
    required = s1 & s2
    volatile = sum((s1 - required).values())
    missing = collections.Counter(
        {a: k for a, k in (required - r).items() if a[0] not in "UR"})
    if missing:
        return "more" if named_by_rtrace(missing, s1, r) else "less"
    extra = sum((r - s1).values())
    return "more" if extra > volatile else "same"


def named_by_rtrace(missing, s1, r):
    """Whether every number strace showed and rtrace did not is one rtrace
    names instead.

    A number is named when an identifier rtrace adds has that value in
    strace's own tables (`[2]` and `[SOCK_DGRAM]`); when strace marked it
    unknown and rtrace gives a name strace 6.1 does not have (`0x4 /*
    MRT6MSG_??? */` and `MRT6MSG_WRMIFWHOLE`, newer than strace); or when it
    is a flag set's unnamed rest and rtrace names more of its bits (with
    names strace does not have, or whose values are those bits) and leaves
    unnamed only bits strace left unnamed too."""
    if any(a[0] != "n" for a in missing):
        return False
    added = r - s1
    names = [a[1] for a in added if a[0] == "i"]
    rest = [a[1] for a in added if a[0] == "n"]
    if not names:
        return False
    for (_, v), _k in missing.items():
        values = [STRACE_NAMES.get(n) for n in names]
        if any(vals and v in vals for vals in values):
            continue
        newer = [n for n in names if n not in STRACE_NAMES]
        if s1[("U", v)] and newer:
            continue
        if s1[("R", v)] and all(x & ~v == 0 for x in rest) and all(
                not vals or any(x & ~v == 0 and x for x in vals)
                for vals in values):
            continue
        return False
    return True


def compare_call(c1, c2, cr):
    """Verdict for one aligned call, and where it differs."""
    a1, r1 = units(c1, False)
    a2, r2 = units(c2, False) if c2 else (a1, r1)
    ar, rr = units(cr, True)
    verdicts = []
    if len(a1) == len(ar) and len(a2) == len(a1):
        for i, (x, y, z) in enumerate(zip(a1, a2, ar)):
            v = compare_unit(x, y, z)
            if v != "same":
                verdicts.append((v, "arg%d" % (i + 1)))
    else:
        t1 = sum(a1, collections.Counter())
        t2 = sum(a2, collections.Counter()) if len(a2) == len(a1) else t1
        tr = sum(ar, collections.Counter())
        v = compare_unit(t1, t2, tr)
        if v != "same":
            verdicts.append((v, "args(%d vs %d)" % (len(a1), len(ar))))
    v = compare_unit(r1, r2, rr)
    if v != "same":
        verdicts.append((v, "result"))
    if any(v == "less" for v, _ in verdicts):
        # The same information in another place is grammar: rtrace shows
        # what an ioctl or call wrote after `=` (`= 0 {...}`), strace
        # inside the argument (`{...} => {...}`).
        whole = compare_unit(sum(a1, r1.copy()), sum(a2, r2.copy()),
                             sum(ar, rr.copy()))
        if whole != "less":
            return whole, []
        return "less", [w for v, w in verdicts if v == "less"]
    if verdicts:
        return "more", []
    return "same", []


def fmt(call):
    name, args, res = call
    return "%s(%s)%s" % (name, ", ".join(args),
                         "" if res is None else " = " + res)


def filter_calls(calls, p, is_rtrace):
    out = []
    for c in calls:
        if p["drop"] == "ioctl012" and c[0] == "ioctl" and c[1] and \
                re.match(r"[012](<|$)", c[1][0]):
            continue
        if p["drop"] == "fd0123" and c[1] and re.fullmatch(r"[0-3]", c[1][0]):
            continue
        out.append(c)
    if p["start_call"]:
        # the test's output starts at `NAME(-1, NULL, ...`
        for i, c in enumerate(out):
            if c[0] == p["start_call"] and len(c[1]) > 1 and \
                    atoms(c[1][0], is_rtrace) == atoms("-1", False) and \
                    atoms(c[1][1], is_rtrace) == atoms("NULL", False):
                out = out[i:]
                break
    if p["skip_to_marker"]:
        for i, c in enumerate(out):
            if c[0] == p["skip_to_marker"] and c[1] and \
                    atoms(c[1][0], is_rtrace).get(("n", 0xffffffff)):
                out = out[i + 1:]
                break
    if p["start_marker"]:
        marker = p["start_marker"]
        for i, c in enumerate(out):
            if marker_matches(marker, c, is_rtrace):
                out = out[i:]
                break
    if p["uniq"]:
        u = []
        for c in out:
            if not u or fmt(u[-1]) != fmt(c):
                u.append(c)
        out = u
    return out


def marker_matches(marker, c, is_rtrace):
    """Whether call c is the test's start-of-output marker: its text, its
    name alone (`prctl(`), or the same call with the same atoms (strace's
    `prlimit64(0, 0x10 /* RLIMIT_??? */, NULL, NULL)` in rtrace's
    spelling)."""
    if marker in fmt(c) or marker.rstrip("(") == c[0]:
        return True
    m = re.match(r"([a-z0-9_]+)\((.*)\)$", marker)
    if not m or m.group(1) != c[0]:
        return False
    want = collections.Counter({a: k for a, k in
                                atoms(m.group(2), False).items()
                                if a[0] not in "UR"})
    return want == atoms(", ".join(c[1]), is_rtrace)


def exit_code(text, rtrace):
    if rtrace:
        m = re.search(r"exited normally with code (\d+)", text)
        if m:
            return int(m.group(1))
        return None if "killed" not in text else -1
    m = re.search(r"\+\+\+ exited with (\d+) \+\+\+", text)
    if m:
        return int(m.group(1))
    return -1 if "+++ killed" in text else None


def compare_program(name, rest, args):
    """Run and compare one test; returns a result dict."""
    res = dict(name=name, family=family(name, args.families))
    try:
        p = plan(name, rest)
        prog = os.path.join(args.strace_src, "tests", p["prog"])
        if not os.path.exists(prog):
            raise NotComparable("not built")
        ropts = translate(p["opts"])
    except NotComparable as e:
        res.update(verdict="n/c", reason=str(e))
        return res
    scratch = os.path.join(args.scratch, name)
    os.makedirs(scratch, exist_ok=True)
    work = os.path.join(scratch, "w")
    logs = [os.path.join(scratch, f) for f in ("s1", "r", "s2")]
    target = [prog] + p["prog_args"]
    cmds = [
        [args.strace, "-o", logs[0]] + p["opts"] + target,
        [args.rtrace, "-o", logs[1], "-e", "diag=none"] + ropts + target,
        [args.strace, "-o", logs[2]] + p["opts"] + target,
    ]
    saved = os.path.join(args.logs, name + ".json.gz") if args.logs else None
    if args.recompare:
        if not saved or not os.path.exists(saved):
            res.update(verdict="n/c", reason="no saved logs")
            return res
        with gzip.open(saved, "rt", errors="surrogateescape") as f:
            outs = [tuple(o) for o in json.load(f)]
        return compare_outputs(res, p, outs)
    outs = []
    for cmd, log in zip(cmds, logs):
        if os.path.exists(log):
            os.unlink(log)
        r = run_one(cmd, work, log, target, p["redirs"])
        if r[0] == 77:
            res.update(verdict="n/c", reason="program skipped (77)")
            shutil.rmtree(scratch, ignore_errors=True)
            return res
        outs.append(r)
    shutil.rmtree(scratch, ignore_errors=True)
    if saved and all(o[0] is not None for o in outs):
        with gzip.open(saved, "wt", errors="surrogateescape") as f:
            json.dump(outs, f)
    return compare_outputs(res, p, outs)


def compare_outputs(res, p, outs):
    """The verdict from the three runs' (exit code, log, stderr)."""
    if any(o[0] is None for o in outs):
        res.update(verdict="n/c" if outs[0][0] is None else "less",
                   reason="timeout")
        return res
    (rc1, t1, e1), (rcr, tr, er), (rc2, t2, e2) = outs
    if max(len(t1), len(tr), len(t2)) > LOG_LIMIT:
        res.update(verdict="n/c", reason="log over %d MiB" % (LOG_LIMIT >> 20))
        return res
    x1 = exit_code(t1, False)
    if x1 == 77:
        res.update(verdict="n/c", reason="program skipped (77)")
        return res
    if rc1 != 0 and not t1:
        res.update(verdict="n/c", reason="strace failed: " + e1.strip()[:80])
        return res
    if not tr and rcr != 0:
        msg = er.strip().splitlines()[-1] if er.strip() else "rc=%d" % rcr
        res.update(verdict="n/c", reason="rtrace refused: " + msg[:120])
        return res
    xr = exit_code(tr, True)
    if x1 != xr and x1 is not None:
        res.update(verdict="less",
                   reason="program exit %s under strace, %s under rtrace"
                   % (x1, xr))
        return res
    c1 = filter_calls(parse_log(t1, False), p, False)
    c2 = filter_calls(parse_log(t2, False), p, False)
    cr = filter_calls(parse_log(tr, True), p, True)
    if len(c2) != len(c1):
        c2 = None
    n1 = [c[0] for c in c1]
    nr = [c[0] for c in cr]
    if n1 == nr:
        opcodes = [("equal", 0, len(n1), 0, len(nr))]
    else:
        opcodes = difflib.SequenceMatcher(None, n1, nr,
                                          autojunk=False).get_opcodes()
    verdict = "same"
    first = None
    reasons = collections.Counter()
    ncalls = dict(same=0, more=0, less=0)
    for op, i1, i2, j1, j2 in opcodes:
        if op == "equal":
            for k in range(i2 - i1):
                v, where = compare_call(c1[i1 + k], c2[i1 + k] if c2 else None,
                                        cr[j1 + k])
                ncalls[v] += 1
                if v == "less":
                    for w in where:
                        reasons["%s %s" % (c1[i1 + k][0], w)] += 1
                    if first is None:
                        first = (fmt(c1[i1 + k])[:300], fmt(cr[j1 + k])[:300])
                verdict = worse(verdict, v)
        else:
            if i2 > i1:
                ncalls["less"] += i2 - i1
                for k in range(i1, i2):
                    reasons["%s missing" % c1[k][0]] += 1
                if first is None:
                    first = (fmt(c1[i1])[:300], fmt(cr[j1])[:300] if j2 > j1 else "")
                verdict = worse(verdict, "less")
            if j2 > j1:
                ncalls["more"] += j2 - j1
                verdict = worse(verdict, "more")
    if not c1 and not cr:
        res.update(verdict="n/c", reason="no calls traced")
        return res
    res.update(verdict=verdict, calls=ncalls,
               reasons=dict(reasons.most_common(5)),
               first_less=first)
    return res


# Logs past this size (a few tests print megabytes of strings) take the
# pure-Python comparison minutes; they are left out, and counted so.
LOG_LIMIT = 4 << 20

ORDER = {"same": 0, "more": 1, "less": 2}


def worse(a, b):
    return a if ORDER[a] >= ORDER[b] else b


# ---------------------------------------------------------------- families

FAMILY_PREFIX = [
    (r"^(ioctl|btrfs|kvm|block_reset|fs_ioc|termios|tcgets|ptp)", "ioctl"),
    (r"^(nlattr_|netlink_|nfnetlink|inet_diag|unix_diag|smc_diag|"
     r"packet_diag|sock_diag|rtnl_|ifinfo)", "netlink"),
    (r"^(prctl|arch_prctl)", "prctl"),
    (r"^bpf", "bpf"),
    (r"^(io_uring|aio|io_)", "io_uring/aio"),
    (r"xattr", "xattr"),
    (r"^(keyctl|add_key|request_key)", "keys"),
    (r"^(ipc|msg|sem|shm|mq_)", "ipc"),
    (r"^(sched|ioprio)", "sched"),
    (r"^(print|strace-|status-|qual_|inject|filter|trace_|count|delay|"
     r"attach|threads|umove|erestartsys|maybe_switch|redirect|pc$|"
     r"tampering|scno|ksysent|nsyscalls|syscall|personality-|kill_child|"
     r"signal_receive|orphaned|setpgrp|vfork-f|fork-f|zeroargc)",
     "strace itself"),
    (r"^(net-|inet|ip_mreq|group_req|mmsg|so_|sock|msg_|recv|send|scm_|"
     r"unix-|accept|getpeer|getsock|icmp)", "net"),
    (r"^(fsconfig|fsmount|fsopen|fspick|move_mount|open_tree|mount|umount|"
     r"quotactl|inotify|fanotify|at_fdcwd|dev-|lookup_dcookie|statx|"
     r"file_handle)", "file/fs"),
    (r"^(pidfd|ptrace|process_|prlimit|kcmp|kernel_version|landlock|"
     r"seccomp|clone|membarrier|modify_ldt|iopl|ioperm|init_module|"
     r"finit_module|delete_module|kexec|prctl)", "process/creds"),
    (r"^(pkey|memfd|poke|mmap|munmap|mprotect|madvise|mbind|move_pages|"
     r"migrate_pages|set_mempolicy|get_mempolicy|remap|mlock|munlock)",
     "memory"),
    (r"^mq", "ipc"),
    (r"^(alarm|clock|timer|time|nanosleep|adjtimex|utime|futimesat|"
     r"xettimeofday|xetitimer)", "time"),
]
CLASS_FAMILY = [("TN", "net"), ("TS", "signal"), ("TM", "memory"),
                ("TI", "ipc"), ("TCL", "time"), ("TC", "process/creds"),
                ("TP", "process/creds"), ("TF", "file/fs"),
                ("TSTA", "file/fs"), ("TSFA", "file/fs"),
                ("TD", "desc/io")]


def load_families(src):
    """syscall name -> strace class flags, from strace's own table."""
    table = {}
    path = os.path.join(src, "src", "linux", "x86_64", "syscallent.h")
    with open(path) as f:
        for line in f:
            m = re.search(r"\{\s*\d+,\s*([^,]+),\s*SEN\(\w+\),\s*\"(\w+)\"", line)
            if m:
                table[m.group(2)] = set(re.findall(r"\w+", m.group(1)))
    return table


def family(name, table):
    for rx, fam in FAMILY_PREFIX:
        if re.search(rx, name):
            return fam
    base = name
    best = None
    for sc in table:
        if (base == sc or base.startswith(sc + "-") or base.startswith(sc + "_")
                or base.startswith(sc)) and (best is None or len(sc) > len(best)):
            best = sc
    if best is None:
        return "other"
    flags = table[best]
    for cls, fam in CLASS_FAMILY:
        if cls in flags:
            return fam
    if best.startswith(("clock", "time", "nanosleep", "adjtimex", "utime",
                        "gettimeofday", "settimeofday")):
        return "time"
    if best.startswith(("get", "set")):
        return "process/creds"
    return "other"


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--summarise", metavar="FILE",
                    help="only print the summary of an earlier --out FILE")
    ap.add_argument("--strace-src")
    ap.add_argument("--rtrace")
    ap.add_argument("--strace", default="strace")
    ap.add_argument("--out")
    ap.add_argument("--only", default=None)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--logs", metavar="DIR",
                    help="keep each program's three logs in DIR")
    ap.add_argument("--recompare", action="store_true",
                    help="compare the logs kept in --logs DIR again "
                    "instead of running anything")
    args = ap.parse_args()
    if args.summarise:
        with open(args.summarise) as f:
            results = [json.loads(line) for line in f]
        if args.strace_src:
            table = load_families(args.strace_src)
            for r in results:
                r["family"] = family(r["name"], table)
        summarise(results)
        return
    if not (args.strace_src and args.rtrace and args.out):
        ap.error("--strace-src, --rtrace and --out are needed")
    args.families = load_families(args.strace_src)
    load_strace_names(args.strace_src)
    if args.logs:
        os.makedirs(args.logs, exist_ok=True)
    own_scratch = args.scratch is None
    if own_scratch:
        args.scratch = tempfile.mkdtemp(prefix="rtrace-strace-tests-")
    tests = load_tests(args.strace_src)
    if args.only:
        tests = [t for t in tests if re.search(args.only, t[0])]
    results = []
    out = open(args.out, "w")
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(compare_program, n, r, args) for n, r in tests]
        for (n, _), f in zip(tests, futs):
            results.append(f.result())
            out.write(json.dumps(results[-1], default=str) + "\n")
            out.flush()
            print("%-40s %s %s" % (n, results[-1]["verdict"],
                                   results[-1].get("reason", "")),
                  file=sys.stderr, flush=True)
    out.close()
    if own_scratch:
        shutil.rmtree(args.scratch, ignore_errors=True)
    summarise(results)


def summarise(results):
    fams = collections.defaultdict(collections.Counter)
    nc = collections.Counter()
    reasons = collections.Counter()
    progs_by_reason = collections.Counter()
    for r in results:
        fams[r["family"]][r["verdict"]] += 1
        if r["verdict"] == "n/c":
            nc[re.sub(r":.*", "", r["reason"])] += 1
        for k, v in (r.get("reasons") or {}).items():
            reasons[k] += v
            progs_by_reason[k] += 1
        if r["verdict"] == "less" and r.get("reason"):
            progs_by_reason[r["reason"]] += 1
    tot = collections.Counter()
    print("%-16s %5s %5s %5s %5s %5s  %s" % ("family", "same", "more", "less",
                                             "n/c", "comp", "pass"))
    for fam in sorted(fams, key=lambda f: -sum(fams[f].values())):
        c = fams[fam]
        tot.update(c)
        comp = c["same"] + c["more"] + c["less"]
        print("%-16s %5d %5d %5d %5d %5d  %s" % (
            fam, c["same"], c["more"], c["less"], c["n/c"], comp,
            "%d/%d" % (c["same"] + c["more"], comp)))
    comp = tot["same"] + tot["more"] + tot["less"]
    print("%-16s %5d %5d %5d %5d %5d  %d/%d = %.1f%%" % (
        "total", tot["same"], tot["more"], tot["less"], tot["n/c"], comp,
        tot["same"] + tot["more"], comp,
        100.0 * (tot["same"] + tot["more"]) / comp if comp else 0))
    sig_only = [r for r in results if r["verdict"] == "less" and r.get("reasons")
                and all(k.startswith("--- ") for k in r["reasons"])]
    if comp:
        print("less only by a signal's siginfo (rtrace shows it with -v): %d;"
              " counting those as passes: %.1f%%" % (
                  len(sig_only), 100.0 * (tot["same"] + tot["more"] +
                                          len(sig_only)) / comp))
    print("\nnot comparable:")
    for k, v in nc.most_common(12):
        print("  %4d %s" % (v, k))
    print("\n'less' by call and place (programs):")
    for k, v in progs_by_reason.most_common(40):
        print("  %4d %s" % (v, k))


if __name__ == "__main__":
    main()
