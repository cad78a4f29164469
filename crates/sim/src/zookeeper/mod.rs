//! The ZooKeeper ensemble, modelled as one linearizable store. This module is its data: ZooKeeper's
//! `DataTree` (znodes with data and versions, ephemeral owners, one-shot watches from its
//! `WatchManager`, conditional `setData`/`delete`, `multi` with `check`) plus the session table of
//! `SessionTrackerImpl`. The server that owns it — connections, request handling, watch delivery,
//! session expiry — is the sans-IO node in [`server`]: sessions are expired only by the server, and a
//! client cut off from ZooKeeper cannot learn it has expired until it reconnects (ZooKeeper
//! programmer's guide, "Sessions"; ZOOKEEPER-688).
pub mod data_tree;
pub mod ops;
pub mod proto;
pub mod quorum;
pub mod server;
pub mod session;
pub mod session_tracker;
pub mod watch;
