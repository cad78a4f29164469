//! The page: header (scenario, seed, reset), the graph with its controls and story caption, the
//! panels and the event log. One reducer ([`Model`]) holds the run.
use crate::components::controls::Controls;
use crate::components::explorer::{ExplorerPanel, NoReturnMark};
use crate::components::export::ExportBar;
use crate::components::graph::{Graph, InFlight};
use crate::components::header::Header;
use crate::components::log::{mark_current_line, EventLog};
use crate::components::panels::{Alerts, ConsumerPanel, ControllerContextDiff, PartitionTable, ZkTree};
use crate::embed::{EmbedOptions, Panel};
use crate::model::Action;
use crate::text::{controller_words, fmt_time, hidden_story_words, metadata_words, mode_words};
use splitbrain_sim::view::{Headline, View};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::{Element, KeyboardEvent};
use yew::prelude::*;

/// Whether this build has the full playground's chrome (header, fault bar, share and export bars,
/// lanes, tools panel, explorer): the `full-page` feature, on by default. The widget's own wasm
/// (`src/bin/widget.rs`, built with `--no-default-features`) only ever renders embeds, so without
/// the feature that code is not linked at all.
pub const FULL_PAGE: bool = cfg!(feature = "full-page");

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
            None => crate::hooks::location::model_from_location(),
        })
    };
    let root = use_node_ref();
    crate::hooks::location::use_hash_sync(&model, embed.is_none());
    crate::hooks::location::use_hash_listener(&model, embed.is_none());
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
        Headline::Stuck { group, partition, leader } => {
            let text = match leader {
                Some(-1) => format!("✕ {group} has no coordinator: {partition} has leader -1."),
                Some(b) => format!("✕ {group} has no coordinator: FindCoordinator answers COORDINATOR_NOT_AVAILABLE ({partition}, leader {b} in {}).", metadata_words(view.metadata)),
                None => format!("✕ {group} has no coordinator: FindCoordinator answers COORDINATOR_NOT_AVAILABLE ({partition})."),
            };
            ("stuck", text)
        }
        Headline::Calm => {
            ("calm", format!("{} · {} · {}", model.source, mode_words(model.mode), controller_words(&view)))
        }
    };

    let full = FULL_PAGE && embed.is_none();
    let compare_other: Result<(Rc<View>, usize, usize), String> = match (&model.compare, model.compare_step()) {
        (Some(Err(e)), _) => Err(e.clone()),
        (_, Some((_, t, k))) => {
            t.world_at(k).map(|w| (Rc::new(w.view()), k, t.len())).ok_or_else(|| "no such step".into())
        }
        _ => Err("not computed".into()),
    };
    // How the two runs compare, and why they disagree about the group's partition: the core
    // decides, from both runs' views and marks.
    let side_by_side = match (model.compare_step(), &compare_other) {
        (Some((other_mode, t, k)), Ok((other_view, _, _))) => {
            use splitbrain_sim::compare::{side_by_side, Run};
            Some(Rc::new(side_by_side(
                Run {
                    view: &view,
                    events: &model.events[..cursor.min(model.events.len())],
                    behaviour: model.mode.behaviour(),
                },
                Run {
                    view: other_view,
                    events: &t.events()[..k.min(t.events().len())],
                    behaviour: other_mode.behaviour(),
                },
            )))
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
                        <Graph view={view.clone()} cut_mode={model.cut_mode} on_commands={on_commands.clone()} />
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
                            <p class="hint small">{"Drag a stroke across links to cut them; drag across (or click) a cut link to heal it. Keyboard: Tab to a link, Enter. ←/→ step, n = next story step. Below the step controls: crash or bounce a broker, reset its ZooKeeper connection (a network blip), delete /controller."}</p>
                        }
                    </section>
                    <Controls cursor={cursor} len={len} time={fmt_time(view.time_ms)} playing={model.playing} speed={model.speed}
                        can_undo={model.tl.borrow().can_undo()} undo_label={model.undo_label.clone()} has_next_caption={has_next} has_prev_caption={has_prev}
                        cut_mode={model.cut_mode} dispatch={dispatch.clone()} no_return={no_return} />
                    if full {
                        <div class="card fault-card">
                            <crate::components::faults::FaultBar view={view.clone()} on_commands={on_commands.clone()} />
                        </div>
                        <div class="card share-row">
                            <crate::components::share_bar::ShareBar model={model.clone()} />
                            <ExportBar model={model.clone()} root={root.clone()} />
                        </div>
                        <crate::components::lanes::RunLanes model={model.clone()} />
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
                        <crate::components::tools_panel::ToolsPanel model={model.clone()} />
                    }
                </div>
                <div class="side">
                    if let Some(other_mode) = model.compare_mode {
                        <crate::components::compare::CompareView main_mode={model.mode} other_mode={other_mode}
                            other={compare_other.clone()} on_commands={on_commands.clone()} cut_mode={model.cut_mode} compared={side_by_side}>
                            if full { <crate::components::lanes::RunLanes model={model.clone()} compare=true /> }
                        </crate::components::compare::CompareView>
                    }
                    if full {
                        <ExplorerPanel mode={model.mode} base={explore_base(&model.tl.borrow(), view.seed)} on_load={dispatch.clone()} on_no_return={on_no_return} />
                    }
                    if shows(Panel::Consumer) {
                        <ConsumerPanel consumers={Rc::new(view.consumers.clone())} partitions={Rc::new(view.partitions.clone())} metadata={view.metadata} />
                    }
                    if shows(Panel::Alerts) {
                        <Alerts alerts={Rc::new(view.alerts.clone())} watched={view.watched.clone()} />
                    }
                    if shows(Panel::Controller) {
                        <ControllerContextDiff controllers={Rc::new(view.controllers.clone())} watched={view.watched.clone()} zk_controller={view.zk_controller} />
                    }
                    if shows(Panel::Partitions) {
                        <PartitionTable partitions={Rc::new(view.partitions.clone())} watched={view.watched.clone()} watched_group={view.watched_group.clone()} metadata={view.metadata} />
                    }
                </div>
                if shows(Panel::Zk) {
                    <ZkTree znodes={Rc::new(view.zk_tree.clone())} watched={view.watched.clone()} />
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

/// The cluster the explorer searches: the scenario shown, with the seed of the run shown (the seed
/// box may differ from the scenario file's), so the page searches what `splitbrain explore --seed`
/// would.
fn explore_base(tl: &splitbrain_sim::Timeline, seed: u64) -> splitbrain_sim::Scenario {
    let mut s = tl.scenario().clone();
    s.seed = seed;
    s
}
