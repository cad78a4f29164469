//! The one reducer: the timeline, the scenario, the seed, playback and the last message. The
//! core decides every piece of Kafka behaviour; this only turns user intent into core calls.
use splitbrain_sim::event::Event;
use splitbrain_sim::scenario::{builtins, Mode, Scenario};
use splitbrain_sim::share::Link;
use splitbrain_sim::{Command, Direction, Timeline};
use std::cell::RefCell;
use std::rc::Rc;
use yew::Reducible;

/// The scenario shown first.
pub const DEFAULT_SCENARIO: &str = "seed-incident";

/// Steps computed at once: when a run opens (every built-in fits whole), when the user acts, and
/// each time playing, stepping or End reaches the end of what is computed. The future beyond is
/// computed as it is needed, never all up front (a link may carry `end_ms` = 10^15), and the run
/// stops at the core's [`splitbrain_sim::Limits`].
pub const SLICE: usize = 5_000;

/// A line of feedback above the page.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Notice {
    /// Error (something was refused) or info.
    pub error: bool,
    /// The text.
    pub text: String,
}

/// What a drag across a link cuts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum CutMode {
    /// Both directions.
    #[default]
    Both,
    /// Only requests: broker → ZooKeeper, consumer → broker, higher broker id → lower.
    Requests,
    /// Only replies and notifications: ZooKeeper → broker, broker → consumer, lower → higher.
    Replies,
}

impl CutMode {
    /// The core direction; the core resolves requests and replies per link, in every mode.
    pub fn direction(self) -> Direction {
        match self {
            CutMode::Both => Direction::Both,
            CutMode::Requests => Direction::Requests,
            CutMode::Replies => Direction::Replies,
        }
    }
    /// Value for the select.
    pub fn key(self) -> &'static str {
        match self {
            CutMode::Both => "both",
            CutMode::Requests => "requests",
            CutMode::Replies => "replies",
        }
    }
    /// From the select's value.
    pub fn from_key(s: &str) -> CutMode {
        match s {
            "requests" => CutMode::Requests,
            "replies" => CutMode::Replies,
            _ => CutMode::Both,
        }
    }
}

pub use splitbrain_sim::scenario::StepCaption;

/// Everything the page shows, around the core's [`Timeline`].
#[derive(Clone)]
pub struct Model {
    /// The run. Shared and mutated in place; `rev` tells renders apart.
    pub tl: Rc<RefCell<Timeline>>,
    /// Bumped on every change.
    pub rev: u64,
    /// The events of the run (rebuilt only when the run's history changes).
    pub events: Rc<Vec<Event>>,
    /// Captions by step.
    pub captions: Rc<Vec<StepCaption>>,
    /// The scenario's name (built-in name or file name).
    pub source: String,
    /// Seed in use.
    pub seed: u64,
    /// The seed input's text.
    pub seed_text: String,
    /// Feedback.
    pub notice: Option<Notice>,
    /// Playing.
    pub playing: bool,
    /// Steps per second while playing.
    pub speed: u32,
    /// What drags cut.
    pub cut_mode: CutMode,
    /// What the last undo would revert (the last gesture, which may apply several commands; the
    /// timeline keeps the undo itself), for the button's label.
    pub undo_label: String,
    /// The step of the user's first command, if any (the run differs from the scenario's after it).
    pub forked_at: Option<usize>,
    /// Which Kafka behaviour the brokers run.
    pub mode: Mode,
    /// The behaviour shown side by side, if any.
    pub compare_mode: Option<Mode>,
    /// The same scenario and faults (by virtual time) under `compare_mode`, computed a [`SLICE`] at a time; or
    /// why it could not be built.
    pub compare: Option<Result<Rc<Timeline>, String>>,
}

impl PartialEq for Model {
    fn eq(&self, o: &Self) -> bool {
        self.rev == o.rev && Rc::ptr_eq(&self.tl, &o.tl)
    }
}

/// User intents.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// One step forward.
    Forward,
    /// One step back.
    Back,
    /// Jump to a step.
    Seek(usize),
    /// Jump to the end of the run.
    End,
    /// Jump to the next step with a story caption.
    NextCaption,
    /// Jump to the previous step with a story caption.
    PrevCaption,
    /// Apply commands at the cursor (one gesture; forks when in the past).
    Apply(Vec<Command>),
    /// Restore the timeline from before the last gesture.
    Undo,
    /// Play / pause.
    TogglePlay,
    /// Pause.
    Pause,
    /// A playback tick.
    Tick,
    /// Steps per second.
    SetSpeed(u32),
    /// Drag mode.
    SetCutMode(CutMode),
    /// Load a built-in.
    LoadBuiltin(String),
    /// Load a scenario file's text.
    LoadJson {
        /// File name.
        name: String,
        /// Content.
        text: String,
    },
    /// A file could not be read.
    FileError(String),
    /// The seed input changed.
    SeedText(String),
    /// Restart the scenario with the seed in the input.
    Reset,
    /// Restart the scenario with a fresh random seed.
    RandomSeed(u64),
    /// Restart the scenario (same seed) with another Kafka behaviour.
    SetMode(Mode),
    /// Show another behaviour side by side (or stop).
    SetCompare(Option<Mode>),
    /// Open a permalink fragment (the address bar's fragment changed).
    OpenLink(String),
    /// Hide the notice.
    Dismiss,
}

fn builtin_scenario(name: &str) -> Result<Scenario, String> {
    match builtins().into_iter().find(|(n, _)| *n == name) {
        None => Err(format!("there is no built-in scenario named '{name}'")),
        Some((_, json)) => Scenario::from_json(json).map_err(|e| format!("built-in scenario '{name}' is invalid: {e}")),
    }
}

/// A scenario that any version of the core accepts, used only when every built-in fails.
const FALLBACK_JSON: &str = r#"{"name":"empty","description":"Three brokers and no faults (every built-in failed to load).","cluster":{"brokers":[1,2,3]}}"#;

/// The captions of `mode` resolved to their steps (the core's [`Scenario::caption_steps`]).
pub fn resolve_captions(scenario: &Scenario, events: &[Event], until: Option<usize>, mode: Mode) -> Vec<StepCaption> {
    scenario.caption_steps(events, until, mode)
}

impl Model {
    /// The page at load: the default scenario, computed (a [`SLICE`]), at step 0.
    pub fn initial() -> Model {
        Self::initial_with(DEFAULT_SCENARIO)
    }

    /// A model for a built-in, falling back to any other built-in (with a notice) if it fails.
    pub fn initial_with(name: &str) -> Model {
        let mut problems = Vec::new();
        let mut names: Vec<String> = vec![name.to_string()];
        names.extend(builtins().into_iter().map(|(n, _)| n.to_string()).filter(|n| n != name));
        for n in names {
            match builtin_scenario(&n).and_then(|s| Timeline::new(s, None).map_err(|e| e.to_string())) {
                Ok(tl) => {
                    let mut m = Model::from_timeline(tl, n);
                    if !problems.is_empty() {
                        m.notice = Some(Notice { error: true, text: problems.join("; ") });
                    }
                    return m;
                }
                Err(e) => problems.push(e),
            }
        }
        let tl = Timeline::new(Scenario::from_json(FALLBACK_JSON).expect("the fallback scenario is valid"), None)
            .expect("the fallback scenario builds");
        let mut m = Model::from_timeline(tl, "empty".into());
        m.notice = Some(Notice { error: true, text: problems.join("; ") });
        m
    }

    /// A model for a run restored from a permalink: its timeline (cursor at the saved step), the
    /// scenario's name and the mode it ran under.
    pub fn from_restored(tl: Timeline, source: String, mode: Mode) -> Model {
        let cursor = tl.cursor();
        let mut m = Model::from_timeline(tl, source);
        m.mode = mode;
        m.refresh_events();
        m.tl.borrow_mut().seek(cursor);
        m.notice = unreached_notice(&m.tl.borrow());
        m
    }

    /// The same model with another behaviour shown side by side (none, or the main one: off).
    pub fn with_compare(mut self, compare: Option<Mode>) -> Model {
        self.compare_mode = compare.filter(|c| *c != self.mode);
        self.refresh_compare();
        self
    }

    fn from_timeline(mut tl: Timeline, source: String) -> Model {
        tl.compute(SLICE);
        let seed = tl.view().seed;
        let events = Rc::new(tl.events().to_vec());
        let forked_at = tl.user_commands().first().map(|u| u.at_step as usize);
        let mode = tl.world_at(0).map(|w| w.mode()).unwrap_or_default();
        let captions = Rc::new(resolve_captions(tl.scenario(), &events, forked_at, mode));
        Model {
            mode,
            compare_mode: None,
            compare: None,
            forked_at,
            tl: Rc::new(RefCell::new(tl)),
            rev: 0,
            events,
            captions,
            source,
            seed,
            seed_text: seed.to_string(),
            notice: None,
            playing: false,
            speed: 8,
            cut_mode: CutMode::Both,
            undo_label: String::new(),
        }
    }

    /// Rebuilds the side-by-side run: the scenario with the user's faults at the times they
    /// were made, under the other behaviour. Called whenever the run's history changes.
    fn refresh_compare(&mut self) {
        self.compare = self.compare_mode.map(|mode| {
            let s = self.tl.borrow().scenario_with_user_faults_by_time();
            Timeline::with_mode(s, Some(self.seed), mode)
                .map(|mut t| {
                    t.compute(SLICE);
                    Rc::new(t)
                })
                .map_err(|e| e.to_string())
        });
    }

    /// The side-by-side run's step at the virtual time the main run shows.
    pub fn compare_step(&self) -> Option<(Mode, Rc<Timeline>, usize)> {
        let (mode, t) = (self.compare_mode?, self.compare.as_ref()?.as_ref().ok()?.clone());
        let now = self.tl.borrow().world().now();
        let k = t.step_at_time(now);
        Some((mode, t, k))
    }

    /// After a move: when the cursor has reached the end of what is computed and the run goes
    /// on, computes the next [`SLICE`] (if `ahead`); takes in the events computed since the last
    /// refresh.
    fn grow(&mut self, ahead: bool) {
        {
            let mut tl = self.tl.borrow_mut();
            if ahead && tl.cursor() >= tl.len() && !tl.is_complete() {
                tl.compute(SLICE);
            }
            if tl.len() == self.events.len() {
                return;
            }
        }
        self.refresh_events();
    }

    /// A note on how much of the run is computed, when it is not all of it: the bound it was cut
    /// at (which limit, after how many steps), or that the future is computed as it is needed.
    pub fn run_note(&self) -> Option<String> {
        let tl = self.tl.borrow();
        let end_ms = tl.world_at(0).map(|w| w.config().end_ms).unwrap_or(0);
        match tl.stopped_by() {
            Some(b) => Some(format!(
                "This run was cut at {} after {} steps: the scenario goes on to {end_ms} ms, past what a page holds.",
                b.describe(),
                tl.len()
            )),
            None if !tl.is_complete() => Some(format!(
                "{} steps computed so far; the run goes on to {end_ms} ms and is computed as you step or play (End computes {SLICE} more).",
                tl.len()
            )),
            None => None,
        }
    }

    fn refresh_events(&mut self) {
        self.refresh_compare();
        let tl = self.tl.borrow();
        self.events = Rc::new(tl.events().to_vec());
        self.forked_at = tl.user_commands().first().map(|u| u.at_step as usize);
        // Each caption tells the story of one mode; other modes run differently.
        self.captions = Rc::new(resolve_captions(tl.scenario(), &self.events, self.forked_at, self.mode));
    }

    /// Loads a scenario in the behaviour the core opens it in
    /// ([`splitbrain_sim::share::opening_mode`]); a refused scenario changes nothing.
    fn load_in_own_mode(&mut self, s: Result<Scenario, String>, name: String, what: &str) {
        let old = self.mode;
        if let Ok(next) = &s {
            self.mode = splitbrain_sim::share::opening_mode(next, self.tl.borrow().scenario(), old);
        }
        self.load(s, name, None, what);
        if self.notice.as_ref().map(|n| n.error).unwrap_or(false) {
            self.mode = old;
        }
    }

    /// The modes the scenario's captions tell a story for, in `Mode::ALL` order.
    pub fn story_modes(&self) -> Vec<Mode> {
        let tl = self.tl.borrow();
        let s = tl.scenario();
        Mode::ALL.into_iter().filter(|m| s.captions.iter().any(|c| s.caption_mode(c) == *m)).collect()
    }

    /// The step shown.
    pub fn cursor(&self) -> usize {
        self.tl.borrow().cursor()
    }

    /// The caption at or before the cursor.
    pub fn caption_now(&self) -> Option<&StepCaption> {
        let c = self.cursor();
        self.captions.iter().rev().find(|x| x.step <= c)
    }

    fn replace(&mut self, tl: Timeline, source: String, notice: Option<Notice>) {
        let old_rev = self.rev;
        *self = Model::from_timeline(tl, source);
        self.rev = old_rev + 1;
        self.notice = notice;
    }

    fn load(&mut self, scenario: Result<Scenario, String>, source: String, seed: Option<u64>, what: &str) {
        let keep = self.source.clone();
        let mode = self.mode;
        match scenario.and_then(|s| Timeline::with_mode(s, seed, mode).map_err(|e| e.to_string())) {
            Ok(tl) => {
                let (speed, cut, compare) = (self.speed, self.cut_mode, self.compare_mode);
                self.replace(tl, source, None);
                self.notice = unreached_notice(&self.tl.borrow());
                self.speed = speed;
                self.cut_mode = cut;
                self.mode = mode;
                self.compare_mode = compare.filter(|c| *c != mode);
                self.refresh_events();
            }
            Err(e) => {
                self.playing = false;
                self.notice =
                    Some(Notice { error: true, text: format!("Could not load {what}: {e}. Still showing '{keep}'.") });
            }
        }
    }
}

/// A notice for faults a scenario placed after steps the run never reaches (nothing is dropped
/// silently).
fn unreached_notice(tl: &Timeline) -> Option<Notice> {
    let last = tl.world_at(tl.len()).filter(|w| w.finished())?;
    let missed = last.unreached_step_faults();
    let (step, cmd) = missed.first()?;
    Some(Notice {
        error: false,
        text: format!(
            "{} fault(s) placed by step were not applied because the run ends after {} steps (first: '{}' after step {step}).",
            missed.len(),
            last.step_count(),
            cmd.describe()
        ),
    })
}

/// Describes a command for the user, with the nodes written as on the graph.
pub fn describe(cmd: &Command) -> String {
    cmd.describe()
}

/// Permalinks: the core's [`splitbrain_sim::share::Link`] decodes, checks and encodes; the model
/// only says what a link opens (or why it cannot) and which link the run it shows has.
impl Model {
    /// The model for a fragment: the run it describes, or the default scenario with a message saying
    /// why the link could not be opened. An empty fragment gives the default scenario silently.
    pub fn for_fragment(fragment: &str) -> Model {
        if fragment.trim().trim_start_matches('#').is_empty() {
            return Model::initial();
        }
        match Link::decode(fragment).and_then(|l| l.restore().map(|t| (l, t))) {
            Ok((link, tl)) => {
                let source = link.builtin_opened().map(String::from).unwrap_or_else(|| tl.scenario().name.clone());
                let mut m = Model::from_restored(tl, source, link.mode).with_compare(link.compare);
                if let Some(text) = link.notice() {
                    m.notice = Some(Notice { error: false, text });
                }
                m
            }
            Err(e) => {
                let mut m = Model::initial();
                m.notice = Some(Notice {
                    error: true,
                    text: format!("This link could not be opened: {e}. Showing the default scenario instead."),
                });
                m
            }
        }
    }

    /// The fragment (without `#`) for the run the model shows.
    pub fn fragment(&self) -> String {
        let mut l = Link::of(&self.tl.borrow(), self.mode);
        l.compare = self.compare_mode;
        l.encode()
    }
}

impl Reducible for Model {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        crate::debug::mark_dispatch();
        let mut m = (*self).clone();
        m.rev += 1;
        // End computes its own slice; any other move that reaches the end computes the next.
        let ahead = !matches!(action, Action::End);
        match action {
            Action::Forward => {
                if m.tl.borrow_mut().forward().is_none() {
                    m.playing = false;
                }
            }
            Action::Back => {
                m.tl.borrow_mut().back();
            }
            Action::Seek(s) => {
                m.tl.borrow_mut().seek(s);
            }
            Action::End => {
                {
                    let mut tl = m.tl.borrow_mut();
                    // The end of what is computed, one more slice on: never the whole future at once.
                    tl.compute(SLICE);
                    let n = tl.len();
                    tl.seek(n);
                }
                m.playing = false;
            }
            Action::NextCaption => {
                let c = m.cursor();
                if let Some(x) = m.captions.iter().find(|x| x.step > c) {
                    m.tl.borrow_mut().seek(x.step);
                } else {
                    m.notice = Some(Notice { error: false, text: "No story caption after this step.".into() });
                }
            }
            Action::PrevCaption => {
                let c = m.cursor();
                if let Some(x) = m.captions.iter().rev().find(|x| x.step < c) {
                    m.tl.borrow_mut().seek(x.step);
                }
            }
            Action::Apply(cmds) => {
                if cmds.is_empty() {
                    return self;
                }
                // One gesture, one change: the core validates each command once and keeps one undo.
                let (forked, at, applied) = {
                    let mut tl = m.tl.borrow_mut();
                    let (forked, at) = (tl.cursor() < tl.len(), tl.cursor());
                    let applied = tl.apply_all(&cmds);
                    if applied.applied > 0 {
                        tl.compute(SLICE);
                    }
                    (forked, at, applied)
                };
                let refused: Vec<usize> = applied.refused.iter().map(|(i, _)| *i).collect();
                let done: Vec<String> =
                    cmds.iter().enumerate().filter(|(i, _)| !refused.contains(i)).map(|(_, c)| describe(c)).collect();
                let errors: Vec<String> =
                    applied.refused.iter().map(|(i, e)| format!("{}: {e}", describe(&cmds[*i]))).collect();
                if applied.applied > 0 {
                    m.undo_label = done.join(", ");
                    m.refresh_events();
                }
                m.notice = if !errors.is_empty() {
                    Some(Notice { error: true, text: format!("Refused: {}", errors.join("; ")) })
                } else if forked {
                    Some(Notice {
                        error: false,
                        text: format!(
                            "{} at step {at}: the old future was discarded (Undo restores it).",
                            done.join(", ")
                        ),
                    })
                } else {
                    None
                };
            }
            Action::Undo => {
                let undone = m.tl.borrow_mut().undo();
                if undone {
                    m.notice = Some(Notice { error: false, text: format!("Undone: {}.", m.undo_label) });
                    m.undo_label.clear();
                    m.refresh_events();
                } else {
                    m.notice = Some(Notice { error: false, text: "Nothing to undo.".into() });
                }
            }
            Action::TogglePlay => {
                if !m.playing && m.tl.borrow_mut().at_end() {
                    m.tl.borrow_mut().seek(0);
                }
                m.playing = !m.playing;
            }
            Action::Pause => m.playing = false,
            Action::Tick => {
                if !m.playing {
                    return self;
                }
                if m.tl.borrow_mut().forward().is_none() {
                    m.playing = false;
                }
            }
            Action::SetSpeed(s) => m.speed = s.clamp(1, 200),
            Action::SetCutMode(c) => m.cut_mode = c,
            Action::LoadBuiltin(name) => {
                let s = builtin_scenario(&name);
                m.load_in_own_mode(s, name.clone(), &format!("built-in scenario '{name}'"));
            }
            Action::LoadJson { name, text } => {
                let s = Scenario::from_json(&text).map_err(|e| e.to_string());
                m.load_in_own_mode(s, name.clone(), &format!("'{name}'"));
            }
            Action::FileError(e) => m.notice = Some(Notice { error: true, text: e }),
            Action::SeedText(t) => m.seed_text = t,
            Action::Reset => match m.seed_text.trim().parse::<u64>() {
                Ok(seed) => {
                    let s = m.tl.borrow().scenario().clone();
                    let src = m.source.clone();
                    m.load(Ok(s), src, Some(seed), "the scenario");
                }
                Err(_) => {
                    m.notice = Some(Notice {
                        error: true,
                        text: format!(
                            "The seed '{}' is not a whole number from 0 to 18446744073709551615.",
                            m.seed_text.trim()
                        ),
                    })
                }
            },
            Action::RandomSeed(seed) => {
                let s = m.tl.borrow().scenario().clone();
                let src = m.source.clone();
                m.load(Ok(s), src, Some(seed), "the scenario");
            }
            Action::SetMode(mode) => {
                let s = m.tl.borrow().scenario().clone();
                let src = m.source.clone();
                let seed = m.seed;
                let old = m.mode;
                m.mode = mode;
                // Picking the behaviour shown beside swaps the two.
                if m.compare_mode == Some(mode) {
                    m.compare_mode = Some(old);
                }
                m.load(Ok(s), src, Some(seed), &format!("mode {}", mode.name()));
                if m.notice.as_ref().map(|n| n.error).unwrap_or(false) {
                    m.mode = old;
                }
            }
            Action::SetCompare(c) => {
                m.compare_mode = c.filter(|c| *c != m.mode);
                m.refresh_compare();
            }
            Action::OpenLink(fragment) => {
                let rev = m.rev;
                m = Model::for_fragment(&fragment);
                m.rev = rev;
            }
            Action::Dismiss => m.notice = None,
        }
        if m.events.len() != m.tl.borrow().len() || m.cursor() >= m.events.len() {
            m.grow(ahead);
        }
        Rc::new(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use splitbrain_sim::NodeId;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// seed-incident with its end moved to 10^15 ms: only a bound would end it.
    fn hostile() -> Scenario {
        let mut s = builtin_scenario("seed-incident").unwrap();
        s.end_ms = Some(1_000_000_000_000_000);
        s
    }

    /// The scenario used when every built-in fails is valid and builds (it names no group: the
    /// page writes no Kafka group or topic of its own).
    #[test]
    fn the_fallback_scenario_builds() {
        let s = Scenario::from_json(FALLBACK_JSON).expect("valid");
        assert!(s.consumers.is_empty());
        assert!(Timeline::new(s, None).is_ok());
    }

    /// A permalink carrying a run without end opens at once: one slice computed, not the future;
    /// a visible note says the run goes on; End computes one more slice, not everything.
    #[test]
    fn a_hostile_link_opens_with_one_slice_computed_and_says_so() {
        let tl = Timeline::with_mode(hostile(), None, Mode::Legacy).unwrap();
        let fragment = splitbrain_sim::share::Link::of(&tl, Mode::Legacy).encode();
        let m = Model::for_fragment(&fragment);
        assert!(m.notice.as_ref().is_none_or(|n| !n.error), "{:?}", m.notice);
        assert_eq!(m.tl.borrow().scenario().end_ms, Some(1_000_000_000_000_000));
        assert_eq!(m.tl.borrow().len(), SLICE, "one slice at open, not the whole future");
        assert_eq!(m.events.len(), SLICE);
        let note = m.run_note().expect("a note says the run goes on");
        assert!(note.contains("5000 steps computed so far"), "{note}");
        let m = Rc::new(m).reduce(Action::End);
        assert_eq!(m.tl.borrow().len(), 2 * SLICE);
        assert_eq!(m.cursor(), 2 * SLICE);
        assert_eq!(m.events.len(), 2 * SLICE, "the event log takes in the new slice");
        let m = m.reduce(Action::Back).reduce(Action::Forward).reduce(Action::Forward);
        assert_eq!(m.tl.borrow().len(), 3 * SLICE, "stepping past the end computes the next slice");
        assert_eq!(m.cursor(), 2 * SLICE + 1);
    }

    /// Broker 1 cut from every ZooKeeper server: what one drag across those links sends.
    fn cut_b1(m: &Model) -> Vec<Command> {
        let servers: Vec<NodeId> = m.tl.borrow().view().zk_servers.iter().map(|z| z.id).collect();
        assert!(servers.len() > 1, "seed-incident has an ensemble");
        servers.into_iter().map(|z| Command::Cut { a: NodeId::Broker(1), b: z, dir: Direction::Both }).collect()
    }

    /// One gesture is one change: every command applies at the cursor, one Undo reverts them all
    /// and restores the run (its computed future included) exactly.
    #[test]
    fn a_gesture_is_one_undo() {
        let m = Rc::new(Model::initial()).reduce(Action::Seek(40));
        let before: Vec<Event> = m.tl.borrow().events().to_vec();
        let cmds = cut_b1(&m);
        let n = cmds.len();
        let m = m.reduce(Action::Apply(cmds));
        assert_eq!(m.cursor(), 40 + n, "each command is a step");
        assert!(m.tl.borrow().can_undo());
        assert_eq!(m.undo_label.matches("cut").count(), n, "{}", m.undo_label);
        let note = m.notice.as_ref().expect("a fork in the past is announced");
        assert!(!note.error && note.text.contains("at step 40"), "{note:?}");
        let m = m.reduce(Action::Undo);
        assert_eq!(m.cursor(), 40);
        assert!(!m.tl.borrow().can_undo(), "one undo for the gesture");
        assert!(m.undo_label.is_empty());
        assert_eq!(m.tl.borrow().events(), &before[..], "the old future is back");
        let m = m.reduce(Action::Undo);
        assert_eq!(m.notice.as_ref().map(|n| n.text.as_str()), Some("Nothing to undo."));
    }

    /// A refused command in a gesture is named once, with the core's reason; the others apply.
    #[test]
    fn a_refused_command_is_named_and_the_rest_of_the_gesture_applies() {
        let m = Rc::new(Model::initial());
        let mut cmds = cut_b1(&m);
        let good = cmds.len();
        cmds.insert(1, Command::Cut { a: NodeId::Broker(1), b: NodeId::Broker(9), dir: Direction::Both });
        let m = m.reduce(Action::Apply(cmds));
        assert_eq!(m.cursor(), good);
        let note = m.notice.as_ref().expect("refused");
        assert!(note.error && note.text.starts_with("Refused: ") && note.text.contains("9"), "{note:?}");
        assert_eq!(note.text.matches(": ").count(), 2, "one refusal, named once: {}", note.text);
        assert!(m.tl.borrow().can_undo());
        // A gesture of refused commands only changes nothing and leaves nothing to undo.
        let m = Rc::new(Model::initial()).reduce(Action::Apply(vec![Command::Cut {
            a: NodeId::Broker(7),
            b: NodeId::Broker(9),
            dir: Direction::Both,
        }]));
        assert_eq!(m.cursor(), 0);
        assert!(!m.tl.borrow().can_undo());
        assert!(m.notice.as_ref().is_some_and(|n| n.error));
    }

    /// A run cut at a bound says which, and a built-in run (complete) has no note.
    #[test]
    fn a_run_cut_at_a_bound_shows_a_note() {
        let limits = splitbrain_sim::Limits { max_steps: 300, max_time_ms: u64::MAX };
        let tl = Timeline::with_limits(hostile(), None, Mode::Legacy, limits).unwrap();
        let m = Model::from_restored(tl, "hostile".into(), Mode::Legacy);
        assert_eq!(m.tl.borrow().len(), 300);
        let note = m.run_note().expect("a note");
        assert!(note.contains("cut at the step limit of 300 steps after 300 steps"), "{note}");
        assert_eq!(Model::initial().run_note(), None, "seed-incident is computed whole");
    }
}
