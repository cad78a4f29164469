//! The parts of the `splitbrain` command line that other harnesses drive too: the fuzz targets
//! (`fuzz/`) feed [`zk_replay::Replay`] the same input lines the CLI reads; [`campaign`] is
//! `splitbrain campaign`'s engine.
pub mod campaign;
pub mod zk_replay;
