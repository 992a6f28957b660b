//! The one integration-test binary: drives the real `npuzzle` binary as a
//! user would, in a temporary directory.

mod fuzz;
mod harness;
mod input_edges;
mod parity;
mod pdb_cli;
mod reuse;
mod serve;
mod solve_cli;
