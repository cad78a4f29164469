//! # splitbrain-app
//!
//! The browser playground for `splitbrain-sim`, in Yew. It renders a view of the simulated world
//! and turns gestures (drags across links, clicks, keys) into core commands; it never decides
//! Kafka behaviour itself.
#![warn(missing_docs)]

pub mod app;
pub mod components;
pub mod debug;
pub mod embed;
pub mod explore_job;
pub mod geometry;
pub mod hooks;
pub mod logs;
pub mod model;
pub mod text;

pub use app::App;

/// Starts the page: the panic banner, the `window.splitbrain` hook, and the app in `#app`. A page
/// without `#app` (embed.html, docs, a blog post) mounts widgets itself with [`mount`].
pub fn start() {
    debug::install_panic_hook();
    debug::install_window_hook();
    let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    if let Some(el) = root {
        // The build-time first paint (bin/prerender.rs) gives way to the live page.
        el.set_inner_html("");
        yew::Renderer::<App>::with_root(el).render();
    }
}

/// Mounts an embedded widget (the page with [`embed::EmbedOptions`]) into `element`. Options come from the element's `data-*` attributes and,
/// overriding them, from `options` (a plain object of strings, or undefined).
#[cfg(feature = "mount")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn mount(element: web_sys::Element, options: wasm_bindgen::JsValue) -> Result<(), wasm_bindgen::JsValue> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let attrs = element.attributes();
    for i in 0..attrs.length() {
        if let Some(a) = attrs.item(i) {
            if let Some(k) = a.name().strip_prefix("data-") {
                pairs.push((k.to_string(), a.value()));
            }
        }
    }
    if !options.is_undefined() && !options.is_null() {
        let extra: std::collections::BTreeMap<String, String> =
            serde_wasm_bindgen::from_value(options).map_err(|e| {
                wasm_bindgen::JsValue::from_str(&format!("splitbrain.mount: options must be an object of strings: {e}"))
            })?;
        pairs.extend(extra);
    }
    let opts = embed::EmbedOptions::parse(pairs);
    crate::debug::install_panic_hook();
    crate::debug::install_window_hook();
    element.set_inner_html("");
    yew::Renderer::<App>::with_root_and_props(
        element,
        app::AppProps { embed: Some(std::rc::Rc::new(opts)), first_paint: false },
    )
    .render();
    Ok(())
}
