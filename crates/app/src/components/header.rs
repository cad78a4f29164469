//! The header: scenario, behaviour, side-by-side mode, scenario file, seed and reset.
use crate::model::{Action, Model};
use crate::text::mode_label;
use splitbrain_sim::scenario::{builtin_names, Mode};
use web_sys::{HtmlInputElement, HtmlSelectElement};
use yew::prelude::*;

/// Props of [`Header`].
#[derive(Properties, PartialEq)]
pub struct HeaderProps {
    /// The run.
    pub model: UseReducerHandle<Model>,
    /// Sends actions to the reducer.
    pub dispatch: Callback<Action>,
}

/// The page header.
#[function_component(Header)]
pub fn header(p: &HeaderProps) -> Html {
    let reader = use_mut_ref(|| None::<gloo::file::callbacks::FileReader>);
    let names = builtin_names();
    let on_pick = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            d.emit(Action::LoadBuiltin(e.target_unchecked_into::<HtmlSelectElement>().value()))
        })
    };
    let on_file = {
        let d = p.dispatch.clone();
        let reader = reader.clone();
        Callback::from(move |e: Event| {
            let input = e.target_unchecked_into::<HtmlInputElement>();
            let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
            input.set_value("");
            let name = file.name();
            if file.size() > 1_000_000.0 {
                d.emit(Action::FileError(format!(
                    "'{name}' is {} KB; scenario files are limited to 1000 KB. Still showing the current run.",
                    (file.size() / 1024.0) as u64
                )));
                return;
            }
            let d2 = d.clone();
            let f = gloo::file::File::from(file);
            *reader.borrow_mut() = Some(gloo::file::callbacks::read_as_text(&f, move |res| match res {
                Ok(text) => d2.emit(Action::LoadJson { name, text }),
                Err(err) => d2
                    .emit(Action::FileError(format!("Could not read '{name}': {err}. Still showing the current run."))),
            }));
        })
    };
    let on_mode = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            match Mode::parse(&v) {
                Ok(m) => d.emit(Action::SetMode(m)),
                Err(err) => d.emit(Action::FileError(err)),
            }
        })
    };
    let on_compare = {
        let d = p.dispatch.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<HtmlSelectElement>().value();
            d.emit(Action::SetCompare(Mode::parse(&v).ok()))
        })
    };
    let on_seed = {
        let d = p.dispatch.clone();
        Callback::from(move |e: InputEvent| {
            d.emit(Action::SeedText(e.target_unchecked_into::<HtmlInputElement>().value()))
        })
    };
    let on_seed_key = {
        let d = p.dispatch.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" {
                d.emit(Action::Reset)
            }
        })
    };
    let on_reset = {
        let d = p.dispatch.clone();
        Callback::from(move |_| d.emit(Action::Reset))
    };
    let on_random = {
        let d = p.dispatch.clone();
        Callback::from(move |_| {
            let mut b = [0u8; 8];
            match getrandom::getrandom(&mut b) {
                Ok(()) => d.emit(Action::RandomSeed(u64::from_le_bytes(b) % 1_000_000_000)),
                Err(e) => d.emit(Action::FileError(format!("No random numbers available: {e}"))),
            }
        })
    };
    let m = &p.model;
    let is_builtin = names.iter().any(|n| *n == m.source);
    html! {
        <header class="top">
            <h1><span class="logo" aria-hidden="true">{"◐"}</span>{"splitbrain"}<span class="sub">{" · Kafka controller split brain, step by step"}</span></h1>
            <div class="pickers">
                <label>{"scenario "}
                    <select onchange={on_pick} aria-label="Built-in scenario" data-testid="scenario-select">
                        if !is_builtin { <option value="" selected=true disabled=true>{format!("{} (file)", m.source)}</option> }
                        { for names.iter().map(|n| html!{ <option value={n.clone()} selected={*n == m.source}>{n.clone()}</option> }) }
                    </select>
                </label>
                <label>{"behaviour "}
                    <select onchange={on_mode} aria-label="Kafka behaviour the brokers run" data-testid="mode-select">
                        { for Mode::ALL.into_iter().map(|x| html!{
                            <option value={x.name()} selected={m.mode == x}>{mode_label(x)}</option>
                        }) }
                    </select>
                </label>
                <label>{"side by side with "}
                    <select onchange={on_compare} aria-label="Show another behaviour side by side, in lockstep" data-testid="compare-select">
                        <option value="none" selected={m.compare_mode.is_none()}>{"nothing"}</option>
                        { for Mode::ALL.into_iter().filter(|x| *x != m.mode).map(|x| html!{
                            <option value={x.name()} selected={m.compare_mode == Some(x)}>{x.name()}</option>
                        }) }
                    </select>
                </label>
                <label class="file-btn">{"open JSON…"}
                    <input type="file" accept=".json,application/json" onchange={on_file} aria-label="Open a scenario JSON file" data-testid="scenario-file" />
                </label>
                <label>{"seed "}
                    <input type="text" inputmode="numeric" class="seed" value={m.seed_text.clone()} oninput={on_seed} onkeydown={on_seed_key} aria-label="Seed" data-testid="seed" />
                </label>
                <button onclick={on_reset} aria-label="Reset: restart the scenario with this seed" data-testid="reset">{"Reset"}</button>
                <button onclick={on_random} aria-label="Restart with a new random seed">{"random seed"}</button>
                <a href="logs.html" class="logs-link" data-testid="logs-link">{"Your logs"}</a>
            </div>
        </header>
    }
}
