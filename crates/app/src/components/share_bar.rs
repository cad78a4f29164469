//! "Copy link": the permalink of the run at this step, to the clipboard and in a read-only field.
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

/// "Copy link": writes the permalink to the clipboard, and shows it in a read-only field
/// (selected, for Ctrl+C, when the clipboard API is unavailable or refused).
#[function_component(ShareBar)]
pub fn share_bar(p: &ShareBarProps) -> Html {
    let shown = use_state(|| None::<String>);
    let status = use_state(String::new);
    let input = use_node_ref();
    let onclick = {
        let m = p.model.clone();
        let shown = shown.clone();
        let status = status.clone();
        let input = input.clone();
        Callback::from(move |_| {
            let frag = m.fragment();
            replace_hash(&frag);
            let url = format!("{}#{frag}", base_url());
            shown.set(Some(url.clone()));
            let ok = copy_to_clipboard(&url, status.clone());
            if !ok {
                status.set("Select the link and press Ctrl+C to copy it.".into());
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
            <button class="btn" data-testid="copy-link" {onclick} title="Copy a link that reopens this run at this step">{"🔗 Copy link"}</button>
            if let Some(url) = &*shown {
                <input ref={input} class="share-url" data-testid="share-url" type="text" readonly=true value={url.clone()} aria-label="Link to this run at this step" />
            }
            <span class="dim small" data-testid="share-status" role="status">{(*status).clone()}</span>
        </div>
    }
}

/// `navigator.clipboard.writeText(text)`; false when there is no clipboard API. The outcome is
/// reported through `status` (a refusal is a message, not an unhandled rejection).
fn copy_to_clipboard(text: &str, status: UseStateHandle<String>) -> bool {
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
    let ok = Closure::once(move |_: JsValue| s1.set("Link copied to the clipboard.".into()));
    let err = Closure::once(move |_: JsValue| status.set("Select the link and press Ctrl+C to copy it.".into()));
    let _ = p.then2(&ok, &err);
    ok.forget();
    err.forget();
    true
}
