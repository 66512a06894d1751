//! The Tongyici Cilin (extended) thesaurus: lines of an 8-character code
//! (five levels and a flag: `=` synonyms, `#` related, `@` alone) followed
//! by words.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct Group {
    pub code: String,
    pub flag: char,
    pub words: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Cilin {
    pub groups: Vec<Group>,
    /// Word → indices of the groups it belongs to.
    index: HashMap<String, Vec<u32>>,
}

#[derive(Debug, thiserror::Error)]
pub enum CilinError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: {message}", path.display())]
    Invalid {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Cilin {
    pub fn load(path: &Path) -> Result<Cilin, CilinError> {
        let text = std::fs::read_to_string(path).map_err(|source| CilinError::Io {
            path: path.to_path_buf(),
            source,
        })?;
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
}
