//! The private local socket: where it is made, who may connect.
//!
//! Unix: a socket file (mode 0600) in a folder only the user can enter (0700), and the peer's
//! effective uid checked on every connection. A socket file left by an app that died is
//! replaced; one that still answers belongs to a running Vults, which keeps it.
//! Windows: a named pipe whose security descriptor (owner and one protected allow entry) names
//! only this user's SID.

use interprocess::local_socket::tokio::{Listener, Stream};
use interprocess::local_socket::traits::tokio::Stream as _;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
use std::io;
use std::path::Path;

/// Why the socket could not be made.
pub fn already_running(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::AddrInUse,
        format!(
            "another Vults is running (it answers on {}); quit it first, or set VULTS_HOME / \
             VULTS_SOCKET to run a second copy beside it",
            path.display()
        ),
    )
}

/// Creates the listener at `socket`. When the socket lives in `runtime_dir` (or a folder of
/// it, as `<runtime>/hosts/`), each folder from `runtime_dir` down is checked to be this user's
/// own (not a symlink) and made (or tightened to) 0700.
#[cfg(unix)]
pub fn listen(socket: &Path, runtime_dir: &Path) -> io::Result<Listener> {
    use interprocess::os::unix::local_socket::ListenerOptionsExt;
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt};

    let parent = socket
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if !parent.exists() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)?;
    }
    if parent.starts_with(runtime_dir) {
        // Vults' own folders, from the runtime folder down to the socket's (`<runtime>/hosts/`
        // for an SSH host's): each one someone else made there first (a squatted
        // /tmp/vults-<uid>), or a symlink, is refused; each of ours is made private.
        let mut dir = runtime_dir.to_path_buf();
        own_private_dir(&dir)?;
        for part in parent.strip_prefix(runtime_dir).unwrap_or(Path::new("")) {
            dir.push(part);
            own_private_dir(&dir)?;
        }
    }
    match std::fs::symlink_metadata(socket) {
        Ok(meta) if meta.file_type().is_socket() => {
            match std::os::unix::net::UnixStream::connect(socket) {
                // Something answers: a live app. Leave its socket alone.
                Ok(_) => return Err(already_running(socket)),
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    tracing::info!("replacing a stale socket left at {}", socket.display());
                    std::fs::remove_file(socket)?;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(_) => {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists and is not a socket; move it away",
                    socket.display()
                ),
            ));
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let name = socket.to_fs_name::<GenericFilePath>()?;
    ListenerOptions::new()
        .name(name)
        .mode(0o600)
        // Never displace a listener: two copies starting at once → the second gets AddrInUse.
        .try_overwrite(false)
        .create_tokio()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AddrInUse {
                already_running(socket)
            } else {
                e
            }
        })
}

/// Checks that `dir` is a real folder (not a symlink) of this user's, and makes it 0700.
#[cfg(unix)]
fn own_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = std::fs::symlink_metadata(dir)?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is not a folder but a {}; remove it (or set VULTS_SOCKET)",
                dir.display(),
                if meta.file_type().is_symlink() {
                    "symlink"
                } else {
                    "file"
                }
            ),
        ));
    }
    let owner = meta.uid();
    if owner != vults_core::paths::current_uid() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} belongs to uid {owner}, not to you; remove it (or set VULTS_SOCKET)",
                dir.display()
            ),
        ));
    }
    if meta.mode() & 0o777 != 0o700 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot make {} private (0700): {e}", dir.display()),
            )
        })?;
    }
    Ok(())
}

/// Creates the named pipe, admitting only this user.
#[cfg(windows)]
pub fn listen(socket: &Path, _runtime_dir: &Path) -> io::Result<Listener> {
    use interprocess::local_socket::traits::Stream as _;
    use interprocess::os::windows::local_socket::ListenerOptionsExt;

    // A pipe that answers belongs to a running Vults.
    if let Ok(name) = socket.to_fs_name::<GenericFilePath>()
        && interprocess::local_socket::Stream::connect(name).is_ok()
    {
        return Err(already_running(socket));
    }
    let sd = owner_only()?;
    let name = socket.to_fs_name::<GenericFilePath>()?;
    ListenerOptions::new()
        .name(name)
        .security_descriptor(sd)
        .create_tokio()
        .map_err(|e| {
            if e.kind() == io::ErrorKind::AddrInUse || e.kind() == io::ErrorKind::PermissionDenied {
                already_running(socket)
            } else {
                e
            }
        })
}

/// A named pipe's security descriptor that admits this user only: this user as owner, and a
/// protected DACL of one entry, full access for this user. (Not "OW", the owner's rights: an
/// elevated process's objects are owned by Administrators, so OW would admit every
/// administrator.) The hook's pipe and the phone commands' channel are made with it.
#[cfg(windows)]
pub fn owner_only() -> io::Result<interprocess::os::windows::security_descriptor::SecurityDescriptor>
{
    use interprocess::os::windows::security_descriptor::SecurityDescriptor;
    let me = current_user_sid()?;
    let sddl = widestring::U16CString::from_str(format!("O:{me}D:P(A;;GA;;;{me})"))
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
    SecurityDescriptor::deserialize(&sddl)
}

/// This process's user as an SID string (`S-1-5-21-…`), from its token.
#[cfg(windows)]
pub fn current_user_sid() -> io::Result<String> {
    // SAFETY: the pseudo-handle of this process needs no closing.
    user_sid_of(unsafe { windows_sys::Win32::System::Threading::GetCurrentProcess() })
}

/// The user a process `pid` runs as, as an SID string: who serves a pipe a command connected
/// to (`GetNamedPipeServerProcessId`), before it trusts what it reads there.
#[cfg(windows)]
pub fn user_sid_of_process(pid: u32) -> io::Result<String> {
    use windows_sys::Win32::Foundation::CloseHandle;
    use windows_sys::Win32::System::Threading::{OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: the handle is checked, used once and closed.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            return Err(io::Error::last_os_error());
        }
        let sid = user_sid_of(process);
        CloseHandle(process);
        sid
    }
}

#[cfg(windows)]
fn user_sid_of(process: windows_sys::Win32::Foundation::HANDLE) -> io::Result<String> {
    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, LocalFree};
    use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
    use windows_sys::Win32::Security::{GetTokenInformation, TOKEN_QUERY, TOKEN_USER, TokenUser};
    use windows_sys::Win32::System::Threading::OpenProcessToken;
    // SAFETY: the token is opened and closed here; the buffer is u64-aligned and its length
    // given; the SID string is NUL-terminated and freed with LocalFree.
    unsafe {
        let mut token: HANDLE = std::ptr::null_mut();
        if OpenProcessToken(process, TOKEN_QUERY, &mut token) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut buf = vec![0u64; 128];
        let mut len = 0u32;
        let ok = GetTokenInformation(
            token,
            TokenUser,
            buf.as_mut_ptr().cast(),
            (buf.len() * 8) as u32,
            &mut len,
        );
        let err = io::Error::last_os_error();
        CloseHandle(token);
        if ok == 0 {
            return Err(err);
        }
        let user = &*(buf.as_ptr() as *const TOKEN_USER);
        let mut text: *mut u16 = std::ptr::null_mut();
        if ConvertSidToStringSidW(user.User.Sid, &mut text) == 0 {
            return Err(io::Error::last_os_error());
        }
        let mut n = 0;
        while *text.add(n) != 0 {
            n += 1;
        }
        let sid = String::from_utf16_lossy(std::slice::from_raw_parts(text, n));
        LocalFree(text.cast());
        Ok(sid)
    }
}

/// A connection refused because its peer is not this user; `Display` says who it was, for
/// the log.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// Another user's process.
    #[error(
        "refused a connection from uid {uid}{} (this app runs as uid {me})",
        pid.map(|p| format!(" (pid {p})")).unwrap_or_default()
    )]
    OtherUser {
        /// The peer's user.
        uid: u32,
        /// The peer's process, when the system says.
        pid: Option<i32>,
        /// This app's user.
        me: u32,
    },
    /// The peer's user is not said.
    #[error("refused a connection whose user cannot be read")]
    Unknown,
    /// The peer's credentials could not be read.
    #[error("refused a connection whose credentials cannot be read: {0}")]
    Unreadable(io::Error),
}

impl From<PeerError> for crate::messages::Notice {
    fn from(e: PeerError) -> Self {
        use crate::messages::Notice;
        match e {
            PeerError::OtherUser { uid, pid, me } => Notice::RefusedUser { uid, pid, me },
            PeerError::Unknown => Notice::RefusedUnknownUser,
            PeerError::Unreadable(e) => Notice::RefusedUnreadable {
                error: e.to_string(),
            },
        }
    }
}

/// Whether a connected peer runs as this user. `Err` says who it was, for the log.
#[cfg(unix)]
pub fn check_peer(stream: &Stream) -> Result<(), PeerError> {
    use interprocess::local_socket::traits::StreamCommon;
    let me = vults_core::paths::current_uid();
    match stream.peer_creds() {
        Ok(creds) => match creds.euid() {
            Some(uid) if uid == me => Ok(()),
            Some(uid) => Err(PeerError::OtherUser {
                uid,
                pid: creds.pid(),
                me,
            }),
            None => Err(PeerError::Unknown),
        },
        Err(e) => Err(PeerError::Unreadable(e)),
    }
}

/// On Windows the pipe's security descriptor already admits only the owner.
#[cfg(windows)]
pub fn check_peer(_stream: &Stream) -> Result<(), PeerError> {
    Ok(())
}

/// Connects to a socket path (the same naming the listener uses); for tools and tests.
pub async fn connect(socket: &Path) -> io::Result<Stream> {
    Stream::connect(socket.to_fs_name::<GenericFilePath>()?).await
}
