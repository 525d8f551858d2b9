"""The kernel's name tables: which names, from which headers, in which order.

This is the one place to add a table of kernel names (HACKING.md,
"Generated tables"); `tools/regen` turns it into src/abi/xlat/AREA.rs with
the values the C compiler gives. Each table is one `T(...)`:

    T(area, RUST_NAME, [headers], kind, doc, names=[...] | prefix="X_" | enum="MEMBER")

- area: the file (src/abi/xlat/AREA.rs, `crate::abi::xlat::AREA::NAME`).
- kind: "values" (one value each, `&[(ty, &str)]`, first match wins),
  "flags" (bit masks, `&[FlagDef]`; "MASK:NAME" is the value NAME of the
  multi-bit field MASK, any C expression), or "shift" (bit numbers,
  printed as `1<<NAME`).
- names: an explicit list, kept in its order (the lookup order); or every
  `#define` starting with `prefix` (less `exclude`); or every member of the
  enum holding `enum`. `sort=True` orders rows by value.
- ty: the Rust type of a values table's numbers (i64, u64, u32); bits: the
  width the values are cut to (32 for a flags word the kernel reads as an
  int, so `1<<31` is 0x80000000).
"""


class T:
    """One table (see the module's doc)."""

    def __init__(self, area, name, headers, kind, doc, names=None, prefix=None, enum=None,
                 exclude=(), ty="i64", bits=64, sort=False):
        assert kind in ("values", "flags", "shift"), kind
        assert [names, prefix, enum].count(None) == 2, name
        self.area, self.name, self.headers, self.kind, self.doc = area, name, headers, kind, doc
        self.names, self.prefix, self.enum, self.exclude = names, prefix, enum, set(exclude)
        self.ty, self.bits, self.sort = ty, bits, sort


# The areas, each one generated file, with its module doc.
AREAS = {
    "fs": "Files, paths, descriptors and their flags.",
    "ioctl": "Names the ioctl decoders print inside requests' arguments.",
    "mm": "Memory: mappings, policies, advice.",
}

TABLES = [
    # ---- fs
    T("fs", "XATTR_FLAGS", ["linux/xattr.h"], "flags", "setxattr's flags",
      names=["XATTR_CREATE", "XATTR_REPLACE"]),
    # ---- mm
    T("mm", "MPOL_MODES", ["linux/mempolicy.h"], "flags",
      "A memory policy mode and its mode flags (set_mempolicy, mbind, get_mempolicy's answer);\n"
      "/// the mode is the bits below the lowest mode flag",
      names=[f"(MPOL_MODE_FLAGS & -MPOL_MODE_FLAGS) - 1:{m}" for m in
             ["MPOL_DEFAULT", "MPOL_PREFERRED", "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_LOCAL",
              "MPOL_PREFERRED_MANY"]]
      + ["MPOL_F_STATIC_NODES", "MPOL_F_RELATIVE_NODES", "MPOL_F_NUMA_BALANCING"]),
    T("mm", "MPOL_GET_FLAGS", ["linux/mempolicy.h"], "flags", "get_mempolicy's flags",
      names=["MPOL_F_NODE", "MPOL_F_ADDR", "MPOL_F_MEMS_ALLOWED"]),
    T("mm", "MPOL_MF_FLAGS", ["linux/mempolicy.h"], "flags", "mbind's flags",
      names=["MPOL_MF_STRICT", "MPOL_MF_MOVE", "MPOL_MF_MOVE_ALL", "MPOL_MF_LAZY"]),
    # ---- ioctl
    T("ioctl", "UFFD_FEATURES", ["linux/userfaultfd.h"], "flags",
      "`struct uffdio_api.features`", prefix="UFFD_FEATURE_", sort=True),
    T("ioctl", "UFFD_IOCTLS", ["linux/userfaultfd.h"], "shift",
      "`struct uffdio_api.ioctls` and `struct uffdio_register.ioctls`: bit n is request number n",
      prefix="_UFFDIO_", sort=True),
    T("ioctl", "FIEMAP_FLAGS", ["linux/fiemap.h"], "flags", "`struct fiemap.fm_flags`",
      prefix="FIEMAP_FLAG_", sort=True),
    T("ioctl", "FIEMAP_EXTENT_FLAGS", ["linux/fiemap.h"], "flags",
      "`struct fiemap_extent.fe_flags`", prefix="FIEMAP_EXTENT_", sort=True),
]
