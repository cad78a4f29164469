//! The page's words: times, modes, nodes and links as the page writes them. Plain functions of
//! typed values; nothing here decides Kafka behaviour.
use splitbrain_sim::scenario::Mode;
use splitbrain_sim::view::{MetadataStore, View};
use splitbrain_sim::NodeId;

/// Virtual time as the CLI prints it: `16.469s`, `2d+74.562s`.
pub fn fmt_time(ms: u64) -> String {
    let (d, rem) = (ms / 86_400_000, ms % 86_400_000);
    let secs = format!("{}.{:03}s", rem / 1000, rem % 1000);
    if d > 0 {
        format!("{d}d+{secs}")
    } else {
        secs
    }
}

/// A gap between events long enough to mark in the log.
pub const GAP_MS: u64 = 60_000;

/// Words for a long gap.
pub fn gap_words(ms: u64) -> String {
    let round = |x: u64, unit: u64| (x + unit / 2) / unit;
    if ms >= 36 * 3_600_000 {
        format!("{} days pass", round(ms, 86_400_000))
    } else if ms >= 3_600_000 {
        format!("{} hours pass", round(ms, 3_600_000))
    } else {
        format!("{} minutes pass", round(ms, 60_000))
    }
}

/// A mode in words, for the banner and the side-by-side view.
pub fn mode_words(m: Mode) -> &'static str {
    match m {
        Mode::Legacy => "Kafka 0.11–1.0",
        Mode::Kafka11 => "Kafka 1.1.0 (KAFKA-5642, before the KAFKA-6879 fix)",
        Mode::Fenced => "with the KAFKA-6082 fix",
        Mode::Kraft => "KRaft quorum",
    }
}

/// Why the story is hidden: which runs the scenario's captions tell, and which one this is.
pub fn hidden_story_words(description: &str, story_modes: &[Mode], mode: Mode) -> String {
    let names: Vec<&str> = story_modes.iter().map(|m| m.name()).collect();
    format!(
        "{description} The story captions describe the {} run{}; this run uses the {} behaviour, so they are hidden.",
        words_list(&names),
        if names.len() > 1 { "s" } else { "" },
        mode.name()
    )
}

/// "a", "a and b", "a, b and c".
pub fn words_list(words: &[&str]) -> String {
    match words.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The behaviour picker's label for a mode.
pub fn mode_label(m: Mode) -> &'static str {
    match m {
        Mode::Legacy => "0.11–1.0 (legacy)",
        Mode::Kafka11 => "1.1.0 (no retry after expiry)",
        Mode::Fenced => "KAFKA-6082 fix (fenced)",
        Mode::Kraft => "KRaft, no ZooKeeper",
    }
}

/// Who controls the cluster, in words (ZooKeeper's `/controller`, or the quorum leader).
pub fn controller_words(v: &View) -> String {
    match (v.metadata, v.quorum_leader) {
        (MetadataStore::MetadataLog, Some(q)) => format!("active controller: quorum leader {q}"),
        (MetadataStore::MetadataLog, None) => "no quorum leader".into(),
        (MetadataStore::ZooKeeper, _) => {
            format!("controller: {}", v.zk_controller.map(|b| format!("broker {b}")).unwrap_or_else(|| "none".into()))
        }
    }
}

/// Where a partition's leader is recorded, in words: "leader 2 in …".
pub fn metadata_words(m: MetadataStore) -> &'static str {
    match m {
        MetadataStore::ZooKeeper => "ZooKeeper",
        MetadataStore::MetadataLog => "the metadata log",
    }
}

/// A node as the graph names it.
pub fn node_word(n: NodeId) -> String {
    match n {
        NodeId::Zk(0) => "ZooKeeper".into(),
        NodeId::Zk(_) => format!("ZooKeeper {n}"),
        NodeId::Broker(b) => format!("broker {b}"),
        NodeId::Client(c) => format!("consumer c{c}"),
        NodeId::Voter(v) => format!("controller q{v}"),
    }
}

/// "broker 1 – ZooKeeper" for a link.
pub fn link_words(a: NodeId, b: NodeId) -> String {
    format!("{}–{}", node_word(a), node_word(b))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn link_words_name_each_server_of_an_ensemble() {
        assert_eq!(link_words(NodeId::ZK, NodeId::Broker(2)), "ZooKeeper–broker 2");
        assert_eq!(link_words(NodeId::Zk(1), NodeId::Broker(2)), "ZooKeeper zk1–broker 2");
        assert_eq!(link_words(NodeId::Zk(2), NodeId::Zk(3)), "ZooKeeper zk2–ZooKeeper zk3");
    }

    #[test]
    fn times_and_lists_read_as_the_cli_writes_them() {
        assert_eq!(fmt_time(16_469), "16.469s");
        assert_eq!(fmt_time(2 * 86_400_000 + 74_562), "2d+74.562s");
        assert_eq!(words_list(&["legacy"]), "legacy");
        assert_eq!(words_list(&["legacy", "1.1", "fenced"]), "legacy, 1.1 and fenced");
    }
}
