//! bpf(2), perf_event_open(2) and seccomp's user-notification ioctls
//! (issue 25, session 12): the `s12_bpf` fixture makes each call with
//! arguments the kernel refuses (fd -1, garbage in the upper halves of int
//! arguments, structs at the end of a page), and the whole lines are
//! compared with what strace 6 shows of them, in rtrace's grammar.

mod common;

use common::{assert_lines, assert_lines_in, fixture, name, trace};

/// The lines of the fixture's `part` after its marker, traced with `args`
/// (the exit line left out).
fn part(part: &str, args: &[&str]) -> Vec<String> {
    let bin = fixture("s12_bpf");
    let run = trace(args, &[name(&bin), part]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    run.after_marker()
        .into_iter()
        .skip(1)
        .filter(|l| !l.starts_with("Process exited"))
        .collect()
}

/// seccomp's notification ioctls: ids, flags and arguments in hex, the
/// call named by its ABI, an unknown ABI in hex, the answer's errno, the
/// mistaken `_IOR` code of ID_VALID by its kernel name, ADDFD's source fd
/// with `-y`'s path; a struct that does not fit the page is its pointer.
#[test]
fn seccomp_notification_ioctls() {
    let expected = |fd3: &str| -> Vec<String> {
        vec![
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0, pid=0, flags=0, data={nr=0, arch=0, \
             instruction_pointer=NULL, args=[0, 0, 0, 0, 0, 0]}}) = -1 [EBADF] &ADDR"
                .to_string(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0xdeadc0debadc0ded, pid=7, flags=0x10, \
             data={nr=__NR_gettid, arch=AUDIT_ARCH_X86_64, instruction_pointer=&0x401000, \
             args=[0, 0x10, 0x20, 0x30, 0x40, 0x50]}}) = -1 [EBADF] &ADDR"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, {id=0xdeadc0debadc0ded, pid=7, flags=0x10, \
             data={nr=186, arch=0xfeedface, instruction_pointer=&0x401000, \
             args=[0, 0x10, 0x20, 0x30, 0x40, 0x50]}}) = -1 [EBADF] &ADDR"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_RECV, &ADDR) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_SEND, {id=0x2a, val=-1, error=-ENOSR, \
             flags=SECCOMP_USER_NOTIF_FLAG_CONTINUE|0x10}) = -1 [EBADF]"
                .into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID, [0x2a]) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR, [0x2a]) = -1 [EBADF]".into(),
            "ioctl(-1, SECCOMP_IOCTL_NOTIF_ID_VALID, &ADDR) = -1 [EBADF]".into(),
            format!(
                "ioctl(-1, SECCOMP_IOCTL_NOTIF_ADDFD, {{id=0x2a, flags=SECCOMP_ADDFD_FLAG_SETFD, \
                 srcfd={fd3}, newfd=5, newfd_flags=O_CLOEXEC}}) = -1 [EBADF]"
            ),
        ]
    };
    assert_lines(
        &part("seccomp", &["-e", "trace=ioctl,write"]),
        &expected("3"),
    );
    assert_lines(
        &part("seccomp", &["-y", "-e", "trace=ioctl,write"]),
        &expected("3</dev/null>"),
    );
    // -X verbose: the wrong-way code's number and name (the normaliser
    // takes the long request number for an address).
    let verbose = part("seccomp", &["-X", "verbose", "-e", "trace=ioctl,write"]);
    assert_eq!(
        verbose[6],
        "ioctl(-1, ADDR /* SECCOMP_IOCTL_NOTIF_ID_VALID_WRONG_DIR */, [0x2a]) = -1 [EBADF]"
    );
}

/// JSON: the same fields, hex numbers as numbers.
#[test]
fn seccomp_notification_ioctls_json() {
    use serde_json::{Value, json};
    let bin = fixture("s12_bpf");
    let run = trace(
        &["--json", "-e", "trace=ioctl,write"],
        &[name(&bin), "seccomp"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["name"] == "ioctl")
        .collect();
    let recv = &calls[1]["args"]["arg"];
    assert_eq!(recv["id"], json!(0xdeadc0debadc0ded_u64), "{recv}");
    assert_eq!(
        recv["data"]["nr"],
        json!({"value": 186, "name": "__NR_gettid"})
    );
    assert_eq!(recv["data"]["args"][5], json!(0x50));
    let send = &calls[4]["args"]["arg"];
    assert_eq!(send["error"], json!({"value": -63, "name": "-ENOSR"}));
}

/// perf_event_open's attr without -v: the fields up to the bit fields,
/// the bits that are set, `precise_ip` with its meaning, `config` by the
/// type; pid, cpu and group_fd at the kernel's 32 bits, PERF_FLAG_*; a
/// size the kernel refuses gets its own size written back, shown after
/// the result. PERF_EVENT_IOC_MODIFY_ATTRIBUTES prints the same attr.
#[test]
fn perf_event_attr() {
    let common = "sample_type=PERF_SAMPLE_IP|PERF_SAMPLE_TID, read_format=PERF_FORMAT_ID, \
                  disabled=1, exclude_kernel=1";
    let bp = "sample_type=PERF_SAMPLE_BRANCH_STACK, read_format=PERF_FORMAT_ID, disabled=1, \
              exclude_kernel=1, precise_ip=2 /* requested to have 0 skid */, ..}";
    let expected = vec![
        format!(
            "perf_event_open({{type=PERF_TYPE_HARDWARE, size=PERF_ATTR_SIZE_VER7, \
             config=PERF_COUNT_HW_INSTRUCTIONS, sample_period=1000, {common}, \
             precise_ip=2 /* requested to have 0 skid */, ..}}, -1, -2, 3, \
             PERF_FLAG_FD_CLOEXEC|0x100) = -1 [EINVAL]"
        ),
        format!(
            "perf_event_open({{type=PERF_TYPE_HW_CACHE, size=PERF_ATTR_SIZE_VER7, \
             config=0x8<<32|PERF_COUNT_HW_CACHE_RESULT_MISS<<16|PERF_COUNT_HW_CACHE_OP_WRITE<<8|\
             PERF_COUNT_HW_CACHE_LL, sample_freq=4000, {common}, freq=1, \
             precise_ip=2 /* requested to have 0 skid */, ..}}, -1, 0, -1, 0x100) = -1 [EINVAL]"
        ),
        format!(
            "perf_event_open({{type=PERF_TYPE_BREAKPOINT, size=PERF_ATTR_SIZE_VER7, config=0, \
             sample_period=4000, {bp}, -1, 0, -1, 0x100) = -1 [EINVAL]"
        ),
        format!(
            "perf_event_open({{type=PERF_TYPE_BREAKPOINT, size=0x1000, config=0, \
             sample_period=4000, {bp}, -1, 0, -1, 0x100) = -1 [EINVAL]"
        ),
        "E2BIG".to_string(),
        "perf_event_open(NULL, -1, 0, -1, 0) = -1 [EFAULT]".to_string(),
        format!(
            "ioctl(-1, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, {{type=PERF_TYPE_SOFTWARE, \
             size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_SW_DUMMY, sample_period=4000, {bp}) \
             = -1 [EBADF]"
        ),
        "ioctl(-1, PERF_EVENT_IOC_QUERY_BPF, {ids_len=3, ..}) = -1 [EBADF]".to_string(),
    ];
    let mut lines = part("perf", &["-e", "trace=perf_event_open,ioctl,write"]);
    // The size the kernel knows is the running kernel's (136 on 6.3 and
    // later, 128 before).
    let refused = lines[4].clone();
    let size = refused
        .strip_prefix("perf_event_open(&ADDR, -1, 0, -1, 0) = -1 [E2BIG] {size=")
        .and_then(|s| s.strip_suffix('}'))
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("{refused}"));
    assert!(size >= 128 && size.is_multiple_of(8), "{refused}");
    lines[4] = "E2BIG".into();
    assert_lines(&lines, &expected);
}

/// With -v: every bit field, and the fields after them by the type's
/// names (`bp_type`, `bp_addr`, `bp_len` for a breakpoint, `config1`,
/// `config2` otherwise); `-X verbose` spells each part of `config`.
#[test]
fn perf_event_attr_verbose() {
    let zero_bits =
        |names: &[&str]| -> String { names.iter().map(|n| format!("{n}=0, ")).collect::<String>() };
    let bits = format!(
        "disabled=1, {}exclude_kernel=1, {}precise_ip=2 /* requested to have 0 skid */, {}",
        zero_bits(&["inherit", "pinned", "exclusive", "exclude_user"]),
        zero_bits(&[
            "exclude_hv",
            "exclude_idle",
            "mmap",
            "comm",
            "freq",
            "inherit_stat",
            "enable_on_exec",
            "task",
            "watermark"
        ]),
        zero_bits(&[
            "mmap_data",
            "sample_id_all",
            "exclude_host",
            "exclude_guest",
            "exclude_callchain_kernel",
            "exclude_callchain_user",
            "mmap2",
            "comm_exec",
            "use_clockid",
            "context_switch",
            "write_backward",
            "namespaces",
            "ksymbol",
            "bpf_event",
            "aux_output",
            "cgroup",
            "text_poke",
            "build_id",
            "inherit_thread",
            "remove_on_exec",
            "sigtrap"
        ]),
    );
    let tail = "branch_sample_type=PERF_SAMPLE_BRANCH_USER, sample_regs_user=0, \
                sample_regs_intr=0, aux_watermark=0, sample_max_stack=0, aux_sample_size=0, \
                sig_data=0}";
    let lines = part("perf", &["-v", "-e", "trace=perf_event_open,ioctl,write"]);
    assert_eq!(
        lines[2],
        format!(
            "perf_event_open({{type=PERF_TYPE_BREAKPOINT, size=PERF_ATTR_SIZE_VER7, config=0, \
             sample_period=4000, sample_type=PERF_SAMPLE_BRANCH_STACK, \
             read_format=PERF_FORMAT_ID, {bits}wakeup_events=0, bp_type=HW_BREAKPOINT_W, \
             bp_addr=0x1000, bp_len=8, {tail}, -1, 0, -1, 0x100) = -1 [EINVAL]"
        )
    );
    assert_eq!(
        lines[6],
        format!(
            "ioctl(-1, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, {{type=PERF_TYPE_SOFTWARE, \
             size=PERF_ATTR_SIZE_VER7, config=PERF_COUNT_SW_DUMMY, sample_period=4000, \
             sample_type=PERF_SAMPLE_BRANCH_STACK, read_format=PERF_FORMAT_ID, {bits}\
             wakeup_events=0, config1=0x1000, config2=0x8, {tail}) = -1 [EBADF]"
        )
    );
    let verbose = part(
        "perf",
        &["-X", "verbose", "-e", "trace=perf_event_open,write"],
    );
    assert!(
        verbose[1].contains(
            "config=0x8<<32|0x1 /* PERF_COUNT_HW_CACHE_RESULT_MISS */<<16|\
             0x1 /* PERF_COUNT_HW_CACHE_OP_WRITE */<<8|0x2 /* PERF_COUNT_HW_CACHE_LL */, "
        ),
        "{}",
        verbose[1]
    );
}

/// JSON: the attr's fields as objects, config's parts as flags.
#[test]
fn perf_event_attr_json() {
    use serde_json::{Value, json};
    let bin = fixture("s12_bpf");
    let run = trace(
        &["--json", "-e", "trace=perf_event_open"],
        &[name(&bin), "perf"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["name"] == "perf_event_open")
        .collect();
    let attr = &calls[1]["args"]["attr_uptr"];
    assert_eq!(
        attr["type"],
        json!({"value": 3, "name": "PERF_TYPE_HW_CACHE"})
    );
    assert_eq!(
        attr["config"]["flags"],
        json!([
            "0x8<<32",
            "PERF_COUNT_HW_CACHE_RESULT_MISS<<16",
            "PERF_COUNT_HW_CACHE_OP_WRITE<<8",
            "PERF_COUNT_HW_CACHE_LL"
        ])
    );
    assert_eq!(attr["sample_freq"], json!(4000));
    assert_eq!(calls[0]["args"]["cpu"], json!(-2));
}

/// bpf(2)'s attrs as the fixture passes them (each call's result injected,
/// so no host's bpf support matters), without the result; `FD3`, `FD0`
/// are how fds 3 and 0 print.
const BPF_LINES: &[&str] = &[
    "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, \
         max_entries=16, map_flags=BPF_F_NUMA_NODE|BPF_F_RDONLY_PROG, inner_map_fd=FD3, \
         numa_node=1, map_name=\"rtrace_map\", map_ifindex=if_nametoindex(\"lo\"), \
         btf_fd=FD0, btf_key_type_id=0, btf_value_type_id=0, btf_vmlinux_value_type_id=0, \
         map_extra=0}, 72)",
    "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, \
         max_entries=16, map_flags=BPF_F_NUMA_NODE|BPF_F_RDONLY_PROG, inner_map_fd=FD3, \
         numa_node=NUMA_NO_NODE}, 28)",
    "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, \
         max_entries=16, map_flags=BPF_F_NUMA_NODE|BPF_F_RDONLY_PROG, inner_map_fd=FD3, \
         numa_node=1, map_name=\"0123456789abcde\"..}, 44)",
    "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, \
         max_entries=16, map_flags=BPF_F_NUMA_NODE|BPF_F_RDONLY_PROG, inner_map_fd=FD3, \
         numa_node=1, map_name=\"0123456789abcde\".., map_ifindex=if_nametoindex(\"lo\"), \
         btf_fd=FD0, btf_key_type_id=0, btf_value_type_id=0, btf_vmlinux_value_type_id=0, \
         map_extra=0, ..}, 80)",
    "bpf(BPF_MAP_LOOKUP_ELEM, {map_fd=FD3, key=&0x1000, value=&0x2000, \
         flags=BPF_F_LOCK}, 32)",
    "bpf(BPF_MAP_UPDATE_ELEM, {map_fd=FD3, key=&0x1000, value=&0x2000, \
         flags=BPF_NOEXIST}, 32)",
    "bpf(BPF_MAP_DELETE_ELEM, {map_fd=FD3, key=&0x1000}, 16)",
    "bpf(BPF_MAP_GET_NEXT_KEY, {map_fd=FD3, key=&0x1000, next_key=&0x2000}, 24)",
    "bpf(BPF_OBJ_GET, {pathname=\"/sys/fs/bpf/rtrace\", bpf_fd=FD3, \
         file_flags=BPF_F_RDONLY}, 16)",
    "bpf(BPF_PROG_ATTACH, {target_fd=FD3, attach_bpf_fd=FD3, \
         attach_type=BPF_CGROUP_INET_EGRESS, attach_flags=BPF_F_ALLOW_MULTI|BPF_F_REPLACE, \
         replace_bpf_fd=FD3}, 20)",
    "bpf(BPF_PROG_DETACH, {target_fd=FD3, attach_type=BPF_CGROUP_INET_EGRESS}, 12)",
    "bpf(BPF_PROG_GET_FD_BY_ID, {prog_id=7, next_id=0, open_flags=BPF_F_WRONLY}, 12)",
    "bpf(BPF_PROG_TEST_RUN, {test={prog_fd=FD3, retval=0, data_size_in=4, \
         data_size_out=0, data_in=&0x1000, data_out=NULL, repeat=2, duration=0, \
         ctx_size_in=0, ctx_size_out=0, ctx_in=NULL, ctx_out=NULL, \
         flags=BPF_F_TEST_RUN_ON_CPU, cpu=1, batch_size=0}}, 76)",
    "bpf(BPF_RAW_TRACEPOINT_OPEN, {raw_tracepoint={name=\"sched_switch\", prog_fd=FD3}}, \
         12)",
    "bpf(BPF_LINK_UPDATE, {link_update={link_fd=FD3, new_prog_fd=FD3, \
         flags=BPF_F_REPLACE, old_prog_fd=FD3}}, 16)",
    "bpf(BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_SOCKET_FILTER, insn_cnt=2, \
         insns=&0x1000, license=\"GPL\", log_level=1, log_size=4, log_buf=\"log \".., \
         kern_version=KERNEL_VERSION(6, 1, 0), prog_flags=0, prog_name=\"rtrace_prog\", \
         prog_ifindex=0, expected_attach_type=BPF_CGROUP_INET_INGRESS}, 72)",
    "bpf(BPF_PROG_LOAD, {prog_type=BPF_PROG_TYPE_SOCKET_FILTER, insn_cnt=0, insns=NULL, \
         license=NULL}, 4)",
    "bpf(BPF_MAP_CREATE, &ADDR, 0)",
    "bpf(BPF_MAP_CREATE, NULL, 72)",
    "bpf(-87097619, &ADDR, 72)",
    "bpf(BPF_LINK_CREATE, {link_create={prog_fd=FD3, target_fd=FD3, \
     attach_type=BPF_CGROUP_INET_EGRESS, flags=0x4}, ..}, 24)",
    "bpf(BPF_LINK_CREATE, {link_create={prog_fd=FD3, target_fd=FD3, \
     attach_type=BPF_PERF_EVENT, flags=0x4, perf_event={bpf_cookie=0xc0ffee}}}, 24)",
    "bpf(BPF_OBJ_PIN, {pathname=\"/sys/fs/bpf/rtrace-a-pinned-path-longer-than-the-string-limit\", \
     bpf_fd=FD3, file_flags=0}, 16)",
    "bpf(BPF_BTF_LOAD, {btf=\"\\237\\353\\1\\0BTF!\", btf_log_buf=NULL, btf_size=8, \
     btf_log_size=0, btf_log_level=0}, 28)",
];

/// The fixture's bpf lines traced with `args`, without their injected
/// result.
fn bpf_lines(args: &[&str]) -> Vec<String> {
    let mut all = vec!["-e", "trace=bpf,write", "-e", "inject=bpf:error=EINVAL"];
    all.extend_from_slice(args);
    part("bpf", &all)
        .into_iter()
        .map(|l| {
            l.strip_suffix(" = -1 [EINVAL] (INJECTED)")
                .unwrap_or_else(|| panic!("no injected result: {l}"))
                .to_string()
        })
        .collect()
}

/// Each command's attr as strace 6 shows it: the command's fields as far
/// as an older, shorter size holds them (the rest read as 0 up to a field
/// newer kernels added), names from the headers, fds, addresses and
/// strings; bytes past the command's part shown as `..`; `cmd` and
/// `size` at the kernel's 32 bits; a command with no table row, a size
/// of 0 and NULL as the address.
#[test]
fn bpf_attrs() {
    let expected: Vec<String> = BPF_LINES
        .iter()
        .map(|l| l.replace("FD3", "3").replace("FD0", "0"))
        .collect();
    assert_lines(&bpf_lines(&[]), &expected);
    // -y: the fds' paths.
    let paths = bpf_lines(&["-y"]);
    assert_eq!(
        paths[4],
        "bpf(BPF_MAP_LOOKUP_ELEM, {map_fd=3</dev/null>, key=&0x1000, value=&0x2000, \
         flags=BPF_F_LOCK}, 32)"
    );
    // -v: the extra bytes and where they are.
    let verbose = bpf_lines(&["-v"]);
    assert!(
        verbose[3].ends_with(
            "map_extra=0, extra_data=\"\\0\\0\\0\\0\\1\\0\\0\\0\" /* bytes 72..79 */}, 80)"
        ),
        "{}",
        verbose[3]
    );
}

/// The same attrs under both engines, each call's real result (the same
/// under both, whatever this kernel answers): the BPF engine copies what
/// each command's pointer fields point at (`service::ebpf_attr::memory`),
/// so the license, the log, a tracepoint's name, a pin's path (whole,
/// past `-s`) and the BTF's bytes show as ptrace reads them, not as
/// addresses.
#[test]
fn bpf_attrs_under_both_engines() {
    let expected: Vec<String> = BPF_LINES
        .iter()
        .map(|l| l.replace("FD3", "3").replace("FD0", "0"))
        .collect();
    let mut results = Vec::new();
    for engine in [&[][..], &["--bpf"]] {
        let mut args = vec!["-e", "trace=bpf,write"];
        args.extend_from_slice(engine);
        let (attrs, answers): (Vec<String>, Vec<String>) = part("bpf", &args)
            .into_iter()
            .map(|l| match l.rsplit_once(" = ") {
                Some((call, result)) => (call.to_string(), result.to_string()),
                None => panic!("{engine:?}: no result: {l}"),
            })
            .unzip();
        assert_lines_in(&attrs, &expected, &format!("{engine:?}"));
        results.push(answers);
    }
    assert_eq!(results[0], results[1]);
}

/// JSON: the attr's fields with their names.
#[test]
fn bpf_attrs_json() {
    use serde_json::{Value, json};
    let bin = fixture("s12_bpf");
    let run = trace(
        &["--json", "-e", "trace=bpf", "-e", "inject=bpf:error=EINVAL"],
        &[name(&bin), "bpf"],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let calls: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|v: &Value| v["name"] == "bpf")
        .collect();
    let create = &calls[0]["args"]["uattr"];
    assert_eq!(
        create["map_type"],
        json!({"value": 2, "name": "BPF_MAP_TYPE_ARRAY"})
    );
    assert_eq!(create["map_name"], json!("rtrace_map"));
    let test = &calls[12]["args"]["uattr"]["test"];
    assert_eq!(test["repeat"], json!(2), "{test}");
}

/// Real objects (where the kernel lets the test make a map: root with
/// bpf; skipped otherwise): the new map's fd with `-y`'s path as the
/// result, and what the kernel wrote back into the attr after the result:
/// the info length it knows, the next map id.
#[test]
fn bpf_results_and_written_fields() {
    // And under the BPF engine, where the new fd is named by the identity
    // the program sends at bpf(2)'s exit: the process is gone by the time
    // its lines are printed.
    for engine in [&[][..], &["--bpf"]] {
        let mut args = vec!["-y", "-e", "trace=bpf,write"];
        args.extend_from_slice(engine);
        if !results_and_written_fields(&part("bpfreal", &args)) {
            return;
        }
    }
}

/// [`bpf_results_and_written_fields`]'s lines checked; false when this
/// host cannot make a map (skipped).
fn results_and_written_fields(lines: &[String]) -> bool {
    let Some(create) = lines.first() else {
        eprintln!("skipped: no bpf map could be made here");
        return false;
    };
    if create.ends_with("= -1 [EPERM]") || create.ends_with("= -1 [ENOSYS]") {
        eprintln!("skipped: {create}");
        return false;
    }
    assert_eq!(
        create,
        "bpf(BPF_MAP_CREATE, {map_type=BPF_MAP_TYPE_ARRAY, key_size=4, value_size=8, \
         max_entries=1, map_flags=0, inner_map_fd=0</dev/null>, map_name=\"rtrace_real\", \
         map_ifindex=0, btf_fd=0</dev/null>, btf_key_type_id=0, btf_value_type_id=0, \
         btf_vmlinux_value_type_id=0, map_extra=0}, 72) = 4<anon_inode:bpf-map>"
    );
    // The kernel's struct bpf_map_info is its own size (88 and more).
    let info = &lines[1];
    let len = info
        .strip_prefix(
            "bpf(BPF_OBJ_GET_INFO_BY_FD, {info={bpf_fd=4<anon_inode:bpf-map>, info_len=4096, \
             info=&ADDR}}, 16) = 0 {info={info_len=",
        )
        .and_then(|s| s.strip_suffix("}}"))
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("{info}"));
    assert!((88..4096).contains(&len), "{info}");
    // Map ids grow for the machine's life: any number, but one.
    let next = &lines[2];
    let id = next
        .strip_prefix(
            "bpf(BPF_MAP_GET_NEXT_ID, {start_id=0, next_id=0, open_flags=0}, 12) = 0 {next_id=",
        )
        .and_then(|s| s.strip_suffix('}'))
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or_else(|| panic!("{next}"));
    assert!(id > 0, "{next}");
    true
}

/// A classic BPF program that runs past readable memory: the readable
/// instructions, then the address of the first that is not (strace: `...
/// /* 0x... */`), not the program's address alone.
#[test]
fn a_filter_cut_by_unreadable_memory() {
    let lines = part(
        "seccomp",
        &[
            "-e",
            "trace=seccomp,write",
            "-e",
            "inject=seccomp:error=EINVAL",
        ],
    );
    assert_lines(
        &lines,
        &[
            "seccomp(SECCOMP_SET_MODE_FILTER, 0, {len=3, filter=[BPF_STMT(BPF_LD|BPF_W|BPF_ABS, 0), \
           BPF_STMT(BPF_RET|BPF_K, SECCOMP_RET_ALLOW), &ADDR]}) = -1 [EINVAL] (INJECTED)",
        ],
    );
}
