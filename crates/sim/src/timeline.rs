//! The history of a run, for stepping back and forth: every step's world is kept (the worlds share
//! unchanged parts through `Rc`, so a step costs one copy of what it changed), so any earlier step
//! is shown again in O(1). Acting at an earlier step forks: the old future is set aside and one
//! undo restores it. The user's commands and the steps they were made at are the list a permalink
//! stores.
use crate::command::Command;
use crate::event::Event;
use crate::scenario::{Mode, Scenario, ScenarioError};
use crate::view::View;
use crate::world::World;
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

#[derive(Clone)]
struct Saved {
    worlds: Vec<World>,
    events: Vec<Event>,
    user: Vec<UserCommand>,
    cursor: usize,
}

/// A run with its history.
#[derive(Clone)]
pub struct Timeline {
    scenario: Scenario,
    worlds: Vec<World>,
    events: Vec<Event>,
    user: Vec<UserCommand>,
    cursor: usize,
    undo: Option<Saved>,
    limit: usize,
}

impl Timeline {
    /// A timeline at step 0, in the scenario's [opening mode](Scenario::opening_mode).
    pub fn new(scenario: Scenario, seed: Option<u64>) -> Result<Timeline, ScenarioError> {
        let mode = scenario.opening_mode(None);
        Self::with_mode(scenario, seed, mode)
    }

    /// A timeline at step 0 running the given Kafka behaviour.
    pub fn with_mode(scenario: Scenario, seed: Option<u64>, mode: Mode) -> Result<Timeline, ScenarioError> {
        let w = World::with_mode(&scenario, seed.unwrap_or(scenario.seed), mode)?;
        Ok(Timeline {
            scenario,
            worlds: alloc::vec![w],
            events: Vec::new(),
            user: Vec::new(),
            cursor: 0,
            undo: None,
            limit: 20_000,
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
        self.events.len()
    }

    /// True before any step.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// All computed events (step i is `events()[i-1]`).
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The world at the cursor.
    pub fn world(&self) -> &World {
        &self.worlds[self.cursor]
    }

    /// The world after `step` steps, if computed.
    pub fn world_at(&self, step: usize) -> Option<&World> {
        self.worlds.get(step)
    }

    /// The view at the cursor.
    pub fn view(&self) -> View {
        self.world().view()
    }

    /// The user's commands.
    pub fn user_commands(&self) -> &[UserCommand] {
        &self.user
    }

    /// The scenario with the user's faults in it (at the steps they were made), the run's seed
    /// and `mode`: a file that `splitbrain run` and the playground replay to this same run. A
    /// scenario fault due at a step the user took is dropped, as the run dropped it.
    pub fn scenario_with_user_faults(&self, mode: Mode) -> Scenario {
        let mut s = self.scenario.clone();
        if let Some(w) = self.worlds.first() {
            s.seed = w.seed();
            s.end_ms = Some(w.config().end_ms);
        }
        s.mode = Some(mode);
        s.after_steps.retain(|f| !self.user.iter().any(|u| u.at_step == f.after_step));
        s.after_steps.extend(
            self.user.iter().map(|u| crate::scenario::StepFault { after_step: u.at_step, command: u.command.clone() }),
        );
        s.after_steps.sort_by_key(|f| f.after_step);
        if !self.user.is_empty() {
            let n = self.user.len();
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
        if let Some(w) = self.worlds.first() {
            s.seed = w.seed();
            s.end_ms = Some(w.config().end_ms);
        }
        for u in &self.user {
            let at_ms = self.worlds.get(u.at_step as usize).map(|w| w.now()).unwrap_or(0);
            s.script.push(crate::scenario::ScriptEntry { at_ms, command: u.command.clone() });
        }
        s
    }

    /// The last computed step whose time is at or before `time_ms` (0 when none).
    pub fn step_at_time(&self, time_ms: u64) -> usize {
        self.events.partition_point(|e| e.time_ms <= time_ms)
    }

    /// Computes one more step at the end; false when the run is over.
    fn extend(&mut self) -> bool {
        if self.worlds.len() > self.limit {
            return false;
        }
        let mut w = self.worlds.last().expect("never empty").clone();
        match w.step() {
            Some(ev) => {
                self.events.push(ev);
                self.worlds.push(w);
                true
            }
            None => false,
        }
    }

    /// Moves forward one step (computing it if needed); returns its event.
    pub fn forward(&mut self) -> Option<&Event> {
        if self.cursor + 1 >= self.worlds.len() && !self.extend() {
            return None;
        }
        self.cursor += 1;
        self.events.get(self.cursor - 1)
    }

    /// Moves back one step.
    pub fn back(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.cursor -= 1;
        true
    }

    /// Jumps to `step` (computing up to it if needed; stops at the end of the run).
    pub fn seek(&mut self, step: usize) {
        while self.worlds.len() <= step && self.extend() {}
        self.cursor = step.min(self.worlds.len() - 1);
    }

    /// Computes the whole run (up to the step limit) without moving the cursor.
    pub fn compute_all(&mut self) {
        while self.extend() {}
    }

    /// True when no further step exists after the cursor.
    pub fn at_end(&mut self) -> bool {
        if self.cursor + 1 < self.worlds.len() {
            return false;
        }
        !self.extend()
    }

    /// Applies a command at the cursor. If the cursor is in the past, the future is forked off
    /// (kept for one [`Timeline::undo`]).
    pub fn apply(&mut self, cmd: Command) -> Result<&Event, String> {
        // `World::apply` is the one validation; an impossible command changes nothing here.
        let mut w = self.worlds[self.cursor].clone();
        let ev = w.apply(&cmd)?;
        self.undo = Some(Saved {
            worlds: self.worlds.clone(),
            events: self.events.clone(),
            user: self.user.clone(),
            cursor: self.cursor,
        });
        self.worlds.truncate(self.cursor + 1);
        self.events.truncate(self.cursor);
        let at = self.cursor as u64;
        self.user.retain(|u| u.at_step <= at);
        self.user.push(UserCommand { at_step: at, command: cmd });
        self.events.push(ev);
        self.worlds.push(w);
        self.cursor += 1;
        Ok(&self.events[self.cursor - 1])
    }

    /// Restores the timeline as it was before the last [`Timeline::apply`].
    pub fn undo(&mut self) -> bool {
        match self.undo.take() {
            Some(s) => {
                self.worlds = s.worlds;
                self.events = s.events;
                self.user = s.user;
                self.cursor = s.cursor;
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

impl core::fmt::Debug for Timeline {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Timeline")
            .field("scenario", &self.scenario.name)
            .field("steps", &self.events.len())
            .field("cursor", &self.cursor)
            .field("user", &self.user)
            .finish()
    }
}
