//! Pictures rendered at build time, so the browser draws a graph before a byte of JavaScript or
//! WebAssembly arrives; when the wasm starts it replaces the markup with the live widget or page
//! (the same components, so the same picture).
//!
//! - `prerender FILE`: the page's first paint, the playground on the default scenario at step 0,
//!   written into `#app` of a built `index.html` (Trunk's post-build hook runs this on
//!   `dist/index.html`). `prerender -` prints the markup.
//! - `prerender --embeds FILE…`: the embedded widgets of each HTML file drawn before their wasm,
//!   each the widget its options ask for (scenario, mode, seed, step, panels, link: the same
//!   parser as `mount`), at its step:
//!   - a snapshot inside every empty `<div data-splitbrain data-…>`; `splitbrain-embed.js` then
//!     fetches the widget's wasm only when such a div comes near the viewport;
//!   - for every `<iframe src="…embed.html?…">` (a relative URL), a snapshot page
//!     `snapshots/KEY.html` beside that `embed.html`, named in the iframe's URL
//!     (`&snapshot=KEY`); embed.html draws it, then fetches the wasm.
//!
//!   A div that is not empty, or an iframe that names a snapshot, is left alone, so running it
//!   twice changes nothing. Trunk's hook runs it on `dist/docs.html` and
//!   `dist/blog-sample.html`; an author runs it on their own built pages.
//!
//! Native only.
#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--embeds") {
        if args.len() < 2 {
            fail("prerender --embeds: name at least one HTML file");
        }
        for file in &args[1..] {
            let page = read(file);
            let filled = embeds::fill(&page, |pairs, key| {
                let opts =
                    splitbrain_app::embed::EmbedOptions::parse(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
                marked(&render(Some(opts)), "snapshot", key)
            });
            let dir = std::path::Path::new(file).parent().unwrap_or(std::path::Path::new("."));
            for (path, html) in &filled.frames {
                let to = dir.join(path);
                if let Some(d) = to.parent() {
                    if let Err(e) = std::fs::create_dir_all(d) {
                        fail(&format!("prerender: cannot create {}: {e}", d.display()));
                    }
                }
                write(&to.to_string_lossy(), html);
            }
            write(file, &filled.html);
            eprintln!(
                "prerender: {file}: {} div snapshot(s) ({} bytes more), {} iframe snapshot page(s)",
                filled.divs,
                filled.html.len() - page.len(),
                filled.frames.len()
            );
        }
        return;
    }
    let arg = args.first().cloned().unwrap_or_else(|| "-".into());
    let first = marked(&render(None), "first-paint", None);
    if arg == "-" {
        println!("{first}");
        return;
    }
    let page = read(&arg);
    let slot = "<div id=\"app\"></div>";
    if !page.contains(slot) {
        fail(&format!("prerender: {arg} has no empty {slot} to fill"));
    }
    write(&arg, &page.replacen(slot, &format!("<div id=\"app\">{first}</div>"), 1));
    eprintln!("prerender: {arg}: {} bytes of first paint", first.len());
}

/// The app's markup: the playground (`embed` none) or a widget, as the first paint renders it.
#[cfg(not(target_arch = "wasm32"))]
fn render(embed: Option<splitbrain_app::embed::EmbedOptions>) -> String {
    futures::executor::block_on(
        yew::ServerRenderer::<splitbrain_app::App>::with_props(move || splitbrain_app::app::AppProps {
            embed: embed.map(std::rc::Rc::new),
            first_paint: true,
        })
        .hydratable(false)
        .render(),
    )
}

#[cfg(not(target_arch = "wasm32"))]
fn read(file: &str) -> String {
    std::fs::read_to_string(file).unwrap_or_else(|e| fail(&format!("prerender: cannot read {file}: {e}")))
}

#[cfg(not(target_arch = "wasm32"))]
fn write(file: &str, text: &str) {
    if let Err(e) = std::fs::write(file, text) {
        fail(&format!("prerender: cannot write {file}: {e}"));
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn fail(msg: &str) -> ! {
    eprintln!("{msg}");
    std::process::exit(2);
}

/// The rendered markup as a picture only: inert (its controls do nothing until the live page or
/// widget replaces it, so they take no focus or clicks), busy for assistive technology, and
/// without the live markup's `data-testid`s, so that nothing waiting for the live page mistakes
/// it for it; wrapped in a div whose test id is `testid` (and `data-key`, when given: what
/// `splitbrain-embed.js` checks the div's options against).
#[cfg(not(target_arch = "wasm32"))]
fn marked(html: &str, testid: &str, key: Option<&str>) -> String {
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
    let key = key.map(|k| format!(" data-key=\"{k}\"")).unwrap_or_default();
    format!("<div data-testid=\"{testid}\"{key} inert aria-busy=\"true\">{out}</div>")
}

/// Finding the widgets of an HTML page and their options.
#[cfg(not(target_arch = "wasm32"))]
mod embeds {
    use std::ops::Range;

    /// A page with its widgets' snapshots: the new text, how many divs were filled, and the
    /// snapshot pages its iframes now name, as (path relative to the page, markup).
    #[derive(Debug, PartialEq)]
    pub struct Filled {
        pub html: String,
        pub divs: usize,
        pub frames: Vec<(String, String)>,
    }

    /// `page` with `snapshot(options)` inside every empty `<div … data-splitbrain …></div>`, and
    /// with `&snapshot=KEY` added to every `<iframe src="…embed.html?…">` (a relative URL) that
    /// has none, its snapshot going to `snapshots/KEY.html` beside that `embed.html`. Options are
    /// a div's `data-*` attributes without the prefix, or the iframe URL's query, decoded, in the
    /// order written (as `mount` reads them). KEY is the FNV-1a hash of the query as written, so
    /// the same moment embedded twice shares one file, and embed.html, which hashes its own query
    /// again, never draws a snapshot for options edited after it was made.
    pub fn fill(page: &str, mut snapshot: impl FnMut(&[(String, String)], Option<&str>) -> String) -> Filled {
        let mut out = Filled { html: String::with_capacity(page.len()), divs: 0, frames: Vec::new() };
        let mut rest = page;
        while let Some(i) = next_tag(rest) {
            out.html.push_str(&rest[..i]);
            let from_tag = &rest[i..];
            let Some(end) = tag_end(from_tag) else {
                rest = from_tag;
                break;
            };
            let (tag, after) = from_tag.split_at(end + 1);
            rest = after;
            let name_len = if tag.starts_with("<div") { "<div".len() } else { "<iframe".len() };
            let Some(attrs) = attributes(&tag[name_len..end]) else {
                out.html.push_str(tag);
                continue;
            };
            if name_len == "<div".len() {
                out.html.push_str(tag);
                let is_widget = attrs.iter().any(|a| a.name == "data-splitbrain");
                if is_widget && rest.trim_start().starts_with("</div>") {
                    let data: Vec<(String, String)> = attrs
                        .into_iter()
                        .filter_map(|a| a.name.strip_prefix("data-").map(|k| (k.to_string(), a.value)))
                        .collect();
                    out.html.push_str(&snapshot(&data, Some(&div_key(&data))));
                    out.divs += 1;
                }
                continue;
            }
            match attrs.iter().find(|a| a.name == "src").and_then(|a| frame_src(&a.value).map(|f| (a, f))) {
                Some((src, (dir, query))) => {
                    let pairs = query_pairs(query);
                    if pairs.iter().any(|(k, _)| k == "snapshot") {
                        out.html.push_str(tag);
                        continue;
                    }
                    let key = format!("{:016x}", fnv1a(query.as_bytes()));
                    let sep = if query.is_empty() {
                        if src.value.contains('?') {
                            ""
                        } else {
                            "?"
                        }
                    } else {
                        "&amp;"
                    };
                    let at = name_len + src.raw.end;
                    out.html.push_str(&tag[..at]);
                    out.html.push_str(&format!("{sep}snapshot={key}"));
                    out.html.push_str(&tag[at..]);
                    let path = format!("{dir}snapshots/{key}.html");
                    if !out.frames.iter().any(|(p, _)| *p == path) {
                        out.frames.push((path, snapshot(&pairs, None)));
                    }
                }
                None => out.html.push_str(tag),
            }
        }
        out.html.push_str(rest);
        out
    }

    /// A div's options as `splitbrain-embed.js` checks them: the FNV-1a hash of `k=v` pairs
    /// joined by `&`, in attribute order (so an option edited after the snapshot was made shows
    /// no snapshot).
    pub fn div_key(data: &[(String, String)]) -> String {
        let text: Vec<String> = data.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!("{:016x}", fnv1a(text.join("&").as_bytes()))
    }

    /// Where the next `<div` or `<iframe` starts.
    fn next_tag(s: &str) -> Option<usize> {
        match (s.find("<div"), s.find("<iframe")) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// An iframe `src` that is a relative URL of `embed.html` without a fragment: its directory
    /// (with the trailing slash, or empty) and its query (without `?`).
    fn frame_src(src: &str) -> Option<(&str, &str)> {
        if src.contains('#') {
            return None; // the key goes at the query's end; a fragment there is left alone
        }
        let (path, query) = src.split_once('?').unwrap_or((src, ""));
        let dir = path.strip_suffix("embed.html")?;
        let relative = !path.contains(':') && !path.starts_with('/') && (dir.is_empty() || dir.ends_with('/'));
        (relative && !dir.split('/').any(|part| part == "..")).then_some((dir, query))
    }

    /// A query string's pairs, `+` and `%XX` decoded.
    fn query_pairs(query: &str) -> Vec<(String, String)> {
        query
            .split('&')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (percent_decode(k), percent_decode(v))
            })
            .collect()
    }

    fn percent_decode(s: &str) -> String {
        let b = s.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            let hex = |c: u8| (c as char).to_digit(16);
            match b[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < b.len() && hex(b[i + 1]).is_some() && hex(b[i + 2]).is_some() => {
                    out.push((hex(b[i + 1]).unwrap_or(0) * 16 + hex(b[i + 2]).unwrap_or(0)) as u8);
                    i += 2;
                }
                c => out.push(c),
            }
            i += 1;
        }
        String::from_utf8_lossy(&out).into_owned()
    }

    /// 64-bit FNV-1a (the core's state-hash hasher): the snapshot file's name, stable across
    /// builds and machines.
    fn fnv1a(bytes: &[u8]) -> u64 {
        use std::hash::Hasher;
        let mut h = splitbrain_sim::fnv::Fnv::default();
        h.write(bytes);
        h.finish()
    }

    /// Where the tag that `s` starts with ends (its `>`, outside quotes).
    fn tag_end(s: &str) -> Option<usize> {
        let mut quote = None;
        for (i, c) in s.char_indices() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, '>') => return Some(i),
                _ => {}
            }
        }
        None
    }

    /// One attribute: its name lower-cased, its value with character references decoded, and
    /// where the value's text is in the tag's inside (after any opening quote).
    struct Attr {
        name: String,
        value: String,
        raw: Range<usize>,
    }

    /// The attributes of a start tag's inside (after its name); none when the tag name goes on
    /// (`<divider`).
    fn attributes(inside: &str) -> Option<Vec<Attr>> {
        if !inside.is_empty() && !inside.starts_with(|c: char| c.is_ascii_whitespace() || c == '/') {
            return None;
        }
        let mut out = Vec::new();
        let b = inside.as_bytes();
        let mut i = 0;
        let skip = |i: &mut usize, also_slash: bool| {
            while *i < b.len() && (b[*i].is_ascii_whitespace() || (also_slash && b[*i] == b'/')) {
                *i += 1;
            }
        };
        loop {
            skip(&mut i, true);
            if i >= b.len() {
                return Some(out);
            }
            let start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'=' && b[i] != b'/' {
                i += 1;
            }
            let name = inside[start..i].to_ascii_lowercase();
            skip(&mut i, false);
            let mut raw = i..i;
            if i < b.len() && b[i] == b'=' {
                i += 1;
                skip(&mut i, false);
                if i < b.len() && (b[i] == b'"' || b[i] == b'\'') {
                    let q = b[i];
                    let s = i + 1;
                    let e = inside[s..].bytes().position(|c| c == q).map_or(b.len(), |p| s + p);
                    raw = s..e;
                    i = (e + 1).min(b.len());
                } else {
                    let s = i;
                    while i < b.len() && !b[i].is_ascii_whitespace() {
                        i += 1;
                    }
                    raw = s..i;
                }
            }
            out.push(Attr { name, value: unescape(&inside[raw.clone()]), raw });
        }
    }

    /// HTML's named references an option can hold, and numeric ones.
    fn unescape(s: &str) -> String {
        let mut out = String::with_capacity(s.len());
        let mut rest = s;
        while let Some(i) = rest.find('&') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            let Some(semi) = after.find(';').filter(|&j| j <= 10) else {
                out.push('&');
                rest = after;
                continue;
            };
            let name = &after[..semi];
            let c = match name {
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "lt" => Some('<'),
                "gt" => Some('>'),
                _ => name
                    .strip_prefix("#x")
                    .or_else(|| name.strip_prefix("#X"))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                    .and_then(char::from_u32),
            };
            match c {
                Some(c) => {
                    out.push(c);
                    rest = &after[semi + 1..];
                }
                None => {
                    out.push('&');
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
            list.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        }

        fn options_seen(page: &str) -> Vec<Vec<(String, String)>> {
            let mut seen = Vec::new();
            let _ = fill(page, |o, _| {
                seen.push(o.to_vec());
                "X".into()
            });
            seen
        }

        #[test]
        fn fills_only_empty_widget_divs_with_their_options() {
            let page = r#"<p>a</p><div class="x">keep</div><div data-splitbrain data-step="463" data-panels='story,controller' data-link="v1.a&amp;b"></div><div data-splitbrain data-step=5>done</div><divider data-splitbrain></div>"#;
            let f = fill(page, |_, _| "SNAP".into());
            assert_eq!((f.divs, f.frames.len()), (1, 0));
            assert_eq!(
                f.html,
                r#"<p>a</p><div class="x">keep</div><div data-splitbrain data-step="463" data-panels='story,controller' data-link="v1.a&amp;b">SNAP</div><div data-splitbrain data-step=5>done</div><divider data-splitbrain></div>"#
            );
            let want =
                pairs(&[("splitbrain", ""), ("step", "463"), ("panels", "story,controller"), ("link", "v1.a&b")]);
            assert_eq!(options_seen(page), vec![want.clone()]);
            // The key splitbrain-embed.js recomputes from the div's attributes, decoded, in order.
            let mut keys = Vec::new();
            let _ = fill(page, |_, key| {
                keys.push(key.map(str::to_string));
                String::new()
            });
            let key = format!("{:016x}", fnv1a(b"splitbrain=&step=463&panels=story,controller&link=v1.a&b"));
            assert_eq!(keys, vec![Some(key.clone())]);
            assert_eq!(div_key(&want), key);
            // Filled once, left alone the second time.
            let again = fill(&f.html, |_, _| "SNAP".into());
            assert_eq!((again.html, again.divs), (f.html.clone(), 0));
        }

        #[test]
        fn quotes_hide_a_closing_bracket_and_references_decode() {
            assert!(
                options_seen(r#"<DIV data-splitbrain></div>"#).is_empty(),
                "an upper-case tag name is not looked for"
            );
            let o = &options_seen(r#"<div data-splitbrain data-x="a>b" DATA-Y='&#x3c;&#62;&lt;&bogus;&'>  </div>"#)[0];
            assert_eq!(o[1], ("x".to_string(), "a>b".to_string()));
            assert_eq!(o[2], ("y".to_string(), "<><&bogus;&".to_string()));
        }

        #[test]
        fn an_unclosed_tag_is_copied_as_it_is() {
            let page = "<p>x</p><div data-splitbrain data-step=\"1";
            let f = fill(page, |_, _| "SNAP".into());
            assert_eq!((f.html.as_str(), f.divs), (page, 0));
        }

        #[test]
        fn an_iframe_of_embed_html_names_its_snapshot_page() {
            let page = r#"<iframe title="t" src="embed.html?scenario=seed-incident&amp;step=32&amp;panels=story%2Ccontroller" loading="lazy"></iframe>
<iframe src="w/embed.html"></iframe><iframe src="https://elsewhere/embed.html?step=1"></iframe><iframe src="embed.html?step=1#x"></iframe><iframe src="../embed.html?step=1"></iframe><iframe src="other.html?step=1"></iframe>
<iframe src='embed.html?scenario=seed-incident&amp;step=32&amp;panels=story%2Ccontroller'></iframe>"#;
            let f = fill(page, |o, key| {
                assert_eq!(key, None, "an iframe's key is in its URL");
                format!("{o:?}")
            });
            let key = format!("{:016x}", fnv1a(b"scenario=seed-incident&step=32&panels=story%2Ccontroller"));
            let key_empty = format!("{:016x}", fnv1a(b""));
            assert_eq!(f.divs, 0);
            assert_eq!(
                f.frames,
                vec![
                    (
                        format!("snapshots/{key}.html"),
                        format!(
                            "{:?}",
                            pairs(&[("scenario", "seed-incident"), ("step", "32"), ("panels", "story,controller")])
                        )
                    ),
                    (format!("w/snapshots/{key_empty}.html"), "[]".to_string()),
                ],
                "one page per moment, beside its embed.html; other hosts, parents, fragments and pages are left alone"
            );
            let want = page
                .replacen("controller\" loading", &format!("controller&amp;snapshot={key}\" loading"), 1)
                .replace("w/embed.html\"", &format!("w/embed.html?snapshot={key_empty}\""))
                .replace("controller'>", &format!("controller&amp;snapshot={key}'>"));
            assert_eq!(f.html, want);
            let again = fill(&f.html, |_, _| "SNAP".into());
            assert_eq!((again.html, again.frames.len()), (f.html, 0), "an iframe that names a snapshot is left alone");
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
