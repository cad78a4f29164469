//! The playground binary that Trunk builds.
fn main() {
    splitbrain_app::start();
}
