//! The messages between the logs page and its import worker. Requests and replies are JSON
//! strings (one typed protocol on both sides); the files' bytes travel beside a request as the
//! browser's own `File` objects (or the pasted text), and the answer's two big JSON texts travel
//! beside a [`FromWorker::Done`] as plain strings, so neither is escaped into another JSON text.
//!
//! On the wire, every message is a JS array: `[json]` or `[json, data...]`.
use serde::{Deserialize, Serialize};

/// The worker's script, relative to the page (the loader of Trunk's `import_worker` build).
pub const WORKER_URL: &str = "import_worker_loader.js";

/// One input as the page names it (its bytes travel beside the request, in the same order).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct JobInput {
    /// A file's name, or "paste".
    pub name: String,
    /// The broker the user named for it.
    pub broker: Option<i32>,
}

/// Page → worker: import these inputs.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Job {
    /// Tells this import's answers apart from an older one's.
    pub id: u64,
    /// The inputs, in order (their bytes travel beside the request, in the same order).
    pub inputs: Vec<JobInput>,
}

/// What the worker is doing.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Copying the files' bytes out of the browser.
    Reading,
    /// Parsing them (the import's own progress).
    Parsing,
    /// Fitting a scenario and writing the answer.
    Fitting,
}

/// Worker → page.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromWorker {
    /// The worker's wasm runs and takes a [`Job`].
    Ready,
    /// Still working: `done` of `total` bytes.
    Progress {
        /// The import.
        id: u64,
        /// What it is doing.
        stage: Stage,
        /// Bytes done.
        done: u64,
        /// Bytes in all.
        total: u64,
    },
    /// Finished: the view JSON ([`crate::logs::view::LogsView`]) and the export JSON (the whole
    /// report and fit) travel beside this message.
    Done {
        /// The import.
        id: u64,
    },
    /// The job could not be done.
    Error {
        /// The import (0 when the request itself was unreadable).
        id: u64,
        /// What went wrong, for the page to show.
        message: String,
    },
}

impl FromWorker {
    /// JSON text of the message.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| r#"{"error":{"id":0,"message":"unwritable message"}}"#.into())
    }

    /// Reads a message; an unreadable one becomes an [`FromWorker::Error`].
    pub fn from_json(text: &str) -> FromWorker {
        serde_json::from_str(text).unwrap_or_else(|e| FromWorker::Error {
            id: 0,
            message: format!("the log reader sent an unreadable answer: {e}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn messages_round_trip() {
        for m in [
            FromWorker::Ready,
            FromWorker::Progress { id: 3, stage: Stage::Parsing, done: 10, total: 20 },
            FromWorker::Done { id: 3 },
            FromWorker::Error { id: 0, message: "x".into() },
        ] {
            assert_eq!(FromWorker::from_json(&m.to_json()), m);
        }
        let job = Job { id: 2, inputs: vec![JobInput { name: "controller.log".into(), broker: Some(1) }] };
        assert_eq!(serde_json::from_str::<Job>(&serde_json::to_string(&job).unwrap()).unwrap(), job);
    }

    #[test]
    fn garbage_is_an_error_message() {
        assert!(matches!(FromWorker::from_json("{"), FromWorker::Error { id: 0, .. }));
    }
}
