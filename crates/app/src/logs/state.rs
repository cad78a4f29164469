//! The logs page's state: the inputs chosen (files and the paste), the brokers the user named,
//! where the current import stands, and its answer.
use crate::logs::protocol::{Job, JobInput, Stage};
use crate::logs::view::LogsView;
use std::rc::Rc;

/// One input's bytes, as the browser holds them.
#[derive(Clone, PartialEq, Debug)]
pub enum SourceData {
    /// A chosen or dropped file (read by the worker, never by the page).
    File(web_sys::File),
    /// Pasted text.
    Text(Rc<str>),
}

/// One input.
#[derive(Clone, PartialEq, Debug)]
pub struct Source {
    /// Its name ("paste" for the text box).
    pub name: String,
    /// Its size in bytes.
    pub size: f64,
    /// Its bytes.
    pub data: SourceData,
    /// The broker the user named for it.
    pub broker: Option<i32>,
}

/// Where the import stands.
#[derive(Clone, PartialEq, Debug, Default)]
pub enum Phase {
    /// Nothing read yet.
    #[default]
    Idle,
    /// The worker is starting.
    Starting,
    /// The worker works: stage, bytes done, bytes in all.
    Working(Stage, u64, u64),
    /// The answer is shown.
    Done,
    /// The import failed; the message says why.
    Failed(String),
}

/// An import's answer.
#[derive(Clone, PartialEq, Debug)]
pub struct Answer {
    /// What the page draws.
    pub view: Rc<LogsView>,
    /// The export JSON (the whole report and fit).
    pub export: Rc<str>,
    /// The inputs it read, in order (the report's files are these).
    pub sources: Rc<[Source]>,
}

/// The page's state.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct LogsState {
    /// The chosen files (the paste is added when an import starts).
    pub sources: Vec<Source>,
    /// The current import's id (0: none yet).
    pub run: u64,
    /// Where it stands.
    pub phase: Phase,
    /// The inputs of the running import.
    pub running: Option<Rc<[Source]>>,
    /// The last answer (kept while a new import runs).
    pub answer: Option<Answer>,
    /// A refusal before any reading (too much), shown until the next import.
    pub refused: Option<String>,
}

impl LogsState {
    /// The job for an import of `sources` as id `id`.
    pub fn job(id: u64, sources: &[Source]) -> Job {
        Job { id, inputs: sources.iter().map(|s| JobInput { name: s.name.clone(), broker: s.broker }).collect() }
    }

    /// Is an import running?
    pub fn busy(&self) -> bool {
        matches!(self.phase, Phase::Starting | Phase::Working(..))
    }

    /// The progress bar's value and maximum, and its words.
    pub fn progress(&self) -> Option<(f64, f64, String)> {
        let mb = |b: u64| b as f64 / 1_048_576.0;
        match &self.phase {
            Phase::Starting => Some((0.0, 1.0, "Starting the log reader…".into())),
            Phase::Working(stage, done, total) => {
                let verb = match stage {
                    Stage::Reading => "Copying",
                    Stage::Parsing => "Parsing",
                    Stage::Fitting => "Fitting a scenario to",
                };
                let max = (*total).max(1) as f64;
                let pct = (*done as f64 / max * 100.0).min(100.0);
                Some((
                    (*done as f64).min(max),
                    max,
                    format!("{verb} your logs: {:.1} of {:.1} MB ({pct:.0}%)", mb(*done), mb(*total)),
                ))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn text(name: &str, broker: Option<i32>) -> Source {
        Source { name: name.into(), size: 3.0, data: SourceData::Text("abc".into()), broker }
    }

    #[test]
    fn the_job_names_the_inputs_and_their_brokers_in_order() {
        let job = LogsState::job(4, &[text("a.log", None), text("paste", Some(2))]);
        assert_eq!(job.id, 4);
        let names: Vec<(&str, Option<i32>)> = job.inputs.iter().map(|i| (i.name.as_str(), i.broker)).collect();
        assert_eq!(names, vec![("a.log", None), ("paste", Some(2))]);
    }

    #[test]
    fn progress_reads_as_bytes_and_percent() {
        let mut s = LogsState::default();
        assert_eq!(s.progress(), None);
        assert!(!s.busy());
        s.phase = Phase::Working(Stage::Parsing, 524_288, 1_048_576);
        let (v, max, words) = s.progress().unwrap();
        assert_eq!((v, max), (524_288.0, 1_048_576.0));
        assert_eq!(words, "Parsing your logs: 0.5 of 1.0 MB (50%)");
        assert!(s.busy());
        s.phase = Phase::Working(Stage::Reading, 0, 0);
        assert_eq!(s.progress().unwrap().1, 1.0, "an empty total never divides by zero");
    }
}
