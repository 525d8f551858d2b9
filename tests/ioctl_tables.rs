//! The generated ioctl tables (src/ioctl/gen_*.rs) are what the generator
//! makes from this machine's headers: re-running tools/gen_ioctls.py into a
//! scratch directory must reproduce them byte for byte. Skipped, with a
//! message, where the headers are another version than the tables record.

use std::path::Path;
use std::process::Command;

const TABLES: &[&str] = &["gen_x86_64.rs", "gen_i386.rs"];

/// The `SOURCE` line a table records (`linux-libc-dev 6.1.187-1, libdrm-dev
/// 2.4.114-1+b1`).
fn recorded_source(text: &str) -> Option<&str> {
    let line = text.lines().find(|l| l.starts_with("pub const SOURCE"))?;
    line.split('"').nth(1)
}

#[test]
fn regenerating_the_tables_changes_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let committed = std::fs::read_to_string(root.join("src/ioctl").join(TABLES[0])).unwrap();
    let recorded = recorded_source(&committed)
        .expect("a SOURCE line")
        .to_string();
    // The same text the generator records: each package with its version.
    let version = |package: &str| {
        Command::new("dpkg-query")
            .args(["-W", "-f=${Version}", package])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| format!("{package} {}", String::from_utf8_lossy(&o.stdout)))
    };
    let installed = version("linux-libc-dev").map(|kernel| match version("libdrm-dev") {
        Some(drm) if Path::new("/usr/include/libdrm").is_dir() => format!("{kernel}, {drm}"),
        _ => kernel,
    });
    if installed.as_deref() != Some(recorded.as_str()) {
        eprintln!(
            "SKIPPED: the tables were generated from {recorded}, this machine has {}",
            installed.as_deref().unwrap_or("no linux-libc-dev")
        );
        return;
    }
    let out = std::env::temp_dir().join(format!("rtrace-gen-ioctls-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new("python3")
        .arg(root.join("tools/gen_ioctls.py"))
        .arg("--out")
        .arg(&out)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "tools/gen_ioctls.py failed");
    for table in TABLES {
        let fresh = std::fs::read_to_string(out.join(table)).unwrap();
        let committed = std::fs::read_to_string(root.join("src/ioctl").join(table)).unwrap();
        assert!(
            fresh == committed,
            "src/ioctl/{table} differs from what tools/gen_ioctls.py makes now: regenerate it"
        );
    }
    std::fs::remove_dir_all(&out).unwrap();
}
