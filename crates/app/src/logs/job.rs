//! The import worker's job: skip what cannot be read ([`crate::logs::limits::problem`]), import
//! the rest, fit a scenario, and write the answer as two JSON texts: the export (the whole report
//! and fit, as the core serialises them) and the view the page draws (the same report with its
//! timeline's markers thinned to [`MAX_MARKERS`], plus the raw text of every line it cites).
//!
//! Only the worker binary (`src/bin/import_worker.rs`) calls [`run`]: the page's own wasm reads
//! the answer ([`crate::logs::view`]) and links no parser.
use crate::logs::limits;
use crate::logs::lines::{self, LineText};
use crate::logs::protocol::Stage;
use crate::logs::view::Note;
use serde::Serialize;
use splitbrain_import::fit::Fit;
use splitbrain_import::timeline::Marker;
use splitbrain_import::{Input, Report};
use std::collections::BTreeSet;

/// Markers the page draws at most: the cited ones, then others evenly spread.
pub const MAX_MARKERS: usize = 1500;

/// One input, owned by the worker.
#[derive(Clone, Debug)]
pub struct OwnedInput {
    /// Its name.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
    /// The broker the user named.
    pub broker: Option<i32>,
}

/// The job's two JSON texts.
#[derive(Clone, Debug)]
pub struct Answer {
    /// For the page ([`crate::logs::view::LogsView`]).
    pub view: String,
    /// For the Export button: `{"report": .., "fit": .., "notes": ..}`, nothing thinned.
    pub export: String,
}

#[derive(Serialize)]
struct Export<'a> {
    report: &'a Report,
    fit: &'a Fit,
    notes: &'a [Note],
}

#[derive(Serialize)]
struct ViewOut<'a> {
    report: &'a Report,
    fit: &'a Fit,
    lines: Vec<LineText>,
    markers_total: u32,
    notes: &'a [Note],
}

/// Imports `inputs` and writes the answer; `progress(stage, done_bytes, total_bytes)` hears the
/// import's progress ([`Stage::Parsing`]), then [`Stage::Fitting`] once parsing is over.
pub fn run(mut inputs: Vec<OwnedInput>, progress: &mut dyn FnMut(Stage, u64, u64)) -> Result<Answer, String> {
    let mut notes = Vec::new();
    for (i, input) in inputs.iter_mut().enumerate() {
        if let Some(message) = limits::problem(&input.name, &input.bytes) {
            notes.push(Note { file: i as u16, message });
            input.bytes = Vec::new();
        }
    }
    let refs: Vec<Input<'_>> =
        inputs.iter().map(|i| Input { name: &i.name, bytes: &i.bytes, broker: i.broker }).collect();
    let report = splitbrain_import::import(&refs, &mut |done, total| progress(Stage::Parsing, done, total));
    let total = refs.iter().map(|i| i.bytes.len() as u64).sum();
    progress(Stage::Fitting, total, total);
    let fit = splitbrain_import::fit::fit(&report);
    answer(&refs, report, &fit, &notes)
}

/// The answer for an import's `report` and `fit` of `inputs`.
pub fn answer(inputs: &[Input<'_>], mut report: Report, fit: &Fit, notes: &[Note]) -> Result<Answer, String> {
    let fail = |e: serde_json::Error| format!("the answer could not be written: {e}");
    let export = serde_json::to_string(&Export { report: &report, fit, notes }).map_err(fail)?;
    let markers_total = report.timeline.markers.len() as u32;
    let mut wanted = cited(&report);
    thin(&mut report.timeline.markers, &wanted, MAX_MARKERS);
    wanted.extend(report.timeline.markers.iter().map(|m| m.line));
    // The import's own line counts number the lines, when it gave one per input.
    let counted = report.files.len() == inputs.len();
    let files: Vec<(&[u8], Option<u32>)> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| (input.bytes, if counted { Some(report.files[i].lines) } else { None }))
        .collect();
    let lines = lines::texts(&files, &wanted);
    let view = serde_json::to_string(&ViewOut { report: &report, fit, lines, markers_total, notes }).map_err(fail)?;
    Ok(Answer { view, export })
}

/// The lines the report cites: evidence, epoch bands' first and resignation lines, skews.
pub fn cited(report: &Report) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for s in &report.signatures {
        out.extend(s.lines.iter().copied());
    }
    for b in &report.timeline.epochs {
        out.insert(b.line);
        out.extend(b.resigned_line);
    }
    for s in &report.timeline.skews {
        out.insert(s.cause_line);
        out.insert(s.effect_line);
    }
    out
}

/// Keeps at most `cap` of `markers`, in order: those on `cited` lines first, then others evenly
/// spread over the rest.
pub fn thin(markers: &mut Vec<Marker>, cited: &BTreeSet<u32>, cap: usize) {
    if markers.len() <= cap {
        return;
    }
    let must = markers.iter().filter(|m| cited.contains(&m.line)).count();
    let slots = cap.saturating_sub(must);
    let others = markers.len() - must;
    let mut j = 0usize;
    let mut kept_cited = 0usize;
    markers.retain(|m| {
        if cited.contains(&m.line) {
            kept_cited += 1;
            return kept_cited <= cap;
        }
        // Keep the j-th other when floor((j+1)·slots/others) steps up: `slots` of `others`, spread.
        let keep = (j + 1) * slots / others > j * slots / others;
        j += 1;
        keep
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use splitbrain_import::Event;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn marker(line: u32) -> Marker {
        Marker { lane: 0, ts_ms: Some(line as i64), line, file: 0, band: None, event: Event::Started }
    }

    #[test]
    fn thinning_keeps_cited_lines_and_spreads_the_rest() {
        let mut ms: Vec<Marker> = (1..=10_000).map(marker).collect();
        let cited: BTreeSet<u32> = [5, 9_999].into_iter().collect();
        thin(&mut ms, &cited, 100);
        assert_eq!(ms.len(), 100);
        assert!(ms.iter().any(|m| m.line == 5) && ms.iter().any(|m| m.line == 9_999));
        assert!(ms.windows(2).all(|w| w[0].line < w[1].line), "order kept");
        // Spread: the others are about 100 lines apart.
        assert!(ms.iter().any(|m| m.line > 9_800 && m.line != 9_999));
        let mut few: Vec<Marker> = (1..=10).map(marker).collect();
        thin(&mut few, &cited, 100);
        assert_eq!(few.len(), 10);
    }

    #[test]
    fn skipped_inputs_get_a_note_and_the_rest_is_read() {
        let inputs = vec![
            OwnedInput { name: "server.log.gz".into(), bytes: vec![0x1f, 0x8b, 8, 0], broker: None },
            OwnedInput { name: "empty.log".into(), bytes: vec![], broker: None },
            OwnedInput {
                name: "controller.log".into(),
                bytes: b"[2018-03-10 15:48:30,006] INFO [Controller 1]: 1 successfully elected as the controller (kafka.controller.KafkaController)\n".to_vec(),
                broker: Some(1),
            },
        ];
        let mut stages = Vec::new();
        let a = run(inputs, &mut |stage, done, total| stages.push((stage, done, total))).unwrap();
        assert_eq!(stages.last(), Some(&(Stage::Fitting, 123, 123)), "fitting follows parsing: {stages:?}");
        let v = crate::logs::view::parse(&a.view).unwrap();
        assert_eq!(v.notes.len(), 2);
        assert_eq!((v.notes[0].file, v.notes[1].file), (0, 1));
        assert!(v.notes[0].message.contains("gzip"));
        let e: serde_json::Value = serde_json::from_str(&a.export).unwrap();
        assert!(e["report"]["verdict"].is_string() && e["fit"].is_object() && e["notes"].is_array());
    }
}
