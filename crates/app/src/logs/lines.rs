//! The raw text of the lines a report cites, by their global line number (the import numbers
//! lines 1, 2, ... across the inputs in the order given). The report carries numbers; the worker,
//! which still holds the bytes, looks their text up here so the page can show the evidence.
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// Characters of a line kept for the page.
pub const MAX_CHARS: usize = 300;

/// One line's text.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct LineText {
    /// Its global line number.
    pub line: u32,
    /// Its file's index.
    pub file: u16,
    /// Its line number in its file (1-based).
    pub file_line: u32,
    /// Its text, lossily decoded, without its line end, cut at [`MAX_CHARS`].
    pub text: String,
}

/// Lines in `bytes` as a log reader counts them: a last line without a line end counts.
pub fn count_lines(bytes: &[u8]) -> u32 {
    let ends = bytes.iter().filter(|&&b| b == b'\n').count();
    (ends + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))) as u32
}

/// The texts of `wanted` global lines in `files` (each file's bytes and, where the import said
/// it, its line count, which then numbers the next file's lines).
pub fn texts(files: &[(&[u8], Option<u32>)], wanted: &BTreeSet<u32>) -> Vec<LineText> {
    let mut out = Vec::new();
    let mut first = 1u32;
    for (i, (bytes, count)) in files.iter().enumerate() {
        let count = count.unwrap_or_else(|| count_lines(bytes));
        let end = first.saturating_add(count);
        let mut want = wanted.range(first..end).copied().peekable();
        if want.peek().is_some() {
            for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
                let Some(&w) = want.peek() else { break };
                let global = first + n as u32;
                if global == w {
                    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
                    let text = String::from_utf8_lossy(raw).chars().take(MAX_CHARS).collect();
                    out.push(LineText { line: global, file: i as u16, file_line: n as u32 + 1, text });
                    want.next();
                }
            }
        }
        first = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn lines_are_numbered_across_files() {
        let a = b"one\ntwo\r\nthree\n";
        let b = b"four\nfive";
        assert_eq!(count_lines(a), 3);
        assert_eq!(count_lines(b), 2);
        assert_eq!(count_lines(b""), 0);
        let wanted: BTreeSet<u32> = [2, 4, 5, 9].into_iter().collect();
        let got = texts(&[(a, None), (b, None)], &wanted);
        let plain: Vec<(u32, u16, u32, &str)> =
            got.iter().map(|l| (l.line, l.file, l.file_line, l.text.as_str())).collect();
        assert_eq!(plain, vec![(2, 0, 2, "two"), (4, 1, 1, "four"), (5, 1, 2, "five")]);
    }

    #[test]
    fn the_import_s_own_count_numbers_the_next_file() {
        // The import counted 4 lines in the first file (say, a trailing empty one).
        let got = texts(&[(b"a\nb\n", Some(4)), (b"c\n", None)], &[5].into_iter().collect());
        assert_eq!(got[0].text, "c");
        assert_eq!(got[0].file_line, 1);
    }

    #[test]
    fn long_and_invalid_lines_are_cut_and_decoded() {
        let mut long = vec![b'x'; 1000];
        long.extend_from_slice(b"\n\xff\xfeok\n");
        let got = texts(&[(&long, None)], &[1, 2].into_iter().collect());
        assert_eq!(got[0].text.chars().count(), MAX_CHARS);
        assert_eq!(got[1].text, "\u{fffd}\u{fffd}ok");
    }
}
