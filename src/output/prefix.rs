//! What starts a line: the timestamp (`-t`, `-tt`, `-ttt`, `-r`) and the
//! `PID| ` or `PID' ` prefix that says whose line it is.

use super::Output;

/// Timestamp form printed before each line's prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Timestamps {
    /// None.
    #[default]
    Off,
    /// `HH:MM:SS`.
    Seconds,
    /// `HH:MM:SS.uuuuuu`.
    Micros,
    /// Seconds since the epoch with microseconds (`-ttt`).
    Epoch,
    /// Seconds since the previous line (`-r`).
    Relative,
}

impl Output {
    pub(super) fn put_prefix(&mut self, pid: Option<i32>, resuming: bool) {
        debug_assert_eq!(self.line_len, 0);
        if matches!(self.timestamps, Timestamps::Off)
            && pid.is_some()
            && !resuming
            && !self.print_pid
            && self.proc_count <= 1
        {
            // One process, no timestamps: a line starts with nothing (the
            // common case of full tracing, at every call).
            return;
        }
        let event = self.event_time;
        let mut since_last = || {
            let now = event.unwrap_or_else(std::time::Instant::now);
            let delta = self.last_time.map_or(0.0, |t| (now - t).as_secs_f64());
            self.last_time = Some(now);
            delta
        };
        let mut clock = String::new();
        match self.timestamps {
            Timestamps::Off => {}
            Timestamps::Relative => clock = format!("{:12.6} ", since_last()),
            form => {
                clock = timestamp(form, event);
                clock.push(' ');
                if self.relative_too {
                    clock.push_str(&format!("(+{:9.6}) ", since_last()));
                }
            }
        }
        // The pid part is built on the stack: with -f it starts every line.
        let mut pid_buf = [0u8; 24];
        let many = self.proc_count > 1;
        let mark: &[u8] = match pid {
            Some(pid) if self.print_pid || many => {
                let digits = decimal(pid, &mut pid_buf);
                pid_buf[digits] = if many { b'|' } else { b'\'' };
                pid_buf[digits + 1] = if resuming { b'*' } else { b' ' };
                &pid_buf[..digits + 2]
            }
            Some(_) if resuming => b"*",
            Some(_) => b"",
            None => b"INFO| ",
        };
        self.line_len += clock.len() + mark.len();
        if !clock.is_empty() {
            self.write_raw(clock.as_bytes());
        }
        self.write_raw(mark);
        self.print_pid = many || pid.is_none();
    }
}

/// Local wall-clock time as `HH:MM:SS` or `HH:MM:SS.uuuuuu`.
fn timestamp(form: Timestamps, at: Option<std::time::Instant>) -> String {
    let mut tv = libc::timeval {
        tv_sec: 0,
        tv_usec: 0,
    };
    // SAFETY: gettimeofday and localtime_r only write the structs passed.
    let tm = unsafe {
        libc::gettimeofday(&mut tv, std::ptr::null_mut());
        if let Some(at) = at {
            // As long ago as `at` was.
            let ago = at.elapsed().as_micros() as i64;
            let us = tv.tv_sec * 1_000_000 + tv.tv_usec - ago;
            tv.tv_sec = us.div_euclid(1_000_000);
            tv.tv_usec = us.rem_euclid(1_000_000);
        }
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&tv.tv_sec, &mut tm);
        tm
    };
    match form {
        Timestamps::Micros => format!(
            "{:02}:{:02}:{:02}.{:06}",
            tm.tm_hour, tm.tm_min, tm.tm_sec, tv.tv_usec
        ),
        Timestamps::Epoch => format!("{}.{:06}", tv.tv_sec, tv.tv_usec),
        _ => format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec),
    }
}

/// Write `n` in decimal at the start of `buf`; returns how many bytes.
fn decimal(n: i32, buf: &mut [u8; 24]) -> usize {
    let mut digits = [0u8; 12];
    let mut rest = n.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut len = 0;
    if n < 0 {
        buf[0] = b'-';
        len = 1;
    }
    let digits = &digits[at..];
    buf[len..len + digits.len()].copy_from_slice(digits);
    len + digits.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_for_prefixes() {
        let mut buf = [0u8; 24];
        for n in [0, 7, 1234, i32::MAX, -1, i32::MIN] {
            let len = decimal(n, &mut buf);
            assert_eq!(&buf[..len], n.to_string().as_bytes());
        }
    }
}
