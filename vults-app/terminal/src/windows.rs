//! Windows: the console window a process is attached to (`AttachConsole` +
//! `GetConsoleWindow`; under Windows Terminal that is a hidden window whose owner is the
//! terminal's own window), or a process's top-level window (`EnumWindows`), brought forward
//! with `SetForegroundWindow` — allowed because the person just clicked Vults.

use crate::{Failure, FailureKind};
use std::sync::Mutex;
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
                "Vults has a console of its own, so it cannot look at another",
            ));
        }
        if AttachConsole(pid) == 0 {
            return Err(Failure::new(
                FailureKind::NotFound,
                format!("process {pid} has no console window"),
            ));
        }
        let hwnd = GetConsoleWindow();
        FreeConsole();
        if hwnd.is_null() {
            return Err(Failure::new(
                FailureKind::NotFound,
                format!("the console of process {pid} has no window"),
            ));
        }
        let owner = GetAncestor(hwnd, GA_ROOTOWNER);
        let target = if owner.is_null() { hwnd } else { owner };
        if IsWindowVisible(target) == 0 {
            return Err(Failure::new(
                FailureKind::NotFound,
                format!("the console of process {pid} has no visible window"),
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
            format!("found no window of process {pid}"),
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
        if SetForegroundWindow(hwnd) == 0 || GetForegroundWindow() != hwnd {
            return Err(Failure::new(
                FailureKind::Forbidden,
                "Windows did not let Vults bring the window forward",
            ));
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
