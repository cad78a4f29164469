//! The panic banner and a small read-only hook on `window.splitbrain` for tests and curious
//! users: `view()` (the current View as a JS object), `step()`, `steps()`, `lastRenderMs()`,
//! `renders()` (how often the graph and the drag stroke rendered).
//! It never changes the run: tests drive the real UI for the gestures they check.
use splitbrain_sim::Timeline;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

thread_local! {
    static CURRENT: RefCell<Option<Rc<RefCell<Timeline>>>> = const { RefCell::new(None) };
    static DISPATCHED_AT: Cell<f64> = const { Cell::new(-1.0) };
    static LAST_RENDER_MS: Cell<f64> = const { Cell::new(-1.0) };
    static INSTALLED: Cell<bool> = const { Cell::new(false) };
    static RENDERS: RefCell<Vec<(&'static str, u64)>> = const { RefCell::new(Vec::new()) };
}

/// Counts a render of the named component (`window.splitbrain.renders()` reads the counts).
pub fn count_render(name: &'static str) {
    RENDERS.with(|r| {
        let mut r = r.borrow_mut();
        match r.iter_mut().find(|(n, _)| *n == name) {
            Some((_, c)) => *c += 1,
            None => r.push((name, 1)),
        }
    });
}

fn now() -> f64 {
    // Natively (the reducer's own tests) there is no browser clock to read.
    if cfg!(target_arch = "wasm32") {
        web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
    } else {
        0.0
    }
}

/// Called by the reducer when an action arrives.
pub fn mark_dispatch() {
    DISPATCHED_AT.with(|c| c.set(now()));
}

/// Called after the App rendered: time from the last dispatch to the DOM being updated.
pub fn mark_rendered() {
    let t0 = DISPATCHED_AT.with(|c| c.replace(-1.0));
    if t0 >= 0.0 {
        LAST_RENDER_MS.with(|c| c.set(now() - t0));
    }
}

/// The timeline the page shows now.
pub fn set_current(tl: &Rc<RefCell<Timeline>>) {
    CURRENT.with(|c| *c.borrow_mut() = Some(tl.clone()));
}

fn with_tl<R>(f: impl FnOnce(&Timeline) -> R) -> Option<R> {
    CURRENT.with(|c| c.borrow().as_ref().and_then(|t| t.try_borrow().ok().map(|t| f(&t))))
}

/// The view of the run the page shows now (for tests).
pub fn current_view() -> Option<splitbrain_sim::View> {
    with_tl(|t| t.view())
}

/// The step the page shows now (for tests).
pub fn current_step() -> Option<usize> {
    with_tl(|t| t.cursor())
}

/// Installs `window.splitbrain` (once).
pub fn install_window_hook() {
    if INSTALLED.with(|c| c.replace(true)) {
        return;
    }
    let Some(window) = web_sys::window() else { return };
    let obj = js_sys::Object::new();
    let set = |name: &str, f: JsValue| {
        let _ = js_sys::Reflect::set(&obj, &JsValue::from_str(name), &f);
    };
    set(
        "view",
        Closure::<dyn Fn() -> JsValue>::new(|| {
            with_tl(|t| {
                let ser = serde_wasm_bindgen::Serializer::json_compatible();
                serde::Serialize::serialize(&t.view(), &ser).unwrap_or(JsValue::NULL)
            })
            .unwrap_or(JsValue::NULL)
        })
        .into_js_value(),
    );
    set(
        "step",
        Closure::<dyn Fn() -> JsValue>::new(|| with_tl(|t| JsValue::from(t.cursor() as f64)).unwrap_or(JsValue::NULL))
            .into_js_value(),
    );
    set(
        "steps",
        Closure::<dyn Fn() -> JsValue>::new(|| with_tl(|t| JsValue::from(t.len() as f64)).unwrap_or(JsValue::NULL))
            .into_js_value(),
    );
    // Only for testing the error banner: panics inside wasm with the given message.
    set(
        "panicForTest",
        Closure::<dyn Fn(JsValue)>::new(|m: JsValue| {
            panic!("{}", m.as_string().unwrap_or_else(|| "test panic".into()))
        })
        .into_js_value(),
    );
    set(
        "lastRenderMs",
        Closure::<dyn Fn() -> JsValue>::new(|| JsValue::from(LAST_RENDER_MS.with(|c| c.get()))).into_js_value(),
    );
    set(
        "renders",
        Closure::<dyn Fn() -> JsValue>::new(|| {
            let o = js_sys::Object::new();
            RENDERS.with(|r| {
                for (n, c) in r.borrow().iter() {
                    let _ = js_sys::Reflect::set(&o, &JsValue::from_str(n), &JsValue::from(*c as f64));
                }
            });
            o.into()
        })
        .into_js_value(),
    );
    let _ = js_sys::Reflect::set(&window, &JsValue::from_str("splitbrain"), &obj);
}

/// Shows `text` in a red banner at the top of the page (created if needed).
pub fn show_error_banner(text: &str) {
    let Some(doc) = web_sys::window().and_then(|w| w.document()) else { return };
    let banner = match doc.get_element_by_id("panic-banner") {
        Some(b) => b,
        None => {
            let Ok(b) = doc.create_element("div") else { return };
            b.set_id("panic-banner");
            let _ = b.set_attribute("role", "alert");
            let _ = b.set_attribute("data-testid", "panic-banner");
            if let Some(body) = doc.body() {
                let _ = body.insert_before(&b, body.first_child().as_ref());
            }
            b
        }
    };
    banner.set_text_content(Some(&format!(
        "The simulation stopped with an internal error: {text}. Reload the page to start again; \
         please report this with the scenario and the step."
    )));
    if let Some(el) = banner.dyn_ref::<web_sys::HtmlElement>() {
        let _ = el.style().set_property("display", "block");
    }
}

/// A panic hook that writes the message into the page (and the console). Installed through
/// Yew, whose renderer would otherwise replace any hook with its own console-only one.
pub fn install_panic_hook() {
    yew::set_custom_panic_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "panic".to_string()
        };
        let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        let text = format!("{msg}{at}");
        web_sys::console::error_1(&JsValue::from_str(&format!("splitbrain panicked: {text}")));
        show_error_banner(&text);
    }));
}
