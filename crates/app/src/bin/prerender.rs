//! The page's first paint, rendered at build time: the playground on the default scenario at
//! step 0, as HTML, written into `#app` of a built `index.html` (Trunk's post-build hook runs
//! this on `dist/index.html`). The browser draws the graph from that HTML before a byte of
//! JavaScript or WebAssembly arrives; when the wasm starts it replaces the markup with the live
//! page (the same components, so the same picture).
//!
//! `prerender FILE` rewrites FILE in place; `prerender -` prints the markup. Native only.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let arg = std::env::args().nth(1).unwrap_or_else(|| "-".into());
    let html = futures::executor::block_on(
        yew::ServerRenderer::<splitbrain_app::App>::with_props(|| splitbrain_app::app::AppProps {
            embed: None,
            first_paint: true,
        })
        .hydratable(false)
        .render(),
    );
    let marked = first_paint(&html);
    if arg == "-" {
        println!("{marked}");
        return;
    }
    let page = match std::fs::read_to_string(&arg) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("prerender: cannot read {arg}: {e}");
            std::process::exit(2);
        }
    };
    let slot = "<div id=\"app\"></div>";
    if !page.contains(slot) {
        eprintln!("prerender: {arg} has no empty {slot} to fill");
        std::process::exit(2);
    }
    let out = page.replacen(slot, &format!("<div id=\"app\">{marked}</div>"), 1);
    if let Err(e) = std::fs::write(&arg, out) {
        eprintln!("prerender: cannot write {arg}: {e}");
        std::process::exit(2);
    }
    eprintln!("prerender: {arg}: {} bytes of first paint", marked.len());
}

/// The rendered page as the first paint: inert (its controls do nothing until the live page
/// replaces it, so they take no focus or clicks), busy for assistive technology, and without the
/// live page's `data-testid`s, so that nothing waiting for the live page mistakes it for it.
#[cfg(not(target_arch = "wasm32"))]
fn first_paint(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find(" data-testid=\"") {
        out.push_str(&rest[..i]);
        let after = &rest[i + " data-testid=\"".len()..];
        rest = match after.find('"') {
            Some(j) => &after[j + 1..],
            None => after,
        };
    }
    out.push_str(rest);
    format!("<div data-testid=\"first-paint\" inert aria-busy=\"true\">{out}</div>")
}

#[cfg(target_arch = "wasm32")]
fn main() {}
