//! The command line: [`Cli`], every option as clap reads it, and [`parse`].
//! The values options take are parsed in `values.rs` and the help's
//! closing text is `help.rs`; what the binary then does with a [`Cli`] is
//! in `info.rs` (answers that need no trace), `setup.rs` (the options
//! checked and turned into the engine's configuration and its output) and
//! `exit.rs` (how rtrace ends).

pub(crate) mod exit;
mod help;
pub(crate) mod info;
pub(crate) mod setup;
mod values;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};

use rtrace_cli::trace;

use exit::{fail, write_stdout};
use help::after_help;
use values::{
    ColorWhen, Offered, expr_words, group_words, parse_const_style, parse_decode_pids,
    parse_same_cpu, parse_size,
};

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
pub(crate) struct Cli {
    /// Follow forks, vforks, clones and threads; -ff with -o FILE also
    /// writes each task's trace to FILE.TID (as --output-separately)
    #[arg(short = 'f', long = "follow-forks", action = clap::ArgAction::Count)]
    follow: u8,

    /// Write the trace to FILE (created with mode 0600) instead of stderr
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<std::path::PathBuf>,

    /// With -o FILE, write each task's trace to FILE.TID, without pid
    /// prefixes (as -ff; not with -c or -C)
    #[arg(long = "output-separately")]
    output_separately: bool,

    /// Append to -o's file (or -ff's files) instead of truncating it
    #[arg(short = 'A', long = "output-append-mode")]
    append: bool,

    /// Put VAR=VAL in the started command's environment, or with VAR alone
    /// take VAR out of it (repeatable)
    #[arg(short = 'E', long = "env", value_name = "VAR[=VAL]")]
    env: Vec<std::ffi::OsString>,

    /// Run the started command as USER (a name, or UID:GID), with the
    /// user's groups; a setuid or setgid program keeps its owner as its
    /// effective id. rtrace must run as root
    #[arg(short = 'u', long = "user", value_name = "USER")]
    user: Option<String>,

    /// Start each call's line with its number, `[ 110] getppid() = 1`
    #[arg(short = 'n', long = "syscall-number")]
    syscall_number: bool,

    /// Start each call's line with the instruction pointer at the call
    #[arg(short = 'i', long = "instruction-pointer")]
    instruction_pointer: bool,

    /// Let a process go when it calls SYSCALL, which must be execve: a
    /// process that execs (but the started command's first exec) runs on
    /// untraced (not with --bpf, nor --seccomp-bpf)
    #[arg(short = 'b', long = "detach-on", value_name = "SYSCALL")]
    detach_on: Option<String>,

    /// Run rtrace as a detached grandchild: the command stays the child of
    /// whoever started rtrace (-DD: rtrace in a process group of its own,
    /// -DDD: in a session of its own)
    #[arg(short = 'D', action = clap::ArgAction::Count)]
    daemonize: u8,

    /// -D's long spelling: grandchild (-D), pgroup (-DD) or session (-DDD)
    #[arg(long = "daemonize", value_name = "HOW", num_args = 0..=1, default_missing_value = "grandchild", value_parser = ["grandchild", "pgroup", "session"], conflicts_with = "daemonize")]
    daemonize_long: Option<String>,

    /// Start the command with NAME as its argv[0]
    #[arg(long = "argv0", value_name = "NAME")]
    argv0: Option<std::ffi::OsString>,

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
    #[arg(short = 'N', long = "all-names", visible_alias = "arg-names")]
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

    /// strace's long spelling of -e trace=SET (repeatable)
    #[arg(long = "trace", value_name = "SET")]
    trace_long: Vec<String>,

    /// strace's long spelling of -e signal=SET (repeatable)
    #[arg(long = "signals", visible_alias = "signal", value_name = "SET")]
    signals_long: Vec<String>,

    /// strace's long spelling of -e status=SET (repeatable)
    #[arg(long = "status", value_name = "SET")]
    status_long: Vec<String>,

    /// strace's long spelling of -e raw=SET (repeatable)
    #[arg(long = "raw", value_name = "SET")]
    raw_long: Vec<String>,

    /// strace's long spelling of -e abbrev=SET (repeatable)
    #[arg(long = "abbrev", value_name = "SET")]
    abbrev_long: Vec<String>,

    /// strace's long spelling of -e read=FDS (repeatable)
    #[arg(long = "read", value_name = "FDS")]
    read_long: Vec<String>,

    /// strace's long spelling of -e write=FDS (repeatable)
    #[arg(long = "write", value_name = "FDS")]
    write_long: Vec<String>,

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
    /// named from their symbol tables (C++ and Rust names demangled); -kk
    /// adds each frame's source file and line from the binaries' DWARF or
    /// their separate debug files. i386 programs' stacks are unwound by
    /// elfutils' libdw.so.1 where it is installed; not with --bpf
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
    #[arg(short = 'Z', long = "failed-only", visible_alias = "failing-only")]
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
    /// cheapest call runs about 2x slower, not 50x; a real program's
    /// calls cost it about a third more), and the whole machine can be
    /// traced (-a). It cannot change
    /// or hold the tracee (no --same-cpu, --seccomp-bpf or
    /// --kill-on-exit), memory behind pointers it does not follow shows as
    /// pointers, and when rtrace falls behind records are lost and counted
    /// (`** N events lost **`). Needs root (or CAP_BPF and CAP_PERFMON) and
    /// the kernel's BTF
    #[arg(long)]
    bpf: bool,

    /// With --bpf: trace every process on the machine (but rtrace),
    /// until interrupted or, given a command, until it ends
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

/// The command line as clap reads it, or how rtrace ends at once: the
/// help or version text written, or a one-line error.
pub(crate) fn parse() -> Result<Cli, ExitCode> {
    let parsed = Cli::command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let cli = match parsed {
        Ok((mut cli, matches)) => {
            // The injections first: they pair -e's own positions with
            // -e's own expressions, before the long spellings join them.
            cli.injections = injections_in_order(&cli, &matches);
            cli.exprs = exprs_in_order(&cli, &matches);
            cli
        }
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                return Err(write_stdout(
                    e.render().to_string().as_bytes(),
                    "the help text",
                ));
            }
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            let first = first.strip_prefix("error: ").unwrap_or(first);
            // A misspelled option: clap knows the nearest one.
            let hint = match e.get(clap::error::ContextKind::SuggestedArg) {
                Some(clap::error::ContextValue::String(near)) => format!("did you mean {near}?"),
                _ => "see rtrace --help".to_string(),
            };
            return Err(fail(&format!("{first} ({hint})"), 2));
        }
    };
    Ok(cli)
}

/// Every `-e EXPR`, with strace's long spellings of its qualifiers
/// (`--trace=SET` is `-e trace=SET`, ...), in the order the command line
/// gives them.
fn exprs_in_order(cli: &Cli, matches: &clap::ArgMatches) -> Vec<String> {
    let mut all: Vec<(usize, String)> = Vec::new();
    let longs = [
        ("exprs", "", &cli.exprs),
        ("trace_long", "trace=", &cli.trace_long),
        ("signals_long", "signal=", &cli.signals_long),
        ("status_long", "status=", &cli.status_long),
        ("raw_long", "raw=", &cli.raw_long),
        ("abbrev_long", "abbrev=", &cli.abbrev_long),
        ("read_long", "read=", &cli.read_long),
        ("write_long", "write=", &cli.write_long),
    ];
    for (id, key, values) in longs {
        let at = matches.indices_of(id).into_iter().flatten();
        for (i, value) in at.zip(values) {
            all.push((i, format!("{key}{value}")));
        }
    }
    all.sort_by_key(|&(i, _)| i);
    all.into_iter().map(|(_, expr)| expr).collect()
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
