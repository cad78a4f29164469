//! The embeddable widget: options read from an iframe's query string (`embed.html?…`) or from a
//! `<div data-splitbrain data-…>` mounted by `splitbrain-embed.js`, and the [`mount`] export.
//! Every option is a string, parsed here once; an unknown key or a bad value becomes a visible
//! message, never a failure, so a typo in a blog post still shows a working widget.
use crate::model::DEFAULT_SCENARIO;
use crate::model::{Model, Notice};
use splitbrain_sim::scenario::{builtin, Mode};
use splitbrain_sim::Timeline;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// The optional panels an embed can show under the graph and the step controls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Panel {
    /// Story caption.
    Story,
    /// Event log.
    Log,
    /// Partition table.
    Partitions,
    /// Controller cache vs ZooKeeper.
    Controller,
    /// Consumer group and its coordinator.
    Consumer,
    /// Alerts.
    Alerts,
    /// ZooKeeper tree.
    Zk,
}

impl Panel {
    /// All panels with their option names.
    pub const ALL: [(&'static str, Panel); 7] = [
        ("story", Panel::Story),
        ("log", Panel::Log),
        ("partitions", Panel::Partitions),
        ("controller", Panel::Controller),
        ("consumer", Panel::Consumer),
        ("alerts", Panel::Alerts),
        ("zk", Panel::Zk),
    ];
}

/// Where the widget starts and what it shows.
#[derive(Clone, PartialEq, Debug)]
pub struct EmbedOptions {
    /// A permalink fragment (`v1.…`); wins over scenario/mode/seed/step.
    pub link: Option<String>,
    /// A built-in scenario's name.
    pub scenario: String,
    /// Kafka behaviour; without it, the scenario's own (else legacy).
    pub mode: Option<Mode>,
    /// The behaviour shown side by side.
    pub compare: Option<Mode>,
    /// Seed (the scenario's own when absent).
    pub seed: Option<u64>,
    /// Step shown first (`usize::MAX` for the end).
    pub step: usize,
    /// Panels shown.
    pub panels: Vec<Panel>,
    /// Start playing.
    pub autoplay: bool,
    /// Fixed height in CSS pixels (scrolls inside); none = as tall as the content.
    pub height: Option<u32>,
    /// The full playground's URL, for the "open in the full playground" link.
    pub playground: String,
    /// What could not be understood, shown as a message.
    pub problems: Vec<String>,
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions {
            link: None,
            scenario: DEFAULT_SCENARIO.to_string(),
            mode: None,
            compare: None,
            seed: None,
            step: 0,
            panels: vec![Panel::Story],
            autoplay: false,
            height: None,
            playground: "./index.html".into(),
            problems: Vec::new(),
        }
    }
}

fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        c.push('…');
    }
    c
}

impl EmbedOptions {
    /// Parses `key=value` pairs (a query string's or a div's `data-*` attributes).
    pub fn parse<I, K, V>(pairs: I) -> EmbedOptions
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut o = EmbedOptions::default();
        for (k, v) in pairs {
            let (k, v) = (k.as_ref().trim(), v.as_ref().trim());
            match k {
                "link" => o.link = Some(v.trim_start_matches('#').to_string()),
                "scenario" => match builtin(v) {
                    Some(_) => o.scenario = v.to_string(),
                    None => o.problems.push(format!("there is no built-in scenario '{}'", clip(v))),
                },
                "mode" => match Mode::parse(v) {
                    Ok(m) => o.mode = Some(m),
                    Err(e) => o.problems.push(e),
                },
                "compare" => match v {
                    "" | "none" => o.compare = None,
                    _ => match Mode::parse(v) {
                        Ok(m) => o.compare = Some(m),
                        Err(e) => o.problems.push(format!("compare: {e}")),
                    },
                },
                "seed" => match v.parse() {
                    Ok(s) => o.seed = Some(s),
                    Err(_) => o.problems.push(format!("seed '{}' is not a whole number", clip(v))),
                },
                "step" => match v {
                    "end" => o.step = usize::MAX,
                    _ => match v.parse() {
                        Ok(s) => o.step = s,
                        Err(_) => o.problems.push(format!("step '{}' is not a step number or 'end'", clip(v))),
                    },
                },
                "panels" => {
                    o.panels.clear();
                    for name in v.split(',').map(str::trim).filter(|n| !n.is_empty() && *n != "none") {
                        match Panel::ALL.iter().find(|(n, _)| *n == name) {
                            Some((_, p)) if !o.panels.contains(p) => o.panels.push(*p),
                            Some(_) => {}
                            None => o.problems.push(format!(
                                "there is no panel '{}' (panels: {})",
                                clip(name),
                                Panel::ALL.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                            )),
                        }
                    }
                }
                "autoplay" => match v {
                    "" | "1" | "true" | "yes" => o.autoplay = true,
                    "0" | "false" | "no" => o.autoplay = false,
                    _ => o.problems.push(format!("autoplay '{}' is not true or false", clip(v))),
                },
                "height" => match v.trim_end_matches("px").parse::<u32>() {
                    Ok(h) if (120..=4000).contains(&h) => o.height = Some(h),
                    _ => o.problems.push(format!("height '{}' is not a number of pixels from 120 to 4000", clip(v))),
                },
                "playground" => {
                    // Only plain relative or http(s) URLs: never `javascript:` or `data:`.
                    let lower = v.to_ascii_lowercase();
                    if lower.starts_with("http://") || lower.starts_with("https://") || !lower.contains(':') {
                        o.playground = v.to_string();
                    } else {
                        o.problems.push(format!("playground URL '{}' is not an http(s) or relative URL", clip(v)));
                    }
                }
                // The marker attribute of a mounted div, test ids, cache-busting parameters and an
                // iframe's build-time snapshot (embed.html draws it; bin/prerender.rs).
                "splitbrain" | "testid" | "v" | "snapshot" | "" => {}
                _ => o.problems.push(format!("unknown option '{}'", clip(k))),
            }
        }
        o
    }

    /// Whether a panel is shown.
    pub fn shows(&self, p: Panel) -> bool {
        self.panels.contains(&p)
    }

    /// The model the widget starts with; problems become its notice.
    pub fn model(&self) -> Model {
        let mut m = match &self.link {
            Some(l) => Model::for_fragment(l),
            None => {
                let s = builtin(&self.scenario).ok_or_else(|| format!("unknown built-in '{}'", self.scenario));
                let timeline = s.and_then(|s| {
                    // Without a `mode` option a built-in runs in the behaviour it is written for.
                    let mode = s.opening_mode(self.mode);
                    Timeline::with_mode(s, self.seed, mode).map(|tl| (tl, mode)).map_err(|e| e.to_string())
                });
                match timeline {
                    Ok((tl, mode)) => {
                        let m = Model::from_restored(tl, self.scenario.clone(), mode);
                        m.tl.borrow_mut().seek(self.step);
                        m.with_compare(self.compare)
                    }
                    Err(e) => {
                        let mut m = Model::initial();
                        m.notice = Some(Notice { error: true, text: format!("Could not start the widget: {e}.") });
                        m
                    }
                }
            }
        };
        if !self.problems.is_empty() {
            let text = format!("Embed options ignored: {}.", self.problems.join("; "));
            m.notice = Some(match m.notice.take() {
                Some(n) => Notice { error: true, text: format!("{} {text}", n.text) },
                None => Notice { error: true, text },
            });
        }
        m.playing = self.autoplay;
        m
    }
}

/// The `<iframe>` that embeds the run of the permalink `fragment` (scenario, behaviour, seed,
/// faults, side-by-side and step, as "Copy link" makes it) with its story, for the playground at
/// `page_url`: `embed.html` in the same directory, `link=` the fragment. `title` is escaped.
pub fn iframe_snippet(page_url: &str, fragment: &str, title: &str) -> String {
    let page = page_url.split(['#', '?']).next().unwrap_or_default();
    let dir = page.rfind('/').map(|i| &page[..=i]).unwrap_or_default();
    let mut t = String::with_capacity(title.len());
    for c in title.chars() {
        match c {
            '&' => t.push_str("&amp;"),
            '<' => t.push_str("&lt;"),
            '>' => t.push_str("&gt;"),
            '"' => t.push_str("&quot;"),
            '\'' => t.push_str("&#39;"),
            c => t.push(c),
        }
    }
    format!(
        "<iframe class=\"splitbrain\" title=\"{t}\" src=\"{dir}embed.html?link={fragment}&amp;panels=story\" \
         style=\"width:100%;height:640px;border:0\" loading=\"lazy\"></iframe>"
    )
}

/// Posts the widget's height again whenever its size changes (a panel opens, the iframe gets
/// narrower and the text wraps): a render alone does not see every change. The observer lives as
/// long as the page.
pub fn watch_height(root: &Element) {
    let r = root.clone();
    let cb = Closure::<dyn FnMut()>::new(move || post_height(&r));
    if let Ok(obs) = web_sys::ResizeObserver::new(cb.as_ref().unchecked_ref()) {
        obs.observe(root);
        cb.forget();
    }
}

/// Tells the parent page (when inside an iframe) how tall the widget is, so it can size the
/// iframe: `{type: "splitbrain:height", height}`.
pub fn post_height(root: &Element) {
    let Some(w) = web_sys::window() else { return };
    let Ok(Some(parent)) = w.parent() else { return };
    if parent == w {
        return;
    }
    let h = root.scroll_height().max(root.get_bounding_client_rect().height().ceil() as i32);
    let msg = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&msg, &"type".into(), &"splitbrain:height".into());
    let _ = js_sys::Reflect::set(&msg, &"height".into(), &JsValue::from(h));
    let _ = parent.post_message(&msg, "*");
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn an_iframe_snippet_names_embed_html_beside_the_page() {
        let s = iframe_snippet("https://h.example/sb/index.html?x=1#v2.old", "v2.AbC-_", "a \"b\" <c> & 'd'");
        assert_eq!(
            s,
            "<iframe class=\"splitbrain\" title=\"a &quot;b&quot; &lt;c&gt; &amp; &#39;d&#39;\" \
             src=\"https://h.example/sb/embed.html?link=v2.AbC-_&amp;panels=story\" \
             style=\"width:100%;height:640px;border:0\" loading=\"lazy\"></iframe>"
        );
        assert!(iframe_snippet("http://127.0.0.1:8080/", "v2.x", "t")
            .contains("src=\"http://127.0.0.1:8080/embed.html?link=v2.x&amp;"));
    }

    #[test]
    fn parses_every_option_and_reports_bad_ones() {
        let o = EmbedOptions::parse([
            ("scenario", "clean-failover"),
            ("mode", "fenced"),
            ("compare", "kraft"),
            ("step", "42"),
            ("panels", "log, partitions,bogus"),
            ("autoplay", "1"),
            ("height", "480px"),
            ("seed", "x"),
            ("playground", "javascript:alert(1)"),
            ("colour", "red"),
        ]);
        assert_eq!(o.scenario, "clean-failover");
        assert_eq!(o.mode, Some(Mode::Fenced));
        assert_eq!(o.compare, Some(Mode::Kraft));
        assert_eq!(o.step, 42);
        assert_eq!(o.panels, vec![Panel::Log, Panel::Partitions]);
        assert!(o.autoplay);
        assert_eq!(o.height, Some(480));
        assert_eq!(o.seed, None);
        assert_eq!(o.playground, "./index.html");
        let all = o.problems.join(" | ");
        for needle in ["panel 'bogus'", "seed 'x'", "playground URL", "unknown option 'colour'"] {
            assert!(all.contains(needle), "{needle} missing in {all}");
        }
        assert_eq!(o.problems.len(), 4);
    }

    #[test]
    fn defaults_and_end() {
        let o = EmbedOptions::parse([("step", "end"), ("panels", "none")]);
        assert_eq!(o.step, usize::MAX);
        assert!(o.panels.is_empty());
        assert!(o.problems.is_empty());
        assert_eq!(EmbedOptions::parse(Vec::<(String, String)>::new()), EmbedOptions::default());
    }
}
