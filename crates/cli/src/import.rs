//! `splitbrain import FILE... [--json] [--broker N=FILE]`: reads Kafka controller, state-change
//! and server logs (splitbrain-import), prints the timeline by controller epoch, the split-brain
//! signatures with their evidence, and the fitted scenario's replay under every behaviour.
//! `-` reads a paste from standard input.
use crate::Fail;
use splitbrain_import::fit::{self, Fit};
use splitbrain_import::report::{line_span, raw_text};
use splitbrain_import::{Event, Input, Parsed, Report};
use std::fmt::Write as _;
use std::io::Read;

/// The page that opens a permalink (the fitted scenario), printed before its fragment.
const PLAYGROUND: &str = "index.html#";

pub(crate) fn cmd_import(args: &[String]) -> Result<String, Fail> {
    let mut files: Vec<String> = Vec::new();
    let mut json = false;
    let mut named: Vec<(i32, String)> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--json" => json = true,
            "--broker" => {
                let v = args.get(i + 1).ok_or_else(|| Fail("--broker needs N=FILE".into()))?;
                let (n, f) = v.split_once('=').ok_or_else(|| Fail(format!("--broker expects N=FILE, got '{v}'")))?;
                let n: i32 = n
                    .trim()
                    .parse()
                    .map_err(|_| Fail(format!("--broker expects a broker id before '=', got '{n}'")))?;
                if n < 0 {
                    return Err(Fail(format!("--broker: a broker id is 0 or more, got {n}")));
                }
                named.push((n, f.to_string()));
                i += 1;
            }
            s if s.starts_with("--") => return Err(Fail(format!("unknown option '{s}'"))),
            s => files.push(s.to_string()),
        }
        i += 1;
    }
    if files.is_empty() {
        return Err(Fail("import needs at least one log file (or - for standard input)".into()));
    }
    for (_, f) in &named {
        if !files.contains(f) {
            return Err(Fail(format!("--broker names '{f}', which is not one of the files imported")));
        }
    }
    let mut bytes: Vec<Vec<u8>> = Vec::with_capacity(files.len());
    for f in &files {
        let b = if f == "-" {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map_err(|e| Fail(format!("cannot read standard input: {e}")))?;
            b
        } else {
            std::fs::read(f).map_err(|e| Fail(format!("cannot read '{f}': {e}")))?
        };
        bytes.push(b);
    }
    let inputs: Vec<Input<'_>> = files
        .iter()
        .zip(&bytes)
        .map(|(name, b)| Input {
            name: if name == "-" { "paste" } else { name },
            bytes: b,
            broker: named.iter().rev().find(|(_, f)| f == name).map(|(n, _)| *n),
        })
        .collect();
    let parsed = splitbrain_import::parse::parse(&inputs, &mut |_, _| {});
    let report = splitbrain_import::report::report(&inputs, &parsed);
    let fit = fit::fit(&report);
    if json {
        let mut v = serde_json::to_value(&report).map_err(|e| Fail(format!("cannot encode the report: {e}")))?;
        if let Some(o) = v.as_object_mut() {
            o.insert("fit".into(), serde_json::to_value(&fit).unwrap_or(serde_json::Value::Null));
        }
        let mut s = serde_json::to_string(&v).map_err(|e| Fail(format!("cannot encode the report: {e}")))?;
        s.push('\n');
        return Ok(s);
    }
    Ok(text(&inputs, &parsed, &report, &fit))
}

/// Milliseconds since 1970 as `YYYY-MM-DD HH:MM:SS,mmm`, as log4j wrote them.
pub(crate) use splitbrain_sim::tools::state_change::log4j_date as stamp;

fn when(ms: Option<i64>) -> String {
    ms.map(stamp).unwrap_or_else(|| "(no time)".into())
}

/// The text of global line `line`: the whole first line of the record that starts there.
fn line_text(inputs: &[Input<'_>], parsed: &Parsed, line: u32) -> String {
    let i = parsed.records.partition_point(|r| r.global < line);
    match parsed.records.get(i).filter(|r| r.global == line) {
        Some(r) => raw_text(inputs, r.file, line_span(inputs, r.file, r.message.0), 240),
        None => String::new(),
    }
}

fn text(inputs: &[Input<'_>], parsed: &Parsed, r: &Report, fit: &Fit) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{}", r.verdict);
    let _ = writeln!(
        o,
        "{} lines: {} typed, {} other, {} not read (shown raw below); brokers {:?}{}",
        r.lines,
        r.typed,
        r.other,
        r.unknown,
        r.brokers,
        if r.unknown_broker > 0 {
            format!(", {} records from an unknown broker", r.unknown_broker)
        } else {
            String::new()
        }
    );
    for f in &r.files {
        let who = match (f.broker, f.broker_source) {
            (Some(b), Some(s)) => format!(
                "broker {b} (from {})",
                serde_json::to_value(s).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
            ),
            (Some(b), None) => format!("broker {b}"),
            _ if f.mixed => "several brokers".into(),
            _ => "broker unknown: name it with --broker N=FILE".into(),
        };
        let _ = writeln!(o, "  {} ({} lines): {}", f.name, f.lines, who);
    }
    let _ = writeln!(o, "\ncontroller epochs");
    if r.epochs.is_empty() {
        let _ = writeln!(o, "  (no election in these logs)");
    }
    for b in &r.epochs {
        let epoch = b.epoch.map(|e| e.to_string()).unwrap_or_else(|| "?".into());
        let end = match (b.resigned_ms, b.resigned_line) {
            (Some(t), _) => format!("resigned {}", stamp(t)),
            (None, Some(l)) => format!("resigned (line {l})"),
            _ => "no resignation logged".into(),
        };
        let _ = writeln!(
            o,
            "  epoch {epoch:>4}  broker {:<4} from {}  {end}  (line {})",
            b.controller,
            when(b.from_ms),
            b.line
        );
    }
    if !r.timeline.skews.is_empty() {
        let _ = writeln!(o, "\nsuspected clock skew");
        for s in &r.timeline.skews {
            let _ = writeln!(o, "  lines {} / {}: {}", s.cause_line, s.effect_line, s.explain);
        }
    }
    let _ = writeln!(o, "\nsignatures");
    if r.signatures.is_empty() {
        let _ = writeln!(o, "  none");
    }
    for s in &r.signatures {
        let _ = writeln!(o, "  {} {}  brokers {:?}", if s.alarm { "!" } else { "-" }, s.kind, s.brokers);
        let _ = writeln!(o, "      {}", s.explain);
        let _ = writeln!(o, "      changed in: {}", s.fixed_in);
        for l in s.lines.iter().take(6) {
            let _ = writeln!(o, "      {l:>7}: {}", line_text(inputs, parsed, *l));
        }
        let more = s.lines.len().saturating_sub(6) as u32 + s.more;
        if more > 0 {
            let _ = writeln!(o, "      ... and {more} more lines");
        }
    }
    let story: Vec<_> = r.timeline.markers.iter().filter(|m| story_event(&m.event)).collect();
    let _ = writeln!(
        o,
        "\ntimeline ({} typed events; the controller story's {}{} below, requests and ISR changes in --json and the page)",
        r.timeline.markers.len() as u32 + r.timeline.omitted,
        story.len().min(40),
        if story.len() > 40 { format!(" of {}", story.len()) } else { String::new() }
    );
    for m in story.into_iter().take(40) {
        let who = r
            .timeline
            .lanes
            .get(m.lane as usize)
            .and_then(|l| l.broker)
            .map(|b| format!("broker {b}"))
            .unwrap_or_else(|| "broker ?".into());
        let _ = writeln!(o, "  {}  {who:<10} {:<24} line {}", when(m.ts_ms), m.event.kind(), m.line);
    }
    let _ = writeln!(o, "\nfitted replay");
    if fit.fitted {
        let roles: Vec<String> = fit.roles.iter().map(|r| format!("{} = broker {}", r.role, r.broker)).collect();
        let _ = writeln!(o, "  {} ({})", fit.template.unwrap_or("?"), roles.join(", "));
        for v in &fit.verdicts {
            let _ = writeln!(o, "  {:<6} leader {:>3}  {}", v.mode, v.leader, v.words);
        }
        if let Some(p) = &fit.permalink {
            let _ = writeln!(o, "  open it: {PLAYGROUND}{p}");
        }
    }
    for m in &fit.missing {
        let _ = writeln!(o, "  needs: {m}");
    }
    if !r.unknown_lines.is_empty() {
        let _ = writeln!(o, "\nlines not read ({} in all)", r.unknown);
        for u in r.unknown_lines.iter().take(10) {
            let _ = writeln!(o, "  {:>7}: {}", u.line, u.text);
        }
    }
    o
}

/// The events the text timeline lists (the page draws all of them).
fn story_event(e: &Event) -> bool {
    !matches!(
        e,
        Event::ZkVersionSkip { .. }
            | Event::IsrShrink { .. }
            | Event::IsrExpand { .. }
            | Event::LeaderAndIsrReceived { .. }
            | Event::LeaderAndIsrSent { .. }
    )
}

#[cfg(test)]
mod tests {
    use super::stamp;

    #[test]
    fn stamps_read_as_log4j_wrote_them() {
        assert_eq!(stamp(0), "1970-01-01 00:00:00,000");
        assert_eq!(stamp(1_520_696_910_006), "2018-03-10 15:48:30,006");
        assert_eq!(stamp(951_782_400_000), "2000-02-29 00:00:00,000");
    }
}
