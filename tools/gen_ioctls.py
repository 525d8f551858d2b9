#!/usr/bin/env python3
"""Generate rtrace's ioctl request tables from the Linux UAPI headers.

    python3 tools/gen_ioctls.py            # rewrite src/ioctl/gen_*.rs
    python3 tools/gen_ioctls.py --out DIR  # write the tables into DIR instead

What it does, and why this way:

- The headers are the ones the Debian package linux-libc-dev installed under
  /usr/include (listed with `dpkg -L`), the kernel's DRM headers as
  libdrm-dev ships them, and glibc's copies of the old SCSI headers. The
  packages' versions are recorded in the tables, so a test can tell a
  different machine's headers from a stale table.
- A request is an object-like `#define NAME VALUE` whose value invokes one of
  the kernel's ioctl macros (`_IO`, `_IOR`, `_IOW`, `_IOWR`, `_IOC`, the
  `_BAD` forms) or a wrapper of them (`DRM_IOWR`, soundcard's `_SIOR`), or a
  legacy 16-bit hex number in the few headers whose requests predate the
  macros (tty, sockios, cdrom, ...: the same headers and type bytes strace
  takes them from), or an enum member defined with a macro (binder).
- Function-like requests with one or two parameters that move the size or
  the number (`EVIOCGNAME(len)`, `EVIOCGBIT(ev, len)`) form a second table
  of families; an object-like request defined through one of them
  (`SOUND_MIXER_READ_VOLUME`, `MIXER_READ(SOUND_MIXER_VOLUME)`) is a request
  of the first table too.
- The codes are never computed here: every header is compiled by the C
  compiler, once with -m64 (x86_64) and once with -m32 (i386, whose struct
  sizes and hence codes differ), each request as a `const unsigned int`
  initialised with the macro, and the values are read back from the
  assembly. A request whose type the header does not define (kernel-only
  types) fails to compile and is dropped, line by line.
- The argument's type name (`struct fiemap`, `__u64`) is what the macro's
  third argument expands to: a preprocessor pass with the ioctl macros
  redefined to print their arguments.
- Where the kernel copies something else than the header's type says (an
  `int` for FS_IOC_GETFLAGS's `long`, a `struct ifreq` for TUNSETIFF's
  `int`, the pointee of a pointer type, a string), the table carries what
  the kernel copies, with its size on each architecture (asked of the
  compiler), its reason and the kernel source line that proves it: the
  list is tools/ioctl_exceptions.py, beside this script.

The output is one Rust file per table, data only (the types it fills are in
src/ioctl/defs.rs, the lookups over it in src/ioctl/names.rs). Never edit
those files by hand.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ioctl_exceptions import EXCEPTIONS, KERNEL_TYPES  # noqa: E402

INCLUDE = "/usr/include"
ARCH_INCLUDE = "/usr/include/x86_64-linux-gnu"
PACKAGE = "linux-libc-dev"
# The kernel's DRM uapi headers (include/uapi/drm) are not in
# linux-libc-dev; libdrm-dev ships copies of most under /usr/include/libdrm.
DRM_PACKAGE = "libdrm-dev"
LIBDRM = "/usr/include/libdrm"
# The DRM drivers libdrm-dev has no copy of (etnaviv, lima, v3d, panfrost,
# ...) come from the kernel's own include/uapi/drm, in Debian's
# linux-source package (the tree of the same kernel as linux-libc-dev):
# only those headers are read out of its tarball, and only where libdrm-dev
# lacks the file.
KERNEL_SOURCE_PACKAGE = "linux-source-6.1"
KERNEL_SOURCE_TARBALL = "/usr/src/linux-source-6.1.tar.xz"
KERNEL_DRM_MEMBER = "linux-source-6.1/include/uapi/drm"

# Headers from libc6-dev that carry kernel ioctl numbers strace also names.
EXTRA_HEADERS = ["scsi/sg.h", "scsi/scsi.h", "scsi/scsi_ioctl.h"]

# Legacy requests defined as plain 16-bit hex numbers: header -> the type
# bytes (high byte of the number) that are ioctl requests there. These are
# the headers and bytes strace reads its hex requests from (a fact about
# which numbers are ioctls; the rest of those headers' hex numbers are not).
HEX_HEADERS = {
    "linux/hdreg.h": ["03"],
    "scsi/sg.h": ["22"],
    "linux/fb.h": ["46"],
    "linux/kd.h": ["4B"],
    "linux/loop.h": ["4C"],
    "linux/cdrom.h": ["53"],
    "scsi/scsi.h": ["53"],
    "scsi/scsi_ioctl.h": ["53"],
    "asm/ioctls.h": ["46", "54", "66", "74"],
    "asm-generic/ioctls.h": ["46", "54", "66", "74"],
    "linux/vt.h": ["56"],
    "asm/sockios.h": ["89"],
    "asm-generic/sockios.h": ["89"],
    "linux/sockios.h": ["89"],
    "linux/wireless.h": ["8B"],
    # Drivers whose requests are plain numbers of their own: i2c-dev
    # (I2C_SLAVE 0x0703, I2C_RDWR...), the parallel printer (LPGETSTATUS
    # 0x060b...), the BPQ ethernet driver (SIOCGBPQETHPARAM 0x5000).
    "linux/i2c-dev.h": ["07"],
    "linux/lp.h": ["06"],
    "linux/bpqether.h": ["50"],
}

# linux/kvm.h defines the requests of every architecture; on x86 the ARM,
# PowerPC and s390 ones do not exist (the kernel's x86 build has none).
KVM_OTHER_ARCHES = re.compile(
    r"^(KVM_ARM_[A-Z_0-9]+|KVM_ALLOCATE_RMA|KVM_CREATE_SPAPR_TCE|"
    r"KVM_CREATE_SPAPR_TCE_64|KVM_PPC_[A-Z1-9_]+|KVM_S390_[A-Z_0-9]+)$"
)

# Includes every header gets first: the types uapi headers take for granted.
PRELUDE = """\
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <linux/types.h>
#include <linux/ioctl.h>
#include <asm/termbits.h>
#include <linux/limits.h>
#include <linux/major.h>
#include <stdbool.h>
"""

# Headers that need others first (facts about the headers' dependencies).
NEEDS = {
    "linux/fs.h": ["linux/fiemap.h", "linux/blktrace_api.h"],
    "linux/if_pppox.h": ["netinet/in.h"],
    "linux/if_tun.h": ["linux/filter.h", "linux/if.h"],
    "linux/ppp-ioctl.h": ["linux/filter.h"],
    "linux/gsmmux.h": ["linux/if.h"],
    "linux/isdn_ppp.h": ["linux/if.h"],
    "linux/sonet.h": ["linux/atmioc.h"],
    "linux/atm_zatm.h": ["linux/atm.h"],
    "linux/atm_idt77105.h": ["linux/atm.h"],
    "linux/atm_nicstar.h": ["linux/atm.h"],
    "linux/atm_eni.h": ["linux/atm.h"],
    "linux/atm_he.h": ["linux/atm.h"],
    "linux/meye.h": ["linux/videodev2.h"],
    "linux/ivtvfb.h": ["linux/videodev2.h"],
    "sound/asequencer.h": ["sound/asound.h"],
    "sound/emu10k1.h": ["sound/asound.h"],
    "asm/ioctls.h": ["asm/termios.h", "linux/serial.h"],
    "drm/mach64_drm.h": ["drm/drm.h"],
    "drm/r128_drm.h": ["drm/drm.h"],
    "drm/via_drm.h": ["drm/drm.h"],
    "asm-generic/ioctls.h": ["asm/termios.h", "linux/serial.h"],
}

# Declarations some headers expect from elsewhere (types the kernel's own
# headers give them): text placed before the header.
FIXES = {
    "linux/auto_fs.h": "typedef uint32_t compat_ulong_t;\n",
    "xen/evtchn.h": "typedef uint32_t grant_ref_t;\ntypedef uint16_t domid_t;\n",
    "xen/gntdev.h": "typedef uint32_t grant_ref_t;\ntypedef uint16_t domid_t;\n",
}

IOC_MACROS = ["_IO", "_IOR", "_IOW", "_IOWR", "_IOC", "_IOR_BAD", "_IOW_BAD", "_IOWR_BAD"]

# A value that invokes an ioctl macro or a wrapper named like one.
IOC_VALUE = re.compile(r"^([A-Z][A-Z0-9]*)?_S?IO(W|R|WR|C)?(_BAD)?\s*\(")
DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*)(\(?)\s*(.*)$")


def run(cmd, stdin=None):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True)


def package_version(package):
    r = run(["dpkg-query", "-W", "-f=${Version}", package])
    return r.stdout.strip() if r.returncode == 0 else None


def source_text():
    """Which packages' headers the tables come from, with their versions:
    `linux-libc-dev 6.1.187-1, libdrm-dev 2.4.114-1+b1`."""
    parts = [f"{PACKAGE} {package_version(PACKAGE) or 'unknown'}"]
    drm = package_version(DRM_PACKAGE)
    if drm and os.path.isdir(LIBDRM):
        parts.append(f"{DRM_PACKAGE} {drm}")
        if kernel_drm_dir():
            parts.append(f"{KERNEL_SOURCE_PACKAGE} {package_version(KERNEL_SOURCE_PACKAGE)}")
    return ", ".join(parts)


def is_drm_uapi(f):
    """drm.h, drm_mode.h and the drivers' *_drm.h: not libdrm's own API."""
    return f in ("drm.h", "drm_mode.h") or f.endswith("_drm.h")


_KERNEL_DRM = []


def kernel_drm_dir():
    """A directory holding the kernel's DRM driver headers that libdrm-dev
    has no copy of, read from the linux-source package's tarball once;
    None where either package is missing."""
    if _KERNEL_DRM:
        return _KERNEL_DRM[0]
    _KERNEL_DRM.append(None)
    if not (package_version(DRM_PACKAGE) and os.path.isdir(LIBDRM)):
        return None
    if not (package_version(KERNEL_SOURCE_PACKAGE) and os.path.isfile(KERNEL_SOURCE_TARBALL)):
        return None
    d = tempfile.mkdtemp(prefix="gen_ioctls.kdrm.")
    r = run(["tar", "-xJf", KERNEL_SOURCE_TARBALL, "-C", d, "--wildcards", KERNEL_DRM_MEMBER + "/*_drm.h"])
    src = os.path.join(d, KERNEL_DRM_MEMBER)
    if r.returncode != 0 or not os.path.isdir(src):
        shutil.rmtree(d)
        sys.exit(f"gen_ioctls: cannot read {KERNEL_DRM_MEMBER} from {KERNEL_SOURCE_TARBALL}: {r.stderr.strip()}")
    out = os.path.join(d, "drm")
    os.makedirs(out)
    for f in sorted(os.listdir(src)):
        if is_drm_uapi(f) and not os.path.exists(os.path.join(LIBDRM, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, f))
    shutil.rmtree(os.path.join(d, "linux-source-6.1"))
    _KERNEL_DRM[0] = out
    return out


def kernel_drm_headers():
    """The DRM headers read from the kernel's source, as `drm/NAME.h`."""
    d = kernel_drm_dir()
    return sorted("drm/" + f for f in os.listdir(d)) if d else []


def drm_headers():
    """The kernel's DRM uapi headers as libdrm-dev ships them (drm.h,
    drm_mode.h, *_drm.h; not libdrm's own API), as `drm/NAME.h`, and the
    drivers' libdrm-dev lacks, from the kernel's source."""
    if not package_version(DRM_PACKAGE) or not os.path.isdir(LIBDRM):
        return []
    ours = ["drm/" + f for f in os.listdir(LIBDRM) if is_drm_uapi(f)]
    return sorted(ours + kernel_drm_headers())


def header_list():
    """The package's headers as include paths (`linux/fs.h`, `asm/mman.h`)."""
    r = run(["dpkg", "-L", PACKAGE])
    if r.returncode != 0:
        sys.exit(f"gen_ioctls: dpkg -L {PACKAGE} failed: is the package installed?")
    out = set()
    for path in r.stdout.split():
        if not path.endswith(".h") or not os.path.isfile(path):
            continue
        if path.startswith(ARCH_INCLUDE + "/"):
            out.add(path[len(ARCH_INCLUDE) + 1 :])
        elif path.startswith(INCLUDE + "/"):
            out.add(path[len(INCLUDE) + 1 :])
    for h in EXTRA_HEADERS:
        if os.path.isfile(os.path.join(INCLUDE, h)):
            out.add(h)
    out.update(drm_headers())
    return sorted(out)


def header_path(h):
    if h.startswith("drm/") and os.path.isfile(os.path.join(LIBDRM, h[4:])):
        return os.path.join(LIBDRM, h[4:])
    kdrm = kernel_drm_dir() if h.startswith("drm/") else None
    if kdrm and os.path.isfile(os.path.join(kdrm, h[4:])):
        return os.path.join(kdrm, h[4:])
    for base in (ARCH_INCLUDE, INCLUDE):
        p = os.path.join(base, h)
        if os.path.isfile(p):
            return p
    return None


def logical_lines(text):
    """The header's lines with comments removed and continuations joined."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    return text.replace("\\\n", " ").split("\n")


FUNC_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*)\(([\w\s,]*)\)\s*(.*)$")
# A wrapper of the ioctl macros (`DRM_IOWR(nr, type)`), not a request.
WRAPPER_NAME = re.compile(r"^([A-Z][A-Z0-9]*)?_S?IO(W|R|WR|C)?(_BAD)?$")


def families(h):
    """(name, number of parameters) of the function-like requests header
    `h` defines with one or two parameters (`EVIOCGNAME(len)`,
    `EVIOCGBIT(ev, len)`); wrappers of the ioctl macros are not requests."""
    with open(header_path(h), encoding="latin-1") as f:
        lines = logical_lines(f.read())
    out = []
    for line in lines:
        m = FUNC_DEFINE.match(line)
        if not m or WRAPPER_NAME.match(m.group(1)):
            continue
        params = [x.strip() for x in m.group(2).split(",") if x.strip()]
        if IOC_VALUE.match(m.group(3).strip()) and 1 <= len(params) <= 2:
            if m.group(1) not in [n for n, _ in out]:
                out.append((m.group(1), params))
    return out


def param_names(h, param):
    """The constants a family's number parameter takes, by the header's
    naming: parameter `ev` takes `EV_*`, `abs` takes `ABS_*` (plain
    numbers defined in `h` or a header it includes; not `*_MAX`/`*_CNT`).
    {value: first name}."""
    prefix = param.upper() + "_"
    files = [h]
    with open(header_path(h), encoding="latin-1") as f:
        text = f.read()
    for m in re.finditer(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', text, re.M):
        quoted = m.group(1) == '"'
        files.append(os.path.join(os.path.dirname(h), m.group(2)) if quoted else m.group(2))
    out = {}
    for inc in files:
        path = header_path(inc)
        if not path:
            continue
        with open(path, encoding="latin-1") as f:
            for line in logical_lines(f.read()):
                m = re.match(r"^\s*#\s*define\s+(" + prefix + r"[A-Z0-9_]+)\s+(0x[0-9a-fA-F]+|\d+)\s*$", line)
                # A number in the code is one byte: EV_VERSION is no event type.
                if m and not re.search(r"_(MAX|CNT)$", m.group(1)) and int(m.group(2), 0) < 256:
                    out.setdefault(int(m.group(2), 0), m.group(1))
    return out


def candidates(h):
    """(name, kind) for the requests header `h` defines; kind is 'sym' or 'hex'."""
    with open(header_path(h), encoding="latin-1") as f:
        lines = logical_lines(f.read())
    hex_types = HEX_HEADERS.get(h, [])
    # A request defined through one of the header's families
    # (`SOUND_MIXER_READ_VOLUME` is `MIXER_READ(SOUND_MIXER_VOLUME)`).
    family_names = {name for name, _ in families(h)}
    out = []
    seen = set()
    for line in lines:
        m = DEFINE.match(line)
        if not m or m.group(2):
            continue  # not a define, or a function-like macro
        name, value = m.group(1), m.group(3).strip()
        if name in seen:
            continue
        call = re.match(r"^([A-Z][A-Z0-9_]*)\s*\(", value)
        by_family = call is not None and call.group(1) in family_names
        if (IOC_VALUE.match(value) or by_family) and not re.match(r"^_IOC_[A-Z]", value):
            if name.startswith("_") or re.match(r"^_IO", name):
                continue
            if h == "linux/kvm.h" and KVM_OTHER_ARCHES.match(name):
                continue
            seen.add(name)
            out.append((name, "sym"))
        elif hex_types:
            hm = re.match(r"^0x([0-9A-Fa-f]{2})[0-9A-Fa-f]{2}\b", value)
            if hm and hm.group(1).upper() in hex_types and not re.match(r"^0x[0-9A-Fa-f]{4}[0-9A-Fa-fxX]", value):
                seen.add(name)
                out.append((name, "hex"))
    # Requests that are enum members (binder's BR_*/BC_*): `NAME = _IOR(...)`.
    text = "\n".join(lines)
    for m in ENUM_MEMBER.finditer(text):
        name, mac, args = m.group(1), m.group(2), split_args(m.group(3))
        if name in seen or len(args) != (2 if mac == "_IO" else 3):
            continue
        seen.add(name)
        ENUM_TYPES[(h, name)] = (mac, " ".join(args[2].split()) if mac != "_IO" else "")
        out.append((name, "enum"))
    return out


# An enum member whose value is an ioctl macro; its type, by (header, name).
ENUM_MEMBER = re.compile(
    r"^\s*([A-Z][A-Z0-9_]*)\s*=\s*(_IOWR|_IOR|_IOW|_IO)\s*\(((?:[^()]|\([^()]*\))*)\)\s*[,}]", re.M
)
ENUM_TYPES = {}


def split_args(text):
    """A macro call's arguments, split at the commas outside parentheses."""
    args, depth, cur = [], 0, ""
    for c in text:
        if c == "," and depth == 0:
            args.append(cur.strip())
            cur = ""
            continue
        depth += (c == "(") - (c == ")")
        cur += c
    args.append(cur.strip())
    return args


def source(h, names, body, kernel_types=False):
    """The C text that includes header `h` and then `body(names)`; with
    `kernel_types`, the kernel's definitions of the types a package's copy
    of the header declares otherwise (KERNEL_TYPES) replace them in what
    follows the header, so the codes are the kernel's."""
    inc = "".join(f"#include <{d}>\n" for d in NEEDS.get(h, []))
    after = ""
    if kernel_types:
        for name, definition in KERNEL_TYPES.get(h, {}).items():
            after += f"typedef {definition} rtrace_kernel_{name};\n#define {name} rtrace_kernel_{name}\n"
    return PRELUDE + inc + FIXES.get(h, "") + f"#include <{h}>\n" + after + body(names)


def family_points(nparams):
    """Where a family is evaluated: all parameters 1, then each one 2."""
    points = [[1] * nparams]
    for i in range(nparams):
        pt = [1] * nparams
        pt[i] = 2
        points.append(pt)
    return points


def compile_families(h, fams, arch_flag, workdir):
    """{name: family} for the families each of whose parameters moves one
    field of the code: the size (`len`, or N elements of `unit` bytes:
    SPI_IOC_MESSAGE(N)) or the number (`EVIOCGABS(abs)` is nr 0x40 + abs).
    A family is (dir|type bits, nr or nr base, size or size unit, params),
    params in declaration order, each "nr" or "size"."""
    out = {}
    for name, params in fams:
        nparams = len(params)
        points = family_points(nparams)
        body = "".join(
            f"__attribute__((used)) const unsigned int rtrace_ioc_{k} = "
            f"(unsigned int)({name}({', '.join(map(str, pt))}));\n"
            for k, pt in enumerate(points)
        )
        src = source(h, [], lambda _names: body, kernel_types=True)
        r = run(["cc", arch_flag, "-w", "-I", workdir, "-S", "-o", "-", "-x", "c", "-"], stdin=src)
        if r.returncode != 0:
            continue
        vals = [None] * len(points)
        for m in re.finditer(r"^rtrace_ioc_(\d+):\s*\n\s*\.long\s+(-?\d+)", r.stdout, re.M):
            vals[int(m.group(1))] = int(m.group(2)) & 0xFFFFFFFF
        if None in vals:
            continue
        size = lambda c: (c >> 16) & 0x3FFF
        nr = lambda c: c & 0xFF
        base = vals[0]
        kinds = []
        fixed_nr, fixed_size = nr(base), size(base)
        for i in range(nparams):
            moved = vals[i + 1]
            if (moved ^ base) & 0xC000FF00:
                kinds = None  # direction or type moved: not a request family
                break
            if size(moved) != size(base) and nr(moved) == nr(base):
                unit = size(moved) - size(base)
                if unit <= 0 or size(base) != unit:
                    kinds = None
                    break
                kinds.append("size")
                fixed_size = unit
            elif nr(moved) == nr(base) + 1 and size(moved) == size(base):
                kinds.append("nr")
                fixed_nr = nr(base) - 1
            else:
                kinds = None
                break
        if not kinds:
            continue
        consts = tuple(
            tuple(sorted(param_names(h, params[i]).items())) if k == "nr" else ()
            for i, k in enumerate(kinds)
        )
        out[name] = (base & 0xC000FF00, fixed_nr, fixed_size, tuple(kinds), consts)
    return out


def bound_families(fams):
    """Give each family whose parameter is the number the end of its range:
    the next such family's base with the same direction and type (EVIOCGBIT
    ends where EVIOCGABS begins), else 256."""
    out = []
    for key, name, h, nr, size, kinds, consts, ty in fams:
        end = 0
        if "nr" in kinds:
            later = [f[3] for f in fams if f[0] == key and "nr" in f[5] and f[3] > nr]
            end = min(later, default=256)
        out.append((key, nr, name, h, end, size, kinds, consts, ty))
    return sorted(out)


def values_body(names):
    # One request per line, so a compile error names the request.
    return "".join(
        f"__attribute__((used)) const unsigned int rtrace_ioc_{i} = (unsigned int)({n});\n"
        for i, n in enumerate(names)
    )


def types_body(names):
    # The ioctl macros redefined to show which macro and which type argument.
    s = ""
    for mac in IOC_MACROS:
        s += f"#undef {mac}\n"
    s += "#define _IO(t, n) @@_IO@@\n"
    s += "#define _IOC(d, t, n, s) @@_IOC@@\n"
    for mac in ["_IOR", "_IOW", "_IOWR"]:
        s += f"#define {mac}(t, n, ty) @@{mac}@@ ty @@END@@\n"
        s += f"#define {mac}_BAD(t, n, ty) @@{mac}@@ ty @@END@@\n"
    for i, n in enumerate(names):
        s += f"rtrace_type_{i}: {n}\n"
    return s


def stub_dir():
    """An include directory where `<drm/...>` finds libdrm-dev's copies of
    the DRM headers; without libdrm-dev, a stand-in drm/drm.h (kfd_ioctl.h
    needs only the kernel types from it)."""
    d = tempfile.mkdtemp(prefix="gen_ioctls.")
    if drm_headers():
        # libdrm-dev's files and the kernel's others side by side, so the
        # kernel's `#include "drm.h"` finds libdrm-dev's.
        os.makedirs(os.path.join(d, "drm"))
        for h in drm_headers():
            os.symlink(header_path(h), os.path.join(d, h))
        for f in os.listdir(LIBDRM):
            if not os.path.exists(os.path.join(d, "drm", f)):
                os.symlink(os.path.join(LIBDRM, f), os.path.join(d, "drm", f))
        # via_drm.h includes a kernel-internal header it needs nothing from.
        open(os.path.join(d, "via_drmclient.h"), "w").close()
        return d
    os.makedirs(os.path.join(d, "drm"))
    with open(os.path.join(d, "drm", "drm.h"), "w") as f:
        f.write("#include <linux/types.h>\n")
    return d


def compile_values(h, names, arch_flag, workdir):
    """{name: code} for the names that compile; drops the ones that do not."""
    names = list(names)
    for _ in range(8):
        if not names:
            return {}
        src = source(h, names, values_body, kernel_types=True)
        r = run(["cc", arch_flag, "-w", "-I", workdir, "-S", "-o", "-", "-x", "c", "-"], stdin=src)
        if r.returncode == 0:
            vals = {}
            for m in re.finditer(r"^rtrace_ioc_(\d+):\s*\n\s*\.long\s+(-?\d+)", r.stdout, re.M):
                vals[names[int(m.group(1))]] = int(m.group(2)) & 0xFFFFFFFF
            missing = [n for n in names if n not in vals]
            if missing:
                sys.exit(f"gen_ioctls: {h}: no value read back for {missing[:3]}")
            return vals
        # Map the errors to our lines; an error inside a header fails it all.
        first = src.count("\n") - len(names) + 1
        bad = set()
        # An error inside a header's macro is reported at the header's line,
        # with a note at ours ("in expansion of macro"): take both.
        for m in re.finditer(r"^<stdin>:(\d+):\d+: (error|note)", r.stderr, re.M):
            line = int(m.group(1))
            if line >= first:
                bad.add(line - first)
        if not bad:
            return {}
        names = [n for i, n in enumerate(names) if i not in bad]
    return {}


def compile_types(h, names, arch_flag, workdir):
    """{name: (macro, argument type)} from a preprocessor pass."""
    src = source(h, names, types_body)
    r = run(["cc", arch_flag, "-w", "-I", workdir, "-E", "-P", "-x", "c", "-"], stdin=src)
    out = {}
    if r.returncode != 0:
        return out
    for m in re.finditer(r"rtrace_type_(\d+):(.*)", r.stdout):
        text = m.group(2)
        mm = re.search(r"@@(_IO[A-Z]*)@@(?:(.*?)@@END@@)?", text)
        if not mm:
            continue
        ty = " ".join((mm.group(2) or "").split())
        ty = re.sub(r"\s*([\[\]])\s*", r"\1", ty)
        out[names[int(m.group(1))]] = (mm.group(1), ty)
    return out


EXCEPTION_BY_NAME = {n: e for e in EXCEPTIONS for n in e["names"]}
DIRS = {"write": 1, "read": 2, "both": 3}


def real_arg(name, ty, code):
    """What the kernel copies for request `name` (header type `ty`) where
    the header does not say it: (kind, type or max length, direction
    bits, reason, proof), kind one of "type", "string", "value", "ptr";
    None where the header is right. An entry of ioctl_exceptions.py wins;
    else a pointer type is followed to its pointee."""
    code_dir = (code >> 30) & 3
    e = EXCEPTION_BY_NAME.get(name)
    if e:
        d = DIRS[e["dir"]] if "dir" in e else code_dir
        copies = e["copies"]
        if copies == "value":
            return ("value", "", 0, e["reason"], e["proof"])
        if copies.startswith("string "):
            return ("string", int(copies.split()[1]), d, e["reason"], e["proof"])
        return ("type", copies, d, e["reason"], e["proof"])
    if not ty.endswith("*"):
        return None
    pointee = re.sub(r"^const\s+", "", ty[:-1].strip())
    why = f"the header's type `{ty}` is a pointer, so the code carries a pointer's size; the argument is that pointer"
    if pointee == "void":
        return ("ptr", "", code_dir, why + ", to memory of no declared type", "")
    if pointee == "char":
        return ("string", 0, code_dir, why + ", to a string", "")
    return ("type", pointee, code_dir, why + f", and the kernel copies the {pointee} it points to", "")


def sizes_body(types):
    return "".join(
        f"__attribute__((used)) const unsigned int rtrace_ioc_{i} = sizeof({t});\n"
        for i, t in enumerate(types)
    )


def compile_sizes(h, types, arch_flag, workdir):
    """{type: sizeof(type)} on the architecture, for the types header `h`
    (with the kernel's types of KERNEL_TYPES) defines; one that does not
    compile (an incomplete type) is left out."""
    out = {}
    # All at once; where that fails, one by one to find the bad ones.
    for batch in [types] + ([[t] for t in types] if len(types) > 1 else []):
        if all(t in out for t in batch):
            continue
        src = source(h, batch, sizes_body, kernel_types=True)
        r = run(["cc", arch_flag, "-w", "-I", workdir, "-S", "-o", "-", "-x", "c", "-"], stdin=src)
        if r.returncode != 0:
            continue
        for m in re.finditer(r"^rtrace_ioc_(\d+):\s*\n\s*\.long\s+(-?\d+)", r.stdout, re.M):
            out[batch[int(m.group(1))]] = int(m.group(2))
        if len(out) == len(types):
            break
    return out


def group_of(h):
    g = h[:-2] if h.endswith(".h") else h
    return g[len("linux/") :] if g.startswith("linux/") else g


def generate(arch_flag):
    """Every request: list of (code, name, header, macro, type)."""
    entries = []
    workdir = stub_dir()
    fams = {}
    for h in header_list():
        found_fams = compile_families(h, families(h), arch_flag, workdir)
        # The argument type of a family whose parameter is only the number
        # (`EVIOCGABS(abs)` takes a `struct input_absinfo` whatever abs is);
        # one whose parameter is the size carries bytes of that size.
        calls = {f"{n}(1)": n for n, f in found_fams.items() if f[3] == ("nr",)}
        fam_types = {calls[c]: t for c, (_, t) in compile_types(h, list(calls), arch_flag, workdir).items()}
        for name, (key, nr, size, kinds, consts) in found_fams.items():
            ty = fam_types.get(name, "")
            fams.setdefault(name, (key, name, h, nr, size, kinds, consts, ty))
        cands = candidates(h)
        if not cands:
            continue
        names = [n for n, _ in cands]
        vals = compile_values(h, names, arch_flag, workdir)
        types = compile_types(
            h, [n for n, k in cands if k == "sym" and n in vals], arch_flag, workdir
        )
        found = []
        for n, kind in cands:
            if n not in vals:
                continue
            if kind == "hex":
                mac, ty = "", ""
            elif kind == "enum":
                mac, ty = ENUM_TYPES[(h, n)]
            else:
                mac, ty = types.get(n, ("", ""))
            found.append((vals[n], n, h, mac, ty, real_arg(n, ty, vals[n])))
        wanted = sorted({r[1] for *_, r in found if r and r[0] == "type"})
        sizes = compile_sizes(h, wanted, arch_flag, workdir) if wanted else {}
        for code, n, h_, mac, ty, real in found:
            if real and real[0] == "type":
                if real[1] in sizes:
                    real = ("type", real[1], real[2], real[3], real[4], sizes[real[1]])
                else:
                    # Not a complete type here: what it points to is unknown.
                    real = ("ptr", "", real[2], real[3], real[4])
            entries.append((code, n, h_, mac, ty, real))
    shutil.rmtree(workdir)
    # A name defined in two headers (old copies) is one request.
    uniq = {}
    for e in entries:
        uniq.setdefault((e[0], e[1]), e)
    return sorted(uniq.values(), key=lambda e: (e[0], e[1])), bound_families(list(fams.values()))


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(arch, flag, entries, fams, source):
    headers = sorted({e[2] for e in entries} | {f[3] for f in fams})
    index = {h: i for i, h in enumerate(headers)}
    macros = {"": "Hex", "_IO": "Io", "_IOR": "Ior", "_IOW": "Iow", "_IOWR": "Iowr", "_IOC": "Ioc"}
    out = []
    out.append(f"// @generated by tools/gen_ioctls.py: every ioctl request the Linux UAPI headers\n")
    out.append(f"// define, with the codes of {arch} (`cc {flag}`). Do not edit by hand:\n")
    out.append(f"// run `python3 tools/gen_ioctls.py` to regenerate (HACKING.md).\n")
    kdrm = kernel_drm_headers()
    if kdrm:
        out.append(f"// The DRM drivers' headers libdrm-dev lacks are the kernel's own, read from\n")
        out.append(f"// {KERNEL_SOURCE_PACKAGE}'s {KERNEL_SOURCE_TARBALL} ({KERNEL_DRM_MEMBER}):\n")
        for i in range(0, len(kdrm), 4):
            out.append(f"//   {', '.join(kdrm[i:i + 4])}\n")
    out.append(f"//! The {arch} ioctl request table (generated data; see `super::names`).\n\n")
    out.append("use super::defs::{Copied::*, Def, Family, Macro::*, Param::*, Real};\n\n")
    out.append("/// The headers the table was generated from.\n")
    out.append(f"pub const SOURCE: &str = {rust_str(source)};\n\n")
    out.append("/// The headers the requests are defined in, by index.\n")
    out.append("pub static HEADERS: &[&str] = &[\n")
    for h in headers:
        out.append(f"    {rust_str(h)},\n")
    out.append("];\n\n")
    reals = sorted({e[5] for e in entries if e[5]}, key=lambda r: (r[0], str(r[1]), r[2], r[3], r[4]))
    real_index = {r: i for i, r in enumerate(reals)}
    out.append("/// What the kernel copies where the header's type does not say it, with\n")
    out.append("/// the reason and the kernel source line (tools/ioctl_exceptions.py; a\n")
    out.append("/// pointer type's pointee needs no line).\n")
    out.append("#[rustfmt::skip]\n")
    out.append("pub static REAL: &[Real] = &[\n")
    for r in reals:
        kind = r[0]
        if kind == "type":
            copied = f"Pointee({rust_str(r[1])}, {r[5]})"
        elif kind == "string":
            copied = f"Str({r[1]})"
        elif kind == "value":
            copied = "Value"
        else:
            copied = "Ptr"
        out.append(f"    Real::new({copied}, {r[2]}, {rust_str(r[3])}, {rust_str(r[4])}),\n")
    out.append("];\n\n")
    out.append("/// Every request, sorted by code and then name.\n")
    out.append("#[rustfmt::skip]\n")
    out.append("pub static DEFS: &[Def] = &[\n")
    for code, name, h, mac, ty, real in entries:
        if real:
            out.append(
                f"    Def::real(0x{code:08x}, {rust_str(name)}, {index[h]}, {macros[mac]}, {rust_str(ty)}, {real_index[real]}),\n"
            )
        else:
            out.append(
                f"    Def::new(0x{code:08x}, {rust_str(name)}, {index[h]}, {macros[mac]}, {rust_str(ty)}),\n"
            )
    out.append("];\n\n")
    out.append("/// Requests with parameters in their code (`EVIOCGNAME(len)`,\n")
    out.append("/// `EVIOCGBIT(ev, len)`), sorted by direction and type bits, then number.\n")
    out.append("#[rustfmt::skip]\n")
    out.append("pub static FAMILIES: &[Family] = &[\n")
    for key, nr, name, h, end, size, kinds, consts, ty in fams:
        params = []
        for k, names in zip(kinds, consts):
            if k == "size":
                params.append("Size")
            elif names:
                params.append(f"Nr({name}_{len(params)})")
            else:
                params.append("Nr(&[])")
        out.append(
            f"    Family::new(0x{key:08x}, {rust_str(name)}, {index[h]}, 0x{nr:02x}, {end}, {size}, &[{', '.join(params)}], {rust_str(ty)}),\n"
        )
    out.append("];\n")
    for key, nr, name, h, end, size, kinds, consts, ty in fams:
        for i, names in enumerate(consts):
            if names:
                out.append(f"\n/// The names {name}'s parameter {i + 1} takes.\n")
                out.append("#[rustfmt::skip]\n")
                out.append(f"#[allow(non_upper_case_globals)]\n")
                out.append(f"static {name}_{i}: &[(u32, &str)] = &[\n")
                for v, n in names:
                    out.append(f"    ({v}, {rust_str(n)}),\n")
                out.append("];\n")
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=None, help="directory to write the tables into")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = args.out or os.path.join(root, "src", "ioctl")
    source = source_text()
    for arch, flag, fname in [("x86_64", "-m64", "gen_x86_64.rs"), ("i386", "-m32", "gen_i386.rs")]:
        entries, fams = generate(flag)
        with open(os.path.join(out_dir, fname), "w") as f:
            f.write(render(arch, flag, entries, fams, source))
        print(f"gen_ioctls: {fname}: {len(entries)} requests", file=sys.stderr)
    if _KERNEL_DRM and _KERNEL_DRM[0]:
        shutil.rmtree(os.path.dirname(_KERNEL_DRM[0]))


if __name__ == "__main__":
    main()
