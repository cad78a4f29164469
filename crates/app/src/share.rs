//! Permalinks in the page: the run is restored from `location.hash` at load, the hash follows the
//! run (debounced `history.replaceState`), and a "Copy link" bar. The core's
//! [`splitbrain_sim::share::Link`] does the encoding and every check; nothing from the URL is
//! ever inserted as HTML (only Yew text nodes and attribute values).
use crate::model::Model;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::HtmlInputElement;
use yew::prelude::*;

/// The page's fragment without `#` (empty when none).
pub fn read_hash() -> String {
    // The build-time first paint (bin/prerender.rs) runs natively: no location, the default run.
    if !cfg!(target_arch = "wasm32") {
        return String::new();
    }
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .map(|h| h.trim_start_matches('#').to_string())
        .unwrap_or_default()
}

/// The model at page load: from `location.hash` when it holds a link.
pub fn model_from_location() -> Model {
    Model::for_fragment(&read_hash())
}

/// The page's URL without its fragment.
pub fn base_url() -> String {
    let href = web_sys::window().and_then(|w| w.location().href().ok()).unwrap_or_default();
    match href.split_once('#') {
        Some((b, _)) => b.to_string(),
        None => href,
    }
}

/// Replaces the URL's fragment without a history entry or a navigation.
pub fn replace_hash(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    if read_hash() == fragment {
        return;
    }
    if let Ok(h) = w.history() {
        let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{fragment}")));
    }
}

/// Keeps `location.hash` in step with the run: 300 ms after the last change, never while playing
/// (and never in an embedded widget, whose page's URL is not ours).
#[hook]
pub fn use_hash_sync(model: &UseReducerHandle<Model>, enabled: bool) {
    let m = (**model).clone();
    use_effect_with((model.rev, model.playing, enabled), move |(_, playing, enabled)| {
        let t = (!*playing && *enabled).then(|| {
            gloo::timers::callback::Timeout::new(300, move || {
                replace_hash(&m.fragment());
            })
        });
        move || drop(t)
    });
}

/// Opens a link pasted into the address bar of an open page (a fragment change does not reload
/// the page). Fragments this page wrote itself go through `replaceState`, which fires no event.
#[hook]
pub fn use_hash_listener(model: &UseReducerHandle<Model>, enabled: bool) {
    let d = model.dispatcher();
    use_effect_with(enabled, move |enabled| {
        let listener = (*enabled).then(web_sys::window).flatten().map(|w| {
            gloo::events::EventListener::new(&w, "hashchange", move |_| {
                d.dispatch(crate::model::Action::OpenLink(read_hash()));
            })
        });
        move || drop(listener)
    });
}

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
