//! Reading and writing one agent settings file without losing anything of the user's:
//! a parse error is reported with its line and column and the file is never rewritten; key
//! order is kept (serde_json `preserve_order`); the indentation (2 or 4 spaces, tabs), line
//! ends and trailing newline are kept; a `.bak` is made before the first change; the write is
//! atomic (temp + fsync + rename, following symlinks, keeping permissions) and re-read to verify.

use serde::Serialize;
use serde_json::Value;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use vults_core::atomic;

/// Why a settings file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// It does not parse: 1-based line and column, as editors count them.
    Unparsable {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// It parses but its shape is not one Vults can edit safely (say, `hooks` is a string).
    Unexpected(String),
    /// It could not be read.
    Io(String),
}

/// How the file was written, so a rewrite looks like the user's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Style {
    /// One level of indentation, as the file has it (two spaces, four, a tab).
    pub indent: Vec<u8>,
    /// Lines end with `\r\n`.
    pub crlf: bool,
    /// The file ends with a newline.
    pub trailing_newline: bool,
}

impl Default for Style {
    fn default() -> Style {
        Style {
            indent: b"  ".to_vec(),
            crlf: false,
            trailing_newline: true,
        }
    }
}

/// A settings file as read.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// `None` when the file does not exist.
    pub bytes: Option<Vec<u8>>,
    /// The parsed document (`{}` for a missing or empty file).
    pub value: Value,
    /// How it was written.
    pub style: Style,
}

impl Loaded {
    /// The file exists.
    pub fn existed(&self) -> bool {
        self.bytes.is_some()
    }
    /// The file exists and holds nothing but whitespace.
    pub fn was_empty(&self) -> bool {
        self.bytes
            .as_deref()
            .is_some_and(|b| b.iter().all(u8::is_ascii_whitespace))
    }
}

/// Reads and parses a JSON settings file.
pub fn load(path: &Path) -> Result<Loaded, LoadError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Loaded {
                bytes: None,
                value: Value::Object(Default::default()),
                style: Style::default(),
            });
        }
        Err(e) => {
            return Err(LoadError::Io(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let style = detect_style(&bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Loaded {
            bytes: Some(bytes),
            value: Value::Object(Default::default()),
            style,
        });
    }
    // A UTF-8 byte-order mark is legal in a text file but not in JSON; skip it when reading.
    let body = vults_core::text::strip_bom(&bytes);
    match serde_json::from_slice::<Value>(body) {
        Ok(value) if value.is_object() => Ok(Loaded {
            bytes: Some(bytes),
            value,
            style,
        }),
        Ok(_) => Err(LoadError::Unexpected(
            "the file is JSON but not an object".into(),
        )),
        Err(e) => Err(LoadError::Unparsable {
            line: e.line(),
            column: e.column(),
            message: strip_position(&e.to_string()),
        }),
    }
}

fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// Indentation of the first indented line, CRLF line ends, and the trailing newline.
pub fn detect_style(bytes: &[u8]) -> Style {
    let text = String::from_utf8_lossy(bytes);
    let mut style = Style {
        crlf: text.contains("\r\n"),
        trailing_newline: text.is_empty() || text.ends_with('\n'),
        ..Style::default()
    };
    for line in text.lines() {
        let lead: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        if lead.is_empty() || line.trim().is_empty() {
            continue;
        }
        style.indent = if lead.starts_with('\t') {
            b"\t".to_vec()
        } else {
            vec![b' '; lead.len().min(8)]
        };
        break;
    }
    style
}

/// The document as the user's style writes it.
pub fn render(value: &Value, style: &Style) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&style.indent);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
    value.serialize(&mut ser).map_err(io::Error::other)?;
    if style.trailing_newline {
        out.push(b'\n');
    }
    if style.crlf {
        // JSON strings cannot hold a raw newline, so every \n here is a line end.
        let mut crlf = Vec::with_capacity(out.len() + 64);
        for b in out {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        out = crlf;
    }
    Ok(out)
}

/// [`render`], but every top-level key whose value did not change keeps the bytes it had in
/// `original` (a compact object stays compact, an odd spacing stays): only the keys Vults
/// changes (`hooks`, `statusLine`) are written in the file's style. Falls back to [`render`]
/// when `original` cannot be split into its members (duplicate keys, not an object).
pub fn render_keeping(
    original: Option<&[u8]>,
    value: &Value,
    style: &Style,
) -> io::Result<Vec<u8>> {
    let out = render(value, style)?;
    let Some(original) = original else {
        return Ok(out);
    };
    let old_body = vults_core::text::strip_bom(original);
    let (Some(old), Some(new)) = (members(old_body), members(&out)) else {
        return Ok(out);
    };
    let Ok(old_doc) = serde_json::from_slice::<Value>(old_body) else {
        return Ok(out);
    };
    let mut spliced = Vec::with_capacity(out.len());
    let mut at = 0;
    for (key, span) in &new {
        let Some((_, old_span)) = old.iter().find(|(k, _)| k == key) else {
            continue;
        };
        if old_doc.get(key) != value.get(key) {
            continue;
        }
        spliced.extend_from_slice(&out[at..span.start]);
        spliced.extend_from_slice(&old_body[old_span.clone()]);
        at = span.end;
    }
    spliced.extend_from_slice(&out[at..]);
    // Only ever a different spelling of the same document.
    match serde_json::from_slice::<Value>(&spliced) {
        Ok(v) if &v == value => Ok(spliced),
        _ => Ok(out),
    }
}

/// The top-level members of a JSON object: each key and the byte range of its value. `None`
/// when `bytes` is not one object or a key repeats.
fn members(bytes: &[u8]) -> Option<Vec<(String, std::ops::Range<usize>)>> {
    let ws = |i: &mut usize| {
        while bytes.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    // The end of the string starting at `i` (its opening quote), past its closing quote.
    let string_end = |mut i: usize| -> Option<usize> {
        i += 1;
        loop {
            match bytes.get(i)? {
                b'\\' => i += 2,
                b'"' => return Some(i + 1),
                _ => i += 1,
            }
        }
    };
    let mut i = 0;
    ws(&mut i);
    if bytes.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut out: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    loop {
        ws(&mut i);
        match bytes.get(i)? {
            b'}' => return Some(out),
            b',' => {
                i += 1;
                continue;
            }
            b'"' => {}
            _ => return None,
        }
        let key_end = string_end(i)?;
        let key: String = serde_json::from_slice(&bytes[i..key_end]).ok()?;
        if out.iter().any(|(k, _)| *k == key) {
            return None;
        }
        i = key_end;
        ws(&mut i);
        if bytes.get(i) != Some(&b':') {
            return None;
        }
        i += 1;
        ws(&mut i);
        let start = i;
        let mut depth = 0usize;
        loop {
            match bytes.get(i)? {
                b'"' => i = string_end(i)?,
                b'{' | b'[' => {
                    depth += 1;
                    i += 1;
                }
                b'}' | b']' if depth > 0 => {
                    depth -= 1;
                    i += 1;
                }
                b',' | b'}' if depth == 0 => break,
                b if depth == 0 && b.is_ascii_whitespace() => break,
                _ => i += 1,
            }
            if depth == 0 && matches!(bytes.get(start), Some(b'"' | b'{' | b'[')) {
                break;
            }
        }
        out.push((key, start..i));
    }
}

/// `settings.json` → `settings.json.bak`, beside the path as the user named it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

/// Makes the `.bak` of the original bytes, unless one exists (the first change's is kept).
pub fn backup_once(path: &Path, original: &[u8]) -> io::Result<()> {
    let bak = backup_path(path);
    if fs::symlink_metadata(&bak).is_ok() {
        return Ok(());
    }
    atomic::write(&bak, original, Some(0o600))
}

/// The `.bak`'s bytes, when they parse to exactly `doc` (same keys in the same order).
pub fn backup_matching(path: &Path, doc: &Value) -> Option<Vec<u8>> {
    let bytes = fs::read(backup_path(path)).ok()?;
    let body = vults_core::text::strip_bom(&bytes);
    let parsed: Value = serde_json::from_slice(body).ok()?;
    let same = serde_json::to_string(&parsed).ok()? == serde_json::to_string(doc).ok()?;
    same.then_some(bytes)
}

/// Writes `bytes` over `path` (backup first, atomic) and checks the file now reads back as
/// `expect` (`None`: an empty file).
pub fn write_verified(
    path: &Path,
    original: Option<&[u8]>,
    bytes: &[u8],
    expect: Option<&Value>,
) -> io::Result<()> {
    if let Some(orig) = original {
        backup_once(path, orig)?;
    }
    atomic::write(path, bytes, None)?;
    let back = fs::read(path)?;
    let ok = match expect {
        None => back == bytes,
        Some(v) => serde_json::from_slice::<Value>(&back).ok().as_ref() == Some(v),
    };
    if ok {
        Ok(())
    } else {
        Err(io::Error::other(format!(
            "{} did not read back as written (another program may be writing it)",
            path.display()
        )))
    }
}

/// Removes temp files an earlier, killed run left beside `path` (`.<name>.vults-tmp-<pid>`,
/// see `vults_core::atomic`), when their process is gone.
pub fn remove_stale_temps(path: &Path) {
    let Ok(target) = atomic::resolve_symlinks(path) else {
        return;
    };
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let prefix = format!(".{}.vults-tmp-", name.to_string_lossy());
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let Some(pid) = file
            .strip_prefix(&prefix)
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !process_alive(pid) {
            let _ = fs::remove_file(e.path());
        }
    }
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists; nothing is sent.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(windows)]
fn process_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, ERROR_ACCESS_DENIED, GetLastError};
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    const STILL_ACTIVE: u32 = 259;
    // SAFETY: OpenProcess only opens a handle to query; it is closed below.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        // Another user's process is alive (and its file not ours to remove); else it is gone.
        return unsafe { GetLastError() } == ERROR_ACCESS_DENIED;
    }
    let mut code = 0u32;
    // SAFETY: a valid handle and a place for the exit code.
    let ok = unsafe { GetExitCodeProcess(handle, &mut code) } != 0;
    // SAFETY: the handle opened above.
    unsafe { CloseHandle(handle) };
    !ok || code == STILL_ACTIVE
}

#[cfg(not(any(unix, windows)))]
fn process_alive(_pid: u32) -> bool {
    // Without a cheap check, keep the file: a leftover temp file is harmless.
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_follows_the_file() {
        assert_eq!(detect_style(b"{\n    \"a\": 1\n}\n").indent, b"    ");
        assert_eq!(detect_style(b"{\n\t\"a\": 1\n}").indent, b"\t");
        let s = detect_style(b"{\r\n  \"a\": 1\r\n}");
        assert!(s.crlf);
        assert!(!s.trailing_newline);
        let v: Value = serde_json::from_str(r#"{"a":[1,{}]}"#).unwrap();
        assert_eq!(
            render(&v, &s).unwrap(),
            b"{\r\n  \"a\": [\r\n    1,\r\n    {}\r\n  ]\r\n}"
        );
    }

    #[test]
    fn unchanged_keys_keep_their_bytes() {
        let original = b"{\n  \"permissions\": {\"allow\": [], \"deny\": [\"Read(./.env)\"]},\n  \"s\" : \"a\\\"}\",\n  \"n\": 1e2,\n  \"hooks\": {}\n}\n";
        let doc: Value = serde_json::from_slice(original).unwrap();
        let mut next = doc.clone();
        next["hooks"] = serde_json::json!({"Stop": [{"hooks": []}]});
        let out = render_keeping(Some(original), &next, &detect_style(original)).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert!(
            text.contains("\"permissions\": {\"allow\": [], \"deny\": [\"Read(./.env)\"]},"),
            "{text}"
        );
        assert!(text.contains("\"s\": \"a\\\"}\","), "{text}");
        assert!(text.contains("\"n\": 1e2,"), "{text}");
        assert!(text.contains("\"Stop\": ["), "{text}");
        assert_eq!(serde_json::from_slice::<Value>(&out).unwrap(), next);
        // Not an object, or a repeated key: written in the file's style.
        assert_eq!(members(b"[1]"), None);
        assert_eq!(members(b"{\"a\":1,\"a\":2}"), None);
        assert_eq!(
            members(b" {\"a\" : [1, {\"b\": \"]\"}] , \"c\":true}"),
            Some(vec![("a".into(), 8..23), ("c".into(), 30..34)])
        );
    }

    #[test]
    fn a_settings_file_and_its_backup_that_start_with_a_bom_still_parse() {
        let dir = std::env::temp_dir().join(format!("vults-jsonfile-bom-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("settings.json");
        let bytes = b"\xEF\xBB\xBF{\"a\": 1}\n".to_vec();
        fs::write(&path, &bytes).unwrap();
        let loaded = load(&path).unwrap();
        assert_eq!(loaded.value, serde_json::json!({"a": 1}));
        assert_eq!(loaded.bytes.as_deref(), Some(&bytes[..]));
        fs::write(backup_path(&path), &bytes).unwrap();
        assert_eq!(backup_matching(&path, &loaded.value), Some(bytes));
        fs::remove_dir_all(&dir).unwrap();
    }
}
