//! "Your logs" (issue 31): the page that reads your own Kafka logs in this tab (`logs.html`, the
//! `splitbrain-logs` wasm) and the Web Worker that parses them (`import_worker`, the only wasm
//! that links `splitbrain-import`). One concept per file:
//!
//! - [`protocol`]: the messages between the page and the worker;
//! - [`limits`]: what the page refuses before reading (too much) and the worker skips (binary,
//!   compressed, empty);
//! - [`progress`]: how often the worker reports progress;
//! - [`lines`]: the raw text of the lines the report cites, by global line number;
//! - [`job`]: the worker's job (import, fit, and the answer's two JSON texts);
//! - [`view`]: the report and fit as the page reads them back from JSON;
//! - [`time`]: timestamps as the logs wrote them;
//! - [`state`]: the page's state;
//! - [`client`]: the page's side of the worker;
//! - [`intake`], [`files`], [`verdict`], [`signatures`], [`timeline`], [`unknown`], [`fit`]: the
//!   panel's parts; [`page`] composes them.
//!
//! The page only draws fields the core typed: no Kafka reasoning happens here.
pub mod client;
pub mod example;
pub mod files;
pub mod fit;
pub mod intake;
pub mod job;
pub mod limits;
pub mod lines;
pub mod page;
pub mod progress;
pub mod protocol;
pub mod signatures;
pub mod state;
pub mod time;
pub mod timeline;
pub mod unknown;
pub mod verdict;
pub mod view;

/// Mounts the page into `#logs` (the `splitbrain-logs` binary's start).
pub fn start() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let text = format!(
            "The logs page stopped with an internal error ({info}). Your logs stayed in this tab; \
             reload the page to start again."
        );
        web_sys::console::error_1(&text.as_str().into());
        if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
            if let Some(el) = doc.get_element_by_id("logs-failed") {
                el.set_text_content(Some(&text));
                let _ = el.remove_attribute("hidden");
            }
        }
    }));
    let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("logs"));
    if let Some(el) = root {
        el.set_inner_html("");
        yew::Renderer::<page::LogsPage>::with_root(el).render();
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
