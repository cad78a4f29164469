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
    println!("200 steps back from the end of that run: {}", step_back(&mut t, 200));
    // The longest built-in (by steps), computed whole, stepped back from its end to 0.
    let (name, mut t) = splitbrain_sim::scenario::builtins()
        .into_iter()
        .map(|(n, _)| {
            let mut t = Timeline::new(builtin(n).unwrap(), None).unwrap();
            t.compute_all();
            (n, t)
        })
        .max_by_key(|(_, t)| t.len())
        .unwrap();
    t.seek(t.len());
    let n = t.len();
    println!("{name} ({n} steps), back from the end to 0: {}", step_back(&mut t, n));
}

/// Steps back `n` times (showing the view each time): the median, 99th percentile and worst, and
/// the median of the costliest kind of step back, to a step just before a checkpoint (the most
/// replay, `CHECKPOINT_EVERY - 1` steps). On a loaded machine the worst single figure is mostly
/// the scheduler; the medians are the cost.
fn step_back(t: &mut Timeline, n: usize) -> String {
    let every = splitbrain_sim::timeline::CHECKPOINT_EVERY;
    let mut all = Vec::new();
    let mut longest = Vec::new();
    for _ in 0..n {
        let s = Instant::now();
        t.back();
        std::hint::black_box(t.view());
        let ms = s.elapsed().as_secs_f64() * 1e3;
        all.push(ms);
        if t.cursor() % every == every - 1 {
            longest.push(ms);
        }
    }
    let q = |v: &mut Vec<f64>, f: f64| {
        v.sort_by(|a, b| a.total_cmp(b));
        v.get(((v.len().max(1) - 1) as f64 * f) as usize).copied().unwrap_or(0.0)
    };
    format!(
        "median {:.3} ms, p99 {:.3} ms, worst {:.3} ms; longest replay ({} steps) median {:.3} ms (with the view)",
        q(&mut all, 0.5),
        q(&mut all, 0.99),
        q(&mut all, 1.0),
        every - 1,
        q(&mut longest, 0.5)
    )
}

/// Rough heap size of one event's owned text.
fn event_bytes(e: &splitbrain_sim::Event) -> usize {
    std::mem::size_of_val(e)
        + e.line.capacity()
        + e.details.iter().map(|l| l.capacity() + 24).sum::<usize>()
        + e.alerts_raised.iter().chain(&e.alerts_cleared).map(|a| a.capacity() + 24).sum::<usize>()
}
