//! One I/O error for the whole crate, naming the file it happened on, and
//! the file operations that return it.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An I/O error on a file or folder: reads `PATH: what went wrong`, since
/// a bare "No such file or directory" does not say which.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct FileError {
    pub path: PathBuf,
    pub source: io::Error,
}

impl FileError {
    pub fn new(path: impl Into<PathBuf>, source: io::Error) -> Self {
        FileError {
            path: path.into(),
            source,
        }
    }

    /// For `map_err`: the error of an operation on `path`.
    pub fn at(path: &Path) -> impl FnOnce(io::Error) -> FileError + '_ {
        move |source| FileError::new(path, source)
    }

    pub fn kind(&self) -> io::ErrorKind {
        self.source.kind()
    }
}

pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    std::fs::read(path).map_err(FileError::at(path))
}

pub fn read_to_string(path: &Path) -> Result<String, FileError> {
    std::fs::read_to_string(path).map_err(FileError::at(path))
}

/// Replaces `path` with `bytes` whole (see [`write_atomic`]): an output
/// is never left cut short by a full disk or a killed process.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
    write_atomic(path, bytes.as_ref())
}

pub fn open(path: &Path) -> Result<File, FileError> {
    File::open(path).map_err(FileError::at(path))
}

pub fn create_dir_all(path: &Path) -> Result<(), FileError> {
    std::fs::create_dir_all(path).map_err(FileError::at(path))
}

/// A fresh name beside `path` (same folder, so a rename stays on one file
/// system), hidden, ending in `.tmp.EXT` so that writers choosing a format
/// by extension still see `path`'s.
pub fn temp_beside(path: &Path) -> PathBuf {
    // Process id and a counter: concurrent writers, in this process or
    // another, never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let ext = match path.extension() {
        Some(e) => format!(".{}", e.to_string_lossy()),
        None => String::new(),
    };
    path.with_file_name(format!(".{name}.{}-{n}.tmp{ext}", std::process::id()))
}

/// Replaces `path` with `bytes` so that readers see the old file or the
/// whole new one, never a part: written beside it under a temporary name,
/// synced, renamed over it. The folder must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(FileError::at(path))?;
    file.commit()
}

/// Moves a finished temporary file (e.g. one a chart library wrote to a
/// path of its own) over `path`, or removes it when the writing failed.
pub fn replace_with<E>(
    tmp: &Path,
    path: &Path,
    written: Result<(), E>,
) -> Result<Result<(), E>, FileError> {
    if written.is_err() {
        let _ = std::fs::remove_file(tmp);
        return Ok(written);
    }
    std::fs::rename(tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(tmp);
        FileError::new(path, e)
    })?;
    Ok(written)
}

/// An output streamed to a temporary file beside `path` and renamed over
/// it by [`AtomicFile::commit`]; dropped uncommitted (an error, a panic),
/// the temporary file is removed and `path` keeps what it held.
pub struct AtomicFile {
    file: Option<io::BufWriter<File>>,
    tmp: PathBuf,
    path: PathBuf,
}

impl AtomicFile {
    pub fn create(path: &Path) -> Result<Self, FileError> {
        let tmp = temp_beside(path);
        let file = File::create(&tmp).map_err(FileError::at(path))?;
        Ok(AtomicFile {
            file: Some(io::BufWriter::new(file)),
            tmp,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs and renames the file over its path.
    pub fn commit(mut self) -> Result<(), FileError> {
        let writer = self.file.take().expect("committed once");
        let synced = writer
            .into_inner()
            .map_err(|e| e.into_error())
            .and_then(|f| f.sync_all())
            .and_then(|()| std::fs::rename(&self.tmp, &self.path));
        // On failure `drop` removes the temporary file.
        synced.map_err(FileError::at(&self.path))?;
        self.tmp = PathBuf::new();
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.file.as_mut().expect("not committed").write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().expect("not committed").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        drop(self.file.take());
        if !self.tmp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("neardup-io-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn errors_name_the_file() {
        let missing = scratch("missing").join("nothing-here.txt");
        let e = read(&missing).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("{}: ", missing.display())),
            "{text}"
        );
    }

    #[test]
    fn write_atomic_replaces_the_file_and_leaves_nothing_beside_it() {
        let dir = scratch("atomic");
        let path = dir.join("table.csv");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new").unwrap();
        assert_eq!(read(&path).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("table.csv")]);
        let in_missing_folder = dir.join("no-folder").join("x");
        assert!(write_atomic(&in_missing_folder, b"x").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_stream_failing_midway_leaves_the_old_file_and_nothing_beside_it() {
        let dir = scratch("stream");
        let path = dir.join("run.json");
        write(&path, b"old run").unwrap();
        {
            let mut file = AtomicFile::create(&path).unwrap();
            file.write_all(b"half of a new ").unwrap();
            file.flush().unwrap();
            assert_eq!(names(&dir).len(), 2, "the new one is written beside it");
            // The writer fails here: the file is dropped uncommitted.
        }
        assert_eq!(read(&path).unwrap(), b"old run");
        assert_eq!(names(&dir), ["run.json"]);
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"new run").unwrap();
        file.commit().unwrap();
        assert_eq!(read(&path).unwrap(), b"new run");
        assert_eq!(names(&dir), ["run.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_disk_leaves_the_old_file_and_nothing_beside_it() {
        // /dev/full takes the temporary file's place: every write fails
        // with "No space left on device", as on a full disk.
        let dir = scratch("full");
        let path = dir.join("results.csv");
        write(&path, b"old").unwrap();
        let mut file = AtomicFile::create(&path).unwrap();
        std::fs::remove_file(&file.tmp).unwrap();
        std::os::unix::fs::symlink("/dev/full", &file.tmp).unwrap();
        file.file = Some(io::BufWriter::new(
            std::fs::OpenOptions::new()
                .write(true)
                .open(&file.tmp)
                .unwrap(),
        ));
        let big = vec![b'x'; 1 << 16];
        match file.write_all(&big).and_then(|()| file.flush()) {
            Ok(()) => assert!(file.commit().is_err()),
            Err(_) => drop(file),
        }
        assert_eq!(read(&path).unwrap(), b"old");
        assert_eq!(names(&dir), ["results.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
