//! A user's scenario file: the bytes go to `Scenario::from_json`, the entry the CLI (`run FILE`)
//! and the page (a dropped or pasted file) use. A rejection is one line; an accepted scenario
//! builds a world in its own mode, which runs its first steps without panicking.
#![no_main]
use libfuzzer_sys::fuzz_target;
use splitbrain_sim::{Scenario, World};

#[path = "contract.rs"]
mod contract;

/// Steps of an accepted scenario run per input (the run itself is bounded by the core's limits;
/// this keeps one input fast).
const STEPS: usize = 2_000;

fuzz_target!(|data: &[u8]| {
    // The CLI reads the file as UTF-8 text (`read_to_string`) and the page as a JS string.
    let Ok(text) = std::str::from_utf8(data) else { return };
    let scenario = match Scenario::from_json(text) {
        Ok(s) => s,
        Err(e) => return contract::one_line("Scenario::from_json", &e.to_string()),
    };
    let mode = scenario.opening_mode(None);
    let mut w = match World::with_mode(&scenario, scenario.seed, mode) {
        Ok(w) => w,
        Err(e) => return contract::one_line("World::with_mode", &e.to_string()),
    };
    for _ in 0..STEPS {
        if w.step().is_none() {
            break;
        }
    }
});
