//! The page's own hooks.
pub mod location;
pub mod narrow;
