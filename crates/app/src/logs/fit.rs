//! The fitted scenario: who plays what, and what each Kafka behaviour would have done with it,
//! side by side; a link that opens it in the playground, or the lines that would be needed.
use crate::logs::view::LogsView;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`FitPanel`].
#[derive(Properties, PartialEq)]
pub struct FitProps {
    /// The answer.
    pub view: Rc<LogsView>,
}

/// The fit.
#[function_component(FitPanel)]
pub fn fit_panel(p: &FitProps) -> Html {
    let f = &p.view.fit;
    let roles =
        f.roles.iter().map(|r| format!("Broker {} plays the {}", r.broker, r.role)).collect::<Vec<_>>().join("; ");
    html! {
        <section class="panel" aria-labelledby="logs-fit-h" data-testid="fit" data-fitted={f.fitted.to_string()}>
            <h2 id="logs-fit-h">{"Replayed under each behaviour"}</h2>
            if f.fitted {
                <p class="small">
                    if let Some(t) = &f.template { {"Follows the built-in story "}<code>{ t.clone() }</code>{". "} }
                    if !roles.is_empty() { { format!("{roles}. ") } }
                    if let Some(pt) = &f.partition { {"Partition "}<code>{ format!("{}-{}", pt.topic, pt.partition) }</code>{"."} }
                </p>
            }
            if !f.verdicts.is_empty() {
                <ul class="logs-verdicts" data-testid="verdicts">
                    { for f.verdicts.iter().map(|v| html! {
                        <li class={classes!("card", if v.reproduced { "reproduced" } else { "held" })} data-testid="mode-verdict"
                            data-mode={v.mode.clone()} data-reproduced={v.reproduced.to_string()} data-leader={v.leader.to_string()}>
                            <h3>{ v.label() }</h3>
                            <p class="small"><strong>{ if v.reproduced { "reproduced" } else { "not reproduced" } }</strong>
                                { format!(" · leader at the end: {}", if v.leader < 0 { "none (-1)".to_string() } else { v.leader.to_string() }) }</p>
                            <p class="small">{ v.words.clone() }</p>
                        </li>
                    }) }
                </ul>
            }
            if let Some(link) = &f.permalink {
                <p><a class="logs-open" href={format!("index.html#{link}")} data-testid="open-playground">{"Open in the playground"}</a>
                    <span class="dim small">{" (the fitted scenario, replayed step by step)"}</span></p>
                if !f.missing.is_empty() {
                    <div data-testid="fit-notes">
                        <p class="small">{"What these logs do not say, and the fit assumed:"}</p>
                        <ul class="small">{ for f.missing.iter().map(|m| html! { <li>{ m.clone() }</li> }) }</ul>
                    </div>
                }
            } else {
                <div data-testid="fit-missing">
                    <p class="hint">{ if f.fitted { "No playground link could be made." } else { "No scenario could be fitted to these logs." } }</p>
                    if !f.missing.is_empty() {
                        <p class="small">{"Lines that would be needed:"}</p>
                        <ul class="small">{ for f.missing.iter().map(|m| html! { <li>{ m.clone() }</li> }) }</ul>
                    }
                </div>
            }
        </section>
    }
}
