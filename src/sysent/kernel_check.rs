//! The rows checked against the kernel where it can be: the names against
//! the `syscalls` crate's x86_64 and x86 tables (numbered from the kernel's
//! syscall_64.tbl and syscall_32.tbl), and each x86_64 row's parameter
//! count against the kernel's own declarations (`abi::SYSCALL_ARGS`,
//! generated from its syscall trace events, which its `SYSCALL_DEFINEn`
//! makes; tests/arg_widths.rs checks that table is the running kernel's).
//! Nothing here is kernel
//! data typed by hand: the lists below are the deliberate differences, each
//! with its reason.

use std::collections::BTreeSet;

use super::rows::{I386_ROWS, ROWS};

/// Rows for calls neither table numbers: i386 makes them only through
/// socketcall (`SYS_SEND`, `SYS_RECV`), and rtrace shows a socketcall as
/// the call it stands for, so they need parameter names.
const SUBCALLS_ONLY: &[&str] = &["send", "recv"];

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

#[test]
fn x86_64_rows_have_the_kernel_declared_parameter_count() {
    let mut differ = Vec::new();
    let mut stale = Vec::new();
    let mut undeclared = Vec::new();
    let mut checked = 0;
    for name in names(false) {
        let row =
            super::signature(crate::kernel::Arch::X86_64, name).expect("every call has a row");
        let Some(declared) = crate::abi::declared(name) else {
            // Reserved numbers (afs_syscall, tuxcall), calls the kernel the
            // table was made on was built without, entry points with no
            // trace event.
            undeclared.push(name);
            continue;
        };
        checked += 1;
        let listed = COUNT_DIFFERS.iter().any(|&(n, _)| n == name);
        if declared.len() != row.params.len() && !listed {
            differ.push(format!(
                "{name}: {} parameters, the kernel declares {}",
                row.params.len(),
                declared.len(),
            ));
        }
        if declared.len() == row.params.len() && listed {
            stale.push(name);
        }
    }
    println!(
        "checked {checked} x86_64 rows against the kernel's declarations ({}); none for {}: {}",
        crate::abi::SYSCALL_ARGS_SOURCE,
        undeclared.len(),
        undeclared.join(" ")
    );
    assert!(checked > 300, "only {checked} rows have a declaration");
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
