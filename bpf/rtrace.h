/* The records rtrace's BPF program sends to rtrace through its ring buffer,
 * and the tables rtrace fills for it. src/trace/bpf/wire.rs mirrors these
 * structs field for field (a unit test there checks the sizes); change both
 * together and rebuild the object with tools/build_bpf.sh. */
#ifndef RTRACE_BPF_H
#define RTRACE_BPF_H

/* Record kinds. */
#define RT_ENTER 1       /* a system call's entry: nr, args, ip, sp */
#define RT_LEAVE 2       /* its exit: ret, args as the registers hold them */
#define RT_FORK 3        /* tid created task nr (a thread or a process) */
#define RT_EXEC 4        /* tid (now the thread group leader) exec'd; nr = its former tid,
                            args[0..1] its comm, args[2] the process's execs so far
                            (the `execs` map's count; 0: not counted) */
#define RT_EXIT 5        /* tid exited; nr = its exit_code (a wait status) */
#define RT_SIGNAL 6      /* tid takes signal nr; a capture holds its siginfo */
#define RT_SIGNAL_LOST 7 /* signal nr to tid was discarded at once (ignored) */
#define RT_HELD 8        /* (lossless) the ring is filling: tgid is stopped until
                            rtrace has read it and continues it */

/* Flags in rt_event.flags. */
#define RT_COMPAT 1 /* an i386 call (int 0x80 / sysenter from 32-bit code) */
#define RT_REFETCH 2 /* an entry capture failed; the exit record has it again */
#define RT_DYING 4   /* (exit) the call failed because its task is being killed:
                        it never returns to user space */
#define RT_WHOLE 8   /* (exit) the call's entry sent no record (RT_SPEC2_WHOLE):
                        this one is the whole call, its arguments the registers
                        at the exit */

/* Capture kinds in rt_capture_spec.kind. */
#define RT_CAP_NONE 0
#define RT_CAP_STR 1     /* a NUL-terminated string, at most max bytes */
#define RT_CAP_FIXED 2   /* max bytes */
#define RT_CAP_ARGLEN 3  /* args[len_arg] * elem bytes, at most max */
#define RT_CAP_RETLEN 4  /* (exit only) the return value * elem bytes, at most max */
#define RT_CAP_STRVEC 5  /* a NULL-terminated pointer array and each string */
#define RT_CAP_PTRVEC 6  /* a NULL-terminated pointer array, pointers only */
#define RT_CAP_IOCTL 7   /* ioctl's argument: _IOC_SIZE(args[len_arg]) bytes,
                            at enter if _IOC_WRITE, at exit if _IOC_READ */
#define RT_CAP_LENPTR 8  /* *(u32 *)args[len_arg] bytes, at most max */
#define RT_CAP_GUESS 9   /* max bytes, or elem bytes if that many cannot be read */
#define RT_CAP_ARGMIN 10 /* args[len_arg] bytes but at least elem, at most max */
#define RT_CAP_IOVEC 11  /* args[len_arg] struct iovec and their buffers (max bytes
                            in all; at the exit, as many as the call returned) */
#define RT_CAP_MSGHDR 12 /* a struct user_msghdr: its name, iovecs and control data */
#define RT_CAP_MMSGHDR 13 /* args[len_arg] struct mmsghdr, each as RT_CAP_MSGHDR */
#define RT_CAP_STACK 14  /* max bytes at the stack pointer + elem (a sigreturn's
                            signal frame) */
#define RT_CAP_OPTION 15 /* what the `options` map names for args[len_arg]'s value
                            shifted right by elem (prctl's option, quotactl's
                            command): the memory behind one argument */
#define RT_CAP_INDIRECT 16 /* max bytes through the pointer at byte elem of the
                              struct at args[arg] (its low half for i386) */
#define RT_CAP_IOCBS 17  /* io_submit's args[len_arg] pointers to struct iocb,
                            each iocb, and what its command reads: a write's
                            buffer (elem bytes at most), a vectored
                            command's iovecs (and a write's buffers, max
                            bytes in all) */
#define RT_CAP_BITS 18   /* a set of args[len_arg] bits (an int; select's fd
                            sets) in whole words of elem bytes, at most max */

/* When a capture is taken (rt_capture_spec.when). */
#define RT_AT_ENTER 1
#define RT_AT_EXIT 2

/* Flags of one capture. */
#define RT_PIECE_FAULT 1 /* the read failed: no bytes */
#define RT_PIECE_TERMINATED 2 /* a string whose NUL is the last byte */
#define RT_PIECE_TRUNCATED 4 /* shorter than asked: the record was full */

#define RT_MAX_CAPS 6
/* Entries in the spec table: x86_64 numbers, then i386 ones at +512. */
#define RT_SPECS 1152
/* The specs of the calls i386's socketcall stands for, by its `call`,
 * from here; ipc's from RT_SUBCALL_BASE + 32, by `call & 0xffff` (32 more
 * for a version past 0). */
#define RT_SUBCALL_BASE 1024
#define RT_I386_BASE 512

/* The most bytes of one capture, and of one record's captures. */
#define RT_CAP_MAX 8192
#define RT_AREA 16384
/* The most bytes of a netlink answer a recvmsg's record carries (a dump
 * of links comes in answers past 4 KiB): two pieces of its buffer. */
#define RT_NETLINK_MAX 12288
/* The most strings of a STRVEC, and bytes of each where its spec gives
 * none. */
#define RT_VEC_MAX 64
#define RT_VEC_STR 256

struct rt_capture_spec {
	__u8 arg;
	__u8 kind;
	__u8 when;
	__u8 len_arg;
	__u16 elem;
	__u16 max;
};

/* rt_spec.flags: args[0] is an fd, and where it is a plain file's, a
 * pipe's, a fixed device's or a non-netlink socket's (plain_data()), the
 * call's data buffers are copied only as far as printed
 * (short_data bytes): nothing decodes their content. */
#define RT_SPEC_FD_DATA 1
/* rt_spec.flags: the call's result, when not an error, is a new fd. */
#define RT_SPEC_RET_FD 2

/* rt_spec.flags: getdents (reclen at 16, name at 18 or on i386 8 and 10)
 * or getdents64 (16 and 19): the exit carries how many entries the call
 * returned, which a buffer longer than its copy does not show. */
#define RT_SPEC_DIRENTS 4
#define RT_SPEC_DIRENTS64 8
/* rt_spec.flags: the call sends signals, and so, successful, may have
 * killed its own task (a kill -9 of itself): its exit asks dying()
 * whatever the result. */
#define RT_SPEC_SIGNALS 16
/* i386's socketcall and ipc: the captures are their subcall's
 * (RT_SUBCALL_BASE), from the subcall's arguments. */
#define RT_SPEC_SOCKETCALL 32
#define RT_SPEC_IPC 64
/* rt_spec.flags: execve or execveat. Successful, it replaced the memory
 * its entry's pointers were into: the strings the entry could not copy
 * are not copied again at its exit, and the program's new argument and
 * environment strings (which the kernel copied from them) are sent
 * instead (RT_ARG_EXEC_ARGS, RT_ARG_EXEC_ENV). */
#define RT_SPEC_EXEC 128
/* rt_spec.from: the multiplexer's argument N, or RT_FROM_WORD | N the
 * block's 32-bit word N, or RT_FROM_NONE. */
#define RT_FROM_WORD 0x10
#define RT_FROM_NONE 0xff

/* rt_capture.arg of a getdents count: no bytes, addr is the count. */
#define RT_ARG_DIRENTS 254

/* rt_capture.arg of a successful exec's new argument strings and
 * environment strings, one after another with their NULs (the new
 * stack's, mm_struct.arg_start to arg_end and env_start to env_end). */
#define RT_ARG_EXEC_ARGS 252
#define RT_ARG_EXEC_ENV 251
/* rt_capture.arg of the file name the kernel was given (a string), which
 * it copied after the environment strings (bprm->exec). */
#define RT_ARG_EXEC_FILE 250

/* rt_capture.arg of a file's identity (with fd_ids): addr is the fd, or
 * AT_FDCWD for the working directory; the bytes are a struct rt_file_id. */
#define RT_ARG_FILE_ID 253
/* The piece is memory the program copied of its own accord, not an
 * argument's: a user_events enable word at a write (enablers.bpf.h). */
#define RT_ARG_WORD 249

/* A file as the kernel knows it: its superblock's device (the kernel's
 * encoding, major << 20 | minor), its inode number, and its filesystem's
 * magic (a socket's or a pipe's name is its inode number: sockfs and
 * pipefs files are named without /proc); an anonymous inode's file
 * (eventfd, timerfd, epoll: one inode for all) its dentry's name, which
 * is what tells them apart ("[eventfd]"). */
#define RT_FILE_NAME 32
struct rt_file_id {
	__u64 dev;
	__u64 ino;
	__u64 magic;
	char name[RT_FILE_NAME];
};

/* What to do with one call number. */
struct rt_spec {
	__u8 wanted; /* send its events (selected, or bookkeeping) */
	__u8 ncaps;
	__u8 counted; /* -c counted in the kernel: selected */
	__u8 flags; /* RT_SPEC_* */
	struct rt_capture_spec caps[RT_MAX_CAPS];
	/* The arguments (a bit each) that are fds or directory fds: with
	 * fd_ids, the entry record carries their files' identities. */
	__u8 fd_args;
	/* pipe, pipe2, socketpair: 1 + the argument pointing at the two new
	 * fds (0: another call); with fd_ids, a successful exit carries their
	 * files' identities. */
	__u8 pair_arg;
	/* A subcall's (RT_SUBCALL_BASE and up): the multiplexer's argument
	 * the words are behind, how many words, and where each of its own
	 * arguments is (RT_FROM_*). */
	__u8 block;
	__u8 words;
	__u8 from[6];
	__u8 flags2; /* RT_SPEC2_* */
	__u8 pad;
};
/* rt_spec.flags2: sendto, recvfrom or recvmsg: on a netlink socket, data
 * past the usual copy is copied up to RT_NETLINK_MAX. */
#define RT_SPEC2_NETLINK 1
/* rt_spec.flags2: the call cannot block and its records carry registers only.
 * When no time is shown (want_time 0), its entry sends no record and its
 * exit's record (RT_WHOLE) is the whole call: one record where two cost
 * the traced task twice the ring's work. */
#define RT_SPEC2_WHOLE 2
/* rt_spec.flags2: the call cannot block (service's never-blocking calls):
 * its success's exit does not ask whether its task is dying. */
#define RT_SPEC2_QUICK 4

/* An array behind a pointer member of a struct argument (an ioctl's:
 * VIDIOC_S_EXT_CTRLS's controls, SIOCGIFCONF's buffer; a multiplexed
 * call's: io_uring_register's data and tags): the pointer's offset, and
 * an i386 caller's (0xffff: not an i386 one's), the count's offset and
 * bytes (1, 2 or 4; 0: one unit; RT_COUNT_ARG | n: argument n counts),
 * when (RT_AT_*), each counted unit's bytes (0: no array) and the most
 * units copied; and a buffer behind a pointer in each unit (a string
 * control's bytes): the pointer's offset in the unit (0xffff: none), the
 * offset of the u32 that says its bytes, and the most bytes copied; and
 * elements after the one unit a pointer points at (count_bytes 0: an ISO
 * URB's packet descriptors after a reaped URB), as many as its
 * trail_bytes-byte member at trail_off counts, trail_elem bytes each (0:
 * none), at most trail_max. */
struct rt_pointed {
	__u16 ptr_off;
	__u16 ptr_off32;
	__u16 count_off;
	__u8 count_bytes;
	__u8 when;
	__u16 unit;
	__u16 max;
	__u16 each_ptr;
	__u16 each_len;
	__u16 each_max;
	__u16 trail_off;
	__u16 trail_elem;
	__u16 trail_max;
	__u8 trail_bytes;
	__u8 str; /* a NUL-terminated string of at most unit bytes */
};
#define RT_COUNT_ARG 0x80

/* rt_ioctl.when: the request's result is a new fd, whose file's identity
 * the exit's record carries (with or without -y: it names the fd where no
 * path the program gave does). */
#define RT_NEW_FD 4

/* An ioctl request whose argument rtrace's tables know (old requests'
 * size bits say nothing: TCGETS, SIOCGIFINDEX). */
struct rt_ioctl {
	__u16 size;
	__u8 when; /* RT_AT_ENTER | RT_AT_EXIT, and RT_NEW_FD */
	__u8 str;  /* a NUL-terminated string */
	/* A flexible array after the struct, counted by a member of it: each
	 * element's bytes (0: none), the most elements copied, the count's
	 * offset in the struct and bytes (1, 2 or 4), and when (RT_AT_*). */
	__u16 flex_elem;
	__u16 flex_max;
	__u16 count_off;
	__u8 count_bytes;
	__u8 flex_when;
	/* An array behind a pointer member of the struct. */
	struct rt_pointed ptr;
};

/* The memory behind one argument of a multiplexed call, for one value of
 * another (prctl's option), by (spec index << 32 | value). */
struct rt_option {
	__u16 size; /* the bytes; of RT_OPT_FPROG, its instructions' */
	__u8 arg;
	__u8 when; /* RT_AT_ENTER | RT_AT_EXIT */
	__u8 kind; /* RT_OPT_* */
	/* 1 + the argument that says how many bytes, or elements of elem
	 * bytes after base bytes (0: size alone), and whether the result
	 * says so too (the fewer of them, and size). */
	__u8 len_arg;
	__u8 by_result;
	/* Or 1 + the argument whose struct's u32 at len_off says how many
	 * bytes (a keyctl_pkey_params' in_len). */
	__u8 len_struct;
	__u16 elem; /* 0: a byte */
	__u16 base;
	__u16 len_off;
	/* Arrays behind pointer members of what is copied (unit 0: none). */
	struct rt_pointed ptrs[2];
};

/* The memories of one value, one argument each (keyctl's public key
 * operations read four); size 0 ends them. */
#define RT_OPT_SLOTS 4
struct rt_options {
	struct rt_option slot[RT_OPT_SLOTS];
};

/* Kinds in rt_option.kind. */
#define RT_OPT_BYTES 0
#define RT_OPT_STR 1   /* a NUL-terminated string */
#define RT_OPT_FPROG 2 /* a struct sock_fprog and its instructions */

/* -c counted in the kernel: one call number's calls (exits), errors and
 * nanoseconds from entry to exit, per CPU. */
struct rt_count {
	__u64 calls;
	__u64 errors;
	__u64 ns;
};

/* The traced tasks' table (`members` in tasks.bpf.h), unless -a: task
 * tid is bit tid % 64 of entry tid / 64. PID_MAX_LIMIT is 4M on 64-bit,
 * so 65536 entries hold every tid. */
#define RT_MEMBER_WORDS 65536
struct rt_members {
	__u64 traced;   /* the task is traced */
	__u64 starting; /* ... and is a started command before its exec */
};

struct rt_event {
	__u16 kind;
	__u16 flags;
	__u32 size; /* bytes, this header and the captures after it */
	__u32 tid;
	__u32 tgid;
	__u64 time; /* bpf_ktime_get_ns, or 0 when nothing shows times */
	__s64 nr;
	__u64 args[6];
	__s64 ret;
	__u64 ip;
	__u64 sp;
	__u32 lost; /* events this CPU dropped since its last record */
	__u16 ncaps;
	__u16 cpu;
};

/* One captured piece of tracee memory; len bytes follow, padded to 8. */
struct rt_capture {
	__u64 addr;
	__u32 len;
	__u16 flags;
	__u8 arg;
	__u8 when; /* RT_AT_ENTER: belongs to the entry, even in an exit record */
};

#endif
