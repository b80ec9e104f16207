//! The audit log: one JSON line per answer ([`AuditEntry`]) in `audit.jsonl`, appended and
//! fsync'd by a writer thread of its own, rotated by size to `audit.jsonl.1`, and read back
//! (the newest lines) when the engine starts.
//!
//! The writer thread exists so a slow disk never delays a reply: the hook gets its answer at
//! once and the line follows within one fsync. Lines queued together are written with one
//! `write` and one fsync (group commit). A crash can lose the lines still queued, and a kill in
//! the middle of a `write` can leave the last line cut short; [`repair`] drops such a fragment
//! at the next start, so a reader only ever sees whole lines.
//!
//! Bounds: the engine holds no line after it is written. At start it reads back the newest
//! [`TAIL_LINES`] (only their bytes, read backwards from the end, however long the log is), and
//! History reads older lines a page at a time ([`page`]: at most [`PAGE_LINES`], read backwards
//! or forwards from a byte offset), so a year of audit is never loaded whole. The log is only
//! ever appended to and renamed, never rewritten.

use crate::messages::AuditEntry;
// The page types are the engine's messages (History asks for a page, the engine sends one).
pub use crate::messages::{AuditCursor, AuditPage, PageOf};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The log is moved to `audit.jsonl.1` (replacing the previous one) past this size.
pub const ROTATE_BYTES: u64 = 10 * 1024 * 1024;
/// How many lines are read back at start for the History view.
pub const TAIL_LINES: usize = 500;
/// At most this many lines in a page of History (`audit::page`).
pub const PAGE_LINES: usize = 500;

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
/// Only their lines' bytes are read, backwards from the end ([`lines_before`]): a 1,000,000-line
/// log starts the app as fast as an empty one. Lines that do not parse are skipped.
pub fn tail(path: &Path, max: usize) -> Vec<AuditEntry> {
    let (mut raw, from) = lines_before(path, len_of(path), max);
    if raw.len() < max && from == 0 {
        let rotated = rotated_path(path);
        let (mut older, _) = lines_before(&rotated, len_of(&rotated), max - raw.len());
        older.append(&mut raw);
        raw = older;
    }
    raw.iter()
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect()
}

fn len_of(path: &Path) -> u64 {
    fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

/// Reads a page of the log ([`PageOf`]): up to `max` (at most [`PAGE_LINES`]) whole lines,
/// across the rotated log and the live one as if they were one file. Only those lines' bytes are
/// read, whatever the log's length. Lines that do not parse are skipped.
pub fn page(path: &Path, of: PageOf, max: usize) -> AuditPage {
    let max = max.clamp(1, PAGE_LINES);
    let rotated = rotated_path(path);
    let file_of = |c: AuditCursor| {
        if c.rotated {
            rotated.clone()
        } else {
            path.to_path_buf()
        }
    };
    let (raw, first, last) = match of {
        PageOf::Newest | PageOf::Older(_) => {
            let last = match of {
                PageOf::Older(c) => c,
                _ => AuditCursor {
                    rotated: false,
                    offset: len_of(path),
                },
            };
            let (mut raw, from) = lines_before(&file_of(last), last.offset, max);
            let mut first = AuditCursor {
                rotated: last.rotated,
                offset: from,
            };
            if raw.len() < max && from == 0 && !last.rotated {
                let (mut older, from) = lines_before(&rotated, len_of(&rotated), max - raw.len());
                if !older.is_empty() {
                    older.append(&mut raw);
                    raw = older;
                    first = AuditCursor {
                        rotated: true,
                        offset: from,
                    };
                }
            }
            (raw, first, last)
        }
        PageOf::Newer(first) => {
            let (mut raw, to) = lines_after(&file_of(first), first.offset, max);
            let mut last = AuditCursor {
                rotated: first.rotated,
                offset: to,
            };
            if raw.len() < max && first.rotated && to >= len_of(&rotated) {
                let (mut newer, to) = lines_after(path, 0, max - raw.len());
                raw.append(&mut newer);
                last = AuditCursor {
                    rotated: false,
                    offset: to,
                };
            }
            (raw, first, last)
        }
    };
    let has_older = first.offset > 0 || (!first.rotated && len_of(&rotated) > 0);
    let has_newer = last.rotated || last.offset < len_of(path);
    AuditPage {
        lines: raw
            .iter()
            .filter_map(|l| serde_json::from_slice(l).ok())
            .collect(),
        first,
        last,
        has_older,
        has_newer,
    }
}

/// Up to `max` whole lines that end at or before `end` (a line's start), read backwards in
/// blocks, and the offset where the first of them begins.
fn lines_before(path: &Path, end: u64, max: usize) -> (Vec<Vec<u8>>, u64) {
    let Ok(mut f) = File::open(path) else {
        return (Vec::new(), 0);
    };
    let end = end.min(len_of(path));
    let mut pos = end;
    let mut buf: Vec<u8> = Vec::new();
    // Stop once `max` whole lines are known: `max` newlines before the last byte (each block's
    // newlines counted once, as it is read).
    let mut known = 0;
    while pos > 0 && known < max {
        let step = pos.min(64 * 1024);
        pos -= step;
        let mut block = vec![0u8; step as usize];
        if f.seek(SeekFrom::Start(pos)).is_err() || f.read_exact(&mut block).is_err() {
            return (Vec::new(), end);
        }
        let counted = if buf.is_empty() {
            &block[..block.len().saturating_sub(1)]
        } else {
            &block[..]
        };
        known += counted.iter().filter(|&&b| b == b'\n').count();
        block.extend_from_slice(&buf);
        buf = block;
    }
    let mut pieces: Vec<&[u8]> = buf.split(|&b| b == b'\n').collect();
    pieces.pop(); // after the last newline: nothing (`end` is a line's start)
    if pos > 0 && !pieces.is_empty() {
        pieces.remove(0); // began in the middle of a line
    }
    let keep = pieces.split_off(pieces.len().saturating_sub(max));
    let bytes: u64 = keep.iter().map(|l| l.len() as u64 + 1).sum();
    (keep.into_iter().map(<[u8]>::to_vec).collect(), end - bytes)
}

/// Up to `max` whole lines from `start` (a line's start) on, and the offset after the last.
fn lines_after(path: &Path, start: u64, max: usize) -> (Vec<Vec<u8>>, u64) {
    use std::io::BufRead;
    let Ok(mut f) = File::open(path) else {
        return (Vec::new(), start);
    };
    if f.seek(SeekFrom::Start(start)).is_err() {
        return (Vec::new(), start);
    }
    let mut reader = io::BufReader::new(f);
    let (mut lines, mut at) = (Vec::new(), start);
    while lines.len() < max {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(n) if n > 0 && line.ends_with(b"\n") => {
                at += n as u64;
                line.pop();
                lines.push(line);
            }
            _ => break, // the end, or a line still being written
        }
    }
    (lines, at)
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
    fn the_start_reads_the_newest_lines_across_block_boundaries() {
        let d = dir("tail-blocks");
        let p = d.join("audit.jsonl");
        // Lines of many lengths, some 400 KiB of them: the newest 500 span several 64 KiB
        // blocks read from the end, and lines cross the blocks' edges.
        let mut text = String::new();
        for i in 0..2000u64 {
            let mut e = entry(i);
            e.target = format!("echo {}", "x".repeat((i * 37 % 300) as usize));
            text.push_str(&serde_json::to_string(&e).unwrap());
            text.push('\n');
        }
        fs::write(&p, &text).unwrap();
        let times: Vec<u64> = tail(&p, 500).iter().map(|e| e.time).collect();
        assert_eq!(times, (1500..2000).collect::<Vec<_>>());
        let times: Vec<u64> = tail(&p, 1).iter().map(|e| e.time).collect();
        assert_eq!(times, [1999]);
        assert_eq!(tail(&p, 5000).len(), 2000);
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

    #[test]
    fn history_pages_back_and_forth_across_both_files_reading_only_a_page() {
        let d = dir("page");
        let p = d.join("audit.jsonl");
        let one = line(0).len() as u64;
        // 25 lines, rotated at 10 lines' worth: 0..=19 went to the rotated file, which the
        // last rotation replaced with 10..=19; the live log has 20..=24.
        for i in 0..25 {
            append(&p, one * 10, line(i).as_bytes()).unwrap();
        }
        let times = |pg: &AuditPage| pg.lines.iter().map(|e| e.time).collect::<Vec<_>>();
        let newest = page(&p, PageOf::Newest, 4);
        assert_eq!(times(&newest), [21, 22, 23, 24]);
        assert!(newest.has_older && !newest.has_newer);
        // Back across the files' seam, then to the beginning.
        let back = page(&p, PageOf::Older(newest.first), 4);
        assert_eq!(times(&back), [17, 18, 19, 20]);
        let mut pg = back.clone();
        let mut seen = times(&pg);
        while pg.has_older {
            pg = page(&p, PageOf::Older(pg.first), 4);
            let mut t = times(&pg);
            t.append(&mut seen);
            seen = t;
        }
        assert_eq!(seen, (10..=20).collect::<Vec<_>>());
        // Forward again from the oldest page, across the seam, to the newest.
        let mut fwd = page(&p, PageOf::Newer(pg.first), 3);
        assert_eq!(times(&fwd), [10, 11, 12]);
        let mut all = times(&fwd);
        while fwd.has_newer {
            fwd = page(&p, PageOf::Newer(fwd.last), 3);
            all.extend(times(&fwd));
        }
        assert_eq!(all, (10..=24).collect::<Vec<_>>());
        // A page never holds more than PAGE_LINES.
        assert!(page(&p, PageOf::Newest, usize::MAX).lines.len() <= PAGE_LINES);
    }

    #[test]
    fn a_long_log_is_paged_from_its_end_without_reading_it_whole() {
        let d = dir("longpage");
        let p = d.join("audit.jsonl");
        let mut text = String::new();
        for i in 0..20_000 {
            text.push_str(&line(i));
        }
        fs::write(&p, &text).unwrap();
        let newest = page(&p, PageOf::Newest, 100);
        assert_eq!(newest.lines.len(), 100);
        assert_eq!(newest.lines[99].time, 19_999);
        let older = page(&p, PageOf::Older(newest.first), 100);
        assert_eq!(older.lines[0].time, 19_800);
        assert_eq!(older.last, newest.first);
        // Nothing was rewritten.
        assert_eq!(fs::read_to_string(&p).unwrap(), text);
    }
}
