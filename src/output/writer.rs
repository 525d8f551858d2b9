//! The trace's buffered writer: whole lines only reach the file or pipe
//! (until the last flush), and a blocked write gives up on the second
//! interrupt.

use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set when a write that cannot go on (its reader stopped reading) must
/// give up: rtrace's second interrupt sets it, and a blocked write
/// interrupted by a signal then fails instead of trying again, so the
/// interrupt can end rtrace (HACKING.md, "The output layer's rules").
pub static GIVE_UP_WRITING: AtomicBool = AtomicBool::new(false);

/// How much trace is kept before it is written.
pub const BUFFER: usize = 64 * 1024;

/// The trace's buffered writer. Text is kept until [`BUFFER`] bytes are
/// there, and then written up to the last complete line only: the partial
/// line stays for the next write, so a reader of the file or pipe that
/// also gets the program's output never sees it inside a trace line.
/// [`Write::flush`] writes everything. A write interrupted by a signal is
/// tried again, unless [`GIVE_UP_WRITING`] is set.
pub struct TraceWriter<W: Write> {
    inner: W,
    buf: Vec<u8>,
    /// Where the buffer's last newline is, kept as text comes: a line
    /// longer than the buffer (a thousand messages under `-v`) arrives in
    /// many small writes, and searching the whole buffer for each would
    /// take its length squared.
    last_newline: Option<usize>,
}

impl<W: Write> TraceWriter<W> {
    /// A writer to `inner` with a buffer of [`BUFFER`] bytes.
    pub fn new(inner: W) -> TraceWriter<W> {
        TraceWriter {
            inner,
            buf: Vec::with_capacity(BUFFER),
            last_newline: None,
        }
    }

    /// Write the first `len` buffered bytes and drop them from the buffer
    /// (those written, also when the write fails).
    fn write_out(&mut self, len: usize) -> io::Result<()> {
        let mut done = 0;
        let result = loop {
            if done == len {
                break Ok(());
            }
            match self.inner.write(&self.buf[done..len]) {
                Ok(0) => break Err(io::Error::from(io::ErrorKind::WriteZero)),
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {
                    if GIVE_UP_WRITING.load(Ordering::Relaxed) {
                        // Not `Interrupted`, which write_all would retry.
                        break Err(io::Error::other(
                            "it was blocked when rtrace was interrupted a second time",
                        ));
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.buf.drain(..done);
        self.last_newline = self.last_newline.and_then(|at| at.checked_sub(done));
        result
    }
}

impl<W: Write> Write for TraceWriter<W> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(at) = bytes.iter().rposition(|&b| b == b'\n') {
            self.last_newline = Some(self.buf.len() + at);
        }
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= BUFFER
            && let Some(last) = self.last_newline
        {
            self.write_out(last + 1)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_out(self.buf.len())?;
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A writer that records each write it is given.
    #[derive(Clone, Default)]
    struct Writes(Rc<RefCell<Vec<Vec<u8>>>>);
    impl Write for Writes {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_buffer_is_written_up_to_its_last_complete_line() {
        let writes = Writes::default();
        let mut w = TraceWriter::new(writes.clone());
        let line = format!("{}\n", "x".repeat(99));
        let lines = BUFFER / line.len();
        for _ in 0..lines {
            w.write_all(line.as_bytes()).unwrap();
        }
        assert!(writes.0.borrow().is_empty(), "written before full");
        // The write that fills the buffer ends inside a line: the lines
        // before it go out, the partial one stays.
        w.write_all(b"read(0, ").unwrap();
        w.write_all(&vec![b'y'; line.len()]).unwrap();
        assert_eq!(*writes.0.borrow(), [line.repeat(lines).into_bytes()]);
        w.write_all(b"\n").unwrap();
        w.flush().unwrap();
        let mut tail = b"read(0, ".to_vec();
        tail.extend(vec![b'y'; line.len()]);
        tail.push(b'\n');
        assert_eq!(writes.0.borrow()[1], tail);
        assert_eq!(writes.0.borrow().len(), 2);
    }

    #[test]
    fn a_line_longer_than_the_buffer_waits_for_its_end() {
        let writes = Writes::default();
        let mut w = TraceWriter::new(writes.clone());
        w.write_all(b"one\ntwo\n").unwrap();
        // A line of twice the buffer, in small writes: the complete lines
        // before it go out when the buffer fills, then nothing until the
        // line ends.
        let piece = [b'z'; 16];
        for _ in 0..(2 * BUFFER / piece.len()) {
            w.write_all(&piece).unwrap();
        }
        assert_eq!(*writes.0.borrow(), [b"one\ntwo\n".to_vec()]);
        w.write_all(b"\nthree").unwrap();
        let mut long = vec![b'z'; 2 * BUFFER];
        long.push(b'\n');
        assert_eq!(writes.0.borrow()[1], long);
        w.flush().unwrap();
        assert_eq!(writes.0.borrow()[2], b"three");
    }
}
