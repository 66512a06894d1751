//! Readers for JSONL (optionally gzipped), CSV and Parquet corpora.
//!
//! JSONL is parsed line by line with serde_json rather than through polars'
//! NDJSON reader: polars infers one schema for the whole file and reports a
//! bad record without its line, while a user with a broken line 7 needs
//! `FILE:7: field ...`. Tables (CSV, Parquet) go through polars, with every
//! column read as a string so that a numeric `id` or `published` keeps its
//! exact spelling.

use std::collections::HashMap;
use std::io::{Cursor, Read};
use std::path::Path;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use polars::prelude::*;
use serde_json::Value;

use super::{Content, Corpus, CorpusError, Lang, Location, Page, Published, ReadOptions};
use crate::util::fmt::clip;
use crate::util::io::FileError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    Csv,
    Parquet,
}

impl Format {
    /// Decided by the name, ignoring a trailing `.gz`.
    pub fn from_path(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_string_lossy().to_ascii_lowercase();
        let name = name.strip_suffix(".gz").unwrap_or(&name);
        if name.ends_with(".jsonl") || name.ends_with(".ndjson") || name.ends_with(".json") {
            Some(Format::Jsonl)
        } else if name.ends_with(".csv") {
            Some(Format::Csv)
        } else if name.ends_with(".parquet") {
            Some(Format::Parquet)
        } else {
            None
        }
    }
}

pub fn read_corpus(path: &Path, options: ReadOptions) -> Result<Corpus, CorpusError> {
    if path.is_dir() {
        return read_html_folder(path, options);
    }
    if Format::from_path(path) == Some(Format::Jsonl) {
        return read_jsonl_file(path, options, &ReadCounter::default());
    }
    let bytes = crate::util::io::read(path)?;
    let format = Format::from_path(path).ok_or_else(|| {
        CorpusError::invalid(
            path,
            Location::File,
            None,
            "unknown corpus format: expected .jsonl, .jsonl.gz, .csv or .parquet",
        )
    })?;
    read_corpus_bytes(path, &bytes, format, options)
}

/// Reads a corpus held in memory; `path` names it in errors.
pub fn read_corpus_bytes(
    path: &Path,
    bytes: &[u8],
    format: Format,
    options: ReadOptions,
) -> Result<Corpus, CorpusError> {
    let mut bytes = gunzip_if_needed(path, bytes)?;
    if format != Format::Parquet {
        if let Some(text) = crate::extract::decode::utf16_text(&bytes) {
            bytes = text.into_bytes().into();
        }
    }
    let mut builder = CorpusBuilder::new(path, options);
    match format {
        Format::Jsonl => read_jsonl(path, &bytes, &mut builder)?,
        Format::Csv => {
            check_utf8_by_line(path, &bytes)?;
            check_csv_shape(path, &bytes)?;
            let df = CsvReadOptions::default()
                .with_has_header(true)
                .with_infer_schema_length(Some(0))
                .into_reader_with_file_handle(Cursor::new(bytes.as_ref()))
                .finish()
                .map_err(|e| polars_error(path, e))?;
            read_table(path, &df, &mut builder)?;
        }
        Format::Parquet => {
            let df = ParquetReader::new(Cursor::new(bytes.as_ref()))
                .finish()
                .map_err(|e| polars_error(path, e))?;
            read_table(path, &df, &mut builder)?;
        }
    }
    Ok(builder.finish())
}

/// Polars echoes the field it could not read, which past an unterminated
/// quote is the rest of the file: the message is kept to one short line.
fn polars_error(path: &Path, e: PolarsError) -> CorpusError {
    let message = e.to_string().replace('\n', "\\n");
    CorpusError::invalid(path, Location::File, None, clip(&message, 160))
}

fn gunzip_if_needed<'a>(
    path: &Path,
    bytes: &'a [u8],
) -> Result<std::borrow::Cow<'a, [u8]>, CorpusError> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .read_to_end(&mut out)
            .map_err(|e| {
                CorpusError::invalid(path, Location::File, None, format!("bad gzip data: {e}"))
            })?;
        Ok(out.into())
    } else {
        Ok(bytes.into())
    }
}

/// Names the first line that is not UTF-8 (charset decoding of raw HTML
/// bytes belongs to the extraction stage, not to the table itself).
fn check_utf8_by_line(path: &Path, bytes: &[u8]) -> Result<(), CorpusError> {
    if let Err(e) = std::str::from_utf8(bytes) {
        let at = e.valid_up_to();
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        return Err(CorpusError::invalid(
            path,
            Location::Line(line),
            None,
            format!("bytes are not valid UTF-8 (file offset {at})"),
        ));
    }
    Ok(())
}

/// Names the first row whose number of fields differs from the header's,
/// before polars sees the file (its own message names no row). Fields are
/// split as polars splits them: by commas outside double quotes, records
/// by newlines outside them; blank lines are no rows.
fn check_csv_shape(path: &Path, bytes: &[u8]) -> Result<(), CorpusError> {
    let mut header: Option<Vec<String>> = None;
    let mut field = Vec::new();
    let mut fields: Vec<Vec<u8>> = Vec::new();
    let (mut in_quotes, mut row, mut line, mut first_line) = (false, 0usize, 1usize, 1usize);
    // Where the open quote was opened: line, and field number in its row.
    let mut opened = (0usize, 0usize);
    let mut end_record = |fields: &mut Vec<Vec<u8>>, row: &mut usize, first_line: usize| {
        let blank = fields.len() == 1 && fields[0].iter().all(|&b| b == b'\r');
        let record = std::mem::take(fields);
        if blank {
            return Ok(());
        }
        let Some(names) = &header else {
            header = Some(
                record
                    .iter()
                    .map(|f| {
                        String::from_utf8_lossy(f)
                            .trim_matches(['"', '\r'])
                            .to_string()
                    })
                    .collect(),
            );
            return Ok(());
        };
        *row += 1;
        if record.len() == names.len() {
            return Ok(());
        }
        let (field, message) = if record.len() > names.len() {
            (
                None,
                format!(
                    "{} fields where the header names {} columns ({}); quote fields holding commas",
                    record.len(),
                    names.len(),
                    names.join(", ")
                ),
            )
        } else {
            (
                Some(names[record.len()].as_str()),
                format!(
                    "missing: the row has {} fields where the header names {} columns",
                    record.len(),
                    names.len()
                ),
            )
        };
        Err(CorpusError::invalid(
            path,
            Location::Row(*row),
            field,
            format!("{message} (line {first_line})"),
        ))
    };
    for &b in bytes {
        match b {
            b'"' => {
                in_quotes = !in_quotes;
                if in_quotes {
                    opened = (line, fields.len());
                }
                field.push(b);
            }
            b',' if !in_quotes => fields.push(std::mem::take(&mut field)),
            b'\n' => {
                line += 1;
                if in_quotes {
                    field.push(b);
                } else {
                    fields.push(std::mem::take(&mut field));
                    end_record(&mut fields, &mut row, first_line)?;
                    first_line = line;
                }
            }
            _ => field.push(b),
        }
    }
    if in_quotes {
        return Err(unterminated_quote(path, header.as_deref(), row, opened));
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        end_record(&mut fields, &mut row, first_line)?;
    }
    Ok(())
}

/// A quote still open at the end of the file: it swallowed every line
/// after it, so the row and field where it opened are what to fix.
fn unterminated_quote(
    path: &Path,
    header: Option<&[String]>,
    rows_before: usize,
    (line, field): (usize, usize),
) -> CorpusError {
    let (location, name) = match header {
        Some(names) => (
            Location::Row(rows_before + 1),
            names.get(field).map(String::as_str),
        ),
        None => (Location::Line(line), None),
    };
    CorpusError::invalid(
        path,
        location,
        name,
        format!(
            "the quote opened on line {line} is never closed: it runs to the end of the file \
             (close it, or double a quote inside a field: \"\")"
        ),
    )
}

/// A JSONL file read a line at a time, gunzipped on the way when it is
/// gzip: neither the file nor its decompressed text is ever held whole
/// (at a million pages the HTML alone is tens of GB).
/// How far a corpus read is, for a gauge: bytes of the file read (before
/// decompressing) and pages made so far.
#[derive(Debug, Default)]
pub struct ReadCounter {
    pub bytes: std::sync::atomic::AtomicU64,
    pub pages: std::sync::atomic::AtomicU64,
}

/// [`read_corpus`], counting its progress in `counter` (JSONL files only;
/// other formats are read whole, then counted).
pub fn read_corpus_counted(
    path: &Path,
    options: ReadOptions,
    counter: &ReadCounter,
) -> Result<Corpus, CorpusError> {
    use std::sync::atomic::Ordering;
    let corpus = if !path.is_dir() && Format::from_path(path) == Some(Format::Jsonl) {
        read_jsonl_file(path, options, counter)?
    } else {
        read_corpus(path, options)?
    };
    counter
        .pages
        .store(corpus.pages.len() as u64, Ordering::Relaxed);
    Ok(corpus)
}

/// Counts the bytes passing through.
struct Counting<'a, R> {
    inner: R,
    counter: &'a ReadCounter,
}

impl<R: Read> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter
            .bytes
            .fetch_add(n as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(n)
    }
}

/// Lines parsed together: big enough to keep the cores busy, small enough
/// that a batch of HTML pages stays a few megabytes.
const BATCH_LINES: usize = 256;

fn read_jsonl_file(
    path: &Path,
    options: ReadOptions,
    counter: &ReadCounter,
) -> Result<Corpus, CorpusError> {
    use rayon::prelude::*;
    let io = |source| CorpusError::Io(FileError::new(path, source));
    let mut file = std::io::BufReader::with_capacity(
        1 << 20,
        Counting {
            inner: std::fs::File::open(path).map_err(io)?,
            counter,
        },
    );
    let gzip = std::io::BufRead::fill_buf(&mut file)
        .map_err(io)?
        .starts_with(&[0x1f, 0x8b]);
    let mut reader: Box<dyn std::io::BufRead + Send> = if gzip {
        Box::new(std::io::BufReader::with_capacity(
            1 << 20,
            flate2::read::MultiGzDecoder::new(file),
        ))
    } else {
        Box::new(file)
    };
    let read_error = |source: std::io::Error| {
        if gzip {
            CorpusError::invalid(
                path,
                Location::File,
                None,
                format!("bad gzip data: {source}"),
            )
        } else {
            io(source)
        }
    };
    // UTF-16 (a file saved by a Windows tool) splits into lines only once
    // turned into UTF-8: read whole and decoded, then read as any JSONL.
    let head = std::io::BufRead::fill_buf(&mut reader).map_err(read_error)?;
    if crate::extract::decode::utf16_text(&head[..head.len().min(4096)]).is_some() {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(read_error)?;
        let text = crate::extract::decode::utf16_text(&bytes).unwrap_or_default();
        return read_corpus_bytes(path, text.as_bytes(), Format::Jsonl, options);
    }
    // One batch of lines is parsed on the other cores while the next one
    // is decompressed; pages join the corpus in file order, so the first
    // bad line is the one reported.
    let mut next_line = 1usize;
    let mut finished = false;
    let mut read_batch = |reader: &mut Box<dyn std::io::BufRead + Send>| {
        let mut batch: Vec<(usize, Vec<u8>)> = Vec::with_capacity(BATCH_LINES);
        while !finished && batch.len() < BATCH_LINES {
            let mut line = Vec::new();
            let n = std::io::BufRead::read_until(reader, b'\n', &mut line).map_err(read_error)?;
            if n == 0 || !line.ends_with(b"\n") {
                finished = true;
            } else {
                line.pop();
            }
            batch.push((next_line, line));
            next_line += 1;
        }
        Ok::<_, CorpusError>(batch)
    };
    let mut builder = CorpusBuilder::new(path, options);
    let mut batch = read_batch(&mut reader)?;
    while !batch.is_empty() {
        let (parsed, next) = rayon::join(
            || {
                batch
                    .par_iter()
                    .map(|(line_no, raw)| parse_jsonl_line(path, *line_no, raw))
                    .collect::<Vec<_>>()
            },
            || read_batch(&mut reader),
        );
        for parsed in parsed {
            if let Some((record, loc)) = parsed? {
                builder.push(record, loc)?;
            }
        }
        counter.pages.store(
            builder.corpus.pages.len() as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
        batch = next?;
    }
    Ok(builder.finish())
}

fn read_jsonl(path: &Path, bytes: &[u8], builder: &mut CorpusBuilder) -> Result<(), CorpusError> {
    for (index, raw_line) in bytes.split(|&b| b == b'\n').enumerate() {
        push_jsonl_line(path, index + 1, raw_line, builder)?;
    }
    Ok(())
}

/// Validates one JSONL line and adds its page (blank lines add nothing).
fn push_jsonl_line(
    path: &Path,
    line_no: usize,
    raw_line: &[u8],
    builder: &mut CorpusBuilder,
) -> Result<(), CorpusError> {
    match parse_jsonl_line(path, line_no, raw_line)? {
        Some((record, loc)) => builder.push(record, loc),
        None => Ok(()),
    }
}

/// One JSONL line validated on its own, before the corpus checks that
/// need the lines before it (repeated ids): `None` for a blank line.
fn parse_jsonl_line(
    path: &Path,
    line_no: usize,
    raw_line: &[u8],
) -> Result<Option<(RawRecord, Location)>, CorpusError> {
    {
        let loc = Location::Line(line_no);
        let line = match std::str::from_utf8(raw_line) {
            Ok(s) => s,
            Err(e) => return Err(non_utf8_line(path, line_no, raw_line, e)),
        };
        let line = line.trim_end_matches('\r');
        // Editors on Windows start UTF-8 files with a byte order mark; the
        // CSV reader skips it too.
        let line = if line_no == 1 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if line.trim().is_empty() {
            return Ok(None);
        }
        let value: Value = serde_json::from_str(line).map_err(|e| {
            CorpusError::invalid(
                path,
                loc.clone(),
                None,
                format!(
                    "malformed JSON at column {}: {}",
                    e.column(),
                    without_position(&e)
                ),
            )
        })?;
        let Value::Object(map) = value else {
            return Err(CorpusError::invalid(
                path,
                loc,
                None,
                "expected a JSON object per line",
            ));
        };
        let record = RawRecord::from_json(path, &loc, &map)?;
        Ok(Some((record, loc)))
    }
}

/// Pages read one JSONL line at a time from a stream (standard input for
/// `neardup ingest`), validated as a corpus file's lines are and named in
/// errors as `name:LINE`. Clusters are optional; ids must not repeat; pages
/// without content are yielded too. A bad line is an error item and the
/// stream goes on with the next line.
pub struct PageStream<'a, R> {
    reader: R,
    name: &'a Path,
    line_no: usize,
    builder: CorpusBuilder<'a>,
    buf: Vec<u8>,
}

impl<'a, R: std::io::BufRead> PageStream<'a, R> {
    pub fn new(reader: R, name: &'a Path) -> Self {
        PageStream {
            reader,
            name,
            line_no: 0,
            builder: CorpusBuilder {
                keep_blank: true,
                ..CorpusBuilder::new(name, ReadOptions::unlabelled())
            },
            buf: Vec::new(),
        }
    }

    /// The line the last page came from.
    pub fn line(&self) -> usize {
        self.line_no
    }
}

impl<R: std::io::BufRead> Iterator for PageStream<'_, R> {
    type Item = Result<Page, CorpusError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => return None,
                Ok(_) => {}
                Err(source) => {
                    return Some(Err(CorpusError::Io(FileError::new(self.name, source))))
                }
            }
            self.line_no += 1;
            let line = self.buf.strip_suffix(b"\n").unwrap_or(&self.buf);
            if let Err(e) = push_jsonl_line(self.name, self.line_no, line, &mut self.builder) {
                return Some(Err(e));
            }
            if let Some(page) = self.builder.corpus.pages.pop() {
                return Some(Ok(page));
            }
        }
    }
}

/// serde_json's message without its " at line L column C" suffix, which
/// would repeat the location we name ourselves.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rsplit_once(" at line ") {
        Some((message, _)) => message.to_string(),
        None => text,
    }
}

/// Says which field holds the bytes that are not UTF-8, when that can be told.
fn non_utf8_line(path: &Path, line_no: usize, raw: &[u8], e: std::str::Utf8Error) -> CorpusError {
    let lossy = String::from_utf8_lossy(raw);
    let field = serde_json::from_str::<serde_json::Map<String, Value>>(&lossy)
        .ok()
        .and_then(|map| {
            map.iter()
                .find(|(_, v)| v.as_str().is_some_and(|s| s.contains('\u{FFFD}')))
                .map(|(k, _)| k.clone())
        });
    CorpusError::invalid(
        path,
        Location::Line(line_no),
        field.as_deref(),
        format!(
            "bytes are not valid UTF-8 (byte {} of the line); re-encode the file as UTF-8",
            e.valid_up_to() + 1
        ),
    )
}

fn read_table(path: &Path, df: &DataFrame, builder: &mut CorpusBuilder) -> Result<(), CorpusError> {
    let column = |name: &str| -> Result<Option<StringChunked>, CorpusError> {
        match df.column(name) {
            Ok(c) => {
                check_column_type(path, df, name, c.dtype())?;
                let s = c
                    .as_materialized_series()
                    .cast(&DataType::String)
                    .map_err(|e| column_error(path, name, e))?;
                Ok(Some(s.str().map_err(|e| polars_error(path, e))?.clone()))
            }
            Err(_) => Ok(None),
        }
    };
    let cols: Vec<Option<StringChunked>> = TABLE_FIELDS
        .iter()
        .map(|f| column(f))
        .collect::<Result<_, _>>()?;
    for row in 0..df.height() {
        let get = |i: usize| {
            cols[i]
                .as_ref()
                .and_then(|c| c.get(row))
                .map(str::to_string)
        };
        let record = RawRecord {
            id: get(0),
            cluster: get(1),
            html: get(2),
            text: get(3),
            title: get(4),
            url: get(5),
            published: get(6).map(|s| parse_published_str(&s)),
            category: get(7),
            kind: get(8),
            lang: get(9),
            html_base64: get(10),
            op: get(11),
        };
        builder.push(record, Location::Row(row + 1))?;
    }
    Ok(())
}

/// A column of a type we do not read as text: ids, clusters and
/// publication times may be numbers (and times dates), every other field
/// must be a string, so that an integer `html` column is not read as "0",
/// "1", ... The error names the column and its first non-null row.
fn check_column_type(
    path: &Path,
    df: &DataFrame,
    name: &str,
    dtype: &DataType,
) -> Result<(), CorpusError> {
    let fits = match dtype {
        DataType::String | DataType::Null => true,
        t if t.is_integer() => matches!(name, "id" | "cluster" | "published"),
        DataType::Date | DataType::Datetime(..) => name == "published",
        _ => false,
    };
    if fits {
        return Ok(());
    }
    let want = match name {
        "id" | "cluster" => "a string or an integer",
        "published" => "a string, an integer or a date",
        _ => "a string",
    };
    let row = df
        .column(name)
        .ok()
        .and_then(|c| {
            let nulls = c.is_null();
            (0..c.len()).find(|&i| nulls.get(i) == Some(false))
        })
        .map_or(Location::File, |i| Location::Row(i + 1));
    Err(CorpusError::invalid(
        path,
        row,
        Some(name),
        format!("the column holds {dtype}, expected {want}"),
    ))
}

fn column_error(path: &Path, name: &str, e: PolarsError) -> CorpusError {
    CorpusError::invalid(
        path,
        Location::File,
        Some(name),
        format!("cannot be read as text: {e}"),
    )
}

const TABLE_FIELDS: [&str; 12] = [
    "id",
    "cluster",
    "html",
    "text",
    "title",
    "url",
    "published",
    "category",
    "kind",
    "lang",
    "html_base64",
    "op",
];

fn parse_published_str(s: &str) -> Published {
    match s.trim().parse::<i64>() {
        Ok(v) => Published::Int(v),
        Err(_) => Published::Text(s.to_string()),
    }
}

/// One row as found, before validation.
#[derive(Debug, Default)]
struct RawRecord {
    id: Option<String>,
    cluster: Option<String>,
    html: Option<String>,
    html_base64: Option<String>,
    text: Option<String>,
    title: Option<String>,
    url: Option<String>,
    published: Option<Published>,
    category: Option<String>,
    kind: Option<String>,
    lang: Option<String>,
    op: Option<String>,
}

impl RawRecord {
    fn from_json(
        path: &Path,
        loc: &Location,
        map: &serde_json::Map<String, Value>,
    ) -> Result<Self, CorpusError> {
        let wrong = |field: &str, want: &str, got: &Value| {
            CorpusError::invalid(
                path,
                loc.clone(),
                Some(field),
                format!("expected {want}, found {}", json_type(got)),
            )
        };
        // A string field; ids and clusters may also be integers.
        let string = |field: &str, allow_int: bool| -> Result<Option<String>, CorpusError> {
            match map.get(field) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(Value::Number(n)) if allow_int && n.is_i64() => Ok(Some(n.to_string())),
                Some(v) => Err(wrong(field, "a string", v)),
            }
        };
        let text = match map.get("text") {
            None | Some(Value::Null) => paragraphs_as_text(path, loc, map)?,
            Some(Value::String(s)) => Some(s.clone()),
            Some(v) => return Err(wrong("text", "a string", v)),
        };
        let published = match map.get("published") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(Published::Text(s.clone())),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(v) => Some(Published::Int(v)),
                None => {
                    return Err(wrong(
                        "published",
                        "an integer or a string",
                        &map["published"],
                    ))
                }
            },
            Some(v) => return Err(wrong("published", "an integer or a string", v)),
        };
        Ok(RawRecord {
            id: string("id", true)?,
            cluster: string("cluster", true)?,
            html: string("html", false)?,
            html_base64: string("html_base64", false)?,
            text,
            title: string("title", false)?,
            url: string("url", false)?,
            published,
            category: string("category", false)?,
            kind: string("kind", false)?,
            op: string("op", false)?,
            lang: string("lang", false)?,
        })
    }
}

/// People's Daily-style records carry `paragraphs` (a list of strings)
/// instead of `text`; they join into paragraphs of plain text.
fn paragraphs_as_text(
    path: &Path,
    loc: &Location,
    map: &serde_json::Map<String, Value>,
) -> Result<Option<String>, CorpusError> {
    let Some(Value::Array(items)) = map.get("paragraphs") else {
        return Ok(None);
    };
    let mut parts = Vec::with_capacity(items.len());
    for item in items {
        match item {
            Value::String(s) => parts.push(s.as_str()),
            other => {
                return Err(CorpusError::invalid(
                    path,
                    loc.clone(),
                    Some("paragraphs"),
                    format!("expected a list of strings, found {}", json_type(other)),
                ))
            }
        }
    }
    Ok(Some(parts.join("\n")))
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Validates records one by one and remembers ids to catch duplicates.
struct CorpusBuilder<'a> {
    path: &'a Path,
    options: ReadOptions,
    seen: HashMap<String, Location>,
    corpus: Corpus,
    /// Pages without content are kept (a stream answers for every line)
    /// instead of being counted in `skipped_empty`.
    keep_blank: bool,
}

impl<'a> CorpusBuilder<'a> {
    fn new(path: &'a Path, options: ReadOptions) -> Self {
        CorpusBuilder {
            path,
            options,
            seen: HashMap::new(),
            corpus: Corpus {
                source: path.display().to_string(),
                ..Corpus::default()
            },
            keep_blank: false,
        }
    }

    fn push(&mut self, mut r: RawRecord, loc: Location) -> Result<(), CorpusError> {
        let path = self.path;
        if self.options.prefer_text && r.text.is_some() {
            r.html = None;
            r.html_base64 = None;
        }
        let content = match (r.html.take(), r.html_base64.take(), r.text.take()) {
            (Some(html), _, _) => Content::Html(html),
            (None, Some(encoded), _) => match BASE64.decode(encoded.trim()) {
                Ok(bytes) => Content::HtmlBytes(bytes),
                Err(e) => {
                    return Err(CorpusError::invalid(
                        path,
                        loc.clone(),
                        Some("html_base64"),
                        format!("not valid base64: {e}"),
                    ))
                }
            },
            (None, None, Some(text)) => Content::Text(text),
            (None, None, None) => {
                return Err(CorpusError::invalid(
                    path,
                    loc.clone(),
                    Some("html/text"),
                    "neither `html`, `html_base64` nor `text` is present",
                ))
            }
        };
        self.push_content(r, content, loc)
    }

    fn push_content(
        &mut self,
        r: RawRecord,
        content: Content,
        loc: Location,
    ) -> Result<(), CorpusError> {
        let path = self.path;
        let id = match r.id {
            Some(id) if !id.trim().is_empty() => id,
            Some(_) => return Err(CorpusError::invalid(path, loc, Some("id"), "is empty")),
            None => return Err(CorpusError::invalid(path, loc, Some("id"), "is missing")),
        };
        let cluster = match r.cluster {
            Some(c) if !c.trim().is_empty() => c,
            _ if !self.options.require_cluster => {
                self.corpus.unlabelled += 1;
                format!("\u{0}unlabelled:{id}")
            }
            Some(_) => return Err(CorpusError::invalid(path, loc, Some("cluster"), "is empty")),
            None => {
                return Err(CorpusError::invalid(
                    path,
                    loc,
                    Some("cluster"),
                    "is missing (a unique page needs a cluster of its own)",
                ))
            }
        };
        let lang = match r.lang.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(s) => Some(Lang::parse(s).ok_or_else(|| {
                CorpusError::invalid(
                    path,
                    loc.clone(),
                    Some("lang"),
                    format!("unknown language `{}` (expected a language tag such as zh, en or pt-BR, or leave it out)", clip(s, 80)),
                )
            })?),
        };
        if let Some(first) = self.seen.get(&id) {
            let first = match first {
                Location::Line(n) => format!("line {n}"),
                Location::Row(n) => format!("row {n}"),
                Location::File => "earlier".into(),
            };
            return Err(CorpusError::invalid(
                path,
                loc,
                Some("id"),
                format!("duplicate id `{}` (first seen at {first})", clip(&id, 80)),
            ));
        }
        self.seen.insert(id.clone(), loc);
        if content.is_blank() && !self.keep_blank {
            self.corpus.skipped_empty += 1;
            return Ok(());
        }
        self.corpus.pages.push(Page {
            id,
            cluster,
            content,
            title: r.title,
            url: r.url,
            published: r.published,
            category: r.category.filter(|s| !s.is_empty()),
            kind: r.kind.filter(|s| !s.is_empty()),
            op: r.op.filter(|s| !s.is_empty()),
            lang,
        });
        Ok(())
    }

    fn finish(self) -> Corpus {
        self.corpus
    }
}

/// A folder of `.html`/`.htm` files (optionally `.gz`), read as raw bytes
/// and decoded at extraction. Each page is its own cluster: a folder
/// carries no labels.
fn read_html_folder(dir: &Path, options: ReadOptions) -> Result<Corpus, CorpusError> {
    if options.require_cluster {
        return Err(CorpusError::invalid(
            dir,
            Location::File,
            Some("cluster"),
            "a folder of HTML files has no labels; give a JSONL, CSV or Parquet corpus with `cluster`",
        ));
    }
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = std::fs::read_dir(&d).map_err(FileError::at(&d))?;
        for entry in entries {
            let entry = entry.map_err(FileError::at(&d))?;
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let name = path.to_string_lossy().to_ascii_lowercase();
                let name = name.strip_suffix(".gz").unwrap_or(&name);
                if name.ends_with(".html") || name.ends_with(".htm") {
                    files.push(path);
                }
            }
        }
    }
    files.sort();
    let mut builder = CorpusBuilder::new(dir, options);
    for (i, file) in files.iter().enumerate() {
        let bytes = crate::util::io::read(file)?;
        let bytes = gunzip_if_needed(file, &bytes)?.into_owned();
        let id = file
            .strip_prefix(dir)
            .unwrap_or(file)
            .to_string_lossy()
            .into_owned();
        let record = RawRecord {
            id: Some(id),
            html_base64: None,
            ..RawRecord::default()
        };
        builder.push_content(record, Content::HtmlBytes(bytes), Location::Row(i + 1))?;
    }
    Ok(builder.finish())
}
