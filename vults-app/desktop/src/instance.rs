//! One window per user (per `VULTS_HOME`): a second start asks the running app to bring its
//! window forward, then exits 0.
//!
//! The channel is its own small socket ([`Paths::instance_socket`]: `vults.instance.sock`
//! beside the hook socket; a named pipe on Windows), never the hook socket, so the hook
//! protocol stays exactly version 9. The only message is the line `show`, answered `ok`.
//! Unix: the socket is made 0600 in the runtime folder (0700), and a peer of another user is
//! refused. Windows: the pipe admits only its owner.
//!
//! `--headless` does not use it: its hook socket already refuses a second app on the same
//! `VULTS_HOME` ("another Vults is running").

use std::io::{self, BufRead, BufReader, Write};
use std::sync::mpsc;
use std::time::Duration;
use vults_core::paths::Paths;

/// How long a second start waits for the running app's `ok`.
const ANSWER_WITHIN: Duration = Duration::from_secs(3);

/// What [`claim`] found.
pub enum Claim {
    /// No app runs: this process is the one; it listens for later starts.
    First(InstanceListener),
    /// An app runs and was asked to show its window.
    Running,
}

/// The running app's end of the channel, not yet serving.
pub struct InstanceListener {
    #[cfg(unix)]
    listener: std::os::unix::net::UnixListener,
    #[cfg(windows)]
    listener: interprocess::local_socket::Listener,
}

/// The channel's socket file, removed when this is dropped (the app quits: the tray's Quit, or
/// SIGTERM/SIGINT) — only if it is still the file this app made, so a later app's is never
/// taken away. Windows' pipes go with their process; nothing to remove there.
pub struct SocketFile {
    #[cfg(unix)]
    path: std::path::PathBuf,
    /// (device, inode, change time in ns) of the file when it was made: an inode number alone
    /// is reused at once by a file made after this one is removed.
    #[cfg(unix)]
    id: Option<(u64, u64, i64)>,
}

#[cfg(unix)]
fn file_id(path: &std::path::Path) -> Option<(u64, u64, i64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).ok().map(|m| {
        (
            m.dev(),
            m.ino(),
            m.ctime().saturating_mul(1_000_000_000) + m.ctime_nsec(),
        )
    })
}

impl Drop for SocketFile {
    fn drop(&mut self) {
        #[cfg(unix)]
        if self.id.is_some() && file_id(&self.path) == self.id {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Asks a running app to show its window, or becomes the running app.
pub fn claim(paths: &Paths) -> io::Result<Claim> {
    let socket = paths.instance_socket();
    if ask_to_show(&socket).is_ok() {
        return Ok(Claim::Running);
    }
    listen(paths).map(Claim::First)
}

impl InstanceListener {
    /// What removes the channel's socket file when the app ends: hold it until then.
    pub fn remove_on_exit(&self) -> SocketFile {
        #[cfg(unix)]
        {
            let path = self
                .listener
                .local_addr()
                .ok()
                .and_then(|a| a.as_pathname().map(std::path::Path::to_path_buf))
                .unwrap_or_default();
            let id = file_id(&path);
            SocketFile { path, id }
        }
        #[cfg(windows)]
        SocketFile {}
    }

    /// Serves on a thread of its own: each `show` is sent on the returned channel, then
    /// `wake` is called (the window's repaint, so an idle window notices).
    pub fn serve(self, wake: std::sync::Arc<dyn Fn() + Send + Sync>) -> mpsc::Receiver<()> {
        let (tx, rx) = mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("vults-instance".into())
            .spawn(move || self.accept_loop(&tx, &*wake));
        if let Err(e) = spawned {
            tracing::warn!("cannot listen for a second start: {e}");
        }
        rx
    }

    #[cfg(unix)]
    fn accept_loop(self, tx: &mpsc::Sender<()>, wake: &(dyn Fn() + Send + Sync)) {
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else { continue };
            if let Err(why) = same_user(&stream) {
                tracing::warn!("instance channel: {why}");
                continue;
            }
            let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            if handle(&stream, tx, wake).is_err() {
                return;
            }
        }
    }

    #[cfg(windows)]
    fn accept_loop(self, tx: &mpsc::Sender<()>, wake: &(dyn Fn() + Send + Sync)) {
        use interprocess::local_socket::traits::ListenerExt as _;
        for stream in self.listener.incoming() {
            let Ok(stream) = stream else { continue };
            if handle(&stream, tx, wake).is_err() {
                return;
            }
        }
    }
}

/// Reads one line; `show` is passed on and answered. `Err` when the window is gone.
fn handle<S>(stream: S, tx: &mpsc::Sender<()>, wake: &(dyn Fn() + Send + Sync)) -> Result<(), ()>
where
    S: io::Read + io::Write,
{
    let mut reader = BufReader::new(io::Read::take(stream, 64));
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.trim() != "show" {
        tracing::warn!("instance channel: ignored a message that is not `show`");
        return Ok(());
    }
    tracing::info!("a second start asked for the window");
    tx.send(()).map_err(|_| ())?;
    wake();
    let mut stream = reader.into_inner().into_inner();
    let _ = stream.write_all(b"ok\n");
    Ok(())
}

#[cfg(unix)]
fn same_user(stream: &std::os::unix::net::UnixStream) -> Result<(), String> {
    let uid = vults_core::peer::peer_uid(stream)
        .map_err(|_| "refused a peer whose user cannot be read")?;
    let me = vults_core::paths::current_uid();
    if uid != me {
        return Err(format!(
            "refused a peer of uid {uid} (this app runs as uid {me})"
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn ask_to_show(socket: &std::path::Path) -> io::Result<()> {
    let mut stream = std::os::unix::net::UnixStream::connect(socket)?;
    // Only this user's own app may tell a start to end (another user's listener there would).
    same_user(&stream).map_err(|why| io::Error::new(io::ErrorKind::PermissionDenied, why))?;
    stream.set_read_timeout(Some(ANSWER_WITHIN))?;
    stream.set_write_timeout(Some(ANSWER_WITHIN))?;
    stream.write_all(b"show\n")?;
    expect_ok(stream)
}

#[cfg(windows)]
fn ask_to_show(socket: &std::path::Path) -> io::Result<()> {
    use interprocess::local_socket::traits::Stream as _;
    use interprocess::local_socket::{GenericFilePath, ToFsName};
    let mut stream =
        interprocess::local_socket::Stream::connect(socket.to_fs_name::<GenericFilePath>()?)?;
    stream.write_all(b"show\n")?;
    // No read timeout on a pipe here: the answer is bounded by a thread of its own.
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(expect_ok(stream));
    });
    rx.recv_timeout(ANSWER_WITHIN)
        .unwrap_or_else(|_| Err(io::Error::new(io::ErrorKind::TimedOut, "no answer")))
}

fn expect_ok(stream: impl io::Read) -> io::Result<()> {
    let mut line = String::new();
    BufReader::new(stream.take(64)).read_line(&mut line)?;
    if line.trim() == "ok" {
        Ok(())
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a Vults app",
        ))
    }
}

#[cfg(unix)]
fn listen(paths: &Paths) -> io::Result<InstanceListener> {
    use std::os::unix::fs::{DirBuilderExt, FileTypeExt, PermissionsExt};
    let socket = paths.instance_socket();
    if let Some(parent) = socket.parent().filter(|p| !p.exists()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(parent)?;
    }
    // Nothing answered on it (see `claim`): a socket file left by an app that died.
    if let Ok(meta) = std::fs::symlink_metadata(&socket)
        && meta.file_type().is_socket()
    {
        std::fs::remove_file(&socket)?;
    }
    let listener = std::os::unix::net::UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    Ok(InstanceListener { listener })
}

#[cfg(windows)]
fn listen(paths: &Paths) -> io::Result<InstanceListener> {
    use interprocess::local_socket::{GenericFilePath, ListenerOptions, ToFsName};
    use interprocess::os::windows::local_socket::ListenerOptionsExt;
    let socket = paths.instance_socket();
    // This user alone, as the hook's pipe ("OW", the owner's rights, would admit every
    // administrator: an elevated process's objects are owned by Administrators).
    let sd = vults_engine::pipe_security::owner_only()?;
    let listener = ListenerOptions::new()
        .name(socket.to_fs_name::<GenericFilePath>()?)
        .security_descriptor(sd)
        .create_sync()?;
    Ok(InstanceListener { listener })
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_second_claim_asks_the_first_to_show() {
        let home = std::env::temp_dir().join(format!("vults-inst-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        let Ok(Claim::First(listener)) = claim(&paths) else {
            panic!("the first claim listens");
        };
        let woken = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = woken.clone();
        let shows = listener.serve(std::sync::Arc::new(move || {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }));
        assert!(matches!(claim(&paths), Ok(Claim::Running)));
        assert!(shows.recv_timeout(Duration::from_secs(2)).is_ok());
        assert_eq!(woken.load(std::sync::atomic::Ordering::SeqCst), 1);
        // A message that is not `show` shows nothing.
        let mut other = std::os::unix::net::UnixStream::connect(paths.instance_socket()).unwrap();
        other.write_all(b"quit\n").unwrap();
        assert!(shows.recv_timeout(Duration::from_millis(300)).is_err());
        let _ = std::fs::remove_dir_all(&home);
    }

    /// The channel's file goes when the app ends, but never a file another app put there since.
    #[test]
    fn the_channels_file_goes_with_the_app_and_only_its_own() {
        let home = std::env::temp_dir().join(format!("vults-inst-gone-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        let Ok(Claim::First(listener)) = claim(&paths) else {
            panic!("the first claim listens");
        };
        let file = listener.remove_on_exit();
        drop(listener);
        assert!(paths.instance_socket().exists());
        drop(file);
        assert!(
            !paths.instance_socket().exists(),
            "removed when the app ends"
        );
        // A later app's socket at the same path is left alone.
        let Ok(Claim::First(first)) = claim(&paths) else {
            panic!("listens again");
        };
        let stale = first.remove_on_exit();
        drop(first);
        std::fs::remove_file(paths.instance_socket()).unwrap();
        let Ok(Claim::First(later)) = claim(&paths) else {
            panic!("a later app listens");
        };
        drop(stale);
        assert!(
            paths.instance_socket().exists(),
            "the later app's socket stays"
        );
        drop(later);
        let _ = std::fs::remove_dir_all(&home);
    }

    #[test]
    fn a_stale_socket_file_is_replaced() {
        let home = std::env::temp_dir().join(format!("vults-inst-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&home);
        let paths = Paths::resolve(|k| (k == "VULTS_HOME").then(|| home.clone()));
        std::fs::create_dir_all(home.join("run")).unwrap();
        drop(std::os::unix::net::UnixListener::bind(paths.instance_socket()).unwrap());
        assert!(paths.instance_socket().exists());
        assert!(matches!(claim(&paths), Ok(Claim::First(_))));
        let _ = std::fs::remove_dir_all(&home);
    }
}
