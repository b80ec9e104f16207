//! The log: `tracing` to a size-rotated file in the platform's log folder
//! ([`Paths::log_file`]), and to stderr as well when stderr is a terminal.
//!
//! - `--headless` copies every line to stderr, terminal or not (its console).
//! - Level: `VULTS_LOG` (`error`, `warn`, `info`, `debug`, `trace`); `info` by default.
//! - Rotation: when `vults.log` passes [`MAX_BYTES`] it becomes `vults.log.1` (the older ones
//!   move up to `.{KEEP}` and the oldest is dropped), checked at start and while writing.
//! - What goes in at `info` and above: what the app did (started, installed, refused a
//!   connection, a second start …), never a pairing token, a key, or a card's content (its
//!   command, file, URL or question). Those appear only at `debug`/`trace`, which the user
//!   turns on.

use std::fs::{self, File, OpenOptions};
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tracing_subscriber::fmt::MakeWriter;
use vults_core::paths::Paths;

/// A log file grows to this size before it is rotated.
pub const MAX_BYTES: u64 = 2 * 1024 * 1024;
/// How many rotated files are kept beside the current one.
pub const KEEP: usize = 3;

/// Why there is no log file (the lines go to stderr only).
#[derive(Debug, thiserror::Error)]
#[error("cannot write the log at {}: {source}", path.display())]
pub struct LogError {
    /// The log file that could not be opened.
    pub path: PathBuf,
    /// What the system said.
    pub source: std::io::Error,
}

/// Starts logging for the app (window or headless). Returns the log file's path, or why there
/// is none (then only stderr gets the lines). `stderr_always`: copy every line to stderr even
/// when it is not a terminal (`--headless`, whose stderr is its console, often a service's
/// journal). Call once; a second call changes nothing.
pub fn init(paths: &Paths, stderr_always: bool) -> Result<PathBuf, LogError> {
    let level = level_from(std::env::var("VULTS_LOG").ok().as_deref());
    let file = paths.log_file();
    let (rotating, result) = match RotatingFile::open(&file, MAX_BYTES, KEEP) {
        Ok(f) => (Some(Arc::new(Mutex::new(f))), Ok(file)),
        Err(source) => (None, Err(LogError { path: file, source })),
    };
    let writer = Tee {
        stderr: stderr_always || std::io::stderr().is_terminal() || rotating.is_none(),
        file: rotating,
    };
    let installed = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_ansi(false)
        .with_target(false)
        .with_writer(writer)
        .try_init();
    if installed.is_ok() {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            tracing::error!("panic: {info}");
            previous(info);
        }));
    }
    result
}

/// `VULTS_LOG`'s level; anything unknown is `info`.
pub fn level_from(value: Option<&str>) -> tracing::Level {
    match value.map(str::trim).map(str::to_ascii_lowercase).as_deref() {
        Some("error") => tracing::Level::ERROR,
        Some("warn") | Some("warning") => tracing::Level::WARN,
        Some("debug") => tracing::Level::DEBUG,
        Some("trace") => tracing::Level::TRACE,
        _ => tracing::Level::INFO,
    }
}

/// Writes each line to the file and, when asked, to stderr.
#[derive(Clone)]
struct Tee {
    file: Option<Arc<Mutex<RotatingFile>>>,
    stderr: bool,
}

impl<'a> MakeWriter<'a> for Tee {
    type Writer = Tee;
    fn make_writer(&'a self) -> Tee {
        self.clone()
    }
}

impl Write for Tee {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(file) = &self.file
            && let Ok(mut f) = file.lock()
        {
            // A full disk must not take the app down: the line is dropped.
            let _ = f.write_all(buf);
        }
        if self.stderr {
            let _ = io::stderr().write_all(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An append-only file that rotates itself past a size.
#[derive(Debug)]
pub struct RotatingFile {
    path: PathBuf,
    file: File,
    written: u64,
    max: u64,
    keep: usize,
}

impl RotatingFile {
    /// Opens (creating the folder, mode 0700 on Unix) `path` for appending; rotates first when
    /// it is already past `max`.
    pub fn open(path: &Path, max: u64, keep: usize) -> io::Result<RotatingFile> {
        if let Some(dir) = path.parent() {
            create_private_dir(dir)?;
        }
        let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        if size >= max {
            rotate(path, keep)?;
        }
        let file = open_append(path)?;
        let written = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(RotatingFile {
            path: path.to_path_buf(),
            file,
            written,
            max,
            keep,
        })
    }
}

impl Write for RotatingFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written > 0 && self.written + buf.len() as u64 > self.max {
            rotate(&self.path, self.keep)?;
            self.file = open_append(&self.path)?;
            self.written = 0;
        }
        self.file.write_all(buf)?;
        self.written += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// `vults.log.{keep-1}` → `.{keep}`, …, `vults.log` → `vults.log.1`.
fn rotate(path: &Path, keep: usize) -> io::Result<()> {
    let numbered = |n: usize| {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{n}"));
        PathBuf::from(name)
    };
    if keep == 0 {
        return fs::remove_file(path).or_else(ignore_missing);
    }
    fs::remove_file(numbered(keep)).or_else(ignore_missing)?;
    for n in (1..keep).rev() {
        fs::rename(numbered(n), numbered(n + 1)).or_else(ignore_missing)?;
    }
    fs::rename(path, numbered(1)).or_else(ignore_missing)
}

fn ignore_missing(e: io::Error) -> io::Result<()> {
    if e.kind() == io::ErrorKind::NotFound {
        Ok(())
    } else {
        Err(e)
    }
}

fn open_append(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

fn create_private_dir(dir: &Path) -> io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(label: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("vults-log-{label}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn rotates_past_the_size_and_keeps_only_the_newest_files() {
        let dir = temp("rotate");
        let path = dir.join("vults.log");
        let mut log = RotatingFile::open(&path, 100, 2).unwrap();
        for i in 0..10 {
            log.write_all(format!("line {i:02} {}\n", "x".repeat(40)).as_bytes())
                .unwrap();
        }
        let read = |p: &Path| fs::read_to_string(p).unwrap_or_default();
        assert!(read(&path).contains("line 09"), "{}", read(&path));
        assert!(fs::metadata(&path).unwrap().len() <= 100);
        assert!(read(&dir.join("vults.log.1")).contains("line 07"));
        assert!(read(&dir.join("vults.log.2")).contains("line 05"));
        assert!(!dir.join("vults.log.3").exists());
        // Reopening a full file rotates it at once.
        fs::write(&path, "y".repeat(150)).unwrap();
        let mut log = RotatingFile::open(&path, 100, 2).unwrap();
        log.write_all(b"fresh\n").unwrap();
        assert_eq!(read(&path), "fresh\n");
        assert_eq!(read(&dir.join("vults.log.1")), "y".repeat(150));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn vults_log_picks_the_level() {
        assert_eq!(level_from(None), tracing::Level::INFO);
        assert_eq!(level_from(Some("DEBUG")), tracing::Level::DEBUG);
        assert_eq!(level_from(Some("warn")), tracing::Level::WARN);
        assert_eq!(level_from(Some("loud")), tracing::Level::INFO);
    }
}
