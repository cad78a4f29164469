//! The event log: every event as a `controller.log`-style line, and the current line marked.
use crate::model::StepCaption;
use crate::text::{fmt_time, gap_words, GAP_MS};
use splitbrain_sim::event::{Event as SimEvent, EventKind};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};
use yew::prelude::*;

fn kind_class(k: EventKind) -> &'static str {
    match k {
        EventKind::Fault => "k-fault",
        EventKind::ZkRequest | EventKind::ZkResponse => "k-zk",
        EventKind::ZkWatch => "k-watch",
        EventKind::ZkSession | EventKind::SessionExpired => "k-session",
        EventKind::ControllerElected | EventKind::ControllerResigned => "k-controller",
        EventKind::LeaderChange => "k-leader",
        EventKind::ControlRequest | EventKind::ControlRejected => "k-control",
        EventKind::IsrChange => "k-isr",
        EventKind::MessageDropped => "k-drop",
        EventKind::Consumer => "k-consumer",
        EventKind::Process => "k-process",
        EventKind::Info => "k-info",
    }
}

/// Props of [`EventLog`].
#[derive(Properties, PartialEq)]
pub struct LogProps {
    /// The run's events.
    pub events: Rc<Vec<SimEvent>>,
    /// The story captions, by step.
    pub captions: Rc<Vec<StepCaption>>,
    /// A click on a line: jump to its step.
    pub on_jump: Callback<usize>,
    /// Element ids (`ev-N`, `event-log`) as anchors: only on the full page, where there is one
    /// log; an embedding page may hold several widgets.
    pub ids: bool,
}

/// Every event as a log line; re-rendered only when the run's history changes. The current
/// line is marked by an effect in [`crate::app::App`] so that a step costs no list diff.
#[function_component(EventLog)]
pub fn event_log(props: &LogProps) -> Html {
    let onclick = {
        let on_jump = props.on_jump.clone();
        Callback::from(move |e: MouseEvent| {
            let li = e
                .target()
                .and_then(|t| t.dyn_into::<Element>().ok())
                .and_then(|el| el.closest("[data-step]").ok().flatten());
            if let Some(step) = li.and_then(|li| li.get_attribute("data-step")).and_then(|s| s.parse::<usize>().ok()) {
                on_jump.emit(step);
            }
        })
    };
    let mut prev_t = 0u64;
    let mut items: Vec<Html> = Vec::with_capacity(props.events.len() + 4);
    items.push(html! {
        <li key="ev-0" id={props.ids.then_some("ev-0")} class="ev k-info" data-step="0"><span class="st">{"0"}</span><span class="t">{"0.000s"}</span><span class="n"></span><span class="l">{"start of the run"}</span></li>
    });
    let mut ci = props.captions.iter().peekable();
    for e in props.events.iter() {
        if e.time_ms.saturating_sub(prev_t) >= GAP_MS {
            let gap = e.time_ms - prev_t;
            items.push(html! {
                <li key={format!("gap-{}", e.step)} class="gap" role="separator" data-testid="time-gap">
                    {format!("⋯ {} with nothing to do ({} → {}) ⋯", gap_words(gap), fmt_time(prev_t), fmt_time(e.time_ms))}
                </li>
            });
        }
        prev_t = e.time_ms;
        let step = e.step as usize;
        while ci.peek().map(|c| c.step < step).unwrap_or(false) {
            ci.next();
        }
        let has_caption = ci.peek().map(|c| c.step == step).unwrap_or(false);
        let alert = !e.alerts_raised.is_empty();
        let title = if e.details.is_empty() { None } else { Some(e.details.join("\n")) };
        items.push(html! {
            <li key={format!("ev-{step}")} id={props.ids.then(|| format!("ev-{step}"))} data-step={step.to_string()}
                class={classes!("ev", kind_class(e.kind), has_caption.then_some("captioned"), alert.then_some("alerting"))} title={title}>
                <span class="st">{step}</span>
                <span class="t">{fmt_time(e.time_ms)}</span>
                <span class="n">{e.node.to_string()}</span>
                <span class="l">
                    { if has_caption { html!{<span class="cap-mark" title="story caption at this step">{"◆ "}</span>} } else { html!{} } }
                    {e.line.clone()}
                    { for e.alerts_raised.iter().map(|a| html!{ <span class="alert-line">{format!("ALERT {a}")}</span> }) }
                </span>
            </li>
        });
    }
    html! {
        <ol class="log" id={props.ids.then_some("event-log")} data-testid="event-log" {onclick} aria-label="Event log: click a line to jump to that step">
            { for items }
        </ol>
    }
}

/// Marks the current line of the log and scrolls it into view inside the log (not the page).
/// Looks only inside `root`: a page may hold several widgets.
pub fn mark_current_line(root: &Element, cursor: usize) {
    if let Ok(list) = root.query_selector_all(".log .current") {
        for i in 0..list.length() {
            if let Some(el) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
                let _ = el.class_list().remove_1("current");
                let _ = el.remove_attribute("aria-current");
            }
        }
    }
    let Ok(Some(el)) = root.query_selector(&format!(".log [data-step='{cursor}']")) else { return };
    let root = root.clone();
    let _ = el.class_list().add_1("current");
    let _ = el.set_attribute("aria-current", "step");
    // Scroll in the next animation frame: reading offsets now would force an extra layout.
    let scroll = move || {
        let (Some(li), Ok(Some(box_))) = (el.dyn_ref::<HtmlElement>(), root.query_selector(".log-scroll")) else {
            return;
        };
        let Some(box_) = box_.dyn_ref::<HtmlElement>() else { return };
        let top = li.offset_top();
        let h = li.offset_height();
        let (st, ch) = (box_.scroll_top(), box_.client_height());
        if top < st || top + h > st + ch {
            box_.set_scroll_top((top - ch / 2).max(0));
        }
    };
    if let Some(w) = web_sys::window() {
        let cb = wasm_bindgen::closure::Closure::once_into_js(scroll);
        let _ = w.request_animation_frame(cb.unchecked_ref());
    }
}
