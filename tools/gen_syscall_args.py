#!/usr/bin/env python3
"""Generate the C type the kernel declares for each system call parameter.

    python3 tools/gen_syscall_args.py            # rewrite src/abi/gen_syscall_args.rs
    python3 tools/gen_syscall_args.py --out DIR  # write gen_syscall_args.rs into DIR

A register holds 64 bits, but `SYSCALL_DEFINEn` casts each one to the
parameter's declared type before the call's body sees it: an `int` is the
register's low 32 bits, sign-extended; a `umode_t` its low 16. A tracer
that prints the register shows values the kernel never saw (strace's own
tests put garbage in the upper halves on purpose). This table says, for
every call, how wide each parameter is and whether it is signed.

- Names and types: the running kernel's syscall trace-event formats,
  /sys/kernel/tracing/events/syscalls/sys_enter_NAME/format, which
  `SYSCALL_DEFINEn` writes from the declaration itself (`field:umode_t
  mode;`). Calls the kernel defines without that metadata have no row;
  rtrace reads their registers whole, as before.
- Widths: a type named by a typedef (`umode_t`, `rwf_t`, `key_serial_t`)
  is followed through the kernel's BTF (/sys/kernel/btf/vmlinux, dumped
  with bpftool) to its integer or pointer; C's own base types
  (`unsigned long`) are read by their spelling, on LP64.

The kernel release is recorded in the output; tests/arg_widths.rs checks
that regenerating on a machine running that release changes nothing.
Never edit the output by hand.
"""

import argparse
import glob
import os
import platform
import re
import subprocess
import sys

EVENTS = "/sys/kernel/tracing/events/syscalls"
BTF = "/sys/kernel/btf/vmlinux"
OUT = os.path.join(os.path.dirname(__file__), "..", "src", "abi", "gen_syscall_args.rs")

# x86_64 table names whose entry point the kernel defines under another
# name (arch/x86/entry/syscalls/syscall_64.tbl's last column): the running
# kernel's trace events are named after the entry point, and no file on the
# machine pairs the two, so this is the one list typed here.
ENTRY_POINTS = {
    "fstat": "newfstat",
    "lstat": "newlstat",
    "stat": "newstat",
    "uname": "newuname",
    "sendfile": "sendfile64",
    "umount2": "umount",
}

FIELD = re.compile(r"^\s*field:(.*?);\s*offset:\d+;\s*size:\d+;\s*signed:\d;")


def fields(path):
    """The declared parameters in one format file: [(name, type)]."""
    params = []
    with open(path) as f:
        for line in f:
            m = FIELD.match(line)
            if not m:
                continue
            decl = m.group(1).strip()
            name = re.search(r"(\w+)$", decl).group(1)
            ctype = decl[: -len(name)].strip()
            # The event's own fields (common_*, __syscall_nr, and the
            # __data_loc copies newer kernels add) are no parameters.
            if name.startswith("common_") or name.startswith("__"):
                continue
            params.append((name, ctype))
    return params


def base_width(spelling):
    """(bits, signed) of a C base type by its spelling, on LP64; None if it
    is no base type."""
    words = spelling.split()
    if not words or any(w not in ("signed", "unsigned", "char", "short", "int", "long", "_Bool") for w in words):
        return None
    signed = "unsigned" not in words
    if "_Bool" in words:
        return (8, False)
    if "char" in words:
        return (8, signed)
    if "short" in words:
        return (16, signed)
    if "long" in words:
        return (64, signed)
    return (32, signed)


def btf_types():
    """The kernel's BTF, by id: (kind, name, attributes)."""
    raw = subprocess.run(
        ["bpftool", "btf", "dump", "file", BTF, "format", "raw"],
        check=True, capture_output=True, text=True,
    ).stdout
    types = {}
    for line in raw.splitlines():
        m = re.match(r"^\[(\d+)\] (\w+) '([^']*)'(.*)$", line)
        if m:
            types[int(m.group(1))] = (m.group(2), m.group(3), m.group(4))
    return types


class Resolver:
    """Follows a declared type to its width through BTF."""

    def __init__(self, types):
        self.types = types
        self.typedefs = {name: i for i, (kind, name, _) in types.items() if kind == "TYPEDEF"}
        self.enums = {name: i for i, (kind, name, _) in types.items() if kind in ("ENUM", "ENUM64")}

    def by_id(self, i):
        kind, name, attrs = self.types[i]
        if kind in ("TYPEDEF", "CONST", "VOLATILE", "RESTRICT", "TYPE_TAG"):
            return self.by_id(int(re.search(r"type_id=(\d+)", attrs).group(1)))
        if kind == "PTR":
            return (64, False)
        if kind == "INT":
            size = int(re.search(r"size=(\d+)", attrs).group(1))
            return (size * 8, "SIGNED" in attrs)
        if kind in ("ENUM", "ENUM64"):
            size = int(re.search(r"size=(\d+)", attrs).group(1))
            return (size * 8, "encoding=SIGNED" in attrs)
        sys.exit(f"gen_syscall_args: BTF type [{i}] {kind} '{name}' is no scalar")

    def width(self, ctype):
        words = [w for w in ctype.split() if w not in ("const", "volatile", "__user")]
        if "*" in ctype:
            return (64, False)
        if words[:1] == ["enum"]:
            return self.by_id(self.enums[words[1]])
        spelled = " ".join(words)
        base = base_width(spelled)
        if base:
            return base
        if len(words) == 1 and words[0] in self.typedefs:
            return self.by_id(self.typedefs[words[0]])
        sys.exit(f"gen_syscall_args: no width for the declared type '{ctype}'")


RUST_TYPE = {
    (64, True): "LONG",
    (64, False): "ULONG",
    (32, True): "INT",
    (32, False): "UINT",
    (16, True): "SHORT",
    (16, False): "USHORT",
    (8, True): "CHAR",
    (8, False): "UCHAR",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="directory to write gen_syscall_args.rs into")
    args = ap.parse_args()
    formats = sorted(glob.glob(os.path.join(EVENTS, "sys_enter_*", "format")))
    if not formats:
        sys.exit(f"gen_syscall_args: no syscall trace events under {EVENTS}")
    resolve = Resolver(btf_types())
    rows = []
    for path in formats:
        call = os.path.basename(os.path.dirname(path))[len("sys_enter_"):]
        params = [(name, ctype, RUST_TYPE[resolve.width(ctype)]) for name, ctype in fields(path)]
        rows.append((call, params))
    by_entry = dict(rows)
    for call, entry in ENTRY_POINTS.items():
        if entry in by_entry:
            rows.append((call, by_entry[entry]))
    rows.sort(key=lambda r: r[0].encode())
    out = [
        "// @generated by tools/gen_syscall_args.py from the running kernel's syscall",
        "// trace-event formats and BTF. Do not edit by hand: run",
        "// `python3 tools/gen_syscall_args.py` to regenerate (HACKING.md).",
        "//! Each system call's parameters as the kernel declares them (generated data).",
        "",
        "use super::{ArgType as T, Declared};",
        "",
        "/// The kernel release the table was generated from.",
        f'pub const SOURCE: &str = "{platform.release()}";',
        "",
        "/// Every call with trace-event metadata, by its name in the x86_64 table",
        "/// (sorted): each parameter's declared name, C type and width, in",
        "/// register order.",
        "#[rustfmt::skip]",
        "pub static SYSCALL_ARGS: &[(&str, &[Declared])] = &[",
    ]
    for call, params in rows:
        items = ", ".join(f'("{n}", "{t}", T::{w})' for n, t, w in params)
        out.append(f'    ("{call}", &[{items}]),')
    out.append("];")
    text = "\n".join(out) + "\n"
    dest = os.path.join(args.out, "gen_syscall_args.rs") if args.out else OUT
    with open(dest, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
