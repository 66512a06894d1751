//! What two pages share, for the pair inspector: runs of w units (a CJK
//! character, or a word of other scripts) found in both texts.

use std::collections::HashSet;

use unicode_segmentation::UnicodeSegmentation;
use xxhash_rust::xxh3::xxh3_64;

/// Units per shared run: four CJK characters or four words.
const SHARED_RUN: usize = 4;

/// A text cut into pieces, each marked shared or not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Highlighted {
    pub pieces: Vec<(String, bool)>,
    pub units: usize,
    pub shared_units: usize,
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F
        | 0x3040..=0x30FF | 0xAC00..=0xD7AF)
}

/// Byte ranges of the units of `text` with their hash.
fn units(text: &str) -> Vec<(usize, usize, u64)> {
    let mut out = Vec::new();
    for (start, word) in text.split_word_bound_indices() {
        if word.chars().any(is_cjk) {
            for (i, c) in word.char_indices() {
                if c.is_alphanumeric() {
                    let s = start + i;
                    out.push((s, s + c.len_utf8(), xxh3_64(c.to_string().as_bytes())));
                }
            }
        } else if word.chars().any(char::is_alphanumeric) {
            let key = word.to_lowercase();
            out.push((start, start + word.len(), xxh3_64(key.as_bytes())));
        }
    }
    out
}

fn runs(units: &[(usize, usize, u64)]) -> Vec<u64> {
    units
        .windows(SHARED_RUN)
        .map(|w| {
            w.iter().fold(0u64, |h, u| {
                h.rotate_left(17).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u.2
            })
        })
        .collect()
}

fn mark(
    text: &str,
    units: &[(usize, usize, u64)],
    own: &[u64],
    other: &HashSet<u64>,
) -> Highlighted {
    let mut shared = vec![false; units.len()];
    for (i, h) in own.iter().enumerate() {
        if other.contains(h) {
            shared[i..i + SHARED_RUN].iter_mut().for_each(|s| *s = true);
        }
    }
    // Per byte: shared when inside a shared unit, or between two shared
    // units (the spaces and punctuation inside a shared run).
    let mut flags = vec![false; text.len()];
    for (k, &(s, e, _)) in units.iter().enumerate() {
        if shared[k] {
            flags[s..e].iter_mut().for_each(|f| *f = true);
            if k + 1 < units.len() && shared[k + 1] {
                flags[e..units[k + 1].0].iter_mut().for_each(|f| *f = true);
            }
        }
    }
    let mut pieces: Vec<(String, bool)> = Vec::new();
    for (i, c) in text.char_indices() {
        let flag = flags[i];
        match pieces.last_mut() {
            Some((piece, f)) if *f == flag => piece.push(c),
            _ => pieces.push((c.to_string(), flag)),
        }
    }
    Highlighted {
        pieces,
        units: units.len(),
        shared_units: shared.iter().filter(|&&s| s).count(),
    }
}

/// Both texts with what they share marked.
pub fn shared_text(a: &str, b: &str) -> (Highlighted, Highlighted) {
    let (ua, ub) = (units(a), units(b));
    let (ra, rb) = (runs(&ua), runs(&ub));
    let (sa, sb): (HashSet<u64>, HashSet<u64>) =
        (ra.iter().copied().collect(), rb.iter().copied().collect());
    (mark(a, &ua, &ra, &sb), mark(b, &ub, &rb, &sa))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(h: &Highlighted) -> String {
        h.pieces
            .iter()
            .filter(|p| p.1)
            .map(|p| p.0.as_str())
            .collect::<Vec<_>>()
            .join("|")
    }

    #[test]
    fn shared_runs_are_marked_in_both_texts() {
        let (a, b) = shared_text("今天江城地铁开通了。", "昨天报道：江城地铁开通试运营。");
        assert_eq!(shared(&a), "江城地铁开通");
        assert_eq!(shared(&b), "江城地铁开通");
        assert_eq!(a.shared_units, 6);
        let (a, b) = shared_text(
            "The quick brown fox jumps over it.",
            "A quick brown fox jumps high.",
        );
        assert_eq!(shared(&a), "quick brown fox jumps");
        assert_eq!(shared(&b), "quick brown fox jumps");
    }

    #[test]
    fn nothing_shared_below_a_run() {
        let (a, b) = shared_text("江城地铁", "江城地下");
        assert_eq!((a.shared_units, b.shared_units), (0, 0));
        let (a, _) = shared_text("", "江城地铁开通");
        assert!(a.pieces.is_empty());
    }
}
