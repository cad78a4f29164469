//! The page's side of the import worker: starts one worker per import (a new import, or leaving
//! the page, terminates the old one, which also frees its memory), hands it the job and the
//! browser's `File` objects (the worker reads them; the page never copies their bytes), and turns
//! its messages into [`Reply`]s.
use crate::logs::protocol::{FromWorker, Job, Stage, WORKER_URL};
use crate::logs::state::{Source, SourceData};
use crate::logs::view::{self, LogsView};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::Callback;

/// What the worker said, for the page.
#[derive(Clone, PartialEq, Debug)]
pub enum Reply {
    /// Stage, bytes done, bytes in all.
    Progress(Stage, u64, u64),
    /// The answer: what to draw, and the export JSON.
    Done(Rc<LogsView>, Rc<str>),
    /// A message for the page.
    Failed(String),
}

/// A running import. Dropping it stops the worker.
pub struct ImportRun {
    worker: web_sys::Worker,
}

impl Drop for ImportRun {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The message the worker gets: `[job JSON, [File or string, ...]]`.
fn request(job: &Job, sources: &[Source]) -> Result<JsValue, String> {
    let json = serde_json::to_string(job).map_err(|e| format!("the request could not be written: {e}"))?;
    let data = js_sys::Array::new();
    for s in sources {
        match &s.data {
            SourceData::File(f) => data.push(f),
            SourceData::Text(t) => data.push(&JsValue::from_str(t)),
        };
    }
    Ok(js_sys::Array::of2(&JsValue::from_str(&json), &data).into())
}

/// What one message from the worker means (None: nothing for the page).
fn reply(data: &JsValue) -> Option<Reply> {
    let arr = data.dyn_ref::<js_sys::Array>()?;
    let msg = arr.get(0).as_string().map(|t| FromWorker::from_json(&t))?;
    Some(match msg {
        FromWorker::Ready => return None,
        FromWorker::Progress { stage, done, total, .. } => Reply::Progress(stage, done, total),
        FromWorker::Done { .. } => match (arr.get(1).as_string(), arr.get(2).as_string()) {
            (Some(v), Some(export)) => match view::parse(&v) {
                Ok(v) => Reply::Done(Rc::new(v), export.into()),
                Err(e) => Reply::Failed(e),
            },
            _ => Reply::Failed("the log reader's answer was incomplete".into()),
        },
        FromWorker::Error { message, .. } => Reply::Failed(format!("The logs could not be read: {message}")),
    })
}

/// Starts a worker for `job` over `sources`; `on` gets its replies, tagged with the job's id.
pub fn start(job: &Job, sources: &[Source], on: Callback<(u64, Reply)>) -> Result<ImportRun, String> {
    let msg = request(job, sources)?;
    let worker = web_sys::Worker::new(WORKER_URL)
        .map_err(|e| format!("This browser could not start the log reader (a Web Worker): {e:?}"))?;
    let id = job.id;
    let ready = Rc::new(RefCell::new(false));
    let on_message = {
        let (w, ready, on) = (worker.clone(), ready.clone(), on.clone());
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            let data = e.data();
            let is_ready = data
                .dyn_ref::<js_sys::Array>()
                .and_then(|a| a.get(0).as_string())
                .is_some_and(|t| FromWorker::from_json(&t) == FromWorker::Ready);
            if is_ready {
                *ready.borrow_mut() = true;
                if let Err(e) = w.post_message(&msg) {
                    on.emit((id, Reply::Failed(format!("The files could not be handed to the log reader: {e:?}"))));
                }
                return;
            }
            match reply(&data) {
                Some(r) => on.emit((id, r)),
                None if data.dyn_ref::<js_sys::Array>().is_none() => {
                    on.emit((id, Reply::Failed("the log reader sent an unreadable answer".into())))
                }
                None => {}
            }
        })
        .into_js_value()
    };
    let on_error = {
        let (ready, on) = (ready.clone(), on.clone());
        Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            let what = e.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).unwrap_or_default();
            let text = if *ready.borrow() {
                format!(
                    "The log reader stopped with an error ({what}). Nothing was lost: try again, or with fewer files."
                )
            } else {
                format!(
                    "The log reader could not start ({}). Reload the page and try again.",
                    if what.is_empty() { "its files could not be loaded".into() } else { what }
                )
            };
            on.emit((id, Reply::Failed(text)));
        })
        .into_js_value()
    };
    let on_message_error = {
        let on = on.clone();
        Closure::<dyn FnMut(web_sys::Event)>::new(move |_| {
            on.emit((id, Reply::Failed("the log reader's answer could not be received".into())))
        })
        .into_js_value()
    };
    worker.set_onmessage(Some(on_message.unchecked_ref()));
    worker.set_onerror(Some(on_error.unchecked_ref()));
    worker.set_onmessageerror(Some(on_message_error.unchecked_ref()));
    Ok(ImportRun { worker })
}
