//! Small byte matchers shared by the envelope, identity and recognition rooms: the crate is
//! `no_std`, so no regex; every matcher is a bounded scan that allocates nothing.
use crate::event::{Broker, Partition};
use alloc::string::String;
use alloc::vec::Vec;

/// ASCII lower case.
#[inline]
pub fn lower(b: u8) -> u8 {
    b.to_ascii_lowercase()
}

/// Is `b` a letter or digit?
#[inline]
pub fn alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Is `b` space or tab?
#[inline]
pub fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Does `h` start with `n` (`n` lower case), ignoring ASCII case?
#[inline]
pub fn starts_ci(h: &[u8], n: &[u8]) -> bool {
    h.len() >= n.len() && h.iter().zip(n).all(|(a, b)| lower(*a) == *b)
}

/// Where `n` (lower case, non-empty) first occurs in `h`, ignoring ASCII case.
pub fn find_ci(h: &[u8], n: &[u8]) -> Option<usize> {
    let first = *n.first()?;
    if h.len() < n.len() {
        return None;
    }
    let last = h.len() - n.len();
    let mut i = 0;
    while i <= last {
        if lower(h[i]) == first && starts_ci(&h[i..], n) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// Where `n` (non-empty) first occurs in `h`, exactly.
pub fn find(h: &[u8], n: &[u8]) -> Option<usize> {
    let first = *n.first()?;
    if h.len() < n.len() {
        return None;
    }
    let last = h.len() - n.len();
    let mut i = 0;
    while i <= last {
        if h[i] == first && h[i..].starts_with(n) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The bytes after the first (case-insensitive) occurrence of `n` in `h`.
pub fn after_ci<'a>(h: &'a [u8], n: &[u8]) -> Option<&'a [u8]> {
    find_ci(h, n).map(|i| &h[i + n.len()..])
}

/// Skips spaces and tabs.
pub fn skip_blank(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| blank(**b)).count();
    &s[n..]
}

/// An optionally signed decimal integer at the start of `s` (at most 10 digits), and its length.
pub fn int(s: &[u8]) -> Option<(i64, usize)> {
    let neg = s.first() == Some(&b'-');
    let start = usize::from(neg);
    let digits = s[start..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 10 {
        return None;
    }
    let mut v: i64 = 0;
    for b in &s[start..start + digits] {
        v = v * 10 + i64::from(b - b'0');
    }
    Some((if neg { -v } else { v }, start + digits))
}

/// A broker id (an `int` that fits `i32`) at the start of `s`.
pub fn broker(s: &[u8]) -> Option<(Broker, usize)> {
    let (v, n) = int(s)?;
    Broker::try_from(v).ok().map(|b| (b, n))
}

/// The broker id right after the first (case-insensitive) `key` in `s`, blanks skipped.
pub fn broker_after(s: &[u8], key: &[u8]) -> Option<Broker> {
    broker(skip_blank(after_ci(s, key)?)).map(|(b, _)| b)
}

/// A list of broker ids at the start of `s`: `1,2,3`, `1, 2`, `[1,2]`, `List(1, 2)`, `Set(1)`,
/// or empty. Stops at the first byte that cannot continue it.
pub fn list(s: &[u8]) -> Vec<Broker> {
    let mut out = Vec::new();
    let mut s = skip_blank(s);
    for open in [&b"List("[..], b"Set(", b"Vector(", b"ArrayBuffer(", b"WrappedArray(", b"[", b"("] {
        if s.starts_with(open) {
            s = &s[open.len()..];
            break;
        }
    }
    loop {
        s = skip_blank(s);
        let Some((b, n)) = broker(s) else { break };
        out.push(b);
        s = skip_blank(&s[n..]);
        if s.first() == Some(&b',') && out.len() < 1024 {
            s = &s[1..];
        } else {
            break;
        }
    }
    out
}

/// Is `b` a byte a topic name may hold (`[a-zA-Z0-9._-]`)?
#[inline]
pub fn topic_byte(b: u8) -> bool {
    alnum(b) || b == b'.' || b == b'_' || b == b'-'
}

/// A partition at the start of `s`: `[topic,3]`, `[topic, 3]`, `topic-3` (the partition is the
/// last `-N`; a trailing sentence `.` is not part of it), `Topic=t,Partition=3`. Returns it and
/// the bytes it spans.
pub fn partition(s: &[u8]) -> Option<(Partition, usize)> {
    if s.first() == Some(&b'[') {
        let body = &s[1..];
        if starts_ci(body, b"topic=") {
            let t = &body[6..];
            let tl = t.iter().take_while(|b| topic_byte(**b)).count();
            let rest = after_ci(&t[tl..], b"partition=")?;
            let (p, _) = int(rest)?;
            let end = find(body, b"]").map(|e| e + 2).unwrap_or(s.len());
            return Some((part(&t[..tl], p)?, end));
        }
        let tl = body.iter().take_while(|b| topic_byte(**b)).count();
        if tl == 0 || body.get(tl) != Some(&b',') {
            return None;
        }
        let rest = skip_blank(&body[tl + 1..]);
        let (p, n) = int(rest)?;
        let used = body.len() - rest.len() + n;
        if body.get(used) != Some(&b']') {
            return None;
        }
        return Some((part(&body[..tl], p)?, used + 2));
    }
    let mut tl = s.iter().take_while(|b| topic_byte(**b)).count();
    while tl > 0 && s[tl - 1] == b'.' {
        tl -= 1;
    }
    let tok = &s[..tl];
    let dash = tok.iter().rposition(|b| *b == b'-')?;
    let digits = &tok[dash + 1..];
    if dash == 0 || digits.is_empty() || digits.len() > 9 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let (p, _) = int(digits)?;
    Some((part(&tok[..dash], p)?, tl))
}

fn part(topic: &[u8], p: i64) -> Option<Partition> {
    if topic.is_empty() || topic.len() > 255 || !(0..=u32::MAX as i64).contains(&p) {
        return None;
    }
    Some(Partition { topic: String::from_utf8_lossy(topic).into_owned(), partition: p as u32 })
}

/// The partition right after the first (case-insensitive) `key` in `s`.
pub fn partition_after(s: &[u8], key: &[u8]) -> Option<Partition> {
    partition(skip_blank(after_ci(s, key)?)).map(|(p, _)| p)
}

/// The value of `key` (`leader=`, `"leader":`, `Leader:`; lower case) in `s`, as an int.
pub fn int_of(s: &[u8], key: &[u8]) -> Option<i64> {
    let mut from = 0;
    while from < s.len() {
        let i = from + find_ci(&s[from..], key)?;
        // The key must start a word: `leader=` must not match inside `isNewLeader=`.
        if i == 0 || !alnum(s[i - 1]) {
            if let Some((v, _)) = int(skip_blank(&s[i + key.len()..])) {
                return Some(v);
            }
        }
        from = i + 1;
    }
    None
}

/// [`int_of`] as an `i32`.
pub fn i32_of(s: &[u8], key: &[u8]) -> Option<i32> {
    int_of(s, key).and_then(|v| i32::try_from(v).ok())
}

/// The list after `key` in `s` (see [`list`]).
pub fn list_of(s: &[u8], key: &[u8]) -> Option<Vec<Broker>> {
    let mut from = 0;
    while from < s.len() {
        let i = from + find_ci(&s[from..], key)?;
        if i == 0 || !alnum(s[i - 1]) {
            return Some(list(&s[i + key.len()..]));
        }
        from = i + 1;
    }
    None
}

/// A `0x...` hexadecimal session id at the start of `s`.
pub fn hex(s: &[u8]) -> Option<u64> {
    let s = s.strip_prefix(b"0x").or_else(|| s.strip_prefix(b"0X"))?;
    let n = s.iter().take_while(|b| b.is_ascii_hexdigit()).count();
    if n == 0 || n > 16 {
        return None;
    }
    let mut v: u64 = 0;
    for b in &s[..n] {
        let d = (*b as char).to_digit(16)? as u64;
        v = (v << 4) | d;
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn p(t: &str, n: u32) -> Partition {
        Partition { topic: t.into(), partition: n }
    }

    #[test]
    fn partitions_in_every_form() {
        assert_eq!(partition(b"[topic,3] x"), Some((p("topic", 3), 9)));
        assert_eq!(partition(b"[topic, 3]"), Some((p("topic", 3), 10)));
        assert_eq!(partition(b"__consumer_offsets-3 "), Some((p("__consumer_offsets", 3), 20)));
        assert_eq!(partition(b"my-topic-12."), Some((p("my-topic", 12), 11)));
        assert_eq!(partition(b"a.b_c-0,"), Some((p("a.b_c", 0), 7)));
        assert_eq!(partition(b"[Topic=t-1,Partition=2,Replica=3]").map(|x| x.0), Some(p("t-1", 2)));
        assert_eq!(partition(b"topic"), None);
        assert_eq!(partition(b"-3"), None);
        assert_eq!(partition(b"[topic]"), None);
    }

    #[test]
    fn lists_and_ints() {
        assert_eq!(list(b"1,2,3 x"), vec![1, 2, 3]);
        assert_eq!(list(b"[1, 2]"), vec![1, 2]);
        assert_eq!(list(b"List(1, 2)"), vec![1, 2]);
        assert_eq!(list(b", all"), Vec::<Broker>::new());
        assert_eq!(int(b"-1,"), Some((-1, 2)));
        assert_eq!(int(b"99999999999"), None);
        assert_eq!(i32_of(b"{\"leader\":1,\"leader_epoch\":14}", b"\"leader_epoch\":"), Some(14));
        assert_eq!(i32_of(b"isNewLeader=3, leader=2", b"leader="), Some(2));
        assert_eq!(hex(b"0x15fa0b2c0d20001,"), Some(0x15fa0b2c0d20001));
        assert_eq!(find_ci(b"Hello World", b"world"), Some(6));
    }
}
