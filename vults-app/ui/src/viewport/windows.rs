//! The floating windows on Windows are popups: `WS_POPUP` with no caption, no system menu and
//! no frame, and `WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST` with no
//! `WS_EX_APPWINDOW`.
//!
//! winit makes every window an overlapped one (caption, system menu, minimize and maximize
//! boxes, `WS_EX_APPWINDOW` when it has no owner) and hides an undecorated window's frame only
//! by how it answers `WM_NCCALCSIZE`; egui-winit also asks for the undecorated drop shadow,
//! which moves the client area down by one pixel. Such a window is activated by a click, and
//! Wine hands it to the X window manager as a managed window: it gets a title bar, a place of
//! the window manager's choosing, and the keyboard when it maps. Neither winit 0.30 nor egui's
//! `ViewportBuilder` can ask for a popup, so the styles are set here, before the window is
//! first shown:
//!
//! - a `WH_CBT` hook on the thread that makes the windows (the UI thread) sees each window as
//!   it is created; one whose title [`register`] was given (every [`super::floating`] builder
//!   gives its own) is subclassed and given the popup styles;
//! - the subclass keeps them: `WM_STYLECHANGING` turns whatever winit sets again (it sets its
//!   own styles whenever one of its flags changes) into the popup's; `WM_NCCALCSIZE` makes the
//!   whole window the client area (no frame, no one-pixel shift); `WM_MOUSEACTIVATE` answers
//!   `MA_NOACTIVATE` and `WM_WINDOWPOSCHANGING` adds `SWP_NOACTIVATE`, so neither a click nor
//!   a move nor a show activates it;
//! - Wine copies `CreateWindowEx`'s extended style back after the hook and decides whether the
//!   X window is managed when the window is first positioned, inside `CreateWindowEx`: the
//!   styles are set again on `WM_NCCREATE`, `WM_GETMINMAXINFO` and `WM_WINDOWPOSCHANGING`,
//!   which come before that.
//!
//! A click that should give a card the keys activates it explicitly ([`activate`]:
//! `SetForegroundWindow`, `SetActiveWindow`, `SetFocus`), which Windows allows the app that
//! received the click. Each floating window's styles are logged (debug) when it is first shown,
//! as read back with `GetWindowLongPtrW`.

use std::collections::{HashMap, VecDeque};
use std::sync::{LazyLock, Mutex, MutexGuard};

use windows_sys::Win32::Foundation::{HWND, LPARAM, LRESULT, WPARAM};
use windows_sys::Win32::System::Threading::GetCurrentThreadId;
use windows_sys::Win32::UI::Input::KeyboardAndMouse::{SetActiveWindow, SetFocus};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    CBT_CREATEWNDW, CallNextHookEx, CallWindowProcW, DefWindowProcW, GWL_EXSTYLE, GWL_STYLE,
    GWLP_WNDPROC, GetForegroundWindow, GetWindowLongPtrW, HCBT_CREATEWND, MA_NOACTIVATE,
    STYLESTRUCT, SWP_NOACTIVATE, SWP_SHOWWINDOW, SetForegroundWindow, SetWindowLongPtrW,
    SetWindowsHookExW, WH_CBT, WINDOWPOS, WM_GETMINMAXINFO, WM_MOUSEACTIVATE, WM_NCCALCSIZE,
    WM_NCCREATE, WM_NCDESTROY, WM_STYLECHANGING, WM_WINDOWPOSCHANGED, WM_WINDOWPOSCHANGING,
    WNDPROC, WS_CLIPCHILDREN, WS_CLIPSIBLINGS, WS_DISABLED, WS_EX_LAYERED, WS_EX_NOACTIVATE,
    WS_EX_NOREDIRECTIONBITMAP, WS_EX_TOOLWINDOW, WS_EX_TOPMOST, WS_EX_TRANSPARENT, WS_POPUP,
    WS_VISIBLE,
};

/// How many titles of floating windows are remembered for windows still to be created: far
/// more than are ever open at once (six cards, the island, its menu and toast), so a title
/// given in one frame is still known when its window is made, and the list stays small over a
/// long session of cards with titles of their own.
const TITLES: usize = 64;

/// A popup's style: `WS_POPUP` and `WS_CLIPSIBLINGS`, keeping from `style` only whether it is
/// visible or disabled and whether it clips its children (no caption, system menu, boxes or
/// frame).
pub fn popup_style(style: u32) -> u32 {
    WS_POPUP | WS_CLIPSIBLINGS | (style & (WS_VISIBLE | WS_DISABLED | WS_CLIPCHILDREN))
}

/// A popup's extended style: a tool window (out of the taskbar and Alt+Tab) that a click does
/// not activate, on top, keeping from `ex` only what mouse pass-through and the renderer set
/// (`WS_EX_LAYERED`, `WS_EX_TRANSPARENT`, `WS_EX_NOREDIRECTIONBITMAP`); never
/// `WS_EX_APPWINDOW`.
pub fn popup_ex_style(ex: u32) -> u32 {
    WS_EX_TOOLWINDOW
        | WS_EX_NOACTIVATE
        | WS_EX_TOPMOST
        | (ex & (WS_EX_LAYERED | WS_EX_TRANSPARENT | WS_EX_NOREDIRECTIONBITMAP))
}

/// One popup made here: its title when it was created, the window procedure it had, and
/// whether its styles were logged.
struct Popup {
    title: String,
    previous: isize,
    logged: bool,
}

#[derive(Default)]
struct State {
    /// Titles of floating windows, the latest last.
    titles: VecDeque<String>,
    /// The popups alive, by window handle.
    popups: HashMap<usize, Popup>,
}

thread_local! {
    /// Whether the hook watches this thread's windows.
    static HOOKED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What this module knows; never held while a window message may be sent (the window
/// procedure takes it too).
fn state() -> MutexGuard<'static, State> {
    static STATE: LazyLock<Mutex<State>> = LazyLock::new(Mutex::default);
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Says that a window titled `title` is a floating one: when this thread creates it, it is made
/// a popup. Watches this thread's windows from the first call on.
pub fn register(title: &str) {
    {
        let mut s = state();
        if let Some(i) = s.titles.iter().position(|t| t == title) {
            if i + 1 != s.titles.len() {
                let t = s.titles.remove(i).expect("found");
                s.titles.push_back(t);
            }
        } else {
            s.titles.push_back(title.to_owned());
            while s.titles.len() > TITLES {
                s.titles.pop_front();
            }
        }
    }
    if !HOOKED.with(|h| h.replace(true)) {
        // SAFETY: GetCurrentThreadId has no preconditions.
        let thread = unsafe { GetCurrentThreadId() };
        // SAFETY: a thread hook on this thread with a procedure of this module (no module
        // handle is needed for a thread's own hook); it goes with the thread.
        let handle =
            unsafe { SetWindowsHookExW(WH_CBT, Some(on_create), std::ptr::null_mut(), thread) };
        if handle.is_null() {
            tracing::warn!(
                "cannot watch the window's creation ({}): the floating windows keep winit's \
                 title-bar styles",
                std::io::Error::last_os_error()
            );
        }
    }
}

/// Gives the keyboard to the popup titled `title`: a person clicked into it, or pressed a
/// global key to read it. Whether it is now the foreground window.
pub fn activate(title: &str) -> bool {
    let hwnd = {
        let s = state();
        s.popups
            .iter()
            .find(|(_, p)| p.title == title)
            .map(|(h, _)| *h as HWND)
    };
    let Some(hwnd) = hwnd else {
        tracing::debug!("no popup titled {title:?} to give the keyboard to");
        return false;
    };
    // SAFETY: `hwnd` is a window of this thread that is alive (it leaves `popups` on
    // WM_NCDESTROY); these calls take any window handle.
    let foreground = unsafe {
        SetForegroundWindow(hwnd);
        SetActiveWindow(hwnd);
        SetFocus(hwnd);
        GetForegroundWindow() == hwnd
    };
    tracing::debug!("gave the keyboard to {title:?} (foreground: {foreground})");
    foreground
}

/// The popup's window procedure in front of winit's.
fn previous(hwnd: HWND) -> Option<isize> {
    state().popups.get(&(hwnd as usize)).map(|p| p.previous)
}

/// The CBT hook: a window about to be created whose title was registered becomes a popup.
unsafe extern "system" fn on_create(code: i32, wparam: WPARAM, lparam: LPARAM) -> LRESULT {
    if code >= 0 && code as u32 == HCBT_CREATEWND {
        let hwnd = wparam as HWND;
        // SAFETY: for HCBT_CREATEWND, lparam is a CBT_CREATEWNDW whose lpcs is the window's
        // CREATESTRUCTW, valid during the call.
        let title = unsafe { created_title(lparam as *const CBT_CREATEWNDW) };
        if let Some(title) = title {
            let known = state().titles.contains(&title);
            if known {
                make_popup(hwnd, title);
            }
        }
    }
    // SAFETY: passes the call on unchanged, as every hook must.
    unsafe { CallNextHookEx(std::ptr::null_mut(), code, wparam, lparam) }
}

/// The title a window is being created with, when it has one.
///
/// # Safety
/// `cbt` is null or points at a valid CBT_CREATEWNDW.
unsafe fn created_title(cbt: *const CBT_CREATEWNDW) -> Option<String> {
    // SAFETY: the caller's promise; lpcs is null or valid, and so is the name it points at.
    unsafe {
        let cs = cbt.as_ref()?.lpcs.as_ref()?;
        let name = cs.lpszName;
        // A name below 0x10000 is a resource ordinal, not a string.
        if (name as usize) < 0x10000 {
            return None;
        }
        let mut len = 0;
        while len < 1024 && *name.add(len) != 0 {
            len += 1;
        }
        Some(String::from_utf16_lossy(std::slice::from_raw_parts(
            name, len,
        )))
    }
}

fn make_popup(hwnd: HWND, title: String) {
    // SAFETY: `hwnd` is the window being created on this thread; its procedure is replaced by
    // one that calls the previous on every message, and put back on WM_NCDESTROY.
    unsafe {
        let previous = GetWindowLongPtrW(hwnd, GWLP_WNDPROC);
        let popup = Popup {
            title: title.clone(),
            previous,
            logged: false,
        };
        state().popups.insert(hwnd as usize, popup);
        SetWindowLongPtrW(hwnd, GWLP_WNDPROC, popup_proc as *const () as isize);
        keep_popup(hwnd);
    }
    tracing::debug!("the floating window {title:?} is made a popup");
}

/// Sets the popup styles on `hwnd` where they are not (the style through WM_STYLECHANGING).
///
/// # Safety
/// `hwnd` is a window of this thread.
unsafe fn keep_popup(hwnd: HWND) {
    // SAFETY: the caller's promise.
    unsafe {
        let style = GetWindowLongPtrW(hwnd, GWL_STYLE) as u32;
        if style != popup_style(style) {
            SetWindowLongPtrW(hwnd, GWL_STYLE, popup_style(style) as isize);
        }
        let ex = GetWindowLongPtrW(hwnd, GWL_EXSTYLE) as u32;
        if ex != popup_ex_style(ex) {
            SetWindowLongPtrW(hwnd, GWL_EXSTYLE, popup_ex_style(ex) as isize);
        }
    }
}

/// Logs the styles of the popup `hwnd` the first time it is shown, as Windows reads them.
fn log_shown(hwnd: HWND) {
    let title = {
        let mut s = state();
        match s.popups.get_mut(&(hwnd as usize)) {
            Some(p) if !p.logged => {
                p.logged = true;
                p.title.clone()
            }
            _ => return,
        }
    };
    // SAFETY: `hwnd` is a live window of this thread (its own message is being handled).
    let (style, ex) = unsafe {
        (
            GetWindowLongPtrW(hwnd, GWL_STYLE) as u32,
            GetWindowLongPtrW(hwnd, GWL_EXSTYLE) as u32,
        )
    };
    tracing::debug!(
        "floating window {title:?} shown: style {style:#010x}, extended style {ex:#010x}"
    );
}

unsafe extern "system" fn popup_proc(
    hwnd: HWND,
    msg: u32,
    wparam: WPARAM,
    lparam: LPARAM,
) -> LRESULT {
    let Some(previous) = previous(hwnd) else {
        // SAFETY: a message for a window this module no longer knows: the default answer.
        return unsafe { DefWindowProcW(hwnd, msg, wparam, lparam) };
    };
    // SAFETY: `previous` is the window procedure this window had (winit's).
    let previous: WNDPROC = unsafe { std::mem::transmute::<isize, WNDPROC>(previous) };
    match msg {
        WM_STYLECHANGING => {
            // SAFETY: lparam points at the message's STYLESTRUCT, which may be changed.
            let change = unsafe { &mut *(lparam as *mut STYLESTRUCT) };
            match wparam as i32 {
                GWL_STYLE => change.styleNew = popup_style(change.styleNew),
                GWL_EXSTYLE => change.styleNew = popup_ex_style(change.styleNew),
                _ => {}
            }
        }
        // SAFETY: this window's own message.
        WM_NCCREATE | WM_GETMINMAXINFO => unsafe { keep_popup(hwnd) },
        WM_WINDOWPOSCHANGING => {
            // SAFETY: this window's own message; lparam points at its WINDOWPOS.
            unsafe {
                keep_popup(hwnd);
                if let Some(pos) = (lparam as *mut WINDOWPOS).as_mut() {
                    pos.flags |= SWP_NOACTIVATE;
                }
            }
        }
        // No frame: the whole window is the client area (and no one-pixel shadow shift).
        WM_NCCALCSIZE => return 0,
        WM_MOUSEACTIVATE => return MA_NOACTIVATE as LRESULT,
        WM_WINDOWPOSCHANGED => {
            // SAFETY: lparam points at the message's WINDOWPOS.
            let shown = unsafe { (lparam as *const WINDOWPOS).as_ref() }
                .is_some_and(|p| p.flags & SWP_SHOWWINDOW != 0);
            // SAFETY: passed on to winit first; the styles are read once it is shown.
            let r = unsafe { CallWindowProcW(previous, hwnd, msg, wparam, lparam) };
            if shown {
                log_shown(hwnd);
            }
            return r;
        }
        WM_NCDESTROY => {
            state().popups.remove(&(hwnd as usize));
            // SAFETY: winit's procedure back on its window for its last message.
            unsafe {
                SetWindowLongPtrW(
                    hwnd,
                    GWLP_WNDPROC,
                    std::mem::transmute::<WNDPROC, isize>(previous),
                );
            }
        }
        _ => {}
    }
    // SAFETY: every other message, and the ones above, go on to winit's procedure.
    unsafe { CallWindowProcW(previous, hwnd, msg, wparam, lparam) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use windows_sys::Win32::Foundation::RECT;
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        CreateWindowExW, DestroyWindow, GetClientRect, GetWindowRect, RegisterClassW, SendMessageW,
        WNDCLASSW, WS_CAPTION, WS_EX_ACCEPTFILES, WS_EX_APPWINDOW, WS_EX_WINDOWEDGE,
        WS_MAXIMIZEBOX, WS_MINIMIZEBOX, WS_SYSMENU, WS_THICKFRAME,
    };

    fn wide(s: &str) -> Vec<u16> {
        s.encode_utf16().chain(Some(0)).collect()
    }

    unsafe extern "system" fn plain(hwnd: HWND, msg: u32, w: WPARAM, l: LPARAM) -> LRESULT {
        // SAFETY: the default answer to this window's own message.
        unsafe { DefWindowProcW(hwnd, msg, w, l) }
    }

    /// A window made as winit makes one: overlapped with a caption, a system menu, both boxes,
    /// an app window on top; then its styles set again as winit does when a flag changes.
    fn winit_like(title: &str) -> HWND {
        let class = wide("vults-popup-test");
        let title = wide(title);
        let titled = WS_CAPTION | WS_SYSMENU | WS_MINIMIZEBOX | WS_MAXIMIZEBOX | WS_CLIPSIBLINGS;
        let ex = WS_EX_WINDOWEDGE | WS_EX_ACCEPTFILES | WS_EX_APPWINDOW | WS_EX_TOPMOST;
        // SAFETY: a class of this test's own (registering it twice fails harmlessly) and a
        // window of this thread, with valid strings.
        unsafe {
            let wc = WNDCLASSW {
                lpfnWndProc: Some(plain),
                lpszClassName: class.as_ptr(),
                ..Default::default()
            };
            RegisterClassW(&wc);
            let hwnd = CreateWindowExW(
                ex,
                class.as_ptr(),
                title.as_ptr(),
                titled,
                100,
                40,
                300,
                150,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null(),
            );
            assert!(!hwnd.is_null(), "{}", std::io::Error::last_os_error());
            SetWindowLongPtrW(hwnd, GWL_STYLE, (titled | WS_VISIBLE) as isize);
            SetWindowLongPtrW(hwnd, GWL_EXSTYLE, ex as isize);
            hwnd
        }
    }

    fn styles(hwnd: HWND) -> (u32, u32) {
        // SAFETY: a live window of this thread.
        unsafe {
            (
                GetWindowLongPtrW(hwnd, GWL_STYLE) as u32,
                GetWindowLongPtrW(hwnd, GWL_EXSTYLE) as u32,
            )
        }
    }

    #[test]
    fn a_floating_window_is_a_popup_that_never_activates_and_keeps_it() {
        register("vults test card");
        let hwnd = winit_like("vults test card");
        let (style, ex) = styles(hwnd);
        assert_eq!(style & WS_POPUP, WS_POPUP, "{style:#010x}");
        for (bit, name) in [
            (WS_CAPTION, "caption"),
            (WS_SYSMENU, "system menu"),
            (WS_MINIMIZEBOX, "minimize box"),
            (WS_MAXIMIZEBOX, "maximize box"),
            (WS_THICKFRAME, "frame"),
        ] {
            assert_eq!(style & bit, 0, "{name} in {style:#010x}");
        }
        let want = WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST;
        assert_eq!(ex & want, want, "{ex:#010x}");
        assert_eq!(ex & WS_EX_APPWINDOW, 0, "{ex:#010x}");
        let (mut window, mut client) = (RECT::default(), RECT::default());
        // SAFETY: a live window of this thread and rectangles to fill.
        let activates = unsafe {
            GetWindowRect(hwnd, &mut window);
            GetClientRect(hwnd, &mut client);
            SendMessageW(hwnd, WM_MOUSEACTIVATE, 0, 0)
        };
        // No frame and no shadow's shift: the client area is the whole window.
        assert_eq!(
            (client.right, client.bottom),
            (window.right - window.left, window.bottom - window.top)
        );
        assert_eq!(activates, MA_NOACTIVATE as LRESULT);
        assert!(state().popups.contains_key(&(hwnd as usize)));
        // SAFETY: the test's own window.
        unsafe { DestroyWindow(hwnd) };
        assert!(!state().popups.contains_key(&(hwnd as usize)));
    }

    #[test]
    fn another_window_keeps_its_title_bar() {
        register("vults test island");
        let hwnd = winit_like("Vults test main window");
        let (style, ex) = styles(hwnd);
        assert_eq!(style & WS_CAPTION, WS_CAPTION, "{style:#010x}");
        assert_eq!(ex & WS_EX_APPWINDOW, WS_EX_APPWINDOW, "{ex:#010x}");
        assert!(!state().popups.contains_key(&(hwnd as usize)));
        // SAFETY: the test's own window.
        unsafe { DestroyWindow(hwnd) };
    }

    #[test]
    fn the_popup_styles_keep_only_what_they_may() {
        let titled = WS_CAPTION | WS_SYSMENU | WS_THICKFRAME | WS_VISIBLE | WS_CLIPCHILDREN;
        assert_eq!(
            popup_style(titled),
            WS_POPUP | WS_CLIPSIBLINGS | WS_VISIBLE | WS_CLIPCHILDREN
        );
        assert_eq!(
            popup_ex_style(WS_EX_APPWINDOW | WS_EX_WINDOWEDGE | WS_EX_LAYERED),
            WS_EX_TOOLWINDOW | WS_EX_NOACTIVATE | WS_EX_TOPMOST | WS_EX_LAYERED
        );
    }
}
