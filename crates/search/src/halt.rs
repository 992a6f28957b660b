//! When a search must end before its answer: the caller's stop flag, or
//! the wall-clock budget's deadline.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::types::{Deadline, Request};

/// The nodes between two looks at the clock and the stop flag: a fraction
/// of a millisecond of search.
pub(crate) const CHECK_EVERY: u64 = 4096;

/// The caller's stop flag and deadline, as one search reads them, and
/// whether the search may split its work across the rayon pool it runs in
/// ([`Request::parallel`]): every split search checks both.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Halt<'a> {
    flag: Option<&'a AtomicBool>,
    deadline: Option<&'a Deadline>,
    split: bool,
}

impl<'a> Halt<'a> {
    /// The request's flag and deadline.
    pub fn of(request: &'a Request) -> Halt<'a> {
        Halt {
            flag: request.stop.as_deref(),
            deadline: request.deadline.as_ref(),
            split: request.parallel,
        }
    }

    /// A flag and a deadline.
    pub fn new(flag: Option<&'a AtomicBool>, deadline: Option<&'a Deadline>) -> Halt<'a> {
        Halt {
            flag,
            deadline,
            split: false,
        }
    }

    /// The threads this search may split its work across: those of the
    /// rayon pool it runs in when [`Request::parallel`] (and the crate's
    /// `split` feature), else one.
    pub fn threads(&self) -> usize {
        if cfg!(feature = "split") && self.split && rayon::current_thread_index().is_some() {
            rayon::current_num_threads()
        } else {
            1
        }
    }

    /// A flag alone.
    #[cfg(test)]
    pub fn flag(flag: Option<&'a AtomicBool>) -> Halt<'a> {
        Halt {
            flag,
            deadline: None,
            split: false,
        }
    }

    /// The flag, or `never` (one that is never set) when none was given.
    pub fn flag_or(&self, never: &'a AtomicBool) -> &'a AtomicBool {
        self.flag.unwrap_or(never)
    }

    /// The deadline, if any.
    pub fn deadline(&self) -> Option<&'a Deadline> {
        self.deadline
    }

    /// Whether to end now: the flag is set, or the deadline passed.
    pub fn now(&self) -> bool {
        self.flag.is_some_and(|f| f.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| d.passed())
    }

    /// The flag at every node, the clock once every [`CHECK_EVERY`] nodes
    /// counted.
    #[inline]
    pub fn now_at(&self, count: u64) -> bool {
        self.flag.is_some_and(|f| f.load(Ordering::Relaxed))
            || (count.is_multiple_of(CHECK_EVERY) && self.deadline.is_some_and(|d| d.passed()))
    }

    /// Whether the deadline (not the flag) is what ended the search.
    pub fn timed_out(&self) -> bool {
        !self.flag.is_some_and(|f| f.load(Ordering::Relaxed))
            && self.deadline.is_some_and(|d| d.passed())
    }
}
