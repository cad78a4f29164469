//! One answer for a whole import: counts, brokers, epochs, signatures and the lines not read.
use crate::event::Broker;
use crate::parse::{self, FileInfo, Input, LineKind, Parsed};
use crate::signatures::{self, Signature};
use crate::timeline::{self, Timeline};
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// How many unknown lines the report shows raw (all are counted).
pub const UNKNOWN_SHOWN: usize = 50;

/// A line shown raw.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct RawLine {
    /// Its global line number.
    pub line: u32,
    /// Its file's index.
    pub file: u16,
    /// Its line number in its file.
    pub file_line: u32,
    /// Its text (at most 500 characters).
    pub text: String,
}

/// The import's answer.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Report {
    /// Lines read.
    pub lines: u32,
    /// Lines that gave a typed event.
    pub typed: u32,
    /// Log statements read but not typed.
    pub other: u32,
    /// Lines that are not a log statement the importer knows.
    pub unknown: u32,
    /// Brokers seen, by id.
    pub brokers: Vec<Broker>,
    /// Records whose broker is unknown.
    pub unknown_broker: u32,
    /// Per-file facts.
    pub files: Vec<FileInfo>,
    /// Controller epochs (the timeline's bands).
    pub epochs: Vec<timeline::EpochBand>,
    /// The signatures found.
    pub signatures: Vec<Signature>,
    /// "no split-brain signature", or what was found, in one sentence.
    pub verdict: String,
    /// The first [`UNKNOWN_SHOWN`] unknown lines, raw.
    pub unknown_lines: Vec<RawLine>,
    /// The timeline (lanes, markers, skews).
    pub timeline: Timeline,
}

/// Imports `inputs`; `progress(done_bytes, total_bytes)` is called as parsing goes.
pub fn import(inputs: &[Input<'_>], progress: &mut dyn FnMut(u64, u64)) -> Report {
    let parsed = parse::parse(inputs, progress);
    report(inputs, &parsed)
}

/// The report of an already parsed import.
pub fn report(inputs: &[Input<'_>], parsed: &Parsed) -> Report {
    let mut timeline = timeline::build(parsed);
    let signatures = signatures::find(&timeline);
    timeline.cap();
    let count = |k: LineKind| parsed.records.iter().filter(|r| r.kind == k).count() as u32;
    let mut brokers: Vec<Broker> = parsed.records.iter().filter_map(|r| r.broker).collect();
    brokers.sort_unstable();
    brokers.dedup();
    let unknown_lines = parsed
        .records
        .iter()
        .filter(|r| r.kind == LineKind::Unknown)
        .take(UNKNOWN_SHOWN)
        .map(|r| RawLine {
            line: r.global,
            file: r.file,
            file_line: r.line,
            text: raw_text(inputs, r.file, line_span(inputs, r.file, r.message.0), 500),
        })
        .collect();
    let verdict = crate::signatures::verdict(&signatures);
    // A `kafka-topics --describe` row that states a leader is a typed event too.
    let described = parsed.records.iter().filter(|r| r.kind == LineKind::Describe && r.event.is_some()).count() as u32;
    Report {
        lines: parsed.lines,
        typed: count(LineKind::Typed) + described,
        other: count(LineKind::Other) + count(LineKind::Describe) - described,
        unknown: count(LineKind::Unknown),
        brokers,
        unknown_broker: parsed.records.iter().filter(|r| r.broker.is_none()).count() as u32,
        files: parsed.files.clone(),
        epochs: timeline.epochs.clone(),
        signatures,
        verdict,
        unknown_lines,
        timeline,
    }
}

/// The whole line of input `file` around byte `at` (a record's first line, envelope and all: what
/// "shown raw" means).
pub fn line_span(inputs: &[Input<'_>], file: u16, at: u32) -> (u32, u32) {
    let Some(input) = inputs.get(file as usize) else { return (at, at) };
    let b = input.bytes;
    let at = (at as usize).min(b.len());
    let start = b[..at].iter().rposition(|&c| c == b'\n').map(|i| i + 1).unwrap_or(0);
    let end = b[at..].iter().position(|&c| c == b'\n').map(|i| at + i).unwrap_or(b.len());
    let end = if end > start && b.get(end - 1) == Some(&b'\r') { end - 1 } else { end };
    (start as u32, end as u32)
}

/// The text of a byte range of input `file`, lossily decoded and cut at `max` characters.
pub fn raw_text(inputs: &[Input<'_>], file: u16, range: (u32, u32), max: usize) -> String {
    let Some(input) = inputs.get(file as usize) else { return String::new() };
    let (a, b) = (range.0 as usize, (range.1 as usize).min(input.bytes.len()));
    let bytes = input.bytes.get(a..b.max(a)).unwrap_or(&[]);
    String::from_utf8_lossy(bytes).chars().take(max).collect()
}
