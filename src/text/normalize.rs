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
/// Unicode table lookups (the test below checks every one).
#[inline]
fn is_cjk_punctuation(c: char) -> bool {
    matches!(c,
        '\u{2010}'..='\u{2027}'
        | '\u{2030}'..='\u{205E}'
        | '\u{3001}'..='\u{3003}'
        | '\u{3008}'..='\u{3011}'
        | '\u{3014}'..='\u{301F}'
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
    let mut pending_space = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Runs that every step below leaves as they are, copied whole:
        // Chinese characters (U+4E00..=U+9FFF: lead byte 0xE5..=0xE9, or
        // 0xE4 then 0xB8 or more; tests/segment.rs checks the block),
        // digits, and ASCII letters already in the case asked for.
        let mut j = i;
        // Chinese characters first: in Chinese text they are most bytes.
        while let Some(&b) = bytes.get(j) {
            if (0xE5..=0xE9).contains(&b)
                || (b == 0xE4 && bytes.get(j + 1).is_some_and(|&x| x >= 0xB8))
            {
                j += 3;
            } else if b.is_ascii_digit()
                || b.is_ascii_lowercase()
                || (!options.case && b.is_ascii_uppercase())
            {
                j += 1;
            } else {
                break;
            }
        }
        if j > i {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push_str(&text[i..j]);
            i = j;
            continue;
        }
        let c = text[i..].chars().next().expect("i is before the end");
        i += c.len_utf8();
        // ASCII letters at most change case.
        if is_cjk_main(c) || c.is_ascii_alphanumeric() {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(if options.case {
                c.to_ascii_lowercase()
            } else {
                c
            });
            continue;
        }
        if options.punctuation && is_cjk_punctuation(c) {
            pending_space = !out.is_empty();
            continue;
        }
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
            if is_cjk_punctuation(c) {
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

    #[test]
    fn copied_runs_normalise_as_one_character_at_a_time() {
        // Block edges (U+4DBF, U+4DC0 hexagrams: lead byte 0xE4 below
        // 0xB8; U+4E00, U+9FFF, U+A000), letters of both cases, full-width
        // forms, punctuation and spaces.
        let alphabet: Vec<char> = "\u{4DBF}\u{4DC0}\u{4E00}\u{9FFF}\u{A000}中国人aZz09 \t\u{3000}，。“”—ＡＢ１ß\u{130}\u{1F600}-_.%"
            .chars()
            .collect();
        let mut state = 3u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            crate::text::shingle::fmix64(state)
        };
        for _ in 0..2000 {
            let len = next() as usize % 24;
            let text: String = (0..len)
                .map(|_| alphabet[next() as usize % alphabet.len()])
                .collect();
            for bits in 0..8u8 {
                let options = NormalizeOptions {
                    fullwidth: bits & 1 != 0,
                    case: bits & 2 != 0,
                    punctuation: bits & 4 != 0,
                };
                assert_eq!(
                    normalize(&text, &options),
                    per_character(&text, &options),
                    "{text:?} {options:?}"
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
