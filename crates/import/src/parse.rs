//! Turns the bytes of one or more log files into [`Record`]s: one per log statement (a stack
//! trace's lines fold into the statement above them), each with its time, level, logger, the
//! broker that wrote it and, where the message is one the importer knows, a typed [`Event`].
//!
//! The envelope (layouts, prefixes, paste artefacts) is read in `envelope.rs`, the broker's
//! identity in `identity.rs`, the message's meaning in `recognise.rs`.
use crate::envelope::{self, Cleaner, SCAN_CAP};
use crate::event::{Broker, Event};
use crate::identity;
use crate::recognise::{self, Ctx};
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// One file (or one paste) to import.
#[derive(Clone, Copy, Debug)]
pub struct Input<'a> {
    /// Its name (a file name, or "paste"): a hint for the broker id, never trusted blindly.
    pub name: &'a str,
    /// Its bytes, in any encoding (invalid UTF-8 is read lossily).
    pub bytes: &'a [u8],
    /// The broker the user says wrote it (`--broker N=FILE`, the page's "name it").
    pub broker: Option<Broker>,
}

/// Where a record's broker id came from.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BrokerSource {
    /// The user named it.
    User,
    /// The line itself (`[Broker id=1]`, `on broker 1`, `[KafkaServer id=1]`, `controllerId=1`).
    Line,
    /// A docker-compose, kubectl or grep prefix (`kafka-1  |`, `[pod/kafka-2/kafka]`).
    Prefix,
    /// The file's name (`broker2/controller.log`, `kafka-3.log`).
    FileName,
    /// Another line of the same file or prefix said it.
    SameSource,
}

/// A log4j level.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Trace,
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

/// What kind of line a record is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// A log statement whose message the importer types (its `event` is set).
    Typed,
    /// A well-formed log statement the importer does not type (most of a log).
    Other,
    /// A row of `kafka-topics --describe` (typed when it states a leader).
    Describe,
    /// Not a log statement the importer could read: kept, counted and shown raw.
    Unknown,
}

/// One log statement.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Record {
    /// Index of its file in the inputs.
    pub file: u16,
    /// Its first line's number in its file (1-based).
    pub line: u32,
    /// Its first line's number across all inputs, in the order given (1-based): what
    /// signatures cite.
    pub global: u32,
    /// Lines folded into it (a stack trace): 0 for most.
    pub continuation: u32,
    /// Milliseconds since 1970-01-01 of its timestamp, read as written (no time zone is known).
    pub ts_ms: Option<i64>,
    /// Its level.
    pub level: Option<Level>,
    /// Its logger (`kafka.controller.KafkaController`, `state.change.logger`), if the layout
    /// shows it.
    pub logger: Option<String>,
    /// The broker that wrote it, if known.
    pub broker: Option<Broker>,
    /// Where `broker` came from.
    pub broker_source: Option<BrokerSource>,
    /// A controller epoch the line's prefix states (`[Controller id=1 epoch=8]`,
    /// `[Controller 1 epoch 8]`).
    pub prefix_epoch: Option<i32>,
    /// What kind of line it is.
    pub kind: LineKind,
    /// What it says, when typed.
    pub event: Option<Event>,
    /// Byte range of its message (after the envelope) in its input.
    pub message: (u32, u32),
}

/// Per-file facts.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct FileInfo {
    /// Its name.
    pub name: String,
    /// Lines in it.
    pub lines: u32,
    /// The broker that wrote it, when one broker did (from the user, its lines or its name).
    pub broker: Option<Broker>,
    /// Where that came from.
    pub broker_source: Option<BrokerSource>,
    /// It read as a paste of several brokers' lines (prefixes or lines naming different brokers).
    pub mixed: bool,
}

/// What [`parse`] returns.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Parsed {
    /// Every record, in input order (not yet by time).
    pub records: Vec<Record>,
    /// Lines read, across every input.
    pub lines: u32,
    /// Per-file facts.
    pub files: Vec<FileInfo>,
}

/// Progress is reported every this many bytes.
const PROGRESS_EVERY: usize = 64 * 1024;

/// Distinct collector prefixes tracked per file (beyond it, a prefix gives no identity).
const MAX_SOURCES: usize = 256;

/// Parses `inputs`; `progress(done_bytes, total_bytes)` is called as it goes.
pub fn parse(inputs: &[Input<'_>], progress: &mut dyn FnMut(u64, u64)) -> Parsed {
    let total: u64 = inputs.iter().map(|i| i.bytes.len() as u64).sum();
    let mut out = Parsed::default();
    let mut cleaner = Cleaner::default();
    let mut done: u64 = 0;
    let mut global: u32 = 0;
    progress(0, total);
    for (fi, input) in inputs.iter().enumerate().take(usize::from(u16::MAX)) {
        let mut file = FileParse::new(fi as u16);
        let bytes = input.bytes;
        let mut pos = 0usize;
        let mut last_report = 0usize;
        while pos < bytes.len() {
            let nl = bytes[pos..].iter().position(|b| *b == b'\n').map(|n| pos + n);
            let end = nl.unwrap_or(bytes.len());
            global = global.saturating_add(1);
            file.line(&mut out.records, &mut cleaner, bytes, pos, end, global);
            pos = nl.map(|n| n + 1).unwrap_or(bytes.len());
            if pos - last_report >= PROGRESS_EVERY {
                last_report = pos;
                progress(done + pos as u64, total);
            }
        }
        done += bytes.len() as u64;
        out.lines = out.lines.saturating_add(file.lines);
        out.files.push(file.finish(input, &mut out.records));
    }
    progress(total, total);
    out
}

/// One file's parse: its records' collector prefixes, so identity can be settled at its end.
struct FileParse {
    index: u16,
    lines: u32,
    first: usize,
    /// Per record of this file: index into `sources` (or `u32::MAX`).
    rec_source: Vec<u32>,
    /// Distinct collector prefix names, in order of appearance, and their index.
    sources: Vec<Vec<u8>>,
    index_of: BTreeMap<Vec<u8>, u32>,
    /// The last record per source, for folding stack traces (`sources.len()` is "none").
    last_of_source: Vec<Option<usize>>,
    last_none: Option<usize>,
}

impl FileParse {
    fn new(index: u16) -> Self {
        FileParse {
            index,
            lines: 0,
            first: usize::MAX,
            rec_source: Vec::new(),
            sources: Vec::new(),
            index_of: BTreeMap::new(),
            last_of_source: Vec::new(),
            last_none: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn line(
        &mut self,
        records: &mut Vec<Record>,
        cleaner: &mut Cleaner,
        bytes: &[u8],
        start: usize,
        end: usize,
        global: u32,
    ) {
        self.lines = self.lines.saturating_add(1);
        if self.first == usize::MAX {
            self.first = records.len();
        }
        let raw = &bytes[start..end];
        // The message range ends at the line's end without CR and trailing blanks (beyond the scan cap too).
        let mut raw_end = raw.len();
        while raw_end > 0 && matches!(raw[raw_end - 1], b'\r' | b' ' | b'\t') {
            raw_end -= 1;
        }
        let scan = &raw[..raw.len().min(SCAN_CAP)];
        if !cleaner.prepare(scan) {
            return;
        }
        let cleaner = &*cleaner;
        let view = cleaner.view(scan);
        // Collector prefixes (docker-compose, kubectl, grep), possibly nested.
        let mut p = 0;
        let mut src: Option<(usize, usize)> = None;
        for _ in 0..3 {
            let Some(s) = envelope::source(&view[p..]) else { break };
            if src.is_none() {
                src = Some((p + s.name.0, p + s.name.1));
            }
            p += s.rest;
            if p < view.len() && view[p] == b'>' {
                p += 1;
            }
        }
        let indent = view[p..].iter().take_while(|b| **b == b' ' || **b == b'\t').count();
        let mut body_at = p + indent;
        // A Kafka line wrapped in another tool's line (a test harness's "STDOUT: [2022-..] INFO ..",
        // stern's "<pod> <container> [2019-..] .."): read from Kafka's own layout on.
        if let Some(k) = envelope::embedded(&view[body_at..]) {
            body_at += k;
        }
        let body = &view[body_at..];
        if body.is_empty() {
            return;
        }
        let source = src.map(|(a, b)| self.source_index(&view[a..b])).unwrap_or(u32::MAX);
        let abs = |i: usize, cl: &Cleaner| -> u32 {
            let o = cl.orig(i);
            let o = if o >= scan.len() { raw_end } else { o.min(raw_end) };
            (start + o).min(u32::MAX as usize) as u32
        };
        let line_no = self.lines;
        let prev = self.last(source);
        // `kafka-topics --describe` rows.
        if let Some(ev) = recognise::describe(body) {
            let message = (abs(body_at, cleaner), (start + raw_end).min(u32::MAX as usize) as u32);
            self.push(records, source, record(self.index, line_no, global, LineKind::Describe, ev, message));
            return;
        }
        // Stack traces fold into the statement above.
        if let Some(pi) = prev {
            if envelope::trace_line(body, indent > 0) {
                let upgrade = if body.starts_with(b"at ") || body.starts_with(b"...") {
                    None
                } else {
                    recognise::recognise(body, &Ctx::default()).map(|f| f.event)
                };
                fold(&mut records[pi], upgrade);
                return;
            }
        }
        let h = envelope::head(body);
        let msg = &body[h.msg.0..h.msg.1];
        let id = identity::ident(msg);
        let text = &msg[id.len.min(msg.len())..];
        let ctx = Ctx { writer: id.broker, epoch: id.epoch, partition: id.partition.as_ref() };
        let found = recognise::recognise(text, &ctx);
        if !h.statement() && found.is_none() && indent > 0 {
            if let Some(pi) = prev {
                // An indented line that is no statement (a config dump, a wrapped message).
                fold(&mut records[pi], None);
                return;
            }
        }
        // A line opening with a Kafka logIdent (`[Controller id=1]`, `[Broker id=2]`, `[Controller 1]:`)
        // is a Kafka statement even when the paste lost its time and level.
        let kind = match (&found, h.statement() || id.len > 0) {
            (Some(_), _) => LineKind::Typed,
            (None, true) => LineKind::Other,
            (None, false) => LineKind::Unknown,
        };
        let thread_broker = h.thread.and_then(|(a, b)| identity::thread(&body[a..b]));
        let (event, text_writer) = match found {
            Some(f) => (Some(f.event), f.writer),
            None => (None, None),
        };
        // A typed message says its writer itself (`Broker W has been elected ...` names another broker).
        let lead = if event.is_none() { identity::text_lead(text) } else { None };
        let broker = id.broker.or(text_writer).or(thread_broker).or(lead);
        let msg_start = if kind == LineKind::Unknown { body_at } else { body_at + h.msg.0 };
        let msg_end = if h.msg.1 == body.len() { view.len() } else { body_at + h.msg.1 };
        let message = (abs(msg_start, cleaner), abs(msg_end, cleaner));
        let mut r = record(self.index, line_no, global, kind, event, message);
        r.ts_ms = h.ts_ms;
        r.level = h.level;
        r.logger = h.logger.map(|(a, b)| String::from_utf8_lossy(&body[a..b]).into_owned());
        r.broker = broker;
        r.broker_source = broker.map(|_| BrokerSource::Line);
        r.prefix_epoch = id.epoch;
        self.push(records, source, r);
    }

    fn source_index(&mut self, name: &[u8]) -> u32 {
        if let Some(i) = self.index_of.get(name) {
            return *i;
        }
        if self.sources.len() >= MAX_SOURCES {
            return u32::MAX;
        }
        self.index_of.insert(name.to_vec(), self.sources.len() as u32);
        self.sources.push(name.to_vec());
        self.last_of_source.push(None);
        (self.sources.len() - 1) as u32
    }

    fn last(&self, source: u32) -> Option<usize> {
        if source == u32::MAX {
            self.last_none
        } else {
            self.last_of_source[source as usize]
        }
    }

    fn push(&mut self, records: &mut Vec<Record>, source: u32, r: Record) {
        let i = records.len();
        records.push(r);
        self.rec_source.push(source);
        if source == u32::MAX {
            self.last_none = Some(i);
        } else {
            self.last_of_source[source as usize] = Some(i);
        }
    }

    /// Settles every record's broker (user, line, same source, prefix, file name) and the file's facts.
    fn finish(self, input: &Input<'_>, records: &mut [Record]) -> FileInfo {
        let first = self.first.min(records.len());
        let recs = &mut records[first..];
        let mut info = FileInfo {
            name: String::from(input.name),
            lines: self.lines,
            broker: None,
            broker_source: None,
            mixed: false,
        };
        if let Some(b) = input.broker {
            for r in recs.iter_mut() {
                r.broker = Some(b);
                r.broker_source = Some(BrokerSource::User);
            }
            info.broker = Some(b);
            info.broker_source = Some(BrokerSource::User);
            return info;
        }
        // A file of bare messages (no line has a time or a level) is a log whose envelope was
        // stripped: once one of its lines is a Kafka statement we know, the rest are statements too.
        if recs.iter().all(|r| r.ts_ms.is_none() && r.level.is_none()) && recs.iter().any(|r| r.kind == LineKind::Typed)
        {
            for r in recs.iter_mut().filter(|r| r.kind == LineKind::Unknown) {
                r.kind = LineKind::Other;
            }
        }
        blocks(input, recs, &self.rec_source);
        // The brokers each source's lines name (index `sources.len()`: lines with no prefix).
        let n = self.sources.len();
        let mut named: Vec<Option<Broker>> = alloc::vec![None; n + 1];
        let mut conflict: Vec<bool> = alloc::vec![false; n + 1];
        for (r, s) in recs.iter().zip(&self.rec_source) {
            let k = if *s == u32::MAX { n } else { *s as usize };
            if let Some(b) = r.broker {
                match named[k] {
                    None => named[k] = Some(b),
                    Some(x) if x != b => conflict[k] = true,
                    _ => {}
                }
            }
        }
        let prefix: Vec<Option<Broker>> = self.sources.iter().map(|s| identity::name(s)).collect();
        let file_name = identity::name(input.name.as_bytes());
        for (r, s) in recs.iter_mut().zip(&self.rec_source) {
            // `kafka-topics --describe` rows are written by a tool, not a broker.
            if r.broker.is_some() || r.kind == LineKind::Describe {
                continue;
            }
            let k = if *s == u32::MAX { n } else { *s as usize };
            let (b, src) = if let (Some(b), false) = (named[k], conflict[k]) {
                (Some(b), BrokerSource::SameSource)
            } else if let Some(b) = prefix.get(k).copied().flatten().filter(|_| named[k].is_none()) {
                (Some(b), BrokerSource::Prefix)
            } else if let Some(b) = file_name.filter(|_| named[k].is_none() && (k == n || prefix[k].is_none())) {
                (Some(b), BrokerSource::FileName)
            } else {
                (None, BrokerSource::Line)
            };
            r.broker = b;
            r.broker_source = b.map(|_| src);
        }
        let mut seen: Option<Broker> = None;
        let mut best: Option<BrokerSource> = None;
        for r in recs.iter() {
            let Some(b) = r.broker else { continue };
            match seen {
                None => seen = Some(b),
                Some(x) if x != b => info.mixed = true,
                _ => {}
            }
            let rank = |s: Option<BrokerSource>| match s {
                Some(BrokerSource::Line) => 4,
                Some(BrokerSource::SameSource) => 3,
                Some(BrokerSource::Prefix) => 2,
                Some(BrokerSource::FileName) => 1,
                _ => 0,
            };
            if rank(r.broker_source) > rank(best) {
                best = r.broker_source;
            }
        }
        if !info.mixed {
            if let Some(b) = seen {
                info.broker = Some(b);
                info.broker_source = match best {
                    Some(BrokerSource::SameSource) => Some(BrokerSource::Line),
                    other => other,
                };
            } else if let Some(b) = file_name {
                info.broker = Some(b);
                info.broker_source = Some(BrokerSource::FileName);
            }
        }
        info
    }
}

/// A paste of several brokers' lines comes in blocks, separated by lines that are not Kafka's
/// (a heading, prose, `==> kafka2/server.log <==`). Within one source (prefix), the lines of a block
/// that name no broker take the one broker the block's lines name, or the one its heading names
/// ("Controller log from broker 1:", "**kafka-2 logs**"); where a block names several, each takes
/// the nearest one named before it. A heading starts a new block: no line borrows a broker across it.
fn blocks(input: &Input<'_>, recs: &mut [Record], sources: &[u32]) {
    struct Block {
        heading: Option<Broker>,
        named: Option<Broker>,
        conflict: bool,
        members: Vec<usize>,
    }
    fn close(recs: &mut [Record], b: Block) {
        let one = if b.conflict { None } else { b.named.or(b.heading) };
        let mut nearest = b.heading.filter(|_| b.named.is_none() || !b.conflict);
        for i in b.members {
            let r = &mut recs[i];
            if r.broker.is_some() {
                nearest = r.broker;
                continue;
            }
            if r.kind == LineKind::Describe {
                continue;
            }
            if let Some(x) = one.or(if b.conflict { nearest } else { None }) {
                r.broker = Some(x);
                r.broker_source = Some(BrokerSource::SameSource);
            }
        }
    }
    let mut open: Vec<(u32, Block)> = Vec::new();
    for i in 0..recs.len() {
        let s = sources.get(i).copied().unwrap_or(u32::MAX);
        let pos = match open.iter().position(|(k, _)| *k == s) {
            Some(p) => p,
            None => {
                open.push((s, Block { heading: None, named: None, conflict: false, members: Vec::new() }));
                open.len() - 1
            }
        };
        if recs[i].kind == LineKind::Unknown {
            let span = crate::report::line_span(core::slice::from_ref(input), 0, recs[i].message.0);
            let text = input.bytes.get(span.0 as usize..span.1 as usize).unwrap_or(&[]);
            let heading = heading_broker(text);
            let done = core::mem::replace(
                &mut open[pos].1,
                Block { heading, named: None, conflict: false, members: Vec::new() },
            );
            close(recs, done);
            continue;
        }
        let b = &mut open[pos].1;
        if recs[i].broker_source == Some(BrokerSource::Line) {
            match (b.named, recs[i].broker) {
                (None, x) => b.named = x,
                (Some(x), Some(y)) if x != y => b.conflict = true,
                _ => {}
            }
        }
        b.members.push(i);
    }
    for (_, b) in open {
        close(recs, b);
    }
}

/// The broker a heading line names: a file or host name (`==> /var/log/kafka2/server.log <==`,
/// `**kafka-2 logs**`), or "broker N" in its words ("Controller log from broker 1:").
fn heading_broker(text: &[u8]) -> Option<Broker> {
    // Only what reads as a heading: short, and a title's shape (`# ..`, `**..**`, `==> .. <==`,
    // `...:`) or about logs. A stray line of prose naming a broker inside one broker's log is not.
    let t = text.trim_ascii();
    let titled = t.starts_with(b"#") || t.starts_with(b"**") || t.starts_with(b"==>") || t.ends_with(b":");
    let about_logs = t.windows(3).any(|w| w.eq_ignore_ascii_case(b"log"));
    if t.len() > 100 || !(titled || about_logs) {
        return None;
    }
    let text = t;
    identity::name(text).or_else(|| {
        let at = (0..text.len()).find(|&i| {
            (i == 0 || !text[i - 1].is_ascii_alphanumeric())
                && text[i..].len() > 7
                && text[i..i + 7].eq_ignore_ascii_case(b"broker ")
                && text[i + 7].is_ascii_digit()
        })?;
        let digits: Vec<u8> = text[at + 7..].iter().copied().take_while(u8::is_ascii_digit).collect();
        let end = text.get(at + 7 + digits.len()).copied();
        if digits.len() > 4 || end.is_some_and(|c| c.is_ascii_alphanumeric()) {
            return None;
        }
        core::str::from_utf8(&digits).ok()?.parse().ok()
    })
}

fn record(file: u16, line: u32, global: u32, kind: LineKind, event: Option<Event>, message: (u32, u32)) -> Record {
    Record {
        file,
        line,
        global,
        continuation: 0,
        ts_ms: None,
        level: None,
        logger: None,
        broker: None,
        broker_source: None,
        prefix_epoch: None,
        kind,
        event,
        message,
    }
}

/// Folds a stack-trace line into `r`; an exception line may give it the meaning it lacked
/// (`NoReplicaOnlineException` under "failed to change state" means no leader).
fn fold(r: &mut Record, upgrade: Option<Event>) {
    r.continuation = r.continuation.saturating_add(1);
    let Some(ev) = upgrade.filter(|_| r.kind != LineKind::Describe) else { return };
    match (&r.event, &ev) {
        (None, _) => {
            r.event = Some(ev);
            r.kind = LineKind::Typed;
        }
        (Some(Event::StateChangeFailed { partition }), Event::LeaderNone { partition: p2 }) => {
            let partition = p2.clone().or_else(|| partition.clone());
            r.event = Some(Event::LeaderNone { partition });
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Partition;
    use alloc::vec;

    fn one(name: &str, text: &str) -> Parsed {
        parse(&[Input { name, bytes: text.as_bytes(), broker: None }], &mut |_, _| {})
    }
    fn msg<'a>(text: &'a str, r: &Record) -> &'a str {
        &text[r.message.0 as usize..r.message.1 as usize]
    }

    #[test]
    fn a_paste_in_blocks_gives_each_block_its_broker() {
        let text = "Controller log from broker 1:\n\
            [2018-03-10 15:48:30,006] INFO [Controller id=1] 1 successfully elected as the controller (kafka.controller.KafkaController)\n\
            [2018-03-10 15:48:31,847] INFO [OfflinePartitionLeaderSelector]: Selected new leader and ISR {\"leader\":1,\"leader_epoch\":14,\"isr\":[1,2]} for offline partition __consumer_offsets-3 (kafka.controller.OfflinePartitionLeaderSelector)\n\
            **kafka-2 logs**\n\
            [2018-03-10 15:48:30,936] INFO [Controller id=2] 2 successfully elected as the controller (kafka.controller.KafkaController)\n\
            ==> /var/log/kafka3/server.log <==\n\
            [2018-03-10 15:48:40,000] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)\n";
        let p = one("paste.md", text);
        let typed: Vec<(Option<Broker>, &str)> =
            p.records.iter().filter_map(|r| r.event.as_ref().map(|e| (r.broker, e.kind()))).collect();
        assert_eq!(
            typed,
            vec![
                (Some(1), "elected"),
                (Some(1), "selected_leader"),
                (Some(2), "elected"),
                (Some(3), "session_expired")
            ]
        );
    }

    #[test]
    fn a_stray_line_naming_a_broker_is_no_heading() {
        let text = "[2018-03-10 15:48:30,006] INFO [Controller id=1] 1 successfully elected as the controller (kafka.controller.KafkaController)\n\
            we restarted broker 5 around here, it did not help at all and nothing changed\n\
            [2018-03-10 15:48:40,000] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)\n";
        let p = one("controller.log", text);
        assert_eq!(p.records.last().and_then(|r| r.broker), Some(1));
    }

    #[test]
    fn a_file_of_bare_messages_is_statements_once_one_is_known() {
        let p = one("b1.log", "[Controller id=1] Resigning\nCreating /brokers/ids/1 (is it secure? false)\nResult of znode creation is: OK\n");
        let kinds: Vec<LineKind> = p.records.iter().map(|r| r.kind).collect();
        assert_eq!(kinds, vec![LineKind::Typed, LineKind::Other, LineKind::Other]);
        let q = one("notes.txt", "we saw a blip\nthen it was fine\n");
        assert!(q.records.iter().all(|r| r.kind == LineKind::Unknown), "prose alone stays unknown");
    }

    #[test]
    fn a_kafka_line_inside_another_tools_line_is_read_from_its_own_layout() {
        let text = "07:08:49,859  INFO || - [DockerizedKafkaTestSupport] STDOUT: [2022-11-17 07:08:49,856] INFO [Broker id=1] Handling LeaderAndIsr request correlationId 5 from controller 1 for 3 partitions (state.change.logger)\n\
            my-cluster-kafka-0 kafka [2019-10-25 08:17:20,477] INFO [KafkaServer id=1001] started (kafka.server.KafkaServer)\n";
        let p = one("paste", text);
        let got: Vec<(Option<Broker>, Option<&str>, bool)> =
            p.records.iter().map(|r| (r.broker, r.event.as_ref().map(Event::kind), r.ts_ms.is_some())).collect();
        assert_eq!(got, vec![(Some(1), Some("leader_and_isr_received"), true), (Some(1001), Some("started"), true)]);
    }

    #[test]
    fn empty_and_blank_inputs() {
        let p = one("paste", "");
        assert_eq!((p.lines, p.records.len(), p.files.len()), (0, 0, 1));
        let p = one("paste", "\n\n  \r\n");
        assert_eq!((p.lines, p.records.len()), (3, 0));
    }

    #[test]
    fn a_controller_log_of_1_1() {
        let text = "[2018-03-01 10:00:00,000] INFO [Controller id=1] 1 successfully elected as the controller (kafka.controller.KafkaController)\n\
                    [2018-03-01 10:00:00,001] INFO [Controller id=1] Epoch incremented to 9 (kafka.controller.KafkaController)\n\
                    [2018-03-01 10:00:01,000] INFO [Controller id=1] Resigned (kafka.controller.KafkaController)\n\
                    [2018-03-01 10:00:02,000] DEBUG [Controller id=1] something else (kafka.controller.KafkaController)\n";
        let p = one("controller.log", text);
        assert_eq!(p.lines, 4);
        let r = &p.records;
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].event, Some(Event::Elected { broker: 1, epoch: None }));
        assert_eq!(r[1].event, Some(Event::Elected { broker: 1, epoch: Some(9) }));
        assert_eq!(r[2].event, Some(Event::Resigned { broker: Some(1) }));
        assert_eq!((r[3].kind, r[3].level), (LineKind::Other, Some(Level::Debug)));
        assert_eq!(r[2].logger.as_deref(), Some("kafka.controller.KafkaController"));
        assert_eq!(msg(text, &r[2]), "[Controller id=1] Resigned");
        assert!(r.iter().all(|x| x.broker == Some(1) && x.broker_source == Some(BrokerSource::Line)));
        assert_eq!((r[3].line, r[3].global), (4, 4));
        assert_eq!(p.files[0].broker, Some(1));
        assert!(!p.files[0].mixed);
    }

    #[test]
    fn state_change_prefix_epoch_and_same_source() {
        let text = "[2018-03-01 10:00:00,000] TRACE [Controller id=1 epoch=8] Sending become-leader LeaderAndIsr request PartitionState(controllerEpoch=8, leader=1, leaderEpoch=14, isr=1,2, zkVersion=27, replicas=1,2,3, isNew=false) to broker 2 for partition t-3 (state.change.logger)\n\
                    [2018-03-01 10:00:00,001] TRACE some line without a broker (state.change.logger)\n";
        let p = one("state-change.log", text);
        let r = &p.records;
        assert_eq!(r[0].prefix_epoch, Some(8));
        assert!(matches!(r[0].event, Some(Event::LeaderAndIsrSent { to: Some(2), controller_epoch: Some(8), .. })));
        assert_eq!((r[1].broker, r[1].broker_source), (Some(1), Some(BrokerSource::SameSource)));
    }

    #[test]
    fn stack_traces_fold_and_upgrade() {
        let text = "[2017-11-10 15:48:30,006] ERROR Controller 1 epoch 8 initiated state change for partition [t,3] from OfflinePartition to OnlinePartition failed (state.change.logger)\n\
                    kafka.common.NoReplicaOnlineException: No replica for partition [t,3] is alive. Live brokers are: [Set()], Assigned replicas are: [List(1)]\n\
                    \tat kafka.controller.OfflinePartitionLeaderSelector.selectLeader(PartitionLeaderSelector.scala:75)\n\
                    \t... 12 more\n\
                    Caused by: java.lang.Exception: x\n\
                    [2017-11-10 15:48:31,006] ERROR conflict in /brokers/ids/2 data: x stored data: y (kafka.utils.ZkUtils$)\n\
                    org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists\n";
        let p = one("x", text);
        assert_eq!(p.lines, 7);
        assert_eq!(p.records.len(), 2);
        let r = &p.records;
        assert_eq!(r[0].continuation, 4);
        assert_eq!(
            r[0].event,
            Some(Event::LeaderNone { partition: Some(Partition { topic: "t".into(), partition: 3 }) })
        );
        assert_eq!(r[0].broker, Some(1));
        assert_eq!(r[1].continuation, 1);
        assert_eq!(r[1].event, Some(Event::StaleRegistration { broker: Some(2) }));
        assert_eq!(r[1].line, 6);
    }

    #[test]
    fn unknown_lines_are_kept() {
        let text = "hello there\n[2017-11-10 15:48:30,006] INFO x (y.Z)\n\u{0}\u{1}binary\n";
        let p = one("paste", text);
        assert_eq!(p.records.len(), 3);
        assert_eq!(p.records[0].kind, LineKind::Unknown);
        assert_eq!(msg(text, &p.records[0]), "hello there");
        assert_eq!(p.records[1].kind, LineKind::Other);
        assert_eq!(p.records[2].kind, LineKind::Unknown);
    }

    #[test]
    fn a_message_naming_another_broker_does_not_make_it_the_writer() {
        let text = "[2017-11-10 15:48:30,006] DEBUG Broker 3 has been elected as leader, so stopping the election process. (kafka.server.ZookeeperLeaderElector)\n\
                    [2017-11-10 15:48:30,007] TRACE Broker 2 handling LeaderAndIsr request correlationId 5 from controller 3 epoch 9 starting the become-leader transition for partition [t,3] (state.change.logger)\n";
        let p = one("paste", text);
        assert_eq!(p.records[0].event, Some(Event::ControllerIs { controller: 3, epoch: None }));
        assert_eq!((p.records[0].broker, p.records[0].broker_source), (Some(2), Some(BrokerSource::SameSource)));
        assert_eq!((p.records[1].broker, p.records[1].broker_source), (Some(2), Some(BrokerSource::Line)));
    }

    #[test]
    fn messages_alone_and_without_timestamps() {
        let p = one("paste", "Resigning\nINFO Broker 3 was elected as controller instead of broker 1 (kafka.controller.KafkaController)\n");
        assert_eq!(p.records[0].event, Some(Event::Resigned { broker: None }));
        assert_eq!(p.records[0].kind, LineKind::Typed);
        assert_eq!(p.records[1].level, Some(Level::Info));
        assert_eq!(p.records[1].event, Some(Event::ElectionLost { winner: 3, loser: Some(1) }));
        assert_eq!(p.records[1].broker, Some(1));
    }

    #[test]
    fn docker_compose_mixed_paste() {
        let text = "kafka-1  | [2017-11-10 15:48:30,006] INFO [Controller id=1] Resigned (kafka.controller.KafkaController)\n\
                    kafka-2  | [2017-11-10 15:48:30,007] INFO 2 successfully elected as the controller (kafka.controller.KafkaController)\n\
                    kafka-1  | [2017-11-10 15:48:30,008] INFO something (kafka.server.KafkaServer)\n\
                    kafka-3  | [2017-11-10 15:48:30,009] INFO something (kafka.server.KafkaServer)\n\
                    kafka-2  |     at a.b.C(C.java:1)\n";
        let p = one("paste", text);
        let r = &p.records;
        assert_eq!(r.len(), 4);
        assert_eq!((r[2].broker, r[2].broker_source), (Some(1), Some(BrokerSource::SameSource)));
        assert_eq!((r[3].broker, r[3].broker_source), (Some(3), Some(BrokerSource::Prefix)));
        assert_eq!(r[1].continuation, 1);
        assert!(p.files[0].mixed);
        assert_eq!(p.files[0].broker, None);
        assert_eq!(msg(text, &r[2]), "something");
    }

    #[test]
    fn kubectl_and_grep_prefixes() {
        let text = "[pod/kafka-0/kafka] [2017-11-10 15:48:30,006] INFO shutting down (kafka.server.KafkaServer)\n\
                    controller.log:[2017-11-10 15:48:30,006] INFO [Controller 2]: Broker 2 resigned as the controller (kafka.controller.KafkaController)\n\
                    logs/server.log.2017-11-10-15:[2017-11-10 15:48:30,006] INFO started (kafka.server.KafkaServer)\n";
        let p = one("paste", text);
        let r = &p.records;
        assert_eq!(
            (r[0].event.clone(), r[0].broker, r[0].broker_source),
            (Some(Event::ShuttingDown), Some(0), Some(BrokerSource::Prefix))
        );
        assert_eq!(r[1].event, Some(Event::Resigned { broker: Some(2) }));
        assert_eq!(r[1].broker_source, Some(BrokerSource::Line));
        assert_eq!((r[2].event.clone(), r[2].broker), (Some(Event::Started), None));
        assert_eq!(r[2].ts_ms, Some(1_510_328_910_006));
    }

    #[test]
    fn syslog_strimzi_and_coloured_compose() {
        let text = "Nov 10 15:48:30 kafka1 kafka-server-start.sh[1234]: [2017-11-10 15:48:30,006] INFO zookeeper state changed (Expired) (org.I0Itec.zkclient.ZkClient)\n\
                    2017-11-10 15:48:31,006 INFO [Controller id=0] Resigned (kafka.controller.KafkaController) [controller-event-thread]\n\
                    \u{1b}[36mkafka-2  |\u{1b}[0m [2017-11-10 15:48:32,006] INFO started (kafka.server.KafkaServer)\n";
        let p = one("paste", text);
        let r = &p.records;
        assert_eq!(
            (r[0].event.clone(), r[0].broker, r[0].broker_source),
            (Some(Event::SessionExpired { session: None }), Some(1), Some(BrokerSource::Prefix))
        );
        assert_eq!((r[1].event.clone(), r[1].broker), (Some(Event::Resigned { broker: Some(0) }), Some(0)));
        assert_eq!((r[2].event.clone(), r[2].broker), (Some(Event::Started), Some(2)));
        assert_eq!(msg(text, &r[2]), "started");
        assert!(p.files[0].mixed);
    }

    #[test]
    fn paste_artefacts() {
        let text = " > \\[2017-11-10 15:48:30,006\\] INFO \\[Controller id=1\\] Resigned (kafka.controller.KafkaController)  \r\n\
                    ```\n\
                    {noformat}\n\
                    `2017-11-10 15:48:30,006] WARN [Broker id=2] Ignoring LeaderAndIsr request from controller 1 with correlation id 5 since its controller epoch 8 is old. Latest known controller epoch is 9 (state.change.logger)`\n";
        let p = one("paste", text);
        let r = &p.records;
        assert_eq!(p.lines, 4);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].event, Some(Event::Resigned { broker: Some(1) }));
        assert_eq!(msg(text, &r[0]), "\\[Controller id=1\\] Resigned");
        assert_eq!(
            r[1].event,
            Some(Event::StaleControllerEpoch { controller: Some(1), epoch: Some(8), latest: Some(9) })
        );
        assert_eq!((r[1].broker, r[1].ts_ms.is_some()), (Some(2), true));
    }

    #[test]
    fn user_broker_wins_and_file_names() {
        let text = "[2017-11-10 15:48:30,006] INFO [Controller id=1] Resigned (kafka.controller.KafkaController)\n";
        let p =
            parse(&[Input { name: "broker2/controller.log", bytes: text.as_bytes(), broker: Some(7) }], &mut |_, _| {});
        assert_eq!((p.records[0].broker, p.records[0].broker_source), (Some(7), Some(BrokerSource::User)));
        let text = "[2017-11-10 15:48:30,006] INFO something (x.Y)\n";
        let p = one("broker2/controller.log", text);
        assert_eq!((p.records[0].broker, p.records[0].broker_source), (Some(2), Some(BrokerSource::FileName)));
        assert_eq!(p.files[0].broker_source, Some(BrokerSource::FileName));
        let p = one("kafka1663.log", text);
        assert_eq!(p.records[0].broker, None);
        let p = one("controller.log.1", text);
        assert_eq!(p.records[0].broker, None);
    }

    #[test]
    fn several_inputs_number_lines_globally() {
        let a = "a\nb\n";
        let b = "c";
        let p = parse(
            &[
                Input { name: "a", bytes: a.as_bytes(), broker: None },
                Input { name: "b", bytes: b.as_bytes(), broker: Some(3) },
            ],
            &mut |_, _| {},
        );
        assert_eq!(p.lines, 3);
        let lines: Vec<(u16, u32, u32)> = p.records.iter().map(|r| (r.file, r.line, r.global)).collect();
        assert_eq!(lines, vec![(0, 1, 1), (0, 2, 2), (1, 1, 3)]);
        assert_eq!(p.files[1].broker, Some(3));
    }

    #[test]
    fn describe_output() {
        let text = "Topic:__consumer_offsets\tPartitionCount:50\tReplicationFactor:3\tConfigs:\n\
                    \tTopic: __consumer_offsets\tPartition: 3\tLeader: -1\tReplicas: 3,1,2\tIsr: 2\n";
        let p = one("kafka-2/describe.txt", text);
        assert_eq!(p.records.len(), 2);
        assert!(p.records.iter().all(|r| r.broker.is_none()));
        assert!(p.records.iter().all(|r| r.kind == LineKind::Describe));
        assert_eq!(
            p.records[1].event,
            Some(Event::LeaderNone { partition: Some(Partition { topic: "__consumer_offsets".into(), partition: 3 }) })
        );
    }

    #[test]
    fn progress_is_reported_in_chunks() {
        let line = "[2017-11-10 15:48:30,006] INFO something happened here (kafka.server.KafkaServer)\n";
        let text = line.repeat(10_000);
        let mut calls = Vec::new();
        let p = parse(&[Input { name: "x", bytes: text.as_bytes(), broker: None }], &mut |d, t| calls.push((d, t)));
        assert_eq!(p.records.len(), 10_000);
        let total = text.len() as u64;
        assert!(calls.len() > 5 && calls.len() < 50, "{} calls", calls.len());
        assert_eq!(calls.last(), Some(&(total, total)));
        assert!(calls.windows(2).all(|w| w[0].0 <= w[1].0));
    }

    #[test]
    fn any_bytes_get_an_answer() {
        // Pseudo-random bytes (an LCG), one 3 MB line of them, and a file of only newlines.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let noise: Vec<u8> = (0..3_000_000)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                (x >> 56) as u8
            })
            .collect();
        let one_line: Vec<u8> = noise.iter().map(|b| if *b == b'\n' { b'x' } else { *b }).collect();
        let newlines = alloc::vec![b'\n'; 100_000];
        let p = parse(
            &[
                Input { name: "noise", bytes: &noise, broker: None },
                Input { name: "line", bytes: &one_line, broker: None },
                Input { name: "nl", bytes: &newlines, broker: None },
            ],
            &mut |_, _| {},
        );
        assert_eq!(p.files[1].lines, 1);
        assert_eq!(p.files[2].lines, 100_000);
        assert_eq!(p.lines, p.files.iter().map(|f| f.lines).sum::<u32>());
        for r in &p.records {
            let len = [noise.len(), one_line.len(), newlines.len()][r.file as usize];
            assert!(r.message.0 <= r.message.1 && r.message.1 as usize <= len);
            assert!(r.line >= 1 && r.line <= p.files[r.file as usize].lines);
        }
    }

    #[test]
    fn a_long_stack_trace_folds_into_one_record() {
        let mut text = String::from("[2017-11-10 15:48:30,006] ERROR boom (a.B)\n");
        for _ in 0..50_000 {
            text.push_str("\tat a.b.C.d(C.java:1)\n");
        }
        let p = one("x", &text);
        assert_eq!(p.records.len(), 1);
        assert_eq!(p.records[0].continuation, 50_000);
    }

    #[test]
    fn every_event_variant_has_a_wording() {
        let text = "1 successfully elected as the controller\n\
            Broker 3 was elected as controller instead of broker 1\n\
            New leader is 3\n\
            Broker 1 resigned as the controller\n\
            Controller moved to another broker. Aborting controlled shutdown\n\
            Error while electing or becoming controller on broker 1\n\
            Session expired.\n\
            Session establishment complete on server zk:2181, sessionid = 0x1, negotiated timeout = 6000\n\
            Registered broker 1 at path /brokers/ids/1 with addresses: PLAINTEXT://k1:9092\n\
            conflict in /brokers/ids/1 data: x stored data: y\n\
            Newly added brokers: 3, deleted brokers: 1, all live brokers: 2,3\n\
            Selected new leader and ISR {\"leader\":1,\"leader_epoch\":14,\"isr\":[1,2]} for offline partition [t,3]\n\
            New leader and ISR for partition [t,3] is {\"leader\":1,\"leader_epoch\":14,\"isr\":[1]}\n\
            Controller 1 epoch 8 sending become-leader LeaderAndIsr request (Leader:1,ISR:1,LeaderEpoch:14,ControllerEpoch:8) with correlationId 5 to broker 2 for partition [t,3]\n\
            Broker 2 received LeaderAndIsr request (LeaderAndIsrInfo:(Leader:1,ISR:1,LeaderEpoch:14,ControllerEpoch:8),ReplicationFactor:3),AllReplicas:1,2) correlation id 5 from controller 1 epoch 8 for partition [t,3]\n\
            Broker 2 ignoring LeaderAndIsr request from controller 1 with correlation id 5 since its controller epoch 8 is old. Latest known controller epoch is 9\n\
            Error while moving some partitions to the online state\n\
            Cached zkVersion [27] not equal to that in zookeeper, skip updating ISR\n\
            Shrinking ISR from 1,2 to 1\n\
            Expanding ISR from 1 to 1,2\n\
            No broker in ISR is alive for [t,3]. Pick the leader from the alive assigned replicas: 2\n\
            shutting down\n\
            started\n";
        let p = one("paste", text);
        let mut kinds: Vec<&str> = p.records.iter().filter_map(|r| r.event.as_ref().map(Event::kind)).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), 23, "{kinds:?}");
        assert!(p.records.iter().all(|r| r.kind == LineKind::Typed));
    }

    #[test]
    fn long_lines_and_invalid_utf8() {
        let mut bytes = b"[2017-11-10 15:48:30,006] INFO ".to_vec();
        bytes.extend(core::iter::repeat_n(b'x', 200_000));
        bytes.extend_from_slice(b" (a.B)\n\xff\xfe started\n");
        let p = parse(&[Input { name: "x", bytes: &bytes, broker: None }], &mut |_, _| {});
        assert_eq!(p.records.len(), 2);
        assert_eq!(p.records[0].message.1 as usize, 31 + 200_000 + 6);
        assert_eq!(p.records[1].kind, LineKind::Unknown);
    }
}
