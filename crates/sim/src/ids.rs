//! Node and partition identities. Broker ids are `i32` as in Kafka, where `-1`
//! (`LeaderAndIsr.NoLeader`) means "no leader".
use alloc::format;
use alloc::string::{String, ToString};
use alloc::sync::Arc;
use core::fmt;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A Kafka broker id (`broker.id`).
pub type BrokerId = i32;

/// `LeaderAndIsr.NoLeader`: the leader value written when a partition has no leader.
pub const NO_LEADER: BrokerId = -1;

/// Every node that owns a network endpoint: a ZooKeeper server, a broker, a consumer client or a
/// KRaft voter. Written `zk`/`zk1`…`zk5`, `b<id>`, `c<id>`, `q<id>` in scenarios and URLs.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum NodeId {
    /// A ZooKeeper server. `Zk(0)` is the one standalone server named `zk` (what older scenario
    /// files and permalinks name); `Zk(1..=5)` are the servers `zk1`…`zk5` of an ensemble.
    Zk(u8),
    /// A broker with its `broker.id`.
    Broker(BrokerId),
    /// A consumer client.
    Client(u32),
    /// A KRaft controller voter (`kraft` mode only).
    Voter(u32),
}

/// What kind of node an id names: what a UI draws it as (a lane, a box, a cylinder).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Deserialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A ZooKeeper server.
    Zk,
    /// A broker.
    Broker,
    /// A consumer client.
    Client,
    /// A KRaft controller voter.
    Voter,
}

impl NodeKind {
    /// The snake_case word (`zk`, `broker`, `client`, `voter`).
    pub fn name(self) -> &'static str {
        match self {
            NodeKind::Zk => "zk",
            NodeKind::Broker => "broker",
            NodeKind::Client => "client",
            NodeKind::Voter => "voter",
        }
    }
}

impl NodeId {
    /// The standalone ZooKeeper server `zk`.
    pub const ZK: NodeId = NodeId::Zk(0);

    /// What kind of node this is.
    pub fn kind(self) -> NodeKind {
        match self {
            NodeId::Zk(_) => NodeKind::Zk,
            NodeId::Broker(_) => NodeKind::Broker,
            NodeId::Client(_) => NodeKind::Client,
            NodeId::Voter(_) => NodeKind::Voter,
        }
    }

    /// True for a ZooKeeper server.
    pub fn is_zk(self) -> bool {
        matches!(self, NodeId::Zk(_))
    }

    /// The broker id, if this is a broker.
    pub fn broker(self) -> Option<BrokerId> {
        match self {
            NodeId::Broker(b) => Some(b),
            _ => None,
        }
    }

    /// Parses `zk`, `zk1`…`zk5`, `b3`, `broker-3`, `c1`, `client-1`, `q1`.
    pub fn parse(s: &str) -> Result<NodeId, String> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("zk") || t.eq_ignore_ascii_case("zookeeper") {
            return Ok(NodeId::ZK);
        }
        if let Some(r) = t.strip_prefix("zk") {
            return match r.parse::<u8>() {
                Ok(n @ 1..=5) => Ok(NodeId::Zk(n)),
                _ => Err(format!("'{s}' is not a node name (ZooKeeper servers are zk, or zk1 to zk5)")),
            };
        }
        let (kind, num) = if let Some(r) = t.strip_prefix("q") {
            ('q', r)
        } else if let Some(r) = t.strip_prefix("broker-").or_else(|| t.strip_prefix("broker")) {
            ('b', r)
        } else if let Some(r) = t.strip_prefix("client-").or_else(|| t.strip_prefix("client")) {
            ('c', r)
        } else if let Some(r) = t.strip_prefix('b') {
            ('b', r)
        } else if let Some(r) = t.strip_prefix('c') {
            ('c', r)
        } else {
            return Err(format!("'{s}' is not a node name (use zk, b<id>, c<id> or q<id>)"));
        };
        let n: u32 = num.parse().map_err(|_| format!("'{s}' is not a node name (use zk, b<id> or c<id>)"))?;
        Ok(match kind {
            'b' => NodeId::Broker(n as BrokerId),
            'q' => NodeId::Voter(n),
            _ => NodeId::Client(n),
        })
    }
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeId::Zk(0) => f.write_str("zk"),
            NodeId::Zk(n) => write!(f, "zk{n}"),
            NodeId::Broker(b) => write!(f, "b{b}"),
            NodeId::Client(c) => write!(f, "c{c}"),
            NodeId::Voter(v) => write!(f, "q{v}"),
        }
    }
}

impl Serialize for NodeId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for NodeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        NodeId::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// `__consumer_offsets`, the topic every run has (Kafka's `Topic.GroupMetadataTopicName`).
const OFFSETS: &str = "__consumer_offsets";

/// A topic name, cheap to compare and to clone on the engine's hot paths: `__consumer_offsets` is
/// a tag (no bytes compared, nothing allocated), any other name one shared string. It orders,
/// compares, hashes and serializes exactly as its name does (a `String` before), so maps keyed by
/// it iterate in the same order and traces and state hashes are unchanged.
#[derive(Clone, Debug)]
pub struct Topic(TopicRepr);

#[derive(Clone, Debug)]
enum TopicRepr {
    Offsets,
    Other(Arc<str>),
}

impl Topic {
    /// The topic named `name`.
    pub fn new(name: &str) -> Self {
        Topic(if name == OFFSETS { TopicRepr::Offsets } else { TopicRepr::Other(Arc::from(name)) })
    }

    /// This is `__consumer_offsets`.
    pub fn is_offsets(&self) -> bool {
        matches!(self.0, TopicRepr::Offsets)
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            TopicRepr::Offsets => OFFSETS,
            TopicRepr::Other(s) => s,
        }
    }
}

impl core::ops::Deref for Topic {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Topic {
    fn eq(&self, other: &Topic) -> bool {
        match (&self.0, &other.0) {
            (TopicRepr::Offsets, TopicRepr::Offsets) => true,
            (TopicRepr::Other(a), TopicRepr::Other(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

impl Eq for Topic {}

impl PartialEq<str> for Topic {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Topic {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<Topic> for &str {
    fn eq(&self, other: &Topic) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Topic> for String {
    fn eq(&self, other: &Topic) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Ord for Topic {
    fn cmp(&self, other: &Topic) -> core::cmp::Ordering {
        if let (TopicRepr::Offsets, TopicRepr::Offsets) = (&self.0, &other.0) {
            return core::cmp::Ordering::Equal;
        }
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Topic {
    fn partial_cmp(&self, other: &Topic) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl core::hash::Hash for Topic {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl fmt::Display for Topic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Topic {
    fn from(s: &str) -> Topic {
        Topic::new(s)
    }
}

impl From<Topic> for String {
    fn from(t: Topic) -> String {
        t.as_str().into()
    }
}

impl Serialize for Topic {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Topic {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Ok(Topic::new(&s))
    }
}

/// A topic partition (`TopicAndPartition` in 1.0).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct TopicPartition {
    /// Topic name.
    pub topic: Topic,
    /// Partition number.
    pub partition: u32,
}

impl TopicPartition {
    /// Builds a topic partition.
    pub fn new(topic: &str, partition: u32) -> Self {
        TopicPartition { topic: Topic::new(topic), partition }
    }

    /// The partition's state znode, `/brokers/topics/<t>/partitions/<p>/state`.
    pub fn state_path(&self) -> String {
        let mut s = String::with_capacity(48 + self.topic.len());
        self.write_state_path(&mut s);
        s
    }

    /// Calls `f` with [`TopicPartition::state_path`], written on the stack when it fits (lookups
    /// by state path on every step need no allocation).
    pub fn with_state_path<R>(&self, f: impl FnOnce(&str) -> R) -> R {
        let mut buf = [0u8; 128];
        match self.state_path_in(&mut buf) {
            Some(path) => f(path),
            None => f(&self.state_path()),
        }
    }

    /// [`TopicPartition::state_path`] written into `buf`, or `None` if it does not fit.
    fn state_path_in<'b>(&self, buf: &'b mut [u8; 128]) -> Option<&'b str> {
        let mut partition = [0u8; 20];
        let parts: [&[u8]; 5] = [
            b"/brokers/topics/",
            self.topic.as_bytes(),
            b"/partitions/",
            digits(u64::from(self.partition), &mut partition),
            b"/state",
        ];
        let mut n = 0;
        for p in parts {
            buf.get_mut(n..n + p.len())?.copy_from_slice(p);
            n += p.len();
        }
        core::str::from_utf8(&buf[..n]).ok()
    }

    /// Appends [`TopicPartition::state_path`] to `out` (no formatting machinery: hot paths reuse
    /// one buffer).
    pub fn write_state_path(&self, out: &mut String) {
        Self::write_state_path_head(&self.topic, out);
        Self::write_state_path_tail(self.partition, out);
    }

    /// Appends the part of a state path that names the topic, `/brokers/topics/<topic>/partitions/`
    /// (a buffer that keeps it writes only [`TopicPartition::write_state_path_tail`] for each
    /// partition of that topic).
    pub(crate) fn write_state_path_head(topic: &Topic, out: &mut String) {
        out.push_str("/brokers/topics/");
        out.push_str(topic);
        out.push_str("/partitions/");
    }

    /// Appends the rest of a state path after [`TopicPartition::write_state_path_head`]: the
    /// partition's number and `/state`.
    pub(crate) fn write_state_path_tail(partition: u32, out: &mut String) {
        push_decimal(out, i64::from(partition));
        out.push_str("/state");
    }

    /// Appends the partition as it displays (`topic-partition`) to `out`, without the formatting
    /// machinery.
    pub fn write_display(&self, out: &mut String) {
        out.push_str(&self.topic);
        out.push('-');
        push_decimal(out, i64::from(self.partition));
    }

    /// The partition whose state znode is `path` (the inverse of [`TopicPartition::state_path`]).
    pub fn from_state_path(path: &str) -> Option<TopicPartition> {
        let rest = path.strip_prefix("/brokers/topics/")?.strip_suffix("/state")?;
        // The first "/partitions/" (as `split_once` finds it), looked for only at a '/'.
        const SEP: &str = "/partitions/";
        let at = rest.bytes().enumerate().position(|(i, c)| c == b'/' && rest[i..].starts_with(SEP))?;
        let (topic, partition) = (&rest[..at], &rest[at + SEP.len()..]);
        Some(TopicPartition::new(topic, partition.parse().ok()?))
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Appends `n` in decimal, as `{n}` would, without `core::fmt` (for strings built on every step,
/// such as state paths and alert keys).
pub(crate) fn push_decimal(out: &mut String, n: i64) {
    if n < 0 {
        out.push('-');
    }
    let mut buf = [0u8; 20];
    out.extend(digits(n.unsigned_abs(), &mut buf).iter().map(|d| *d as char));
}

/// The decimal digits of `n`, written at the end of `buf`.
pub(crate) fn digits(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// `s` is `n` as `{n}` writes it (compared on the stack, without formatting).
pub(crate) fn is_decimal(s: &str, n: i64) -> bool {
    let mut buf = [0u8; 20];
    let d = digits(n.unsigned_abs(), &mut buf);
    match s.strip_prefix('-') {
        Some(rest) => n < 0 && rest.as_bytes() == d,
        None => n >= 0 && s.as_bytes() == d,
    }
}

/// Formats a broker list the way Kafka's logs do: `1,2,3`.
pub fn fmt_ids(ids: impl IntoIterator<Item = BrokerId>) -> String {
    let mut out = String::new();
    for (i, id) in ids.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&id.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_path_on_the_stack_is_the_state_path() {
        let long = "t".repeat(200);
        for tp in [
            TopicPartition::new("__consumer_offsets", 0),
            TopicPartition::new("orders", 4_000_000_000),
            TopicPartition::new(&long, 7),
        ] {
            assert_eq!(tp.with_state_path(|p| String::from(p)), tp.state_path());
        }
        // Written on the stack when it fits, and only then.
        let mut buf = [0u8; 128];
        let tp = TopicPartition::new("__consumer_offsets", 12);
        assert_eq!(tp.state_path_in(&mut buf), Some(tp.state_path().as_str()));
        assert_eq!(TopicPartition::new(&long, 7).state_path_in(&mut buf), None);
    }

    #[test]
    fn decimals_are_written_as_format_writes_them() {
        for n in [0i64, 7, -1, 10, 12345, -987654321, i64::from(u32::MAX), i64::MAX, i64::MIN] {
            let mut s = String::from("x:");
            push_decimal(&mut s, n);
            assert_eq!(s, alloc::format!("x:{n}"));
        }
        for (s, n) in [("1", 1), ("01", 1), ("-1", -1), ("-0", 0), ("0", 0), ("+1", 1), ("12", 1), ("", 0), ("-", 0)] {
            assert_eq!(is_decimal(s, n), s == alloc::format!("{n}"), "{s} {n}");
        }
    }

    #[test]
    fn node_names_round_trip() {
        for n in [NodeId::ZK, NodeId::Zk(1), NodeId::Zk(5), NodeId::Broker(3), NodeId::Client(1), NodeId::Voter(2)] {
            assert_eq!(NodeId::parse(&n.to_string()), Ok(n));
        }
        assert_eq!(NodeId::parse("broker-2"), Ok(NodeId::Broker(2)));
        assert!(NodeId::parse("b").is_err());
        assert!(NodeId::parse("x9").is_err());
        assert_eq!(NodeId::ZK.to_string(), "zk");
        assert!(NodeId::parse("zk6").is_err() && NodeId::parse("zk0").is_err());
    }

    #[test]
    fn state_paths_name_their_partition_and_back() {
        assert_eq!(
            TopicPartition::from_state_path("/brokers/topics/__consumer_offsets/partitions/12/state"),
            Some(TopicPartition::new("__consumer_offsets", 12))
        );
        let tp = TopicPartition::new("t", 0);
        assert_eq!(TopicPartition::from_state_path(&tp.state_path()), Some(tp));
        assert_eq!(TopicPartition::from_state_path("/brokers/topics/t"), None);
        assert_eq!(TopicPartition::from_state_path("/brokers/topics/t/partitions/x/state"), None);
        // The first "/partitions/" splits, as `str::split_once` would.
        for path in [
            "/brokers/topics/a/b/partitions/1/state",
            "/brokers/topics/t/partitions/1/partitions/2/state",
            "/brokers/topics//partitions/3/state",
            "/brokers/topics/partitions/partitions/4/state",
            "/brokers/topics/t/partitions//state",
        ] {
            let reference = path
                .strip_prefix("/brokers/topics/")
                .and_then(|r| r.strip_suffix("/state"))
                .and_then(|r| r.split_once("/partitions/"))
                .and_then(|(t, p)| Some(TopicPartition::new(t, p.parse().ok()?)));
            assert_eq!(TopicPartition::from_state_path(path), reference, "{path}");
        }
    }
}
