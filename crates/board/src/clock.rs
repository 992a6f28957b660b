//! Time for the figures the searches report (seconds, milliseconds).
//!
//! `std::time::Instant` panics on `wasm32-unknown-unknown`, which has no
//! clock of its own; there the host gives one (the JavaScript loader's
//! `performance.now()`, imported as `npuzzle.now_ms`). Elsewhere this is
//! `std::time::Instant`. It lives here because every crate of the engine
//! depends on this one.

use std::time::Duration;

/// A moment, to measure how long something took.
#[derive(Clone, Copy, Debug)]
pub struct Instant(imp::Moment);

impl Instant {
    /// Now.
    pub fn now() -> Instant {
        Instant(imp::now())
    }

    /// The time since `self`.
    pub fn elapsed(&self) -> Duration {
        imp::since(self.0)
    }
}

#[cfg(not(all(target_family = "wasm", target_os = "unknown")))]
mod imp {
    pub(super) type Moment = std::time::Instant;

    pub(super) fn now() -> Moment {
        std::time::Instant::now()
    }

    pub(super) fn since(moment: Moment) -> std::time::Duration {
        moment.elapsed()
    }
}

#[cfg(all(target_family = "wasm", target_os = "unknown"))]
mod imp {
    /// Milliseconds on the host's monotonic clock.
    pub(super) type Moment = f64;

    #[link(wasm_import_module = "npuzzle")]
    extern "C" {
        fn now_ms() -> f64;
    }

    pub(super) fn now() -> Moment {
        // SAFETY: `now_ms` takes nothing and returns a number; the loader
        // (`npuzzle.js`) supplies it as `performance.now()`.
        unsafe { now_ms() }
    }

    pub(super) fn since(moment: Moment) -> std::time::Duration {
        std::time::Duration::from_secs_f64(((now() - moment) / 1000.0).max(0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_time_grows() {
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(5));
        assert!(start.elapsed() >= Duration::from_millis(5));
    }
}
