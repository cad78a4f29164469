//! The playground binary that Trunk builds.
fn main() {
    splitbrain_app::start();
}

// Talc instead of Rust's default dlmalloc: a smaller allocator in the page's wasm.
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static TALC: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
