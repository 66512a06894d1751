//! Chunks (seed 001, section 4.2): POS-tagged words merged into base
//! phrases by the paper's nine rules, applied in the paper's order, each a
//! left-to-right pass over the result of the one before.
//!
//! The paper tags with ICTCLAS; we tag with jieba-rs, whose tags are the
//! ICTCLAS/PKU set with a few differences, mapped by [`to_pku`]: jieba
//! splits the particle `u` into `uj ul uz ug uv ud`, marks morphemes in
//! lower case (`vg ng ag dg tg`) where PKU writes `Vg Ng Ag Dg Tg`, uses `x`
//! for punctuation and other non-words (PKU `w`), `eng` for Latin words
//! (PKU `nx`), and adds `mq`, `rr`/`rz`/`rg`, `df`, `zg` and `yg`, folded
//! here into `m`, `r`, `d`, `z` and `y`.

use crate::text::tokenize::jieba;
use crate::util::io::FileError;

/// A tag of the PKU (People's Daily) set: a literal where the sets
/// differ, else jieba's own tag.
fn to_pku(jieba_tag: &str) -> &str {
    match jieba_tag {
        "uj" | "ul" | "uz" | "ug" | "uv" | "ud" => "u",
        "x" => "w",
        "eng" => "nx",
        "mq" => "m",
        "rr" | "rz" | "rg" => "r",
        "df" => "d",
        "zg" => "z",
        "yg" => "y",
        "vg" => "Vg",
        "ng" => "Ng",
        "ag" => "Ag",
        "dg" => "Dg",
        "tg" => "Tg",
        other => other,
    }
}

/// A word with its PKU tag, borrowed from the text and the tagger (every
/// sentence of every page is tagged: a string per word and per tag was
/// most of the analysis' allocations).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaggedWord<'a> {
    pub word: &'a str,
    pub tag: &'a str,
}

/// Tags text with jieba (HMM on for unknown words), in PKU tags.
pub fn tag(text: &str) -> Vec<TaggedWord<'_>> {
    let mut words = Vec::new();
    tag_into(text, &mut words);
    words
}

/// [`tag`] into a vector the caller keeps from sentence to sentence.
fn tag_into<'a>(text: &'a str, words: &mut Vec<TaggedWord<'a>>) {
    words.clear();
    words.extend(
        jieba()
            .tag(text, true)
            .into_iter()
            .filter(|t| !t.word.trim().is_empty())
            .map(|t| TaggedWord {
                word: t.word,
                tag: to_pku(t.tag),
            }),
    );
}

/// Tags `text` and finds its content chunks (rules applied, kinds that
/// carry a topic), as [`tag_into`] and [`chunk`] would, and hands both to
/// `read`. A sentence met lately on this thread is not tagged again: a
/// site's navigation and footer, and the copies a corpus of near-duplicates
/// holds, repeat sentences on many pages, and tagging is most of the
/// method's analysis. The answer depends on the text alone, so a hit
/// changes nothing but time.
pub fn with_tagged_sentence<'t, R>(
    text: &'t str,
    read: impl FnOnce(&[TaggedWord<'t>], &[Chunk]) -> R,
) -> R {
    if text.len() > RECENT_LONGEST {
        let mut words = Vec::new();
        tag_into(text, &mut words);
        let content = content_chunks(&words);
        return read(&words, &content);
    }
    RECENT_SENTENCES.with(|recent| {
        let mut recent = recent.borrow_mut();
        let slots = &mut recent.slots;
        if slots.is_empty() {
            slots.resize_with(RECENT_SLOTS, || None);
        }
        let slot = &mut slots[xxhash_rust::xxh3::xxh3_64(text.as_bytes()) as usize % RECENT_SLOTS];
        if let Some(sentence) = slot.as_deref().filter(|s| &*s.text == text) {
            let words: Vec<TaggedWord<'t>> = sentence
                .words
                .iter()
                .map(|&((start, end), tag)| TaggedWord {
                    word: &text[start as usize..end as usize],
                    tag,
                })
                .collect();
            return read(&words, &sentence.content);
        }
        let mut words = Vec::new();
        tag_into(text, &mut words);
        let content = content_chunks(&words);
        *slot = TaggedSentence::of(text, &words, &content).map(Box::new);
        read(&words, &content)
    })
}

/// Sentences kept per thread: a few megabytes, enough for a site's
/// template to stay between its pages.
const RECENT_SLOTS: usize = 1 << 14;
/// Longer texts are tagged each time (one such text is rarely repeated,
/// and would hold much memory).
const RECENT_LONGEST: usize = 2048;

#[derive(Default)]
struct RecentSentences {
    /// By the text's hash: the last sentence to land there.
    slots: Vec<Option<Box<TaggedSentence>>>,
}

thread_local! {
    static RECENT_SENTENCES: std::cell::RefCell<RecentSentences> = Default::default();
}

/// A tagged sentence held for reuse: each word's byte range and its tag.
struct TaggedSentence {
    text: Box<str>,
    words: Vec<((u32, u32), &'static str)>,
    content: Vec<Chunk>,
}

impl TaggedSentence {
    /// `None` when a tag is not one of [`TAGS`] (then it is not kept).
    fn of(text: &str, words: &[TaggedWord], content: &[Chunk]) -> Option<Self> {
        let words = words
            .iter()
            .map(|w| {
                let start = w.word.as_ptr() as usize - text.as_ptr() as usize;
                let tag = TAGS.iter().find(|&&t| t == w.tag)?;
                Some(((start as u32, (start + w.word.len()) as u32), *tag))
            })
            .collect::<Option<_>>()?;
        Some(TaggedSentence {
            text: text.into(),
            words,
            content: content.to_vec(),
        })
    }
}

/// The tags [`to_pku`] hands out for jieba's dictionary and its guesses.
const TAGS: [&str; 61] = [
    "n", "nr", "v", "i", "l", "ns", "m", "nz", "nrt", "z", "nt", "a", "vn", "d", "t", "j", "b",
    "g", "r", "s", "c", "nrfg", "w", "f", "Ng", "o", "q", "Vg", "p", "ad", "y", "Ag", "an", "e",
    "u", "Tg", "vq", "vi", "k", "vd", "mg", "h", "Dg", "nx", "x", "ng", "vg", "ag", "dg", "tg",
    "zg", "mq", "rr", "rz", "rg", "df", "uj", "ul", "eng", "yg", "ud",
];

fn content_chunks(words: &[TaggedWord]) -> Vec<Chunk> {
    chunk(words)
        .into_iter()
        .filter(|c| c.kind.is_content())
        .collect()
}

/// What a word or chunk is, for the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    Noun,
    Verb,
    Adjective,
    Adverb,
    Numeral,
    Measure,
    Preposition,
    Conjunction,
    Time,
    Place,
    Punctuation,
    Other,
    /// Base noun phrase (rules 2, 4, 5).
    Bnp,
    /// Base adjective phrase (rule 3).
    Badjp,
    /// Base quantity phrase (rule 6).
    Bmp,
    /// Base verb phrase (rules 7, 9).
    Bvp,
    /// Base adverb phrase (rule 8).
    Badvp,
}

impl ChunkKind {
    fn of_tag(tag: &str) -> ChunkKind {
        match tag {
            "t" | "Tg" => ChunkKind::Time,
            "s" | "f" | "ns" => ChunkKind::Place,
            "vn" | "an" => ChunkKind::Noun,
            t if t.starts_with('n') || t == "Ng" => ChunkKind::Noun,
            "ad" | "vd" | "d" | "Dg" => ChunkKind::Adverb,
            t if t.starts_with('v') || t == "Vg" => ChunkKind::Verb,
            "a" | "Ag" | "b" => ChunkKind::Adjective,
            "m" => ChunkKind::Numeral,
            "q" => ChunkKind::Measure,
            "p" => ChunkKind::Preposition,
            "c" => ChunkKind::Conjunction,
            "w" => ChunkKind::Punctuation,
            _ => ChunkKind::Other,
        }
    }

    fn is_noun(self) -> bool {
        matches!(self, ChunkKind::Noun | ChunkKind::Bnp)
    }
    fn is_verb(self) -> bool {
        matches!(self, ChunkKind::Verb | ChunkKind::Bvp)
    }
    fn is_adjective(self) -> bool {
        matches!(self, ChunkKind::Adjective | ChunkKind::Badjp)
    }
    fn is_adverb(self) -> bool {
        matches!(self, ChunkKind::Adverb | ChunkKind::Badvp)
    }

    /// Words and phrases that carry content (chunks weighed by W(C)).
    pub fn is_content(self) -> bool {
        !matches!(
            self,
            ChunkKind::Punctuation
                | ChunkKind::Other
                | ChunkKind::Preposition
                | ChunkKind::Conjunction
        )
    }
}

/// A run of a sentence's tagged words, `words` indexing them: the rules
/// only ever join neighbours, so a chunk is a range and joining two is
/// widening one (no word is copied, no vector made per chunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub words: std::ops::Range<usize>,
    pub kind: ChunkKind,
}

type ChunkWords<'s, 'a> =
    std::iter::Map<std::slice::Iter<'s, TaggedWord<'a>>, fn(&TaggedWord<'a>) -> &'a str>;

impl Chunk {
    /// The chunk's words, from the words it indexes.
    pub fn words<'s, 'a>(&self, words: &'s [TaggedWord<'a>]) -> ChunkWords<'s, 'a> {
        words[self.words.clone()].iter().map(|w| w.word)
    }

    pub fn text(&self, words: &[TaggedWord]) -> String {
        self.words(words).collect()
    }
}

/// Whether the chunk is one of `candidates`. Words are never empty, so a
/// chunk of several words is none of them.
fn is_word(c: &Chunk, words: &[TaggedWord], candidates: &[&str]) -> bool {
    c.words.len() == 1 && candidates.contains(&words[c.words.start].word)
}

/// Rule (1): `X 和/与/跟 Y` with X and Y of one kind becomes one phrase of
/// that kind.
fn rule1_coordination(words: &[TaggedWord], chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    let mut i = 0;
    while i < chunks.len() {
        let c = &chunks[i];
        let is_and =
            c.kind == ChunkKind::Conjunction && is_word(c, words, &["和", "与", "跟", "同", "及"]);
        if is_and && i + 1 < chunks.len() {
            if let Some(prev) = out.last_mut() {
                let next_kind = chunks[i + 1].kind;
                if prev.kind == next_kind && prev.kind.is_content() {
                    prev.words.end = chunks[i + 1].words.end;
                    prev.kind = next_kind;
                    i += 2;
                    continue;
                }
            }
        }
        out.push(chunks[i].clone());
        i += 1;
    }
    out
}

/// Merges runs of adjacent chunks for which `joins(previous, next)` holds
/// into one chunk of `kind`.
fn merge_runs(
    chunks: Vec<Chunk>,
    joins: impl Fn(ChunkKind, ChunkKind) -> bool,
    kind: ChunkKind,
) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    for c in chunks {
        if let Some(prev) = out.last_mut() {
            if joins(prev.kind, c.kind) {
                prev.words.end = c.words.end;
                prev.kind = kind;
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Rule (2): adjacent nouns form a base noun phrase.
fn rule2_nouns(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(chunks, |a, b| a.is_noun() && b.is_noun(), ChunkKind::Bnp)
}

/// Rule (3): adjacent adjectives form a base adjective phrase.
fn rule3_adjectives(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(
        chunks,
        |a, b| a.is_adjective() && b.is_adjective(),
        ChunkKind::Badjp,
    )
}

/// Rule (4): an adjective with the noun after it forms a base noun phrase.
fn rule4_adjective_noun(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(
        chunks,
        |a, b| a.is_adjective() && b.is_noun(),
        ChunkKind::Bnp,
    )
}

/// Rule (5): `在`/`于` and the time or place after it form a base noun
/// phrase of time or place.
fn rule5_preposition_time_place(words: &[TaggedWord], chunks: Vec<Chunk>) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::with_capacity(chunks.len());
    let mut i = 0;
    while i < chunks.len() {
        let c = &chunks[i];
        let is_at = c.kind == ChunkKind::Preposition && is_word(c, words, &["在", "于"]);
        if is_at && i + 1 < chunks.len() {
            // The time or place, with the nouns that belong to it.
            let mut end = i + 1;
            while end < chunks.len()
                && matches!(
                    chunks[end].kind,
                    ChunkKind::Time | ChunkKind::Place | ChunkKind::Noun | ChunkKind::Bnp
                )
            {
                end += 1;
            }
            let has_time_or_place = chunks[i + 1..end]
                .iter()
                .any(|c| matches!(c.kind, ChunkKind::Time | ChunkKind::Place));
            if has_time_or_place {
                out.push(Chunk {
                    words: c.words.start..chunks[end - 1].words.end,
                    kind: ChunkKind::Bnp,
                });
                i = end;
                continue;
            }
        }
        out.push(c.clone());
        i += 1;
    }
    out
}

/// Rule (6): a numeral and the measure word after it form a base quantity
/// phrase.
fn rule6_numeral_measure(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(
        chunks,
        |a, b| a == ChunkKind::Numeral && b == ChunkKind::Measure,
        ChunkKind::Bmp,
    )
}

/// Rule (7): adjacent verbs form a base verb phrase.
fn rule7_verbs(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(chunks, |a, b| a.is_verb() && b.is_verb(), ChunkKind::Bvp)
}

/// Rule (8): adjacent adverbs form a base adverb phrase.
fn rule8_adverbs(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(
        chunks,
        |a, b| a.is_adverb() && b.is_adverb(),
        ChunkKind::Badvp,
    )
}

/// Rule (9): an adverb or adjective with the verb after it forms a base
/// verb phrase.
fn rule9_modifier_verb(chunks: Vec<Chunk>) -> Vec<Chunk> {
    merge_runs(
        chunks,
        |a, b| (a.is_adverb() || a.is_adjective()) && b.is_verb(),
        ChunkKind::Bvp,
    )
}

/// Tagged words to chunks, by the nine rules in order.
pub fn chunk(words: &[TaggedWord]) -> Vec<Chunk> {
    let chunks: Vec<Chunk> = words
        .iter()
        .enumerate()
        .map(|(i, w)| Chunk {
            words: i..i + 1,
            kind: ChunkKind::of_tag(w.tag),
        })
        .collect();
    let chunks = rule1_coordination(words, chunks);
    let chunks = rule2_nouns(chunks);
    let chunks = rule3_adjectives(chunks);
    let chunks = rule4_adjective_noun(chunks);
    let chunks = rule5_preposition_time_place(words, chunks);
    let chunks = rule6_numeral_measure(chunks);
    let chunks = rule7_verbs(chunks);
    let chunks = rule8_adverbs(chunks);
    rule9_modifier_verb(chunks)
}

/// jieba's tagging against gold-tagged text.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TagAgreement {
    pub gold_words: usize,
    pub jieba_words: usize,
    /// Words with the same span in both segmentations.
    pub same_span: usize,
    /// Of those, with the same PKU tag ...
    pub same_tag: usize,
    /// ... and with the same first letter (n, v, a, ...), case folded.
    pub same_class: usize,
}

impl TagAgreement {
    /// Adds one gold-tagged paragraph.
    pub fn add(&mut self, gold: &[(String, String)]) {
        let text: String = gold.iter().map(|(w, _)| w.as_str()).collect();
        let mut spans = std::collections::HashMap::new();
        let mut at = 0;
        for (w, t) in gold {
            spans.insert((at, at + w.chars().count()), t.as_str());
            at += w.chars().count();
        }
        self.gold_words += gold.len();
        for t in jieba().tag(&text, true) {
            self.jieba_words += 1;
            if let Some(gold_tag) = spans.get(&(t.start, t.end)) {
                self.same_span += 1;
                let ours = to_pku(t.tag);
                if ours == *gold_tag {
                    self.same_tag += 1;
                }
                let class = |s: &str| s.chars().next().map(|c| c.to_ascii_lowercase());
                if class(ours) == class(gold_tag) {
                    self.same_class += 1;
                }
            }
        }
    }
}

impl TagAgreement {
    /// Every `tagged_paragraphs` list of a JSONL(.gz) file such as
    /// People's Daily 1998 (lists of `[word, tag]` pairs).
    pub fn of_file(path: &std::path::Path) -> Result<TagAgreement, crate::corpus::CorpusError> {
        use crate::corpus::CorpusError;
        let bytes = crate::corpus::read_maybe_gzipped(path).map_err(FileError::at(path))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut agreement = TagAgreement::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let invalid = |message: String| {
                CorpusError::invalid(
                    path,
                    crate::corpus::Location::Line(i + 1),
                    Some("tagged_paragraphs"),
                    message,
                )
            };
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| invalid(format!("malformed JSON: {e}")))?;
            let Some(paragraphs) = value.get("tagged_paragraphs").and_then(|v| v.as_array()) else {
                return Err(invalid(
                    "is missing: expected lists of [word, tag] pairs".into(),
                ));
            };
            for paragraph in paragraphs {
                let pairs: Option<Vec<(String, String)>> = paragraph.as_array().map(|words| {
                    words
                        .iter()
                        .filter_map(|p| {
                            let p = p.as_array()?;
                            Some((
                                p.first()?.as_str()?.to_string(),
                                p.get(1)?.as_str()?.to_string(),
                            ))
                        })
                        .collect()
                });
                match pairs {
                    Some(pairs) => agreement.add(&pairs),
                    None => return Err(invalid("expected lists of [word, tag] pairs".into())),
                }
            }
        }
        Ok(agreement)
    }

    pub fn render(&self) -> String {
        let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
        format!(
            "gold words {}, jieba words {}\n\
             segmentation: {} words with the same span ({:.2}% of gold, {:.2}% of jieba's)\n\
             tags on those words: same PKU tag {:.2}%, same class (first letter) {:.2}%\n",
            self.gold_words,
            self.jieba_words,
            self.same_span,
            pct(self.same_span, self.gold_words),
            pct(self.same_span, self.jieba_words),
            pct(self.same_tag, self.same_span),
            pct(self.same_class, self.same_span),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tagged(spec: &[(&'static str, &'static str)]) -> Vec<TaggedWord<'static>> {
        spec.iter()
            .map(|&(word, tag)| TaggedWord { word, tag })
            .collect()
    }

    /// A chunk a word, as the rules start.
    fn singles(words: &[TaggedWord]) -> Vec<Chunk> {
        (0..words.len())
            .map(|i| Chunk {
                words: i..i + 1,
                kind: ChunkKind::of_tag(words[i].tag),
            })
            .collect()
    }

    fn shape(words: &[TaggedWord], chunks: &[Chunk]) -> Vec<(String, ChunkKind)> {
        chunks.iter().map(|c| (c.text(words), c.kind)).collect()
    }

    use ChunkKind::*;

    #[test]
    fn a_sentence_met_again_reads_as_when_first_tagged() {
        let sentences = [
            "新华社北京1月5日电，国务院总理今天在人民大会堂会见了来访的客人。",
            "首页 | 新闻中心 | 国际新闻 | 联系我们",
            "他说：“经济增长的势头良好，2024年GDP增长5.2%。”",
            "IBM和微软的工程师在上海开会",
        ];
        fn expected(text: &str) -> (Vec<TaggedWord<'_>>, Vec<Chunk>) {
            let words = tag(text);
            let content: Vec<Chunk> = chunk(&words)
                .into_iter()
                .filter(|c| c.kind.is_content())
                .collect();
            (words, content)
        }
        // Each twice (the second read is a hit), the first again after the others.
        for text in sentences.iter().chain(&sentences).chain(&sentences[..1]) {
            // A copy, so a hit must rebuild the words on this text.
            let owned = text.to_string();
            let (words, content) = with_tagged_sentence(&owned, |w, c| (w.to_vec(), c.to_vec()));
            assert_eq!((words, content), expected(&owned), "{text}");
        }
        // The sentences were kept, so the second reads were hits.
        RECENT_SENTENCES.with(|recent| {
            let recent = recent.borrow();
            let kept = |text: &str| recent.slots.iter().flatten().any(|s| &*s.text == text);
            assert!(sentences.iter().all(|s| kept(s)));
        });
        let long = sentences.concat().repeat(20);
        assert!(long.len() > RECENT_LONGEST);
        let read = with_tagged_sentence(&long, |w, c| (w.len(), c.len()));
        let (words, content) = expected(&long);
        assert_eq!(read, (words.len(), content.len()));
    }

    #[test]
    fn rule1_joins_like_kinds_around_and() {
        let w = tagged(&[("老师", "n"), ("和", "c"), ("学生", "n"), ("来", "v")]);
        let c = rule1_coordination(&w, singles(&w));
        assert_eq!(
            shape(&w, &c),
            [("老师和学生".into(), Noun), ("来".into(), Verb)]
        );
        // Unlike kinds stay apart.
        let w = tagged(&[("老师", "n"), ("和", "c"), ("跑", "v")]);
        let c = rule1_coordination(&w, singles(&w));
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn rule2_joins_adjacent_nouns() {
        let w = tagged(&[("北京", "ns"), ("地铁", "n"), ("公司", "n"), ("开通", "v")]);
        let c = rule2_nouns(singles(&w));
        // A place name is a place, not a noun, for rule 2.
        assert_eq!(
            shape(&w, &c),
            [
                ("北京".into(), Place),
                ("地铁公司".into(), Bnp),
                ("开通".into(), Verb)
            ]
        );
    }

    #[test]
    fn rule3_joins_adjacent_adjectives() {
        let w = tagged(&[("美丽", "a"), ("善良", "a"), ("的", "u")]);
        let c = rule3_adjectives(singles(&w));
        assert_eq!(shape(&w, &c)[0], ("美丽善良".into(), Badjp));
    }

    #[test]
    fn rule4_joins_adjective_and_noun() {
        let w = tagged(&[("新", "a"), ("世纪", "n")]);
        let c = rule4_adjective_noun(singles(&w));
        assert_eq!(shape(&w, &c), [("新世纪".into(), Bnp)]);
    }

    #[test]
    fn rule5_joins_at_with_time_or_place() {
        let w = tagged(&[("在", "p"), ("北京", "ns"), ("召开", "v")]);
        let c = rule5_preposition_time_place(&w, singles(&w));
        assert_eq!(
            shape(&w, &c),
            [("在北京".into(), Bnp), ("召开".into(), Verb)]
        );
        let w = tagged(&[("于", "p"), ("昨天", "t"), ("下午", "t")]);
        let c = rule5_preposition_time_place(&w, singles(&w));
        assert_eq!(shape(&w, &c), [("于昨天下午".into(), Bnp)]);
        // Not before an ordinary noun alone.
        let w = tagged(&[("在", "p"), ("会议", "n")]);
        let c = rule5_preposition_time_place(&w, singles(&w));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn rule6_joins_numeral_and_measure() {
        let w = tagged(&[("三", "m"), ("个", "q"), ("人", "n")]);
        let c = rule6_numeral_measure(singles(&w));
        assert_eq!(shape(&w, &c)[0], ("三个".into(), Bmp));
    }

    #[test]
    fn rule7_joins_adjacent_verbs() {
        let w = tagged(&[("研究", "v"), ("决定", "v"), ("。", "w")]);
        let c = rule7_verbs(singles(&w));
        assert_eq!(shape(&w, &c)[0], ("研究决定".into(), Bvp));
    }

    #[test]
    fn rule8_joins_adjacent_adverbs() {
        let w = tagged(&[("已经", "d"), ("基本", "d"), ("完成", "v")]);
        let c = rule8_adverbs(singles(&w));
        assert_eq!(shape(&w, &c)[0], ("已经基本".into(), Badvp));
    }

    #[test]
    fn rule9_joins_modifier_and_verb() {
        let w = tagged(&[("积极", "a"), ("参加", "v")]);
        let c = rule9_modifier_verb(singles(&w));
        assert_eq!(shape(&w, &c), [("积极参加".into(), Bvp)]);
        let w = tagged(&[("不", "d"), ("同意", "v")]);
        let c = rule9_modifier_verb(singles(&w));
        assert_eq!(shape(&w, &c), [("不同意".into(), Bvp)]);
    }

    #[test]
    fn rules_run_in_order_on_tagged_text() {
        let chunks = chunk(&tag("江城地铁五号线今日开通试运营"));
        assert!(
            chunks.len() < tag("江城地铁五号线今日开通试运营").len(),
            "{chunks:?}"
        );
        assert!(
            chunks.iter().any(|c| c.kind == Bvp || c.kind == Bnp),
            "{chunks:?}"
        );
    }

    #[test]
    fn chunks_cover_the_words_in_order() {
        let words = tag("在北京召开的会议上，老师和学生积极参加了三个研究项目的讨论。");
        let chunks = chunk(&words);
        let mut at = 0;
        for c in &chunks {
            assert_eq!(c.words.start, at, "{chunks:?}");
            assert!(c.words.end > c.words.start, "{chunks:?}");
            at = c.words.end;
        }
        assert_eq!(at, words.len());
        let text: String = chunks.iter().map(|c| c.text(&words)).collect();
        let all: String = words.iter().map(|w| w.word).collect();
        assert_eq!(text, all);
        assert!(chunks.len() < words.len(), "{chunks:?}");
    }

    #[test]
    fn jieba_tags_map_to_pku() {
        assert_eq!(to_pku("uj"), "u");
        assert_eq!(to_pku("x"), "w");
        assert_eq!(to_pku("vg"), "Vg");
        assert_eq!(to_pku("nr"), "nr");
        let mut agreement = TagAgreement::default();
        agreement.add(&[
            ("我们".into(), "r".into()),
            ("热爱".into(), "v".into()),
            ("和平".into(), "n".into()),
        ]);
        assert_eq!(agreement.gold_words, 3);
        assert!(agreement.same_span >= 2, "{agreement:?}");
    }
}
