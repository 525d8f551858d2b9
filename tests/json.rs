//! `--json`: every line is one JSON object that parses and round-trips; the
//! objects carry the same decoded values as the text trace.

mod common;

use common::{fixture, name, trace};
use serde_json::Value;

/// Parse every line; check each round-trips through serde_json unchanged.
fn objects(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let again: Value = serde_json::from_str(&v.to_string()).unwrap();
            assert_eq!(v, again, "round trip: {line}");
            assert_eq!(v["schema"], 1, "{line}");
            assert!(v["time"].as_f64().unwrap() > 1.0e9, "{line}");
            v
        })
        .collect()
}

fn calls<'a>(objs: &'a [Value], call: &str) -> Vec<&'a Value> {
    objs.iter()
        .filter(|o| o["type"] == "call" && o["name"] == call)
        .collect()
}

#[test]
fn calls_carry_raw_and_decoded_arguments() {
    let bin = fixture("shapes");
    let run = trace(&["--json"], &[name(&bin)]);
    assert_eq!(run.code(), Some(3));
    let objs = objects(&run.trace);
    let pid = objs[0]["pid"].as_i64().unwrap();
    assert_eq!(objs[0]["type"], "start");
    assert_eq!(objs[0]["name"], "shapes");
    let last = objs.last().unwrap();
    assert_eq!(last["type"], "exit");
    assert_eq!(last["code"], 3);

    let writes = calls(&objs, "write");
    let hello = writes.iter().find(|w| w["args"]["buf"] == "hello").unwrap();
    assert_eq!(hello["args"]["fd"], 4);
    assert_eq!(hello["args"]["count"], 5);
    assert_eq!(hello["raw"][0], 4);
    assert_eq!(hello["raw"][2], 5);
    assert_eq!(hello["result"], 5);
    assert_eq!(hello["pid"], pid);
    assert_eq!(hello["tid"], pid);
    assert!(hello.get("errno").is_none());

    let escaped = writes.iter().find(|w| w["args"]["count"] == 13).unwrap();
    assert_eq!(escaped["args"]["buf"], "\u{1b}[31mred\u{1b}[0m\n");

    let fault = writes.iter().find(|w| w["args"]["buf"] == "0x1").unwrap();
    assert_eq!(fault["result"], -14);
    assert_eq!(fault["errno"], "EFAULT");

    let open = calls(&objs, "openat")
        .into_iter()
        .find(|o| o["args"]["pathname"] == "/dev/null")
        .unwrap();
    assert_eq!(open["args"]["dirfd"]["name"], "AT_FDCWD");
    assert_eq!(open["args"]["dirfd"]["value"], -100);
    assert_eq!(
        open["args"]["flags"]["flags"],
        serde_json::json!(["O_WRONLY", "O_CLOEXEC"])
    );
    assert_eq!(open["result"], 5);

    let exit = calls(&objs, "exit_group");
    assert_eq!(exit.len(), 1);
    assert_eq!(exit[0]["args"]["status"], 3);
    assert_eq!(exit[0]["result"], Value::Null);
}

#[test]
fn processes_signals_and_not_done_calls() {
    let bin = fixture("fork_wait");
    let run = trace(&["--json", "-f"], &[name(&bin)]);
    let objs = objects(&run.trace);
    let parent = objs[0]["pid"].as_i64().unwrap();
    let forks = calls(&objs, "fork");
    let fork = forks.iter().find(|f| f["pid"] == parent).unwrap();
    let child = fork["result"].as_i64().unwrap();
    // The child's half of the call: fork() = 0 in the child.
    let in_child = forks.iter().find(|f| f["pid"] == child).unwrap();
    assert_eq!(in_child["result"], 0);
    assert!(
        objs.iter()
            .any(|o| o["type"] == "start" && o["pid"] == child)
    );
    assert!(
        objs.iter()
            .any(|o| o["type"] == "exit" && o["pid"] == child && o["code"] == 7)
    );
    let wait = calls(&objs, "wait4")[0];
    assert_eq!(wait["args"]["wstatus"], "W_EXITED(7)");
    assert_eq!(wait["result"], child);
    assert_eq!(wait["pid"], parent);
    let sig = objs.iter().find(|o| o["type"] == "signal").unwrap();
    assert_eq!(sig["signal"]["name"], "SIGCHLD");
    assert_eq!(sig["signal"]["number"], 17);
    // No text grammar leaks into JSON.
    assert!(!run.trace.contains("<..>") && !run.trace.contains("Tracing"));
}

#[test]
fn selection_and_durations_apply_to_json() {
    let bin = fixture("shapes");
    let run = trace(&["--json", "-T", "-e", "trace=write", "-Z"], &[name(&bin)]);
    let objs = objects(&run.trace);
    let names: Vec<&str> = objs
        .iter()
        .filter(|o| o["type"] == "call")
        .map(|o| o["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["write", "write"]);
    for o in objs.iter().filter(|o| o["type"] == "call") {
        assert!(o["errno"].is_string());
        assert!(o["duration"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn summaries_fds_and_times_are_json_too() {
    let bin = fixture("shapes");
    let run = trace(&["--json", "-C", "-T", "-y"], &[name(&bin)]);
    let objs = objects(&run.trace);
    // Times are whole microseconds: at most six decimals as written.
    for line in run.trace.lines() {
        for key in ["\"time\":", "\"duration\":"] {
            if let Some(at) = line.find(key) {
                let number: String = line[at + key.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'e' || *c == '-')
                    .collect();
                let decimals = number.split('.').nth(1).map_or(0, str::len);
                assert!(decimals <= 6, "{key} {number} in {line}");
            }
        }
    }
    // -y: an fd is its number and path.
    let close = calls(&objs, "close");
    assert!(
        close
            .iter()
            .any(|c| c["args"]["fd"]["value"].is_i64() && c["args"]["fd"]["path"].is_string()),
        "{close:#?}"
    );
    // -C: the summary is the last line, and its totals add up.
    let summary = objs.last().unwrap();
    assert_eq!(summary["type"], "summary", "{summary}");
    let rows = summary["calls"].as_array().unwrap();
    let sum = |key: &str| rows.iter().map(|r| r[key].as_u64().unwrap()).sum::<u64>();
    assert_eq!(summary["total"]["calls"].as_u64(), Some(sum("calls")));
    assert_eq!(summary["total"]["errors"].as_u64(), Some(sum("errors")));
    let writes = rows.iter().find(|r| r["name"] == "write").unwrap();
    let traced = calls(&objs, "write").len() as u64;
    assert_eq!(writes["calls"].as_u64(), Some(traced));
    assert!(summary.get("pid").is_none());
    // -c alone: the summary is the only line.
    let only = trace(&["--json", "-c"], &[name(&bin)]);
    let objs = objects(&only.trace);
    assert_eq!(objs.len(), 1, "{}", only.trace);
    assert_eq!(objs[0]["type"], "summary");
}

/// A signal object always carries the siginfo the kernel delivered.
#[test]
fn signals_carry_their_siginfo() {
    let bin = fixture("siginfo");
    let run = trace(&["--json"], &[name(&bin)]);
    let objs = objects(&run.trace);
    let pid = objs[0]["pid"].as_i64().unwrap();
    let signals: Vec<&Value> = objs.iter().filter(|o| o["type"] == "signal").collect();
    let names: Vec<&str> = signals
        .iter()
        .map(|o| o["signal"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["SIGUSR1", "SIGUSR2", "SIGCHLD", "SIGSEGV"]);
    assert_eq!(
        signals[1]["siginfo"],
        serde_json::json!({
            "si_code": {"value": -1, "name": "SI_QUEUE"},
            "si_pid": pid,
            "si_uid": 0,
            "si_int": 42,
            "si_ptr": 42
        })
    );
    let chld = &signals[2]["siginfo"];
    assert_eq!(chld["si_code"]["name"], "CLD_EXITED");
    assert_eq!(chld["si_status"], 7);
    assert_eq!(
        signals[3]["siginfo"],
        serde_json::json!({"si_code": {"value": 1, "name": "SEGV_MAPERR"}, "si_addr": "0x10"})
    );
}
