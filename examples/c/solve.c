/* Solves a 15-puzzle board optimally through libnpuzzle.
 *
 *   cargo build --release -p npuzzle-capi
 *   cc -I crates/capi/include examples/c/solve.c -L target/release -lnpuzzle \
 *      -Wl,-rpath,"$PWD/target/release" -o solve
 *   ./solve data 0 12 9 13 15 11 10 14 3 7 2 5 4 8 6 1
 *
 * PARTITION may follow the directory (default 7-8): ./solve DIR 6-6-3 BOARD */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuzzle.h"

int main(int argc, char **argv) {
    int first = (argc == 19) ? 3 : 2;
    if (argc != 18 && argc != 19) {
        fprintf(stderr, "usage: %s PDB_DIR [PARTITION] t0 t1 ... t15\n", argv[0]);
        return 2;
    }
    uint8_t tiles[16];
    for (int i = 0; i < 16; i++) {
        tiles[i] = (uint8_t)atoi(argv[first + i]);
    }
    npuzzle_solver *solver;
    if (npuzzle_open(argv[1], argc == 19 ? argv[2] : NULL, 4, &solver) != NPUZZLE_OK) {
        fprintf(stderr, "%s\n", npuzzle_last_error());
        return 1;
    }
    char moves[256];
    size_t length;
    uint64_t expanded;
    npuzzle_status status =
        npuzzle_solve(solver, tiles, 16, NPUZZLE_NO_LIMIT, moves, sizeof moves, &length, &expanded);
    if (status != NPUZZLE_OK) {
        fprintf(stderr, "%s\n", npuzzle_last_error());
        npuzzle_close(solver);
        return 1;
    }
    printf("%zu moves: %s (%llu nodes expanded)\n", length, moves,
           (unsigned long long)expanded);
    npuzzle_close(solver);
    return 0;
}
