//! Copies the rows of a corpus file whose ids are wanted into a file of
//! the same format and compression, each row as it was (fields the reader
//! does not know included): what `neardup dedup` keeps.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::path::Path;

use polars::prelude::*;
use serde_json::Value;

use super::{CorpusError, Format, Location};
use crate::util::io::FileError;

/// Writes to `to` the rows of `from` whose `id` is in `keep`, in input
/// order, and returns how many. `from` was read as a corpus before, so a
/// row that does not parse here is skipped (it was a blank line).
pub fn copy_rows(from: &Path, to: &Path, keep: &HashSet<&str>) -> Result<usize, CorpusError> {
    let format = Format::from_path(from)
        .ok_or_else(|| CorpusError::invalid(from, Location::File, None, "unknown corpus format"))?;
    let gz = is_gzipped(from)?;
    let file = std::fs::File::create(to).map_err(FileError::at(to))?;
    let mut out: Box<dyn Write> = if gz {
        Box::new(flate2::write::GzEncoder::new(
            std::io::BufWriter::new(file),
            flate2::Compression::default(),
        ))
    } else {
        Box::new(std::io::BufWriter::new(file))
    };
    let written = match format {
        Format::Jsonl => copy_jsonl(from, gz, &mut out, keep)?,
        Format::Csv | Format::Parquet => copy_table(from, format, &mut out, keep)?,
    };
    out.flush().map_err(FileError::at(to))?;
    drop(out);
    Ok(written)
}

fn is_gzipped(path: &Path) -> Result<bool, CorpusError> {
    let mut magic = [0u8; 2];
    let mut file = std::fs::File::open(path).map_err(FileError::at(path))?;
    let n = std::io::Read::read(&mut file, &mut magic).map_err(FileError::at(path))?;
    Ok(n == 2 && magic == [0x1f, 0x8b])
}

/// Line by line, so that the input is never held whole.
fn copy_jsonl(
    from: &Path,
    gz: bool,
    out: &mut dyn Write,
    keep: &HashSet<&str>,
) -> Result<usize, CorpusError> {
    let file = std::fs::File::open(from).map_err(FileError::at(from))?;
    let mut reader: Box<dyn BufRead> = if gz {
        Box::new(std::io::BufReader::new(flate2::read::MultiGzDecoder::new(
            file,
        )))
    } else {
        Box::new(std::io::BufReader::new(file))
    };
    let mut line = Vec::new();
    let mut written = 0;
    loop {
        line.clear();
        if reader
            .read_until(b'\n', &mut line)
            .map_err(FileError::at(from))?
            == 0
        {
            break;
        }
        if line_id(&line).is_some_and(|id| keep.contains(id.as_str())) {
            out.write_all(&line).map_err(FileError::at(from))?;
            if !line.ends_with(b"\n") {
                out.write_all(b"\n").map_err(FileError::at(from))?;
            }
            written += 1;
        }
    }
    Ok(written)
}

/// The id of one JSONL line as the reader spells it (a string, or an
/// integer's digits).
fn line_id(line: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct IdOnly {
        id: Option<Value>,
    }
    let text = std::str::from_utf8(line).ok()?;
    let text = text.trim_start_matches('\u{feff}').trim();
    if text.is_empty() {
        return None;
    }
    match serde_json::from_str::<IdOnly>(text).ok()?.id? {
        Value::String(s) => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// CSV and Parquet through polars, every column as it was read.
fn copy_table(
    from: &Path,
    format: Format,
    out: &mut dyn Write,
    keep: &HashSet<&str>,
) -> Result<usize, CorpusError> {
    let bad = |e: PolarsError| CorpusError::invalid(from, Location::File, None, e.to_string());
    let bytes = super::read_maybe_gzipped(from).map_err(FileError::at(from))?;
    let mut df = match format {
        Format::Csv => CsvReadOptions::default()
            .with_has_header(true)
            .with_infer_schema_length(Some(0))
            .into_reader_with_file_handle(std::io::Cursor::new(bytes.as_slice()))
            .finish(),
        _ => ParquetReader::new(std::io::Cursor::new(bytes.as_slice())).finish(),
    }
    .map_err(bad)?;
    let ids = df
        .column("id")
        .map_err(bad)?
        .as_materialized_series()
        .cast(&DataType::String)
        .map_err(bad)?;
    let mask: BooleanChunked = ids
        .str()
        .map_err(bad)?
        .iter()
        .map(|id| Some(id.is_some_and(|id| keep.contains(id))))
        .collect();
    let mut kept = df.filter(&mask).map_err(bad)?;
    drop(std::mem::take(&mut df));
    let mut buf = Vec::new();
    match format {
        Format::Csv => CsvWriter::new(&mut buf).finish(&mut kept),
        _ => ParquetWriter::new(&mut buf).finish(&mut kept).map(|_| ()),
    }
    .map_err(bad)?;
    out.write_all(&buf).map_err(FileError::at(from))?;
    Ok(kept.height())
}
