//! One step's log: the lines, marks and the main line a step writes, picked into its [`Event`].
use crate::effects::Line;
use crate::event::{Delivery, Event, EventKind};
use crate::ids::NodeId;
use crate::mark::Mark;
use alloc::string::String;
use alloc::vec::Vec;

/// Collects the lines of one step and picks the main one.
pub(crate) struct StepLog {
    /// Whether lines are formatted (the world's render switch); off, they keep their kinds only.
    pub(crate) render: bool,
    pub(crate) node: NodeId,
    pub(crate) from: Option<NodeId>,
    pub(crate) message: Option<&'static str>,
    pub(crate) kind: EventKind,
    pub(crate) line: String,
    /// The lines, when they are formatted.
    lines: Vec<(EventKind, String)>,
    /// Unformatted: the kind of the first line of the highest priority, all `finish` needs of
    /// the lines (it picks the same kind the lines would give).
    top: Option<EventKind>,
    pub(crate) marks: Vec<Mark>,
    /// The message this step delivered, dropped or held.
    pub(crate) delivery: Option<Delivery>,
}

fn priority(k: EventKind) -> u8 {
    match k {
        EventKind::ControllerElected | EventKind::ControllerResigned => 10,
        EventKind::LeaderChange => 9,
        EventKind::SessionExpired => 8,
        EventKind::ZkSession => 7,
        EventKind::IsrChange => 6,
        EventKind::ControlRejected => 5,
        EventKind::Consumer => 5,
        EventKind::Fault => 5,
        EventKind::Process => 4,
        EventKind::ControlRequest => 3,
        EventKind::Info => 2,
        _ => 1,
    }
}

impl StepLog {
    pub(crate) fn new(render: bool, node: NodeId, kind: EventKind, line: impl Line) -> Self {
        let line = if render { line.text() } else { String::new() };
        StepLog {
            render,
            node,
            from: None,
            message: None,
            kind,
            line,
            lines: Vec::new(),
            top: None,
            marks: Vec::new(),
            delivery: None,
        }
    }

    /// Replaces the step's main line.
    pub(crate) fn set_line(&mut self, line: impl Line) {
        if self.render {
            self.line = line.text();
        }
    }

    /// Adds a line.
    pub(crate) fn push(&mut self, kind: EventKind, line: impl Line) {
        if self.render {
            self.lines.push((kind, line.text()));
        } else if self.top.is_none_or(|t| priority(kind) > priority(t)) {
            self.top = Some(kind);
        }
    }
    pub(crate) fn finish(mut self, step: u64, time_ms: u64) -> Event {
        if !self.render {
            // No text: no details, and the kind the lines would give.
            let kind = match self.top {
                Some(t) if priority(t) > priority(self.kind) => t,
                _ => self.kind,
            };
            return self.event(step, time_ms, kind, String::new(), Vec::new());
        }
        let best = self
            .lines
            .iter()
            .enumerate()
            .filter(|(_, (k, _))| priority(*k) > priority(self.kind))
            .max_by_key(|(i, (k, _))| (priority(*k), usize::MAX - *i))
            .map(|(i, _)| i);
        let mut lines = core::mem::take(&mut self.lines);
        let main = core::mem::take(&mut self.line);
        let mut details = Vec::with_capacity(lines.len() + 1);
        let (kind, line) = match best {
            Some(i) => {
                details.push(main);
                let (k, l) = lines.remove(i);
                details.extend(lines.into_iter().map(|(_, l)| l));
                (k, l)
            }
            None => {
                details.extend(lines.into_iter().map(|(_, l)| l));
                (self.kind, main)
            }
        };
        self.event(step, time_ms, kind, line, details)
    }

    fn event(self, step: u64, time_ms: u64, kind: EventKind, line: String, details: Vec<String>) -> Event {
        Event {
            step,
            time_ms,
            node: self.node,
            from: self.from,
            message: self.message.map(alloc::borrow::Cow::Borrowed),
            kind,
            line,
            details,
            alerts_raised: Vec::new(),
            alerts_cleared: Vec::new(),
            marks: self.marks,
            delivery: self.delivery,
        }
    }
}
