//! `splitbrain zk-replay`: exact output lines for a small input (what tests/zk-diff/zkdiff.py
//! compares against a real ZooKeeper), and one error line with exit status 2 for bad input.
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn replay(input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbrain"))
        .args(["zk-replay", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("write");
    child.wait_with_output().expect("exits")
}

fn lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().map(String::from).collect()
}

#[test]
fn a_small_replay_prints_one_exact_line_per_operation() {
    let input = r#"{"s":"s1","op":"connect"}
{"s":"s2","op":"connect"}
{"s":"s1","op":"create","path":"/a","data":"x","ephemeral":false,"sequential":false}
{"s":"s2","op":"get","path":"/a","watch":true}
{"s":"s2","op":"children","path":"/a","watch":true}
{"s":"s2","op":"exists","path":"/b","watch":true}
{"s":"s1","op":"create","path":"/a","data":"","ephemeral":false,"sequential":false}
{"s":"s1","op":"create","path":"/a/e","data":"","ephemeral":true,"sequential":false}
{"s":"s1","op":"create","path":"/a/e/c","data":"","ephemeral":false,"sequential":false}
{"s":"s1","op":"create","path":"/a/n-","data":"","ephemeral":false,"sequential":true}
{"s":"s1","op":"set","path":"/a","data":"y","version":3}
{"s":"s1","op":"set","path":"/a","data":"y","version":0}
{"s":"s1","op":"delete","path":"/a","version":-1}
{"s":"s1","op":"multi","ops":[{"op":"check","path":"/a","version":1},{"op":"create","path":"/b","data":"","ephemeral":false,"sequential":false},{"op":"delete","path":"/nope","version":-1}]}
{"s":"s1","op":"multi","ops":[{"op":"create","path":"/b","data":"z","ephemeral":false,"sequential":false},{"op":"set","path":"/b","data":"w","version":0}]}
{"s":"s2","op":"get","path":"/a","watch":true}
{"s":"s2","op":"children","path":"/a","watch":true}
{"s":"s1","op":"close"}
{"s":"s1","op":"get","path":"/","watch":false}
{"s":"s2","op":"children","path":"/a","watch":false}
{"s":"s2","op":"expire"}
{"s":"s2","op":"exists","path":"/a","watch":false}
{"s":"s2","op":"connect"}
{"s":"s2","op":"get","path":"/b","watch":false}
"#;
    let o = replay(input);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = [
        r#"{"i":1,"ok":true,"watches":[]}"#,
        r#"{"i":2,"ok":true,"watches":[]}"#,
        r#"{"i":3,"ok":true,"path":"/a","watches":[]}"#,
        r#"{"i":4,"ok":true,"version":0,"data":"x","ephemeral":false,"num_children":0,"watches":[]}"#,
        r#"{"i":5,"ok":true,"children":[],"watches":[]}"#,
        r#"{"i":6,"ok":true,"exists":false,"watches":[]}"#,
        r#"{"i":7,"error":"NODEEXISTS","watches":[]}"#,
        r#"{"i":8,"ok":true,"path":"/a/e","watches":[{"s":"s2","type":"NodeChildrenChanged","path":"/a"}]}"#,
        r#"{"i":9,"error":"NOCHILDRENFOREPHEMERALS","watches":[]}"#,
        // The sequence number is the parent's count of child creates: /a/e was the first.
        r#"{"i":10,"ok":true,"path":"/a/n-0000000001","watches":[]}"#,
        r#"{"i":11,"error":"BADVERSION","watches":[]}"#,
        r#"{"i":12,"ok":true,"version":1,"watches":[{"s":"s2","type":"NodeDataChanged","path":"/a"}]}"#,
        r#"{"i":13,"error":"NOTEMPTY","watches":[]}"#,
        // All or nothing: the create of /b is not applied, the error is the first failing op's.
        r#"{"i":14,"error":"NONODE","watches":[]}"#,
        r#"{"i":15,"ok":true,"watches":[{"s":"s2","type":"NodeCreated","path":"/b"}]}"#,
        r#"{"i":16,"ok":true,"version":1,"data":"y","ephemeral":false,"num_children":2,"watches":[]}"#,
        r#"{"i":17,"ok":true,"children":["e","n-0000000001"],"watches":[]}"#,
        // s1's close deletes its ephemeral /a/e: s2's child watch fires.
        r#"{"i":18,"ok":true,"watches":[{"s":"s2","type":"NodeChildrenChanged","path":"/a"}]}"#,
        r#"{"i":19,"error":"SESSIONEXPIRED","watches":[]}"#,
        r#"{"i":20,"ok":true,"children":["n-0000000001"],"watches":[]}"#,
        r#"{"i":21,"ok":true,"watches":[]}"#,
        r#"{"i":22,"error":"SESSIONEXPIRED","watches":[]}"#,
        r#"{"i":23,"ok":true,"watches":[]}"#,
        r#"{"i":24,"ok":true,"version":1,"data":"w","ephemeral":false,"num_children":0,"watches":[]}"#,
    ];
    assert_eq!(lines(&o), want);
}

#[test]
fn a_delete_fires_one_notification_per_session_and_a_get_on_a_missing_node_sets_no_watch() {
    let input = r#"{"s":"a","op":"connect"}
{"s":"b","op":"connect"}
{"s":"b","op":"get","path":"/x","watch":true}
{"s":"a","op":"create","path":"/x"}
{"s":"b","op":"get","path":"/x","watch":true}
{"s":"b","op":"children","path":"/x","watch":true}
{"s":"a","op":"children","path":"/","watch":true}
{"s":"a","op":"delete","path":"/x","version":0}
"#;
    let o = replay(input);
    assert!(o.status.success());
    let l = lines(&o);
    assert_eq!(l[3], r#"{"i":4,"ok":true,"path":"/x","watches":[]}"#);
    assert_eq!(
        l[7],
        r#"{"i":8,"ok":true,"watches":[{"s":"a","type":"NodeChildrenChanged","path":"/"},{"s":"b","type":"NodeDeleted","path":"/x"}]}"#
    );
}

#[test]
fn bad_input_is_one_error_line_naming_the_line_and_exit_2() {
    for (input, says) in [
        ("{\"s\":\"a\",\"op\":\"connect\"}\nnot json\n", "line 2: not JSON"),
        ("{\"s\":\"a\",\"op\":\"connect\"}\n{\"s\":\"a\",\"op\":\"rename\",\"path\":\"/x\"}\n", "line 2: unknown op 'rename'"),
        ("{\"s\":\"a\",\"op\":\"get\",\"path\":\"/x\"}\n", "line 1: session 'a' was never connected"),
        ("{\"s\":\"a\",\"op\":\"connect\"}\n{\"s\":\"a\",\"op\":\"get\"}\n", "line 2: missing field 'path'"),
        ("{\"s\":\"a\",\"op\":\"connect\"}\n{\"s\":\"a\",\"op\":\"get\",\"path\":\"x/\"}\n", "line 2: invalid path 'x/'"),
        (
            "{\"s\":\"a\",\"op\":\"connect\"}\n{\"s\":\"a\",\"op\":\"multi\",\"ops\":[{\"op\":\"sync\",\"path\":\"/\"}]}\n",
            "line 2: unknown multi op 'sync'",
        ),
    ] {
        let o = replay(input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{err} should say {says}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let o = Command::new(env!("CARGO_BIN_EXE_splitbrain")).args(["zk-replay", "/no/such/file"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// Found by the fuzz target `zk_replay` (fuzz/, 2026-12-05): a session name holding a JSON `"\n"`
/// was echoed raw, so the error spanned two lines. Every name the input gives (session, op, path,
/// multi op) is shown with its control characters escaped.
#[test]
fn names_with_line_breaks_are_escaped_in_the_one_error_line() {
    let connect = "{\"s\":\"s1\",\"op\":\"connect\"}\n";
    for (input, says) in [
        // The fuzzer's input, line 3 of its crash artifact.
        (
            format!("{connect}{{\"s\": \"\\n\", \"op\": \"create\", \"path\": \"/a\", \"data\": \"x\", \"ephemeral\": false, \"sequential\": false}}\n"),
            r"line 2: session '\n' was never connected",
        ),
        (format!("{connect}{connect}").replace("s1", "a\\r\\nb"), r"line 2: session 'a\r\nb' is already connected"),
        (format!("{connect}{{\"s\":\"s1\",\"op\":\"x\\ny\"}}\n"), r"line 2: unknown op 'x\ny'"),
        (format!("{connect}{{\"s\":\"s1\",\"op\":\"get\",\"path\":\"/a\\n/\"}}\n"), r"line 2: invalid path '/a\n/'"),
        (
            format!("{connect}{{\"s\":\"s1\",\"op\":\"multi\",\"ops\":[{{\"op\":\"\\u0007\",\"path\":\"/\"}}]}}\n"),
            r"line 2: unknown multi op '\u{7}' (check, create, set, delete)",
        ),
    ] {
        let o = replay(&input);
        assert_eq!(o.status.code(), Some(2), "{input}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(err.trim_end(), format!("splitbrain: zk-replay: {says}"));
    }
}
