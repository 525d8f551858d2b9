//! The kernel's offsets the BPF program reads through, from its BTF
//! (rtrace's index of vmlinux and the modules): task, file, exec, pid
//! namespace and usbmon members. Each is 0 where the kernel lacks it, and
//! the program then does without what it would have found there.

use super::super::Error;

/// Offsets in `struct task_struct`, from the kernel's BTF.
pub(super) fn task_offsets() -> Result<(u32, u32, u32), Error> {
    let missing = || {
        Error::new(
            "--bpf needs the kernel's BTF (/sys/kernel/btf/vmlinux), which this kernel does not publish"
                .into(),
            1,
        )
    };
    let found = crate::ioctl::btf::describe("struct task_struct").ok_or_else(missing)?;
    let members = crate::ioctl::btf::flat_members(&found.shape);
    let off = |name: &str| {
        members
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, off, _)| *off as u32)
            .ok_or_else(missing)
    };
    Ok((off("pid")?, off("tgid")?, off("exit_code")?))
}

/// Where a task's system call status is (`task_struct.thread_info` plus
/// `thread_info.status`, whose TS_COMPAT bit says the call came through
/// an i386 entry), or 0 where one is missing (then the code segment says,
/// which misses an int $0x80 from 64-bit code).
pub(super) fn status_offset() -> u32 {
    nested_offset(
        ("struct task_struct", "thread_info"),
        ("struct thread_info", "status"),
    )
}

/// Where a task's own pending signals are: `task_struct.pending` plus
/// `sigpending.signal`, or 0 where one is missing (then a call its task's
/// death ended is not told from one that failed).
pub(super) fn pending_offset() -> u32 {
    nested_offset(
        ("struct task_struct", "pending"),
        ("struct sigpending", "signal"),
    )
}

/// Where a task's seccomp mode is: `task_struct.seccomp` plus
/// `seccomp.mode`, or 0 where one is missing (then a call seccomp settles
/// before its entry shows its entry's memory as pointers).
pub(super) fn seccomp_mode_offset() -> u32 {
    nested_offset(
        ("struct task_struct", "seccomp"),
        ("struct seccomp", "mode"),
    )
}

/// The offset of member `inner.1` of the struct `inner.0` that is member
/// `outer.1` of `outer.0`, from the kernel's BTF; 0 where one is missing.
fn nested_offset(outer: (&str, &str), inner: (&str, &str)) -> u32 {
    let found = (|| Some(member_offset(outer.0, outer.1)? + member_offset(inner.0, inner.1)?))();
    found.unwrap_or(0)
}

/// The offset of member `field` of `ty` in the kernel's BTF (vmlinux,
/// then the modules').
fn member_offset(ty: &str, field: &str) -> Option<u32> {
    let found = crate::ioctl::btf::describe(ty)?;
    crate::ioctl::btf::flat_members(&found.shape)
        .into_iter()
        .find(|(n, _, _)| n == field)
        .map(|(_, off, _)| off as u32)
}

/// What the program needs to find the file behind an fd and its kind:
/// `[task_struct.files, files_struct.fdt, fdtable.fd, fdtable.max_fds,
/// file.f_inode, inode.i_mode, inode.i_sb, super_block.s_magic]`, all zero
/// where one is missing (then no data is shortened and no usbmon ring is
/// read from the kernel's side).
pub(super) fn file_offsets() -> [u32; 8] {
    let found = (|| {
        Some([
            member_offset("struct task_struct", "files")?,
            member_offset("struct files_struct", "fdt")?,
            member_offset("struct fdtable", "fd")?,
            member_offset("struct fdtable", "max_fds")?,
            member_offset("struct file", "f_inode")?,
            member_offset("struct inode", "i_mode")?,
            member_offset("struct inode", "i_sb")?,
            member_offset("struct super_block", "s_magic")?,
        ])
    })();
    found.unwrap_or([0; 8])
}

/// What the program needs to tell a fixed device's data and a socket's
/// other than netlink's, which nothing decodes beyond the bytes printed:
/// `[inode.i_rdev, file.private_data, socket.sk, sock.__sk_common +
/// sock_common.skc_family]`, all zero where one is missing (then such
/// data is copied as far as any other buffer).
pub(super) fn device_offsets() -> [u32; 4] {
    let found = (|| {
        Some([
            member_offset("struct inode", "i_rdev")?,
            member_offset("struct file", "private_data")?,
            member_offset("struct socket", "sk")?,
            member_offset("struct sock", "__sk_common")?
                + member_offset("struct sock_common", "skc_family")?,
        ])
    })();
    found.unwrap_or([0; 4])
}

/// Where a task's program keeps its argument and environment strings:
/// `[task_struct.mm, mm_struct.arg_start, .arg_end, .env_start,
/// .env_end]`, all zero where one is missing (then a successful exec
/// whose entry could not copy a string shows its pointer).
pub(super) fn exec_offsets() -> [u32; 5] {
    let found = (|| {
        Some([
            member_offset("struct task_struct", "mm")?,
            member_offset("struct mm_struct", "arg_start")?,
            member_offset("struct mm_struct", "arg_end")?,
            member_offset("struct mm_struct", "env_start")?,
            member_offset("struct mm_struct", "env_end")?,
        ])
    })();
    found.unwrap_or([0; 5])
}

/// Where a task's thread group keeps the thread whose exec kills the
/// others: `[task_struct.signal, signal_struct.group_exec_task]`, zero
/// where one is missing (then a leader so killed is reported ended, and
/// its process goes on).
pub(super) fn exec_killer_offsets() -> [u32; 2] {
    let found = (|| {
        Some([
            member_offset("struct task_struct", "signal")?,
            member_offset("struct signal_struct", "group_exec_task")?,
        ])
    })();
    found.unwrap_or([0; 2])
}

/// `signal_struct.live`, the count of a thread group's threads that have
/// not begun to exit: a leader whose own thread ends while it is not zero
/// is reported ended with its group, as ptrace reports it. Zero where BTF
/// lacks it (then the leader is reported ended as its thread ends).
pub(super) fn group_live_offset() -> u32 {
    member_offset("struct signal_struct", "live").unwrap_or(0)
}

/// rtrace's pid namespace, where it is not the initial one (in a
/// container): its inode number and where a task's ids in it are,
/// `[inode, task_struct.thread_pid, .group_leader, pid.level, pid.numbers,
/// sizeof(struct upid), upid.nr, upid.ns, pid_namespace.ns +
/// ns_common.inum]`; all zero in the initial namespace, whose ids the
/// tasks' own fields give. The program then gives every id as rtrace's
/// namespace sees it, as ptrace and /proc do.
pub(super) fn pid_namespace() -> Result<[u32; 9], Error> {
    use std::os::unix::fs::MetadataExt;
    let inode = match std::fs::metadata("/proc/self/ns/pid") {
        Ok(m) => m.ino() as u32,
        // No namespace files (a kernel without them has one namespace).
        Err(_) => return Ok([0; 9]),
    };
    if inode == crate::abi::gen_proc_ns::PROC_PID_INIT_INO {
        return Ok([0; 9]);
    }
    let size = |ty: &str| crate::ioctl::btf::describe(ty).map(|f| f.shape.size as u32);
    let found = (|| {
        Some([
            inode,
            member_offset("struct task_struct", "thread_pid")?,
            member_offset("struct task_struct", "group_leader")?,
            member_offset("struct pid", "level")?,
            member_offset("struct pid", "numbers")?,
            size("struct upid")?,
            member_offset("struct upid", "nr")?,
            member_offset("struct upid", "ns")?,
            member_offset("struct pid_namespace", "ns")?
                + member_offset("struct ns_common", "inum")?,
        ])
    })();
    found.ok_or_else(|| {
        Error::new(
            "--bpf in a pid namespace needs the kernel's BTF to give struct pid and pid_namespace"
                .into(),
            1,
        )
    })
}

/// What the program needs for a file's identity and the working
/// directory's: `[inode.i_ino, super_block.s_dev, task_struct.fs,
/// fs_struct.pwd, path.dentry, dentry.d_inode]`, all zero where one is
/// missing (then no identity is sent, and fds are named as the table
/// knows them).
pub(super) fn identity_offsets() -> [u32; 6] {
    let found = (|| {
        Some([
            member_offset("struct inode", "i_ino")?,
            member_offset("struct super_block", "s_dev")?,
            member_offset("struct task_struct", "fs")?,
            member_offset("struct fs_struct", "pwd")?,
            member_offset("struct path", "dentry")?,
            member_offset("struct dentry", "d_inode")?,
        ])
    })();
    found.unwrap_or([0; 6])
}

/// Where an anonymous inode's file keeps its name: `[file.f_path +
/// path.dentry, dentry.d_name + qstr.name]`, zero where one is missing
/// (then such a file is named only by /proc).
pub(super) fn anon_name_offsets() -> [u32; 2] {
    let found = (|| {
        Some([
            member_offset("struct file", "f_path")? + member_offset("struct path", "dentry")?,
            member_offset("struct dentry", "d_name")? + member_offset("struct qstr", "name")?,
        ])
    })();
    found.unwrap_or([0; 2])
}

/// What the program needs to read a usbmon ring from the kernel's side,
/// after the file: `[file.private_data, mon_reader_bin.b_vec,
/// mon_pgmap.ptr, sizeof(struct mon_pgmap)]`, all zero where a type is
/// missing (usbmon's BTF comes with its module).
pub(super) fn usbmon_offsets() -> [u32; 4] {
    let found = (|| {
        let size = crate::ioctl::btf::describe("struct mon_pgmap")?.shape.size as u32;
        Some([
            member_offset("struct file", "private_data")?,
            member_offset("struct mon_reader_bin", "b_vec")?,
            member_offset("struct mon_pgmap", "ptr")?,
            size,
        ])
    })();
    found.unwrap_or([0; 4])
}
