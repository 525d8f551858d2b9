//! Process and system calls decoded as strace 6 shows them (issue 25,
//! session 11, helper procsys): the `procsys` fixture makes each call with
//! exact arguments (garbage in the upper halves of those the kernel reads
//! as an int) and the whole lines are compared, addresses normalised.

mod common;

use common::{assert_lines, trace};

/// Run the fixture under rtrace with `args`.
fn run(args: &[&str]) -> common::Run {
    let bin = common::fixture("procsys");
    let run = trace(args, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run
}

/// The lines from the marker on, with no option.
const PLAIN: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    // prctl: each option with the arguments it reads, named.
    "prctl(PR_SET_DUMPABLE, 0x3) = -1 [EINVAL]",
    "prctl(PR_SET_DUMPABLE, SUID_DUMP_USER) = 0",
    "prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)",
    "prctl(PR_SET_TSC, PR_TSC_ENABLE) = 0",
    "prctl(PR_GET_TSC, [PR_TSC_ENABLE]) = 0",
    // The kernel takes 15 bytes of the name.
    "prctl(PR_SET_NAME, \"0123456789abcde\"..) = 0",
    "prctl(PR_SET_SECUREBITS, SECBIT_KEEP_CAPS|0x100000000) = -1 [EPERM]",
    "prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_NET_RAW, 0, 0) = 0",
    "prctl(PR_MCE_KILL, PR_MCE_KILL_SET, PR_MCE_KILL_EARLY, 0, 0) = 0",
    "prctl(PR_MCE_KILL_GET, 0, 0, 0, 0) = 1 (PR_MCE_KILL_EARLY)",
    "prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_SYNC|0x3<<PR_MTE_TAG_SHIFT, \
     0, 0, 0) = -1 [EINVAL]",
    "prctl(PR_SVE_SET_VL, PR_SVE_SET_VL_ONEXEC|0x10) = -1 [EINVAL]",
    "prctl(PR_PAC_RESET_KEYS, PR_PAC_APIAKEY|PR_PAC_APGAKEY, 0, 0, 0) = -1 [EINVAL]",
    // The generic key is not one PR_PAC_SET_ENABLED_KEYS takes.
    "prctl(PR_PAC_SET_ENABLED_KEYS, PR_PAC_APIBKEY, 0x10, 0, 0) = -1 [EINVAL]",
    "prctl(PR_GET_CHILD_SUBREAPER, [0]) = 0",
    "prctl(PR_SET_UNALIGN, 0xff00) = -1 [EINVAL]",
    "prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0, 0x1 /* PIDTYPE_TGID */, &ADDR) = -1 [EINVAL]",
    "prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, 0x7, NULL) = -1 [EINVAL]",
    // System administration: each fails, with an error that depends on
    // the privileges and the kernel's configuration.
    "reboot(LINUX_REBOOT_MAGIC1, 0x12, LINUX_REBOOT_CMD_RESTART2, \"now\") = -1 [E*]",
    "syslog(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, NULL, 99) = -1 [E*]",
    "swapon(\"/nonexistent\", SWAP_FLAG_PREFER|10) = -1 [E*]",
    "kexec_load(NULL, 0, NULL, KEXEC_ARCH_SH|KEXEC_ON_CRASH) = -1 [E*]",
    "kexec_file_load(-1, -1, 3, \"ab\\0\", 0x100) = -1 [E*]",
    // The flags the kernel reads as an int, without the garbage above.
    "delete_module(\"nonexistent_module\", O_NONBLOCK) = -1 [E*]",
    "finit_module(-1, \"\", MODULE_INIT_IGNORE_VERMAGIC) = -1 [E*]",
    // Keys: the special keyrings by name, the payload as plen bytes.
    "add_key(\"user\", \"rtrace\", \"payload\", 7, KEY_SPEC_PROCESS_KEYRING) = #",
    "keyctl(KEYCTL_READ, #, \"payload\", 16) = 7",
    // As much of the description as the buffer holds; the result is its
    // whole length.
    "keyctl(KEYCTL_DESCRIBE, #, \"payl\", 4) = #",
    "keyctl(KEYCTL_SETPERM, #, KEY_POS_VIEW|KEY_POS_READ|KEY_POS_WRITE|KEY_POS_SEARCH|KEY_POS_LINK|\
     KEY_POS_SETATTR|KEY_USR_VIEW) = 0",
    "keyctl(KEYCTL_REVOKE, #) = 0",
    "request_key(\"user\", \"rtrace-none\", NULL, KEY_SPEC_PROCESS_KEYRING) = -1 [ENOKEY]",
    "keyctl(0xfacefeed, 0x1, 0x2, 0x3, 0x4) = -1 [EOPNOTSUPP]",
    // The DH and public key operations' structs (which keys, how long).
    "keyctl(KEYCTL_DH_COMPUTE, {private=KEY_SPEC_PROCESS_KEYRING, prime=1, base=2}, &ADDR, 16, \
     NULL) = -1 [E*]",
    // A key derivation's hash name and other info, shown after the call.
    "keyctl(KEYCTL_DH_COMPUTE, {private=KEY_SPEC_PROCESS_KEYRING, prime=1, base=2}, &ADDR, 16, \
     {hashname=\"sha256\", otherinfo=\"xy\", otherinfolen=2}) = -1 [E*]",
    "keyctl(KEYCTL_PKEY_ENCRYPT, {key_id=KEY_SPEC_PROCESS_KEYRING, in_len=3, out_len=4}, \
     \"enc=pkcs1\", \"abc\", &ADDR) = -1 [E*]",
    // What the kernel supports, byte by byte (the kernel's configuration).
    "keyctl(KEYCTL_CAPABILITIES, [KEYCTL_CAPS0_CAPABILITIES|*], 2) = 2",
    // The bytes past the struct the kernel knows, one not zero.
    "openat2(-1, \"x\", {flags=O_RDONLY, resolve=0, /* bytes 24..31 */ \"\\0\\0\\0\\0\\0\\0\\200\\0\"}, \
     32) = -1 [E2BIG]",
    // clone3 rejects CLONE_DETACHED: it is no flag of its.
    "clone3({flags=0x400000, pidfd=NULL, child_tid=NULL, parent_tid=NULL, exit_signal=0, \
     stack=NULL, stack_size=0, tls=NULL}, 64) = -1 [EINVAL]",
    // Every field the size holds, and the bytes past them that are not zero.
    "clone3({flags=0, pidfd=NULL, child_tid=NULL, parent_tid=NULL, exit_signal=0, stack=NULL, \
     stack_size=0, tls=NULL, set_tid=NULL, set_tid_size=0, cgroup=0, \
     /* bytes 88..95 */ \"\\1\\0\\0\\0\\0\\0\\0\\0\"}, 96) = -1 [E2BIG]",
    // quotactl: the command as the kernel's macro makes it, then what it
    // reads.
    "quotactl(QCMD(Q_SETINFO, GRPQUOTA), \"/nonexistent\", {dqi_bgrace=1, dqi_igrace=2, \
     dqi_flags=DQF_ROOT_SQUASH, dqi_valid=IIF_FLAGS}) = -1 [E*]",
    "quotactl(QCMD(Q_QUOTAON, PRJQUOTA), \"/nonexistent\", QFMT_VFS_V1, \"/q\") = -1 [E*]",
    "quotactl(QCMD(Q_XQUOTAON, USRQUOTA), \"/nonexistent\", \
     [FS_QUOTA_UDQ_ACCT|FS_QUOTA_UDQ_ENFD]) = -1 [E*]",
    "quotactl(QCMD(Q_SYNC, 0xed), NULL) = -1 [EINVAL]",
    // Q_GETFMT's format is written: nothing when the call fails.
    "quotactl_fd(-1, QCMD(Q_GETFMT, USRQUOTA), &ADDR) = -1 [EBADF]",
    // The XSAVE features with their names beside the number, as strace
    // shows the names the kernel does not export; x87 and SSE at least.
    "arch_prctl(ARCH_GET_XCOMP_SUPP, [0x* /* XFEATURE_MASK_FPSSE|*]) = 0",
    "arch_prctl(ARCH_REQ_XCOMP_PERM, 0xf /* XFEATURE_LBR */) = -1 [E*]",
    // BPF_PROG_LOAD's attr, as far as the size holds it.
    "bpf(BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_SOCKET_FILTER, insn_cnt=0, insns=NULL, \
     license=\"GPL\", log_level=0, log_size=0, log_buf=NULL, kern_version=KERNEL_VERSION(6, 1, 0), \
     prog_flags=0, prog_name=\"rtrace\", prog_ifindex=0, \
     expected_attach_type=BPF_CGROUP_INET_INGRESS, prog_btf_fd=0, func_info_rec_size=0, \
     func_info=NULL, func_info_cnt=0, line_info_rec_size=0, line_info=NULL, line_info_cnt=0, \
     attach_btf_id=0, attach_prog_fd=0, fd_array=NULL}, 128) = -1 [E*]",
    "bpf(BPF_MAP_CREATE, NULL, 0) = -1 [EINVAL]",
    // Landlock (its results depend on the kernel's configuration).
    "landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) = *",
    "landlock_create_ruleset({handled_access_fs=LANDLOCK_ACCESS_FS_EXECUTE}, 8, 0) = *",
    "close(*) = *",
    "landlock_add_rule(-1, LANDLOCK_RULE_PATH_BENEATH, {allowed_access=LANDLOCK_ACCESS_FS_EXECUTE|\
     LANDLOCK_ACCESS_FS_READ_FILE, parent_fd=-1}, 0x0) = -1 [E*]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn procsys_calls() {
    assert_lines(&run(&[]).after_marker(), PLAIN);
}

/// `-X raw` numbers what the default names, `-X verbose` shows both.
#[test]
fn procsys_calls_raw_and_verbose() {
    let find = |lines: &[String], start: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no {start} in:\n{}", lines.join("\n")))
            .clone()
    };
    let raw = run(&["-X", "raw"]).after_marker();
    assert_eq!(
        find(&raw, "prctl(0x37"),
        "prctl(0x37, 0x1b, 0, 0, 0) = -1 [EINVAL]"
    );
    assert_eq!(
        find(&raw, "prctl(0x3e, 0,"),
        "prctl(0x3e, 0, 0, 0x1, &ADDR) = -1 [EINVAL]"
    );
    let verbose = run(&["-X", "verbose"]).after_marker();
    assert_eq!(
        find(&verbose, "prctl(0x37"),
        "prctl(0x37 /* PR_SET_TAGGED_ADDR_CTRL */, 0x1b /* PR_TAGGED_ADDR_ENABLE|PR_MTE_TCF_SYNC|\
         0x3<<PR_MTE_TAG_SHIFT */, 0, 0, 0) = -1 [EINVAL]"
    );
    let quotaon = find(&raw, "quotactl(2147484162,");
    assert!(
        common::matches_digits(
            "quotactl(2147484162, \"/nonexistent\", 0x4, \"/q\") = -1 [E*]",
            &quotaon
        ),
        "{quotaon}"
    );
    assert_eq!(
        find(&verbose, "prctl(0x3 "),
        "prctl(0x3 /* PR_GET_DUMPABLE */) = 1 (SUID_DUMP_USER)"
    );
}

/// `--json`: the same handlers give names and values.
#[test]
fn procsys_calls_json() {
    use serde_json::{Value, json};
    let run = run(&["--json"]);
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |name: &str, option: &str| {
        objs.iter()
            .find(|o| o["name"] == name && o["args"]["option"]["name"] == option)
            .unwrap_or_else(|| panic!("no {name} {option} in {}", run.trace))
    };
    assert_eq!(
        find("prctl", "PR_GET_TSC")["args"]["arg2"],
        json!([{"value": 1, "name": "PR_TSC_ENABLE"}])
    );
    assert_eq!(
        find("prctl", "PR_GET_DUMPABLE")["returned"]["meaning"],
        json!("SUID_DUMP_USER")
    );
    assert_eq!(
        find("prctl", "PR_SCHED_CORE")["args"]["arg4"],
        json!({"value": 1, "name": "PIDTYPE_TGID"})
    );
    let how = &objs.iter().find(|o| o["name"] == "openat2").unwrap()["args"]["how"];
    assert_eq!(how["tail"], json!({"hex": "0000000000008000"}));
    let add = objs.iter().find(|o| o["name"] == "add_key").unwrap();
    assert_eq!(
        add["args"]["ringid"],
        json!({"value": -2, "name": "KEY_SPEC_PROCESS_KEYRING"})
    );
    assert_eq!(
        find("prctl", "PR_PAC_RESET_KEYS")["args"]["arg2"],
        json!({"value": 17, "flags": ["PR_PAC_APIAKEY", "PR_PAC_APGAKEY"]})
    );
}

/// PTRACE_GET_SYSCALL_INFO: as many fields as the kernel wrote, the call by
/// its `__NR_` name (the child's addresses and pid vary: `*`).
#[test]
fn ptrace_syscall_info() {
    for engine in [&[][..], &["--bpf"]] {
        ptrace_syscall_info_under(engine);
    }
}

/// [`ptrace_syscall_info`] under one engine (the BPF engine copies as
/// many bytes as `addr` says).
fn ptrace_syscall_info_under(engine: &[&str]) {
    let bin = common::fixture("procsys_ptrace");
    let run = trace(engine, &[bin.file_name().unwrap().to_str().unwrap()]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines: Vec<String> = run
        .lines()
        .into_iter()
        .filter(|l| l.starts_with("ptrace("))
        .collect();
    assert_lines(
        &lines,
        &[
            "ptrace(PTRACE_SETOPTIONS, *, 0x0, PTRACE_O_TRACESYSGOOD) = 0",
            "ptrace(PTRACE_SYSCALL, *, 0x0, 0) = 0",
            "ptrace(PTRACE_GET_SYSCALL_INFO, *, 40, {op=PTRACE_SYSCALL_INFO_ENTRY, \
             arch=AUDIT_ARCH_X86_64, instruction_pointer=*, stack_pointer=*, \
             entry={nr=__NR_chdir, args=[*]}}) = 80",
            "ptrace(PTRACE_GET_SYSCALL_INFO, *, 88, {op=PTRACE_SYSCALL_INFO_ENTRY, \
             arch=AUDIT_ARCH_X86_64, instruction_pointer=*, stack_pointer=*, \
             entry={nr=__NR_chdir, args=[*, *, *, *, *, *]}}) = 80",
            "ptrace(PTRACE_KILL, *) = 0",
        ],
    );
}

/// quotactl's and quotactl_fd's structs larger than a guess at an untyped
/// pointer, at a page's end too, under both engines: the BPF engine copies
/// each command's struct (`service::quota::memory`, chosen by the command
/// above the type's byte).
#[test]
fn quota_structs_under_both_engines() {
    let bin = common::fixture("quota_structs");
    let dqblk = "{dqb_bhardlimit=100, dqb_bsoftlimit=50, dqb_curspace=4096, dqb_ihardlimit=10, \
                 dqb_isoftlimit=0, dqb_curinodes=0, dqb_btime=0, dqb_itime=0, \
                 dqb_valid=QIF_BLIMITS|QIF_ILIMITS}";
    let xfs = "{d_version=1, d_flags=FS_PROJ_QUOTA, d_fieldmask=0x8, d_id=7, \
               d_blk_hardlimit=2048, d_blk_softlimit=0, d_ino_hardlimit=0, d_ino_softlimit=0, \
               d_bcount=0, d_icount=0, d_itimer=0, d_btimer=0, d_iwarns=0, d_bwarns=0, \
               d_rtb_hardlimit=0, d_rtb_softlimit=0, d_rtbcount=0, d_rtbtimer=0, d_rtbwarns=0}";
    let expected = [
        format!("quotactl(QCMD(Q_SETQUOTA, PRJQUOTA), \"/nonexistent\", 7, {dqblk}) = -1 [ENOENT]"),
        format!("quotactl(QCMD(Q_XSETQLIM, PRJQUOTA), \"/nonexistent\", 7, {xfs}) = -1 [ENOENT]"),
        format!("quotactl_fd(-1, QCMD(Q_XSETQLIM, USRQUOTA), 0, {xfs}) = -1 [EBADF]"),
    ];
    for engine in [&[][..], &["--bpf"]] {
        let run = trace(engine, &[bin.file_name().unwrap().to_str().unwrap()]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        let lines: Vec<String> = run
            .lines()
            .into_iter()
            .filter(|l| l.starts_with("quotactl"))
            .collect();
        assert_eq!(lines, expected, "{engine:?}");
    }
}

/// Strings a command makes strings (reboot's RESTART2 command,
/// fsconfig's string, binary and path values), longer than a guess at an
/// untyped pointer, under both engines with `-s 100`: the BPF engine
/// copies each as its command's decoder reads it (`service::by_value`:
/// `sysadm::REBOOT_MEMORY`, `mount_api::fsconfig_memory`).
#[test]
fn strings_a_command_chooses_under_both_engines() {
    let bin = common::fixture("chosen_strings");
    let (r, v, p) = ("r".repeat(199), "v".repeat(100), "p".repeat(88));
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        format!("reboot(0x0, 0x0, LINUX_REBOOT_CMD_RESTART2, \"{r}\") = -1 [EINVAL]"),
        format!("fsconfig(-1, FSCONFIG_SET_STRING, \"source\", \"{v}\".., 0) = -1 [EINVAL]"),
        format!(
            "fsconfig(-1, FSCONFIG_SET_BINARY, \"blob\", \"{}\", 70) = -1 [EINVAL]",
            "v".repeat(70)
        ),
        format!("fsconfig(-1, FSCONFIG_SET_PATH, \"dir\", \"/{p}\", AT_FDCWD) = -1 [EINVAL]"),
        "exit_group(0)".to_string(),
        "Process exited normally with code 0".to_string(),
    ];
    for engine in [&["-s", "100"][..], &["-s", "100", "--bpf"]] {
        let run = trace(engine, &[bin.file_name().unwrap().to_str().unwrap()]);
        assert_eq!(run.code(), Some(0), "{engine:?}: {}", run.stderr());
        assert_eq!(run.after_marker(), expected, "{engine:?}");
    }
}
