//! The step controls: back, forward, play, speed, the step slider, story steps, undo, drag mode.
use crate::model::{Action, CutMode};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`Controls`].
#[derive(Properties, PartialEq)]
pub struct ControlsProps {
    /// The step shown.
    pub cursor: usize,
    /// Steps computed so far.
    pub len: usize,
    /// Virtual time at the step, in words.
    pub time: String,
    /// Playing.
    pub playing: bool,
    /// Steps per second while playing.
    pub speed: u32,
    /// An undo is available.
    pub can_undo: bool,
    /// What undo would revert.
    pub undo_label: String,
    /// A story step lies ahead.
    pub has_next_caption: bool,
    /// A story step lies behind.
    pub has_prev_caption: bool,
    /// What a drag cuts.
    pub cut_mode: CutMode,
    /// Sends actions to the reducer.
    pub dispatch: Callback<Action>,
    /// The explorer's point of no return on this run: its step and its sentence.
    #[prop_or_default]
    pub no_return: Option<(usize, String)>,
}

/// The step controls.
#[function_component(Controls)]
pub fn controls(p: &ControlsProps) -> Html {
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
