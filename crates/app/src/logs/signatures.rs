//! The signatures the import found, each with its brokers, its evidence (line numbers with their
//! raw text), what it means and the release that changed it: the core's words, listed.
use crate::logs::view::{LogsView, SignatureView};
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`Signatures`].
#[derive(Properties, PartialEq)]
pub struct SignaturesProps {
    /// The answer.
    pub view: Rc<LogsView>,
}

/// A line number with its file and raw text, as one list item.
pub fn evidence_line(view: &LogsView, line: u32) -> Html {
    let names = &view.report.files;
    match view.line(line) {
        Some(t) => {
            let file =
                names.get(t.file as usize).map(|f| f.name.clone()).unwrap_or_else(|| format!("file {}", t.file + 1));
            html! {
                <li data-line={line.to_string()}>
                    <span class="dim">{ format!("line {line} ({file}:{})", t.file_line) }</span>
                    <code class="logs-raw">{ t.text.clone() }</code>
                </li>
            }
        }
        None => html! { <li data-line={line.to_string()}><span class="dim">{ format!("line {line}") }</span></li> },
    }
}

fn signature(view: &LogsView, s: &SignatureView) -> Html {
    let brokers = s.brokers.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ");
    html! {
        <li class={classes!("logs-signature", s.alarm.then_some("alarm"))} data-testid="signature" data-kind={s.kind.clone()}
            data-alarm={s.alarm.to_string()} data-brokers={brokers.clone()}>
            <h3><code>{ s.kind.clone() }</code>
                if !brokers.is_empty() { <span class="dim">{ format!(" · brokers {brokers}") }</span> }
                if s.alarm { <span class="logs-alarm">{" · split brain"}</span> }
            </h3>
            <p>{ s.explain.clone() }</p>
            if !s.fixed_in.is_empty() { <p class="small"><span class="dim">{"Changed in: "}</span>{ s.fixed_in.clone() }</p> }
            <ul class="logs-evidence" aria-label={format!("Evidence of {}", s.kind)}>
                { for s.lines.iter().map(|&l| evidence_line(view, l)) }
            </ul>
            if s.more > 0 { <p class="small dim">{ format!("and {} more line{}", s.more, if s.more == 1 { "" } else { "s" }) }</p> }
        </li>
    }
}

/// The signatures.
#[function_component(Signatures)]
pub fn signatures(p: &SignaturesProps) -> Html {
    let sigs = &p.view.report.signatures;
    html! {
        <section class="panel" aria-labelledby="logs-sig-h" data-testid="signatures">
            <h2 id="logs-sig-h">{ format!("Signatures ({})", sigs.len()) }</h2>
            if sigs.is_empty() {
                <p class="hint">{"No signature was found in these lines."}</p>
            } else {
                <ul class="logs-signatures">{ for sigs.iter().map(|s| signature(&p.view, s)) }</ul>
            }
        </section>
    }
}
