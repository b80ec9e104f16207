//! UI tests of the window: views fed by a `Model`, and the real engine with the real hook.
