//! What the fuzz targets (fuzz/, scripts/fuzz.sh) found, as ordinary tests: each crashing input,
//! verbatim, with the contract it broke. A rejection is one non-empty line; nothing panics.
use splitbrain_sim::share::{b64url_encode, deflate, Link};
use splitbrain_sim::Scenario;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The contract of fuzz/fuzz_targets/contract.rs.
fn assert_one_line(msg: &str) {
    assert!(!msg.trim().is_empty(), "an empty rejection");
    assert!(!msg.chars().any(|c| c.is_control() && c != '\t'), "not one line: {msg:?}");
}

/// fuzz target `scenario`, 2026-12-05 (crash-9df7e2ff…): serde's "unknown field" echoed a field
/// named by the JSON escape `\u0000` raw, a NUL inside the CLI's error line.
#[test]
fn a_scenario_with_a_control_character_in_a_field_name_is_refused_in_one_line() {
    let input = "{\n \"\\u0000\" \"name\": \"see{d-";
    let e = Scenario::from_json(input).expect_err("not a scenario").to_string();
    assert_one_line(&e);
    assert!(e.starts_with("invalid scenario JSON: unknown field `\\u{0}`"), "{e}");
    // A line break in a field name, the same path.
    let e = Scenario::from_json("{\"a\\nb\": 1}").expect_err("not a scenario").to_string();
    assert_one_line(&e);
    assert!(e.contains("unknown field `a\\nb`"), "{e}");
}

/// fuzz target `permalink`, 2026-12-05 (crash-f73cc21b…): the version prefix of a hostile
/// fragment was echoed raw, NULs and all.
#[test]
fn a_link_with_control_characters_in_its_version_is_refused_in_one_line() {
    let fragment = "#vP\0\0\0\0\0\0\x000tyi\0#v1.q1YqSi0tyi_\"command\0(:IqLkksSlGqBQA_\"command\0(:IqLkksSlGqBQA";
    let e = Link::decode(fragment).expect_err("not a link");
    assert_one_line(&e);
    assert_eq!(e, "'vP\\u{0}\\u{0}\\u{0}\\u{0}\\u{0}\\u{0}\\u{0}0tyi\\u{0}#v1' is not a link version (expected v3)");
}

/// The same class through a valid link's payload: serde's "unknown field", and a built-in's name
/// that `restore` echoes.
#[test]
fn names_inside_a_link_are_echoed_on_one_line() {
    let pack = |json: &str| format!("v3.{}", b64url_encode(&deflate(json.as_bytes())));
    let e = Link::decode(&pack("{\"seed\":1,\"x\\ny\":2}")).expect_err("unknown field");
    assert_one_line(&e);
    assert!(e.contains("unknown field `x\\ny`"), "{e}");
    let link = Link::decode(&pack("{\"builtin\":\"seed\\nincident\",\"seed\":1}")).expect("a link");
    let e = link.restore().map(|_| ()).expect_err("no such built-in");
    assert_one_line(&e);
    assert_eq!(e, "the link names an unknown built-in scenario 'seed\\nincident'");
}
