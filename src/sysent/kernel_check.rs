//! The rows checked against the kernel where it can be: the names against
//! the `syscalls` crate's x86_64 and x86 tables (numbered from the kernel's
//! syscall_64.tbl and syscall_32.tbl), and each x86_64 row's parameter
//! count against the kernel's own syscall trace event format
//! (`/sys/kernel/tracing/events/syscalls/sys_enter_NAME/format`, made by its
//! `SYSCALL_DEFINEn`), read from the running machine. Nothing here is kernel
//! data typed by hand: the lists below are the deliberate differences, each
//! with its reason.

use std::collections::BTreeSet;
use std::path::Path;

use super::rows::{I386_ROWS, ROWS};

/// Rows for calls neither table numbers: i386 makes them only through
/// socketcall (`SYS_SEND`, `SYS_RECV`), and rtrace shows a socketcall as
/// the call it stands for, so they need parameter names.
const SUBCALLS_ONLY: &[&str] = &["send", "recv"];

/// x86_64 calls whose kernel entry point (and so trace event) has another
/// name than the table's: `(table name, event name)`. The x86_64 table
/// keeps the old names for the calls that took the `new` structs, and its
/// umount2 and sendfile are the kernel's `umount` and `sendfile64`.
const EVENT_NAMES: &[(&str, &str)] = &[
    ("fstat", "newfstat"),
    ("lstat", "newlstat"),
    ("stat", "newstat"),
    ("uname", "newuname"),
    ("sendfile", "sendfile64"),
    ("umount2", "umount"),
];

/// x86_64 rows whose parameter count differs from the kernel's event on
/// purpose: `(name, reason)`. None today; a row that disagrees and is not
/// listed here fails the check.
const COUNT_DIFFERS: &[(&str, &str)] = &[];

/// The names of one of the crate's tables (the crate writes `break` as
/// `r#break`; the rows as rtrace prints it).
fn names(i386: bool) -> BTreeSet<&'static str> {
    let unraw = |name: &'static str| name.strip_prefix("r#").unwrap_or(name);
    if i386 {
        use syscalls::x86::Sysno;
        (0..=Sysno::last().id() as usize)
            .filter_map(|n| Sysno::new(n).map(|s| unraw(s.name())))
            .collect()
    } else {
        // Sysno::iter() skips the last call; walk the numbers instead.
        use syscalls::x86_64::Sysno;
        (0..=Sysno::last().id() as usize)
            .filter_map(|n| Sysno::new(n).map(|s| unraw(s.name())))
            .collect()
    }
}

#[test]
fn every_row_is_a_call_of_the_kernel_tables_and_every_call_has_a_row() {
    let x86_64 = names(false);
    let x86 = names(true);
    let rows: BTreeSet<&str> = ROWS.iter().map(|r| r.name).collect();
    for name in x86_64.iter().chain(&x86) {
        assert!(
            rows.contains(name),
            "{name}: a call of the kernel's tables with no row"
        );
    }
    for name in &rows {
        let known = x86_64.contains(name) || x86.contains(name);
        assert!(
            known || SUBCALLS_ONLY.contains(name),
            "{name}: a row for no call of the kernel's tables"
        );
        assert!(
            !(known && SUBCALLS_ONLY.contains(name)),
            "{name} is numbered now"
        );
    }
    // An i386 row overrides a call both ABIs number.
    for row in I386_ROWS {
        assert!(
            x86.contains(row.name) && x86_64.contains(row.name),
            "{}: an i386 row for a call not on both ABIs",
            row.name
        );
    }
}

/// The number of a syscall event's argument fields: those after
/// `__syscall_nr`, leaving out any the kernel adds for its own use
/// (`__`-prefixed).
fn event_fields(format: &str) -> usize {
    format
        .lines()
        .skip_while(|line| !line.contains(" __syscall_nr;"))
        .skip(1)
        .filter_map(|line| line.trim().strip_prefix("field:"))
        .filter(|field| {
            let decl = field.split(';').next().unwrap_or("");
            let name = decl.rsplit([' ', '*']).next().unwrap_or("");
            !name.starts_with("__")
        })
        .count()
}

#[test]
fn x86_64_rows_have_the_kernel_event_parameter_count() {
    let events = Path::new("/sys/kernel/tracing/events/syscalls");
    if !events.is_dir() {
        println!(
            "skipped: {} is absent (no tracefs here), row parameter counts not checked",
            events.display()
        );
        return;
    }
    let mut differ = Vec::new();
    let mut stale = Vec::new();
    let mut no_event = Vec::new();
    let mut checked = 0;
    for &(table, event) in EVENT_NAMES {
        let path = events.join(format!("sys_enter_{event}/format"));
        assert!(
            path.exists(),
            "{table}: no event {event} ({})",
            path.display()
        );
    }
    for name in names(false) {
        let row =
            super::signature(crate::kernel::Arch::X86_64, name).expect("every call has a row");
        let event = EVENT_NAMES
            .iter()
            .find(|&&(table, _)| table == name)
            .map_or(name, |&(_, event)| event);
        let path = events.join(format!("sys_enter_{event}/format"));
        let Ok(format) = std::fs::read_to_string(&path) else {
            // Reserved numbers (afs_syscall, tuxcall), calls this kernel
            // was built without, entry points with no event.
            no_event.push(name);
            continue;
        };
        checked += 1;
        let fields = event_fields(&format);
        let listed = COUNT_DIFFERS.iter().any(|&(n, _)| n == name);
        if fields != row.params.len() && !listed {
            differ.push(format!(
                "{name}: {} parameters, the kernel's {} has {fields}",
                row.params.len(),
                path.display()
            ));
        }
        if fields == row.params.len() && listed {
            stale.push(name);
        }
    }
    println!(
        "checked {checked} x86_64 rows against their trace events; no event for {}: {}",
        no_event.len(),
        no_event.join(" ")
    );
    assert!(
        checked > 0,
        "no syscall event read from {}",
        events.display()
    );
    assert!(
        differ.is_empty(),
        "rows that differ from the kernel:\n{}",
        differ.join("\n")
    );
    assert!(
        stale.is_empty(),
        "listed as differing but agree with the kernel: {stale:?}"
    );
}

#[test]
fn event_fields_counts_the_arguments() {
    let format = "name: sys_enter_write\nID: 1\nformat:\n\
        \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\
        \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
        \tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n\
        \tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n\
        \tfield:const char * buf;\toffset:24;\tsize:8;\tsigned:0;\n\
        \tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n\
        \tfield:__data_loc char[] __buf_val;\toffset:40;\tsize:4;\tsigned:0;\n\n\
        print fmt: \"fd: 0x%08lx\"\n";
    assert_eq!(event_fields(format), 3);
}
