//! The page: header (scenario, seed, reset), the graph with its controls and story caption, the
//! panels and the event log. One reducer ([`Model`]) holds the run.
use crate::embed::{EmbedOptions, Panel};
use crate::explorer::{ExplorerPanel, NoReturnMark};
use crate::export::ExportBar;
use crate::graph::{Graph, InFlight};
use crate::model::{Action, CutMode, Model, StepCaption};
use crate::panels::{Alerts, ConsumerPanel, ControllerContextDiff, PartitionTable, ZkTree};
use crate::text::{controller_words, fmt_time, gap_words, hidden_story_words, mode_label, mode_words, GAP_MS};
use splitbrain_sim::event::{Event as SimEvent, EventKind};
use splitbrain_sim::scenario::{builtin_names, Mode};
use splitbrain_sim::view::{Headline, View};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement, HtmlInputElement, HtmlSelectElement, KeyboardEvent};
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

#[derive(Properties, PartialEq)]
struct LogProps {
    events: Rc<Vec<SimEvent>>,
    captions: Rc<Vec<StepCaption>>,
    on_jump: Callback<usize>,
    /// Element ids (`ev-N`, `event-log`) as anchors: only on the full page, where there is one
    /// log; an embedding page may hold several widgets.
    ids: bool,
}

/// Every event as a log line; re-rendered only when the run's history changes. The current
/// line is marked by an effect in [`App`] so that a step costs no list diff.
#[function_component(EventLog)]
fn event_log(props: &LogProps) -> Html {
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
fn mark_current_line(root: &Element, cursor: usize) {
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

#[derive(Properties, PartialEq)]
struct ControlsProps {
    cursor: usize,
    len: usize,
    time: String,
    playing: bool,
    speed: u32,
    can_undo: bool,
    undo_label: String,
    has_next_caption: bool,
    has_prev_caption: bool,
    cut_mode: CutMode,
    dispatch: Callback<Action>,
    /// The explorer's point of no return on this run: its step and its sentence.
    #[prop_or_default]
    no_return: Option<(usize, String)>,
}

#[function_component(Controls)]
fn controls(p: &ControlsProps) -> Html {
    let d = p.dispatch.clone();
    let act = move |a: Action| {
        let d = d.clone();
        Callback::from(move |_: MouseEvent| d.emit(a.clone()))
    };
    let on_speed = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            if let Ok(v) = e.target_unchecked_into::<HtmlSelectElement>().value().parse::<u32>() {
                d.emit(Action::SetSpeed(v));
            }
        })
    };
    let on_mode = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            d.emit(Action::SetCutMode(CutMode::from_key(&e.target_unchecked_into::<HtmlSelectElement>().value())))
        })
    };
    let on_scrub = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            if let Ok(v) = e.target_unchecked_into::<HtmlInputElement>().value().parse::<usize>() {
                d.emit(Action::Seek(v));
            }
        })
    };
    let speeds = [1u32, 2, 4, 8, 16, 32, 64];
    html! {
        <div class="controls" role="toolbar" aria-label="Stepping controls" data-testid="controls">
            <div class="row">
                <button onclick={act(Action::Seek(0))} disabled={p.cursor == 0} aria-label="Go to the start (step 0)" title="Start (Home)">{"|◀"}</button>
                <button onclick={act(Action::Back)} disabled={p.cursor == 0} aria-label="Step back" title="Step back (←)" data-testid="step-back">{"◀ Back"}</button>
                <button onclick={act(Action::Forward)} disabled={p.cursor >= p.len} aria-label="Step forward" title="Step forward (→)" data-testid="step-forward">{"Forward ▶"}</button>
                <button onclick={act(Action::End)} disabled={p.cursor >= p.len} aria-label="Go to the end of the run" title="End (End)" data-testid="step-end">{"▶|"}</button>
                <button onclick={act(Action::TogglePlay)} aria-label={if p.playing { "Pause" } else { "Play" }} aria-pressed={p.playing.to_string()} data-testid="play">
                    {if p.playing { "❚❚ Pause" } else { "▷ Play" }}
                </button>
                <label class="speed">{"speed "}
                    <select onchange={on_speed} aria-label="Playback speed in steps per second">
                        { for speeds.iter().map(|s| html!{ <option value={s.to_string()} selected={*s == p.speed}>{format!("{s}/s")}</option> }) }
                    </select>
                </label>
                <span class="stepinfo" data-testid="step-info" aria-live="polite">
                    {format!("step {} / {}", p.cursor, p.len)}<span class="t">{format!(" · t = {}", p.time)}</span>
                </span>
            </div>
            <div class={classes!("scrub-wrap", p.no_return.is_some().then_some("marked"))}>
                <input type="range" class="scrub" min="0" max={p.len.to_string()} value={p.cursor.to_string()} oninput={on_scrub}
                    aria-label="Scrub through the steps" data-testid="scrub" />
                if let Some((step, sentence)) = &p.no_return {
                    <button class="no-return-mark" style={format!("left: {:.2}%", *step as f64 * 100.0 / p.len.max(1) as f64)}
                        onclick={act(Action::Seek(*step))} aria-label={format!("{sentence} Go to step {step}.")} title={sentence.clone()}
                        data-testid="no-return-mark" data-step={step.to_string()}>{"⚑"}</button>
                }
            </div>
            if let Some((step, sentence)) = &p.no_return {
                <p class="no-return small" data-testid="no-return">
                    {sentence.clone()}{" "}
                    <button class="small-btn" onclick={act(Action::Seek(*step))} disabled={p.cursor == *step}>{format!("Go to step {step}")}</button>
                </p>
            }
            <div class="row">
                <button onclick={act(Action::PrevCaption)} disabled={!p.has_prev_caption} aria-label="Previous story step">{"⤒ Prev story step"}</button>
                <button onclick={act(Action::NextCaption)} disabled={!p.has_next_caption} aria-label="Jump to the next story step" data-testid="next-caption">{"Next story step ⤓"}</button>
                <button onclick={act(Action::Undo)} disabled={!p.can_undo} aria-label={if p.can_undo { format!("Undo {}", p.undo_label) } else { "Undo (nothing to undo)".to_string() }} data-testid="undo">
                    {"↶ Undo"}{ if p.can_undo { html!{ <span class="undo-what">{format!(" {}", p.undo_label)}</span> } } else { html!{} } }
                </button>
                <label class="mode">{"drag cuts "}
                    <select onchange={on_mode} aria-label="What a drag across a link cuts">
                        <option value="both" selected={p.cut_mode == CutMode::Both}>{"both directions"}</option>
                        <option value="requests" selected={p.cut_mode == CutMode::Requests}>{"one way: requests (→ ZooKeeper, → broker)"}</option>
                        <option value="replies" selected={p.cut_mode == CutMode::Replies}>{"one way: replies & watches (ZooKeeper →)"}</option>
                    </select>
                </label>
            </div>
        </div>
    }
}

fn watch_partition(v: &View) -> Option<String> {
    v.watched.as_ref().map(|tp| tp.to_string())
}

/// Properties of [`App`]: none for the full playground, the options for an embedded widget.
#[derive(Properties, PartialEq, Default)]
pub struct AppProps {
    /// Embedded: minimal chrome, chosen panels, keys only when focused.
    #[prop_or_default]
    pub embed: Option<Rc<EmbedOptions>>,
    /// Rendered at build time as the first paint (bin/prerender.rs): the picture and panels, not
    /// the event log's thousands of lines, which the live page fills in.
    #[prop_or_default]
    pub first_paint: bool,
}

/// The page (or an embedded widget).
#[function_component(App)]
pub fn app(props: &AppProps) -> Html {
    let embed = props.embed.clone();
    let model = {
        let e = embed.clone();
        use_reducer(move || match &e {
            Some(o) => o.model(),
            None => crate::share::model_from_location(),
        })
    };
    let root = use_node_ref();
    crate::share::use_hash_sync(&model, embed.is_none());
    crate::share::use_hash_listener(&model, embed.is_none());
    let dispatch = {
        let m = model.dispatcher();
        Callback::from(move |a: Action| m.dispatch(a))
    };
    crate::debug::set_current(&model.tl);

    // ←/→ keys, Home/End, n for the next story step: page-wide in the playground, only while
    // focused in a widget (a page may hold several).
    {
        let d = model.dispatcher();
        let root = root.clone();
        use_effect_with(embed.is_some(), move |in_widget| {
            // Effects run after the DOM is committed, so the root element exists here.
            let target: Option<web_sys::EventTarget> = if *in_widget {
                root.cast::<Element>().map(Into::into)
            } else {
                web_sys::window().and_then(|w| w.document()).map(Into::into)
            };
            let listener = target.map(|t| {
                gloo::events::EventListener::new_with_options(
                    &t,
                    "keydown",
                    gloo::events::EventListenerOptions::enable_prevent_default(),
                    move |e| {
                        let Some(e) = e.dyn_ref::<KeyboardEvent>() else { return };
                        if e.ctrl_key() || e.meta_key() || e.alt_key() {
                            return;
                        }
                        let tag = e
                            .target()
                            .and_then(|t| t.dyn_into::<Element>().ok())
                            .map(|el| el.tag_name().to_lowercase())
                            .unwrap_or_default();
                        if matches!(tag.as_str(), "input" | "select" | "textarea") {
                            return;
                        }
                        let a = match e.key().as_str() {
                            "ArrowRight" => Action::Forward,
                            "ArrowLeft" => Action::Back,
                            "Home" => Action::Seek(0),
                            "End" => Action::End,
                            "n" => Action::NextCaption,
                            "p" => Action::PrevCaption,
                            _ => return,
                        };
                        e.prevent_default();
                        d.dispatch(a);
                    },
                )
            });
            move || drop(listener)
        });
    }
    // Playback.
    {
        let d = model.dispatcher();
        use_effect_with((model.playing, model.speed), move |(playing, speed)| {
            let iv = if *playing {
                let ms = (1000 / (*speed).max(1)).max(5);
                Some(gloo::timers::callback::Interval::new(ms, move || d.dispatch(Action::Tick)))
            } else {
                None
            };
            move || drop(iv)
        });
    }
    let (cursor, len) = {
        let t = model.tl.borrow();
        (t.cursor(), t.len())
    };
    // After every render: mark the current log line, record the render time.
    {
        let root = root.clone();
        use_effect_with(embed.is_some(), move |in_widget| {
            if let (true, Some(el)) = (*in_widget, root.cast::<Element>()) {
                crate::embed::watch_height(&el);
            }
        });
    }
    {
        let root = root.clone();
        let in_frame = embed.is_some();
        use_effect_with((cursor, model.rev), move |(c, _)| {
            if let Some(el) = root.cast::<Element>() {
                mark_current_line(&el, *c);
                if in_frame {
                    crate::embed::post_height(&el);
                }
            }
            crate::debug::mark_rendered();
        });
    }

    let view = Rc::new(model.tl.borrow().view());
    let watch = watch_partition(&view);
    // The explorer's point of no return, while its counterexample is the run shown (same scenario,
    // seed and behaviour, and not changed by the user before that step).
    let no_return_mark = use_state(|| None::<NoReturnMark>);
    let on_no_return = {
        let m = no_return_mark.setter();
        use_callback((), move |mark: NoReturnMark, _| m.set(Some(mark)))
    };
    let no_return = no_return_mark.as_ref().and_then(|mark| {
        let step = usize::try_from(mark.point.step).ok()?;
        let same = mark.mode == model.mode
            && model.seed == mark.scenario.seed
            && model.forked_at.map(|f| f > step).unwrap_or(true)
            && *model.tl.borrow().scenario() == *mark.scenario;
        same.then(|| (step.min(len), mark.point.sentence()))
    });
    let on_commands = {
        let d = model.dispatcher();
        Callback::from(move |cmds| d.dispatch(Action::Apply(cmds)))
    };
    let on_jump = {
        let d = model.dispatcher();
        use_callback((), move |s: usize, _| d.dispatch(Action::Seek(s)))
    };
    let caption = model.caption_now().cloned();
    let has_next = model.captions.iter().any(|c| c.step > cursor);
    let has_prev = model.captions.iter().any(|c| c.step < cursor);

    let description = model.tl.borrow().scenario().description.clone();
    // The core decides what the run shows now; the banner only words it.
    let (banner_class, banner_text) = match &view.headline {
        Headline::SplitBrain { acting, zk_controller } => (
            "split",
            format!(
                "⚠ Split brain: brokers {} both act as controller. ZooKeeper's /controller names {}.",
                acting.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(" and "),
                zk_controller.map(|b| format!("broker {b}")).unwrap_or_else(|| "nobody".into())
            ),
        ),
        Headline::Stuck { group, partition } => {
            let leader = view
                .partitions
                .iter()
                .find(|p| p.topic == partition.topic.as_str() && p.partition == partition.partition)
                .map(|p| p.leader);
            let text = match leader {
                Some(-1) => format!("✕ {group} has no coordinator: {partition} has leader -1."),
                Some(b) => format!("✕ {group} has no coordinator: FindCoordinator answers COORDINATOR_NOT_AVAILABLE ({partition}, leader {b} in ZooKeeper)."),
                None => format!("✕ {group} has no coordinator: FindCoordinator answers COORDINATOR_NOT_AVAILABLE ({partition})."),
            };
            ("stuck", text)
        }
        Headline::Calm => {
            ("calm", format!("{} · {} · {}", model.source, mode_words(model.mode), controller_words(&view)))
        }
    };

    let full = embed.is_none();
    let compare_other: Result<(Rc<View>, usize, usize), String> = match (&model.compare, model.compare_step()) {
        (Some(Err(e)), _) => Err(e.clone()),
        (_, Some((_, t, k))) => {
            t.world_at(k).map(|w| (Rc::new(w.view()), k, t.len())).ok_or_else(|| "no such step".into())
        }
        _ => Err("not computed".into()),
    };
    // Why the two runs disagree about the group's partition: the core decides, from both runs' marks.
    let verdict = match (model.compare_step(), &compare_other, view.consumers.first()) {
        (Some((other_mode, t, k)), Ok((other_view, _, _)), Some(c)) => {
            let tp = splitbrain_sim::TopicPartition::new("__consumer_offsets", c.coordinator_partition);
            let leader = |v: &View| {
                v.partitions.iter().find(|p| p.topic == tp.topic && p.partition == tp.partition).map(|p| p.leader)
            };
            match (leader(&view), leader(other_view)) {
                (Some(a), Some(b)) => {
                    let main_events = &model.events[..cursor.min(model.events.len())];
                    let other_events = &t.events()[..k.min(t.events().len())];
                    Some(splitbrain_sim::compare::verdict(
                        &tp,
                        splitbrain_sim::compare::Side {
                            events: main_events,
                            leader: a,
                            behaviour: model.mode.behaviour(),
                        },
                        splitbrain_sim::compare::Side {
                            events: other_events,
                            leader: b,
                            behaviour: other_mode.behaviour(),
                        },
                    ))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let shows = |p: Panel| embed.as_ref().map(|o| o.shows(p)).unwrap_or(true);
    let root_style = embed.as_ref().and_then(|o| o.height).map(|h| format!("height:{h}px;overflow:auto"));
    let open_full = embed.as_ref().map(|o| format!("{}#{}", o.playground, model.fragment()));

    html! {
        <div ref={root.clone()} class={classes!("app", (!full).then_some("embedded"))} data-testid="app-root" style={root_style}
            tabindex={(!full).then_some("0")} aria-label={(!full).then_some("splitbrain widget: ←/→ step when focused")}>
            if full {
                <Header model={model.clone()} dispatch={dispatch.clone()} />
            } else {
                <div class="embed-bar">
                    <span class="embed-title"><span class="logo" aria-hidden="true">{"◐"}</span>{format!("splitbrain · {} · {}", model.source, mode_words(model.mode))}</span>
                    <a class="open-full" data-testid="open-full" href={open_full.clone().unwrap_or_default()} target="_blank" rel="noopener">{"Open in the full playground ↗"}</a>
                </div>
            }
            if let Some(n) = &model.notice {
                <div class={classes!("notice", if n.error { "error" } else { "info" })} role={if n.error { "alert" } else { "status" }} data-testid="notice">
                    <span>{n.text.clone()}</span>
                    <button class="small-btn" onclick={let d = dispatch.clone(); Callback::from(move |_| d.emit(Action::Dismiss))} aria-label="Dismiss message">{"✕"}</button>
                </div>
            }
            if let Some(text) = model.run_note() {
                <div class="notice info" role="status" data-testid="run-bound">{text}</div>
            }
            <main class="layout">
                <div class="stage">
                    <section class="card picture" aria-label="The cluster">
                        <div class={classes!("banner", banner_class)} data-testid="status-banner" data-headline={banner_class} role="status">
                            {banner_text}
                        </div>
                        <Graph view={view.clone()} cut_mode={model.cut_mode} watch_partition={watch.clone()} on_commands={on_commands.clone()} />
                        <InFlight view={view.clone()} />
                        if full {
                            <p class="legend small">
                                <span class="lg lg-acting">{"♛ acting controller (isActive)"}</span>
                                <span class="lg lg-zkctl">{"holds /controller"}</span>
                                <span class="lg lg-cut">{"✕ cut link"}</span>
                                <span class="lg"><span class="dot m-zk"></span>{"ZK request/reply"}</span>
                                <span class="lg"><span class="dot m-watch"></span>{"watch"}</span>
                                <span class="lg"><span class="dot m-control"></span>{"LeaderAndIsr/UpdateMetadata"}</span>
                                <span class="lg"><span class="dot m-client"></span>{"FindCoordinator"}</span>
                                <span class="lg">{"★ leads the group's partition"}</span>
                            </p>
                            <p class="hint small">{"Drag a stroke across links to cut them; drag across (or click) a cut link to heal it. Keyboard: Tab to a link, Enter. ←/→ step, n = next story step."}</p>
                        }
                    </section>
                    <Controls cursor={cursor} len={len} time={fmt_time(view.time_ms)} playing={model.playing} speed={model.speed}
                        can_undo={model.tl.borrow().can_undo()} undo_label={model.undo_label.clone()} has_next_caption={has_next} has_prev_caption={has_prev}
                        cut_mode={model.cut_mode} dispatch={dispatch.clone()} no_return={no_return} />
                    if full {
                        <div class="card fault-card">
                            <crate::faults::FaultBar view={view.clone()} on_commands={on_commands.clone()} />
                        </div>
                        <div class="card share-row">
                            <crate::share::ShareBar model={model.clone()} />
                            <ExportBar model={model.clone()} root={root.clone()} />
                        </div>
                        <crate::lanes::RunLanes model={model.clone()} />
                    }
                    if shows(Panel::Story) {
                        <section class={classes!("card", "story", caption.as_ref().map(|c| c.step == cursor).unwrap_or(false).then_some("now"))} aria-live="polite" data-testid="story">
                            if let Some(f) = model.forked_at.filter(|f| cursor > *f && !model.tl.borrow().scenario().captions.is_empty()) {
                                <p class="forked" data-testid="story-forked">{format!("You changed the run at step {f}: from there on it is your own experiment, and the story captions no longer apply. Undo or Reset to follow the incident again.")}</p>
                            }
                            if let Some(c) = &caption {
                                <p><span class="story-step">{format!("Step {}", c.step)}{ if c.step == cursor { "" } else { " (earlier)" } }</span>{" "}{c.text.clone()}</p>
                            } else if model.captions.is_empty() && !model.tl.borrow().scenario().captions.is_empty() {
                                <p class="dim">{hidden_story_words(&description, &model.story_modes(), model.mode)}</p>
                            } else if !model.captions.is_empty() {
                                <p class="dim">{format!("{} Press “Next story step” to follow the story ({} story steps).", description, model.captions.len())}</p>
                            } else {
                                <p class="dim">{description}</p>
                            }
                        </section>
                    }
                    if shows(Panel::Log) {
                        <section class="panel log-panel" aria-label="Event log">
                            <div class="panel-head"><h2>{"Event log"}</h2><span class="dim small">{format!("{} events · click a line to jump", len)}</span></div>
                            <div class="log-scroll" id={full.then_some("log-scroll")}>
                                if props.first_paint {
                                    <p class="dim small">{"The log appears when the simulation has loaded."}</p>
                                } else {
                                    <EventLog events={model.events.clone()} captions={model.captions.clone()} on_jump={on_jump} ids={full} />
                                }
                            </div>
                        </section>
                    }
                    if full {
                        <crate::tools_panel::ToolsPanel model={model.clone()} />
                    }
                </div>
                <div class="side">
                    if let Some(other_mode) = model.compare_mode {
                        <crate::compare::CompareView main={view.clone()} main_mode={model.mode} other_mode={other_mode}
                            other={compare_other.clone()} watch_partition={watch.clone()} on_commands={on_commands.clone()} cut_mode={model.cut_mode} verdict={verdict}>
                            if full { <crate::lanes::RunLanes model={model.clone()} compare=true /> }
                        </crate::compare::CompareView>
                    }
                    if full {
                        <ExplorerPanel mode={model.mode} base={explore_base(&model.tl.borrow(), view.seed)} on_load={dispatch.clone()} on_no_return={on_no_return} />
                    }
                    if shows(Panel::Consumer) {
                        <ConsumerPanel consumers={Rc::new(view.consumers.clone())} partitions={Rc::new(view.partitions.clone())} />
                    }
                    if shows(Panel::Alerts) {
                        <Alerts alerts={Rc::new(view.alerts.clone())} watched={view.watched.clone()} />
                    }
                    if shows(Panel::Controller) {
                        <ControllerContextDiff controllers={Rc::new(view.controllers.clone())} watch_partition={watch.clone()} zk_controller={view.zk_controller} />
                    }
                    if shows(Panel::Partitions) {
                        <PartitionTable partitions={Rc::new(view.partitions.clone())} watch_partition={watch.clone()} kraft={model.mode.behaviour().is_kraft()} />
                    }
                </div>
                if shows(Panel::Zk) {
                    <ZkTree znodes={Rc::new(view.zk_tree.clone())} watch_partition={watch} />
                }
            </main>
            if full {
                <footer class="foot small dim">
                    {"splitbrain — a deterministic simulation of Kafka's ZooKeeper-era controller (0.11–1.0, 1.1, the 2.1 fence) beside a KRaft quorum. Same scenario + seed + actions = same run. "}
                    <a href="docs.html">{"Embedding and exports"}</a>{" · "}<a href="blog-sample.html">{"a sample post with embedded moments"}</a>
                </footer>
            }
        </div>
    }
}

#[derive(Properties, PartialEq)]
struct HeaderProps {
    model: UseReducerHandle<Model>,
    dispatch: Callback<Action>,
}

#[function_component(Header)]
fn header(p: &HeaderProps) -> Html {
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let names = builtin_names();
    let on_pick = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            d.emit(Action::LoadBuiltin(e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_file = {
        let d = p.dispatch.clone();
        let reader = reader.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let name = file.name();
            if file.size() > 1_000_000.0 {
                d.emit(Action::FileError(format!(
                    "'{name}' is {} KB; scenario files are limited to 1000 KB. Still showing the current run.",
                    (file.size() / 1024.0) as u64
                )));
                return;
            }
            let d2 = d.clone();
            let f = gloo::file::File::from(file);
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&f, move |res| match res {
                Ok(text) => d2.emit(Action::LoadJson { name, text }),
                Err(err) => d2
                    .emit(Action::FileError(format!("Could not read '{name}': {err}. Still showing the current run."))),
            }));
        })
    };
    let on_mode = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            match Mode::parse(&v) {
                Ok(m) => d.emit(Action::SetMode(m)),
                Err(err) => d.emit(Action::FileError(err)),
            }
        })
    };
    let on_compare = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            d.emit(Action::SetCompare(Mode::parse(&v).ok()))
        })
    };
    let on_seed = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            d.emit(Action::SeedText(e.target_unchecked_into::<HtmlInputElement>().value()))
        })
    };
    let on_seed_key = {
        let d = p.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                d.emit(Action::Reset)
            }
        })
    };
    let on_reset = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.emit(Action::Reset))
    };
    let on_random = {
        let d = p.dispatch.clone();
        Callback::from(move |_| {
            let mut b = [0u8; 8];
            match getrandom::getrandom(&mut b) {
                Ok(()) => d.emit(Action::RandomSeed(u64::from_le_bytes(b) % 1_000_000_000)),
                Err(e) => d.emit(Action::FileError(format!("No random numbers available: {e}"))),
            }
        })
    };
    let m = &p.model;
    let is_builtin = names.iter().any(|n| *n == m.source);
    html! {
        <header class="top">
            <h1><span class="logo" aria-hidden="true">{"◐"}</span>{"splitbrain"}<span class="sub">{" · Kafka controller split brain, step by step"}</span></h1>
            <div class="pickers">
                <label>{"scenario "}
                    <select onchange={on_pick} aria-label="Built-in scenario" data-testid="scenario-select">
                        if !is_builtin { <option value="" selected=true disabled=true>{format!("{} (file)", m.source)}</option> }
                        { for names.iter().map(|n| html!{ <option value={n.clone()} selected={*n == m.source}>{n.clone()}</option> }) }
                    </select>
                </label>
                <label>{"behaviour "}
                    <select onchange={on_mode} aria-label="Kafka behaviour the brokers run" data-testid="mode-select">
                        { for Mode::ALL.into_iter().map(|x| html!{
                            <option value={x.name()} selected={m.mode == x}>{mode_label(x)}</option>
                        }) }
                    </select>
                </label>
                <label>{"side by side with "}
                    <select onchange={on_compare} aria-label="Show another behaviour side by side, in lockstep" data-testid="compare-select">
                        <option value="none" selected={m.compare_mode.is_none()}>{"nothing"}</option>
                        { for Mode::ALL.into_iter().filter(|x| *x != m.mode).map(|x| html!{
                            <option value={x.name()} selected={m.compare_mode == Some(x)}>{x.name()}</option>
                        }) }
                    </select>
                </label>
                <label class="file-btn">{"open JSON…"}
                    <input type="file" accept=".json,application/json" onchange={on_file} aria-label="Open a scenario JSON file" data-testid="scenario-file" />
                </label>
                <label>{"seed "}
                    <input type="text" inputmode="numeric" class="seed" value={m.seed_text.clone()} oninput={on_seed} onkeydown={on_seed_key} aria-label="Seed" data-testid="seed" />
                </label>
                <button onclick={on_reset} aria-label="Reset: restart the scenario with this seed" data-testid="reset">{"Reset"}</button>
                <button onclick={on_random} aria-label="Restart with a new random seed">{"random seed"}</button>
            </div>
        </header>
    }
}

/// The cluster the explorer searches: the scenario shown, with the seed of the run shown (the seed
/// box may differ from the scenario file's), so the page searches what `splitbrain explore --seed`
/// would.
fn explore_base(tl: &splitbrain_sim::Timeline, seed: u64) -> splitbrain_sim::Scenario {
    let mut s = tl.scenario().clone();
    s.seed = seed;
    s
}
