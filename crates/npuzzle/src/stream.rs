//! Many boards at once, as a stream: a reader thread takes items from the
//! caller's iterator, worker threads solve them, and the iterator hands
//! them back in input order. A permit per item in flight bounds memory: the
//! reader waits for one before taking an item, and one is returned when an
//! item is yielded.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use npuzzle_board::Board;

use crate::error::Error;
use crate::solution::Solution;

/// Items in flight per worker thread.
const WINDOW_PER_THREAD: usize = 4;

/// One item of a stream and what became of it.
#[derive(Debug)]
pub struct Answered<T> {
    /// The item, as the caller gave it.
    pub item: T,
    /// Its answer (None: the item held no board).
    pub result: Option<Result<Solution, Error>>,
    /// Time spent on it, from the start of its search to its answer.
    pub elapsed: Duration,
}

enum Event<T> {
    Answer(u64, Box<Answered<T>>),
    End { items: u64 },
}

/// The answers of [`crate::Solver::answers`], in input order.
pub struct Answers<T> {
    done: Receiver<Event<T>>,
    /// Set when the iterator is dropped: the searches under way end.
    stop: Arc<AtomicBool>,
    permits: SyncSender<()>,
    finished: BTreeMap<u64, Answered<T>>,
    next: u64,
    total: Option<u64>,
}

impl<T: Send + 'static> Answers<T> {
    /// Starts `threads` workers that answer each item's board with
    /// `solve(board, stop, spare)`: `stop` is set when the iterator is
    /// dropped, and `spare` counts the workers that have no item left.
    pub(crate) fn start<S>(
        threads: usize,
        items: impl Iterator<Item = T> + Send + 'static,
        board_of: fn(&T) -> Option<&Board>,
        solve: S,
    ) -> Answers<T>
    where
        S: Fn(&Board, &Arc<AtomicBool>, &Arc<AtomicUsize>) -> Result<Solution, Error>
            + Clone
            + Send
            + 'static,
    {
        let threads = threads.max(1);
        let window = WINDOW_PER_THREAD * threads;
        let (permit_tx, permit_rx) = mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            permit_tx.send(()).expect("room for every permit");
        }
        let (job_tx, job_rx) = mpsc::channel::<(u64, T)>();
        let (done_tx, done_rx) = mpsc::channel::<Event<T>>();
        // The reader is not joined: it may wait for input that never comes
        // (a terminal) after the caller has stopped listening.
        let reader_done = done_tx.clone();
        std::thread::spawn(move || {
            let mut sent = 0u64;
            for item in items {
                if permit_rx.recv().is_err() || job_tx.send((sent, item)).is_err() {
                    return;
                }
                sent += 1;
            }
            let _ = reader_done.send(Event::End { items: sent });
        });
        let job_rx = Arc::new(Mutex::new(job_rx));
        let stop = Arc::new(AtomicBool::new(false));
        // Threads whose last item is taken lend themselves to the searches
        // still under way, so that the last boards use every core.
        let spare = Arc::new(AtomicUsize::new(0));
        for _ in 0..threads {
            let (job_rx, done_tx, solve) = (Arc::clone(&job_rx), done_tx.clone(), solve.clone());
            let (stop, spare) = (Arc::clone(&stop), Arc::clone(&spare));
            std::thread::spawn(move || loop {
                let job = job_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                let Ok((index, item)) = job else {
                    spare.fetch_add(1, Ordering::AcqRel);
                    break;
                };
                let started = Instant::now();
                let result = board_of(&item).map(|board| solve(board, &stop, &spare));
                let answered = Answered {
                    item,
                    result,
                    elapsed: started.elapsed(),
                };
                if done_tx
                    .send(Event::Answer(index, Box::new(answered)))
                    .is_err()
                {
                    break;
                }
            });
        }
        Answers {
            done: done_rx,
            stop,
            permits: permit_tx,
            finished: BTreeMap::new(),
            next: 0,
            total: None,
        }
    }
}

/// What [`Answers::next_within`] found.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)] // one per answer, moved once: not worth a box
pub enum Waited<T> {
    /// The next answer.
    Ready(Answered<T>),
    /// None yet: the time ran out.
    Pending,
    /// Every item is answered.
    Done,
}

impl<T> Answers<T> {
    /// The next answer if it comes within `timeout`: callers that must
    /// react to something else meanwhile (a Ctrl-C) wait in slices.
    pub fn next_within(&mut self, timeout: Duration) -> Waited<T> {
        self.wait(Some(Instant::now() + timeout))
    }

    fn wait(&mut self, deadline: Option<Instant>) -> Waited<T> {
        loop {
            if let Some(answered) = self.finished.remove(&self.next) {
                self.next += 1;
                let _ = self.permits.try_send(());
                return Waited::Ready(answered);
            }
            if self.total == Some(self.next) {
                return Waited::Done;
            }
            let event = match deadline {
                None => self.done.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(deadline) => self
                    .done
                    .recv_timeout(deadline.saturating_duration_since(Instant::now())),
            };
            match event {
                Ok(Event::Answer(index, answered)) => {
                    self.finished.insert(index, *answered);
                }
                Ok(Event::End { items }) => self.total = Some(items),
                Err(RecvTimeoutError::Timeout) => return Waited::Pending,
                // Every thread is gone: nothing more will come.
                Err(RecvTimeoutError::Disconnected) => return Waited::Done,
            }
        }
    }
}

impl<T> Iterator for Answers<T> {
    type Item = Answered<T>;

    fn next(&mut self) -> Option<Answered<T>> {
        match self.wait(None) {
            Waited::Ready(answered) => Some(answered),
            Waited::Pending | Waited::Done => None,
        }
    }
}

impl<T> Drop for Answers<T> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

// Over table files: the `native` feature's.
#[cfg(all(test, feature = "native"))]
mod tests;
