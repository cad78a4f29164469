// Starts the logs page's import worker: wasm-bindgen's no-modules script for the `import_worker`
// binary, then its wasm (both built by Trunk from index.html's data-type="worker" link). logs.html
// starts one such worker per import (crates/app/src/logs/client.rs).
importScripts("./import_worker.js");
// A failure is rethrown outside the promise, so the page's Worker gets an `error` event.
wasm_bindgen({ module_or_path: "./import_worker_bg.wasm" }).catch((e) => setTimeout(() => { throw e; }));
