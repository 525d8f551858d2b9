//! SysV IPC: the calls_ipc fixture's semaphores, message queue and shared
//! memory segment (x86_64), and calls_ipc_i386's same calls through i386's
//! ipc(2) multiplexer and direct calls with the i386 layouts; whole lines
//! compared, and the JSON form of the structs. Values the machine decides
//! (ids, times, the highest index IPC_INFO returns) are matched by
//! pattern: `#` stands for a decimal number.

mod common;

use common::{assert_lines, assert_lines_in, fixture, name, trace};
use serde_json::Value;

const PERM: &str = "uid=0, gid=0, mode=0600, key=0, cuid=0, cgid=0";

fn x86_64_lines() -> Vec<String> {
    let sem = format!(
        "semctl(#, 0, IPC_STAT, {{sem_perm={{{PERM}}}, sem_otime=#, sem_ctime=#, \
         sem_nsems=3}}) = 0"
    );
    let msq = format!(
        "msgctl(#, IPC_STAT, {{msg_perm={{{PERM}}}, msg_stime=#, msg_rtime=#, msg_ctime=#, \
         msg_qnum=0, msg_qbytes=16384, msg_lspid=PID1, msg_lrpid=PID1}}) = 0"
    );
    let shm = format!(
        "shmctl(#, IPC_STAT, {{shm_perm={{{PERM}}}, shm_segsz=4096, shm_cpid=PID1, \
         shm_lpid=PID1, shm_nattch=0, shm_atime=#, shm_dtime=#, shm_ctime=#}}) = 0"
    );
    let seminfo = "semmap=#, semmni=#, semmns=#, semmnu=#, semmsl=#, semopm=#, semume=#, \
                   semusz=#, semvmx=#, semaem=#";
    [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "semget(IPC_PRIVATE, 3, IPC_CREAT|IPC_EXCL|0600) = #",
        "semget(0x1234, 1, 000) = -1 [ENOENT]",
        "semop(#, [{sem_num=0, sem_op=2, sem_flg=SEM_UNDO}, {sem_num=1, sem_op=0, \
         sem_flg=IPC_NOWAIT}], 2) = 0",
        "semtimedop(#, [{sem_num=0, sem_op=-1, sem_flg=SEM_UNDO|IPC_NOWAIT}], 1, \
         {tv_sec=0, tv_nsec=1000}) = 0",
        "semtimedop(#, [{sem_num=0, sem_op=-1, sem_flg=SEM_UNDO|IPC_NOWAIT}], 1, \
         {tv_sec=0, tv_nsec=1000}) = 0",
        "semop(#, &0x1, 1) = -1 [EFAULT]",
        "semctl(#, 0, GETVAL, NULL) = 0",
        "semctl(#, 1, SETVAL, 0x5) = 0",
        "semctl(#, 0, SETALL, &ADDR) = 0",
        "semctl(#, 0, GETALL, &ADDR) = 0",
        "semctl(#, 2, GETNCNT, NULL) = 0",
        &sem,
        "semctl(#, 0, IPC_SET, {sem_perm={uid=0, gid=0, mode=0640}}) = 0",
        &format!("semctl(0, 0, IPC_INFO, {{{seminfo}}}) = #"),
        &format!("semctl(0, 0, SEM_INFO, {{{seminfo}}}) = #"),
        "semctl(#, 0, IPC_STAT, &0x1) = -1 [EFAULT]",
        "semctl(#, 0, IPC_RMID, NULL) = 0",
        "msgget(IPC_PRIVATE, IPC_CREAT|0600) = #",
        "msgsnd(#, {mtype=7, mtext=\"hello\"}, 5, 0) = 0",
        "msgrcv(#, {mtype=7, mtext=\"hello\"}, 16, 0, IPC_NOWAIT) = 5",
        "msgrcv(#, &ADDR, 16, 7, MSG_NOERROR|IPC_NOWAIT) = -1 [ENOMSG]",
        &msq,
        "msgctl(#, IPC_SET, {msg_perm={uid=0, gid=0, mode=0600}, msg_qbytes=16384}) = 0",
        "msgctl(0, MSG_INFO, {msgpool=#, msgmap=#, msgmax=#, msgmnb=#, msgmni=#, msgssz=#, \
         msgtql=#, msgseg=#}) = #",
        "msgctl(#, IPC_RMID, NULL) = 0",
        "msgsnd(#, &0x1, 5, 0) = -1 [EFAULT]",
        "shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600) = #",
        "shmat(#, NULL, SHM_RDONLY) = ADDR",
        "shmdt(&ADDR) = 0",
        &shm,
        "shmctl(#, IPC_SET, {shm_perm={uid=0, gid=0, mode=0600}}) = 0",
        "shmctl(0, IPC_INFO, {shmmax=#, shmmin=#, shmmni=#, shmseg=#, shmall=#}) = #",
        "shmctl(0, SHM_INFO, {used_ids=#, shm_tot=#, shm_rss=#, shm_swp=#, swap_attempts=#, \
         swap_successes=#}) = #",
        "shmctl(#, 0x63, NULL) = -1 [EINVAL]",
        // x86_64 has only the 64-bit structs: the kernel refuses the flag.
        "shmctl(#, IPC_64|IPC_STAT, &ADDR) = -1 [EINVAL]",
        "shmctl(#, SHM_LOCK, NULL) = 0",
        "shmctl(#, IPC_RMID, NULL) = 0",
        "shmget(IPC_PRIVATE, 0, SHM_HUGETLB|SHM_NORESERVE|0600) = -1 [EINVAL]",
        "exit_group(0)",
        "Process exited normally with code 0",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect()
}

#[test]
fn sysv_ipc_calls() {
    let bin = fixture("calls_ipc");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = x86_64_lines();
    let expected: Vec<&str> = expected.iter().map(|s| s.as_str()).collect();
    assert_lines(&run.after_marker(), &expected);
    // -V: numbers only; -VV: structs as their pointers.
    let values = trace(&["-V"], &[name(&bin)]).after_marker();
    assert_lines(
        &values[1..3],
        &[
            "semget(0x0, 3, 0x780) = #",
            "semget(0x1234, 1, 0x0) = -1 [2]",
        ],
    );
    assert_lines(&values[8..9], &["semctl(#, 1, 16, 0x5) = 0"]);
    let pointers = trace(&["-VV"], &[name(&bin)]).after_marker();
    assert_lines(&pointers[3..4], &["semop(#, &ADDR, 2) = 0"]);
    assert_lines(&pointers[20..21], &["msgrcv(#, &ADDR, 16, 0, 0x800) = 5"]);
}

#[test]
fn sysv_ipc_structs_in_json() {
    let bin = fixture("calls_ipc");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let objs: Vec<Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = |name: &str, n: usize| {
        objs.iter()
            .filter(|o| o["type"] == "call" && o["name"] == name)
            .nth(n)
            .unwrap_or_else(|| panic!("no {name} #{n}"))
            .clone()
    };
    let get = call("semget", 0);
    assert_eq!(get["args"]["key"]["name"], "IPC_PRIVATE");
    assert_eq!(get["args"]["semflg"]["flags"]["flags"][0], "IPC_CREAT");
    assert_eq!(get["args"]["semflg"]["flags"]["flags"][1], "IPC_EXCL");
    assert_eq!(get["args"]["semflg"]["mode"], "0600");
    let op = call("semop", 0);
    assert_eq!(op["args"]["tsops"][0]["sem_op"], 2);
    assert_eq!(op["args"]["tsops"][1]["sem_flg"]["flags"][0], "IPC_NOWAIT");
    let stat = call("semctl", 5);
    assert_eq!(stat["args"]["cmd"]["name"], "IPC_STAT");
    assert_eq!(stat["args"]["arg"]["sem_perm"]["mode"], "0600");
    assert_eq!(stat["args"]["arg"]["sem_nsems"], 3);
    let rcv = call("msgrcv", 0);
    assert_eq!(rcv["args"]["msgp"]["mtype"], 7);
    assert_eq!(rcv["args"]["msgp"]["mtext"], "hello");
    assert_eq!(rcv["result"], 5);
    let shm = call("shmctl", 0);
    assert_eq!(shm["args"]["buf"]["shm_segsz"], 4096);
}

#[test]
fn i386_ipc_multiplexer_and_layouts() {
    let bin = fixture("calls_ipc_i386");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let sem = format!("{{sem_perm={{{PERM}}}, sem_otime=#, sem_ctime=#, sem_nsems=2}}) = #");
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "semget(IPC_PRIVATE, 2, IPC_CREAT|0600) = #",
        "semop(#, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}], 1) = 0",
        "semtimedop(#, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}], 1, \
         {tv_sec=0, tv_nsec=1000}) = 0",
        "semctl(#, 1, SETVAL, 0x5) = 0",
        &format!("semctl(#, 0, IPC_64|IPC_STAT, {sem}"),
        &format!("semctl(#, 0, IPC_64|IPC_STAT, {sem}"),
        // semun by reference, and no reference: the kernel's EINVAL.
        "ipc(SEMCTL, #, 0x0, 0x0, NULL, 0) = -1 [EINVAL]",
        "semctl(#, 0, IPC_RMID, &ADDR) = 0",
        "msgget(IPC_PRIVATE, IPC_CREAT|0600) = #",
        "msgsnd(#, {mtype=3, mtext=\"hi\"}, 2, 0) = 0",
        "msgrcv(#, {mtype=3, mtext=\"hi\"}, 16, 0, IPC_NOWAIT) = 2",
        "msgrcv(#, &ADDR, 16, 0, IPC_NOWAIT) = -1 [ENOMSG]",
        &format!(
            "msgctl(#, IPC_64|IPC_STAT, {{msg_perm={{{PERM}}}, msg_stime=#, msg_rtime=#, \
             msg_ctime=#, msg_qnum=0, msg_qbytes=16384, msg_lspid=PID1, msg_lrpid=PID1}}) = 0"
        ),
        "msgctl(#, IPC_64|IPC_RMID, NULL) = -1 [EINVAL]",
        "shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600) = #",
        // Through ipc(2) the address is written back, and shown.
        "shmat(#, NULL, SHM_RDONLY) = ADDR",
        "shmdt(&ADDR) = 0",
        &format!(
            "shmctl(#, IPC_64|IPC_STAT, {{shm_perm={{{PERM}}}, shm_segsz=4096, shm_cpid=PID1, \
             shm_lpid=PID1, shm_nattch=0, shm_atime=#, shm_dtime=#, shm_ctime=#}}) = 0"
        ),
        "shmctl(#, IPC_RMID, NULL) = 0",
        "ipc(0x63, 1, 0x2, 0x3, NULL, 0) = -1 [ENOSYS]",
        "exit_group(0)",
        "Process exited normally with code 0",
    ];
    assert_lines(&run.after_marker(), &expected);
}

#[test]
fn i386_ipc_calls_are_selected_as_the_calls_they_stand_for() {
    // The fast path must stop at ipc(2) for a selected shmat; the other
    // calls ipc carries stay unselected.
    for (mode, lines) in common::in_both_modes(&fixture("calls_ipc_i386"), "trace=shmat,semop") {
        assert_lines_in(
            &lines,
            &[
                "Tracing calls_ipc_i386 (pid PID1)",
                "semop(#, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}], 1) = 0",
                "shmat(#, NULL, SHM_RDONLY) = ADDR",
                "Process exited normally with code 0",
            ],
            mode,
        );
    }
}

#[test]
fn a_32_bit_program_through_the_c_library() {
    let bin = common::fixture_m32("ipc_libc");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        "semget(IPC_PRIVATE, 1, IPC_CREAT|0600) = #",
        "semtimedop(#, [{sem_num=0, sem_op=1, sem_flg=SEM_UNDO}], 1, NULL) = 0",
        &format!(
            "semctl(#, 0, IPC_64|IPC_STAT, {{sem_perm={{{PERM}}}, sem_otime=#, sem_ctime=#, \
             sem_nsems=1}}) = 0"
        ),
        "semctl(#, 0, IPC_64|SETVAL, 0x3) = 0",
        "semctl(#, 0, IPC_64|IPC_RMID, NULL) = 0",
        "msgget(IPC_PRIVATE, IPC_CREAT|0600) = #",
        "msgsnd(#, {mtype=2, mtext=\"abc\"}, 3, 0) = 0",
        "msgrcv(#, {mtype=2, mtext=\"abc\"}, 8, 0, 0) = 3",
        &format!(
            "msgctl(#, IPC_64|IPC_STAT, {{msg_perm={{{PERM}}}, msg_stime=#, msg_rtime=#, \
             msg_ctime=#, msg_qnum=0, msg_qbytes=16384, msg_lspid=PID1, msg_lrpid=PID1}}) = 0"
        ),
        "msgctl(#, IPC_64|IPC_RMID, NULL) = 0",
        "shmget(IPC_PRIVATE, 4096, IPC_CREAT|0600) = #",
        "shmat(#, NULL, 0) = ADDR",
        "shmdt(&ADDR) = 0",
        &format!(
            "shmctl(#, IPC_64|IPC_STAT, {{shm_perm={{{PERM}}}, shm_segsz=4096, shm_cpid=PID1, \
             shm_lpid=PID1, shm_nattch=0, shm_atime=#, shm_dtime=#, shm_ctime=#}}) = 0"
        ),
        "shmctl(#, IPC_64|IPC_RMID, NULL) = 0",
        "exit_group(0)",
        "Process exited normally with code 0",
    ];
    assert_lines(&run.after_marker(), &expected);
}
