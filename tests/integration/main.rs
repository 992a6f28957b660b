//! The one integration-test binary: drives the real `npuzzle` binary as a
//! user would, in a temporary directory.

mod checkpoint;
mod docs;
mod fuzz;
mod harness;
mod input_edges;
mod packaging;
mod parity;
mod pdb_build;
mod pdb_damage;
mod pdb_filesystem;
mod pdb_solve;
mod python_reader;
mod reuse;
mod serve;
mod smoke;
mod solve_cli;
mod tables;
