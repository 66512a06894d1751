//! Writes a corpus in our format: JSONL (gzipped when the name ends in
//! `.gz`), or a CSV/Parquet table through polars.

use std::io::Write;
use std::path::Path;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use polars::prelude::*;
use serde_json::{Map, Value};

use super::{Content, CorpusError, Format, Location, Page, Published};
use crate::util::io::FileError;

pub fn write_corpus(pages: &[Page], path: &Path) -> Result<(), CorpusError> {
    let io = |source| CorpusError::Io(FileError::new(path, source));
    let format = Format::from_path(path).ok_or_else(|| {
        CorpusError::invalid(
            path,
            Location::File,
            None,
            "unknown output format: name it .jsonl, .jsonl.gz, .csv or .parquet",
        )
    })?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let gz = path.to_string_lossy().ends_with(".gz");
    let mut buf: Vec<u8> = Vec::new();
    match format {
        Format::Jsonl => {
            for page in pages {
                serde_json::to_writer(&mut buf, &page_to_json(page)).map_err(|e| io(e.into()))?;
                buf.push(b'\n');
            }
        }
        Format::Csv | Format::Parquet => {
            let mut df = pages_to_frame(pages)
                .map_err(|e| CorpusError::invalid(path, Location::File, None, e.to_string()))?;
            let result = if format == Format::Csv {
                CsvWriter::new(&mut buf).finish(&mut df)
            } else {
                ParquetWriter::new(&mut buf).finish(&mut df).map(|_| ())
            };
            result.map_err(|e| CorpusError::invalid(path, Location::File, None, e.to_string()))?;
        }
    }
    // Beside it, then renamed: a full disk or a kill leaves the old file.
    let mut file = crate::util::io::AtomicFile::create(path)?;
    if gz {
        let mut enc = flate2::write::GzEncoder::new(&mut file, flate2::Compression::default());
        enc.write_all(&buf).map_err(io)?;
        enc.finish().map_err(io)?;
    } else {
        file.write_all(&buf).map_err(io)?;
    }
    Ok(file.commit()?)
}

fn page_to_json(page: &Page) -> Value {
    let mut m = Map::new();
    m.insert("id".into(), page.id.clone().into());
    m.insert("cluster".into(), page.cluster.clone().into());
    match &page.content {
        Content::Html(h) => m.insert("html".into(), h.clone().into()),
        Content::HtmlBytes(b) => m.insert("html_base64".into(), BASE64.encode(b).into()),
        Content::Text(t) => m.insert("text".into(), t.clone().into()),
    };
    let mut opt = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            m.insert(k.into(), v.clone().into());
        }
    };
    opt("title", &page.title);
    opt("url", &page.url);
    opt("category", &page.category);
    opt("kind", &page.kind);
    opt("op", &page.op);
    opt("lang", &page.lang.map(|l| l.code().to_string()));
    match &page.published {
        Some(Published::Int(v)) => {
            m.insert("published".into(), (*v).into());
        }
        Some(Published::Text(s)) => {
            m.insert("published".into(), s.clone().into());
        }
        None => {}
    }
    Value::Object(m)
}

fn pages_to_frame(pages: &[Page]) -> PolarsResult<DataFrame> {
    let col = |name: &str, f: &dyn Fn(&Page) -> Option<String>| -> Column {
        Column::new(name.into(), pages.iter().map(f).collect::<Vec<_>>())
    };
    DataFrame::new_infer_height(vec![
        col("id", &|p| Some(p.id.clone())),
        col("cluster", &|p| Some(p.cluster.clone())),
        col("html", &|p| match &p.content {
            Content::Html(h) => Some(h.clone()),
            _ => None,
        }),
        col("html_base64", &|p| match &p.content {
            Content::HtmlBytes(b) => Some(BASE64.encode(b)),
            _ => None,
        }),
        col("text", &|p| match &p.content {
            Content::Text(t) => Some(t.clone()),
            _ => None,
        }),
        col("title", &|p| p.title.clone()),
        col("url", &|p| p.url.clone()),
        col("published", &|p| {
            p.published.as_ref().map(|v| v.to_string())
        }),
        col("category", &|p| p.category.clone()),
        col("kind", &|p| p.kind.clone()),
        col("lang", &|p| p.lang.map(|l| l.code().to_string())),
        col("op", &|p| p.op.clone()),
    ])
}
