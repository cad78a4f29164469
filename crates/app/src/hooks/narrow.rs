//! Whether the window is narrow (a phone held upright), followed as it is resized.
use yew::prelude::*;

/// Narrower than this (CSS pixels), the graph uses [`crate::geometry::Layout::tall`]: a phone held upright.
pub const NARROW_PX: f64 = 600.0;

fn is_narrow() -> bool {
    // Rendered at build time (bin/prerender.rs) there is no window: the wide layout.
    cfg!(target_arch = "wasm32")
        && web_sys::window().and_then(|w| w.inner_width().ok()).and_then(|v| v.as_f64()).is_some_and(|w| w < NARROW_PX)
}

/// Whether the window is narrow, followed as it is resized (re-renders only when it flips).
#[hook]
pub fn use_narrow() -> bool {
    let narrow = use_state_eq(is_narrow);
    {
        let narrow = narrow.clone();
        use_effect_with((), move |_| {
            let listener = web_sys::window()
                .map(|w| gloo::events::EventListener::new(&w, "resize", move |_| narrow.set(is_narrow())));
            move || drop(listener)
        });
    }
    *narrow
}
