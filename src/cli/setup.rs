//! The options checked against each other and turned into what tracing
//! needs: the engine's [`trace::Config`] and the [`Output`] it writes to.
//! Everything is checked before the output file is created, so a bad
//! command line leaves nothing behind.

use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::process::ExitCode;

use rtrace_cli::format::{FdSet, FormatConfig};
use rtrace_cli::kernel::fds::FdDetails;
use rtrace_cli::output::timeline::Timeline;
use rtrace_cli::output::{Output, Timestamps, TraceWriter};
use rtrace_cli::trace;

use super::Cli;
use super::exit::{fail, os_text};
use super::values::{ColorWhen, parse_decode_pids};

/// What tracing starts with.
pub(crate) struct Setup {
    /// The engine's configuration.
    pub(crate) config: trace::Config,
    /// The output layer, on the trace file or stderr.
    pub(crate) out: Output,
    /// The trace file, when rtrace created it: removed again if tracing
    /// cannot start.
    pub(crate) created: Option<std::path::PathBuf>,
}

/// Check the options and make what tracing starts with, or say what is
/// wrong (how rtrace then ends).
pub(crate) fn setup(cli: Cli) -> Result<Setup, ExitCode> {
    if !cli.bpf && (cli.all || cli.bpf_ring.is_some() || cli.bpf_lossless) {
        // Each with the reason ptrace has no use for it.
        let (option, why) = if cli.all {
            ("-a", "ptrace cannot see the whole machine")
        } else if cli.bpf_lossless {
            (
                "--bpf-lossless",
                "ptrace loses nothing: it stops the tracee at each call",
            )
        } else {
            ("--bpf-ring", "ptrace has no ring buffer")
        };
        return Err(fail(&format!("{option} needs --bpf ({why})"), 2));
    }
    if cli.bpf
        && (cli.seccomp_bpf
            || cli.same_cpu.is_some()
            || cli.kill_on_exit
            || cli.syscall_limit.is_some()
            || cli.detach_on.is_some())
    {
        let option = if cli.seccomp_bpf {
            "--seccomp-bpf"
        } else if cli.same_cpu.is_some() {
            "--same-cpu"
        } else if cli.kill_on_exit {
            "--kill-on-exit"
        } else if cli.detach_on.is_some() {
            "-b execve"
        } else {
            "--syscall-limit"
        };
        return Err(fail(
            &format!("{option} is for the ptrace engine: --bpf never stops or holds the tracee"),
            2,
        ));
    }
    let stack_trace = cli.stack_k > 0 || cli.stack_trace.is_some();
    if cli.bpf && stack_trace {
        return Err(fail(
            "-k (--stack-trace) is for the ptrace engine: --bpf never stops the tracee, so its stack is gone by the time rtrace reads it",
            2,
        ));
    }
    if cli.all && cli.bpf_lossless {
        // It would stop whatever carries rtrace's own output (a terminal,
        // sshd, the reader of a pipe) and then wait on it for ever.
        return Err(fail(
            "--bpf-lossless cannot be used with -a: it would stop the processes rtrace's own output goes through",
            2,
        ));
    }
    if cli.usbmon_replay_pace && cli.usbmon_replay.is_none() {
        return Err(fail("--usbmon-replay-pace needs --usbmon-replay FILE", 2));
    }
    if cli.usbmon_replay_loop.is_some() && cli.usbmon_replay.is_none() {
        return Err(fail("--usbmon-replay-loop needs --usbmon-replay FILE", 2));
    }
    let usbmon_passes = match cli.usbmon_replay_loop.as_deref() {
        None => Some(1),
        Some("forever") => None,
        Some(n) => match n.parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(fail(
                    &format!(
                        "--usbmon-replay-loop={n}: N is how many times to play the recording, a number from 1 (leave =N out to loop for ever)"
                    ),
                    2,
                ));
            }
        },
    };
    if cli.usbmon_replay.is_some() {
        // The emulation is set up by the child rtrace forks, before its
        // exec: neither a process already running nor the BPF engine
        // (which only watches) can get it.
        if cli.bpf {
            return Err(fail(
                "--usbmon-replay cannot be used with --bpf: the emulation answers the command's calls, which only the ptrace engine can have answered",
                2,
            ));
        }
        if !cli.pids.is_empty() {
            return Err(fail(
                "--usbmon-replay cannot be used with -p: the emulated device is given to the command rtrace starts, before its exec",
                2,
            ));
        }
        if cli.command.is_empty() {
            return Err(fail(
                "--usbmon-replay needs a COMMAND to run on the emulated usbmon",
                2,
            ));
        }
    }
    if cli.user_events_enable.is_some() && !cli.user_events_emulate {
        return Err(fail("--user-events-enable needs --user-events-emulate", 2));
    }
    if cli.user_events_emulate {
        // Set up in the child rtrace forks, as --usbmon-replay.
        if cli.bpf {
            return Err(fail(
                "--user-events-emulate cannot be used with --bpf: the emulation answers the command's calls, which only the ptrace engine can have answered",
                2,
            ));
        }
        if !cli.pids.is_empty() {
            return Err(fail(
                "--user-events-emulate cannot be used with -p: the emulated files are given to the command rtrace starts, before its exec",
                2,
            ));
        }
        if cli.command.is_empty() {
            return Err(fail(
                "--user-events-emulate needs a COMMAND to run on the emulated user_events",
                2,
            ));
        }
    }
    if cli.command.is_empty() && cli.pids.is_empty() && !cli.all {
        let what = if cli.bpf {
            "nothing to trace: give a COMMAND, -p PID or -a (see rtrace --help)"
        } else {
            "nothing to trace: give a COMMAND or -p PID (see rtrace --help)"
        };
        return Err(fail(what, 2));
    }

    // Options are checked before the output file is created: a bad
    // command line leaves nothing behind.
    let select = match selection(&cli) {
        Ok(select) => select,
        Err(e) => return Err(fail(&e, 2)),
    };
    let decode_fds = match fd_details(&cli) {
        Ok(set) => set,
        Err(e) => return Err(fail(&e, 2)),
    };
    let (dump_reads, dump_writes) = match dump_sets(&cli) {
        Ok(sets) => sets,
        Err(e) => return Err(fail(&e, 2)),
    };
    let decode_pids = match decode_pids(&cli) {
        Ok(how) => how,
        Err(e) => return Err(fail(&e, 2)),
    };
    let sort = match cli.sort.as_deref().map(trace::stats::SortKey::parse) {
        None => trace::stats::SortKey::default(),
        Some(Ok(key)) => key,
        Some(Err(e)) => return Err(fail(&e, 2)),
    };
    let max = rtrace_cli::format::MAX_STRING_LIMIT;
    if let Some(n) = cli.string_limit.filter(|&n| n > max) {
        // A silent clamp would print less than asked without saying so.
        return Err(fail(
            &format!("-s {n} is more than the most rtrace prints, {max} (16 MiB)"),
            2,
        ));
    }
    let usbmon_replay = match &cli.usbmon_replay {
        Some(path) => {
            let pace = rtrace_cli::emu::usbmon::Pace {
                recorded: cli.usbmon_replay_pace,
                passes: usbmon_passes,
            };
            match rtrace_cli::emu::usbmon::Replay::load(path, pace) {
                Ok(r) => Some(r),
                Err(e) => return Err(fail(&e, 2)),
            }
        }
        None => None,
    };
    if let Some(call) = cli.detach_on.as_deref().filter(|c| *c != "execve") {
        let mut shown = String::new();
        rtrace_cli::escape::c_escape(call.as_bytes(), false, &mut shown);
        return Err(fail(
            &format!("-b '{shown}': only execve can be detached on (as in strace)"),
            2,
        ));
    }
    let launch = match launch(&cli) {
        Ok(launch) => launch,
        Err((e, code)) => return Err(fail(&e, code)),
    };
    if launch.daemonize > 0 && cli.same_cpu.is_some() {
        return Err(fail(
            "--same-cpu cannot be used with -D: rtrace goes on as another process, which the pin guard does not know",
            2,
        ));
    }
    // -ff (or --output-separately) with -o: a file a task. Without -o it
    // is -f, as in strace.
    let separately = cli.follow >= 2 || cli.output_separately;
    if separately && (cli.summary_only || cli.summary) {
        return Err(fail(
            "-c and -C count every task in one summary: not with -ff or --output-separately",
            2,
        ));
    }
    if cli.summary_only {
        // As strace: said for each, and the summary goes on.
        for (given, what) in [(cli.syscall_number, "-n"), (cli.instruction_pointer, "-i")] {
            if given {
                eprintln!("rtrace: {what} has no effect with -c: no call's line is printed");
            }
        }
    }
    if cli.output.is_none() && (cli.append || cli.output_separately) {
        let what = if cli.append {
            "-A"
        } else {
            "--output-separately"
        };
        eprintln!("rtrace: {what} has no effect without -o FILE");
    }
    let split = cli.output.clone().filter(|_| separately);
    if let Some(base) = &split {
        // The files are made as tasks appear: a directory they cannot be
        // made in is said now, not after the command has run.
        let dir = match base.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        if let Err(e) = nix::unistd::access(dir, nix::unistd::AccessFlags::W_OK) {
            let mut name = String::new();
            rtrace_cli::escape::c_escape(dir.as_os_str().as_bytes(), false, &mut name);
            return Err(fail(
                &format!("cannot make -ff's files in '{name}': {}", e.desc()),
                1,
            ));
        }
    }
    // A file rtrace creates is removed again if tracing cannot start, so a
    // failed -p leaves nothing behind.
    let created = cli
        .output
        .as_ref()
        .filter(|path| split.is_none() && std::fs::symlink_metadata(path).is_err())
        .cloned();
    let (writer, is_terminal): (Box<dyn std::io::Write>, bool) = match &cli.output {
        Some(path) if split.is_none() => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .append(cli.append)
                .truncate(!cli.append)
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
                    return Err(fail(&format!("cannot open '{name}': {}", os_text(&e)), 1));
                }
            }
        }
        // Under -ff what is no task's (rtrace's own lines) goes to stderr;
        // the files are not terminals.
        Some(_) => (Box::new(TraceWriter::new(std::io::stderr())), false),
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
                    return Err(fail(&format!("cannot open '{name}': {}", os_text(&e)), 1));
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
        follow: cli.follow > 0,
        format: FormatConfig {
            all_names: cli.all_names,
            values_only: cli.values,
            consts: match (cli.values, cli.const_style) {
                (0, style) => style.unwrap_or_default(),
                _ => rtrace_cli::format::ConstStyle::Values,
            },
            decode_pids,
            syscall_number: cli.syscall_number,
            instruction_pointer: cli.instruction_pointer,
            verbose: cli.verbose,
            string_limit,
            table_limit: cli.string_limit.unwrap_or(32).min(max),
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
        detach_on_exec: cli.detach_on.is_some(),
        stack_trace,
        stack_source: cli.stack_k > 1 || cli.stack_trace.as_deref() == Some("source"),
        launch,
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
    if let Some(base) = split {
        out = out.split(base, cli.append);
    }
    Ok(Setup {
        config,
        out,
        created,
    })
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

/// `-E`, `-u` and `--argv0`: how the started command is started, checked;
/// an error with its exit code.
fn launch(cli: &Cli) -> Result<trace::Launch, (String, u8)> {
    let daemonize = match cli.daemonize_long.as_deref() {
        Some("grandchild") => 1,
        Some("pgroup") => 2,
        Some(_) => 3,
        None => cli.daemonize.min(3),
    };
    let given = !cli.env.is_empty() || cli.user.is_some() || cli.argv0.is_some() || daemonize > 0;
    if given && cli.command.is_empty() {
        return Err((
            "-E, -u, --argv0 and -D are for a started command: give a COMMAND".into(),
            2,
        ));
    }
    for change in &cli.env {
        let name = change
            .as_bytes()
            .split(|&b| b == b'=')
            .next()
            .unwrap_or_default();
        if name.is_empty() {
            let mut shown = String::new();
            rtrace_cli::escape::c_escape(change.as_bytes(), false, &mut shown);
            return Err((format!("-E '{shown}': give VAR=VALUE or VAR"), 2));
        }
    }
    let run_as = match &cli.user {
        Some(user) => Some(run_as(user)?),
        None => None,
    };
    Ok(trace::Launch {
        env: cli.env.clone(),
        run_as,
        argv0: cli.argv0.clone(),
        daemonize,
    })
}

/// `-u USER`: a user name, or `UID:GID` by number (no look-up, and no
/// supplementary groups), as strace takes it.
fn run_as(user: &str) -> Result<trace::RunAs, (String, u8)> {
    let mut shown = String::new();
    rtrace_cli::escape::c_escape(user.as_bytes(), false, &mut shown);
    // Only root can take another user's ids (strace says the same).
    if !nix::unistd::getuid().is_root() || !nix::unistd::geteuid().is_root() {
        return Err((format!("-u '{shown}' needs rtrace to run as root"), 1));
    }
    if let Some((uid, gid)) = user.split_once(':') {
        // (uid_t)-1 means "unchanged" to setreuid: not an id.
        let id = |text: &str| text.parse::<u32>().ok().filter(|&n| n != u32::MAX);
        return match (id(uid), id(gid)) {
            (Some(uid), Some(gid)) => Ok(trace::RunAs {
                uid,
                gid,
                groups: Vec::new(),
            }),
            _ => Err((format!("-u '{shown}': not a UID:GID pair of numbers"), 2)),
        };
    }
    let found = nix::unistd::User::from_name(user)
        .map_err(|e| {
            (
                format!("-u '{shown}': cannot look the user up: {}", e.desc()),
                1,
            )
        })?
        .ok_or_else(|| (format!("-u '{shown}': no such user"), 2))?;
    let name =
        std::ffi::CString::new(user).map_err(|_| (format!("-u '{shown}': no such user"), 2))?;
    let groups = nix::unistd::getgrouplist(&name, found.gid).map_err(|e| {
        (
            format!("-u '{shown}': cannot read the user's groups: {}", e.desc()),
            1,
        )
    })?;
    Ok(trace::RunAs {
        uid: found.uid.as_raw(),
        gid: found.gid.as_raw(),
        groups: groups.iter().map(|g| g.as_raw()).collect(),
    })
}
