//! Normalisation before tokenising: reprints of one article differ in
//! full-width versus half-width digits and punctuation, in case, and in
//! punctuation style, none of which makes them different articles.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NormalizeOptions {
    /// Full-width ASCII forms (ＡＢＣ１２３，) and the ideographic space to
    /// their half-width forms.
    pub fullwidth: bool,
    /// Lower-case letters.
    pub case: bool,
    /// Replace punctuation and symbols with spaces.
    pub punctuation: bool,
}

impl Default for NormalizeOptions {
    fn default() -> Self {
        NormalizeOptions {
            fullwidth: true,
            case: true,
            punctuation: true,
        }
    }
}

pub fn fullwidth_to_halfwidth(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        0x3000 => ' ',
        _ => c,
    }
}

/// The main CJK Unified Ideographs block.
#[inline]
pub fn is_cjk_main(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}')
}

/// Chinese text's common punctuation (the CJK block's brackets and stops,
/// the general block's dashes, quotes and ellipsis): none is alphanumeric
/// or whitespace, so punctuation folding makes each a space without the
/// Unicode table lookups (the test below checks every one). All are
/// three-byte characters, so the code point comes from the bytes.
#[inline]
fn is_cjk_punctuation(code: u32) -> bool {
    matches!(code,
        0x2010..=0x2027
        | 0x2030..=0x205E
        | 0x3001..=0x3003
        | 0x3008..=0x3011
        | 0x3014..=0x301F
    )
}

/// `char::is_alphanumeric` without its table lookup for Chinese
/// characters, which are all alphabetic.
#[inline]
pub fn is_alphanumeric(c: char) -> bool {
    is_cjk_main(c) || c.is_alphanumeric()
}

/// Returns the normalised text with runs of whitespace folded to one space.
pub fn normalize(text: &str, options: &NormalizeOptions) -> String {
    let mut out = String::new();
    normalize_into(text, options, &mut out);
    out
}

/// [`normalize`] into `out` (cleared first), so that a caller normalising
/// page after page can keep one buffer.
pub fn normalize_into(text: &str, options: &NormalizeOptions, out: &mut String) {
    out.clear();
    out.reserve(text.len());
    let mut output = Output {
        text: out,
        trailing_space: false,
    };
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Only some bytes can start a run: testing that first skips the
        // 16-byte test between characters to change that follow each
        // other (full-width digits, a comma then a quote).
        if may_start_run(bytes[i], options.case) {
            let j = copyable_run_end(bytes, i, options.case);
            if j > i {
                output.push_str(&text[i..j]);
                i = j;
                if i == bytes.len() {
                    break;
                }
            }
        }
        // A character some step may change. Chinese text's punctuation and
        // full-width forms are three bytes (lead 0xE0..=0xEF): decoding
        // them here skips `chars()` and, for the full-width ones, makes
        // them the ASCII below.
        let lead = bytes[i];
        let ascii = if lead & 0xF0 == 0xE0 {
            let code = (u32::from(lead & 0x0F) << 12)
                | (u32::from(bytes[i + 1] & 0x3F) << 6)
                | u32::from(bytes[i + 2] & 0x3F);
            if options.punctuation && is_cjk_punctuation(code) {
                output.space();
                i += 3;
                continue;
            }
            if options.fullwidth && (0xFF01..=0xFF5E).contains(&code) {
                i += 3;
                Some((code - 0xFEE0) as u8)
            } else {
                None
            }
        } else if lead < 0x80 {
            i += 1;
            Some(lead)
        } else {
            None
        };
        if let Some(a) = ascii {
            if a.is_ascii_alphanumeric() {
                output.push(char::from(if options.case {
                    a.to_ascii_lowercase()
                } else {
                    a
                }));
            } else if options.punctuation || char::from(a).is_whitespace() {
                output.space();
            } else {
                output.push(char::from(a));
            }
            continue;
        }
        // Everything else, one character at a time by the general rule.
        let c = text[i..].chars().next().expect("i is before the end");
        i += c.len_utf8();
        let c = if options.fullwidth {
            fullwidth_to_halfwidth(c)
        } else {
            c
        };
        let c = if options.punctuation && !c.is_alphanumeric() && !c.is_whitespace() {
            ' '
        } else {
            c
        };
        if c.is_whitespace() {
            output.space();
        } else if options.case && !c.is_lowercase() {
            c.to_lowercase().for_each(|c| output.push(c));
        } else {
            output.push(c);
        }
    }
    output.finish();
}

/// The normalised text as it grows. Whitespace (and punctuation, when it
/// folds) writes its space at once, unless the text so far is empty or
/// ends with such a space; a space nothing followed is taken back at the
/// end. Copying a run then needs no check for a pending space.
struct Output<'a> {
    text: &'a mut String,
    trailing_space: bool,
}

impl Output<'_> {
    #[inline]
    fn space(&mut self) {
        if !self.trailing_space && !self.text.is_empty() {
            self.text.push(' ');
            self.trailing_space = true;
        }
    }

    #[inline]
    fn push_str(&mut self, s: &str) {
        self.text.push_str(s);
        self.trailing_space = false;
    }

    #[inline]
    fn push(&mut self, c: char) {
        self.text.push(c);
        self.trailing_space = false;
    }

    fn finish(self) {
        if self.trailing_space {
            self.text.pop();
        }
    }
}

/// Whether a copyable run (see [`copyable_run_end`]) may start at lead
/// byte `b`; for 0xE4 it depends on the next byte.
#[inline]
fn may_start_run(b: u8, case: bool) -> bool {
    (0xE4..=0xE9).contains(&b)
        || b.is_ascii_digit()
        || b.is_ascii_lowercase()
        || (!case && b.is_ascii_uppercase())
}

/// Where the run from `start` of characters that every step leaves as they
/// are ends: Chinese characters (U+4E00..=U+9FFF: lead byte 0xE5..=0xE9, or
/// 0xE4 then 0xB8 or more; tests/segment.rs checks the block), digits, and
/// ASCII letters already in the case asked for. `start` is a character
/// boundary, and so is the end: it is the first byte that is neither a
/// continuation byte nor the start of a copyable character.
#[cfg(target_arch = "x86_64")]
fn copyable_run_end(bytes: &[u8], start: usize, case: bool) -> usize {
    // SAFETY: SSE2 is part of the x86_64 baseline: every such CPU has it.
    unsafe { copyable_run_end_sse2(bytes, start, case) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn copyable_run_end_sse2(bytes: &[u8], start: usize, case: bool) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi8, _mm_and_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128,
        _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    /// Lanes of `v` in `lo..=hi` (unsigned): the shift puts the range at
    /// the bottom of the signed bytes, so one signed compare tests both ends.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn in_range(v: __m128i, lo: u8, hi: u8) -> __m128i {
        let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
        let above = 0x80u8.wrapping_add(hi - lo).wrapping_add(1);
        _mm_cmplt_epi8(shifted, _mm_set1_epi8(above as i8))
    }
    // Chinese news breaks runs every ten characters or so, and a byte at a
    // time the kind of each lead byte is a branch the CPU cannot predict:
    // SSE2 (always there on x86_64) tests 16 bytes with no branch. A run's
    // continuation bytes are fine whatever their lead, as the lead decides;
    // with `case` off, or-ing 0x20 folds upper-case letters into lower.
    let fold = _mm_set1_epi8(if case { 0 } else { 0x20 });
    let mut j = start;
    while j + 17 <= bytes.len() {
        // SAFETY: j + 17 <= bytes.len(), so the 16 bytes from j and the 16
        // from j + 1 (each lane's next byte, for lead 0xE4) are in bounds;
        // `_mm_loadu_si128` takes unaligned addresses.
        let (v, next) = unsafe {
            let p = bytes.as_ptr().add(j);
            (_mm_loadu_si128(p.cast()), _mm_loadu_si128(p.add(1).cast()))
        };
        let continuation = in_range(v, 0x80, 0xBF);
        let chinese = _mm_or_si128(
            in_range(v, 0xE5, 0xE9),
            _mm_and_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(0xE4u8 as i8)),
                in_range(next, 0xB8, 0xFF),
            ),
        );
        let ascii = _mm_or_si128(
            in_range(v, b'0', b'9'),
            in_range(_mm_or_si128(v, fold), b'a', b'z'),
        );
        let copyable = _mm_or_si128(_mm_or_si128(continuation, chinese), ascii);
        let mask = _mm_movemask_epi8(copyable) as u32;
        if mask != 0xFFFF {
            return j + (!mask).trailing_zeros() as usize;
        }
        j += 16;
    }
    copyable_run_end_bytewise(bytes, j, case)
}

#[cfg(not(target_arch = "x86_64"))]
fn copyable_run_end(bytes: &[u8], start: usize, case: bool) -> usize {
    copyable_run_end_bytewise(bytes, start, case)
}

/// [`copyable_run_end`] a character at a time, for the last bytes (and
/// other targets). `start` may be inside a character, after 16 bytes that
/// ended there.
fn copyable_run_end_bytewise(bytes: &[u8], start: usize, case: bool) -> usize {
    let mut j = start;
    while let Some(&b) = bytes.get(j) {
        if (0xE5..=0xE9).contains(&b) || (b == 0xE4 && bytes.get(j + 1).is_some_and(|&x| x >= 0xB8))
        {
            j += 3;
        } else if (0x80..=0xBF).contains(&b)
            || b.is_ascii_digit()
            || b.is_ascii_lowercase()
            || (!case && b.is_ascii_uppercase())
        {
            j += 1;
        } else {
            break;
        }
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_digits_and_punctuation_fold() {
        let all = NormalizeOptions::default();
        assert_eq!(normalize("１９９８年，ＡＢＣ！", &all), "1998年 abc");
        assert_eq!(normalize("1998年,ABC!", &all), "1998年 abc");
    }

    #[test]
    fn each_option_can_be_turned_off() {
        let none = NormalizeOptions {
            fullwidth: false,
            case: false,
            punctuation: false,
        };
        assert_eq!(normalize("Ａb，c", &none), "Ａb，c");
        let case_only = NormalizeOptions { case: true, ..none };
        assert_eq!(normalize("Ａb，C", &case_only), "ａb，c");
    }

    #[test]
    fn punctuation_fast_path_is_what_the_general_rule_gives() {
        for c in ('\u{2000}'..='\u{2100}').chain('\u{3000}'..='\u{3040}') {
            if is_cjk_punctuation(c as u32) {
                assert!(!c.is_alphanumeric() && !c.is_whitespace(), "{c:?}");
                assert_eq!(fullwidth_to_halfwidth(c), c, "{c:?}");
            }
        }
        let all = NormalizeOptions::default();
        assert_eq!(
            normalize("“中国”——《人民日报》、新年…", &all),
            "中国 人民日报 新年"
        );
        let keep = NormalizeOptions {
            punctuation: false,
            ..all
        };
        assert_eq!(normalize("“中国”", &keep), "“中国”");
    }

    /// The loop before runs were copied whole: one character at a time.
    fn per_character(text: &str, options: &NormalizeOptions) -> String {
        let mut out = String::new();
        let mut pending_space = false;
        for c in text.chars() {
            let c = if options.fullwidth {
                fullwidth_to_halfwidth(c)
            } else {
                c
            };
            let c = if options.punctuation && !c.is_alphanumeric() && !c.is_whitespace() {
                ' '
            } else {
                c
            };
            if c.is_whitespace() {
                pending_space = !out.is_empty();
                continue;
            }
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            if options.case && !c.is_lowercase() {
                out.extend(c.to_lowercase());
            } else {
                out.push(c);
            }
        }
        out
    }

    fn all_options() -> impl Iterator<Item = NormalizeOptions> {
        (0..8u8).map(|bits| NormalizeOptions {
            fullwidth: bits & 1 != 0,
            case: bits & 2 != 0,
            punctuation: bits & 4 != 0,
        })
    }

    #[test]
    fn copied_runs_normalise_as_one_character_at_a_time() {
        // Characters runs copy whole, including the block edges (U+4E00,
        // U+9FFF; U+4E00..=U+4FFF have lead byte 0xE4) and upper case,
        // copied when `case` is off.
        let copyable: Vec<char> = "\u{4E00}\u{4E8C}\u{4FFF}\u{5000}\u{9FFF}中国人aqz09AZ"
            .chars()
            .collect();
        // And what stops them: the edges of the CJK block (U+4DBF, U+4DC0
        // and U+4DFF hexagrams: lead byte 0xE4 below 0xB8; U+A000), each
        // edge of the punctuation and full-width ranges decoded from the
        // bytes, the whitespace among them (U+2028, U+202F, U+205F,
        // U+3000), numerals outside them (U+3007, U+2460), two- and
        // four-byte characters (some lower-casing to more bytes, some
        // whitespace), and ASCII of every kind.
        let stops: Vec<char> = concat!(
            "\u{4DBF}\u{4DC0}\u{4DFF}\u{A000}\u{0800}\u{D7FF}\u{E000}\u{FFFD}\u{FFFF}",
            "\u{200F}\u{2010}\u{2014}\u{201C}\u{201D}\u{2026}\u{2027}\u{2028}\u{202F}",
            "\u{2030}\u{205E}\u{205F}\u{2060}\u{2460}",
            "\u{3000}\u{3001}\u{3002}\u{3003}\u{3004}\u{3007}\u{3008}\u{300A}\u{300B}",
            "\u{3011}\u{3012}\u{3013}\u{3014}\u{301F}\u{3020}\u{3041}",
            "\u{FF00}\u{FF01}\u{FF0C}\u{FF0E}\u{FF10}\u{FF19}\u{FF1A}\u{FF20}\u{FF21}",
            "\u{FF3A}\u{FF3B}\u{FF40}\u{FF41}\u{FF5A}\u{FF5E}\u{FF5F}\u{FF61}\u{FFE5}",
            "ß\u{130}éΣ\u{85}\u{A0}µ\u{1F600}\u{20000}\u{1D400}\u{10400}",
            " \t\n\u{B}\u{C}\r\u{1C}\u{0}\u{7F}-_.%,!@[`{~AZ"
        )
        .chars()
        .collect();
        let mut rng = crate::util::rng::SplitMix64::murmur(3u64);
        for _ in 0..6000 {
            // Some texts mostly runs, long enough to cross 16-byte chunks
            // several times; some mostly stops.
            let copyable_percent = [0, 50, 90, 97][rng.next_u64() as usize % 4];
            let len = rng.next_u64() as usize % 81;
            let text: String = (0..len)
                .map(|_| {
                    if rng.next_u64() % 100 < copyable_percent {
                        copyable[rng.next_u64() as usize % copyable.len()]
                    } else {
                        stops[rng.next_u64() as usize % stops.len()]
                    }
                })
                .collect();
            for options in all_options() {
                assert_eq!(
                    normalize(&text, &options),
                    per_character(&text, &options),
                    "{text:?} {options:?}"
                );
            }
        }
    }

    #[test]
    fn peoples_daily_normalises_as_one_character_at_a_time() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz");
        let pages = crate::bench::BenchInput::cut_into_pages(&path, 600)
            .expect("People's Daily 1998 in ../shared/corpora")
            .pages;
        assert!(pages.len() >= 300, "{} pages", pages.len());
        let mut out = String::new();
        for (page, (_, text)) in pages.iter().take(300).enumerate() {
            for options in all_options() {
                normalize_into(text, &options, &mut out);
                assert_eq!(
                    out,
                    per_character(text, &options),
                    "page {page} {options:?}"
                );
            }
        }
    }

    #[test]
    fn whitespace_folds_and_trims() {
        let all = NormalizeOptions::default();
        assert_eq!(normalize("  a \n\t b\u{3000}c  ", &all), "a b c");
    }
}
