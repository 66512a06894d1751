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
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        // Chinese characters are most of a page and every step below
        // leaves them as they are (tests/segment.rs checks the block);
        // ASCII letters and digits at most change case.
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
    out
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

    #[test]
    fn whitespace_folds_and_trims() {
        let all = NormalizeOptions::default();
        assert_eq!(normalize("  a \n\t b\u{3000}c  ", &all), "a b c");
    }
}
