//! Function words that carry no content, for algorithms that drop them
//! (I-Match's lexicon). Lists are short on purpose: the IDF band removes
//! the rest of the frequent words; these are the ones a small reference
//! corpus might not rank low enough. Entries are normalised (lower case,
//! half-width) like the tokens they are compared with.

use std::collections::HashSet;
use std::sync::LazyLock;

const CHINESE: &[&str] = &[
    "的", "了", "在", "是", "和", "与", "及", "或", "也", "都", "就", "而", "并", "等", "对", "把",
    "被", "从", "向", "以", "为", "于", "之", "其", "这", "那", "这个", "那个", "这些", "那些",
    "我", "你", "他", "她", "它", "我们", "你们", "他们", "她们", "它们", "自己", "一个", "没有",
    "不", "没", "很", "还", "又", "再", "已", "已经", "将", "会", "能", "可以", "要", "有", "着",
    "过", "吗", "呢", "吧", "啊", "地", "得", "所", "但", "但是", "因为", "所以", "如果", "虽然",
    "由于", "而且", "以及", "通过", "进行", "一些", "这样", "那样", "什么", "怎么", "之一", "其中",
    "上", "下", "中", "里", "到", "说", "个", "些", "每", "各",
];

const ENGLISH: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "if", "then", "of", "to", "in", "on", "at", "by", "for",
    "with", "from", "as", "is", "are", "was", "were", "be", "been", "being", "it", "its", "this",
    "that", "these", "those", "he", "she", "they", "we", "you", "i", "his", "her", "their", "our",
    "your", "my", "not", "no", "so", "do", "does", "did", "have", "has", "had", "will", "would",
    "can", "could", "should", "may", "might", "must", "there", "here", "which", "who", "whom",
    "what", "when", "where", "why", "how", "all", "any", "some", "such", "than", "too", "very",
    "also", "into", "over", "out", "up", "about",
];

static STOP_WORDS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| CHINESE.iter().chain(ENGLISH).copied().collect());

pub fn is_stop_word(token: &str) -> bool {
    STOP_WORDS.contains(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_words_are_stop_words_and_content_words_are_not() {
        assert!(is_stop_word("的") && is_stop_word("the"));
        assert!(!is_stop_word("北京") && !is_stop_word("budget"));
    }
}
