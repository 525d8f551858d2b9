"""The user_events check's judgement (check.py judge --uevents): what the
guest's real kernel produced (files `u.*` of its report) against what the
same steps (uevents_run.sh) produced on the host under `rtrace
--user-events-emulate` (files in the host directory). See README.md, "The
user_events check"."""

import difflib
import os
import re

# The files uevents_run.sh writes that must be equal byte for byte.
SAME_FILES = ("probe.format", "multi.format", "probe.enable", "status.before", "status.after")

ADDRESS = re.compile(r"(?<=[& ])0x[0-9a-f]{8,}\b")
# A record of the trace file: TASK-PID [CPU] FLAGS TIMESTAMP: EVENT.
RECORD = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\] (\S+)\s+(\d+\.\d+): (.*)$")


def normalise_trace(text):
    """A trace's lines from the producer's marker on, its pids and
    addresses replaced (as tests/common's normalise does)."""
    lines = text.split("\n")
    pids = {}
    for line in lines:
        m = re.search(r"\(pid (\d+)", line)
        if m:
            pids.setdefault(m.group(1), f"PID{len(pids) + 1}")
    start = next((i for i, l in enumerate(lines) if '"BEGIN"' in l), None)
    if start is None:
        return None
    out = []
    for line in lines[start:]:
        line = ADDRESS.sub("ADDR", line)
        line = re.sub(r"(?<=pid )(\d+)", lambda m: pids.get(m.group(1), m.group(1)), line)
        out.append(line)
    while out and out[-1] == "":
        out.pop()
    return out


def normalise_ftrace(text):
    """The trace file's lines with pids, CPU numbers, time stamps, the
    need-resched flag and the CPU count left out; None when it has no
    `# tracer:` header."""
    lines = text.split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("# tracer: ")), None)
    if start is None:
        return None
    out = []
    for line in lines[start:]:
        if not line:
            continue
        if line.startswith("#"):
            out.append(re.sub(r"#P:\d+", "#P:N", line))
            continue
        m = RECORD.match(line)
        if not m:
            out.append(line)
            continue
        # The flags' second column is need-resched: whether a reschedule
        # happened to be pending when the record was made, a property of
        # the moment (as the CPU and the time are), not of the write.
        flags = m.group(4)
        flags = flags[:1] + "." + flags[2:] if len(flags) > 1 else flags
        out.append(f"{m.group(1).strip()}-PID [CPU] {flags} TIME: {m.group(6)}")
    return out


def unescape(text):
    """rtrace's output escapes bytes outside printable ASCII as octal
    (`\\357`): the text with those bytes back, read as UTF-8."""
    if text is None:
        return None
    raw = re.sub(rb"\\([0-7]{3})", lambda m: bytes([int(m.group(1), 8)]), text.encode("utf-8", "surrogateescape"))
    return raw.decode("utf-8", "replace")


def diff(a, b, what_a, what_b):
    return [
        "    " + l.rstrip("\n")
        for l in difflib.unified_diff(a, b, what_a, what_b, lineterm="", n=2)
    ]


def compare_traces(a, b, what_a, what_b):
    """The problems of two producer.trace texts that must be equal from
    the marker on (normalised); [] when they are."""
    if a is None or b is None:
        return [f"producer.trace missing: {what_a} {a is not None}, {what_b} {b is not None}"]
    al, bl = normalise_trace(a), normalise_trace(b)
    if al is None or bl is None:
        return ["no marker (\"BEGIN\") in a producer.trace"]
    if al != bl:
        return diff(al, bl, what_a, what_b)
    if len(al) < 40:
        return [f"only {len(al)} lines from the marker on"]
    return []


def judge(checks, hostdir):
    """Run the checks U1 to U5 on `checks` (a check.Checks with the
    guest's report) against the host's files in `hostdir`."""

    def guest(name):
        return checks.text(f"u.{name}")

    def host(name):
        try:
            with open(os.path.join(hostdir, name), "rb") as f:
                return f.read().decode("utf-8", "replace")
        except OSError:
            return None

    kernel = checks.results.get("u.kernel")
    # U1: the fixture's own expectations hold on the real kernel, and on
    # the emulation.
    p = []
    if kernel is None:
        p.append("no report from the user_events kernel: see target/e2e/uevents/console.log")
    for side, get in (("real kernel", guest), ("emulation", host)):
        for step, errf in (("enable", "enable.err"), ("producer", "producer.err"), ("enable2", "enable2.err")):
            rc = (get(f"{step}.rc") or "missing").strip()
            if rc != "0":
                err = (get(errf) or "").strip().replace("\n", " | ")
                p.append(f"{side}: uevents_{step} exited {rc}: {err}")
    rc = (host("emulate.rc") or "missing").strip()
    if rc != "0":
        p.append(f"rtrace --user-events-emulate exited {rc}: {(host('emulate.err') or '').strip()!r}")
    checks.check(f"U1 user_events: uevents_producer's expectations hold on the kernel {kernel} and on the emulation", p)

    # U2: rtrace's trace of the producer, the same line for line.
    p = compare_traces(guest("producer.trace"), host("producer.trace"), "real kernel", "emulation")
    checks.check("U2 user_events: the producer's trace on the real kernel equals its trace on the emulation", p)

    # U3: the tracefs files, byte for byte but the event's ID (a number
    # the kernel hands out among all its events; the emulation's start at
    # 1000).
    p = []
    for name in SAME_FILES:
        g, h = guest(name), host(name)
        if name.endswith(".format") and g is not None and h is not None:
            g, h = (re.sub(r"(?m)^ID: \d+$", "ID: N", x) for x in (g, h))
        if g is None or h is None:
            p.append(f"{name} missing: real kernel {g is not None}, emulation {h is not None}")
        elif g != h:
            p.append(f"{name} differs:")
            p.extend(diff(g.split("\n"), h.split("\n"), "real kernel", "emulation"))
    checks.check("U3 user_events: format, enable and user_events_status read the same on both", p)

    # U4: ftrace's records. The producer deletes its events before the
    # trace file is read, so the kernel prints each record as `Unknown
    # type ID` (print_trace_fmt finds no event): the emulated trace file
    # must say the same (IDs aside); rtrace's print at the end decodes
    # them, so there the event is named from the ID the `format` files
    # gave, and the context must be the kernel's.
    p = []
    ids = {}
    for name in ("probe", "multi"):
        m = re.search(r"(?m)^ID: (\d+)$", guest(f"{name}.format") or "")
        if m:
            ids[m.group(1)] = f"rtrace_{name}"
    g = guest("ftrace")
    gl = normalise_ftrace(g or "")
    if gl is None:
        p.append("the real kernel's trace file has no `# tracer:` header")
    else:
        records = [l for l in gl if not l.startswith("#")]
        if len(records) != 3:
            p.append(f"the real kernel recorded {len(records)} events, the producer writes 3")
        unknown = lambda lines: [re.sub(r"Unknown type \d+$", "Unknown type ID", l) for l in lines]
        hl = normalise_ftrace(host("ftrace") or "")
        if hl is None:
            p.append("the emulated trace file: no `# tracer:` header")
        elif unknown(hl) != unknown(gl):
            p.append("the emulated trace file differs from the real kernel's:")
            p.extend(diff(unknown(gl), unknown(hl), "real kernel", "emulation"))
        # The same records once the IDs are handed out again: decoded,
        # on both sides, with the kernel's rendering of every field.
        rl = normalise_ftrace(guest("ftrace.reused") or "")
        if rl is None:
            p.append("the real kernel's trace file after the re-registration: no `# tracer:` header")
        elif [l for l in rl if not l.startswith("#")] == [l for l in gl if not l.startswith("#")]:
            p.append("the re-registered events did not get their IDs back on the real kernel")
        for what, text in (
            ("the emulated trace file after the re-registration", host("ftrace.reused")),
            ("what --user-events-emulate printed at the end", unescape(host("emulate.trace"))),
        ):
            hl = normalise_ftrace(text or "")
            if rl is not None and hl != rl:
                p.append(f"{what} differs from the real kernel's trace file after the re-registration:")
                p.extend(diff(rl or [], hl or [], "real kernel", "emulation"))
        named = []
        for l in gl:
            m = re.match(r"^(.* TIME: )Unknown type (\d+)$", l)
            named.append(f"{m.group(1)}{ids.get(m.group(2), '?')}:" if m else l)
        el = normalise_ftrace(host("emulate.trace") or "")
        if el is None:
            p.append("what --user-events-emulate printed at the end: no `# tracer:` header")
        else:
            cut = [re.sub(r"^(.* TIME: [\w]+:).*$", r"\1", l) if not l.startswith("#") else l for l in el]
            if cut != named:
                p.append("what --user-events-emulate printed at the end (the events' names, "
                         "the kernel's from the IDs in `format`) differs from the real kernel's trace file:")
                p.extend(diff(named, cut, "real kernel", "emulation"))
    checks.check("U4 user_events: the kernel's ftrace records equal the emulation's", p)

    # U5: the second boot, the producer traced by the BPF engine on the
    # same kernel: its expectations hold, and its trace is ptrace's, line
    # for line (the user_events ioctls, the writes and their decoded
    # payloads, the enable words the kernel set).
    p = []
    if checks.results.get("ub.done") is None:
        p.append("the BPF boot did not run to the end: see target/e2e/uevents/console.log")
    for step, errf in (("enable", "enable.err"), ("producer", "producer.err")):
        rc = (checks.text(f"ub.{step}.rc") or "missing").strip()
        if rc != "0":
            err = (checks.text(f"ub.{errf}") or "").strip().replace("\n", " | ")
            p.append(f"under --bpf: uevents_{step} exited {rc}: {err}")
    p.extend(compare_traces(guest("producer.trace"), checks.text("ub.producer.trace"), "ptrace", "--bpf"))
    checks.check("U5 user_events: the producer under --bpf on the real kernel: its trace is ptrace's", p)
