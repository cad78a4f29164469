//! The envelope of a log line: paste artefacts (quotes, markdown and JIRA escapes, fences, CRLF),
//! the docker-compose / kubectl / grep prefixes, the log4j layout (timestamp, level, thread,
//! logger) and the stack-trace lines that fold into the statement above. What is left is the
//! message, which `identity.rs` and `recognise.rs` read.
//!
//! Layouts read (see `docs/log-formats.md`):
//! - Kafka's own `config/log4j.properties` (`[%d] %p %m (%c)%n`): `[2017-11-10 15:48:30,006] INFO msg (kafka.controller.KafkaController)`;
//! - `%d %-5p [%t] %c:%L - %m`, `%d %p %c{1}:%L - %m`, `%d [%t] %p %c - %m`: `2017-11-10 15:48:30,006 INFO  [Thread] Class:123 - msg`;
//! - ISO 8601 (`2017-11-10T15:48:30.006Z`, `+01:00`), a missing leading `[`, no timestamp
//!   (`INFO msg (class)`), no level (the message alone).
use crate::parse::Level;
use crate::text::{blank, find, int, skip_blank, starts_ci};
use alloc::vec::Vec;

/// At most this much of a line is read (the rest is kept in the record's message range).
pub const SCAN_CAP: usize = 64 * 1024;

/// Removes paste artefacts from a line, copying only when it must.
#[derive(Default)]
pub struct Cleaner {
    buf: Vec<u8>,
    map: Vec<u32>,
    copied: bool,
    off: usize,
    len: usize,
}

impl Cleaner {
    /// The line to read, without quotes (`> `), fences, JIRA `{noformat}`/`{code}` markers,
    /// markdown escapes (`\[`, `\_`), backticks, `**`, trailing blanks and CR; `None` when
    /// nothing is left. Leading blanks are kept (they mark a stack trace).
    pub fn clean<'s>(&'s mut self, line: &'s [u8]) -> Option<&'s [u8]> {
        if self.prepare(line) {
            Some(self.view(line))
        } else {
            None
        }
    }

    /// What [`Cleaner::prepare`] left of `line` (the same line).
    pub fn view<'s>(&'s self, line: &'s [u8]) -> &'s [u8] {
        if self.copied {
            &self.buf
        } else {
            &line[self.off..self.off + self.len]
        }
    }

    /// Cleans `line` (see [`Cleaner::clean`]); false when nothing is left.
    pub fn prepare(&mut self, line: &[u8]) -> bool {
        self.copied = false;
        let mut s = line;
        // Trailing CR, blanks, and paste closers.
        loop {
            let before = s.len();
            while let Some(&b) = s.last() {
                if b == b'\r' || blank(b) || b == b'`' {
                    s = &s[..s.len() - 1];
                } else {
                    break;
                }
            }
            for tail in [&b"{noformat}"[..], b"{code}", b"**"] {
                if s.ends_with(tail) {
                    s = &s[..s.len() - tail.len()];
                }
            }
            if s.len() == before {
                break;
            }
        }
        let mut start = 0;
        // Leading quotes (`> `, `>> `), backticks, bold, JIRA markers; keep indentation.
        loop {
            let before = start;
            let t = &s[start..];
            let lead = t.iter().take_while(|b| blank(**b)).count();
            let u = &t[lead..];
            if u.starts_with(b"\xEF\xBB\xBF") {
                // A UTF-8 byte order mark (a file saved by an editor).
                start += lead + 3;
            } else if u.first() == Some(&b'>') {
                start += lead + 1;
                if s.get(start) == Some(&b' ') {
                    start += 1;
                }
            } else if u.starts_with(b"```") {
                // A fence (```` ```log ````) is an artefact line of its own.
                let n = u.iter().take_while(|b| **b != b' ').count();
                start += lead + n;
            } else if u.first() == Some(&b'`') || u.starts_with(b"**") {
                start += lead + if u.starts_with(b"**") { 2 } else { 1 };
            } else if u.first() == Some(&b'{') && (starts_ci(u, b"{noformat") || starts_ci(u, b"{code")) {
                let n = u.iter().position(|b| *b == b'}').map(|p| p + 1).unwrap_or(u.len());
                start += lead + n;
            }
            if start == before {
                break;
            }
        }
        let s = &s[start..];
        if s.iter().all(|b| blank(*b)) {
            return false;
        }
        let needs_copy = s.iter().enumerate().any(|(i, b)| match b {
            0x1b => true,
            b'\\' => s.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()),
            b'`' => true,
            b'*' => s.get(i + 1) == Some(&b'*'),
            _ => false,
        });
        self.off = start;
        self.len = s.len();
        if !needs_copy {
            return true;
        }
        self.copied = true;
        self.buf.clear();
        self.map.clear();
        let mut i = 0;
        while i < s.len() {
            let b = s[i];
            let at = i;
            if b == 0x1b {
                // An ANSI escape (a coloured terminal's `ESC [ 36 m`): dropped up to its final byte.
                i += 1;
                if s.get(i) == Some(&b'[') {
                    i += 1;
                    while i < s.len() && !(0x40..=0x7e).contains(&s[i]) {
                        i += 1;
                    }
                }
                i += 1;
                continue;
            } else if b == b'\\' && s.get(i + 1).is_some_and(|n| n.is_ascii_punctuation()) {
                i += 1;
            } else if b == b'`' {
                i += 1;
                continue;
            } else if b == b'*' && s.get(i + 1) == Some(&b'*') {
                i += 2;
                continue;
            }
            self.buf.push(s[i]);
            self.map.push((start + at) as u32);
            i += 1;
        }
        self.map.push((start + s.len()) as u32);
        !self.buf.iter().all(|b| blank(*b))
    }

    /// The offset in the line of byte `i` of what [`Cleaner::clean`] returned (`i` may be its
    /// length).
    pub fn orig(&self, i: usize) -> usize {
        if self.copied {
            self.map.get(i).or(self.map.last()).map(|v| *v as usize).unwrap_or(self.off)
        } else {
            self.off + i
        }
    }
}

/// Which kind of prefix a collector put before the line.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SourceKind {
    /// `kafka-1  | ` (docker-compose).
    Compose,
    /// `[pod/kafka-2/kafka] ` (kubectl logs --prefix).
    Kubectl,
    /// `controller.log:` / `logs/server.log.2017-11-10-15:` / `server.log-123-` (grep, -n).
    Grep,
    /// `Nov 10 15:48:30 kafka1 kafka-server-start.sh[1234]: ` (syslog, journalctl): the host names it.
    Syslog,
}

/// A collector prefix: its kind, the name it gives (a byte range of the line) and where the
/// rest begins.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Source {
    pub kind: SourceKind,
    pub name: (usize, usize),
    pub rest: usize,
}

/// The collector prefix at the start of `s`, if any.
pub fn source(s: &[u8]) -> Option<Source> {
    let lead = s.iter().take_while(|b| blank(**b)).count();
    let t = &s[lead..];
    // kubectl: `[pod/NAME/CONTAINER] `.
    if t.starts_with(b"[pod/") {
        let close = t.iter().take(300).position(|b| *b == b']')?;
        let body = &t[5..close];
        let n = body.iter().position(|b| *b == b'/').unwrap_or(body.len());
        return Some(Source { kind: SourceKind::Kubectl, name: (lead + 5, lead + 5 + n), rest: lead + close + 1 });
    }
    if let Some(src) = syslog(t) {
        return Some(Source { kind: SourceKind::Syslog, name: (lead + src.0, lead + src.1), rest: lead + src.2 });
    }
    // docker-compose: `NAME  | ` (NAME of [A-Za-z0-9_.-], padded).
    let n = t.iter().take(128).take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')).count();
    if n > 0 && n < 128 {
        let after = &t[n..];
        let pad = after.iter().take_while(|b| blank(**b)).count();
        if after.get(pad) == Some(&b'|') && (pad > 0 || after.get(pad + 1) == Some(&b' ')) {
            let rest = lead + n + pad + 1 + usize::from(after.get(pad + 1) == Some(&b' '));
            return Some(Source { kind: SourceKind::Compose, name: (lead, lead + n), rest });
        }
    }
    // grep: a file name holding `.log` (or `log/`), then `:`, `:N:` or `-N-`.
    let n = t.iter().take(300).take_while(|b| !blank(**b) && **b != b'[').count();
    let tok = &t[..n];
    let log = crate::text::find_ci(tok, b".log")
        .or_else(|| crate::text::find_ci(tok, b".out"))
        .or_else(|| crate::text::find_ci(tok, b"log/"))?;
    // `:` after the `.log` part ends the file name (`server.log.2017-11-10-15:`).
    if let Some(c) = tok[log..].iter().position(|b| *b == b':') {
        let end = log + c;
        let mut rest = end + 1;
        if let Some((_, d)) = int(&tok[rest..]) {
            if tok.get(rest + d) == Some(&b':') {
                rest += d + 1;
            }
        }
        return Some(Source { kind: SourceKind::Grep, name: (lead, lead + end), rest: lead + rest });
    }
    // `server.log-123-[2017...` (grep -n context line): `-N-` right after the name.
    let dot = log + 4;
    let mut i = dot;
    while i < tok.len() {
        if tok[i] == b'-' {
            if let Some((_, d)) = int(&tok[i + 1..]) {
                if tok.get(i + 1 + d) == Some(&b'-') {
                    let rest = i + 2 + d;
                    return Some(Source { kind: SourceKind::Grep, name: (lead, lead + i), rest: lead + rest });
                }
            }
        }
        i += 1;
    }
    None
}

/// `Mmm dd HH:MM:SS HOST PROG[PID]: ` at the start of `t`: the host's range and where the rest begins.
fn syslog(t: &[u8]) -> Option<(usize, usize, usize)> {
    // `journalctl -o short-iso`: `2017-11-10T15:48:30+0000 HOST PROG[PID]: `.
    if let Some((_, n)) = timestamp(t) {
        if t.get(10) == Some(&b'T') && t.get(n) == Some(&b' ') {
            return host_prog(t, n + 1);
        }
        return None;
    }
    if t.len() < 20
        || !t[0].is_ascii_uppercase()
        || !t[1].is_ascii_lowercase()
        || !t[2].is_ascii_lowercase()
        || t[3] != b' '
    {
        return None;
    }
    let mut i = 4;
    if t[i] == b' ' {
        i += 1;
    }
    let d = t[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if d == 0 || d > 2 || t.get(i + d) != Some(&b' ') {
        return None;
    }
    i += d + 1;
    let c = t.get(i..i + 8)?;
    if c[2] != b':' || c[5] != b':' || !c.iter().enumerate().all(|(k, b)| k == 2 || k == 5 || b.is_ascii_digit()) {
        return None;
    }
    i += 8;
    if t.get(i) != Some(&b' ') {
        return None;
    }
    host_prog(t, i + 1)
}

/// `HOST PROG[PID]: ` from `host`: the host's range and where the rest begins.
fn host_prog(t: &[u8], host: usize) -> Option<(usize, usize, usize)> {
    let hl = t[host..].iter().take(255).take_while(|b| !blank(**b)).count();
    // A host name, not a level (`... WARN kafka.utils.ZkUtils$:68 - msg`) nor a bracket (`docker logs -t`).
    if hl == 0 || !t[host].is_ascii_alphanumeric() || level(&t[host..]).is_some() {
        return None;
    }
    let prog = host + hl + 1;
    let pl = t.get(prog..)?.iter().take(255).position(|b| *b == b':')?;
    if pl == 0 || !t[prog].is_ascii_alphabetic() || t[prog..prog + pl].iter().any(|b| blank(*b)) {
        return None;
    }
    let rest = prog + pl + 1;
    Some((host, host + hl, rest + usize::from(t.get(rest) == Some(&b' '))))
}

/// A stack-trace line (folds into the statement above): `\tat a.b.C(C.java:1)`, `Caused by: ...`,
/// `... 12 more`, `Suppressed: ...`, or an exception class line
/// (`org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists`).
/// `s` has its indentation removed; `indented` says it had some.
pub fn trace_line(s: &[u8], indented: bool) -> bool {
    if s.starts_with(b"at ") {
        let rest = &s[3..];
        return indented || (rest.contains(&b'(') && rest.contains(&b'.'));
    }
    if s.starts_with(b"Caused by:") || s.starts_with(b"Suppressed:") {
        return true;
    }
    if s.starts_with(b"...") {
        let r = skip_blank(&s[3..]);
        if let Some((_, n)) = int(r) {
            return r[n..].starts_with(b" more");
        }
    }
    exception_line(s)
}

/// `pkg.Class$Inner...Exception: message` (or `...Error`, with no message).
pub fn exception_line(s: &[u8]) -> bool {
    let n = s.iter().take(300).take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'$' | b'_')).count();
    if n == 0 || !s[0].is_ascii_alphabetic() {
        return false;
    }
    let tok = &s[..n];
    if !tok.contains(&b'.') {
        return false;
    }
    let last = tok.iter().rposition(|b| *b == b'.').map(|p| &tok[p + 1..]).unwrap_or(tok);
    let named = find(last, b"Exception").is_some() || find(last, b"Error").is_some() || last.ends_with(b"Throwable");
    named && (n == s.len() || s[n] == b':')
}

/// What the layout said.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Head {
    /// Milliseconds since 1970 of the timestamp, as written.
    pub ts_ms: Option<i64>,
    /// The level.
    pub level: Option<Level>,
    /// The thread (`%t`), a range of the line.
    pub thread: Option<(usize, usize)>,
    /// The logger (`%c`), a range of the line, without a `:line` suffix.
    pub logger: Option<(usize, usize)>,
    /// The message, a range of the line.
    pub msg: (usize, usize),
}

impl Head {
    /// Did the layout show it is a log statement (a timestamp or a level)?
    pub fn statement(&self) -> bool {
        self.ts_ms.is_some() || self.level.is_some()
    }
}

/// Reads the layout of `s` (a line with artefacts and collector prefixes removed).
/// Where Kafka's own layout (`[yyyy-mm-dd hh:mm:ss,SSS] LEVEL`) starts inside a line that does not
/// begin with it, within its first 400 bytes: a Kafka line wrapped in another tool's line.
pub fn embedded(s: &[u8]) -> Option<usize> {
    let window = &s[..s.len().min(400)];
    let dated = |t: &[u8]| {
        t.len() > 20
            && t[0] == b'['
            && t[1..5].iter().all(u8::is_ascii_digit)
            && t[5] == b'-'
            && t[6..8].iter().all(u8::is_ascii_digit)
            && t[8] == b'-'
            && t[9..11].iter().all(u8::is_ascii_digit)
            && matches!(t[11], b' ' | b'T')
    };
    if window.first() == Some(&b'[') && dated(window) {
        return None;
    }
    let k = (1..window.len()).find(|&k| window[k] == b'[' && dated(&s[k..]))?;
    let h = head(&s[k..]);
    (h.ts_ms.is_some() && h.level.is_some()).then_some(k)
}

pub fn head(s: &[u8]) -> Head {
    let mut h = Head::default();
    let mut p = s.iter().take_while(|b| blank(**b)).count();
    // Timestamp: `[ts]`, `ts`, or `ts]` (the leading `[` lost in a paste).
    if s.get(p) == Some(&b'[') {
        if let Some((t, n)) = timestamp(&s[p + 1..]) {
            let q = p + 1 + n;
            if s.get(q) == Some(&b']') {
                h.ts_ms = Some(t);
                p = q + 1;
            }
        }
    } else if let Some((t, n)) = timestamp(&s[p..]) {
        h.ts_ms = Some(t);
        p += n;
        if s.get(p) == Some(&b']') {
            p += 1;
        }
    }
    p += skip(&s[p..]);
    // `docker logs -t` / `kubectl logs --timestamps` put their own time before the log's: the log's wins.
    if h.ts_ms.is_some() {
        let inner = if s.get(p) == Some(&b'[') { p + 1 } else { p };
        if let Some((t, n)) = timestamp(&s[inner..]) {
            let q = inner + n;
            if inner == p || s.get(q) == Some(&b']') {
                h.ts_ms = Some(t);
                p = q + usize::from(s.get(q) == Some(&b']'));
                p += skip(&s[p..]);
            }
        }
    }
    // Kafka's layout ends the line with `(logger)`: then the other layouts' `[thread] logger - ` is not read.
    let trailing = trailing_logger(s, p, s.len()).is_some_and(|((a, b), _)| s[a..b].contains(&b'.'));
    // Level and thread, in either order (`LEVEL [t]`, `[t] LEVEL`, `[LEVEL]`).
    for _ in 0..3 {
        if h.level.is_none() {
            if let Some((l, n)) = level(&s[p..]) {
                h.level = Some(l);
                p += n;
                if s.get(p) == Some(&b':') {
                    p += 1;
                }
                p += skip(&s[p..]);
                continue;
            }
        }
        if s.get(p) == Some(&b'[') && h.thread.is_none() && h.statement() {
            let Some(close) = s[p..].iter().take(256).position(|b| *b == b']') else { break };
            let inner = (p + 1, p + close);
            if h.level.is_none() {
                if let Some((l, _)) = level(&s[inner.0..inner.1]) {
                    if inner.1 - inner.0 <= 7 {
                        h.level = Some(l);
                        p += close + 1;
                        p += skip(&s[p..]);
                        continue;
                    }
                }
            }
            let after = p + close + 1;
            let a = after + skip(&s[after..]);
            let thread =
                if h.level.is_none() { level(&s[a..]).is_some() } else { !trailing && dash_logger(&s[a..]).is_some() };
            if thread {
                h.thread = Some(inner);
                p = a;
                continue;
            }
        }
        break;
    }
    // `logger(:line) - msg` (not when the line ends in Kafka's own `(logger)`: then a ` - ` is the message's).
    if h.statement() && !trailing {
        if let Some((lg, n)) = dash_logger(&s[p..]) {
            h.logger = Some((p + lg.0, p + lg.1));
            p += n;
        }
    }
    let mut end = s.len();
    // `msg (logger) [thread]` (Strimzi's `%d{ISO8601} %p %m (%c) [%t]`): the thread goes first.
    if h.logger.is_none() && h.thread.is_none() && s.last() == Some(&b']') {
        if let Some(open) = s[p..].iter().rposition(|b| *b == b'[') {
            let open = p + open;
            if open >= 2 && s[open - 1] == b' ' && s[open - 2] == b')' && trailing_logger(s, p, open - 1).is_some() {
                h.thread = Some((open + 1, s.len() - 1));
                end = open - 1;
            }
        }
    }
    if h.logger.is_none() {
        if let Some((lg, e)) = trailing_logger(s, p, end) {
            h.logger = Some(lg);
            end = e;
        }
    }
    h.msg = (p.min(end), end);
    h
}

/// `msg (logger)` ending `s[..end]`: the logger's range (without a `:line`) and where the message
/// ends. A logger is a class name; one without a dot (`(KafkaController)`) needs two capitals, so
/// `zookeeper state changed (Expired)` keeps its state.
fn trailing_logger(s: &[u8], p: usize, end: usize) -> Option<((usize, usize), usize)> {
    if end == 0 || s.get(end - 1) != Some(&b')') {
        return None;
    }
    let open = p + s[p..end].iter().rposition(|b| *b == b'(')?;
    let inner = &s[open + 1..end - 1];
    if open <= p || s[open - 1] != b' ' || !class_name(inner) {
        return None;
    }
    if !inner.contains(&b'.') {
        // `(KafkaController)`: CamelCase with two capitals; not `(Expired)`, `(PLAINTEXT)` nor a ZooKeeper state.
        let camel = inner[0].is_ascii_uppercase()
            && inner.iter().any(u8::is_ascii_lowercase)
            && inner.iter().filter(|b| b.is_ascii_uppercase()).count() >= 2;
        const STATES: [&[u8]; 5] =
            [b"SyncConnected", b"Disconnected", b"AuthFailed", b"ConnectedReadOnly", b"SaslAuthenticated"];
        if !camel || STATES.contains(&inner) {
            return None;
        }
    }
    let mut lend = end - 1;
    if let Some(c) = inner.iter().rposition(|b| *b == b':') {
        if inner[c + 1..].iter().all(u8::is_ascii_digit) {
            lend = open + 1 + c;
        }
    }
    let mut e = open - 1;
    while e > p && blank(s[e - 1]) {
        e -= 1;
    }
    Some(((open + 1, lend), e))
}

fn skip(s: &[u8]) -> usize {
    s.iter().take_while(|b| blank(**b)).count()
}

/// `a.b.C`, `KafkaController`, `state.change.logger`, `k.c.KafkaController:123`.
fn class_name(s: &[u8]) -> bool {
    !s.is_empty()
        && s.len() <= 200
        && s[0].is_ascii_alphabetic()
        && s.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'$' | b'_' | b'-' | b':'))
}

/// `logger(:line) - ` at the start of `s`: the logger's range and the bytes up to the message.
fn dash_logger(s: &[u8]) -> Option<((usize, usize), usize)> {
    let n = s.iter().take(256).take_while(|b| !blank(**b)).count();
    let tok = &s[..n];
    if !class_name(tok) {
        return None;
    }
    let after = &s[n..];
    let pad = skip(after);
    if pad == 0 || after.get(pad) != Some(&b'-') || !(after.len() == pad + 1 || after[pad + 1] == b' ') {
        return None;
    }
    let mut lend = n;
    if let Some(c) = tok.iter().rposition(|b| *b == b':') {
        if tok[c + 1..].iter().all(u8::is_ascii_digit) {
            lend = c;
        }
    }
    Some(((0, lend), (n + pad + 2).min(s.len())))
}

/// A log4j level word at the start of `s` (upper case, ending the word).
pub fn level(s: &[u8]) -> Option<(Level, usize)> {
    const LEVELS: [(&[u8], Level); 8] = [
        (b"TRACE", Level::Trace),
        (b"DEBUG", Level::Debug),
        (b"INFO", Level::Info),
        (b"WARNING", Level::Warn),
        (b"WARN", Level::Warn),
        (b"ERROR", Level::Error),
        (b"FATAL", Level::Fatal),
        (b"SEVERE", Level::Error),
    ];
    for (w, l) in LEVELS {
        if s.starts_with(w) {
            match s.get(w.len()) {
                None | Some(b' ' | b'\t' | b':' | b']') => return Some((l, w.len())),
                _ => {}
            }
        }
    }
    None
}

/// `YYYY-MM-DD[ T]HH:MM:SS[,.fff][Z|+HH:MM|+HHMM]` at the start of `s`: milliseconds since
/// 1970 as written (a zone is read and ignored: the logs' zone is not known), and its length.
pub fn timestamp(s: &[u8]) -> Option<(i64, usize)> {
    if s.len() < 19 {
        return None;
    }
    let d = |i: usize, n: usize| -> Option<i64> {
        let f = s.get(i..i + n)?;
        if !f.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(f.iter().fold(0i64, |a, b| a * 10 + i64::from(b - b'0')))
    };
    let (y, mo, da) = (d(0, 4)?, d(5, 2)?, d(8, 2)?);
    if !(s[4] == b'-' && s[7] == b'-' || s[4] == b'/' && s[7] == b'/') || !(s[10] == b' ' || s[10] == b'T') {
        return None;
    }
    let (h, mi, se) = (d(11, 2)?, d(14, 2)?, d(17, 2)?);
    if s[13] != b':' || s[16] != b':' {
        return None;
    }
    if !(1..=12).contains(&mo) || !(1..=31).contains(&da) || h > 23 || mi > 59 || se > 60 {
        return None;
    }
    let mut n = 19;
    let mut ms = 0;
    if matches!(s.get(19), Some(b',' | b'.')) {
        let digits = s[20..].iter().take(9).take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 {
            let mut v = 0i64;
            for (k, b) in s[20..20 + digits].iter().enumerate().take(3) {
                v += i64::from(b - b'0') * [100, 10, 1][k];
            }
            ms = v;
            n = 20 + digits;
        }
    }
    match s.get(n) {
        Some(b'Z') => n += 1,
        Some(b'+' | b'-') => {
            let z = s[n + 1..].iter().take(5).take_while(|b| b.is_ascii_digit() || **b == b':').count();
            if z >= 2 {
                n += 1 + z;
            }
        }
        _ => {}
    }
    let days = days_from_civil(y, mo, da);
    Some((((days * 24 + h) * 60 + mi) * 60 * 1000 + se * 1000 + ms, n))
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: i64 = 1_510_328_910_006; // 2017-11-10 15:48:30,006

    fn msg<'a>(s: &'a [u8], h: &Head) -> &'a str {
        core::str::from_utf8(&s[h.msg.0..h.msg.1]).unwrap()
    }
    fn h_logger(s: &[u8]) -> Option<(usize, usize)> {
        head(s).logger
    }
    fn logger<'a>(s: &'a [u8], h: &Head) -> &'a str {
        let l = h.logger.unwrap();
        core::str::from_utf8(&s[l.0..l.1]).unwrap()
    }

    #[test]
    fn kafka_default_layout() {
        let s = b"[2017-11-10 15:48:30,006] INFO [Controller id=1] Resigned (kafka.controller.KafkaController)";
        let h = head(s);
        assert_eq!(h.ts_ms, Some(T));
        assert_eq!(h.level, Some(Level::Info));
        assert_eq!(logger(s, &h), "kafka.controller.KafkaController");
        assert_eq!(msg(s, &h), "[Controller id=1] Resigned");
        assert_eq!(h.thread, None);
    }

    #[test]
    fn thread_class_line_dash_layout() {
        let s = b"2017-11-10 15:48:30,006 INFO  [Controller-1-to-broker-2-send-thread] KafkaController:123 - Resigned";
        let h = head(s);
        assert_eq!(h.ts_ms, Some(T));
        assert_eq!(h.level, Some(Level::Info));
        assert_eq!(logger(s, &h), "KafkaController");
        assert_eq!(&s[h.thread.unwrap().0..h.thread.unwrap().1], b"Controller-1-to-broker-2-send-thread");
        assert_eq!(msg(s, &h), "Resigned");
    }

    #[test]
    fn class_line_dash_layout_without_thread() {
        let s = b"2017-11-10 15:48:30,006 WARN kafka.utils.ZkUtils$:68 - conflict in /brokers/ids/1";
        let h = head(s);
        assert_eq!(h.level, Some(Level::Warn));
        assert_eq!(logger(s, &h), "kafka.utils.ZkUtils$");
        assert_eq!(msg(s, &h), "conflict in /brokers/ids/1");
    }

    #[test]
    fn thread_before_level() {
        let s = b"2017-11-10 15:48:30,006 [main] ERROR kafka.server.KafkaServer - boom";
        let h = head(s);
        assert_eq!(h.level, Some(Level::Error));
        assert_eq!(logger(s, &h), "kafka.server.KafkaServer");
        assert_eq!(msg(s, &h), "boom");
    }

    #[test]
    fn iso_and_missing_bracket_and_no_timestamp() {
        let s = b"[2017-11-10T15:48:30.006Z] INFO started (kafka.server.KafkaServer)";
        assert_eq!(head(s).ts_ms, Some(T));
        let s = b"2017-11-10T15:48:30.006+01:00 INFO started";
        assert_eq!(head(s).ts_ms, Some(T));
        let s = b"2017-11-10 15:48:30,006] INFO started (kafka.server.KafkaServer)";
        let h = head(s);
        assert_eq!((h.ts_ms, msg(s, &h)), (Some(T), "started"));
        let s = b"INFO started (kafka.server.KafkaServer)";
        let h = head(s);
        assert_eq!((h.ts_ms, h.level, msg(s, &h)), (None, Some(Level::Info), "started"));
        let s = b"Resigned";
        let h = head(s);
        assert!(!h.statement());
        assert_eq!(msg(s, &h), "Resigned");
        // A parenthesis that is not a logger stays in the message.
        let s = b"[2017-11-10 15:48:30,006] INFO a (b c)";
        assert_eq!(msg(s, &head(s)), "a (b c)");
    }

    #[test]
    fn strimzi_trailing_thread_and_docker_timestamps() {
        let s = b"2017-11-10 15:48:30,006 INFO [Controller id=0] Resigned (kafka.controller.KafkaController) [controller-event-thread]";
        let h = head(s);
        assert_eq!((h.ts_ms, h.level), (Some(T), Some(Level::Info)));
        assert_eq!(logger(s, &h), "kafka.controller.KafkaController");
        assert_eq!(&s[h.thread.unwrap().0..h.thread.unwrap().1], b"controller-event-thread");
        assert_eq!(msg(s, &h), "[Controller id=0] Resigned");
        let s = b"2017-11-11T09:00:00.123456789Z [2017-11-10 15:48:30,006] INFO started (kafka.server.KafkaServer)";
        let h = head(s);
        assert_eq!((h.ts_ms, msg(s, &h)), (Some(T), "started"));
        // A state in parentheses is no logger.
        let s = b"zookeeper state changed (Expired)";
        assert_eq!(msg(s, &head(s)), "zookeeper state changed (Expired)");
        let s = b"[2017-11-10 15:48:30,006] INFO x (KafkaController)";
        assert_eq!(logger(s, &head(s)), "KafkaController");
        let s = b"[2017-11-10 15:48:30,006] INFO listener (PLAINTEXT)";
        assert_eq!((h_logger(s), msg(s, &head(s))), (None, "listener (PLAINTEXT)"));
        let s = b"2017-11-10 15:48:30,006 INFO  [main-EventThread] org.I0Itec.zkclient.ZkClient:713 - zookeeper state changed (SyncConnected)";
        let h = head(s);
        assert_eq!(
            (logger(s, &h), msg(s, &h)),
            ("org.I0Itec.zkclient.ZkClient", "zookeeper state changed (SyncConnected)")
        );
    }

    #[test]
    fn a_dash_in_a_kafka_layout_message_is_no_logger() {
        let s =
            b"[2017-11-10 15:48:30,006] INFO [Controller id=1] Partitions - none (kafka.controller.KafkaController)";
        let h = head(s);
        assert_eq!(h.thread, None);
        assert_eq!(logger(s, &h), "kafka.controller.KafkaController");
        assert_eq!(msg(s, &h), "[Controller id=1] Partitions - none");
        let s = b"[2017-11-10 15:48:30,006] INFO Something - else (kafka.x.Y)";
        assert_eq!(msg(s, &head(s)), "Something - else");
    }

    #[test]
    fn logger_with_line_number_in_parentheses() {
        let s = b"[2017-11-10 15:48:30,006] INFO Resigned (kafka.controller.KafkaController:354)";
        let h = head(s);
        assert_eq!(logger(s, &h), "kafka.controller.KafkaController");
        assert_eq!(msg(s, &h), "Resigned");
    }

    #[test]
    fn sources() {
        let s = b"kafka-1  | [2017-11-10 15:48:30,006] INFO x";
        let src = source(s).unwrap();
        assert_eq!((src.kind, &s[src.name.0..src.name.1]), (SourceKind::Compose, &b"kafka-1"[..]));
        assert!(s[src.rest..].starts_with(b"[2017"));
        let s = b"kafka_1 | [2017";
        assert_eq!(&s[source(s).unwrap().rest..], b"[2017");
        let s = b"[pod/kafka-2/kafka] [2017";
        let src = source(s).unwrap();
        assert_eq!((src.kind, &s[src.name.0..src.name.1]), (SourceKind::Kubectl, &b"kafka-2"[..]));
        assert_eq!(&s[src.rest..], b" [2017");
        for (line, name) in [
            (&b"controller.log:[2017"[..], &b"controller.log"[..]),
            (b"logs/server.log.2017-11-10-15:[2017", b"logs/server.log.2017-11-10-15"),
            (b"controller.log:123:[2017", b"controller.log"),
            (b"server.log-123-[2017", b"server.log"),
            (b"broker2/controller.log:2017-11-10 15:48:30,006 INFO", b"broker2/controller.log"),
        ] {
            let src = source(line).unwrap();
            assert_eq!(src.kind, SourceKind::Grep);
            assert_eq!(&line[src.name.0..src.name.1], name, "{:?}", core::str::from_utf8(line));
            assert!(line[src.rest..].starts_with(b"2017") || line[src.rest..].starts_with(b"[2017"));
        }
        let s = b"Nov 10 15:48:30 kafka1 kafka-server-start.sh[1234]: [2017-11-10 15:48:30,006] INFO x";
        let src = source(s).unwrap();
        assert_eq!((src.kind, &s[src.name.0..src.name.1]), (SourceKind::Syslog, &b"kafka1"[..]));
        assert!(s[src.rest..].starts_with(b"[2017"));
        let s = b"2017-11-10T15:48:30+0000 kafka-2 kafka[99]: [2017-11-10 15:48:30,006] INFO x";
        let src = source(s).unwrap();
        assert_eq!((src.kind, &s[src.name.0..src.name.1]), (SourceKind::Syslog, &b"kafka-2"[..]));
        assert!(s[src.rest..].starts_with(b"[2017"));
        // A log line of its own is no journal prefix.
        assert_eq!(source(b"2017-11-10T15:48:30.006Z INFO started (kafka.server.KafkaServer)"), None);
        assert_eq!(source(b"2017-11-10T15:48:30.006Z WARN kafka.utils.ZkUtils$:68 - conflict"), None);
        assert_eq!(source(b"2017-11-10T15:48:30.123456789Z [2017-11-10 15:48:30,006] INFO x"), None);
        let s = b"Nov  1 05:48:30 host kafka: started";
        assert_eq!(&s[source(s).unwrap().rest..], b"started");
        let s = b"/var/log/kafka/kafkaServer.out:[2017";
        assert_eq!(&s[source(s).unwrap().rest..], b"[2017");
        assert_eq!(source(b"[2017-11-10 15:48:30,006] INFO x | y"), None);
        assert_eq!(source(b"Topic: t\tPartition: 0"), None);
    }

    #[test]
    fn artefacts() {
        let mut c = Cleaner::default();
        assert_eq!(c.clean(b"> [2017] INFO x  \r"), Some(&b"[2017] INFO x"[..]));
        assert_eq!(c.orig(0), 2);
        assert_eq!(c.clean(b"{noformat}"), None);
        assert_eq!(c.clean(b"```"), None);
        assert_eq!(c.clean(b"   \t"), None);
        let line = b"\\[2017-11-10 15:48:30,006\\] INFO a\\_b **x**";
        assert_eq!(c.clean(line), Some(&b"[2017-11-10 15:48:30,006] INFO a_b x"[..]));
        assert_eq!((c.orig(0), c.orig(1)), (0, 2));
        let n = c.clean(line).unwrap().len();
        assert_eq!(c.orig(n), line.len() - 2);
        assert_eq!(c.clean(b"`[2017] INFO x`"), Some(&b"[2017] INFO x"[..]));
        assert_eq!(c.clean(b"\tat a.b(C.java:1)"), Some(&b"\tat a.b(C.java:1)"[..]));
        assert_eq!(c.clean(b"{code}[2017] INFO x{code}"), Some(&b"[2017] INFO x"[..]));
        assert_eq!(c.clean(b"\xEF\xBB\xBF[2017] INFO x"), Some(&b"[2017] INFO x"[..]));
        let line = b"\x1b[36mkafka-1  |\x1b[0m [2017] INFO x";
        assert_eq!(c.clean(line), Some(&b"kafka-1  | [2017] INFO x"[..]));
        assert_eq!((c.orig(0), c.orig(10)), (5, 19));
    }

    #[test]
    fn stack_traces() {
        assert!(trace_line(b"at kafka.utils.ZkUtils$.x(ZkUtils.scala:1)", true));
        assert!(trace_line(b"at kafka.utils.ZkUtils$.x(ZkUtils.scala:1)", false));
        assert!(!trace_line(b"at least one broker", false));
        assert!(trace_line(b"Caused by: java.lang.Exception: x", false));
        assert!(trace_line(b"... 12 more", true));
        assert!(trace_line(
            b"org.apache.zookeeper.KeeperException$NodeExistsException: KeeperErrorCode = NodeExists",
            false
        ));
        assert!(trace_line(b"java.lang.OutOfMemoryError", false));
        assert!(!trace_line(b"kafka.controller.KafkaController started", false));
        assert!(!trace_line(b"[2017-11-10 15:48:30,006] INFO x", false));
    }

    #[test]
    fn timestamps() {
        assert_eq!(timestamp(b"1970-01-01 00:00:00,000"), Some((0, 23)));
        assert_eq!(timestamp(b"2017-11-10 15:48:30"), Some((T - 6, 19)));
        assert_eq!(timestamp(b"2017-13-10 15:48:30"), None);
        assert_eq!(timestamp(b"2017-11-10"), None);
    }
}
