//! Deciding a page's language by script when the corpus does not say.

use crate::corpus::Lang;

pub fn is_han(c: char) -> bool {
    matches!(c as u32,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Chinese when Han characters are at least a quarter as many as Latin
/// letters: a Han character carries about as much as a short English word
/// (4-5 letters), so this calls a page Chinese when it has at least as much
/// Chinese as English, by content.
pub fn detect_lang(text: &str) -> Lang {
    let (mut han, mut latin) = (0usize, 0usize);
    for c in text.chars() {
        if is_han(c) {
            han += 1;
        } else if c.is_alphabetic() {
            latin += 1;
        }
    }
    if han > 0 && han * 4 >= latin {
        Lang::Zh
    } else {
        Lang::En
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_decides_language() {
        assert_eq!(detect_lang("今天北京天气很好。"), Lang::Zh);
        assert_eq!(
            detect_lang("The weather in Beijing is fine today."),
            Lang::En
        );
        // A Chinese article with a few English product names stays Chinese.
        assert_eq!(
            detect_lang("苹果公司发布了 iPhone 和 MacBook 新品，售价不变。"),
            Lang::Zh
        );
        // An English page quoting one Chinese word stays English.
        assert_eq!(
            detect_lang("The word 你好 means hello in Mandarin, the most spoken language."),
            Lang::En
        );
        assert_eq!(detect_lang(""), Lang::En);
    }
}
