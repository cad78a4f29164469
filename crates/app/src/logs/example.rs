//! The example the page offers: the reconstruction of the seed blog's logs
//! (`crates/import/tests/logs/seed-blog-1.0`, written from Kafka 1.0.0's log statements with the
//! blog's times and values; its README says what is stated and what is inferred), given to the
//! import as files, exactly as if dropped.

/// Where the reconstruction lives, and its files (name, bytes).
macro_rules! seed_files {
    ($($name:literal),* $(,)?) => {
        [$(($name, include_bytes!(concat!("../../../import/tests/logs/seed-blog-1.0/", $name)) as &[u8])),*]
    };
}

/// The seed blog's reconstructed logs: three brokers' controller, state-change and server logs.
pub const SEED_BLOG: [(&str, &[u8]); 8] = seed_files!(
    "broker1/controller.log",
    "broker1/server.log",
    "broker1/state-change.log",
    "broker2/controller.log",
    "broker2/state-change.log",
    "broker3/controller.log",
    "broker3/server.log",
    "broker3/state-change.log",
);

/// The example as browser files, named as in the corpus (`broker1/controller.log`, ...), so the
/// import reads the broker from the lines and the names as it would from a drop.
#[cfg(target_arch = "wasm32")]
pub fn seed_blog_files() -> Vec<web_sys::File> {
    SEED_BLOG
        .iter()
        .filter_map(|(name, bytes)| {
            let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(*bytes));
            web_sys::File::new_with_u8_array_sequence(&parts, name).ok()
        })
        .collect()
}

/// Natively there are no browser files (the page's native tests render without them).
#[cfg(not(target_arch = "wasm32"))]
pub fn seed_blog_files() -> Vec<web_sys::File> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::SEED_BLOG;

    #[test]
    fn the_example_is_the_reconstruction_and_reads_as_the_seed_blog() {
        let inputs: Vec<splitbrain_import::Input<'_>> =
            SEED_BLOG.iter().map(|(n, b)| splitbrain_import::Input { name: n, bytes: b, broker: None }).collect();
        let r = splitbrain_import::import(&inputs, &mut |_, _| {});
        assert_eq!(r.brokers, vec![1, 2, 3]);
        assert!(r.signatures.iter().any(|s| s.kind == "deposed_controller_write"), "{:?}", r.verdict);
    }
}
