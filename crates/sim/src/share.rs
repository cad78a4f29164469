//! Permalinks: a whole run (scenario — a built-in's name or the scenario itself —, mode, seed, the
//! user's faults with the steps they were made at, and the step shown) in one URL fragment.
//! Format: `v3.` + base64url (no padding) of raw DEFLATE of a small JSON object. Versioned, size
//! limited, and every failure is a one-line message; decoding never panics.
//!
//! The version also names the model a link was made with. `v1` links were made before the model
//! had a ZooKeeper ensemble and 1.0's own controller-move paths (2026-12-03): they still open, with
//! a notice ([`Link::notice`]) that the run may differ, and a `v1` link to the built-in
//! `seed-incident` opens `zkclient-retry`, which carries that scenario's old faults. `v2` links were
//! made before `seed-incident` lost its operator (2026-12-07): a `v2` link to it opens
//! `operator-delete`, the scenario that now carries the operator's delete of `/controller`; every
//! `v2` link also gets the notice, since ZooKeeper's client now sleeps before it reconnects.
use crate::scenario::{builtin, one_line, Mode, Scenario};
use crate::timeline::{Timeline, UserCommand};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The current link version.
pub const VERSION: u32 = 3;
/// The oldest link version still read.
pub const OLDEST_VERSION: u32 = 1;
/// Longest fragment accepted.
pub const MAX_LINK_BYTES: usize = 64 * 1024;
/// Largest decompressed payload accepted.
pub const MAX_PAYLOAD_BYTES: usize = 1024 * 1024;

/// Everything a link restores.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// A built-in's name, when the scenario is a built-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub builtin: Option<String>,
    /// The scenario itself otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Scenario>,
    /// Kafka behaviour.
    #[serde(default)]
    pub mode: Mode,
    /// Seed.
    pub seed: u64,
    /// The user's faults.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub commands: Vec<UserCommand>,
    /// The step shown.
    #[serde(default)]
    pub step: u64,
    /// The behaviour shown side by side, if any (links without it open as before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compare: Option<Mode>,
    /// The link version it was decoded from ([`VERSION`] for a link made now).
    #[serde(skip, default = "current_version")]
    pub version: u32,
}

fn current_version() -> u32 {
    VERSION
}

impl Link {
    /// The link for a timeline at its cursor.
    pub fn of(t: &Timeline, mode: Mode) -> Link {
        let s = t.scenario();
        let is_builtin = builtin(&s.name).as_ref() == Some(s);
        Link {
            builtin: is_builtin.then(|| s.name.clone()),
            scenario: (!is_builtin).then(|| s.clone()),
            mode,
            seed: t.world_at(0).map(|w| w.seed()).unwrap_or(s.seed),
            commands: t.user_commands().to_vec(),
            step: t.cursor() as u64,
            compare: None,
            version: VERSION,
        }
    }

    /// The built-in this link opens: its own, except that an older link to `seed-incident` opens
    /// the scenario that now carries `seed-incident`'s faults of then: `zkclient-retry` for `v1`,
    /// `operator-delete` for `v2`.
    pub fn builtin_opened(&self) -> Option<&str> {
        match self.builtin.as_deref() {
            Some("seed-incident") if self.version < 2 => Some("zkclient-retry"),
            Some("seed-incident") if self.version < 3 => Some("operator-delete"),
            other => other,
        }
    }

    /// What the reader should know before trusting the restored run: why it may differ from the
    /// run the link was made from. None for a link made by this version.
    pub fn notice(&self) -> Option<String> {
        if self.version >= VERSION {
            return None;
        }
        let moved = match (self.builtin.as_deref(), self.builtin_opened()) {
            (Some(a), Some(b)) if a != b => format!(
                " Its scenario '{a}' has changed since; the run this link showed is closest to the built-in '{b}', opened here."
            ),
            _ => String::new(),
        };
        let since = if self.version < 2 {
            "ZooKeeper expires sessions in tickTime buckets, Kafka 1.0's own controller-move paths are modelled, and ZooKeeper's client sleeps before it reconnects"
        } else {
            "ZooKeeper's client sleeps before it reconnects and sets its watches again on a new connection, and seed-incident needs no operator"
        };
        Some(format!(
            "This link was made with an older model (link version {}): since then {since}, so times and steps may differ from what its author saw.{moved}",
            self.version
        ))
    }

    /// Rebuilds the timeline: same scenario, mode and seed; the user's faults re-applied at their
    /// steps; the cursor at the saved step. A refusal is one line (names from the link escaped).
    pub fn restore(&self) -> Result<Timeline, String> {
        self.restore_timeline().map_err(|e| one_line(&e))
    }

    fn restore_timeline(&self) -> Result<Timeline, String> {
        let scenario = match (self.builtin_opened(), &self.scenario) {
            (Some(name), _) => {
                builtin(name).ok_or_else(|| format!("the link names an unknown built-in scenario '{name}'"))?
            }
            (None, Some(s)) => {
                s.config().map_err(|e| format!("the link's scenario is invalid: {e}"))?;
                s.clone()
            }
            (None, None) => return Err("the link holds no scenario".into()),
        };
        let mut t = Timeline::with_mode(scenario, Some(self.seed), self.mode).map_err(|e| format!("{e}"))?;
        let mut cmds = self.commands.clone();
        crate::sorted::sort_by_key(&mut cmds, |c| c.at_step);
        for c in cmds {
            t.seek(c.at_step as usize);
            if t.cursor() as u64 != c.at_step {
                return Err(format!(
                    "the link's fault '{}' is at step {}, past the end of the run",
                    c.command.describe(),
                    c.at_step
                ));
            }
            t.apply(c.command.clone())
                .map_err(|e| format!("the link's fault at step {} was refused: {e}", c.at_step))?;
        }
        t.seek(self.step as usize);
        Ok(t)
    }

    /// Encodes as a fragment (without `#`).
    pub fn encode(&self) -> String {
        let json = serde_json::to_vec(self).unwrap_or_default();
        let packed = deflate(&json);
        format!("v{VERSION}.{}", b64url_encode(&packed))
    }

    /// Decodes a fragment (with or without `#`). A refusal is one line: what it echoes from the
    /// link (its version prefix, serde's "unknown field") has its control characters escaped.
    pub fn decode(fragment: &str) -> Result<Link, String> {
        Link::decode_fragment(fragment).map_err(|e| one_line(&e))
    }

    fn decode_fragment(fragment: &str) -> Result<Link, String> {
        let f = fragment.trim().trim_start_matches('#');
        if f.is_empty() {
            return Err("the link is empty".into());
        }
        if f.len() > MAX_LINK_BYTES {
            return Err(format!("the link is {} bytes long; the limit is {MAX_LINK_BYTES}", f.len()));
        }
        let (ver, body) = f.split_once('.').ok_or("the link has no version prefix (expected v3.…)")?;
        let v: u32 = ver
            .strip_prefix('v')
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("'{}' is not a link version (expected v3)", clip(ver)))?;
        if !(OLDEST_VERSION..=VERSION).contains(&v) {
            return Err(if v > VERSION {
                format!(
                    "this link was made by a newer splitbrain (link version {v}); this page reads version {VERSION}"
                )
            } else {
                format!("link version {v} is not supported; this page reads version {VERSION}")
            });
        }
        let packed = b64url_decode(body).ok_or("the link is not valid base64url (was it cut short or edited?)")?;
        let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&packed, MAX_PAYLOAD_BYTES)
            .map_err(|_| String::from("the link's data is corrupted or too large (it does not decompress)"))?;
        let text = core::str::from_utf8(&json).map_err(|_| String::from("the link's data is not UTF-8 text"))?;
        let mut link: Link =
            serde_json::from_str(text).map_err(|e| format!("the link's data is not a valid run description: {e}"))?;
        link.version = v;
        Ok(link)
    }
}

/// The behaviour a scenario opens in when the reader loads it (a built-in, or a file saved by the
/// playground) while `shown` runs in `shown_mode`: the behaviour it names (a built-in such as
/// `controller-moved` names its own), else the one shown — unless that one was only the shown
/// scenario's own choice, which does not stick to the next scenario (then the default). A link
/// names its mode itself ([`Link::mode`]).
pub fn opening_mode(next: &Scenario, shown: &Scenario, shown_mode: Mode) -> Mode {
    next.mode.unwrap_or(if shown.mode == Some(shown_mode) { Mode::default() } else { shown_mode })
}

/// Raw DEFLATE as links use it.
pub fn deflate(data: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(data, 9)
}

fn clip(s: &str) -> String {
    s.chars().take(20).collect()
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding.
pub fn b64url_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = match chunk.len() {
            3 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8 | chunk[2] as u32,
            2 => (chunk[0] as u32) << 16 | (chunk[1] as u32) << 8,
            _ => (chunk[0] as u32) << 16,
        };
        for i in 0..chunk.len() + 1 {
            out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes base64url (padding optional); None on any other character.
pub fn b64url_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        } as u32;
        acc = acc << 6 | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if s.len() % 4 == 1 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_opens_in_its_own_mode_and_a_borrowed_mode_does_not_stick() {
        let named = |m: Option<Mode>| Scenario { mode: m, ..builtin("seed-incident").expect("built-in") };
        let (plain, kraft) = (named(None), named(Some(Mode::Kraft)));
        assert_eq!(opening_mode(&kraft, &plain, Mode::Fenced), Mode::Kraft, "the scenario's own");
        assert_eq!(opening_mode(&plain, &plain, Mode::Fenced), Mode::Fenced, "the reader's choice carries");
        assert_eq!(opening_mode(&plain, &kraft, Mode::Kraft), Mode::default(), "the last scenario's own does not");
        assert_eq!(opening_mode(&plain, &kraft, Mode::Fenced), Mode::Fenced, "changed by the reader, it carries");
    }

    #[test]
    fn base64url_round_trips() {
        for n in 0..40u8 {
            let data: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37)).collect();
            assert_eq!(b64url_decode(&b64url_encode(&data)).unwrap(), data);
        }
        assert_eq!(b64url_encode(b"hi?"), "aGk_");
        assert!(b64url_decode("ab$c").is_none());
    }
}
