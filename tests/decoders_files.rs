//! Snapshot tests of the file and memory decoders: the fixture programs
//! `calls_files`, `calls_mem` and `calls_files_i386` make every call once
//! and the whole rendered lines are pinned here, in the default form and
//! with `-v`, `-V`, `-VV` and `-y`.
//!
//! A few values depend on the machine (what statx reports beyond the asked
//! mask, the filesystem's statfs numbers, inode numbers and times with
//! `-v`, pipe inodes with `-y`); those spots are written `$$` in the
//! expected lines and match any text. Everything else is exact.

mod common;

use common::{fixture, name, s, trace};
use std::path::{Path, PathBuf};

/// A fresh empty directory for a fixture to work in.
fn scratch(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("decoders-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Trace fixture `name` with `opts` (in a scratch directory given as its
/// argument when `with_dir`); the normalised lines from the marker on,
/// with the directory written `DIR`.
fn lines(name: &str, opts: &[&str], with_dir: bool) -> Vec<String> {
    let bin = fixture(name);
    let dir = scratch(&format!("{name}{}", opts.join("")));
    let shown = dir.display().to_string();
    let mut command = vec![bin.file_name().unwrap().to_str().unwrap()];
    if with_dir {
        command.push(&shown);
    }
    let run = trace(opts, &command);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let _ = std::fs::remove_dir_all(&dir);
    run.after_marker()
        .into_iter()
        .map(|l| l.replace(&shown, "DIR"))
        .collect()
}

/// Whether `line` matches `pattern`, where `$$` matches any text.
fn matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("$$").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || !line[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Every line must match its pattern, and there must be as many.
fn assert_lines(got: &[String], want: &[&str]) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            matches(w, g),
            "line {i} differs:\n  got:  {g}\n  want: {w}\n\nall lines:\n{}",
            got.join("\n")
        );
    }
    assert_eq!(got.len(), want.len(), "line count:\n{}", got.join("\n"));
}

/// Each pattern must match one of the lines, in this order.
fn assert_contains_in_order(got: &[String], want: &[&str]) {
    let mut at = 0;
    for w in want {
        match got[at..].iter().position(|g| matches(w, g)) {
            Some(i) => at += i + 1,
            None => panic!(
                "no line matches {w}\nafter line {at} of:\n{}",
                got.join("\n")
            ),
        }
    }
}

#[test]
fn wildcards_match_what_they_should() {
    assert!(matches("a$$c", "abbc"));
    assert!(matches("a$$c$$e", "abcde"));
    assert!(!matches("a$$c", "abbd"));
    assert!(matches("abc", "abc"));
    assert!(!matches("a$$bc", "abc".get(..2).unwrap()));
}

#[test]
fn file_calls() {
    assert_lines(&lines("calls_files", &[], true), FILES);
}

#[test]
fn memory_calls() {
    assert_lines(&lines("calls_mem", &[], false), MEM);
}

#[test]
fn i386_layouts_and_split_offsets() {
    assert_lines(&lines("calls_files_i386", &[], true), FILES_I386);
}

/// `-v`: every struct field; directory entries one by one.
#[test]
fn verbose_structs() {
    let got = lines("calls_files", &["-v"], true);
    let time = "st_atime=$$, st_atime_nsec=$$, st_mtime=$$, st_mtime_nsec=$$, st_ctime=$$, st_ctime_nsec=$$";
    let file = format!(
        "{{st_dev=makedev($$), st_ino=$$, st_mode=S_IFREG|0644, st_nlink=1, st_uid=$$, \
         st_gid=$$, st_blksize=$$, st_blocks=$$, st_size=16, {time}}}"
    );
    let dirent = "{d_ino=$$, d_off=$$, d_reclen=24, d_type=DT_DIR, d_name=$$}";
    assert_contains_in_order(
        &got,
        &[
            &format!("stat(\"f1\", {file}) = 0"),
            &format!("fstat(5, {file}) = 0"),
            &format!("newfstatat(5, \"\", {file}, AT_EMPTY_PATH) = 0"),
            &format!(
                "stat(\"/dev/null\", {{st_dev=makedev($$), st_ino=$$, st_mode=S_IFCHR|0666, \
                 st_nlink=1, st_uid=0, st_gid=0, st_blksize=$$, st_blocks=0, \
                 st_rdev=makedev(0x1, 0x3), {time}}}) = 0"
            ),
            "statx(5, \"\", AT_EMPTY_PATH|AT_STATX_DONT_SYNC, STATX_ALL, \
             {stx_mask=STATX_$$, stx_blksize=$$, stx_attributes=$$, stx_nlink=1, \
             stx_uid=$$, stx_gid=$$, stx_mode=S_IFREG|0644, stx_ino=$$, stx_size=16, \
             stx_blocks=$$, stx_attributes_mask=$$, stx_atime={tv_sec=$$, tv_nsec=$$} /* $$ */, \
             $$stx_ctime={tv_sec=$$, tv_nsec=$$} /* $$ */, \
             stx_mtime={tv_sec=$$, tv_nsec=$$} /* $$ */, stx_rdev_major=0, stx_rdev_minor=0, \
             stx_dev_major=$$, stx_dev_minor=$$}) = 0",
            &format!("getdents64(5, [{dirent}, {dirent}, {dirent}], 4096) = 72"),
            "getdents64(5, [], 4096) = 0",
            &format!("getdents(5, [{dirent}, {dirent}, {dirent}], 4096) = 72"),
        ],
    );
    let mem = lines("calls_mem", &["-v"], false);
    assert!(mem.contains(&"mincore(&ADDR, 8192, [0, 0]) = 0".to_string()));
}

/// `-V`: numbers for every symbol, flag set and mode.
#[test]
fn values_only() {
    let got = lines("calls_files", &["-V"], true);
    assert_contains_in_order(
        &got,
        &[
            "open(\"f1\", 0x241, 0644) = 3",
            "pwritev2(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2, 0, 0x6) = 4",
            "lseek(3, -2, 2) = 14",
            "openat(-100, \"f1\", 0x0) = 3",
            "openat2(-100, \"f1\", {flags=0x80000, resolve=0x8}, 24) = 6",
            "close_range(6, 4294967295, 0x4) = 0",
            "stat(\"f1\", {st_mode=0100644, st_size=16, ..}) = 0",
            "stat(\"/dev/null\", {st_mode=020666, st_rdev=0x103, ..}) = 0",
            "statx(-100, \"f1\", 0x0, 0x201, {stx_mask=$$, stx_attributes=0x0, stx_mode=0100644, stx_size=16, ..}) = 0",
            "statfs(\".\", {f_type=0x$$, f_flags=0x$$}) = 0",
            "access(\"f1\", 0x6) = 0",
            "faccessat2(-100, \"f1\", 0x4, 0x300) = 0",
            "renameat2(-100, \"h4\", -100, \"h2\", 0x1) = -1 [17]",
            "unlinkat(-100, \"d/e\", 0x200) = 0",
            "utimensat(-100, \"l1\", [{tv_sec=5, tv_nsec=1073741822}, {tv_sec=3, tv_nsec=4} /* 1970-01-01T00:00:03.000000004+0000 */], 0x100) = 0",
            "umask(077) = 18",
            "mount(\"none\", \"/nonexistent\", \"tmpfs\", 0x6, &0x1) = -1 [14]",
            "fcntl(5, 1) = 1",
            "fcntl(5, 3) = 32770",
            "fcntl(5, 6, {l_type=1, l_whence=0, l_start=0, l_len=4}) = 0",
            "fcntl(5, 1036, [2]) = 0",
            "flock(5, 0x5) = 0",
            "pipe2([8, 9], 0x80800) = 0",
            "memfd_create(\"calls\", 0x3) = 10",
            "fallocate(10, 0x3, 0, 4096) = 0",
            "splice(7, NULL, 6, [0], 6, 0x5) = 6 {off_out=[6]}",
            "inotify_add_watch(11, \".\", 0x1000300) = 1",
        ],
    );
    let mem = lines("calls_mem", &["-V"], false);
    assert_contains_in_order(
        &mem,
        &[
            "mmap(NULL, 16384, 0x3, 0x22, -1, 0x0) = ADDR",
            "mprotect(&ADDR, 4096, 0x0) = 0",
            "madvise(&ADDR, 8192, 4) = 0",
            "mlockall(0x6) = 0",
        ],
    );
}

/// `-VV`: structs and arrays as their addresses.
#[test]
fn struct_addresses() {
    let got = lines("calls_files", &["-VV"], true);
    assert_contains_in_order(
        &got,
        &[
            "writev(3, &ADDR, 2) = 4",
            "openat2(-100, \"f1\", &ADDR, 24) = 6",
            "stat(\"f1\", &ADDR) = 0",
            "statx(-100, \"f1\", 0x0, 0x201, &ADDR) = 0",
            "getdents64(5, &ADDR, 4096) = 72",
            "fcntl(5, 6, &ADDR) = 0",
            "pipe(&ADDR) = 0",
            "sendfile(8, 5, &ADDR, 3) = 3",
        ],
    );
}

/// `-y`: fds with what they are, which needs the fd table kept for every
/// call that makes one: open (a relative path is resolved), pipe, dup,
/// fcntl F_DUPFD, memfd_create, inotify_init1.
#[test]
fn fd_paths() {
    let got = lines("calls_files", &["-y"], true);
    assert_contains_in_order(
        &got,
        &[
            "write(3<DIR/f1>, \"hello world\\n\", 12) = 12",
            "close(3<DIR/f1>) = 0",
            // AT_FDCWD is the working directory, a new fd its file.
            "openat(AT_FDCWD<DIR>, \"f1\", O_RDONLY) = 3<DIR/f1>",
            "newfstatat(5<DIR/f1>, \"\", {st_mode=S_IFREG|0644, st_size=16, ..}, AT_EMPTY_PATH) = 0",
            "getdents64(5<DIR/d>, &ADDR /* 3 entries */, 4096) = 72",
            "fcntl(5<DIR/f1>, F_DUPFD_CLOEXEC, 0) = 6<DIR/f1>",
            "dup(5<DIR/f1>) = 7<DIR/f1>",
            "dup3(5<DIR/f1>, 21, O_CLOEXEC) = 21<DIR/f1>",
            "dup3(5<DIR/f1>, 5<DIR/f1>, 0) = -1 [EINVAL]",
            "fcntl(6<pipe:[$$]>, F_SETPIPE_SZ, 65536) = 65536",
            // Both ends of a new pipe, each with its path.
            "pipe2([8<pipe:[$$]>, 9<pipe:[$$]>], O_NONBLOCK|O_CLOEXEC) = 0",
            "fcntl(10</memfd:calls (deleted)>, F_ADD_SEALS, F_SEAL_SHRINK|F_SEAL_GROW) = 0",
            "fallocate(10</memfd:calls (deleted)>, 0, 0, 8192) = 0",
            // Closed fds are forgotten: after close_range the numbers
            // are reused by other files.
            "sendfile(8<pipe:[$$]>, 5<DIR/f1>, NULL, 3) = 3",
            "tee(7<pipe:[$$]>, 10<pipe:[$$]>, 2, SPLICE_F_NONBLOCK) = 2",
            "splice(7<pipe:[$$]>, NULL, 6<DIR/f3>, [0], 6, SPLICE_F_MOVE|SPLICE_F_MORE) = 6 {off_out=[6]}",
            "inotify_rm_watch(11<anon_inode:inotify>, 1) = 0",
        ],
    );
}

/// `--json`: the same primitives give structured values; what the text
/// prints after a result in parentheses goes to `returned`.
#[test]
fn json_values() {
    let bin = fixture("calls_files");
    let dir = scratch("calls_files-json");
    let shown = dir.display().to_string();
    let run = trace(
        &["--json"],
        &[bin.file_name().unwrap().to_str().unwrap(), &shown],
    );
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let _ = std::fs::remove_dir_all(&dir);
    let objs: Vec<serde_json::Value> = run
        .trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let find = |name: &str, pred: &dyn Fn(&serde_json::Value) -> bool| {
        objs.iter()
            .find(|o| o["type"] == "call" && o["name"] == name && pred(o))
            .unwrap_or_else(|| panic!("no {name} call matches"))
            .clone()
    };
    let getfl = find("fcntl", &|o| o["args"]["cmd"]["name"] == "F_GETFL");
    assert_eq!(getfl["args"]["fd"], 5);
    assert_eq!(
        getfl["returned"]["flags"],
        serde_json::json!({"value": 32770, "flags": ["O_RDWR", "O_LARGEFILE"]})
    );
    let umask = find("umask", &|o| o["args"]["mask"] == "077");
    assert_eq!(umask["returned"]["old_mask"], "022");
    let null = find("stat", &|o| o["args"]["pathname"] == "/dev/null");
    assert_eq!(
        null["args"]["statbuf"]["st_rdev"],
        serde_json::json!({"major": 1, "minor": 3})
    );
    let pipe = find("pipe", &|_| true);
    assert_eq!(pipe["args"]["pipefd"], serde_json::json!([6, 7]));
    let dents = find("getdents64", &|o| o["result"] == 72);
    assert_eq!(
        dents["args"]["dirp"],
        serde_json::json!({"entries": 3, "..": true})
    );
}

const FILES: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "open(\"f1\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3",
    "write(3, \"hello world\\n\", 12) = 12",
    "pwrite64(3, \"HE\", 2, 0) = 2",
    "writev(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2) = 4",
    "pwritev(3, [{iov_base=\"ab\", iov_len=2}], 1, 2) = 2",
    "pwritev2(3, [{iov_base=\"ab\", iov_len=2}, {iov_base=\"cd\", iov_len=2}], 2, 0, RWF_DSYNC|RWF_SYNC) = 4",
    "lseek(3, 0, SEEK_SET) = 0",
    "lseek(3, -2, SEEK_END) = 14",
    "lseek(3, 0, 99) = -1 [EINVAL]",
    "write(3, &0x1, 4) = -1 [EFAULT]",
    "close(3) = 0",
    "close(99) = -1 [EBADF]",
    "openat(AT_FDCWD, \"f1\", O_RDONLY) = 3",
    "read(3, \"abcdo\", 5) = 5",
    "pread64(3, \"worl\", 4, 6) = 4",
    "readv(3, [{iov_base=\" wo\", iov_len=3}, {iov_base=\"rld\", iov_len=3}], 2) = 6",
    "preadv(3, [{iov_base=\"bcd\", iov_len=3}], 1, 1) = 3",
    "preadv2(3, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"do \", iov_len=3}], 2, 0, RWF_HIPRI) = 6",
    "read(3, \"\\nabcd\", 16) = 5",
    "read(-1, &ADDR, 1) = -1 [EBADF]",
    "openat(AT_FDCWD, \"missing\", O_RDONLY|O_DIRECTORY) = -1 [ENOENT]",
    "openat(AT_FDCWD, \"new\", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 4",
    "creat(\"f2\", 0640) = 5",
    "openat2(AT_FDCWD, \"f1\", {flags=O_RDONLY|O_CLOEXEC, resolve=RESOLVE_BENEATH}, 24) = 6",
    "openat2(AT_FDCWD, \"f1\", &ADDR, 8) = -1 [EINVAL]",
    "close_range(6, ~0U, CLOSE_RANGE_CLOEXEC) = 0",
    "close_range(5, ~0U, 0) = 0",
    "close_range(5, 4, 0) = -1 [EINVAL]",
    "open(\"f1\", O_RDONLY) = 5",
    "stat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "lstat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "fstat(5, {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "stat(\"missing\", &ADDR) = -1 [ENOENT]",
    "fstat(-1, &ADDR) = -1 [EBADF]",
    "newfstatat(AT_FDCWD, \"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}, AT_SYMLINK_NOFOLLOW) = 0",
    "newfstatat(5, \"\", {st_mode=S_IFREG|0644, st_size=16, ..}, AT_EMPTY_PATH) = 0",
    "stat(\"/dev/null\", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ..}) = 0",
    "stat(\".\", &0x1) = -1 [EFAULT]",
    "statx(AT_FDCWD, \"f1\", AT_STATX_SYNC_AS_STAT, STATX_TYPE|STATX_SIZE, {stx_mask=STATX_TYPE|$$, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=16, ..}) = 0",
    "statx(5, \"\", AT_EMPTY_PATH|AT_STATX_DONT_SYNC, STATX_ALL, {stx_mask=STATX_$$, stx_attributes=0, stx_mode=S_IFREG|0644, stx_size=16, ..}) = 0",
    "statx(AT_FDCWD, \"missing\", AT_STATX_SYNC_AS_STAT|AT_SYMLINK_NOFOLLOW, STATX_ALL, &ADDR) = -1 [ENOENT]",
    "statfs(\".\", {f_type=$$, f_bsize=$$, f_blocks=$$, f_bfree=$$, f_bavail=$$, f_files=$$, f_ffree=$$, f_fsid={val=[$$, $$]}, f_namelen=$$, f_frsize=$$, f_flags=$$}) = 0",
    "fstatfs(-1, &ADDR) = -1 [EBADF]",
    "access(\"f1\", R_OK|W_OK) = 0",
    "access(\"missing\", F_OK) = -1 [ENOENT]",
    "faccessat(AT_FDCWD, \"f1\", X_OK) = -1 [EACCES]",
    "faccessat2(AT_FDCWD, \"f1\", R_OK, AT_EACCESS|AT_SYMLINK_NOFOLLOW) = 0",
    "close(5) = 0",
    "mkdir(\"d\", 0755) = 0",
    "mkdirat(AT_FDCWD, \"d/e\", 0700) = 0",
    "mkdir(\"d\", 0755) = -1 [EEXIST]",
    "open(\"d\", O_RDONLY|O_DIRECTORY) = 5",
    "getdents64(5, &ADDR /* 3 entries */, 4096) = 72",
    "getdents64(5, &ADDR /* 0 entries */, 4096) = 0",
    "getdents64(-1, &ADDR, 4096) = -1 [EBADF]",
    "lseek(5, 0, SEEK_SET) = 0",
    "getdents(5, &ADDR /* 3 entries */, 4096) = 72",
    "close(5) = 0",
    "symlink(\"f1\", \"l1\") = 0",
    "readlink(\"l1\", \"f1\", 64) = 2",
    "readlinkat(AT_FDCWD, \"l1\", \"f\", 1) = 1",
    "readlink(\"f1\", &ADDR, 64) = -1 [EINVAL]",
    "symlinkat(\"f1\", AT_FDCWD, \"l2\") = 0",
    "link(\"f1\", \"h1\") = 0",
    "linkat(AT_FDCWD, \"f1\", AT_FDCWD, \"h2\", 0) = 0",
    "rename(\"h1\", \"h3\") = 0",
    "renameat(AT_FDCWD, \"h3\", AT_FDCWD, \"h4\") = 0",
    "renameat2(AT_FDCWD, \"h4\", AT_FDCWD, \"h2\", RENAME_NOREPLACE) = -1 [EEXIST]",
    "unlink(\"h4\") = 0",
    "unlinkat(AT_FDCWD, \"h2\", 0) = 0",
    "unlinkat(AT_FDCWD, \"d/e\", AT_REMOVEDIR) = 0",
    "unlinkat(AT_FDCWD, \"d\", 0) = -1 [EISDIR]",
    "unlink(\"l2\") = 0",
    "mknodat(AT_FDCWD, \"p1\", S_IFIFO|0644, 0x0) = 0",
    "mknod(\"p2\", S_IFIFO|S_ISVTX|0600, 0x0) = 0",
    "mknod(\"f4\", 0640, 0x0) = 0",
    "mknodat(AT_FDCWD, \"missing/null\", S_IFCHR|0666, makedev(0x1, 0x3)) = -1 [ENOENT]",
    "mknod(\"missing/sda\", S_IFBLK|0660, makedev(0x8, 0x12345)) = -1 [ENOENT]",
    "unlink(\"p1\") = 0",
    "unlink(\"p2\") = 0",
    "unlink(\"f4\") = 0",
    "open(\"f1\", O_RDWR) = 5",
    "chmod(\"f1\", 0600) = 0",
    "fchmod(5, 0644) = 0",
    "fchmodat(AT_FDCWD, \"f1\", 04755) = 0",
    "chown(\"f1\", -1, -1) = 0",
    "fchown(5, -1, -1) = 0",
    "lchown(\"l1\", -1, -1) = 0",
    "fchownat(AT_FDCWD, \"f1\", -1, -1, AT_SYMLINK_NOFOLLOW) = 0",
    "truncate(\"f1\", 10) = 0",
    "ftruncate(5, 8) = 0",
    "truncate(\"missing\", 0) = -1 [ENOENT]",
    "fsync(5) = 0",
    "fdatasync(5) = 0",
    "fsync(-1) = -1 [EBADF]",
    "chdir(\"missing\") = -1 [ENOENT]",
    "fchdir(5) = -1 [ENOTDIR]",
    "getcwd(&ADDR, 1) = -1 [ERANGE]",
    "utimensat(AT_FDCWD, \"f1\", [{tv_sec=1, tv_nsec=2} /* 1970-01-01T00:00:01.000000002+0000 */, UTIME_NOW], 0) = 0",
    "utimensat(AT_FDCWD, \"l1\", [UTIME_OMIT, {tv_sec=3, tv_nsec=4} /* 1970-01-01T00:00:03.000000004+0000 */], AT_SYMLINK_NOFOLLOW) = 0",
    "utimensat(5, \"\", [UTIME_OMIT, {tv_sec=3, tv_nsec=4} /* 1970-01-01T00:00:03.000000004+0000 */], AT_EMPTY_PATH) = 0",
    "utimensat(5, NULL, NULL, 0) = 0",
    "utimensat(AT_FDCWD, \"f1\", &0x1, 0) = -1 [EFAULT]",
    "utimensat(AT_FDCWD, \"f1\", NULL, 0x2) = -1 [EINVAL]",
    "umask(077) = 18 (022)",
    "umask(022) = 63 (077)",
    "umask(03545) = 18 (022)",
    "umask(022) = 357 (0545)",
    "mount(\"none\", \"/nonexistent\", \"tmpfs\", MS_NOSUID|MS_NODEV, &0x1) = -1 [EFAULT]",
    "umount2(\"/nonexistent\", MNT_DETACH|0x100) = -1 [EINVAL]",
    "close(5) = 0",
    "open(\"f1\", O_RDWR) = 5",
    "fcntl(5, F_GETFD) = 0",
    "fcntl(5, F_SETFD, FD_CLOEXEC) = 0",
    "fcntl(5, F_GETFD) = 1 (FD_CLOEXEC)",
    "fcntl(5, F_GETFL) = 32770 (O_RDWR|O_LARGEFILE)",
    "fcntl(5, F_SETFL, O_RDONLY|O_APPEND|O_NONBLOCK) = 0",
    "fcntl(5, F_GETFL) = 35842 (O_RDWR|O_APPEND|O_NONBLOCK|O_LARGEFILE)",
    "fcntl(5, F_DUPFD, 10) = 10",
    "fcntl(5, F_DUPFD_CLOEXEC, 0) = 6",
    "fcntl(5, F_SETLK, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=4}) = 0",
    "fcntl(5, F_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=4, l_pid=0}) = 0",
    "fcntl(5, F_SETLKW, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=4}) = 0",
    "fcntl(5, F_OFD_SETLK, {l_type=F_RDLCK, l_whence=SEEK_SET, l_start=0, l_len=4}) = 0",
    "fcntl(5, F_OFD_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=4, l_pid=0}) = 0",
    "fcntl(5, F_GETLK, &0x1) = -1 [EFAULT]",
    "fcntl(5, F_SETOWN, 0) = 0",
    "fcntl(5, F_GETOWN) = 0",
    "fcntl(5, F_SETSIG, SIGUSR1) = 0",
    "fcntl(5, F_GETSIG) = 10 (SIGUSR1)",
    "fcntl(5, F_SETOWN_EX, {type=F_OWNER_PID, pid=0}) = 0",
    "fcntl(5, F_GETOWN_EX, {type=F_OWNER_PID, pid=0}) = 0",
    "fcntl(5, F_GETLEASE) = 2 (F_UNLCK)",
    "fcntl(5, F_NOTIFY, DN_CREATE|DN_MULTISHOT) = -1 [ENOTDIR]",
    "fcntl(5, F_SET_RW_HINT, [RWH_WRITE_LIFE_SHORT]) = 0",
    "fcntl(5, F_GET_RW_HINT, [RWH_WRITE_LIFE_SHORT]) = 0",
    "fcntl(5, 12345, 0x7) = -1 [EINVAL]",
    "flock(5, LOCK_SH|LOCK_NB) = 0",
    "flock(5, LOCK_UN) = 0",
    "dup(5) = 7",
    "dup2(5, 20) = 20",
    "dup3(5, 21, O_CLOEXEC) = 21",
    "dup3(5, 5, 0) = -1 [EINVAL]",
    "dup(-1) = -1 [EBADF]",
    "close_range(6, ~0U, 0) = 0",
    "pipe([6, 7]) = 0",
    "fcntl(6, F_SETPIPE_SZ, 65536) = 65536",
    "fcntl(6, F_GETPIPE_SZ) = 65536",
    "pipe2([8, 9], O_NONBLOCK|O_CLOEXEC) = 0",
    "pipe2(&0x1, 0) = -1 [EFAULT]",
    "memfd_create(\"calls\", MFD_CLOEXEC|MFD_ALLOW_SEALING) = 10",
    "fcntl(10, F_ADD_SEALS, F_SEAL_SHRINK|F_SEAL_GROW) = 0",
    "fcntl(10, F_GET_SEALS) = 6 (F_SEAL_SHRINK|F_SEAL_GROW)",
    "close(10) = 0",
    "memfd_create(\"calls\", 0) = 10",
    "fallocate(10, 0, 0, 8192) = 0",
    "fallocate(10, FALLOC_FL_KEEP_SIZE|FALLOC_FL_PUNCH_HOLE, 0, 4096) = 0",
    "fallocate(10, 0x100, 0, 4096) = -1 [EOPNOTSUPP]",
    "memfd_create(\"bad\", 0x100) = -1 [EINVAL]",
    "close_range(5, ~0U, 0) = 0",
    "open(\"f1\", O_RDONLY) = 5",
    "open(\"f3\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6",
    "pipe2([7, 8], 0) = 0",
    "pipe2([9, 10], 0) = 0",
    "sendfile(8, 5, NULL, 3) = 3",
    "sendfile(8, 5, [2], 3) = 3 {offset=[5]}",
    "tee(7, 10, 2, SPLICE_F_NONBLOCK) = 2",
    "splice(7, NULL, 6, [0], 6, SPLICE_F_MOVE|SPLICE_F_MORE) = 6 {off_out=[6]}",
    "copy_file_range(5, [0], 6, NULL, 4, 0) = 4 {off_in=[4]}",
    "sendfile(8, -1, NULL, 3) = -1 [EBADF]",
    "fadvise64(5, 0, 4096, POSIX_FADV_DONTNEED) = 0",
    "fadvise64(5, 4096, 0, POSIX_FADV_NOREUSE) = 0",
    "fadvise64(5, 0, 0, POSIX_FADV_SEQUENTIAL) = 0",
    "fadvise64(5, 0, 0, 99) = -1 [EINVAL]",
    "sync_file_range(6, 0, 4096, SYNC_FILE_RANGE_WAIT_BEFORE|SYNC_FILE_RANGE_WRITE|SYNC_FILE_RANGE_WAIT_AFTER) = 0",
    "sync_file_range(6, 4096, 0, SYNC_FILE_RANGE_WRITE) = 0",
    "sync_file_range(6, 0, 0, 0x8) = -1 [EINVAL]",
    "inotify_init1(IN_CLOEXEC) = 11",
    "inotify_add_watch(11, \".\", IN_CREATE|IN_DELETE|IN_ONLYDIR) = 1",
    "inotify_add_watch(11, \"missing\", IN_MODIFY) = -1 [ENOENT]",
    "inotify_rm_watch(11, 1) = 0",
    "inotify_rm_watch(11, 1) = -1 [EINVAL]",
    "close_range(5, 11, 0) = 0",
    "exit_group(0)",
    "Process exited normally with code 0",
];

const MEM: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "mmap(NULL, 16384, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = ADDR",
    "mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0x0) = ADDR",
    "mincore(&ADDR, 4096, [1]) = 0",
    "mincore(&ADDR, 8192, [0, 0]) = 0",
    "munmap(&ADDR, 8192) = 0",
    "mincore(&ADDR, 4096, &ADDR) = -1 [EINVAL]",
    "mprotect(&ADDR, 4096, PROT_READ) = 0",
    "mprotect(&ADDR, 4096, PROT_NONE) = 0",
    "mprotect(&ADDR, 4096, PROT_READ|PROT_WRITE|PROT_EXEC|PROT_GROWSDOWN) = -1 [EINVAL]",
    "pkey_mprotect(&ADDR, 4096, PROT_READ|PROT_WRITE, -1) = 0",
    "madvise(&ADDR, 8192, MADV_DONTNEED) = 0",
    "madvise(&ADDR, 4096, MADV_WILLNEED) = 0",
    "madvise(&ADDR, 4096, 999) = -1 [EINVAL]",
    "msync(&ADDR, 4096, MS_SYNC) = 0",
    "msync(&ADDR, 4096, MS_ASYNC|MS_INVALIDATE) = 0",
    "msync(&ADDR, 4096, MS_ASYNC|MS_SYNC) = -1 [EINVAL]",
    "mlock(&ADDR, 4096) = 0",
    "munlock(&ADDR, 4096) = 0",
    "mlock2(&ADDR, 4096, MLOCK_ONFAULT) = 0",
    "mlock2(&ADDR, 4096, 0x2) = -1 [EINVAL]",
    "munlock(&ADDR, 4096) = 0",
    "mlockall(MCL_FUTURE|MCL_ONFAULT) = 0",
    "munlockall() = 0",
    "mlockall(0) = -1 [EINVAL]",
    "mremap(&ADDR, 8192, 16384, MREMAP_MAYMOVE) = ADDR",
    "mremap(&ADDR, 4096, 4096, MREMAP_FIXED, &ADDR) = -1 [EINVAL]",
    "mremap(&ADDR, 16384, 4096, 0) = ADDR",
    "munmap(&ADDR, 4096) = 0",
    "munmap(&ADDR, 0) = -1 [EINVAL]",
    "munmap(&ADDR, 8192) = 0",
    "mmap(NULL, 0, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS|MAP_HUGE_2MB, -1, 0x0) = -1 [EINVAL]",
    "open(\"/dev/zero\", O_RDONLY) = 3",
    "mmap(NULL, 4096, PROT_READ, MAP_SHARED_VALIDATE, 3, 0x0) = ADDR",
    "munmap(&ADDR, 4096) = 0",
    "mmap(NULL, 8192, PROT_READ, MAP_SHARED|MAP_POPULATE, 3, 0x1000) = ADDR",
    "munmap(&ADDR, 8192) = 0",
    "mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, 99, 0x0) = -1 [EBADF]",
    "close(3) = 0",
    "brk(NULL) = ADDR",
    "brk(&ADDR) = ADDR",
    "brk(&ADDR) = ADDR",
    "exit_group(0)",
    "Process exited normally with code 0",
];

const FILES_I386: &[&str] = &[
    "write(-1, \"BEGIN\", 5) = -1 [EBADF]",
    "open(\"f1\", O_RDWR|O_CREAT|O_TRUNC, 0644) = 3",
    "write(3, \"0123456789abcdef\", 16) = 16",
    "stat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "stat(\"/dev/null\", {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ..}) = 0",
    "lstat(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "fstat(3, {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "stat64(\"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "fstat64(3, {st_mode=S_IFREG|0644, st_size=16, ..}) = 0",
    "fstatat64(AT_FDCWD, \"f1\", {st_mode=S_IFREG|0644, st_size=16, ..}, AT_SYMLINK_NOFOLLOW) = 0",
    "stat64(\"f1\", &0x1) = -1 [EFAULT]",
    "_llseek(3, 4, [4], SEEK_SET) = 0",
    "_llseek(3, 4294967296, [4294967296], SEEK_SET) = 0",
    "lseek(3, -2, SEEK_END) = 14",
    "pread64(3, \"2345\", 4, 2) = 4",
    "fcntl64(3, F_SETLK64, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=4294967296, l_len=10}) = 0",
    "fcntl64(3, F_GETLK64, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=4294967296, l_len=10, l_pid=0}) = 0",
    "fcntl64(3, F_OFD_GETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=4294967296, l_len=10, l_pid=0}) = 0",
    "fcntl(3, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = 0",
    "fcntl(3, F_GETLK, &ADDR) = -1 [EINVAL]",
    "ftruncate64(3, 8) = 0",
    "fallocate(3, FALLOC_FL_KEEP_SIZE, 0, 4096) = 0",
    "statfs(\".\", {f_type=$$, f_bsize=$$, f_blocks=$$, f_bfree=$$, f_bavail=$$, f_files=$$, f_ffree=$$, f_fsid={val=[$$, $$]}, f_namelen=$$, f_frsize=$$, f_flags=$$}) = 0",
    "statfs64(\".\", 84, {f_type=$$, f_bsize=$$, f_blocks=$$, f_bfree=$$, f_bavail=$$, f_files=$$, f_ffree=$$, f_fsid={val=[$$, $$]}, f_namelen=$$, f_frsize=$$, f_flags=$$}) = 0",
    "fstatfs64(3, 4, &ADDR) = -1 [EINVAL]",
    "mmap2(NULL, 4096, PROT_READ, MAP_PRIVATE, 3, 0x0) = ADDR",
    "munmap(&ADDR, 4096) = 0",
    "mmap({addr=NULL, length=4096, prot=PROT_READ, flags=MAP_SHARED, fd=3, offset=0x0}) = ADDR",
    "munmap(&ADDR, 4096) = 0",
    "fadvise64(3, 4294967296, 4096, POSIX_FADV_DONTNEED) = 0",
    "fadvise64_64(3, 4096, 4294967296, POSIX_FADV_NOREUSE) = 0",
    "sync_file_range(3, 4294967296, 4096, SYNC_FILE_RANGE_WRITE) = 0",
    "open(\"/dev/null\", O_WRONLY) = 4",
    "sendfile(4, 3, [1], 3) = 3 {offset=[4]}",
    "close(4) = 0",
    "close(3) = 0",
    "utimensat(AT_FDCWD, \"f1\", [{tv_sec=1, tv_nsec=2} /* 1970-01-01T00:00:01.000000002+0000 */, UTIME_NOW], AT_SYMLINK_NOFOLLOW) = 0",
    "utimensat_time64(AT_FDCWD, \"f1\", [UTIME_OMIT, {tv_sec=8589934592, tv_nsec=4} /* 2242-03-16T12:56:32.000000004+0000 */], 0) = 0",
    "mknod(\"missing/null\", S_IFCHR|0666, makedev(0x1, 0x3)) = -1 [ENOENT]",
    "mknodat(AT_FDCWD, \"missing/null\", S_IFIFO|0644, 0x0) = -1 [ENOENT]",
    "exit_group(0)",
    "Process exited normally with code 0",
];

#[test]
fn narrow_words_and_shared_flag_bits() {
    let bin = fixture("flag_tables");
    let run = trace(&[], &[name(&bin)]);
    assert_eq!(run.code(), Some(0), "{}", run.stderr());
    let lines = run.after_marker();
    assert_eq!(
        lines[1..11],
        s(&[
            "open(\"sync\", O_WRONLY|O_CREAT|O_SYNC, 0600) = 3",
            "close(3) = 0",
            "open(\"dsync\", O_WRONLY|O_CREAT|O_DSYNC, 0600) = 3",
            "close(3) = 0",
            "open(\"wide\", O_WRONLY|O_CREAT, 0640) = 3",
            "close(3) = 0",
            "mkdir(\"sub\", 0755) = 0",
            "accept4(-1, NULL, NULL, SOCK_NONBLOCK|0x3) = -1 [EBADF]",
            "sched_get_priority_min(SCHED_FIFO|0x40000000) = -1 [EINVAL]",
            "unlinkat(AT_FDCWD, \"none\", 0x2000) = -1 [EINVAL]",
        ]),
        "{lines:#?}"
    );
}

/// `-v` details: stat times with their dates as comments, statx fields
/// only where its mask marks them valid (no creation time the filesystem
/// did not give), and the signal mask rt_sigreturn restores.
#[test]
fn verbose_dates_statx_mask_and_sigreturn_mask() {
    let got = lines("verbose_details", &["-v"], true);
    let statx = got.iter().find(|l| l.starts_with("statx(")).unwrap();
    // Whether the filesystem gives creation times is its choice; a time
    // is shown exactly when the answer's mask says it is valid.
    assert_eq!(
        statx.contains("stx_btime="),
        statx.contains("STATX_BTIME") || statx.contains("STATX_ALL"),
        "{statx}"
    );
    let btime = if statx.contains("stx_btime=") {
        "stx_btime=$$, "
    } else {
        ""
    };
    let atime = "1700000000 /* 2023-11-14T22:13:20.123456789+0000 */";
    let mtime = "1000000000 /* 2001-09-09T01:46:40+0000 */";
    let expected = [
        "write(-1, \"BEGIN\", 5) = -1 [EBADF]".to_string(),
        "utimensat(AT_FDCWD, \"f\", [{tv_sec=1700000000, tv_nsec=123456789} \
         /* 2023-11-14T22:13:20.123456789+0000 */, {tv_sec=1000000000, tv_nsec=0} \
         /* 2001-09-09T01:46:40+0000 */], 0) = 0"
            .into(),
        format!(
            "newfstatat(AT_FDCWD, \"f\", {{st_dev=makedev($$), st_ino=$$, st_mode=S_IFREG|0644, \
             st_nlink=1, st_uid=$$, st_gid=$$, st_blksize=$$, st_blocks=0, st_size=0, \
             st_atime={atime}, st_atime_nsec=123456789, st_mtime={mtime}, st_mtime_nsec=0, \
             st_ctime=$$ /* $$ */, st_ctime_nsec=$$}}, 0) = 0"
        ),
        format!(
            "statx(AT_FDCWD, \"f\", AT_STATX_SYNC_AS_STAT, STATX_MTIME, {{stx_mask=$$, \
             stx_atime={{tv_sec=1700000000, tv_nsec=123456789}} \
             /* 2023-11-14T22:13:20.123456789+0000 */, {btime}stx_ctime={{$$}} /* $$ */, \
             stx_mtime={{tv_sec=1000000000, tv_nsec=0}} /* 2001-09-09T01:46:40+0000 */, \
             stx_rdev_major=0, $$}}) = 0"
        ),
        "kill($$, SIGUSR1) = 0".into(),
        "** SIGUSR1 {si_code=SI_USER, si_pid=$$, si_uid=$$} **".into(),
        "rt_sigreturn({mask=[USR2 PIPE RTMIN+2]}) = 0".into(),
        "kill($$, SIGHUP) = 0".into(),
        "** SIGHUP {si_code=SI_USER, si_pid=$$, si_uid=$$} **".into(),
        "rt_sigreturn({mask=[USR2 PIPE RTMIN+2]}) = 0".into(),
        "exit_group(0)".into(),
        "Process exited normally with code 0".into(),
    ];
    let want: Vec<&str> = expected.iter().map(String::as_str).collect();
    assert_lines(&got, &want);
    // Without -v none of it but utimensat's dates and the restored mask,
    // which strace shows always (the lines are whole above).
    let plain = lines("verbose_details", &[], true);
    assert_eq!(plain[1], want[1], "{plain:?}");
    assert!(plain.iter().skip(2).all(|l| !l.contains("/*")), "{plain:?}");
    assert!(plain.contains(&want[6].to_string()), "{plain:?}");
}
