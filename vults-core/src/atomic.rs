//! Crash-safe file replacement: write a temp file beside the target, fsync it, rename it over
//! the target, fsync the folder. A reader (or a crash at any instant) sees the old file or the
//! new one, never a torn one.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Replaces `path` with `bytes` atomically.
///
/// A symlinked `path` is followed, so the link stays and its target is replaced. The existing
/// file's permissions are kept; a new file gets `new_mode` (Unix) when given, from its first
/// byte. With a private `new_mode` (nothing for group or others, e.g. `0o600`), a missing
/// folder is made private too (`0700`, [`crate::paths::private_dir`]), whatever the umask.
pub fn write(path: &Path, bytes: &[u8], new_mode: Option<u32>) -> io::Result<()> {
    let target = resolve_symlinks(path)?;
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    make_dir(dir, new_mode)?;
    let existing = fs::metadata(&target).ok();
    let file_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.vults-tmp-{}", std::process::id()));
    let result = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        if let Some(mode) = new_mode.filter(|_| existing.is_none()) {
            // Never readable by others, not even for the moment before set_mode below.
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode & 0o700);
        }
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        if let Some(meta) = &existing {
            fs::set_permissions(&tmp, meta.permissions())?;
        } else {
            set_mode(&tmp, new_mode)?;
        }
        f.sync_all()?;
        drop(f);
        fs::rename(&tmp, &target)?;
        sync_dir(dir);
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Opens `path` to append, creating it private (`0600`, in a private folder) when missing.
pub fn open_private_append(path: &Path) -> io::Result<File> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        make_dir(dir, Some(crate::paths::PRIVATE_FILE_MODE))?;
    }
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, crate::paths::PRIVATE_FILE_MODE);
    options.open(path)
}

/// Makes a missing folder: private when the file going in it is.
fn make_dir(dir: &Path, file_mode: Option<u32>) -> io::Result<()> {
    if dir.exists() {
        return Ok(());
    }
    match file_mode {
        Some(m) if m & 0o077 == 0 => crate::paths::private_dir(dir).map(|_| ()),
        _ => fs::create_dir_all(dir),
    }
}

/// Follows a chain of symlinks to the file that should really be written.
pub fn resolve_symlinks(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link = fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(io::Error::other(format!(
        "too many symlinks at {}",
        path.display()
    )))
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: Option<u32>) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match mode {
        Some(m) => fs::set_permissions(path, fs::Permissions::from_mode(m)),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: Option<u32>) -> io::Result<()> {
    Ok(())
}

fn sync_dir(dir: &Path) {
    // Directory fsync makes the rename itself durable; not possible (nor needed) on Windows.
    #[cfg(unix)]
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("vults-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn replaces_content_and_leaves_no_temp_file() {
        let d = tmpdir("replace");
        let p = d.join("a.json");
        fs::write(&p, "old").unwrap();
        write(&p, b"new", None).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_follows_symlinks() {
        use std::os::unix::fs::PermissionsExt;
        let d = tmpdir("symlink");
        let real = d.join("real.json");
        fs::write(&real, "old").unwrap();
        fs::set_permissions(&real, fs::Permissions::from_mode(0o640)).unwrap();
        let link = d.join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write(&link, b"new", Some(0o600)).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");
        assert_eq!(
            fs::metadata(&real).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_private_file_goes_in_a_private_new_folder() {
        use std::os::unix::fs::PermissionsExt;
        let d = tmpdir("private");
        let p = d.join("new/deeper/secret.json");
        write(&p, b"x", Some(0o600)).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o600);
        assert_eq!(mode(&d.join("new/deeper")), 0o700);
        let log = d.join("logs/audit.jsonl");
        open_private_append(&log).unwrap();
        assert_eq!(mode(&log), 0o600);
        assert_eq!(mode(&d.join("logs")), 0o700);
    }

    #[cfg(unix)]
    #[test]
    fn new_file_gets_requested_mode() {
        use std::os::unix::fs::PermissionsExt;
        let d = tmpdir("mode");
        let p = d.join("secret");
        write(&p, b"x", Some(0o600)).unwrap();
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
}
