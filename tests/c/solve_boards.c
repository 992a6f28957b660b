/* Drives libnpuzzle as a C program would: opens the tables in argv[1]
 * (partition argv[2]), then reads lines "LENGTH t0 t1 ... t15" from
 * standard input and checks that npuzzle_solve finds LENGTH moves and that
 * npuzzle_lookup gives a lower bound; prints "LOOKUP LENGTH MOVES" per
 * board for the caller to replay. Then checks the error paths. Exit status
 * 0 only if every check passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuzzle.h"

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "FAILED: %s (last error: %s)\n", what, npuzzle_last_error());
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s PDB_DIR PARTITION < boards\n", argv[0]);
        return 2;
    }
    npuzzle_solver *solver = NULL;
    npuzzle_status status = npuzzle_open(argv[1], argv[2], 4, &solver);
    if (status != NPUZZLE_OK) {
        fprintf(stderr, "npuzzle_open: %d: %s\n", (int)status, npuzzle_last_error());
        return 1;
    }

    int expected;
    int boards = 0;
    uint8_t first[16];
    int first_length = -1;
    while (scanf("%d", &expected) == 1) {
        uint8_t tiles[16];
        for (int i = 0; i < 16; i++) {
            int t;
            if (scanf("%d", &t) != 1) {
                fprintf(stderr, "bad input line\n");
                return 2;
            }
            tiles[i] = (uint8_t)t;
        }
        uint32_t h = 0;
        check(npuzzle_lookup(solver, tiles, 16, &h) == NPUZZLE_OK, "lookup");
        char moves[256];
        size_t length = 0;
        uint64_t expanded = 0;
        status = npuzzle_solve(solver, tiles, 16, NPUZZLE_NO_LIMIT, moves, sizeof moves, &length, &expanded);
        check(status == NPUZZLE_OK, "solve");
        check((int)length == expected, "optimal length");
        check(strlen(moves) == length, "moves are NUL-terminated");
        check(h <= length, "lookup is a lower bound");
        check(expanded > 0 || length == 0, "nodes counted");
        printf("%u %zu %s\n", h, length, moves);
        if (boards == 0) {
            memcpy(first, tiles, sizeof first);
            first_length = expected;
        }
        boards++;
    }
    if (boards == 0 || first_length < 10) {
        fprintf(stderr, "give at least one board of 10 moves or more, first\n");
        return 2;
    }

    /* A buffer too small: the status says so and the length is given. */
    char tiny[4];
    size_t length = 0;
    status = npuzzle_solve(solver, first, 16, NPUZZLE_NO_LIMIT, tiny, sizeof tiny, &length, NULL);
    check(status == NPUZZLE_BUFFER_TOO_SMALL, "buffer too small is reported");
    check((int)length == first_length, "the needed length is given");

    /* Room for the moves but not the NUL: too small, never unterminated. */
    char exact[256];
    memset(exact, 'x', sizeof exact);
    status = npuzzle_solve(solver, first, 16, NPUZZLE_NO_LIMIT, exact, (size_t)first_length, &length, NULL);
    check(status == NPUZZLE_BUFFER_TOO_SMALL, "a buffer without room for the NUL is too small");
    check((int)length == first_length, "the needed length is given again");

    /* The same answer with its figures. */
    npuzzle_info info;
    uint16_t first16[16];
    for (int i = 0; i < 16; i++) {
        first16[i] = first[i];
    }
    status = npuzzle_solve_with(solver, first16, 16, exact, sizeof exact, &info);
    check(status == NPUZZLE_OK, "solve_with");
    check((int)info.length == first_length && info.optimal == 1, "solve_with: optimal length");
    check(info.expanded > 0 && info.lower_bound == info.length, "solve_with: figures");
    check(strlen(exact) == info.length, "solve_with: NUL-terminated");
    check(strlen(npuzzle_last_strategy()) > 0, "solve_with: the strategy is named");

    /* A node limit. */
    char moves[256];
    status = npuzzle_solve(solver, first, 16, 1, moves, sizeof moves, &length, NULL);
    check(status == NPUZZLE_NODE_LIMIT, "node limit is reported");
    check(strstr(npuzzle_last_error(), "max_nodes") != NULL, "the limit's argument is named");
    check(strstr(npuzzle_last_error(), "--") == NULL, "no command-line flag in a C message");
    check(strlen(npuzzle_last_strategy()) == 0, "no strategy after a failed solve");
    status = npuzzle_solve(solver, first, 16, 0, moves, sizeof moves, &length, NULL);
    check(status == NPUZZLE_NODE_LIMIT, "max_nodes 0 is zero nodes, as in every door");

    /* Not a board: a repeated tile. */
    uint8_t repeated[16] = {1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0};
    uint32_t h;
    check(npuzzle_lookup(solver, repeated, 16, &h) == NPUZZLE_INVALID_BOARD, "invalid board");
    check(strlen(npuzzle_last_error()) > 0, "invalid board has a message");

    /* Unsolvable: two tiles swapped. */
    uint8_t swapped[16] = {2, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0};
    status = npuzzle_solve(solver, swapped, 16, NPUZZLE_NO_LIMIT, moves, sizeof moves, &length, NULL);
    check(status == NPUZZLE_UNSOLVABLE, "unsolvable board");

    /* A 3x3 board on 4x4 tables: no tables of its side to look up, but
       solved with the defaults ("Boards of other sizes get the defaults"),
       by npuzzle_solve as by npuzzle_solve_with. */
    uint8_t small[9] = {1, 2, 3, 4, 5, 6, 7, 8, 0};
    check(npuzzle_lookup(solver, small, 9, &h) == NPUZZLE_WRONG_SIZE, "wrong size");
    uint8_t eight_bytes[9] = {8, 1, 3, 4, 0, 2, 7, 6, 5};
    status = npuzzle_solve(solver, eight_bytes, 9, NPUZZLE_NO_LIMIT, moves, sizeof moves, &length, NULL);
    check(status == NPUZZLE_OK && length == 14, "a 3x3 board on a 4x4 handle: solved, 14 moves");
    uint16_t eight_wide[9] = {8, 1, 3, 4, 0, 2, 7, 6, 5};
    npuzzle_info eight_info;
    status = npuzzle_solve_with(solver, eight_wide, 9, moves, sizeof moves, &eight_info);
    check(status == NPUZZLE_OK && eight_info.length == 14, "the same through npuzzle_solve_with");
    uint8_t five[25];
    for (int i = 0; i < 23; i++) five[i] = (uint8_t)(i + 1);
    five[23] = 0; /* one move from solved: 24 slides left */
    five[24] = 24;
    status = npuzzle_solve(solver, five, 25, NPUZZLE_NO_LIMIT, moves, sizeof moves, &length, NULL);
    check(status == NPUZZLE_OK && length == 1, "a 5x5 board on a 4x4 handle: solved");

    /* Null pointers are refused, not dereferenced. */
    check(npuzzle_lookup(solver, NULL, 16, &h) == NPUZZLE_INVALID_ARGUMENT, "null tiles");
    check(npuzzle_lookup(NULL, first, 16, &h) == NPUZZLE_INVALID_ARGUMENT, "null solver");

    npuzzle_close(solver);
    npuzzle_close(NULL);
    /* A closed handle is refused, and closing it again does nothing. */
    check(npuzzle_lookup(solver, first, 16, &h) == NPUZZLE_INVALID_ARGUMENT, "closed handle");
    check(strstr(npuzzle_last_error(), "not an open handle") != NULL, "closed handle message");
    npuzzle_close(solver);

    /* The engine's options: 3x3 boards need no tables, at any size. */
    npuzzle_options options;
    npuzzle_options_init(&options);
    options.pdb_dir = "/nonexistent-npuzzle-dir";
    options.threads = 1;
    npuzzle_solver *engine = NULL;
    check(npuzzle_open_with(&options, &engine) == NPUZZLE_OK, "open_with");
    uint16_t eight[9] = {8, 1, 3, 4, 0, 2, 7, 6, 5};
    status = npuzzle_solve_with(engine, eight, 9, moves, sizeof moves, &info);
    check(status == NPUZZLE_OK && info.optimal == 1, "3x3 without tables");
    check(info.length == 14 && strlen(moves) == 14, "3x3: 14 moves");
    check(info.note == NULL, "an optimal answer has no note");
    /* A 20x20 board one move from solved: answered by the reduction, and
       optimal, since its length meets the lower bound. */
    uint16_t big[400];
    for (int i = 0; i < 399; i++) {
        big[i] = (uint16_t)(i + 1);
    }
    big[399] = 399;
    big[398] = 0;
    static char long_moves[1 << 16];
    status = npuzzle_solve_with(engine, big, 400, long_moves, sizeof long_moves, &info);
    check(status == NPUZZLE_OK && info.optimal == 1 && info.length == 1,
          "20x20 one move from solved: optimal");
    check(info.note == NULL, "20x20 one move from solved: no note");
    /* A 20x20 board far from solved (a blank walk of 4,000 moves): not
       optimal, with the reason and a lower bound. */
    for (int i = 0; i < 399; i++) {
        big[i] = (uint16_t)(i + 1);
    }
    big[399] = 0;
    uint32_t walk = 12345, blank = 399;
    for (int step = 0; step < 4000; step++) {
        walk = walk * 1103515245u + 12345u;
        uint32_t row = blank / 20, col = blank % 20, to = blank;
        switch ((walk >> 16) & 3) {
        case 0: if (row > 0) to = blank - 20; break;
        case 1: if (row < 19) to = blank + 20; break;
        case 2: if (col > 0) to = blank - 1; break;
        default: if (col < 19) to = blank + 1; break;
        }
        big[blank] = big[to];
        big[to] = 0;
        blank = to;
    }
    status = npuzzle_solve_with(engine, big, 400, long_moves, sizeof long_moves, &info);
    check(status == NPUZZLE_OK && info.optimal == 0, "20x20: not optimal");
    check(info.note != NULL && strstr(info.note, "15x15") != NULL, "20x20: the reason");
    check(info.lower_bound >= 1 && info.lower_bound <= info.length, "20x20: a lower bound");
    options.max_nodes = 0;
    npuzzle_solver *zero = NULL;
    check(npuzzle_open_with(&options, &zero) == NPUZZLE_OK, "open_with max_nodes 0");
    uint16_t apart[9] = {0, 1, 3, 4, 2, 5, 7, 8, 6};
    status = npuzzle_solve_with(zero, apart, 9, moves, sizeof moves, &info);
    check(status == NPUZZLE_NODE_LIMIT, "max_nodes 0 is zero nodes, as in Python");
    npuzzle_close(zero);
    /* Within a bound of optimal: a 3x3 board of 30 moves at most 100 %
       over, and the guarantee in the answer when it is not optimal. */
    npuzzle_options_init(&options);
    options.pdb_dir = "/nonexistent-npuzzle-dir";
    options.within = 100;
    npuzzle_solver *weighted = NULL;
    check(npuzzle_open_with(&options, &weighted) == NPUZZLE_OK, "open_with within");
    uint16_t far[9] = {8, 6, 7, 2, 5, 4, 3, 0, 1};
    status = npuzzle_solve_with(weighted, far, 9, moves, sizeof moves, &info);
    check(status == NPUZZLE_OK, "within: solved");
    check(info.length <= 62 && strlen(moves) == info.length, "within: at most twice the 31 moves");
    check(info.optimal == 1 || (info.within == 100 && info.lower_bound <= 31),
          "within: the guarantee and a lower bound");
    npuzzle_close(weighted);
    options.within = 1001;
    check(npuzzle_open_with(&options, &weighted) == NPUZZLE_INVALID_ARGUMENT, "within 1001 refused");
    /* A wall-clock budget: an optimal search out of time says so. */
    npuzzle_options_init(&options);
    options.pdb_dir = "/nonexistent-npuzzle-dir";
    options.heuristic = "manhattan";
    options.max_seconds = 0.05;
    npuzzle_solver *timed = NULL;
    check(npuzzle_open_with(&options, &timed) == NPUZZLE_OK, "open_with max_seconds");
    uint16_t hard[16] = {0, 12, 9, 13, 15, 11, 10, 14, 3, 7, 2, 5, 4, 8, 6, 1};
    status = npuzzle_solve_with(timed, hard, 16, moves, sizeof moves, &info);
    check(status == NPUZZLE_TIME_LIMIT, "max_seconds: out of time");
    check(strstr(npuzzle_last_error(), "max_seconds") != NULL, "max_seconds: named");
    npuzzle_close(timed);
    options.max_seconds = -1;
    check(npuzzle_open_with(&options, &timed) == NPUZZLE_INVALID_ARGUMENT,
          "max_seconds -1 refused");
    /* A memory budget: A*+IDA*, optimal at the least budget too. */
    npuzzle_options_init(&options);
    check(options.memory == 0, "memory: none by default");
    options.pdb_dir = "/nonexistent-npuzzle-dir";
    options.memory = 1024;
    npuzzle_solver *kept = NULL;
    check(npuzzle_open_with(&options, &kept) == NPUZZLE_OK, "open_with memory");
    status = npuzzle_solve_with(kept, eight, 9, moves, sizeof moves, &info);
    check(status == NPUZZLE_OK && info.length == 14 && info.optimal == 1,
          "memory: the 3x3 board in 14 moves, optimal");
    npuzzle_close(kept);
    options.memory = 1023;
    check(npuzzle_open_with(&options, &kept) == NPUZZLE_INVALID_ARGUMENT, "memory 1023 refused");
    check(strstr(npuzzle_last_error(), "memory") != NULL, "memory: named");
    options.memory = UINT64_MAX;
    check(npuzzle_open_with(&options, &kept) == NPUZZLE_INVALID_ARGUMENT,
          "memory 2^64 - 1 refused");
    /* A partition names tables: with fast answers, which use none, it is
       refused, as on the command line. */
    npuzzle_options_init(&options);
    options.pdb_dir = argv[1];
    options.partition = "5-5-5";
    options.partition_size = 4;
    options.fast = 1;
    npuzzle_solver *fast = NULL;
    check(npuzzle_open_with(&options, &fast) == NPUZZLE_INVALID_ARGUMENT,
          "partition with fast refused");
    check(strstr(npuzzle_last_error(), "names tables") != NULL, "partition with fast: why");
    check(fast == NULL, "partition with fast: no handle");
    npuzzle_close(engine);

    /* Missing tables: a status and a message naming the file. */
    npuzzle_solver *none = NULL;
    status = npuzzle_open("/nonexistent-npuzzle-dir", NULL, 4, &none);
    check(status == NPUZZLE_TABLES, "missing tables");
    check(none == NULL, "no handle on failure");
    check(strstr(npuzzle_last_error(), "npuzzle pdb build") != NULL, "message says how to build");
    status = npuzzle_open(argv[1], "9-9", 4, &none);
    check(status == NPUZZLE_INVALID_ARGUMENT, "unknown partition");

    if (failures > 0) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    fprintf(stderr, "all checks passed on %d boards\n", boards);
    return 0;
}
