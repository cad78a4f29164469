//! Memory and step-back latency of a long `Timeline`: seed-incident with its end moved out to
//! 10^15 ms (a consumer left without a coordinator keeps the run going), computed to 200 000
//! steps, with every byte the allocator hands out counted.
//!
//! ```text
//! cargo run --release -p splitbrain-sim --example timeline_memory [STEPS]
//! ```
//! Prints the live heap of the timeline, bytes per step, and the time one step back takes
//! (worst and mean over 200 steps back from the end). A report, not a test: nothing here asserts.
use splitbrain_sim::limits::Limits;
use splitbrain_sim::scenario::builtin;
use splitbrain_sim::Timeline;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let n = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
        PEAK.fetch_max(n, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        if new > l.size() {
            let n = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
            PEAK.fetch_max(n, Ordering::Relaxed);
        } else {
            LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
        }
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static A: Counting = Counting;

fn main() {
    let steps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let mut s = builtin("seed-incident").expect("built-in");
    s.end_ms = Some(1_000_000_000_000_000);
    let base = LIVE.load(Ordering::Relaxed);
    let limits = Limits { max_steps: steps as u64, max_time_ms: u64::MAX };
    let mode = s.opening_mode(None);
    let mut t = Timeline::with_limits(s, None, mode, limits).expect("builds");
    let started = Instant::now();
    t.seek(steps);
    let compute = started.elapsed();
    let events_bytes: usize = t.events().iter().map(event_bytes).sum();
    let live = LIVE.load(Ordering::Relaxed) - base;
    println!("{} steps computed in {:.2} s; stopped by {:?}", t.len(), compute.as_secs_f64(), t.stopped_by());
    println!(
        "timeline heap: {:.1} MB ({} bytes/step); of which events ~{:.1} MB; peak {:.1} MB",
        live as f64 / 1e6,
        live / t.len().max(1),
        events_bytes as f64 / 1e6,
        (PEAK.load(Ordering::Relaxed) - base) as f64 / 1e6
    );
    let mut worst = 0f64;
    let mut total = 0f64;
    let n = 200.min(t.len());
    for _ in 0..n {
        let s = Instant::now();
        t.back();
        std::hint::black_box(t.view());
        let d = s.elapsed().as_secs_f64() * 1e3;
        worst = worst.max(d);
        total += d;
    }
    println!("step back (with view): worst {worst:.3} ms, mean {:.3} ms over {n} steps", total / n as f64);
}

/// Rough heap size of one event's owned text.
fn event_bytes(e: &splitbrain_sim::Event) -> usize {
    std::mem::size_of_val(e)
        + e.line.capacity()
        + e.details.iter().map(|l| l.capacity() + 24).sum::<usize>()
        + e.alerts_raised.iter().chain(&e.alerts_cleared).map(|a| a.capacity() + 24).sum::<usize>()
}
