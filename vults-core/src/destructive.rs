//! Destructive calls: a classifier over the whole command. (API fixed; body being written.)

/// Why `command` is destructive (what was found), or `None`.
pub fn classify(_command: &str) -> Option<String> {
    None
}
