//! How many threads: the machine's cores and the bounds every door checks.

use crate::error::Error;

/// The most threads a build or a batch may use: more only thrash.
pub const MAX_THREADS: usize = 256;

/// The cores of this machine (1 when unknown).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// `threads` checked against 1..=[`MAX_THREADS`]; `what` names the option
/// in the message.
pub fn check_threads(what: &str, threads: usize) -> Result<usize, Error> {
    if threads == 0 || threads > MAX_THREADS {
        return Err(Error::InvalidArgument(format!(
            "{what} {threads} is out of range: give 1 to {MAX_THREADS} (this machine has {} \
             cores)",
            cores()
        )));
    }
    Ok(threads)
}
