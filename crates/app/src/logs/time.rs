//! Timestamps as the logs wrote them. The import reads a line's time as written, with no time
//! zone (milliseconds since 1970-01-01 of the written wall clock), so counting days from 1970
//! gives back exactly the text in the log: `2018-03-10 15:48:30,006`.

/// The date and time of `ms` as log4j writes them (`2018-03-10 15:48:30,006`): the core's own
/// rendering of log4j's `%d`.
pub use splitbrain_sim::tools::state_change::log4j_date as stamp;

/// The time of day of `ms` (`15:48:30`).
pub fn clock(ms: i64) -> String {
    let s = ms.rem_euclid(86_400_000) / 1000;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// A duration in the unit that reads best (`850 ms`, `12.4 s`, `3 min 20 s`).
pub fn duration(ms: i64) -> String {
    let a = ms.unsigned_abs();
    if a < 1000 {
        format!("{a} ms")
    } else if a < 60_000 {
        format!("{:.1} s", a as f64 / 1000.0)
    } else {
        format!("{} min {} s", a / 60_000, a / 1000 % 60)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn stamps_read_back_as_written() {
        // 2018-03-10 15:48:30,006 read as written.
        let ms = 1_520_696_910_006;
        assert_eq!(stamp(ms), "2018-03-10 15:48:30,006");
        assert_eq!(clock(ms), "15:48:30");
        assert_eq!(stamp(0), "1970-01-01 00:00:00,000");
        assert_eq!(stamp(951_782_400_000), "2000-02-29 00:00:00,000");
    }

    #[test]
    fn durations_read_well() {
        assert_eq!(duration(850), "850 ms");
        assert_eq!(duration(-12_400), "12.4 s");
        assert_eq!(duration(200_000), "3 min 20 s");
    }
}
