//! Tokenisers: jieba-rs words for Chinese, Unicode words for English, and
//! character n-grams for either.

use std::sync::LazyLock;

use jieba_rs::Jieba;
use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use super::normalize::{normalize, NormalizeOptions};
use crate::corpus::Lang;

/// Built once per process (about 0.1 s) and shared: `Jieba` is `Sync`.
static JIEBA: LazyLock<Jieba> = LazyLock::new(Jieba::new);

pub fn jieba() -> &'static Jieba {
    &JIEBA
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// jieba words for Chinese pages, Unicode words for the others.
    Auto,
    Jieba,
    Words,
    /// Character n-grams over the text with whitespace removed.
    Chars,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TokenizerConfig {
    pub kind: TokenKind,
    /// n for character n-grams (`kind: chars`); seed 000's example uses 2.
    pub ngram: usize,
    pub normalize: NormalizeOptions,
}

impl Default for TokenizerConfig {
    fn default() -> Self {
        TokenizerConfig {
            kind: TokenKind::Auto,
            ngram: 2,
            normalize: NormalizeOptions::default(),
        }
    }
}

impl TokenizerConfig {
    /// How the tokens read in labels, e.g. `chars` or `char 2-grams`.
    pub fn describe(&self) -> String {
        match self.kind {
            TokenKind::Auto => "auto tokens".into(),
            TokenKind::Jieba => "jieba words".into(),
            TokenKind::Words => "unicode words".into(),
            TokenKind::Chars if self.ngram == 1 => "chars".into(),
            TokenKind::Chars => format!("char {}-grams", self.ngram),
        }
    }
}

/// A page's tokens, kept as byte spans into its normalised text so that a
/// page costs one string, not one allocation per token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tokens {
    text: String,
    spans: Vec<(u32, u32)>,
}

impl Tokens {
    /// The normalised text the tokens point into (for `chars`, without
    /// whitespace).
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.spans
            .iter()
            .map(|&(a, b)| &self.text[a as usize..b as usize])
    }
}

pub fn tokenize(text: &str, lang: Lang, config: &TokenizerConfig) -> Tokens {
    let normalized = normalize(text, &config.normalize);
    let kind = match (config.kind, lang) {
        (TokenKind::Auto, Lang::Zh) => TokenKind::Jieba,
        (TokenKind::Auto, Lang::En | Lang::Other(_)) => TokenKind::Words,
        (kind, _) => kind,
    };
    match kind {
        TokenKind::Jieba => {
            // jieba-rs's `cut(text, true)`, token for token, only faster.
            let mut spans = Vec::with_capacity(normalized.len() / 4);
            super::segment::cut(&normalized, |a, b| {
                if normalized[a..b]
                    .chars()
                    .any(super::normalize::is_alphanumeric)
                {
                    spans.push((a as u32, b as u32));
                }
            });
            Tokens {
                text: normalized,
                spans,
            }
        }
        TokenKind::Words | TokenKind::Auto => {
            let spans = normalized
                .unicode_word_indices()
                .map(|(start, w)| (start as u32, (start + w.len()) as u32))
                .collect();
            Tokens {
                text: normalized,
                spans,
            }
        }
        TokenKind::Chars => char_ngrams(&normalized, config.ngram.max(1)),
    }
}

/// Character n-grams of `text` with whitespace removed; a text shorter
/// than n is one gram.
pub fn char_ngrams(text: &str, n: usize) -> Tokens {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let bounds: Vec<usize> = compact
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(compact.len()))
        .collect();
    let chars = bounds.len() - 1;
    let spans = if chars == 0 {
        Vec::new()
    } else if chars < n {
        // A text shorter than one window is one token, not none.
        vec![(0, compact.len() as u32)]
    } else {
        (0..=chars - n)
            .map(|i| (bounds[i] as u32, bounds[i + n] as u32))
            .collect()
    };
    Tokens {
        text: compact,
        spans,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, lang: Lang, kind: TokenKind) -> Vec<String> {
        let config = TokenizerConfig {
            kind,
            ..TokenizerConfig::default()
        };
        tokenize(text, lang, &config)
            .iter()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn chinese_is_segmented_into_words() {
        let w = words("我们中出了一个叛徒，北京大学。", Lang::Zh, TokenKind::Auto);
        assert!(w.contains(&"北京大学".to_string()), "{w:?}");
        assert!(!w.iter().any(|t| t.trim().is_empty()));
    }

    #[test]
    fn english_words_are_case_folded() {
        let w = words("The Quick, brown fox!", Lang::En, TokenKind::Auto);
        assert_eq!(w, ["the", "quick", "brown", "fox"]);
    }

    #[test]
    fn char_bigrams_skip_whitespace() {
        let w = words("北京 大学", Lang::Zh, TokenKind::Chars);
        assert_eq!(w, ["北京", "京大", "大学"]);
        assert_eq!(words("京", Lang::Zh, TokenKind::Chars), ["京"]);
        assert!(words("  ", Lang::Zh, TokenKind::Chars).is_empty());
    }

    #[test]
    fn full_width_forms_tokenise_like_half_width() {
        assert_eq!(
            words("ＧＤＰ增长１０％", Lang::Zh, TokenKind::Auto),
            words("GDP增长10%", Lang::Zh, TokenKind::Auto)
        );
    }
}
