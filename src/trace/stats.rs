//! `-c`/`-C` statistics: calls, errors and time per system call, and the
//! summary table printed at the end, sorted as `-S` asks.
//!
//! Times are wall-clock time between a call's entry and exit stops, as
//! strace's `-w`; rtrace has no cheaper way to learn a call's system time.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::Duration;

/// How the summary is sorted (`-S`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SortKey {
    /// Total time, largest first (strace's default).
    #[default]
    Time,
    /// Number of calls.
    Calls,
    /// Number of errors.
    Errors,
    /// Call name.
    Name,
    /// Average time per call.
    Average,
    /// The order calls were first seen.
    Nothing,
}

impl SortKey {
    /// Parse `-S`'s argument.
    pub fn parse(text: &str) -> Result<SortKey, String> {
        Ok(match text {
            "time" | "time_total" | "total_time" => SortKey::Time,
            "calls" | "count" => SortKey::Calls,
            "errors" | "error" => SortKey::Errors,
            "name" | "syscall" | "syscall_name" => SortKey::Name,
            "avg_time" | "time_avg" => SortKey::Average,
            "nothing" | "none" => SortKey::Nothing,
            _ => {
                return Err(format!(
                    "unknown sort key '{text}' (time, calls, errors, name, avg_time, nothing)"
                ));
            }
        })
    }
}

#[derive(Clone, Copy, Default)]
struct Counts {
    calls: u64,
    errors: u64,
    time: Duration,
    first_seen: usize,
}

/// Mean time per call in nanoseconds.
fn average_ns(c: &Counts) -> u128 {
    c.time.as_nanos() / c.calls.max(1) as u128
}

/// Per-call counters.
#[derive(Default)]
pub struct Stats {
    by_name: HashMap<String, Counts>,
    /// Records the BPF engine lost (its ring was full): calls that are
    /// not counted.
    pub lost: u64,
}

impl Stats {
    /// Count one finished call.
    pub fn record(&mut self, name: &str, failed: bool, time: Duration) {
        let seen = self.by_name.len();
        let c = self.by_name.entry(name.to_string()).or_insert(Counts {
            first_seen: seen,
            ..Counts::default()
        });
        c.calls += 1;
        c.errors += failed as u64;
        c.time += time;
    }

    /// Count `calls` finished calls of `name` at once, `errors` of them
    /// failed, `time` in all (the BPF engine's counts from the kernel).
    pub fn add(&mut self, name: &str, calls: u64, errors: u64, time: Duration) {
        let seen = self.by_name.len();
        let c = self.by_name.entry(name.to_string()).or_insert(Counts {
            first_seen: seen,
            ..Counts::default()
        });
        c.calls += calls;
        c.errors += errors;
        c.time += time;
    }

    /// The rows in `sort`'s order.
    fn rows(&self, sort: SortKey) -> Vec<(&String, &Counts)> {
        let mut rows: Vec<(&String, &Counts)> = self.by_name.iter().collect();
        let avg = |c: &Counts| average_ns(c);
        match sort {
            SortKey::Time => rows.sort_by(|a, b| b.1.time.cmp(&a.1.time).then(a.0.cmp(b.0))),
            SortKey::Calls => rows.sort_by(|a, b| b.1.calls.cmp(&a.1.calls).then(a.0.cmp(b.0))),
            SortKey::Errors => rows.sort_by(|a, b| b.1.errors.cmp(&a.1.errors).then(a.0.cmp(b.0))),
            SortKey::Name => rows.sort_by(|a, b| a.0.cmp(b.0)),
            SortKey::Average => rows.sort_by(|a, b| avg(b.1).cmp(&avg(a.1)).then(a.0.cmp(b.0))),
            SortKey::Nothing => rows.sort_by_key(|r| r.1.first_seen),
        }
        rows
    }

    /// The summary as one JSON Lines object (`--json`): every row, then the
    /// totals; times in seconds, as the trace's `duration`.
    pub fn summary_json(&self, sort: SortKey) -> serde_json::Value {
        let rows = self.rows(sort);
        let seconds = crate::call::json_seconds;
        let calls: Vec<serde_json::Value> = rows
            .iter()
            .map(|(name, c)| {
                serde_json::json!({
                    "name": name,
                    "calls": c.calls,
                    "errors": c.errors,
                    "seconds": seconds(c.time),
                })
            })
            .collect();
        let total_time: Duration = rows.iter().map(|r| r.1.time).sum();
        serde_json::json!({
            "schema": crate::call::JSON_SCHEMA,
            "type": "summary",
            "time": crate::call::json_now(),
            "calls": calls,
            "total": {
                "calls": rows.iter().map(|r| r.1.calls).sum::<u64>(),
                "errors": rows.iter().map(|r| r.1.errors).sum::<u64>(),
                "seconds": seconds(total_time),
            },
            "lost": self.lost,
        })
    }

    /// The summary table, strace's layout.
    pub fn summary(&self, sort: SortKey) -> String {
        let rows = self.rows(sort);
        let avg = |c: &Counts| average_ns(c);
        let total_time: Duration = rows.iter().map(|r| r.1.time).sum();
        let total_calls: u64 = rows.iter().map(|r| r.1.calls).sum();
        let total_errors: u64 = rows.iter().map(|r| r.1.errors).sum();
        let rule = "------ ----------- ----------- --------- --------- ----------------";
        let mut s = String::new();
        let _ = writeln!(
            s,
            "% time     seconds  usecs/call     calls    errors syscall"
        );
        let _ = writeln!(s, "{rule}");
        let pct = |t: Duration| {
            if total_time.is_zero() {
                0.0
            } else {
                100.0 * t.as_secs_f64() / total_time.as_secs_f64()
            }
        };
        for (name, c) in &rows {
            let errors = if c.errors > 0 {
                c.errors.to_string()
            } else {
                String::new()
            };
            let _ = writeln!(
                s,
                "{:>6.2} {:>11.6} {:>11} {:>9} {:>9} {}",
                pct(c.time),
                c.time.as_secs_f64(),
                avg(c) / 1000,
                c.calls,
                errors,
                name
            );
        }
        let _ = writeln!(s, "{rule}");
        let errors = if total_errors > 0 {
            total_errors.to_string()
        } else {
            String::new()
        };
        let _ = writeln!(
            s,
            "{:>6.2} {:>11.6} {:>11} {:>9} {:>9} total",
            if total_time.is_zero() { 0.0 } else { 100.0 },
            total_time.as_secs_f64(),
            total_time.as_nanos() / total_calls.max(1) as u128 / 1000,
            total_calls,
            errors
        );
        if self.lost > 0 {
            let _ = writeln!(
                s,
                "{} events lost (the BPF ring was full): their calls are not counted",
                self.lost
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_sorts_and_totals() {
        let mut st = Stats::default();
        st.record("read", false, Duration::from_micros(30));
        st.record("read", true, Duration::from_micros(10));
        st.record("write", false, Duration::from_micros(60));
        let text = st.summary(SortKey::Time);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[2],
            " 60.00    0.000060          60         1           write"
        );
        assert_eq!(
            lines[3],
            " 40.00    0.000040          20         2         1 read"
        );
        assert_eq!(
            lines[5],
            "100.00    0.000100          33         3         1 total"
        );
        let by_name = st.summary(SortKey::Name);
        assert!(by_name.lines().nth(2).unwrap().ends_with("read"));
        assert!(SortKey::parse("bogus").is_err());
    }
}
