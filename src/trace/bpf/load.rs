//! Loading the BPF engine's program: the committed object, its constants
//! (offsets and numbers from the kernel's BTF and rtrace's tables), the
//! spec and ioctl tables `plan.rs` makes, and the tracepoints it attaches
//! to; and the errors that say what is missing when it cannot load.

use aya::maps::{HashMap, Map, MapData, PerCpuArray};
use aya::programs::Program;
use aya::{Btf, Ebpf, EbpfLoader};

use super::super::{Engine, Error};
use super::members::Members;
use super::offsets::{
    anon_name_offsets, device_offsets, exec_killer_offsets, exec_offsets, file_offsets,
    group_live_offset, identity_offsets, pending_offset, pid_namespace, seccomp_mode_offset,
    status_offset, task_offsets, usbmon_offsets,
};
use super::ring::Ring;
use super::{Options, batch, by_value, ioctl_plan, plan, typed_btf};
use crate::abi::xlat::fs::{ANON_INODE_FS_MAGIC, DEVPTS_SUPER_MAGIC};
use crate::kernel::Arch;

/// The program, built from bpf/rtrace.bpf.c by tools/build_bpf.sh.
static OBJECT: &[u8] = include_bytes!("../../../bpf/rtrace.bpf.o");

/// The programs and the tracepoints they attach to. The object's sections
/// say which kind each is: the call programs, which every call of every
/// task pays for, are BTF-typed (tp_btf) and read the registers in place
/// through the typed pointer; the others are raw tracepoints.
const PROGRAMS: &[(&str, &str)] = &[
    ("rtrace_sys_enter", "sys_enter"),
    ("rtrace_sys_exit", "sys_exit"),
    ("rtrace_fork", "sched_process_fork"),
    ("rtrace_exec", "sched_process_exec"),
    ("rtrace_exit", "sched_process_exit"),
    ("rtrace_signal_deliver", "signal_deliver"),
    ("rtrace_signal_generate", "signal_generate"),
];

/// The tracepoints whose programs are typed (`tp_btf`, bpf/rtrace.bpf.c's
/// sections): their BTF is made before the object is loaded, beside the
/// offsets and tables; `verify` checks the object agrees.
const TYPED: &[&str] = &["sys_enter", "sys_exit"];

/// Load `program` for `tracepoint`: a typed one with the kernel's `btf`.
fn load_program(program: &mut Program, tracepoint: &str, btf: &Btf) -> Result<(), String> {
    match program {
        Program::BtfTracePoint(p) => p.load(tracepoint, btf),
        Program::RawTracePoint(p) => p.load(),
        _ => return Err("it is not a tracepoint's program".to_string()),
    }
    .map_err(|e| error_text(&e))
}

/// Attach the loaded `program` to `tracepoint`.
fn attach_program(program: &mut Program, tracepoint: &str) -> Result<(), String> {
    match program {
        Program::BtfTracePoint(p) => p.attach().map(drop),
        Program::RawTracePoint(p) => p.attach(tracepoint).map(drop),
        _ => return Err("it is not a tracepoint's program".to_string()),
    }
    .map_err(|e| error_text(&e))
}

/// The calls whose events the engine needs whatever is selected: the
/// bookkeeping (the fd table), the exec that starts a command's trace,
/// the calls that end a process, and those that end an interrupted one.
const ALWAYS: &[&str] = &[
    "execve",
    "execveat",
    "exit",
    "exit_group",
    "rt_sigreturn",
    "sigreturn",
    "restart_syscall",
];

/// The loaded program and the maps rtrace uses.
pub(super) struct Loaded {
    /// Kept so the programs stay attached.
    _ebpf: Ebpf,
    /// The ring buffer (taken out while its records are handled).
    pub(super) ring: Option<Ring>,
    /// The traced tasks (none with -a).
    pub(super) members: Option<Members>,
    /// The processes the lossless mode stopped.
    pub(super) holding: HashMap<MapData, u32, u8>,
    /// Each CPU's records lost and not yet reported.
    pub(super) lost: PerCpuArray<MapData, u64>,
    /// `-c` counted in the kernel: per call number, per CPU.
    pub(super) counts: PerCpuArray<MapData, plan::Count>,
    /// The kernel's count of a process's execs now, by tgid (`execs`).
    pub(super) execs_now: std::rc::Rc<dyn Fn(i32) -> Option<u64>>,
}

/// The object lacks a part rtrace looks for: it was not built from this
/// rtrace's source.
fn missing(what: &str) -> Error {
    Error::new(
        format!("--bpf: the BPF object has no {what} (rebuild it with tools/build_bpf.sh)"),
        1,
    )
}

pub(super) fn load_error(what: &str, e: impl std::error::Error) -> Error {
    load_failed(what, error_text(&e))
}

/// An error and its sources, in one line: aya's errors name the step, the
/// system's error is their source.
fn error_text(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    text
}

/// `--bpf: cannot WHAT: TEXT`, with what to do where it was not allowed.
fn load_failed(what: &str, text: String) -> Error {
    let text = text.replace(" (os error 1)", "");
    let hint = if text.contains("Operation not permitted") || text.contains("EPERM") {
        " (the BPF engine needs root, or CAP_BPF and CAP_PERFMON)"
    } else {
        ""
    };
    Error::new(format!("--bpf: cannot {what}: {text}{hint}"), 1)
}

/// The maps rtrace fills once, taken out of the object (the programs
/// hold them from their load on).
struct Tables {
    specs: Map,
    options: Map,
    ioctls: Map,
}

impl Tables {
    /// What each call's events carry (`table`), the multiplexed calls'
    /// memory by value (prctl's option) and the ioctl requests whose
    /// arguments are copied: a system call for each table.
    fn fill(
        &self,
        table: Vec<(u32, plan::Spec)>,
        options: Vec<(u64, by_value::OptionSlots)>,
        ioctls: Vec<(u32, ioctl_plan::IoctlSpec)>,
    ) -> Result<(), Error> {
        // The table starts zeroed: a call that sends nothing, counts
        // nothing and copies nothing needs no entry.
        let table: Vec<_> = table
            .into_iter()
            .filter(|(_, s)| s.wanted | s.counted != 0)
            .collect();
        batch::update(map_data(&self.specs)?, &table)
            .map_err(|e| load_error("fill the spec table", e))?;
        batch::update(map_data(&self.options)?, &options)
            .map_err(|e| load_error("fill the options table", e))?;
        batch::update(map_data(&self.ioctls)?, &ioctls)
            .map_err(|e| load_error("fill the ioctl table", e))
    }
}

/// The kernel's map behind `map`, an array or a hash.
fn map_data(map: &Map) -> Result<&MapData, Error> {
    match map {
        Map::Array(data) | Map::HashMap(data) => Ok(data),
        _ => Err(missing("a table of the kind rtrace fills")),
    }
}

/// Map `name` (`what`, for the error) taken out of the object.
fn take(ebpf: &mut Ebpf, name: &str, what: &str) -> Result<Map, Error> {
    ebpf.take_map(name).ok_or_else(|| missing(what))
}

/// The kernel's pid_max, which every tid is below (0 if unknown).
fn pid_max() -> u32 {
    std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(0)
}

/// Whether `-c` can be counted in the kernel: the summary alone, with
/// nothing that needs each call (a filter, a trigger, an outcome
/// selection). Then no call is sent: the program counts each call number's
/// exits, errors and time, and rtrace reads the counts at the end.
pub(super) fn counts_in_kernel(engine: &Engine) -> bool {
    engine.summary == super::super::Summary::Only
        && engine.select.filter.is_none()
        && engine.select.triggers.is_empty()
        && engine.select.status.is_all()
}

/// The programs the verifier takes longest on, longest first (the rest
/// follow in `PROGRAMS`' order): the exit's captures, then the entry's.
const LONGEST_TO_VERIFY: &[&str] = &["rtrace_sys_exit", "rtrace_sys_enter"];

/// The BTF the typed programs' loads look their kernel ids up in, made
/// by rtrace (`typed_btf`) rather than parsed from vmlinux's.
fn typed_programs_btf() -> Result<Btf, aya::BtfError> {
    typed_btf::for_tracepoints(TYPED)
}

/// Load (and so verify) every program in `PROGRAMS` on as many threads as
/// there are CPUs, longest first, while this thread does `beside`: the
/// kernel's verifier takes a third of the start-up, most of it on the two
/// call programs, and verifies programs side by side. The exit program
/// is the longest (about 23 ms here): it starts first, on a thread the
/// small ones do not share.
fn verify<T>(
    ebpf: &mut Ebpf,
    beside: impl FnOnce() -> Result<T, Error>,
    typed_btf: Result<Btf, aya::BtfError>,
) -> Result<T, Error> {
    let mut programs = Vec::with_capacity(PROGRAMS.len());
    for (name, program) in ebpf.programs_mut() {
        if let Some(&(_, tracepoint)) = PROGRAMS.iter().find(|(known, _)| *known == name) {
            programs.push((name, tracepoint, program));
        }
    }
    if let Some((name, _)) = PROGRAMS
        .iter()
        .find(|(name, _)| !programs.iter().any(|(found, ..)| found == name))
    {
        return Err(missing(name));
    }
    let rank = |name: &str| {
        let longest = LONGEST_TO_VERIFY.iter().position(|n| *n == name);
        let listed = PROGRAMS.iter().position(|(n, _)| *n == name);
        (longest.is_none(), longest, listed)
    };
    // Taken from the end of the queue: the longest last.
    programs.sort_by_key(|(name, ..)| std::cmp::Reverse(rank(name)));
    let typed: Vec<&str> = programs
        .iter()
        .filter(|(.., program)| matches!(program, Program::BtfTracePoint(_)))
        .map(|&(_, tracepoint, _)| tracepoint)
        .collect();
    debug_assert!(
        typed.iter().all(|tp| TYPED.contains(tp)) && typed.len() == TYPED.len(),
        "the object's typed programs are {typed:?}, TYPED says {TYPED:?}"
    );
    let btf = typed_btf.map_err(|e| load_error("read the kernel's BTF", e))?;
    let btf = &btf;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, programs.len());
    let queue = std::sync::Mutex::new(programs);
    let queue = &queue;
    std::thread::scope(|scope| {
        let loads: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(move || {
                    let next = || queue.lock().ok().and_then(|mut q| q.pop());
                    while let Some((name, tracepoint, program)) = next() {
                        load_program(program, tracepoint, btf)
                            .map_err(|text| load_failed(&format!("load {name}"), text))?;
                    }
                    Ok(())
                })
            })
            .collect();
        let done = beside()?;
        for handle in loads {
            handle
                .join()
                .map_err(|_| Error::new("--bpf: cannot load the program".to_string(), 1))??;
        }
        Ok(done)
    })
}

/// Run `make` where the kernel's BTF cannot be found by its path, and
/// return what it made (`None` if its thread panicked).
///
/// aya 0.14's `EbpfLoader::new` reads and parses /sys/kernel/btf/vmlinux
/// (5 MB of BTF, about 40 MB of memory and 15 ms of a CPU, a third of
/// the start-up's work) for CO-RE relocations, which rtrace's object has
/// none of (`the_object_has_no_core_relocations`). aya 0.15, which parses
/// only when the object asks, needs a newer Rust than these machines
/// have. So the loader is made on a thread whose filesystem root is
/// /sys/kernel/btf itself: `unshare(CLONE_FS)` gives the thread a root of
/// its own, and under it the path names nothing, so aya goes without.
/// Only `make` runs there, and the thread ends with it. Where either call
/// is refused (no CAP_SYS_CHROOT), `make` runs as it would anywhere; and
/// under a seccomp filter, which may kill a process for a chroot (systemd's
/// `SystemCallFilter=@system-service` does), neither is made.
fn without_vmlinux<T: Send + 'static>(make: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    std::thread::spawn(|| {
        // SAFETY: prctl reads this thread's seccomp mode; unshare and
        // chroot change only this thread's filesystem context (its root),
        // which no other thread shares after the unshare. None touches
        // memory.
        unsafe {
            if libc::prctl(libc::PR_GET_SECCOMP) == 0 && libc::unshare(libc::CLONE_FS) == 0 {
                libc::chroot(c"/sys/kernel/btf".as_ptr());
            }
        }
        make()
    })
    .join()
    .ok()
}

/// Load the program with the spec table for `engine`'s selection, and
/// attach it.
pub(super) fn load(engine: &Engine, opts: Options) -> Result<Loaded, Error> {
    let ring = opts.ring;
    if !ring.is_power_of_two() || ring < 4096 {
        return Err(Error::new(
            format!(
                "--bpf-ring {ring}: the ring's size must be a power of two of at least 4096 bytes"
            ),
            2,
        ));
    }
    // What the load needs that rtrace's own tables do not: aya's loader,
    // the kernel's features aya probes for with a dozen small programs
    // and maps, and the BTF the typed programs' loads look their ids up
    // in; made on a thread of their own while the offsets and the tables
    // below are found.
    let helper = std::thread::spawn(|| {
        let loader = without_vmlinux(|| {
            let mut loader = EbpfLoader::new();
            loader.btf(None);
            loader
        });
        aya::features();
        (loader, typed_programs_btf())
    });
    let (pid_off, tgid_off, exit_off) = task_offsets()?;
    let [
        pid_ns_ino,
        thread_pid,
        group_leader,
        pid_level,
        pid_numbers,
        upid_size,
        upid_nr,
        upid_ns,
        pidns_inum,
    ] = pid_namespace()?;
    let self_tgid = std::process::id();
    let all = opts.all as u32;
    let follow = engine.follow as u32;
    // Wake the reader once an eighth of the ring waits (each CPU's share
    // of that: the program counts what each CPU sends; the online ones,
    // as a VM may say hundreds are possible); it polls anyway.
    let cpus = aya::util::online_cpus().map_or(1, |c| c.len()).max(1);
    let wake_share = (ring / 8 / cpus).max(1) as u64;
    // Every possible CPU has an entry in the program's per-CPU maps.
    let possible_cpus = aya::util::nr_cpus().map_or(1, |n| n).max(1) as u32;
    // Held once half the ring waits: the other half takes what every CPU
    // still sends before the stops take effect.
    let hold_mark = if opts.lossless { (ring / 2) as u64 } else { 0 };
    let number = |arch, name| crate::service::number(arch, name).unwrap_or(u32::MAX as u64) as u32;
    let nr_mmap = number(Arch::X86_64, "mmap");
    let nr_ioctl = number(Arch::X86_64, "ioctl");
    let nr_mmap2_32 = number(Arch::I386, "mmap2");
    let nr_ioctl_32 = number(Arch::I386, "ioctl");
    let nr_bpf = number(Arch::X86_64, "bpf");
    let nr_bpf_32 = number(Arch::I386, "bpf");
    let bpf_fd_cmds = crate::sysent::bpf_fd_cmd_mask();
    let (nr_write, nr_writev) = (
        number(Arch::X86_64, "write"),
        number(Arch::X86_64, "writev"),
    );
    let (nr_write_32, nr_writev_32) = (number(Arch::I386, "write"), number(Arch::I386, "writev"));
    use crate::abi::gen_user_events::{DIAG_IOCSREG, DIAG_IOCSREG32, user_reg};
    let (uev_off_addr, uev_off_size) = (
        user_reg::ENABLE_ADDR.off as u32,
        user_reg::ENABLE_SIZE.off as u32,
    );
    let nr_restart = number(Arch::X86_64, "restart_syscall");
    let nr_restart_32 = number(Arch::I386, "restart_syscall");
    let nr_execve = number(Arch::X86_64, "execve");
    let nr_execveat = number(Arch::X86_64, "execveat");
    let nr_execve_32 = number(Arch::I386, "execve");
    let nr_execveat_32 = number(Arch::I386, "execveat");
    // The kernel's time of each record, where anything shows it.
    let want_time = (engine.out.stamps_lines()
        || engine.call_times
        || engine.summary != super::super::Summary::Off
        || engine.fmt.json) as u32;
    let count_only = counts_in_kernel(engine) as u32;
    // -c's start of each task's call, by tid below the kernel's pid_max
    // (8 bytes a tid: 256 KiB at the default 32768, 32 MiB at the
    // largest); a tid beyond (pid_max raised later) keeps its start in
    // the task's storage.
    let start_slots = if count_only == 1 { pid_max() } else { 0 };
    use crate::ioctl::usbmon as mon;
    let [files, fdt, fd, max_fds, f_inode, i_mode, i_sb, s_magic] = file_offsets();
    let [i_rdev, f_private, socket_sk, sk_family] = device_offsets();
    let [task_mm, arg_start, arg_end, env_start, env_end] = exec_offsets();
    let exec_killer = exec_killer_offsets();
    let group_live = if exec_killer[0] != 0 {
        group_live_offset()
    } else {
        0
    };
    // Fixed devices' majors (/dev/null, terminals): usbmon's, whose data
    // is decoded, is handed out from above them.
    let fixed_majors = if i_rdev == 0 {
        0
    } else {
        crate::abi::gen_chrdev::CHRDEV_MAJOR_DYN_END
    };
    let [private, bvec, ptr, pgmap] = if files == 0 { [0; 4] } else { usbmon_offsets() };
    // A plain file's, a pipe's, a fixed device's or a socket's other than
    // netlink's data: as many bytes as are printed
    // (the printers read at most -s, and one more to know it goes on),
    // unless -e read=/write= dumps it whole.
    let short_data =
        if files == 0 || !engine.fmt.dump_reads.is_empty() || !engine.fmt.dump_writes.is_empty() {
            0u32
        } else {
            plan::short_data(engine.fmt.string_limit)
        };
    // Files named by path (-y, -P, a --filter that may ask fd.path): each
    // call's fds carry their files' identities, which /proc's names are
    // checked against when the call is printed.
    let [i_ino, s_dev, task_fs, fs_pwd, path_dentry, dentry_inode] = identity_offsets();
    let [file_dentry, dentry_name] = anon_name_offsets();
    let fd_ids = (files != 0
        && i_ino | s_dev | task_fs | path_dentry | dentry_inode != 0
        && (engine.fmt.decode_fds.any()
            || engine.select.paths.is_active()
            || engine.select.filter.is_some())) as u32;
    let limits = plan::Limits {
        string_limit: engine.fmt.string_limit,
        verbose: engine.fmt.verbose > 0,
        dumps: !engine.fmt.dump_reads.is_empty() || !engine.fmt.dump_writes.is_empty(),
    };
    let select = &engine.select.trace;
    let bookkeeping = crate::service::fs::BOOKKEEPING;
    // i386's socketcall and ipc stand for the calls a selection names
    // (`-e trace=setsockopt`): sent when one of those is selected, and
    // shown by the call they stand for.
    let multiplexed = |name: &str| match name {
        "socketcall" => (1..32)
            .filter_map(crate::service::net::socketcall_subcall)
            .any(|sub| select.contains(sub.name)),
        "ipc" => (1..32u64)
            .flat_map(|call| [call, call | 1 << 16])
            .filter_map(crate::service::ipc::ipc_subcall)
            .any(|sub| select.contains(sub.name)),
        _ => false,
    };
    let wanted = |name: &str| {
        select.is_all()
            || select.contains(name)
            || bookkeeping.contains(&name)
            || ALWAYS.contains(&name)
            || multiplexed(name)
    };
    let selected = |name: &str| select.is_all() || select.contains(name);
    // Counted in the kernel, no call is sent: none needs its memory.
    let captured = |name: &str| count_only == 0 && wanted(name);
    let table = plan::table(limits, &wanted, &selected, &captured);
    let options = by_value::slots(&by_value::table(limits, &captured));
    // Only an ioctl's capture looks requests up.
    let ioctls = match captured("ioctl") {
        true => ioctl_plan::table(limits),
        false => Vec::new(),
    };
    let cannot_read = || Error::new("--bpf: cannot read the kernel's BTF".to_string(), 1);
    let af_netlink = u32::from(crate::abi::xlat::net::AF_NETLINK);
    let (pending_off, status_off) = (pending_offset(), status_offset());
    let seccomp_mode_off = seccomp_mode_offset();
    let seccomp_mode_filter = crate::abi::xlat::process::SECCOMP_MODES
        .iter()
        .find(|(_, name)| *name == "SECCOMP_MODE_FILTER")
        .map_or(0, |&(value, _)| value as u32);
    let (loader, typed_btf) = helper.join().map_err(|_| cannot_read())?;
    let mut loader = loader.ok_or_else(cannot_read)?;
    let mut ebpf = loader
        // The task-local start times of -c in the kernel (no Rust side).
        .allow_unsupported_maps()
        .override_global("off_task_files", &files, true)
        .override_global("off_files_fdt", &fdt, true)
        .override_global("off_fdt_fd", &fd, true)
        .override_global("off_fdt_max", &max_fds, true)
        .override_global("off_file_inode", &f_inode, true)
        .override_global("off_inode_mode", &i_mode, true)
        .override_global("off_inode_sb", &i_sb, true)
        .override_global("off_sb_magic", &s_magic, true)
        .override_global("short_data", &short_data, true)
        .override_global("off_inode_rdev", &i_rdev, true)
        .override_global("dev_minor_bits", &crate::abi::gen_kdev::MINORBITS, true)
        .override_global("fixed_majors", &fixed_majors, true)
        .override_global("off_file_data", &f_private, true)
        .override_global("off_socket_sk", &socket_sk, true)
        .override_global("off_sock_family", &sk_family, true)
        .override_global("af_netlink", &af_netlink, true)
        .override_global("off_task_signal", &exec_killer[0], true)
        .override_global("off_signal_exec_task", &exec_killer[1], true)
        .override_global("off_signal_live", &group_live, true)
        .override_global("off_task_mm", &task_mm, true)
        .override_global("off_mm_arg_start", &arg_start, true)
        .override_global("off_mm_arg_end", &arg_end, true)
        .override_global("off_mm_env_start", &env_start, true)
        .override_global("off_mm_env_end", &env_end, true)
        .override_global("fd_ids", &fd_ids, true)
        .override_global("off_inode_ino", &i_ino, true)
        .override_global("off_sb_dev", &s_dev, true)
        .override_global("off_task_fs", &task_fs, true)
        .override_global("off_fs_pwd", &fs_pwd, true)
        .override_global("off_path_dentry", &path_dentry, true)
        .override_global("off_dentry_inode", &dentry_inode, true)
        .override_global("anon_magic", &ANON_INODE_FS_MAGIC, true)
        .override_global("devpts_magic", &DEVPTS_SUPER_MAGIC, true)
        .override_global("off_file_dentry", &file_dentry, true)
        .override_global("off_dentry_name", &dentry_name, true)
        .override_global("off_file_private", &private, true)
        .override_global("off_mon_bvec", &bvec, true)
        .override_global("off_pgmap_ptr", &ptr, true)
        .override_global("mon_pgmap_size", &pgmap, true)
        .override_global("nr_mmap", &nr_mmap, true)
        .override_global("nr_ioctl", &nr_ioctl, true)
        .override_global("nr_mmap2_32", &nr_mmap2_32, true)
        .override_global("nr_ioctl_32", &nr_ioctl_32, true)
        .override_global("nr_bpf", &nr_bpf, true)
        .override_global("nr_bpf_32", &nr_bpf_32, true)
        .override_global("bpf_fd_cmds", &bpf_fd_cmds, true)
        .override_global("uev_reg", &DIAG_IOCSREG, true)
        .override_global("uev_reg32", &DIAG_IOCSREG32, true)
        .override_global("uev_off_addr", &uev_off_addr, true)
        .override_global("uev_off_size", &uev_off_size, true)
        .override_global("nr_write", &nr_write, true)
        .override_global("nr_writev", &nr_writev, true)
        .override_global("nr_write_32", &nr_write_32, true)
        .override_global("nr_writev_32", &nr_writev_32, true)
        .override_global("nr_restart", &nr_restart, true)
        .override_global("nr_restart_32", &nr_restart_32, true)
        .override_global("nr_execve", &nr_execve, true)
        .override_global("nr_execveat", &nr_execveat, true)
        .override_global("nr_execve_32", &nr_execve_32, true)
        .override_global("nr_execveat_32", &nr_execveat_32, true)
        .override_global("mon_mfetch", &mon::MON_IOCX_MFETCH, true)
        .override_global("mon_mfetch32", &mon::MON_IOCX_MFETCH32, true)
        .override_global("mon_get", &mon::MON_IOCX_GET, true)
        .override_global("mon_getx", &mon::MON_IOCX_GETX, true)
        .override_global("mon_get32", &mon::MON_IOCX_GET32, true)
        .override_global("mon_getx32", &mon::MON_IOCX_GETX32, true)
        .override_global("trace_all", &all, true)
        .override_global("follow", &follow, true)
        .override_global("self_tgid", &self_tgid, true)
        .override_global("pid_ns_ino", &pid_ns_ino, true)
        .override_global("off_task_thread_pid", &thread_pid, true)
        .override_global("off_task_group_leader", &group_leader, true)
        .override_global("off_pid_level", &pid_level, true)
        .override_global("off_pid_numbers", &pid_numbers, true)
        .override_global("upid_size", &upid_size, true)
        .override_global("off_upid_nr", &upid_nr, true)
        .override_global("off_upid_ns", &upid_ns, true)
        .override_global("off_pidns_inum", &pidns_inum, true)
        .override_global("task_pid_off", &pid_off, true)
        .override_global("task_tgid_off", &tgid_off, true)
        .override_global("task_exit_code_off", &exit_off, true)
        .override_global("task_pending_off", &pending_off, true)
        .override_global("off_task_status", &status_off, true)
        .override_global("off_task_seccomp_mode", &seccomp_mode_off, true)
        .override_global("seccomp_mode_filter", &seccomp_mode_filter, true)
        .override_global("ts_compat", &crate::abi::gen_x86_thread::TS_COMPAT, true)
        .override_global("wake_share", &wake_share, true)
        .override_global("possible_cpus", &possible_cpus, true)
        .override_global("want_time", &want_time, true)
        .override_global("count_only", &count_only, true)
        .override_global("start_slots", &start_slots, true)
        .map_max_entries("start_ns", start_slots.max(1))
        .override_global("hold_mark", &hold_mark, true)
        .map_max_entries("events", ring as u32)
        // As many values as the by-value tables give (a hash map holds
        // at least one).
        .map_max_entries("options", options.len().max(1) as u32)
        .load(OBJECT)
        .map_err(|e| load_error("load the BPF program", e))?;
    // The maps' fds stay open until the programs that use them are loaded.
    let tables = Tables {
        specs: take(&mut ebpf, "specs", "the spec table")?,
        options: take(&mut ebpf, "options", "the options table")?,
        ioctls: take(&mut ebpf, "ioctls", "the ioctl table")?,
    };
    // Taken out here, given to the mappings only once the tables are
    // filled: a failed fill leaves their fds open until every load ends.
    let mut ring = match ebpf.take_map("events") {
        Some(Map::RingBuf(map)) => Some(map),
        _ => return Err(missing("the ring buffer")),
    };
    // Left in the object with -a: its fd stays open for the programs.
    let mut members = match opts.all {
        true => None,
        false => match ebpf.take_map("members") {
            Some(Map::Array(map)) => Some(map),
            _ => return Err(missing("the task table")),
        },
    };
    // The tables are filled, and the ring and the task table mapped (the
    // ring's mapping sets up a page table entry for each of its pages,
    // twice), while the kernel verifies the programs.
    let beside = || {
        tables.fill(table, options, ioctls)?;
        let ring = ring.take().ok_or_else(|| missing("the ring buffer"))?;
        let bytes = ring
            .info()
            .map_err(|e| load_error("open the ring buffer", e))?
            .max_entries() as usize;
        let ring = Ring::map(ring, bytes).map_err(|e| load_error("map the ring buffer", e))?;
        let members = match members.take() {
            Some(map) => Some(Members::map(map).map_err(|e| load_error("map the task table", e))?),
            None => None,
        };
        Ok((ring, members))
    };
    let (ring, members) = verify(&mut ebpf, beside, typed_btf)?;
    drop(tables);
    for (name, tracepoint) in PROGRAMS {
        let program = ebpf.program_mut(name).ok_or_else(|| missing(name))?;
        attach_program(program, tracepoint)
            .map_err(|text| load_failed(&format!("attach to {tracepoint}"), text))?;
    }
    let holding = HashMap::try_from(
        ebpf.take_map("holding")
            .ok_or_else(|| missing("the table of held processes"))?,
    )
    .map_err(|e| load_error("open the table of held processes", e))?;
    let counts = PerCpuArray::try_from(
        ebpf.take_map("counts")
            .ok_or_else(|| missing("the call counts"))?,
    )
    .map_err(|e| load_error("open the call counts", e))?;
    let lost = PerCpuArray::try_from(
        ebpf.take_map("lost")
            .ok_or_else(|| missing("the loss counts"))?,
    )
    .map_err(|e| load_error("open the loss counts", e))?;
    let execs: HashMap<MapData, u32, u64> = HashMap::try_from(
        ebpf.take_map("execs")
            .ok_or_else(|| missing("the exec counts"))?,
    )
    .map_err(|e| load_error("open the exec counts", e))?;
    let execs_now = std::rc::Rc::new(move |tgid: i32| match execs.get(&(tgid as u32), 0) {
        Ok(n) => Some(n),
        Err(aya::maps::MapError::KeyNotFound) => Some(0),
        Err(_) => None,
    });
    Ok(Loaded {
        _ebpf: ebpf,
        ring: Some(ring),
        members,
        holding,
        lost,
        counts,
        execs_now,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `load` has aya leave the kernel's BTF out of the load, which only
    /// CO-RE relocations need: with one in the object, the program would
    /// load and read at the offsets of the headers it was built with.
    #[test]
    fn the_object_has_no_core_relocations() {
        let object = aya_obj::Object::parse(OBJECT).expect("the object parses");
        assert!(!object.has_btf_relocations());
    }

    /// aya's loader is made where its read of the kernel's BTF fails (the
    /// read `EbpfLoader::new` makes), and nowhere else: the process's
    /// other threads still find the file.
    #[test]
    fn the_loader_is_made_where_vmlinux_cannot_be_read() {
        let vmlinux = std::path::Path::new("/sys/kernel/btf/vmlinux");
        assert!(vmlinux.exists(), "this test needs the kernel's BTF");
        assert_eq!(without_vmlinux(|| Btf::from_sys_fs().is_err()), Some(true));
        assert!(vmlinux.exists());
        assert!(Btf::from_sys_fs().is_ok());
    }

    /// The object's typed programs are the tracepoints `TYPED` makes BTF for.
    #[test]
    fn the_typed_tracepoints_are_the_objects() {
        let object = aya_obj::Object::parse(OBJECT).expect("the object parses");
        let mut typed: Vec<&str> = object
            .programs
            .iter()
            .filter(|(_, program)| {
                matches!(program.section, aya_obj::ProgramSection::BtfTracePoint)
            })
            .map(|(name, _)| {
                let listed = PROGRAMS.iter().find(|(known, _)| known == name);
                listed.map_or("(a program PROGRAMS lacks)", |&(_, tracepoint)| tracepoint)
            })
            .collect();
        typed.sort();
        let mut want = TYPED.to_vec();
        want.sort();
        assert_eq!(typed, want);
    }
}
