//! Determinism everywhere: the trace hash ([`trace_hash`], FNV-1a over every event's JSON) of every
//! built-in in every mode, and of 100 explorer counterexamples, is the one recorded in
//! `tests/fixtures/trace-hashes.tsv` — natively (`cargo test`) and in wasm in headless Chromium
//! (`cargo test --target wasm32-unknown-unknown`, CI stage `sim-wasm-test`): the same file, the
//! same runs, so a platform that computes one event differently fails here.
//!
//! The counterexamples were found natively by the explorer (legacy's leader -1 over seeds, and two
//! acting controllers in legacy, 1.1 and fenced; KRaft has none to find) and are stored with their
//! whole schedule, so every platform replays them without searching. After a change that is meant
//! to change traces, regenerate the file and read its diff:
//!
//! ```text
//! BLESS=1 cargo test -p splitbrain-sim --test trace_hashes
//! ```
#[cfg(not(target_arch = "wasm32"))]
use splitbrain_sim::explore::Property;
use splitbrain_sim::explore::{trace_hash, with_schedule, Explorer, Options};
use splitbrain_sim::scenario::{builtin, builtin_names, ScriptEntry};
use splitbrain_sim::{Mode, Scenario};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

const FIXTURE: &str = include_str!("fixtures/trace-hashes.tsv");

/// Counterexamples the fixture holds.
const COUNTEREXAMPLES: usize = 100;

/// The cluster every counterexample was found on: `seed-incident`'s, as the explorer searches it.
fn explorer_base() -> Scenario {
    Explorer::new(builtin("seed-incident").expect("built-in"), Options::default()).base().clone()
}

/// One row of the fixture.
#[derive(Clone, Debug, PartialEq)]
struct Case {
    /// `builtin:NAME` or `cx:PROPERTY:MODE:seed-N`.
    name: String,
    mode: Mode,
    seed: u64,
    steps: u64,
    hash: u64,
    /// A counterexample's schedule (on [`explorer_base`]); None for a built-in.
    schedule: Option<Vec<ScriptEntry>>,
}

impl Case {
    /// The scenario the row replays.
    fn scenario(&self, base: &Scenario) -> Scenario {
        match &self.schedule {
            None => {
                let name = self.name.strip_prefix("builtin:").expect("a built-in row");
                builtin(name).unwrap_or_else(|| panic!("the fixture names an unknown built-in '{name}'"))
            }
            Some(schedule) => {
                let mut s = with_schedule(base, schedule, Options::default().settle_ms);
                s.seed = self.seed;
                s
            }
        }
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn row(&self) -> String {
        let schedule = self.schedule.as_ref().map_or("-".into(), |s| serde_json::to_string(s).expect("encodes"));
        format!("{}\t{}\t{}\t{}\t{:016x}\t{}", self.name, self.mode.name(), self.seed, self.steps, self.hash, schedule)
    }
}

fn parse(text: &str) -> Vec<Case> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "a fixture row has 6 fields: {l}");
            Case {
                name: f[0].into(),
                mode: Mode::parse(f[1]).expect("a mode"),
                seed: f[2].parse().expect("a seed"),
                steps: f[3].parse().expect("steps"),
                hash: u64::from_str_radix(f[4], 16).expect("a hex hash"),
                schedule: (f[5] != "-").then(|| serde_json::from_str(f[5]).expect("a schedule")),
            }
        })
        .collect()
}

/// The trace hash and steps of a row's run, on this platform.
fn replay(case: &Case, base: &Scenario) -> (u64, u64) {
    trace_hash(&case.scenario(base), case.mode).unwrap_or_else(|e| panic!("{}: {e}", case.name))
}

macro_rules! report {
    ($($t:tt)*) => {{
        #[cfg(target_arch = "wasm32")]
        wasm_bindgen_test::console_log!($($t)*);
        #[cfg(not(target_arch = "wasm32"))]
        println!($($t)*);
    }};
}

#[test]
fn every_trace_hash_matches_the_fixture() {
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("BLESS").is_some() {
        return bless();
    }
    let cases = parse(FIXTURE);
    let base = explorer_base();
    // The fixture covers every built-in in every mode, and the counterexamples.
    let builtins: Vec<(String, Mode)> = cases
        .iter()
        .filter(|c| c.schedule.is_none())
        .map(|c| (c.name.trim_start_matches("builtin:").to_string(), c.mode))
        .collect();
    let expected: Vec<(String, Mode)> =
        builtin_names().into_iter().flat_map(|n| Mode::ALL.map(|m| (n.clone(), m))).collect();
    assert_eq!(builtins, expected, "every built-in in every mode, in order (re-bless after adding one)");
    let cx = cases.iter().filter(|c| c.schedule.is_some()).count();
    assert_eq!(cx, COUNTEREXAMPLES, "counterexamples in the fixture");

    let mut wrong = Vec::new();
    for c in &cases {
        let (hash, steps) = replay(c, &base);
        if (hash, steps) != (c.hash, c.steps) {
            wrong.push(format!(
                "{} ({}): hash {hash:016x} in {steps} steps, fixture {:016x} in {}",
                c.name,
                c.mode.name(),
                c.hash,
                c.steps
            ));
        }
    }
    report!(
        "trace hashes: {} cases checked ({} built-in runs, {cx} counterexamples), {} differ",
        cases.len(),
        builtins.len(),
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{} of {} trace hashes differ from the fixture:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

/// The counterexamples still are: each schedule violates its property (native only: the explorer's
/// judge, one more replay per case).
#[cfg(not(target_arch = "wasm32"))]
#[test]
fn every_counterexample_in_the_fixture_still_violates_its_property() {
    let base = explorer_base();
    let cases = parse(FIXTURE);
    let mut checked = 0;
    for c in cases.iter().filter(|c| c.schedule.is_some()) {
        let property = property_of(&c.name);
        let opts = Options { mode: c.mode, seed: c.seed, property, ..Options::default() };
        let schedule = c.schedule.as_ref().expect("a schedule");
        assert!(
            splitbrain_sim::explore::violates(&base, schedule, &opts).is_some(),
            "{} no longer violates {}",
            c.name,
            property.name()
        );
        checked += 1;
    }
    assert_eq!(checked, COUNTEREXAMPLES);
}

#[cfg(not(target_arch = "wasm32"))]
fn property_of(name: &str) -> Property {
    let p = name.split(':').nth(1).expect("cx:PROPERTY:…");
    Property::parse(p).expect("a property")
}

/// Rewrites the fixture: every built-in in every mode, then counterexamples found by the explorer
/// (distinct schedules) until there are [`COUNTEREXAMPLES`].
#[cfg(not(target_arch = "wasm32"))]
fn bless() {
    let base = explorer_base();
    let mut cases = Vec::new();
    for name in builtin_names() {
        for mode in Mode::ALL {
            let mut c = Case { name: format!("builtin:{name}"), mode, seed: 0, steps: 0, hash: 0, schedule: None };
            c.seed = c.scenario(&base).seed;
            (c.hash, c.steps) = replay(&c, &base);
            cases.push(c);
        }
    }
    // (mode, property, how many, search budget per seed): legacy's leader -1 is the incident; two
    // acting controllers is found in every ZooKeeper mode (KRaft finds none in 200 schedules).
    let plan = [
        (Mode::Legacy, Property::LeaderMinusOne, 40, 400),
        (Mode::Legacy, Property::TwoControllers, 20, 100),
        (Mode::Kafka11, Property::TwoControllers, 20, 100),
        (Mode::Fenced, Property::TwoControllers, 20, 100),
    ];
    let mut found: Vec<Case> = Vec::new();
    for (mode, property, want, budget) in plan {
        let mut got = 0;
        for seed in 1..=400u64 {
            if got == want {
                break;
            }
            let opts = Options { mode, seed, property, ..Options::default() };
            let mut ex = Explorer::new(builtin("seed-incident").expect("built-in"), opts);
            let Some(cx) = ex.run(budget).cloned() else { continue };
            if found.iter().any(|c| c.mode == mode && c.schedule.as_ref() == Some(&cx.schedule)) {
                continue;
            }
            let mut c = Case {
                name: format!("cx:{}:{}:seed-{seed}", property.name(), mode.name()),
                mode,
                seed,
                steps: 0,
                hash: 0,
                schedule: Some(cx.schedule.clone()),
            };
            (c.hash, c.steps) = replay(&c, &base);
            // The row's reconstruction is the explorer's own counterexample scenario.
            assert_eq!(trace_hash(&cx.scenario, mode).expect("replays").0, c.hash, "{}", c.name);
            found.push(c);
            got += 1;
        }
        assert_eq!(got, want, "{} {} counterexamples found in {}", mode.name(), property.name(), "seeds 1-400");
    }
    assert_eq!(found.len(), COUNTEREXAMPLES);
    cases.extend(found);
    let mut text = String::from(
        "# Trace hashes that native and wasm runs must reproduce (crates/sim/tests/trace_hashes.rs).\n\
         # hash: splitbrain_sim::explore::trace_hash, FNV-1a over every event's JSON, to the run's end.\n\
         # Rows: every built-in in every mode (seed: the scenario's own), then explorer\n\
         # counterexamples on seed-incident's cluster (one standalone ZooKeeper server), replayed from\n\
         # their schedule with a 30 s settle. Regenerate: BLESS=1 cargo test -p splitbrain-sim --test trace_hashes\n\
         # case\tmode\tseed\tsteps\thash\tschedule\n",
    );
    for c in &cases {
        text.push_str(&c.row());
        text.push('\n');
    }
    std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/trace-hashes.tsv"), text).expect("writes");
    report!("trace hashes: blessed {} cases", cases.len());
}
