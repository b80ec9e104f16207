//! Windows: the console window a process is attached to (`AttachConsole` +
//! `GetConsoleWindow`; under Windows Terminal that is a hidden window whose owner is the
//! terminal's own window), or a process's top-level window (`EnumWindows`), brought forward
//! with `SetForegroundWindow` — allowed because the person just clicked Vults.

use crate::outcome::{Failure, FailureKind};
use std::sync::Mutex;
use vults_i18n::Message;
use windows_sys::Win32::Foundation::{HWND, LPARAM};
use windows_sys::Win32::System::Console::{AttachConsole, FreeConsole, GetConsoleWindow};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    EnumWindows, GA_ROOTOWNER, GW_OWNER, GetAncestor, GetForegroundWindow, GetWindow,
    GetWindowThreadProcessId, IsIconic, IsWindowVisible, SW_RESTORE, SetForegroundWindow,
    ShowWindow,
};

/// A process has one console at a time: attaching is done by one thread at a time.
static CONSOLE: Mutex<()> = Mutex::new(());

/// The visible window showing the console `pid` is attached to.
fn console_window(pid: u32) -> Result<HWND, Failure> {
    let _guard = CONSOLE.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: plain Win32 calls; the console is attached only between these lines.
    unsafe {
        if !GetConsoleWindow().is_null() {
            // Vults itself has a console (a command-line form): leaving it is not ours to do.
            return Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-windows-own-console"),
            ));
        }
        if AttachConsole(pid) == 0 {
            return Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-windows-no-console").arg("pid", pid),
            ));
        }
        let hwnd = GetConsoleWindow();
        FreeConsole();
        if hwnd.is_null() {
            return Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-windows-console-no-window").arg("pid", pid),
            ));
        }
        let owner = GetAncestor(hwnd, GA_ROOTOWNER);
        let target = if owner.is_null() { hwnd } else { owner };
        if IsWindowVisible(target) == 0 {
            return Err(Failure::new(
                FailureKind::NotFound,
                Message::new("terminal-failure-windows-console-hidden").arg("pid", pid),
            ));
        }
        Ok(target)
    }
}

struct Search {
    pid: u32,
    found: HWND,
}

unsafe extern "system" fn each_window(hwnd: HWND, data: LPARAM) -> i32 {
    // SAFETY: `data` is the `Search` passed to EnumWindows below, alive for its call.
    let search = unsafe { &mut *(data as *mut Search) };
    let mut pid = 0u32;
    // SAFETY: plain Win32 calls on a window handle EnumWindows gave.
    unsafe {
        GetWindowThreadProcessId(hwnd, &mut pid);
        if pid == search.pid && IsWindowVisible(hwnd) != 0 && GetWindow(hwnd, GW_OWNER).is_null() {
            search.found = hwnd;
            return 0;
        }
    }
    1
}

/// The first (topmost) visible, unowned top-level window of `pid`.
fn window_of(pid: u32) -> Result<HWND, Failure> {
    let mut search = Search {
        pid,
        found: std::ptr::null_mut(),
    };
    // SAFETY: the callback only reads `search` through the pointer while EnumWindows runs.
    unsafe {
        EnumWindows(Some(each_window), &mut search as *mut Search as LPARAM);
    }
    if search.found.is_null() {
        Err(Failure::new(
            FailureKind::NotFound,
            Message::new("terminal-failure-windows-no-window").arg("pid", pid),
        ))
    } else {
        Ok(search.found)
    }
}

fn bring_forward(hwnd: HWND) -> Result<(), Failure> {
    // SAFETY: plain Win32 calls on a window handle found above.
    unsafe {
        if IsIconic(hwnd) != 0 {
            ShowWindow(hwnd, SW_RESTORE);
        }
        if SetForegroundWindow(hwnd) == 0 {
            return Err(Failure::new(
                FailureKind::Forbidden,
                Message::new("terminal-failure-windows-refused"),
            ));
        }
        // The switch is made by the window's own thread: wait for it (1 s at most).
        let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while GetForegroundWindow() != hwnd {
            if std::time::Instant::now() >= until {
                return Err(Failure::new(
                    FailureKind::Forbidden,
                    Message::new("terminal-failure-windows-not-forward"),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    Ok(())
}

pub(crate) fn raise_console(pid: u32) -> Result<(), Failure> {
    bring_forward(console_window(pid)?)
}

pub(crate) fn raise_window_of(pid: u32) -> Result<(), Failure> {
    bring_forward(window_of(pid)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A child killed when the test ends, however it ends; not waited for: a process Wine
    /// cannot end must not hang the suite.
    struct Killed(std::process::Child);

    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
        }
    }

    /// Under Wine with a display (.ci/cross.sh runs this suite under xvfb-run with
    /// VULTS_WINDOWS_DESKTOP=1): a GUI program's window and a console program's console window
    /// each taken to the foreground from the other. Run in a child process, which leaves its
    /// own console first (the app, a GUI program, has none; a test executable has one, and
    /// leaving it would lose this harness's output). Skipped without the variable (Wine then
    /// has no display to make windows on).
    #[test]
    fn a_window_and_a_console_come_forward() {
        if std::env::var_os("VULTS_WINDOWS_DESKTOP").is_none() {
            eprintln!("skipped: set VULTS_WINDOWS_DESKTOP=1 with a display (Wine + Xvfb)");
            return;
        }
        let _one_at_a_time = crate::procs::tests::SPAWNING
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        // The child's output goes to a file, not a pipe: every process it starts inherits its
        // handles, and a pipe held by one of them would keep a read waiting.
        let log = std::env::temp_dir().join(format!("vults-raise-{}.log", std::process::id()));
        let file = std::fs::File::create(&log).expect("log file");
        let mut child = Killed(
            std::process::Command::new(std::env::current_exe().expect("own exe"))
                .args([
                    "--exact",
                    "windows::tests::raise_in_a_child",
                    "--include-ignored",
                    "--nocapture",
                ])
                .env("VULTS_TERMINAL_RAISE_CHILD", "1")
                .stdin(std::process::Stdio::null())
                .stdout(file.try_clone().expect("log file"))
                .stderr(file)
                .spawn()
                .expect("the child runs"),
        );
        let until = Instant::now() + Duration::from_secs(120);
        let status = loop {
            if let Some(status) = child.0.try_wait().expect("the child") {
                break Some(status);
            }
            if Instant::now() >= until {
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let said = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        assert!(status.is_some(), "the child hung: {said}");
        assert!(status.is_some_and(|s| s.success()), "{said}");
        assert!(said.contains("1 passed"), "{said}");
    }

    #[test]
    #[ignore = "run by a_window_and_a_console_come_forward"]
    fn raise_in_a_child() {
        if std::env::var_os("VULTS_TERMINAL_RAISE_CHILD").is_none() {
            return;
        }
        // SAFETY: plain Win32 call; this child's output is a file, not the console.
        unsafe {
            FreeConsole();
        }
        let quiet = std::process::Stdio::null;
        let gui = Killed(
            std::process::Command::new("notepad.exe")
                .stdin(quiet())
                .stdout(quiet())
                .stderr(quiet())
                .spawn()
                .expect("notepad starts"),
        );
        let until = Instant::now() + Duration::from_secs(30);
        let notepad = loop {
            if let Ok(w) = window_of(gui.0.id()) {
                break w;
            }
            assert!(Instant::now() < until, "notepad showed no window");
            std::thread::sleep(Duration::from_millis(100));
        };
        // A console program in a console of its own: this test executable's sleeper, which
        // waits while its flag file exists (it reads no input and starts nothing).
        use std::os::windows::process::CommandExt;
        const CREATE_NEW_CONSOLE: u32 = 0x10;
        let flag = std::env::temp_dir().join(format!("vults-console-{}", std::process::id()));
        std::fs::write(&flag, b"").expect("flag file");
        let console = Killed(
            std::process::Command::new(std::env::current_exe().expect("own exe"))
                .args(["--exact", "procs::tests::sleeper", "--include-ignored"])
                .env("VULTS_TERMINAL_SLEEPER", &flag)
                .creation_flags(CREATE_NEW_CONSOLE)
                .stdin(quiet())
                .stdout(quiet())
                .stderr(quiet())
                .spawn()
                .expect("the console program starts"),
        );
        let until = Instant::now() + Duration::from_secs(30);
        let console_win = loop {
            if let Ok(w) = console_window(console.0.id()) {
                break w;
            }
            assert!(
                Instant::now() < until,
                "the console program showed no console window"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        eprintln!("notepad's window and the console window are up");
        assert_ne!(notepad, console_win);
        // Each raise takes the foreground from the other window.
        let check = |what: &str, result: Result<(), Failure>, window: HWND| {
            eprintln!("raised {what}: {result:?}");
            assert_eq!(result, Ok(()), "{what}");
            // SAFETY: plain Win32 call.
            assert_eq!(unsafe { GetForegroundWindow() }, window, "{what} in front");
        };
        check("notepad", raise_window_of(gui.0.id()), notepad);
        check("the console", raise_console(console.0.id()), console_win);
        check("notepad again", raise_window_of(gui.0.id()), notepad);
        let _ = std::fs::remove_file(&flag);
        assert!(raise_window_of(4_000_000_000).is_err());
        assert!(raise_console(4_000_000_000).is_err());
    }
}
