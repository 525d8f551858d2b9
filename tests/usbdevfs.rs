//! The usbdevfs ioctl group traced against real programs. There is no USB
//! device here: the requests go to /dev/null, where they fail with ENOTTY
//! (what the program passes is still decoded), or, with a seccomp
//! supervisor answering for the kernel, succeed (what the kernel answered
//! is decoded too).

mod common;

use common::{fixture, name, rtrace, s, trace};

/// Under both engines: the BPF engine copies the bytes behind a
/// transfer's `data` and an URB's `buffer` (the usbdevfs requests'
/// pointed arrays), which it showed as their addresses.
#[test]
fn requests_on_dev_null_show_what_the_program_passes() {
    for engine in [&[][..], &["--bpf"]] {
        requests_on_dev_null_under(engine);
    }
}

fn requests_on_dev_null_under(engine: &[&str]) {
    let bin = fixture("usbdevfs_null");
    let run = trace(engine, &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            // OUT transfers show their data, IN transfers their buffer.
            "ioctl(3, USBDEVFS_CONTROL, {bRequestType=0x40, bRequest=1, wValue=0x100, \
             wIndex=0x2, wLength=4, timeout=1000, data=\"\\1\\2a\\0\"}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_CONTROL, {bRequestType=0x80, bRequest=6, wValue=0x100, \
             wIndex=0x0, wLength=18, timeout=500, data=&ADDR}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_BULK, {ep=0x2, len=5, timeout=0, data=\"hello\"}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_BULK, {ep=0x81, len=64, timeout=100, data=&ADDR}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_SUBMITURB, {type=USBDEVFS_URB_TYPE_BULK, endpoint=0x2, \
             status=0, flags=USBDEVFS_URB_SHORT_NOT_OK|USBDEVFS_URB_ZERO_PACKET, \
             buffer=\"data\", buffer_length=4, actual_length=0, start_frame=0, \
             stream_id=0, error_count=0, signr=SIGUSR1, usercontext=&0x1234}) = -1 [ENOTTY]",
            // A control URB's buffer: the setup packet, then the OUT data.
            "ioctl(3, USBDEVFS_SUBMITURB, {type=USBDEVFS_URB_TYPE_CONTROL, endpoint=0x0, \
             status=0, flags=0, buffer=\"!\\t\\0\\2\\1\\0\\2\\0hi\", buffer_length=10, \
             actual_length=0, start_frame=0, stream_id=0, error_count=0, signr=0, \
             usercontext=NULL}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_SUBMITURB, {type=USBDEVFS_URB_TYPE_INTERRUPT, endpoint=0x83, \
             status=0, flags=0, buffer=&ADDR, buffer_length=8, actual_length=0, \
             start_frame=0, stream_id=0, error_count=0, signr=0, usercontext=NULL}) \
             = -1 [ENOTTY]",
            // _IOR codes the kernel reads.
            "ioctl(3, USBDEVFS_CLAIMINTERFACE, [1]) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_SETINTERFACE, {interface=1, altsetting=2}) = -1 [ENOTTY]",
            // Written by the kernel: only the pointer when the call failed.
            "ioctl(3, USBDEVFS_GET_CAPABILITIES, &ADDR) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_DISCONNECT_CLAIM, {interface=0, \
             flags=USBDEVFS_DISCONNECT_CLAIM_EXCEPT_DRIVER, driver=\"usbfs\"}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_GETDRIVER, {interface=3, ..}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_RESET) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_IOCTL, {ifno=0, ioctl_code=USBDEVFS_DISCONNECT, data=NULL}) \
             = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_REAPURBNDELAY, &ADDR) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_DISCARDURB, &ADDR) = -1 [ENOTTY]",
            "close(3) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ]),
        "{engine:?}"
    );
}

/// The trace lines from the marker on, not normalised: `-V` request codes
/// have eight hex digits, which normalising would take for addresses.
fn raw_after_marker(run: &common::Run) -> Vec<String> {
    let lines: Vec<String> = run.trace.lines().map(str::to_string).collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("write(-1, \"BE"))
        .unwrap_or_else(|| panic!("no marker in trace:\n{}", run.trace));
    lines[start..].to_vec()
}

#[test]
fn values_only_prints_codes_and_numbers() {
    let bin = fixture("usbdevfs_null");
    let lines = raw_after_marker(&trace(&["-V"], &[name(&bin)]));
    assert_eq!(
        lines[5],
        "ioctl(3, 0x8038550a, {type=3, endpoint=0x2, status=0, flags=0x41, \
         buffer=\"data\", buffer_length=4, actual_length=0, start_frame=0, stream_id=0, \
         error_count=0, signr=10, usercontext=&0x1234}) = -1 [25]"
    );
    assert_eq!(
        lines[11],
        "ioctl(3, 0x8108551b, {interface=0, flags=0x2, driver=\"usbfs\"}) = -1 [25]"
    );
    assert_eq!(
        lines[14],
        "ioctl(3, 0xc0105512, {ifno=0, ioctl_code=0x5516, data=NULL}) = -1 [25]"
    );
    // -VV: structs as their addresses.
    let lines = raw_after_marker(&trace(&["-V", "-V"], &[name(&bin)]));
    assert!(
        lines[1].starts_with("ioctl(3, 0xc0185500, &0x7"),
        "{}",
        lines[1]
    );
    assert!(lines[1].ends_with(") = -1 [25]"), "{}", lines[1]);
}

/// The fixture's seccomp supervisor answers for the kernel. This runs
/// without a call selection on purpose: with rtrace's `--seccomp-bpf` fast
/// path the fixture's SECCOMP_RET_USER_NOTIF would outrank rtrace's
/// SECCOMP_RET_TRACE, and the ioctls would never stop.
#[test]
fn a_pretend_device_shows_what_the_kernel_answered() {
    let bin = fixture("usbdevfs_fake");
    let run = trace(&[], &[name(&bin)]);
    if run.code() == Some(77) {
        eprintln!("skipped: seccomp user notification is not available");
        return;
    }
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(run.after_marker(), s(&pretend_device_lines()));
}

/// The same under `--bpf`, where the reaped URBs (behind the pointer the
/// kernel stores, and their buffers and ISO descriptors) were addresses.
/// The supervisor's answers are calls seccomp settles, which fire no
/// sys_enter: their exits take their entry's memory (the requests the
/// kernel reads were pointers before). What differs from ptrace:
/// USBDEVFS_IOCTL's `data`, whose type its inner request chooses, which
/// the BPF engine's plan does not follow (HACKING.md lists it).
#[test]
fn a_pretend_device_shows_what_the_kernel_answered_under_bpf() {
    let bin = fixture("usbdevfs_fake");
    let run = trace(&["--bpf"], &[name(&bin)]);
    if run.code() == Some(77) {
        eprintln!("skipped: seccomp user notification is not available");
        return;
    }
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let want: Vec<&str> = pretend_device_lines()
        .into_iter()
        .map(|line| match line {
            "  > data={nports=4, port=[0, 5, 0, 7]}" => "  > data=&ADDR",
            other => other,
        })
        .collect();
    assert_eq!(run.after_marker(), s(&want));
}

/// What the pretend device's calls print under ptrace.
fn pretend_device_lines() -> Vec<&'static str> {
    vec![
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        // IN transfers: as many bytes as the call returned.
        "ioctl(3, USBDEVFS_CONTROL, {bRequestType=0x80, bRequest=6, wValue=0x100, \
         wIndex=0x0, wLength=64, timeout=500, data=&ADDR}) = 18",
        "  > data=\"\\22\\1\\0\\2\\0\\0\\0@k\\35\\4\\1\\0\\1\\3\\2\\1\\1\"",
        "ioctl(3, USBDEVFS_BULK, {ep=0x81, len=64, timeout=100, data=&ADDR}) = 5",
        "  > data=\"hello\"",
        "ioctl(3, USBDEVFS_GET_CAPABILITIES, {caps=USBDEVFS_CAP_ZERO_PACKET\
         |USBDEVFS_CAP_BULK_CONTINUATION|USBDEVFS_CAP_NO_PACKET_SIZE_LIM\
         |USBDEVFS_CAP_REAP_AFTER_DISCONNECT|USBDEVFS_CAP_MMAP\
         |USBDEVFS_CAP_DROP_PRIVILEGES|USBDEVFS_CAP_CONNINFO_EX\
         |USBDEVFS_CAP_SUSPEND}) = 0",
        "ioctl(3, USBDEVFS_GETDRIVER, {interface=0, ..}) = 0 \
         {interface=0, driver=\"usbhid\"}",
        "ioctl(3, USBDEVFS_CONNECTINFO, {devnum=5, slow=0}) = 0",
        "ioctl(3, USBDEVFS_CONNINFO_EX(24), {size=24, busnum=1, devnum=5, \
         speed=USB_SPEED_HIGH, num_ports=2, ports=[1, 4]}) = 0",
        "ioctl(3, USBDEVFS_IOCTL, {ifno=0, ioctl_code=USBDEVFS_HUB_PORTINFO, \
         data=&ADDR}) = 0",
        "  > data={nports=4, port=[0, 5, 0, 7]}",
        // The argument receives the reaped URB's address.
        "ioctl(3, USBDEVFS_REAPURBNDELAY, &ADDR) = 0",
        "  > urb=&ADDR {type=USBDEVFS_URB_TYPE_INTERRUPT, endpoint=0x81, status=0, \
         flags=0, buffer=\"abc\", buffer_length=8, actual_length=3, start_frame=0, \
         stream_id=0, error_count=0, signr=0, usercontext=&0x99}",
        // A control URB's buffer: the setup packet, then the bytes read.
        "ioctl(3, USBDEVFS_REAPURB, &ADDR) = 0",
        "  > urb=&ADDR {type=USBDEVFS_URB_TYPE_CONTROL, endpoint=0x80, status=0, \
         flags=0, buffer=\"\\200\\6\\0\\1\\0\\0\\22\\0\\22\\1\\0\\2\\0\\0\\0@k\\35\\4\\1\
         \\0\\1\\3\\2\\1\\1\", buffer_length=26, actual_length=18, start_frame=0, \
         stream_id=0, error_count=0, signr=0, usercontext=&0x100}",
        // An ISO URB's packet descriptors follow it: eight, then `..`.
        "ioctl(3, USBDEVFS_REAPURBNDELAY, &ADDR) = 0",
        "  > urb=&ADDR {type=USBDEVFS_URB_TYPE_ISO, endpoint=0x82, status=0, \
         flags=USBDEVFS_URB_ISO_ASAP, buffer=&ADDR, buffer_length=1920, \
         actual_length=0, start_frame=812, number_of_packets=10, error_count=0, \
         signr=0, usercontext=&0x200, iso_frame_desc=[\
         {length=192, actual_length=100, status=0}, \
         {length=192, actual_length=101, status=0}, \
         {length=192, actual_length=102, status=0}, \
         {length=192, actual_length=103, status=-18}, \
         {length=192, actual_length=104, status=0}, \
         {length=192, actual_length=105, status=0}, \
         {length=192, actual_length=106, status=0}, \
         {length=192, actual_length=107, status=0}, ..]}",
        // A 32-bit caller's: a 4-byte pointer to a `usbdevfs_urb32`. On
        // /dev/null the code is also raw gadget's.
        "ioctl(3, USBDEVFS_REAPURBNDELAY or USB_RAW_IOCTL_EP_SET_HALT, &ADDR) = 0",
        "  > urb=&ADDR {type=USBDEVFS_URB_TYPE_BULK, endpoint=0x83, status=0, \
         flags=0, buffer=\"wxyz\", buffer_length=16, actual_length=4, start_frame=0, \
         stream_id=0, error_count=0, signr=0, usercontext=&0x300}",
        "ioctl(3, USBDEVFS_GET_SPEED) = 3",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]
}

/// The compat codes, made through int 0x80 (an i386 call), print under
/// the names the i386 program's header gives them (USBDEVFS_SUBMITURB),
/// not the kernel-internal `*32` ones, and decode with the 32-bit layouts.
#[test]
fn compat_codes_use_the_32_bit_layouts() {
    for engine in [&[][..], &["--bpf"]] {
        compat_codes_under(engine);
    }
}

/// [`compat_codes_use_the_32_bit_layouts`] under one engine (the BPF
/// engine follows the 32-bit structs' pointers, 4 bytes wide).
fn compat_codes_under(engine: &[&str]) {
    let bin = fixture("usbdevfs_compat");
    let run = trace(engine, &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    assert_eq!(
        run.after_marker(),
        s(&[
            "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
            "ioctl(3, USBDEVFS_CONTROL, {bRequestType=0x21, bRequest=9, wValue=0x200, \
             wIndex=0x1, wLength=2, timeout=50, data=\"hi\"}) = -1 [ENOTTY]",
            "ioctl(3, USBDEVFS_SUBMITURB, {type=USBDEVFS_URB_TYPE_BULK, endpoint=0x1, \
             status=0, flags=0, buffer=\"hi\", buffer_length=2, actual_length=0, \
             start_frame=0, stream_id=0, error_count=0, signr=0, usercontext=&0x42}) \
             = -1 [ENOTTY]",
            "close(3) = 0",
            "exit_group(0)",
            "Process exited normally with code 0",
        ])
    );
}

#[test]
fn explain_names_usbdevfs_control_and_its_layout() {
    // Without the kernel's BTF, so the text is the same on every machine.
    let out = rtrace()
        .args(["--explain-ioctl", "0xc0185500"])
        .env("RTRACE_BTF_DIR", "/nonexistent/rtrace-no-btf")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "request 0xc0185500 = _IOWR('U', 0x0, 24)\n\
         \x20 bits 31-30  direction  3 = _IOC_READ|_IOC_WRITE (both ways)\n\
         \x20 bits 29-16  size       24 bytes\n\
         \x20 bits 15-8   type       0x55 'U'\n\
         \x20 bits 7-0    number     0 (0x0)\n\
         USBDEVFS_CONTROL in group usbdevfs: _IOWR('U', 0, struct usbdevfs_ctrltransfer)\n\
         \x20 argument: pointer to struct usbdevfs_ctrltransfer, decoded before the call\n\
         \x20 layout from rtrace's usbdevfs decoder: struct usbdevfs_ctrltransfer (24 bytes)\n\
         \x20   @0   1  __u8 bRequestType\n\
         \x20   @1   1  __u8 bRequest\n\
         \x20   @2   2  __u16 wValue\n\
         \x20   @4   2  __u16 wIndex\n\
         \x20   @6   2  __u16 wLength\n\
         \x20   @8   4  __u32 timeout\n\
         \x20   @16  8  void * data\n\
         \x20 (no kernel BTF here to check this layout against)\n"
    );
}

#[test]
fn list_ioctls_names_every_usbdevfs_request() {
    let out = rtrace()
        .args(["--list-ioctls", "usbdevfs"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 40, "{text}");
    assert_eq!(text.lines().last(), Some("39 requests in 1 group"));
    assert!(
        text.lines().any(|l| l
            == "usbdevfs   0x8004550f USBDEVFS_CLAIMINTERFACE      \
                pointer to int, decoded before the call"),
        "{text}"
    );
}
