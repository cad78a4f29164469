//! Records for the unit tests of the timeline, the signatures and the fit: typed lines as the
//! parser would give them, without a parser.
use crate::event::Event;
use crate::parse::{LineKind, Record};

/// A typed record of `broker` at `ts` in file `file`, global line `global`.
pub fn rec_in(global: u32, ts: Option<i64>, file: u16, broker: i32, event: Event) -> Record {
    Record {
        file,
        line: global,
        global,
        continuation: 0,
        ts_ms: ts,
        level: None,
        logger: None,
        broker: Some(broker),
        broker_source: None,
        prefix_epoch: None,
        kind: LineKind::Typed,
        event: Some(event),
        message: (0, 0),
    }
}

/// A typed record of `broker` at `ts`, in file 0.
pub fn rec(global: u32, ts: i64, broker: i32, event: Event) -> Record {
    rec_in(global, Some(ts), 0, broker, event)
}
