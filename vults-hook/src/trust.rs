//! Whom the hook hands an event to, and takes an answer from: only the user's own app.
//!
//! Anyone may listen on a path before the app does (a `/tmp/vults-<uid>` made first by another
//! user when `XDG_RUNTIME_DIR` is unset: su, cron, `docker exec`, many SSH logins), and an
//! `allow` printed from such a listener would answer the agent with no card and no audit. So,
//! before anything is sent (docs/hook-protocol.md §4):
//!
//! - Unix: the socket's folder must be a real folder (not a symlink) owned by this user and
//!   writable by nobody else; the socket file must be a socket owned by this user; and the
//!   process listening on it must run as this user (`SO_PEERCRED` on Linux, `getpeereid` on
//!   macOS and the BSDs). On an SSH host the listener is the user's own `sshd` session, so the
//!   same checks hold for the forwarded socket.
//! - Windows: the pipe's server process (`GetNamedPipeServerProcessId`) must run as this user
//!   (its token's user SID is ours), and the pipe's owner must be this user too (the app sets
//!   it; it creates the pipe with `FILE_FLAG_FIRST_PIPE_INSTANCE`, so it never serves as an
//!   extra instance of a pipe someone else made first).
//!
//! Any check that fails, or cannot be made, is a refusal: the hook stays silent and the agent
//! asks in its own terminal.

use std::io;

fn refused(why: String) -> io::Error {
    io::Error::new(io::ErrorKind::PermissionDenied, why)
}

/// Checks the socket's folder and file before connecting.
#[cfg(unix)]
pub fn socket_path(socket: &std::path::Path) -> io::Result<()> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let me = vults_core::paths::current_uid();
    let folder = socket
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let meta = std::fs::symlink_metadata(folder)?;
    if !meta.is_dir() {
        return Err(refused(format!(
            "{} is not a folder (a symlink?)",
            folder.display()
        )));
    }
    if meta.uid() != me {
        return Err(refused(format!(
            "{} belongs to uid {}, not to uid {me}",
            folder.display(),
            meta.uid()
        )));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(refused(format!(
            "{} can be written by others (mode {:o})",
            folder.display(),
            meta.mode() & 0o777
        )));
    }
    let meta = std::fs::symlink_metadata(socket)?;
    if !meta.file_type().is_socket() {
        return Err(refused(format!("{} is not a socket", socket.display())));
    }
    if meta.uid() != me {
        return Err(refused(format!(
            "the socket {} belongs to uid {}, not to uid {me}",
            socket.display(),
            meta.uid()
        )));
    }
    Ok(())
}

/// Checks who listens on the other end of a connected socket.
#[cfg(unix)]
pub fn peer(stream: &std::os::unix::net::UnixStream) -> io::Result<()> {
    let me = vults_core::paths::current_uid();
    match vults_core::peer::peer_uid(stream)? {
        uid if uid == me => Ok(()),
        uid => Err(refused(format!(
            "the socket is served by uid {uid}, not by uid {me}"
        ))),
    }
}

/// Checks who serves the pipe just opened: its server process and its owner must be this user.
#[cfg(windows)]
pub fn pipe(file: &std::fs::File) -> io::Result<()> {
    use std::os::windows::io::AsRawHandle;
    use win::*;
    let handle = file.as_raw_handle();
    let mut pid = 0u32;
    // SAFETY: a pipe handle we own; `pid` is valid for a write.
    if unsafe { GetNamedPipeServerProcessId(handle, &mut pid) } == 0 {
        return Err(refused(format!(
            "cannot tell who serves the pipe: {}",
            io::Error::last_os_error()
        )));
    }
    let me = user_of_process(None)?;
    // SAFETY: OpenProcess only reads its arguments; the handle is closed by `Owned`.
    let process = Owned(unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) });
    if process.0.is_null() {
        return Err(refused(format!(
            "cannot open the pipe's server process {pid}: {}",
            io::Error::last_os_error()
        )));
    }
    let server = user_of_process(Some(process.0))?;
    // SAFETY: both are valid SIDs inside their buffers, which live to the end of this function.
    if unsafe { EqualSid(server.sid(), me.sid()) } == 0 {
        return Err(refused(format!(
            "the pipe is served by process {pid} of another user"
        )));
    }
    let mut owner: *mut core::ffi::c_void = std::ptr::null_mut();
    let mut sd: *mut core::ffi::c_void = std::ptr::null_mut();
    // SAFETY: out-pointers valid for writes; the descriptor is freed with LocalFree below and
    // `owner` points into it.
    let rc = unsafe {
        GetSecurityInfo(
            handle,
            SE_KERNEL_OBJECT,
            OWNER_SECURITY_INFORMATION,
            &mut owner,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut sd,
        )
    };
    if rc != 0 {
        return Err(refused(format!(
            "cannot read the pipe's owner: {}",
            io::Error::from_raw_os_error(rc as i32)
        )));
    }
    // SAFETY: `owner` points into `sd`, a valid descriptor until freed just after.
    let same = !owner.is_null() && unsafe { EqualSid(owner, me.sid()) } != 0;
    // SAFETY: `sd` was allocated by GetSecurityInfo.
    unsafe { LocalFree(sd) };
    if !same {
        return Err(refused("the pipe is owned by another user".into()));
    }
    Ok(())
}

/// A process's user SID (`None`: this process), in a buffer that holds its `TOKEN_USER`.
#[cfg(windows)]
fn user_of_process(process: Option<win::Handle>) -> io::Result<win::TokenUser> {
    use win::*;
    // SAFETY: GetCurrentProcess returns a pseudo-handle; the token is closed by `Owned`; the
    // buffer is u64-aligned and its length given.
    unsafe {
        let process = match process {
            Some(p) => p,
            None => GetCurrentProcess(),
        };
        let mut token: Handle = std::ptr::null_mut();
        if OpenProcessToken(process, TOKEN_QUERY, &mut token) == 0 {
            return Err(refused(format!(
                "cannot read a process's user: {}",
                io::Error::last_os_error()
            )));
        }
        let token = Owned(token);
        let mut buf = vec![0u64; 128];
        let mut len = 0u32;
        if GetTokenInformation(
            token.0,
            TOKEN_USER_CLASS,
            buf.as_mut_ptr().cast(),
            (buf.len() * 8) as u32,
            &mut len,
        ) == 0
        {
            return Err(refused(format!(
                "cannot read a process's user: {}",
                io::Error::last_os_error()
            )));
        }
        Ok(TokenUser(buf))
    }
}

#[cfg(windows)]
mod win {
    //! The few Win32 calls the checks need (the hook links no windows crate).
    use core::ffi::c_void;

    pub type Handle = *mut c_void;
    pub const PROCESS_QUERY_LIMITED_INFORMATION: u32 = 0x1000;
    pub const TOKEN_QUERY: u32 = 0x0008;
    /// `TokenUser` in `TOKEN_INFORMATION_CLASS`.
    pub const TOKEN_USER_CLASS: u32 = 1;
    pub const SE_KERNEL_OBJECT: u32 = 6;
    pub const OWNER_SECURITY_INFORMATION: u32 = 1;

    #[link(name = "kernel32")]
    unsafe extern "system" {
        pub fn GetNamedPipeServerProcessId(pipe: Handle, pid: *mut u32) -> i32;
        pub fn OpenProcess(access: u32, inherit: i32, pid: u32) -> Handle;
        pub fn GetCurrentProcess() -> Handle;
        pub fn CloseHandle(handle: Handle) -> i32;
        pub fn LocalFree(mem: *mut c_void) -> *mut c_void;
    }
    #[link(name = "advapi32")]
    unsafe extern "system" {
        pub fn OpenProcessToken(process: Handle, access: u32, token: *mut Handle) -> i32;
        pub fn GetTokenInformation(
            token: Handle,
            class: u32,
            info: *mut c_void,
            len: u32,
            returned: *mut u32,
        ) -> i32;
        pub fn EqualSid(a: *mut c_void, b: *mut c_void) -> i32;
        #[allow(clippy::too_many_arguments)] // reason: the Win32 signature
        pub fn GetSecurityInfo(
            handle: Handle,
            object_type: u32,
            info: u32,
            owner: *mut *mut c_void,
            group: *mut *mut c_void,
            dacl: *mut *mut c_void,
            sacl: *mut *mut c_void,
            sd: *mut *mut c_void,
        ) -> u32;
    }

    /// A handle closed when dropped.
    pub struct Owned(pub Handle);

    impl Drop for Owned {
        fn drop(&mut self) {
            if !self.0.is_null() {
                // SAFETY: a handle this code opened and nothing else closes.
                unsafe { CloseHandle(self.0) };
            }
        }
    }

    /// A `TOKEN_USER` as `GetTokenInformation` wrote it: a SID pointer (into the same buffer)
    /// first.
    pub struct TokenUser(pub Vec<u64>);

    impl TokenUser {
        pub fn sid(&self) -> *mut c_void {
            // SAFETY: the buffer starts with TOKEN_USER { User: { Sid, Attributes } }.
            unsafe { *(self.0.as_ptr() as *const *mut c_void) }
        }
    }
}
