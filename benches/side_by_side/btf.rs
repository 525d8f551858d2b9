//! The fourth table (`BENCH_ONLY=btf`): what the first use of each BTF
//! type costs rtrace. Every distinct `(type, size)` the ioctl request
//! tables give an argument is looked up once, as the first request that
//! needs it would (`ioctl::btf::lookup`, which compiles and keeps it), in
//! this process: the first look-up also maps vmlinux and builds the name
//! index (`ioctl/btf/index.rs`), the rest find the type by id. Printed:
//! that first call, the rest's total, and milliseconds per type over all.
//! The target (issue 25): at most 0.05 ms a type. Without
//! /sys/kernel/btf/vmlinux it says so and measures nothing.

use std::time::Instant;

use rtrace_cli::ioctl::btf;

/// Time the first look-up of every type the tables name.
pub fn table() {
    println!("\nBTF first use (every type the ioctl request tables name, looked up once)");
    if !std::path::Path::new("/sys/kernel/btf/vmlinux").exists() {
        println!("  skipped: no /sys/kernel/btf/vmlinux here");
        return;
    }
    let types = btf::table_types();
    let Some(((first_ty, first_size), rest)) = types.split_first() else {
        println!("  skipped: the tables name no types");
        return;
    };
    let start = Instant::now();
    let mut found = usize::from(btf::lookup(first_ty, *first_size, false).is_some());
    let first = start.elapsed();
    let start = Instant::now();
    for (ty, size) in rest {
        found += usize::from(btf::lookup(ty, *size, false).is_some());
    }
    let others = start.elapsed();
    let total = first + others;
    println!(
        "  {} types ({found} in this kernel's BTF): first look-up (load + index) {:.2} ms, \
         the other {} {:.2} ms",
        types.len(),
        first.as_secs_f64() * 1e3,
        rest.len(),
        others.as_secs_f64() * 1e3
    );
    println!(
        "  {:.4} ms/type over all, {:.4} ms/type after the first (target 0.05)",
        total.as_secs_f64() * 1e3 / types.len() as f64,
        others.as_secs_f64() * 1e3 / rest.len().max(1) as f64
    );
}
