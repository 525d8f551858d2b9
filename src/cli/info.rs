//! What rtrace prints instead of tracing: completion scripts, an ioctl
//! request explained, the ioctl groups and requests, the man page.

use std::process::ExitCode;

use clap::CommandFactory;

use super::Cli;
use super::exit::{fail, os_text, write_stdout};
use super::help::after_help;

/// Print what the command line asks for instead of a trace, if it does;
/// how rtrace then ends.
pub(crate) fn print(cli: &Cli) -> Option<ExitCode> {
    if let Some(shell) = cli.completions {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut Cli::command(), "rtrace", &mut script);
        return Some(write_stdout(&script, "completions"));
    }
    if let Some(request) = &cli.explain_ioctl {
        return Some(match rtrace_cli::ioctl::explain::explain_arg(request) {
            Ok(text) => write_stdout(text.as_bytes(), "the explanation"),
            Err(e) => fail(&e, 2),
        });
    }
    if cli.list_ioctl_groups {
        let text = rtrace_cli::ioctl::explain::list_groups();
        return Some(write_stdout(text.as_bytes(), "the list"));
    }
    if let Some(group) = &cli.list_ioctls {
        // Given with no group, every group; an empty name is an error.
        return Some(match rtrace_cli::ioctl::explain::list(group.as_deref()) {
            Ok(text) => write_stdout(text.as_bytes(), "the list"),
            Err(e) => fail(&e, 2),
        });
    }
    if cli.man {
        let mut page = Vec::new();
        if let Err(e) = man_page(&mut page) {
            return Some(fail(
                &format!("cannot render the man page: {}", os_text(&e)),
                1,
            ));
        }
        return Some(write_stdout(&page, "the man page"));
    }
    None
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
