//! Every validation error of the corpus reader, with the file, line or row,
//! and field it must name.

use std::io::Write;
use std::path::{Path, PathBuf};

use neardup::corpus::{
    read_corpus, write_corpus, Content, CorpusError, Lang, Page, Published, ReadOptions,
};

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn err(path: &Path) -> String {
    match read_corpus(path, ReadOptions::default()) {
        Ok(c) => panic!("expected an error, read {} pages", c.len()),
        Err(e) => e.to_string(),
    }
}

const GOOD: &str = r#"{"id": "a", "cluster": "x", "text": "one"}"#;

fn lines(rows: &[&str]) -> Vec<u8> {
    rows.join("\n").into_bytes()
}

#[test]
fn reads_all_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "c.jsonl",
        &lines(&[
            r#"{"id": "a", "cluster": "x", "html": "<p>one</p>", "title": "T", "url": "http://a", "published": 5, "category": "news", "kind": "original", "lang": "zh", "extra": [1]}"#,
            "",
            r#"{"id": 7, "cluster": 9, "text": "two", "published": "2024-01-01"}"#,
        ]),
    );
    let c = read_corpus(&path, ReadOptions::default()).unwrap();
    assert_eq!(c.len(), 2);
    let a = &c.pages[0];
    assert_eq!(a.content, Content::Html("<p>one</p>".into()));
    assert_eq!(a.published, Some(Published::Int(5)));
    assert_eq!(a.lang, Some(Lang::Zh));
    assert_eq!(a.slice(), "news/original");
    let b = &c.pages[1];
    assert_eq!((b.id.as_str(), b.cluster.as_str()), ("7", "9"));
    assert_eq!(b.published, Some(Published::Text("2024-01-01".into())));
    assert_eq!(b.slice(), "-/-");
}

#[test]
fn broken_json_names_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = vec![GOOD.replace("\"a\"", "\"a1\""); 6];
    for (i, r) in rows.iter_mut().enumerate() {
        *r = r.replace("a1", &format!("a{i}"));
    }
    rows.push(r#"{"id": "b", "cluster": "x", "text": "unterminated}"#.into());
    let rows: Vec<&str> = rows.iter().map(String::as_str).collect();
    let path = write(dir.path(), "broken.jsonl", &lines(&rows));
    let e = err(&path);
    assert!(
        e.starts_with(&format!("{}:7: malformed JSON", path.display())),
        "{e}"
    );
}

#[test]
fn duplicate_id_names_both_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "d.jsonl", &lines(&[GOOD, GOOD]));
    let e = err(&path);
    assert!(
        e.contains("d.jsonl:2: field `id`: duplicate id `a` (first seen at line 1)"),
        "{e}"
    );
}

#[test]
fn missing_cluster_is_an_error_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "m.jsonl",
        &lines(&[GOOD, r#"{"id": "b", "text": "two"}"#]),
    );
    let e = err(&path);
    assert!(e.contains("m.jsonl:2: field `cluster`: is missing"), "{e}");
    let c = read_corpus(
        &path,
        ReadOptions {
            require_cluster: false,
            prefer_text: false,
        },
    )
    .unwrap();
    assert_eq!((c.len(), c.unlabelled), (2, 1));
    assert_ne!(c.pages[1].cluster, c.pages[0].cluster);
}

#[test]
fn neither_html_nor_text_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "n.jsonl",
        &lines(&[r#"{"id": "a", "cluster": "x", "title": "t"}"#]),
    );
    let e = err(&path);
    assert!(e.contains("n.jsonl:1: field `html/text`"), "{e}");
}

#[test]
fn bytes_that_are_not_utf8_name_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = lines(&[GOOD, ""]);
    bytes.extend_from_slice(
        b"{\"id\": \"b\", \"cluster\": \"x\", \"html\": \"<p>\xd6\xd0\xce\xc4</p>\"}\n",
    );
    let path = write(dir.path(), "gbk.jsonl", &bytes);
    let e = err(&path);
    assert!(
        e.contains("gbk.jsonl:2: field `html`: bytes are not valid UTF-8"),
        "{e}"
    );
}

#[test]
fn wrong_types_and_unknown_languages_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "t.jsonl",
        &lines(&[r#"{"id": "a", "cluster": "x", "text": 5}"#]),
    );
    assert!(err(&path).contains(":1: field `text`: expected a string, found a number"));
    let path = write(
        dir.path(),
        "l.jsonl",
        &lines(&[r#"{"id": "a", "cluster": "x", "text": "t", "lang": "klingon"}"#]),
    );
    assert!(err(&path).contains(":1: field `lang`: unknown language `klingon`"));
    let path = write(dir.path(), "o.jsonl", &lines(&["[1, 2]"]));
    assert!(err(&path).contains(":1: expected a JSON object per line"));
}

#[test]
fn empty_documents_are_counted_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "e.jsonl",
        &lines(&[
            GOOD,
            r#"{"id": "b", "cluster": "y", "text": "  \n "}"#,
            r#"{"id": "c", "cluster": "z", "html": ""}"#,
        ]),
    );
    let c = read_corpus(&path, ReadOptions::default()).unwrap();
    assert_eq!((c.len(), c.skipped_empty), (1, 2));
}

#[test]
fn gzipped_jsonl_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&lines(&[
        GOOD,
        r#"{"id": "b", "cluster": "x", "text": "two"}"#,
    ]))
    .unwrap();
    let path = write(dir.path(), "g.jsonl.gz", &gz.finish().unwrap());
    assert_eq!(read_corpus(&path, ReadOptions::default()).unwrap().len(), 2);
    let path = write(dir.path(), "bad.jsonl.gz", b"\x1f\x8b\x08\x00garbage");
    assert!(err(&path).contains("bad gzip data"));
}

#[test]
fn csv_errors_name_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "c.csv", b"id,cluster,text\na,x,one\nb,,two\n");
    let e = err(&path);
    assert!(
        e.contains("c.csv: row 2: field `cluster`: is missing"),
        "{e}"
    );
    let path = write(
        dir.path(),
        "u.csv",
        b"id,cluster,text\na,x,one\nb,y,\xff\xfe\n",
    );
    let e = err(&path);
    assert!(e.contains("u.csv:3: bytes are not valid UTF-8"), "{e}");
    let path = write(
        dir.path(),
        "ok.csv",
        b"id,cluster,text,published\n1,x,\"one, quoted\",17\n",
    );
    let c = read_corpus(&path, ReadOptions::default()).unwrap();
    assert_eq!(c.pages[0].content, Content::Text("one, quoted".into()));
    assert_eq!(c.pages[0].published, Some(Published::Int(17)));
}

#[test]
fn corpora_round_trip_through_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let pages = vec![
        Page {
            id: "a".into(),
            cluster: "x".into(),
            content: Content::Html("<p>中文</p>".into()),
            title: Some("T".into()),
            url: None,
            published: Some(Published::Int(3)),
            category: Some("news".into()),
            kind: Some("full".into()),
            lang: Some(Lang::Zh),
            op: None,
        },
        Page {
            id: "b".into(),
            cluster: "x".into(),
            content: Content::Text("text".into()),
            title: None,
            url: Some("http://b".into()),
            published: None,
            category: None,
            kind: None,
            lang: None,
            op: None,
        },
    ];
    for name in ["o.jsonl", "o.jsonl.gz", "o.csv", "o.parquet"] {
        let path = dir.path().join(name);
        write_corpus(&pages, &path).unwrap();
        let back = read_corpus(&path, ReadOptions::default()).unwrap();
        assert_eq!(back.pages, pages, "{name}");
    }
}

#[test]
fn unreadable_and_unknown_files_are_errors() {
    let e = read_corpus(Path::new("/nonexistent/x.jsonl"), ReadOptions::default()).unwrap_err();
    assert!(matches!(e, CorpusError::Io { .. }));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "x.txt", b"hello");
    assert!(err(&path).contains("unknown corpus format"));
    let path = write(dir.path(), "x.parquet", b"not parquet at all");
    assert!(err(&path).starts_with(&path.display().to_string()));
}

#[test]
fn raw_html_bytes_come_as_base64_or_as_a_folder() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    let (gbk, _, _) = encoding_rs::GBK.encode("<p>中文网页</p>");
    let encoded = base64::engine::general_purpose::STANDARD.encode(&gbk);
    let path = write(
        dir.path(),
        "b.jsonl",
        &lines(&[&format!(
            r#"{{"id": "a", "cluster": "x", "html_base64": "{encoded}"}}"#
        )]),
    );
    let c = read_corpus(&path, ReadOptions::default()).unwrap();
    assert_eq!(c.pages[0].content, Content::HtmlBytes(gbk.to_vec()));
    let path = write(
        dir.path(),
        "bad.jsonl",
        &lines(&[r#"{"id": "a", "cluster": "x", "html_base64": "%%%"}"#]),
    );
    assert!(err(&path).contains(":1: field `html_base64`: not valid base64"));

    let pages = dir.path().join("pages");
    std::fs::create_dir_all(pages.join("sub")).unwrap();
    std::fs::write(pages.join("one.html"), &gbk[..]).unwrap();
    std::fs::write(pages.join("sub/two.htm"), b"<p>two</p>").unwrap();
    std::fs::write(pages.join("notes.txt"), b"not a page").unwrap();
    let c = read_corpus(
        &pages,
        ReadOptions {
            require_cluster: false,
            prefer_text: false,
        },
    )
    .unwrap();
    let ids: Vec<&str> = c.pages.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["one.html", "sub/two.htm"]);
    assert!(read_corpus(&pages, ReadOptions::default())
        .unwrap_err()
        .to_string()
        .contains("no labels"));
}

#[test]
fn language_tags_beyond_zh_and_en_are_kept() {
    assert_eq!(Lang::parse("zh-CN"), Some(Lang::Zh));
    assert_eq!(Lang::parse("en_US"), Some(Lang::En));
    assert_eq!(
        Lang::parse("pt-BR")
            .map(|l| l.code().to_string())
            .as_deref(),
        Some("pt")
    );
    assert_eq!(
        Lang::parse("ko").map(|l| l.code().to_string()).as_deref(),
        Some("ko")
    );
    for bad in ["klingon", "", "x", "e1", "en-", "zh-toolongsubtag"] {
        assert_eq!(Lang::parse(bad), None, "{bad}");
    }
}

#[test]
fn ragged_csv_rows_are_named_with_their_row() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(
        dir.path(),
        "r.csv",
        b"id,cluster,text\na,x,one\nb,y,\"two, quoted\nover lines\"\nc,z,three,extra\n",
    );
    let e = err(&path);
    assert!(e.starts_with(&format!("{}: row 3:", path.display())), "{e}");
    assert!(
        e.contains("4 fields where the header names 3 columns"),
        "{e}"
    );
    assert!(e.contains("(line 5)"), "{e}");
    assert!(!e.contains("truncate_ragged_lines"), "{e}");
    let path = write(dir.path(), "s.csv", b"id,cluster,text\na,x,one\nb,y\n");
    let e = err(&path);
    assert!(e.contains("s.csv: row 2: field `text`: missing"), "{e}");
    // CRLF and a last line without a newline are fine.
    let path = write(
        dir.path(),
        "ok.csv",
        b"id,cluster,text\r\na,x,one\r\nb,x,two",
    );
    assert_eq!(read_corpus(&path, ReadOptions::default()).unwrap().len(), 2);
}

fn write_parquet(dir: &Path, name: &str, columns: Vec<polars::prelude::Column>) -> PathBuf {
    use polars::prelude::*;
    let mut df = DataFrame::new_infer_height(columns).unwrap();
    let path = dir.join(name);
    ParquetWriter::new(std::fs::File::create(&path).unwrap())
        .finish(&mut df)
        .unwrap();
    path
}

#[test]
fn parquet_columns_of_the_wrong_type_are_named() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let ids = || Column::new("id".into(), &["a", "b"]);
    let clusters = || Column::new("cluster".into(), &["x", "x"]);
    // An integer html column is not text "0", "1".
    let path = write_parquet(
        dir.path(),
        "i.parquet",
        vec![ids(), clusters(), Column::new("html".into(), &[0i64, 1])],
    );
    let e = err(&path);
    assert!(
        e.contains("i.parquet: row 1: field `html`: the column holds i64, expected a string"),
        "{e}"
    );
    let path = write_parquet(
        dir.path(),
        "t.parquet",
        vec![
            ids(),
            clusters(),
            Column::new("text".into(), &[1.5f64, 2.5]),
        ],
    );
    assert!(err(&path).contains("field `text`: the column holds f64"));
    // A list column: named, not polars' "cannot cast List type".
    let lists = Series::new(
        "title".into(),
        &[
            Series::new("".into(), &["a", "b"]),
            Series::new("".into(), &["c"]),
        ],
    );
    let path = write_parquet(
        dir.path(),
        "l.parquet",
        vec![
            ids(),
            clusters(),
            Column::new("text".into(), &["one", "two"]),
            lists.into(),
        ],
    );
    let e = err(&path);
    assert!(e.contains("field `title`: the column holds list"), "{e}");
    assert!(!e.contains("cannot cast"), "{e}");
    // Integer ids and clusters stay fine.
    let path = write_parquet(
        dir.path(),
        "ok.parquet",
        vec![
            Column::new("id".into(), &[1i64, 2]),
            Column::new("cluster".into(), &[7i32, 7]),
            Column::new("text".into(), &["one", "two"]),
        ],
    );
    let c = read_corpus(&path, ReadOptions::default()).unwrap();
    assert_eq!(
        (c.pages[1].id.as_str(), c.pages[1].cluster.as_str()),
        ("2", "7")
    );
}
