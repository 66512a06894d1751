//! A faster segmenter that cuts exactly as jieba-rs's `cut(text, true)`:
//! the same dictionary and HMM model (jieba-rs's own files, found by
//! build.rs), the same maximum-probability route over the dictionary DAG
//! with the same tie rule and the same floating-point sums, and the same
//! HMM for runs of single characters the dictionary does not join.
//!
//! Where the time goes differs: the dictionary is a character-wise
//! double-array trie (`crawdad`, characters coded by frequency so the
//! common ones sit close together) built by build.rs, a word's
//! `ln(freq) - ln(total)` is computed once per distinct frequency, the DAG is never stored (each character's
//! prefix search feeds the route right away, right to left) and the
//! buffers are reused per thread, so segmenting a page allocates nothing.
//! jieba-rs stays the reference: tests/segment.rs compares the two token
//! for token on real text.

use std::cell::RefCell;
use std::sync::LazyLock;

use crawdad::Trie;

/// Built by build.rs from jieba-rs's dictionary: the trie (a word's value
/// is its frequency class) and the total and each class's frequency.
static TRIE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_trie.bin"));
static FREQS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_freqs.bin"));
static HMM_MODEL: &str = include_str!(env!("NEARDUP_JIEBA_HMM"));

#[derive(Debug, thiserror::Error)]
pub enum SegmentError {
    #[error("jieba dictionary: {0}")]
    Dict(String),
    #[error("jieba HMM model: {0}")]
    Hmm(String),
    #[error("jieba dictionary trie: {0}")]
    Trie(String),
}

/// jieba's stand-in for log(0) in the HMM tables.
const MIN_FLOAT: f64 = -3.14e100;
/// The characters the HMM's emission table covers.
const HMM_HAN_MIN: u32 = 0x4E00;
const HMM_HAN_MAX: u32 = 0x9FD5;

const B: usize = 0;
const E: usize = 1;
const M: usize = 2;
const S: usize = 3;
/// The states that may precede each state, lower index first: on a tie
/// the second wins, as in jieba-rs.
const ALLOWED_PREV: [[usize; 2]; 4] = [[E, S], [B, M], [B, M], [E, S]];

struct Hmm {
    initial: [f64; 4],
    trans: [[f64; 4]; 4],
    /// Indexed by `char - HMM_HAN_MIN`.
    emit: Vec<[f64; 4]>,
}

impl Hmm {
    fn parse(model: &str) -> Result<Self, SegmentError> {
        let numbers = |line: &str| -> Result<[f64; 4], SegmentError> {
            let v: Vec<f64> = line
                .split_whitespace()
                .map(|x| x.parse::<f64>())
                .collect::<Result<_, _>>()
                .map_err(|e| SegmentError::Hmm(format!("`{line}`: {e}")))?;
            v.try_into()
                .map_err(|_| SegmentError::Hmm(format!("`{line}`: not 4 numbers")))
        };
        // The layout jieba-macros reads: comments, the start line, the
        // 4x4 transitions, then one emission line per state.
        let mut lines = model.lines().skip_while(|l| l.starts_with('#'));
        let initial = numbers(lines.next().unwrap_or(""))?;
        let trans_lines: Vec<&str> = lines
            .by_ref()
            .skip_while(|l| l.starts_with('#'))
            .take_while(|l| !l.starts_with('#'))
            .collect();
        if trans_lines.len() != 4 {
            return Err(SegmentError::Hmm(format!(
                "{} transition lines, not 4",
                trans_lines.len()
            )));
        }
        let mut trans = [[0.0; 4]; 4];
        for (row, line) in trans.iter_mut().zip(&trans_lines) {
            *row = numbers(line)?;
        }
        let mut emit = vec![[MIN_FLOAT; 4]; (HMM_HAN_MAX - HMM_HAN_MIN + 1) as usize];
        for (state, line) in lines.filter(|l| !l.starts_with('#')).enumerate() {
            if state >= 4 {
                return Err(SegmentError::Hmm("more than 4 emission lines".into()));
            }
            for entry in line.split(',') {
                let mut parts = entry.split(':');
                let (Some(ch), Some(prob)) =
                    (parts.next().and_then(|w| w.chars().next()), parts.next())
                else {
                    return Err(SegmentError::Hmm(format!("emission entry `{entry}`")));
                };
                let prob: f64 = prob
                    .parse()
                    .map_err(|e| SegmentError::Hmm(format!("emission entry `{entry}`: {e}")))?;
                if let Some(row) = (ch as u32)
                    .checked_sub(HMM_HAN_MIN)
                    .and_then(|i| emit.get_mut(i as usize))
                {
                    row[state] = prob;
                }
            }
        }
        Ok(Hmm {
            initial,
            trans,
            emit,
        })
    }

    #[inline]
    fn emit(&self, c: char) -> [f64; 4] {
        self.emit[(c as u32 - HMM_HAN_MIN) as usize]
    }
}

pub struct Segmenter {
    trie: Trie,
    /// `ln(freq) - ln(total)` of each frequency class (a trie value): a
    /// few thousand classes, so the table stays in cache, where one entry
    /// per word would not.
    weight: Vec<f64>,
    /// The same for a character the dictionary lacks (freq 1).
    unknown: f64,
    hmm: Hmm,
}

impl Segmenter {
    /// jieba-rs's default dictionary and HMM model.
    pub fn new() -> Result<Self, SegmentError> {
        let (trie, rest) = Trie::deserialize_from_slice(TRIE);
        if !rest.is_empty() {
            return Err(SegmentError::Dict(format!(
                "{} bytes after the trie",
                rest.len()
            )));
        }
        if FREQS.len() < 8 || FREQS.len() % 8 != 0 {
            return Err(SegmentError::Dict(format!(
                "frequency table of {} bytes",
                FREQS.len()
            )));
        }
        let mut freqs = FREQS
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let total = freqs.next().expect("checked above");
        // The same sums as jieba-rs's route: (ln(freq) - ln(total)) + rest.
        let log_total = (total as f64).ln();
        let weight = freqs.map(|f| (f as f64).ln() - log_total).collect();
        Ok(Segmenter {
            trie,
            weight,
            unknown: 0.0f64 - log_total,
            hmm: Hmm::parse(HMM_MODEL)?,
        })
    }
}

static SEGMENTER: LazyLock<Segmenter> =
    LazyLock::new(|| Segmenter::new().expect("jieba-rs's dictionary and HMM model load"));

/// The shared segmenter, built on first use (about as long as jieba-rs's
/// own load).
pub fn segmenter() -> &'static Segmenter {
    &SEGMENTER
}

/// Buffers reused across calls on a thread.
#[derive(Default)]
struct Scratch {
    /// Byte offset in the text and value of each character of a block.
    chars: Vec<(u32, char)>,
    /// Per character of a block: the best route's log-probability from
    /// there to the block's end, and the index after its first word.
    route: Vec<(f64, u32)>,
    /// The HMM's chosen predecessor of each state at each step.
    prev: Vec<[u8; 4]>,
    path: Vec<u8>,
}

impl Scratch {
    /// A thread that once cut a huge text does not keep its buffers.
    fn shrink(&mut self) {
        const KEEP: usize = 1 << 16;
        if self.chars.capacity() > KEEP {
            *self = Scratch::default();
        }
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Cuts `text` as jieba-rs's `cut(text, true)` does, handing each token's
/// byte span to `emit` in order. `emit` must not segment.
pub fn cut(text: &str, mut emit: impl FnMut(usize, usize)) {
    let seg = segmenter();
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        seg.cut_with(text, scratch, &mut emit);
        scratch.shrink();
    });
}

#[inline]
fn is_cjk_extension(c: char) -> bool {
    matches!(c,
        '\u{3400}'..='\u{4DBF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2A6DF}'
        | '\u{2A700}'..='\u{2B73F}'
        | '\u{2B740}'..='\u{2B81F}'
        | '\u{2B820}'..='\u{2CEAF}'
        | '\u{2CEB0}'..='\u{2EBEF}'
        | '\u{2F800}'..='\u{2FA1F}'
    )
}

/// The characters jieba cuts with the dictionary (its `RE_HAN_DEFAULT`).
#[inline]
fn is_han_default(c: char) -> bool {
    if matches!(c, '\u{4E00}'..='\u{9FFF}') {
        true
    } else if c.is_ascii() {
        c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '&' | '.' | '_' | '%' | '-')
    } else {
        is_cjk_extension(c)
    }
}

#[inline]
fn is_hmm_han(c: char) -> bool {
    (HMM_HAN_MIN..=HMM_HAN_MAX).contains(&(c as u32))
}

/// Length of the alphanumeric token jieba's HMM step keeps whole from
/// `start`: runs joined by `.`, `_` or `-`, then an optional `%`.
fn skip_match_len(bytes: &[u8], start: usize) -> usize {
    let mut end = start;
    loop {
        while end < bytes.len() && bytes[end].is_ascii_alphanumeric() {
            end += 1;
        }
        if end + 1 < bytes.len()
            && matches!(bytes[end], b'.' | b'_' | b'-')
            && bytes[end + 1].is_ascii_alphanumeric()
        {
            end += 1;
        } else {
            break;
        }
    }
    if end < bytes.len() && bytes[end] == b'%' {
        end += 1;
    }
    end - start
}

impl Segmenter {
    fn cut_with(&self, text: &str, s: &mut Scratch, emit: &mut impl FnMut(usize, usize)) {
        let mut pos = 0;
        while pos < text.len() {
            s.chars.clear();
            let mut rest = text[pos..].char_indices();
            let (_, first) = rest.next().expect("pos is before the end");
            let han = is_han_default(first);
            s.chars.push((pos as u32, first));
            let mut end = pos + first.len_utf8();
            for (i, c) in rest {
                if is_han_default(c) != han {
                    break;
                }
                s.chars.push(((pos + i) as u32, c));
                end = pos + i + c.len_utf8();
            }
            if han {
                self.cut_block(text, end, s, &mut *emit);
            } else {
                // Outside the dictionary's characters each character is a
                // token, a "\r\n" pair one token.
                let chars = &s.chars;
                let mut i = 0;
                while i < chars.len() {
                    let (offset, c) = chars[i];
                    let offset = offset as usize;
                    if c == '\r' && matches!(chars.get(i + 1), Some(&(_, '\n'))) {
                        emit(offset, offset + 2);
                        i += 2;
                    } else {
                        emit(offset, offset + c.len_utf8());
                        i += 1;
                    }
                }
            }
            pos = end;
        }
    }

    /// One block of dictionary characters (in `s.chars`) ending at byte
    /// `block_end`.
    fn cut_block(
        &self,
        text: &str,
        block_end: usize,
        s: &mut Scratch,
        emit: &mut impl FnMut(usize, usize),
    ) {
        let Scratch {
            chars,
            route,
            prev,
            path,
        } = s;
        let chars: &[(u32, char)] = chars;
        let n = chars.len();
        route.clear();
        route.resize(n + 1, (0.0, n as u32));
        // Right to left, each character's words straight from the trie:
        // the best way on from every later character is already known.
        for idx in (0..n).rev() {
            let mut best: Option<(f64, u32)> = None;
            for (word, len) in self
                .trie
                .common_prefix_search(chars[idx..].iter().map(|&(_, c)| c))
            {
                let end = (idx + len) as u32;
                let p = self.weight[word as usize] + route[end as usize].0;
                best = match best {
                    Some((bp, be)) if !(p > bp || (p == bp && end > be)) => Some((bp, be)),
                    _ => Some((p, end)),
                };
            }
            route[idx] = best.unwrap_or((self.unknown + route[idx + 1].0, idx as u32 + 1));
        }

        let byte_at = |i: usize| chars.get(i).map_or(block_end, |&(o, _)| o as usize);
        let mut x = 0;
        let mut left: Option<usize> = None;
        while x < n {
            let y = route[x].1 as usize;
            if y - x == 1 {
                left.get_or_insert(x);
            } else {
                if let Some(l) = left.take() {
                    self.unjoined_run(text, chars, l, x, block_end, prev, path, &mut *emit);
                }
                emit(byte_at(x), byte_at(y));
            }
            x = y;
        }
        if let Some(l) = left {
            self.unjoined_run(text, chars, l, n, block_end, prev, path, &mut *emit);
        }
    }

    /// Characters `x..y` the route left single: one word if the dictionary
    /// has them together, else each alone if the dictionary has the run
    /// (jieba's rule), else the HMM's cut.
    #[allow(clippy::too_many_arguments)]
    fn unjoined_run(
        &self,
        text: &str,
        chars: &[(u32, char)],
        x: usize,
        y: usize,
        block_end: usize,
        prev: &mut Vec<[u8; 4]>,
        path: &mut Vec<u8>,
        emit: &mut impl FnMut(usize, usize),
    ) {
        let byte_at = |i: usize| chars.get(i).map_or(block_end, |&(o, _)| o as usize);
        if y - x == 1 {
            emit(byte_at(x), byte_at(y));
            return;
        }
        if self
            .trie
            .exact_match(chars[x..y].iter().map(|&(_, c)| c))
            .is_some()
        {
            for i in x..y {
                emit(byte_at(i), byte_at(i + 1));
            }
            return;
        }
        let run = &chars[x..y];
        let mut i = 0;
        while i < run.len() {
            let matched = is_hmm_han(run[i].1);
            let mut j = i + 1;
            while j < run.len() && is_hmm_han(run[j].1) == matched {
                j += 1;
            }
            let start = run[i].0 as usize;
            let end = run.get(j).map_or_else(
                || run[j - 1].0 as usize + run[j - 1].1.len_utf8(),
                |&(o, _)| o as usize,
            );
            if matched {
                if j - i > 1 {
                    self.viterbi_cut(&run[i..j], end, prev, path, &mut *emit);
                } else {
                    emit(start, end);
                }
            } else {
                skip_split(&text.as_bytes()[..end], start, &mut *emit);
            }
            i = j;
        }
    }

    /// Cuts a run of at least two HMM characters ending at byte `run_end`
    /// along its most likely B/E/M/S labels.
    fn viterbi_cut(
        &self,
        run: &[(u32, char)],
        run_end: usize,
        prev: &mut Vec<[u8; 4]>,
        path: &mut Vec<u8>,
        emit: &mut impl FnMut(usize, usize),
    ) {
        let h = &self.hmm;
        let c = run.len();
        prev.clear();
        prev.resize(c, [0; 4]);
        let e0 = h.emit(run[0].1);
        let mut v = [0.0; 4];
        for y in 0..4 {
            v[y] = h.initial[y] + e0[y];
        }
        for t in 1..c {
            let em = h.emit(run[t].1);
            let mut next = [0.0; 4];
            for y in 0..4 {
                let [y0, y1] = ALLOWED_PREV[y];
                let p0 = v[y0] + h.trans[y0][y] + em[y];
                let p1 = v[y1] + h.trans[y1][y] + em[y];
                let (p, from) = if p0 > p1 { (p0, y0) } else { (p1, y1) };
                next[y] = p;
                prev[t][y] = from as u8;
            }
            v = next;
        }
        let mut state = if v[E] > v[S] { E } else { S };
        path.clear();
        path.resize(c, 0);
        path[c - 1] = state as u8;
        for t in (1..c).rev() {
            state = prev[t][state] as usize;
            path[t - 1] = state as u8;
        }

        let next_byte = |i: usize| run.get(i + 1).map_or(run_end, |&(o, _)| o as usize);
        let mut begin = run[0].0 as usize;
        let mut done = begin;
        for (i, &(offset, _)) in run.iter().enumerate() {
            match path[i] as usize {
                B => begin = offset as usize,
                E => {
                    let end = next_byte(i);
                    emit(begin, end);
                    done = end;
                }
                S => {
                    let end = next_byte(i);
                    emit(offset as usize, end);
                    done = end;
                }
                _ => {}
            }
        }
        if done < run_end {
            emit(done, run_end);
        }
    }
}

/// Splits bytes `start..` of `bytes` (no HMM characters) as jieba does:
/// alphanumeric tokens (`skip_match_len`) and the gaps between them.
fn skip_split(bytes: &[u8], start: usize, emit: &mut impl FnMut(usize, usize)) {
    let mut pos = start;
    while pos < bytes.len() {
        let mut cursor = pos;
        while cursor < bytes.len() && !bytes[cursor].is_ascii_alphanumeric() {
            cursor += 1;
        }
        if cursor == bytes.len() {
            emit(pos, cursor);
            return;
        }
        if cursor > pos {
            emit(pos, cursor);
        }
        let end = cursor + skip_match_len(bytes, cursor);
        emit(cursor, end);
        pos = end;
    }
}
