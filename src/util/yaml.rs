//! YAML reading with errors that name the file, line and field.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Io(#[from] super::io::FileError),
    #[error("{}{}: {message}", path.display(), location.map(|(l, c)| format!(":{l}:{c}")).unwrap_or_default())]
    Parse {
        path: PathBuf,
        location: Option<(usize, usize)>,
        message: String,
    },
    #[error("{}: `{key}`: {message}", path.display())]
    Invalid {
        path: PathBuf,
        key: String,
        message: String,
    },
}

/// Reads a YAML file into `T`; errors name the file, line and column.
pub fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = super::io::read_to_string(path)?;
    parse_yaml(path, &text)
}

/// Parses YAML text into `T`; `path` names it in errors.
pub fn parse_yaml<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
) -> Result<T, ConfigError> {
    serde_yaml::from_str(text).map_err(|e| {
        let mut location = e.location().map(|l| (l.line(), l.column()));
        let mut message = e.to_string();
        // The location is named in front; the parser repeats it at the end.
        if let Some((head, tail)) = message.rsplit_once(" at line ") {
            if tail.split(" column ").all(|n| n.parse::<usize>().is_ok()) {
                message = head.to_string();
            }
        }
        if let Some(unknown) = unknown_name(&message) {
            // Tagged maps (`- type: simhash ...`) are buffered before they
            // are read, so the parser points at the map's first line; the
            // unknown name itself is on its own line at or after it.
            let from = location.map_or(1, |l| l.0);
            if let Some(found) = word_position(text, &unknown, from) {
                location = Some(found);
            }
        }
        if let Some(hint) = did_you_mean(&message) {
            message.push_str(&hint);
        }
        ConfigError::Parse {
            path: path.to_path_buf(),
            location,
            message,
        }
    })
}

/// The name in serde's "unknown field `x`" or "unknown variant `x`".
fn unknown_name(message: &str) -> Option<String> {
    let at = message
        .find("unknown field `")
        .or_else(|| message.find("unknown variant `"))?;
    message[at..].split('`').nth(1).map(str::to_string)
}

/// (line, column), 1-based, of the first whole-word `word` on line `from`
/// or later.
fn word_position(text: &str, word: &str, from: usize) -> Option<(usize, usize)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        // A comment may name a key too.
        .filter(|(_, line)| !line.trim_start().starts_with('#'))
        .find_map(|(n, line)| {
            line.match_indices(word).find_map(|(at, _)| {
                let before = line[..at].chars().next_back();
                let after = line[at + word.len()..].chars().next();
                (!before.is_some_and(is_word) && !after.is_some_and(is_word))
                    .then(|| (n + 1, line[..at].chars().count() + 1))
            })
        })
}

/// For serde's "unknown field `thershold`, expected one of `type`, ...",
/// the closest expected name: "; did you mean `threshold`?".
fn did_you_mean(message: &str) -> Option<String> {
    let quoted = |s: &str| -> Vec<String> {
        s.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    let unknown = unknown_name(message)?;
    let expected = &message[message.find("expected")?..];
    quoted(expected)
        .into_iter()
        .map(|name| (strsim::damerau_levenshtein(&unknown, &name), name))
        .filter(|(d, name)| *d <= 2.max(name.chars().count() / 3))
        .min()
        .map(|(_, name)| format!("; did you mean `{name}`?"))
}

/// The line and column of an entry's key (`algorithms[1].bits`,
/// `seeds`), for block-style YAML: the key within the entry (up to the
/// next entry or top-level key), else the entry's `type`.
pub fn key_position(text: &str, key: &str) -> Option<(usize, usize)> {
    let (head, field) = key.split_once('.').unwrap_or((key, ""));
    let (name, index) = match head.split_once('[') {
        Some((name, i)) => (name, i.trim_end_matches(']').parse::<usize>().ok()),
        None => (head, None),
    };
    let top = word_position(text, name, 1)?;
    let Some(i) = index.filter(|_| name == "algorithms") else {
        // A key inside a top-level block (`judged.pairs`): found before
        // the next top-level key, else the block's own.
        let end = text
            .lines()
            .enumerate()
            .skip(top.0)
            .find(|(_, line)| !line.starts_with([' ', '#']) && !line.is_empty())
            .map_or(usize::MAX, |(n, _)| n + 1);
        let field = field.split(['.', '[']).next().unwrap_or("");
        return Some(
            word_position(text, field, top.0)
                .filter(|&(line, _)| !field.is_empty() && line < end)
                .unwrap_or(top),
        );
    };
    let mut entry = top;
    for n in 0..=i {
        entry = word_position(text, "type", entry.0 + usize::from(n > 0))?;
    }
    let field = field.split(['.', '[']).next().unwrap_or("");
    let end = text
        .lines()
        .enumerate()
        .skip(entry.0)
        .find(|(_, line)| {
            !line.starts_with([' ', '#']) && !line.is_empty() || line.trim_start().starts_with("- ")
        })
        .map_or(usize::MAX, |(n, _)| n + 1);
    Some(
        word_position(text, field, entry.0)
            .filter(|&(line, _)| !field.is_empty() && line < end)
            .unwrap_or(entry),
    )
}

/// The line of `key` (as [`ConfigError::invalid`] names keys:
/// `corpus`, `judged.pairs`, `algorithms[1].model`) in a YAML file's text.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    key_position(text, key).map(|(line, _)| line)
}

impl ConfigError {
    /// An invalid key located in the file's text: the error names the
    /// line and column beside the file and key.
    pub fn located(self, text: &str) -> Self {
        match self {
            ConfigError::Invalid { path, key, message } => match key_position(text, &key) {
                Some(location) => ConfigError::Parse {
                    path,
                    location: Some(location),
                    message: format!("`{key}`: {message}"),
                },
                None => ConfigError::Invalid { path, key, message },
            },
            other => other,
        }
    }

    pub fn invalid(path: &Path, key: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Invalid {
            path: path.to_path_buf(),
            key: key.into(),
            message: message.into(),
        }
    }
}
