//! Thread pools that survive `fork`. A child process has only the thread
//! that called `fork`: a rayon pool started by its parent has no threads
//! in it, and work given to it waits forever. So each pool remembers the
//! process that started it, and a child starts its own on first use. The
//! engine never uses rayon's global pool, which cannot be started again.

use std::sync::{Arc, Mutex};

use rayon::ThreadPool;

/// A rayon pool started on first use, and again in a child of `fork`.
pub(crate) struct ForkSafePool {
    /// The pool and the id of the process that started it. The lock is
    /// held only to look or to start a pool (microseconds), never while
    /// work runs: a fork finds it free unless it lands in those moments.
    slot: Mutex<Option<(u32, Arc<ThreadPool>)>>,
}

impl ForkSafePool {
    pub(crate) const fn new() -> ForkSafePool {
        ForkSafePool {
            slot: Mutex::new(None),
        }
    }

    /// This process's pool of `threads` threads.
    pub(crate) fn get(&self, threads: usize) -> Result<Arc<ThreadPool>, String> {
        let pid = std::process::id();
        let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((owner, pool)) = &*slot {
            if *owner == pid {
                return Ok(Arc::clone(pool));
            }
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        let pool = Arc::new(pool);
        if let Some((_, parents)) = slot.replace((pid, Arc::clone(&pool))) {
            // The parent's pool is leaked, not dropped: dropping it wakes
            // its threads through locks that one of them may have held
            // at the fork, which no thread here would ever release.
            std::mem::forget(parents);
        }
        Ok(pool)
    }
}

/// The pool for the engine's own parallel steps outside a solver's pool
/// (checking tables as they open), one thread per core.
pub(crate) fn engine_pool() -> Result<Arc<ThreadPool>, String> {
    static ENGINE: ForkSafePool = ForkSafePool::new();
    ENGINE.get(crate::threads::cores())
}

/// Runs `work` in [`engine_pool`]. If no pool can start, it runs on this
/// thread, unless this is a worker of another pool: then on a plain
/// thread, for the reason below (here only if no thread can start).
///
/// A worker of another rayon pool (a solver's) hands the work over from a
/// plain thread of its own and blocks on it: waiting in `install`, the
/// worker would take other queued work of its pool, and a search among it
/// that needs what the caller holds (the lock over the opening tables)
/// would wait forever on its own thread.
pub(crate) fn in_engine_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let Ok(pool) = engine_pool() else {
        if rayon::current_thread_index().is_none() {
            return work();
        }
        return off_the_pool(work);
    };
    let in_other_pool =
        rayon::current_thread_index().is_some() && pool.current_thread_index().is_none();
    if !in_other_pool {
        return pool.install(work);
    }
    std::thread::scope(|scope| match scope.spawn(|| pool.install(work)).join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

/// `work` on a plain thread of its own, this one blocked on it; here if
/// no thread can start.
fn off_the_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let slot = Mutex::new(Some(work));
    let run = || {
        slot.lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .map(|w| w())
    };
    let ran = std::thread::scope(|scope| {
        let thread = std::thread::Builder::new().spawn_scoped(scope, run).ok()?;
        Some(thread.join())
    });
    match ran {
        Some(Ok(Some(result))) => result,
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        _ => {
            let work = slot.into_inner().unwrap_or_else(|e| e.into_inner());
            work.expect("work that did not run is still here")()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_handed_off_a_pool_runs_once_on_another_thread() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let (caller, ran_on) = pool.install(|| {
            let caller = std::thread::current().id();
            (caller, off_the_pool(|| std::thread::current().id()))
        });
        assert_ne!(caller, ran_on);
        let runs = std::sync::atomic::AtomicUsize::new(0);
        off_the_pool(|| runs.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        assert_eq!(runs.into_inner(), 1);
    }
}
