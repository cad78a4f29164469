// Mounts a splitbrain widget into every <div data-splitbrain> of the page, without an iframe:
//
//   <script type="module" src="https://…/splitbrain-embed.js"></script>
//   <div data-splitbrain data-scenario="seed-incident" data-step="120" data-panels="story,partitions"></div>
//
// The stylesheet next to this file is added to the page if it is not there yet. Options are the
// div's data-* attributes (see docs.html); they are parsed, never inserted as HTML.
//
// A div that holds a snapshot (its picture rendered at build time by `prerender --embeds`, see
// crates/app/src/bin/prerender.rs) is already drawn: the widget's wasm is fetched only when such
// a div comes within a screen of the viewport, or is focused or touched, so a reader who never
// scrolls to it never downloads it. Without snapshots (or with one that no longer fits its div's
// options), or without IntersectionObserver, the wasm is fetched at once.
const css = new URL("./style.css", import.meta.url).href;
if (![...document.querySelectorAll('link[rel="stylesheet"]')].some((l) => l.href === css)) {
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = css;
  document.head.append(link);
}

const divs = [...document.querySelectorAll("[data-splitbrain]")];
let started = null;

// The widget's own wasm: the app without the full playground's chrome (lighter than splitbrain-app.js).
function start() {
  started ??= (async () => {
    try {
      const { default: init, mount } = await import("./splitbrain-widget.js");
      await init({ module_or_path: new URL("./splitbrain-widget_bg.wasm", import.meta.url) });
      for (const el of divs) {
        try {
          mount(el, undefined);
        } catch (e) {
          el.textContent = "This splitbrain widget could not start: " + e;
        }
      }
    } catch (e) {
      // A snapshot already drawn stays, with the reason above it.
      for (const el of divs) {
        const note = document.createElement("p");
        note.className = "embed-loading";
        note.dataset.testid = "load-failed";
        note.textContent = "The splitbrain simulation could not be loaded: " + e;
        if (el.querySelector(':scope > [data-testid="snapshot"]')) el.prepend(note);
        else el.replaceChildren(note);
      }
    }
  })();
  return started;
}

// A snapshot counts only for the options it was made with: its data-key is the 64-bit FNV-1a hash
// of the div's data-* attributes as `k=v` joined by `&`, in order (prerender's `div_key`). One
// that no longer fits (an option edited afterwards) is removed and the widget loads at once.
const fnv1a = (text) => {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(text)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
};
const optionsKey = (el) =>
  fnv1a([...el.attributes].filter((a) => a.name.startsWith("data-")).map((a) => `${a.name.slice(5)}=${a.value}`).join("&"));
const drawn = divs.filter((el) => {
  const snap = el.querySelector(':scope > [data-testid="snapshot"]');
  if (snap && snap.dataset.key !== optionsKey(el)) snap.remove();
  return snap && snap.isConnected;
});
if (divs.length > 0 && drawn.length === divs.length && "IntersectionObserver" in window) {
  const seen = new IntersectionObserver(
    (entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        seen.disconnect();
        start();
      }
    },
    { rootMargin: "100% 0px" },
  );
  for (const el of divs) {
    seen.observe(el);
    for (const ev of ["pointerdown", "focusin"]) el.addEventListener(ev, start, { once: true });
  }
} else if (divs.length > 0) {
  start();
}
