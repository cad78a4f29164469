//! `splitbrain import` from the outside: one JSON object, exit 0 with a result for any bytes, exit
//! 2 with one line for bad arguments.
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_splitbrain"))
}

fn tmp(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("splitbrain-import-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

#[test]
fn any_bytes_get_one_json_object_and_exit_0() {
    let mut noise = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..200_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        noise.push((x >> 16) as u8);
    }
    for (name, bytes) in [
        ("empty.log", Vec::new()),
        ("noise.log", noise),
        ("latin1.log", b"[2018-03-10 15:48:30,006] INFO caf\xe9 \xff\xfe (x)\n".to_vec()),
    ] {
        let p = tmp(name, &bytes);
        let out = bin().args(["import", "--json"]).arg(&p).output().expect("runs");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{name}: not one JSON object: {e}"));
        for k in ["lines", "typed", "unknown", "brokers", "epochs", "signatures", "fit"] {
            assert!(v.get(k).is_some(), "{name}: no '{k}' in {v}");
        }
        let (lines, typed, other, unknown) =
            (v["lines"].as_u64(), v["typed"].as_u64(), v["other"].as_u64(), v["unknown"].as_u64());
        assert!(
            typed.unwrap() + other.unwrap() + unknown.unwrap() <= lines.unwrap(),
            "{name}: counts exceed lines: {v}"
        );
    }
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let p = tmp("one.log", b"x\n");
    let cases: Vec<Vec<String>> = vec![
        vec!["import".into()],
        vec!["import".into(), "/nonexistent/controller.log".into()],
        vec!["import".into(), p.display().to_string(), "--broker".into(), "x=y".into()],
        vec!["import".into(), p.display().to_string(), "--broker".into(), format!("2={}.other", p.display())],
        vec!["import".into(), p.display().to_string(), "--frobnicate".into()],
    ];
    for args in cases {
        let out = bin().args(&args).output().expect("runs");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
