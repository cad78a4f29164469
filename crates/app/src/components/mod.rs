//! The page's components, one per file (the page that composes them is `app.rs`).
pub mod compare;
pub mod controls;
pub mod explorer;
pub mod export;
pub mod faults;
pub mod graph;
pub mod header;
pub mod lanes;
pub mod log;
pub mod panels;
pub mod share_bar;
pub mod stroke;
pub mod tools_panel;
