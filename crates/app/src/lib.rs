//! # splitbrain-app
//!
//! The browser playground for `splitbrain-sim`, in Yew. It renders a view of the simulated world
//! and turns gestures (drags across links, clicks, keys) into core commands; it never decides
//! Kafka behaviour itself.
#![warn(missing_docs)]

pub mod app;
pub mod compare;
pub mod debug;
pub mod embed;
pub mod explore_job;
pub mod explorer;
pub mod export;
pub mod faults;
pub mod geometry;
pub mod graph;
pub mod lanes;
pub mod model;
pub mod panels;
pub mod share;

pub use app::App;

/// Starts the page: the panic banner, the `window.splitbrain` hook, and the app in `#app`. A page
/// without `#app` (embed.html, docs, a blog post) mounts widgets itself with [`embed::mount`].
pub fn start() {
    debug::install_panic_hook();
    debug::install_window_hook();
    let root = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("app"));
    if let Some(el) = root {
        yew::Renderer::<App>::with_root(el).render();
    }
}
