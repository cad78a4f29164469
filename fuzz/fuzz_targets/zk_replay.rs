//! `splitbrain zk-replay`'s input: the bytes are split into lines as the CLI reads them
//! (`BufRead::lines`: `\n` or `\r\n`, blank lines skipped) and fed to
//! `splitbrain_cli::zk_replay::Replay::line` until the first rejection, which ends the replay as
//! it ends the CLI. A rejection is one line; every answer is one line of JSON.
#![no_main]
use libfuzzer_sys::fuzz_target;
use splitbrain_cli::zk_replay::Replay;

#[path = "contract.rs"]
mod contract;

fuzz_target!(|data: &[u8]| {
    // The CLI rejects input that is not UTF-8 as a whole ("cannot read"), before any line.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut replay = Replay::default();
    for (n, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        match replay.line(n + 1, line) {
            Ok(answer) => {
                assert!(!answer.contains('\n'), "an answer spans lines: {answer:?}");
                let v: serde_json::Value = serde_json::from_str(&answer).expect("every answer is JSON");
                assert_eq!(v.get("i").and_then(|i| i.as_u64()), Some(n as u64 + 1), "the answer names its line");
            }
            Err(e) => return contract::one_line("zk-replay", &e),
        }
    }
});
