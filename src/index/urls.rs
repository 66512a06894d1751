//! URL-level deduplication before any content is compared (seed 003): a
//! crawler job remembers the URLs it has fetched in a seen set that
//! expires, so a list page re-crawled later does not fetch its articles
//! again. URLs are normalised first so that trivial spelling differences
//! and tracking parameters do not defeat the set.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use url::Url;

#[derive(Debug, thiserror::Error)]
pub enum UrlError {
    #[error("`{url}` is not a URL: {message}")]
    Invalid { url: String, message: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: not a seen-URL file: {message}", path.display())]
    Corrupt { path: PathBuf, message: String },
    #[error("redis {address}: {message}")]
    Redis { address: String, message: String },
}

/// Query parameters that identify a campaign or a click, not a page.
fn is_tracking(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("utm_")
        || matches!(
            name.as_str(),
            "gclid"
                | "dclid"
                | "fbclid"
                | "msclkid"
                | "yclid"
                | "igshid"
                | "mc_cid"
                | "mc_eid"
                | "_hsenc"
                | "_hsmi"
                | "spm"
                | "ref_src"
        )
}

/// Lower-case scheme and host, no default port, no fragment, no tracking
/// parameters, the remaining parameters sorted (stably, so repeated names
/// keep their order), and no empty query.
pub fn normalize_url(text: &str) -> Result<String, UrlError> {
    let mut url = Url::parse(text.trim()).map_err(|e| UrlError::Invalid {
        url: text.to_string(),
        message: e.to_string(),
    })?;
    url.set_fragment(None);
    let mut params: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| !is_tracking(k))
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    params.sort_by(|a, b| a.0.cmp(&b.0));
    if params.is_empty() {
        url.set_query(None);
    } else {
        url.query_pairs_mut().clear().extend_pairs(params);
    }
    // The url crate already lower-cases scheme and host and drops the
    // scheme's default port.
    Ok(url.to_string())
}

/// A per-job set of fetched URLs. Looking up marks nothing: ingest marks
/// a page's URL only once the page's batch is committed, so a crash
/// between the two never leaves a URL marked whose page was not stored.
pub trait SeenUrls {
    /// Which of `urls` the job has already fetched.
    fn seen(&mut self, job: &str, urls: &[String]) -> Result<Vec<bool>, UrlError>;
    /// Marks `urls` fetched for `job`, durably.
    fn mark(&mut self, job: &str, urls: &[String]) -> Result<(), UrlError>;
}

fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Job {
    /// Unix seconds after which the job's set is forgotten.
    expires: u64,
    urls: BTreeSet<String>,
}

/// The default backend: seen sets in a JSON file beside the index,
/// replaced atomically (write, then rename) when marks are added.
#[derive(Debug)]
pub struct EmbeddedSeenUrls {
    path: PathBuf,
    ttl: u64,
    jobs: BTreeMap<String, Job>,
    clock: fn() -> u64,
}

impl EmbeddedSeenUrls {
    pub fn open(path: &Path, ttl: Duration) -> Result<Self, UrlError> {
        Self::open_with_clock(path, ttl, now_seconds)
    }

    pub fn open_with_clock(
        path: &Path,
        ttl: Duration,
        clock: fn() -> u64,
    ) -> Result<Self, UrlError> {
        let jobs = match std::fs::read(path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| UrlError::Corrupt {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(source) => {
                return Err(UrlError::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        Ok(EmbeddedSeenUrls {
            path: path.to_path_buf(),
            ttl: ttl.as_secs(),
            jobs,
            clock,
        })
    }

    /// The job's set, unless it has expired.
    fn live(&self, job: &str) -> Option<&Job> {
        let now = (self.clock)();
        self.jobs
            .get(&format!("job_{job}"))
            .filter(|j| j.expires > now)
    }
}

impl SeenUrls for EmbeddedSeenUrls {
    fn seen(&mut self, job: &str, urls: &[String]) -> Result<Vec<bool>, UrlError> {
        let set = self.live(job);
        Ok(urls
            .iter()
            .map(|u| set.is_some_and(|j| j.urls.contains(u)))
            .collect())
    }

    fn mark(&mut self, job: &str, urls: &[String]) -> Result<(), UrlError> {
        if urls.is_empty() {
            return Ok(());
        }
        let now = (self.clock)();
        let entry = self.jobs.entry(format!("job_{job}")).or_default();
        if entry.expires <= now {
            // As a Redis key with a TTL: an expired job starts afresh, and
            // the expiry is set when the set is created.
            *entry = Job {
                expires: now + self.ttl,
                urls: BTreeSet::new(),
            };
        }
        entry.urls.extend(urls.iter().cloned());
        self.jobs.retain(|_, j| j.expires > now);
        let bytes = serde_json::to_vec(&self.jobs).expect("plain data serialises");
        crate::index::write_atomically(&self.path, &bytes).map_err(|source| UrlError::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Seed 003's backend: a Redis hash `job_<id>` per job, fields the URLs,
/// the key expiring `ttl` after it is created.
///
/// Each batch (a look-up or a marking) and each connection attempt has one
/// deadline, `timeout` from its start, not one per command: the redis
/// crate's pipelines wait the socket's timeout for every reply, so a
/// stalled server held a 256-URL batch for 256 timeouts.
pub struct RedisSeenUrls {
    address: String,
    /// `None` once a batch failed part way: the replies still to come
    /// would answer the next batch's commands.
    connection: Option<redis::Connection>,
    ttl: u64,
    timeout: Duration,
}

/// Redis's own words for a timeout are the socket's ("Resource temporarily
/// unavailable"); say what happened instead.
fn redis_error(address: &str, timeout: Duration, e: &redis::RedisError) -> UrlError {
    let message = if e.is_timeout() {
        format!(
            "no answer within {} s (timed out); is the server overloaded or blocked?",
            timeout.as_secs_f64()
        )
    } else if e.is_connection_refusal() {
        format!("connection refused; is redis-server running there? ({e})")
    } else if e.is_connection_dropped() {
        format!("the server closed the connection ({e})")
    } else {
        e.to_string()
    };
    UrlError::Redis {
        address: address.to_string(),
        message,
    }
}

fn timed_out() -> redis::RedisError {
    std::io::Error::new(std::io::ErrorKind::TimedOut, "deadline passed").into()
}

/// What is left of the time until `deadline`, or a timeout error.
fn remaining(deadline: Instant) -> redis::RedisResult<Duration> {
    // A zero timeout means "none" to the socket: stop short of it.
    match deadline.checked_duration_since(Instant::now()) {
        Some(left) if left >= Duration::from_millis(1) => Ok(left),
        _ => Err(timed_out()),
    }
}

impl RedisSeenUrls {
    /// Connects within `timeout` (name look-up, TCP connect and the
    /// client's greeting together), so a server that goes away gives an
    /// error instead of a hang; `timeout` is also each batch's deadline.
    pub fn connect(address: &str, ttl: Duration, timeout: Duration) -> Result<Self, UrlError> {
        let fail = |e: redis::RedisError| redis_error(address, timeout, &e);
        let client = redis::Client::open(address).map_err(fail)?;
        // The crate bounds each step of connecting (the look-up not at
        // all), not the whole: a thread does it, and is left to finish
        // on its own (its steps are bounded) if the deadline passes.
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = sender.send(client.get_connection_with_timeout(timeout));
        });
        let connection = match receiver.recv_timeout(timeout) {
            Ok(connected) => connected.map_err(fail)?,
            Err(_) => return Err(fail(timed_out())),
        };
        Ok(RedisSeenUrls {
            address: address.to_string(),
            connection: Some(connection),
            ttl: ttl.as_secs().max(1),
            timeout,
        })
    }

    fn fail(&self) -> impl Fn(redis::RedisError) -> UrlError + '_ {
        move |e| redis_error(&self.address, self.timeout, &e)
    }

    /// Sends `pipe` and reads its `replies` replies, all before one
    /// deadline; a server error in any reply fails the batch.
    fn batch(
        &mut self,
        pipe: &redis::Pipeline,
        replies: usize,
    ) -> Result<Vec<redis::Value>, UrlError> {
        let deadline = Instant::now() + self.timeout;
        let Some(connection) = self.connection.as_mut() else {
            return Err(UrlError::Redis {
                address: self.address.clone(),
                message: "the connection was given up after an earlier failure".into(),
            });
        };
        let exchanged = (|| {
            connection.set_write_timeout(Some(remaining(deadline)?))?;
            connection.send_packed_command(&pipe.get_packed_pipeline())?;
            let mut values = Vec::with_capacity(replies);
            for _ in 0..replies {
                // Each read may take only what is left, so the batch as a
                // whole keeps the deadline.
                connection.set_read_timeout(Some(remaining(deadline)?))?;
                values.push(connection.recv_response()?.extract_error()?);
            }
            Ok(values)
        })();
        if exchanged.is_err() {
            self.connection = None;
        }
        exchanged.map_err(self.fail())
    }
}

impl SeenUrls for RedisSeenUrls {
    fn seen(&mut self, job: &str, urls: &[String]) -> Result<Vec<bool>, UrlError> {
        if urls.is_empty() {
            return Ok(Vec::new());
        }
        // One HMGET for the whole batch: a field is there (a fetch time)
        // or nil.
        let mut pipe = redis::pipe();
        pipe.cmd("HMGET").arg(format!("job_{job}")).arg(urls);
        let reply = self.batch(&pipe, 1)?.pop();
        let found: Vec<Option<Vec<u8>>> = reply
            .map(redis::from_redis_value)
            .transpose()
            .map_err(|e| self.fail()(e.into()))?
            .unwrap_or_default();
        if found.len() != urls.len() {
            return Err(UrlError::Redis {
                address: self.address.clone(),
                message: format!(
                    "HMGET of {} URLs answered {} values",
                    urls.len(),
                    found.len()
                ),
            });
        }
        Ok(found.iter().map(Option::is_some).collect())
    }

    fn mark(&mut self, job: &str, urls: &[String]) -> Result<(), UrlError> {
        if urls.is_empty() {
            return Ok(());
        }
        let key = format!("job_{job}");
        // HSETNX keeps the first fetch's time; EXPIRE NX sets the TTL only
        // when the key has none (that is, when this call created it). In
        // one transaction: a batch is marked whole or not at all.
        let now = now_seconds();
        let mut pipe = redis::pipe();
        pipe.atomic();
        for url in urls {
            pipe.cmd("HSETNX").arg(&key).arg(url).arg(now);
        }
        pipe.cmd("EXPIRE").arg(&key).arg(self.ttl).arg("NX");
        // MULTI's OK, each command's QUEUED, and EXEC's answers.
        self.batch(&pipe, pipe.len() + 2)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalisation_removes_what_does_not_name_the_page() {
        let n = |s: &str| normalize_url(s).unwrap();
        assert_eq!(
            n("HTTP://Example.COM:80/a/b?b=2&utm_source=x&a=1#top"),
            "http://example.com/a/b?a=1&b=2"
        );
        assert_eq!(
            n("https://example.com:443/?utm_medium=y"),
            "https://example.com/"
        );
        assert_eq!(
            n("https://example.com:8443/x"),
            "https://example.com:8443/x"
        );
        assert_eq!(
            n("https://a.cn/n?id=7&fbclid=abc"),
            n("https://A.cn/n?fbclid=zz&id=7")
        );
        // Paths are case-sensitive and stay as they are.
        assert_ne!(n("https://a.cn/News"), n("https://a.cn/news"));
        assert!(normalize_url("not a url").is_err());
    }

    use std::sync::atomic::{AtomicU64, Ordering};

    static NOW: AtomicU64 = AtomicU64::new(1_000);
    fn fake_clock() -> u64 {
        NOW.load(Ordering::SeqCst)
    }

    #[test]
    fn embedded_sets_expire_and_persist() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("urls.json");
        let url = |u: &str| vec![u.to_string()];
        let mut seen =
            EmbeddedSeenUrls::open_with_clock(&path, Duration::from_secs(60), fake_clock).unwrap();
        assert_eq!(seen.seen("108", &url("http://a.cn/1")).unwrap(), [false]);
        // Looking up marks nothing.
        assert_eq!(seen.seen("108", &url("http://a.cn/1")).unwrap(), [false]);
        seen.mark("108", &url("http://a.cn/1")).unwrap();
        assert_eq!(seen.seen("108", &url("http://a.cn/1")).unwrap(), [true]);
        // Another job has its own set.
        assert_eq!(seen.seen("109", &url("http://a.cn/1")).unwrap(), [false]);
        let mut again =
            EmbeddedSeenUrls::open_with_clock(&path, Duration::from_secs(60), fake_clock).unwrap();
        let both = vec!["http://a.cn/1".to_string(), "http://a.cn/2".to_string()];
        assert_eq!(again.seen("108", &both).unwrap(), [true, false]);
        NOW.store(1_061, Ordering::SeqCst);
        assert_eq!(again.seen("108", &both).unwrap(), [false, false], "expired");
        std::fs::write(&path, b"{not json").unwrap();
        let e = EmbeddedSeenUrls::open(&path, Duration::from_secs(1)).unwrap_err();
        assert!(e.to_string().contains("urls.json"), "{e}");
    }
}
