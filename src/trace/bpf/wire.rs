//! The records of rtrace's BPF program, as they arrive through the ring
//! buffer: a fixed header (`struct rt_event` in bpf/rtrace.h) and the
//! pieces of tracee memory copied with it (`struct rt_capture`, each
//! followed by its bytes padded to 8). The structs here mirror the C ones
//! field for field; a unit test checks their sizes.

use crate::kernel::Snapshot;

/// `RT_ENTER`: a system call's entry.
pub const ENTER: u16 = 1;
/// `RT_LEAVE`: its exit.
pub const LEAVE: u16 = 2;
/// `RT_FORK`: the task created a task (`nr`; `args[0]` its tgid).
pub const FORK: u16 = 3;
/// `RT_EXEC`: the task exec'd (`nr`: the tid it had before).
pub const EXEC: u16 = 4;
/// `RT_EXIT`: the task exited (`nr`: its wait status).
pub const EXIT: u16 = 5;
/// `RT_SIGNAL`: the task takes signal `nr` (`args`: its siginfo).
pub const SIGNAL: u16 = 6;
/// `RT_SIGNAL_LOST`: signal `nr` to the task was discarded as ignored.
pub const SIGNAL_IGNORED: u16 = 7;
/// `RT_HELD`: (lossless mode) the task's process was stopped until read.
pub const HELD: u16 = 8;

/// `RT_COMPAT`: an i386 call.
pub const COMPAT: u16 = 1;
/// `RT_REFETCH`: an entry capture failed; the exit record carries it.
pub const REFETCH: u16 = 2;
/// `RT_DYING`: (an exit) the call failed because its task is being killed;
/// it never returns to user space.
pub const DYING: u16 = 4;
/// `RT_WHOLE`: (an exit) the call's entry sent no record (a call that
/// cannot block, with nothing to copy there): this one is the whole call.
pub const WHOLE: u16 = 8;
/// `RT_AT_ENTER`.
const AT_ENTER: u8 = 1;

/// `RT_ARG_FILE_ID`: the piece is a file's identity (`struct
/// rt_file_id`: device, inode, filesystem magic, an anonymous inode's
/// name), its address the fd.
const ARG_FILE_ID: u8 = 253;

/// `RT_FILE_NAME`: the bytes of an anonymous inode's name in `struct
/// rt_file_id`.
const FILE_NAME: usize = crate::kernel::FILE_NAME;

/// `RT_ARG_DIRENTS`: the piece, without bytes, is the number of entries a
/// getdents call returned, in its address.
const ARG_DIRENTS: u8 = 254;

/// `RT_ARG_EXEC_ARGS`, `RT_ARG_EXEC_ENV`: a successful exec's new
/// argument and environment strings, one after another with their NULs.
const ARG_EXEC_ARGS: u8 = 252;
const ARG_EXEC_ENV: u8 = 251;
/// `RT_ARG_EXEC_FILE`: the file name the exec was given, as a string.
const ARG_EXEC_FILE: u8 = 250;
// (`RT_ARG_WORD`, 249: memory the program copied of its own accord, a
// user_events enable word at a write, is an ordinary piece, read by its
// address like an argument's.)

const PIECE_FAULT: u16 = 1;
const PIECE_TERMINATED: u16 = 2;
const PIECE_TRUNCATED: u16 = 4;

/// `struct rt_event`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Header {
    /// One of the record kinds above.
    pub kind: u16,
    /// [`COMPAT`].
    pub flags: u16,
    /// Bytes of the record, captures included.
    pub size: u32,
    /// The task.
    pub tid: u32,
    /// Its thread group.
    pub tgid: u32,
    /// bpf_ktime_get_ns (CLOCK_MONOTONIC) when the kernel saw it.
    pub time: u64,
    /// The call number, or the kind's own value.
    pub nr: i64,
    /// The argument registers (or a siginfo's 48 bytes).
    pub args: [u64; 6],
    /// The return value (`LEAVE`).
    pub ret: i64,
    /// The instruction pointer.
    pub ip: u64,
    /// The stack pointer.
    pub sp: u64,
    /// Records this CPU dropped (ring full) since its previous one.
    pub lost: u32,
    /// How many captures follow.
    pub ncaps: u16,
    /// The CPU it came from.
    pub cpu: u16,
}

/// `struct rt_capture`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct PieceHeader {
    addr: u64,
    len: u32,
    flags: u16,
    arg: u8,
    when: u8,
}

/// The bytes an entry's snapshot keeps free for its exit's pieces: a
/// `struct statx` (256 bytes, the largest of the stat buffers).
const EXIT_ROOM: usize = 256;

/// One record taken apart.
pub struct Record {
    /// Its header.
    pub head: Header,
    /// The memory copied with it.
    pub snapshot: Snapshot,
    /// In an exit record: the entry's captures that failed at the entry,
    /// taken again.
    pub late: Snapshot,
    /// In a successful exec's exit whose entry could not copy a string:
    /// the new program's argument strings, environment strings and the
    /// file name the kernel was given, each where it was copied whole
    /// (`exec_strings::fill` finds the lost ones there).
    pub exec_strings: [Option<Vec<u8>>; 3],
}

fn read<T: Copy + Default>(bytes: &[u8]) -> Option<T> {
    if bytes.len() < std::mem::size_of::<T>() {
        return None;
    }
    let mut v = T::default();
    // SAFETY: T is a plain repr(C) struct of integers (every bit pattern
    // valid) and `bytes` holds at least its size.
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            (&mut v as *mut T).cast::<u8>(),
            std::mem::size_of::<T>(),
        );
    }
    Some(v)
}

/// Take a record apart; `None` for one too short to be a record.
pub fn parse(bytes: &[u8]) -> Option<Record> {
    let head: Header = read(bytes)?;
    let end = (head.size as usize).min(bytes.len());
    // Room for every piece's bytes (and a NUL each): the copy below
    // allocates once. An entry's also has room for what its exit
    // usually adds (a stat buffer after a path), which joins it without
    // growing it.
    let room = (end.saturating_sub(std::mem::size_of::<Header>())) + head.ncaps as usize;
    let room = match head.ncaps {
        0 => 0,
        _ if head.kind == ENTER => room + EXIT_ROOM,
        _ => room,
    };
    let mut snapshot = Snapshot::with_capacity(room);
    let mut late = Snapshot::default();
    let mut exec_strings = [None, None, None];
    let mut at = std::mem::size_of::<Header>();
    for _ in 0..head.ncaps {
        let Some(piece) = read::<PieceHeader>(bytes.get(at..end)?) else {
            break;
        };
        at += std::mem::size_of::<PieceHeader>();
        let len = piece.len as usize;
        let Some(data) = bytes.get(at..at + len) else {
            break;
        };
        if piece.arg == ARG_EXEC_ARGS || piece.arg == ARG_EXEC_ENV {
            if piece.flags & (PIECE_FAULT | PIECE_TRUNCATED) == 0 {
                exec_strings[(piece.arg == ARG_EXEC_ENV) as usize] = Some(data.to_vec());
            }
        } else if piece.arg == ARG_EXEC_FILE {
            if piece.flags & PIECE_TERMINATED != 0 {
                exec_strings[2] = Some(data.to_vec());
            }
        } else if piece.arg == ARG_DIRENTS {
            snapshot.set_dirents(piece.addr);
        } else if piece.arg == ARG_FILE_ID {
            let word = |at: usize| data.get(at..).and_then(read::<u64>);
            if let (Some(dev), Some(ino), Some(magic), Some(name)) =
                (word(0), word(8), word(16), data.get(24..24 + FILE_NAME))
            {
                let mut id = crate::kernel::FileId {
                    dev,
                    ino,
                    magic,
                    name: [0; FILE_NAME],
                };
                id.name.copy_from_slice(name);
                snapshot.add_file(piece.addr as i32, id);
            }
        } else if piece.flags & PIECE_FAULT == 0 {
            let into = if head.kind == LEAVE && piece.when == AT_ENTER {
                &mut late
            } else {
                &mut snapshot
            };
            if piece.flags & PIECE_TERMINATED != 0 {
                into.add_terminated(piece.addr, data);
            } else {
                into.add(piece.addr, data);
            }
        }
        at += len.div_ceil(8) * 8;
    }
    Some(Record {
        head,
        snapshot,
        late,
        exec_strings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_structs_have_the_c_sizes() {
        // sizeof(struct rt_event) and sizeof(struct rt_capture).
        assert_eq!(std::mem::size_of::<Header>(), 112);
        assert_eq!(std::mem::size_of::<PieceHeader>(), 16);
    }

    /// A record of `pieces` (header, bytes) after an entry header.
    fn record(pieces: &[(PieceHeader, Vec<u8>)]) -> Vec<u8> {
        let body: usize = pieces
            .iter()
            .map(|(_, b)| 16 + b.len().div_ceil(8) * 8)
            .sum();
        let head = Header {
            kind: ENTER,
            ncaps: pieces.len() as u16,
            size: (112 + body) as u32,
            ..Default::default()
        };
        // SAFETY: Header and PieceHeader are plain integers.
        let bytes_of =
            |p: *const u8, n: usize| unsafe { std::slice::from_raw_parts(p, n).to_vec() };
        let mut out = bytes_of((&head as *const Header).cast(), 112);
        for (piece, data) in pieces {
            out.extend(bytes_of((piece as *const PieceHeader).cast(), 16));
            out.extend(data);
            out.resize(out.len().next_multiple_of(8), 0);
        }
        out
    }

    #[test]
    fn file_identities_name_files_without_paths() {
        use crate::abi::xlat::fs::{ANON_INODE_FS_MAGIC, SOCKFS_MAGIC};
        let id = |fd: u64, ino: u64, magic: u64, name: &[u8]| {
            let mut data = [8u64 << 20, ino, magic].map(u64::to_ne_bytes).concat();
            let mut padded = name.to_vec();
            padded.resize(FILE_NAME, 0);
            data.extend(padded);
            let len = data.len() as u32;
            let head = PieceHeader {
                addr: fd,
                len,
                arg: ARG_FILE_ID,
                ..Default::default()
            };
            (head, data)
        };
        let bytes = record(&[
            id(3, 77, SOCKFS_MAGIC, b""),
            id(4, 1, ANON_INODE_FS_MAGIC, b"[eventfd]"),
            id(5, 9, 1, b""),
        ]);
        let mem = crate::kernel::Memory::captured(
            nix::unistd::Pid::from_raw(i32::MAX),
            parse(&bytes).expect("a record").snapshot,
        );
        let name = |fd| mem.file_id(fd).and_then(|id| id.kernel_name());
        assert_eq!(name(3).as_deref(), Some(&b"socket:[77]"[..]));
        assert_eq!(name(4).as_deref(), Some(&b"anon_inode:[eventfd]"[..]));
        // Another filesystem's file has a path, which only /proc or the
        // opens know.
        assert!(mem.file_id(5).is_some());
        assert_eq!(name(5), None);
    }

    #[test]
    fn a_record_gives_back_its_pieces() {
        let mut bytes = vec![0u8; 112];
        let head = Header {
            kind: ENTER,
            ncaps: 2,
            size: 112 + 16 + 8 + 16 + 8,
            ..Default::default()
        };
        // SAFETY: Header is plain integers.
        let raw = unsafe { std::slice::from_raw_parts((&head as *const Header).cast::<u8>(), 112) };
        bytes.copy_from_slice(raw);
        let piece = |addr: u64, len: u32, flags: u16| {
            let mut p = addr.to_ne_bytes().to_vec();
            p.extend_from_slice(&len.to_ne_bytes());
            p.extend_from_slice(&flags.to_ne_bytes());
            p.extend_from_slice(&[0, 1]);
            p
        };
        bytes.extend(piece(0x1000, 3, PIECE_TERMINATED));
        bytes.extend(b"abc\0\0\0\0\0");
        bytes.extend(piece(0x2000, 5, 0));
        bytes.extend(b"hello\0\0\0");
        let record = parse(&bytes).expect("a record");
        let mut mem =
            crate::kernel::Memory::captured(nix::unistd::Pid::from_raw(1), record.snapshot);
        assert_eq!(mem.read_cstr(0x1000, 32), Some((b"abc".to_vec(), true)));
        let mut buf = [0u8; 8];
        assert_eq!(mem.read(0x2000, &mut buf), 5);
        assert_eq!(&buf[..5], b"hello");
        assert_eq!(mem.read(0x3000, &mut buf), 0);
    }
}
