//! The npuzzle engine compiled to WebAssembly (`wasm32-unknown-unknown`):
//! what the browser game's worker and `npuzzle.js` call. It is the engine
//! of every other door (the `npuzzle` crate without its `native` feature),
//! with the command line's policy per board size; tables come from memory.
//!
//! The interface is a few plain exports, so that a small hand-written
//! loader (`web/npuzzle.js`) drives it without generated glue:
//!
//! 1. `npuzzle_input(len)` gives a buffer of `len` bytes in the module's
//!    memory; the host writes a request there.
//! 2. `npuzzle_call()` answers the request (JSON, see [`api`]) and returns
//!    0 (the output is the answer), 1 (the output is `{"error": ...}`) or
//!    2 (the output is binary: a table's file image).
//!    `npuzzle_stage_table()` instead keeps the input as a table's file
//!    image for the next `use_tables` request.
//! 3. `npuzzle_output_ptr()` and `npuzzle_output_len()` locate the output.
//!
//! The module imports one function, `npuzzle.now_ms` (the host's
//! `performance.now()`), for the seconds the answers report.

pub mod api;

use std::cell::RefCell;

use api::Engine;

thread_local! {
    static ENGINE: RefCell<Engine> = RefCell::new(Engine::default());
}

/// A buffer of `len` bytes for the next request; its address.
#[no_mangle]
pub extern "C" fn npuzzle_input(len: usize) -> *mut u8 {
    ENGINE.with_borrow_mut(|engine| engine.input(len).as_mut_ptr())
}

/// Answers the request in the input buffer: 0 (JSON answer), 1 (JSON
/// error) or 2 (binary answer).
#[no_mangle]
pub extern "C" fn npuzzle_call() -> u32 {
    ENGINE.with_borrow_mut(|engine| engine.call() as u32)
}

/// Keeps the input buffer as a table's file image for `use_tables`.
#[no_mangle]
pub extern "C" fn npuzzle_stage_table() {
    ENGINE.with_borrow_mut(Engine::stage_table)
}

/// The address of the last output.
#[no_mangle]
pub extern "C" fn npuzzle_output_ptr() -> *const u8 {
    ENGINE.with_borrow(|engine| engine.output().as_ptr())
}

/// The length of the last output.
#[no_mangle]
pub extern "C" fn npuzzle_output_len() -> usize {
    ENGINE.with_borrow(|engine| engine.output().len())
}
