//! The bounds of every run: one step limit and one virtual-time limit, the same for
//! `splitbrain run`, the explorer and the page. A scenario may ask for any `end_ms` (a permalink
//! can carry 10^15); a run stops at whichever bound it meets first, and
//! [`World::stopped_by`](crate::World::stopped_by) says which, as a typed fact, so no caller cuts
//! a run short without saying so.

/// How far a run may go.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Steps a run may take (user commands included).
    pub max_steps: u64,
    /// Virtual time a run may reach, ms: nothing due later is processed.
    pub max_time_ms: u64,
}

impl Limits {
    /// 200 000 steps: what a browser tab holds with the timeline's checkpoints (about 0.5 kB a
    /// step, mostly the events' text) and computes in a few seconds.
    pub const DEFAULT_MAX_STEPS: u64 = 200_000;

    /// 30 days of virtual time (2 592 000 000 ms). The longest built-in ends at 172 960 000 ms
    /// (2 days), so this is 15× the longest built-in: room for a scenario's own long tail. It is
    /// also of the same order as the step limit for the densest idle traffic the model makes: a
    /// consumer left without a coordinator retries for ever, about 2 000 steps a simulated day,
    /// so 30 days is about 60 000 steps — a run that ends on time rarely meets the step limit.
    pub const DEFAULT_MAX_TIME_MS: u64 = 30 * 86_400_000;

    /// No bound at all (for a caller that bounds the run itself).
    pub const NONE: Limits = Limits { max_steps: u64::MAX, max_time_ms: u64::MAX };
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_steps: Self::DEFAULT_MAX_STEPS, max_time_ms: Self::DEFAULT_MAX_TIME_MS }
    }
}

/// The bound a run stopped at.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The step limit (the limit's value).
    Steps(u64),
    /// The virtual-time limit, ms (the limit's value).
    TimeMs(u64),
}

impl Bound {
    /// One sentence for a person: which limit, and its value.
    pub fn describe(&self) -> alloc::string::String {
        match self {
            Bound::Steps(n) => alloc::format!("the step limit of {n} steps"),
            Bound::TimeMs(t) if *t % 86_400_000 == 0 && *t > 0 => {
                let d = t / 86_400_000;
                alloc::format!("the virtual-time limit of {t} ms ({d} day{})", if d == 1 { "" } else { "s" })
            }
            Bound::TimeMs(t) => alloc::format!("the virtual-time limit of {t} ms"),
        }
    }
}
