//! What the logs page will not read, said in one sentence each: more than [`MAX_TOTAL_BYTES`]
//! in all (refused before anything is read), and, per file, one that is empty, compressed or not
//! text (skipped by the worker, the others still read).

/// The most bytes one import reads, over every file and the paste.
pub const MAX_TOTAL_BYTES: f64 = 256.0 * 1024.0 * 1024.0;

/// Bytes looked at to tell text from binary.
const SNIFF: usize = 64 * 1024;

/// `bytes` in the unit a person reads ("812 bytes", "3.4 MB").
pub fn human_bytes(bytes: f64) -> String {
    if bytes < 1024.0 {
        format!("{bytes:.0} bytes")
    } else if bytes < 1024.0 * 1024.0 {
        format!("{:.1} KB", bytes / 1024.0)
    } else {
        format!("{:.1} MB", bytes / (1024.0 * 1024.0))
    }
}

/// Refuses an import of `sizes` (name, bytes) above [`MAX_TOTAL_BYTES`] in all.
pub fn check_total(sizes: &[(String, f64)]) -> Result<(), String> {
    let total: f64 = sizes.iter().map(|(_, s)| *s).sum();
    if total <= MAX_TOTAL_BYTES {
        return Ok(());
    }
    let biggest =
        sizes.iter().max_by(|a, b| a.1.total_cmp(&b.1)).map(|(n, s)| format!(" ('{n}' alone is {})", human_bytes(*s)));
    Err(format!(
        "These logs are {} in all{}; this page reads at most {} at once. Nothing was read: cut the logs to the hours around the incident (or remove a file) and try again.",
        human_bytes(total),
        biggest.unwrap_or_default(),
        human_bytes(MAX_TOTAL_BYTES)
    ))
}

/// Why the file `name` with `bytes` is skipped, if it is: empty, compressed, or not text.
pub fn problem(name: &str, bytes: &[u8]) -> Option<String> {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Some(format!("'{name}' is empty: nothing to read."));
    }
    let head = &bytes[..bytes.len().min(SNIFF)];
    let compressed = match head {
        [0x1f, 0x8b, ..] => Some("gzip"),
        [b'P', b'K', 3, 4, ..] => Some("zip"),
        [b'B', b'Z', b'h', ..] => Some("bzip2"),
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Some("zstd"),
        [0xfd, b'7', b'z', b'X', b'Z', 0, ..] => Some("xz"),
        _ => None,
    };
    if let Some(kind) = compressed {
        return Some(format!(
            "'{name}' is compressed ({kind}): unpack it and drop the log files inside. It was skipped."
        ));
    }
    // UTF-16 text has a NUL in every other byte: say so rather than "binary".
    if head.starts_with(&[0xff, 0xfe]) || head.starts_with(&[0xfe, 0xff]) {
        return Some(format!("'{name}' is UTF-16 text: save it as UTF-8 and try again. It was skipped."));
    }
    let control = head.iter().filter(|&&b| b < 0x09 || (0x0e..0x20).contains(&b) && b != 0x1b).count();
    if head.contains(&0) || control * 10 > head.len() {
        return Some(format!("'{name}' is not a text file (it looks binary). It was skipped."));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn totals_over_the_cap_are_refused_with_the_biggest_named() {
        assert!(check_total(&[("a".into(), 10.0), ("b".into(), MAX_TOTAL_BYTES - 10.0)]).is_ok());
        let e = check_total(&[("small.log".into(), 10.0), ("huge.log".into(), 300.0 * 1048576.0)]).unwrap_err();
        assert!(e.contains("'huge.log' alone is 300.0 MB"), "{e}");
        assert!(e.contains("at most 256.0 MB"), "{e}");
    }

    #[test]
    fn problems_are_named() {
        let line = b"[2018-03-10 15:48:30,006] INFO [Controller 1]: 1 successfully elected as the controller (kafka.controller.KafkaController)\n";
        assert_eq!(problem("c.log", line), None);
        assert_eq!(problem("c.log", "caf\u{e9} \u{1b}[0m colour codes\n".as_bytes()), None);
        assert!(problem("e.log", b"").unwrap().contains("empty"));
        assert!(problem("e.log", b" \n\n").unwrap().contains("empty"));
        assert!(problem("s.log.gz", &[0x1f, 0x8b, 8, 0, 1, 2]).unwrap().contains("gzip"));
        assert!(problem("a.zip", b"PK\x03\x04rest").unwrap().contains("zip"));
        assert!(problem("x.bin", &[1, 2, 3, 0, 5, 6]).unwrap().contains("binary"));
        assert!(problem("u16.log", &[0xff, 0xfe, b'[', 0]).unwrap().contains("UTF-16"));
    }

    #[test]
    fn sizes_read_as_people_say_them() {
        assert_eq!(human_bytes(812.0), "812 bytes");
        assert_eq!(human_bytes(2048.0), "2.0 KB");
        assert_eq!(human_bytes(3.5 * 1048576.0), "3.5 MB");
    }
}
