//! URL-level deduplication before any content is compared (seed 003): a
//! crawler job remembers the URLs it has fetched in a seen set that
//! expires, so a list page re-crawled later does not fetch its articles
//! again. URLs are normalised first so that trivial spelling differences
//! and tracking parameters do not defeat the set.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

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

/// A per-job set of fetched URLs.
pub trait SeenUrls {
    /// Marks `url` fetched for `job` and says whether it already was.
    fn check_and_mark(&mut self, job: &str, url: &str) -> Result<bool, UrlError>;
    /// Makes the marks durable (the embedded set writes its file).
    fn save(&mut self) -> Result<(), UrlError>;
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
/// replaced atomically (write, then rename) when saved.
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
}

impl SeenUrls for EmbeddedSeenUrls {
    fn check_and_mark(&mut self, job: &str, url: &str) -> Result<bool, UrlError> {
        let now = (self.clock)();
        let key = format!("job_{job}");
        let entry = self.jobs.entry(key).or_default();
        if entry.expires <= now {
            // As a Redis key with a TTL: an expired job starts afresh, and
            // the expiry is set when the set is created.
            *entry = Job {
                expires: now + self.ttl,
                urls: BTreeSet::new(),
            };
        }
        Ok(!entry.urls.insert(url.to_string()))
    }

    fn save(&mut self) -> Result<(), UrlError> {
        let now = (self.clock)();
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
pub struct RedisSeenUrls {
    address: String,
    connection: redis::Connection,
    ttl: u64,
}

impl RedisSeenUrls {
    /// Connects with timeouts, so a server that goes away gives an error
    /// instead of a hang.
    pub fn connect(address: &str, ttl: Duration, timeout: Duration) -> Result<Self, UrlError> {
        let fail = |e: redis::RedisError| UrlError::Redis {
            address: address.to_string(),
            message: e.to_string(),
        };
        let client = redis::Client::open(address).map_err(fail)?;
        let connection = client.get_connection_with_timeout(timeout).map_err(fail)?;
        connection.set_read_timeout(Some(timeout)).map_err(fail)?;
        connection.set_write_timeout(Some(timeout)).map_err(fail)?;
        Ok(RedisSeenUrls {
            address: address.to_string(),
            connection,
            ttl: ttl.as_secs().max(1),
        })
    }
}

impl SeenUrls for RedisSeenUrls {
    fn check_and_mark(&mut self, job: &str, url: &str) -> Result<bool, UrlError> {
        let key = format!("job_{job}");
        // HSETNX answers 1 for a new field; EXPIRE NX sets the TTL only
        // when the key has none (that is, when this call created it).
        let (added, _): (i64, i64) = redis::pipe()
            .cmd("HSETNX")
            .arg(&key)
            .arg(url)
            .arg(now_seconds())
            .cmd("EXPIRE")
            .arg(&key)
            .arg(self.ttl)
            .arg("NX")
            .query(&mut self.connection)
            .map_err(|e| UrlError::Redis {
                address: self.address.clone(),
                message: e.to_string(),
            })?;
        Ok(added == 0)
    }

    fn save(&mut self) -> Result<(), UrlError> {
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
        let mut seen =
            EmbeddedSeenUrls::open_with_clock(&path, Duration::from_secs(60), fake_clock).unwrap();
        assert!(!seen.check_and_mark("108", "http://a.cn/1").unwrap());
        assert!(seen.check_and_mark("108", "http://a.cn/1").unwrap());
        // Another job has its own set.
        assert!(!seen.check_and_mark("109", "http://a.cn/1").unwrap());
        seen.save().unwrap();
        let mut again =
            EmbeddedSeenUrls::open_with_clock(&path, Duration::from_secs(60), fake_clock).unwrap();
        assert!(again.check_and_mark("108", "http://a.cn/1").unwrap());
        NOW.store(1_061, Ordering::SeqCst);
        assert!(
            !again.check_and_mark("108", "http://a.cn/1").unwrap(),
            "expired"
        );
        std::fs::write(&path, b"{not json").unwrap();
        let e = EmbeddedSeenUrls::open(&path, Duration::from_secs(1)).unwrap_err();
        assert!(e.to_string().contains("urls.json"), "{e}");
    }
}
