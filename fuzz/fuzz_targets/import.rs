//! `splitbrain import`'s parser on any bytes: the data is split into one to three inputs (the
//! first byte chooses how many, where they split and which carry a user-named broker) and fed
//! to `splitbrain_import::parse::parse`. The contract: no panic, no hang; every record's line
//! numbers lie within its file and the whole import, its message range within its input, its
//! file index names an input; records come in input order; progress ends at the total.
#![no_main]
use libfuzzer_sys::fuzz_target;
use splitbrain_import::parse::{parse, Input, LineKind};

fuzz_target!(|data: &[u8]| {
    let (ctl, rest) = match data.split_first() {
        Some((c, r)) => (*c, r),
        None => (0, data),
    };
    let n = 1 + usize::from(ctl % 3);
    let names = ["broker2/controller.log", "paste", "kafka-3.log"];
    let mut inputs = Vec::new();
    let mut left = rest;
    for i in 0..n {
        let take = if i + 1 == n { left.len() } else { left.len() * (1 + usize::from((ctl >> 2) & 3)) / 5 };
        let (a, b) = left.split_at(take.min(left.len()));
        let broker = if (ctl >> (4 + i)) & 1 == 1 { Some(i as i32 + 1) } else { None };
        inputs.push(Input { name: names[i], bytes: a, broker });
        left = b;
    }
    let total: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let mut last = (0u64, 0u64);
    let parsed = parse(&inputs, &mut |d, t| {
        assert!(d <= t && t == total, "progress {d}/{t} of {total}");
        assert!(d >= last.0, "progress went back");
        last = (d, t);
    });
    assert_eq!(last, (total, total), "progress ends at the total");
    assert_eq!(parsed.files.len(), inputs.len());
    let lines: u32 = parsed.files.iter().map(|f| f.lines).sum();
    assert_eq!(parsed.lines, lines);
    let mut prev = (0u16, 0u32, 0u32);
    for r in &parsed.records {
        let f = r.file as usize;
        assert!(f < inputs.len());
        assert!(r.line >= 1 && r.line <= parsed.files[f].lines, "line {} of {}", r.line, parsed.files[f].lines);
        assert!(r.global >= 1 && r.global <= parsed.lines);
        assert!(r.line + r.continuation <= parsed.files[f].lines);
        assert!((r.file, r.line, r.global) > prev, "records out of order");
        prev = (r.file, r.line, r.global);
        let (a, b) = (r.message.0 as usize, r.message.1 as usize);
        assert!(a <= b && b <= inputs[f].bytes.len(), "message {a}..{b} of {}", inputs[f].bytes.len());
        if r.kind == LineKind::Typed {
            assert!(r.event.is_some(), "a typed record without an event");
        }
        if matches!(r.kind, LineKind::Other | LineKind::Unknown) {
            assert!(r.event.is_none(), "an untyped record with an event");
        }
        assert_eq!(r.broker.is_some(), r.broker_source.is_some());
    }
    let _ = serde_json::to_string(&parsed).expect("a parse serialises");
});
