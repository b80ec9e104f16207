//! Disks: writing to a disk device (`dd of=`, `> /dev/sda`, `tee /dev/nvme0n1`), making a
//! file system (`mkfs`, `mkswap`), wiping (`wipefs`, `shred`, `blkdiscard`).

use super::cx::Cx;
use crate::shell::Word;

pub(super) const DISK: &str = "write to a disk device";

pub(super) fn check(
    prog: &str,
    args: &[Word],
    _stdin: &[Word],
    _depth: usize,
    _cx: Cx,
) -> Option<String> {
    match prog {
        "dd" if args.iter().any(|a| a.text.starts_with("of=")) => Some("dd of=".into()),
        p if p.starts_with("mkfs") || p == "mke2fs" || p == "mkswap" => Some("mkfs".into()),
        "wipefs" | "shred" | "blkdiscard" => Some(prog.to_string()),
        "tee" | "cp" | "mv" if args.iter().any(|a| is_disk_device(&a.text)) => Some(DISK.into()),
        _ => None,
    }
}

pub(super) fn is_disk_device(path: &str) -> bool {
    let Some(dev) = path.strip_prefix("/dev/") else {
        return false;
    };
    [
        "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "dm-", "md", "mapper/", "loop",
        "sr",
    ]
    .iter()
    .any(|p| dev.starts_with(p))
}
