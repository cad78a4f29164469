//! The contract every target checks on a rejection: one clear line.

/// A rejection is a non-empty message on one line (the CLI prints it after `splitbrain: `, the
/// page in one notice): no line break, no other control character that would break the line.
pub fn one_line(what: &str, msg: &str) {
    assert!(!msg.trim().is_empty(), "{what}: an empty rejection message");
    assert!(
        !msg.chars().any(|c| c.is_control() && c != '\t'),
        "{what}: the rejection message is not one line: {msg:?}"
    );
}
