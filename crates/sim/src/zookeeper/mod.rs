//! The ZooKeeper ensemble (3.4.10), as servers, not as one store: each server is a sans-IO node
//! with its own replica of the data, and they agree through a leader, so a lagging follower answers
//! stale reads and a write commits only through the leader with a quorum. Here live
//! `server.rs` (the server node: connections, sessions, requests, watch delivery) and
//! `quorum.rs` (its quorum half: election, sync, forwarded writes, commits), `proto.rs` (what
//! servers say to each other), `data_tree.rs` (a server's replica: `DataTree` with its session
//! table), `session_tracker.rs` (the leader's expirer), and the client protocol's vocabulary:
//! `ops.rs` (requests, results, errors), `watch.rs`, `session.rs`. Sessions are expired only by
//! the leader, and a client cut off from ZooKeeper cannot learn it has expired until it reconnects
//! (ZooKeeper programmer's guide, "Sessions"; ZOOKEEPER-688). Who may call it: the world routes
//! messages, timers and link changes to `server::ZkServerNode` and builds a scenario's steady-state
//! trees (`world/build.rs`); Kafka's side (`zk_client.rs`, the controller, brokers, tools, views,
//! alerts) speaks the vocabulary and reads a replica; only a server applies requests to a tree
//! (and `splitbrain zk-replay`, which drives one tree alone). The data is Kafka's, typed
//! (`crate::znodes`), which ZooKeeper stores without reading; the exceptions are the count of
//! changes under `/brokers/` the alerts read (`DataTree::brokers_version`) and the server's calls
//! to `znodes::writes` for the lines Kafka's story needs.
pub mod data_tree;
pub mod ops;
pub mod proto;
pub mod quorum;
pub mod server;
pub mod session;
pub mod session_tracker;
pub mod watch;
