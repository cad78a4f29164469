//! "What your tools would show": Kafka's own tools pointed at the run at the step shown, in a
//! collapsed panel. The text is the core's (`Timeline::tools_walk`, then the tool's renderer),
//! byte for byte what `splitbrain describe --step N --as TOOL` prints; the page only picks the
//! tool and its options. Nothing is computed while the panel is closed; while it is open, a step
//! forward costs one step of the core's walk (the walk is kept and resumed).
use crate::model::Model;
use splitbrain_sim::timeline::ToolsWalk;
use splitbrain_sim::tools::{Invocation, Options, Tool};
use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, HtmlSelectElement, KeyboardEvent};
use yew::prelude::*;

/// What the panel shows for one (run, step, tool, options).
struct Shown {
    step: usize,
    invocation: Invocation,
    /// The tool's stdout, or why the tool cannot run here (the core's sentence).
    output: Result<String, String>,
    /// The brokers of the run at the step, and whether each is running (for "ask broker").
    brokers: Vec<(i32, bool)>,
}

/// Props: the page's run.
#[derive(Properties, PartialEq)]
pub struct ToolsPanelProps {
    /// The run (re-rendered when its `rev` changes).
    pub model: UseReducerHandle<Model>,
}

fn tab_id(name: &str) -> String {
    format!("tool-tab-{name}")
}

/// The panel.
#[function_component(ToolsPanel)]
pub fn tools_panel(p: &ToolsPanelProps) -> Html {
    let open = use_state_eq(|| false);
    let tool = use_state_eq(|| 0usize);
    let unavailable = use_state_eq(|| false);
    let broker = use_state_eq(|| None::<i32>);
    // The last walk, resumed by the core when it belongs to the same run.
    let walk = use_mut_ref(|| None::<ToolsWalk>);

    let names = Tool::NAMES;
    let sel = (*tool).min(names.len() - 1);
    let selected = Tool::parse(names[sel]).ok();
    let opts = Options { unavailable: *unavailable, under_replicated: false, broker: *broker };
    let shown = {
        let tl = p.model.tl.clone();
        let walk = walk.clone();
        let opts = opts.clone();
        use_memo((*open, sel, *unavailable, *broker, p.model.rev), move |(open, ..)| {
            if !*open {
                return None;
            }
            let tool = selected?;
            let tl = tl.try_borrow().ok()?;
            let step = tl.cursor();
            let w = tl.tools_walk(step, walk.borrow_mut().take())?;
            let world = w.walk().world();
            let shown = Shown {
                step,
                invocation: w.invocation(tool, &opts),
                output: w.render(tool, &opts),
                brokers: world.brokers().map(|b| (b.id, b.alive)).collect(),
            };
            *walk.borrow_mut() = Some(w);
            Some(shown)
        })
    };

    let ontoggle = {
        let open = open.clone();
        Callback::from(move |e: Event| {
            if let Some(d) = e.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                open.set(d.has_attribute("open"));
            }
        })
    };
    // Arrow keys move along the tabs (and focus the new one), Home/End to the ends; the keys go
    // no further, so the page's ←/→ stepping does not also take them.
    let onkeydown = {
        let tool = tool.clone();
        Callback::from(move |e: KeyboardEvent| {
            let n = names.len();
            let next = match e.key().as_str() {
                "ArrowRight" | "ArrowDown" => (sel + 1) % n,
                "ArrowLeft" | "ArrowUp" => (sel + n - 1) % n,
                "Home" => 0,
                "End" => n - 1,
                _ => return,
            };
            e.prevent_default();
            e.stop_propagation();
            tool.set(next);
            let el = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.get_element_by_id(&tab_id(names[next])))
                .and_then(|el| el.dyn_into::<HtmlElement>().ok());
            if let Some(el) = el {
                let _ = el.focus();
            }
        })
    };
    let on_unavailable = {
        let unavailable = unavailable.clone();
        Callback::from(move |e: Event| {
            unavailable.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().checked());
        })
    };
    let on_broker = {
        let broker = broker.clone();
        Callback::from(move |e: Event| {
            broker.set(e.target_unchecked_into::<HtmlSelectElement>().value().parse::<i32>().ok());
        })
    };
    let is_topics = matches!(selected, Some(Tool::Topics | Tool::TopicsAdmin));
    let asks_broker = matches!(selected, Some(Tool::TopicsAdmin | Tool::Kcat));

    html! {
        <details class="panel tools-panel" data-testid="tools-panel" open={*open} {ontoggle}>
            <summary data-testid="tools-summary">
                <h2>{"What your tools would show"}</h2>
                <span class="dim small">{" Kafka's own tools at the step shown"}</span>
            </summary>
            <div class="tool-tabs" role="tablist" aria-label="Tool" data-testid="tool-tabs" {onkeydown}>
                { for names.iter().enumerate().map(|(i, name)| {
                    let tool = tool.clone();
                    html! {
                        <button type="button" role="tab" id={tab_id(name)} aria-selected={(i == sel).to_string()}
                            aria-controls="tool-panel" tabindex={if i == sel { "0" } else { "-1" }} data-tool={*name}
                            onclick={Callback::from(move |_: MouseEvent| tool.set(i))}>{*name}</button>
                    }
                }) }
            </div>
            <div id="tool-panel" class="tool-panel" role="tabpanel" aria-labelledby={tab_id(names[sel])} tabindex="0" data-testid="tool-panel">
                if is_topics || asks_broker {
                    <div class="tool-opts small">
                        if is_topics {
                            <label><input type="checkbox" checked={*unavailable} onchange={on_unavailable} data-testid="tool-unavailable" />{" --unavailable-partitions"}</label>
                        }
                        if asks_broker {
                            <label>{"ask broker "}
                                <select onchange={on_broker} aria-label="The broker the client tool asks" data-testid="tool-broker">
                                    <option value="" selected={broker.is_none()}>{"the lowest-numbered running one"}</option>
                                    { for (*shown).as_ref().map(|s| s.brokers.clone()).unwrap_or_default().into_iter().map(|(id, alive)| html! {
                                        <option value={id.to_string()} selected={*broker == Some(id)}>
                                            {if alive { format!("broker {id}") } else { format!("broker {id} (not running)") }}
                                        </option>
                                    }) }
                                </select>
                            </label>
                        }
                    </div>
                }
                if let Some(s) = (*shown).as_ref() {
                    <p class="tool-cmd"><code data-testid="tool-command">{format!("$ {}", s.invocation.command)}</code></p>
                    <p class="small dim" data-testid="tool-source">{format!("At step {}: {}.", s.step, s.invocation.source)}</p>
                    { match &s.output {
                        Ok(text) if text.is_empty() => html! {
                            <p class="small dim" data-testid="tool-empty">{"(the tool prints nothing here)"}</p>
                        },
                        Ok(_) => html! {},
                        Err(why) => html! { <p class="tool-refusal" role="status" data-testid="tool-refusal">{why.clone()}</p> },
                    } }
                    <pre class="tool-out" data-testid="tool-output" data-tool={names[sel]} data-step={s.step.to_string()}>
                        {s.output.as_ref().map(String::as_str).unwrap_or("")}
                    </pre>
                }
            </div>
        </details>
    }
}
