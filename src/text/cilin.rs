//! The Tongyici Cilin (extended) thesaurus: lines of an 8-character code
//! (five levels and a flag: `=` synonyms, `#` related, `@` alone) followed
//! by words. The file is vendored in `datasets/thesaurus/` and embedded.
//!
//! Algorithms see a thesaurus through [`Thesaurus`]: words become concepts
//! at a chosen depth, so that another thesaurus (WordNet synsets, say) can
//! stand in.

use crate::util::io::FileError;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

/// Maps words to the concepts they express.
pub trait Thesaurus: Send + Sync {
    /// Short name for labels, e.g. `cilin`.
    fn name(&self) -> &'static str;
    /// The deepest level `concepts` understands.
    fn levels(&self) -> u8;
    /// The concepts `word` belongs to at `level` (1 = coarsest), each with
    /// its share of the word's weight (shares add up to 1). A word the
    /// thesaurus lacks is a concept of its own.
    fn concepts(&self, word: &str, level: u8) -> Vec<(String, f64)>;
}

/// Characters of a Cilin code that make up each level: A, Aa, Aa01,
/// Aa01A, Aa01A01.
const LEVEL_PREFIX: [usize; 5] = [1, 2, 4, 5, 7];

static EMBEDDED: LazyLock<Cilin> = LazyLock::new(|| {
    Cilin::parse(
        Path::new("datasets/thesaurus/cilin_ex.txt"),
        include_str!("../../datasets/thesaurus/cilin_ex.txt"),
    )
    .expect("the vendored thesaurus parses (tested)")
});

#[derive(Debug, Clone)]
pub struct Group {
    pub code: String,
    pub flag: char,
    pub words: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Cilin {
    pub groups: Vec<Group>,
    /// Word → indices of the groups it belongs to (looked up for every
    /// word of every page the semantic method signs: a fast hasher).
    index: rustc_hash::FxHashMap<String, Vec<u32>>,
}

#[derive(Debug, thiserror::Error)]
pub enum CilinError {
    #[error(transparent)]
    Io(#[from] FileError),
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Cilin {
    /// The vendored thesaurus, parsed once per process.
    pub fn embedded() -> &'static Cilin {
        &EMBEDDED
    }

    /// Distinct words.
    pub fn words(&self) -> usize {
        self.index.len()
    }

    pub fn load(path: &Path) -> Result<Cilin, CilinError> {
        let text = crate::util::io::read_to_string(path)?;
        Cilin::parse(path, &text)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Cilin, CilinError> {
        let mut cilin = Cilin::default();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let invalid = |message: &str| CilinError::Invalid {
                path: path.to_path_buf(),
                line: i + 1,
                message: message.to_string(),
            };
            let code: String = line.chars().take(8).collect();
            let valid = code.len() == 8
                && code.is_ascii()
                && code.as_bytes()[0].is_ascii_uppercase()
                && code.as_bytes()[1].is_ascii_lowercase()
                && code.as_bytes()[2..4].iter().all(u8::is_ascii_digit)
                && code.as_bytes()[4].is_ascii_uppercase()
                && code.as_bytes()[5..7].iter().all(u8::is_ascii_digit)
                && matches!(code.as_bytes()[7], b'=' | b'#' | b'@');
            if !valid {
                return Err(invalid(
                    "expected an 8-character code such as `Aa01A01=` before the words",
                ));
            }
            let words: Vec<String> = line[8..].split_whitespace().map(str::to_string).collect();
            if words.is_empty() {
                return Err(invalid("a code with no words"));
            }
            let index = cilin.groups.len() as u32;
            for w in &words {
                cilin.index.entry(w.clone()).or_default().push(index);
            }
            cilin.groups.push(Group {
                flag: code.as_bytes()[7] as char,
                code,
                words,
            });
        }
        Ok(cilin)
    }

    /// Synonyms of a word: the other words of its `=` groups, in file order.
    pub fn synonyms(&self, word: &str) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for &g in self.index.get(word).map(Vec::as_slice).unwrap_or(&[]) {
            let group = &self.groups[g as usize];
            if group.flag == '=' {
                for w in &group.words {
                    if w != word && !out.contains(&w.as_str()) {
                        out.push(w);
                    }
                }
            }
        }
        out
    }
}

impl Thesaurus for Cilin {
    fn name(&self) -> &'static str {
        "cilin"
    }

    fn levels(&self) -> u8 {
        5
    }

    /// Codes cut to the level's prefix. At level 5 only `=` groups join
    /// their words into one concept: a `#` group holds related words of a
    /// class, not synonyms, and a `@` word stands alone, so at that depth
    /// they keep their own identity (their code and the word).
    fn concepts(&self, word: &str, level: u8) -> Vec<(String, f64)> {
        let level = level.clamp(1, 5);
        let groups = self.index.get(word).map(Vec::as_slice).unwrap_or(&[]);
        let mut concepts: Vec<String> = Vec::new();
        for &g in groups {
            let group = &self.groups[g as usize];
            let prefix = &group.code[..LEVEL_PREFIX[level as usize - 1]];
            let concept = if level == 5 && group.flag != '=' {
                format!("{prefix}{}{word}", group.flag)
            } else {
                prefix.to_string()
            };
            if !concepts.contains(&concept) {
                concepts.push(concept);
            }
        }
        if concepts.is_empty() {
            return vec![(word.to_string(), 1.0)];
        }
        let share = 1.0 / concepts.len() as f64;
        concepts.into_iter().map(|c| (c, share)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_codes_flags_and_synonyms() {
        let text =
            "Aa01A01= 人 士 人物\r\nAa01A02# 人类 生人\r\nAa01A03@ 独自\r\nAb01A01= 人物 角色\r\n";
        let c = Cilin::parse(Path::new("c.txt"), text).unwrap();
        assert_eq!(c.groups.len(), 4);
        assert_eq!(c.synonyms("人物"), ["人", "士", "角色"]);
        assert!(
            c.synonyms("人类").is_empty(),
            "`#` groups are related words, not synonyms"
        );
        assert!(c.synonyms("不在").is_empty());
        let e = Cilin::parse(Path::new("c.txt"), "Aa01A01= 人\nxx 坏行\n")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("c.txt:2: expected an 8-character code"),
            "{e}"
        );
    }

    #[test]
    fn concepts_by_level_with_shared_weight() {
        let text =
            "Aa01A01= 人 士 人物\r\nAa01A02# 人类 生人\r\nAa01B01@ 独自\r\nAb01A01= 人物 角色\r\n";
        let c = Cilin::parse(Path::new("c.txt"), text).unwrap();
        // 人物 is in two groups: Aa01A01 and Ab01A01.
        assert_eq!(c.concepts("人物", 1), [("A".to_string(), 1.0)]);
        assert_eq!(
            c.concepts("人物", 2),
            [("Aa".to_string(), 0.5), ("Ab".to_string(), 0.5)]
        );
        assert_eq!(c.concepts("人", 5), [("Aa01A01".to_string(), 1.0)]);
        assert_eq!(c.concepts("士", 5), c.concepts("人", 5), "synonyms meet");
        // Related words meet at level 4, not at level 5.
        assert_eq!(c.concepts("人类", 4), c.concepts("人", 4));
        assert_ne!(c.concepts("人类", 5), c.concepts("生人", 5));
        assert_eq!(c.concepts("独自", 3), c.concepts("人", 3));
        // Unknown words are their own concept.
        assert_eq!(c.concepts("电脑", 3), [("电脑".to_string(), 1.0)]);
        assert_eq!(c.concepts("人", 9), c.concepts("人", 5), "levels clamp");
    }

    #[test]
    fn the_vendored_thesaurus_is_complete() {
        let c = Cilin::embedded();
        // The counts its SOURCE.md gives.
        assert_eq!(c.groups.len(), 17_817);
        assert_eq!(c.words(), 77_456);
        assert_eq!(c.groups.iter().filter(|g| g.flag == '=').count(), 9_995);
        assert_eq!(c.concepts("人士", 5)[0].0, "Aa01A01");
        let t: &dyn Thesaurus = c;
        assert_eq!(t.name(), "cilin");
    }
}
