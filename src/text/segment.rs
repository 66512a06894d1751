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

/// Built by build.rs from jieba-rs's dictionary: the trie (a word's value
/// is its frequency class, most frequent first, above [`RANK_BITS`] and
/// its rank within the class below), the total and each class's
/// frequency, and where each class's words start in the word numbering.
static TRIE: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_trie.bin"));
static FREQS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_freqs.bin"));
static WORDS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/jieba_words.bin"));

/// The bits of a trie value that rank a word within its frequency class
/// (build.rs's `RANK_BITS`).
const RANK_BITS: u32 = 18;
const RANK_MASK: u32 = (1 << RANK_BITS) - 1;

/// The word number [`cut_words`] hands over for a token that is not one
/// dictionary word (or was not looked up as one).
pub const NO_WORD: u32 = u32::MAX;
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

/// crawdad's double array as build.rs serialised it (crawdad 0.4's
/// `Trie::serialize_to_vec`): read here directly, so that nodes can be
/// prefetched for the searches ahead, which crawdad's one-key-at-a-time
/// search cannot do.
struct DoubleArray {
    /// Each character's code (by frequency, the end marker 0), or
    /// [`NO_CODE16`]: two bytes a character, so that the Chinese block's
    /// codes take half the cache they would as crawdad's u32s.
    codes: Vec<u16>,
    /// `[base, check]`, both flags in base, so that a child is checked
    /// by one compare of its check with its parent's index: [`LEAF`]
    /// marks a leaf, whose base (below the flag) is its value; [`HAS_LEAF`]
    /// a node with a leaf child (code 0), i.e. a key ending there with
    /// longer keys after it, whose children start at base & [`BASE_MASK`].
    /// crawdad keeps the second flag in the top bit of check.
    nodes: Vec<[u32; 2]>,
}

/// What the root's child by one character code gives, so that a word's
/// first step is one load, with no check and no separate leaf to read:
/// the character's own word, if it is one, and where its node's children
/// start.
#[derive(Clone, Copy)]
struct FirstStep {
    /// `ln(freq) - ln(total)` of the character's word (unused without one).
    weight: f64,
    /// The character's word's trie value, or [`NO_WORD`].
    value: u32,
    /// The base of the character's node, or [`NO_CHILDREN`] when no word
    /// starts with it and goes on.
    base: u32,
}

/// A base whose children lie past every node: xor-ed with any 16-bit
/// code (or with [`NO_CODE`] or [`NOT_HAN`]) it gives an index of at
/// least 2^30, which `DoubleArray::parse` checks is out of the nodes.
const NO_CHILDREN: u32 = 1 << 30;

/// A character of the dictionary's blocks that no word has.
const NO_CODE: u32 = u32::MAX - 1;
/// The same in the table of codes.
const NO_CODE16: u16 = u16::MAX;
/// A character outside the dictionary's blocks.
const NOT_HAN: u32 = u32::MAX;
/// crawdad's mask of a leaf's value, of a base and of a check.
const OFFSET_MASK: u32 = 0x7fff_ffff;
const LEAF: u32 = 1 << 31;
const HAS_LEAF: u32 = 1 << 30;
const BASE_MASK: u32 = HAS_LEAF - 1;
/// How many characters ahead of the route (to the left) a word's second
/// trie node is prefetched. Prefetching its leaf and third node as well,
/// a few characters later (their addresses are in the second), was
/// slower: the extra loads and branches cost more than the misses they
/// saved.
const FAR: usize = 10;

impl DoubleArray {
    fn parse(bytes: &[u8]) -> Result<Self, SegmentError> {
        let mut words = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")));
        let bad = || SegmentError::Trie("truncated".into());
        let table_len = words.next().ok_or_else(bad)? as usize;
        let codes: Vec<u16> = words
            .by_ref()
            .take(table_len)
            .map(|code| match u16::try_from(code) {
                Ok(code) if code != NO_CODE16 => Ok(code),
                // crawdad marks characters no key has with u32::MAX.
                _ if code >= NO_CODE => Ok(NO_CODE16),
                _ => Err(SegmentError::Trie(format!(
                    "character code {code} over 16 bits"
                ))),
            })
            .collect::<Result<_, _>>()?;
        let _alphabet = words.next().ok_or_else(bad)?;
        let node_count = words.next().ok_or_else(bad)? as usize;
        let mut nodes = Vec::with_capacity(node_count);
        while let (Some(base), Some(check)) = (words.next(), words.next()) {
            nodes.push([base, check]);
        }
        let expected = 4 * (table_len + 3 + 2 * node_count);
        if codes.len() != table_len || nodes.len() != node_count || bytes.len() != expected {
            return Err(SegmentError::Trie(format!(
                "{} bytes, expected {expected}",
                bytes.len()
            )));
        }
        if nodes.first().is_none_or(|n| n[0] & !OFFSET_MASK != 0) {
            return Err(SegmentError::Trie("no root".into()));
        }
        // The route ends a walk on an index past the nodes rather than on
        // a check of the code: an invalid code or NO_CHILDREN must lead
        // out of them.
        if nodes.len() > NO_CHILDREN as usize {
            return Err(SegmentError::Trie(format!("{} nodes", nodes.len())));
        }
        let len = nodes.len() as u32;
        for (i, node) in nodes.iter_mut().enumerate() {
            let [base, check] = *node;
            let parent = check & OFFSET_MASK;
            // The root and vacant nodes have the check OFFSET_MASK, which
            // no node's index equals.
            let reached = parent < len || i == 0;
            *node = if base & LEAF != 0 || !reached {
                [base, parent]
            } else if base & OFFSET_MASK < len {
                [base | (check & !OFFSET_MASK) >> 1, parent]
            } else {
                return Err(SegmentError::Trie(format!(
                    "node {i}: base {base} past the {len} nodes"
                )));
            };
        }
        Ok(DoubleArray { codes, nodes })
    }

    #[inline(always)]
    fn code(&self, c: char) -> u32 {
        match self.codes.get(c as usize) {
            Some(&code) if code != NO_CODE16 => u32::from(code),
            _ => NO_CODE,
        }
    }

    /// The child of `node` (not a leaf) by `code`, if there is one.
    #[inline(always)]
    fn child(&self, node: u32, code: u32) -> Option<u32> {
        let child = (self.nodes[node as usize][0] & BASE_MASK) ^ code;
        self.nodes
            .get(child as usize)
            .filter(|n| n[1] == node)
            .map(|_| child)
    }

    #[inline(always)]
    fn prefetch(&self, node: u32) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch only hints at an address, which need not be
        // valid; the pointer is never read through.
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch::<_MM_HINT_T0>(self.nodes.as_ptr().wrapping_add(node as usize).cast());
        }
    }

    /// Each code's [`FirstStep`], the weights by a value's class.
    fn first_steps(&self, weight: &[f64]) -> Vec<FirstStep> {
        let root_base = self.nodes[0][0] & BASE_MASK;
        let codes = self
            .codes
            .iter()
            .filter(|&&c| c != NO_CODE16)
            .map(|&c| u32::from(c) + 1)
            .max()
            .unwrap_or(0);
        (0..codes)
            .map(|code| {
                let node = root_base ^ code;
                let (value, base) = match self.nodes.get(node as usize) {
                    // The end marker (code 0) is no character.
                    Some(&[base, 0]) if code != 0 => (
                        self.value(node).unwrap_or(NO_WORD),
                        if base & LEAF != 0 {
                            NO_CHILDREN
                        } else {
                            base & BASE_MASK
                        },
                    ),
                    _ => (NO_WORD, NO_CHILDREN),
                };
                let weight = match weight.get((value >> RANK_BITS) as usize) {
                    Some(&w) if value != NO_WORD => w,
                    _ => 0.0,
                };
                FirstStep {
                    weight,
                    value,
                    base,
                }
            })
            .collect()
    }

    /// The value of the key `chars`, as crawdad's `exact_match`.
    fn exact_match(&self, chars: impl Iterator<Item = char>) -> Option<u32> {
        let mut node = 0;
        for c in chars {
            if self.nodes[node as usize][0] & LEAF != 0 {
                return None;
            }
            let code = self.code(c);
            if code == NO_CODE {
                return None;
            }
            node = self.child(node, code)?;
        }
        self.value(node)
    }

    /// The value of the key ending at `node`, if one does.
    fn value(&self, node: u32) -> Option<u32> {
        let base = self.nodes[node as usize][0];
        if base & LEAF != 0 {
            Some(base & OFFSET_MASK)
        } else if base & HAS_LEAF != 0 {
            let leaf = self.nodes.get((base & BASE_MASK) as usize)?;
            Some(leaf[0] & OFFSET_MASK)
        } else {
            None
        }
    }
}

/// How many frequency classes a trie value can name (its bits above
/// [`RANK_BITS`]): the weight table has an entry for each, so that
/// indexing it by a value's class needs no bounds check.
const CLASSES: usize = 1 << (31 - RANK_BITS);

pub struct Segmenter {
    trie: DoubleArray,
    /// `ln(freq) - ln(total)` of each frequency class (a trie value's top
    /// bits): a few thousand classes, so the table stays in cache, where
    /// one entry per word would not. Classes the dictionary lacks are 0.
    weight: Box<[f64; CLASSES]>,
    /// Indexed by character code.
    first: Vec<FirstStep>,
    /// Each class's first word number: a word's number is its class's
    /// start plus its rank, so that common words have small numbers.
    class_start: Vec<u32>,
    /// How many words the dictionary has (word numbers are below it).
    words: u32,
    /// The same for a character the dictionary lacks (freq 1).
    unknown: f64,
    hmm: Hmm,
}

impl Segmenter {
    /// jieba-rs's default dictionary and HMM model.
    pub fn new() -> Result<Self, SegmentError> {
        let trie = DoubleArray::parse(TRIE)?;
        if FREQS.len() < 8 || !FREQS.len().is_multiple_of(8) {
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
        let weight: Vec<f64> = freqs.map(|f| (f as f64).ln() - log_total).collect();
        let mut class_start: Vec<u32> = WORDS
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
            .collect();
        if class_start.len() != weight.len() + 1 {
            return Err(SegmentError::Dict(format!(
                "{} class starts for {} classes",
                class_start.len(),
                weight.len()
            )));
        }
        // The last entry is where a class after the last would start.
        let words = class_start.pop().unwrap_or(0);
        if weight.len() > CLASSES {
            return Err(SegmentError::Dict(format!(
                "{} frequency classes, at most {CLASSES}",
                weight.len()
            )));
        }
        let first = trie.first_steps(&weight);
        let mut classes = Box::new([0.0; CLASSES]);
        classes[..weight.len()].copy_from_slice(&weight);
        Ok(Segmenter {
            trie,
            weight: classes,
            first,
            class_start,
            words,
            unknown: 0.0f64 - log_total,
            hmm: Hmm::parse(HMM_MODEL)?,
        })
    }
}

impl Segmenter {
    /// The word number of a trie value (or [`NO_WORD`]).
    #[inline(always)]
    fn word(&self, value: u32) -> u32 {
        match self.class_start.get((value >> RANK_BITS) as usize) {
            // Saturating, and the interner's table ends at the word count:
            // a number out of range is looked up by its string instead.
            Some(&start) if value != NO_WORD => start.saturating_add(value & RANK_MASK),
            _ => NO_WORD,
        }
    }
}

/// How many words the dictionary has: [`cut_words`]'s word numbers are
/// below it.
pub fn dictionary_words() -> usize {
    segmenter().words as usize
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
    /// Byte offset in the text and value of each character of the text.
    chars: Vec<(u32, char)>,
    /// Each character's trie code, [`NO_CODE`] for one of the dictionary's
    /// blocks the trie lacks, [`NOT_HAN`] outside those blocks and after
    /// the last character.
    codes: Vec<u32>,
    /// Blocks of characters: start, end and whether the dictionary cuts
    /// them.
    blocks: Vec<(u32, u32, bool)>,
    /// Per character of the dictionary's blocks: the best route's
    /// log-probability from there to its block's end, the index after
    /// its first word and that word's trie value ([`NO_WORD`] for a
    /// character the dictionary lacks). The value fills what would be
    /// padding.
    route: Vec<(f64, u32, u32)>,
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
    cut_words(
        text,
        #[inline(always)]
        |a, b, _| emit(a, b),
    );
}

/// As [`cut`], with each token's number in the dictionary (below
/// [`dictionary_words`], small for common words) when it is one word the
/// route took from the dictionary, else [`NO_WORD`]. The same string may
/// come with a number at one place and [`NO_WORD`] at another (e.g. from
/// the HMM): the number only saves looking the string up.
pub fn cut_words(text: &str, mut emit: impl FnMut(usize, usize, u32)) {
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
    fn cut_with(&self, text: &str, s: &mut Scratch, emit: &mut impl FnMut(usize, usize, u32)) {
        self.scan(text, s);
        self.route(s);
        for b in 0..s.blocks.len() {
            let (start, end, han) = s.blocks[b];
            let (start, end) = (start as usize, end as usize);
            let block_end = s.chars.get(end).map_or(text.len(), |&(o, _)| o as usize);
            if han {
                self.cut_block(text, start, end, block_end, s, &mut *emit);
            } else {
                // Outside the dictionary's characters each character is a
                // token, a "\r\n" pair one token.
                let chars = &s.chars[start..end];
                let mut i = 0;
                while i < chars.len() {
                    let (offset, c) = chars[i];
                    let offset = offset as usize;
                    if c == '\r' && matches!(chars.get(i + 1), Some(&(_, '\n'))) {
                        emit(offset, offset + 2, NO_WORD);
                        i += 2;
                    } else {
                        emit(offset, offset + c.len_utf8(), NO_WORD);
                        i += 1;
                    }
                }
            }
        }
    }

    /// Each character of `text` with its byte offset and trie code, and
    /// the blocks of dictionary and other characters, into `s`.
    fn scan(&self, text: &str, s: &mut Scratch) {
        let Scratch {
            chars,
            codes,
            blocks,
            ..
        } = s;
        let bytes = text.as_bytes();
        chars.clear();
        codes.clear();
        blocks.clear();
        chars.reserve(text.len());
        codes.reserve(text.len() + 1);
        // Written in place rather than pushed, and decoded here rather than
        // by `char_indices`: the two pushes took some twenty instructions
        // a character (lengths, capacities) and the general decoding
        // eighteen, with the characters from the text already valid.
        let chars_out = chars.spare_capacity_mut();
        let codes_out = codes.spare_capacity_mut();
        let continuation = |at: usize| -> u32 {
            // SAFETY: `text` is a str, so a lead byte of width w is
            // followed by w - 1 continuation bytes, all before its end.
            u32::from(unsafe { *bytes.get_unchecked(at) } & 0x3F)
        };
        let (mut n, mut i) = (0usize, 0usize);
        let mut han = false;
        while let Some(&lead) = bytes.get(i) {
            // By the lead byte alone: the string is valid UTF-8.
            let (value, width) = if lead < 0x80 {
                (u32::from(lead), 1)
            } else if lead < 0xE0 {
                ((u32::from(lead & 0x1F) << 6) | continuation(i + 1), 2)
            } else if lead < 0xF0 {
                let value = (u32::from(lead & 0x0F) << 12)
                    | (continuation(i + 1) << 6)
                    | continuation(i + 2);
                (value, 3)
            } else {
                let value = (u32::from(lead & 0x07) << 18)
                    | (continuation(i + 1) << 12)
                    | (continuation(i + 2) << 6)
                    | continuation(i + 3);
                (value, 4)
            };
            // SAFETY: the bytes from i are one character of a str.
            let c = unsafe { char::from_u32_unchecked(value) };
            let h = is_han_default(c);
            if h != han || n == 0 {
                let at = n as u32;
                if let Some(last) = blocks.last_mut() {
                    last.1 = at;
                }
                blocks.push((at, at, h));
                han = h;
            }
            // n counts characters, at most one a byte: both buffers have
            // room for text.len() of them, and codes one more.
            chars_out[n].write((i as u32, c));
            codes_out[n].write(if h { self.trie.code(c) } else { NOT_HAN });
            n += 1;
            i += width;
            if !h {
                continue;
            }
            // The rest of a run of U+4E00..=U+9FFF, most of a Chinese
            // page: three bytes each, all in the block just begun or
            // continued, with no other test.
            while let Some(&[b0, b1, b2]) = bytes.get(i..i + 3) {
                let value = (u32::from(b0 & 0x0F) << 12)
                    | (u32::from(b1 & 0x3F) << 6)
                    | u32::from(b2 & 0x3F);
                if !(0xE4..=0xE9).contains(&b0) || value < 0x4E00 {
                    break;
                }
                // SAFETY: a three-byte lead starts a three-byte character.
                let c = unsafe { char::from_u32_unchecked(value) };
                chars_out[n].write((i as u32, c));
                codes_out[n].write(self.trie.code(c));
                n += 1;
                i += 3;
            }
        }
        codes_out[n].write(NOT_HAN);
        // SAFETY: the first n entries of `chars` and n + 1 of `codes` were
        // written above.
        unsafe {
            chars.set_len(n);
            codes.set_len(n + 1);
        }
        if let Some(last) = blocks.last_mut() {
            last.1 = n as u32;
        }
    }

    /// The best route from each character of the dictionary's blocks to
    /// its block's end (jieba's maximum-probability DAG route), all blocks
    /// of the text in one pass right to left, each character's words
    /// straight from the trie. A word's second trie node is prefetched
    /// while the character [`FAR`] places to its right is being searched:
    /// the trie is larger than the L2 cache and one search's loads depend
    /// on each other, but the searches from different characters do not,
    /// so their cache misses can overlap.
    fn route(&self, s: &mut Scratch) {
        let Scratch { codes, route, .. } = s;
        let codes: &[u32] = codes;
        // The walks below stop on it without a bounds check.
        assert_eq!(codes.last(), Some(&NOT_HAN), "the codes end with NOT_HAN");
        let n = codes.len() - 1;
        let nodes = &self.trie.nodes[..];
        let first = &self.first[..];
        let weight = &*self.weight;
        let root_base = nodes[0][0] & BASE_MASK;
        // Every entry below n is written before it is read, so the entries
        // of the page before need not be reset.
        route.truncate(n + 1);
        route.resize(n + 1, (0.0, 0, NO_WORD));
        let route = &mut route[..=n];
        route[n] = (0.0, n as u32, NO_WORD);
        // The second code of a word starting FAR characters to the left:
        // the first of the step before.
        let mut ahead = codes.get(n.wrapping_sub(FAR)).copied().unwrap_or(NOT_HAN);
        // route[idx + 1].0, the step before's.
        let mut rest = 0.0;
        for idx in (0..n).rev() {
            if let Some(&code) = codes.get(idx.wrapping_sub(FAR)) {
                if let Some(step) = first.get(code as usize) {
                    let node = step.base ^ ahead;
                    if (node as usize) < nodes.len() {
                        self.trie.prefetch(node);
                    }
                }
                ahead = code;
            }
            let code = codes[idx];
            let Some(step) = first.get(code as usize) else {
                // The end of the block before, or a character no word has.
                rest = if code == NOT_HAN {
                    0.0
                } else {
                    self.unknown + rest
                };
                route[idx] = (rest, idx as u32 + 1, NO_WORD);
                continue;
            };
            // The first word is taken whatever its probability (-inf for a
            // word of frequency 0), as jieba-rs takes it; end 0 means no
            // word yet (every word ends after idx).
            let (mut best_p, mut best_end, mut best_value) = if step.value != NO_WORD {
                (step.weight + rest, idx as u32 + 1, step.value)
            } else {
                (f64::NEG_INFINITY, 0u32, NO_WORD)
            };
            let mut node = root_base ^ code;
            let mut node_base = step.base;
            let mut k = idx + 1;
            loop {
                // SAFETY: k <= n < codes.len(). It starts at idx + 1 <= n
                // and grows only past a code that led to a node; codes[n]
                // is NOT_HAN (asserted above), which leads to none: xor-ed
                // with a base (under 2^31, or NO_CHILDREN) it gives an
                // index of at least 2^31, past the nodes. The same holds
                // for NO_CODE and NO_CHILDREN, so no code is checked here.
                let child = node_base ^ unsafe { *codes.get_unchecked(k) };
                let Some(&[base, check]) = nodes.get(child as usize) else {
                    break;
                };
                if check != node {
                    break;
                }
                k += 1;
                let leaf = base & LEAF != 0;
                let value = if leaf {
                    Some(base & OFFSET_MASK)
                } else if base & HAS_LEAF != 0 {
                    // SAFETY: the node was reached (its check is its
                    // parent's index), and `DoubleArray::parse` checked
                    // that every reached node's base is an index of the
                    // nodes.
                    let leaf = unsafe { nodes.get_unchecked((base & BASE_MASK) as usize) };
                    Some(leaf[0] & OFFSET_MASK)
                } else {
                    None
                };
                if let Some(value) = value {
                    let end = k as u32;
                    // SAFETY: k <= n (above) and route has n + 1 entries.
                    let rest = unsafe { route.get_unchecked(k).0 };
                    // The class is under CLASSES, as the value has 31 bits.
                    let p = weight[(value >> RANK_BITS) as usize] + rest;
                    if p > best_p || (p == best_p && end > best_end) {
                        (best_p, best_end, best_value) = (p, end, value);
                    }
                }
                if leaf {
                    break;
                }
                node = child;
                node_base = base & BASE_MASK;
            }
            if best_end == 0 {
                (best_p, best_end) = (self.unknown + rest, idx as u32 + 1);
            }
            route[idx] = (best_p, best_end, best_value);
            rest = best_p;
        }
    }

    /// Block `start..end` of dictionary characters, ending at byte
    /// `block_end`, cut along its route.
    fn cut_block(
        &self,
        text: &str,
        start: usize,
        end: usize,
        block_end: usize,
        s: &mut Scratch,
        emit: &mut impl FnMut(usize, usize, u32),
    ) {
        let Scratch {
            chars,
            route,
            prev,
            path,
            ..
        } = s;
        let chars: &[(u32, char)] = &chars[start..end];
        let route = &route[start..end];
        let n = chars.len();
        let byte_at = |i: usize| chars.get(i).map_or(block_end, |&(o, _)| o as usize);
        let mut x = 0;
        let mut left: Option<usize> = None;
        while x < n {
            let (_, y, value) = route[x];
            let y = y as usize - start;
            if y - x == 1 {
                left.get_or_insert(x);
            } else {
                match left.take() {
                    // Most runs are one character: no call for them.
                    Some(l) if l + 1 == x => emit(byte_at(l), byte_at(x), self.word(route[l].2)),
                    Some(l) => self
                        .unjoined_run(text, chars, route, l, x, block_end, prev, path, &mut *emit),
                    None => {}
                }
                emit(byte_at(x), byte_at(y), self.word(value));
            }
            x = y;
        }
        if let Some(l) = left {
            self.unjoined_run(text, chars, route, l, n, block_end, prev, path, &mut *emit);
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
        route: &[(f64, u32, u32)],
        x: usize,
        y: usize,
        block_end: usize,
        prev: &mut Vec<[u8; 4]>,
        path: &mut Vec<u8>,
        emit: &mut impl FnMut(usize, usize, u32),
    ) {
        let byte_at = |i: usize| chars.get(i).map_or(block_end, |&(o, _)| o as usize);
        if y - x == 1 {
            emit(byte_at(x), byte_at(y), self.word(route[x].2));
            return;
        }
        if self
            .trie
            .exact_match(chars[x..y].iter().map(|&(_, c)| c))
            .is_some()
        {
            for (i, step) in (x..y).zip(&route[x..y]) {
                emit(byte_at(i), byte_at(i + 1), self.word(step.2));
            }
            return;
        }
        let run = &chars[x..y];
        let emit = &mut |a: usize, b: usize| emit(a, b, NO_WORD);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_steps_give_what_the_root_gives() {
        let seg = Segmenter::new().expect("the dictionary loads");
        let trie = &seg.trie;
        let (mut words, mut prefixes) = (0, 0);
        for (c, &code) in trie.codes.iter().enumerate() {
            let Some(ch) = char::from_u32(c as u32).filter(|_| code != NO_CODE16) else {
                continue;
            };
            let step = seg.first[usize::from(code)];
            let word = trie.exact_match(std::iter::once(ch));
            assert_eq!(step.value, word.unwrap_or(NO_WORD), "{ch}");
            if let Some(value) = word {
                assert_eq!(
                    step.weight,
                    seg.weight[(value >> RANK_BITS) as usize],
                    "{ch}"
                );
                words += 1;
            }
            let inner = trie
                .child(0, u32::from(code))
                .filter(|&node| trie.nodes[node as usize][0] & LEAF == 0);
            assert_eq!(step.base != NO_CHILDREN, inner.is_some(), "{ch}");
            if let Some(node) = inner {
                assert_eq!(step.base, trie.nodes[node as usize][0] & BASE_MASK, "{ch}");
                prefixes += 1;
            }
        }
        assert!(
            words > 1_000 && prefixes > 1_000,
            "{words} words, {prefixes} prefixes"
        );
    }

    #[test]
    fn a_broken_trie_is_an_error() {
        let table_len = u32::from_le_bytes(TRIE[..4].try_into().expect("4 bytes")) as usize;
        let root = 4 * (table_len + 3);
        let mut bytes = TRIE.to_vec();
        // The root's children would start past the nodes.
        bytes[root..root + 4].copy_from_slice(&BASE_MASK.to_le_bytes());
        assert!(DoubleArray::parse(&bytes).is_err());
        assert!(DoubleArray::parse(&TRIE[..TRIE.len() - 4]).is_err());
        assert!(DoubleArray::parse(TRIE).is_ok());
    }
}
