// Starts the explorer's Web Worker: wasm-bindgen's no-modules script for the `explorer_worker`
// binary, then its wasm (both built by Trunk from index.html's data-type="worker" link). The page
// creates this worker only when a search starts (crates/app/src/explorer.rs).
importScripts("./explorer_worker.js");
// A failure is rethrown outside the promise, so the page's Worker gets an `error` event.
wasm_bindgen({ module_or_path: "./explorer_worker_bg.wasm" }).catch((e) => setTimeout(() => { throw e; }));
