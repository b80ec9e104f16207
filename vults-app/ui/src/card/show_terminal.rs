//! "Show terminal" on a card: its button at the card's top right and the line of its last show.

/// "Show terminal" on a card: offered on every card but a chat's own (Zeca's CLI has no
/// terminal), the line of its last show, and a click or `T` not yet taken by the window.
#[derive(Debug, Clone, Default)]
pub(super) struct CardTerminal {
    pub(super) offered: bool,
    pub(super) showing: bool,
    pub(super) shown: Option<crate::show_terminal::Shown>,
    pub(super) asked: bool,
}

/// The card's "Show terminal" button, when it offers one. Its tooltip wraps at `tooltip_width`,
/// narrower than a card, so the card's window never cuts it at its right edge.
pub(super) fn terminal_button_ui(ui: &mut egui::Ui, t: &mut CardTerminal, tooltip_width: f32) {
    ui.spacing_mut().tooltip_width = tooltip_width;
    if t.offered
        && crate::show_terminal::button(
            ui,
            t.showing,
            &vults_i18n::tr!("card-show-terminal-hover"),
            None,
        )
    {
        t.asked = true;
    }
}

/// The line of the card's last "Show terminal".
pub(super) fn terminal_line_ui(ui: &mut egui::Ui, t: &CardTerminal) {
    if let Some(shown) = t.shown.as_ref().filter(|_| t.offered) {
        crate::show_terminal::line_ui(ui, shown);
    }
}
