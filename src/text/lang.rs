//! A page's language, and deciding it by script when the corpus does not say.

/// A page's language. Chinese gets jieba words; every other language
/// Unicode word segmentation. Languages other than Chinese and English keep
/// their primary subtag (`pt`, `ko`, ...) for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    Zh,
    En,
    Other(LangTag),
}

/// A primary language subtag of two or three ASCII letters, lower-cased.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LangTag([u8; 3], u8);

impl LangTag {
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0[..self.1 as usize]).expect("ASCII letters")
    }
}

impl Lang {
    /// Accepts BCP 47-style tags (`zh-CN`, `en_US`, `pt-BR`, `ko`) and the
    /// English names of Chinese and English; `None` for anything else.
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase();
        match s.as_str() {
            "chinese" => return Some(Lang::Zh),
            "english" => return Some(Lang::En),
            _ => {}
        }
        let mut subtags = s.split(['-', '_']);
        let primary = subtags.next()?;
        let valid_rest = subtags
            .all(|t| (1..=8).contains(&t.len()) && t.chars().all(|c| c.is_ascii_alphanumeric()));
        if !valid_rest
            || !(2..=3).contains(&primary.len())
            || !primary.chars().all(|c| c.is_ascii_alphabetic())
        {
            return None;
        }
        Some(match primary {
            "zh" => Lang::Zh,
            "en" => Lang::En,
            other => {
                let mut tag = [0u8; 3];
                tag[..other.len()].copy_from_slice(other.as_bytes());
                Lang::Other(LangTag(tag, other.len() as u8))
            }
        })
    }

    pub fn code(&self) -> &str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
            Lang::Other(tag) => tag.as_str(),
        }
    }
}

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
