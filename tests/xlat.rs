//! Generated name tables: `tools/gen_xlat.c` writes `src/service/xlat.rs`
//! from the kernel's uapi headers; regenerating must change nothing (a
//! hand edit, or headers that gained a value, shows up here).

use std::path::Path;
use std::process::Command;

#[test]
fn regenerating_the_tables_changes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gen_xlat");
    let status = Command::new("cc")
        .args(["-Wall", "-Werror", "-o"])
        .arg(&bin)
        .arg(root.join("tools/gen_xlat.c"))
        .status()
        .expect("a C compiler (cc) is needed to run tools/gen_xlat.c");
    assert!(status.success(), "tools/gen_xlat.c does not build");
    let out = Command::new(&bin).output().expect("gen_xlat runs");
    assert!(out.status.success());
    let generated = String::from_utf8(out.stdout).unwrap();
    let committed = std::fs::read_to_string(root.join("src/service/xlat.rs")).unwrap();
    assert!(
        generated == committed,
        "src/service/xlat.rs differs from what tools/gen_xlat.c writes; regenerate it:\n\
         cc -o gen_xlat tools/gen_xlat.c && ./gen_xlat > src/service/xlat.rs"
    );
}
