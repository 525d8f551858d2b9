#!/usr/bin/env python3
"""Host side of the end-to-end suite (tests/e2e/run.sh calls it).

    check.py modules MODDIR NAME...   print the module files to insmod, in order
                                      (dependencies first; `?NAME`: if present)
    check.py disk FILE MIB            write the usb-storage stick's image
    check.py judge CONSOLE OUTDIR [--uevents UECONSOLE HOSTDIR]
                                      unpack the guest's report, run the checks,
                                      print `N passed, M failed`; exit 1 on failure
                                      (E2E_XFAIL="7a 8": checks expected to fail);
                                      CONSOLE `none`: no usbmon boot (E2E_ONLY);
                                      --uevents: also the user_events check's boot
                                      and the host's files (uevents_judge.py)

The guest (init.sh) only runs things and reports; every judgement is here.
"""

import base64
import difflib
import gzip
import os
import re
import struct
import sys

# --- modules ----------------------------------------------------------------


def modinfo(path):
    """The .modinfo strings of a module file (any compression run.sh handles)."""
    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith(".xz"):
        import lzma

        raw = lzma.decompress(raw)
    elif path.endswith(".gz"):
        raw = gzip.decompress(raw)
    elif path.endswith(".zst"):
        import subprocess

        raw = subprocess.run(["zstd", "-qdc", path], capture_output=True, check=True).stdout
    info = {}
    for part in raw.split(b"\0"):
        m = re.fullmatch(rb"(depends|softdep|name)=(.*)", part)
        if m:
            info.setdefault(m.group(1).decode(), m.group(2).decode(errors="replace"))
    return info


def norm(name):
    return name.replace("-", "_")


def cmd_modules(moddir, roots):
    files = {}
    for dirpath, _, names in os.walk(moddir):
        for n in names:
            m = re.fullmatch(r"(.+)\.ko(\.xz|\.gz|\.zst)?", n)
            if m:
                files.setdefault(norm(m.group(1)), os.path.join(dirpath, n))
    order, seen = [], set()

    def visit(name, chain):
        name = norm(name)
        if name in seen:
            return
        if name not in files:
            if chain:  # a soft dependency by alias (crct10dif): not a file
                return
            sys.exit(f"check.py: module {name} not found under {moddir}")
        seen.add(name)
        info = modinfo(files[name])
        deps = [d for d in info.get("depends", "").split(",") if d]
        soft = info.get("softdep", "")
        m = re.search(r"pre:\s*([^:]*?)(?:\s+post:|$)", soft)
        pre = m.group(1).split() if m else []
        for d in pre + deps:
            visit(d, chain + [name])
        order.append(files[name])

    for r in roots:
        # A root written `?name` is loaded only where the kernel has it.
        if r.startswith("?"):
            if norm(r[1:]) not in files:
                continue
            r = r[1:]
        visit(r, [])
    print("\n".join(order))


# --- disk -------------------------------------------------------------------


def cmd_disk(path, mib):
    """A stick whose every 512-byte sector differs, so that the data words
    of each bulk read differ."""
    with open(path, "wb") as f:
        for sector in range(int(mib) * 2048):
            head = b"rtrace e2e sector %08d " % sector
            body = bytes((sector * 7 + i) & 0xFF for i in range(512 - len(head)))
            f.write(head + body)


# --- judge: the guest's report ----------------------------------------------


def read_report(console, outdir):
    results, files, done = {}, {}, False
    devices = []
    cur, buf = None, []
    with open(console, "rb") as f:
        lines = f.read().decode("utf-8", "replace").replace("\r", "").split("\n")
    for line in lines:
        if cur is not None:
            if line == f"@@E2E end {cur}":
                try:
                    files[cur] = gzip.decompress(base64.b64decode("".join(buf)))
                except Exception as e:  # a cut or garbled report
                    files[cur] = None
                    print(f"e2e: cannot decode file {cur}: {e}")
                cur, buf = None, []
            else:
                buf.append(line.strip())
            continue
        m = re.match(r"@@E2E (\w+) ?(\S*) ?(.*)$", line)
        if not m:
            continue
        what, name, value = m.groups()
        if what == "result":
            if name == "device":
                devices.append(value)
            results[name] = value
        elif what == "file":
            cur, buf = name, []
        elif what == "missing":
            files[name] = None
        elif what == "done":
            done = True
    os.makedirs(outdir, exist_ok=True)
    for name, data in files.items():
        if data is not None:
            with open(os.path.join(outdir, name), "wb") as f:
                f.write(data)
    return results, files, devices, done


# --- judge: parsing ---------------------------------------------------------

# A trace line: optional `PID| ` or `PID' ` prefix, then `*` on a replayed
# call, then the text.
PREFIX = re.compile(r"^(?:(\d+)[|'] ?)?\*?")
# A continuation line: prefix, two spaces, `> `.
EVENT = re.compile(r"^(?:(\d+)[|'] )?  > (.*)$")
OPEN_USBMON = re.compile(r'^open(?:at)?\(.*"/dev/usbmon\d+", .*\) = (\d+)$')
# Calls after which rtrace prints the usbmon events they fetched. The
# request names are usbmon's alone, on whatever fd; read(2) counts on an fd
# the trace showed opened on /dev/usbmonN.
FETCH_IOCTL = re.compile(r"^ioctl\(\d+, MON_IOCX_(?:MFETCH|GETX?)(?:32)?, ")
READ = re.compile(r"^read\((\d+), ")


class Trace:
    """A trace file as calls and the usbmon events printed after them.
    Continuation lines of other calls (USBDEVFS_CONTROL's data, say) are
    not events."""

    def __init__(self, text):
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.calls = []  # (line index, pid, call text)
        self.events = []  # (pid, event text, index in self.calls of its call)
        usbmon_fds = {}  # pid -> fds opened on /dev/usbmonN
        fetching = False
        for i, line in enumerate(self.lines):
            m = EVENT.match(line)
            if m:
                if fetching:
                    self.events.append((m.group(1), m.group(2), len(self.calls) - 1))
                continue
            m = PREFIX.match(line)
            pid, text = m.group(1), line[m.end() :]
            self.calls.append((i, pid, text))
            o = OPEN_USBMON.match(text)
            if o:
                usbmon_fds.setdefault(pid, set()).add(o.group(1))
            r = READ.match(text)
            fetching = bool(FETCH_IOCTL.match(text)) or bool(
                r and r.group(1) in usbmon_fds.get(pid, ())
            )

    def call_before(self, index):
        """The text of the last call line before line `index` (diagnostic
        lines are not calls: `**` would lose a `*` to PREFIX)."""
        for i, _, text in reversed(self.calls):
            if i < index and not DIAG.match(self.lines[i]):
                return text
        return ""

    def find(self, pattern):
        """Call lines matching a regex (search)."""
        r = re.compile(pattern)
        return [(i, pid, text) for (i, pid, text) in self.calls if r.search(text)]

    def events_of(self, pid=None):
        return [e for (p, e, _) in self.events if pid is None or p == pid]


# What a decoded event looks like: tag, SECONDS.MICROSECONDS, type, address.
EVENT_SHAPE = re.compile(r"^[0-9a-f]+ \d+\.\d{6} [SCE] [CZIB][io]:\d+:\d{3}:\d+ ")


def is_filler(event):
    return event.startswith("@ ")


def words_but_time(line):
    w = line.split(" ")
    return " ".join(w[:1] + w[2:])


def key(line):
    w = line.split(" ")
    return (w[0], w[2] if len(w) > 2 else "")


def timestamps_agree(events, kernel_lines, what):
    """The words compared, the timestamps are checked apart: rtrace prints
    the binary header's CLOCK_REALTIME `SECONDS.MICROSECONDS`, the text API
    CLOCK_MONOTONIC microseconds modulo 4096 s. Their difference is the
    same for every event (both are read in the same usbmon callback), to
    within a little."""
    offsets = []
    for e, k in zip(events, kernel_lines):
        sec, usec = e.split(" ")[1].split(".")
        ours = int(sec) * 1_000_000 + int(usec)
        offsets.append((ours - int(k.split(" ")[1])) % 4_096_000_000)
    spread = max(offsets) - min(offsets)
    if spread > 100_000:
        i, j = offsets.index(min(offsets)), offsets.index(max(offsets))
        return [
            f"{what}: timestamps drift {spread} us against the kernel's, e.g.\n"
            f"      rtrace: {events[i]}\n      kernel: {kernel_lines[i]}\n"
            f"      rtrace: {events[j]}\n      kernel: {kernel_lines[j]}"
        ]
    return []


def compare_with_kernel(events, text_lines, what):
    """Every decoded event equals the kernel's text line for it, all words
    but the timestamp. Both readers see every event of the bus after they
    opened it, so rtrace's events must be one contiguous run of the kernel's
    lines; events are matched by URB tag + type + order. Returns a list of
    problems (empty when all match)."""
    ours = [words_but_time(e) for e in events]
    kern = [words_but_time(k) for k in text_lines if k.strip()]
    if not ours:
        return [f"{what}: rtrace decoded no events"]
    n = len(ours)
    for s in range(0, len(kern) - n + 1):
        if kern[s : s + n] == ours:
            return timestamps_agree(events, [k for k in text_lines if k.strip()][s : s + n], what)
    kfull = [k for k in text_lines if k.strip()]
    # No exact run. Every event equal to a kernel line, in order, with
    # kernel lines between that rtrace did not print? Then say just that
    # (aligning by tag + type would pair a reused URB's other events).
    for s in range(len(kern)):
        if kern[s] != ours[0]:
            continue
        j, k, picked = 0, s, []
        while j < n and k < len(kern):
            if kern[k] == ours[j]:
                picked.append(k)
                j += 1
            k += 1
        if j == n:
            missing = [kfull[k] for k in range(picked[0], picked[-1] + 1) if k not in set(picked)]
            problems = [
                f"{what}: each of rtrace's {n} events equals a kernel text line, in order, but "
                f"{len(missing)} kernel events between them are not printed, e.g.: {missing[0]}"
            ]
            return problems + timestamps_agree(events, [kfull[k] for k in picked], what)
    # Align by tag + type + order and show the differences.
    problems = []
    kkeys = [key(k) for k in text_lines if k.strip()]
    okeys = [key(e) for e in events]
    best = None
    for s in range(len(kkeys)):
        if kkeys[s] != okeys[0]:
            continue
        j, k, score = 0, s, 0
        pairs = []
        while j < n and k < len(kkeys):
            if kkeys[k] == okeys[j]:
                pairs.append((j, k))
                score += ours[j] == kern[k]
                j += 1
            k += 1
        cand = (len(pairs), score, s, pairs)
        if best is None or cand[:2] > best[:2]:
            best = cand
    if best is None:
        problems.append(
            f"{what}: no kernel text line has the tag and type of rtrace's first event: {events[0]}"
        )
        return problems
    _, _, start, pairs = best
    matched = {j for j, _ in pairs}
    for j, k in pairs:
        if ours[j] != kern[k]:
            problems.append(
                f"{what}: event {j + 1} differs from the kernel's text:\n"
                f"      rtrace: {events[j]}\n"
                f"      kernel: {kfull[k]}"
            )
    for j in range(n):
        if j not in matched:
            problems.append(f"{what}: event {j + 1} has no kernel text line: {events[j]}")
    # Kernel lines inside the matched run that rtrace did not print.
    if pairs:
        used = {k for _, k in pairs}
        for k in range(pairs[0][1], pairs[-1][1] + 1):
            if k not in used:
                problems.append(f"{what}: kernel event not printed by rtrace: {kfull[k]}")
    if not problems:
        problems.append(f"{what}: events match one by one but are not one contiguous run")
    return problems


def pcap_records(data):
    """(id, type) of each record of a classic pcap file with link type 220
    (LINKTYPE_USB_LINUX_MMAPPED) or 189."""
    if data is None or len(data) < 24:
        return None
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        return None
    off, out = 24, []
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        rec = data[off + 16 : off + 16 + incl]
        if len(rec) >= 9:
            out.append(("%x" % struct.unpack_from("<Q", rec, 0)[0], chr(rec[8])))
        off += 16 + incl
    return out


# --- judge: the checks ------------------------------------------------------


DIAG = re.compile(r"^(?:\d+[|'] )?\*\* (?:usbmon|user_events): ")


def diagnostics(trace_text):
    """rtrace's ABI diagnostic lines (`** usbmon: fd 3: ... **`), without
    any pid prefix."""
    return [re.sub(r"^\d+[|'] ", "", l) for l in trace_text.split("\n") if DIAG.match(l)]


class Checks:
    def no_diagnostics(self, name, problems, who):
        """A correct client: rtrace has nothing to say about its use of the ABI."""
        for line in diagnostics(self.text(name) or ""):
            problems.append(f"{who} is a correct client, but rtrace said: {line}")

    def __init__(self, results, files):
        self.results, self.files = results, files
        self.passed = self.failed = self.xfailed = 0

    def text(self, name):
        data = self.files.get(name)
        return None if data is None else data.decode("utf-8", "replace")

    def check(self, name, problems):
        """Count and print a check's verdict. A check whose number (the
        title's first word) E2E_XFAIL lists is expected to fail: its
        failure prints XFAIL, with every problem, and does not fail the
        suite; its pass prints XPASS and does (the list is kept true)."""
        expected = name.split(" ")[0] in os.environ.get("E2E_XFAIL", "").split()
        if problems and expected:
            self.xfailed += 1
            print(f"XFAIL {name}")
        elif problems:
            self.failed += 1
            print(f"FAIL {name}")
        elif expected:
            self.failed += 1
            print(f"XPASS {name} (E2E_XFAIL expected it to fail)")
        else:
            self.passed += 1
            print(f"ok   {name}")
        for p in problems:
            print(f"    {p}")

    def trace(self, name, problems):
        t = self.text(name)
        if t is None:
            problems.append(f"{name} missing from the report")
            return None
        return Trace(t)

    # Shared by the tcpdump checks.
    def ring_calls(self, t, bus, problems, who, compat=""):
        """The libpcap-style calls on /dev/usbmonBUS; `compat` is "32" for a
        32-bit caller (MFETCH32 and its fields, mmap2)."""
        c = compat
        opens = t.find(r'^open(at)?\(.*"/dev/usbmon%d", O_RDONLY.*\) = (\d+)$' % bus)
        if not opens:
            problems.append(f"{who}: no successful open of /dev/usbmon{bus}")
            return
        fd = re.search(r"= (\d+)$", opens[0][2]).group(1)
        fdre = re.escape(fd)
        ring = t.find(r"^ioctl\(%s, MON_IOCT_RING_SIZE, (\d+)\) = 0$" % fdre)
        if not ring:
            problems.append(f"{who}: no `ioctl({fd}, MON_IOCT_RING_SIZE, N) = 0`")
        else:
            size = re.search(r"RING_SIZE, (\d+)\)", ring[0][2]).group(1)
            maps = t.find(
                r"^mmap%s\(NULL, %s, PROT_READ, MAP_SHARED, %s, 0x0\) = 0x[0-9a-f]+$"
                % ("2" if c else "", size, fdre)
            )
            if not maps:
                problems.append(
                    f"{who}: no `mmap(NULL, {size}, PROT_READ, MAP_SHARED, {fd}, 0x0) = 0x...`"
                )
        mf = t.find(
            r"^ioctl\(%s, MON_IOCX_MFETCH%s, \{offvec%s=&0x[0-9a-f]+, nfetch%s=\d+, nflush%s=\d+\}\) = 0 "
            r"\{nfetch%s=\d+, nflush%s=\d+, offvec%s=\[[0-9, ]*\]\}$" % ((fdre,) + (c,) * 7)
        )
        if not mf:
            problems.append(f"{who}: no MON_IOCX_MFETCH line with decoded in and out structs")
        if not t.find(r"^ioctl\(%s, MON_IOCH_MFLUSH, \d+\) = \d+$" % fdre):
            problems.append(f"{who}: no `ioctl({fd}, MON_IOCH_MFLUSH, N) = N`")
        if not t.find(r"^ioctl\(%s, MON_IOCG_STATS, \{queued=\d+, dropped=\d+\}\) = 0$" % fdre):
            problems.append(f"{who}: no `ioctl({fd}, MON_IOCG_STATS, {{queued=N, dropped=N}}) = 0`")
        # Each MFETCH is followed by exactly as many events as it returned,
        # and its offvec lists as many offsets.
        call_index = {i: n for n, (i, _, _) in enumerate(t.calls)}
        for i, pid, text in t.find(r"MON_IOCX_MFETCH%s, .* = 0 \{nfetch%s=(\d+)" % (c, c)):
            got = int(re.search(r"= 0 \{nfetch%s=(\d+)" % c, text).group(1))
            offs = re.search(r"offvec%s=\[([0-9, ]*)\]\}$" % c, text)
            n_off = len([o for o in offs.group(1).split(", ") if o]) if offs else -1
            if n_off != got:
                problems.append(f"{who}: MFETCH returned nfetch={got} but offvec lists {n_off}: {text}")
            n = call_index[i]
            printed = sum(1 for (_, _, c) in t.events if c == n)
            if printed != got:
                problems.append(
                    f"{who}: MFETCH returned {got} events but {printed} event lines follow it: {text}"
                )
        # MFLUSH flushes what the MFETCH before it returned.
        last = None
        for _, _, text in t.calls:
            m = re.search(r"MON_IOCX_MFETCH%s, .* = 0 \{nfetch%s=(\d+)" % (c, c), text)
            if m:
                last = int(m.group(1))
            m = re.search(r"MON_IOCH_MFLUSH, (\d+)\) = (\d+)$", text)
            if m and last is not None and int(m.group(1)) != last:
                problems.append(f"{who}: MFLUSH of {m.group(1)} after an MFETCH that returned {last}")

    def capture_events(self, prefix, trace, problems, who, pid=None):
        lines = [e for e in trace.events_of(pid) if not is_filler(e)]
        evs = [e for e in lines if EVENT_SHAPE.match(e)]
        others = [e for e in lines if not EVENT_SHAPE.match(e)]
        if others:
            problems.append(
                f"{who}: {len(others)} of rtrace's {len(lines)} event lines are not events, "
                f"the first: `  > {others[0]}`"
            )
        text = self.text(f"{prefix}.text")
        if text is None:
            problems.append(f"{prefix}.text missing from the report")
        else:
            problems += compare_with_kernel(evs, text.split("\n"), who)
        return evs

    def pcap_vs_trace(self, prefix, evs, problems, who, exact=True):
        recs = pcap_records(self.files.get(f"{prefix}.pcap"))
        if recs is None:
            problems.append(f"{prefix}.pcap missing or not a pcap file")
            return None
        ours = [key(e) for e in evs]
        if exact and len(recs) != len(evs):
            problems.append(f"{who}: rtrace decoded {len(evs)} events, the pcap has {len(recs)}")
        if recs[: len(ours)] != ours[: len(recs)]:
            for j, (a, b) in enumerate(zip(ours, recs)):
                if a != b:
                    problems.append(
                        f"{who}: event {j + 1} is {a[0]} {a[1]} in the trace, {b[0]} {b[1]} in the pcap"
                    )
                    break
        return recs

    def t1(self):
        self.tcpdump("t1", "1 tcpdump: usbmon calls and ring events equal the kernel text, no diagnostic")

    def tcpdump(self, prefix, title):
        """Check 1 (and 7a, its --bpf run): tcpdump -c N on the ring."""
        p = []
        n = int(self.results.get(f"{prefix}.n", "0"))
        rc = self.results.get(f"{prefix}.rc")
        if rc != "0":
            p.append(f"rtrace tcpdump exited {rc}; tcpdump said: {self.text(prefix + '.err')!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t:
            self.ring_calls(t, 2, p, "tcpdump")
            evs = self.capture_events(prefix, t, p, "tcpdump")
            self.pcap_vs_trace(prefix, evs, p, "tcpdump")
            if len(evs) != n:
                p.append(f"tcpdump -c {n}: rtrace decoded {len(evs)} events")
            err = self.text(f"{prefix}.err") or ""
            m = re.search(r"(\d+) packets? captured", err)
            if not m or int(m.group(1)) != len(evs):
                p.append(f"tcpdump reported {m.group(0) if m else 'no count'}, rtrace decoded {len(evs)}")
            self.no_diagnostics(f"{prefix}.trace", p, "tcpdump")
        self.check(title, p)

    def t2(self):
        self.tshark("t2", "2 tshark -> dumpcap: followed, one event per MFETCH, events equal the kernel text, no diagnostic")

    def tshark(self, prefix, title):
        """Check 2 (and 7f, its --bpf run): tshark's dumpcap, followed."""
        p = []
        n = int(self.results.get(f"{prefix}.n", "0"))
        rc = self.results.get(f"{prefix}.rc")
        if rc != "0":
            p.append(f"rtrace tshark exited {rc}; tshark said: {self.text(prefix + '.err')!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t:
            # tshark runs dumpcap -D first (twice), then the capture.
            execs = t.find(r'^execve\("[^"]*dumpcap", \[.*"-i", "usbmon1"')
            if not execs:
                p.append("no execve of the capturing dumpcap in the trace (not followed?)")
            pids = {pid for (_, pid, _) in t.find(r"MON_IOCX_MFETCH")}
            if len(pids) != 1 or None in pids:
                p.append(f"MFETCH calls from pids {sorted(map(str, pids))}: expected dumpcap's alone, with a PID prefix")
            dumpcap = next(iter(pids)) if pids else None
            if execs and dumpcap and execs[0][1] != dumpcap:
                p.append(f"the capturing dumpcap is pid {execs[0][1]} but MFETCH came from {dumpcap}")
            # The banner names the program and its arguments.
            if dumpcap and not t.find(r"^Tracing dumpcap( .*)? \(pid %s\)$" % dumpcap):
                p.append(f"no `Tracing dumpcap (pid {dumpcap})` banner")
            self.ring_calls(t, 1, p, "dumpcap")
            if not t.find(r"MON_IOCX_MFETCH, \{offvec=&0x[0-9a-f]+, nfetch=1, nflush=\d+\}\) = 0 \{nfetch=1,"):
                p.append("dumpcap: no MFETCH of one event (nfetch=1)")
            evs = self.capture_events(prefix, t, p, "dumpcap", pid=dumpcap)
            out = [l.split() for l in (self.text(f"{prefix}.out") or "").split("\n") if l.strip()]
            shark = []
            for f in out:
                if len(f) >= 2:
                    typ = f[1]
                    if typ.isdigit():
                        typ = chr(int(typ))
                    typ = typ.strip("'")
                    shark.append(("%x" % int(f[0], 16), typ))
            if len(shark) != n:
                p.append(f"tshark -c {n} printed {len(shark)} packets")
            if len(evs) != n:
                p.append(f"rtrace decoded {len(evs)} events of dumpcap -c {n}")
            ours = [key(e) for e in evs][: len(shark)]
            if ours != shark[: len(ours)]:
                for j, (a, b) in enumerate(zip(ours, shark)):
                    if a != b:
                        p.append(f"event {j + 1} is {a} in the trace, {b} in tshark's output")
                        break
        self.no_diagnostics(f"{prefix}.trace", p, "tshark/dumpcap")
        self.check(title, p)

    def t3(self):
        self.client("t3", "", "3 usbmon_client: GETX, GET, read(2), URB_LEN, RING_SIZE events equal the kernel text")

    def t3b(self):
        self.client(
            "t3b",
            "32",
            "3b usbmon_client built 32-bit: the compat GETX32, GET32, and read(2) events equal the kernel text",
        )

    def t3c(self):
        self.mapped_client(
            "t3c",
            "3c usbmon_client built 32-bit, libpcap's way: MFETCH32 on the mapped ring, events equal the kernel text, no diagnostic",
        )

    def mapped_client(self, prefix, title):
        """Check 3c (and 7d, its --bpf run): the 32-bit client on the ring."""
        p = []
        n = int(self.results.get(f"{prefix}.n", "0"))
        rc = self.results.get(f"{prefix}.rc")
        out = self.text(f"{prefix}.out") or ""
        if rc != "0":
            p.append(f"rtrace usbmon_client32 mmap exited {rc}: {out!r}")
        m = re.search(r"fetched (\d+) events \(mfetch=(\d+)\)", out)
        if not m:
            p.append(f"usbmon_client32 mmap printed no summary: {out!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t and m:
            self.ring_calls(t, 2, p, "usbmon_client32", compat="32")
            evs = self.capture_events(prefix, t, p, "usbmon_client32")
            if len(evs) != int(m.group(1)) or len(evs) != n:
                p.append(f"rtrace decoded {len(evs)} events, the client fetched {m.group(1)} of {n}")
            self.no_diagnostics(f"{prefix}.trace", p, "usbmon_client32 mmap")
        self.check(title, p)

    def client(self, prefix, compat, title):
        """Our client's check; `compat` is "32" for its 32-bit build, whose
        GET and GETX are the compat requests with 32-bit fields."""
        p = []
        n = int(self.results.get(f"{prefix}.n", "0"))
        rc = self.results.get(f"{prefix}.rc")
        out = self.text(f"{prefix}.out") or ""
        if rc != "0":
            p.append(f"rtrace usbmon_client exited {rc}: {out!r}")
        m = re.search(r"fetched (\d+) events \(getx=(\d+) get=(\d+) read=(\d+)\) ring=(\d+)", out)
        if not m:
            p.append(f"usbmon_client printed no summary: {out!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t and m:
            total, getx, get, rd, ring = map(int, m.groups())
            if total != n:
                p.append(f"usbmon_client fetched {total} of {n} events")
            if not t.find(r"^ioctl\(3, MON_IOCQ_RING_SIZE\) = %d$" % ring):
                p.append(f"no `ioctl(3, MON_IOCQ_RING_SIZE) = {ring}`")
            if not t.find(r"^ioctl\(3, MON_IOCQ_URB_LEN\) = \d+$"):
                p.append("no `ioctl(3, MON_IOCQ_URB_LEN) = N`")
            if not t.find(r"^ioctl\(3, MON_IOCG_STATS, \{queued=\d+, dropped=\d+\}\) = 0$"):
                p.append("no `ioctl(3, MON_IOCG_STATS, {queued=N, dropped=N}) = 0`")
            per = {"GETX": 0, "GET": 0, "read": 0}
            for _, _, ci in t.events:
                line = t.calls[ci][2] if ci >= 0 else ""
                fetch_re = r"ioctl\(3, MON_IOCX_%s%s, \{hdr%s=&0x[0-9a-f]+, data%s=&0x[0-9a-f]+, alloc%s=%d\}\) = 0$"
                if re.match(fetch_re % ("GETX", compat, compat, compat, compat, 4096), line):
                    per["GETX"] += 1
                elif re.match(fetch_re % ("GET", compat, compat, compat, compat, 64), line):
                    per["GET"] += 1
                elif re.match(r"read\(3, .*, 8192\) = \d+$", line):
                    per["read"] += 1
                else:
                    p.append(f"an event follows an unexpected line: {line}")
            want = {"GETX": getx, "GET": get, "read": rd}
            if per != want:
                p.append(f"events printed after each kind of call {per}, the client fetched {want}")
            evs = self.capture_events(prefix, t, p, f"usbmon_client{compat}")
            if len(evs) != total:
                p.append(f"rtrace printed {len(evs)} events, the client fetched {total}")
            # Its one misuse: GET's 64-byte data buffer cuts longer events.
            # Each cut is said right after that GET's event, with the
            # kernel's len_cap (the header the client got), nothing else.
            trunc = re.compile(
                r"^\*\* usbmon: fd 3: MON_IOCX_GET%s copied 64 of the event's (\d+) data bytes "
                r"\(alloc=64\): (\d+) bytes lost with the event; MON_IOCQ_URB_LEN tells the size first \*\*$" % compat
            )
            for i, line in enumerate(t.lines):
                if not DIAG.match(line):
                    continue
                text = re.sub(r"^\d+[|'] ", "", line)
                d = trunc.match(text)
                before = t.call_before(i)
                if not d or int(d.group(1)) - 64 != int(d.group(2)) or not before.startswith(f"ioctl(3, MON_IOCX_GET{compat}, "):
                    p.append(f"unexpected diagnostic after `{before}`: {text}")
        self.check(title, p)

    def t5(self):
        self.refetch("t5", "5 a wrong client on the real kernel: refetch and overflush diagnostics")

    def refetch(self, prefix, title):
        """Check 5 (and 7e, its --bpf run). A wrong client on the real kernel: MFETCH twice with no flush
        between hands out the same events again, and rtrace says so; a
        flush of more than was fetched discards events unseen."""
        p = []
        rc = self.results.get(f"{prefix}.rc")
        out = self.text(f"{prefix}.out") or ""
        if rc != "0":
            p.append(f"rtrace usbmon_client refetch exited {rc}: {out!r}")
        m = re.search(r"refetch first=(\d+) second=(\d+) same=(\d) flushed=(\d+)", out)
        if not m:
            p.append(f"usbmon_client refetch printed no summary: {out!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t and m:
            k1, k2, same, flushed = map(int, m.groups())
            if same != 1:
                p.append("the kernel's second MFETCH did not begin with the first's offsets")
            fetches = t.find(r"^ioctl\(3, MON_IOCX_MFETCH, ")
            flushes = t.find(r"^ioctl\(3, MON_IOCH_MFLUSH, %d\) = %d$" % (k2 + 100, flushed))
            if len(fetches) != 2 or len(flushes) != 1:
                p.append(f"want 2 MFETCH and the MFLUSH of {k2 + 100}: {fetches} {flushes}")
            else:
                def after(index):
                    """The line after call line `index` and its events."""
                    j = index + 1
                    while j < len(t.lines) and EVENT.match(t.lines[j]):
                        j += 1
                    return re.sub(r"^\d+[|'] ", "", t.lines[j]) if j < len(t.lines) else ""

                plural = "" if k1 == 1 else "s"
                want = (
                    f"** usbmon: fd 3: MON_IOCX_MFETCH returned {k1} event{plural} it had returned before "
                    "and no flush removed: MON_IOCH_MFLUSH (or the next fetch's nflush) is missing **"
                )
                if after(fetches[1][0]) != want:
                    p.append(f"after the second MFETCH: {after(fetches[1][0])!r}, want {want!r}")
                if diagnostics(self.text(f"{prefix}.trace"))[:1] != [want]:
                    p.append(f"the first diagnostic is not the refetch one: {diagnostics(self.text(prefix + '.trace'))}")
                were = "1 was" if k2 == 1 else f"{k2} were"
                unseen = flushed - k2
                tail = (
                    f"the kernel discarded {unseen} event{'' if unseen == 1 else 's'} never fetched"
                    if unseen > 0
                    else "no more were queued, so none was lost this time"
                )
                want = (
                    f"** usbmon: fd 3: MON_IOCH_MFLUSH of {k2 + 100} events but {were} fetched "
                    f"and not flushed: {tail} **"
                )
                if after(flushes[0][0]) != want:
                    p.append(f"after the MFLUSH: {after(flushes[0][0])!r}, want {want!r}")
            if len(diagnostics(self.text(f"{prefix}.trace"))) != 2:
                p.append(f"want 2 diagnostics: {diagnostics(self.text(prefix + '.trace'))}")
        self.check(title, p)

    def t4a(self):
        p = []
        n = int(self.results.get("t4a.n", "0"))
        rc = self.results.get("t4a.rc")
        if rc != "0":
            p.append(f"rtrace tcpdump -Z exited {rc}; tcpdump said: {self.text('t4a.err')!r}")
        if self.results.get("t4a.pcap_owner") != "nobody":
            p.append(f"the capture file is owned by {self.results.get('t4a.pcap_owner')!r}, not nobody")
        t = self.trace("t4a.trace", p)
        if t:
            drops = t.find(r"^set(res|re)?uid\((65534|.*65534.*)\) = 0$")
            if not drops:
                p.append("no successful setuid/setresuid to 65534 in the trace")
            else:
                at = drops[0][0]
                after = [i for (i, _, _) in t.find(r"MON_IOCX_MFETCH, .* = 0 \{nfetch=[1-9]")]
                if not any(i > at for i in after):
                    p.append("no MFETCH with events decoded after the privilege drop")
            evs = self.capture_events("t4a", t, p, "tcpdump -Z")
            self.pcap_vs_trace("t4a", evs, p, "tcpdump -Z")
            if len(evs) != n:
                p.append(f"tcpdump -c {n}: rtrace decoded {len(evs)} events")
        self.no_diagnostics("t4a.trace", p, "tcpdump -Z")
        self.check("4a -f across tcpdump's privilege drop (-Z nobody)", p)

    def t4b(self):
        p = []
        r = self.results
        if r.get("t4b.tracer_pid_attached") in (None, "", "0"):
            p.append(f"rtrace -p did not attach (TracerPid {r.get('t4b.tracer_pid_attached')!r})")
        if r.get("t4b.rc") != "0":
            p.append(f"rtrace -p exited {r.get('t4b.rc')} after SIGINT: {self.text('t4b.rtrace_err')!r}")
        if r.get("t4b.alive_after_detach") != "yes" or r.get("t4b.alive_after_traffic") != "yes":
            p.append(
                f"tcpdump did not keep running after the detach "
                f"(alive after detach: {r.get('t4b.alive_after_detach')}, after more traffic: "
                f"{r.get('t4b.alive_after_traffic')}); it said: {self.text('t4b.err')!r}"
            )
        if r.get("t4b.state_after_detach") not in ("S", "R"):
            p.append(f"tcpdump's state after the detach is {r.get('t4b.state_after_detach')!r}")
        if r.get("t4b.tracer_pid_after_detach") != "0":
            p.append(f"TracerPid after the detach is {r.get('t4b.tracer_pid_after_detach')!r}")
        if r.get("t4b.tcpdump_rc") != "0":
            p.append(f"tcpdump exited {r.get('t4b.tcpdump_rc')} at its own SIGINT")
        t = self.trace("t4b.trace", p)
        if t:
            if not any(text.endswith("Process detached") for (_, _, text) in t.calls):
                p.append("no `Process detached` line in the trace")
            evs = self.capture_events("t4b", t, p, "attached tcpdump")
            recs = pcap_records(self.files.get("t4b.pcap"))
            if recs is None:
                p.append("t4b.pcap missing or not a pcap file")
            else:
                got = [key(e) for e in evs]
                if not any(recs[s : s + len(got)] == got for s in range(len(recs) - len(got) + 1)):
                    p.append("the events rtrace decoded are not a run of the capture file's records")
                # Traffic after the detach was captured too.
                if len(recs) <= len(evs):
                    p.append(f"the capture has {len(recs)} records, no more than the {len(evs)} decoded while attached")
        # Attached mid-capture: what was fetched before is not known, and
        # nothing is said that would need it.
        self.no_diagnostics("t4b.trace", p, "the attached tcpdump")
        self.check("4b -p attach to a running capture, SIGINT detach, capture goes on", p)

    def t4c(self):
        p = []
        r = self.results
        pairs = [
            ("tcpdump -i nosuchdevice", r.get("t4c.plain_tcpdump_rc"), r.get("t4c.traced_tcpdump_rc")),
            ("sh -c 'exit 7'", "7", r.get("t4c.sh_exit7_rc")),
            ("sh -c 'kill -TERM $$'", r.get("t4c.plain_sigterm_rc"), r.get("t4c.traced_sigterm_rc")),
            ("tcpdump -c (check 1)", "0", r.get("t1.rc")),
        ]
        for what, plain, traced in pairs:
            if plain is None or traced is None or plain != traced:
                p.append(f"{what}: exit status {plain} untraced, {traced} under rtrace")
        if r.get("t4c.plain_tcpdump_rc") in (None, "0"):
            p.append("tcpdump -i nosuchdevice did not fail: the check proves nothing")
        self.check("4c rtrace's exit status equals the traced command's", p)

    def t6(self):
        # Every struct the usbmon table lays out, as --explain-ioctl shows
        # it, must be followed by the kernel's BTF agreeing, from the
        # usbmon module's own BTF (split against vmlinux).
        p = []
        btf = self.text("t6.btf")
        text = self.text("t6.explain")
        if btf is None or text is None:
            p.append("t6.btf or t5.explain missing from the report")
        elif "usbmon" not in btf.split():
            p.append(f"the guest kernel has no /sys/kernel/btf/usbmon (it has: {btf.split()[:5]}...)")
        else:
            structs = 0
            lines = text.splitlines()
            for i, line in enumerate(lines):
                m = re.match(r"  (?:layout from rtrace's \w+ decoder: )?struct (\w+) \((\d+) bytes\)$", line)
                if not m:
                    continue
                structs += 1
                j = i + 1
                while j < len(lines) and lines[j].startswith("    @"):
                    j += 1
                verdict = lines[j] if j < len(lines) and lines[j].startswith("  the kernel's BTF") else None
                want = "  the kernel's BTF agrees (/sys/kernel/btf/usbmon)"
                if verdict != want:
                    p.append(f"struct {m.group(1)}: {verdict or 'no BTF verdict'}")
            if structs < 5:
                p.append(f"only {structs} usbmon struct layouts explained")
        self.check("6 the usbmon table's struct layouts agree with the kernel's BTF", p)


    # --- 7, 8: the BPF engine ------------------------------------------------

    def b0(self):
        """The BPF program loads and attaches on the guest's kernel."""
        p = []
        rc = self.results.get("b0.rc")
        if rc != "0":
            p.append(f"rtrace --bpf true exited {rc}: {(self.text('b0.err') or '').strip()!r}")
            log = self.text("b0.bpftool")
            if log is not None and self.results.get("b0.bpftool_rc") != "0":
                p.append("bpftool prog loadall said (tail; all in b0.bpftool):")
                p += ["  " + l for l in log.strip().split("\n")[-30:]]
        t = self.text("b0.trace")
        if rc == "0" and (t is None or not re.search(r"^Process exited normally with code 0$", t, re.M)):
            p.append(f"rtrace --bpf true: no `Process exited normally with code 0` in {t!r}")
        self.check("7.0 --bpf: the BPF program loads and attaches on this kernel", p)

    def b1(self):
        self.tcpdump("b1", "7a --bpf -f tcpdump: usbmon calls and ring events equal the kernel text, no diagnostic")

    def b2(self):
        self.tshark("b2", "7f --bpf -f tshark -> dumpcap: followed, one event per MFETCH, events equal the kernel text, no diagnostic")

    def b3(self):
        self.client("b3", "", "7b --bpf usbmon_client: GETX, GET, read(2) events equal the kernel text")

    def b3b(self):
        self.client("b3b", "32", "7c --bpf usbmon_client built 32-bit: GETX32, GET32, read(2) events equal the kernel text")

    def b3c(self):
        self.mapped_client("b3c", "7d --bpf usbmon_client32 mmap: MFETCH32 on the mapped ring, events equal the kernel text, no diagnostic")

    def b5(self):
        self.refetch("b5", "7e --bpf a wrong client: refetch and overflush diagnostics")

    def b7(self):
        """Calls a seccomp filter refuses (SECCOMP_RET_ERRNO), which fire no
        sys_enter: under --bpf the same lines as under ptrace, their paths
        shown, not their addresses."""
        p = []
        for name in ("b7", "b7p"):
            if self.results.get(f"{name}.rc") != "0":
                p.append(f"{name}: rtrace exited {self.results.get(name + '.rc')}: "
                         f"{(self.text(name + '.err') or '').strip()!r}")
        def calls(name):
            t = self.text(name + ".trace") or ""
            return [l for l in t.split("\n") if l.startswith(("chdir(", "mkdir("))]
        bpf, ptrace = calls("b7"), calls("b7p")
        want = 'chdir("/nonexistent/refused") = -1 [EPERM]'
        if want not in ptrace:
            p.append(f"ptrace's trace lacks {want!r}: {ptrace!r}")
        if bpf != ptrace:
            p.append(f"--bpf shows {bpf!r} where ptrace shows {ptrace!r}")
        self.check("7g --bpf: calls a seccomp filter refuses show what the program passed, as under ptrace", p)

    def b8(self):
        self.all_check("b8", False, "8 --bpf -a -e trace=ioctl: names a tcpdump it was not told about, its events equal the kernel text")

    def b8f(self):
        self.all_check(
            "b8f",
            True,
            "8b --bpf -a -e trace=ioctl --filter 'fd.path ~ \"/dev/usbmon*\"': the same, and nothing but usbmon ioctls",
        )

    def all_check(self, prefix, filtered, title):
        """rtrace --bpf -a -e trace=ioctl [--filter 'fd.path ~ "/dev/usbmon*"']
        while a tcpdump it was not told about captures: the trace names it
        (`Tracing tcpdump (pid N)`, N its real pid, before its first line),
        shows its ring ioctls and each MFETCH's events, which equal the
        kernel's text and the pcap; the probes (our client asking
        /dev/usbmon0 its ring size) are named too; no other process makes a
        usbmon request. With the filter, every call shown is a usbmon ioctl."""
        p = []
        r = self.results
        n = int(r.get(f"{prefix}.n", "0"))
        cap = r.get(f"{prefix}.capture_pid", "")
        probes = set(r.get(f"{prefix}.probes", "").split())
        if r.get(f"{prefix}.rc") != "0":
            p.append(
                f"rtrace --bpf -a exited {r.get(prefix + '.rc')!r} after SIGINT: "
                f"{(self.text(prefix + '.rtrace_err') or '').strip()!r}"
            )
        if r.get(f"{prefix}.tcpdump_rc") != "0":
            p.append(f"the untraced tcpdump exited {r.get(prefix + '.tcpdump_rc')}: {self.text(prefix + '.err')!r}")
        if not cap.isdigit():
            p.append(f"no capture pid reported: {cap!r}")
        t = self.trace(f"{prefix}.trace", p)
        if t and cap.isdigit():
            banners = {}
            for i, _, text in t.calls:
                m = re.match(r"^Tracing (.*) \(pid (\d+)\)$", text)
                if m:
                    # The program's name, without the arguments after it.
                    banners.setdefault(m.group(2), []).append((i, m.group(1).split(" ")[0]))
            first = {}
            for i, pid, _ in t.calls:
                first.setdefault(pid, i)
            ioctls = [(i, pid, text) for (i, pid, text) in t.calls if text.startswith("ioctl(")]
            mine = [(i, text) for (i, pid, text) in ioctls if pid == cap]
            # Named: the banner with its real pid, before its first ioctl.
            named = [i for (i, name) in banners.get(cap, []) if name == "tcpdump"]
            if not named:
                p.append(f"no `Tracing tcpdump (pid {cap})` banner; its banners: {banners.get(cap)}")
            elif mine and named[0] > mine[0][0]:
                p.append(f"the `Tracing tcpdump (pid {cap})` banner comes after its first ioctl")
            # Its ring calls, each MFETCH with as many events as it returned.
            for what, pattern in (
                ("MON_IOCT_RING_SIZE", r"^ioctl\(\d+, MON_IOCT_RING_SIZE, \d+\) = 0$"),
                (
                    "MON_IOCX_MFETCH with decoded in and out structs",
                    r"^ioctl\(\d+, MON_IOCX_MFETCH, \{offvec=&0x[0-9a-f]+, nfetch=\d+, nflush=\d+\}\) = 0 "
                    r"\{nfetch=\d+, nflush=\d+, offvec=\[[0-9, ]*\]\}$",
                ),
                ("MON_IOCH_MFLUSH", r"^ioctl\(\d+, MON_IOCH_MFLUSH, \d+\) = \d+$"),
                ("MON_IOCG_STATS", r"^ioctl\(\d+, MON_IOCG_STATS, \{queued=\d+, dropped=\d+\}\) = 0$"),
            ):
                if not any(re.match(pattern, text) for (_, text) in mine):
                    p.append(f"no {what} line with the prefix `{cap}| `")
            call_index = {i: k for k, (i, _, _) in enumerate(t.calls)}
            fetched = 0
            for i, text in mine:
                m = re.search(r"MON_IOCX_MFETCH, .* = 0 \{nfetch=(\d+)", text)
                if not m:
                    continue
                fetched += int(m.group(1))
                printed = sum(1 for (_, _, c) in t.events if c == call_index[i])
                if printed != int(m.group(1)):
                    p.append(f"MFETCH returned {m.group(1)} events but {printed} event lines follow it: {text}")
            if fetched != n:
                p.append(f"tcpdump -c {n}: its MFETCH lines returned {fetched} events in all")
            who = "tcpdump (not started by rtrace)"
            evs = self.capture_events(prefix, t, p, who, pid=cap)
            self.pcap_vs_trace(prefix, evs, p, who)
            if len(evs) != n:
                p.append(f"tcpdump -c {n}: rtrace decoded {len(evs)} of its events")
            # The probes: named, their ring size asked on /dev/usbmon0.
            shown = [
                q
                for q in probes
                if any(name == "usbmon_client" for (_, name) in banners.get(q, []))
                and any(pid == q and re.match(r"^ioctl\(3, MON_IOCQ_RING_SIZE\) = \d+$", text) for (_, pid, text) in ioctls)
            ]
            if not shown:
                p.append(
                    f"no probe (our client, pids {min(probes, default='?')}..{max(probes, default='?')}) is in the trace "
                    "as `Tracing usbmon_client (pid P)` and `P| ioctl(3, MON_IOCQ_RING_SIZE) = N`"
                )
            # Usbmon requests come from the tcpdump and the probes alone,
            # each process named before its first line.
            stray, unnamed, unfiltered = [], [], []
            # A line without a prefix is the one process known then (a
            # probe's, while it alone had made calls): the process of the
            # last banner without a prefix.
            solo, owner = None, {}
            for i, pid, text in t.calls:
                if pid is None:
                    b = re.match(r"^Tracing .* \(pid (\d+)\)$", text)
                    solo = b.group(1) if b else solo
                owner[i] = pid if pid is not None else solo
            for i, pid, text in ioctls:
                who = owner.get(i, pid)
                if re.match(r"^ioctl\(\d+, MON_IOC", text) and who not in probes and who != cap:
                    stray.append(t.lines[i])
            for pid, i in first.items():
                # (lines without a prefix: one process was known then)
                if pid is not None and not any(j <= i for (j, _) in banners.get(pid, [])):
                    unnamed.append(t.lines[i])
            if filtered:
                for i, pid, text in t.calls:
                    # (the line itself: PREFIX takes a signal's first `*`
                    # for a replay mark)
                    line = re.sub(r"^\d+[|'] ", "", t.lines[i])
                    if re.match(
                        r"^(Tracing .* \(pid \d+\)|Tracing every process|---|Process exited normally with code \d+|Process killed by .*|"
                        r"Process detached|\*\* SIG\w+( .*)? \*\*)$",
                        line,
                    ) or DIAG.match(t.lines[i]):
                        continue
                    if not re.match(r"^(ioctl\(\d+, MON_IOC|<\.\.\. ioctl resumed>)", text):
                        unfiltered.append(t.lines[i])
            for what, lines in (
                ("a usbmon request of a process neither the tcpdump nor a probe", stray),
                ("a process's first line before any `Tracing` banner of it", unnamed),
                ("a line the filter should have left out", unfiltered),
            ):
                if lines:
                    p.append(f"{len(lines)} times {what}, e.g.: " + " | ".join(lines[:3]))
        self.no_diagnostics(f"{prefix}.trace", p, "the machine under -a")
        self.check(title, p)


def cmd_judge(console, outdir, uevents=None):
    if console == "none":
        results, files, devices, done = {}, {}, [], True
    else:
        results, files, devices, done = read_report(console, outdir)
    if uevents:
        # The user_events boot's report: its names all begin with `u.`.
        # (No console: uevents.sh could not prepare the check.)
        if os.path.exists(uevents[0]):
            ue_results, ue_files, _, ue_done = read_report(uevents[0], outdir)
        else:
            ue_results, ue_files, ue_done = {}, {}, False
        results.update(ue_results)
        files.update(ue_files)
    if "kernel" in results:
        print(f"e2e: guest kernel {results['kernel']}; {results.get('rtrace_version', '')}")
    for d in devices:
        print(f"e2e: usb device {d}")
    c = Checks(results, files)
    if not done:
        c.check("the guest ran to the end", [f"no `@@E2E done` in {console}: see its tail"])
    if console != "none":
        for t in (c.t1, c.t2, c.t3, c.t3b, c.t3c, c.t4a, c.t4b, c.t4c, c.t5, c.t6,
                  c.b0, c.b1, c.b3, c.b3b, c.b3c, c.b5, c.b2, c.b7, c.b8, c.b8f):
            t()
    if uevents:
        import uevents_judge

        if not ue_done:
            c.check("U0 user_events: the guest ran to the end", [f"no `@@E2E done` in {uevents[0]}: see its tail"])
        uevents_judge.judge(c, uevents[1])
    print(f"e2e: the guest's files are in {outdir}")
    xfailed = f", {c.xfailed} expected to fail (E2E_XFAIL)" if c.xfailed else ""
    print(f"{c.passed} passed, {c.failed} failed{xfailed}")
    return 1 if c.failed else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "modules":
        cmd_modules(argv[2], argv[3:])
    elif len(argv) == 4 and argv[1] == "disk":
        cmd_disk(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "judge":
        return cmd_judge(argv[2], argv[3])
    elif len(argv) == 7 and argv[1] == "judge" and argv[4] == "--uevents":
        return cmd_judge(argv[2], argv[3], (argv[5], argv[6]))
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
