//! A fingerprint of everything that decides a world's future, for merging equal states in the
//! exhaustive explorer ([`crate::explore::exhaustive`]), as Stateright and TLC do.
//!
//! Hashed: the configuration (the scenario's end included), every queued item at its absolute
//! time in queue order, the stalled server-to-server packets, the PRNG state, the network, the
//! control plane (ZooKeeper servers and their trees, or the KRaft quorum and the brokers' images),
//! every broker and consumer, the alerts (not the memo they are computed with, which follows from the rest), and the step faults
//! not yet applied with their distance in steps. Left out, because they only label: the step
//! counter (beyond that distance), message ids and send times, the id counter, the scenario name
//! and seed, what the last step delivered or dropped (for drawing), and `now` itself — every
//! queued item lies at or after it and every handler reads the time of its own item, so two worlds
//! that differ only in `now` have the same future. Times stay absolute (actors hold absolute
//! deadlines), so worlds are compared at the same instant, as the explorer does.
//!
//! The hasher is FNV-1a over a fixed byte encoding (integers little-endian, `usize` as 64 bits),
//! so a hash is the same natively and in wasm. It is 64 bits: merging two different states needs
//! a collision, about 2^-64 per pair.
use super::{Item, World};
use crate::fnv::Fnv;
use crate::message::Message;
use core::hash::{Hash, Hasher};

/// A message as far as its future goes: not its id nor its send time (labels).
fn hash_message(m: &Message, h: &mut Fnv) {
    let Message { id: _, from, to, sent_ms: _, sent_step: _, deliver_ms, link_gen, incarnation, payload } = m;
    (from, to, deliver_ms, link_gen, incarnation, payload).hash(h);
}

impl World {
    /// A 64-bit fingerprint of everything that decides this world's future (see the module doc of
    /// `world/state_hash.rs`): equal for two worlds whose futures under the same inputs are equal,
    /// whatever steps and message ids led there.
    pub fn state_hash(&self) -> u64 {
        // Every field named: a field added to `World` does not compile here until it is classed.
        let World {
            cfg,
            name: _,
            seed: _,
            now: _,
            step,
            queue,
            rng,
            net,
            plane,
            brokers,
            consumers,
            next_msg: _,
            alerts,
            // A cache of the alerts' inputs: a function of the hashed state (tests check it equals a
            // full recomputation), so it decides nothing.
            alert_memo: _,
            // Scratch of the step being taken, empty between steps.
            touched: _,
            // What the brokers last showed the ISR checks: a function of the brokers' hashed state
            // as of their last step, read only to skip checks whose inputs did not move.
            isr_seen: _,
            // What the brokers last showed the ZooKeeper relay: likewise a function of their state.
            relay_seen: _,
            relay_zk_seen: _,
            // The broker links as the ISR checks last read them: a function of the network.
            isr_links: _,
            // Text or not: the same decisions either way (tests/render.rs).
            render: _,
            // Room for effects, always empty between steps.
            spare: _,
            last_dropped: _,
            last_delivered: _,
            last_node: _,
            stalled,
            // The run's bounds: the same for every world a search compares (the step bound counts
            // steps, which are labels here).
            limits: _,
        } = self;
        let mut h = Fnv::default();
        cfg.hash(&mut h);
        for (s, cmd) in cfg.after_steps.iter().filter(|(s, _)| s >= step) {
            (s - step).hash(&mut h);
            cmd.hash(&mut h);
        }
        h.write_usize(queue.len());
        for (t, item) in queue.iter() {
            t.hash(&mut h);
            match item {
                Item::Deliver(m) => {
                    0u8.hash(&mut h);
                    hash_message(m, &mut h);
                }
                Item::Timer { node, incarnation, timer } => {
                    1u8.hash(&mut h);
                    node.hash(&mut h);
                    incarnation.hash(&mut h);
                    timer.hash(&mut h);
                }
                Item::Script(c) => {
                    2u8.hash(&mut h);
                    c.hash(&mut h);
                }
            }
        }
        h.write_usize(stalled.len());
        for m in stalled {
            hash_message(m, &mut h);
        }
        rng.hash(&mut h);
        net.hash(&mut h);
        plane.hash(&mut h);
        brokers.hash(&mut h);
        consumers.hash(&mut h);
        alerts.hash(&mut h);
        h.finish()
    }
}
