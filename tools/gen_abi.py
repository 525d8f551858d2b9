#!/usr/bin/env python3
"""Generate the kernel's name tables (src/abi/xlat/) from the real headers.

    python3 tools/gen_abi.py            # rewrite src/abi/xlat/
    python3 tools/gen_abi.py --out DIR  # write the files into DIR instead
    python3 tools/gen_abi.py --digest   # print the headers' digest only

This is rtrace's counterpart of strace's xlat/*.in files. The tables are
declared in tools/abi_tables.py (which names, from which headers, in which
order, and whether they are values or flags); this program only turns that
list into Rust:

- Names come from the list: an explicit list of names (kept in its order,
  which is the lookup order: the first name of a value wins), a `#define`
  prefix, or the enum that holds a given member.
- Values are never parsed from text: a C program including the table's
  headers prints each name's value, so `(1<<3)`, `_IOW(...)` and
  `~0ULL` mean what the compiler says they mean.
- `NAME=EXPR` gives a fallback for a name newer than the installed
  headers (used only where they lack it, as strace's xlat files do); such
  a value is typed by hand, so each has the kernel release that added it
  beside it in the list.
- A "consts" table is a list of named numbers (`pub const NAME: u32`),
  for the hand-written ioctl groups' request codes.
- A flags table holds `FlagDef`s. `NAME` is a flag whose mask is itself;
  `MASK:NAME` is the value NAME of the multi-bit field MASK (MASK is any C
  expression, such as `O_ACCMODE` or `~0ULL`); a zero value names the
  field's zero state (`O_RDONLY`). A "shift" table holds bit numbers and
  is written as the masks `1<<NAME`, as strace shows `UFFDIO_API`'s
  `ioctls`.

The output records a digest of every header the compiler read (`cc -M`),
so tests/regenerate.rs can tell "made from other headers" (skipped, with a
message) from "stale" (a failure). Never edit the output by hand.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from abi_tables import TABLES, AREAS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = ("/usr/include/x86_64-linux-gnu", "/usr/include")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)(\(?)")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def fail(msg):
    sys.exit(f"gen_abi: {msg}")


def header_text(h):
    for base in INCLUDE:
        p = os.path.join(base, h)
        if os.path.isfile(p):
            text = open(p, errors="replace").read()
            return re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("\\\n", " ")
    fail(f"{h} not found: are the kernel's and libc's headers installed?")


def by_prefix(table):
    """Every object-like `#define` of the table's headers starting with its prefix."""
    out = []
    for h in table.headers:
        for line in header_text(h).split("\n"):
            m = DEFINE.match(line)
            if (m and not m.group(2) and m.group(1).startswith(table.prefix)
                    and m.group(1) not in out and m.group(1) not in table.exclude):
                out.append(m.group(1))
    if not out:
        fail(f"{table.name}: no {table.prefix}* in {table.headers}")
    return out


def by_enum(table):
    """The members of the enum (in the table's headers) that holds `table.enum`."""
    for h in table.headers:
        for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", header_text(h)):
            # Preprocessor lines inside the enum (`#if __UAPI_DEF_...`) are not members.
            body = "\n".join(l for l in body.split("\n") if not l.strip().startswith("#"))
            members = [m.split("=")[0].strip() for m in body.split(",")]
            members = [m for m in members if IDENT.match(m)]
            if table.enum in members:
                return [m for m in members if m not in table.exclude]
    fail(f"{table.name}: no enum holding {table.enum} in {table.headers}")


def rows_of(table):
    """The table's rows as (mask expression or None, C name, printed name)."""
    if table.names is not None:
        names = list(table.names)
    elif table.prefix is not None:
        names = by_prefix(table)
    else:
        names = by_enum(table)
    rows = []
    for n in names:
        mask, _, name = n.rpartition(":")
        name, _, fallback = name.partition("=")
        rows.append((mask or None, name, f"1<<{name}" if table.kind == "shift" else name,
                     fallback or None))
    return rows


def program(tables):
    """A C program printing, one per line, every value (and mask) of `tables`."""
    headers = []
    for t in tables:
        for h in t.headers:
            if h not in headers:
                headers.append(h)
    # glibc's headers hide the Linux-only names (ST_NODEV, SPLICE_F_MOVE,
    # SCM_CREDENTIALS) without _GNU_SOURCE.
    lines = ["#define _GNU_SOURCE"] + [f"#include <{h}>" for h in headers]
    for t in tables:
        for _, name, _, fallback in rows_of(t):
            if fallback:
                # Newer than the installed headers: the kernel's value,
                # used only where the headers lack the name (strace's
                # xlat fallbacks do the same).
                lines += [f"#ifndef {name}", f"# define {name} ({fallback})", "#endif"]
    lines += ["#include <stdio.h>", "#include <stddef.h>", "#include <string.h>",
              "int main(void) {"]
    for t in tables:
        if t.kind == "bitfields":
            # A bit-field has no offsetof: set it to all ones in a zeroed
            # struct and find the bits that changed (little-endian bit
            # numbers from the struct's start); -1 read back below zero is
            # a signed field.
            ctype = f"struct {t.struct}"
            for _, name, _, _ in rows_of(t):
                lines += [
                    "    {",
                    f"        {ctype} s; unsigned char *b = (unsigned char *)&s;",
                    "        long first = -1, last = -1;",
                    "        memset(&s, 0, sizeof s);",
                    f"        s.{name} = -1;",
                    "        for (long i = 0; i < (long)sizeof s * 8; i++)",
                    "            if (b[i / 8] >> (i % 8) & 1) { if (first < 0) first = i; last = i; }",
                    f'        printf("%ld %ld %d\\n", first, last - first + 1, s.{name} < 0);',
                    "    }",
                ]
            continue
        if t.kind == "layout":
            # Offset, size and (for a scalar) signedness of each field.
            # `struct=TAG`, or `struct="union TAG"` for a union's members
            # (bpf_attr's anonymous structs).
            ctype = t.struct if t.struct.startswith("union ") else f"struct {t.struct}"
            for _, name, _, _ in rows_of(t):
                member = name.removesuffix("{}")
                signed = "0" if name.endswith("{}") else \
                    f"(__typeof__((({ctype} *)0)->{member}))-1 < 0"
                lines.append(f'    printf("%zu %zu %d\\n", offsetof({ctype}, {member}), '
                             f'sizeof((({ctype} *)0)->{member}), {signed});')
            continue
        cast = "(long long)" if t.kind in ("values", "consts") and t.ty == "i64" else "(unsigned long long)"
        for mask, name, _, _ in rows_of(t):
            for expr in ([mask] if mask else []) + [name]:
                lines.append(f'    printf("%lld\\n", {cast}({expr}));'.replace(
                    "%lld", "%llu" if cast.startswith("(unsigned") else "%lld"))
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def compile_and_run(src_text, tag, m32=False):
    """Run the C program (an i386 one with `m32`); return its output lines
    and the headers it read."""
    flags = ["-m32"] if m32 else []
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "v.c"), os.path.join(tmp, "v")
        open(src, "w").write(src_text)
        r = subprocess.run(["cc", "-w", *flags, "-o", exe, src], capture_output=True, text=True)
        if r.returncode != 0:
            fail(f"compiling {tag}'s values failed:\n{r.stderr}")
        deps = subprocess.run(["cc", *flags, "-M", src], capture_output=True, text=True,
                              check=True).stdout
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    read = sorted(d for d in deps.replace("\\\n", " ").split()[2:] if d.startswith("/usr/"))
    return out.split(), read


def values(table):
    """(mask, value, printed name) of every row, as the compiler sees them."""
    out, read = compile_and_run(program([table]), table.name, table.m32)
    nums = iter(int(v) for v in out)
    if table.kind in ("layout", "bitfields"):
        return [(None, (next(nums), next(nums), next(nums)), printed.removesuffix("{}"))
                for _, _, printed, _ in rows_of(table)], read
    bits = (1 << table.bits) - 1
    rows = []
    for mask, _, printed, _ in rows_of(table):
        m = next(nums) & bits if mask else None
        v = next(nums)
        if table.kind == "consts" and table.ty.startswith("u"):
            v &= (1 << int(table.ty[1:])) - 1
        elif table.kind != "values":
            # A field's value is its bits of the name (PER_SVR4 carries
            # personality flags above PER_MASK).
            v &= bits if m is None else m
        if table.kind == "shift":
            if v >= 64:
                fail(f"{table.name}: {printed} = {v} is not a bit number")
            v = 1 << v
        rows.append((m, v, printed))
    if table.sort:
        rows.sort(key=lambda r: r[1])
    return rows, read


def render_row(table, mask, value, name):
    if table.kind == "bitfields":
        bit, width, signed = value
        return (f'    BitField {{ name: "{name}", bit: {bit}, width: {width}, '
                f'signed: {"true" if signed else "false"} }},\n')
    if table.kind == "layout":
        off, size, signed = value
        return (f'    Field {{ name: "{name}", off: {off}, size: {size}, '
                f'signed: {"true" if signed else "false"} }},\n')
    if table.kind == "consts":
        return (f"/// `{name}` (`{'`, `'.join(f'<{h}>' for h in table.headers)}`).\n"
                f"pub const {name}: {table.ty} = 0x{value:x};\n")
    if table.kind == "values":
        return f'    ({value}, "{name}"),\n'
    if mask is None or mask == value:
        return f'    flag(0x{value:x}, "{name}"),\n'
    return f'    FlagDef {{ mask: 0x{mask:x}, value: 0x{value:x}, name: "{name}" }},\n'


def render(area, results, digest):
    doc = AREAS[area]
    tables = [t for t in TABLES if t.area == area]
    headers = []
    for t in tables:
        headers += [h for h in t.headers if h not in headers]
    out = [
        "// @generated by tools/gen_abi.py from the tables in tools/abi_tables.py and the\n",
        f"// headers {', '.join(f'<{h}>' for h in headers)}.\n",
        "// Do not edit: regenerate with `tools/regen` (HACKING.md, \"Generated tables\").\n",
        f"//! {doc}\n",
        "//!\n",
        "//! Generated data: each table's names are listed in tools/abi_tables.py,\n",
        "//! each value is the C compiler's on the installed headers.\n",
        f"//! headers-sha256: {digest}\n\n",
    ]
    uses = []
    if any(t.kind in ("flags", "shift") for t in tables):
        kinds = set()
        for t in tables:
            if t.kind not in ("flags", "shift"):
                continue
            for m, v, _ in results[t.name][0]:
                kinds.add("flag" if m is None or m == v else "FlagDef")
        if "flag" in kinds:
            uses.append("flag")
        uses.append("FlagDef")
        out.append(f"use super::super::flags::{{{', '.join(sorted(uses))}}};\n" if len(uses) > 1
                   else f"use super::super::flags::{uses[0]};\n")
    row_types = [ty for kind, ty in (("bitfields", "BitField"), ("layout", "Field"))
                 if any(t.kind == kind for t in tables)]
    if row_types:
        out.append(f"use super::super::layout::{row_types[0]};\n" if len(row_types) == 1
                   else f"use super::super::layout::{{{', '.join(row_types)}}};\n")
    for t in tables:
        rows = results[t.name][0]
        if t.kind in ("layout", "bitfields"):
            arch = "i386's (`-m32`)" if t.m32 else "x86_64's"
            ctype = t.struct if t.struct.startswith("union ") else f"struct {t.struct}"
            what, ty = ((f"`{ctype}`'s bit-fields", "BitField") if t.kind == "bitfields"
                        else (f"`{ctype}`", "Field"))
            out.append(f"\n/// {t.doc}: {what}, {arch} layout "
                       f"(`{'`, `'.join(f'<{h}>' for h in t.headers)}`).\n")
            out.append(f"pub const {t.name}: &[{ty}] = &[\n")
            out += [render_row(t, m, v, n) for m, v, n in rows]
            out.append("];\n")
            continue
        if t.kind == "consts":
            out.append(f"\n// {t.doc}.\n")
            out += [render_row(t, m, v, n) for m, v, n in rows]
            continue
        ty = "FlagDef" if t.kind != "values" else f"({t.ty}, &str)"
        out.append(f"\n/// {t.doc} (`{'`, `'.join(f'<{h}>' for h in t.headers)}`).\n")
        out.append(f"pub const {t.name}: &[{ty}] = &[\n")
        for m, v, n in rows:
            out.append(render_row(t, m, v, n))
        out.append("];\n")
    return "".join(out)


def render_mod():
    out = [
        "// @generated by tools/gen_abi.py from tools/abi_tables.py.\n",
        "// Do not edit: regenerate with `tools/regen` (HACKING.md, \"Generated tables\").\n",
        "//! The kernel's name tables, by area (generated; the list of tables is\n",
        "//! tools/abi_tables.py, the values the C compiler's on the real headers).\n\n",
    ]
    for area in AREAS:
        if any(t.area == area for t in TABLES):
            out.append(f"#[rustfmt::skip]\npub mod {area};\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="directory to write the files into")
    ap.add_argument("--digest", action="store_true", help="print the headers' digest only")
    args = ap.parse_args()
    names = [t.name for t in TABLES]
    for area in AREAS:
        dup = {n for n in names if names.count(n) > 1
               and sum(1 for t in TABLES if t.name == n and t.area == area) > 1}
        if dup:
            fail(f"tables named twice in area {area}: {sorted(dup)}")
    results = {}
    read = set()
    for t in TABLES:
        results[t.name + "@" + t.area] = values(t)
        read.update(results[t.name + "@" + t.area][1])
    h = hashlib.sha256()
    for path in sorted(read):
        h.update(path.encode() + b"\0" + open(path, "rb").read())
    digest = h.hexdigest()
    if args.digest:
        print(digest)
        return
    out_dir = args.out or os.path.join(ROOT, "src", "abi", "xlat")
    os.makedirs(out_dir, exist_ok=True)
    for area in AREAS:
        per = {t.name: results[t.name + "@" + area] for t in TABLES if t.area == area}
        if per:
            with open(os.path.join(out_dir, f"{area}.rs"), "w") as f:
                f.write(render(area, per, digest))
    with open(os.path.join(out_dir, "mod.rs"), "w") as f:
        f.write(render_mod())


if __name__ == "__main__":
    main()
