#!/usr/bin/env python3
"""Generate the kernel numbers no installed uapi header gives (src/abi/gen_*.rs).

    python3 tools/gen_kernel_src.py PART...             # rewrite src/abi/gen_PART.rs
    python3 tools/gen_kernel_src.py --out DIR PART...   # write them into DIR instead
    python3 tools/gen_kernel_src.py --digest PART       # print the inputs' digest only

Some of the kernel's ABI lives outside the uapi headers linux-libc-dev
installs: usbmon's binary API is defined in drivers/usb/mon/mon_bin.c
itself, the usbdevfs structs of 32-bit programs in include/linux/
usbdevice_fs.h (a kernel-only header), and <linux/user_events.h> is newer
than Debian 12's headers. Their text is read from the kernel source
tarballs Debian's linux-source-X.Y packages install (as tools/gen_ioctls.py
reads include/uapi/drm from linux-source-6.1), and this program turns it
into Rust the way tools/gen_abi.py does:

- The definitions are copied out of the source verbatim (a .c file's
  `#define`s and the listed `struct`s; a uapi header whole), behind a small
  prelude giving the kernel's own type names (u32, s64, compat_uptr_t, ...)
  their x86 meaning and `PAGE_SIZE` x86's page.
- Values are never parsed from text: a C program prints each macro's
  value and each struct's `sizeof` and fields' `offsetof`/`sizeof`; a
  `m32` list or struct is compiled `-m32`, the layout (and the request
  codes) of an i386 program, which is what the x86_64 kernel's compat
  paths read.
- A const is `NAME` (the C macro) or `RUST_NAME=C expression` (an i386
  code named after its kernel macro plus `32`, a size).

Each output records a digest of the source text it read and of every
header the compiler read (`source-sha256`), so tests/regenerate.rs can
tell "made from other sources" (skipped, with a message) from "stale" (a
failure). A part whose tarball is missing fails here with a message naming
the package; tests/regenerate.rs skips it with the same message. Never
edit the output by hand.
"""

import argparse
import hashlib
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The kernel's own type names, as x86 defines them (include/linux/types.h,
# arch/x86/include/asm/compat.h), and x86's page: what the copied kernel
# definitions are written in.
PRELUDE = """\
#include <linux/types.h>
#include <linux/ioctl.h>
#include <stddef.h>
#include <stdio.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;
typedef u32 compat_uptr_t;
typedef u32 compat_caddr_t;
typedef u32 compat_uint_t;
typedef s32 compat_int_t;
#define __user
#define PAGE_SIZE 4096UL
"""


class Struct:
    """A struct's size and the listed fields' offsets and sizes, as module
    `module` (the struct's tag by default). A field ending `{}` is an
    aggregate (no signedness), one ending `[]` a flexible array (size 0);
    `a.b` is member b of the member a (`S_ISO_NUMDESC`)."""

    def __init__(self, tag, fields, module=None, m32=False):
        self.tag, self.fields, self.module, self.m32 = tag, fields, module or tag, m32


class Consts:
    """Named numbers of one Rust type; `m32` compiles them for i386, `hex`
    writes them in hex (request codes)."""

    def __init__(self, doc, ty, names, m32=False, hex=False):
        self.doc, self.ty, self.names, self.m32, self.hex = doc, ty, names, m32, hex


class Names:
    """A name table (`&[(u64, &str)]`, Rust name `rust`): every constant of
    the source's `enum`s whose name starts with `prefix`, in the source's
    order (include/linux/ata.h's ATA_CMD_*: an anonymous enum mixing many
    families, which only a prefix tells apart). The names are found in the
    source; each member's initializer is copied verbatim into an enum of
    its own and its value is the compiler's."""

    def __init__(self, doc, rust, prefix):
        self.doc, self.rust, self.prefix = doc, rust, prefix


class Part:
    """One output file: the source it reads and what it takes from it.

    `member` is a path in the tarball (without its top directory); `how` is
    "source" (a .c file or kernel-only header: its object-like and
    function-like `#define`s, the `structs`' definitions and the `names`'
    enum members are copied), "uapi" (a uapi header, included whole as
    `include` names it) or "table" (syscall_32.tbl, whose rows are data, not
    C: `entry_rows`)."""

    def __init__(self, doc, package, member, how, consts, structs, headers=(), include=None,
                 names=()):
        self.doc, self.package, self.member, self.how = doc, package, member, how
        self.consts, self.structs, self.headers, self.include = consts, structs, headers, include
        self.names = names

    @property
    def tarball(self):
        return f"/usr/src/{self.package}.tar.xz"


PARTS = {
    # helper netlink (session 12)
    "inet6_if": Part(
        "An IPv6 device's flags (IFLA_INET6_FLAGS): include/net/if_inet6.h, not a\n"
        "//! uapi header.",
        "linux-source-6.1", "include/net/if_inet6.h", "source",
        consts=[
            Consts("IFLA_INET6_FLAGS' bits", "u32",
                   ["IF_RA_OTHERCONF", "IF_RA_MANAGED", "IF_RA_RCVD", "IF_RS_SENT", "IF_READY"],
                   hex=True),
        ],
        structs=[]),
    "usbmon": Part(
        "usbmon's binary API (`/dev/usbmonN`): request codes, ring limits and the\n"
        "//! structs of drivers/usb/mon/mon_bin.c, which has no uapi header.",
        "linux-source-6.1", "drivers/usb/mon/mon_bin.c", "source",
        consts=[
            Consts("The requests (x86_64 codes; the `*32` ones are what 32-bit programs pass)",
                   "u32", ["MON_IOCQ_URB_LEN", "MON_IOCG_STATS", "MON_IOCT_RING_SIZE",
                           "MON_IOCQ_RING_SIZE", "MON_IOCX_GET", "MON_IOCX_MFETCH",
                           "MON_IOCH_MFLUSH", "MON_IOCX_GETX", "MON_IOCX_GET32",
                           "MON_IOCX_MFETCH32", "MON_IOCX_GETX32"], hex=True),
            Consts("The ring: event alignment, header sizes, ring sizes, bus numbers", "u32",
                   ["PKT_ALIGN", "PKT_SIZE", "PKT_SZ_API0", "PKT_SZ_API1", "BUFF_MAX",
                    "BUFF_DFL", "BUFF_MIN", "ISODESC_MAX", "MON_BIN_MAX_MINOR", "SETUP_LEN"]),
        ],
        structs=[
            Struct("mon_bin_hdr", ["id", "type", "xfer_type", "epnum", "devnum", "busnum",
                                   "flag_setup", "flag_data", "ts_sec", "ts_usec", "status",
                                   "len_urb", "len_cap", "s.setup{}", "s.iso.error_count",
                                   "s.iso.numdesc", "interval", "start_frame", "xfer_flags",
                                   "ndesc"]),
            Struct("mon_bin_isodesc", ["iso_status", "iso_off", "iso_len", "_pad"]),
            Struct("mon_bin_stats", ["queued", "dropped"]),
            Struct("mon_bin_get", ["hdr", "data", "alloc"]),
            Struct("mon_bin_mfetch", ["offvec", "nfetch", "nflush"]),
            Struct("mon_bin_get32", ["hdr32", "data32", "alloc32"], m32=True),
            Struct("mon_bin_mfetch32", ["offvec32", "nfetch32", "nflush32"], m32=True),
        ]),
    "usbdevfs": Part(
        "usbdevfs (`/dev/bus/usb/BBB/DDD`): the structs of <linux/usbdevice_fs.h>, and\n"
        "//! the requests and structs of 32-bit programs, which the kernel defines in\n"
        "//! include/linux/usbdevice_fs.h (not a uapi header).",
        "linux-source-6.1", "include/linux/usbdevice_fs.h", "source",
        headers=["linux/usbdevice_fs.h"],
        consts=[
            Consts("The requests of 32-bit programs (their structs' i386 sizes)", "u32",
                   ["USBDEVFS_CONTROL32", "USBDEVFS_BULK32", "USBDEVFS_SUBMITURB32",
                    "USBDEVFS_DISCSIGNAL32", "USBDEVFS_IOCTL32"], hex=True),
            Consts("USBDEVFS_CONNINFO_EX for today's `struct usbdevfs_conninfo_ex` (the code "
                   "carries the size the caller passes)", "u32",
                   ["USBDEVFS_CONNINFO_EX_CURRENT="
                    "USBDEVFS_CONNINFO_EX(sizeof(struct usbdevfs_conninfo_ex))"], hex=True),
        ],
        structs=[
            Struct("usbdevfs_ctrltransfer", ["bRequestType", "bRequest", "wValue", "wIndex",
                                             "wLength", "timeout", "data"]),
            Struct("usbdevfs_bulktransfer", ["ep", "len", "timeout", "data"]),
            Struct("usbdevfs_setinterface", ["interface", "altsetting"]),
            Struct("usbdevfs_disconnectsignal", ["signr", "context"]),
            Struct("usbdevfs_getdriver", ["interface", "driver{}"]),
            Struct("usbdevfs_connectinfo", ["devnum", "slow"]),
            Struct("usbdevfs_conninfo_ex", ["size", "busnum", "devnum", "speed", "num_ports",
                                            "ports{}"]),
            Struct("usbdevfs_urb", ["type", "endpoint", "status", "flags", "buffer",
                                    "buffer_length", "actual_length", "start_frame",
                                    "number_of_packets", "stream_id", "error_count", "signr",
                                    "usercontext", "iso_frame_desc[]"]),
            Struct("usbdevfs_ioctl", ["ifno", "ioctl_code", "data"]),
            Struct("usbdevfs_hub_portinfo", ["nports", "port{}"]),
            Struct("usbdevfs_disconnect_claim", ["interface", "flags", "driver{}"]),
            Struct("usbdevfs_streams", ["num_streams", "num_eps", "eps[]"]),
            Struct("usbdevfs_iso_packet_desc", ["length", "actual_length", "status"]),
            Struct("usbdevfs_ctrltransfer32", ["bRequestType", "bRequest", "wValue", "wIndex",
                                               "wLength", "timeout", "data"], m32=True),
            Struct("usbdevfs_bulktransfer32", ["ep", "len", "timeout", "data"], m32=True),
            Struct("usbdevfs_disconnectsignal32", ["signr", "context"], m32=True),
            Struct("usbdevfs_urb32", ["type", "endpoint", "status", "flags", "buffer",
                                      "buffer_length", "actual_length", "start_frame",
                                      "number_of_packets", "error_count", "signr",
                                      "usercontext", "iso_frame_desc[]"], m32=True),
            Struct("usbdevfs_ioctl32", ["ifno", "ioctl_code", "data"], m32=True),
        ]),
    "user_events": Part(
        "user_events (`/sys/kernel/tracing/user_events_data`): the requests, the\n"
        "//! registration flags and structs of <linux/user_events.h> (Linux 6.4's ABI),\n"
        "//! which Debian 12's linux-libc-dev predates.",
        "linux-source-6.12", "include/uapi/linux/user_events.h", "uapi",
        include="linux/user_events.h",
        consts=[
            Consts("The requests (x86_64 codes)", "u32",
                   ["DIAG_IOCSREG", "DIAG_IOCSDEL", "DIAG_IOCSUNREG"], hex=True),
            Consts("The same requests from 32-bit programs (the size field is a pointer's)",
                   "u32", ["DIAG_IOCSREG32=DIAG_IOCSREG", "DIAG_IOCSDEL32=DIAG_IOCSDEL",
                           "DIAG_IOCSUNREG32=DIAG_IOCSUNREG"], m32=True, hex=True),
            Consts("`struct user_reg.flags` (`enum user_reg_flag`; `USER_EVENT_REG_MAX` and "
                   "above are not ABI)", "u16",
                   ["USER_EVENT_REG_PERSIST", "USER_EVENT_REG_MULTI_FORMAT",
                    "USER_EVENT_REG_MAX"]),
        ],
        structs=[
            Struct("user_reg", ["size", "enable_bit", "enable_size", "flags", "enable_addr",
                                "name_args", "write_index"]),
            Struct("user_unreg", ["size", "disable_bit", "__reserved", "__reserved2",
                                  "disable_addr"]),
        ]),
    "ata": Part(
        "The ATA command codes (`ATA_CMD_*`), which HDIO_DRIVE_CMD's `command` carries:\n"
        "//! they are defined in the kernel-only include/linux/ata.h, no uapi header.",
        "linux-source-6.1", "include/linux/ata.h", "source",
        consts=[], structs=[],
        names=[Names("HDIO_DRIVE_CMD's `command`: the ATA commands", "ATA_CMDS", "ATA_CMD_")]),
    "vt": Part(
        "The console's I/O ports KDADDIO and KDDELIO accept, which\n"
        "//! drivers/tty/vt/vt_ioctl.c defines for itself (no header has them).",
        "linux-source-6.1", "drivers/tty/vt/vt_ioctl.c", "source",
        consts=[Consts("The first and last port KDADDIO/KDDELIO accept", "u32",
                       ["GPFIRST", "GPLAST"], hex=True)],
        structs=[]),
    "x86_thread": Part(
        "A task's status bit that says its system call came through an i386\n"
        "//! entry (int $0x80 from a 64-bit program too): the kernel-only\n"
        "//! arch/x86/include/asm/thread_info.h defines it.",
        "linux-source-6.1", "arch/x86/include/asm/thread_info.h", "source",
        consts=[Consts("`thread_info.status`: an i386 system call is in progress", "u32",
                       ["TS_COMPAT"], hex=True)],
        structs=[]),
    "chrdev": Part(
        "The character device numbers the kernel hands out to drivers that ask for\n"
        "//! any (usbmon's among them): include/linux/fs.h, kernel-only. A major below\n"
        "//! the dynamic range is a fixed device's (mem, tty, pts, misc).",
        "linux-source-6.1", "include/linux/fs.h", "source",
        consts=[Consts("The lowest major `register_chrdev(0, ..)` hands out below 255", "u32",
                       ["CHRDEV_MAJOR_DYN_END"])],
        structs=[]),
    "kdev": Part(
        "How the kernel packs a device number (`dev_t`, an inode's `i_rdev`):\n"
        "//! include/linux/kdev_t.h, kernel-only (the uapi header's is the old\n"
        "//! 16-bit one).",
        "linux-source-6.1", "include/linux/kdev_t.h", "source",
        consts=[Consts("The minor number's bits, below the major's", "u32", ["MINORBITS"])],
        structs=[]),
    "numa": Part(
        "The node number that means no NUMA node (a BPF map's `numa_node` without\n"
        "//! one): the kernel-only include/linux/numa.h defines it.",
        "linux-source-6.1", "include/linux/numa.h", "source",
        consts=[Consts("No NUMA node", "u32", ["NUMA_NO_NODE"], hex=True)],
        structs=[]),
    "proc_ns": Part(
        "The inode number of the initial pid namespace (/proc/self/ns/pid outside\n"
        "//! any container): the kernel-only include/linux/proc_ns.h fixes it.",
        "linux-source-6.1", "include/linux/proc_ns.h", "source",
        consts=[Consts("The initial pid namespace's inode number", "u32",
                       ["PROC_PID_INIT_INO"], hex=True)],
        structs=[]),
    "i386_entry": Part(
        "The i386 calls that enter another call's function: arch/x86/entry/syscalls/\n"
        "//! syscall_32.tbl's entry-point column (`clock_gettime64` runs `sys_clock_gettime`),\n"
        "//! where it names a `sys_` function other than the call's own name. Such a call\n"
        "//! takes the arguments that function's declaration gives, read in i386's layouts\n"
        "//! where its compat entry point (the last column) says so; `I386_COMPAT` lists\n"
        "//! the calls that have one.",
        "linux-source-6.1", "arch/x86/entry/syscalls/syscall_32.tbl", "table",
        consts=[], structs=[]),
    "timex": Part(
        "The PC speaker's timer rate, which KIOCSOUND and KDMKTONE divide: the\n"
        "//! kernel-only include/linux/timex.h defines it.",
        "linux-source-6.1", "include/linux/timex.h", "source",
        consts=[Consts("The PIT's input clock, in Hz", "u32", ["PIT_TICK_RATE"])],
        structs=[]),
}

DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+[A-Za-z_]\w*.*$", re.M)


def fail(msg, code=1):
    print(f"gen_kernel_src: {msg}", file=sys.stderr)
    sys.exit(code)


_TEXTS = {}


def read_members(parts):
    """Read every part's member out of its tarball, one `tar` run per
    tarball (each run decompresses the whole tarball)."""
    by_tarball = {}
    for p in parts:
        if not os.path.isfile(p.tarball):
            fail(f"{p.tarball} is missing: install the package {p.package}", 3)
        by_tarball.setdefault(p.tarball, []).append(p.member)
    for tarball, members in by_tarball.items():
        top = os.path.basename(tarball).removesuffix(".tar.xz")
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run(["tar", "-xJf", tarball, "-C", tmp,
                                *[f"{top}/{m}" for m in members]], capture_output=True, text=True)
            for m in members:
                path = os.path.join(tmp, top, m)
                if r.returncode != 0 or not os.path.isfile(path):
                    fail(f"cannot read {top}/{m} from {tarball}: {r.stderr.strip()}")
                _TEXTS[(tarball, m)] = open(path, errors="replace").read()


def read_member(part):
    """The text of `part.member` in its tarball."""
    if (part.tarball, part.member) not in _TEXTS:
        read_members([part])
    return _TEXTS[(part.tarball, part.member)]


def _flat(text):
    """The text without comments, continuation lines joined."""
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S).replace("\\\n", " ")


def enum_items(text):
    """(name, initializer or None) of every enum constant of the text, in
    its order."""
    found = []
    for body in re.finditer(r"\benum\b[^{;]*\{(.*?)\}", _flat(text), flags=re.S):
        for item in body.group(1).split(","):
            m = re.fullmatch(r"\s*(\w+)\s*(?:=\s*(.*?))?\s*", item, flags=re.S)
            if m:
                found.append((m.group(1), m.group(2)))
    return found


def enum_members(text, prefix):
    """(name, initializer) of every enum constant whose name starts with
    `prefix`, in the text's order; a member without an initializer fails
    (its value would depend on the members before it, not copied)."""
    found = []
    for name, init in enum_items(text):
        if name.startswith(prefix):
            if init is None:
                fail(f"enum constant {name} has no initializer")
            found.append((name, init))
    if not found:
        fail(f"no enum constant named {prefix}*")
    return found


def copied_definitions(part, text):
    """The kernel's definitions a "source" part compiles: every `#define`
    of the file (continuation lines joined; unused ones cost nothing) and
    the listed structs, in the file's order."""
    flat = _flat(text)
    pieces = []
    for s in part.structs:
        m = re.search(rf"^struct {s.tag} \{{.*?^\}};", flat, flags=re.S | re.M)
        if m:
            pieces.append((m.start(), m.group(0)))
        elif not part.headers:
            # (With headers, the struct may be theirs: the compiler says.)
            fail(f"no struct {s.tag} in {part.member}")
    pieces += [(m.start(), m.group(0)) for m in DEFINE.finditer(flat)
               if not re.match(r"^\s*#\s*define\s+_\w*_H\b", m.group(0))]
    enums = [f"enum {{ {', '.join(f'{n} = {e}' for n, e in enum_members(text, g.prefix))} }};"
             for g in part.names]
    # A const that is an enum constant of the source, not a `#define`
    # (include/linux/proc_ns.h's PROC_PID_INIT_INO), is copied as one.
    for g in part.consts:
        for n in g.names:
            if re.fullmatch(r"\w+", n) and not re.search(rf"^\s*#\s*define\s+{n}\b", flat,
                                                         flags=re.M):
                enums += [f"enum {{ {n} = {e} }};" for name, e in enum_items(text) if name == n and e]
    return "\n".join([p for _, p in sorted(pieces)] + enums) + "\n"


def c_program(part, defs_file, m32, names=()):
    """A program printing the values (one per line) compiled for i386 or not;
    `names` are the name tables' constants, printed natively."""
    lines = [PRELUDE]
    lines += [f"#include <{h}>" for h in part.headers]
    lines.append(f'#include "{defs_file}"')
    lines.append("int main(void) {")
    for g in part.consts:
        if g.m32 != m32:
            continue
        for n in g.names:
            expr = n.partition("=")[2] or n
            lines.append(f'    printf("%llu\\n", (unsigned long long)({expr}));')
    for n in names if not m32 else ():
        lines.append(f'    printf("%llu\\n", (unsigned long long)({n}));')
    for s in part.structs:
        if s.m32 != m32:
            continue
        lines.append(f'    printf("%zu\\n", sizeof(struct {s.tag}));')
        for f in s.fields:
            member = f.removesuffix("{}").removesuffix("[]")
            # A flexible array member has no size; an aggregate no sign.
            size = "(size_t)0" if f.endswith("[]") else f"sizeof(((struct {s.tag} *)0)->{member})"
            signed = "0" if f.endswith(("{}", "[]")) else \
                f"(__typeof__(((struct {s.tag} *)0)->{member}))-1 < 0"
            lines.append(f'    printf("%zu %zu %d\\n", offsetof(struct {s.tag}, {member}), '
                         f'{size}, {signed});')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def compile_and_run(tmp, src_text, m32):
    """The program's output and the system headers it read."""
    flags = ["-m32"] if m32 else []
    src, exe = os.path.join(tmp, "v.c"), os.path.join(tmp, "v")
    open(src, "w").write(src_text)
    r = subprocess.run(["cc", "-w", *flags, "-I", tmp, "-o", exe, src],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"compiling the values failed{' (-m32: is gcc-multilib installed?)' if m32 else ''}:"
             f"\n{r.stderr}")
    deps = subprocess.run(["cc", *flags, "-I", tmp, "-M", src], capture_output=True, text=True,
                          check=True).stdout
    out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    read = [d for d in deps.replace("\\\n", " ").split()[2:] if d.startswith("/usr/")]
    return out.split(), read


def evaluate(part):
    """(values by const name, layouts by struct module, digest)."""
    text = read_member(part)
    with tempfile.TemporaryDirectory() as tmp:
        if part.how == "uapi":
            dest = os.path.join(tmp, part.include)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            open(dest, "w").write(text)
            defs_file = part.include
            compiled = text
        else:
            compiled = copied_definitions(part, text)
            defs_file = "kernel_defs.h"
            open(os.path.join(tmp, defs_file), "w").write(compiled)
        consts, layouts, read = {}, {}, set()
        members = {g.rust: [n for n, _ in enum_members(text, g.prefix)] for g in part.names}
        listed = [n for g in part.names for n in members[g.rust]]
        for m32 in (False, True):
            out, headers = compile_and_run(tmp, c_program(part, defs_file, m32, listed), m32)
            read.update(headers)
            nums = iter(int(v) for v in out)
            for g in part.consts:
                if g.m32 == m32:
                    for n in g.names:
                        consts[n.partition("=")[0]] = next(nums)
            if not m32:
                tables = {rust: [(next(nums), n) for n in names] for rust, names in members.items()}
            for s in part.structs:
                if s.m32 == m32:
                    size = next(nums)
                    layouts[s.module] = (size, [(f.removesuffix("{}").removesuffix("[]"), next(nums), next(nums),
                                                 next(nums)) for f in s.fields])
    h = hashlib.sha256()
    h.update(part.member.encode() + b"\0" + compiled.encode())
    for path in sorted(read):
        h.update(path.encode() + b"\0" + open(path, "rb").read())
    return consts, layouts, tables, h.hexdigest()


def entry_rows(text):
    """(call, function) of each syscall_32.tbl row whose native entry point
    is a `sys_` function named otherwise than the call: a row is `number
    abi name entry [compat]`, `#` starts a comment."""
    rows = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) < 4 or not words[3].startswith("sys_"):
            continue
        name, function = words[2], words[3].removeprefix("sys_")
        if function != name and function != "ni_syscall":
            rows.append((name, function))
    return rows


def compat_rows(text):
    """The call of each syscall_32.tbl row with a compat entry point (a
    fifth word)."""
    rows = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 5 and words[4].startswith("compat_sys_"):
            rows.append(words[2])
    return rows


def header(name, part, how, digest):
    """An output's first lines: where it came from, how, and the digest."""
    where = f"{part.member} of {part.tarball} (package {part.package})"
    return [
        f"// @generated by tools/gen_kernel_src.py (part {name}) from {where}.\n",
        "// Do not edit: regenerate with `tools/regen` (HACKING.md, \"Generated tables\").\n",
        f"//! {part.doc}\n",
        "//!\n",
        *how,
        f"//! source-sha256: {digest}\n",
    ]


def render_table(name, part, digest):
    """A `how="table"` part: syscall_32.tbl's entry points."""
    rows = entry_rows(read_member(part))
    how = ["//! Generated data: each row is the table's own, its `sys_` prefix taken off.\n"]
    out = header(name, part, how, digest) + [
        "\n/// (i386 call, the function it enters), in the table's order.\n",
        "pub const I386_ENTRY: &[(&str, &str)] = &[\n",
    ]
    out += [f"    (\"{call}\", \"{function}\"),\n" for call, function in rows]
    out.append("];\n")
    out += [
        "\n/// The i386 calls with a compat entry point (the last column), in the table's\n",
        "/// order: the kernel reads their memory in i386's layouts. A call without one\n",
        "/// runs its entry point's function itself (`I386_ENTRY`'s, else its own name's),\n",
        "/// whose structs are as that function declares them (pointers and `long`s,\n",
        "/// where it takes any, by `in_compat_syscall()`).\n",
        "pub const I386_COMPAT: &[&str] = &[\n",
    ]
    out += [f"    \"{call}\",\n" for call in compat_rows(read_member(part))]
    out.append("];\n")
    return "".join(out)


def render(name, part, consts, layouts, tables, digest):
    how = [
        "//! Generated data: the names are listed in tools/gen_kernel_src.py (or, for a name\n",
        "//! table, found in the source by their prefix), each value is\n",
        "//! the C compiler's on the kernel's own definitions (`sizeof`, `offsetof`).\n",
    ]
    out = header(name, part, how, digest)
    if part.structs:
        out.append("\nuse super::layout::Field;\n")
    source = os.path.basename(part.member)
    for g in part.consts:
        out.append(f"\n// {g.doc}.\n")
        for n in g.names:
            rust, _, expr = n.partition("=")
            what = f"`{expr or rust}`" + (", i386's value (`-m32`)" if g.m32 else "")
            v = consts[rust] & ((1 << {"u16": 16, "u32": 32, "u64": 64}[g.ty]) - 1)
            text = f"0x{v:x}" if g.hex else str(v)
            out.append(f"/// {what} ({source}).\npub const {rust}: {g.ty} = {text};\n")
    for g in part.names:
        out.append(f"\n/// {g.doc} (`{g.prefix}*` in {source}, in its order).\n")
        out.append(f"pub const {g.rust}: &[(u64, &str)] = &[\n")
        out += [f"    (0x{v:x}, \"{n}\"),\n" for v, n in tables[g.rust]]
        out.append("];\n")
    for s in part.structs:
        size, fields = layouts[s.module]
        arch = "i386's (`-m32`, the compat layout)" if s.m32 else "x86_64's"
        out.append(f"\n/// `struct {s.tag}` ({source}), {arch} layout.\n")
        out.append(f"pub mod {s.module} {{\n    use super::Field;\n\n")
        out.append(f"    /// `sizeof(struct {s.tag})`.\n    pub const SIZEOF: usize = {size};\n")
        for fname, off, fsize, signed in fields:
            short = fname.rpartition(".")[2]
            out.append(f"    /// `{fname}`: its offset and size.\n"
                       f"    pub const {fname.upper().replace('.', '_')}: Field = Field {{ name: \"{short}\", "
                       f"off: {off}, size: {fsize}, signed: {'true' if signed else 'false'} }};\n")
        out.append("}\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="directory to write the files into")
    ap.add_argument("--digest", action="store_true", help="print the inputs' digest only")
    ap.add_argument("parts", nargs="+", choices=sorted(PARTS))
    args = ap.parse_args()
    out_dir = args.out or os.path.join(ROOT, "src", "abi")
    read_members([PARTS[name] for name in args.parts])
    for name in args.parts:
        part = PARTS[name]
        if part.how == "table":
            text = read_member(part)
            digest = hashlib.sha256(part.member.encode() + b"\0" + text.encode()).hexdigest()
            rendered = render_table(name, part, digest)
        else:
            consts, layouts, tables, digest = evaluate(part)
            rendered = render(name, part, consts, layouts, tables, digest)
        if args.digest:
            print(digest)
            continue
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"gen_{name}.rs"), "w") as f:
            f.write(rendered)


if __name__ == "__main__":
    main()
