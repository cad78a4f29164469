//! The permalink in the address bar: the run is restored from `location.hash` at load, and the
//! hash follows the run (debounced `history.replaceState`). The core's
//! [`splitbrain_sim::share::Link`] does the encoding and every check; nothing from the URL is
//! ever inserted as HTML.
use crate::model::Model;
use wasm_bindgen::prelude::*;
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
