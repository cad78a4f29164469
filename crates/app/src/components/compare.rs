//! Two behaviours side by side, in lockstep by virtual time: the same scenario and the user's
//! faults (at the times they were made) run under a second mode, and the picture shows that run
//! at its last step at or before the main run's time, so the divergence — leader -1 in one, a
//! led partition in the other — is seen at the same moment.
use crate::components::graph::Graph;
use crate::model::CutMode;
use crate::text::{controller_words, fmt_time, mode_words};
use splitbrain_sim::compare::{RunFacts, SideBySide, Verdict};
use splitbrain_sim::scenario::Mode;
use splitbrain_sim::view::View;
use splitbrain_sim::Command;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// Its behaviour.
    pub main_mode: Mode,
    /// The other run at the same time, with its step and length; or why it could not be built.
    pub other: Result<(Rc<View>, usize, usize), String>,
    /// Its behaviour.
    pub other_mode: Mode,
    /// Gestures on the second picture go to the main run (and so to both).
    pub on_commands: Callback<Vec<Command>>,
    /// What drags cut.
    pub cut_mode: CutMode,
    /// The two runs as the core compares them: the group's partition in each, and why they
    /// disagree about it (judged from their marks). None while the other run is not built.
    #[prop_or_default]
    pub compared: Option<Rc<SideBySide>>,
    /// Drawn under the picture (the side-by-side run's swim lanes).
    #[prop_or_default]
    pub children: Html,
}

fn leader_words(r: Option<&RunFacts>) -> (String, bool) {
    match r.and_then(|r| r.leader) {
        Some(l) if l < 0 => ("leader -1 (none)".into(), true),
        Some(l) => (format!("leader {l}"), false),
        None => ("—".into(), false),
    }
}

/// The second picture and a line comparing the two runs.
#[function_component(CompareView)]
pub fn compare_view(p: &CompareProps) -> Html {
    let (view, step, len) = match &p.other {
        Ok(x) => x.clone(),
        Err(e) => {
            return html! {
                <section class="card compare" data-testid="compare" role="alert">
                    {format!("The {} run could not be built: {e}", p.other_mode.name())}
                </section>
            }
        }
    };
    let c = p.compared.as_deref();
    let part =
        c.and_then(|c| c.partition.as_ref()).map(|tp| tp.to_string()).unwrap_or_else(|| "the group's partition".into());
    let (a, a_bad) = leader_words(c.map(|c| &c.main));
    let (b, b_bad) = leader_words(c.map(|c| &c.other));
    let (la, lb) = (c.map_or(0, |c| c.main.leaderless), c.map_or(0, |c| c.other.leaderless));
    let differs = c.is_some_and(|c| c.differs);
    html! {
        <section class="card compare" data-testid="compare" aria-label={format!("Side by side: {}", mode_words(p.other_mode))}>
            <div class="panel-head">
                <h2>{format!("Side by side: {}", mode_words(p.other_mode))}</h2>
                <span class="dim small" data-testid="compare-step">{format!("step {step} / {len} · t = {}", fmt_time(view.time_ms))}</span>
            </div>
            <p class={classes!("divergence", differs.then_some("differs"))} data-testid="divergence" aria-live="polite">
                <span class={classes!(a_bad.then_some("bad"))}>{format!("{}: {part} {a}, {la} leaderless", p.main_mode.name())}</span>
                {" · "}
                <span class={classes!(b_bad.then_some("bad"))} data-testid="compare-leader">{format!("{}: {b}, {lb} leaderless", p.other_mode.name())}</span>
                { if differs { html!{ <strong>{" — the runs differ here"}</strong> } } else { html!{} } }
            </p>
            if let Some(v) = c.and_then(|c| c.verdict).filter(|v| *v != Verdict::Same) {
                <p class="small why" data-testid="compare-why" data-verdict={match v { Verdict::Timing => "timing", Verdict::Fix(_) => "fix", Verdict::Same => "same" }}>
                    {format!("Why: {}.", v.words(&part))}
                </p>
            }
            <p class="small dim">{controller_words(&view)}{". Same scenario, seed and faults, at the same virtual time; cuts made here apply to both."}</p>
            <Graph view={view} cut_mode={p.cut_mode} on_commands={p.on_commands.clone()} />
            {p.children.clone()}
        </section>
    }
}
