//! The timeline as SVG swim lanes: one lane per broker (the unknown broker last), each controller
//! epoch a shaded band on its controller's lane from its start to its resignation (or the next
//! epoch, or the end), labelled with its epoch and controller; typed events as markers with a
//! tooltip; suspected clock skews as dashed lines from cause to effect, and listed. Everything
//! drawn is a field of the core's timeline.
use crate::logs::time;
use crate::logs::view::{BandView, LogsView, MarkerView, TimelineView};
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// The drawing's width.
pub const WIDTH: f64 = 960.0;
const LABEL_W: f64 = 84.0;
const RIGHT: f64 = 36.0;
const LANE_H: f64 = 44.0;
const TOP: f64 = 26.0;

fn num(v: f64) -> AttrValue {
    AttrValue::from(format!("{v:.1}"))
}

/// Maps times to x.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct Scale {
    /// The first time.
    pub start: i64,
    /// The last time.
    pub end: i64,
}

impl Scale {
    /// The scale of `t`: its start and end, else its markers' and bands' times, else none.
    pub fn of(t: &TimelineView) -> Option<Scale> {
        let times = t
            .markers
            .iter()
            .filter_map(|m| m.ts_ms)
            .chain(t.epochs.iter().flat_map(|b| [b.from_ms, b.resigned_ms, b.next_ms]).flatten());
        let (lo, hi) = times.fold((None, None), |(lo, hi): (Option<i64>, Option<i64>), x| {
            (Some(lo.map_or(x, |l| l.min(x))), Some(hi.map_or(x, |h| h.max(x))))
        });
        Some(Scale { start: t.start_ms.or(lo)?, end: t.end_ms.or(hi)? })
    }

    /// The x of time `ms` (the middle when all times are one).
    pub fn x(&self, ms: i64) -> f64 {
        let w = WIDTH - LABEL_W - RIGHT;
        if self.end <= self.start {
            return LABEL_W + w / 2.0;
        }
        let f = (ms - self.start) as f64 / (self.end - self.start) as f64;
        LABEL_W + f.clamp(0.0, 1.0) * w
    }
}

/// The y of lane `i`'s middle.
pub fn lane_y(i: usize) -> f64 {
    TOP + LANE_H * (i as f64 + 0.5)
}

/// Where band `b` is drawn, from x to x: its start to its resignation, else the next epoch's
/// start, else the timeline's end.
pub fn band_span(s: &Scale, b: &BandView) -> (f64, f64) {
    let from = s.x(b.from_ms.unwrap_or(s.start));
    let to = s.x(b.resigned_ms.or(b.next_ms).unwrap_or(s.end));
    (from, to.max(from + 3.0))
}

/// The x of each marker: its time, or (untimed) the x of the marker before it.
pub fn marker_xs(s: &Scale, markers: &[MarkerView]) -> Vec<f64> {
    let mut last = s.x(s.start);
    markers
        .iter()
        .map(|m| {
            if let Some(t) = m.ts_ms {
                last = s.x(t);
            }
            last
        })
        .collect()
}

/// The lane name (`broker 1`, `unknown`).
pub fn lane_name(b: Option<i32>) -> String {
    b.map(|b| format!("broker {b}")).unwrap_or_else(|| "unknown".into())
}

fn band_label(b: &BandView) -> String {
    match b.epoch {
        Some(e) => format!("epoch {e} · controller {}", b.controller),
        None => format!("epoch ? · controller {}", b.controller),
    }
}

fn band_title(b: &BandView) -> String {
    let at = |ms: Option<i64>| ms.map(time::stamp).unwrap_or_else(|| "?".into());
    let mut t = format!("{}: from {} (line {})", band_label(b), at(b.from_ms), b.line);
    if let Some(r) = b.resigned_ms {
        t += &format!(", resigned {}", time::stamp(r));
        if let Some(l) = b.resigned_line {
            t += &format!(" (line {l})");
        }
    }
    if let Some(n) = b.next_ms {
        t += &format!(", next epoch began {}", time::stamp(n));
    }
    t
}

fn marker_title(view: &LogsView, m: &MarkerView) -> String {
    let at = m.ts_ms.map(time::stamp).unwrap_or_else(|| "no time".into());
    let fields = m.fields();
    let mut t = format!("{} · line {} · {at}", m.kind(), m.line);
    if !fields.is_empty() {
        t += &format!("\n{fields}");
    }
    if let Some(l) = view.line(m.line) {
        t += &format!("\n{}", l.text);
    }
    t
}

/// Properties of [`Timeline`].
#[derive(Properties, PartialEq)]
pub struct TimelineProps {
    /// The answer.
    pub view: Rc<LogsView>,
}

/// The swim lanes.
#[function_component(Timeline)]
pub fn timeline(p: &TimelineProps) -> Html {
    let v = &p.view;
    let t = &v.report.timeline;
    let Some(scale) = Scale::of(t).filter(|_| !t.lanes.is_empty()) else {
        return html! {
            <section class="panel" aria-labelledby="logs-tl-h" data-testid="timeline-empty">
                <h2 id="logs-tl-h">{"Timeline"}</h2>
                <p class="hint">{"No typed, timed event to draw."}</p>
            </section>
        };
    };
    let lanes = t.lanes.len();
    let height = TOP + LANE_H * lanes as f64 + 8.0;
    let lane_of = |b: i32| t.lanes.iter().position(|l| l.broker == Some(b));
    let xs = marker_xs(&scale, &t.markers);
    let at_line: BTreeMap<u32, (f64, f64)> =
        t.markers.iter().zip(&xs).map(|(m, &x)| (m.line, (x, lane_y(m.lane as usize)))).collect();
    let evidence: std::collections::BTreeSet<u32> =
        v.report.signatures.iter().filter(|s| s.alarm).flat_map(|s| s.lines.iter().copied()).collect();
    let ticks = (0..=4).map(|i| {
        let ms = scale.start + (scale.end - scale.start) * i / 4;
        let x = scale.x(ms);
        html! { <g><line class="tick" x1={num(x)} x2={num(x)} y1={num(TOP - 4.0)} y2={num(height - 8.0)} /><text x={num(x)} y="14">{ time::clock(ms) }</text></g> }
    });
    let lane_svg = t.lanes.iter().enumerate().map(|(i, l)| {
        let y = lane_y(i);
        html! {
            <g class="log-lane" data-testid="lane" data-broker={l.broker.map(|b| b.to_string()).unwrap_or_else(|| "unknown".into())}>
                <line class="lane-line" x1={num(LABEL_W)} x2={num(WIDTH - RIGHT)} y1={num(y)} y2={num(y)} />
                <text class="lane-label" x="6" y={num(y + 4.0)}>{ lane_name(l.broker) }</text>
            </g>
        }
    });
    let bands = t.epochs.iter().enumerate().map(|(i, b)| {
        let (x0, x1) = band_span(&scale, b);
        let (y, h) = match lane_of(b.controller) {
            Some(l) => (lane_y(l) - LANE_H / 2.0 + 2.0, LANE_H - 4.0),
            None => (TOP, LANE_H * lanes as f64),
        };
        html! {
            <g class={classes!("log-band", format!("band-{}", i % 4))} data-testid="band"
                data-epoch={b.epoch.map(|e| e.to_string())} data-controller={b.controller.to_string()}>
                <title>{ band_title(b) }</title>
                <rect x={num(x0)} y={num(y)} width={num(x1 - x0)} height={num(h)} rx="3" />
                <text x={num(x0 + 3.0)} y={num(y + 10.0)}>{ band_label(b) }</text>
            </g>
        }
    });
    let markers = t.markers.iter().zip(&xs).map(|(m, &x)| {
        let y = lane_y(m.lane as usize) + 6.0;
        html! {
            <g class={classes!("log-marker", evidence.contains(&m.line).then_some("evidence"))} data-kind={m.kind().to_string()}
                data-line={m.line.to_string()} data-lane={m.lane.to_string()}>
                <title>{ marker_title(v, m) }</title>
                <circle cx={num(x)} cy={num(y)} r="4" />
            </g>
        }
    });
    let skews = t.skews.iter().filter_map(|s| {
        let (a, b) = (at_line.get(&s.cause_line)?, at_line.get(&s.effect_line)?);
        Some(html! {
            <line class="log-skew" data-testid="skew-line" x1={num(a.0)} y1={num(a.1 + 6.0)} x2={num(b.0)} y2={num(b.1 + 6.0)}>
                <title>{ format!("clock skew: line {} (broker {}) is stamped {} before its cause, line {} (broker {})", s.effect_line, s.effect_broker, time::duration(s.ms), s.cause_line, s.cause_broker) }</title>
            </line>
        })
    });
    let drawn = t.markers.len() as u32;
    let summary = format!(
        "Timeline from {} to {}: {} lane{}, {} controller epoch{}, {} event{} drawn.",
        time::stamp(scale.start),
        time::stamp(scale.end),
        lanes,
        if lanes == 1 { "" } else { "s" },
        t.epochs.len(),
        if t.epochs.len() == 1 { "" } else { "s" },
        drawn,
        if drawn == 1 { "" } else { "s" },
    );
    html! {
        <section class="panel" aria-labelledby="logs-tl-h" data-testid="timeline">
            <h2 id="logs-tl-h">{"Timeline"}</h2>
            <p class="hint">{ summary.clone() }
                if v.markers_total > drawn { { format!(" {} of {} events are drawn: every cited one, the rest spread evenly.", drawn, v.markers_total) } }
                {" Hover a marker or band for its line."}</p>
            <div class="lanes-scroll">
                <svg class="lanes log-timeline" viewBox={format!("0 0 {WIDTH} {height:.0}")} width={WIDTH.to_string()} role="img" aria-label={summary}>
                    <g class="lanes-axis">{ for ticks }</g>
                    { for bands }
                    { for lane_svg }
                    { for skews }
                    { for markers }
                </svg>
            </div>
            <h3>{"Controller epochs"}</h3>
            if t.epochs.is_empty() {
                <p class="hint">{"No line says a broker became controller."}</p>
            } else {
                <ol class="small logs-epochs" data-testid="epochs">
                    { for t.epochs.iter().map(|b| html! { <li data-epoch={b.epoch.map(|e| e.to_string())} data-controller={b.controller.to_string()}>{ band_title(b) }</li> }) }
                </ol>
            }
            <h3>{"Suspected clock skews"}</h3>
            if t.skews.is_empty() {
                <p class="hint">{"None: no effect is stamped before its cause."}</p>
            } else {
                <ul class="small" data-testid="skews">
                    { for t.skews.iter().map(|s| html! {
                        <li data-testid="skew" data-cause={s.cause_broker.to_string()} data-effect={s.effect_broker.to_string()}>
                            { format!("Broker {}'s line {} is stamped {} before its cause, broker {}'s line {}: {}", s.effect_broker, s.effect_line, time::duration(s.ms), s.cause_broker, s.cause_line, s.explain) }
                        </li>
                    }) }
                </ul>
            }
        </section>
    }
}
