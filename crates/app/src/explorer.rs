//! "Find a split brain": runs the core's schedule explorer in small slices, yielding to the
//! browser between them, and offers the (shrunk) counterexample for loading into the timeline.
use crate::model::Action;
use splitbrain_sim::explore::{Explorer, Options};
use splitbrain_sim::scenario::{Mode, Scenario};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use yew::prelude::*;

/// Schedules tried per search.
pub const BUDGET: u64 = 2000;
/// Schedules tried per slice before yielding to the browser.
const SLICE: u64 = 5;

/// Props of [`ExplorerPanel`].
#[derive(Properties, PartialEq)]
pub struct ExplorerProps {
    /// Kafka behaviour to search under.
    pub mode: Mode,
    /// The cluster to search (its script is ignored).
    pub base: Scenario,
    /// Receives `Action::LoadJson` with the counterexample.
    pub on_load: Callback<Action>,
}

#[derive(Clone, PartialEq)]
enum Status {
    Idle,
    Running { tried: u64, elapsed_ms: f64 },
    Found { tried: u64, elapsed_ms: f64, faults: usize, original: usize, scenario: Box<Scenario> },
    Clean { tried: u64, elapsed_ms: f64, mode: Mode },
    Cancelled { tried: u64, elapsed_ms: f64 },
}

struct Run {
    ex: Explorer,
    t0: f64,
    generation: u64,
    mode: Mode,
}

fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

fn rate(tried: u64, elapsed_ms: f64) -> f64 {
    if elapsed_ms > 0.0 {
        tried as f64 * 1000.0 / elapsed_ms
    } else {
        0.0
    }
}

fn log_rate(tried: u64, elapsed_ms: f64) {
    web_sys::console::log_1(
        &format!(
            "splitbrain explorer: {tried} schedules in {elapsed_ms:.0} ms = {:.1} schedules/s",
            rate(tried, elapsed_ms)
        )
        .into(),
    );
}

/// Schedules one slice of the search on a fresh macrotask (so the page repaints in between).
fn schedule_slice(run: Rc<RefCell<Option<Run>>>, generation: Rc<RefCell<u64>>, gen: u64, set: UseStateSetter<Status>) {
    let Some(w) = web_sys::window() else { return };
    let f = move || {
        if *generation.borrow() != gen {
            return;
        }
        let next = {
            let mut guard = run.borrow_mut();
            let Some(r) = guard.as_mut().filter(|r| r.generation == gen) else { return };
            let remaining = BUDGET.saturating_sub(r.ex.tried());
            let found = r.ex.run(SLICE.min(remaining)).cloned();
            let tried = r.ex.tried();
            let elapsed_ms = now_ms() - r.t0;
            if let Some(c) = found {
                log_rate(tried, elapsed_ms);
                Some(Status::Found {
                    tried,
                    elapsed_ms,
                    faults: c.schedule.len(),
                    original: c.original_faults,
                    scenario: Box::new(c.scenario),
                })
            } else if tried >= BUDGET || r.ex.exhausted() {
                log_rate(tried, elapsed_ms);
                Some(Status::Clean { tried, elapsed_ms, mode: r.mode })
            } else {
                set.set(Status::Running { tried, elapsed_ms });
                None
            }
        };
        match next {
            Some(done) => {
                *run.borrow_mut() = None;
                set.set(done);
            }
            None => schedule_slice(run, generation, gen, set),
        }
    };
    let cb = wasm_bindgen::closure::Closure::once_into_js(f);
    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 0);
}

/// The "Find a split brain" panel.
#[function_component(ExplorerPanel)]
pub fn explorer_panel(p: &ExplorerProps) -> Html {
    let status = use_state(|| Status::Idle);
    let operator = use_state(|| false);
    let run = use_mut_ref(|| None::<Run>);
    let generation = use_mut_ref(|| 0u64);
    // Stop the search when the panel goes away.
    {
        let generation = generation.clone();
        use_effect_with((), move |_| move || *generation.borrow_mut() += 1);
    }
    let on_start = {
        let (run, generation, set) = (run.clone(), generation.clone(), status.setter());
        let (mode, base, operator) = (p.mode, p.base.clone(), *operator);
        Callback::from(move |_: MouseEvent| {
            let gen = {
                let mut g = generation.borrow_mut();
                *g += 1;
                *g
            };
            let ex = Explorer::new(base.clone(), Options { mode, seed: base.seed, operator, ..Options::default() });
            *run.borrow_mut() = Some(Run { ex, t0: now_ms(), generation: gen, mode });
            set.set(Status::Running { tried: 0, elapsed_ms: 0.0 });
            schedule_slice(run.clone(), generation.clone(), gen, set.clone());
        })
    };
    let on_cancel = {
        let (run, generation, set) = (run.clone(), generation.clone(), status.setter());
        Callback::from(move |_: MouseEvent| {
            *generation.borrow_mut() += 1;
            if let Some(r) = run.borrow_mut().take() {
                let (tried, elapsed_ms) = (r.ex.tried(), now_ms() - r.t0);
                log_rate(tried, elapsed_ms);
                set.set(Status::Cancelled { tried, elapsed_ms });
            }
        })
    };
    let running = matches!(*status, Status::Running { .. });
    let rate_line = |tried: u64, elapsed_ms: f64| {
        html! {
            <p class="small dim" data-testid="explore-rate">
                {format!("{tried} schedules in {elapsed_ms:.0} ms · {:.1} schedules/s", rate(tried, elapsed_ms))}
            </p>
        }
    };
    let body = match &*status {
        Status::Idle => html! {},
        Status::Running { tried, elapsed_ms } => html! {
            <>
                <label for="explore-progress" class="small">{format!("Trying schedules: {tried} / {BUDGET}")}</label>
                <progress id="explore-progress" max={BUDGET.to_string()} value={tried.to_string()}
                    aria-label="Schedules tried" data-testid="explore-progress">{format!("{tried} / {BUDGET}")}</progress>
                {rate_line(*tried, *elapsed_ms)}
            </>
        },
        Status::Found { tried, elapsed_ms, faults, original, scenario } => {
            let on_load = {
                let cb = p.on_load.clone();
                let s = scenario.clone();
                Callback::from(move |_: MouseEvent| {
                    cb.emit(Action::LoadJson { name: s.name.clone(), text: s.to_json() });
                })
            };
            html! {
                <>
                    <p class="found" role="status" data-testid="explore-result">
                        {format!("Found: leader -1 after {tried} schedules ({faults} faults, shrunk from {original})")}
                    </p>
                    {rate_line(*tried, *elapsed_ms)}
                    <button onclick={on_load} data-testid="explore-load">{"Load into the timeline"}</button>
                </>
            }
        }
        Status::Clean { tried, elapsed_ms, mode } => html! {
            <>
                <p role="status" data-testid="explore-result">{format!("No violation in {tried} schedules (mode {})", mode.name())}</p>
                {rate_line(*tried, *elapsed_ms)}
            </>
        },
        Status::Cancelled { tried, elapsed_ms } => html! {
            <>
                <p role="status" data-testid="explore-result">{format!("Cancelled after {tried} schedules")}</p>
                {rate_line(*tried, *elapsed_ms)}
            </>
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
            {body}
        </section>
    }
}
