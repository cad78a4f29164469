//! The history of a run, for stepping back and forth. Memory is bounded per step: the timeline
//! keeps the world only every [`CHECKPOINT_EVERY`] steps (a checkpoint; the worlds share unchanged
//! parts through `Rc`), plus the world shown and the world at the end of what is computed. Showing
//! another step replays from the nearest checkpoint at or before it ([`Timeline::replay`]: the
//! world is deterministic, and the user's commands are replayed at their steps), so stepping back
//! costs at most `CHECKPOINT_EVERY - 1` steps whatever the length of the run. The events are kept
//! (they are bounded per step); replay yields them again, so they could be rendered on demand.
//! Acting at an earlier step forks: the old future is set aside and one undo restores it. The
//! user's commands and the steps they were made at are the list a permalink stores. A run stops
//! at its [`Limits`], and [`Timeline::stopped_by`] says so.
use crate::command::Command;
use crate::event::Event;
use crate::limits::{Bound, Limits};
use crate::scenario::{Mode, Scenario, ScenarioError};
use crate::tools;
use crate::view::View;
use crate::world::World;
use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// A command the user made, and the step it was made after.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct UserCommand {
    /// Applied after this many steps.
    pub at_step: u64,
    /// The command.
    pub command: Command,
}

/// Steps between two kept worlds: stepping back replays at most this many steps minus one.
pub const CHECKPOINT_EVERY: usize = 32;

/// What one [`Timeline::apply`] replaces, kept for one undo.
#[derive(Clone)]
struct History {
    /// `checkpoints[i]` is the world after `i * CHECKPOINT_EVERY` steps.
    checkpoints: Vec<World>,
    events: Vec<Event>,
    user: Vec<UserCommand>,
    /// The world after `events.len()` steps, where the run continues.
    last: World,
    /// True once the run can go no further (it ended, or met a bound).
    complete: bool,
}

/// What [`Timeline::apply_all`] did with a gesture's commands.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Applied {
    /// How many applied (one step each).
    pub applied: usize,
    /// The refused ones: their index in the gesture and why.
    pub refused: Vec<(usize, String)>,
}

/// A run with its history.
#[derive(Clone)]
pub struct Timeline {
    scenario: Scenario,
    h: History,
    cursor: usize,
    /// The world after `cursor` steps.
    shown: World,
    undo: Option<(History, usize)>,
}

impl Timeline {
    /// A timeline at step 0, in the scenario's [opening mode](Scenario::opening_mode).
    pub fn new(scenario: Scenario, seed: Option<u64>) -> Result<Timeline, ScenarioError> {
        let mode = scenario.opening_mode(None);
        Self::with_mode(scenario, seed, mode)
    }

    /// A timeline at step 0 running the given Kafka behaviour, within the default [`Limits`].
    pub fn with_mode(scenario: Scenario, seed: Option<u64>, mode: Mode) -> Result<Timeline, ScenarioError> {
        Self::with_limits(scenario, seed, mode, Limits::default())
    }

    /// A timeline at step 0 running the given Kafka behaviour, within `limits`.
    pub fn with_limits(
        scenario: Scenario,
        seed: Option<u64>,
        mode: Mode,
        limits: Limits,
    ) -> Result<Timeline, ScenarioError> {
        let mut w = World::with_mode(&scenario, seed.unwrap_or(scenario.seed), mode)?;
        w.set_limits(limits);
        Ok(Timeline {
            scenario,
            h: History {
                checkpoints: alloc::vec![w.clone()],
                events: Vec::new(),
                user: Vec::new(),
                last: w.clone(),
                complete: false,
            },
            cursor: 0,
            shown: w,
            undo: None,
        })
    }

    /// The scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.scenario
    }

    /// The step shown.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Steps computed so far.
    pub fn len(&self) -> usize {
        self.h.events.len()
    }

    /// True before any step.
    pub fn is_empty(&self) -> bool {
        self.h.events.is_empty()
    }

    /// All computed events (step i is `events()[i-1]`).
    pub fn events(&self) -> &[Event] {
        &self.h.events
    }

    /// The world at the cursor.
    pub fn world(&self) -> &World {
        &self.shown
    }

    /// The world after `step` steps, if computed: borrowed when kept (the cursor's, the last
    /// one, a checkpoint), else replayed from the checkpoint before it.
    pub fn world_at(&self, step: usize) -> Option<Cow<'_, World>> {
        if step > self.len() {
            None
        } else if step == self.cursor {
            Some(Cow::Borrowed(&self.shown))
        } else if step == self.len() {
            Some(Cow::Borrowed(&self.h.last))
        } else if step % CHECKPOINT_EVERY == 0 {
            Some(Cow::Borrowed(&self.h.checkpoints[step / CHECKPOINT_EVERY]))
        } else {
            Some(Cow::Owned(self.replay(step, |_| {})))
        }
    }

    /// The world after `step` (≤ [`Timeline::len`]) steps, replayed from the nearest checkpoint at
    /// or before it; `each` sees every replayed step's event (the same as
    /// [`Timeline::events`] holds for those steps).
    pub fn replay(&self, step: usize, mut each: impl FnMut(Event)) -> World {
        let k = (step / CHECKPOINT_EVERY).min(self.h.checkpoints.len() - 1);
        let mut w = self.h.checkpoints[k].clone();
        for s in k * CHECKPOINT_EVERY..step {
            if let Some(ev) = redo(&self.h.user, &mut w, s) {
                each(ev);
            }
        }
        w
    }

    /// Shows step `step` (≤ `len`).
    fn show(&mut self, step: usize) {
        if step == self.cursor {
            return;
        }
        if step == self.cursor + 1 {
            redo(&self.h.user, &mut self.shown, self.cursor);
        } else if step == self.len() {
            self.shown = self.h.last.clone();
        } else {
            self.shown = self.replay(step, |_| {});
        }
        self.cursor = step;
    }

    /// The view at the cursor.
    pub fn view(&self) -> View {
        self.world().view()
    }

    /// The user's commands.
    pub fn user_commands(&self) -> &[UserCommand] {
        &self.h.user
    }

    /// The bound the run stopped at, if it met one (as far as it is computed).
    pub fn stopped_by(&self) -> Option<Bound> {
        self.h.last.stopped_by()
    }

    /// The limits the run is held to.
    pub fn limits(&self) -> Limits {
        self.h.last.limits()
    }

    /// True once the whole run is computed (it ended, or met a bound). Until then the future is
    /// computed as it is needed.
    pub fn is_complete(&self) -> bool {
        self.h.complete
    }

    /// The scenario with the user's faults in it (at the steps they were made), the run's seed
    /// and `mode`: a file that `splitbrain run` and the playground replay to this same run. A
    /// scenario fault due at a step the user took is dropped, as the run dropped it.
    pub fn scenario_with_user_faults(&self, mode: Mode) -> Scenario {
        let mut s = self.scenario.clone();
        let w = &self.h.checkpoints[0];
        s.seed = w.seed();
        s.end_ms = Some(w.config().end_ms);
        s.mode = Some(mode);
        let user = &self.h.user;
        s.after_steps.retain(|f| !user.iter().any(|u| u.at_step == f.after_step));
        s.after_steps.extend(
            user.iter().map(|u| crate::scenario::StepFault { after_step: u.at_step, command: u.command.clone() }),
        );
        crate::sorted::sort_by_key(&mut s.after_steps, |f| f.after_step);
        if !user.is_empty() {
            let n = user.len();
            s.description = alloc::format!(
                "{}{}With {n} fault{} made in the playground.",
                s.description,
                if s.description.is_empty() { "" } else { " " },
                if n == 1 { "" } else { "s" }
            );
        }
        s
    }

    /// The scenario with the user's faults as timed script entries (at the virtual time of the
    /// step each was made at): how the same faults are replayed under another mode, whose steps
    /// differ, for a side-by-side comparison.
    pub fn scenario_with_user_faults_by_time(&self) -> Scenario {
        let mut s = self.scenario.clone();
        let w = &self.h.checkpoints[0];
        s.seed = w.seed();
        s.end_ms = Some(w.config().end_ms);
        for u in &self.h.user {
            // The time of the step a command was made after is that step's event's time.
            let at_ms = match u.at_step as usize {
                0 => w.now(),
                k => self.h.events.get(k - 1).map(|e| e.time_ms).unwrap_or(0),
            };
            s.script.push(crate::scenario::ScriptEntry { at_ms, command: u.command.clone() });
        }
        s
    }

    /// The last computed step whose time is at or before `time_ms` (0 when none).
    pub fn step_at_time(&self, time_ms: u64) -> usize {
        self.h.events.partition_point(|e| e.time_ms <= time_ms)
    }

    /// Computes one more step at the end; false when the run is over.
    fn extend(&mut self) -> bool {
        if self.h.complete {
            return false;
        }
        match self.h.last.step() {
            Some(ev) => {
                self.h.events.push(ev);
                if self.h.events.len() % CHECKPOINT_EVERY == 0 {
                    self.h.checkpoints.push(self.h.last.clone());
                }
                true
            }
            None => {
                self.h.complete = true;
                false
            }
        }
    }

    /// Computes up to `n` more steps at the end (without moving the cursor); false once the run
    /// is complete. How a caller computes the future in slices.
    pub fn compute(&mut self, n: usize) -> bool {
        for _ in 0..n {
            if !self.extend() {
                return false;
            }
        }
        !self.h.complete
    }

    /// Moves forward one step (computing it if needed); returns its event.
    pub fn forward(&mut self) -> Option<&Event> {
        if self.cursor >= self.len() && !self.extend() {
            return None;
        }
        self.show(self.cursor + 1);
        self.h.events.get(self.cursor - 1)
    }

    /// Moves back one step.
    pub fn back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.show(self.cursor - 1);
        true
    }

    /// Jumps to `step` (computing up to it if needed; stops at the end of the run).
    pub fn seek(&mut self, step: usize) {
        while self.len() < step && self.extend() {}
        self.show(step.min(self.len()));
    }

    /// Computes the whole run (up to its [limits](Timeline::limits)) without moving the cursor.
    pub fn compute_all(&mut self) {
        while self.extend() {}
    }

    /// True when no further step exists after the cursor.
    pub fn at_end(&mut self) -> bool {
        if self.cursor < self.len() {
            return false;
        }
        !self.extend()
    }

    /// Applies a command at the cursor. If the cursor is in the past, the future is forked off
    /// (kept for one [`Timeline::undo`]).
    pub fn apply(&mut self, cmd: Command) -> Result<&Event, String> {
        let saved = (self.h.clone(), self.cursor);
        self.push(cmd)?;
        self.undo = Some(saved);
        Ok(&self.h.events[self.cursor - 1])
    }

    /// Applies one gesture's commands at the cursor, in order, as one change: one fork of the
    /// future and one [`Timeline::undo`] for all of them. Each command is validated once, by
    /// `World::apply`; a refused one changes nothing and is reported with its index, and the
    /// others still apply.
    pub fn apply_all(&mut self, cmds: &[Command]) -> Applied {
        let saved = (self.h.clone(), self.cursor);
        let mut applied = 0;
        let mut refused = Vec::new();
        for (i, c) in cmds.iter().enumerate() {
            match self.push(c.clone()) {
                Ok(()) => applied += 1,
                Err(e) => refused.push((i, e)),
            }
        }
        if applied > 0 {
            self.undo = Some(saved);
        }
        Applied { applied, refused }
    }

    /// One command at the cursor, without touching the undo.
    fn push(&mut self, cmd: Command) -> Result<(), String> {
        // `World::apply` is the one validation; an impossible command changes nothing here.
        let mut w = self.shown.clone();
        let ev = w.apply(&cmd)?;
        let at = self.cursor;
        let h = &mut self.h;
        h.checkpoints.truncate(at / CHECKPOINT_EVERY + 1);
        h.events.truncate(at);
        h.user.retain(|u| u.at_step < at as u64);
        h.user.push(UserCommand { at_step: at as u64, command: cmd });
        h.events.push(ev);
        if h.events.len() % CHECKPOINT_EVERY == 0 {
            h.checkpoints.push(w.clone());
        }
        h.last = w.clone();
        h.complete = false;
        self.shown = w;
        self.cursor += 1;
        Ok(())
    }

    /// Restores the timeline as it was before the last [`Timeline::apply`].
    pub fn undo(&mut self) -> bool {
        match self.undo.take() {
            Some((h, cursor)) => {
                self.h = h;
                self.shown = self.replay(cursor, |_| {});
                self.cursor = cursor;
                true
            }
            None => false,
        }
    }

    /// Whether an undo is available.
    pub fn can_undo(&self) -> bool {
        self.undo.is_some()
    }
}

/// Takes step `s + 1` again on `w` (the world after `s` steps): the user's command made there,
/// else the world's own next step.
fn redo(user: &[UserCommand], w: &mut World, s: usize) -> Option<Event> {
    match user.binary_search_by_key(&(s as u64), |u| u.at_step) {
        Ok(i) => w.apply(&user[i].command).ok(),
        Err(_) => w.step(),
    }
}

/// A [`tools::Walk`] along a timeline's run ([`Timeline::tools_walk`]): it remembers the run it
/// walked (scenario, seed, mode, limits, the user's commands it replayed), so a later call can
/// go on from it while that run is unchanged up to its step.
#[derive(Clone, Debug)]
pub struct ToolsWalk {
    walk: tools::Walk,
    /// Steps replayed (the timeline's step index, as [`Timeline::replay`] counts them).
    steps: usize,
    scenario: Scenario,
    seed: u64,
    mode: Mode,
    limits: Limits,
    /// The user's commands replayed, in order.
    user: Vec<UserCommand>,
}

impl ToolsWalk {
    /// The step reached.
    pub fn step(&self) -> usize {
        self.steps
    }

    /// The walk: the world at the step and what the tools collected up to it.
    pub fn walk(&self) -> &tools::Walk {
        &self.walk
    }

    /// [`tools::render`]s `tool` at the step reached.
    pub fn render(&self, tool: tools::Tool, opts: &tools::Options) -> Result<String, String> {
        self.walk.render(tool, opts)
    }

    /// [`tools::invocation`] of `tool` at the step reached.
    pub fn invocation(&self, tool: tools::Tool, opts: &tools::Options) -> tools::Invocation {
        tools::invocation(self.walk.world(), tool, opts)
    }
}

impl Timeline {
    /// The world after `step` (≤ [`Timeline::len`]) steps, walked from the start of the run with
    /// what Kafka's tools need of every step before it (`state-change.log`, when each zxid was
    /// written): what `splitbrain describe --step` renders, with the user's commands replayed at
    /// their steps. Goes on from `from` when it is a walk of this same run at or before `step`
    /// (stepping forward costs one step), else walks from step 0. `None` past the computed steps.
    pub fn tools_walk(&self, step: usize, from: Option<ToolsWalk>) -> Option<ToolsWalk> {
        if step > self.len() {
            return None;
        }
        let start = &self.h.checkpoints[0];
        let same_run = |w: &ToolsWalk| {
            w.steps <= step
                && w.seed == start.seed()
                && w.mode == start.mode()
                && w.limits == start.limits()
                && w.scenario == self.scenario
                && self.h.user.iter().take_while(|u| u.at_step < w.steps as u64).eq(w.user.iter())
        };
        let mut w = match from.filter(same_run) {
            Some(w) => w,
            None => ToolsWalk {
                walk: tools::Walk::start(start.clone()),
                steps: 0,
                scenario: self.scenario.clone(),
                seed: start.seed(),
                mode: start.mode(),
                limits: start.limits(),
                user: Vec::new(),
            },
        };
        let user = &self.h.user;
        for s in w.steps..step {
            w.walk.advance(|world| redo(user, world, s));
            if let Ok(i) = user.binary_search_by_key(&(s as u64), |u| u.at_step) {
                w.user.push(user[i].clone());
            }
        }
        w.steps = step;
        Some(w)
    }
}

impl core::fmt::Debug for Timeline {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Timeline")
            .field("scenario", &self.scenario.name)
            .field("steps", &self.h.events.len())
            .field("cursor", &self.cursor)
            .field("user", &self.h.user)
            .finish()
    }
}
