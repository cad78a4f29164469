//! "Copy link" and "Copy embed code": the permalink of the run at this step, or the `<iframe>` that
//! embeds it (`embed::iframe_snippet`), to the clipboard and in a read-only field.
use crate::hooks::location::{base_url, replace_hash};
use crate::model::Model;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// Properties of [`ShareBar`].
#[derive(Properties, PartialEq)]
pub struct ShareBarProps {
    /// The run.
    pub model: UseReducerHandle<Model>,
}

/// "Copy link" and "Copy embed code": write the permalink, or the iframe that embeds this run at
/// this step, to the clipboard, and show it in a read-only field (selected, for Ctrl+C, when the
/// clipboard API is unavailable or refused).
#[function_component(ShareBar)]
pub fn share_bar(p: &ShareBarProps) -> Html {
    let shown = use_state(|| None::<(Shared, String)>);
    let status = use_state(String::new);
    let input = use_node_ref();
    let copy = |what: Shared| {
        let m = p.model.clone();
        let shown = shown.clone();
        let status = status.clone();
        let input = input.clone();
        Callback::from(move |_: MouseEvent| {
            let frag = m.fragment();
            replace_hash(&frag);
            let text = match what {
                Shared::Link => format!("{}#{frag}", base_url()),
                Shared::Embed => crate::embed::iframe_snippet(
                    &base_url(),
                    &frag,
                    &format!("splitbrain: {} at step {}", m.source, m.cursor()),
                ),
            };
            shown.set(Some((what, text.clone())));
            if !copy_to_clipboard(&text, what, status.clone()) {
                status.set(what.by_hand().into());
            }
            let input = input.clone();
            // Select the field once it is rendered (fallback and visual confirmation).
            gloo::timers::callback::Timeout::new(0, move || {
                if let Some(el) = input.cast::<HtmlInputElement>() {
                    let _ = el.focus();
                    el.select();
                }
            })
            .forget();
        })
    };
    html! {
        <div class="share-bar" data-testid="share-bar">
            <button class="btn" data-testid="copy-link" onclick={copy(Shared::Link)} title="Copy a link that reopens this run at this step">{"🔗 Copy link"}</button>
            <button class="btn" data-testid="copy-embed" onclick={copy(Shared::Embed)} title="Copy an <iframe> that embeds this run at this step in a page (see docs.html)">{"⧉ Copy embed code"}</button>
            if let Some((what, text)) = &*shown {
                <input ref={input} class="share-url" data-testid={what.testid()} type="text" readonly=true value={text.clone()} aria-label={what.label()} />
            }
            <span class="dim small" data-testid="share-status" role="status">{(*status).clone()}</span>
        </div>
    }
}

/// What the bar copied.
#[derive(Clone, Copy, PartialEq)]
enum Shared {
    Link,
    Embed,
}

impl Shared {
    fn testid(self) -> &'static str {
        match self {
            Shared::Link => "share-url",
            Shared::Embed => "embed-code",
        }
    }
    fn label(self) -> &'static str {
        match self {
            Shared::Link => "Link to this run at this step",
            Shared::Embed => "HTML that embeds this run at this step",
        }
    }
    fn copied(self) -> &'static str {
        match self {
            Shared::Link => "Link copied to the clipboard.",
            Shared::Embed => "Embed code copied to the clipboard.",
        }
    }
    fn by_hand(self) -> &'static str {
        match self {
            Shared::Link => "Select the link and press Ctrl+C to copy it.",
            Shared::Embed => "Select the code and press Ctrl+C to copy it.",
        }
    }
}

/// `navigator.clipboard.writeText(text)`; false when there is no clipboard API. The outcome is
/// reported through `status` (a refusal is a message, not an unhandled rejection).
fn copy_to_clipboard(text: &str, what: Shared, status: UseStateHandle<String>) -> bool {
    let Some(w) = web_sys::window() else { return false };
    let nav: JsValue = w.navigator().into();
    let Ok(clip) = js_sys::Reflect::get(&nav, &"clipboard".into()) else { return false };
    if clip.is_undefined() || clip.is_null() {
        return false;
    }
    let Ok(f) = js_sys::Reflect::get(&clip, &"writeText".into()) else { return false };
    let Some(f) = f.dyn_ref::<js_sys::Function>() else { return false };
    let Ok(p) = f.call1(&clip, &text.into()) else { return false };
    let Ok(p) = p.dyn_into::<js_sys::Promise>() else { return false };
    let s1 = status.clone();
    let ok = Closure::once(move |_: JsValue| s1.set(what.copied().into()));
    let err = Closure::once(move |_: JsValue| status.set(what.by_hand().into()));
    let _ = p.then2(&ok, &err);
    ok.forget();
    err.forget();
    true
}
