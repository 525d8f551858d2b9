//! Getting tracees: starting the command (fork, seize, exec) and attaching
//! to running processes with all their threads.

use std::cell::RefCell;
use std::ffi::{CString, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::rc::Rc;

use nix::unistd::Pid;

use super::{Engine, Error, Life, Proc, io_message, signals};
use crate::escape::TraceeText;
use crate::fdtable::{FdInfo, FdTable};
use crate::kernel;

/// Find `cmd` the way execvp would, so a missing command fails before
/// anything is started.
fn resolve(cmd: &OsString) -> Result<std::path::PathBuf, std::io::Error> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::path::Path::new(cmd);
    if cmd.is_empty() {
        // As execvp: an empty name is no file (joined to a PATH entry it
        // would name the directory itself).
        return Err(std::io::Error::from_raw_os_error(libc::ENOENT));
    }
    if cmd.as_bytes().contains(&b'/') {
        return std::fs::metadata(path).map(|_| path.to_path_buf());
    }
    let dirs = std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
    let mut found_non_exec = None;
    for dir in std::env::split_paths(&dirs) {
        let candidate = dir.join(path);
        if let Ok(meta) = std::fs::metadata(&candidate) {
            if meta.is_file() && meta.permissions().mode() & 0o111 != 0 {
                return Ok(candidate);
            }
            found_non_exec.get_or_insert(candidate);
        }
    }
    found_non_exec.ok_or_else(|| std::io::Error::from_raw_os_error(libc::ENOENT))
}

/// The ptrace options for a tracee. `exit_kill` asks the kernel to kill it
/// when rtrace dies (PTRACE_O_EXITKILL).
pub(super) fn options(follow: bool, exit_kill: bool, seccomp: bool) -> libc::c_int {
    let mut opts = libc::PTRACE_O_TRACESYSGOOD | libc::PTRACE_O_TRACEEXEC;
    // Under the filter children are traced even without -f (not shown):
    // see Proc::shown.
    if follow || seccomp {
        opts |= libc::PTRACE_O_TRACEFORK | libc::PTRACE_O_TRACEVFORK | libc::PTRACE_O_TRACECLONE;
    }
    if exit_kill {
        opts |= libc::PTRACE_O_EXITKILL;
    }
    if seccomp {
        opts |= libc::PTRACE_O_TRACESECCOMP;
    }
    opts
}

/// The tasks (threads) of process `pid`, in order, for `-p`.
pub(super) fn tasks_of(pid: i32) -> Result<Vec<i32>, Error> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .map_err(|_| Error::new(format!("cannot attach to pid {pid}: No such process"), 1))?;
    let mut tids: Vec<i32> = tasks
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort_unstable();
    Ok(tids)
}

/// Whether task `tid` is a zombie.
pub(super) fn is_zombie(tid: i32) -> bool {
    kernel::stat_field(tid, 3).is_some_and(|state| state == "Z")
}

/// rtrace's environment with `-E`'s `changes` applied in order: `VAR=VAL`
/// sets VAR (where it was, or at the end), `VAR` takes it out.
fn command_env(changes: &[OsString]) -> Result<Vec<CString>, Error> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os().collect();
    for change in changes {
        let bytes = change.as_bytes();
        match bytes.iter().position(|&b| b == b'=') {
            Some(at) => {
                let name = OsString::from_vec(bytes[..at].to_vec());
                let value = OsString::from_vec(bytes[at + 1..].to_vec());
                match env.iter_mut().find(|(n, _)| *n == name) {
                    Some(entry) => entry.1 = value,
                    None => env.push((name, value)),
                }
            }
            None => env.retain(|(n, _)| n != change),
        }
    }
    env.into_iter()
        .map(|(name, value)| {
            let mut pair = name.into_vec();
            pair.push(b'=');
            pair.extend(value.into_vec());
            CString::new(pair)
        })
        .collect::<Result<_, _>>()
        .map_err(|_| Error::new("-E: a variable contains a NUL byte".into(), 2))
}

fn environ() -> *const *const libc::c_char {
    unsafe extern "C" {
        static environ: *const *const libc::c_char;
    }
    // SAFETY: reading the C library's environment pointer.
    unsafe { environ }
}

/// A child forked to run the command, waiting on a pipe for its release.
pub(super) struct Forked {
    /// Its pid.
    pub pid: i32,
    wfd: i32,
    name: TraceeText,
    /// Its arguments after the program (argv[1..]), for its banner: its
    /// /proc/PID/cmdline is still rtrace's until it execs.
    args: Vec<TraceeText>,
    /// The command as the user gave it, for messages.
    pub shown: String,
    /// `-D`: it is the process rtrace was started as, not rtrace's child.
    daemonized: bool,
}

impl Forked {
    /// Let it exec.
    pub fn release(self) {
        // SAFETY: one byte from a local to our pipe, then close it.
        unsafe {
            libc::write(self.wfd, b"x".as_ptr().cast(), 1);
            libc::close(self.wfd);
        }
    }

    /// Kill it unreleased.
    pub fn abandon(self) {
        if self.daemonized {
            // The caller's own child: it ends itself (127) when the pipe
            // closes without the byte, at rtrace's exit, once rtrace's
            // error has been said.
            return;
        }
        // SAFETY: kill and close take plain values.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            libc::close(self.wfd);
        }
        let mut status = 0;
        // SAFETY: reaping our own child.
        unsafe { libc::waitpid(self.pid, &mut status, libc::__WALL) };
    }
}

impl Engine {
    /// Start `command` traced from its first execve. With a seccomp
    /// program, the child installs it just before exec.
    pub(super) fn spawn(
        &mut self,
        command: &[OsString],
        filter: Option<&[libc::sock_filter]>,
    ) -> Result<(), Error> {
        let forked = self.fork_command(command, filter)?;
        let pid = forked.pid;
        let shown = forked.shown.clone();
        let child = Pid::from_raw(pid);
        let seccomp = filter.is_some();
        // As strace, a killed rtrace leaves its command running, unless
        // asked (--kill-on-exit) or under the seccomp filter: with no
        // tracer the filter's selected calls fail with ENOSYS, which would
        // break the command in ways worse than ending it.
        let exit_kill = self.kill_on_exit || seccomp;
        let seized = kernel::seize(child, options(self.follow, exit_kill, seccomp))
            .and_then(|_| kernel::interrupt(child));
        if let Err(e) = seized {
            forked.abandon();
            return Err(Error::new(
                format!("cannot trace '{shown}': {}", io_message(&e)),
                1,
            ));
        }
        // The interrupt stop: the child is ours from here on.
        let stop = loop {
            match kernel::wait(pid) {
                None => continue,
                Some(Ok(kernel::Waited::Stopped(stop))) => break stop,
                Some(_) => {
                    forked.abandon();
                    return Err(Error::new(format!("cannot trace '{shown}'"), 1));
                }
            }
        };
        self.adopt_command(forked, seccomp);
        // Until its exec the child makes calls of ours (installing the
        // filter); only its execve is of interest, and the filter, in place
        // by then, stops it if it is selected.
        self.resume_tracee(stop, 0);
        Ok(())
    }

    /// The started command's process, now traced, goes on to its exec:
    /// it is in the process table, shown, from here on.
    pub(super) fn adopt_command(&mut self, forked: Forked, seccomp: bool) {
        let pid = forked.pid;
        let name = forked.name.clone();
        let args = forked.args.clone();
        let fds = Rc::new(RefCell::new(FdTable::new(pid)));
        if !self.proc_is_current {
            // The BPF engine reads /proc after the calls: an fd the
            // command inherited may be closed (or the command gone) when
            // a call on it is printed. Held before its exec, the command
            // has exactly these; the table then follows them call by call.
            let mut table = fds.borrow_mut();
            table.set_cwd(crate::fdtable::kernel_cwd(pid));
            for (fd, path, cloexec) in kernel::open_fds(pid) {
                table.insert(
                    fd,
                    FdInfo {
                        cloexec,
                        ..FdInfo::found(path)
                    },
                );
            }
        }
        forked.release();
        let mut proc = Proc::new(pid, name.clone(), false, Life::Starting, fds);
        proc.quiet_exec = true;
        proc.seccomp = seccomp;
        proc.own_setreuid = seccomp && self.launch.run_as.is_some();
        if self.usbmon_replay.is_some() || self.user_events.is_some() {
            // The emulation's user-notification filter outranks the fast
            // path's RET_TRACE: the command and everything it starts step
            // every call, as under a filter of its own.
            proc.own = super::own_seccomp::OwnSeccomp::emulated();
        }
        proc.argv = Some(args.clone());
        self.procs.insert(pid, proc);
        self.main_pid = Some(pid);
        self.set_count();
        self.report(pid, super::Report::Tracing(name, Some(args)));
    }

    /// Fork the process that will run `command`; it waits for
    /// [`Forked::release`] before it execs (with the seccomp `filter`, if
    /// any, installed).
    pub(super) fn fork_command(
        &mut self,
        command: &[OsString],
        filter: Option<&[libc::sock_filter]>,
    ) -> Result<Forked, Error> {
        let shown = command[0].to_string_lossy().into_owned();
        // In messages the name is escaped: an error stays one line, and a
        // name with control bytes (from a hostile directory's listing)
        // cannot reach the terminal raw.
        let mut quoted = String::new();
        crate::escape::c_escape(command[0].as_bytes(), false, &mut quoted);
        let path = resolve(&command[0])
            .map_err(|e| Error::new(format!("cannot run '{quoted}': {}", io_message(&e)), 127))?;
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| Error::new(format!("cannot run '{quoted}': NUL in name"), 127))?;
        let first = self.launch.argv0.as_ref().unwrap_or(&command[0]);
        let c_args: Vec<CString> = std::iter::once(first)
            .chain(&command[1..])
            .map(|a| CString::new(a.as_bytes()))
            .collect::<Result<_, _>>()
            .map_err(|_| Error::new("an argument contains a NUL byte".into(), 2))?;
        let mut argv: Vec<*const libc::c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        // -E: the command's own environment, rtrace's changed; without it
        // rtrace's is passed as it is.
        let c_env = match self.launch.env.is_empty() {
            true => None,
            false => Some(command_env(&self.launch.env)?),
        };
        let envp: Option<Vec<*const libc::c_char>> = c_env.as_ref().map(|env| {
            env.iter()
                .map(|e| e.as_ptr())
                .chain([std::ptr::null()])
                .collect()
        });
        // -u: the user's ids, and the effective ones a setuid or setgid
        // program would give it (strace's rule).
        let run_as = self.launch.run_as.clone();
        let (euid, egid) = match &run_as {
            Some(r) => {
                let meta = std::fs::metadata(&path).map_err(|e| {
                    Error::new(format!("cannot run '{quoted}': {}", io_message(&e)), 127)
                })?;
                use std::os::unix::fs::MetadataExt;
                let setuid = meta.mode() & libc::S_ISUID != 0;
                let setgid = meta.mode() & libc::S_ISGID != 0;
                (
                    if setuid { meta.uid() } else { r.uid },
                    if setgid { meta.gid() } else { r.gid },
                )
            }
            None => (0, 0),
        };
        let user_failed = "rtrace: -u: cannot take the user's ids: ";
        let prefix = format!("rtrace: cannot run '{quoted}': ");
        let seccomp_failed = "rtrace: cannot install the seccomp filter\n";
        let prog = filter.map(|f| libc::sock_fprog {
            len: f.len() as u16,
            filter: f.as_ptr() as *mut libc::sock_filter,
        });

        // The usbmon emulation's part of the child, made before the fork:
        // the /dev listing needs a mount namespace (CAP_SYS_ADMIN).
        let replay = match &self.usbmon_replay {
            Some(r) => Some(
                r.prepare(kernel::has_cap_sys_admin(0))
                    .map_err(|e| Error::new(format!("--usbmon-replay: {}", io_message(&e)), 1))?,
            ),
            None => None,
        };
        let uevents = match &self.user_events {
            Some(u) => Some(u.prepare().map_err(|e| {
                Error::new(format!("--user-events-emulate: {}", io_message(&e)), 1)
            })?),
            None => None,
        };
        let mut fds = [0; 2];
        // SAFETY: pipe2 writes two fds into the array.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
            return Err(Error::new(
                format!("pipe: {}", io_message(&std::io::Error::last_os_error())),
                1,
            ));
        }
        let (rfd, wfd) = (fds[0], fds[1]);
        // The process that becomes the command, once rtrace has traced it
        // (the byte on the pipe): the forked child, or under -D the
        // process rtrace was started as.
        // SAFETY: only async-signal-safe calls on data prepared before the
        // fork, then exec or _exit.
        let daemonize = self.launch.daemonize;
        let become_command = || -> ! {
            unsafe {
                libc::close(wfd);
                signals::restore_dispositions();
                if let Some(setup) = &replay {
                    // Untraced yet: the emulation's setup is not the
                    // command's.
                    setup.private_dev();
                }
                let mut byte = 0u8;
                // Wait until rtrace has traced us. The pipe's end without
                // the byte is rtrace gone before it traced us: the command
                // must not run untraced.
                loop {
                    match libc::read(rfd, (&mut byte as *mut u8).cast(), 1) {
                        1 => break,
                        0 => libc::_exit(127),
                        _ => {}
                    }
                }
                if daemonize > 0 {
                    // Traced now: no other tracer may come (-D's opening).
                    libc::prctl(libc::PR_SET_PTRACER, 0, 0, 0, 0);
                    // The process rtrace was started as may have rtrace's
                    // interrupt timer running: not the command's.
                    let off: libc::itimerval = std::mem::zeroed();
                    libc::setitimer(libc::ITIMER_REAL, &off, std::ptr::null_mut());
                }
                // Now, not earlier: a signal sent meanwhile is delivered as
                // the command would have got it, and traced. Before the
                // filter, which may stop rt_sigprocmask.
                signals::restore_mask();
                if let Some(setup) = &replay {
                    // Before rtrace's own filter: its install is then no
                    // emulated call.
                    setup.attach();
                }
                if let Some(setup) = &uevents {
                    // The same, for the user_events emulation.
                    setup.attach();
                }
                // -u: the groups and gid now, the uid after the filter,
                // whose install without no-new-privs needs root's
                // CAP_SYS_ADMIN (strace's order).
                let die = |step: &str| -> ! {
                    let err = *libc::__errno_location();
                    let msg = libc::strerror(err);
                    libc::write(2, user_failed.as_ptr().cast(), user_failed.len());
                    libc::write(2, step.as_ptr().cast(), step.len());
                    libc::write(2, msg.cast(), libc::strlen(msg));
                    libc::write(2, b"\n".as_ptr().cast(), 1);
                    libc::_exit(127);
                };
                if let Some(r) = &run_as {
                    if libc::setgroups(r.groups.len(), r.groups.as_ptr()) != 0 {
                        die("setgroups: ");
                    }
                    if libc::setregid(r.gid, egid) != 0 {
                        die("setregid: ");
                    }
                }
                if let Some(prog) = &prog {
                    // The filter needs no-new-privs (as with strace) unless
                    // we have CAP_SYS_ADMIN: then it is left unset, so that
                    // setuid programs and file capabilities work as they
                    // would untraced (ptrace by root allows them), and the
                    // program sees no change (own_seccomp.rs).
                    let install = |flags: libc::c_ulong| {
                        libc::syscall(
                            libc::SYS_seccomp,
                            libc::SECCOMP_SET_MODE_FILTER,
                            flags,
                            prog as *const libc::sock_fprog,
                        ) == 0
                    };
                    // SPEC_ALLOW: a tracing filter is no sandbox, so it must
                    // not switch on the speculation mitigations kernels
                    // before 5.16 force on every seccomp-filtered task (they
                    // slow all of its code). Kernels before 4.17 lack the
                    // flag and force nothing.
                    let attempt = || {
                        install(libc::SECCOMP_FILTER_FLAG_SPEC_ALLOW)
                            || (*libc::__errno_location() == libc::EINVAL && install(0))
                    };
                    let ok = attempt()
                        || (*libc::__errno_location() == libc::EACCES
                            && libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
                            && attempt());
                    if !ok {
                        libc::write(2, seccomp_failed.as_ptr().cast(), seccomp_failed.len());
                        libc::_exit(127);
                    }
                }
                if let Some(r) = &run_as
                    && libc::setreuid(r.uid, euid) != 0
                {
                    die("setreuid: ");
                }
                let env = envp.as_ref().map_or_else(environ, |e| e.as_ptr());
                libc::execve(c_path.as_ptr(), argv.as_ptr(), env);
                let err = *libc::__errno_location();
                let msg = libc::strerror(err);
                libc::write(2, prefix.as_ptr().cast(), prefix.len());
                libc::write(2, msg.cast(), libc::strlen(msg));
                libc::write(2, b"\n".as_ptr().cast(), 1);
                libc::_exit(127);
            }
        };
        // The command's pid, under -D: this process's, which the shell
        // that started rtrace waits for.
        let started_as = std::process::id() as i32;
        if daemonize > 0 {
            // As strace: until it is seized, any tracer may attach to it
            // (Yama's ptrace_scope lets only an ancestor otherwise), and
            // the command clears it again once it is released.
            // SAFETY: prctl with plain values.
            unsafe { libc::prctl(libc::PR_SET_PTRACER, libc::PR_SET_PTRACER_ANY, 0, 0, 0) };
        }
        // No handler of rtrace's may run in the child: every signal is
        // blocked across the fork, and the child puts back the state
        // rtrace was started with before unblocking (see signals.rs).
        let mask = signals::block_all();
        // SAFETY: the child only calls async-signal-safe functions on data
        // prepared before the fork, then execs or exits (under -D it forks
        // once more and goes on as rtrace, with rtrace's one thread).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            signals::unblock(mask);
            return Err(Error::new(
                format!("fork: {}", io_message(&std::io::Error::last_os_error())),
                1,
            ));
        }
        if daemonize == 0 {
            if pid == 0 {
                become_command();
            }
            signals::unblock(mask);
        } else if pid > 0 {
            // -D: this process becomes the command, once the middle child
            // is gone (it exits when its child, rtrace from here on, is
            // forked): the command has no child of rtrace's.
            let mut status = 0;
            // SAFETY: waiting for our own child.
            while unsafe { libc::waitpid(pid, &mut status, libc::__WALL) } < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
            }
            if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
                let text = "rtrace: -D: cannot start the tracer\n";
                // SAFETY: write and _exit with plain values.
                unsafe {
                    libc::write(2, text.as_ptr().cast(), text.len());
                    libc::_exit(127);
                }
            }
            become_command();
        } else {
            // The middle child: forks rtrace-to-be and exits.
            // SAFETY: as above.
            let tracer = unsafe { libc::fork() };
            if tracer != 0 {
                // SAFETY: _exit ends the middle child at once.
                unsafe { libc::_exit(if tracer < 0 { 1 } else { 0 }) };
            }
            signals::unblock(mask);
            // -DD: out of the shell's process group (a kill(0, ...) of the
            // command's misses it); -DDD: out of its session.
            // SAFETY: setpgid, setsid and signal on ourselves.
            unsafe {
                match daemonize {
                    2 => libc::setpgid(0, 0),
                    3.. => libc::setsid(),
                    _ => 0,
                };
                if daemonize >= 2 {
                    // An orphaned process group's write to a terminal with
                    // `stty tostop` fails (EIO) unless SIGTTOU is ignored:
                    // the trace would be lost (strace ignores both too).
                    libc::signal(libc::SIGTTOU, libc::SIG_IGN);
                    libc::signal(libc::SIGTTIN, libc::SIG_IGN);
                }
            }
        }
        let pid = if daemonize > 0 { started_as } else { pid };
        // SAFETY: closing our copy of the read end.
        unsafe { libc::close(rfd) };
        if let (Some(setup), Some(r)) = (replay, &self.usbmon_replay) {
            r.serve(setup);
        }
        if let (Some(setup), Some(u)) = (uevents, &self.user_events) {
            u.serve(setup);
        }
        // Forked from a pinned rtrace (--same-cpu), the child has rtrace's
        // pin, of which the pin guard knows nothing: it gets rtrace's own
        // mask, its own, before it runs any code of the command (it waits
        // for the byte below), and is pinned when traced.
        if let Some(own) = &self.colo.tracer_own {
            let _ = kernel::set_affinity(pid, own);
        }
        // The name the kernel gives it at exec: the file's name, cut to
        // 15 bytes. Whoever named the file chose it: it prints escaped.
        let name = path
            .file_name()
            .map_or_else(
                || TraceeText::from(shown.as_str()),
                |n| TraceeText::new(n.as_bytes()),
            )
            .truncated(15);
        let args = command[1..]
            .iter()
            .map(|a| TraceeText::new(std::os::unix::ffi::OsStrExt::as_bytes(a.as_os_str())))
            .collect();
        Ok(Forked {
            pid,
            wfd,
            name,
            args,
            shown,
            daemonized: daemonize > 0,
        })
    }

    /// Attach to `pid` and all its threads with PTRACE_SEIZE.
    pub(super) fn attach(&mut self, pid: i32) -> Result<(), Error> {
        let tids = tasks_of(pid)?;
        let fds = Rc::new(RefCell::new(FdTable::new(pid)));
        let mut seized_any = false;
        for tid in tids {
            if self.procs.contains_key(&tid) {
                continue;
            }
            let t = Pid::from_raw(tid);
            match kernel::seize(t, options(self.follow, false, false))
                .and_then(|_| kernel::interrupt(t))
            {
                Ok(()) => {}
                // A thread that exited meanwhile is no failure.
                Err(e) if e.raw_os_error() == Some(libc::ESRCH) && tid != pid => continue,
                // A leader that has exited while its threads run is a
                // zombie that cannot be traced: trace the threads.
                Err(e) if tid == pid && e.raw_os_error() == Some(libc::EPERM) && is_zombie(tid) => {
                    continue;
                }
                Err(e) => {
                    return Err(Error::new(
                        format!("cannot attach to pid {pid}: {}", io_message(&e)),
                        1,
                    ));
                }
            }
            seized_any = true;
            let name = kernel::process_name(t).unwrap_or_else(|| TraceeText::from("<unknown>"));
            let mut proc = Proc::new(tid, name, true, Life::Attaching, fds.clone());
            proc.tgid = pid;
            self.procs.insert(tid, proc);
        }
        if !seized_any && is_zombie(pid) {
            // Nothing of it runs: a zombie (or one whose last thread ended
            // meanwhile) has nothing to trace, which is worth saying.
            return Err(Error::new(
                format!(
                    "cannot attach to pid {pid}: the process has exited and is waiting to be reaped by its parent"
                ),
                1,
            ));
        }
        self.set_count();
        Ok(())
    }
}
