"""The kernel's known exceptions to its ioctl headers, read by gen_ioctls.py.

A request's header says, through its `_IOR`/`_IOW`/`_IOWR` macro, which
type travels and which way. For most requests that is what the kernel
copies; for the ones below it is not, and the generated tables carry what
the kernel really does instead (the header's type stays beside it, for
`--explain-ioctl`). Each entry gives its reason and the kernel source line
that proves it (Linux 6.1, the version of the headers the tables come
from: Debian's linux-source-6.1 has the same tree).

One rule needs no entry: a header whose type is itself a pointer
(`_IOR('$', 7, __u64 *)`) declares the size of the pointer, but the
argument *is* that pointer and the kernel copies what it points to
(PERF_EVENT_IOC_ID: `copy_to_user((void __user *)arg, &id, sizeof(id))`).
gen_ioctls.py follows every such type to its pointee (`char *` to a
string, `void *` to untyped memory); an entry here overrides the rule.

Fields of an entry:

- `names`: the requests (every name the headers give them: the `FS_IOC32_*`
  forms share the i386 codes of the plain ones).
- `copies`: what the kernel copies, one of
  - a C type (`int`, `struct ifreq`): at the pointer, of that type's size
    on the program's architecture (the generator asks the compiler);
  - `string N`: a NUL-terminated string at the pointer, at most N bytes
    with its NUL (`strndup_user(p, N)`);
  - `value`: nothing; the argument itself is the number.
- `dir` (optional): how the kernel moves it when the code's direction bits
  say otherwise: `write` (program to kernel), `read` (kernel to program),
  `both`.
- `reason`, `proof`: why, and the source line that shows it.

`KERNEL_TYPES` is for headers whose copy in a package differs from the
kernel's: the type the kernel compiles its request codes with.
"""

EXCEPTIONS = [
    {
        "names": ["FS_IOC_GETFLAGS", "FS_IOC_SETFLAGS"],
        "copies": "int",
        "reason": "declared `long`, but the kernel copies an `unsigned int` "
        "(the 32-bit forms FS_IOC32_* say `int` and mean the same)",
        "proof": "fs/ioctl.c:704 ioctl_getflags(file, unsigned int __user *argp): "
        "put_user(fa.flags, argp) (:711); fs/ioctl.c:723 ioctl_setflags(): "
        "get_user(flags, argp); fs/ioctl.c:950 compat: FS_IOC32_GETFLAGS is "
        "FS_IOC_GETFLAGS, `These access 32-bit values anyway`",
    },
    {
        "names": ["FS_IOC_GETVERSION", "FS_IOC_SETVERSION"],
        "copies": "int",
        "reason": "declared `long`, but the file systems copy an `int` "
        "(the inode's generation)",
        "proof": "fs/ext4/ioctl.c:1234 __ext4_ioctl(): put_user(inode->i_generation, "
        "(int __user *) arg) for EXT4_IOC_GETVERSION_OLD (= FS_IOC_GETVERSION, "
        "fs/ext4/ext4.h:706); fs/ext4/ioctl.c:1254 get_user(generation, "
        "(int __user *) arg) for FS_IOC_SETVERSION",
    },
    {
        "names": ["TUNSETIFF"],
        "copies": "struct ifreq",
        "dir": "both",
        "reason": "declared `_IOW(int)`, but the kernel reads a `struct ifreq` and "
        "writes it back with the interface's name (`tap%d` becomes `tap0`)",
        "proof": "drivers/net/tun.c:3084 __tun_chr_ioctl(): copy_from_user(&ifr, "
        "argp, ifreq_len) for TUNSETIFF; :3119 copy_to_user(argp, &ifr, "
        "ifreq_len) after tun_set_iff(); ifreq_len is sizeof(struct ifreq) "
        "(:3401), sizeof(struct compat_ifreq) for 32-bit programs (:3429)",
    },
    {
        "names": ["TUNSETQUEUE"],
        "copies": "struct ifreq",
        "reason": "declared `int`, but the kernel reads a `struct ifreq` "
        "(its ifr_flags say attach or detach)",
        "proof": "drivers/net/tun.c:3082 __tun_chr_ioctl(): `cmd == TUNSETIFF || "
        "cmd == TUNSETQUEUE` -> copy_from_user(&ifr, argp, ifreq_len) (:3084); "
        ":3097 tun_set_queue(file, &ifr)",
    },
    {
        "names": ["TUNGETIFF"],
        "copies": "struct ifreq",
        "reason": "declared `unsigned int`, but the kernel writes a `struct ifreq`",
        "proof": "drivers/net/tun.c:3148 __tun_chr_ioctl(): case TUNGETIFF: "
        "tun_get_iff(tun, &ifr); copy_to_user(argp, &ifr, ifreq_len) (:3156)",
    },
    {
        "names": ["TUNSETTXFILTER"],
        "copies": "struct tun_filter",
        "reason": "declared `unsigned int`, but the kernel reads a `struct "
        "tun_filter` (then its `count` addresses)",
        "proof": "drivers/net/tun.c:3250 case TUNSETTXFILTER: update_filter(&tun->txflt, "
        "(void __user *)arg); :886 update_filter(): copy_from_user(&uf, arg, sizeof(uf)) "
        "with `struct tun_filter uf`",
    },
    {
        "names": ["TUNSETSTEERINGEBPF", "TUNSETFILTEREBPF"],
        "copies": "int",
        "dir": "write",
        "reason": "declared `_IOR`, but the kernel reads the int (a BPF program's fd)",
        "proof": "drivers/net/tun.c:3361 case TUNSETSTEERINGEBPF: tun_set_ebpf(tun, "
        "&tun->steering_prog, argp); :3011 tun_set_ebpf(): copy_from_user(&fd, "
        "data, sizeof(fd)) with `int fd`",
    },
    {
        "names": [
            "TUNSETNOCSUM",
            "TUNSETDEBUG",
            "TUNSETPERSIST",
            "TUNSETOWNER",
            "TUNSETGROUP",
            "TUNSETLINK",
            "TUNSETOFFLOAD",
        ],
        "copies": "value",
        "reason": "declared `_IOW(int)`, but the kernel takes the argument itself "
        "as the number, never reading memory",
        "proof": "drivers/net/tun.c __tun_chr_ioctl(): TUNSETNOCSUM `arg ? ...` "
        "(:3165), TUNSETPERSIST `if (arg && ...)` (:3172), TUNSETOWNER "
        "make_kuid(current_user_ns(), arg) (:3189), TUNSETGROUP make_kgid(..., "
        "arg) (:3202), TUNSETLINK `tun->dev->type = (int) arg` (:3228), "
        "TUNSETDEBUG `tun->msg_enable = (u32)arg` (:3238), TUNSETOFFLOAD "
        "set_offload(tun, arg) (:3242)",
    },
    {
        "names": ["DMA_BUF_SET_NAME", "DMA_BUF_SET_NAME_A", "DMA_BUF_SET_NAME_B"],
        "copies": "string 32",
        "reason": "declared `const char *`, `__u32` and `__u64` (the pointer's size "
        "on each architecture), but the argument is the name itself, a string "
        "of at most DMA_BUF_NAME_LEN (32) bytes with its NUL",
        "proof": "drivers/dma-buf/dma-buf.c:479 dma_buf_ioctl(): case "
        "DMA_BUF_SET_NAME_A/_B: dma_buf_set_name(dmabuf, (const char __user *)arg); "
        ":322 dma_buf_set_name(): strndup_user(buf, DMA_BUF_NAME_LEN)",
    },
    {
        "names": ["PERF_EVENT_IOC_SET_FILTER"],
        "copies": "string 4096",
        "reason": "declared `char *`: the argument is the filter text, at most a page",
        "proof": "kernel/events/core.c:5794 _perf_ioctl(): perf_event_set_filter(event, "
        "(void __user *)arg); :10917 strndup_user(arg, PAGE_SIZE)",
    },
    {
        "names": ["CM_IOCGSTATUS"],
        "copies": "int",
        "reason": "declared `unsigned char *`, but the kernel writes an int",
        "proof": "drivers/char/pcmcia/cm4000_cs.c:1450 cmm_ioctl(): case CM_IOCGSTATUS: "
        "copy_to_user(argp, &status, sizeof(int)) (:1466)",
    },
    {
        "names": ["UI_SET_PHYS"],
        "copies": "string 1024",
        "reason": "declared `char*`: the argument is the physical path, at most 1024 bytes",
        "proof": "drivers/input/misc/uinput.c:959 uinput_ioctl_handler(): case "
        "UI_SET_PHYS: phys = strndup_user(p, 1024) (:965)",
    },
    # The loop device's requests are plain numbers older than the macros:
    # no type, no direction bits, but the status ones copy a struct.
    {
        "names": ["LOOP_SET_STATUS"],
        "copies": "struct loop_info",
        "dir": "write",
        "reason": "a plain number (no type, no direction bits), but the kernel reads "
        "a `struct loop_info` (a 32-bit program's is the compat layout, which the "
        "i386 table's size is)",
        "proof": "drivers/block/loop.c:1579 lo_ioctl(): case LOOP_SET_STATUS: "
        "loop_set_status_old(lo, argp); :1401 copy_from_user(&info, arg, "
        "sizeof (struct loop_info)); :1719 lo_compat_ioctl(): "
        "loop_set_status_compat(lo, (const struct compat_loop_info __user *)arg)",
    },
    {
        "names": ["LOOP_GET_STATUS"],
        "copies": "struct loop_info",
        "dir": "read",
        "reason": "a plain number (no type, no direction bits), but the kernel writes "
        "a `struct loop_info`",
        "proof": "drivers/block/loop.c:1585 lo_ioctl(): case LOOP_GET_STATUS: "
        "loop_get_status_old(lo, argp); :1428 copy_to_user(arg, &info, sizeof(info))",
    },
    {
        "names": ["LOOP_SET_STATUS64"],
        "copies": "struct loop_info64",
        "dir": "write",
        "reason": "a plain number (no type, no direction bits), but the kernel reads "
        "a `struct loop_info64`",
        "proof": "drivers/block/loop.c:1587 lo_ioctl(): case LOOP_SET_STATUS64: "
        "loop_set_status64(lo, argp); :1412 copy_from_user(&info64, arg, "
        "sizeof (struct loop_info64))",
    },
    {
        "names": ["LOOP_GET_STATUS64"],
        "copies": "struct loop_info64",
        "dir": "read",
        "reason": "a plain number (no type, no direction bits), but the kernel writes "
        "a `struct loop_info64`",
        "proof": "drivers/block/loop.c:1593 lo_ioctl(): case LOOP_GET_STATUS64: "
        "loop_get_status64(lo, argp); :1442 copy_to_user(arg, &info64, sizeof(info64))",
    },
    {
        "names": ["LOOP_CONFIGURE"],
        "copies": "struct loop_config",
        "dir": "write",
        "reason": "a plain number (no type, no direction bits), but the kernel reads "
        "a `struct loop_config`",
        "proof": "drivers/block/loop.c:1567 lo_ioctl(): case LOOP_CONFIGURE: "
        "copy_from_user(&config, argp, sizeof(config)) (:1570)",
    },
    # The block layer's plain-number requests that read memory (ioctl2,
    # session 11).
    {
        "names": ["BLKROSET"],
        "copies": "int",
        "dir": "write",
        "reason": "a plain number (no type, no direction bits), but the kernel reads an int",
        "proof": "block/ioctl.c:490 blkdev_common_ioctl(): case BLKROSET: "
        "blkdev_roset(); :376 get_user(n, (int __user *)arg)",
    },
    {
        "names": ["BLKBSZSET"],
        "copies": "int",
        "reason": "declared `size_t`, but the kernel reads an int",
        "proof": "block/ioctl.c:608 blkdev_ioctl(): case BLKBSZSET: "
        "blkdev_bszset(bdev, mode, argp); :453 `int __user *argp`, :462 get_user(n, argp)",
    },
    {
        "names": ["BLKDISCARD", "BLKSECDISCARD", "BLKZEROOUT"],
        "copies": "__u64[2]",
        "dir": "write",
        "reason": "plain numbers (no type, no direction bits), but the kernel reads "
        "a range, `uint64_t range[2]` (start and length)",
        "proof": "block/ioctl.c:492-497 blkdev_common_ioctl(): blk_ioctl_discard(), "
        "blk_ioctl_secure_erase(), blk_ioctl_zeroout(); :102, :140, :174 "
        "copy_from_user(range, ..., sizeof(range)) with `uint64_t range[2]`",
    },
    {
        "names": ["UFFDIO_WAKE", "UFFDIO_UNREGISTER"],
        "copies": "struct uffdio_range",
        "dir": "write",
        "reason": "declared `_IOR` (the header says so: they should have been _IOW), "
        "but the kernel reads the range",
        "proof": "fs/userfaultfd.c:2055-2059 userfaultfd_ioctl(): userfaultfd_unregister(), "
        "userfaultfd_wake(); :1561 copy_from_user(&uffdio_unregister, buf, "
        "sizeof(uffdio_unregister)); :1723 copy_from_user(&uffdio_wake, buf, sizeof(uffdio_wake))",
    },
    {
        "names": ["INOTIFY_IOC_SETNEXTWD"],
        "copies": "value",
        "reason": "declared `_IOW(__u32)`, but the kernel takes the argument itself, "
        "all of the `unsigned long` (the next watch descriptor, 1 to INT_MAX)",
        "proof": "fs/notify/inotify/inotify_user.c:340 inotify_ioctl(): case "
        "INOTIFY_IOC_SETNEXTWD: `if (arg >= 1 && arg <= INT_MAX)` (:342), "
        "idr_set_cursor(&data->idr, (unsigned int)arg) (:347)",
    },
    # perf's requests that take their argument by value (ioctl2, session 11).
    {
        "names": ["PERF_EVENT_IOC_SET_BPF", "PERF_EVENT_IOC_PAUSE_OUTPUT"],
        "copies": "value",
        "reason": "declared `_IOW(__u32)`, but the kernel takes the argument itself "
        "(a BPF program's fd; pause or resume)",
        "proof": "kernel/events/core.c:5789 _perf_ioctl(): case PERF_EVENT_IOC_SET_BPF: "
        "bpf_prog_get(arg) (:5794); :5807 case PERF_EVENT_IOC_PAUSE_OUTPUT: "
        "rb_toggle_paused(rb, !!arg) (:5816)",
    },
]

# Types a package's copy of a header declares otherwise than the kernel:
# header -> {typedef name: the kernel's definition}. The request codes are
# compiled with the kernel's (the type's name stays the header's).
KERNEL_TYPES = {
    # libdrm's sis_drm.h narrowed the kernel's `unsigned long`s to `unsigned
    # int`: 24 and 8 bytes on x86_64 where the kernel's are 32 and 16, so
    # libdrm's DRM_IOCTL_SIS_* codes are not the ones the kernel answers.
    # Proof: include/uapi/drm/sis_drm.h:58-71 (the kernel's typedefs);
    # drivers/gpu/drm/sis/sis_mm.c:355 DRM_IOCTL_DEF_DRV(SIS_FB_ALLOC, ...),
    # whose codes are built from those.
    "drm/sis_drm.h": {
        "drm_sis_mem_t": "struct { int context; unsigned long offset; "
        "unsigned long size; unsigned long free; }",
        "drm_sis_agp_t": "struct { unsigned long offset, size; }",
        "drm_sis_fb_t": "struct { unsigned long offset, size; }",
    },
}
