//! The import's verdict sentence (the core's words, prominent, announced when it changes), its
//! counts, and the Export button: the only way a copy of the report leaves the tab.
use crate::logs::view::LogsView;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`Verdict`].
#[derive(Properties, PartialEq)]
pub struct VerdictProps {
    /// The answer.
    pub view: Rc<LogsView>,
    /// Export was pressed.
    pub on_export: Callback<()>,
}

/// Is any signature an alarm?
pub fn alarmed(view: &LogsView) -> bool {
    view.report.signatures.iter().any(|s| s.alarm)
}

/// The verdict and the counts.
#[function_component(Verdict)]
pub fn verdict(p: &VerdictProps) -> Html {
    let r = &p.view.report;
    let alarm = alarmed(&p.view);
    let count = |key: &'static str, label: &'static str, n: u32| {
        html! { <div><dt>{label}</dt><dd data-count={key}>{ n.to_string() }</dd></div> }
    };
    let on_export = {
        let cb = p.on_export.clone();
        Callback::from(move |_| cb.emit(()))
    };
    html! {
        <section class="panel logs-result" aria-labelledby="logs-verdict-h">
            <h2 id="logs-verdict-h">{"Verdict"}</h2>
            if r.lines == 0 {
                <p class={classes!("banner", "calm")} data-testid="nothing-read" role="status">
                    {"No log lines were read from these inputs: there is nothing to judge."}
                </p>
            } else {
                <p class={classes!("banner", "logs-verdict", if alarm { "split" } else { "calm" })}
                    data-testid="verdict" data-alarm={alarm.to_string()}>
                    { r.verdict.clone() }
                </p>
            }
            <dl class="logs-counts" data-testid="counts">
                { count("lines", "lines", r.lines) }
                { count("typed", "typed events", r.typed) }
                { count("other", "other statements", r.other) }
                { count("unknown", "unknown lines", r.unknown) }
                { count("brokers", "brokers", r.brokers.len() as u32) }
                if r.unknown_broker > 0 { { count("unknown_broker", "lines of no known broker", r.unknown_broker) } }
            </dl>
            <p class="small">
                <button onclick={on_export} data-testid="export" aria-describedby="logs-export-note">{"Export the report (JSON)"}</button>
                <span id="logs-export-note" class="dim">{" The report is saved to your computer: the only copy that leaves this tab."}</span>
            </p>
        </section>
    }
}
