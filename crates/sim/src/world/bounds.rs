//! The world's side of [`crate::limits`]: the limits it runs under, and which one, if any, stops
//! the next step. [`World::step_until`] refuses a step beyond a bound; these say why.
use super::World;
use crate::limits::{Bound, Limits};

impl World {
    /// The limits this run is held to ([`Limits::default`] unless set).
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Holds the run to other limits (from now on; steps already taken stay).
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The bound that keeps the run from going on before the scenario's end, if any: `None` while
    /// it can step and once it has [`finished`](World::finished) on its own.
    pub fn stopped_by(&self) -> Option<Bound> {
        self.stopped_by_until(self.cfg.end_ms)
    }

    /// Same, for a run driven with [`World::step_until`]`(until_ms)`.
    pub fn stopped_by_until(&self, until_ms: u64) -> Option<Bound> {
        let step_fault_due = self.cfg.after_steps.binary_search_by_key(&self.step, |(s, _)| *s).is_ok();
        let next = self.queue.peek_time().filter(|t| *t <= until_ms);
        if !step_fault_due && next.is_none() {
            return None;
        }
        if self.step >= self.limits.max_steps {
            return Some(Bound::Steps(self.limits.max_steps));
        }
        match next {
            Some(t) if !step_fault_due && t > self.limits.max_time_ms => Some(Bound::TimeMs(self.limits.max_time_ms)),
            _ => None,
        }
    }
}
