//! Names inside the arguments of ioctl requests no hand-written group
//! decodes (src/ioctl/named.rs): flag words and enumerations of structs
//! printed from the kernel's BTF (`fsx_xflags=FS_XFLAG_APPEND|...`,
//! `arch=AUDIT_ARCH_X86_64`, `error=-ENOSR`), numbers passed by value at
//! the width the kernel reads them (`LOOP_CTL_ADD, -7` with garbage in the
//! upper half; an fd with `-y`'s path), and the block layer's plain-number
//! requests that read an int or a range. The `ioctl_named` fixture makes
//! each call on fd -1, 64- and 32-bit; whole lines are compared with what
//! strace 6 shows of them, in rtrace's grammar.

mod common;

use common::{assert_lines_in, fixture, fixture_m32, name, trace};

/// The fixture's ioctl lines, as rtrace prints them with `args`.
fn ioctls(bin: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["-e", "trace=ioctl,write"];
    all.extend_from_slice(args);
    let run = trace(&all, &[name(bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    // Past the marker, before the exit line.
    lines[1..lines.len() - 1].to_vec()
}

/// The lines with no option; `fd3` is how fd 3 (/dev/null) prints.
fn expected(fd3: &str) -> Vec<String> {
    [
        "ioctl(-1, FS_IOC_FSSETXATTR, {fsx_xflags=FS_XFLAG_APPEND|FS_XFLAG_NODUMP|0x40000, \
         fsx_extsize=0, fsx_nextents=0, fsx_projid=7, fsx_cowextsize=0, \
         fsx_pad=[0, 0, 0, 0, 0, 0, 0, 0]}) = -1 [EBADF]",
        "ioctl(-1, SETFLAGS, [FS_APPEND_FL|FS_NODUMP_FL]) = -1 [EBADF]",
        // By value: the low 32 bits, whatever the upper half holds.
        &format!("ioctl(-1, LOOP_SET_FD, {fd3}) = -1 [EBADF]"),
        "ioctl(-1, LOOP_CTL_ADD, -7) = -1 [EBADF]",
        "ioctl(-1, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP|0x10) = -1 [EBADF]",
        &format!("ioctl(-1, PERF_EVENT_IOC_SET_BPF, {fd3}) = -1 [EBADF]"),
        "ioctl(-1, NBD_SET_FLAGS, NBD_FLAG_HAS_FLAGS|NBD_FLAG_READ_ONLY) = -1 [EBADF]",
        "ioctl(-1, KVM_CHECK_EXTENSION, KVM_CAP_USER_MEMORY) = -1 [EBADF]",
        // All of the `unsigned long`: the kernel compares it with INT_MAX.
        "ioctl(-1, INOTIFY_IOC_SETNEXTWD, WDNUM) = -1 [EBADF]",
        // The old loop status struct; the cipher's fields once one is set.
        "ioctl(-1, LOOP_SET_STATUS, {lo_number=7, lo_offset=0x1000, \
         lo_flags=LO_FLAGS_READ_ONLY, lo_name=\"disk.img\", ..}) = -1 [EBADF]",
        "ioctl(-1, LOOP_SET_STATUS, {lo_number=7, lo_offset=0x1000, lo_encrypt_type=LO_CRYPT_XOR, \
         lo_encrypt_key_size=3, lo_flags=0, lo_name=\"disk.img\", lo_encrypt_key=\"abc\", ..}) \
         = -1 [EBADF]",
        // A file name with no NUL: the 63 bytes the kernel keeps (the last
        // becomes its NUL), marked as cut; not cut at -s, as strace.
        &format!(
            "ioctl(-1, LOOP_SET_STATUS64, {{lo_offset=0x0, lo_number=0, lo_flags=0, \
             lo_file_name=\"{}\".., ..}}) = -1 [EBADF]",
            "C".repeat(63)
        ),
        "ioctl(-1, LOOP_CONFIGURE, {fd=3, block_size=0, info={lo_offset=0x2000, lo_number=0, \
         lo_flags=0, lo_file_name=\"\", ..}, __reserved=[0x0, 0x9, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0]}) \
         = -1 [EBADF]",
        // Plain numbers whose kernel reads an int or a range.
        "ioctl(-1, BLKROSET, [-5]) = -1 [EBADF]",
        "ioctl(-1, BLKBSZSET, [4096]) = -1 [EBADF]",
        "ioctl(-1, BLKDISCARD, [4096, 8192]) = -1 [EBADF]",
        // The partition the argument points to; its address if unreadable.
        "ioctl(-1, BLKPG, {op=BLKPG_ADD_PARTITION, flags=0, datalen=PGLEN, data={start=1048576, \
         length=4194304, pno=1, devname=\"sdz1\", volname=\"\"}}) = -1 [EBADF]",
        "ioctl(-1, BLKPG, {op=BLKPG_RESIZE_PARTITION, flags=0, datalen=PGLEN, data=&0x1}) \
         = -1 [EBADF]",
        "ioctl(-1, UFFDIO_REGISTER, {range={start=65536, len=4096}, \
         mode=UFFDIO_REGISTER_MODE_MISSING|UFFDIO_REGISTER_MODE_WP, \
         ioctls=1<<_UFFDIO_WAKE}) = -1 [EBADF]",
        "ioctl(-1, UFFDIO_COPY, {dst=65536, src=131072, len=4096, \
         mode=UFFDIO_COPY_MODE_DONTWAKE, copy=0}) = -1 [EBADF]",
        // _IOR in the header, but the kernel reads the range.
        "ioctl(-1, UFFDIO_WAKE, {start=65536, len=4096}) = -1 [EBADF]",
        "ioctl(-1, SECCOMP_IOCTL_NOTIF_SEND, {id=0x2a, val=0, error=-ENOSR, \
         flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE}) = -1 [EBADF]",
        &format!(
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ADDFD, {{id=0x2a, flags=SECCOMP_ADDFD_FLAG_SETFD, \
             srcfd={fd3}, newfd=5, newfd_flags=O_CLOEXEC}}) = -1 [EBADF]"
        ),
        "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0x1, pid=2, flags=0, data={nr=__NR_getpid, \
         arch=AUDIT_ARCH_X86_64, instruction_pointer=NULL, args=[0, 0, 0, 0, 0, 0]}}) \
         = -1 [EBADF] &ADDR",
        // V4L2: what the program asks (no VirtualBox name on fd -1).
        "ioctl(-1, VIDIOC_ENUM_FMT, {index=2, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]",
        "ioctl(-1, VIDIOC_ENUM_FMT, {index=2, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = -1 [EBADF]",
        "ioctl(-1, VIDIOC_REQBUFS, {type=V4L2_BUF_TYPE_VIDEO_OUTPUT, memory=V4L2_MEMORY_DMABUF, \
         count=4}) = -1 [EBADF]",
        "ioctl(-1, VIDIOC_S_INPUT, [1]) = -1 [EBADF]",
        "ioctl(-1, VIDIOC_QUERYCAP, &ADDR) = -1 [EBADF]",
        "ioctl(-1, VIDIOC_QUERYCAP, &ADDR) = -1 [EBADF]",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect()
}

/// The lines of one ABI: FS_IOC_SETFLAGS's name (i386's code is
/// FS_IOC32_SETFLAGS's too), the next watch descriptor, whose upper half
/// is garbage on x86_64, and `struct blkpg_partition`'s size.
fn with_setflags(lines: Vec<String>, wide: bool) -> Vec<String> {
    let (name, next, pglen) = if wide {
        ("FS_IOC_SETFLAGS", "16045690981097406469", "152")
    } else {
        ("FS_IOC32_SETFLAGS or FS_IOC_SETFLAGS", "5", "148")
    };
    lines
        .into_iter()
        .map(|l| {
            l.replace("(-1, SETFLAGS,", &format!("(-1, {name},"))
                .replace("WDNUM", next)
                .replace("PGLEN", pglen)
        })
        .collect()
}

#[test]
fn numbers_inside_ioctl_arguments_are_named() {
    for (bin, wide) in [
        (fixture("ioctl_named"), true),
        (fixture_m32("ioctl_named"), false),
    ] {
        let what = if wide { "x86_64" } else { "i386" };
        let plain = with_setflags(expected("3"), wide);
        assert_lines_in(&ioctls(&bin, &[]), &plain, what);
        let paths = with_setflags(expected("3</dev/null>"), wide);
        assert_lines_in(&ioctls(&bin, &["-y"]), &paths, what);
    }
}

/// With `-v` the old loop status struct has every field, at each ABI's
/// offsets (its `dev_t`s and `long`s are narrower on i386).
#[test]
fn the_old_loop_status_struct_is_read_at_each_abis_offsets() {
    for bin in [fixture("ioctl_named"), fixture_m32("ioctl_named")] {
        let lines: Vec<String> = ioctls(&bin, &["-v"])
            .into_iter()
            .filter(|l| l.contains("LOOP_SET_STATUS,"))
            .collect();
        let expected = [
            "ioctl(-1, LOOP_SET_STATUS, {lo_number=7, lo_device=makedev(0x8, 0x1), lo_inode=12, \
             lo_rdevice=makedev(0x0, 0x0), lo_offset=0x1000, lo_encrypt_type=LO_CRYPT_NONE, \
             lo_encrypt_key_size=0, lo_flags=LO_FLAGS_READ_ONLY, lo_name=\"disk.img\", \
             lo_encrypt_key=\"\", lo_init=[0x0, 0x0], reserved=[0x0, 0x0, 0x0, 0x0]}) = -1 [EBADF]",
            "ioctl(-1, LOOP_SET_STATUS, {lo_number=7, lo_device=makedev(0x8, 0x1), lo_inode=12, \
             lo_rdevice=makedev(0x0, 0x0), lo_offset=0x1000, lo_encrypt_type=LO_CRYPT_XOR, \
             lo_encrypt_key_size=3, lo_flags=0, lo_name=\"disk.img\", lo_encrypt_key=\"abc\", \
             lo_init=[0x0, 0x0], reserved=[0x0, 0x0, 0x0, 0x0]}) = -1 [EBADF]",
        ];
        assert_lines_in(&lines, &expected, &bin.display().to_string());
    }
}

/// V4L2's answers, shown when the calls succeed (injected: the structs
/// hold what the fixture put there, as a driver would answer), 64- and
/// 32-bit; a pixel format no header names is its four characters.
#[test]
fn v4l2_answers_are_decoded() {
    let expected = [
        "ioctl(-1, VIDIOC_ENUM_FMT, {index=2, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 0 \
         {flags=V4L2_FMT_FLAG_COMPRESSED, description=\"Motion-JPEG\", \
         pixelformat=v4l2_fourcc('M', 'J', 'P', 'G') /* V4L2_PIX_FMT_MJPEG */} (INJECTED)",
        "ioctl(-1, VIDIOC_ENUM_FMT, {index=2, type=V4L2_BUF_TYPE_VIDEO_CAPTURE}) = 0 \
         {flags=V4L2_FMT_FLAG_COMPRESSED, description=\"Motion-JPEG\", \
         pixelformat=v4l2_fourcc('Q', 'z', '\\x00', '\\x07')} (INJECTED)",
        "ioctl(-1, VIDIOC_REQBUFS, {type=V4L2_BUF_TYPE_VIDEO_OUTPUT, memory=V4L2_MEMORY_DMABUF, \
         count=4}) = 0 {count=4} (INJECTED)",
        "ioctl(-1, VIDIOC_S_INPUT, [1]) = 0 (INJECTED)",
        "ioctl(-1, VIDIOC_QUERYCAP, {driver=\"vivid\", card=\"Virtual\", \
         bus_info=\"platform:vivid-000\", version=KERNEL_VERSION(6, 1, 0), \
         capabilities=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING|V4L2_CAP_DEVICE_CAPS, \
         device_caps=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING}) = 0 (INJECTED)",
        // No NUL: the 15 bytes a driver's name can be; device_caps
        // whenever it is set, as strace shows it.
        "ioctl(-1, VIDIOC_QUERYCAP, {driver=\"xxxxxxxxxxxxxxx\".., card=\"Virtual\", \
         bus_info=\"platform:vivid-000\", version=KERNEL_VERSION(6, 1, 0), \
         capabilities=V4L2_CAP_VIDEO_CAPTURE, \
         device_caps=V4L2_CAP_VIDEO_CAPTURE|V4L2_CAP_STREAMING}) = 0 (INJECTED)",
    ];
    for bin in [fixture("ioctl_named"), fixture_m32("ioctl_named")] {
        let lines: Vec<String> = ioctls(&bin, &["-e", "inject=ioctl:retval=0"])
            .into_iter()
            .filter(|l| l.contains("VIDIOC"))
            .collect();
        assert_lines_in(&lines, &expected, &bin.display().to_string());
    }
}

/// `-X raw` spells every named number as strace's hex, `-X verbose` adds
/// the names in a comment.
#[test]
fn raw_and_verbose_spell_the_numbers() {
    let bin = fixture("ioctl_named");
    let raw = ioctls(&bin, &["-X", "raw"]);
    let verbose = ioctls(&bin, &["-X", "verbose"]);
    let find = |lines: &[String], what: &str| {
        lines
            .iter()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what} in {lines:#?}"))
            .clone()
    };
    assert_eq!(
        find(&raw, "0x4c80"),
        "ioctl(-1, 0x4c80, -7) = -1 [EBADF]".to_string()
    );
    assert_eq!(
        find(&raw, "0x2400"),
        "ioctl(-1, 0x2400, 0x11) = -1 [EBADF]".to_string()
    );
    assert_eq!(
        find(&verbose, "PERF_EVENT_IOC_ENABLE"),
        "ioctl(-1, 0x2400 /* PERF_EVENT_IOC_ENABLE */, 0x11 /* PERF_IOC_FLAG_GROUP|0x10 */) \
         = -1 [EBADF]"
            .to_string()
    );
    assert_eq!(
        find(&verbose, "KVM_CHECK_EXTENSION"),
        "ioctl(-1, 0xae03 /* KVM_CHECK_EXTENSION */, 0x3 /* KVM_CAP_USER_MEMORY */) \
         = -1 [EBADF]"
            .to_string()
    );
    assert_eq!(
        find(&verbose, "SECCOMP_IOCTL_NOTIF_SEND"),
        // (the normaliser takes the long request number for an address)
        "ioctl(-1, ADDR /* SECCOMP_IOCTL_NOTIF_SEND */, {id=0x2a, val=0, \
         error=-63 /* -ENOSR */, flags=0x1 /* SECCOMP_USER_NOTIF_FLAG_CONTINUE */}) = -1 [EBADF]"
            .to_string()
    );
}

/// JSON carries each name with its value.
#[test]
fn json_carries_the_names() {
    let bin = fixture("ioctl_named");
    let run = trace(&["--json", "-e", "trace=ioctl"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["name"] == "ioctl")
        .collect();
    let arg = |r: &str| {
        calls
            .iter()
            .find(|c| c["args"]["request"] == r)
            .unwrap_or_else(|| panic!("no {r}"))["args"]["arg"]
            .clone()
    };
    assert_eq!(
        arg("FS_IOC_FSSETXATTR")["fsx_xflags"],
        serde_json::json!({"value": 0x40090, "flags": ["FS_XFLAG_APPEND", "FS_XFLAG_NODUMP", "0x40000"]})
    );
    assert_eq!(
        arg("KVM_CHECK_EXTENSION"),
        serde_json::json!({"value": 3, "name": "KVM_CAP_USER_MEMORY"})
    );
    assert_eq!(arg("LOOP_CTL_ADD"), serde_json::json!(-7));
    assert_eq!(
        arg("SECCOMP_IOCTL_NOTIF_SEND")["error"],
        serde_json::json!({"value": -63, "name": "-ENOSR"})
    );
    assert_eq!(
        arg("FS_IOC_SETFLAGS"),
        serde_json::json!([{"value": 0x60, "flags": ["FS_APPEND_FL", "FS_NODUMP_FL"]}])
    );
}
