//! The embeddable widget's wasm (`splitbrain-widget.js`, loaded by embed.html and
//! splitbrain-embed.js): the library's [`splitbrain_app::mount`] export (its `mount` feature), built without the
//! `full-page` feature so the playground's own chrome is left out. Nothing runs at start: the
//! page calls `mount` for each widget.

// Links the library, and with it its `mount` export.
use splitbrain_app as _;

fn main() {}

// Talc instead of Rust's default dlmalloc: a smaller allocator in the page's wasm.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
