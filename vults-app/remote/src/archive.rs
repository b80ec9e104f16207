//! The host's files as they come back from `tar -chf -` on the host: read in memory, member by
//! member, as data. Nothing is extracted by a tar program into the local tree, nothing the
//! archive says is a path until it has been checked to be one of the names Vults asked for.
//!
//! A host sends only regular files (`-h` dereferences its own links). Any other member — a
//! symlink, a hard link, a folder, a device, a FIFO — and any name that is absolute, has a `..`
//! or an empty part, is not one of the expected names, or comes twice, is refused with the name
//! in the error: a host that sends one is broken or hostile, and `remote add` stops. Read:
//! ustar and GNU headers (checksums checked), GNU long names, pax extended headers (their
//! `path` counts as the name; their other records, xattrs and such, are ignored) and pax
//! global headers (ignored).

use std::collections::{BTreeMap, BTreeSet};

const BLOCK: usize = 512;
/// A config file larger than this is not one an agent wrote: refused.
pub const MAX_FILE: u64 = 8 * 1024 * 1024;

/// Why the host's archive of config files was refused; `Display` is the line a person reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ArchiveError {
    /// No end-of-archive blocks: a cut stream.
    #[error("the host's archive ends in the middle")]
    EndsEarly,
    /// A member's body is cut.
    #[error("the host's archive ends in the middle of a member")]
    EndsInAMember,
    /// A header's checksum is not its bytes' sum.
    #[error("the host's archive has a header with a bad checksum")]
    BadChecksum,
    /// A member's size does not fit in memory.
    #[error("a member is too large")]
    TooLarge,
    /// A header field or a record that does not read (which one, in words).
    #[error("{0}")]
    Unreadable(&'static str),
    /// A link, a folder, a device…
    #[error("the host sent {name:?} as {kind}, not as a regular file: refused")]
    NotAFile {
        /// The member's name.
        name: String,
        /// What it is, in words.
        kind: &'static str,
    },
    /// An absolute name.
    #[error("the host sent an absolute name {0:?}: refused")]
    Absolute(String),
    /// A name with `..` or an empty part.
    #[error("the host sent {0:?}, a name with '..' or an empty part: refused")]
    DotDot(String),
    /// A name Vults did not ask for.
    #[error("the host sent {0:?}, which Vults did not ask for: refused")]
    NotAsked(String),
    /// A file over [`MAX_FILE`].
    #[error("the host sent {name:?} of {size} bytes (over {MAX_FILE}): refused")]
    Oversized {
        /// The file's name.
        name: String,
        /// Its size in bytes.
        size: u64,
    },
    /// The same name twice.
    #[error("the host sent {0:?} twice: refused")]
    Twice(String),
}

/// Every regular file in `archive`, by its (checked) name. `expected`: the only names allowed.
pub fn files(
    archive: &[u8],
    expected: &BTreeSet<String>,
) -> Result<BTreeMap<String, Vec<u8>>, ArchiveError> {
    let mut out = BTreeMap::new();
    let mut at = 0usize;
    let mut long_name: Option<String> = None;
    let mut pax_path: Option<String> = None;
    loop {
        let Some(header) = archive.get(at..at + BLOCK) else {
            // No end-of-archive blocks: GNU tar always writes them; a cut stream is refused.
            return Err(ArchiveError::EndsEarly);
        };
        if header.iter().all(|b| *b == 0) {
            return Ok(out);
        }
        check_sum(header)?;
        let size = number(&header[124..136])
            .ok_or(ArchiveError::Unreadable("a member's size does not read"))?;
        let kind = header[156];
        let start = at + BLOCK;
        let len = usize::try_from(size).map_err(|_| ArchiveError::TooLarge)?;
        let body = start
            .checked_add(len)
            .and_then(|end| archive.get(start..end))
            .ok_or(ArchiveError::EndsInAMember)?;
        at = start + len.div_ceil(BLOCK) * BLOCK;
        match kind {
            b'L' => {
                long_name =
                    Some(text_of(body).ok_or(ArchiveError::Unreadable("a long name is not text"))?);
                continue;
            }
            b'x' => {
                pax_path = pax_record(body, "path")?;
                continue;
            }
            b'g' => continue,
            _ => {}
        }
        let name = pax_path
            .take()
            .or(long_name.take())
            .map(Ok)
            .unwrap_or_else(|| header_name(header))?;
        if !matches!(kind, b'0' | 0 | b'7') {
            return Err(ArchiveError::NotAFile {
                name,
                kind: kind_name(kind),
            });
        }
        let name = checked_name(&name, expected)?;
        if size > MAX_FILE {
            return Err(ArchiveError::Oversized { name, size });
        }
        if out.insert(name.clone(), body.to_vec()).is_some() {
            return Err(ArchiveError::Twice(name));
        }
    }
}

/// `name` as one of the `expected` ones (a leading `./` dropped), or why it is refused.
fn checked_name(name: &str, expected: &BTreeSet<String>) -> Result<String, ArchiveError> {
    let plain = name.strip_prefix("./").unwrap_or(name);
    if plain.starts_with('/') {
        return Err(ArchiveError::Absolute(name.to_string()));
    }
    if plain
        .split('/')
        .any(|part| part.is_empty() || part == "." || part == "..")
    {
        return Err(ArchiveError::DotDot(name.to_string()));
    }
    if !expected.contains(plain) {
        return Err(ArchiveError::NotAsked(name.to_string()));
    }
    Ok(plain.to_string())
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        b'1' => "a hard link",
        b'2' => "a symlink",
        b'3' | b'4' => "a device",
        b'5' => "a folder",
        b'6' => "a FIFO",
        _ => "a member of another kind",
    }
}

fn check_sum(header: &[u8]) -> Result<(), ArchiveError> {
    let want = number(&header[148..156]).ok_or(ArchiveError::Unreadable(
        "a header's checksum does not read",
    ))?;
    let got: u64 = header
        .iter()
        .enumerate()
        .map(|(i, b)| {
            if (148..156).contains(&i) {
                u64::from(b' ')
            } else {
                u64::from(*b)
            }
        })
        .sum();
    if got == want {
        Ok(())
    } else {
        Err(ArchiveError::BadChecksum)
    }
}

/// An octal field (NUL- or space-ended), or GNU's base-256 form for large values.
fn number(field: &[u8]) -> Option<u64> {
    if field.first().is_some_and(|b| b & 0x80 != 0) {
        if field[0] & 0x40 != 0 {
            return None; // negative
        }
        return field.iter().enumerate().try_fold(0u64, |n, (i, b)| {
            let b = if i == 0 { b & 0x3f } else { *b };
            n.checked_mul(256)?.checked_add(u64::from(b))
        });
    }
    let text: String = field
        .iter()
        .take_while(|b| **b != 0)
        .map(|b| char::from(*b))
        .collect();
    let text = text.trim();
    if text.is_empty() {
        return Some(0);
    }
    u64::from_str_radix(text, 8).ok()
}

fn text_of(bytes: &[u8]) -> Option<String> {
    let end = bytes.iter().position(|b| *b == 0).unwrap_or(bytes.len());
    String::from_utf8(bytes[..end].to_vec()).ok()
}

/// The header's own name: ustar's `prefix/name`, or GNU's `name` (its prefix field holds times).
fn header_name(header: &[u8]) -> Result<String, ArchiveError> {
    let name =
        text_of(&header[..100]).ok_or(ArchiveError::Unreadable("a member's name is not text"))?;
    let ustar = &header[257..263] == b"ustar\0";
    let prefix = if ustar {
        text_of(&header[345..500]).ok_or(ArchiveError::Unreadable("a member's name is not text"))?
    } else {
        String::new()
    };
    Ok(if prefix.is_empty() {
        name
    } else {
        format!("{prefix}/{name}")
    })
}

/// The value of `key` in a pax extended header's records (`<len> <key>=<value>\n`).
fn pax_record(body: &[u8], key: &str) -> Result<Option<String>, ArchiveError> {
    let mut rest = body;
    let mut found = None;
    while !rest.is_empty() && rest[0] != 0 {
        let space = rest
            .iter()
            .position(|b| *b == b' ')
            .ok_or(ArchiveError::Unreadable("a pax record does not read"))?;
        let len: usize = std::str::from_utf8(&rest[..space])
            .ok()
            .and_then(|n| n.parse().ok())
            .filter(|n| *n > space + 1 && *n <= rest.len())
            .ok_or(ArchiveError::Unreadable("a pax record does not read"))?;
        let record = &rest[space + 1..len];
        let record = record.strip_suffix(b"\n").unwrap_or(record);
        if let Some(eq) = record.iter().position(|b| *b == b'=')
            && &record[..eq] == key.as_bytes()
        {
            found = Some(
                String::from_utf8(record[eq + 1..].to_vec())
                    .map_err(|_| ArchiveError::Unreadable("a pax path is not text"))?,
            );
        }
        rest = &rest[len..];
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ustar header for `name` of `kind` and `size`, checksum filled in.
    fn header(name: &str, kind: u8, size: usize) -> Vec<u8> {
        let mut h = vec![0u8; BLOCK];
        h[..name.len()].copy_from_slice(name.as_bytes());
        h[100..107].copy_from_slice(b"0000644");
        h[124..135].copy_from_slice(format!("{size:011o}").as_bytes());
        h[156] = kind;
        h[257..263].copy_from_slice(b"ustar\0");
        h[263..265].copy_from_slice(b"00");
        h[148..156].copy_from_slice(b"        ");
        let sum: u64 = h.iter().map(|b| u64::from(*b)).sum();
        h[148..155].copy_from_slice(format!("{sum:06o}\0").as_bytes());
        h
    }

    fn member(name: &str, kind: u8, body: &[u8]) -> Vec<u8> {
        let mut m = header(name, kind, body.len());
        m.extend_from_slice(body);
        m.resize(m.len().div_ceil(BLOCK) * BLOCK, 0);
        m
    }

    fn archive(members: &[Vec<u8>]) -> Vec<u8> {
        let mut a: Vec<u8> = members.concat();
        a.extend_from_slice(&[0u8; 2 * BLOCK]);
        a
    }

    fn expected() -> BTreeSet<String> {
        [".claude/settings.json", ".codex/config.toml"]
            .into_iter()
            .map(String::from)
            .collect()
    }

    #[test]
    fn regular_files_of_the_expected_names_are_read_as_bytes() {
        let a = archive(&[
            member(".claude/settings.json", b'0', b"{}\n"),
            member("./.codex/config.toml", 0, b"[x]\n"),
        ]);
        let read = files(&a, &expected()).unwrap();
        assert_eq!(read[".claude/settings.json"], b"{}\n");
        assert_eq!(read[".codex/config.toml"], b"[x]\n");
        assert!(files(&archive(&[]), &expected()).unwrap().is_empty());
    }

    #[test]
    fn links_folders_odd_names_and_broken_archives_are_refused() {
        let bad = [
            (member(".claude/settings.json", b'2', b""), "a symlink"),
            (member(".claude/settings.json", b'1', b""), "a hard link"),
            (member(".claude", b'5', b""), "a folder"),
            (member("/etc/passwd", b'0', b"x"), "absolute"),
            (member("../.claude/settings.json", b'0', b"x"), "'..'"),
            (member(".claude/../.codex/config.toml", b'0', b"x"), "'..'"),
            (member(".bashrc", b'0', b"x"), "did not ask for"),
        ];
        for (m, why) in bad {
            let err = files(&archive(&[m]), &expected()).unwrap_err().to_string();
            assert!(err.contains(why), "{why}: {err}");
        }
        let twice = archive(&[
            member(".claude/settings.json", b'0', b"a"),
            member(".claude/settings.json", b'0', b"b"),
        ]);
        assert!(
            files(&twice, &expected())
                .unwrap_err()
                .to_string()
                .contains("twice")
        );
        // A pax path or a GNU long name is the name that counts, and is checked.
        let mut pax = member("PaxHeader/x", b'x', b"20 path=/etc/shadow\n");
        pax.extend(member(".claude/settings.json", b'0', b"x"));
        assert!(
            files(&archive(&[pax]), &expected())
                .unwrap_err()
                .to_string()
                .contains("absolute")
        );
        let mut long = member("././@LongLink", b'L', b"../../.ssh/authorized_keys\0");
        long.extend(member(".claude/settings.json", b'0', b"x"));
        assert!(
            files(&archive(&[long]), &expected())
                .unwrap_err()
                .to_string()
                .contains("..")
        );
        // A cut archive, a bad checksum.
        let whole = archive(&[member(".claude/settings.json", b'0', b"{}")]);
        assert!(files(&whole[..BLOCK + 10], &expected()).is_err());
        let mut wrong = whole.clone();
        wrong[0] ^= 1;
        assert!(
            files(&wrong, &expected())
                .unwrap_err()
                .to_string()
                .contains("checksum")
        );
    }

    /// What GNU tar really writes (when the system has one): `-h` turns the host's own links
    /// into regular files; without it, a link is a link and is refused.
    #[cfg(unix)]
    #[test]
    fn gnu_tars_own_output_reads_and_a_link_in_it_is_refused() {
        let dir = std::env::temp_dir().join(format!("vults-archive-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(".claude")).unwrap();
        std::fs::write(dir.join("real.json"), "{\"a\":1}\n").unwrap();
        std::os::unix::fs::symlink(dir.join("real.json"), dir.join(".claude/settings.json"))
            .unwrap();
        let tar = |flags: &str| {
            std::process::Command::new("tar")
                .arg(flags)
                .arg("-")
                .arg("-C")
                .arg(&dir)
                .arg(".claude/settings.json")
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| o.stdout)
        };
        if let Some(followed) = tar("-chf") {
            let read = files(&followed, &expected()).unwrap();
            assert_eq!(read[".claude/settings.json"], b"{\"a\":1}\n");
        }
        if let Some(linked) = tar("-cf") {
            assert!(
                files(&linked, &expected())
                    .unwrap_err()
                    .to_string()
                    .contains("symlink")
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
