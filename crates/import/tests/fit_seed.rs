//! The "done when": the scenario fitted to the reconstructed seed-blog log reaches leader
//! -1 in 1.0, and the fence refuses the deposed write in 2.1.
use splitbrain_import::{fit, Input};
use std::path::Path;

fn case(name: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/logs").join(name);
    let mut files = Vec::new();
    for sub in std::fs::read_dir(&dir).expect("case folder") {
        let p = sub.expect("entry").path();
        let mut paths: Vec<_> = if p.is_dir() {
            std::fs::read_dir(&p).expect("dir").map(|e| e.expect("e").path()).collect()
        } else {
            vec![p]
        };
        paths.sort();
        for f in paths {
            if f.extension().is_some_and(|e| e == "log") {
                files.push((
                    f.strip_prefix(&dir).expect("inside").display().to_string(),
                    std::fs::read(&f).expect("read"),
                ));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn the_seed_blog_fit_reaches_leader_none_in_1_0_and_the_fence_refuses_it_in_2_1() {
    let files = case("seed-blog-1.0");
    let inputs: Vec<Input<'_>> = files.iter().map(|(n, b)| Input { name: n, bytes: b, broker: None }).collect();
    let report = splitbrain_import::import(&inputs, &mut |_, _| {});
    let f = fit::fit(&report);
    assert!(f.fitted, "not fitted: {:?}", f.missing);
    let roles: Vec<(&str, i32)> = f.roles.iter().map(|r| (r.role, r.broker)).collect();
    assert_eq!(roles, vec![("deposed controller", 1), ("new controller", 2), ("old leader", 3)]);
    assert_eq!(f.partition.as_ref().map(|p| (p.topic.as_str(), p.partition)), Some(("__consumer_offsets", 3)));
    let v = |m: &str| f.verdicts.iter().find(|v| v.mode == m).unwrap_or_else(|| panic!("no {m} verdict: {f:?}"));
    assert_eq!((v("1.0").leader, v("1.0").reproduced), (-1, true), "{:?}", v("1.0"));
    assert!(v("2.1").leader >= 0 && v("2.1").words.contains("BADVERSION"), "{:?}", v("2.1"));
    assert!(v("KRaft").leader >= 0, "{:?}", v("KRaft"));
    assert!(
        f.missing.iter().any(|m| m.starts_with("how the controller moved")),
        "the logs do not say how: {:?}",
        f.missing
    );
    assert!(f.permalink.is_some());
}

fn fit_of(name: &str) -> fit::Fit {
    let files = case(name);
    let inputs: Vec<Input<'_>> = files.iter().map(|(n, b)| Input { name: n, bytes: b, broker: None }).collect();
    fit::fit(&splitbrain_import::import(&inputs, &mut |_, _| {}))
}

#[test]
fn an_operators_delete_in_1_1_fits_the_operator_story_and_2_1_refuses_it() {
    let f = fit_of("zombie-controller-1.1");
    assert_eq!(f.template, Some("operator-delete"), "{f:?}");
    assert_eq!(f.roles.iter().take(2).map(|r| r.broker).collect::<Vec<_>>(), vec![1, 2]);
    let v21 = f.verdicts.iter().find(|v| v.mode == "2.1").expect("2.1");
    assert!(v21.words.contains("BADVERSION"), "{v21:?}");
}

#[test]
fn an_election_error_without_a_deposed_write_is_not_fitted_and_says_what_is_missing() {
    let f = fit_of("election-error-1.0");
    assert!(!f.fitted, "{f:?}");
    assert!(f.missing[0].contains("(election_error explained above)"), "{:?}", f.missing);
    assert!(f.missing.iter().any(|m| m.starts_with("a decision by the older controller")), "{:?}", f.missing);
}
