//! What rtrace follows and what `-y` shows do not depend on what is
//! printed: the fd table is bookkeeping, kept for every call whatever
//! `-e trace=` selects, and `-y` prints what the kernel says an fd is at
//! the moment the line is printed.

mod common;

use common::{fixture, name, s, scratch_path, trace};

/// `fd_truth` in a scratch directory with `real/` and `link -> real`,
/// traced with `-y` and `set`: its lines from the marker on, and the
/// directory as the kernel names it (canonical).
fn fd_truth(set: &str) -> (Vec<String>, String) {
    let bin = fixture("fd_truth");
    let dir = scratch_path("bookkeeping", "fd-truth");
    std::fs::create_dir_all(dir.join("real")).unwrap();
    std::os::unix::fs::symlink("real", dir.join("link")).unwrap();
    let real = std::fs::canonicalize(&dir).unwrap();
    let arg = dir.display().to_string();
    let run = trace(&["-y", "-e", set], &[name(&bin), &arg]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let _ = std::fs::remove_dir_all(&dir);
    (run.after_marker(), real.display().to_string())
}

/// The lines every selection shows: the writes and closes, each fd as the
/// kernel names it when the line is printed (through the symlink: the
/// real directory; unlinked: `(deleted)`; renamed: the new name), and a
/// close of an fd that is gone: its number only.
fn kernel_view(d: &str) -> Vec<String> {
    s(&[
        &format!("write(3<{d}/real/a>, \"a\", 1) = 1"),
        &format!("write(4<{d}/real/b (deleted)>, \"b\", 1) = 1"),
        &format!("write(5<{d}/real/d>, \"c\", 1) = 1"),
        &format!("close(3<{d}/real/a>) = 0"),
        &format!("close(4<{d}/real/b (deleted)>) = 0"),
        &format!("close(5<{d}/real/d>) = 0"),
        "close(3) = -1 [EBADF]",
        "Process exited normally with code 0",
    ])
}

#[test]
fn y_shows_the_kernels_file_without_the_opens_traced() {
    let (lines, d) = fd_truth("trace=write,close");
    let mut expected = s(&["write(-1, \"BEGIN\", 5) = -1 [EBADF]"]);
    expected.extend(kernel_view(&d));
    assert_eq!(lines, expected);
}

#[test]
fn y_shows_the_kernels_file_with_the_opens_traced() {
    let (lines, d) = fd_truth("trace=openat,unlink,rename,write,close");
    // AT_FDCWD is the working directory the fixture was started in, and
    // each new fd the file the kernel opened.
    let cwd = std::fs::canonicalize(std::env::current_dir().unwrap()).unwrap();
    let cwd = cwd.display();
    let arg = lines[1]
        .strip_prefix(&format!("openat(AT_FDCWD<{cwd}>, \""))
        .and_then(|l| l.split_once("/link/a\""))
        .map(|(dir, _)| dir.to_string())
        .unwrap_or_else(|| panic!("{lines:#?}"));
    let at = format!("AT_FDCWD<{cwd}>");
    let mut expected = s(&[
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
        &format!("openat({at}, \"{arg}/link/a\", O_WRONLY|O_CREAT, 0600) = 3<{d}/real/a>"),
        &format!("openat({at}, \"{arg}/real/b\", O_WRONLY|O_CREAT, 0600) = 4<{d}/real/b>"),
        &format!("openat({at}, \"{arg}/real/c\", O_WRONLY|O_CREAT, 0600) = 5<{d}/real/c>"),
        &format!("unlink(\"{arg}/real/b\") = 0"),
        &format!("rename(\"{arg}/real/c\", \"{arg}/real/d\") = 0"),
    ]);
    expected.extend(kernel_view(&d));
    assert_eq!(lines, expected);
}
