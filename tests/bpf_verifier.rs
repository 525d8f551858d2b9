//! The kernel's verifier checks the BPF engine's two call programs at
//! every start, and its work grows with every path a change adds: a loop
//! body checked once per turn, or states that no longer meet, multiplied
//! it fourfold in two sessions without any test noticing, and the start-up
//! with it (HACKING.md, "The BPF engine": "What the verifier checks").
//! This holds each program to a budget of checked instructions, a count
//! the kernel reports for the loaded program (not a time).
//!
//! The count is the kernel's own: a kernel whose verifier explores more
//! may need the budget raised, which the failure message says.

mod common;

use common::{rtrace_env, scratch_path};
use std::process::Stdio;
use std::time::Duration;

/// Instructions the verifier may check for each call program. They were
/// about 9,500 (entry) and 11,500 (exit) on kernel 6.18 when this was
/// written, and 41,581 and 48,306 before the loops' bodies became
/// functions checked once; 13,021 and 20,223 in session 31, after the
/// new fds' identities and user_events' enable words (functions checked
/// once, whose own checks count here too), when the budget went from
/// 20,000 to 22,000: a growth of its size is a feature's, a path
/// explosion multiplies the count.
const BUDGET: u32 = 22_000;

/// The ids of the BPF programs process `pid` holds open, from its fds'
/// /proc entries (`prog_id:` in a program fd's fdinfo).
fn program_ids(pid: u32) -> Vec<u32> {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fdinfo")) else {
        return Vec::new();
    };
    fds.flatten()
        .filter_map(|fd| std::fs::read_to_string(fd.path()).ok())
        .filter_map(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("prog_id:"))
                .and_then(|id| id.trim().parse().ok())
        })
        .collect()
}

/// The heaviest configuration (`-yy` adds the fd checks to both programs)
/// of a system-wide trace, whose programs stay loaded until SIGINT.
#[test]
fn the_call_programs_stay_within_the_verifiers_budget() {
    let out = scratch_path("bpf_verifier", "all.txt");
    let tracer = rtrace_env()
        .args(["--bpf", "-a", "-yy", "-e", "trace=getppid", "-o"])
        .arg(&out)
        .stderr(Stdio::null())
        .spawn()
        .expect("start rtrace");
    let pid = tracer.id();
    let mut checked = Vec::new();
    for _ in 0..600 {
        let attached =
            std::fs::read_to_string(&out).is_ok_and(|t| t.starts_with("Tracing every process\n"));
        if attached {
            let ids = program_ids(pid);
            checked = aya::programs::loaded_programs()
                .flatten()
                .filter(|p| ids.contains(&p.id()))
                .filter_map(|p| {
                    let name = p.name_as_str()?.to_string();
                    let count = p.verified_instruction_count()?;
                    name.starts_with("rtrace_sys_").then_some((name, count))
                })
                .collect::<Vec<_>>();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // SAFETY: signalling our own child.
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let mut tracer = tracer;
    let _ = tracer.wait();
    checked.sort();
    let names: Vec<&str> = checked.iter().map(|(n, _)| n.as_str()).collect();
    // The kernel keeps 15 bytes of a program's name.
    assert_eq!(
        names,
        ["rtrace_sys_ente", "rtrace_sys_exit"],
        "the call programs were not found loaded by rtrace (pid {pid})"
    );
    for (name, count) in &checked {
        eprintln!("{name}: the verifier checked {count} instructions");
        assert!(
            *count <= BUDGET,
            "{name}: the verifier checked {count} instructions, over the budget of {BUDGET} \
             (a loop whose body is checked each turn? paths that no longer meet?)"
        );
    }
}
