//! Pids across pid namespaces (`--pidns-translation`, and `-Y`, which
//! must read the command of the right process): a pid a tracee passes or
//! gets is a number in its own namespace; `/proc` here is rtrace's.

use std::path::Path;

/// A pid task `tid` named, as rtrace's namespace numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PidHere {
    /// The task is in rtrace's namespace: the number is the same.
    Same(i32),
    /// The task is in another namespace, where the process numbered so
    /// is this one here.
    Translated(i32),
    /// The task is in another namespace and no process has that number
    /// there now (reaped, or never was).
    Unknown,
}

/// Where pid `pid`, as task `tid` sees it, is in rtrace's namespace.
///
/// The kernel gives each task's pid in every namespace from the one
/// `/proc` was mounted for down to its own (the `NSpid:` line of its
/// status). The tracee's line says how deep its namespace is; a process
/// numbered `pid` at that depth whose namespace is the tracee's (or, when
/// the link cannot be read, as for a zombie, is as deep) is the one.
pub fn pid_here(tid: i32, pid: i32) -> PidHere {
    let ns = |task: &str| std::fs::read_link(format!("/proc/{task}/ns/pid")).ok();
    let (theirs, ours) = (ns(&tid.to_string()), ns("self"));
    if theirs.is_none() || theirs == ours {
        return PidHere::Same(pid);
    }
    let Some(depth) = ns_pids(Path::new(&format!("/proc/{tid}"))).map(|p| p.len() - 1) else {
        return PidHere::Same(pid);
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return PidHere::Unknown;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(here) = name.to_str().and_then(|n| n.parse::<i32>().ok()) else {
            continue;
        };
        let Some(pids) = ns_pids(&entry.path()) else {
            continue;
        };
        // Only the processes in the tracee's namespace or under it can
        // have a number there, threads included.
        if pids.len() <= depth {
            continue;
        }
        // Its namespace is the tracee's, or one under it (not told apart
        // from one under a sibling), or cannot be read (a zombie's).
        let in_theirs =
            pids.len() > depth + 1 || ns(&here.to_string()).is_none_or(|link| Some(link) == theirs);
        if !in_theirs {
            continue;
        }
        if pids[depth] == pid {
            return PidHere::Translated(here);
        }
        let Ok(tasks) = std::fs::read_dir(entry.path().join("task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let Some(thread) = task
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            if thread != here && ns_pids(&task.path()).is_some_and(|t| t.get(depth) == Some(&pid)) {
                return PidHere::Translated(thread);
            }
        }
    }
    PidHere::Unknown
}

/// The `NSpid:` numbers of the task whose `/proc` directory is `dir`,
/// outermost first.
fn ns_pids(dir: &Path) -> Option<Vec<i32>> {
    let status = std::fs::read_to_string(dir.join("status")).ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("NSpid:"))?;
    line.split_whitespace().map(|n| n.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_pids_are_the_same() {
        let me = std::process::id() as i32;
        assert_eq!(pid_here(me, me), PidHere::Same(me));
        assert_eq!(pid_here(me, 1), PidHere::Same(1));
    }

    #[test]
    fn our_nspid_line_ends_with_our_pid() {
        let me = std::process::id() as i32;
        let pids = ns_pids(Path::new("/proc/self")).expect("an NSpid line");
        assert_eq!(pids.last(), Some(&me));
    }
}
