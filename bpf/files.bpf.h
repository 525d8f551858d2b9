/* rtrace's BPF program, the files behind fds (included by rtrace.bpf.c;
 * built on piece.bpf.h): the struct file behind an fd, whether its data is
 * a plain file's, a pipe's, a fixed device's or a socket's other than
 * netlink's (copied only as far as printed), the
 * identities of files that let rtrace check /proc's names later, and the
 * count of the entries a getdents call returned. */
#ifndef RTRACE_FILES_BPF_H
#define RTRACE_FILES_BPF_H

#include "piece.bpf.h"

/* Offsets from the kernel's BTF for the file behind an fd and its kind:
 * task_struct.files, files_struct.fdt, fdtable.fd and .max_fds,
 * file.f_inode, inode.i_mode and .i_sb, super_block.s_magic. */
const volatile __u32 off_task_files = 0, off_files_fdt = 0, off_fdt_fd = 0, off_fdt_max = 0;
const volatile __u32 off_file_inode = 0, off_inode_mode = 0, off_inode_sb = 0, off_sb_magic = 0;
/* The bytes of such data (plain_data()) that a record carries (as
 * many as are printed); 0: as much as any other buffer (the offsets are
 * missing, or -e read=/write= dumps data whole). */
const volatile __u32 short_data = 0;

/* The struct file at `fd` in the fd table whose entries are at `table`
 * and number `max`, or 0. fdtable.fd is a pointer to pointers, which
 * older verifiers give as a number: the entry is read with a helper. */
static __always_inline __u64 table_file(__u64 table, __u32 max, __u64 fd)
{
	__u64 file = 0;
	/* An fd no table can hold (fs.nr_open is far below) is bounded
	 * first, so that the verifier takes the pointer arithmetic. */
	if (fd >= max || fd >= (1 << 24) || !table ||
	    bpf_probe_read_kernel(&file, 8, (void *)table + fd * 8))
		return 0;
	return file;
}

/* The struct file behind the current task's `fd`, or 0, found through
 * bpf_probe_read_kernel (plain_data(), which every read and write asks,
 * reads the tables in place). */
static __always_inline __u64 file_of(__u64 fd)
{
	if (!off_task_files)
		return 0;
	void *task = (void *)bpf_get_current_task();
	__u64 files = 0, fdt = 0, fds = 0;
	__u32 max = 0;
	if (bpf_probe_read_kernel(&files, 8, task + off_task_files) || !files ||
	    bpf_probe_read_kernel(&fdt, 8, (void *)files + off_files_fdt) || !fdt ||
	    bpf_probe_read_kernel(&max, 4, (void *)fdt + off_fdt_max) ||
	    bpf_probe_read_kernel(&fds, 8, (void *)fdt + off_fdt_fd))
		return 0;
	return table_file(fds, max, fd);
}

/* With -y (and whatever else names fds by path): the identities of the
 * files behind a call's fd arguments and its new fd, which rtrace checks
 * /proc's names against (the process runs on: by the time rtrace prints,
 * an fd may have been closed and opened again on another file). */
const volatile __u32 fd_ids = 0;
/* bpf(2)'s numbers and the commands whose result is a new fd (bit cmd). */
const volatile __u32 nr_bpf = 0, nr_bpf_32 = 0;
const volatile __u64 bpf_fd_cmds = 0;
/* inode.i_ino, super_block.s_dev; task_struct.fs, fs_struct.pwd,
 * path.dentry, dentry.d_inode (the working directory). */
const volatile __u32 off_inode_ino = 0, off_sb_dev = 0;
const volatile __u32 off_task_fs = 0, off_fs_pwd = 0, off_path_dentry = 0, off_dentry_inode = 0;
/* An anonymous inode's filesystem (ANON_INODE_FS_MAGIC) and devpts
 * (DEVPTS_SUPER_MAGIC), whose files rtrace names by their dentry's name
 * (`[eventfd]`, a terminal's `0`), and where that name is:
 * file.f_path.dentry, dentry.d_name.name. */
const volatile __u64 anon_magic = 0, devpts_magic = 0;
const volatile __u32 off_file_dentry = 0, off_dentry_name = 0;

#define AT_FDCWD -100

/* The inode behind the current task's `fd`, or its working directory's
 * for AT_FDCWD; 0 when there is none. */
static __always_inline __u64 inode_of(long fd)
{
	__u64 inode = 0;
	if (fd == AT_FDCWD) {
		void *task = (void *)bpf_get_current_task();
		__u64 fs = 0, dentry = 0;
		if (!off_task_fs || bpf_probe_read_kernel(&fs, 8, task + off_task_fs) || !fs ||
		    bpf_probe_read_kernel(&dentry, 8, (void *)fs + off_fs_pwd + off_path_dentry) ||
		    !dentry || bpf_probe_read_kernel(&inode, 8, (void *)dentry + off_dentry_inode))
			return 0;
		return inode;
	}
	if (fd < 0)
		return 0;
	__u64 file = file_of(fd);
	if (!file || bpf_probe_read_kernel(&inode, 8, (void *)file + off_file_inode))
		return 0;
	return inode;
}

/* Add the identity of `fd`'s file (see fd_ids) to the record at `off`;
 * nothing when the fd is not open. A function of its own: verified once. */
__noinline __u32 file_id(struct scratch *s, __u32 off, long fd)
{
	__u64 inode = inode_of(fd), sb = 0;
	struct rt_file_id id = {};
	__u32 dev = 0;
	if (!s || !inode || bpf_probe_read_kernel(&id.ino, 8, (void *)inode + off_inode_ino) ||
	    bpf_probe_read_kernel(&sb, 8, (void *)inode + off_inode_sb) || !sb ||
	    bpf_probe_read_kernel(&dev, 4, (void *)sb + off_sb_dev) ||
	    bpf_probe_read_kernel(&id.magic, 8, (void *)sb + off_sb_magic))
		return off;
	id.dev = dev;
	if (((anon_magic && id.magic == anon_magic) || (devpts_magic && id.magic == devpts_magic)) &&
	    off_file_dentry && fd >= 0) {
		__u64 file = file_of(fd), dentry = 0, name = 0;
		if (file && !bpf_probe_read_kernel(&dentry, 8, (void *)file + off_file_dentry) &&
		    dentry && !bpf_probe_read_kernel(&name, 8, (void *)dentry + off_dentry_name) && name)
			bpf_probe_read_kernel_str(id.name, sizeof(id.name), (void *)name);
	}
	struct rt_capture *c = capture_at(s, off, sizeof(id), fd, RT_ARG_FILE_ID, 0);
	if (!c)
		return off;
	__builtin_memcpy(c + 1, &id, sizeof(id));
	return off + sizeof(*c) + sizeof(id);
}

/* dirent_count()'s state for bpf_loop. */
struct dirent_ctx {
	__u64 buf;
	__u64 len;
	__u64 at;
	__u32 reclen_at;
	__u32 name_at;
	__u32 n;
	__u32 bad;
};

static long dirent_step(__u32 i, void *data)
{
	struct dirent_ctx *d = data;
	__u16 reclen = 0;
	if (d->at >= d->len)
		return 1;
	if (d->at + d->name_at > d->len ||
	    bpf_probe_read_user(&reclen, 2, (void *)(d->buf + d->at + d->reclen_at)) ||
	    reclen < d->name_at || reclen > d->len - d->at) {
		d->bad = 1;
		return 1;
	}
	d->at += reclen;
	d->n += 1;
	return 0;
}

/* The entries a getdents call returned in `len` bytes at `buf` (records
 * of d_reclen at `reclen_at`, names from `name_at`), counted as rtrace's
 * decoder counts them, as a piece without bytes; nothing for a buffer
 * that is not whole records. */
__noinline __u32 dirent_count(struct scratch *s, __u32 off, __u64 buf, __u64 len, __u32 at)
{
	struct dirent_ctx d = {.buf = buf, .len = len, .reclen_at = at & 0xff, .name_at = at >> 8};
	if (!s || off > RT_AREA - sizeof(struct rt_capture))
		return off;
	bpf_loop(1 << 16, dirent_step, &d, 0);
	if (d.bad || d.at != len)
		return off;
	struct rt_capture *c = capture_at(s, off, 0, d.n, RT_ARG_DIRENTS, RT_AT_EXIT);
	return c ? off + sizeof(*c) : off;
}

#define S_IFMT 0170000
#define S_IFREG 0100000
#define S_IFIFO 0010000
#define S_IFCHR 0020000
#define S_IFSOCK 0140000
/* tracefs and debugfs files are regular files whose writes rtrace
 * decodes (user_events_data). */
#define TRACEFS_MAGIC 0x74726163
#define DEBUGFS_MAGIC 0x64626720

/* A device's number (inode.i_rdev): its major is above dev_minor_bits;
 * below fixed_majors, a device of fixed number (mem's /dev/null, a
 * terminal), never usbmon's, whose major is handed out from above. */
const volatile __u32 off_inode_rdev = 0, dev_minor_bits = 0, fixed_majors = 0;
/* A socket's family: file.private_data (its struct socket), socket.sk,
 * and the family's offset in struct sock; netlink's is decoded. */
const volatile __u32 off_file_data = 0, off_socket_sk = 0, off_sock_family = 0, af_netlink = 0;

/* A socket file's family (0: not known). */
static __always_inline __u16 socket_family(__u64 file)
{
	__u64 sock = 0, sk = 0;
	__u16 family = 0;
	if (off_socket_sk && !bpf_probe_read_kernel(&sock, 8, (void *)file + off_file_data) &&
	    sock && !bpf_probe_read_kernel(&sk, 8, (void *)sock + off_socket_sk) && sk &&
	    !bpf_probe_read_kernel(&family, 2, (void *)sk + off_sock_family))
		return family;
	return 0;
}

/* Whether a socket file's family is other than netlink's. */
static __always_inline int plain_socket(__u64 file)
{
	__u16 family = socket_family(file);
	return family && family != af_netlink;
}

/* The most bytes at the head of struct inode read at once for i_mode
 * and i_sb (they lie within 48 on 6.1 and 6.18). */
#define INODE_HEAD_MAX 64

/* Whether the file behind `file` (its struct file, read through
 * bpf_probe_read_kernel) holds a plain file's, a pipe's, a fixed
 * device's or a socket's other than netlink's data. */
static __always_inline int data_is_plain(__u64 file)
{
	__u64 inode = 0, sb = 0, magic = 0;
	__u16 mode = 0;
	if (!file || bpf_probe_read_kernel(&inode, 8, (void *)file + off_file_inode) || !inode)
		return 0;
	/* Both with one helper call where they are close (the offsets are
	 * constants the verifier knows: one of the branches is dead). */
	__u64 head[INODE_HEAD_MAX / 8] = {};
	__u32 span = off_inode_sb + 8 > off_inode_mode + 2 ? off_inode_sb + 8 : off_inode_mode + 2;
	if (span <= INODE_HEAD_MAX) {
		if (bpf_probe_read_kernel(head, span, (void *)inode))
			return 0;
		mode = *(__u16 *)((__u8 *)head + off_inode_mode);
		sb = *(__u64 *)((__u8 *)head + off_inode_sb);
	} else if (bpf_probe_read_kernel(&mode, 2, (void *)inode + off_inode_mode) ||
		   bpf_probe_read_kernel(&sb, 8, (void *)inode + off_inode_sb)) {
		return 0;
	}
	if ((mode & S_IFMT) == S_IFIFO)
		return 1;
	if ((mode & S_IFMT) == S_IFCHR) {
		__u32 rdev = 0;
		return fixed_majors && !bpf_probe_read_kernel(&rdev, 4, (void *)inode + off_inode_rdev) &&
		       rdev >> dev_minor_bits < fixed_majors;
	}
	if ((mode & S_IFMT) == S_IFSOCK)
		return plain_socket(file);
	if ((mode & S_IFMT) != S_IFREG || !sb ||
	    bpf_probe_read_kernel(&magic, 8, (void *)sb + off_sb_magic))
		return 0;
	return magic != TRACEFS_MAGIC && magic != DEBUGFS_MAGIC;
}

/* Whether `fd` is a plain file's, a pipe's, a fixed device's or a socket's
 * other than netlink's, whose data nothing decodes beyond the bytes
 * printed. Asked at every read's exit and every write's entry, so read
 * with as few helper calls as the types allow: five (the task's pointer,
 * the fd's entry, the file's inode, the inode's head, the filesystem's
 * magic) where the walk through bpf_probe_read_kernel alone was ten,
 * 570 of a pread's 1,120 ns at its exit (session 25). HACKING.md says
 * why the file itself is not read in place. A function of its own:
 * inlined, the reads' places would widen send_call()'s
 * frame, at the head of the deepest chain of calls, past what kernels
 * before 6.13 allow that chain (512 bytes). */
__noinline int plain_data(__u64 fd)
{
	if (!off_task_files)
		return 0;
	/* The task's files_struct and fdtable read in place through its
	 * BTF pointer: loads the verifier checks against the kernel's
	 * types, which read 0 where a pointer is NULL. */
	void *task = bpf_get_current_task_btf();
	void *files = *(void **)(task + off_task_files);
	void *fdt = *(void **)(files + off_files_fdt);
	return data_is_plain(
		table_file(*(__u64 *)(fdt + off_fdt_fd), *(__u32 *)(fdt + off_fdt_max), fd));
}

/* Whether `fd` is a netlink socket, whose answers rtrace decodes message
 * by message: one longer than a buffer's usual copy is copied further
 * (RT_NETLINK_MAX). Asked only of a call that returned more. */
__noinline int netlink_socket(__u64 fd)
{
	__u64 file = file_of(fd), inode = 0;
	__u16 mode = 0;
	if (!file || bpf_probe_read_kernel(&inode, 8, (void *)file + off_file_inode) || !inode ||
	    bpf_probe_read_kernel(&mode, 2, (void *)inode + off_inode_mode) ||
	    (mode & S_IFMT) != S_IFSOCK)
		return 0;
	return af_netlink && socket_family(file) == af_netlink;
}

#endif
