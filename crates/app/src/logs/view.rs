//! The import's [`splitbrain_import::Report`] and [`splitbrain_import::fit::Fit`] as the page
//! reads them back from the worker's JSON: the fields the page draws, by the core's names. Every
//! field has a default and unknown fields are ignored, so a core that adds fields (or leaves one
//! out) still draws. The page keeps the worker's own JSON for the export.
use crate::logs::lines::LineText;
use serde::Deserialize;

/// A broker id.
pub type Broker = i32;

/// What the page shows of one import.
#[derive(Clone, PartialEq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct LogsView {
    /// The report (its timeline's markers thinned to at most [`crate::logs::job::MAX_MARKERS`]).
    pub report: ReportView,
    /// The fit.
    pub fit: FitView,
    /// The text of every line the report cites (evidence, bands, skews, drawn markers).
    pub lines: Vec<LineText>,
    /// Typed events in the report before thinning.
    pub markers_total: u32,
    /// Per-input problems (skipped files), by input index.
    pub notes: Vec<Note>,
}

impl LogsView {
    /// The text of global line `line`, if the worker sent it.
    pub fn line(&self, line: u32) -> Option<&LineText> {
        self.lines.binary_search_by_key(&line, |l| l.line).ok().map(|i| &self.lines[i])
    }
}

/// A problem with one input.
#[derive(Clone, PartialEq, Eq, Debug, Default, serde::Serialize, Deserialize)]
#[serde(default)]
pub struct Note {
    /// The input's index.
    pub file: u16,
    /// What is wrong, in one sentence.
    pub message: String,
}

/// [`splitbrain_import::Report`].
#[derive(Clone, PartialEq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ReportView {
    /// Lines read.
    pub lines: u32,
    /// Lines that gave a typed event.
    pub typed: u32,
    /// Log statements read but not typed.
    pub other: u32,
    /// Lines that are not a log statement the importer knows.
    pub unknown: u32,
    /// Brokers seen.
    pub brokers: Vec<Broker>,
    /// Records whose broker is unknown.
    pub unknown_broker: u32,
    /// Per-file facts.
    pub files: Vec<FileView>,
    /// Controller epochs.
    pub epochs: Vec<BandView>,
    /// Signatures found.
    pub signatures: Vec<SignatureView>,
    /// The one-sentence verdict.
    pub verdict: String,
    /// The first unknown lines, raw.
    pub unknown_lines: Vec<LineText>,
    /// The timeline.
    pub timeline: TimelineView,
}

/// [`splitbrain_import::parse::FileInfo`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FileView {
    /// Its name.
    pub name: String,
    /// Lines in it.
    pub lines: u32,
    /// The broker that wrote it.
    pub broker: Option<Broker>,
    /// Where that came from (`user`, `line`, `prefix`, `file_name`, `same_source`).
    pub broker_source: Option<String>,
    /// A paste of several brokers' lines.
    pub mixed: bool,
}

/// [`splitbrain_import::timeline::EpochBand`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct BandView {
    /// The epoch, where a line states it.
    pub epoch: Option<i32>,
    /// Its controller.
    pub controller: Broker,
    /// When it began.
    pub from_ms: Option<i64>,
    /// When its controller resigned.
    pub resigned_ms: Option<i64>,
    /// When the next epoch began.
    pub next_ms: Option<i64>,
    /// The line that began it.
    pub line: u32,
    /// The line of the resignation.
    pub resigned_line: Option<u32>,
}

/// [`splitbrain_import::signatures::Signature`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SignatureView {
    /// Its kind (`overlapping_controllers`, ...).
    pub kind: String,
    /// Brokers involved.
    pub brokers: Vec<Broker>,
    /// Global line numbers of the evidence.
    pub lines: Vec<u32>,
    /// Evidence lines beyond the cap.
    pub more: u32,
    /// What it means.
    pub explain: String,
    /// The change and release that changed it.
    pub fixed_in: String,
    /// A split-brain alarm, or context.
    pub alarm: bool,
}

/// [`splitbrain_import::timeline::Timeline`].
#[derive(Clone, PartialEq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct TimelineView {
    /// Earliest timestamp.
    pub start_ms: Option<i64>,
    /// Latest timestamp.
    pub end_ms: Option<i64>,
    /// One lane per broker; the unknown broker last.
    pub lanes: Vec<LaneView>,
    /// Controller epochs.
    pub epochs: Vec<BandView>,
    /// Typed events.
    pub markers: Vec<MarkerView>,
    /// Suspected clock skews.
    pub skews: Vec<SkewView>,
}

/// [`splitbrain_import::timeline::Lane`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct LaneView {
    /// Its broker (None: unknown).
    pub broker: Option<Broker>,
    /// Typed events on it.
    pub markers: u32,
}

/// [`splitbrain_import::timeline::Marker`].
#[derive(Clone, PartialEq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct MarkerView {
    /// Index into the lanes.
    pub lane: u32,
    /// Its time.
    pub ts_ms: Option<i64>,
    /// Its global line.
    pub line: u32,
    /// Index into the epochs of its band.
    pub band: Option<u32>,
    /// The typed event (`{"kind": "elected", ...}`), shown as the core wrote it.
    pub event: serde_json::Value,
}

impl MarkerView {
    /// The event's kind (`elected`, `resigned`, ...).
    pub fn kind(&self) -> &str {
        self.event.get("kind").and_then(|k| k.as_str()).unwrap_or("event")
    }

    /// The event's fields other than its kind, as `name value` pairs (nulls left out).
    pub fn fields(&self) -> String {
        let Some(obj) = self.event.as_object() else { return String::new() };
        obj.iter()
            .filter(|(k, v)| k.as_str() != "kind" && !v.is_null())
            .map(|(k, v)| format!("{} {}", k.replace('_', " "), plain(v)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A JSON value as plain words: strings bare, arrays as `[1,2]`, a partition as the core's
/// `Display` writes it (`topic-3`), other objects as `name value` pairs.
fn plain(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(o) if o.len() == 2 && o.contains_key("topic") && o.contains_key("partition") => {
            format!("{}-{}", plain(&o["topic"]), plain(&o["partition"]))
        }
        serde_json::Value::Array(a) => format!("[{}]", a.iter().map(plain).collect::<Vec<_>>().join(",")),
        serde_json::Value::Object(o) => {
            o.iter().map(|(k, v)| format!("{k} {}", plain(v))).collect::<Vec<_>>().join(" ")
        }
        other => other.to_string(),
    }
}

/// [`splitbrain_import::timeline::Skew`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct SkewView {
    /// The broker whose line is the cause.
    pub cause_broker: Broker,
    /// The broker whose line is the effect.
    pub effect_broker: Broker,
    /// The cause's line.
    pub cause_line: u32,
    /// The effect's line.
    pub effect_line: u32,
    /// How much earlier the effect was stamped.
    pub ms: i64,
    /// Why one causes the other.
    pub explain: String,
}

/// [`splitbrain_import::fit::Fit`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct FitView {
    /// Was a scenario fitted?
    pub fitted: bool,
    /// The story it follows.
    pub template: Option<String>,
    /// Who plays what.
    pub roles: Vec<RoleView>,
    /// The partition of interest.
    pub partition: Option<PartitionView>,
    /// The permalink fragment that opens it in the playground.
    pub permalink: Option<String>,
    /// One verdict per behaviour.
    pub verdicts: Vec<ModeVerdictView>,
    /// Which lines would be needed.
    pub missing: Vec<String>,
}

/// [`splitbrain_import::fit::Role`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct RoleView {
    /// The role.
    pub role: String,
    /// The broker.
    pub broker: Broker,
}

/// [`splitbrain_import::Partition`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct PartitionView {
    /// Topic.
    pub topic: String,
    /// Partition number.
    pub partition: u32,
}

/// [`splitbrain_import::fit::ModeVerdict`].
#[derive(Clone, PartialEq, Eq, Debug, Default, Deserialize)]
#[serde(default)]
pub struct ModeVerdictView {
    /// The behaviour (`1.0`, `1.1`, `2.1`, `kraft`).
    pub mode: String,
    /// The leader at the end (-1: none).
    pub leader: i32,
    /// Did the replay reach the signature?
    pub reproduced: bool,
    /// What happened.
    pub words: String,
}

impl ModeVerdictView {
    /// The behaviour's name as the playground writes it.
    pub fn label(&self) -> String {
        if self.mode.eq_ignore_ascii_case("kraft") {
            "KRaft".into()
        } else {
            format!("Kafka {}", self.mode)
        }
    }
}

/// Reads the worker's view JSON.
pub fn parse(json: &str) -> Result<LogsView, String> {
    serde_json::from_str(json).map_err(|e| format!("the log reader's answer could not be read: {e}"))
}
