//! Derived caches the world keeps so that [`World::post_step`](super::World) asks only what a step
//! could have moved: each a fingerprint of node state, deciding nothing the state does not (state
//! hashes skip them; debug builds check them against the state).
use crate::broker::Broker;
use crate::ids::{BrokerId, NodeId, TopicPartition};
use alloc::vec::Vec;

/// What [`ZkLinks::pinging`] reads of a broker: whether it runs, its session and the server it
/// talks to (a derived cache of its state, deciding nothing the state does not).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RelayKey(bool, Option<crate::zookeeper::session::SessionId>, NodeId);

impl RelayKey {
    pub(super) fn of(b: &Broker) -> Self {
        RelayKey(b.alive, b.zk.session, b.zk.server())
    }
}

/// What a broker's state meant to the ISR checks when a step last touched it (a derived cache of
/// its state, deciding nothing the state does not): what it shows the other leaders
/// ([`FollowerView`]), and a fingerprint of what its own check reads.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct IsrSeen {
    pub(super) view: FollowerView,
    pub(super) own: u64,
    /// The broker's `partitions_stamp` when `view` was last found to be what it shows.
    pub(super) stamp: u64,
}

impl IsrSeen {
    /// A 64-bit fingerprint of what [`Broker::isr_check_due`] reads of the broker itself: whether
    /// it runs and has a check scheduled, its replicas (the partitions it leads: ISR, replicas,
    /// cached zkVersion, refused writes) and the ISR writes in flight. The replicas count by their
    /// `partitions_stamp`, which every write of them moves: a write that leaves the partitions it
    /// leads as they were costs one check of this leader, less than hashing what it leads at every
    /// write did.
    pub(super) fn own(b: &Broker) -> u64 {
        use core::hash::Hasher;
        let mut h = Mix(0);
        h.write_u64(b.alive as u64 | (b.isr_check_pending as u64) << 1);
        h.write_u64(b.partitions_stamp.0);
        for tp in b.isr_writes_in_flight() {
            h.write_partition(tp);
        }
        h.finish()
    }
}

/// A fast 64-bit mixing hasher (multiply-rotate over 8-byte words), for [`IsrSeen::own`].
pub(super) struct Mix(pub(super) u64);

impl Mix {
    fn write_partition(&mut self, tp: &TopicPartition) {
        use core::hash::Hasher;
        if !tp.topic.is_offsets() {
            self.write(tp.topic.as_bytes());
        }
        self.write_u64(tp.partition as u64 | 1 << 40);
    }
}

impl core::hash::Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.write_u64(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        self.write_u64(u64::from_le_bytes(last) ^ ((bytes.len() as u64) << 56));
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }

    fn write_i32(&mut self, x: i32) {
        self.write_u64(x as u32 as u64);
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }
}

/// What a broker shows the other brokers' ISR checks ([`World::fetching`]): whether it runs, and
/// for each of its replicas whether it leads and which leader it follows. A derived cache of the
/// broker's state (it decides nothing a broker's own state does not).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FollowerView {
    pub(super) alive: bool,
    replicas: Vec<(TopicPartition, bool, BrokerId)>,
}

impl FollowerView {
    pub(super) fn of(b: &Broker) -> FollowerView {
        FollowerView {
            alive: b.alive,
            replicas: b.partitions.iter().map(|(tp, p)| (tp.clone(), p.is_leader, p.leader)).collect(),
        }
    }

    /// The leader `b` follows for `tp` (none when it leads it or has no replica of it), found
    /// first at place `i` (where a broker holding the same partitions as the asking leader has
    /// it), else by a search of the replicas (in partition order).
    pub(super) fn follows(&self, i: usize, tp: &TopicPartition) -> Option<BrokerId> {
        let at = match self.replicas.get(i) {
            Some((t, _, _)) if t == tp => i,
            _ => self.replicas.binary_search_by(|(t, _, _)| t.cmp(tp)).ok()?,
        };
        let (_, leads, leader) = &self.replicas[at];
        (!leads).then_some(*leader)
    }

    /// The view is still what `b` shows.
    pub(super) fn is(&self, b: &Broker) -> bool {
        self.alive == b.alive
            && self.replicas.len() == b.partitions.len()
            && self
                .replicas
                .iter()
                .zip(b.partitions.iter())
                .all(|((t, l, f), (tp, p))| *l == p.is_leader && *f == p.leader && t == tp)
    }
}
