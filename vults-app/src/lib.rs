//! The Vults app.
