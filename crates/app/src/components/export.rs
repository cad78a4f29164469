//! Exports of the run shown: the trace as JSON lines (the schema of `splitbrain run --json`), as
//! a Kafka controller.log-style text, as a Mermaid sequence diagram, the graph as a standalone
//! SVG file, and the scenario with the user's faults as a scenario JSON file that
//! `splitbrain run` and the playground open. The core writes every text; this only downloads.
use crate::model::Model;
use splitbrain_sim::export;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlAnchorElement};
use yew::prelude::*;

/// Mermaid diagrams longer than this are cut (the renderer slows down badly past a few hundred).
const MERMAID_LINES: usize = 400;

/// Offers `text` as a file download. Returns a message when the browser refuses.
pub fn download(name: &str, mime: &str, text: &str) -> Result<(), String> {
    let fail = |what: &str| format!("could not offer '{name}' for download ({what})");
    let doc = web_sys::window().and_then(|w| w.document()).ok_or_else(|| fail("no document"))?;
    let parts = js_sys::Array::of1(&text.into());
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &opts).map_err(|_| fail("Blob"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|_| fail("object URL"))?;
    let a: HtmlAnchorElement =
        doc.create_element("a").map_err(|_| fail("anchor"))?.dyn_into().map_err(|_| fail("anchor"))?;
    a.set_href(&url);
    a.set_download(name);
    let body = doc.body().ok_or_else(|| fail("no body"))?;
    let _ = body.append_child(&a);
    a.click();
    let _ = body.remove_child(&a);
    // Revoke later: a synchronous revoke can cancel the download in some browsers.
    gloo::timers::callback::Timeout::new(10_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}

/// A file-name-safe stem from the scenario's name and the mode.
pub fn stem(m: &Model) -> String {
    let name: String = m
        .source
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .take(60)
        .collect();
    let name = name.trim_end_matches(".json").trim_matches('-').to_string();
    format!("{}-{}", if name.is_empty() { "run" } else { &name }, m.mode.name())
}

/// The graph as a standalone SVG document: the page's style rules are copied inside, so the
/// file looks like the picture without the page.
pub fn graph_svg(root: &Element) -> Result<String, String> {
    let svg = root.query_selector("svg.graph").ok().flatten().ok_or("the graph is not on the page")?;
    let css = page_css();
    let inner = svg.inner_html();
    let view_box = svg.get_attribute("viewBox").unwrap_or_default();
    let class = svg.get_attribute("class").unwrap_or_default();
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{view_box}\" class=\"{class}\" width=\"960\" height=\"720\">\n<style><![CDATA[\n{css}]]></style>\n<rect x=\"-10000\" y=\"-10000\" width=\"20000\" height=\"20000\" fill=\"#ffffff\"/>\n{inner}\n</svg>\n"
    ))
}

/// Any SVG element of the page (the swim lanes) as a standalone SVG document at its own size,
/// with the page's style rules copied inside.
pub fn svg_document(svg: &Element) -> Result<String, String> {
    let css = page_css();
    let inner = svg.inner_html();
    let attr = |a: &str| svg.get_attribute(a).unwrap_or_default().replace(['"', '<', '&'], "");
    let (view_box, class, w, h) = (attr("viewBox"), attr("class"), attr("width"), attr("height"));
    Ok(format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"{view_box}\" class=\"{class}\" width=\"{w}\" height=\"{h}\">\n<style><![CDATA[\n{css}]]></style>\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n{inner}\n</svg>\n"
    ))
}

/// The page's style rules (same-origin sheets), made safe for a CDATA section.
fn page_css() -> String {
    let mut css = String::new();
    if let Some(doc) = web_sys::window().and_then(|w| w.document()) {
        let sheets = doc.style_sheets();
        for i in 0..sheets.length() {
            let Some(sheet) = sheets.item(i).and_then(|s| s.dyn_into::<web_sys::CssStyleSheet>().ok()) else {
                continue;
            };
            // Cross-origin sheets refuse cssRules; they are skipped.
            let Ok(rules) = sheet.css_rules() else { continue };
            for j in 0..rules.length() {
                if let Some(r) = rules.item(j) {
                    css.push_str(&r.css_text());
                    css.push('\n');
                }
            }
        }
    }
    css.replace("]]>", "]]]]><![CDATA[>")
}

/// Properties of [`ExportBar`].
#[derive(Properties, PartialEq)]
pub struct ExportProps {
    /// The run.
    pub model: UseReducerHandle<Model>,
    /// The app's root element (to find the graph).
    pub root: NodeRef,
}

/// The five export buttons.
#[function_component(ExportBar)]
pub fn export_bar(p: &ExportProps) -> Html {
    let status = use_state(String::new);
    let mk = |kind: &'static str| {
        let m = p.model.clone();
        let root = p.root.clone();
        let status = status.clone();
        Callback::from(move |_: MouseEvent| {
            let res = build(kind, &m, &root).and_then(|(name, mime, text)| {
                download(&name, mime, &text)?;
                Ok(name)
            });
            status.set(match res {
                Ok(name) => format!("Saved {name}."),
                Err(e) => format!("Export failed: {e}."),
            });
        })
    };
    html! {
        <div class="export-bar" role="group" aria-label="Export this run" data-testid="export-bar">
            <span class="dim small">{"export "}</span>
            <button class="btn" onclick={mk("jsonl")} data-testid="export-jsonl" title="Every event as JSON lines, as splitbrain run --json prints them">{"trace .jsonl"}</button>
            <button class="btn" onclick={mk("log")} data-testid="export-log" title="The events as a Kafka controller.log">{"controller.log"}</button>
            <button class="btn" onclick={mk("mermaid")} data-testid="export-mermaid" title="A Mermaid sequence diagram of the messages that matter">{"Mermaid"}</button>
            <button class="btn" onclick={mk("svg")} data-testid="export-svg" title="The graph at this step as an SVG file">{"graph .svg"}</button>
            <button class="btn" onclick={mk("scenario")} data-testid="export-scenario" title="The scenario with your faults, for splitbrain run or for opening here">{"scenario .json"}</button>
            <span class="dim small" role="status" data-testid="export-status">{(*status).clone()}</span>
        </div>
    }
}

/// The file for one export: (name, MIME type, text).
fn build(kind: &str, m: &Model, root: &NodeRef) -> Result<(String, &'static str, String), String> {
    let stem = stem(m);
    // What is computed: every built-in whole; a run longer than a slice as far as the page went
    // (never its whole future at once; `Model::run_note` says how far that is).
    let tl = m.tl.borrow();
    let events = tl.events();
    Ok(match kind {
        "jsonl" => {
            let last = tl.world_at(tl.len()).ok_or("the run has no last step")?;
            (format!("{stem}.jsonl"), "application/x-ndjson", export::json_lines(events, &last.summary()))
        }
        "log" => (format!("{stem}-controller.log"), "text/plain", export::controller_log(events)),
        "mermaid" => (format!("{stem}.mmd"), "text/plain", export::mermaid(events, MERMAID_LINES)),
        "svg" => {
            let el = root.cast::<Element>().ok_or("the page is not ready")?;
            (format!("{stem}-step-{}.svg", tl.cursor()), "image/svg+xml", graph_svg(&el)?)
        }
        "scenario" => {
            let s = tl.scenario_with_user_faults(m.mode);
            let text = serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?;
            (format!("{stem}-with-faults.json"), "application/json", text + "\n")
        }
        _ => return Err(format!("unknown export '{kind}'")),
    })
}
