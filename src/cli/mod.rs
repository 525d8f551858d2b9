//! The command line: clap parses it into a [`trace::Config`] and an
//! [`Output`], checked before anything is created, and `trace::run`'s
//! result becomes rtrace's own exit status.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};

use rtrace_cli::format::{FdSet, FormatConfig};
use rtrace_cli::kernel::fds::FdDetails;
use rtrace_cli::output::timeline::Timeline;
use rtrace_cli::output::{Output, Timestamps, TraceWriter};
use rtrace_cli::trace;

/// When to color the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum ColorWhen {
    /// Only on a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces).
    Auto,
    /// Always, even into a file.
    Always,
    /// Never.
    Never,
}

const EXAMPLES: &str = "\
Examples:
  rtrace ls /tmp                     trace a command
  rtrace -f -o trace.txt tcpdump -i usbmon1
                                     follow children, write the trace to a file
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
(a directory without a vmlinux file turns BTF decoding off).";

/// The help's closing text: the examples and notes, then the list of ABI
/// diagnostics, made from the table that names them.
fn after_help() -> String {
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

/// The man page: clap_mangen's sections for the name, synopsis,
/// description and options, then the help's closing text as sections of
/// its own. Its examples and lists are set as written (`.nf`), where
/// clap_mangen's one EXTRA section would have man reflow them into one
/// paragraph; its prose is left for man to fill.
fn man_page(page: &mut Vec<u8>) -> std::io::Result<()> {
    use clap_mangen::roff::{Roff, roman};
    let man = clap_mangen::Man::new(Cli::command());
    man.render_title(page)?;
    man.render_name_section(page)?;
    man.render_synopsis_section(page)?;
    man.render_description_section(page)?;
    man.render_options_section(page)?;
    let mut roff = Roff::new();
    for (i, block) in after_help().split("\n\n").enumerate() {
        let (head, body) = match block.split_once('\n') {
            Some((head, body)) if i == 0 => (head.trim_end_matches(':'), body),
            _ => ("", block),
        };
        if i == 0 {
            roff.control("SH", [head.to_uppercase().as_str()]);
        } else if i == 1 {
            roff.control("SH", ["NOTES"]);
        } else {
            roff.control("PP", []);
        }
        // Indented lines (examples, the diagnostics' list) keep their
        // columns; a paragraph of prose is filled by man.
        let set_as_written = body.lines().any(|l| l.starts_with("  "));
        if set_as_written {
            roff.control("nf", []);
            for line in body.lines() {
                roff.text([roman(line)]);
            }
            roff.control("fi", []);
        } else {
            roff.text([roman(body.replace('\n', " "))]);
        }
    }
    roff.to_writer(page)?;
    man.render_version_section(page)
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

/// A value parser that takes any text but offers words to shell
/// completion: what `-e` and `--list-ioctls` complete to. The words are
/// made only when asked for (by `--completions`).
#[derive(Clone)]
struct Offered(fn() -> Vec<&'static str>);

impl clap::builder::TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            (self.0)()
                .into_iter()
                .map(clap::builder::PossibleValue::new),
        ))
    }
}

/// What `-e` completes to: the qualifiers, every call name and every
/// `%class`.
fn expr_words() -> Vec<&'static str> {
    let mut words = vec![
        "trace=",
        "status=",
        "signal=",
        "diag=",
        "trace-fds=",
        "read=",
        "write=",
        "decode-fds=",
        "inject=",
        "fault=",
        "raw=",
        "abbrev=",
        "verbose=",
        "decode-pids=",
    ];
    let mut calls: Vec<&'static str> = rtrace_cli::sysent::all_signatures()
        .map(|s| s.name)
        .collect();
    calls.sort_unstable();
    calls.dedup();
    words.extend(calls);
    // Leaked: made once, for the completion script, and kept until exit.
    let classes = rtrace_cli::select::class_names();
    words.extend(
        classes
            .into_iter()
            .map(|c| &*Box::leak(format!("%{c}").into_boxed_str())),
    );
    words
}

/// What `--list-ioctls` completes to: every group's name.
fn group_words() -> Vec<&'static str> {
    rtrace_cli::ioctl::explain::all_groups()
}

/// Trace the system calls and ioctls of a command or of running processes.
#[derive(Parser, Debug)]
#[command(
    name = "rtrace",
    version,
    disable_version_flag = true,
    about,
    after_help = after_help(),
    override_usage = "rtrace [OPTIONS] COMMAND [ARGS...]\n       rtrace [OPTIONS] -p PID [-p PID ...]"
)]
struct Cli {
    /// Follow forks, vforks, clones and threads
    #[arg(short = 'f', long = "follow-forks")]
    follow: bool,

    /// Write the trace to FILE (created with mode 0600) instead of stderr
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,

    /// Attach to a running process and all its threads (repeatable)
    #[arg(short = 'p', long = "attach", value_name = "PID", value_parser = clap::value_parser!(i32).range(1..))]
    pids: Vec<i32>,

    /// Print at most N bytes of each string (default from -v: 32, 256, all;
    /// N may be at most 16 MiB, 16777216)
    #[arg(short = 's', long = "string-limit", value_name = "N")]
    string_limit: Option<usize>,

    /// More detail: longer strings, more struct fields, execve's whole
    /// environment, each signal's siginfo (repeatable)
    #[arg(short = 'v', long = "verbose", visible_alias = "no-abbrev", action = clap::ArgAction::Count)]
    verbose: u8,

    /// Quieter: no `Tracing NAME (pid N)`, `---` (exec), exit and detach
    /// lines; twice: no signal lines either, only the calls
    #[arg(short = 'q', long = "quiet", action = clap::ArgAction::Count)]
    quiet: u8,

    /// Name every parameter: read(fd=3, buf=..., count=4096)
    #[arg(short = 'N', long = "all-names")]
    all_names: bool,

    /// Print the path of every fd: parameters (read(3</etc/hosts>, ...)),
    /// AT_FDCWD's working directory, the fds a call returns (= 3</etc/hosts>)
    /// and those a pipe or socketpair writes; -yy: all strace shows of
    /// them (--decode-fds=all): 3<TCP:[127.0.0.1:8080->127.0.0.1:40000]>,
    /// 3<UNIX-STREAM:[28140->28141,"/run/x"]>, 3<NETLINK:[ROUTE:42]>,
    /// 3</dev/null<char 1:3>>, 3<pid:42>
    #[arg(short = 'y', action = clap::ArgAction::Count)]
    decode_fds: u8,

    /// What is shown of each fd (-y is path, -yy all): path, socket
    /// (addresses and peers), dev (device type and numbers), pidfd (the
    /// process), eventfd (its counter), signalfd (its mask), separated by
    /// commas; all, none; `!` negates (also -e decode-fds=SET)
    #[arg(long = "decode-fds", value_name = "SET", num_args = 0..=1,
          require_equals = true, default_missing_value = "path")]
    decode_fds_set: Option<String>,

    /// Describe each error after its name, as perror(3) would: `-1 [ENOTTY]
    /// (Inappropriate ioctl for device)` (JSON always carries it, as
    /// "error")
    #[arg(long = "errno-text")]
    errno_text: bool,

    /// Strings in hex escapes: `-x` a string holding any byte that is not
    /// printable ASCII (or \t \n \v \f \r) wholly as `\xNN`; `-xx`
    /// every string (--strings-in-hex=non-ascii, =all)
    #[arg(short = 'x', action = clap::ArgAction::Count)]
    hex: u8,

    /// Strings in hex escapes: none, non-ascii-chars (each such byte as
    /// `\xNN`), non-ascii (-x), all (-xx; the default with no value)
    #[arg(long = "strings-in-hex", value_name = "WHICH", num_args = 0..=1,
          require_equals = true, default_missing_value = "all",
          value_parser = rtrace_cli::escape::HexStrings::parse)]
    strings_in_hex: Option<rtrace_cli::escape::HexStrings>,

    /// Numbers instead of symbols, in decimal, error and signal numbers
    /// too; twice: structs as their addresses
    #[arg(short = 'V', long = "values", action = clap::ArgAction::Count, conflicts_with = "const_style")]
    values: u8,

    /// How constants, flag sets and ioctl requests print, as strace's -X:
    /// abbrev (names, the default), raw (numbers: `0x241`; error names
    /// stay), verbose (both: `0x241 /* O_WRONLY|O_CREAT|O_TRUNC */`).
    /// Text only: JSON carries names and values whatever it says
    #[arg(short = 'X', long = "const-print-style", value_name = "STYLE",
          value_parser = parse_const_style)]
    const_style: Option<rtrace_cli::format::ConstStyle>,

    /// Each pid a call takes or returns with its process's command:
    /// `kill(1234<sh>, SIGTERM)`, `fork() = 1235<sh>` (--decode-pids=comm)
    #[arg(short = 'Y')]
    decode_pids_comm: bool,

    /// What to print with pids: comm (-Y), pidns (--pidns-translation),
    /// both (comm,pidns)
    #[arg(long = "decode-pids", value_name = "WHAT", value_parser = parse_decode_pids)]
    decode_pids: Option<rtrace_cli::format::DecodePids>,

    /// For a tracee in another pid namespace, each pid it takes or gets
    /// also as rtrace's namespace numbers it: `getpid() = 1 /* 4242 in
    /// rtrace's PID NS */` (--decode-pids=pidns)
    #[arg(long = "pidns-translation")]
    pidns_translation: bool,

    /// Wall-clock time before each line; twice: with microseconds; three
    /// times: seconds since the epoch
    #[arg(short = 't', long = "timestamps", action = clap::ArgAction::Count)]
    timestamps: u8,

    /// Time since the previous line before each line (after the clock
    /// with -t: `12:00:01 (+ 0.000123)`)
    #[arg(short = 'r', long = "relative-timestamps")]
    relative: bool,

    /// Print the time spent in each call: `= 0 <0.000123>`
    #[arg(short = 'T', long = "syscall-times")]
    call_times: bool,

    /// Select what is printed: trace=SET (names, %class, /regex, !SET),
    /// status=successful,failed,unfinished,..., signal=SET,
    /// read=FDS and write=FDS (a hex and ASCII dump of every byte read
    /// from or written to those fds: `3,5`, `all`, `!3`), trace-fds=FDS,
    /// diag=all|none|usbmon|user_events (ABI misuse diagnostics, below;
    /// `!` negates), inject=SET:ACTION...[:when=FIRST[..LAST][+[STEP]]]
    /// (tamper with the calls of SET, printed or not, each task counting
    /// each call's invocations; ACTION: error=ERRNO or retval=N (the call
    /// does not run: its line ends `(INJECTED)`), signal=SIG,
    /// delay_enter=T, delay_exit=T (T in us, or with s, ms, us, ns),
    /// poke_enter=@argN=HEX,... and poke_exit= (bytes written where
    /// argument N points, before the call runs or after), syscall=NAME
    /// (with error= or retval=: a harmless %pure call runs instead);
    /// SET may name ioctl requests, MON_IOCX_MFETCH: those ioctls, each
    /// request counted on its own), fault=SET[:error=ERRNO][:when=...]
    /// (inject with error=ENOSYS by default),
    /// raw=SET (those calls' arguments and results as
    /// hex numbers, undecoded), abbrev=SET (those calls' arrays and
    /// structs cut; the others whole, as with -v), verbose=SET (those
    /// calls' structs read; the others' printed as addresses),
    /// decode-pids=comm,pidns (-Y, --pidns-translation) (repeatable);
    /// a bare SET means trace=SET. Classes are strace's, with the same
    /// calls: %file %desc %process %network (%net) %signal %ipc %memory
    /// %creds %clock %stat %lstat %fstat %%stat %statfs %fstatfs %%statfs
    /// %pure; and %ioctl, every ioctl
    #[arg(short = 'e', value_name = "EXPR", value_parser = Offered(expr_words), hide_possible_values = true)]
    exprs: Vec<String>,

    /// strace's long spelling of -e inject=SPEC (repeatable; with the
    /// -e ones, of several rules naming a call the last given wins)
    #[arg(long = "inject", value_name = "SPEC")]
    inject: Vec<String>,

    /// strace's long spelling of -e fault=SPEC (repeatable)
    #[arg(long = "fault", value_name = "SPEC")]
    fault: Vec<String>,

    /// Every -e inject=/fault=, --inject and --fault in command-line
    /// order (filled after parsing; the last rule naming a call wins)
    #[arg(skip)]
    injections: Vec<(String, bool)>,

    /// Print only calls matching EXPR, in the kernel's event-filter language:
    /// `fd == 3 && count > 100`, `request ~ "MON_*"`, `errno == ENOENT`.
    /// Fields: name, pid, tid, result, errno, arg0..arg5, each parameter by
    /// the name -N prints, path, fd.path, request. A call, errno, signal
    /// (`sig == SIGKILL`) or ioctl request name rtrace does not know is an
    /// error, with the nearest known name
    #[arg(long = "filter", value_name = "EXPR")]
    filter: Option<String>,

    /// Fire an action when a call matches: `traceon[:N] [if EXPR]`,
    /// `traceoff[:N] [if EXPR]`, `stacktrace[:N] [if EXPR]` (repeatable).
    /// With a traceon trigger, printing starts off
    #[arg(long = "trigger", value_name = "TRIGGER")]
    triggers: Vec<String>,

    /// Print the user stack at each printed call (and signal) after its
    /// line, one frame a line as strace does (` > FILE(SYMBOL+0xOFF)
    /// [0xADDR]`), unwound from the binaries' .eh_frame/.debug_frame and
    /// named from their symbol tables; -kk adds each frame's source file
    /// and line from the binaries' DWARF. x86_64 code only (an i386
    /// program's calls say so); not with --bpf
    #[arg(short = 'k', action = clap::ArgAction::Count)]
    stack_k: u8,

    /// -k (`symbol`, the default) or -kk (`source`)
    #[arg(
        long = "stack-trace",
        visible_alias = "stack-traces",
        value_name = "symbol|source",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "symbol",
        value_parser = ["symbol", "source"]
    )]
    stack_trace: Option<String>,

    /// At most N frames a stack (-k, the stacktrace trigger; default 256)
    #[arg(long = "stack-trace-frame-limit", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    stack_trace_frame_limit: Option<u64>,

    /// Print only calls that touch PATH: a path argument naming it (as
    /// given, or resolving to the same file where it exists) or an fd
    /// argument referring to it, fds opened before tracing included
    /// (repeatable: any of the paths). Combines with -e trace= (both must
    /// hold); unshown calls are not counted by -c
    #[arg(short = 'P', long = "trace-path", value_name = "PATH")]
    trace_paths: Vec<std::path::PathBuf>,

    /// Print only calls with an fd argument in SET (`0,3`; also
    /// `-e trace-fds=SET`); with -P, calls that match either
    #[arg(long = "trace-fds", value_name = "SET")]
    trace_fds: Vec<String>,

    /// Print only calls that succeeded (-e status=successful)
    #[arg(short = 'z', long = "successful-only", conflicts_with = "failed_only")]
    successful_only: bool,

    /// Print only calls that failed (-e status=failed)
    #[arg(short = 'Z', long = "failed-only")]
    failed_only: bool,

    /// Count calls, errors and time per call; print a summary at the end
    /// instead of the trace. Counted as strace does: an interrupted call
    /// and its restart are two calls, one that never returns is none
    #[arg(short = 'c', long = "summary-only")]
    summary_only: bool,

    /// Print the trace and the summary
    #[arg(short = 'C', long = "summary")]
    summary: bool,

    /// Sort the summary by time (default), calls, errors, name, avg_time
    /// or nothing
    #[arg(short = 'S', long = "summary-sort-by", value_name = "KEY")]
    sort: Option<String>,

    /// Summary times are wall-clock time (rtrace always measures wall-clock
    /// time between a call's entry and exit; accepted as in strace)
    #[arg(short = 'w', long = "summary-wall-clock")]
    wall_clock: bool,

    /// Stop started processes only on selected calls, with a seccomp-bpf
    /// filter (automatic with -f when -e trace= names calls or classes). The
    /// filter is inherited by children and needs no-new-privs without
    /// CAP_SYS_ADMIN; the program sees neither (PR_GET_SECCOMP, strict mode
    /// and PR_GET_NO_NEW_PRIVS answer as untraced). Asked for without -f,
    /// children are still traced, unshown, so that their selected calls work
    /// (rtrace waits for them too, and a command cannot then trace its own
    /// children). A tracee that installs a seccomp filter of its own is
    /// stepped call by call from then on, so no call is lost
    #[arg(long = "seccomp-bpf", conflicts_with = "no_seccomp_bpf")]
    seccomp_bpf: bool,

    /// Never use the seccomp-bpf filter
    #[arg(long = "no-seccomp-bpf")]
    no_seccomp_bpf: bool,

    /// Let every process go (the started command too, which runs on
    /// untraced) once N calls have been shown; calls -e trace=, -P,
    /// -e status= or --filter leave out do not count. Not with the
    /// seccomp-bpf fast path, which it turns off
    #[arg(long = "syscall-limit", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    syscall_limit: Option<u64>,

    /// Kill the started command if rtrace itself is killed
    /// (PTRACE_O_EXITKILL). Without it the command keeps running, as with
    /// strace, except under the seccomp-bpf filter, which always kills it:
    /// with no tracer its selected calls would fail with ENOSYS
    #[arg(long = "kill-on-exit")]
    kill_on_exit: bool,
    /// Run rtrace and its tracees on one CPU, which makes every stop a
    /// context switch instead of two cross-CPU wakeups: `--same-cpu` on
    /// the CPU the command (or the first -p process) is on (also
    /// `--same-cpu=always`), `--same-cpu=N` on CPU N; `--same-cpu=auto` (the
    /// default) the same, but with two or more tasks traced, a task that
    /// computes (runs its own code three quarters of a 10 ms tick) runs on
    /// its own CPUs until it makes calls or sleeps again; `--same-cpu=never`. Each tracee's own
    /// CPU mask comes back when it is let go, and its
    /// sched_getaffinity/sched_setaffinity calls see and set that mask, not
    /// rtrace's
    #[arg(long = "same-cpu", value_name = "N|always|auto|never", num_args = 0..=1,
          require_equals = true, default_missing_value = "always",
          value_parser = parse_same_cpu)]
    same_cpu: Option<trace::SameCpu>,

    /// Trace with the BPF engine: the kernel's syscall tracepoints feed
    /// the same decoders, the tracee is never stopped (a loop of the
    /// cheapest call runs about 4x slower, not 50x; real programs far
    /// less), and the whole machine can be traced (-a). It cannot change
    /// or hold the tracee (no --same-cpu, --seccomp-bpf or
    /// --kill-on-exit), memory behind pointers it does not follow shows as
    /// pointers, and when rtrace falls behind records are lost and counted
    /// (`** N events lost **`). Needs root (or CAP_BPF and CAP_PERFMON) and
    /// the kernel's BTF
    #[arg(long)]
    bpf: bool,

    /// With --bpf: trace every process on the machine (but rtrace),
    /// until interrupted
    #[arg(short = 'a', long = "all")]
    all: bool,

    /// With --bpf: the ring buffer's size in bytes (a power of two; K and
    /// M suffixes), 16M by default
    #[arg(long = "bpf-ring", value_name = "SIZE", value_parser = parse_size)]
    bpf_ring: Option<usize>,

    /// With --bpf: lose nothing. A process that makes calls while half the
    /// ring waits is stopped (SIGSTOP) until rtrace has read the ring, then
    /// continued (SIGCONT): slowed only while rtrace is behind. Its parent
    /// can see the stop (waitpid with WUNTRACED, SIGCHLD without
    /// SA_NOCLDSTOP; a job-control shell reports it stopped)
    #[arg(long = "bpf-lossless")]
    bpf_lossless: bool,

    /// Run the command on an emulated usbmon that replays FILE, a capture
    /// (pcap or pcapng) that tcpdump, dumpcap or wireshark wrote from a
    /// usbmonN interface: /dev/usbmon0 and /dev/usbmonN for each recorded
    /// bus answer as the kernel's would (no USB hardware; listing them in
    /// /dev needs root, capture by name does not). The trace starts at the
    /// command's execve. Not with -p or --bpf
    #[arg(long = "usbmon-replay", value_name = "FILE")]
    usbmon_replay: Option<std::path::PathBuf>,

    /// With --usbmon-replay: events arrive at the recording's own pace
    /// (by their time stamps) instead of as fast as the program fetches,
    /// each stamped with the real time it arrives at (the recording's
    /// spacing kept), as a live kernel stamps it
    #[arg(long = "usbmon-replay-pace")]
    usbmon_replay_pace: bool,

    /// With --usbmon-replay: play the recording N times in all (N >= 1),
    /// or for ever without =N; each pass is stamped a whole number of
    /// seconds after the one before (the recording's span rounded up)
    #[arg(long = "usbmon-replay-loop", value_name = "N", num_args = 0..=1,
          require_equals = true, default_missing_value = "forever")]
    usbmon_replay_loop: Option<String>,

    /// Run the command on an emulated user_events (for kernels without
    /// CONFIG_USER_EVENTS): /sys/kernel/tracing/user_events_data,
    /// user_events_status and each event's enable and format files answer
    /// as the kernel's would, with every event enabled from its creation
    /// (writing 0 to its enable file disables it). After the trace, rtrace
    /// prints what ftrace recorded, as the tracing `trace` file shows it.
    /// The trace starts at the command's execve. Not with -p or --bpf
    #[arg(long = "user-events-emulate")]
    user_events_emulate: bool,

    /// With --user-events-emulate: the emulated tracer records only these
    /// events (registered names, comma-separated) instead of all; the
    /// others stay disabled until 1 is written to their enable file
    #[arg(
        long = "user-events-enable",
        value_name = "NAME,...",
        value_delimiter = ','
    )]
    user_events_enable: Option<Vec<String>>,

    /// Write JSON Lines: one object per call, signal and process event
    /// (schema in JSON.md)
    #[arg(long)]
    json: bool,

    /// Also write the trace as a timeline to FILE (mode 0600): trace-event
    /// JSON that ui.perfetto.dev and chrome://tracing open, a track per
    /// process and thread, a slice per call, signals and exits as instants,
    /// usbmon events on a track per bus with arrows from their fetch,
    /// user_events records on a track per event
    #[arg(long, value_name = "FILE")]
    timeline: Option<std::path::PathBuf>,

    /// Color the output
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    color: ColorWhen,

    /// Print the version and exit
    #[arg(long, action = clap::ArgAction::Version)]
    version: Option<bool>,

    /// Explain an ioctl request, by name (BLKGETSIZE64) or code: its C
    /// definition, its bits, every name the code has, its argument (with
    /// the layout from rtrace's tables or else the kernel's BTF), and exit
    #[arg(long, value_name = "NAME|CODE", allow_hyphen_values = true)]
    explain_ioctl: Option<String>,

    /// List every ioctl request rtrace names (of one group: usbmon, fs,
    /// kvm, ...) with a count, and exit
    #[arg(
        long,
        value_name = "GROUP",
        num_args = 0..=1,
        value_parser = Offered(group_words),
        hide_possible_values = true
    )]
    list_ioctls: Option<Option<String>>,

    /// List the ioctl groups --list-ioctls takes, each with its number of
    /// requests, and exit
    #[arg(long)]
    list_ioctl_groups: bool,

    /// Print shell completions for SHELL (bash, zsh, fish, elvish,
    /// powershell) and exit: `rtrace --completions bash >
    /// /etc/bash_completion.d/rtrace`
    #[arg(long, value_name = "SHELL")]
    completions: Option<clap_complete::Shell>,

    /// Print the man page (roff) and exit: `rtrace --man >
    /// /usr/local/share/man/man1/rtrace.1`
    #[arg(long)]
    man: bool,

    /// The command to run and trace, with its arguments
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    command: Vec<OsString>,
}

/// Say what went wrong in one line on stderr and exit with `code`. A
/// stderr that cannot take the line (a closed pipe) does not change the
/// exit status: `eprintln!` would panic there. Messages quote what the
/// user typed (`unknown signal 'X'`): its control characters are escaped
/// here, line by line (a filter error is three lines), so none reaches
/// the terminal raw.
fn fail(message: &str, code: u8) -> ExitCode {
    use std::io::Write;
    let message: Vec<_> = message
        .split('\n')
        .map(rtrace_cli::escape::escape_controls)
        .collect();
    let _ = writeln!(std::io::stderr(), "rtrace: {}", message.join("\n"));
    ExitCode::from(code)
}

/// rtrace's whole run: the command line read and checked, the trace, and
/// the exit status.
pub(crate) fn main() -> ExitCode {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((mut cli, matches)) => {
            cli.injections = injections_in_order(&cli, &matches);
            cli
        }
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                return write_stdout(e.render().to_string().as_bytes(), "the help text");
            }
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // A misspelled option: clap knows the nearest one.
            let hint = match e.get(clap::error::ContextKind::SuggestedArg) {
                Some(clap::error::ContextValue::String(near)) => format!("did you mean {near}?"),
                _ => "see rtrace --help".to_string(),
            };
            return fail(&format!("{first} ({hint})"), 2);
        }
    };
    if let Some(shell) = cli.completions {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "rtrace", &mut script);
        return write_stdout(&script, "completions");
    }
    if let Some(request) = &cli.explain_ioctl {
        return match rtrace_cli::ioctl::explain::explain_arg(request) {
            Ok(text) => write_stdout(text.as_bytes(), "the explanation"),
            Err(e) => fail(&e, 2),
        };
    }
    if cli.list_ioctl_groups {
        let text = rtrace_cli::ioctl::explain::list_groups();
        return write_stdout(text.as_bytes(), "the list");
    }
    if let Some(group) = &cli.list_ioctls {
        // Given with no group, every group; an empty name is an error.
        return match rtrace_cli::ioctl::explain::list(group.as_deref()) {
            Ok(text) => write_stdout(text.as_bytes(), "the list"),
            Err(e) => fail(&e, 2),
        };
    }
    if cli.man {
        let mut page = Vec::new();
        if let Err(e) = man_page(&mut page) {
            return fail(&format!("cannot render the man page: {}", os_text(&e)), 1);
        }
        return write_stdout(&page, "the man page");
    }
    if !cli.bpf && (cli.all || cli.bpf_ring.is_some() || cli.bpf_lossless) {
        let option = if cli.all {
            "-a"
        } else if cli.bpf_lossless {
            "--bpf-lossless"
        } else {
            "--bpf-ring"
        };
        return fail(
            &format!("{option} needs --bpf (ptrace cannot see the whole machine)"),
            2,
        );
    }
    if cli.bpf
        && (cli.seccomp_bpf
            || cli.same_cpu.is_some()
            || cli.kill_on_exit
            || cli.syscall_limit.is_some())
    {
        let option = if cli.seccomp_bpf {
            "--seccomp-bpf"
        } else if cli.same_cpu.is_some() {
            "--same-cpu"
        } else if cli.kill_on_exit {
            "--kill-on-exit"
        } else {
            "--syscall-limit"
        };
        return fail(
            &format!("{option} is for the ptrace engine: --bpf never stops or holds the tracee"),
            2,
        );
    }
    let stack_trace = cli.stack_k > 0 || cli.stack_trace.is_some();
    if cli.bpf && stack_trace {
        return fail(
            "-k (--stack-trace) is for the ptrace engine: --bpf never stops the tracee, so its stack is gone by the time rtrace reads it",
            2,
        );
    }
    if cli.all && cli.bpf_lossless {
        // It would stop whatever carries rtrace's own output (a terminal,
        // sshd, the reader of a pipe) and then wait on it for ever.
        return fail(
            "--bpf-lossless cannot be used with -a: it would stop the processes rtrace's own output goes through",
            2,
        );
    }
    if cli.usbmon_replay_pace && cli.usbmon_replay.is_none() {
        return fail("--usbmon-replay-pace needs --usbmon-replay FILE", 2);
    }
    if cli.usbmon_replay_loop.is_some() && cli.usbmon_replay.is_none() {
        return fail("--usbmon-replay-loop needs --usbmon-replay FILE", 2);
    }
    let usbmon_passes = match cli.usbmon_replay_loop.as_deref() {
        None => Some(1),
        Some("forever") => None,
        Some(n) => match n.parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return fail(
                    &format!(
                        "--usbmon-replay-loop={n}: N is how many times to play the recording, a number from 1 (leave =N out to loop for ever)"
                    ),
                    2,
                );
            }
        },
    };
    if cli.usbmon_replay.is_some() {
        // The emulation is set up by the child rtrace forks, before its
        // exec: neither a process already running nor the BPF engine
        // (which only watches) can get it.
        if cli.bpf {
            return fail(
                "--usbmon-replay cannot be used with --bpf: the emulation answers the command's calls, which only the ptrace engine can have answered",
                2,
            );
        }
        if !cli.pids.is_empty() {
            return fail(
                "--usbmon-replay cannot be used with -p: the emulated device is given to the command rtrace starts, before its exec",
                2,
            );
        }
        if cli.command.is_empty() {
            return fail(
                "--usbmon-replay needs a COMMAND to run on the emulated usbmon",
                2,
            );
        }
    }
    if cli.user_events_enable.is_some() && !cli.user_events_emulate {
        return fail("--user-events-enable needs --user-events-emulate", 2);
    }
    if cli.user_events_emulate {
        // Set up in the child rtrace forks, as --usbmon-replay.
        if cli.bpf {
            return fail(
                "--user-events-emulate cannot be used with --bpf: the emulation answers the command's calls, which only the ptrace engine can have answered",
                2,
            );
        }
        if !cli.pids.is_empty() {
            return fail(
                "--user-events-emulate cannot be used with -p: the emulated files are given to the command rtrace starts, before its exec",
                2,
            );
        }
        if cli.command.is_empty() {
            return fail(
                "--user-events-emulate needs a COMMAND to run on the emulated user_events",
                2,
            );
        }
    }
    if cli.command.is_empty() && cli.pids.is_empty() && !cli.all {
        let what = if cli.bpf {
            "nothing to trace: give a COMMAND, -p PID or -a (see rtrace --help)"
        } else {
            "nothing to trace: give a COMMAND or -p PID (see rtrace --help)"
        };
        return fail(what, 2);
    }

    // Options are checked before the output file is created: a bad
    // command line leaves nothing behind.
    let select = match selection(&cli) {
        Ok(select) => select,
        Err(e) => return fail(&e, 2),
    };
    let decode_fds = match fd_details(&cli) {
        Ok(set) => set,
        Err(e) => return fail(&e, 2),
    };
    let (dump_reads, dump_writes) = match dump_sets(&cli) {
        Ok(sets) => sets,
        Err(e) => return fail(&e, 2),
    };
    let decode_pids = match decode_pids(&cli) {
        Ok(how) => how,
        Err(e) => return fail(&e, 2),
    };
    let sort = match cli.sort.as_deref().map(trace::stats::SortKey::parse) {
        None => trace::stats::SortKey::default(),
        Some(Ok(key)) => key,
        Some(Err(e)) => return fail(&e, 2),
    };
    let max = rtrace_cli::format::MAX_STRING_LIMIT;
    if let Some(n) = cli.string_limit.filter(|&n| n > max) {
        // A silent clamp would print less than asked without saying so.
        return fail(
            &format!("-s {n} is more than the most rtrace prints, {max} (16 MiB)"),
            2,
        );
    }
    let usbmon_replay = match &cli.usbmon_replay {
        Some(path) => {
            let pace = rtrace_cli::emu::usbmon::Pace {
                recorded: cli.usbmon_replay_pace,
                passes: usbmon_passes,
            };
            match rtrace_cli::emu::usbmon::Replay::load(path, pace) {
                Ok(r) => Some(r),
                Err(e) => return fail(&e, 2),
            }
        }
        None => None,
    };
    // A file rtrace creates is removed again if tracing cannot start, so a
    // failed -p leaves nothing behind.
    let created = cli
        .output
        .as_ref()
        .filter(|path| std::fs::symlink_metadata(path).is_err())
        .cloned();
    let (writer, is_terminal): (Box<dyn std::io::Write>, bool) = match &cli.output {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(path);
            match file {
                Ok(f) => {
                    let terminal = f.is_terminal();
                    (Box::new(TraceWriter::new(f)), terminal)
                }
                Err(e) => {
                    // Escaped, so the error stays one line whatever the name.
                    let mut name = String::new();
                    rtrace_cli::escape::c_escape(path.as_os_str().as_bytes(), false, &mut name);
                    return fail(&format!("cannot open '{name}': {}", os_text(&e)), 1);
                }
            }
        }
        None => (
            Box::new(TraceWriter::new(std::io::stderr())),
            std::io::stderr().is_terminal(),
        ),
    };
    let timeline = match &cli.timeline {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(0o600)
                .open(path);
            match file {
                Ok(f) => Some(Timeline::new(Box::new(std::io::BufWriter::new(f)))),
                Err(e) => {
                    let mut name = String::new();
                    rtrace_cli::escape::c_escape(path.as_os_str().as_bytes(), false, &mut name);
                    return fail(&format!("cannot open '{name}': {}", os_text(&e)), 1);
                }
            }
        }
        None => None,
    };
    let color = match cli.color {
        _ if cli.json => false,
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => {
            let forced =
                std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0");
            let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
            !no_color && (forced || is_terminal) && cli.output.is_none()
        }
    };
    let timestamps = match (cli.timestamps, cli.relative) {
        (0, true) => Timestamps::Relative,
        (0, false) => Timestamps::Off,
        (1, _) => Timestamps::Seconds,
        (2, _) => Timestamps::Micros,
        _ => Timestamps::Epoch,
    };
    let _ = cli.wall_clock;
    let string_limit = cli
        .string_limit
        .unwrap_or(match cli.verbose {
            0 => 32,
            1 => 256,
            _ => usize::MAX,
        })
        .min(max);
    let config = trace::Config {
        command: cli.command,
        attach: cli.pids,
        follow: cli.follow,
        format: FormatConfig {
            all_names: cli.all_names,
            values_only: cli.values,
            consts: match (cli.values, cli.const_style) {
                (0, style) => style.unwrap_or_default(),
                _ => rtrace_cli::format::ConstStyle::Values,
            },
            decode_pids,
            verbose: cli.verbose,
            string_limit,
            decode_fds,
            json: cli.json,
            errno_text: cli.errno_text,
            dump_reads,
            dump_writes,
            hex_strings: cli.strings_in_hex.unwrap_or(match cli.hex {
                0 => rtrace_cli::escape::HexStrings::None,
                1 => rtrace_cli::escape::HexStrings::NonAscii,
                _ => rtrace_cli::escape::HexStrings::All,
            }),
        },
        select,
        summary: match (cli.summary_only, cli.summary) {
            (_, true) => trace::Summary::Both,
            (true, false) => trace::Summary::Only,
            (false, false) => trace::Summary::Off,
        },
        sort,
        call_times: cli.call_times,
        seccomp: if cli.no_seccomp_bpf {
            trace::SeccompMode::Off
        } else if cli.seccomp_bpf {
            trace::SeccompMode::On
        } else {
            trace::SeccompMode::Auto
        },
        kill_on_exit: cli.kill_on_exit,
        same_cpu: cli.same_cpu.unwrap_or(trace::SameCpu::Auto),
        bpf: cli.bpf.then(|| trace::bpf::Options {
            all: cli.all,
            ring: cli.bpf_ring.unwrap_or(trace::bpf::DEFAULT_RING),
            lossless: cli.bpf_lossless,
        }),
        usbmon_replay,
        user_events: cli
            .user_events_emulate
            .then(|| rtrace_cli::emu::user_events::Emulation::new(cli.user_events_enable.clone())),
        quiet: cli.quiet,
        syscall_limit: cli.syscall_limit,
        stack_trace,
        stack_source: cli.stack_k > 1 || cli.stack_trace.as_deref() == Some("source"),
        frame_limit: cli
            .stack_trace_frame_limit
            .map_or(rtrace_cli::stack::DEFAULT_FRAME_LIMIT, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            }),
    };
    if std::env::var_os("RTRACE_NO_SYSCALL_INFO").is_some_and(|v| v == "1") {
        rtrace_cli::kernel::decode_from_registers();
    }
    let mut out = Output::new(writer, color, timestamps).on_terminal(is_terminal);
    if cli.relative {
        out = out.with_relative();
    }
    if let Some(timeline) = timeline {
        out = out.with_timeline(timeline);
    }
    match trace::run(config, out) {
        Ok(trace::Exit::Code(code)) => ExitCode::from(code as u8),
        Ok(trace::Exit::Signal(sig)) => die_by_signal(sig),
        Err(e) => {
            if let Some(path) = created
                && std::fs::metadata(&path).is_ok_and(|m| m.is_file() && m.len() == 0)
            {
                let _ = std::fs::remove_file(&path);
            }
            fail(&e.message, e.code as u8)
        }
    }
}

/// `-e inject=`, `-e fault=`, `--inject` and `--fault` in the order the
/// command line gives them (of several rules naming a call the last
/// wins, as in strace): each spec, and whether it is a fault.
fn injections_in_order(cli: &Cli, matches: &clap::ArgMatches) -> Vec<(String, bool)> {
    let at = |id: &str| -> Vec<usize> {
        matches
            .indices_of(id)
            .map(|i| i.collect())
            .unwrap_or_default()
    };
    let mut all: Vec<(usize, String, bool)> = Vec::new();
    for (i, expr) in at("exprs").into_iter().zip(&cli.exprs) {
        if let Some((key @ ("inject" | "fault"), spec)) = expr.split_once('=') {
            all.push((i, spec.to_string(), key == "fault"));
        }
    }
    for (id, specs, fault) in [("inject", &cli.inject, false), ("fault", &cli.fault, true)] {
        for (i, spec) in at(id).into_iter().zip(specs) {
            all.push((i, spec.clone(), fault));
        }
    }
    all.sort_by_key(|&(i, _, _)| i);
    all.into_iter()
        .map(|(_, spec, fault)| (spec, fault))
        .collect()
}

/// The `-e`, `-z` and `-Z` options as a selection.
fn selection(cli: &Cli) -> Result<trace::Selection, String> {
    use rtrace_cli::select::{SignalSet, StatusSet, TraceSet};
    let mut select = trace::Selection::default();
    for expr in &cli.exprs {
        let (key, value) = expr.split_once('=').unwrap_or(("trace", expr.as_str()));
        match key {
            "trace" | "t" => select.trace = TraceSet::parse(value)?,
            "status" => select.status = StatusSet::parse(value)?,
            "signal" | "signals" | "s" => select.signals = SignalSet::parse(value)?,
            "diag" => select.diag = rtrace_cli::diag::DiagSet::parse(value)?,
            "trace-fds" | "trace-fd" => select.paths.add_fds(value)?,
            // Taken in command-line order with --inject and --fault below.
            "inject" | "fault" => {}
            // Formatting, not selection: taken by `dump_sets` and
            // `fd_details`.
            "read" | "write" | "decode-fds" => {}
            "raw" | "x" => select.raw = Some(call_set("raw", value)?),
            "abbrev" | "a" => select.abbrev = Some(call_set("abbrev", value)?),
            "verbose" | "v" => select.verbose = Some(call_set("verbose", value)?),
            // Taken by `decode_pids`.
            "decode-pids" | "decode-pid" => {}
            _ => {
                return Err(format!(
                    "unknown -e qualifier '{key}' (trace, status, signal, diag, trace-fds, read, write, decode-fds, inject, fault, raw, abbrev, verbose, decode-pids)"
                ));
            }
        }
    }
    for (spec, fault) in &cli.injections {
        select.inject.add(spec, *fault)?;
    }
    for path in &cli.trace_paths {
        select.paths.add_path(path)?;
    }
    for set in &cli.trace_fds {
        select.paths.add_fds(set)?;
    }
    if let Some(expr) = &cli.filter {
        let filter = trace::filtering::parse_filter(expr).map_err(|e| e.to_string())?;
        select.filter = Some(filter);
    }
    for spec in &cli.triggers {
        select.triggers.push(trace::filtering::parse_trigger(spec)?);
    }
    let status_given = cli
        .exprs
        .iter()
        .any(|e| e.starts_with("status=") || e.starts_with("status:"));
    if status_given && (cli.successful_only || cli.failed_only) {
        return Err("-z and -Z are -e status= too: give one of them".into());
    }
    if cli.successful_only {
        select.status = StatusSet::parse("successful")?;
    }
    if cli.failed_only {
        select.status = StatusSet::parse("failed")?;
    }
    // -qq: only the calls; an -e signal= given says otherwise.
    let signals_given = cli.exprs.iter().any(|e| {
        ["signal=", "signals=", "s="]
            .iter()
            .any(|k| e.starts_with(k))
    });
    if cli.quiet >= 2 && !signals_given {
        select.signals = SignalSet::parse("none")?;
    }
    Ok(select)
}

/// A set of calls for `-e QUALIFIER=` (raw, abbrev, verbose), in
/// `-e trace=`'s syntax; its errors name the qualifier.
fn call_set(qualifier: &str, spec: &str) -> Result<rtrace_cli::select::TraceSet, String> {
    rtrace_cli::select::TraceSet::parse(spec).map_err(|e| format!("-e {qualifier}: {e}"))
}

/// `-X`'s and `--const-print-style`'s value.
fn parse_const_style(text: &str) -> Result<rtrace_cli::format::ConstStyle, String> {
    use rtrace_cli::format::ConstStyle;
    match text {
        "abbrev" => Ok(ConstStyle::Abbrev),
        "raw" => Ok(ConstStyle::Raw),
        "verbose" => Ok(ConstStyle::Verbose),
        _ => Err("expected abbrev, raw or verbose".into()),
    }
}

/// `--decode-pids=` and `-e decode-pids=`: `comm`, `pidns`, both
/// (`comm,pidns`, `all`), `none`.
fn parse_decode_pids(text: &str) -> Result<rtrace_cli::format::DecodePids, String> {
    let mut how = rtrace_cli::format::DecodePids::default();
    for word in text.split(',') {
        match word.trim() {
            "comm" => how.comm = true,
            "pidns" => how.pidns = true,
            "all" => (how.comm, how.pidns) = (true, true),
            "none" => (how.comm, how.pidns) = (false, false),
            _ => return Err(format!("'{word}' is not comm, pidns, all or none")),
        }
    }
    Ok(how)
}

/// What pids print with: `-Y`, `--pidns-translation`, `--decode-pids=`,
/// the last `-e decode-pids=` (which says it all).
fn decode_pids(cli: &Cli) -> Result<rtrace_cli::format::DecodePids, String> {
    let given = cli.decode_pids.unwrap_or_default();
    let mut how = rtrace_cli::format::DecodePids {
        comm: cli.decode_pids_comm || given.comm,
        pidns: cli.pidns_translation || given.pidns,
    };
    for expr in &cli.exprs {
        if let Some(("decode-pids" | "decode-pid", set)) = expr.split_once('=') {
            how = parse_decode_pids(set).map_err(|e| format!("-e decode-pids: {e}"))?;
        }
    }
    Ok(how)
}

/// `-e read=SET` and `-e write=SET`: the fds whose data is dumped (the
/// last of each given counts, as with the other qualifiers).
fn dump_sets(cli: &Cli) -> Result<(FdSet, FdSet), String> {
    let (mut reads, mut writes) = (FdSet::default(), FdSet::default());
    for expr in &cli.exprs {
        match expr.split_once('=') {
            Some(("read", set)) => reads = FdSet::parse("-e read", set)?,
            Some(("write", set)) => writes = FdSet::parse("-e write", set)?,
            _ => {}
        }
    }
    Ok((reads, writes))
}

/// `-y`, `-yy`, `--decode-fds=SET` and `-e decode-fds=SET`: what is shown
/// of each fd (the last SET given counts; -y with a SET is an error, as
/// in strace).
fn fd_details(cli: &Cli) -> Result<FdDetails, String> {
    let mut set = None;
    for expr in &cli.exprs {
        if let Some(("decode-fds", spec)) = expr.split_once('=') {
            set = Some(spec.to_string());
        }
    }
    if let Some(spec) = &cli.decode_fds_set {
        set = Some(spec.clone());
    }
    match (cli.decode_fds, set) {
        (0, None) => Ok(FdDetails::NONE),
        (0, Some(spec)) => FdDetails::parse(&spec),
        (1, None) => Ok(FdDetails::PATH),
        (_, None) => Ok(FdDetails::ALL),
        (_, Some(_)) => Err("-y and --decode-fds cannot be given together".into()),
    }
}

/// `--same-cpu` (`always`), `--same-cpu=N`, `=auto`, `=never`.
/// A size in bytes: `65536`, `64K`, `16M`.
fn parse_size(text: &str) -> Result<usize, String> {
    let (digits, unit) = match text.as_bytes().last() {
        Some(b'K' | b'k') => (&text[..text.len() - 1], 1 << 10),
        Some(b'M' | b'm') => (&text[..text.len() - 1], 1 << 20),
        Some(b'G' | b'g') => (&text[..text.len() - 1], 1 << 30),
        _ => (text, 1),
    };
    digits
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|n| n.is_power_of_two() && *n >= 4096 && *n <= 1 << 30)
        .ok_or_else(|| format!("'{text}' is not a power of two from 4K to 1G"))
}

fn parse_same_cpu(text: &str) -> Result<trace::SameCpu, String> {
    match text {
        "always" => Ok(trace::SameCpu::Always(None)),
        "auto" => Ok(trace::SameCpu::Auto),
        "never" => Ok(trace::SameCpu::Never),
        n => match n.parse::<usize>() {
            Ok(cpu) if cpu < 8192 => Ok(trace::SameCpu::Always(Some(cpu))),
            Ok(_) => Err("CPU numbers go up to 8191 (Linux has at most 8192 CPUs)".into()),
            Err(_) => Err("expected a CPU number, auto, always or never".into()),
        },
    }
}

/// Write `bytes` to stdout; a write error is one line on stderr and exit 1
/// (a closed pipe, as in `rtrace --list-ioctls | head`, is a quiet success).
fn write_stdout(bytes: &[u8], what: &str) -> ExitCode {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write {what}: {}", os_text(&e)), 1),
    }
}

fn os_text(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// End the way the traced command did: by the same signal (without a core
/// dump of our own), or 128+N if the signal cannot kill us.
fn die_by_signal(sig: i32) -> ExitCode {
    // SAFETY: plain libc calls on values; raise() may not return.
    unsafe {
        let no_core = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(sig, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::raise(sig);
    }
    ExitCode::from((128 + sig) as u8)
}
