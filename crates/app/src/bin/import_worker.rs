//! The logs page's Web Worker (`import_worker`, started by web/import_worker_loader.js): the only
//! wasm that links `splitbrain-import`. For each [`Job`] it reads the files the page handed over
//! (the browser's `File` objects, read here with `FileReaderSync`; the paste as a string), runs
//! [`splitbrain_app::logs::job::run`], and posts progress about every 100 ms, then the answer.
//! The page starts one worker per import and terminates it after the answer.
use splitbrain_app::logs::job::{self, OwnedInput};
use splitbrain_app::logs::progress::Throttle;
use splitbrain_app::logs::protocol::{FromWorker, Job, Stage};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{DedicatedWorkerGlobalScope, MessageEvent};

fn scope() -> Option<DedicatedWorkerGlobalScope> {
    js_sys::global().dyn_into::<DedicatedWorkerGlobalScope>().ok()
}

fn post(msg: &FromWorker, extra: &[&str]) {
    let Some(s) = scope() else { return };
    let arr = js_sys::Array::of1(&JsValue::from_str(&msg.to_json()));
    for e in extra {
        arr.push(&JsValue::from_str(e));
    }
    let _ = s.post_message(&arr);
}

/// The bytes of one handed-over item: a `Blob`/`File`, or a string.
fn bytes_of(item: &JsValue, reader: &web_sys::FileReaderSync) -> Result<Vec<u8>, String> {
    if let Some(s) = item.as_string() {
        return Ok(s.into_bytes());
    }
    let blob = item.dyn_ref::<web_sys::Blob>().ok_or("an input is neither a file nor text")?;
    let buf = reader.read_as_array_buffer(blob).map_err(|e| format!("the browser could not read it ({e:?})"))?;
    Ok(js_sys::Uint8Array::new(&buf).to_vec())
}

fn serve(data: &JsValue) -> Result<(), (u64, String)> {
    let arr = data.dyn_ref::<js_sys::Array>().ok_or((0, "the request is not a list".to_string()))?;
    let text = arr.get(0).as_string().ok_or((0, "the request has no job".to_string()))?;
    let job: Job = serde_json::from_str(&text).map_err(|e| (0, format!("the request could not be read: {e}")))?;
    let id = job.id;
    let items: js_sys::Array = arr.get(1).dyn_into().map_err(|_| (id, "the request has no files".to_string()))?;
    if items.length() as usize != job.inputs.len() {
        return Err((id, "the request's files do not match its names".into()));
    }
    let reader =
        web_sys::FileReaderSync::new().map_err(|_| (id, "this browser cannot read files in a worker".to_string()))?;
    let total: u64 = items
        .iter()
        .map(|i| {
            i.as_string()
                .map(|s| s.len() as f64)
                .or_else(|| i.dyn_ref::<web_sys::Blob>().map(|b| b.size()))
                .unwrap_or(0.0) as u64
        })
        .sum();
    post(&FromWorker::Progress { id, stage: Stage::Reading, done: 0, total }, &[]);
    let mut inputs = Vec::with_capacity(job.inputs.len());
    let mut done = 0u64;
    for (meta, item) in job.inputs.into_iter().zip(items.iter()) {
        let bytes = bytes_of(&item, &reader).map_err(|e| (id, format!("'{}' could not be read: {e}", meta.name)))?;
        done += bytes.len() as u64;
        post(&FromWorker::Progress { id, stage: Stage::Reading, done, total }, &[]);
        inputs.push(OwnedInput { name: meta.name, bytes, broker: meta.broker });
    }
    let now = || js_sys::Date::now();
    let mut throttle = Throttle::new(now());
    post(&FromWorker::Progress { id, stage: Stage::Parsing, done: 0, total }, &[]);
    let answer = job::run(inputs, &mut |stage, done, total| {
        if stage != Stage::Parsing || throttle.due(done, total, &mut || now()) {
            post(&FromWorker::Progress { id, stage, done, total }, &[]);
        }
    })
    .map_err(|e| (id, e))?;
    post(&FromWorker::Done { id }, &[&answer.view, &answer.export]);
    Ok(())
}

fn main() {
    let Some(s) = scope() else { return };
    // A panic (the worker's wasm aborts after it) is said to the page before the error event.
    std::panic::set_hook(Box::new(|info| {
        post(
            &FromWorker::Error { id: 0, message: format!("the log reader stopped with an internal error: {info}") },
            &[],
        );
    }));
    let handler = Closure::<dyn FnMut(MessageEvent)>::new(|e: MessageEvent| {
        if let Err((id, message)) = serve(&e.data()) {
            post(&FromWorker::Error { id, message }, &[]);
        }
    });
    s.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    post(&FromWorker::Ready, &[]);
}
