// Mounts a splitbrain widget into every <div data-splitbrain> of the page, without an iframe:
//
//   <script type="module" src="https://…/splitbrain-embed.js"></script>
//   <div data-splitbrain data-scenario="seed-incident" data-step="120" data-panels="story,partitions"></div>
//
// The stylesheet next to this file is added to the page if it is not there yet. Options are the
// div's data-* attributes (see docs.html); they are parsed, never inserted as HTML.
// The widget's own wasm: the app without the full playground's chrome (lighter than splitbrain-app.js).
import init, { mount } from "./splitbrain-widget.js";

const css = new URL("./style.css", import.meta.url).href;
if (![...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === css)) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = css;
  document.head.append(link);
}

const divs = [...document.querySelectorAll("[data-splitbrain]")];
try {
  await init({ module_or_path: new URL("./splitbrain-widget_bg.wasm", import.meta.url) });
  for (const el of divs) {
    try {
      mount(el, undefined);
    } catch (e) {
      el.textContent = "This splitbrain widget could not start: " + e;
    }
  }
} catch (e) {
  for (const el of divs) el.textContent = "The splitbrain simulation could not be loaded: " + e;
}
