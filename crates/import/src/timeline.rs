//! The records merged by time into one lane per broker, with controller epochs as bands and typed
//! events as markers: the same swim lanes the simulator draws, read from logs instead of a run.
use crate::event::{Broker, Event};
use crate::parse::{Parsed, Record};
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::string::String;
use alloc::vec::Vec;
use serde::Serialize;

/// One lane: a broker, or the lines no broker could be given.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Lane {
    /// Its broker (None: unknown).
    pub broker: Option<Broker>,
    /// Typed events on it.
    pub markers: u32,
}

/// One controller epoch: from the line where a broker became controller to the line where it
/// resigned, or where a newer epoch began.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct EpochBand {
    /// The epoch, where a line states it.
    pub epoch: Option<i32>,
    /// The broker that was controller in it.
    pub controller: Broker,
    /// When it began.
    pub from_ms: Option<i64>,
    /// When its controller resigned, if a line says so.
    pub resigned_ms: Option<i64>,
    /// When the next epoch began, if one did.
    pub next_ms: Option<i64>,
    /// The global line that began it.
    pub line: u32,
    /// The global line of the resignation.
    pub resigned_line: Option<u32>,
    /// No line says this broker was elected: the band is read from lines that state the
    /// controller and its epoch (its own `[Controller id=1 epoch=40]` lines, or requests other
    /// brokers received from it), beginning at the first of them.
    pub inferred: bool,
}

/// One typed event on a lane.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Marker {
    /// Index into [`Timeline::lanes`].
    pub lane: u32,
    /// Its time, if the line had one.
    pub ts_ms: Option<i64>,
    /// Its global line.
    pub line: u32,
    /// Index of its file in the inputs.
    pub file: u16,
    /// Index into [`Timeline::epochs`] of the band it falls in.
    pub band: Option<u32>,
    /// What it says.
    pub event: Event,
}

/// An effect logged before its cause on another broker: the brokers' clocks disagree (or the
/// logs are not what they seem). Shown, never corrected.
#[derive(Clone, PartialEq, Debug, Serialize)]
pub struct Skew {
    /// The broker whose line is the cause.
    pub cause_broker: Broker,
    /// The broker whose line is the effect.
    pub effect_broker: Broker,
    /// The cause's global line.
    pub cause_line: u32,
    /// The effect's global line.
    pub effect_line: u32,
    /// How much earlier the effect was stamped than its cause.
    pub ms: i64,
    /// Why one causes the other.
    pub explain: String,
}

/// The whole timeline.
#[derive(Clone, PartialEq, Debug, Default, Serialize)]
pub struct Timeline {
    /// Earliest timestamp seen.
    pub start_ms: Option<i64>,
    /// Latest timestamp seen.
    pub end_ms: Option<i64>,
    /// One lane per broker, by id; the unknown broker last.
    pub lanes: Vec<Lane>,
    /// Controller epochs, in the order they began.
    pub epochs: Vec<EpochBand>,
    /// Typed events, by time (records without a time keep their place in their file).
    pub markers: Vec<Marker>,
    /// Suspected clock skews.
    pub skews: Vec<Skew>,
    /// Markers left out: past [`MARKERS_PER_KIND`] of one kind on one lane (a zkVersion loop
    /// logs the same line for days), only the first are kept, and this counts the rest.
    pub omitted: u32,
    /// Epochs left out past [`EPOCHS_KEPT`].
    pub epochs_omitted: u32,
}

/// How many markers of one kind one lane keeps, so a million-line log stays a small answer.
pub const MARKERS_PER_KIND: u32 = 50;
/// How many markers of a story kind (an election, a resignation, a leader chosen) one lane keeps.
pub const STORY_MARKERS_PER_KIND: u32 = 300;
/// How many controller epochs the report keeps (a flapping controller can be elected thousands of
/// times); the rest are counted in [`Timeline::epochs_omitted`].
pub const EPOCHS_KEPT: usize = 500;

/// Two lines that announce the same election (1.0's elector and its controller both log it) are
/// one epoch when they are this close and no other broker was elected between them.
pub const SAME_ELECTION_MS: i64 = 5_000;

/// One typed record, placed in time.
#[derive(Clone, Copy, Debug)]
struct Placed<'a> {
    ts: Option<i64>,
    file: u16,
    pos: usize,
    rec: &'a Record,
}

/// The order records are merged in: by time; a record without a time takes its file's last time
/// before it (or the first after it), so it keeps its place in its file; records of a file with
/// no time at all (a `kafka-topics --describe` paste) come last, as "now".
fn placed(parsed: &Parsed) -> Vec<Placed<'_>> {
    let mut out: Vec<Placed<'_>> = Vec::new();
    let mut last: Option<(u16, i64)> = None;
    for (pos, rec) in parsed.records.iter().enumerate() {
        let inherited = match last {
            Some((f, t)) if f == rec.file => Some(t),
            _ => None,
        };
        let ts = rec.ts_ms.or(inherited);
        if let Some(t) = rec.ts_ms {
            last = Some((rec.file, t));
        } else if inherited.is_none() {
            last = None;
        }
        if rec.event.is_some() {
            out.push(Placed { ts, file: rec.file, pos, rec });
        }
    }
    // A file's leading untimed records take the first time after them.
    let mut next: Option<(u16, i64)> = None;
    for p in out.iter_mut().rev() {
        if p.ts.is_none() {
            if let Some((f, t)) = next {
                if f == p.file {
                    p.ts = Some(t);
                }
            }
        } else {
            next = p.ts.map(|t| (p.file, t));
        }
    }
    out.sort_by(|a, b| match (a.ts, b.ts) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.pos.cmp(&b.pos)),
        (Some(_), None) => core::cmp::Ordering::Less,
        (None, Some(_)) => core::cmp::Ordering::Greater,
        (None, None) => a.pos.cmp(&b.pos),
    });
    out
}

/// The broker a typed record is about as controller, when it says one was elected.
fn elected(rec: &Record) -> Option<(Broker, Option<i32>)> {
    match rec.event.as_ref()? {
        Event::Elected { broker, epoch } => Some((*broker, epoch.or(rec.prefix_epoch))),
        _ => None,
    }
}

/// Builds the timeline of `parsed`.
pub fn build(parsed: &Parsed) -> Timeline {
    let placed = placed(parsed);
    let mut t = Timeline {
        start_ms: parsed.records.iter().filter_map(|r| r.ts_ms).min(),
        end_ms: parsed.records.iter().filter_map(|r| r.ts_ms).max(),
        ..Timeline::default()
    };
    let mut brokers: Vec<Broker> = parsed.records.iter().filter_map(|r| r.broker).collect();
    brokers.sort_unstable();
    brokers.dedup();
    let unknown = placed.iter().any(|p| p.rec.broker.is_none());
    t.lanes = brokers.iter().map(|&b| Lane { broker: Some(b), markers: 0 }).collect();
    if unknown {
        t.lanes.push(Lane { broker: None, markers: 0 });
    }
    // Epoch bands: one per election, the same election's second announcement folded in.
    for p in &placed {
        let Some((broker, epoch)) = elected(p.rec) else { continue };
        if let Some(band) = t.epochs.last_mut() {
            let close = match (band.from_ms, p.ts) {
                (Some(a), Some(b)) => b - a <= SAME_ELECTION_MS,
                _ => true,
            };
            let same_epoch = match (band.epoch, epoch) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            if band.controller == broker && close && same_epoch && band.resigned_line.is_none() {
                band.epoch = band.epoch.or(epoch);
                continue;
            }
        }
        if let Some(prev) = t.epochs.last_mut() {
            prev.next_ms = p.ts;
        }
        t.epochs.push(EpochBand {
            epoch,
            controller: broker,
            from_ms: p.ts,
            resigned_ms: None,
            next_ms: None,
            line: p.rec.global,
            resigned_line: None,
            inferred: false,
        });
    }
    // Epoch numbers a band's line did not state: the first line inside the band that names its
    // controller and an epoch.
    let timed = timed_bands(&t.epochs);
    for p in &placed {
        let Some(ts) = p.ts else { continue };
        let Some((c, e)) = controller_epoch_stated(p.rec) else { continue };
        let n = timed.partition_point(|(from, _)| *from <= ts);
        if let Some(&(_, i)) = n.checked_sub(1).and_then(|k| timed.get(k)) {
            let band = &mut t.epochs[i as usize];
            if band.controller == c && band.epoch.is_none() {
                band.epoch = Some(e);
            }
        }
    }
    infer_bands(&placed, &mut t.epochs);
    resignations(&placed, &mut t.epochs);
    let timed = timed_bands(&t.epochs);
    for p in &placed {
        let lane = t.lanes.iter().position(|l| l.broker == p.rec.broker).unwrap_or(0);
        if let Some(l) = t.lanes.get_mut(lane) {
            l.markers += 1;
        }

        let band = band_at(&t.epochs, &timed, p.ts, p.rec.global);
        t.markers.push(Marker {
            lane: lane as u32,
            ts_ms: p.ts,
            line: p.rec.global,
            file: p.file,
            band,
            event: p.rec.event.clone().unwrap_or(Event::Started),
        });
    }
    t.skews = skews(&placed, &t.epochs);
    t
}

impl Timeline {
    /// Leaves out markers past [`MARKERS_PER_KIND`] of one kind on one lane (never those that
    /// tell the controller story), counting them in `omitted`: for the report, once the
    /// signatures have read every marker.
    pub fn cap(&mut self) {
        let mut kept: Vec<(u32, &'static str, u32)> = Vec::new();
        let mut omitted = 0;
        self.markers.retain(|m| {
            let kind = m.event.kind();
            let n = match kept.iter_mut().find(|(l, k, _)| *l == m.lane && *k == kind) {
                Some((_, _, n)) => n,
                None => {
                    kept.push((m.lane, kind, 0));
                    &mut kept.last_mut().expect("just pushed").2
                }
            };
            let cap = if is_story(&m.event) { STORY_MARKERS_PER_KIND } else { MARKERS_PER_KIND };
            if *n >= cap {
                omitted += 1;
                return false;
            }
            *n += 1;
            true
        });
        self.omitted += omitted;
        if self.epochs.len() > EPOCHS_KEPT {
            self.epochs_omitted += (self.epochs.len() - EPOCHS_KEPT) as u32;
            self.epochs.truncate(EPOCHS_KEPT);
            for m in &mut self.markers {
                if m.band.is_some_and(|b| b as usize >= EPOCHS_KEPT) {
                    m.band = None;
                }
            }
        }
        self.skews.truncate(100);
    }
}

/// Events that tell the controller story are never left out.
fn is_story(e: &Event) -> bool {
    matches!(
        Some(e),
        Some(
            Event::Elected { .. }
                | Event::Resigned { .. }
                | Event::SelectedLeader { .. }
                | Event::LeaderIsr { leader: -1, .. }
                | Event::LeaderNone { .. }
                | Event::ControllerMoved { .. }
                | Event::ElectionError { .. }
                | Event::SessionExpired { .. }
        )
    )
}

/// Bands for controllers and epochs that lines state but no election line announces (the log
/// starts after the election, or the controller's own log is missing), then every band's next
/// and resignation again, in time order.
fn infer_bands(placed: &[Placed<'_>], epochs: &mut Vec<EpochBand>) {
    let mut added = false;
    let mut known: BTreeSet<(Broker, i32)> = epochs.iter().filter_map(|b| Some((b.controller, b.epoch?))).collect();
    for p in placed {
        let Some((c, e)) = controller_epoch_stated(p.rec) else { continue };
        // A log that states thousands of controllers and epochs without their elections is read
        // for the first ones only (the report keeps EPOCHS_KEPT bands).
        if epochs.len() >= 4 * EPOCHS_KEPT || !known.insert((c, e)) {
            continue;
        }
        // A band of the same controller without an epoch that covers this line takes it.
        if let Some(b) =
            epochs.iter_mut().find(|b| b.controller == c && b.epoch.is_none() && before_or_same(b.from_ms, p.ts))
        {
            b.epoch = Some(e);
            continue;
        }
        epochs.push(EpochBand {
            epoch: Some(e),
            controller: c,
            from_ms: p.ts,
            resigned_ms: None,
            next_ms: None,
            line: p.rec.global,
            resigned_line: None,
            inferred: true,
        });
        added = true;
    }
    if !added {
        return;
    }
    epochs.sort_by(|a, b| match (a.from_ms, b.from_ms) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.line.cmp(&b.line)),
        _ => a.line.cmp(&b.line),
    });
    for i in 0..epochs.len() {
        epochs[i].next_ms = epochs.get(i + 1).and_then(|b| b.from_ms);
    }
}

/// The bands that have a time, as (from, index), by time.
fn timed_bands(epochs: &[EpochBand]) -> Vec<(i64, u32)> {
    let mut timed: Vec<(i64, u32)> =
        epochs.iter().enumerate().filter_map(|(i, b)| Some((b.from_ms?, i as u32))).collect();
    timed.sort_unstable();
    timed
}

/// A band's resignation: the first "resigned" its controller logs after the band began, while it
/// is that controller's latest band (a second "Resigned" for the same resignation changes nothing).
fn resignations(placed: &[Placed<'_>], epochs: &mut [EpochBand]) {
    // Each controller's bands, in the order they began.
    let mut of: BTreeMap<Broker, Vec<usize>> = BTreeMap::new();
    for (i, b) in epochs.iter().enumerate() {
        of.entry(b.controller).or_default().push(i);
    }
    for p in placed {
        let Some(Event::Resigned { broker }) = p.rec.event.as_ref() else { continue };
        let Some(by) = broker.or(p.rec.broker) else { continue };
        let Some(list) = of.get(&by) else { continue };
        let began = |i: &usize| {
            let b = &epochs[*i];
            match (b.from_ms, p.ts) {
                (Some(f), Some(t)) => f <= t,
                _ => b.line <= p.rec.global,
            }
        };
        let n = list.partition_point(began);
        let Some(&i) = n.checked_sub(1).and_then(|k| list.get(k)) else { continue };
        let band = &mut epochs[i];
        if band.resigned_line.is_none() && band.line != p.rec.global {
            band.resigned_ms = p.ts;
            band.resigned_line = Some(p.rec.global);
        }
    }
}

fn before_or_same(a: Option<i64>, b: Option<i64>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a <= b,
        _ => true,
    }
}

/// A (controller, epoch) pair a line states: a prefix `[Controller id=1 epoch=8]` on a broker's
/// own line, or a request it received from controller 1 at epoch 8.
pub fn controller_epoch_stated(rec: &Record) -> Option<(Broker, i32)> {
    match rec.event.as_ref()? {
        Event::Elected { broker, epoch: Some(e) } => Some((*broker, *e)),
        Event::ControllerIs { controller, epoch: Some(e) } => Some((*controller, *e)),
        Event::LeaderAndIsrReceived { controller: Some(c), controller_epoch: Some(e), .. } => Some((*c, *e)),
        Event::StaleControllerEpoch { controller: Some(c), epoch: Some(e), .. } => Some((*c, *e)),
        _ => match (rec.broker, rec.prefix_epoch) {
            (Some(b), Some(e)) => Some((b, e)),
            _ => None,
        },
    }
}

/// The band a time falls in: the last that began at or before it. Untimed markers go by line.
fn band_at(epochs: &[EpochBand], timed: &[(i64, u32)], ts: Option<i64>, line: u32) -> Option<u32> {
    // Timed bands, by time: the last that began at or before `ts`.
    let mut found = ts.and_then(|t| {
        let n = timed.partition_point(|(from, _)| *from <= t);
        n.checked_sub(1).map(|i| timed[i].1)
    });
    // Untimed bands (and, for an untimed marker, every band) go by line.
    if ts.is_none() || timed.len() < epochs.len() {
        for (i, b) in epochs.iter().enumerate() {
            if (b.from_ms.is_none() || ts.is_none()) && b.line <= line && found.is_none_or(|f| (i as u32) > f) {
                found = Some(i as u32);
            }
        }
    }
    found
}

/// Effects stamped before their causes on another broker: a broker that heard from controller C
/// at epoch E before C's own log says C was elected at E; an election at a higher epoch stamped
/// before one at a lower epoch.
fn skews(placed: &[Placed<'_>], epochs: &[EpochBand]) -> Vec<Skew> {
    const MAX: usize = 100;
    let mut out: Vec<Skew> = Vec::new();
    let mut by_pair: BTreeMap<(Broker, i32), usize> = BTreeMap::new();
    for (i, b) in epochs.iter().enumerate() {
        if let Some(e) = b.epoch {
            by_pair.entry((b.controller, e)).or_insert(i);
        }
    }
    let mut reported: BTreeSet<(u32, Broker)> = BTreeSet::new();
    for p in placed {
        if out.len() >= MAX {
            break;
        }
        let Some(effect_broker) = p.rec.broker else { continue };
        let Some(ts) = p.ts else { continue };
        let heard = match p.rec.event.as_ref() {
            Some(Event::LeaderAndIsrReceived { controller: Some(c), controller_epoch: Some(e), .. }) => Some((*c, *e)),
            Some(Event::ControllerIs { controller, epoch: Some(e) }) => Some((*controller, *e)),
            _ => None,
        };
        let Some((c, e)) = heard else { continue };
        if c == effect_broker {
            continue;
        }
        let Some(band) = by_pair.get(&(c, e)).map(|&i| &epochs[i]) else { continue };
        let Some(from) = band.from_ms else { continue };
        if ts < from && reported.insert((band.line, effect_broker)) {
            out.push(Skew {
                cause_broker: c,
                effect_broker,
                cause_line: band.line,
                effect_line: p.rec.global,
                ms: from - ts,
                explain: alloc::format!(
                    "broker {effect_broker} logged a request from controller {c} at epoch {e} {} ms before broker {c} logged its election at that epoch: their clocks (or time zones) differ",
                    from - ts
                ),
            });
        }
    }
    // An election at a lower epoch stamped after one at a higher epoch (bands are in time order).
    let mut highest: Option<usize> = None;
    for (i, b) in epochs.iter().enumerate() {
        if out.len() >= MAX {
            break;
        }
        let (Some(eb), Some(_)) = (b.epoch, b.from_ms) else { continue };
        if let Some(h) = highest {
            let a = &epochs[h];
            if let (Some(ea), Some(fa)) = (a.epoch, a.from_ms) {
                if eb < ea && a.controller != b.controller {
                    out.push(Skew {
                        cause_broker: b.controller,
                        effect_broker: a.controller,
                        cause_line: b.line,
                        effect_line: a.line,
                        ms: b.from_ms.unwrap_or(fa) - fa,
                        explain: alloc::format!(
                            "broker {} logged winning epoch {ea} before broker {} logged winning epoch {eb}, an older one: their clocks differ",
                            a.controller, b.controller
                        ),
                    });
                }
            }
        }
        if highest.is_none_or(|h| epochs[h].epoch.is_none_or(|x| eb > x)) {
            highest = Some(i);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::rec_in as rec;
    use alloc::vec;

    #[test]
    fn one_band_per_election_with_resignation_and_next() {
        let records = vec![
            rec(1, Some(100), 0, 1, Event::Elected { broker: 1, epoch: None }),
            rec(2, Some(120), 0, 1, Event::Elected { broker: 1, epoch: Some(8) }),
            rec(3, Some(900), 1, 2, Event::Elected { broker: 2, epoch: Some(9) }),
            rec(4, Some(950), 0, 1, Event::Resigned { broker: None }),
        ];
        let t = build(&Parsed { lines: 4, records, files: Vec::new() });
        assert_eq!(t.epochs.len(), 2);
        assert_eq!((t.epochs[0].controller, t.epochs[0].epoch, t.epochs[0].next_ms), (1, Some(8), Some(900)));
        assert_eq!((t.epochs[0].resigned_ms, t.epochs[0].resigned_line), (Some(950), Some(4)));
        assert_eq!(t.lanes.iter().map(|l| l.broker).collect::<Vec<_>>(), vec![Some(1), Some(2)]);
        assert_eq!(t.markers.iter().map(|m| m.band).collect::<Vec<_>>(), vec![Some(0), Some(0), Some(1), Some(1)]);
    }

    #[test]
    fn a_request_logged_before_its_controller_was_elected_is_a_skew() {
        let records = vec![
            rec(1, Some(5_000), 0, 1, Event::Elected { broker: 1, epoch: Some(8) }),
            rec(
                2,
                Some(4_200),
                1,
                3,
                Event::LeaderAndIsrReceived {
                    partition: None,
                    controller: Some(1),
                    controller_epoch: Some(8),
                    leader: None,
                },
            ),
        ];
        let t = build(&Parsed { lines: 2, records, files: Vec::new() });
        assert_eq!(t.skews.len(), 1);
        assert_eq!((t.skews[0].effect_broker, t.skews[0].cause_broker, t.skews[0].ms), (3, 1, 800));
    }

    #[test]
    fn the_cap_keeps_the_story_and_counts_the_rest() {
        let mut records: Vec<Record> = (1..=500)
            .map(|i| rec(i, Some(i as i64), 0, 3, Event::ZkVersionSkip { partition: None, cached: Some(1) }))
            .collect();
        records.push(rec(501, Some(501), 0, 3, Event::SessionExpired { session: None }));
        let mut t = build(&Parsed { lines: 501, records, files: Vec::new() });
        t.cap();
        assert_eq!((t.markers.len() as u32, t.omitted), (MARKERS_PER_KIND + 1, 500 - MARKERS_PER_KIND));
        assert_eq!(t.lanes[0].markers, 501, "a lane still counts every marker");
        assert!(matches!(t.markers.last().map(|m| &m.event), Some(Event::SessionExpired { .. })));
    }

    #[test]
    fn untimed_records_keep_their_place_in_their_file() {
        let records = vec![
            rec(1, Some(1_000), 0, 1, Event::Started),
            rec(2, None, 0, 1, Event::ShuttingDown),
            rec(3, Some(1_500), 1, 2, Event::Started),
            rec(4, Some(2_000), 0, 1, Event::Started),
        ];
        let t = build(&Parsed { lines: 4, records, files: Vec::new() });
        assert_eq!(t.markers.iter().map(|m| m.line).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
    }
}
