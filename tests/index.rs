//! The persistent index as a crawler uses it: build from originals, ingest
//! reprints, survive being killed mid-ingest, filter fetched URLs (embedded
//! and in a real Redis).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn neardup(args: &[&str], cwd: &Path, stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_neardup"));
    cmd.args(args).current_dir(cwd);
    if let Some(path) = stdin {
        cmd.stdin(std::fs::File::open(path).unwrap());
    }
    cmd.output().expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The demo corpus's records as JSON values.
fn demo_records() -> Vec<serde_json::Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/demo/demo.jsonl.gz");
    let mut raw = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut raw)
        .unwrap();
    raw.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_jsonl(path: &Path, records: &[serde_json::Value]) {
    let mut f = std::fs::File::create(path).unwrap();
    for r in records {
        writeln!(f, "{r}").unwrap();
    }
}

fn statuses(stdout: &[u8]) -> Vec<serde_json::Value> {
    text(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn ingested_reprints_are_flagged_with_their_originals() {
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    let cluster: HashMap<String, String> = records
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().into(),
                r["cluster"].as_str().unwrap().into(),
            )
        })
        .collect();
    let (originals, rest): (Vec<_>, Vec<_>) = records
        .into_iter()
        .partition(|r| r["kind"] == "original" || r["kind"] == "unique");
    write_jsonl(&dir.path().join("orig.jsonl"), &originals);
    write_jsonl(&dir.path().join("rest.jsonl"), &rest);
    let o = neardup(
        &["index", "build", "orig.jsonl", "-o", "idx"],
        dir.path(),
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));

    let o = neardup(
        &["ingest", "idx", "--batch", "7"],
        dir.path(),
        Some(&dir.path().join("rest.jsonl")),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    assert_eq!(out.len(), rest.len());
    let flagged: Vec<&serde_json::Value> =
        out.iter().filter(|s| s["status"] == "duplicate").collect();
    assert!(flagged.len() >= 10, "{out:?}");
    for s in &flagged {
        let (id, of) = (s["id"].as_str().unwrap(), s["of"].as_str().unwrap());
        assert_eq!(cluster[id], cluster[of], "{s}");
        assert!(s["distance"].as_u64().unwrap() <= 3);
    }
    // Ingesting the same pages again: every one with text is now stored
    // or a duplicate of a stored page.
    let o = neardup(
        &["ingest", "idx"],
        dir.path(),
        Some(&dir.path().join("rest.jsonl")),
    );
    let again = statuses(&o.stdout);
    assert!(again.iter().all(|s| s["status"] != "new"), "{again:?}");

    // Query by file: an original's own HTML finds itself at distance 0.
    let first = &originals[0];
    std::fs::write(
        dir.path().join("page.html"),
        first["html"].as_str().unwrap(),
    )
    .unwrap();
    let o = neardup(&["index", "query", "idx", "page.html"], dir.path(), None);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let q = statuses(&o.stdout);
    assert_eq!(q[0]["matches"][0]["id"], first["id"]);
    assert_eq!(q[0]["matches"][0]["distance"], 0);
}

/// Many distinct pages: demo texts with a numbered paragraph appended.
fn many_pages(dir: &Path, copies: usize) -> PathBuf {
    let records = demo_records();
    let mut out = Vec::new();
    for c in 0..copies {
        for r in &records {
            let mut r = r.clone();
            let id = format!("{}-copy{c}", r["id"].as_str().unwrap());
            let html = r["html"].as_str().unwrap().replace(
                "</body>",
                &format!(
                    "<p>copy {c} {} unique words here to move the fingerprint {c}</p></body>",
                    id
                ),
            );
            r["id"] = id.into();
            r["html"] = html.into();
            out.push(r);
        }
    }
    let path = dir.join("many.jsonl");
    write_jsonl(&path, &out);
    path
}

#[test]
fn killing_ingest_leaves_a_usable_index() {
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..20]);
    let o = neardup(
        &["index", "build", "seed.jsonl", "-o", "idx"],
        dir.path(),
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let many = many_pages(dir.path(), 12);
    for kill_after in [3, 40, 150, 400] {
        let mut child: Child = Command::new(env!("CARGO_BIN_EXE_neardup"))
            .args(["ingest", "idx", "--batch", "5"])
            .current_dir(dir.path())
            .stdin(std::fs::File::open(&many).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        for _ in 0..kill_after {
            if lines.next().is_none() {
                break;
            }
        }
        child.kill().unwrap(); // SIGKILL: no chance to tidy up
        child.wait().unwrap();
        // The index opens, answers queries and takes more pages.
        let o = neardup(
            &["index", "query", "idx", "-"],
            dir.path(),
            Some(&dir.path().join("seed.jsonl")),
        );
        assert!(
            o.status.success(),
            "after kill at {kill_after}: {}",
            text(&o.stderr)
        );
        let found = statuses(&o.stdout);
        assert!(
            found
                .iter()
                .all(|s| s["matches"].as_array().is_some_and(|m| !m.is_empty())
                    || s["fingerprint"].is_null()),
            "seed pages must still be found: {found:?}"
        );
    }
    let o = neardup(&["ingest", "idx", "--batch", "50"], dir.path(), Some(&many));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("idx/manifest.json")).unwrap())
            .unwrap();
    let named: Vec<String> = manifest["segments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    // No debris survives a clean commit: every folder is named.
    for entry in std::fs::read_dir(dir.path().join("idx")).unwrap().flatten() {
        if entry.path().is_dir() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(named.contains(&name), "{name} left behind");
        }
    }
}

#[test]
fn embedded_url_filter_skips_fetched_urls() {
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..5]);
    let o = neardup(
        &["index", "build", "seed.jsonl", "-o", "idx"],
        dir.path(),
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut batch = records[5..15].to_vec();
    // The same article again under a tracking parameter and another case.
    let mut again = batch[0].clone();
    again["id"] = "again".into();
    let url = again["url"].as_str().unwrap().to_string();
    again["url"] = url
        .replacen("http", "HTTP", 1)
        .replace(".example", ".EXAMPLE")
        .to_string()
        .into();
    again["url"] = format!(
        "{}?utm_source=feed#comments",
        again["url"].as_str().unwrap()
    )
    .into();
    batch.push(again);
    write_jsonl(&dir.path().join("batch.jsonl"), &batch);
    let o = neardup(
        &["ingest", "idx", "--job", "108"],
        dir.path(),
        Some(&dir.path().join("batch.jsonl")),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    assert_eq!(out.last().unwrap()["status"], "seen_url", "{out:?}");
    assert_eq!(out.iter().filter(|s| s["status"] == "seen_url").count(), 1);
    // The set persists with the index: the whole batch is seen next time.
    let o = neardup(
        &["ingest", "idx", "--job", "108"],
        dir.path(),
        Some(&dir.path().join("batch.jsonl")),
    );
    let out = statuses(&o.stdout);
    assert!(out.iter().all(|s| s["status"] == "seen_url"), "{out:?}");
    // Another job has its own set.
    let o = neardup(
        &["ingest", "idx", "--job", "109"],
        dir.path(),
        Some(&dir.path().join("batch.jsonl")),
    );
    let out = statuses(&o.stdout);
    assert_eq!(out.iter().filter(|s| s["status"] == "seen_url").count(), 1);
}

/// A redis-server of our own on a free loopback port, stopped on drop.
struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    fn start() -> Option<RedisServer> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let binary = std::env::split_paths(&path)
            .map(|dir| dir.join("redis-server"))
            .find(|p| p.is_file());
        let Some(binary) = binary else {
            assert!(
                std::env::var_os("NEARDUP_REQUIRE_REDIS").is_none(),
                "redis-server is not installed (.ci/run installs it)"
            );
            eprintln!("redis-server is not installed: skipping (set NEARDUP_REQUIRE_REDIS to fail instead)");
            return None;
        };
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(binary)
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "redis-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(RedisServer { child, port })
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn redis_backend_keeps_job_hashes_with_a_ttl_and_fails_clearly() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..5]);
    write_jsonl(&dir.path().join("batch.jsonl"), &records[5..12]);
    let o = neardup(
        &["index", "build", "seed.jsonl", "-o", "idx"],
        dir.path(),
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let url = server.url();
    let args = [
        "ingest", "idx", "--job", "108", "--ttl", "600", "--redis", &url,
    ];
    let o = neardup(&args, dir.path(), Some(&dir.path().join("batch.jsonl")));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(statuses(&o.stdout)
        .iter()
        .all(|s| s["status"] != "seen_url"));
    let o = neardup(&args, dir.path(), Some(&dir.path().join("batch.jsonl")));
    assert!(statuses(&o.stdout)
        .iter()
        .all(|s| s["status"] == "seen_url"));

    // Seed 003's layout: a hash job_108 of the URLs, expiring.
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client.get_connection().unwrap();
    let fields: i64 = redis::cmd("HLEN").arg("job_108").query(&mut conn).unwrap();
    assert_eq!(fields, 7);
    let ttl: i64 = redis::cmd("TTL").arg("job_108").query(&mut conn).unwrap();
    assert!(ttl > 0 && ttl <= 600, "{ttl}");

    // A server that goes away is a clear error, not a hang.
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    let started = Instant::now();
    let o = neardup(&args, dir.path(), Some(&dir.path().join("batch.jsonl")));
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.starts_with("error: redis redis://127.0.0.1:"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn bad_input_to_the_index_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..3]);
    let o = neardup(
        &["index", "build", "seed.jsonl", "-o", "idx"],
        dir.path(),
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));

    // A broken line on stdin: exit 2, the line named, no panic; the pages
    // before it were judged.
    let mut feed = std::fs::File::create(dir.path().join("feed.jsonl")).unwrap();
    writeln!(feed, "{}", records[5]).unwrap();
    writeln!(feed, "{{\"id\": \"x\", \"html\": }}").unwrap();
    drop(feed);
    let o = neardup(
        &["ingest", "idx"],
        dir.path(),
        Some(&dir.path().join("feed.jsonl")),
    );
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.starts_with("error: <stdin>:2: malformed JSON"), "{e}");
    assert!(!e.contains("panicked"));

    // A malformed URL is reported on its page's line; the page is still
    // judged by content.
    let mut bad = records[6].clone();
    bad["url"] = "not a url at all".into();
    write_jsonl(&dir.path().join("bad.jsonl"), &[bad]);
    let o = neardup(
        &["ingest", "idx", "--job", "1"],
        dir.path(),
        Some(&dir.path().join("bad.jsonl")),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    assert_eq!(out.len(), 1);
    let url_error = out[0]["url_error"]
        .as_str()
        .unwrap_or_else(|| panic!("{out:?}"));
    assert!(url_error.contains("not a url at all"), "{out:?}");
    assert!(out[0]["status"] == "new" || out[0]["status"] == "duplicate");

    // A damaged manifest is named, not a panic.
    std::fs::write(dir.path().join("idx/manifest.json"), b"{\"format\": 1, ").unwrap();
    let o = neardup(
        &["index", "query", "idx", "-"],
        dir.path(),
        Some(&dir.path().join("seed.jsonl")),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("manifest.json: not an index manifest"),
        "{}",
        text(&o.stderr)
    );
    let o = neardup(
        &["index", "build", "seed.jsonl", "-o", "x", "--layout", "4z4"],
        dir.path(),
        None,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("layout `4z4`"),
        "{}",
        text(&o.stderr)
    );
}
