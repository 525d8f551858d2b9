//! Everything rtrace knows of the kernel is generated (HACKING.md,
//! "Generated tables"): this test runs `tools/regen` into a scratch
//! directory, part by part, and fails when any generated file differs from
//! the committed one (a hand edit, a table added to a generator's list but
//! not regenerated, or a generator change not run). A part whose inputs
//! differ on this machine (other headers, another kernel) cannot be
//! compared and is skipped with a message saying why.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The root of the source tree.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A committed file's text.
fn committed(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The `headers-sha256:` a generated file records.
fn recorded_digest(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.contains("headers-sha256: "))?;
    Some(line.rsplit(' ').next()?.to_string())
}

/// What a generator's `--digest` says of this machine's headers.
fn digest_here(tool: &str) -> Option<String> {
    let out = Command::new("python3")
        .arg(root().join("tools").join(tool))
        .arg("--digest")
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The installed version of a Debian package, as the ioctl generator
/// records it (`linux-libc-dev 6.1.187-1`).
fn package(name: &str) -> Option<String> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Version}", name])
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    Some(format!("{name} {}", String::from_utf8_lossy(&out.stdout)))
}

/// Why `part` cannot be compared on this machine, if it cannot.
fn skip_reason(part: &str) -> Option<String> {
    match part {
        "abi" | "netlink" => {
            let (tool, file) = if part == "abi" {
                ("gen_abi.py", "src/abi/xlat/fs.rs")
            } else {
                ("gen_netlink_consts.py", "src/service/netlink/consts.rs")
            };
            let recorded = recorded_digest(&committed(file));
            match digest_here(tool) {
                None => Some(format!("python3, cc or the headers are missing for {tool}")),
                Some(here) if Some(&here) != recorded.as_ref() => Some(format!(
                    "{file} was made from other headers (sha256 {recorded:?}, here {here})"
                )),
                Some(_) => None,
            }
        }
        "ioctls" => {
            let text = committed("src/ioctl/gen_x86_64.rs");
            let line = text.lines().find(|l| l.starts_with("pub const SOURCE"));
            let recorded = line.and_then(|l| l.split('"').nth(1)).unwrap_or("");
            // The DRM drivers libdrm-dev lacks come from linux-source's
            // tarball, where it is installed (tools/gen_ioctls.py).
            let source = package("linux-source-6.1")
                .filter(|_| Path::new("/usr/src/linux-source-6.1.tar.xz").is_file());
            let here = package("linux-libc-dev").map(|kernel| match package("libdrm-dev") {
                Some(drm) if Path::new("/usr/include/libdrm").is_dir() => match source {
                    Some(source) => format!("{kernel}, {drm}, {source}"),
                    None => format!("{kernel}, {drm}"),
                },
                _ => kernel,
            });
            (here.as_deref() != Some(recorded)).then(|| {
                format!("the ioctl tables were made from {recorded}, this machine has {here:?}")
            })
        }
        "usbmon" | "usbdevfs" | "user_events" | "ata" | "vt" | "timex" | "inet6_if"
        | "x86_thread" | "chrdev" | "kdev" | "numa" | "proc_ns" | "i386_entry" => {
            kernel_source_skip(part)
        }
        "syscalls" => {
            let text = committed("src/abi/gen_syscall_args.rs");
            let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
            let made_here = text.contains(&format!("\"{}\"", release.trim()));
            let events = Path::new("/sys/kernel/tracing/events/syscalls/sys_enter_open/format");
            let bpftool = Command::new("bpftool").arg("version").output().is_ok();
            (!made_here || !events.exists() || !bpftool).then(|| {
                format!(
                    "the declared widths were made on another kernel than {}, or tracefs or bpftool is missing",
                    release.trim()
                )
            })
        }
        _ => unreachable!("{part}"),
    }
}

/// Why a part tools/gen_kernel_src.py makes from a kernel source tarball
/// cannot be compared here: its tarball is missing (the generator's own
/// message names the package; installed here and in CI, .ci/run), or its definitions or the headers around
/// them differ from the committed file's (`source-sha256`).
fn kernel_source_skip(part: &str) -> Option<String> {
    let file = format!("src/abi/gen_{part}.rs");
    let text = committed(&file);
    let line = text.lines().find(|l| l.contains("source-sha256: "));
    let recorded = line.and_then(|l| l.rsplit(' ').next()).unwrap_or("");
    let out = Command::new("python3")
        .arg(root().join("tools/gen_kernel_src.py"))
        .args(["--digest", part])
        .output();
    match out {
        Err(e) => Some(format!("python3 cannot run tools/gen_kernel_src.py: {e}")),
        // 3: the tarball is missing (its message names the package); any
        // other failure is the generator's, which the comparison then shows.
        Ok(o) if o.status.code() == Some(3) => {
            Some(String::from_utf8_lossy(&o.stderr).trim().to_string())
        }
        Ok(o) if !o.status.success() => None,
        Ok(o) => {
            let here = String::from_utf8_lossy(&o.stdout).trim().to_string();
            (here != recorded).then(|| {
                format!("{file} was made from other sources (sha256 {recorded}, here {here})")
            })
        }
    }
}

/// Every file under `dir`, relative to it.
fn files(dir: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files(&path, base, out);
        } else {
            out.push(path.strip_prefix(base).unwrap().to_path_buf());
        }
    }
}

#[test]
fn regenerating_changes_nothing() {
    let scratch =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("regen-{}", std::process::id()));
    let mut stale = Vec::new();
    let mut compared = 0;
    for part in [
        "abi",
        "ioctls",
        "netlink",
        "usbmon",
        "usbdevfs",
        "user_events",
        "ata",
        "vt",
        "timex",
        "inet6_if",
        "x86_thread",
        "chrdev",
        "kdev",
        "numa",
        "proc_ns",
        "i386_entry",
        "syscalls",
    ] {
        if let Some(why) = skip_reason(part) {
            eprintln!("regenerate: part {part} SKIPPED: {why}");
            continue;
        }
        let out = scratch.join(part);
        let status = Command::new("sh")
            .arg(root().join("tools/regen"))
            .arg("--out")
            .arg(&out)
            .arg(part)
            .status()
            .expect("sh runs tools/regen");
        assert!(status.success(), "tools/regen --out DIR {part} failed");
        let mut made = Vec::new();
        files(&out, &out, &mut made);
        assert!(!made.is_empty(), "part {part} wrote nothing");
        for file in made {
            compared += 1;
            let fresh = std::fs::read_to_string(out.join(&file)).unwrap();
            let old = std::fs::read_to_string(root().join(&file)).unwrap_or_default();
            if fresh != old {
                stale.push(file.display().to_string());
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        stale.is_empty(),
        "these generated files differ from what tools/regen makes now: run tools/regen\n{stale:#?}"
    );
    eprintln!("regenerate: {compared} generated files compared");
}

#[test]
fn an_unknown_part_is_a_clear_error() {
    let out = Command::new("sh")
        .arg(root().join("tools/regen"))
        .arg("--out")
        .arg(std::env::temp_dir())
        .arg("bogus")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "regen: unknown part 'bogus' (abi, ioctls, netlink, usbmon, usbdevfs, user_events, ata, vt, timex, inet6_if, x86_thread, chrdev, kdev, numa, proc_ns, i386_entry, syscalls)\n"
    );
}
