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

pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
    std::fs::write(path, bytes).map_err(FileError::at(path))
}

pub fn open(path: &Path) -> Result<File, FileError> {
    File::open(path).map_err(FileError::at(path))
}

pub fn create(path: &Path) -> Result<File, FileError> {
    File::create(path).map_err(FileError::at(path))
}

pub fn create_dir_all(path: &Path) -> Result<(), FileError> {
    std::fs::create_dir_all(path).map_err(FileError::at(path))
}

/// Replaces `path` with `bytes` so that readers see the old file or the
/// whole new one, never a part: written beside it under a temporary name
/// (same folder, so the rename stays on one file system), synced, renamed
/// over it. The folder must exist.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    // Process id and a counter: concurrent writers, in this process or
    // another, never share a temporary file.
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()));
    let written = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed.map_err(FileError::at(path))
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
}
