//! The audit log: one JSON line per answer ([`AuditEntry`]) in `audit.jsonl`, appended and
//! fsync'd by a writer thread of its own, rotated by size to `audit.jsonl.1`, and read back
//! (the newest lines) when the engine starts.
//!
//! The writer thread exists so a slow disk never delays a reply: the hook gets its answer at
//! once and the line follows within one fsync. Lines queued together are written with one
//! `write` and one fsync (group commit). A crash can lose the lines still queued, and a kill in
//! the middle of a `write` can leave the last line cut short; [`repair`] drops such a fragment
//! at the next start, so a reader only ever sees whole lines.

use crate::messages::AuditEntry;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The log is moved to `audit.jsonl.1` (replacing the previous one) past this size.
pub const ROTATE_BYTES: u64 = 10 * 1024 * 1024;
/// How many lines are read back at start for the History view.
pub const TAIL_LINES: usize = 500;

/// The path of the rotated log.
pub fn rotated_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".1");
    PathBuf::from(name)
}

/// Hands lines to the writer thread. Dropping it flushes what is queued and ends the thread.
pub struct AuditWriter {
    tx: Option<mpsc::Sender<String>>,
    thread: Option<JoinHandle<()>>,
}

impl AuditWriter {
    pub fn spawn(path: PathBuf, rotate_bytes: u64) -> io::Result<AuditWriter> {
        let (tx, rx) = mpsc::channel::<String>();
        let thread = std::thread::Builder::new()
            .name("vults-audit".into())
            .spawn(move || write_loop(&path, rotate_bytes, &rx))?;
        Ok(AuditWriter {
            tx: Some(tx),
            thread: Some(thread),
        })
    }

    pub fn append(&self, entry: &AuditEntry) {
        let line = match serde_json::to_string(entry) {
            Ok(l) => l,
            Err(e) => {
                tracing::error!("audit entry not written: {e}");
                return;
            }
        };
        if let Some(tx) = &self.tx {
            let _ = tx.send(line);
        }
    }
}

impl Drop for AuditWriter {
    fn drop(&mut self) {
        self.tx.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn write_loop(path: &Path, rotate_bytes: u64, rx: &mpsc::Receiver<String>) {
    while let Ok(first) = rx.recv() {
        let mut batch = first;
        batch.push('\n');
        while let Ok(more) = rx.try_recv() {
            batch.push_str(&more);
            batch.push('\n');
        }
        if let Err(e) = append(path, rotate_bytes, batch.as_bytes()) {
            tracing::error!("cannot write the audit log {}: {e}", path.display());
        }
    }
}

/// Appends whole lines and fsyncs, rotating first when the log would grow past `rotate_bytes`.
pub fn append(path: &Path, rotate_bytes: u64, lines: &[u8]) -> io::Result<()> {
    let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    if size > 0 && size + lines.len() as u64 > rotate_bytes {
        // rename is atomic: the old log is whole under its new name.
        fs::rename(path, rotated_path(path))?;
    }
    // Private (0600 in a 0700 folder) whatever the umask: it holds whole commands.
    let mut f = vults_core::atomic::open_private_append(path)?;
    f.write_all(lines)?;
    f.sync_data()
}

/// Drops a cut-short last line (a kill in the middle of a write), so the log holds whole lines.
pub fn repair(path: &Path) -> io::Result<()> {
    let mut f = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    let len = f.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8; 1];
    f.seek(SeekFrom::Start(len - 1))?;
    f.read_exact(&mut last)?;
    if last[0] == b'\n' {
        return Ok(());
    }
    // Walk back to the last newline.
    let mut end = len;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let n = (end - start) as usize;
        f.seek(SeekFrom::Start(start))?;
        f.read_exact(&mut chunk[..n])?;
        if let Some(i) = chunk[..n].iter().rposition(|&b| b == b'\n') {
            f.set_len(start + i as u64 + 1)?;
            return f.sync_data();
        }
        end = start;
    }
    f.set_len(0)?;
    f.sync_data()
}

/// The newest `max` entries (oldest first), from the log and, when it is short, the rotated one.
/// Lines that do not parse are skipped.
pub fn tail(path: &Path, max: usize) -> Vec<AuditEntry> {
    let mut entries = tail_of(path, max);
    if entries.len() < max {
        let mut older = tail_of(&rotated_path(path), max - entries.len());
        older.append(&mut entries);
        entries = older;
    }
    entries
}

fn tail_of(path: &Path, max: usize) -> Vec<AuditEntry> {
    // A line is small (strings are cut at 2000 bytes by the hook); 4 KiB each is plenty.
    let budget = (max as u64).saturating_mul(4096);
    let Ok(mut f) = File::open(path) else {
        return Vec::new();
    };
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    let start = len.saturating_sub(budget);
    if f.seek(SeekFrom::Start(start)).is_err() {
        return Vec::new();
    }
    let mut bytes = Vec::new();
    if f.read_to_end(&mut bytes).is_err() {
        return Vec::new();
    }
    let mut text = bytes.as_slice();
    if start > 0 {
        // Began in the middle of a line.
        match text.iter().position(|&b| b == b'\n') {
            Some(i) => text = &text[i + 1..],
            None => return Vec::new(),
        }
    }
    let mut out: Vec<AuditEntry> = text
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect();
    if out.len() > max {
        out.drain(..out.len() - max);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::{AnsweredBy, Outcome};

    fn entry(i: u64) -> AuditEntry {
        AuditEntry {
            identity: "claude".into(),
            session: "s".into(),
            folder: "/p".into(),
            host: None,
            tool: "Bash".into(),
            target: format!("echo {i}"),
            ..AuditEntry::new(i, Outcome::Allow, AnsweredBy::Click, None)
        }
    }

    fn line(i: u64) -> String {
        let mut l = serde_json::to_string(&entry(i)).unwrap();
        l.push('\n');
        l
    }

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("vults-audit-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn rotates_past_the_size_and_reads_back_across_both_files() {
        let d = dir("rotate");
        let p = d.join("audit.jsonl");
        let one = line(0).len() as u64;
        for i in 0..10 {
            append(&p, one * 4, line(i).as_bytes()).unwrap();
        }
        // 10 lines, 4 per file: the live log holds the last 2, the rotated one the 4 before.
        assert_eq!(fs::read_to_string(&p).unwrap().lines().count(), 2);
        assert_eq!(
            fs::read_to_string(rotated_path(&p))
                .unwrap()
                .lines()
                .count(),
            4
        );
        let times: Vec<u64> = tail(&p, 5).iter().map(|e| e.time).collect();
        assert_eq!(times, [5, 6, 7, 8, 9]);
    }

    #[test]
    fn repair_drops_a_cut_last_line_only() {
        let d = dir("repair");
        let p = d.join("audit.jsonl");
        let whole = format!("{}{}", line(1), line(2));
        fs::write(&p, format!("{whole}{{\"time\":3,\"iden")).unwrap();
        repair(&p).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), whole);
        repair(&p).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), whole);
        fs::write(&p, "no newline at all").unwrap();
        repair(&p).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "");
    }

    #[test]
    fn writer_thread_flushes_everything_on_drop() {
        let d = dir("writer");
        let p = d.join("audit.jsonl");
        let w = AuditWriter::spawn(p.clone(), ROTATE_BYTES).unwrap();
        for i in 0..100 {
            w.append(&entry(i));
        }
        drop(w);
        let back = tail(&p, 1000);
        assert_eq!(back.len(), 100);
        assert_eq!(back[99], entry(99));
    }
}
