//! Who is on the other end of a local socket: the peer's user, as the kernel says. The hook
//! checks it before it hands an event to the app (`vults-hook`'s trust), and the app before it
//! shows itself for a second start (`vults-ui`'s instance). std and libc only, so the hook
//! stays lean.

use std::io;
use std::os::unix::net::UnixStream;

/// The peer's effective uid, from the kernel (`SO_PEERCRED`).
#[cfg(any(target_os = "linux", target_os = "android"))]
pub fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are valid for writes of the sizes given.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(cred.uid)
}

/// The peer's effective uid, from the kernel (`getpeereid`: macOS and the BSDs).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub fn peer_uid(stream: &UnixStream) -> io::Result<u32> {
    use std::os::fd::AsRawFd;
    let (mut uid, mut gid) = (0, 0);
    // SAFETY: `uid` and `gid` are valid for writes.
    let rc = unsafe { libc::getpeereid(stream.as_raw_fd(), &mut uid, &mut gid) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(uid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_socket_of_this_process_is_served_by_this_user() {
        let (a, b) = UnixStream::pair().unwrap();
        assert_eq!(peer_uid(&a).unwrap(), crate::paths::current_uid());
        assert_eq!(peer_uid(&b).unwrap(), crate::paths::current_uid());
    }

    #[test]
    fn both_ends_of_a_listeners_connection_read_their_peer() {
        let dir = std::env::temp_dir().join(format!("vults-peer-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s");
        let _ = std::fs::remove_file(&path);
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let client = UnixStream::connect(&path).unwrap();
        let (served, _) = listener.accept().unwrap();
        assert_eq!(peer_uid(&client).unwrap(), crate::paths::current_uid());
        assert_eq!(peer_uid(&served).unwrap(), crate::paths::current_uid());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
