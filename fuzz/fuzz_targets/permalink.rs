//! A permalink fragment (`share.rs`): `Link::decode`, then, as the page does with a decoded link,
//! `Link::restore`. The first byte picks the input's shape: a raw fragment as typed in an address
//! bar, or a JSON payload that the target packs as a valid `v2.` link (DEFLATE + base64url), so
//! the fuzzer reaches the run description and the restore, not only the framing.
#![no_main]
use libfuzzer_sys::fuzz_target;
use splitbrain_sim::share::{b64url_encode, deflate, Link};

#[path = "contract.rs"]
mod contract;

/// Restores only links whose steps stay within this many steps, so that one input stays fast (the
/// page's restore is bounded by the core's step limit either way).
const RESTORE_STEPS: u64 = 5_000;

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else { return };
    let fragment = if shape & 1 == 0 {
        // A browser hands the page a string; anything else is not a fragment.
        let Ok(text) = std::str::from_utf8(rest) else { return };
        text.to_string()
    } else {
        format!("v{}.{}", 1 + (shape >> 1) % 2, b64url_encode(&deflate(rest)))
    };
    let link = match Link::decode(&fragment) {
        Ok(l) => l,
        Err(e) => return contract::one_line("Link::decode", &e),
    };
    if link.step > RESTORE_STEPS || link.commands.iter().any(|c| c.at_step > RESTORE_STEPS) {
        return;
    }
    if let Err(e) = link.restore() {
        contract::one_line("Link::restore", &e);
    }
});
