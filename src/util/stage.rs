//! Throughput per pipeline stage: wall and CPU seconds, pages/s and MB/s of
//! input, and the process's peak memory.

use std::time::Instant;

/// How the stage that decodes and extracts the pages names its work as it
/// goes (`decode + extract [main, full_text]`): the workbench's overall
/// gauge follows that stage on its own.
pub const EXTRACT_WORK: &str = "decode + extract";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    DecodeExtract,
    /// Decoding and extraction read from the extraction cache instead.
    ExtractCache,
    Tokenize,
    /// Collection statistics an algorithm learns before signing.
    Fit,
    Signature,
    Candidates,
    Verify,
    Evaluate,
}

impl Stage {
    pub fn name(self) -> &'static str {
        match self {
            Stage::DecodeExtract => "decode+extract",
            Stage::ExtractCache => "extract (cache)",
            Stage::Tokenize => "tokenize",
            Stage::Fit => "collection stats",
            Stage::Signature => "signature",
            Stage::Candidates => "candidate search",
            Stage::Verify => "verification",
            Stage::Evaluate => "evaluation",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StageRecord {
    pub stage: Stage,
    /// The algorithm (with its input, e.g. `simhash [main]`), or for shared
    /// stages the extraction they prepare (`main`).
    pub algorithm: String,
    pub pages: usize,
    pub input_bytes: usize,
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
    /// The process's resident memory when the stage ended, and its peak
    /// so far (Linux `VmRSS`, `VmHWM`), in bytes: what a stage left
    /// behind, and which stage raised the run's peak.
    pub rss_bytes: Option<u64>,
    pub peak_bytes: Option<u64>,
    /// For a stage that made several extractions together (its
    /// `algorithm` names them, `main, full_text`): what each one is
    /// charged, the work they share plus its own, as (extraction, wall
    /// seconds, CPU seconds). Empty for every other stage.
    pub shares: Vec<(String, f64, f64)>,
}

impl StageRecord {
    pub fn pages_per_second(&self) -> f64 {
        self.pages as f64 / self.wall_seconds.max(1e-9)
    }

    pub fn megabytes_per_second(&self) -> f64 {
        self.input_bytes as f64 / 1e6 / self.wall_seconds.max(1e-9)
    }
}

/// Times stages over one corpus. Rates are per page and per byte of the
/// corpus' input (raw HTML or text), so stages compare on one scale.
#[derive(Debug, Clone)]
pub struct StageClock {
    pub pages: usize,
    pub input_bytes: usize,
    pub records: Vec<StageRecord>,
    /// Told of every stage as it finishes (the TUI's progress gauges).
    pub observer: Option<std::sync::mpsc::Sender<StageRecord>>,
    /// Told of the work inside a stage as it goes (progress bars).
    pub progress: Option<Progress>,
}

/// Where the work done inside a stage is reported: a progress bar on a
/// terminal, the workbench's gauge.
pub trait ProgressSink: Send + Sync {
    /// A stage named `what` begins with `total` items (pages or pairs).
    fn begin(&self, what: &str, total: u64);
    /// `n` more items are done; called from worker threads.
    fn advance(&self, n: u64);
    /// The stage is over.
    fn finish(&self);
}

/// A shared [`ProgressSink`].
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn ProgressSink>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

/// Counts work for the stage begun last; does nothing without a sink.
#[derive(Clone, Debug, Default)]
pub struct Ticker(Option<Progress>);

impl Ticker {
    pub fn tick(&self, n: u64) {
        if let Some(p) = &self.0 {
            p.0.advance(n);
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Started {
    wall: Instant,
    cpu: f64,
}

impl Started {
    /// (wall, CPU) seconds since it started; CPU of the whole process.
    pub fn elapsed(&self) -> (f64, f64) {
        (
            self.wall.elapsed().as_secs_f64(),
            (process_cpu_seconds() - self.cpu).max(0.0),
        )
    }
}

impl StageClock {
    pub fn new(pages: usize, input_bytes: usize) -> Self {
        StageClock {
            pages,
            input_bytes,
            records: Vec::new(),
            observer: None,
            progress: None,
        }
    }

    /// Announces a stage of `total` items to the progress sink; the
    /// returned ticker counts them (see [`StageClock::stop`], which ends it).
    pub fn begin(&self, what: &str, total: u64) -> Ticker {
        match &self.progress {
            Some(p) => {
                p.0.begin(what, total);
                Ticker(Some(p.clone()))
            }
            None => Ticker(None),
        }
    }

    pub fn start(&self) -> Started {
        Started {
            wall: Instant::now(),
            cpu: process_cpu_seconds(),
        }
    }

    pub fn stop(&mut self, started: Started, stage: Stage, algorithm: &str) {
        self.stop_shared(started, stage, algorithm, Vec::new());
    }

    /// [`StageClock::stop`] for a stage whose work several extractions
    /// share, with what each one is charged (see [`StageRecord::shares`]).
    pub fn stop_shared(
        &mut self,
        started: Started,
        stage: Stage,
        algorithm: &str,
        shares: Vec<(String, f64, f64)>,
    ) {
        let record = StageRecord {
            stage,
            algorithm: algorithm.to_string(),
            pages: self.pages,
            input_bytes: self.input_bytes,
            wall_seconds: started.wall.elapsed().as_secs_f64(),
            cpu_seconds: (process_cpu_seconds() - started.cpu).max(0.0),
            rss_bytes: status_kilobytes("VmRSS:").map(|kb| kb * 1024),
            peak_bytes: peak_memory_bytes(),
            shares,
        };
        if let Some(p) = &self.progress {
            p.0.finish();
        }
        if let Some(observer) = &self.observer {
            // A closed channel means nobody watches any more; the run goes on.
            let _ = observer.send(record.clone());
        }
        self.records.push(record);
    }
}

/// CPU time of the calling thread: work timed on a worker, not counting
/// what other processes on a loaded machine took from it.
pub fn thread_cpu_seconds() -> f64 {
    // SAFETY: clock_gettime only writes into the struct we pass.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return 0.0;
    }
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// User plus system CPU time of the whole process (all threads).
pub fn process_cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the struct we pass.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// Gives memory the allocator holds freed back to the system: after the
/// pages' HTML or an extraction's structures go, the process would
/// otherwise stay that much larger for the rest of the run. The binary's
/// allocator is mimalloc, whose freed pages sit in the heap of the thread
/// that allocated them until that thread collects, so every worker thread
/// collects its own; glibc (the allocator of the tests and of C code)
/// keeps what one thread freed in that thread's arena, where the workers
/// that allocate next do not look, hence `malloc_trim`.
pub fn release_freed_memory() {
    let collect = || {
        // SAFETY: mi_collect only walks the calling thread's mimalloc heap
        // and the segments other threads abandoned; it is a no-op when
        // nothing was allocated through mimalloc.
        unsafe { libmimalloc_sys::mi_collect(true) }
    };
    rayon::broadcast(|_| collect());
    collect();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Peak resident memory of the process in bytes (Linux `VmHWM`), if known.
pub fn peak_memory_bytes() -> Option<u64> {
    status_kilobytes("VmHWM:").map(|kb| kb * 1024)
}

/// Seconds since this process started, as the kernel counts them (its
/// start time in `/proc/self/stat` against the uptime): what a timer
/// around the whole command measures, start-up included.
pub fn process_wall_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name, in parentheses, may hold spaces: count from after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    // Field 22 (starttime) is the 20th after the name.
    let started_ticks: f64 = after_name.split_whitespace().nth(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let ticks_per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (ticks_per_second > 0).then(|| (uptime - started_ticks / ticks_per_second as f64).max(0.0))
}

/// The whole command so far: wall and CPU seconds since the process
/// started, and its peak memory. Printed last, after the last file is
/// written, so that the figure covers everything the command did.
#[derive(Debug, Clone, Copy)]
pub struct CommandTotals {
    pub wall_seconds: Option<f64>,
    pub cpu_seconds: f64,
    pub peak_memory_bytes: Option<u64>,
}

impl CommandTotals {
    pub fn now() -> Self {
        CommandTotals {
            wall_seconds: process_wall_seconds(),
            cpu_seconds: process_cpu_seconds(),
            peak_memory_bytes: peak_memory_bytes(),
        }
    }
}

impl std::fmt::Display for CommandTotals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let wall = self
            .wall_seconds
            .map_or_else(|| "unknown".into(), |s| format!("{s:.2} s"));
        let peak = self
            .peak_memory_bytes
            .map_or_else(|| "unknown".into(), |b| format!("{:.1} MB", b as f64 / 1e6));
        write!(
            f,
            "total: {wall} wall, {:.2} s CPU, peak memory {peak} (the whole command)",
            self.cpu_seconds
        )
    }
}

/// A `kB` field of `/proc/self/status`, e.g. `VmRSS:`.
fn status_kilobytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
