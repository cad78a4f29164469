//! The lines the import could not read, shown raw (the first ones) and counted (all).
use crate::logs::view::LogsView;
use std::rc::Rc;
use yew::prelude::*;

/// Properties of [`Unknown`].
#[derive(Properties, PartialEq)]
pub struct UnknownProps {
    /// The answer.
    pub view: Rc<LogsView>,
}

/// The unknown lines.
#[function_component(Unknown)]
pub fn unknown(p: &UnknownProps) -> Html {
    let r = &p.view.report;
    let shown = r.unknown_lines.len();
    let file = |i: u16| r.files.get(i as usize).map(|f| f.name.clone()).unwrap_or_else(|| format!("file {}", i + 1));
    html! {
        <section class="panel" aria-labelledby="logs-unknown-h" data-testid="unknown-lines" data-total={r.unknown.to_string()}>
            <h2 id="logs-unknown-h">{ format!("Lines not read ({})", r.unknown) }</h2>
            if r.unknown == 0 {
                <p class="hint">{"Every line was a log statement the importer knows."}</p>
            } else {
                <p class="hint">{ if (shown as u32) < r.unknown { format!("The first {shown}, as written:") } else { "As written:".to_string() } }</p>
                <ol class="logs-raw-lines">
                    { for r.unknown_lines.iter().map(|l| html! {
                        <li data-line={l.line.to_string()}><span class="dim">{ format!("{}:{} ", file(l.file), l.file_line) }</span><code class="logs-raw">{ l.text.clone() }</code></li>
                    }) }
                </ol>
            }
        </section>
    }
}
