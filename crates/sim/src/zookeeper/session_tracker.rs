//! The leader's `SessionTrackerImpl` (ZooKeeper 3.4.10; standalone servers use the same class):
//! sessions expire in `tickTime` buckets, not at an exact instant.
//!
//! * `roundToInterval(t) = (t / tick + 1) * tick` — one interval of grace
//!   (`release-3.4.10 SessionTrackerImpl.java:88`);
//! * `touchSession` moves a session to the bucket `roundToInterval(now + timeout)` unless it is
//!   already in a later one, and refuses a closing session (`SessionTrackerImpl.java:165-193`);
//! * the expirer wakes at each bucket time and expires every session still in that bucket: it
//!   marks it closing (`setSessionClosing`) and submits a `closeSession` transaction
//!   (`SessionTrackerImpl.java:141-160`, `ZooKeeperServer.expire`/`close`, `ZooKeeperServer.java:356,333`);
//! * `checkSession`: a request on a missing or closing session gets `SESSIONEXPIRED`
//!   (`SessionTrackerImpl.java:260`, called from `PrepRequestProcessor.java:325`).
//!
//! **A steady clock is assumed.** 3.4.10's tracker reads the wall clock, `System.currentTimeMillis()`:
//! for the first bucket (`SessionTrackerImpl.java:101`), in the expirer loop (:144) and in
//! `touchSession` (:177). The expirer wakes, removes the bucket `nextExpirationTime`, expires it
//! and adds one interval, with no wait while the clock is past it (:143-157), so a forward step of
//! the leader's wall clock expires every bucket it jumps over at once, whether or not those
//! sessions' clients are alive; a backward step delays every expiry by the step. ZOOKEEPER-2774
//! (3.4.11, commit 3c4f01f) switched these reads to `Time.currentElapsedTime()` (`System.nanoTime`).
//! The model's virtual time never steps, so its rule — expiry in (timeout, timeout + tick] after the
//! last touch the leader saw — holds only for a leader whose clock does not jump.
//!
//! The tracker only holds times; the server owns the timers (one per bucket that holds a session).
use super::session::SessionId;
use crate::vec_map::{VecMap, VecSet};
use alloc::vec::Vec;

/// The session tracker of a leading (or standalone) server.
#[derive(Clone, PartialEq, Eq, Debug, Default, Hash)]
pub struct SessionTracker {
    tick_ms: u64,
    /// Session → (timeout, the bucket it expires in).
    sessions: VecMap<SessionId, (u64, u64)>,
    closing: VecSet<SessionId>,
}

impl SessionTracker {
    /// An empty tracker with `tickTime` = `tick_ms`.
    pub fn new(tick_ms: u64) -> Self {
        SessionTracker { tick_ms: tick_ms.max(1), sessions: VecMap::new(), closing: VecSet::new() }
    }

    /// `roundToInterval`: the first bucket boundary strictly after `t`.
    pub fn round_to_interval(&self, t: u64) -> u64 {
        (t / self.tick_ms + 1) * self.tick_ms
    }

    /// `addSession` (then `touchSession`): tracks a session touched at `now`; returns its bucket.
    pub fn add(&mut self, id: SessionId, timeout_ms: u64, now: u64) -> u64 {
        let at = self.round_to_interval(now + timeout_ms);
        let e = self.sessions.or_insert_with(id, || (timeout_ms, at));
        e.1 = e.1.max(at);
        e.1
    }

    /// `touchSession`: `Some(bucket)` the session now expires in, `None` if it is unknown or
    /// closing (the caller must then treat it as expired).
    pub fn touch(&mut self, id: SessionId, now: u64) -> Option<u64> {
        if self.closing.contains(&id) {
            return None;
        }
        let tick = self.tick_ms;
        let (timeout, at) = self.sessions.get_mut(&id)?;
        let new = ((now + *timeout) / tick + 1) * tick;
        if new > *at {
            *at = new;
        }
        Some(*at)
    }

    /// `checkSession`: the session exists and is not closing.
    pub fn check(&self, id: SessionId) -> bool {
        self.sessions.contains_key(&id) && !self.closing.contains(&id)
    }

    /// The bucket a session expires in.
    pub fn expires_at(&self, id: SessionId) -> Option<u64> {
        self.sessions.get(&id).map(|s| s.1)
    }

    /// The expirer at bucket time `at`: sessions of that bucket (or an earlier one), not closing.
    pub fn due(&self, at: u64) -> Vec<SessionId> {
        self.sessions.iter().filter(|(id, s)| s.1 <= at && !self.closing.contains(id)).map(|(id, _)| *id).collect()
    }

    /// Tracked sessions that are not closing.
    pub fn live(&self) -> impl Iterator<Item = SessionId> + '_ {
        self.sessions.keys().copied().filter(|s| !self.closing.contains(s))
    }

    /// `setSessionClosing`.
    pub fn set_closing(&mut self, id: SessionId) {
        self.closing.insert(id);
    }

    /// `removeSession`, once the `closeSession` transaction is applied.
    pub fn remove(&mut self, id: SessionId) {
        self.sessions.remove(&id);
        self.closing.remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_expire_in_tick_buckets_with_one_interval_of_grace() {
        let mut t = SessionTracker::new(2000);
        assert_eq!(t.round_to_interval(0), 2000);
        assert_eq!(t.round_to_interval(1999), 2000);
        assert_eq!(t.round_to_interval(2000), 4000);
        // Touched at 20 000 with a 6 000 ms timeout: expires at 28 000, not 26 000.
        assert_eq!(t.add(1, 6000, 20_000), 28_000);
        assert!(t.due(26_000).is_empty());
        assert_eq!(t.due(28_000), alloc::vec![1]);
        // A touch a little later lands in the same bucket; a later one moves it on.
        assert_eq!(t.touch(1, 20_500), Some(28_000));
        assert_eq!(t.touch(1, 22_100), Some(30_000));
        assert!(t.due(28_000).is_empty());
        t.set_closing(1);
        assert_eq!(t.touch(1, 23_000), None, "a closing session cannot be touched");
        assert!(!t.check(1));
        t.remove(1);
        assert_eq!(t.touch(1, 23_000), None);
    }
}
