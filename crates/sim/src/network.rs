//! The network: one link for every pair of nodes that can talk (broker–broker, broker–ZooKeeper,
//! client–broker), each direction cut and healed on its own, with a one-way latency. A message
//! remembers the cut generation of its direction when sent; if the direction was cut at any moment
//! before it arrives, it is dropped — so a cut drops what the link carries.
use crate::command::Direction;
use crate::ids::NodeId;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// Link latencies by kind of link.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// One-way latency broker ↔ ZooKeeper, ms.
    #[serde(default = "d_zk")]
    pub broker_zk_ms: u64,
    /// One-way latency broker ↔ broker, ms.
    #[serde(default = "d_bb")]
    pub broker_broker_ms: u64,
    /// One-way latency client ↔ broker, ms.
    #[serde(default = "d_cb")]
    pub client_broker_ms: u64,
    /// One-way latency between two ZooKeeper servers, ms.
    #[serde(default = "d_zz")]
    pub zk_zk_ms: u64,
    /// Extra random delay per message, 0..=jitter ms, drawn from the seeded PRNG.
    #[serde(default = "d_jit")]
    pub jitter_ms: u64,
}

fn d_zk() -> u64 {
    5
}
fn d_bb() -> u64 {
    2
}
fn d_cb() -> u64 {
    3
}
fn d_zz() -> u64 {
    1
}
fn d_jit() -> u64 {
    2
}

impl Default for Latency {
    fn default() -> Self {
        Latency {
            broker_zk_ms: d_zk(),
            broker_broker_ms: d_bb(),
            client_broker_ms: d_cb(),
            zk_zk_ms: d_zz(),
            jitter_ms: d_jit(),
        }
    }
}

/// One direction of a link.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct DirState {
    /// Messages pass.
    pub up: bool,
    /// Incremented at every cut.
    pub gen: u64,
}

/// A link between `a` and `b` (`a < b`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize, Hash)]
pub struct Link {
    /// Lower end.
    pub a: NodeId,
    /// Upper end.
    pub b: NodeId,
    /// Direction a → b.
    pub a_to_b: DirState,
    /// Direction b → a.
    pub b_to_a: DirState,
    /// One-way latency, ms.
    pub latency_ms: u64,
}

/// All links, in `(a, b)` order, found through a dense index: every node's position in `nodes`
/// (sorted), and for each pair of positions the link's position in `links` (`NONE` when the two
/// never talk). A lookup is two binary searches over a handful of nodes and one array read.
#[derive(Clone, Debug, Default)]
pub struct Network {
    links: Vec<Link>,
    /// Every node as a sortable integer ([`slot_key`]), in `NodeId` order.
    nodes: Vec<u64>,
    index: Vec<u32>,
    /// A shortcut for ids below [`DENSE`]: `dense[kind * DENSE + id]` is the node's position in
    /// `nodes` plus one (0: no such node). A function of `nodes`, so not hashed.
    dense: Vec<u8>,
}

/// Ids below this (of each kind) are looked up in [`Network::dense`], others by binary search.
const DENSE: usize = 32;

impl core::hash::Hash for Network {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        // As `derive(Hash)` hashed it before `dense` (a function of `nodes`) was added.
        self.links.hash(h);
        self.nodes.hash(h);
        self.index.hash(h);
    }
}

/// [`slot_key`]'s kind and id, when the id is small enough for [`Network::dense`].
fn dense_slot(n: NodeId) -> Option<usize> {
    let (kind, id) = match n {
        NodeId::Zk(i) => (0, i as i64),
        NodeId::Broker(b) => (1, b as i64),
        NodeId::Client(c) => (2, c as i64),
        NodeId::Voter(v) => (3, v as i64),
    };
    (0..DENSE as i64).contains(&id).then(|| kind * DENSE + id as usize)
}

/// A node as one integer with `NodeId`'s order (kind, then id), so a lookup compares integers.
fn slot_key(n: NodeId) -> u64 {
    let (kind, id) = match n {
        NodeId::Zk(i) => (0u64, i as u32),
        // Broker ids are i32: flip the sign bit so the unsigned order is the signed one.
        NodeId::Broker(b) => (1, (b as u32) ^ 0x8000_0000),
        NodeId::Client(c) => (2, c),
        NodeId::Voter(v) => (3, v),
    };
    kind << 32 | id as u64
}

const NONE: u32 = u32::MAX;

fn key(a: NodeId, b: NodeId) -> (NodeId, NodeId) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

impl Network {
    /// A full mesh for `nodes`, minus client–ZooKeeper and client–client (they never talk).
    pub fn new(nodes: &[NodeId], lat: &Latency) -> Self {
        let mut by_key = crate::vec_map::VecMap::new();
        for (i, &x) in nodes.iter().enumerate() {
            for &y in &nodes[i + 1..] {
                let latency_ms = match (x, y) {
                    (NodeId::Zk(_) | NodeId::Voter(_), NodeId::Broker(_))
                    | (NodeId::Broker(_), NodeId::Zk(_) | NodeId::Voter(_)) => lat.broker_zk_ms,
                    (NodeId::Voter(_), NodeId::Voter(_)) => lat.broker_zk_ms,
                    (NodeId::Zk(_), NodeId::Zk(_)) => lat.zk_zk_ms,
                    (NodeId::Broker(_), NodeId::Broker(_)) => lat.broker_broker_ms,
                    (NodeId::Client(_), NodeId::Broker(_)) | (NodeId::Broker(_), NodeId::Client(_)) => {
                        lat.client_broker_ms
                    }
                    _ => continue,
                };
                let (a, b) = key(x, y);
                let up = DirState { up: true, gen: 0 };
                by_key.insert((a, b), Link { a, b, a_to_b: up, b_to_a: up, latency_ms });
            }
        }
        let links: Vec<Link> = by_key.into_iter().map(|(_, l)| l).collect();
        let mut nodes: Vec<u64> = links.iter().flat_map(|l| [slot_key(l.a), slot_key(l.b)]).collect();
        crate::sorted::sort(&mut nodes);
        nodes.dedup();
        let n = nodes.len();
        let mut index = alloc::vec![NONE; n * n];
        for (i, l) in links.iter().enumerate() {
            let (x, y) =
                (nodes.binary_search(&slot_key(l.a)).unwrap_or(0), nodes.binary_search(&slot_key(l.b)).unwrap_or(0));
            index[x * n + y] = i as u32;
            index[y * n + x] = i as u32;
        }
        let mut dense = alloc::vec![0u8; 4 * DENSE];
        for l in &links {
            for n in [l.a, l.b] {
                if let (Some(d), Ok(x)) = (dense_slot(n), nodes.binary_search(&slot_key(n))) {
                    dense[d] = u8::try_from(x + 1).unwrap_or(0);
                }
            }
        }
        Network { links, nodes, index, dense }
    }

    /// The position in `links` of the link between two nodes.
    fn find(&self, a: NodeId, b: NodeId) -> Option<usize> {
        let x = self.position(a)?;
        let y = self.position(b)?;
        match self.index[x * self.nodes.len() + y] {
            NONE => None,
            i => Some(i as usize),
        }
    }

    /// A node's position in `nodes`.
    fn position(&self, n: NodeId) -> Option<usize> {
        match dense_slot(n).and_then(|d| self.dense.get(d).copied()) {
            Some(0) if self.nodes.len() < 255 => None,
            Some(p) if p != 0 => Some(p as usize - 1),
            _ => self.nodes.binary_search(&slot_key(n)).ok(),
        }
    }

    /// The position of the link between two nodes in [`Network::links`].
    pub(crate) fn link_index(&self, a: NodeId, b: NodeId) -> Option<usize> {
        self.find(a, b)
    }

    /// The link between two nodes, if they can talk at all.
    pub fn link(&self, a: NodeId, b: NodeId) -> Option<&Link> {
        self.find(a, b).map(|i| &self.links[i])
    }

    /// Every link.
    pub fn links(&self) -> impl Iterator<Item = &Link> {
        self.links.iter()
    }

    /// The state of the direction `from → to`.
    pub fn dir(&self, from: NodeId, to: NodeId) -> Option<DirState> {
        let l = self.link(from, to)?;
        Some(if from == l.a { l.a_to_b } else { l.b_to_a })
    }

    /// Messages from `from` reach `to` now.
    pub fn is_up(&self, from: NodeId, to: NodeId) -> bool {
        self.dir(from, to).map(|d| d.up).unwrap_or(false)
    }

    /// Both directions up.
    pub fn both_up(&self, a: NodeId, b: NodeId) -> bool {
        self.is_up(a, b) && self.is_up(b, a)
    }

    fn set(&mut self, a: NodeId, b: NodeId, dir: Direction, up: bool) -> Result<bool, String> {
        let i = self.find(a, b).ok_or_else(|| format!("there is no link between {a} and {b}"))?;
        let l = &mut self.links[i];
        let fwd = a == l.a;
        let (do_ab, do_ba) = match dir.resolve(a, b) {
            Direction::AToB => (fwd, !fwd),
            Direction::BToA => (!fwd, fwd),
            _ => (true, true),
        };
        let mut changed = false;
        for (doit, d) in [(do_ab, &mut l.a_to_b), (do_ba, &mut l.b_to_a)] {
            if doit && d.up != up {
                d.up = up;
                if !up {
                    d.gen += 1;
                }
                changed = true;
            }
        }
        Ok(changed)
    }

    /// Cuts the link; returns whether anything changed.
    pub fn cut(&mut self, a: NodeId, b: NodeId, dir: Direction) -> Result<bool, String> {
        self.set(a, b, dir, false)
    }

    /// Heals the link; returns whether anything changed.
    pub fn heal(&mut self, a: NodeId, b: NodeId, dir: Direction) -> Result<bool, String> {
        self.set(a, b, dir, true)
    }

    /// Resets the connection on a link: both directions' generations move on, so what is in
    /// flight on it is lost; the link stays up. Errors when there is no such link.
    pub fn reset(&mut self, a: NodeId, b: NodeId) -> Result<(), String> {
        let i = self.find(a, b).ok_or_else(|| format!("there is no link between {a} and {b}"))?;
        let l = &mut self.links[i];
        l.a_to_b.gen += 1;
        l.b_to_a.gen += 1;
        Ok(())
    }

    /// Sets a link's latency.
    pub fn set_latency(&mut self, a: NodeId, b: NodeId, ms: u64) -> Result<(), String> {
        let i = self.find(a, b).ok_or_else(|| format!("there is no link between {a} and {b}"))?;
        self.links[i].latency_ms = ms;
        Ok(())
    }

    /// Every peer `node` has a link with.
    pub fn peers(&self, node: NodeId) -> alloc::vec::Vec<NodeId> {
        self.links
            .iter()
            .filter_map(|l| {
                if l.a == node {
                    Some(l.b)
                } else if l.b == node {
                    Some(l.a)
                } else {
                    None
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_way_cuts_and_generations() {
        let nodes = [NodeId::ZK, NodeId::Broker(1), NodeId::Broker(2), NodeId::Client(1)];
        let mut n = Network::new(&nodes, &Latency::default());
        assert!(n.link(NodeId::Client(1), NodeId::ZK).is_none());
        let (b1, zk) = (NodeId::Broker(1), NodeId::ZK);
        let g0 = n.dir(b1, zk).unwrap().gen;
        assert_eq!(n.cut(b1, zk, Direction::AToB), Ok(true));
        assert!(!n.is_up(b1, zk));
        assert!(n.is_up(zk, b1));
        assert_eq!(n.dir(b1, zk).unwrap().gen, g0 + 1);
        assert_eq!(n.cut(b1, zk, Direction::AToB), Ok(false));
        assert_eq!(n.heal(zk, b1, Direction::BToA), Ok(true));
        assert!(n.both_up(b1, zk));
        assert!(n.cut(NodeId::Client(1), NodeId::ZK, Direction::Both).is_err());
    }
}
