//! Importers that turn public corpora into our format.

use std::path::Path;

use super::{Content, CorpusError, Lang, Location, Page};

/// The Clough & Stevenson short-answer text-reuse corpus (2011): five
/// Wikipedia sources (`orig`) and 95 student answers written as `cut`
/// (copy-paste), `light` (light revision), `heavy` (paraphrase) or `non`
/// (written independently).
///
/// `cut` and `light` answers are near-duplicates of their task's source and
/// share its cluster. `heavy` answers are paraphrases, not near-duplicates
/// in Broder's sense: each gets a cluster of its own, and the kind `heavy`
/// keeps them visible as a slice (flagging one is a false positive there).
/// `non` answers are unique pages.
pub fn clough_stevenson(dir: &Path) -> Result<Vec<Page>, CorpusError> {
    let raw = if dir.join("raw").is_dir() {
        dir.join("raw")
    } else {
        dir.to_path_buf()
    };
    let index_path = raw.join("file_information.csv");
    let index = crate::util::io::read_to_string(&index_path)?;
    let mut pages = Vec::new();
    let mut lines = index.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.trim() == "File,Task,Category" => {}
        _ => {
            return Err(CorpusError::invalid(
                &index_path,
                Location::Line(1),
                None,
                "expected the header `File,Task,Category`",
            ))
        }
    }
    for (i, line) in lines {
        let loc = Location::Line(i + 1);
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.trim().split(',').collect();
        let [file, task, category] = fields[..] else {
            return Err(CorpusError::invalid(
                &index_path,
                loc,
                None,
                "expected three fields: File,Task,Category",
            ));
        };
        let id = file.strip_suffix(".txt").unwrap_or(file).to_string();
        let (cluster, kind) = match category {
            "orig" => (format!("task{task}"), "original"),
            "cut" | "light" => (format!("task{task}"), category),
            "heavy" | "non" => (id.clone(), category),
            other => {
                return Err(CorpusError::invalid(
                    &index_path,
                    loc,
                    Some("Category"),
                    format!("unknown reuse level `{other}` (orig, cut, light, heavy, non)"),
                ))
            }
        };
        let text_path = raw.join(file);
        let text = read_legacy_text(&text_path)?;
        pages.push(Page {
            id,
            cluster,
            content: Content::Text(text),
            title: None,
            url: None,
            published: Some(super::Published::Int(if category == "orig" {
                0
            } else {
                1
            })),
            category: Some("answer".into()),
            kind: Some(kind.into()),
            lang: Some(Lang::En),
            op: None,
        });
    }
    pages.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(pages)
}

/// The answers are a mix of UTF-8 and Windows-1252 files.
fn read_legacy_text(path: &Path) -> Result<String, CorpusError> {
    let bytes = crate::util::io::read(path)?;
    let text = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => encoding_rs::WINDOWS_1252
            .decode(e.as_bytes())
            .0
            .into_owned(),
    };
    Ok(text.replace("\r\n", "\n").trim().to_string())
}
