//! The inputs as the import saw them: per file its lines, the broker it found and where that
//! came from, and any problem. Where the broker is unknown (or the user named it), a number input
//! names it, and the import runs again with that broker.
use crate::logs::limits::human_bytes;
use crate::logs::state::Source;
use crate::logs::view::{FileView, LogsView};
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Where a broker id came from, in words.
pub fn source_words(source: Option<&str>) -> &'static str {
    match source {
        Some("user") => "named by you",
        Some("line") => "from its lines",
        Some("prefix") => "from a line prefix (docker, kubectl, grep)",
        Some("file_name") => "from the file name",
        Some("same_source") => "from other lines of the same source",
        Some(_) => "found",
        None => "unknown",
    }
}

/// Properties of [`Files`].
#[derive(Properties, PartialEq)]
pub struct FilesProps {
    /// The inputs of the answer shown.
    pub sources: Rc<[Source]>,
    /// The answer.
    pub view: Rc<LogsView>,
    /// Names input `index`'s broker (None: let the import find it) and reads again.
    pub on_broker: Callback<(usize, Option<i32>)>,
    /// An import is running.
    pub busy: bool,
}

/// The per-file table.
#[function_component(Files)]
pub fn files(p: &FilesProps) -> Html {
    let rows = p.sources.iter().enumerate().map(|(i, s)| {
        let info: Option<&FileView> = p.view.report.files.get(i);
        let note = p.view.notes.iter().find(|n| n.file as usize == i);
        let broker = info.and_then(|f| f.broker);
        let source = info.and_then(|f| f.broker_source.as_deref());
        let nameable = note.is_none() && (broker.is_none() || source == Some("user"));
        let id = format!("broker-{i}");
        let on_change = {
            let cb = p.on_broker.clone();
            Callback::from(move |e: Event| {
                let v = e.target_unchecked_into::<HtmlInputElement>().value();
                let v = v.trim();
                cb.emit((i, if v.is_empty() { None } else { v.parse().ok() }))
            })
        };
        html! {
            <tr data-testid="file-row" data-file={i.to_string()} data-broker={broker.map(|b| b.to_string())}
                data-source={source.map(str::to_string)} data-mixed={info.is_some_and(|f| f.mixed).to_string()}>
                <th scope="row"><code>{ s.name.clone() }</code></th>
                <td class="num">{ human_bytes(s.size) }</td>
                <td class="num">{ info.map(|f| f.lines.to_string()).unwrap_or_else(|| "–".into()) }</td>
                <td>
                    if let Some(n) = note {
                        <span class="logs-note" data-testid="file-note" role="note">{ n.message.clone() }</span>
                    } else {
                        if let Some(b) = broker { <strong>{ format!("broker {b}") }</strong>{" "} }
                        <span class="dim">{ source_words(source) }</span>
                        if info.is_some_and(|f| f.mixed) { <span class="dim">{ " · several brokers' lines" }</span> }
                        if nameable {
                            <label class="logs-name-broker" for={id.clone()}>{ " name it: broker " }</label>
                            <input id={id} type="number" min="0" step="1" class="logs-broker-input" disabled={p.busy}
                                value={s.broker.map(|b| b.to_string()).unwrap_or_default()}
                                aria-label={format!("Broker id of {}", s.name)} data-testid="broker-input"
                                onchange={on_change} />
                        }
                    }
                </td>
            </tr>
        }
    });
    html! {
        <section class="panel logs-files" aria-labelledby="logs-files-h" data-testid="logs-files">
            <h2 id="logs-files-h">{"Files"}</h2>
            <div class="scroll-table" tabindex="0" role="region" aria-labelledby="logs-files-h">
                <table>
                    <thead><tr><th scope="col">{"file"}</th><th scope="col">{"size"}</th><th scope="col">{"lines"}</th><th scope="col">{"broker"}</th></tr></thead>
                    <tbody>{ for rows }</tbody>
                </table>
            </div>
        </section>
    }
}
