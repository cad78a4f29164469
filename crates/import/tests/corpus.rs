//! The log corpus (issue 31): every folder under `tests/logs/` with an `expected.json` is one case,
//! written from Kafka's own log statements at a release tag (each folder's README.md cites them).
//! Every file of the folder (but `expected.json` and `README.md`) is imported together, and the
//! report must show what `expected.json` asks:
//!
//! * `alarms`: signature kinds that must be found with `alarm == true`;
//! * `must_not`: kinds that must not be found at all;
//! * `healthy`: the verdict is "no split-brain signature" and no signature is an alarm;
//! * `brokers`: ids that must be among `report.brokers`; with `brokers_exact: true`, exactly them
//!   (a pod ordinal or a ticket number in a name must not become a broker);
//! * `epochs_min`: at least this many controller epochs (timeline bands);
//! * `unknown_max` (default 0): at most this many lines the importer could not read;
//! * `broker_args`: `{"file": N}`, the `--broker N=FILE` a user gives for a file that names no
//!   broker.
//!
//! All cases run; the failure lists every case and what it missed.
use serde_json::Value;
use splitbrain_import::{import, Input};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const VOCABULARY: [&str; 9] = [
    "overlapping_controllers",
    "deposed_controller_write",
    "zk_version_mismatch",
    "leader_none",
    "session_expired",
    "stale_broker_registration",
    "election_error",
    "controller_resigned",
    "stale_controller_epoch",
];

fn logs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("logs")
}

/// The case's files, relative to its folder with `/` separators, sorted.
fn case_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        let mut entries: Vec<_> = fs::read_dir(dir).expect("read case dir").map(|e| e.expect("entry").path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(root, &path, out);
                continue;
            }
            let rel = path.strip_prefix(root).expect("under root");
            let name: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
            let name = name.join("/");
            if name == "expected.json" || name == "README.md" {
                continue;
            }
            out.push((name, fs::read(&path).expect("read log file")));
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out
}

fn strings(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default()
}

/// What `case` (its folder) misses, one sentence per miss; empty when it passes.
fn check(case: &str, dir: &Path) -> Vec<String> {
    let mut misses = Vec::new();
    let expected: Value = match fs::read_to_string(dir.join("expected.json")).map(|s| serde_json::from_str(&s)) {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return vec![format!("{case}: expected.json does not parse: {e}")],
        Err(e) => return vec![format!("{case}: expected.json unreadable: {e}")],
    };
    let alarms = strings(&expected, "alarms");
    let must_not = strings(&expected, "must_not");
    for kind in alarms.iter().chain(must_not.iter()) {
        if !VOCABULARY.contains(&kind.as_str()) {
            misses.push(format!("{case}: expected.json names `{kind}`, not in the signature vocabulary"));
        }
    }
    let healthy = expected.get("healthy").and_then(Value::as_bool).unwrap_or(false);
    let brokers: Vec<i64> = expected
        .get("brokers")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let brokers_exact = expected.get("brokers_exact").and_then(Value::as_bool).unwrap_or(false);
    let epochs_min = expected.get("epochs_min").and_then(Value::as_u64).unwrap_or(0) as usize;
    let unknown_max = expected.get("unknown_max").and_then(Value::as_u64).unwrap_or(0);
    let broker_args: BTreeMap<String, i32> = expected
        .get("broker_args")
        .and_then(Value::as_object)
        .map(|o| o.iter().filter_map(|(k, v)| Some((k.clone(), v.as_i64()? as i32))).collect())
        .unwrap_or_default();

    if !dir.join("README.md").is_file() {
        misses.push(format!(
            "{case}: no README.md (what it shows, the version, each line's tag:file:line, what is invented)"
        ));
    }
    let files = case_files(dir);
    if files.is_empty() {
        misses.push(format!("{case}: no log files"));
        return misses;
    }
    for name in broker_args.keys() {
        if !files.iter().any(|(n, _)| n == name) {
            misses.push(format!("{case}: broker_args names `{name}`, which is not a file of the case"));
        }
    }
    let inputs: Vec<Input<'_>> = files
        .iter()
        .map(|(name, bytes)| Input {
            name: name.as_str(),
            bytes: bytes.as_slice(),
            broker: broker_args.get(name).copied(),
        })
        .collect();
    let report = import(&inputs, &mut |_, _| {});

    let found: Vec<String> =
        report.signatures.iter().map(|s| format!("{}{}", s.kind, if s.alarm { "" } else { " (context)" })).collect();
    let found = if found.is_empty() { String::from("none") } else { found.join(", ") };
    for kind in &alarms {
        if !report.signatures.iter().any(|s| s.kind == kind && s.alarm) {
            misses.push(format!("{case}: alarm `{kind}` missing (signatures found: {found})"));
        }
    }
    for kind in &must_not {
        if report.signatures.iter().any(|s| s.kind == kind) {
            misses.push(format!("{case}: `{kind}` found but must not be (signatures found: {found})"));
        }
    }
    if healthy {
        if report.verdict != "no split-brain signature" {
            misses.push(format!("{case}: healthy, but the verdict is \"{}\"", report.verdict));
        }
        let raised: Vec<&str> = report.signatures.iter().filter(|s| s.alarm).map(|s| s.kind).collect();
        if !raised.is_empty() {
            misses.push(format!("{case}: healthy, but alarms were raised: {}", raised.join(", ")));
        }
    }
    let missing_brokers: Vec<String> = brokers
        .iter()
        .filter(|b| !report.brokers.iter().any(|r| i64::from(*r) == **b))
        .map(|b| b.to_string())
        .collect();
    if !missing_brokers.is_empty() {
        misses.push(format!(
            "{case}: broker(s) {} not seen (report.brokers = {:?})",
            missing_brokers.join(","),
            report.brokers
        ));
    }
    if brokers_exact {
        let extra: Vec<String> =
            report.brokers.iter().filter(|r| !brokers.contains(&i64::from(**r))).map(|r| r.to_string()).collect();
        if !extra.is_empty() {
            misses.push(format!("{case}: broker(s) {} reported but the case has only {:?}", extra.join(","), brokers));
        }
    }
    if report.epochs.len() < epochs_min {
        misses
            .push(format!("{case}: {} controller epoch(s) found, at least {epochs_min} expected", report.epochs.len()));
    }
    if u64::from(report.unknown) > unknown_max {
        let shown: Vec<String> = report
            .unknown_lines
            .iter()
            .take(3)
            .map(|l| format!("file {} line {}: {:?}", l.file, l.file_line, l.text))
            .collect();
        misses.push(format!(
            "{case}: {} unknown line(s), at most {unknown_max} expected (first: {})",
            report.unknown,
            shown.join("; ")
        ));
    }
    if report.lines == 0 {
        misses.push(format!("{case}: no line read ({} file(s) given)", files.len()));
    }
    misses
}

#[test]
fn corpus() {
    let mut cases: Vec<PathBuf> = fs::read_dir(logs_dir())
        .expect("tests/logs exists")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("expected.json").is_file())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no case under tests/logs");
    let mut failed = Vec::new();
    let mut misses = Vec::new();
    for dir in &cases {
        let case = dir.file_name().expect("name").to_string_lossy().into_owned();
        let m = check(&case, dir);
        if !m.is_empty() {
            failed.push(case);
            misses.extend(m);
        }
    }
    assert!(
        misses.is_empty(),
        "{} of {} corpus case(s) fail ({}):\n  {}",
        failed.len(),
        cases.len(),
        failed.join(", "),
        misses.join("\n  ")
    );
}
