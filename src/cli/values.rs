//! The values options take: their parsers (clap calls them), and the words
//! shell completion offers for `-e` and `--list-ioctls`.

use clap::ValueEnum;

use rtrace_cli::trace;

/// When to color the trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(super) enum ColorWhen {
    /// Only on a terminal, unless NO_COLOR is set (CLICOLOR_FORCE forces).
    Auto,
    /// Always, even into a file.
    Always,
    /// Never.
    Never,
}

/// A value parser that takes any text but offers words to shell
/// completion: what `-e` and `--list-ioctls` complete to. The words are
/// made only when asked for (by `--completions`).
#[derive(Clone)]
pub(super) struct Offered(pub(super) fn() -> Vec<&'static str>);

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
pub(super) fn expr_words() -> Vec<&'static str> {
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
pub(super) fn group_words() -> Vec<&'static str> {
    rtrace_cli::ioctl::explain::all_groups()
}

/// `-X`'s and `--const-print-style`'s value.
pub(super) fn parse_const_style(text: &str) -> Result<rtrace_cli::format::ConstStyle, String> {
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
pub(super) fn parse_decode_pids(text: &str) -> Result<rtrace_cli::format::DecodePids, String> {
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

/// A size in bytes: `65536`, `64K`, `16M`.
pub(super) fn parse_size(text: &str) -> Result<usize, String> {
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

/// `--same-cpu` (`always`), `--same-cpu=N`, `=auto`, `=never`.
pub(super) fn parse_same_cpu(text: &str) -> Result<trace::SameCpu, String> {
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
