//! Faults found in use, each made again: a damaged or restored index
//! manifest, a manifest without checksums, a folder where a file belongs,
//! a failed commit's temporary folder, an id sent again with other
//! content, a stalled Redis, queries racing a merge, pairs from elsewhere
//! that repeat or score off their scale, and outputs cut short by a full
//! disk.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{neardup, neardup_with_stdin};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn statuses(stdout: &[u8]) -> Vec<serde_json::Value> {
    text(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn write_jsonl(path: &Path, records: &[serde_json::Value]) {
    let mut f = std::fs::File::create(path).unwrap();
    for r in records {
        writeln!(f, "{r}").unwrap();
    }
}

/// `n` pages of made-up words, far apart (no two near copies), each with
/// its own id and URL.
fn distinct_pages(n: usize) -> Vec<serde_json::Value> {
    (0..n)
        .map(|i| {
            let mut state = (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            let mut word = || {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let mut w = (state >> 33) % 20_000;
                let mut s = String::new();
                for _ in 0..3 {
                    s.push((b'a' + (w % 26) as u8) as char);
                    w /= 26;
                }
                s + &w.to_string()
            };
            let paragraphs: Vec<String> = (0..4)
                .map(|_| {
                    let words: Vec<String> = (0..40).map(|_| word()).collect();
                    format!("<p>{}.</p>", words.join(" "))
                })
                .collect();
            let id = format!("page-{i}");
            serde_json::json!({
                "id": id,
                "url": format!("https://example.org/faults/{id}"),
                "html": format!(
                    "<html><head><title>{id}</title></head><body><article><h1>{id}</h1>{}</article></body></html>",
                    paragraphs.join("")
                ),
            })
        })
        .collect()
}

/// An index `idx` in `dir` of 20 pages, then `batches` ingested batches of
/// 5 more (a segment each); returns the feed of pages not yet ingested.
fn index_with_segments(dir: &Path, batches: usize) -> Vec<serde_json::Value> {
    let pages = distinct_pages(200);
    write_jsonl(&dir.join("seed.jsonl"), &pages[..20]);
    let o = neardup(&["index", "build", "seed.jsonl", "-o", "idx"], dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let fed = 20 + 5 * batches;
    write_jsonl(&dir.join("more.jsonl"), &pages[20..fed]);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--batch", "5"],
        dir,
        &dir.join("more.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    pages[fed..].to_vec()
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(snapshot(&path));
        } else if path.file_name().unwrap() != "lock" {
            files.push((path.clone(), std::fs::read(&path).unwrap()));
        }
    }
    files.sort();
    files
}

fn manifest(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("idx/manifest.json")).unwrap()).unwrap()
}

fn write_manifest(dir: &Path, manifest: &serde_json::Value) {
    std::fs::write(
        dir.join("idx/manifest.json"),
        serde_json::to_vec_pretty(manifest).unwrap(),
    )
    .unwrap();
}

#[test]
fn a_manifest_with_next_segment_too_low_is_refused_and_no_segment_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let rest = index_with_segments(dir.path(), 3);
    write_jsonl(&dir.path().join("feed.jsonl"), &rest[..10]);
    let mut m = manifest(dir.path());
    assert_eq!(m["segments"].as_array().unwrap().len(), 4, "{m}");
    // At the second segment's number: a commit would write over it.
    m["next_segment"] = 2.into();
    write_manifest(dir.path(), &m);
    let before = snapshot(&dir.path().join("idx"));
    for args in [&["ingest", "idx"][..], &["index", "query", "idx", "-"]] {
        let o = neardup_with_stdin(args, dir.path(), &dir.path().join("feed.jsonl"));
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
        assert!(
            e.contains("manifest.json") && e.contains("next_segment"),
            "{e}"
        );
        assert!(
            o.stdout.is_empty(),
            "{args:?} answered: {}",
            text(&o.stdout)
        );
    }
    assert!(
        snapshot(&dir.path().join("idx")) == before,
        "the index changed"
    );
}

#[test]
fn a_manifest_restored_from_an_older_copy_loses_no_newer_segment() {
    let dir = tempfile::tempdir().unwrap();
    let rest = index_with_segments(dir.path(), 1);
    let older = std::fs::read(dir.path().join("idx/manifest.json")).unwrap();
    write_jsonl(&dir.path().join("next.jsonl"), &rest[..5]);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--batch", "5"],
        dir.path(),
        &dir.path().join("next.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let newest = manifest(dir.path())["segments"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()["name"]
        .as_str()
        .unwrap()
        .to_string();
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(dir.path().join("idx/manifest.json"), &older).unwrap();
    let kept = snapshot(&dir.path().join("idx").join(&newest));
    write_jsonl(&dir.path().join("feed.jsonl"), &rest[5..15]);
    let o = neardup_with_stdin(
        &["ingest", "idx"],
        dir.path(),
        &dir.path().join("feed.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains(&newest) && e.contains("does not name"), "{e}");
    assert!(snapshot(&dir.path().join("idx").join(&newest)) == kept);
    let report = neardup::index::check(&dir.path().join("idx"));
    assert!(!report.is_sound());
    assert_eq!(report.foreign, [dir.path().join("idx").join(&newest)]);
}

#[test]
fn a_format_2_manifest_without_checksums_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    index_with_segments(dir.path(), 0);
    let mut m = manifest(dir.path());
    assert_eq!(m["format"], 2);
    m["segments"][0]["checksums"] = serde_json::json!({});
    write_manifest(dir.path(), &m);
    // An id damaged without changing its length: nothing but a checksum
    // tells.
    let name = m["segments"][0]["name"].as_str().unwrap().to_string();
    let ids = dir.path().join("idx").join(&name).join("ids.bin");
    let mut bytes = std::fs::read(&ids).unwrap();
    bytes[3] ^= 0x01;
    std::fs::write(&ids, &bytes).unwrap();
    let o = neardup_with_stdin(
        &["index", "query", "idx", "-"],
        dir.path(),
        &dir.path().join("seed.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("manifest.json") && e.contains("no checksum"),
        "{e}"
    );
    assert!(o.stdout.is_empty(), "answered: {}", text(&o.stdout));
}

#[test]
fn a_folder_in_place_of_an_index_file_is_bad_input_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    index_with_segments(dir.path(), 0);
    let name = manifest(dir.path())["segments"][0]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let file = dir.path().join("idx").join(&name).join("order.bin");
    std::fs::remove_file(&file).unwrap();
    std::fs::create_dir(&file).unwrap();
    let o = neardup_with_stdin(
        &["index", "query", "idx", "-"],
        dir.path(),
        &dir.path().join("seed.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("order.bin") && e.contains("not a regular file"),
        "{e}"
    );
    let report = neardup::index::check(&dir.path().join("idx"));
    assert_eq!(report.exit_code(), 2);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
}

#[test]
fn check_names_every_damaged_file_and_the_debris() {
    let dir = tempfile::tempdir().unwrap();
    index_with_segments(dir.path(), 2);
    let idx = dir.path().join("idx");
    let sound = neardup::index::check(&idx);
    assert!(sound.is_sound(), "{:?}", sound.problems);
    assert_eq!((sound.segments, sound.pages), (3, 30));
    assert_eq!(sound.exit_code(), 0);
    let m = manifest(dir.path());
    let damaged = [
        idx.join(m["segments"][0]["name"].as_str().unwrap())
            .join("permuted.bin"),
        idx.join(m["segments"][2]["name"].as_str().unwrap())
            .join("ids.bin"),
    ];
    for path in &damaged {
        let mut bytes = std::fs::read(path).unwrap();
        bytes[0] ^= 0xff;
        std::fs::write(path, &bytes).unwrap();
    }
    std::fs::create_dir(idx.join(".tmp-seg-000009-1")).unwrap();
    let report = neardup::index::check(&idx);
    assert_eq!(report.exit_code(), 2);
    let said: Vec<String> = report.problems.iter().map(|e| e.to_string()).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    for (path, said) in damaged.iter().zip(&said) {
        assert!(said.starts_with(&path.display().to_string()), "{said}");
        assert!(said.contains("checksum"), "{said}");
    }
    assert_eq!(report.debris, [idx.join(".tmp-seg-000009-1")]);
}

#[test]
fn a_failed_commit_leaves_no_temporary_folder() {
    let dir = tempfile::tempdir().unwrap();
    let rest = index_with_segments(dir.path(), 0);
    write_jsonl(&dir.path().join("feed.jsonl"), &rest[..100]);
    // No file may grow, as on a full disk: the segment's files fail to
    // write (EFBIG, its signal ignored).
    let o = common::shell(
        "ulimit -f 0; trap '' XFSZ; exec \"$NEARDUP\" ingest idx --batch 100 < feed.jsonl",
        dir.path(),
    )
    .output()
    .unwrap();
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains(".tmp-seg-"), "{e}");
    let left: Vec<String> = std::fs::read_dir(dir.path().join("idx"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // And the index still takes the pages.
    let o = neardup_with_stdin(
        &["ingest", "idx", "--batch", "100"],
        dir.path(),
        &dir.path().join("feed.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn an_id_sent_again_with_other_content_is_refused_not_stored_twice() {
    let dir = tempfile::tempdir().unwrap();
    let rest = index_with_segments(dir.path(), 0);
    let seed: Vec<serde_json::Value> = distinct_pages(20);
    // A stored id with another page's content, a stored id with its own
    // content, and a new page.
    let mut changed = rest[0].clone();
    changed["id"] = seed[3]["id"].clone();
    let feed = [changed.clone(), seed[4].clone(), rest[1].clone()];
    write_jsonl(&dir.path().join("feed.jsonl"), &feed);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "7"],
        dir.path(),
        &dir.path().join("feed.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = statuses(&o.stdout);
    assert_eq!(out[0]["status"], "error", "{out:?}");
    let error = out[0]["error"].as_str().unwrap();
    assert!(error.contains(seed[3]["id"].as_str().unwrap()) && error.contains("already stored"));
    assert_eq!(out[1]["status"], "duplicate", "{out:?}");
    assert_eq!(out[1]["of"], seed[4]["id"]);
    assert_eq!(out[2]["status"], "new", "{out:?}");
    // Not stored: its content finds nothing.
    write_jsonl(&dir.path().join("changed.jsonl"), &[changed]);
    let o = neardup_with_stdin(
        &["index", "query", "idx", "-"],
        dir.path(),
        &dir.path().join("changed.jsonl"),
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(statuses(&o.stdout)[0]["matches"], serde_json::json!([]));
    // Its URL was not marked: sent again under a new id, it is stored.
    let mut renamed = rest[0].clone();
    renamed["id"] = "renamed".into();
    write_jsonl(&dir.path().join("renamed.jsonl"), &[renamed]);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "7"],
        dir.path(),
        &dir.path().join("renamed.jsonl"),
    );
    assert_eq!(
        statuses(&o.stdout)[0]["status"],
        "new",
        "{}",
        text(&o.stdout)
    );
    // Under --strict, the refusal stops ingest, naming the line.
    let mut changed = rest[2].clone();
    changed["id"] = seed[5]["id"].clone();
    write_jsonl(&dir.path().join("strict.jsonl"), &[changed]);
    let o = neardup_with_stdin(
        &["ingest", "idx", "--strict"],
        dir.path(),
        &dir.path().join("strict.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(
        e.contains("<stdin>:1:") && e.contains("already stored"),
        "{e}"
    );
}

/// Readers open and query while a writer commits a page at a time, merging
/// every ninth commit and removing the merged folders: every open succeeds
/// and sees one manifest's pages, never fewer than an earlier open saw.
#[test]
fn queries_during_merges_see_one_consistent_index() {
    use neardup::index::{Index, IndexSettings};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx");
    let mut writer = Index::create(&path, IndexSettings::default(), &[]).unwrap();
    let fingerprint = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (i << 7);
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (path, done) = (path.clone(), done.clone());
            std::thread::spawn(move || {
                let (mut opens, mut seen) = (0, 0);
                while !done.load(Ordering::SeqCst) {
                    let index = Index::open(&path).map_err(|e| e.to_string())?;
                    let n = index.len();
                    if n < seen {
                        return Err(format!("saw {n} pages after {seen}"));
                    }
                    seen = n;
                    for i in [0, n as u64 / 2, n as u64 - 1] {
                        if n > 0 && index.query(fingerprint(i)).is_empty() {
                            return Err(format!("page {i} of {n} not found"));
                        }
                    }
                    opens += 1;
                }
                Ok(opens)
            })
        })
        .collect();
    for i in 0..120u64 {
        writer.commit(&[(format!("p{i}"), fingerprint(i))]).unwrap();
    }
    done.store(true, Ordering::SeqCst);
    for reader in readers {
        let opens = reader.join().unwrap().unwrap_or_else(|e| panic!("{e}"));
        assert!(opens > 0);
    }
}

/// A fake Redis on a loopback port: answers every command `+OK` (enough
/// for the client's greeting) until `stalled` is set, then reads on and
/// never answers, as a paused or blocked server.
struct StallingServer {
    port: u16,
    stalled: Arc<AtomicBool>,
    answered: Arc<std::sync::atomic::AtomicUsize>,
}

impl StallingServer {
    fn start() -> StallingServer {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let stalled = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let (s, a) = (stalled.clone(), answered.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (s, a) = (s.clone(), a.clone());
                std::thread::spawn(move || serve(stream, &s, &a));
            }
        });
        StallingServer {
            port,
            stalled,
            answered,
        }
    }
}

/// Reads RESP commands (arrays of bulk strings) and answers each `+OK`
/// until `stalled`.
fn serve(
    stream: std::net::TcpStream,
    stalled: &AtomicBool,
    answered: &std::sync::atomic::AtomicUsize,
) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let mut read_line = |reader: &mut BufReader<std::net::TcpStream>| {
        line.clear();
        reader.read_line(&mut line).ok().filter(|&n| n > 0)?;
        Some(line.trim_end().to_string())
    };
    while let Some(header) = read_line(&mut reader) {
        let Some(count) = header
            .strip_prefix('*')
            .and_then(|n| n.parse::<usize>().ok())
        else {
            return;
        };
        for _ in 0..count {
            let Some(len) = read_line(&mut reader)
                .and_then(|l| l.strip_prefix('$').and_then(|n| n.parse::<usize>().ok()))
            else {
                return;
            };
            let mut bulk = vec![0; len + 2];
            if reader.read_exact(&mut bulk).is_err() {
                return;
            }
        }
        if !stalled.load(Ordering::SeqCst) {
            if writer.write_all(b"+OK\r\n").is_err() {
                return;
            }
            answered.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Runs `ingest --job --redis URL` on 256 pages with URLs, the server
/// stalled once ingest has connected; returns the output and how long
/// ingest took from the stall. The batch deadline is 5 s.
fn ingest_against_stalled(
    url: &str,
    connected: impl Fn() -> bool,
    stall: impl FnOnce(),
) -> (Output, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let rest = index_with_segments(dir.path(), 0);
    let mut child: Child = common::command(dir.path())
        .args([
            "ingest", "idx", "--job", "49", "--batch", "256", "--redis", url,
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !connected() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never connected"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    stall();
    let stalled = Instant::now();
    let mut stdin = child.stdin.take().unwrap();
    for page in &rest[..256.min(rest.len())] {
        // Ingest may give up on the stalled server before it has read
        // every line: its exit and message are what the caller checks.
        if writeln!(stdin, "{page}").is_err() {
            break;
        }
    }
    drop(stdin);
    // Today's limit is 5 s a batch; a wait per command would take minutes.
    while child.try_wait().unwrap().is_none() {
        if stalled.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            panic!("ingest still waiting after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let took = stalled.elapsed();
    (child.wait_with_output().unwrap(), took)
}

#[test]
fn a_stalled_redis_fails_a_256_line_batch_within_its_deadline() {
    let server = StallingServer::start();
    let url = format!("redis://127.0.0.1:{}/", server.port);
    // The client's greeting is two commands.
    let answered = server.answered.clone();
    let stalled = server.stalled.clone();
    let (o, took) = ingest_against_stalled(
        &url,
        || answered.load(Ordering::SeqCst) >= 2,
        || stalled.store(true, Ordering::SeqCst),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("timed out"), "{e}");
    assert!(o.stdout.is_empty(), "lines printed: {}", text(&o.stdout));
    assert!(took < Duration::from_secs(9), "took {took:?}");
}

#[test]
fn a_redis_that_accepts_and_never_answers_fails_within_the_connect_deadline() {
    let server = StallingServer::start();
    server.stalled.store(true, Ordering::SeqCst);
    let dir = tempfile::tempdir().unwrap();
    index_with_segments(dir.path(), 0);
    let url = format!("redis://127.0.0.1:{}/", server.port);
    let started = Instant::now();
    let o = neardup_with_stdin(
        &["ingest", "idx", "--job", "1", "--redis", &url],
        dir.path(),
        &dir.path().join("seed.jsonl"),
    );
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("timed out"), "{e}");
    // One 5 s deadline, not one per command of the greeting.
    assert!(
        started.elapsed() < Duration::from_secs(9),
        "{:?}",
        started.elapsed()
    );
}

/// A redis-server that may be paused, stopped for good on drop (even when
/// the test fails).
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: signals to the child we started.
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGCONT);
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A real redis-server paused with SIGSTOP after ingest connected.
#[test]
fn a_paused_redis_server_fails_the_batch_within_its_deadline_requires_redis() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(binary) = std::env::split_paths(&path)
        .map(|dir| dir.join("redis-server"))
        .find(|p| p.is_file())
    else {
        assert!(
            std::env::var_os("NEARDUP_REQUIRE_REDIS").is_none(),
            "redis-server is not installed (.ci/run installs it)"
        );
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED: redis-server is not installed (set NEARDUP_REQUIRE_REDIS to fail instead)"
        );
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = Stopped(
        Command::new(binary)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let url = format!("redis://127.0.0.1:{port}/");
    let started = Instant::now();
    let admin = loop {
        if let Ok(c) = redis::Client::open(url.as_str()).unwrap().get_connection() {
            break c;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "redis-server did not start"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let admin = std::cell::RefCell::new(admin);
    let pid = server.0.id() as i32;
    let (o, took) = ingest_against_stalled(
        &url,
        || {
            let clients: String = redis::cmd("CLIENT")
                .arg("LIST")
                .query(&mut *admin.borrow_mut())
                .unwrap();
            clients.lines().count() >= 2
        },
        // SAFETY: a signal to the child we started.
        || assert_eq!(unsafe { libc::kill(pid, libc::SIGSTOP) }, 0),
    );
    drop(server);
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(e.contains("timed out"), "{e}");
    assert!(took < Duration::from_secs(9), "took {took:?}");
}

#[test]
fn index_check_says_what_is_wrong_and_exits_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    index_with_segments(dir.path(), 2);
    let o = neardup(&["index", "check", "idx"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).starts_with("ok: idx: 3 segments, 30 pages"),
        "{}",
        text(&o.stdout)
    );
    // One byte of one segment's ids flipped: its checksum names the file.
    let segment = manifest(dir.path())["segments"][1]["name"]
        .as_str()
        .unwrap()
        .to_string();
    let ids = dir.path().join("idx").join(&segment).join("ids.bin");
    let mut bytes = std::fs::read(&ids).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&ids, bytes).unwrap();
    let o = neardup(&["index", "check", "idx"], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let e = text(&o.stderr);
    assert!(e.contains(&format!("{segment}/ids.bin")), "{e}");
    assert!(e.lines().last().unwrap().contains("idx: 1 problems"), "{e}");
}

/// A row of a pairs table: two page ids and a score.
type PairRow<'a> = (&'a str, &'a str, f32);

/// Writes a pairs table as another program would, with the settings
/// envelope `neardup evaluate` reads.
fn write_outside_pairs(path: &Path, rows: &[PairRow], config: serde_json::Value) {
    use polars::prelude::*;
    let grid: Vec<f64> = if config["type"] == "simhash" {
        vec![2.0, 3.0, 4.0]
    } else {
        vec![0.5, 0.6, 0.7]
    };
    let settings = serde_json::json!({
        "config": config, "extract": "main", "threshold": grid[1], "grid": grid,
    });
    let mut df = DataFrame::new_infer_height(vec![
        Column::new("a".into(), rows.iter().map(|p| p.0).collect::<Vec<_>>()),
        Column::new("b".into(), rows.iter().map(|p| p.1).collect::<Vec<_>>()),
        Column::new("score".into(), rows.iter().map(|p| p.2).collect::<Vec<_>>()),
    ])
    .unwrap();
    let meta = serde_json::json!({"format": "neardup-signatures/1", "table": "pairs", "settings": settings});
    ParquetWriter::new(std::fs::File::create(path).unwrap())
        .with_key_value_metadata(Some(KeyValueMetadata::from_static(vec![(
            "neardup".into(),
            meta.to_string(),
        )])))
        .finish(&mut df)
        .unwrap();
}

#[test]
fn outside_pairs_given_twice_or_scored_off_their_scale_are_refused_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = neardup::corpus::demo::demo_corpus().unwrap();
    let id = |i: usize| corpus.pages[i].id.as_str();
    let minhash = || serde_json::json!({"type": "minhash"});
    let simhash = || serde_json::json!({"type": "simhash"});
    let good = [(id(0), id(1), 0.9), (id(2), id(3), 0.8)];
    let cases: Vec<(Vec<PairRow>, serde_json::Value, String)> = vec![
        // The same pair turned around: its lower score was kept silently.
        (
            vec![good[0], good[1], (id(1), id(0), 0.2)],
            minhash(),
            "row 3: field `b`: the pair was already given on row 1".into(),
        ),
        (
            vec![good[0], (id(2), id(3), 5.0)],
            minhash(),
            "row 2: field `score`: 5 is not".into(),
        ),
        (
            vec![good[0], (id(2), id(3), -1.0)],
            minhash(),
            "row 2: field `score`: -1 is not".into(),
        ),
        (
            vec![(id(2), id(3), f32::INFINITY)],
            minhash(),
            "row 1: field `score`: inf is not a finite number".into(),
        ),
        (
            vec![good[0], (id(2), id(3), f32::NAN)],
            minhash(),
            "row 2: field `score`: NaN is not a finite number".into(),
        ),
        (
            vec![(id(2), id(3), 70.0)],
            simhash(),
            "row 1: field `score`: 70 is not".into(),
        ),
        (
            vec![(id(2), id(3), 2.5)],
            simhash(),
            "row 1: field `score`: 2.5 is not".into(),
        ),
        (
            vec![good[0], (id(2), "nowhere", 0.9)],
            minhash(),
            "row 2: field `b`: `nowhere` is not a page of the corpus".into(),
        ),
        (
            vec![(id(2), id(2), 0.9)],
            minhash(),
            "row 1: field `b`: a page paired with itself".into(),
        ),
    ];
    let path = dir.path().join("pairs.parquet");
    for (rows, config, expected) in cases {
        write_outside_pairs(&path, &rows, config);
        let o = neardup(
            &["evaluate", "demo", "--pairs", "pairs.parquet", "-o", "run"],
            dir.path(),
        );
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{rows:?}: {e}");
        assert!(
            e.contains(&format!("pairs.parquet: {expected}")),
            "{rows:?}: {e}"
        );
        assert!(
            !dir.path().join("run").exists(),
            "{rows:?}: a run was written"
        );
    }

    // Asked to, the bad rows are skipped and counted, never silently.
    let rows = [
        good[0],
        good[1],
        (id(1), id(0), 0.2),
        (id(4), id(5), 5.0),
        (id(4), id(5), f32::NAN),
        (id(4), "nowhere", 0.9),
    ];
    write_outside_pairs(&path, &rows, minhash());
    let o = neardup(
        &[
            "evaluate",
            "demo",
            "--pairs",
            "pairs.parquet",
            "-o",
            "run",
            "--skip-bad-pairs",
        ],
        dir.path(),
    );
    let e = text(&o.stderr);
    assert!(o.status.success(), "{e}");
    let counts = "skipped 4 bad rows of pairs.parquet (--skip-bad-pairs): \
                  1 naming a page not in the corpus, 1 with a score not finite, \
                  1 with a score outside its algorithm's range, 1 given twice";
    assert!(e.contains(counts), "{e}");
    let run = std::fs::read_to_string(dir.path().join("run/run.json")).unwrap();
    assert!(run.contains(counts), "{run}");
}

/// `neardup ARGS` in `cwd` with no file allowed past 512 bytes, as on a
/// disk that fills up: a write past it fails ("File too large") rather
/// than the process being killed.
fn neardup_on_a_full_disk(args: &[&str], cwd: &Path) -> Output {
    common::shell("trap '' XFSZ; ulimit -f 1; exec \"$NEARDUP\" \"$@\"", cwd)
        .args(args)
        .output()
        .expect("sh runs")
}

#[test]
fn a_write_failing_midway_leaves_every_previous_output_whole_and_nothing_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let experiment = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/demo.yaml");
    let experiment = experiment.to_str().unwrap();
    let run = ["run", experiment, "-o", "out"];
    let report = ["report", "out", "-o", "report"];
    for (args, folder) in [(&run[..], "out"), (&report[..], "report")] {
        let o = neardup(args, dir.path());
        assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
        let before = snapshot(&dir.path().join(folder));
        assert!(before.iter().any(|(_, bytes)| bytes.len() > 512));
        let o = neardup_on_a_full_disk(args, dir.path());
        let e = text(&o.stderr);
        assert!(!o.status.success(), "{args:?} wrote past the limit");
        assert!(e.contains("File too large"), "{args:?}: {e}");
        let after = snapshot(&dir.path().join(folder));
        let names = |files: &[(PathBuf, Vec<u8>)]| -> Vec<PathBuf> {
            files.iter().map(|f| f.0.clone()).collect()
        };
        assert_eq!(names(&after), names(&before), "{args:?}: files left beside");
        for ((path, old), (_, new)) in before.iter().zip(&after) {
            assert!(old == new, "{args:?}: {} was cut short", path.display());
        }
    }
}

#[test]
fn an_unterminated_quote_names_its_row_and_field_and_echoes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("id,cluster,html\na,1,<p>one</p>\nb,2,\"<p>two</p>\n");
    // The rest of the file, which the quote swallows: 1 MB of rows.
    for i in 0..20_000 {
        csv.push_str(&format!(
            "r{i},{i},<p>row {i} of the rest of the file</p>\n"
        ));
    }
    std::fs::write(dir.path().join("quote.csv"), &csv).unwrap();
    let o = neardup(&["corpus", "stats", "quote.csv"], dir.path());
    let e = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{}", &e[..e.len().min(2000)]);
    assert!(
        e.contains("quote.csv: row 2: field `html`: the quote opened on line 3 is never closed"),
        "{}",
        &e[..e.len().min(2000)]
    );
    assert!(e.len() < 400, "{} bytes of stderr", e.len());
}

/// A real Chinese page (GIMP's manual) and a real English answer
/// (Clough and Stevenson's corpus), as UTF-8.
fn chinese_and_english_samples() -> [String; 2] {
    let corpora = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    let gz = std::fs::read(corpora.join(
        "debian_zh_html/html/gimp-help-zh-cn/usr/share/gimp/2.0/help/zh_CN/getting-started.html.gz",
    ))
    .unwrap();
    let mut chinese = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut chinese)
        .unwrap();
    let english =
        std::fs::read_to_string(corpora.join("clough_stevenson_short_answers/raw/g0pA_taska.txt"))
            .unwrap();
    assert!(chinese.contains("开始使用 GIMP") && english.contains("Inheritance"));
    [chinese, english]
}

/// `text` in UTF-16, little- or big-endian, without a BOM.
fn utf16(text: &str, little_endian: bool) -> Vec<u8> {
    text.encode_utf16()
        .flat_map(|u| {
            if little_endian {
                u.to_le_bytes()
            } else {
                u.to_be_bytes()
            }
        })
        .collect()
}

#[test]
fn utf16_without_a_bom_is_decoded_in_pages_and_corpus_files() {
    use neardup::extract::decode::decode_html;
    let samples = chinese_and_english_samples();
    let dir = tempfile::tempdir().unwrap();
    let jsonl: String = samples
        .iter()
        .enumerate()
        .map(|(i, html)| {
            format!(
                "{}\n",
                serde_json::json!({"id": format!("p{i}"), "cluster": "c", "html": html})
            )
        })
        .collect();
    let csv = format!(
        "id,cluster,html\n{}",
        samples
            .iter()
            .enumerate()
            .map(|(i, html)| format!("p{i},c,\"{}\"\n", html.replace('"', "\"\"")))
            .collect::<String>()
    );
    for little_endian in [true, false] {
        let order = if little_endian { "LE" } else { "BE" };
        for sample in &samples {
            let decoded = decode_html(&utf16(sample, little_endian));
            assert_eq!(decoded.text, *sample, "{order}");
            assert!(!decoded.had_errors);
        }
        for (name, text) in [("c.jsonl", &jsonl), ("c.csv", &csv)] {
            let path = dir.path().join(name);
            std::fs::write(&path, utf16(text, little_endian)).unwrap();
            let corpus = neardup::corpus::read_corpus(&path, Default::default())
                .unwrap_or_else(|e| panic!("{name} {order}: {e}"));
            let pages: Vec<&neardup::corpus::Content> =
                corpus.pages.iter().map(|p| &p.content).collect();
            assert_eq!(pages.len(), 2, "{name} {order}");
            for (content, sample) in pages.iter().zip(&samples) {
                assert!(
                    matches!(content, neardup::corpus::Content::Html(h) if h == sample),
                    "{name} {order}: the page is not the sample"
                );
            }
        }
    }
    // The same text in UTF-8 or GBK (no NULs) is not taken for UTF-16.
    for sample in &samples {
        let (gbk, _, _) = encoding_rs::GBK.encode(sample);
        assert!(neardup::extract::decode::utf16_without_bom(sample.as_bytes()).is_none());
        assert!(neardup::extract::decode::utf16_without_bom(&gbk).is_none());
    }
}

#[test]
fn a_missing_file_named_in_an_experiment_names_the_line_of_its_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "name: m\n# the corpus:\ncorpus: nowhere/c.jsonl\nalgorithms:\n  - type: minhash\n".to_string(),
            "m.yaml:3: field `corpus`: ",
            "nowhere/c.jsonl",
        ),
        (
            "corpus: corpora/built.jsonl\nbuild: builders/none.yaml\nalgorithms:\n  - type: minhash\n".into(),
            "m.yaml:2: field `build`: ",
            "builders/none.yaml",
        ),
        (
            "corpus: demo\njudged:\n  positive_from: 2\n  pairs: judged/none.csv\nalgorithms:\n  - type: minhash\n".into(),
            "m.yaml:4: field `judged.pairs`: ",
            "judged/none.csv",
        ),
        (
            "corpus: demo\nalgorithms:\n  - type: minhash\n  - type: simhash\n    idf: refs/none.jsonl\n".into(),
            "m.yaml:5: field `algorithms[1].idf`: ",
            "refs/none.jsonl",
        ),
        (
            "corpus: demo\nalgorithms:\n  - type: minhash\n  - type: learned\n    model: models/none.json\n".into(),
            "m.yaml:5:5: `algorithms[1].model`: ",
            "models/none.json",
        ),
    ];
    for (yaml, at, missing) in cases {
        std::fs::write(dir.path().join("m.yaml"), &yaml).unwrap();
        let o = neardup(&["run", "m.yaml", "-o", "out"], dir.path());
        let e = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{yaml}: {e}");
        assert!(e.contains(at) && e.contains(missing), "{yaml}: {e}");
    }
}

#[test]
fn past_the_pair_budget_the_note_counts_the_pairs_kept() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("b.yaml"),
        "corpus: demo\npair_budget_mb: 0\nalgorithms:\n  - type: jaccard\n    floor: 0.1\n",
    )
    .unwrap();
    let o = neardup(&["run", "b.yaml", "-o", "out", "--verbose"], dir.path());
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let number_before = |line: &str, word: &str| -> u64 {
        let head = &line[..line.find(word).unwrap_or_else(|| panic!("{word}: {line}"))];
        head.split_whitespace().last().unwrap().parse().unwrap()
    };
    let note = out
        .lines()
        .find(|l| l.contains("pair budget of 0 MB reached"))
        .unwrap_or_else(|| panic!("no note: {out}"));
    let stored = out
        .lines()
        .find_map(|l| l.split_once("; stored ").map(|(_, s)| s.to_string()))
        .unwrap_or_else(|| panic!("no stored pairs: {out}"));
    let stored = number_before(&stored, " pairs within");
    assert!(stored > 0, "{out}");
    assert_eq!(number_before(note, " kept"), stored, "{note}");
}
