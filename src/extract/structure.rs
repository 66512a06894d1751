//! Document structure for the algorithms: title, subtitles, paragraphs and
//! sentences with their positions, which the semantic method's sentence
//! weights read (seed 001 section 4.3).
//!
//! A run holds every page's structure from extraction to its last
//! algorithm, so it is kept compact: the main text once (paragraphs joined
//! by `\n`), each paragraph as where it ends and each sentence as a span of
//! that text (u32 offsets), instead of a string per paragraph and another
//! per sentence (about 5.7 KB a page at a million pages, 2.3 KB now).
//! Readers get `&str` views through [`DocumentStructure::paragraphs`] and
//! [`DocumentStructure::sentences`].

use serde::ser::{Serialize, SerializeStruct, Serializer};

/// A sentence as readers see it: a view into its structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Sentence<'a> {
    pub text: &'a str,
    /// Byte offsets into the page's main text (paragraphs joined by `\n`).
    pub start: usize,
    pub end: usize,
    pub paragraph: usize,
    pub first_in_paragraph: bool,
    pub last_in_paragraph: bool,
    pub first_in_article: bool,
    pub last_in_article: bool,
}

/// Where a sentence sits: its paragraph and its byte range inside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentenceSpan {
    pub paragraph: usize,
    pub start: usize,
    pub end: usize,
}

/// A sentence as stored: its byte range in the main text and its paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stored {
    start: u32,
    end: u32,
    paragraph: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DocumentStructure {
    pub title: Option<String>,
    pub subtitles: Vec<String>,
    /// The main text: the paragraphs joined by `\n`.
    text: Box<str>,
    /// Where each paragraph ends in `text`; the next starts one byte on.
    paragraph_ends: Box<[u32]>,
    /// In text order.
    sentences: Box<[Stored]>,
    /// The page's DOM skeleton, for grouping pages by template (see
    /// `extract::skeleton`); `None` for text pages and pages without one.
    pub skeleton: Option<super::skeleton::Skeleton>,
}

/// An offset into a page's main text. Pages come from one line of a corpus
/// file or one HTML document each; 4 GiB of main text in one page is past
/// anything a reader hands over.
fn offset(at: usize) -> u32 {
    u32::try_from(at).expect("a page's main text is under 4 GiB")
}

/// Joins paragraphs into one text as [`DocumentStructure`] holds it.
struct StructureBuilder {
    text: String,
    paragraph_ends: Vec<u32>,
    sentences: Vec<Stored>,
}

impl StructureBuilder {
    fn new(bytes: usize, paragraphs: usize) -> Self {
        StructureBuilder {
            text: String::with_capacity(bytes + paragraphs.saturating_sub(1)),
            paragraph_ends: Vec::with_capacity(paragraphs),
            sentences: Vec::new(),
        }
    }

    /// Appends a paragraph; returns where it starts in the text.
    fn paragraph(&mut self, p: &str) -> usize {
        if !self.paragraph_ends.is_empty() {
            self.text.push('\n');
        }
        let at = self.text.len();
        self.text.push_str(p);
        self.paragraph_ends.push(offset(self.text.len()));
        at
    }

    /// Sentence `start..end` of the last paragraph, which starts at `at`.
    fn sentence(&mut self, at: usize, start: usize, end: usize) {
        self.sentences.push(Stored {
            start: offset(at + start),
            end: offset(at + end),
            paragraph: offset(self.paragraph_ends.len() - 1),
        });
    }

    fn finish(self, title: Option<String>, subtitles: Vec<String>) -> DocumentStructure {
        DocumentStructure {
            title,
            subtitles,
            text: self.text.into_boxed_str(),
            paragraph_ends: self.paragraph_ends.into_boxed_slice(),
            sentences: self.sentences.into_boxed_slice(),
            skeleton: None,
        }
    }
}

impl DocumentStructure {
    pub fn new(title: Option<String>, subtitles: Vec<String>, paragraphs: Vec<String>) -> Self {
        let bytes = paragraphs.iter().map(String::len).sum();
        let mut b = StructureBuilder::new(bytes, paragraphs.len());
        for paragraph in &paragraphs {
            let at = b.paragraph(paragraph);
            for_each_sentence(paragraph, |start, end| b.sentence(at, start, end));
        }
        b.finish(title, subtitles)
    }

    /// The structure with sentences already split: `spans` in paragraph
    /// order, byte ranges inside their paragraph (as the extraction cache
    /// stores them). `None` when a span does not fit its paragraph.
    pub fn try_from_spans(
        title: Option<String>,
        subtitles: Vec<String>,
        paragraphs: &[&str],
        spans: &[SentenceSpan],
    ) -> Option<Self> {
        let fits = spans.windows(2).all(|w| w[0].paragraph <= w[1].paragraph)
            && spans.iter().all(|s| {
                paragraphs
                    .get(s.paragraph)
                    .is_some_and(|p| s.start <= s.end && p.get(s.start..s.end).is_some())
            });
        if !fits {
            return None;
        }
        let bytes = paragraphs.iter().map(|p| p.len()).sum();
        let mut b = StructureBuilder::new(bytes, paragraphs.len());
        let starts: Vec<usize> = paragraphs.iter().map(|p| b.paragraph(p)).collect();
        b.sentences.reserve_exact(spans.len());
        for s in spans {
            b.sentences.push(Stored {
                start: offset(starts[s.paragraph] + s.start),
                end: offset(starts[s.paragraph] + s.end),
                paragraph: offset(s.paragraph),
            });
        }
        Some(b.finish(title, subtitles))
    }

    /// The main text: paragraphs, one per line.
    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn paragraph_count(&self) -> usize {
        self.paragraph_ends.len()
    }

    fn paragraph_start(&self, i: usize) -> usize {
        match i {
            0 => 0,
            _ => self.paragraph_ends[i - 1] as usize + 1,
        }
    }

    /// Paragraph `i`'s text.
    pub fn paragraph(&self, i: usize) -> &str {
        &self.text[self.paragraph_start(i)..self.paragraph_ends[i] as usize]
    }

    /// The paragraphs in order.
    pub fn paragraphs(
        &self,
    ) -> impl ExactSizeIterator<Item = &str> + DoubleEndedIterator + Clone + '_ {
        (0..self.paragraph_count()).map(move |i| self.paragraph(i))
    }

    pub fn sentence_count(&self) -> usize {
        self.sentences.len()
    }

    /// Sentence `k`, with its positions.
    pub fn sentence(&self, k: usize) -> Sentence<'_> {
        let s = self.sentences[k];
        let last = self.sentences.len() - 1;
        Sentence {
            text: &self.text[s.start as usize..s.end as usize],
            start: s.start as usize,
            end: s.end as usize,
            paragraph: s.paragraph as usize,
            first_in_paragraph: k == 0 || self.sentences[k - 1].paragraph != s.paragraph,
            last_in_paragraph: k == last || self.sentences[k + 1].paragraph != s.paragraph,
            first_in_article: k == 0,
            last_in_article: k == last,
        }
    }

    /// The sentences in order.
    pub fn sentences(&self) -> impl ExactSizeIterator<Item = Sentence<'_>> + Clone + '_ {
        (0..self.sentences.len()).map(move |k| self.sentence(k))
    }

    /// Each sentence's paragraph and byte range inside it.
    pub fn sentence_spans(&self) -> impl Iterator<Item = SentenceSpan> + '_ {
        self.sentences.iter().map(move |s| {
            let at = self.paragraph_start(s.paragraph as usize);
            SentenceSpan {
                paragraph: s.paragraph as usize,
                start: s.start as usize - at,
                end: s.end as usize - at,
            }
        })
    }
}

/// The same JSON as when paragraphs and sentences were held one by one
/// (`extract --json`, `extract-eval --dump`).
impl Serialize for DocumentStructure {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Seq<I>(I);
        impl<I: Iterator + Clone> Serialize for Seq<I>
        where
            I::Item: Serialize,
        {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_seq(self.0.clone())
            }
        }
        let mut s = serializer.serialize_struct("DocumentStructure", 4)?;
        s.serialize_field("title", &self.title)?;
        s.serialize_field("subtitles", &self.subtitles)?;
        s.serialize_field("paragraphs", &Seq(self.paragraphs()))?;
        s.serialize_field("sentences", &Seq(self.sentences()))?;
        s.end()
    }
}

fn ends_sentence(c: char, next: Option<char>) -> bool {
    match c {
        '。' | '！' | '？' | '；' | '!' | '?' | ';' => true,
        // A full stop ends an English sentence when a space follows (not in
        // 3.14 or e.g.), and so does the end of the text.
        '.' => next.is_none_or(|n| n.is_whitespace() || is_closing(n)),
        _ => false,
    }
}

fn is_closing(c: char) -> bool {
    matches!(
        c,
        '”' | '’' | '"' | '\'' | '」' | '』' | '）' | ')' | '】' | '》' | '〕'
    )
}

/// Sentence byte spans in one paragraph, trimmed, closing quotes kept with
/// the sentence they close.
pub fn split_sentences(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    for_each_sentence(text, |a, b| spans.push((a, b)));
    spans
}

/// The bytes [`for_each_sentence`] stops at, read by one table load.
static MAY_END_SENTENCE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = matches!(b as u8, b'\n' | b'.' | b'!' | b'?' | b';' | 0xE3 | 0xEF);
        b += 1;
    }
    t
};

/// The first byte at or after `from` that [`MAY_END_SENTENCE`] holds.
/// Sixteen bytes a step with SSE2 (part of every x86-64), where the
/// table was read a byte at a time: a paragraph's stops are tens of
/// bytes apart.
#[inline]
fn next_stop(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        while i + 16 <= bytes.len() {
            // SAFETY: `i + 16 <= bytes.len()`; the load is unaligned.
            let mask = unsafe {
                let v = _mm_loadu_si128(bytes.as_ptr().add(i) as *const __m128i);
                let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
                let m = _mm_or_si128(
                    _mm_or_si128(
                        _mm_or_si128(eq(b'\n'), eq(b'.')),
                        _mm_or_si128(eq(b'!'), eq(b'?')),
                    ),
                    _mm_or_si128(_mm_or_si128(eq(b';'), eq(0xE3)), eq(0xEF)),
                );
                _mm_movemask_epi8(m) as u32
            };
            if mask != 0 {
                return Some(i + mask.trailing_zeros() as usize);
            }
            i += 16;
        }
    }
    bytes[i..]
        .iter()
        .position(|&b| MAY_END_SENTENCE[usize::from(b)])
        .map(|k| i + k)
}

/// Calls `f` with each sentence's byte span, as [`split_sentences`] gives
/// them (one pass over the text, nothing allocated).
fn for_each_sentence(text: &str, mut f: impl FnMut(usize, usize)) {
    let char_at = |i: usize| text[i..].chars().next();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    // Only a newline or a character `ends_sentence` may end one: ASCII
    // `.!?;`, and `。！？；`, whose UTF-8 starts with E3 or EF. Those
    // are lead bytes, so the scan stops on character boundaries only.
    while let Some(k) = next_stop(bytes, i) {
        i = k;
        let Some(c) = char_at(i) else { break };
        let after = i + c.len_utf8();
        if c == '\n' || ends_sentence(c, char_at(after)) {
            let mut j = after;
            if c != '\n' {
                // Closing quotes and doubled marks (?!) stay with the sentence.
                while let Some(n) = char_at(j).filter(|&n| {
                    is_closing(n) || matches!(n, '。' | '！' | '？' | '；' | '!' | '?' | ';')
                }) {
                    j += n.len_utf8();
                }
            }
            trimmed(text, start, if c == '\n' { i } else { j }, &mut f);
            start = j;
            i = j;
        } else {
            i = after;
        }
    }
    trimmed(text, start, text.len(), &mut f);
}

fn trimmed(text: &str, a: usize, b: usize, f: &mut impl FnMut(usize, usize)) {
    let piece = &text[a..b];
    // The start trimmed once: `trim` would read it again.
    let rest = piece.trim_start();
    let lead = piece.len() - rest.len();
    let trimmed = rest.trim_end();
    if !trimmed.is_empty() {
        f(a + lead, a + lead + trimmed.len());
    }
}

/// Chinese sites append `-新华网` without spaces; a hyphen touching a Han
/// character or CJK punctuation separates, one inside `COVID-19` does not.
fn cjk_hyphens_as_separators(title: &str) -> String {
    let chars: Vec<char> = title.chars().collect();
    let cjk = |c: Option<&char>| {
        c.is_some_and(|&c| {
            crate::text::lang::is_han(c)
                || ('\u{3000}'..='\u{303F}').contains(&c)
                || ('\u{FF00}'..='\u{FFEF}').contains(&c)
        })
    };
    let mut out = String::with_capacity(title.len());
    for (i, &c) in chars.iter().enumerate() {
        if c == '-' && (cjk(i.checked_sub(1).and_then(|j| chars.get(j))) || cjk(chars.get(i + 1))) {
            out.push_str(" - ");
        } else {
            out.push(c);
        }
    }
    out
}

/// Site names that pages append to their `<title>`.
const TITLE_SEPARATORS: [&str; 9] = [" | ", " - ", " – ", " — ", "_", "｜", "--", " :: ", " · "];

/// The headline from `<title>` without the site's suffix (`_新浪网`,
/// ` - 人民网`), or from the `<h1>` when the title contains it.
pub fn clean_title(title: Option<&str>, h1: Option<&str>) -> Option<String> {
    let h1 = h1.map(str::trim).filter(|h| !h.is_empty());
    let Some(title) = title.map(str::trim).filter(|t| !t.is_empty()) else {
        return h1.map(str::to_string);
    };
    if let Some(h) = h1 {
        if title.contains(h) {
            return Some(h.to_string());
        }
    }
    let mut parts = vec![cjk_hyphens_as_separators(title)];
    for sep in TITLE_SEPARATORS {
        parts = parts
            .iter()
            .flat_map(|p| {
                p.split(sep)
                    .map(str::trim)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|p| !p.is_empty())
            .collect();
    }
    // The headline comes first and site names last, but a short section
    // name may lead ("Home | ..."): take the first part that is not much
    // shorter than the longest.
    let longest = parts.iter().map(|p| p.chars().count()).max().unwrap_or(0);
    parts
        .into_iter()
        .find(|p| p.chars().count() * 5 >= longest * 3)
        .or_else(|| Some(title.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(text: &str) -> Vec<&str> {
        split_sentences(text)
            .into_iter()
            .map(|(a, b)| &text[a..b])
            .collect()
    }

    /// The splitting as it was written first, a character at a time.
    fn sentences_char_by_char(text: &str) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let char_at = |i: usize| text[i..].chars().next();
        let (mut start, mut i) = (0, 0);
        while let Some(c) = char_at(i) {
            let after = i + c.len_utf8();
            if c == '\n' || ends_sentence(c, char_at(after)) {
                let mut j = after;
                if c != '\n' {
                    while let Some(n) = char_at(j).filter(|&n| {
                        is_closing(n) || matches!(n, '。' | '！' | '？' | '；' | '!' | '?' | ';')
                    }) {
                        j += n.len_utf8();
                    }
                }
                trimmed(text, start, if c == '\n' { i } else { j }, &mut |a, b| {
                    out.push((a, b))
                });
                start = j;
                i = j;
            } else {
                i = after;
            }
        }
        trimmed(text, start, text.len(), &mut |a, b| out.push((a, b)));
        out
    }

    #[test]
    fn sentences_split_as_a_character_at_a_time() {
        for text in [
            "",
            "a. b",
            "3.14 is pi. Yes!",
            "他说：“好。”然后走了！真的？是；\n下一行",
            "「引用。」》结束。。。",
            "e.g. this... and that.\u{3000}下\u{3002}",
            "\u{3001}\u{3003}\u{FF01}\u{FF00}\u{FF1B}x\u{FF1F}",
            "no stop at all",
            "?!;.\n\n.",
        ] {
            assert_eq!(
                split_sentences(text),
                sentences_char_by_char(text),
                "{text:?}"
            );
        }
    }

    /// The vector search: every stop byte (and its neighbours) at every
    /// place of runs long enough for whole 16-byte steps, and each
    /// short text put inside long ASCII and Chinese ones, held to the
    /// byte-at-a-time table scan and to the splitting a character at a
    /// time.
    #[test]
    fn stops_are_found_sixteen_bytes_at_a_time_as_one_at_a_time() {
        let table = |b: &[u8], from: usize| {
            b[from..]
                .iter()
                .position(|&x| MAY_END_SENTENCE[usize::from(x)])
                .map(|k| from + k)
        };
        for byte in 0..=255u8 {
            for len in [1, 15, 16, 17, 31, 32, 33, 70] {
                for at in 0..len {
                    let mut b = vec![b'x'; len];
                    b[at] = byte;
                    for from in [0, 1, at, at + 1] {
                        if from <= len {
                            assert_eq!(next_stop(&b, from), table(&b, from), "{byte} {len} {at}");
                        }
                    }
                }
            }
        }
        for pad in ["abcdefgh ", "中文句子里"] {
            for text in [
                "a. b",
                "他说：“好。”然后走了！真的？是；\n下一行",
                "「引用。」》结束。。。",
                "?!;.\n\n.",
            ] {
                for n in 0..40 {
                    let long = format!(
                        "{}{text}{}",
                        pad.repeat(n / 4 + 1).chars().take(n).collect::<String>(),
                        pad.repeat(5)
                    );
                    assert_eq!(
                        split_sentences(&long),
                        sentences_char_by_char(&long),
                        "{long:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn chinese_sentences_keep_their_closing_quotes() {
        assert_eq!(
            sentences("他说：“今天开通。”大家很高兴！真的吗？是的；好"),
            [
                "他说：“今天开通。”",
                "大家很高兴！",
                "真的吗？",
                "是的；",
                "好"
            ]
        );
    }

    #[test]
    fn english_sentences_split_on_stops_followed_by_space() {
        assert_eq!(
            sentences("Pi is 3.14 today. Really?! Yes (he said.) Done"),
            ["Pi is 3.14 today.", "Really?!", "Yes (he said.)", "Done"]
        );
    }

    #[test]
    fn structure_flags_and_offsets() {
        let s = DocumentStructure::new(
            Some("T".into()),
            vec![],
            vec!["第一句。第二句。".into(), "第三句！".into()],
        );
        let text = s.text();
        assert_eq!(text, "第一句。第二句。\n第三句！");
        assert_eq!(s.sentence_count(), 3);
        for sentence in s.sentences() {
            assert_eq!(&text[sentence.start..sentence.end], sentence.text);
        }
        let flags: Vec<_> = s
            .sentences()
            .map(|x| {
                (
                    x.paragraph,
                    x.first_in_paragraph,
                    x.last_in_paragraph,
                    x.first_in_article,
                    x.last_in_article,
                )
            })
            .collect();
        assert_eq!(
            flags,
            [
                (0, true, false, true, false),
                (0, false, true, false, false),
                (1, true, true, false, true)
            ]
        );
    }

    #[test]
    fn paragraphs_and_spans_come_back_as_given() {
        let paragraphs = vec![
            "Storm hits. Trees fall.".to_string(),
            String::new(),
            "  一行\n两行。 ".to_string(),
            "末句？".to_string(),
        ];
        let s = DocumentStructure::new(None, vec!["Sub".into()], paragraphs.clone());
        assert_eq!(s.paragraph_count(), 4);
        assert_eq!(s.paragraphs().collect::<Vec<_>>(), paragraphs);
        assert_eq!(s.text(), paragraphs.join("\n"));
        let texts: Vec<&str> = s.sentences().map(|x| x.text).collect();
        assert_eq!(
            texts,
            ["Storm hits.", "Trees fall.", "一行", "两行。", "末句？"]
        );
        let joined = s.text();
        for x in s.sentences() {
            assert_eq!(&joined[x.start..x.end], x.text);
            assert_eq!(s.paragraph(x.paragraph), paragraphs[x.paragraph]);
        }
        // Spans inside their paragraph rebuild the same structure.
        let spans: Vec<SentenceSpan> = s.sentence_spans().collect();
        assert_eq!(
            spans[2],
            SentenceSpan {
                paragraph: 2,
                start: 2,
                end: 8
            }
        );
        let refs: Vec<&str> = s.paragraphs().collect();
        let again = DocumentStructure::try_from_spans(None, vec!["Sub".into()], &refs, &spans);
        assert_eq!(again.as_ref(), Some(&s));
        let past = SentenceSpan {
            paragraph: 3,
            start: 0,
            end: 99,
        };
        assert!(DocumentStructure::try_from_spans(None, vec![], &refs, &[past]).is_none());
    }

    #[test]
    fn json_lists_paragraphs_and_sentences() {
        let s = DocumentStructure::new(
            Some("T".into()),
            vec![],
            vec!["甲。乙！".into(), "丙".into()],
        );
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "title": "T",
                "subtitles": [],
                "paragraphs": ["甲。乙！", "丙"],
                "sentences": [
                    {"text": "甲。", "start": 0, "end": 6, "paragraph": 0,
                     "first_in_paragraph": true, "last_in_paragraph": false,
                     "first_in_article": true, "last_in_article": false},
                    {"text": "乙！", "start": 6, "end": 12, "paragraph": 0,
                     "first_in_paragraph": false, "last_in_paragraph": true,
                     "first_in_article": false, "last_in_article": false},
                    {"text": "丙", "start": 13, "end": 16, "paragraph": 1,
                     "first_in_paragraph": true, "last_in_paragraph": true,
                     "first_in_article": false, "last_in_article": true}
                ]
            })
        );
        // Field order as before: title, subtitles, paragraphs, sentences.
        let text = serde_json::to_string(&s).unwrap();
        assert!(text.starts_with("{\"title\":\"T\",\"subtitles\":[],\"paragraphs\":["));
    }

    #[test]
    fn site_suffixes_leave_the_title() {
        assert_eq!(
            clean_title(Some("地铁五号线开通_新浪网"), None).as_deref(),
            Some("地铁五号线开通")
        );
        assert_eq!(
            clean_title(Some("地铁五号线今日开通 - 人民网"), None).as_deref(),
            Some("地铁五号线今日开通")
        );
        assert_eq!(
            clean_title(Some("Cycle lanes approved | News | Riverside Herald"), None).as_deref(),
            Some("Cycle lanes approved")
        );
        assert_eq!(
            clean_title(Some("A - B site"), Some("A")).as_deref(),
            Some("A")
        );
        assert_eq!(
            clean_title(None, Some("Only h1")).as_deref(),
            Some("Only h1")
        );
        assert_eq!(
            clean_title(Some("地铁开通_华夏资讯网"), None).as_deref(),
            Some("地铁开通")
        );
        assert_eq!(
            clean_title(Some("Home | A much longer headline about the storm"), None).as_deref(),
            Some("A much longer headline about the storm")
        );
        assert_eq!(clean_title(None, None), None);
    }
}
