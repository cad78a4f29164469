//! How often the worker reports its progress: about every [`EVERY_MS`], and at the end. The
//! import calls its progress callback as often as it likes; the clock is read only when enough
//! bytes have gone by since the last look ([`LOOK_BYTES`]), so a per-line callback stays cheap.

/// Wall-clock time between two progress messages.
pub const EVERY_MS: f64 = 100.0;

/// Bytes between two looks at the clock.
pub const LOOK_BYTES: u64 = 64 * 1024;

/// Decides which progress calls become messages.
#[derive(Clone, Debug)]
pub struct Throttle {
    last_ms: f64,
    looked_at: u64,
    sent_done: bool,
}

impl Throttle {
    /// A throttle whose clock starts at `now_ms` (the first report comes [`EVERY_MS`] later).
    pub fn new(now_ms: f64) -> Throttle {
        Throttle { last_ms: now_ms, looked_at: 0, sent_done: false }
    }

    /// Should progress `done` of `total` be posted? `now` is read only when it might be.
    pub fn due(&mut self, done: u64, total: u64, now: &mut dyn FnMut() -> f64) -> bool {
        if done >= total {
            let first = !self.sent_done;
            self.sent_done = true;
            return first;
        }
        if done < self.looked_at.saturating_add(LOOK_BYTES) {
            return false;
        }
        self.looked_at = done;
        let t = now();
        if t - self.last_ms >= EVERY_MS {
            self.last_ms = t;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn posts_about_every_100_ms_and_once_at_the_end() {
        let mut clock = 0.0;
        let mut looks = 0;
        let mut t = Throttle::new(0.0);
        let mut posted = Vec::new();
        // 10 MB, one callback per 100-byte line, 1 ms per 10 KB.
        let total = 10_000_000u64;
        let mut done = 0;
        while done < total {
            done += 100;
            clock = done as f64 / 10_000.0;
            let c = clock;
            if t.due(done, total, &mut || {
                looks += 1;
                c
            }) {
                posted.push(done);
            }
        }
        assert!(!t.due(total, total, &mut || clock), "the end is posted once");
        // 1000 ms of parsing: about 10 messages, the last one the end.
        assert!((9..=11).contains(&posted.len()), "{posted:?}");
        assert_eq!(posted.last(), Some(&total));
        assert!(looks < 200, "the clock was read {looks} times");
    }
}
