//! The persistent index as a crawler uses it: build from originals, ingest
//! reprints, survive being killed mid-ingest, filter fetched URLs (embedded
//! and in a real Redis).

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{neardup, neardup_with_stdin};

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
    let o = neardup(&["index", "build", "orig.jsonl", "-o", "idx"], dir.path());
    assert!(o.status.success(), "{}", text(&o.stderr));

    let o = neardup_with_stdin(
        &["ingest", "idx", "--batch", "7"],
        dir.path(),
        &dir.path().join("rest.jsonl"),
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
    let o = neardup_with_stdin(
        &["ingest", "idx"],
        dir.path(),
        &dir.path().join("rest.jsonl"),
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
    let o = neardup(&["index", "query", "idx", "page.html"], dir.path());
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
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let many = many_pages(dir.path(), 12);
    for kill_after in [3, 40, 150, 400] {
        let mut child: Child = common::command(dir.path())
            .args(["ingest", "idx", "--batch", "5"])
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
        let o = neardup_with_stdin(
            &["index", "query", "idx", "-"],
            dir.path(),
            &dir.path().join("seed.jsonl"),
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
    let o = neardup_with_stdin(&["ingest", "idx", "--batch", "50"], dir.path(), &many);
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
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir.path());
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
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "108"],
        dir.path(),
        &dir.path().join("batch.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    assert_eq!(out.last().unwrap()["status"], "seen_url", "{out:?}");
    assert_eq!(out.iter().filter(|s| s["status"] == "seen_url").count(), 1);
    // The set persists with the index: the whole batch is seen next time.
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "108"],
        dir.path(),
        &dir.path().join("batch.jsonl"),
    );
    let out = statuses(&o.stdout);
    assert!(out.iter().all(|s| s["status"] == "seen_url"), "{out:?}");
    // Another job has its own set.
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "109"],
        dir.path(),
        &dir.path().join("batch.jsonl"),
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
            // Straight to the terminal: the test harness captures
            // eprintln! of passing tests, and a skip must be seen.
            let _ = writeln!(
                std::io::stderr(),
                "SKIPPED: redis-server is not installed (set NEARDUP_REQUIRE_REDIS to fail instead)"
            );
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
fn redis_backend_keeps_job_hashes_with_a_ttl_and_fails_clearly_requires_redis() {
    let Some(mut server) = RedisServer::start() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..5]);
    write_jsonl(&dir.path().join("batch.jsonl"), &records[5..12]);
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let url = server.url();
    let args = [
        "ingest", "idx", "--job", "108", "--ttl", "600", "--redis", &url,
    ];
    let o = neardup_with_stdin(&args, dir.path(), &dir.path().join("batch.jsonl"));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(statuses(&o.stdout)
        .iter()
        .all(|s| s["status"] != "seen_url"));
    let o = neardup_with_stdin(&args, dir.path(), &dir.path().join("batch.jsonl"));
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
    let o = neardup_with_stdin(&args, dir.path(), &dir.path().join("batch.jsonl"));
    // The server's failure, not bad input.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.starts_with("error: redis redis://127.0.0.1:"), "{e}");
    assert!(e.contains("refused"), "{e}");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn bad_input_to_the_index_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let records = demo_records();
    write_jsonl(&dir.path().join("seed.jsonl"), &records[..3]);
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir.path());
    assert!(o.status.success(), "{}", text(&o.stderr));

    // A broken line on stdin under --strict: exit 2, the line named, no
    // panic; the page before it was judged, committed and reported.
    let mut feed = std::fs::File::create(dir.path().join("feed.jsonl")).unwrap();
    writeln!(feed, "{}", records[5]).unwrap();
    writeln!(feed, "{{\"id\": \"x\", \"html\": }}").unwrap();
    writeln!(feed, "{}", records[6]).unwrap();
    drop(feed);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--strict"],
        dir.path(),
        &dir.path().join("feed.jsonl"),
    );
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(e.starts_with("error: <stdin>:2: malformed JSON"), "{e}");
    assert!(!e.contains("panicked"));
    let out = statuses(&o.stdout);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], records[5]["id"]);

    // A malformed URL is reported on its page's line; the page is still
    // judged by content.
    let mut bad = records[6].clone();
    bad["url"] = "not a url at all".into();
    write_jsonl(&dir.path().join("bad.jsonl"), &[bad]);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "1"],
        dir.path(),
        &dir.path().join("bad.jsonl"),
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
    let o = neardup_with_stdin(
        &["index", "query", "idx", "-"],
        dir.path(),
        &dir.path().join("seed.jsonl"),
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
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("layout `4z4`"),
        "{}",
        text(&o.stderr)
    );
}

/// Builds `idx` in `dir` from the first 20 demo pages.
fn seed_index(dir: &Path) {
    write_jsonl(&dir.join("seed.jsonl"), &demo_records()[..20]);
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Each page of `feed` as `index query` sees it: (id, has text, ids of
/// the stored pages found).
fn stored(dir: &Path, feed: &Path) -> Vec<(String, bool, Vec<String>)> {
    let o = neardup_with_stdin(&["index", "query", "idx", "-"], dir, feed);
    assert!(o.status.success(), "{}", text(&o.stderr));
    statuses(&o.stdout)
        .iter()
        .map(|q| {
            let found = q["matches"].as_array().unwrap();
            (
                q["id"].as_str().unwrap().to_string(),
                !q["fingerprint"].is_null(),
                found
                    .iter()
                    .map(|m| m["id"].as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// Kills ingest (SIGKILL, from inside, through `NEARDUP_FAIL_AT`) at every
/// step of a commit, the second commit and the eighth (which merges the
/// segments); then the index must open, hold every page printed `new`,
/// clear the debris and take the whole feed again, and in the end hold
/// every page of the feed (or a near copy): none lost to a URL marked seen
/// too early.
fn kill_at_every_commit_step(redis: Option<&str>) {
    let steps = [
        ("segment-file", [2, 8]),
        ("segment-synced", [2, 8]),
        ("segment-renamed", [2, 8]),
        ("manifest.json-written", [2, 8]),
        ("manifest.json-renamed", [2, 8]),
        ("debris-removed", [1, 2]),
        ("urls-marked", [2, 8]),
        ("urls.json-written", [2, 8]),
        ("urls.json-renamed", [2, 8]),
    ];
    // One seed index, copied for each kill; 80 pages, some 10 commits of 5.
    let base = tempfile::tempdir().unwrap();
    seed_index(base.path());
    let many = std::fs::read_to_string(many_pages(base.path(), 1)).unwrap();
    let lines: Vec<&str> = many.lines().take(80).collect();
    std::fs::write(base.path().join("feed.jsonl"), lines.join("\n")).unwrap();
    for (step, occurrences) in steps {
        if redis.is_some() && step.starts_with("urls.json") {
            continue;
        }
        for n in occurrences {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("idx")).unwrap();
            for entry in std::fs::read_dir(base.path().join("idx"))
                .unwrap()
                .flatten()
            {
                let to = dir.path().join("idx").join(entry.file_name());
                if entry.path().is_dir() {
                    std::fs::create_dir(&to).unwrap();
                    for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
                        std::fs::copy(file.path(), to.join(file.file_name())).unwrap();
                    }
                } else {
                    std::fs::copy(entry.path(), to).unwrap();
                }
            }
            let feed = dir.path().join("feed.jsonl");
            std::fs::copy(base.path().join("feed.jsonl"), &feed).unwrap();
            let job = format!("{step}-{n}");
            let mut args = vec!["ingest", "idx", "--batch", "5", "--job", &job];
            if let Some(url) = redis {
                args.extend(["--redis", url]);
            }
            let o = common::command(dir.path())
                .args(&args)
                .env("NEARDUP_FAIL_AT", format!("{step}@{n}"))
                .stdin(std::fs::File::open(&feed).unwrap())
                .output()
                .unwrap();
            let at = format!("killed at {step}@{n}");
            assert!(!o.status.success(), "not {at}: {}", text(&o.stderr));
            assert!(text(&o.stderr).contains(&at), "{}", text(&o.stderr));
            let printed = statuses(&o.stdout);
            let found = stored(dir.path(), &feed);
            for line in printed.iter().filter(|s| s["status"] == "new") {
                let id = line["id"].as_str().unwrap();
                assert!(
                    found.iter().any(|(_, _, m)| m.iter().any(|m| m == id)),
                    "{at}: {id} was printed new but is not stored"
                );
            }
            let o = neardup_with_stdin(&args, dir.path(), &feed);
            assert!(o.status.success(), "{at}, then: {}", text(&o.stderr));
            let again = statuses(&o.stdout);
            assert_eq!(again.len(), lines.len(), "{at}: {again:?}");
            for (id, has_text, matches) in stored(dir.path(), &feed) {
                assert!(!has_text || !matches.is_empty(), "{at}: {id} was lost");
            }
        }
    }
}

#[test]
fn a_kill_at_any_commit_step_loses_no_page() {
    kill_at_every_commit_step(None);
}

#[test]
fn a_kill_at_any_commit_step_loses_no_page_with_redis_requires_redis() {
    let Some(server) = RedisServer::start() else {
        return;
    };
    kill_at_every_commit_step(Some(&server.url()));
}

#[test]
fn two_ingests_started_together_take_turns_or_one_refuses() {
    let dir = tempfile::tempdir().unwrap();
    seed_index(dir.path());
    let feed = many_pages(dir.path(), 2);
    let spawn = |extra: &[&str]| {
        common::command(dir.path())
            .args(["ingest", "idx", "--batch", "20"])
            .args(extra)
            .stdin(std::fs::File::open(&feed).unwrap())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // With --wait both finish, one after the other.
    let (a, b) = (spawn(&["--wait"]), spawn(&["--wait"]));
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert!(b.status.success(), "{}", text(&b.stderr));
    // The second saw everything the first stored: no page is new twice.
    let new = |o: &Output| {
        statuses(&o.stdout)
            .into_iter()
            .filter(|s| s["status"] == "new")
            .count()
    };
    assert!(new(&a) == 0 || new(&b) == 0, "{} and {}", new(&a), new(&b));
    // Without it, one may refuse, clearly.
    let (a, b) = (spawn(&[]), spawn(&[]));
    for o in [a.wait_with_output().unwrap(), b.wait_with_output().unwrap()] {
        if !o.status.success() {
            assert_eq!(o.status.code(), Some(1));
            let e = text(&o.stderr);
            assert!(e.contains("another neardup process is writing"), "{e}");
            assert!(o.stdout.is_empty());
        }
    }
    for (id, has_text, matches) in stored(dir.path(), &feed) {
        assert!(!has_text || !matches.is_empty(), "{id} was lost");
    }
    // The refusal itself, while a writer holds the lock.
    let mut holder = common::command(dir.path())
        .args(["ingest", "idx"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // It holds the lock once our own try fails.
    let lock = std::fs::File::open(dir.path().join("idx/lock")).unwrap();
    let started = Instant::now();
    while lock.try_lock().is_ok() {
        lock.unlock().unwrap();
        assert!(started.elapsed() < Duration::from_secs(120), "never locked");
        std::thread::sleep(Duration::from_millis(20));
    }
    let refused = neardup_with_stdin(&["ingest", "idx"], dir.path(), &feed);
    assert_eq!(refused.status.code(), Some(1));
    let e = text(&refused.stderr);
    assert!(e.contains("another neardup process is writing"), "{e}");
    assert!(e.contains("--wait"), "{e}");
    drop(holder.stdin.take());
    assert!(holder.wait().unwrap().success());
}

#[test]
fn damaged_index_files_are_errors_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    seed_index(dir.path());
    let seg = dir.path().join("idx/seg-000001");
    for file in [
        "fingerprints.bin",
        "permuted.bin",
        "order.bin",
        "ids.bin",
        "ids.offsets",
    ] {
        let path = seg.join(file);
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x5a;
        for bad in [good[..good.len() - 3].to_vec(), flipped] {
            std::fs::write(&path, &bad).unwrap();
            let o = neardup_with_stdin(
                &["index", "query", "idx", "-"],
                dir.path(),
                &dir.path().join("seed.jsonl"),
            );
            let e = text(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{file}: {e}");
            assert!(e.starts_with("error: ") && e.contains(file), "{file}: {e}");
            assert!(o.stdout.is_empty(), "{file}: answered from a damaged index");
        }
        std::fs::write(&path, &good).unwrap();
    }
    let o = neardup_with_stdin(
        &["index", "query", "idx", "-"],
        dir.path(),
        &dir.path().join("seed.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn every_input_line_gets_one_output_line() {
    let dir = tempfile::tempdir().unwrap();
    seed_index(dir.path());
    let records = demo_records();
    let mut empty = records[30].clone();
    empty["id"] = "empty".into();
    empty["html"] = "".into();
    let mut no_html = records[31].clone();
    no_html.as_object_mut().unwrap().remove("html");
    let lines = [
        records[25].to_string(),
        "{\"id\": \"x\", \"html\": }".to_string(),
        no_html.to_string(),
        empty.to_string(),
        records[25].to_string(), // its id again
        records[26].to_string(),
    ];
    std::fs::write(dir.path().join("feed.jsonl"), lines.join("\n")).unwrap();
    let o = neardup_with_stdin(
        &["ingest", "idx", "--batch", "2"],
        dir.path(),
        &dir.path().join("feed.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    let got: Vec<(u64, &str)> = out
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    let judged = |s: &str| s == "new" || s == "duplicate";
    assert_eq!(got.len(), 6, "{out:?}");
    assert!(
        got.iter().enumerate().all(|(i, g)| g.0 == i as u64 + 1),
        "{got:?}"
    );
    assert!(judged(got[0].1) && judged(got[5].1), "{got:?}");
    assert_eq!(got[1].1, "error");
    assert!(out[1]["error"].as_str().unwrap().contains("malformed JSON"));
    assert_eq!(got[2].1, "error");
    assert!(
        out[2]["error"].as_str().unwrap().contains("html"),
        "{out:?}"
    );
    assert_eq!(
        (got[3].1, out[3]["id"].as_str()),
        ("no_text", Some("empty"))
    );
    assert_eq!(got[4].1, "error");
    assert!(out[4]["error"].as_str().unwrap().contains("duplicate id"));
}

#[test]
fn a_redis_timeout_is_the_servers_failure_not_bad_input() {
    // A server that accepts and never answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            held.push(stream);
        }
    });
    let dir = tempfile::tempdir().unwrap();
    seed_index(dir.path());
    let url = format!("redis://127.0.0.1:{port}/");
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "1", "--redis", &url],
        dir.path(),
        &dir.path().join("seed.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("timed out"), "{e}");
    assert!(!e.contains("temporarily unavailable"), "{e}");
}
