//! Where the logs come in: a text box for pasted lines and a drop zone with a file input
//! (several files at once), the promise that nothing leaves the browser, and the import's
//! progress.
use web_sys::{HtmlInputElement, HtmlTextAreaElement};
use yew::prelude::*;

/// What the panel promises, said plainly.
pub const PRIVACY: &str = "Nothing leaves the browser: your logs are parsed in this tab and never uploaded; close the tab and they are gone (unless you export).";

/// The files of a file list, in order.
fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Properties of [`Intake`].
#[derive(Properties, PartialEq)]
pub struct IntakeProps {
    /// The pasted text.
    pub paste: AttrValue,
    /// The text box changed.
    pub on_paste: Callback<String>,
    /// Files were chosen or dropped.
    pub on_files: Callback<Vec<web_sys::File>>,
    /// "Read" was pressed.
    pub on_read: Callback<()>,
    /// "Clear" was pressed.
    pub on_clear: Callback<()>,
    /// "Stop" was pressed.
    pub on_cancel: Callback<()>,
    /// "Try the seed blog's logs" was pressed.
    pub on_example: Callback<()>,
    /// Files chosen so far (name, size in words).
    pub chosen: Vec<(String, String)>,
    /// The progress bar's value, maximum and words, while an import runs.
    pub progress: Option<(f64, f64, String)>,
    /// What the last import found, in words (announced: the status region is always there).
    #[prop_or_default]
    pub outcome: Option<String>,
}

/// The intake panel.
#[function_component(Intake)]
pub fn intake(p: &IntakeProps) -> Html {
    let over = use_state(|| false);
    let on_input = {
        let cb = p.on_paste.clone();
        Callback::from(move |e: InputEvent| cb.emit(e.target_unchecked_into::<HtmlTextAreaElement>().value()))
    };
    let on_change = {
        let cb = p.on_files.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let files = files_of(input.files());
            input.set_value("");
            if !files.is_empty() {
                cb.emit(files)
            }
        })
    };
    let on_drag_over = {
        let over = over.clone();
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(true);
        })
    };
    let on_drag_leave = {
        let over = over.clone();
        Callback::from(move |_: DragEvent| over.set(false))
    };
    let on_drop = {
        let (over, cb) = (over.clone(), p.on_files.clone());
        Callback::from(move |e: DragEvent| {
            e.prevent_default();
            over.set(false);
            let files = files_of(e.data_transfer().and_then(|d| d.files()));
            if !files.is_empty() {
                cb.emit(files)
            }
        })
    };
    let click = |cb: &Callback<()>| {
        let cb = cb.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let busy = p.progress.is_some();
    html! {
        <section class="panel logs-intake" aria-labelledby="logs-in-h">
            <h2 id="logs-in-h">{"Your logs"}</h2>
            <p class="logs-privacy" data-testid="privacy"><strong>{ PRIVACY }</strong></p>
            <p class="hint">{"Give every broker's controller.log, state-change.log and server.log (Kafka 0.8 to 2.8, ZooKeeper mode) around the incident. The broker of a file is read from its lines or its name; where it cannot be, you can name it below."}</p>
            <div class={classes!("logs-drop", (*over).then_some("over"))} data-testid="drop-zone"
                ondragover={on_drag_over.clone()} ondragenter={on_drag_over} ondragleave={on_drag_leave} ondrop={on_drop}>
                <label class="file-btn logs-file-btn" for="logs-file">{"Choose log files…"}</label>
                <input id="logs-file" type="file" multiple=true onchange={on_change} data-testid="logs-file" class="logs-file-input"
                    aria-describedby="logs-drop-note" />
                <span id="logs-drop-note" class="dim">{" or drop them here (several at once)."}</span>
                if !p.chosen.is_empty() {
                    <ul class="small logs-chosen" aria-label="Chosen files">
                        { for p.chosen.iter().map(|(n, s)| html! { <li><code>{ n.clone() }</code><span class="dim">{ format!(" · {s}") }</span></li> }) }
                    </ul>
                }
            </div>
            <label for="logs-paste" class="logs-paste-label">{"…or paste log lines:"}</label>
            <textarea id="logs-paste" class="logs-paste" rows="6" spellcheck="false" value={p.paste.clone()} oninput={on_input}
                data-testid="logs-paste" placeholder="[2018-03-10 15:48:30,006] INFO [Controller 1]: 1 successfully elected as the controller (kafka.controller.KafkaController)" />
            <div class="row logs-actions">
                <button onclick={click(&p.on_read)} disabled={busy} data-testid="logs-read">{"Read"}</button>
                <button onclick={click(&p.on_clear)} disabled={busy} data-testid="logs-clear">{"Clear"}</button>
                <button onclick={click(&p.on_example)} disabled={busy} data-testid="logs-example"
                    title="Eight files from brokers 1, 2 and 3, written from Kafka 1.0.0's log statements with the blog's times and values">
                    {"Try the seed blog's logs (a reconstruction)"}</button>
                if busy { <button onclick={click(&p.on_cancel)} data-testid="logs-cancel">{"Stop"}</button> }
            </div>
            <div class="logs-progress" aria-live="polite" role="status" data-testid="logs-status">
                if let Some((value, max, words)) = &p.progress {
                    <progress value={value.to_string()} max={max.to_string()} aria-label="Reading your logs" data-testid="logs-progress"
                        aria-valuemin="0" aria-valuemax={max.to_string()} aria-valuenow={value.to_string()} aria-valuetext={words.clone()} />
                    <span>{ words.clone() }</span>
                } else if let Some(outcome) = &p.outcome {
                    <span data-testid="logs-outcome">{ outcome.clone() }</span>
                }
            </div>
        </section>
    }
}
