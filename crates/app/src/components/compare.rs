//! Two behaviours side by side, in lockstep by virtual time: the same scenario and the user's
//! faults (at the times they were made) run under a second mode, and the picture shows that run
//! at its last step at or before the main run's time, so the divergence — leader -1 in one, a
//! led partition in the other — is seen at the same moment.
use crate::components::graph::Graph;
use crate::model::CutMode;
use crate::text::{controller_words, fmt_time, mode_words};
use splitbrain_sim::compare::Verdict;
use splitbrain_sim::scenario::Mode;
use splitbrain_sim::view::View;
use splitbrain_sim::Command;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`CompareView`].
#[derive(Properties, PartialEq)]
pub struct CompareProps {
    /// The main run at its step.
    pub main: Rc<View>,
    /// Its behaviour.
    pub main_mode: Mode,
    /// The other run at the same time, with its step and length; or why it could not be built.
    pub other: Result<(Rc<View>, usize, usize), String>,
    /// Its behaviour.
    pub other_mode: Mode,
    /// The consumer's coordinator partition, compared in both.
    pub watch_partition: Option<String>,
    /// Gestures on the second picture go to the main run (and so to both).
    pub on_commands: Callback<Vec<Command>>,
    /// What drags cut.
    pub cut_mode: CutMode,
    /// Why the runs disagree about the group's partition, as the core judged it from their marks.
    #[prop_or_default]
    pub verdict: Option<Verdict>,
    /// Drawn under the picture (the side-by-side run's swim lanes).
    #[prop_or_default]
    pub children: Html,
}

fn leader_words(v: &View, watch: &Option<String>) -> (String, bool) {
    let p = watch.as_ref().and_then(|w| v.partitions.iter().find(|p| format!("{}-{}", p.topic, p.partition) == *w));
    match p {
        Some(p) if p.leader < 0 => ("leader -1 (none)".into(), true),
        Some(p) => (format!("leader {}", p.leader), false),
        None => ("—".into(), false),
    }
}

fn leaderless(v: &View) -> usize {
    v.partitions.iter().filter(|p| p.leader < 0).count()
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
    let part = p.watch_partition.clone().unwrap_or_else(|| "the group's partition".into());
    let (a, a_bad) = leader_words(&p.main, &p.watch_partition);
    let (b, b_bad) = leader_words(&view, &p.watch_partition);
    let (la, lb) = (leaderless(&p.main), leaderless(&view));
    let differs = a != b || la != lb;
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
            if let Some(v) = p.verdict.filter(|v| *v != Verdict::Same) {
                <p class="small why" data-testid="compare-why" data-verdict={match v { Verdict::Timing => "timing", Verdict::Fix(_) => "fix", Verdict::Same => "same" }}>
                    {format!("Why: {}.", v.words(&part))}
                </p>
            }
            <p class="small dim">{controller_words(&view)}{". Same scenario, seed and faults, at the same virtual time; cuts made here apply to both."}</p>
            <Graph view={view} cut_mode={p.cut_mode} watch_partition={p.watch_partition.clone()} on_commands={p.on_commands.clone()} />
            {p.children.clone()}
        </section>
    }
}
