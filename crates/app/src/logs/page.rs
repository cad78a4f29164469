//! The logs page: the intake, and once an import has answered, its files, verdict, signatures,
//! timeline, unknown lines and fit. It starts one worker per import ([`crate::logs::client`]).
use crate::logs::client::{self, ImportRun, Reply};
use crate::logs::files::Files;
use crate::logs::fit::FitPanel;
use crate::logs::intake::Intake;
use crate::logs::limits::{check_total, human_bytes};
use crate::logs::signatures::Signatures;
use crate::logs::state::{Answer, LogsState, Phase, Source, SourceData};
use crate::logs::timeline::Timeline;
use crate::logs::unknown::Unknown;
use crate::logs::verdict::Verdict;
use std::rc::Rc;
use yew::prelude::*;

/// What changes the page's state.
pub enum Action {
    /// Files were added.
    AddFiles(Vec<Source>),
    /// An import of these inputs started as id.
    Start(u64, Rc<[Source]>),
    /// The worker said something about import id.
    Reply(u64, Reply),
    /// The import was refused before reading (too much).
    Refuse(String),
    /// Input `index` of the answer's inputs gets a broker.
    Broker(usize, Option<i32>),
    /// The running import was stopped.
    Cancel,
    /// Everything is forgotten.
    Clear,
}

impl Reducible for LogsState {
    type Action = Action;
    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        let mut s = (*self).clone();
        match action {
            Action::AddFiles(files) => s.sources.extend(files),
            Action::Start(id, inputs) => {
                s.run = id;
                s.phase = Phase::Starting;
                s.running = Some(inputs);
                s.refused = None;
            }
            Action::Reply(id, _) if id != s.run || !s.busy() => return self,
            Action::Reply(_, Reply::Progress(stage, done, total)) => s.phase = Phase::Working(stage, done, total),
            Action::Reply(_, Reply::Done(view, export)) => {
                let sources = s.running.take().unwrap_or_else(|| Rc::from(Vec::new()));
                s.answer = Some(Answer { view, export, sources });
                s.phase = Phase::Done;
            }
            Action::Reply(_, Reply::Failed(message)) => {
                s.running = None;
                s.phase = Phase::Failed(message);
            }
            Action::Refuse(message) => s.refused = Some(message),
            Action::Broker(i, broker) => {
                if let Some(src) = s.sources.get_mut(i) {
                    src.broker = broker;
                }
            }
            Action::Cancel => {
                s.running = None;
                s.phase = if s.answer.is_some() { Phase::Done } else { Phase::Idle };
            }
            Action::Clear => s = LogsState { run: s.run, ..LogsState::default() },
        }
        Rc::new(s)
    }
}

/// The inputs of an import: the files, then the paste (when it holds anything).
pub fn inputs(files: &[Source], paste: &str, paste_broker: Option<i32>) -> Vec<Source> {
    let mut all = files.to_vec();
    if !paste.trim().is_empty() {
        all.push(Source {
            name: "paste".into(),
            size: paste.len() as f64,
            data: SourceData::Text(paste.into()),
            broker: paste_broker,
        });
    }
    all
}

/// The last import in one sentence, for the status region: lines read and the core's verdict.
pub fn outcome(view: &crate::logs::view::LogsView) -> String {
    let r = &view.report;
    if r.lines == 0 {
        "Read: no log lines in these inputs.".into()
    } else {
        format!("Read {} lines from {} broker(s): {}.", r.lines, r.brokers.len(), r.verdict)
    }
}

/// The page.
#[function_component(LogsPage)]
pub fn logs_page() -> Html {
    let state = use_reducer(LogsState::default);
    let paste = use_state(String::new);
    let paste_broker = use_mut_ref(|| None::<i32>);
    let running = use_mut_ref(|| None::<(u64, ImportRun)>);
    let next_id = use_mut_ref(|| 0u64);

    let on_reply = {
        let (d, running) = (state.dispatcher(), running.clone());
        Callback::from(move |(id, r): (u64, Reply)| {
            if matches!(r, Reply::Done(..) | Reply::Failed(_)) {
                let mut h = running.borrow_mut();
                if h.as_ref().is_some_and(|(i, _)| *i == id) {
                    *h = None; // terminates the worker and frees its memory
                }
            }
            d.dispatch(Action::Reply(id, r));
        })
    };
    // Starts an import of `all`, unless there is nothing or too much.
    let start = {
        let (d, running, next_id) = (state.dispatcher(), running.clone(), next_id.clone());
        Rc::new(move |all: Vec<Source>| {
            if all.is_empty() {
                d.dispatch(Action::Refuse("Choose, drop or paste some log lines first.".into()));
                return;
            }
            let sizes: Vec<(String, f64)> = all.iter().map(|s| (s.name.clone(), s.size)).collect();
            if let Err(message) = check_total(&sizes) {
                d.dispatch(Action::Refuse(message));
                return;
            }
            let id = {
                let mut n = next_id.borrow_mut();
                *n += 1;
                *n
            };
            *running.borrow_mut() = None;
            let all: Rc<[Source]> = all.into();
            d.dispatch(Action::Start(id, all.clone()));
            match client::start(&LogsState::job(id, &all), &all, on_reply.clone()) {
                Ok(run) => *running.borrow_mut() = Some((id, run)),
                Err(message) => d.dispatch(Action::Reply(id, Reply::Failed(message))),
            }
        })
    };

    let on_files = {
        let (d, start, files, paste, pb) =
            (state.dispatcher(), start.clone(), state.sources.clone(), paste.clone(), paste_broker.clone());
        Callback::from(move |new: Vec<web_sys::File>| {
            let new: Vec<Source> = new
                .into_iter()
                .map(|f| Source { name: f.name(), size: f.size(), data: SourceData::File(f), broker: None })
                .collect();
            let mut all = files.clone();
            all.extend(new.iter().cloned());
            d.dispatch(Action::AddFiles(new));
            start(inputs(&all, &paste, *pb.borrow()));
        })
    };
    let on_example = {
        let on_files = on_files.clone();
        Callback::from(move |()| on_files.emit(crate::logs::example::seed_blog_files()))
    };
    let on_read = {
        let (start, files, paste, pb) = (start.clone(), state.sources.clone(), paste.clone(), paste_broker.clone());
        Callback::from(move |()| start(inputs(&files, &paste, *pb.borrow())))
    };
    let on_paste = {
        let paste = paste.clone();
        Callback::from(move |t: String| paste.set(t))
    };
    let on_clear = {
        let (d, paste, running) = (state.dispatcher(), paste.clone(), running.clone());
        Callback::from(move |()| {
            *running.borrow_mut() = None;
            paste.set(String::new());
            d.dispatch(Action::Clear);
        })
    };
    let on_cancel = {
        let (d, running) = (state.dispatcher(), running.clone());
        Callback::from(move |()| {
            *running.borrow_mut() = None;
            d.dispatch(Action::Cancel);
        })
    };
    let on_broker = {
        let (d, start, answer, files, pb) =
            (state.dispatcher(), start.clone(), state.answer.clone(), state.sources.len(), paste_broker.clone());
        Callback::from(move |(i, broker): (usize, Option<i32>)| {
            let Some(a) = &answer else { return };
            let mut all = a.sources.to_vec();
            let Some(src) = all.get_mut(i) else { return };
            src.broker = broker;
            if matches!(src.data, SourceData::Text(_)) {
                *pb.borrow_mut() = broker;
            } else if i < files {
                d.dispatch(Action::Broker(i, broker));
            }
            start(all);
        })
    };
    let on_export = {
        let (answer, d) = (state.answer.clone(), state.dispatcher());
        Callback::from(move |()| {
            let Some(a) = &answer else { return };
            if let Err(e) =
                crate::components::export::download("splitbrain-logs-report.json", "application/json", &a.export)
            {
                d.dispatch(Action::Refuse(format!("The report {e}.")));
            }
        })
    };

    let chosen: Vec<(String, String)> = state.sources.iter().map(|s| (s.name.clone(), human_bytes(s.size))).collect();
    html! {
        <div class="logs-page" data-testid="logs-root">
            <header class="top">
                <h1><span class="logo" aria-hidden="true">{"◐"}</span>{"splitbrain"}<span class="sub">{" · your own incident"}</span></h1>
                <nav class="pickers" aria-label="Pages"><a class="logs-nav" href="index.html">{"Back to the playground"}</a></nav>
            </header>
            <main class="logs-main">
                <Intake paste={AttrValue::from((*paste).clone())} {on_paste} {on_files} {on_read} {on_clear} {on_cancel} {on_example}
                    {chosen} progress={state.progress()} outcome={state.answer.as_ref().map(|a| outcome(&a.view))} />
                if let Some(message) = &state.refused {
                    <p class={classes!("notice", "error")} role="alert" data-testid="logs-refused">{ message.clone() }</p>
                }
                if let Phase::Failed(message) = &state.phase {
                    <p class={classes!("notice", "error")} role="alert" data-testid="logs-error">{ message.clone() }</p>
                }
                if let Some(a) = &state.answer {
                    <div class="logs-answer" data-testid="logs-answer" aria-busy={state.busy().to_string()}>
                        <Verdict view={a.view.clone()} on_export={on_export} />
                        <Files sources={a.sources.clone()} view={a.view.clone()} {on_broker} busy={state.busy()} />
                        <Signatures view={a.view.clone()} />
                        <Timeline view={a.view.clone()} />
                        <FitPanel view={a.view.clone()} />
                        <Unknown view={a.view.clone()} />
                    </div>
                }
            </main>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::protocol::Stage;
    use crate::logs::view::LogsView;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn text(name: &str) -> Source {
        Source { name: name.into(), size: 1.0, data: SourceData::Text("x".into()), broker: None }
    }

    #[test]
    fn the_paste_joins_the_files_only_when_it_holds_something() {
        let files = [text("a.log")];
        assert_eq!(inputs(&files, "  \n", None).len(), 1);
        let all = inputs(&files, "[2018-03-10 15:48:30,006] INFO x", Some(3));
        assert_eq!((all[1].name.as_str(), all[1].broker, all[1].size), ("paste", Some(3), 32.0));
    }

    #[test]
    fn only_the_current_import_s_replies_count() {
        let s = Rc::new(LogsState::default());
        let s = s.reduce(Action::Start(1, Rc::from(vec![text("a.log")])));
        let s = s.reduce(Action::Start(2, Rc::from(vec![text("a.log"), text("b.log")])));
        let s = s.reduce(Action::Reply(1, Reply::Failed("old".into())));
        assert_eq!(s.phase, Phase::Starting, "a stopped import's reply is ignored");
        let s = s.reduce(Action::Reply(2, Reply::Progress(Stage::Parsing, 5, 10)));
        assert_eq!(s.phase, Phase::Working(Stage::Parsing, 5, 10));
        let s = s.reduce(Action::Reply(2, Reply::Done(Rc::new(LogsView::default()), "{}".into())));
        assert_eq!(s.phase, Phase::Done);
        assert_eq!(s.answer.as_ref().unwrap().sources.len(), 2, "the answer keeps the inputs it read");
        let s = s.reduce(Action::Reply(2, Reply::Failed("late".into())));
        assert_eq!(s.phase, Phase::Done, "nothing after the answer");
        let s = s.reduce(Action::Start(3, Rc::from(vec![text("a.log")])));
        let s = s.reduce(Action::Cancel);
        assert_eq!(s.phase, Phase::Done, "stopping keeps the last answer");
        let s = s.reduce(Action::Clear);
        assert!(s.answer.is_none() && s.sources.is_empty() && s.run == 3);
    }

    #[test]
    fn the_outcome_says_lines_and_the_verdict() {
        let mut v = LogsView::default();
        assert_eq!(outcome(&v), "Read: no log lines in these inputs.");
        v.report.lines = 6;
        v.report.brokers = vec![1, 2];
        v.report.verdict = "no split-brain signature".into();
        assert_eq!(outcome(&v), "Read 6 lines from 2 broker(s): no split-brain signature.");
    }
}
