//! The explorer's Web Worker: a second wasm entry that Trunk builds beside the page
//! (`data-type="worker"` in index.html) and that the page fetches only when a search starts.
//!
//! In a worker it answers the page's [`ToWorker`] messages (JSON strings) with [`FromWorker`]
//! messages: it runs the search in slices of [`SLICE_MS`] and yields between them, so a cancel is
//! read within one slice. On a page whose browser cannot start a worker, the page loads this same
//! wasm on its main thread and drives [`SliceSearch`] itself, in shorter slices.
use splitbrain_app::explore_job::{FromWorker, Search, ToWorker};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

/// Wall-clock time per slice in the worker: progress is posted this often.
const SLICE_MS: f64 = 100.0;

thread_local! {
    static JOB: RefCell<Option<Search>> = const { RefCell::new(None) };
}

fn now() -> f64 {
    js_sys::Date::now()
}

fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>().ok()
}

fn post(msg: &FromWorker) {
    if let Some(s) = scope() {
        let _ = s.post_message(&JsValue::from_str(&msg.to_json()));
    }
}

fn on_message(text: &str) {
    match serde_json::from_str::<ToWorker>(text) {
        Ok(ToWorker::Start(start)) => match Search::new(&start, now()) {
            Ok(job) => {
                JOB.with(|j| *j.borrow_mut() = Some(job));
                schedule(start.id);
            }
            Err(message) => post(&FromWorker::Error { id: start.id, message }),
        },
        Ok(ToWorker::Cancel { id }) => {
            let reply = JOB.with(|j| {
                let mut j = j.borrow_mut();
                let reply = j.as_mut().filter(|s| s.id() == id).map(|s| s.cancel(now()));
                if reply.is_some() {
                    *j = None;
                }
                reply
            });
            if let Some(r) = reply {
                post(&r);
            }
        }
        Err(e) => post(&FromWorker::Error { id: 0, message: format!("the explorer could not read a request: {e}") }),
    }
}

/// Runs the next slice of search `id` on a fresh task, after any message that arrived meanwhile.
fn schedule(id: u64) {
    let Some(s) = scope() else { return };
    let f = Closure::once_into_js(move || {
        let reply = JOB.with(|j| {
            let mut j = j.borrow_mut();
            let job = j.as_mut().filter(|s| s.id() == id)?;
            let reply = job.step(SLICE_MS, &now);
            if job.finished() {
                *j = None;
            }
            Some((reply, j.is_some()))
        });
        if let Some((reply, more)) = reply {
            post(&reply);
            if more {
                schedule(id);
            }
        }
    });
    let _ = s.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), 0);
}

fn main() {
    // On the page's main thread (the fallback) there is nothing to listen to: the page drives
    // SliceSearch.
    let Some(s) = scope() else { return };
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| match e.data().as_string() {
        Some(text) => on_message(&text),
        None => post(&FromWorker::Error { id: 0, message: "the explorer takes JSON strings".into() }),
    });
    s.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&FromWorker::Ready);
}

/// The search for the page's main thread, when no worker can start: `new SliceSearch(startJson)`,
/// then `step(ms)` until `finished()`. Each step returns a [`FromWorker`] message as JSON.
#[wasm_bindgen]
pub struct SliceSearch(Search);

#[wasm_bindgen]
impl SliceSearch {
    /// A search for a [`ToWorker::Start`]'s fields (JSON of `Start`); bad input is one message.
    #[wasm_bindgen(constructor)]
    pub fn new(start_json: &str) -> Result<SliceSearch, JsValue> {
        let start = serde_json::from_str(start_json).map_err(|e| JsValue::from_str(&e.to_string()))?;
        Search::new(&start, now()).map(SliceSearch).map_err(|e| JsValue::from_str(&e))
    }

    /// One slice of about `slice_ms`; returns a message as JSON.
    pub fn step(&mut self, slice_ms: f64) -> String {
        self.0.step(slice_ms, &now).to_json()
    }

    /// True after the last message.
    pub fn finished(&self) -> bool {
        self.0.finished()
    }
}
