//! ioctl decoders of session 12 (issue 25's ioctl bases), on the
//! `s12_ioctls` fixture, whole lines in rtrace's grammar with strace 6's
//! information:
//!
//! - requests whose result is a new fd show its path under `-y`, as the
//!   calls that open files do (`KVM_CREATE_VM, 0) = 4<anon_inode:kvm-vm>`);
//! - RTC_PARAM_GET's answer after the call, or its pointer when the call
//!   failed (strace's `=> 0x...`);
//! - the socket requests' `struct ifreq` members and SIOCGIFCONF's `struct
//!   ifconf`;
//! - terminal settings: `struct termios2`, `struct termio`, the CIBAUD field;
//! - KVM CPUID entry flags by name;
//! - device mapper headers (`struct dm_ioctl`);
//! - UBI volume requests;
//! - the random device's requests.

mod common;

use common::{assert_lines_in, fixture, fixture_m32, name, trace};

/// The fixture's ioctl lines, as rtrace prints them with `args`.
fn ioctls(bin: &std::path::Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["-e", "trace=ioctl,write"];
    all.extend_from_slice(args);
    let run = trace(&all, &[name(bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let end = lines
        .iter()
        .position(|l| l.contains("\"END\""))
        .expect("the fixture's END marker");
    lines[1..end].to_vec()
}

/// The lines of one section of the fixture (those holding `what`).
fn section(lines: &[String], what: &str) -> Vec<String> {
    lines.iter().filter(|l| l.contains(what)).cloned().collect()
}

#[test]
fn new_fds_from_ioctls_show_their_paths() {
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        let lines = ioctls(&bin, &["-y"]);
        let ns = section(&lines, "NS_GET_USERNS");
        assert_lines_in(
            &ns,
            &["ioctl(3<uts:[#]>, NS_GET_USERNS) = 4<user:[#]>"],
            &what,
        );
        if !std::path::Path::new("/dev/kvm").exists() {
            eprintln!("no /dev/kvm: the KVM part of {what} is skipped");
            continue;
        }
        let kvm = section(&lines, "KVM_CREATE");
        assert_lines_in(
            &kvm,
            &[
                "ioctl(3</dev/kvm>, KVM_CREATE_VM, 0) = 4<anon_inode:kvm-vm>",
                "ioctl(4<anon_inode:kvm-vm>, KVM_CREATE_VCPU, 0) = 5<anon_inode:kvm-vcpu:0>",
            ],
            &what,
        );
        // Without -y the results are numbers.
        let plain = section(&ioctls(&bin, &[]), "KVM_CREATE_VM");
        assert_lines_in(&plain, &["ioctl(3, KVM_CREATE_VM, 0) = 4"], &what);
    }
}

#[test]
fn rtc_parameters() {
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        assert_lines_in(
            &section(&ioctls(&bin, &[]), "RTC_PARAM"),
            &[
                // Failed: where the kernel would have written the value.
                "ioctl(-1, RTC_PARAM_GET, {param=RTC_PARAM_FEATURES, index=0}) = -1 [EBADF] &ADDR",
                "ioctl(-1, RTC_PARAM_SET, {param=RTC_PARAM_FEATURES, uvalue=0xbeef00, index=0}) \
                 = -1 [EBADF]",
                "ioctl(-1, RTC_PARAM_SET, {param=RTC_PARAM_FEATURES, \
                 uvalue=1<<RTC_FEATURE_ALARM, index=0}) = -1 [EBADF]",
            ],
            &what,
        );
        let injected = ioctls(&bin, &["-e", "inject=ioctl:retval=0:when=4+"]);
        assert_lines_in(
            &section(&injected, "RTC_PARAM_GET"),
            &[
                "ioctl(-1, RTC_PARAM_GET, {param=RTC_PARAM_FEATURES, index=0}) = 0 {uvalue=0} \
               (INJECTED)",
            ],
            &what,
        );
    }
}

/// JSON: the failed RTC_PARAM_GET's pointer is what the call returned.
#[test]
fn json_shows_the_unread_answer() {
    let bin = fixture("s12_ioctls");
    let run = trace(&["--json", "-e", "trace=ioctl"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let call: serde_json::Value = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["args"]["request"] == "RTC_PARAM_GET")
        .expect("RTC_PARAM_GET");
    assert_eq!(call["errno"], "EBADF");
    assert_eq!(call["args"]["arg"]["param"]["name"], "RTC_PARAM_FEATURES");
    let ptr = call["returned"]["arg"].as_str().expect("a pointer");
    assert!(ptr.starts_with("0x"), "{call}");
}

/// The socket requests: SIOCGIFCONF's length (alone with no buffer, as
/// the kernel then answers the length it needs) and the interfaces it
/// lists, a getter's answer, a setter's union member, a name of 16 bytes
/// and no NUL as the 15 the kernel keeps, the bridge requests; 64- and
/// 32-bit (each ABI's `struct ifreq` size).
#[test]
fn socket_interface_requests() {
    for (bin, size) in [(fixture("s12_ioctls"), 40), (fixture_m32("s12_ioctls"), 32)] {
        let what = bin.display().to_string();
        let lo = "{sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr(\"127.0.0.1\")}";
        let expected = [
            "ioctl(3, SIOCGIFCONF, {ifc_buf=NULL}) = 0 {ifc_len=# /* # * sizeof(struct ifreq) */, \
             ifc_buf=NULL}"
                .to_string(),
            format!(
                "ioctl(3, SIOCGIFCONF, {{ifc_len={size} /* 1 * sizeof(struct ifreq) */, \
                 ifc_buf=&ADDR}}) = 0 {{ifc_len={size} /* 1 * sizeof(struct ifreq) */, \
                 ifc_buf=[{{ifr_name=\"lo\", ifr_addr={lo}}}]}}"
            ),
            format!("ioctl(3, SIOCGIFADDR, {{ifr_name=\"lo\"}}) = 0 {{ifr_addr={lo}}}"),
            "ioctl(3, SIOCSIFENCAP, [-1]) = -1 [ENOTTY]".to_string(),
            "ioctl(-1, SIOCSIFADDR, {ifr_name=\"0123456789abcde\".., ifr_addr={sa_family=AF_INET, \
             sin_port=htons(80), sin_addr=inet_addr(\"127.0.0.1\")}}) = -1 [EBADF]"
                .to_string(),
            "ioctl(-1, SIOCSIFHWADDR, {ifr_name=\"eth0\", ifr_hwaddr={sa_family=ARPHRD_ETHER, \
             sa_data=02:00:5e:10:20:30}}) = -1 [EBADF]"
                .to_string(),
            "ioctl(-1, SIOCSIFMTU, {ifr_name=\"eth0\", ifr_mtu=1500}) = -1 [EBADF]".to_string(),
            "ioctl(-1, SIOCSIFNAME, {ifr_name=\"eth0\", ifr_newname=\"wan0\"}) = -1 [EBADF]"
                .to_string(),
            "ioctl(-1, SIOCSIFMAP, {ifr_name=\"eth0\", ifr_map={mem_start=0x1000, mem_end=0x0, \
             base_addr=0x0, irq=0x5, dma=0x0, port=0x0}}) = -1 [EBADF]"
                .to_string(),
            "ioctl(-1, SIOCBRADDBR, \"br0\") = -1 [EBADF]".to_string(),
            "ioctl(-1, SIOCBRADDIF, {ifr_ifindex=if_nametoindex(\"lo\")}) = -1 [EBADF]".to_string(),
        ];
        assert_lines_in(&section(&ioctls(&bin, &[]), "SIOC"), &expected, &what);
    }
}

/// JSON: the listed interfaces' addresses are the socket calls' objects;
/// the length is a number.
#[test]
fn json_lists_the_interfaces() {
    let bin = fixture("s12_ioctls");
    let run = trace(&["--json", "-e", "trace=ioctl"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["args"]["request"] == "SIOCGIFCONF")
        .collect();
    assert_eq!(calls.len(), 2, "{calls:?}");
    let listed = &calls[1]["returned"]["arg"];
    assert_eq!(listed["ifc_len"], 40, "{listed}");
    let lo = &listed["ifc_buf"][0];
    assert_eq!(lo["ifr_name"], "lo", "{lo}");
    assert_eq!(lo["ifr_addr"]["sa_family"]["name"], "AF_INET", "{lo}");
}

/// Terminal settings on a pseudo-terminal master: `struct termios2` with
/// an input speed of its own (`B1800<<IBSHIFT`, as strace spells the
/// CIBAUD field) and its speeds with `-v`, the old `struct termio` (8
/// control characters), the locked termios; 64- and 32-bit.
#[test]
fn terminal_settings() {
    // Setting the locked termios needs CAP_SYS_ADMIN.
    // SAFETY: geteuid cannot fail.
    let locked = if unsafe { libc::geteuid() } == 0 {
        "= 0"
    } else {
        "= -1 [EPERM]"
    };
    let cc19 = |first: &str| {
        format!(
            "c_cc=[[VINTR]={first}, [VQUIT]=0, [VERASE]=0, [VKILL]=0, [VEOF]=0, [VTIME]=0, \
             [VMIN]=0, [VSWTC]=0, [VSTART]=0, [VSTOP]=0, [VSUSP]=0, [VEOL]=0, [VREPRINT]=0, \
             [VDISCARD]=0, [VWERASE]=0, [VLNEXT]=0, [VEOL2]=0, [17]=0, [18]=0]"
        )
    };
    let flags2 = "c_iflag=ICRNL, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, \
                  c_cflag=B9600|B1800<<IBSHIFT|CS8|CREAD, c_lflag=ICANON|ECHO";
    let flags1 = "c_iflag=0, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0, c_cflag=B38400|CS7, c_lflag=0";
    let flags0 = "c_iflag=0, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0, c_cflag=B0|CS8, c_lflag=0";
    let plain = [
        format!("ioctl(3, TCSETS2, {{{flags2}, ..}}) = 0"),
        format!("ioctl(3, TCSETA, {{{flags1}, ..}}) = 0"),
        format!("ioctl(3, TIOCSLCKTRMIOS, {{{flags0}, ..}}) {locked}"),
    ];
    let verbose = [
        format!(
            "ioctl(3, TCSETS2, {{{flags2}, c_line=N_TTY, {}, c_ispeed=1800, c_ospeed=9600}}) = 0",
            cc19("0x3")
        ),
        format!(
            "ioctl(3, TCSETA, {{{flags1}, c_line=N_TTY, c_cc=[[VINTR]=0, [VQUIT]=0, \
             [VERASE]=0, [VKILL]=0, [VEOF]=0, [VTIME]=0, [VMIN]=0x1, [VSWTC]=0]}}) = 0"
        ),
        format!(
            "ioctl(3, TIOCSLCKTRMIOS, {{{flags0}, c_line=N_TTY, {}}}) {locked}",
            cc19("0")
        ),
    ];
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        let pick = |lines: Vec<String>| -> Vec<String> {
            lines
                .into_iter()
                .filter(|l| l.contains("(3, TC") || l.contains("TIOCSLCKTRMIOS"))
                .collect()
        };
        assert_lines_in(&pick(ioctls(&bin, &[])), &plain, &what);
        assert_lines_in(&pick(ioctls(&bin, &["-v"])), &verbose, &what);
    }
}

/// A KVM CPUID entry's flags by name (`struct kvm_cpuid_entry2`, printed
/// from the kernel's BTF).
#[test]
fn kvm_cpuid_flags_are_named() {
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        eprintln!("no kernel BTF: kvm_cpuid_flags_are_named skipped");
        return;
    }
    assert_lines_in(
        &section(&ioctls(&fixture("s12_ioctls"), &[]), "KVM_SET_CPUID2"),
        &[
            "ioctl(-1, KVM_SET_CPUID2, {nent=1, padding=0, entries=[{function=4, index=0, \
           flags=KVM_CPUID_FLAG_SIGNIFCANT_INDEX, eax=31, ebx=0, ecx=0, edx=0, \
           padding=[0, 0, 0]}]}) = -1 [EBADF]",
        ],
        "x86_64",
    );
}

/// Device mapper headers: the device, the values each request reads, the
/// flags, `..` for the targets after the header, strace's notes on a
/// version or size this decoder does not read further; after a success
/// the header as the kernel rewrote it (injected). 64- and 32-bit (one
/// layout).
#[test]
fn device_mapper_headers() {
    let head = "version=[4, 1, 2], data_size=312";
    let dev = "dev=makedev(0x12, 0x34), name=\"vg-root\", uuid=\"LVM-xyz\"";
    let expected = [
        format!(
            "ioctl(-1, DM_DEV_STATUS, {{{head}, {dev}, \
             flags=DM_READONLY_FLAG|DM_SKIP_LOCKFS_FLAG}}) = -1 [EBADF]"
        ),
        format!(
            "ioctl(-1, DM_TABLE_LOAD, {{{head}, data_start=312, {dev}, target_count=1, flags=0, \
             ..}}) = -1 [EBADF]"
        ),
        format!(
            "ioctl(-1, DM_DEV_WAIT, {{{head}, data_start=312, {dev}, event_nr=7, flags=0}}) \
             = -1 [EBADF]"
        ),
        "ioctl(-1, DM_VERSION, {version=[5, 1, 2] /* unsupported device mapper ABI version */}) \
         = -1 [EBADF]"
            .to_string(),
        "ioctl(-1, DM_VERSION, {version=[4, 1, 2], data_size=100 /* data_size too small */}) \
         = -1 [EBADF]"
            .to_string(),
    ];
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        assert_lines_in(&section(&ioctls(&bin, &[]), "DM_"), &expected, &what);
    }
    let injected = ioctls(
        &fixture("s12_ioctls"),
        &["-e", "inject=ioctl:retval=0:when=20+"],
    );
    assert_lines_in(
        &section(&injected, "DM_DEV_STATUS"),
        &[format!(
            "ioctl(-1, DM_DEV_STATUS, {{{head}, {dev}, \
             flags=DM_READONLY_FLAG|DM_SKIP_LOCKFS_FLAG}}) = 0 {{{head}, {dev}, target_count=0, \
             open_count=0, event_nr=0, flags=DM_READONLY_FLAG|DM_SKIP_LOCKFS_FLAG}} (INJECTED)"
        )],
        "x86_64",
    );
}

/// UBI: volume creation (the name as `name_len` says, cut there), renames,
/// attaching, a number the kernel reads though the header says `_IOR`,
/// a property, a 64-bit size, no argument; the number a created volume or
/// attached device gets, after the call (injected: the fixture's 25th
/// ioctl on is the UBI part whether or not /dev/kvm exists). 64- and
/// 32-bit (one layout).
#[test]
fn ubi_requests() {
    let expected = [
        "ioctl(-1, UBI_IOCMKVOL, {vol_id=-1, alignment=1, bytes=1048576, \
         vol_type=UBI_DYNAMIC_VOLUME, flags=UBI_VOL_SKIP_CRC_CHECK_FLG, name_len=4, \
         name=\"root\"..}) = -1 [EBADF]",
        "ioctl(-1, UBI_IOCRNVOL, {count=2, ents=[{vol_id=1, name_len=3, name=\"old\"}, \
         {vol_id=2, name_len=3, name=\"new\"}]}) = -1 [EBADF]",
        "ioctl(-1, UBI_IOCATT, {ubi_num=-1, mtd_num=3, vid_hdr_offset=0, max_beb_per1024=0}) \
         = -1 [EBADF]",
        "ioctl(-1, UBI_IOCEBISMAP, [17]) = -1 [EBADF]",
        "ioctl(-1, UBI_IOCSETVOLPROP, {property=UBI_VOL_PROP_DIRECT_WRITE, value=0x1}) \
         = -1 [EBADF]",
        "ioctl(-1, UBI_IOCVOLUP, [4096]) = -1 [EBADF]",
        "ioctl(-1, UBI_IOCVOLRMBLK) = -1 [EBADF]",
    ];
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        assert_lines_in(&section(&ioctls(&bin, &[]), "UBI_"), &expected, &what);
    }
    let injected = ioctls(
        &fixture("s12_ioctls"),
        &["-e", "inject=ioctl:retval=0:when=25+"],
    );
    let answered: Vec<String> = injected
        .into_iter()
        .filter(|l| l.contains("UBI_IOCMKVOL") || l.contains("UBI_IOCATT"))
        .collect();
    assert_lines_in(
        &answered,
        &[
            "ioctl(-1, UBI_IOCMKVOL, {vol_id=-1, alignment=1, bytes=1048576, \
             vol_type=UBI_DYNAMIC_VOLUME, flags=UBI_VOL_SKIP_CRC_CHECK_FLG, name_len=4, \
             name=\"root\"..}) = 0 {vol_id=-1} (INJECTED)",
            "ioctl(-1, UBI_IOCATT, {ubi_num=-1, mtd_num=3, vid_hdr_offset=0, \
             max_beb_per1024=0}) = 0 {ubi_num=-1} (INJECTED)",
        ],
        "x86_64",
    );
}

/// The random device: the entropy count the kernel answers, the bytes
/// RNDADDENTROPY adds, a count added, a request without an argument;
/// 64- and 32-bit.
#[test]
fn random_device_requests() {
    let expected = [
        "ioctl(3, RNDGETENTCNT, [#]) = 0",
        "ioctl(-1, RNDADDENTROPY, {entropy_count=3, buf_size=8, buf=\"12345678\"}) = -1 [EBADF]",
        "ioctl(-1, RNDADDTOENTCNT, [6]) = -1 [EBADF]",
        "ioctl(-1, RNDZAPENTCNT) = -1 [EBADF]",
    ];
    for bin in [fixture("s12_ioctls"), fixture_m32("s12_ioctls")] {
        let what = bin.display().to_string();
        assert_lines_in(&section(&ioctls(&bin, &[]), "RND"), &expected, &what);
    }
}
