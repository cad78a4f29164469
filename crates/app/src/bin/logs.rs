//! The "Your logs" page's wasm (`splitbrain-logs.js`, loaded by logs.html): the page of
//! [`splitbrain_app::logs`]. It draws what its import worker answers and links no parser, and
//! the playground's own wasm links none of it.
fn main() {
    splitbrain_app::logs::start();
}

// Talc instead of Rust's default dlmalloc: a smaller allocator in the page's wasm.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
