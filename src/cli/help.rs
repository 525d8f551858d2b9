//! The help's closing text: examples, notes and the list of ABI
//! diagnostics (also the man page's last sections).

const EXAMPLES: &str = "\
Examples:
  rtrace ls /tmp                     trace a command
  rtrace -f -o trace.txt tcpdump -i usbmon1
                                     follow children, write the trace to a file
  rtrace -ff -o trace wireshark      each process's trace in its own file, trace.PID
  rtrace -p 1234 -p 1240             attach to running processes (Ctrl-C detaches)
  rtrace -N -v cat /etc/hostname     name every parameter, print longer strings
  rtrace -f -e trace=ioctl dumpcap -i usbmon1
                                     only the ioctls, each fetched USB event decoded
  rtrace -f --filter 'request ~ MON_IOCX_* && result == 0' tcpdump -i usbmon0
                                     the kernel's event-filter language
  rtrace -c -f make                  count calls, errors and time per call
  rtrace --explain-ioctl 0xc0109207  what an ioctl request code means
  rtrace --explain-ioctl BLKGETSIZE64  ... or a request by name
  rtrace --list-ioctls kvm           every request of one group (a header)

Output: one line per call, `name(params) = result`; `-1 [ENOENT]` for errors;
`** SIGNAL **` where a signal arrived; with several processes each line starts
with `PID| `, a call interrupted by another process's output ends with `<..>`
and resumes on a line marked `PID|*`; signals that come one after another
share a line, as in MINIX trace(1).

ioctl arguments: a request no decoder of rtrace's knows prints its argument
field by field from the running kernel's BTF (/sys/kernel/btf) when the
request's header names a type the kernel describes; else the bytes its code
says it carries, as a string cut at -s (_IOW before the call, _IOR after it,
_IOWR both); an _IO request's argument prints as a number.

Interrupts: the first SIGINT, SIGTERM, SIGHUP or SIGQUIT detaches from -p
processes and lets the started command finish, traced; sent to rtrace alone
(kill, timeout; not a terminal's ^C, which the command gets anyway) it is
passed on to the command, as strace does. A second one kills the command
and ends rtrace, also while writing the trace is blocked (-o FIFO whose
reader stopped reading).

The started command gets the ignored signals and signal mask rtrace was
given (nohup, trap ''). On a terminal each line of the trace is shown
before the traced program runs on; to a file or pipe the trace is buffered
and written in whole lines.

Environment: RTRACE_NO_SYSCALL_INFO=1 reads system call stops from the
registers, as on kernels before 5.3 (to test that path on a newer kernel).
RTRACE_BTF_DIR=DIR reads the kernel's BTF from DIR instead of /sys/kernel/btf
(a directory without a vmlinux file turns BTF decoding off).
RTRACE_LIBDW=PATH loads PATH instead of libdw.so.1 to unwind i386 stacks (-k).";

/// The help's closing text: the examples and notes, then the list of ABI
/// diagnostics, made from the table that names them.
pub(super) fn after_help() -> String {
    let mut text = String::from(EXAMPLES);
    text.push_str(
        "\n\nDiagnostics: where a program breaks the usbmon or user_events ABI, said after\n\
         the call as a line of its own, `** usbmon: fd 3: ... **` (a `diag` object\n\
         with --json), whether or not the call is printed; on by default, -e diag=none\n\
         turns them off, -e diag=usbmon or diag=user_events keeps one kind:",
    );
    for &(area, kind, what) in rtrace_cli::diag::KINDS {
        let head = format!("  {}/{kind}", area.name());
        text.push('\n');
        text.push_str(&wrap(&head, 28, what));
    }
    text
}

/// `head` padded to `indent` columns, then `body` wrapped at 80 columns
/// with continuation lines indented as much.
fn wrap(head: &str, indent: usize, body: &str) -> String {
    let mut out = format!("{head:indent$}");
    if head.len() >= indent {
        out.push_str(&format!("\n{:indent$}", ""));
    }
    let mut col = indent;
    for (i, word) in body.split(' ').enumerate() {
        if i > 0 && col + 1 + word.len() > 80 {
            out.push_str(&format!("\n{:indent$}", ""));
            col = indent;
        } else if i > 0 {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out
}
