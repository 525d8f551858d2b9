//! The tty and generic file ioctl groups on a real pseudo-terminal, the
//! socket (interface) ioctls on the loopback interface, and the ioctl
//! teaching aids (--explain-ioctl, --list-ioctls).

mod common;

use common::{fixture, fixture_m32, name, rtrace, s, trace};

#[test]
fn terminal_and_file_ioctls_on_a_pty() {
    fixture("tty_ioctls");
    let run = trace(&[], &["tty_ioctls"]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    let termios = "{c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, \
                   c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN, ..}";
    let expected = [
        format!("ioctl(4, TCGETS, {termios}) = 0"),
        format!("ioctl(4, TCSETS, {termios}) = 0"),
        "ioctl(4, TIOCSWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0".into(),
        "ioctl(4, TIOCGWINSZ, {ws_row=24, ws_col=80, ws_xpixel=0, ws_ypixel=0}) = 0".into(),
        "ioctl(4, FIONREAD, [0]) = 0".into(),
        "ioctl(4, FIONBIO, [1]) = 0".into(),
        "ioctl(4, FIOCLEX) = 0".into(),
        // IF_IN: a failed call shows the pointer, not stale memory.
        "ioctl(4, TIOCGPGRP, &ADDR) = -1 [ENOTTY]".into(),
    ];
    assert_eq!(lines[1..9], expected);
    assert!(
        lines[9].starts_with("ioctl(3, TIOCGPTN, [") && lines[9].ends_with("]) = 0"),
        "{}",
        lines[9]
    );
    let more = [
        "ioctl(4, TCXONC, TCOON) = 0",
        "ioctl(4, TCFLSH, TCIOFLUSH) = 0",
        "ioctl(4, TCFLSH, 7) = -1 [EINVAL]",
        // A pty has no modem lines; the bits asked for print anyway.
        "ioctl(4, TIOCMBIS, [TIOCM_DTR|TIOCM_RTS]) = -1 [ENOTTY]",
        "ioctl(4, TIOCMBIC, [TIOCM_DTR|TIOCM_RTS]) = -1 [ENOTTY]",
        "ioctl(4, TIOCMSET, [TIOCM_DTR|TIOCM_LOOP|0x10000]) = -1 [ENOTTY]",
        "ioctl(4, TIOCMGET, &ADDR) = -1 [ENOTTY]",
        "ioctl(4, TIOCGETD, [0]) = 0",
        "ioctl(4, TIOCSETD, [0]) = 0",
        "ioctl(3, TIOCGPTPEER, O_RDWR|O_NOCTTY|O_CLOEXEC) = 5",
        "close(5) = 0",
    ];
    assert_eq!(lines[10..21], more);
    // Whether a byte may be injected depends on privilege and on the
    // dev.tty.legacy_tiocsti sysctl; the argument prints the same.
    let sti = ["0", "-1 [EPERM]", "-1 [EIO]"].map(|r| format!("ioctl(4, TIOCSTI, \"x\") = {r}"));
    assert!(sti.contains(&lines[21]), "{}", lines[21]);
    let files = [
        "ioctl(4, TCFLSH, TCIFLUSH) = 0",
        // btrfs's older names for the same codes: a tty cannot choose (strace
        // prints the same).
        "ioctl(4, BTRFS_IOC_CLONE or FICLONE, -1) = -1 [EBADF]",
        "ioctl(4, BTRFS_IOC_CLONE_RANGE or FICLONERANGE, {src_fd=-1, src_offset=4096, src_length=8192, dest_offset=0}) = -1 [EBADF]",
        "ioctl(4, BTRFS_IOC_FILE_EXTENT_SAME or FIDEDUPERANGE, {src_offset=0, src_length=4096, dest_count=0, ..}) = -1 [EINVAL]",
        // The input speed (CIBAUD) apart from the output speed, as strace
        // spells it.
        "ioctl(4, TCSETS, {c_iflag=0, c_oflag=NL1|CR2|TAB3|BS0|VT0|FF0|OPOST, \
         c_cflag=B115200|B75<<IBSHIFT|CS7|PARENB|CRTSCTS, c_lflag=0, ..}) = 0",
        "exit_group(0)",
        "Process exited normally with code 0",
    ];
    assert_eq!(lines[22..], files);
    // -y: the peer TIOCGPTPEER opened is in the fd table.
    let fds = trace(&["-y"], &["tty_ioctls"]).after_marker();
    assert!(
        fds.iter().any(|l| l.starts_with("close(5</dev/pts/")),
        "{fds:#?}"
    );

    let verbose = trace(&["-v"], &["tty_ioctls"]).after_marker();
    // The control characters are the kernel's defaults for a new pty;
    // each is labelled, and the line discipline named, as strace -v does.
    assert_eq!(
        verbose[1],
        "ioctl(4, TCGETS, {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|TAB0|BS0|VT0|FF0|OPOST|ONLCR, \
         c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|ECHO|ECHOE|ECHOK|IEXTEN, c_line=N_TTY, \
         c_cc=[[VINTR]=0x3, [VQUIT]=0x1c, [VERASE]=0x7f, [VKILL]=0x15, [VEOF]=0x4, [VTIME]=0, \
         [VMIN]=0x1, [VSWTC]=0, [VSTART]=0x11, [VSTOP]=0x13, [VSUSP]=0x1a, [VEOL]=0, \
         [VREPRINT]=0x12, [VDISCARD]=0xf, [VWERASE]=0x17, [VLNEXT]=0x16, [VEOL2]=0, [17]=0, \
         [18]=0]}) = 0"
    );
    let values = trace(&["-V"], &["tty_ioctls"]).after_marker();
    assert_eq!(
        values[1],
        "ioctl(4, 0x5401, {c_iflag=0x500, c_oflag=0x5, c_cflag=0xbf, c_lflag=0x803b, ..}) = 0"
    );
    assert_eq!(values[7], "ioctl(4, 0x5451) = 0");
}

#[test]
fn explain_and_list_teach_the_codes() {
    // Without the kernel's BTF, so the text is the same on every machine.
    let out = rtrace()
        .args(["--explain-ioctl", "0xc0109207"])
        .env("RTRACE_BTF_DIR", "/nonexistent/rtrace-no-btf")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text,
        "request 0xc0109207 = _IOWR(0x92, 0x7, 16)\n\
         \x20 bits 31-30  direction  3 = _IOC_READ|_IOC_WRITE (both ways)\n\
         \x20 bits 29-16  size       16 bytes\n\
         \x20 bits 15-8   type       0x92\n\
         \x20 bits 7-0    number     7 (0x7)\n\
         MON_IOCX_MFETCH in group usbmon: _IOWR(0x92, 7, struct mon_bin_mfetch)\n\
         \x20 argument: pointer to struct mon_bin_mfetch, decoded before and after the call\n\
         \x20 layout from rtrace's usbmon decoder: struct mon_bin_mfetch (16 bytes)\n\
         \x20   @0   8  u32 * offvec\n\
         \x20   @8   4  u32 nfetch\n\
         \x20   @12  4  u32 nflush\n\
         \x20 (no kernel BTF here to check this layout against)\n"
    );
    // A legacy number: its bits say nothing of the argument, and say so.
    let out = rtrace()
        .args(["--explain-ioctl", "TCGETS"])
        .env("RTRACE_BTF_DIR", "/nonexistent/rtrace-no-btf")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "TCGETS is request 0x00005401\n\
         request 0x00005401 = _IO('T', 0x1)\n\
         \x20 bits 31-30  direction  0 = _IOC_NONE (no data, or data by value)\n\
         \x20 bits 29-16  size       0 bytes\n\
         \x20 bits 15-8   type       0x54 'T'\n\
         \x20 bits 7-0    number     1 (0x1)\n\
         TCGETS in group tty: 0x5401\n\
         \x20 argument: pointer to struct termios, decoded after the call\n\
         \x20 (a legacy number, from before request codes said what they carry: its\n\
         \x20  bits say no data travels; the kernel's handler takes the argument above)\n\
         \x20 layout from rtrace's tty decoder: struct termios (36 bytes)\n\
         \x20   @0   4  tcflag_t c_iflag\n\
         \x20   @4   4  tcflag_t c_oflag\n\
         \x20   @8   4  tcflag_t c_cflag\n\
         \x20   @12  4  tcflag_t c_lflag\n\
         \x20   @16  1  cc_t c_line\n\
         \x20   @17  19 cc_t[19] c_cc\n\
         \x20 (no kernel BTF here to check this layout against)\n"
    );
    let out = rtrace()
        .args(["--explain-ioctl", "0x5401"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("TCGETS in group tty"));
    let out = rtrace()
        .args(["--explain-ioctl", "0xc0082a00"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("DIAG_IOCSREG in group user_events"));
    let out = rtrace()
        .args(["--explain-ioctl", "0x1234"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("no header and no group rtrace knows names this request")
    );

    let out = rtrace().args(["--list-ioctls", "usbmon"]).output().unwrap();
    let list = String::from_utf8_lossy(&out.stdout);
    assert_eq!(list.lines().count(), 12, "{list}");
    assert_eq!(list.lines().last(), Some("11 requests in 1 group"));
    assert!(list.lines().any(|l| l == "usbmon     0xc0109207 MON_IOCX_MFETCH              pointer to struct mon_bin_mfetch, decoded before and after the call"));
    let out = rtrace().args(["--list-ioctls"]).output().unwrap();
    let all = String::from_utf8_lossy(&out.stdout);
    for group in ["usbmon", "user_events", "tty", "file", "usbdevfs"] {
        assert!(all.lines().any(|l| l.starts_with(group)), "{group}");
    }
    let out = rtrace().args(["--list-ioctls", "nosuch"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("rtrace: no ioctl group 'nosuch'"));
}

#[test]
fn interface_ioctls_on_the_loopback_interface() {
    // 64- and 32-bit: the ifreq is read the same way from both.
    for bin in [fixture("sockios"), fixture_m32("sockios")] {
        let run = trace(&[], &[name(&bin)]);
        assert_eq!(run.code(), Some(0), "{}", run.stderr());
        assert_eq!(
            run.after_marker()[1..],
            s(&[
                "ioctl(3, SIOCGIFINDEX, {ifr_name=\"lo\"}) = 0 {ifr_ifindex=1}",
                "ioctl(3, SIOCGIFNAME, {ifr_ifindex=1}) = 0 {ifr_name=\"lo\"}",
                "ioctl(3, SIOCGIFMTU, {ifr_name=\"lo\"}) = 0 {ifr_mtu=65536}",
                "ioctl(3, SIOCGIFHWADDR, {ifr_name=\"lo\"}) = 0 {ifr_hwaddr={sa_family=ARPHRD_LOOPBACK, \
                 sa_data=00:00:00:00:00:00}}",
                "ioctl(3, SIOCGIFFLAGS, {ifr_name=\"lo\"}) = 0 \
                 {ifr_flags=IFF_UP|IFF_LOOPBACK|IFF_RUNNING}",
                "ioctl(3, SIOCGIFINDEX, {ifr_name=\"nosuchif0\"}) = -1 [ENODEV]",
                "exit_group(0)",
                "Process exited normally with code 0",
            ]),
            "{}",
            bin.display()
        );
    }
}
