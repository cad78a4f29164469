//! "Find a split brain": runs the core's schedule explorer in a dedicated Web Worker (the second
//! wasm entry, `src/bin/explorer_worker.rs`), shows its progress, cancels it, and offers the
//! (shrunk) counterexample for loading into the timeline, with its point of no return.
//!
//! The worker is fetched only when the first search starts, so it adds nothing to the page's
//! first load, and the page's main thread never runs a schedule. A browser that cannot start the
//! worker gets the same wasm loaded on the main thread and driven in short slices, with a note.
use crate::explore_job::{FromWorker, NoReturnPoint, Start, ToWorker, BUDGET};
use crate::model::Action;
use splitbrain_sim::scenario::{Mode, Scenario};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// The worker's loader (Trunk's loader shim for `data-bin="explorer_worker"`), relative to the page.
const WORKER_URL: &str = "explorer_worker_loader.js";
/// The worker's wasm-bindgen script and wasm, for the main-thread fallback.
const WORKER_JS: &str = "explorer_worker.js";
const WORKER_WASM: &str = "explorer_worker_bg.wasm";
/// Wall-clock time per slice when the search runs on the page's main thread.
const FALLBACK_SLICE_MS: f64 = 30.0;
/// The note shown when the search cannot run in a worker.
const FALLBACK_NOTE: &str =
    "This browser could not start a background worker, so the search runs on the page itself, in short slices: the page may feel slower meanwhile.";

/// A point of no return, with the run it belongs to: the page shows it on the timeline while that
/// run (scenario, seed and behaviour) is shown.
#[derive(Clone, PartialEq, Debug)]
pub struct NoReturnMark {
    /// The counterexample, as the timeline loads it.
    pub scenario: Rc<Scenario>,
    /// The behaviour it was found under.
    pub mode: Mode,
    /// The point.
    pub point: NoReturnPoint,
}

/// Props of [`ExplorerPanel`].
#[derive(Properties, PartialEq)]
pub struct ExplorerProps {
    /// Kafka behaviour to search under.
    pub mode: Mode,
    /// The cluster to search (its script is ignored).
    pub base: Scenario,
    /// Receives `Action::LoadJson` with the counterexample.
    pub on_load: Callback<Action>,
    /// Receives the counterexample's point of no return once the worker has it.
    #[prop_or_default]
    pub on_no_return: Callback<NoReturnMark>,
}

#[derive(Clone, PartialEq, Debug)]
enum NoReturn {
    Computing,
    Known(NoReturnPoint),
    None,
}

#[derive(Clone, PartialEq, Debug)]
enum Status {
    Idle,
    Running {
        tried: u64,
        seconds: f64,
    },
    Found {
        tried: u64,
        seconds: f64,
        faults: usize,
        original: usize,
        name: String,
        scenario: Rc<String>,
        no_return: NoReturn,
    },
    Clean {
        tried: u64,
        seconds: f64,
    },
    Cancelled {
        tried: u64,
        seconds: f64,
    },
    Failed(String),
}

/// The panel's state: the current search and what the page knows of it.
#[derive(Clone, PartialEq, Debug)]
struct State {
    id: u64,
    mode: Mode,
    status: Status,
    /// Set when the search runs on the main thread.
    note: Option<&'static str>,
}

enum Msg {
    Started {
        id: u64,
        mode: Mode,
    },
    Reply(FromWorker),
    /// The user cancelled: the panel says so at once, whatever the worker is doing.
    CancelNow,
    Fallback,
    Failed(String),
}

impl Reducible for State {
    type Action = Msg;
    fn reduce(self: Rc<Self>, msg: Msg) -> Rc<Self> {
        let mut s = (*self).clone();
        let mine = |id: u64| id == s.id;
        match msg {
            Msg::Started { id, mode } => {
                s.id = id;
                s.mode = mode;
                s.status = Status::Running { tried: 0, seconds: 0.0 };
            }
            Msg::CancelNow => {
                if let Status::Running { tried, seconds } = s.status {
                    s.status = Status::Cancelled { tried, seconds };
                }
            }
            Msg::Fallback => s.note = Some(FALLBACK_NOTE),
            Msg::Failed(e) => s.status = Status::Failed(e),
            Msg::Reply(r) => {
                let running = matches!(s.status, Status::Running { .. });
                match r {
                    FromWorker::Ready => return self,
                    FromWorker::Progress { id, tried, seconds } if mine(id) && running => {
                        s.status = Status::Running { tried, seconds }
                    }
                    FromWorker::Found { id, tried, seconds, faults, original, name, scenario }
                        if mine(id) && running =>
                    {
                        log_rate(tried, seconds);
                        s.status = Status::Found {
                            tried,
                            seconds,
                            faults,
                            original,
                            name,
                            scenario: Rc::new(scenario),
                            no_return: NoReturn::Computing,
                        };
                    }
                    FromWorker::NoReturn { id, point } if mine(id) => {
                        let Status::Found { no_return, .. } = &mut s.status else { return self };
                        *no_return = point.map(NoReturn::Known).unwrap_or(NoReturn::None);
                    }
                    FromWorker::Clean { id, tried, seconds } if mine(id) && running => {
                        log_rate(tried, seconds);
                        s.status = Status::Clean { tried, seconds };
                    }
                    FromWorker::Cancelled { id, tried, seconds } if mine(id) && running => {
                        s.status = Status::Cancelled { tried, seconds };
                    }
                    FromWorker::Error { id, message } if mine(id) || id == 0 => s.status = Status::Failed(message),
                    _ => return self,
                }
            }
        }
        Rc::new(s)
    }
}

fn rate(tried: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        tried as f64 / seconds
    } else {
        0.0
    }
}

fn log_rate(tried: u64, seconds: f64) {
    web_sys::console::log_1(
        &format!(
            "splitbrain explorer: {tried} schedules in {:.0} ms = {:.1} schedules/s",
            seconds * 1000.0,
            rate(tried, seconds)
        )
        .into(),
    );
}

type Dispatch = UseReducerDispatcher<State>;
type HostCell = Rc<RefCell<Option<Host>>>;

/// Where the search runs.
enum Host {
    Worker(WorkerHost),
    Page(PageHost),
}

/// The dedicated worker. Its handlers are owned by JS (`into_js_value`), so replacing the host
/// from inside one of them frees nothing that is running.
struct WorkerHost {
    worker: web_sys::Worker,
    ready: bool,
    /// The start message that waits for the worker's `Ready`.
    pending: Option<String>,
}

impl Drop for WorkerHost {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

/// The fallback: the worker's wasm on the main thread.
#[derive(Default)]
struct PageHost {
    /// The worker wasm's exports (`wasm_bindgen`), once loaded.
    exports: Option<JsValue>,
    loading: bool,
    /// A start (its id and `Start` JSON) waiting for the wasm.
    pending: Option<(u64, String)>,
    /// The running search: its id and its `SliceSearch`.
    search: Option<(u64, JsValue)>,
}

fn parse_reply(data: JsValue) -> FromWorker {
    match data.as_string().map(|t| serde_json::from_str::<FromWorker>(&t)) {
        Some(Ok(m)) => m,
        Some(Err(e)) => FromWorker::Error { id: 0, message: format!("unreadable answer from the explorer: {e}") },
        None => FromWorker::Error { id: 0, message: "unreadable answer from the explorer".into() },
    }
}

/// Starts the worker, or says why it cannot.
fn spawn_worker(host: &HostCell, dispatch: &Dispatch) -> Result<WorkerHost, JsValue> {
    let worker = web_sys::Worker::new(WORKER_URL)?;
    let on_message = {
        let (host, dispatch) = (host.clone(), dispatch.clone());
        Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| match parse_reply(e.data()) {
            FromWorker::Ready => {
                if let Some(Host::Worker(w)) = host.borrow_mut().as_mut() {
                    w.ready = true;
                    if let Some(start) = w.pending.take() {
                        let _ = w.worker.post_message(&JsValue::from_str(&start));
                    }
                }
            }
            m => dispatch.dispatch(Msg::Reply(m)),
        })
        .into_js_value()
    };
    let on_error = {
        let (host, dispatch) = (host.clone(), dispatch.clone());
        Closure::<dyn FnMut(web_sys::Event)>::new(move |e: web_sys::Event| {
            e.prevent_default();
            let ready_and_pending = match host.borrow().as_ref() {
                Some(Host::Worker(w)) => Some((w.ready, w.pending.clone())),
                _ => None,
            };
            let Some((ready, pending)) = ready_and_pending else { return };
            if ready {
                let what = e.dyn_ref::<web_sys::ErrorEvent>().map(|e| e.message()).unwrap_or_default();
                dispatch.dispatch(Msg::Failed(format!("The explorer stopped with an error: {what}")));
                *host.borrow_mut() = None;
                return;
            }
            // The worker never started (it could not be fetched or run): run on the page instead.
            *host.borrow_mut() = Some(Host::Page(PageHost::default()));
            dispatch.dispatch(Msg::Fallback);
            if let Some(start) = pending.and_then(|s| start_of(&s)) {
                page_start(&host, &dispatch, start.0, start.1);
            }
        })
        .into_js_value()
    };
    worker.set_onmessage(Some(on_message.unchecked_ref()));
    worker.set_onerror(Some(on_error.unchecked_ref()));
    Ok(WorkerHost { worker, ready: false, pending: None })
}

/// The id and `Start` JSON inside a `ToWorker::Start` message.
fn start_of(msg: &str) -> Option<(u64, String)> {
    match serde_json::from_str::<ToWorker>(msg).ok()? {
        ToWorker::Start(s) => Some((s.id, serde_json::to_string(&s).ok()?)),
        ToWorker::Cancel { .. } => None,
    }
}

/// `globalThis[name]`, also for a script's top-level `let` (as wasm-bindgen's no-modules output
/// declares `wasm_bindgen`).
fn global(name: &str) -> Option<JsValue> {
    let f = js_sys::Function::new_no_args(&format!("return typeof {name} === 'undefined' ? undefined : {name}"));
    f.call0(&JsValue::UNDEFINED).ok().filter(|v| !v.is_undefined())
}

/// Starts search `id` on the main thread, loading the worker's wasm first if needed.
fn page_start(host: &HostCell, dispatch: &Dispatch, id: u64, start_json: String) {
    let need_load = {
        let mut h = host.borrow_mut();
        let Some(Host::Page(p)) = h.as_mut() else { return };
        p.search = None;
        if p.exports.is_none() {
            p.pending = Some((id, start_json.clone()));
            !std::mem::replace(&mut p.loading, true)
        } else {
            false
        }
    };
    if need_load {
        load_worker_wasm(host.clone(), dispatch.clone());
        return;
    }
    let ready = matches!(host.borrow().as_ref(), Some(Host::Page(p)) if p.exports.is_some());
    if ready {
        page_run(host, dispatch, id, &start_json);
    }
}

/// Loads `explorer_worker.js` with a script element, then its wasm, then runs the pending start.
fn load_worker_wasm(host: HostCell, dispatch: Dispatch) {
    let fail = {
        let dispatch = dispatch.clone();
        move |why: String| dispatch.dispatch(Msg::Failed(format!("The explorer could not be loaded: {why}")))
    };
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let script = match doc.create_element("script").map(|e| e.unchecked_into::<web_sys::HtmlScriptElement>()) {
        Ok(s) => s,
        Err(_) => return fail("no script element".into()),
    };
    script.set_src(WORKER_JS);
    let on_load = {
        let fail = fail.clone();
        Closure::once_into_js(move || {
            let Some(init) = global("wasm_bindgen").and_then(|v| v.dyn_into::<js_sys::Function>().ok()) else {
                return fail(format!("{WORKER_JS} did not define wasm_bindgen"));
            };
            let arg = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&arg, &"module_or_path".into(), &WORKER_WASM.into());
            let promise = match init.call1(&JsValue::UNDEFINED, &arg).map(js_sys::Promise::from) {
                Ok(p) => p,
                Err(e) => return fail(format!("{e:?}")),
            };
            let ok = Closure::once(move |_: JsValue| {
                let pending = match host.borrow_mut().as_mut() {
                    Some(Host::Page(p)) => {
                        p.exports = Some(init.into());
                        p.loading = false;
                        p.pending.take()
                    }
                    _ => None,
                };
                if let Some((id, start)) = pending {
                    page_run(&host, &dispatch, id, &start);
                }
            });
            let err = {
                let fail = fail.clone();
                Closure::once(move |e: JsValue| fail(format!("{e:?}")))
            };
            let _ = promise.then2(&ok, &err);
            ok.forget();
            err.forget();
        })
    };
    let on_error = Closure::once_into_js(move || fail(format!("{WORKER_JS} could not be fetched")));
    script.set_onload(Some(on_load.unchecked_ref()));
    script.set_onerror(Some(on_error.unchecked_ref()));
    if let Some(head) = doc.head() {
        let _ = head.append_child(&script);
    }
}

/// Creates the `SliceSearch` for `start_json` and runs its slices.
fn page_run(host: &HostCell, dispatch: &Dispatch, id: u64, start_json: &str) {
    let exports = match host.borrow().as_ref() {
        Some(Host::Page(p)) => p.exports.clone(),
        _ => None,
    };
    let Some(ctor) = exports.and_then(|e| js_sys::Reflect::get(&e, &"SliceSearch".into()).ok()) else {
        return dispatch.dispatch(Msg::Failed("The explorer's wasm has no SliceSearch".into()));
    };
    let args = js_sys::Array::of1(&JsValue::from_str(start_json));
    match ctor.dyn_into::<js_sys::Function>().map(|f| js_sys::Reflect::construct(&f, &args)) {
        Ok(Ok(search)) => {
            if let Some(Host::Page(p)) = host.borrow_mut().as_mut() {
                p.search = Some((id, search));
            }
            page_slice(host.clone(), dispatch.clone(), id);
        }
        Ok(Err(e)) => dispatch
            .dispatch(Msg::Reply(FromWorker::Error { id, message: e.as_string().unwrap_or_else(|| format!("{e:?}")) })),
        Err(_) => dispatch.dispatch(Msg::Failed("The explorer's SliceSearch is not a class".into())),
    }
}

fn call(obj: &JsValue, method: &str, args: &[JsValue]) -> Option<JsValue> {
    let f = js_sys::Reflect::get(obj, &method.into()).ok()?.dyn_into::<js_sys::Function>().ok()?;
    f.apply(obj, &args.iter().collect::<js_sys::Array>()).ok()
}

/// One slice of the main-thread search on a fresh macrotask (the page repaints in between).
fn page_slice(host: HostCell, dispatch: Dispatch, id: u64) {
    let Some(w) = web_sys::window() else { return };
    let f = Closure::once_into_js(move || {
        let search = match host.borrow().as_ref() {
            Some(Host::Page(PageHost { search: Some((sid, s)), .. })) if *sid == id => s.clone(),
            _ => return,
        };
        let reply = call(&search, "step", &[JsValue::from_f64(FALLBACK_SLICE_MS)]);
        let finished = call(&search, "finished", &[]).and_then(|v| v.as_bool()).unwrap_or(true);
        if finished {
            if let Some(Host::Page(p)) = host.borrow_mut().as_mut() {
                p.search = None;
            }
        }
        dispatch.dispatch(Msg::Reply(
            reply.map(parse_reply).unwrap_or(FromWorker::Error { id, message: "the explorer's slice failed".into() }),
        ));
        if !finished {
            page_slice(host, dispatch, id);
        }
    });
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(f.unchecked_ref(), 0);
}

/// Sends `start` (a `ToWorker::Start` JSON) to wherever searches run, starting the worker first.
fn start_search(host: &HostCell, dispatch: &Dispatch, id: u64, msg: String) {
    if host.borrow().is_none() {
        let h = match spawn_worker(host, dispatch) {
            Ok(w) => Host::Worker(w),
            Err(_) => {
                dispatch.dispatch(Msg::Fallback);
                Host::Page(PageHost::default())
            }
        };
        *host.borrow_mut() = Some(h);
    }
    let page = {
        let mut h = host.borrow_mut();
        match h.as_mut() {
            Some(Host::Worker(w)) if w.ready => {
                let _ = w.worker.post_message(&JsValue::from_str(&msg));
                false
            }
            Some(Host::Worker(w)) => {
                w.pending = Some(msg.clone());
                false
            }
            _ => true,
        }
    };
    if page {
        if let Some((_, start)) = start_of(&msg) {
            page_start(host, dispatch, id, start);
        }
    }
}

fn cancel_search(host: &HostCell, id: u64) {
    match host.borrow_mut().as_mut() {
        Some(Host::Worker(w)) => {
            // A start still waiting for the worker is simply dropped; a running one is told.
            let waiting = w.pending.take().is_some();
            let msg = serde_json::to_string(&ToWorker::Cancel { id }).unwrap_or_default();
            if !waiting {
                let _ = w.worker.post_message(&JsValue::from_str(&msg));
            }
        }
        Some(Host::Page(p)) => {
            p.search = None;
            p.pending = None;
        }
        None => {}
    }
}

/// The "Find a split brain" panel.
#[function_component(ExplorerPanel)]
pub fn explorer_panel(p: &ExplorerProps) -> Html {
    let state = use_reducer(|| State { id: 0, mode: p.mode, status: Status::Idle, note: None });
    let operator = use_state(|| false);
    let host: HostCell = use_mut_ref(|| None::<Host>);
    let next_id = use_mut_ref(|| Cell::new(0u64));
    // Stop the search (and the worker) when the panel goes away.
    {
        let host = host.clone();
        use_effect_with((), move |_| move || drop(host.borrow_mut().take()));
    }
    // Hand the point of no return to the page when it arrives.
    {
        let on_no_return = p.on_no_return.clone();
        let status = state.status.clone();
        let mode = state.mode;
        use_effect_with(status, move |status| {
            if let Status::Found { scenario, no_return: NoReturn::Known(point), .. } = status {
                if let Ok(s) = Scenario::from_json(scenario) {
                    on_no_return.emit(NoReturnMark { scenario: Rc::new(s), mode, point: *point });
                }
            }
        });
    }
    let on_start = {
        let (host, dispatch, next_id) = (host.clone(), state.dispatcher(), next_id.clone());
        let (mode, base, operator) = (p.mode, p.base.clone(), *operator);
        Callback::from(move |_: MouseEvent| {
            let id = next_id.borrow().get() + 1;
            next_id.borrow().set(id);
            let start = ToWorker::Start(Start {
                id,
                scenario: base.to_json(),
                mode: mode.name().to_string(),
                seed: base.seed,
                operator,
                budget: BUDGET,
            });
            dispatch.dispatch(Msg::Started { id, mode });
            match serde_json::to_string(&start) {
                Ok(msg) => start_search(&host, &dispatch, id, msg),
                Err(e) => dispatch.dispatch(Msg::Failed(e.to_string())),
            }
        })
    };
    let on_cancel = {
        let (host, dispatch, id) = (host.clone(), state.dispatcher(), state.id);
        Callback::from(move |_: MouseEvent| {
            cancel_search(&host, id);
            dispatch.dispatch(Msg::CancelNow);
        })
    };
    let running = matches!(state.status, Status::Running { .. });
    let rate_line = |tried: u64, seconds: f64| {
        html! {
            <p class="small dim" data-testid="explore-rate">
                {format!("{tried} schedules in {:.0} ms · {:.1} schedules/s", seconds * 1000.0, rate(tried, seconds))}
            </p>
        }
    };
    let body = match &state.status {
        Status::Idle => html! {},
        Status::Running { tried, seconds } => html! {
            <>
                <label for="explore-progress" class="small">{format!("Trying schedules: {tried} / {BUDGET}")}</label>
                <progress id="explore-progress" max={BUDGET.to_string()} value={tried.to_string()}
                    aria-label="Schedules tried" data-testid="explore-progress">{format!("{tried} / {BUDGET}")}</progress>
                {rate_line(*tried, *seconds)}
            </>
        },
        Status::Found { tried, seconds, faults, original, name, scenario, no_return } => {
            let on_load = {
                let cb = p.on_load.clone();
                let (name, text) = (name.clone(), scenario.clone());
                Callback::from(move |_: MouseEvent| {
                    cb.emit(Action::LoadJson { name: name.clone(), text: (*text).clone() })
                })
            };
            html! {
                <>
                    <p class="found" role="status" data-testid="explore-result">
                        {format!("Found: leader -1 after {tried} schedules ({faults} faults, shrunk from {original})")}
                    </p>
                    {rate_line(*tried, *seconds)}
                    <p class="small" data-testid="explore-no-return">
                        { match no_return {
                            NoReturn::Computing => "Looking for its point of no return…".to_string(),
                            NoReturn::Known(pt) => format!("{} Load it to see the marker on the timeline.", pt.sentence()),
                            NoReturn::None => "No point of no return was found for it.".to_string(),
                        } }
                    </p>
                    <button onclick={on_load} data-testid="explore-load">{"Load into the timeline"}</button>
                </>
            }
        }
        Status::Clean { tried, seconds } => html! {
            <>
                <p role="status" data-testid="explore-result">{format!("No violation in {tried} schedules (mode {})", state.mode.name())}</p>
                {rate_line(*tried, *seconds)}
            </>
        },
        Status::Cancelled { tried, seconds } => html! {
            <>
                <p role="status" data-testid="explore-result">{format!("Cancelled after {tried} schedules")}</p>
                {rate_line(*tried, *seconds)}
            </>
        },
        Status::Failed(e) => html! {
            <p role="alert" class="error" data-testid="explore-result">{format!("The search failed: {e}")}</p>
        },
    };
    html! {
        <section class="panel explorer" aria-labelledby="explore-h" data-testid="explorer">
            <div class="panel-head"><h2 id="explore-h">{"Explorer"}</h2>
                <span class="dim small">{format!("fault schedules, mode {}", p.mode.name())}</span></div>
            <div class="row">
                <button onclick={on_start} disabled={running} data-testid="explore-start">{"Find a split brain"}</button>
                if running {
                    <button onclick={on_cancel} data-testid="explore-cancel">{"Cancel"}</button>
                }
                <label class="small" title="The only way left to move a 1.1 controller without its session expiring">
                    <input type="checkbox" checked={*operator} disabled={running} data-testid="explore-operator"
                        onchange={let o = operator.clone(); Callback::from(move |_: Event| o.set(!*o))} />
                    {" also let an operator delete /controller"}
                </label>
            </div>
            if let Some(note) = state.note {
                <p class="small note" role="note" data-testid="explore-note">{note}</p>
            }
            {body}
        </section>
    }
}
