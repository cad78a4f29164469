//! The swim lanes of the run (and of the side-by-side run): one lane per node, each message an
//! arrow from its send to its delivery (a dropped one stops short with a ✕ at the step that
//! dropped it, one in flight reaches the current step, dashed), faults and session expiries as
//! markers on their lanes, the current step highlighted. The core builds the facts
//! ([`splitbrain_sim::lanes::Lanes`]) for a window of the last [`SPAN`] steps; this only draws
//! them. A click, or Enter/Space on a focused arrow or marker, jumps to its step.
use crate::model::{Action, Model};
use splitbrain_sim::lanes::{Arrow, Fate, Lane, LaneKind, Lanes, Marker, MarkerKind};
use splitbrain_sim::scenario::Mode;
use std::rc::Rc;
use web_sys::Element;
use yew::prelude::*;

/// Steps in the window: the current step and the 39 before it.
pub const SPAN: u64 = 40;

const LABEL_W: f64 = 52.0;
const STEP_W: f64 = 18.0;
const LANE_H: f64 = 28.0;
const TOP: f64 = 24.0;

/// A coordinate as an attribute value, to one decimal.
fn num(v: f64) -> AttrValue {
    AttrValue::from(format!("{v:.1}"))
}

fn lane_y(i: usize) -> f64 {
    TOP + LANE_H * (i as f64 + 0.5)
}

/// The x of a step's column centre; a step before the window sits at the left edge.
fn step_x(l: &Lanes, step: u64) -> f64 {
    if step < l.first_step {
        LABEL_W
    } else {
        LABEL_W + ((step - l.first_step) as f64 + 0.5) * STEP_W
    }
}

fn fate_word(f: Fate) -> &'static str {
    match f {
        Fate::Delivered => "delivered",
        Fate::Dropped => "dropped",
        Fate::InFlight => "in-flight",
    }
}

fn marker_glyph(k: MarkerKind) -> &'static str {
    match k {
        MarkerKind::Cut => "✂",
        MarkerKind::Heal => "+",
        MarkerKind::Isolate => "⊘",
        MarkerKind::Rejoin => "⊙",
        MarkerKind::Crash => "✕",
        MarkerKind::Restart | MarkerKind::RestartConsumer => "↻",
        MarkerKind::DeleteController => "⌫",
        MarkerKind::SetLatency => "⏱",
        MarkerKind::Reset => "↯",
        MarkerKind::SessionExpired => "⌛",
    }
}

fn marker_class(k: MarkerKind) -> &'static str {
    match k {
        MarkerKind::Cut | MarkerKind::Isolate => "mk-cut",
        MarkerKind::Heal | MarkerKind::Rejoin => "mk-heal",
        MarkerKind::Crash => "mk-crash",
        MarkerKind::Restart | MarkerKind::RestartConsumer => "mk-restart",
        MarkerKind::DeleteController => "mk-delete",
        MarkerKind::SetLatency => "mk-latency",
        MarkerKind::Reset => "mk-cut",
        MarkerKind::SessionExpired => "mk-expired",
    }
}

fn kind_word(k: LaneKind) -> &'static str {
    match k {
        LaneKind::Zk => "ZooKeeper server",
        LaneKind::Voter => "KRaft voter",
        LaneKind::Broker => "broker",
        LaneKind::Consumer => "consumer",
    }
}

fn arrow_label(a: &Arrow) -> String {
    let (fate, go) = match a.fate {
        Fate::Delivered => (format!("delivered at step {}", a.end_step), a.end_step),
        Fate::Dropped => (format!("dropped at step {}", a.end_step), a.end_step),
        Fate::InFlight => ("still in flight".to_string(), a.sent_step),
    };
    format!(
        "{} message {} → {}, sent at step {}, {fate}. Go to step {go}.",
        a.category.name(),
        a.from,
        a.to,
        a.sent_step
    )
}

/// Where a click on an arrow goes: its end (delivery or drop), or its send while in flight.
fn arrow_step(a: &Arrow) -> (u64, u64) {
    match a.fate {
        Fate::InFlight => (a.sent_step, a.sent_ms),
        _ => (a.end_step, a.end_ms),
    }
}

fn marker_label(m: &Marker) -> String {
    let peer = m.peer.map(|p| format!(" (with {p})")).unwrap_or_default();
    format!(
        "{}: {}{peer} at step {}, t = {}. Go to step {}.",
        m.node,
        m.kind.words(),
        m.step,
        crate::text::fmt_time(m.ms),
        m.step
    )
}

/// A click or Enter/Space on an element jumps to `(step, ms)`.
fn jump_handlers(on_jump: &Callback<(u64, u64)>, to: (u64, u64)) -> (Callback<MouseEvent>, Callback<KeyboardEvent>) {
    let click = {
        let j = on_jump.clone();
        Callback::from(move |_: MouseEvent| j.emit(to))
    };
    let key = {
        let j = on_jump.clone();
        Callback::from(move |e: KeyboardEvent| {
            if matches!(e.key().as_str(), "Enter" | " ") {
                e.prevent_default();
                j.emit(to);
            }
        })
    };
    (click, key)
}

/// Properties of [`LanesView`].
#[derive(Properties, PartialEq)]
pub struct LanesViewProps {
    /// The lanes of the window, from the core.
    pub lanes: Rc<Lanes>,
    /// The run's behaviour (named in the title).
    pub mode: Mode,
    /// Steps computed in the run.
    pub len: usize,
    /// A click on an arrow or a marker: its (step, time in ms).
    pub on_jump: Callback<(u64, u64)>,
    /// Prefix of the test ids and element ids (`lanes`, `compare-lanes`).
    pub id: AttrValue,
    /// The file name of the SVG export.
    pub file_name: String,
}

/// One run's swim lanes, with their SVG export.
#[function_component(LanesView)]
pub fn lanes_view(p: &LanesViewProps) -> Html {
    let l = &*p.lanes;
    let svg_ref = use_node_ref();
    let status = use_state(String::new);
    let on_export = {
        let svg_ref = svg_ref.clone();
        let status = status.clone();
        let name = p.file_name.clone();
        Callback::from(move |_: MouseEvent| {
            let res = svg_ref
                .cast::<Element>()
                .ok_or_else(|| "the lanes are not on the page".to_string())
                .and_then(|svg| crate::components::export::svg_document(&svg))
                .and_then(|text| crate::components::export::download(&name, "image/svg+xml", &text));
            status.set(match res {
                Ok(()) => format!("Saved {name}."),
                Err(e) => format!("Export failed: {e}."),
            });
        })
    };
    let width = LABEL_W + SPAN as f64 * STEP_W + 8.0;
    let height = TOP + LANE_H * l.lanes.len().max(1) as f64 + 6.0;
    let y_of = |n| l.lane_of(n).map(lane_y);
    let tid = |what: &str| AttrValue::from(format!("{}-{what}", p.id));
    let (lane_tid, marker_tid, arrow_tid, drop_tid) = (tid("lane"), tid("marker"), tid("arrow"), tid("drop"));
    let head = AttrValue::from(format!("url(#{}-head)", p.id));
    let title_id = format!("{}-title", p.id);
    let desc_id = format!("{}-desc", p.id);
    let (dropped, in_flight) = (
        l.arrows.iter().filter(|a| a.fate == Fate::Dropped).count(),
        l.arrows.iter().filter(|a| a.fate == Fate::InFlight).count(),
    );
    let title = format!("Swim lanes of the {} run, steps {}–{}", p.mode.name(), l.first_step, l.current_step);
    let desc = format!(
        "One lane per node; {} messages as arrows ({dropped} dropped, {in_flight} in flight), {} fault and expiry markers. Step {} is highlighted.",
        l.arrows.len(),
        l.markers.len(),
        l.current_step
    );
    let ticks = (l.first_step..=l.current_step).filter(|s| *s % 5 == 0 || *s == l.first_step || *s == l.current_step);
    let lane_row = |(i, lane): (usize, &Lane)| {
        let y = lane_y(i);
        html! {
            <g class={classes!("lane", format!("lane-{}", kind_class(lane.kind)))} data-testid={lane_tid.clone()} data-lane={lane.node.to_string()}>
                <line class="lane-line" x1={num(LABEL_W)} y1={num(y)} x2={num(width - 4.0)} y2={num(y)} />
                <text class="lane-label" x="4" y={num(y + 4.0)}>
                    <title>{format!("{} {}", kind_word(lane.kind), lane.node)}</title>
                    {lane.node.to_string()}
                </text>
            </g>
        }
    };
    let marker = |m: &Marker| {
        let (Some(y), x) = (y_of(m.node), step_x(l, m.step)) else { return html! {} };
        let (click, key) = jump_handlers(&p.on_jump, (m.step, m.ms));
        let label = marker_label(m);
        html! {
            <g class={classes!("lane-marker", marker_class(m.kind))} transform={format!("translate({x:.1},{y:.1})")}
                tabindex="0" role="button" aria-label={label.clone()} onclick={click} onkeydown={key}
                data-testid={marker_tid.clone()} data-kind={m.kind.key()} data-node={m.node.to_string()} data-step={m.step.to_string()}>
                <title>{label}</title>
                <circle r="7" />
                <text y="3.5">{marker_glyph(m.kind)}</text>
            </g>
        }
    };
    let arrow = |a: &Arrow| {
        let (Some(y1), Some(y2)) = (y_of(a.from), y_of(a.to)) else { return html! {} };
        let (x1, x2) = (step_x(l, a.sent_step), step_x(l, a.end_step));
        // A dropped message stops short of its receiver, with a ✕ where it was lost; one in
        // flight reaches the current step halfway.
        let reach = match a.fate {
            Fate::Delivered => 1.0,
            Fate::Dropped => 0.6,
            Fate::InFlight => 0.5,
        };
        let (xe, ye) = (x2, y1 + (y2 - y1) * reach);
        let (click, key) = jump_handlers(&p.on_jump, arrow_step(a));
        let clipped = a.sent_step < l.first_step;
        let (sx1, sy1, sx2, sy2) = (num(x1), num(y1), num(xe), num(ye));
        html! {
            <g class={classes!("lane-arrow", format!("m-{}", a.category.name()), format!("f-{}", fate_word(a.fate)), clipped.then_some("clipped"))}
                tabindex="0" role="button" aria-label={arrow_label(a)} onclick={click} onkeydown={key}
                data-testid={arrow_tid.clone()} data-id={a.id.to_string()} data-fate={fate_word(a.fate)}
                data-from={a.from.to_string()} data-to={a.to.to_string()} data-sent-step={a.sent_step.to_string()} data-end-step={a.end_step.to_string()}>
                <title>{arrow_label(a)}</title>
                <line class="hit" x1={sx1.clone()} y1={sy1.clone()} x2={sx2.clone()} y2={sy2.clone()} />
                <line class="shaft" x1={sx1} y1={sy1} x2={sx2.clone()} y2={sy2}
                    marker-end={(a.fate == Fate::Delivered).then(|| head.clone())} />
                if a.fate == Fate::Dropped {
                    <text class="drop-x" x={sx2} y={num(ye + 4.0)} data-testid={drop_tid.clone()}>{"✕"}</text>
                }
            </g>
        }
    };
    let now_x = step_x(l, l.current_step);
    html! {
        <div class="lanes-wrap" data-testid={format!("{}-panel", p.id)}>
            <div class="lanes-scroll">
                <svg ref={svg_ref} class="lanes" xmlns="http://www.w3.org/2000/svg" viewBox={format!("0 0 {width:.0} {height:.0}")}
                    width={format!("{width:.0}")} height={format!("{height:.0}")}
                    role="group" aria-labelledby={title_id.clone()} aria-describedby={desc_id.clone()} data-testid={p.id.clone()}
                    data-first-step={l.first_step.to_string()} data-current-step={l.current_step.to_string()}>
                    <title id={title_id}>{title}</title>
                    <desc id={desc_id}>{desc}</desc>
                    <defs>
                        <marker id={format!("{}-head", p.id)} viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
                            <path d="M0,0 L8,4 L0,8 z" class="head" />
                        </marker>
                    </defs>
                    if l.current_step > 0 {
                        <rect class="lanes-now" x={num(now_x - STEP_W / 2.0)} y={num(TOP - 4.0)} width={num(STEP_W)}
                            height={num(height - TOP + 2.0)} data-testid={format!("{}-now", p.id)} data-step={l.current_step.to_string()} />
                    }
                    <g class="lanes-axis" aria-hidden="true">
                        { for ticks.map(|s| html!{
                            <text x={num(step_x(l, s))} y="14" class={classes!((s == l.current_step).then_some("now"))}>{s.to_string()}</text>
                        }) }
                    </g>
                    { for l.lanes.iter().enumerate().map(lane_row) }
                    <g class="lane-markers">{ for l.markers.iter().map(marker) }</g>
                    <g class="lane-arrows">{ for l.arrows.iter().map(arrow) }</g>
                </svg>
            </div>
            <p class="small dim lanes-foot">
                if l.current_step == 0 {
                    {"Step 0: nothing has happened yet. "}
                } else {
                    {format!("Steps {}–{} of {} (the last {SPAN} up to the current one) · t = {} · click an arrow or a marker (or Tab to it, Enter) to go to its step. ",
                        l.first_step, l.current_step, p.len, crate::text::fmt_time(l.now_ms))}
                }
                <button class="btn small-btn" onclick={on_export} data-testid={format!("{}-export", p.id)} title="These lanes as a standalone SVG file">{"lanes .svg"}</button>
                <span role="status" data-testid={format!("{}-export-status", p.id)}>{(*status).clone()}</span>
            </p>
        </div>
    }
}

fn kind_class(k: LaneKind) -> &'static str {
    match k {
        LaneKind::Zk => "zk",
        LaneKind::Voter => "voter",
        LaneKind::Broker => "broker",
        LaneKind::Consumer => "consumer",
    }
}

/// Properties of [`RunLanes`].
#[derive(Properties, PartialEq)]
pub struct RunLanesProps {
    /// The run.
    pub model: UseReducerHandle<Model>,
    /// The side-by-side run's lanes instead of the main run's.
    #[prop_or_default]
    pub compare: bool,
}

/// The main run's lanes, in their card; or (`compare`) the side-by-side run's, at its step in
/// lockstep with the main run, where a click jumps the main run to the time of what was clicked
/// (and so the side-by-side run to that step).
#[function_component(RunLanes)]
pub fn run_lanes(p: &RunLanesProps) -> Html {
    let m = &p.model;
    if p.compare {
        let Some((mode, t, k)) = m.compare_step() else { return html! {} };
        let Some(world) = t.world_at(k) else { return html! {} };
        let lanes = Rc::new(Lanes::build(t.events(), &world, SPAN));
        let on_jump = {
            let d = m.dispatcher();
            let tl = m.tl.clone();
            Callback::from(move |(_, ms): (u64, u64)| {
                let step = tl.borrow().step_at_time(ms);
                d.dispatch(Action::Seek(step))
            })
        };
        let file_name = format!("{}-{}-lanes-step-{k}.svg", crate::components::export::stem(m), mode.name());
        return html! {
            <div class="compare-lanes">
                <h3 class="small">{format!("Swim lanes: {}", mode.name())}</h3>
                <LanesView lanes={lanes} mode={mode} len={t.len()} on_jump={on_jump} id="compare-lanes" file_name={file_name} />
            </div>
        };
    }
    let (lanes, len, cursor) = {
        let t = m.tl.borrow();
        (Rc::new(Lanes::build(t.events(), t.world(), SPAN)), t.len(), t.cursor())
    };
    let on_jump = {
        let d = m.dispatcher();
        Callback::from(move |(step, _): (u64, u64)| {
            d.dispatch(Action::Seek(usize::try_from(step).unwrap_or(usize::MAX)))
        })
    };
    let file_name = format!("{}-lanes-step-{cursor}.svg", crate::components::export::stem(m));
    html! {
        <section class="card lanes-card" aria-label="Swim lanes">
            <div class="panel-head"><h2>{"Swim lanes"}</h2><span class="dim small">{"one lane per node · arrows are messages · ✕ dropped · markers are faults"}</span></div>
            <LanesView lanes={lanes} mode={m.mode} len={len} on_jump={on_jump} id="lanes" file_name={file_name} />
        </section>
    }
}
