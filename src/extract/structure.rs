//! Document structure for the algorithms: title, subtitles, paragraphs and
//! sentences with their positions, which the semantic method's sentence
//! weights read (seed 001 section 4.3).

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sentence {
    pub text: String,
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

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct DocumentStructure {
    pub title: Option<String>,
    pub subtitles: Vec<String>,
    pub paragraphs: Vec<String>,
    pub sentences: Vec<Sentence>,
    /// The page's DOM skeleton, for grouping pages by template (see
    /// `extract::skeleton`); `None` for text pages and pages without one.
    #[serde(skip)]
    pub skeleton: Option<super::skeleton::Skeleton>,
}

impl DocumentStructure {
    pub fn new(title: Option<String>, subtitles: Vec<String>, paragraphs: Vec<String>) -> Self {
        let mut spans = Vec::new();
        for (index, paragraph) in paragraphs.iter().enumerate() {
            for_each_sentence(paragraph, |a, b| {
                spans.push(SentenceSpan {
                    paragraph: index,
                    start: a,
                    end: b,
                })
            });
        }
        Self::from_spans(title, subtitles, paragraphs, &spans)
    }

    /// The structure with sentences already split: `spans` in paragraph
    /// order, byte ranges inside their paragraph (as the extraction cache
    /// stores them). `None` when a span does not fit its paragraph.
    pub fn try_from_spans(
        title: Option<String>,
        subtitles: Vec<String>,
        paragraphs: Vec<String>,
        spans: &[SentenceSpan],
    ) -> Option<Self> {
        let fits = spans.windows(2).all(|w| w[0].paragraph <= w[1].paragraph)
            && spans.iter().all(|s| {
                paragraphs
                    .get(s.paragraph)
                    .is_some_and(|p| s.start <= s.end && p.get(s.start..s.end).is_some())
            });
        fits.then(|| Self::from_spans(title, subtitles, paragraphs, spans))
    }

    fn from_spans(
        title: Option<String>,
        subtitles: Vec<String>,
        paragraphs: Vec<String>,
        spans: &[SentenceSpan],
    ) -> Self {
        let mut offsets = Vec::with_capacity(paragraphs.len());
        let mut offset = 0;
        for paragraph in &paragraphs {
            offsets.push(offset);
            offset += paragraph.len() + 1;
        }
        let mut sentences: Vec<Sentence> = Vec::with_capacity(spans.len());
        for (k, span) in spans.iter().enumerate() {
            let text = &paragraphs[span.paragraph][span.start..span.end];
            let at = offsets[span.paragraph];
            sentences.push(Sentence {
                text: text.to_string(),
                start: at + span.start,
                end: at + span.end,
                paragraph: span.paragraph,
                first_in_paragraph: k == 0 || spans[k - 1].paragraph != span.paragraph,
                last_in_paragraph: spans
                    .get(k + 1)
                    .is_none_or(|n| n.paragraph != span.paragraph),
                first_in_article: false,
                last_in_article: false,
            });
        }
        if let Some(first) = sentences.first_mut() {
            first.first_in_article = true;
        }
        if let Some(last) = sentences.last_mut() {
            last.last_in_article = true;
        }
        DocumentStructure {
            title,
            subtitles,
            paragraphs,
            sentences,
            skeleton: None,
        }
    }

    /// Each sentence's paragraph and byte range inside it.
    pub fn sentence_spans(&self) -> impl Iterator<Item = SentenceSpan> + '_ {
        let mut offsets = Vec::with_capacity(self.paragraphs.len());
        let mut offset = 0;
        for paragraph in &self.paragraphs {
            offsets.push(offset);
            offset += paragraph.len() + 1;
        }
        self.sentences.iter().map(move |s| SentenceSpan {
            paragraph: s.paragraph,
            start: s.start - offsets[s.paragraph],
            end: s.end - offsets[s.paragraph],
        })
    }

    /// The main text: paragraphs, one per line.
    pub fn text(&self) -> String {
        self.paragraphs.join("\n")
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

/// Calls `f` with each sentence's byte span, as [`split_sentences`] gives
/// them (one pass over the text, nothing allocated).
fn for_each_sentence(text: &str, mut f: impl FnMut(usize, usize)) {
    let char_at = |i: usize| text[i..].chars().next();
    let mut start = 0;
    let mut i = 0;
    while let Some(c) = char_at(i) {
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
    let lead = piece.len() - piece.trim_start().len();
    let trimmed = piece.trim();
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
        assert_eq!(s.sentences.len(), 3);
        for sentence in &s.sentences {
            assert_eq!(&text[sentence.start..sentence.end], sentence.text);
        }
        let flags: Vec<_> = s
            .sentences
            .iter()
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
