/* Fuzzes the C ABI: random sequences of calls with random arguments,
 * within what the header allows (NULL where it says NULL is refused,
 * handles open, closed or never opened, boards valid or not, buffers of
 * any size), checking every answer:
 *   - the status is one of the enum's, never NPUZZLE_INTERNAL;
 *   - after a failure npuzzle_last_error() is a non-empty message;
 *   - an NPUZZLE_OK solution is NUL-terminated, as long as *length says,
 *     and replays to the goal; nothing is written past the buffer;
 *   - NPUZZLE_BUFFER_TOO_SMALL reports a length that does not fit.
 * Prints the case count and the statuses seen; exits 1 on the first
 * failure, naming the case and the call.
 *
 *   fuzz_abi PDB_DIR CASES SEED */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuzzle.h"

static uint64_t state;

static uint64_t next(void) {
    /* SplitMix64 */
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t below(uint64_t n) { return n ? next() % n : 0; }

static long cases_run;
static long seen[16];

#define MAX_HANDLES 6
static npuzzle_solver *handles[MAX_HANDLES];
static int live[MAX_HANDLES];
/* Each open handle's goal: 1 for blank-first. */
static int blank_first[MAX_HANDLES];

static void fail(const char *call, const char *why) {
    fprintf(stdout, "case %ld, %s: %s (last error: %s)\n", cases_run, call, why,
            npuzzle_last_error());
    exit(1);
}

static void check_status(const char *call, npuzzle_status status) {
    if ((int)status < 0 || (int)status > 8) fail(call, "a status outside the enum");
    seen[status]++;
    if (status == NPUZZLE_INTERNAL) fail(call, "NPUZZLE_INTERNAL: a caught panic");
    if (status != NPUZZLE_OK) {
        const char *message = npuzzle_last_error();
        if (message == NULL || message[0] == '\0') fail(call, "a failure without a message");
    }
}

static const char *pick(const char *const *choices, size_t count) {
    return choices[below(count)];
}

/* A board: a random walk from a goal (bounded search effort), a random
 * permutation, or random bytes. Returns the tile count. Walks start from
 * the blank-last goal, so a blank-first solver gets far boards too; a 5x5
 * walk starts from `first`'s goal but one time in sixteen, as a far 5x5
 * board costs seconds of beam search and adds no new path after the
 * first few. */
static size_t board(uint16_t *tiles, int *side, int *solvable_kind, int first) {
    int n = 2 + (int)below(4); /* 2..5 */
    size_t cells = (size_t)n * n;
    *side = n;
    *solvable_kind = 0;
    uint64_t kind = below(10);
    if (kind < 7) {
        int from_first = n == 5 && (below(16) ? first : !first);
        for (size_t i = 0; i < cells; i++)
            tiles[i] = (uint16_t)(from_first ? i : (i + 1) % cells);
        size_t blank = from_first ? 0 : cells - 1;
        int steps = (int)below(n <= 3 ? 40 : 28);
        for (int s = 0; s < steps; s++) {
            int r = (int)(blank / n), c = (int)(blank % n);
            size_t target;
            switch (below(4)) {
            case 0: if (r == 0) continue; target = blank - n; break;
            case 1: if (r == n - 1) continue; target = blank + n; break;
            case 2: if (c == 0) continue; target = blank - 1; break;
            default: if (c == n - 1) continue; target = blank + 1; break;
            }
            tiles[blank] = tiles[target];
            tiles[target] = 0;
            blank = target;
        }
        *solvable_kind = 1;
        return cells;
    }
    if (kind < 8 && n <= 3) {
        for (size_t i = 0; i < cells; i++) tiles[i] = (uint16_t)i;
        for (size_t i = cells - 1; i > 0; i--) {
            size_t j = below(i + 1);
            uint16_t t = tiles[i];
            tiles[i] = tiles[j];
            tiles[j] = t;
        }
        return cells;
    }
    size_t len = below(40);
    for (size_t i = 0; i < len; i++) tiles[i] = (uint16_t)below(below(2) ? 30 : 70000);
    return len;
}

/* Plays `moves` (tile letters) on the board; 1 if it ends at the goal
 * (1 2 ... 0, or 0 1 2 ... with `first`). */
static int replays(const uint16_t *start, size_t cells, int n, const char *moves, size_t length,
                   int first) {
    uint16_t tiles[64];
    memcpy(tiles, start, cells * sizeof tiles[0]);
    size_t blank = 0;
    while (tiles[blank] != 0) blank++;
    for (size_t i = 0; i < length; i++) {
        int r = (int)(blank / n), c = (int)(blank % n);
        size_t from;
        switch (moves[i]) {
        case 'U': if (r == n - 1) return 0; from = blank + n; break;
        case 'D': if (r == 0) return 0; from = blank - n; break;
        case 'L': if (c == n - 1) return 0; from = blank + 1; break;
        case 'R': if (c == 0) return 0; from = blank - 1; break;
        default: return 0;
        }
        tiles[blank] = tiles[from];
        tiles[from] = 0;
        blank = from;
    }
    for (size_t i = 0; i < cells; i++)
        if (tiles[i] != (first ? i : (i + 1) % cells)) return 0;
    return 1;
}

/* The goal of an open handle (blank-last for anything else). */
static int goal_of(const npuzzle_solver *solver) {
    for (int i = 0; i < MAX_HANDLES; i++)
        if (live[i] && handles[i] == solver) return blank_first[i];
    return 0;
}

/* Whether `solver` is open: a closed handle's address may come back from
 * a later open, so liveness goes by address. */
static int is_live(const npuzzle_solver *solver) {
    for (int i = 0; i < MAX_HANDLES; i++)
        if (live[i] && handles[i] == solver) return 1;
    return 0;
}

static void closed(const npuzzle_solver *solver) {
    for (int i = 0; i < MAX_HANDLES; i++)
        if (handles[i] == solver) live[i] = 0;
}

/* Mostly an open handle; else NULL, one never opened, or any slot's
 * (open or closed). */
static npuzzle_solver *any_handle(int *slot) {
    uint64_t kind = below(20);
    *slot = -1;
    if (kind == 0) return NULL;
    if (kind == 1) return (npuzzle_solver *)(uintptr_t)(0x1000 + 16 * below(1000));
    if (kind < 16) {
        int start = (int)below(MAX_HANDLES);
        for (int i = 0; i < MAX_HANDLES; i++) {
            int s = (start + i) % MAX_HANDLES;
            if (live[s]) {
                *slot = s;
                return handles[s];
            }
        }
    }
    *slot = (int)below(MAX_HANDLES);
    return handles[*slot];
}

static void open_one(const char *dir) {
    static const char *const dirs[] = {NULL, "", "/nonexistent", "data", "\xff\xfe"};
    static const char *const partitions[] = {NULL, "6-6-3", "7-8", "5-5-5", "junk", "8",
                                             "1,2,3;4,5,6", "6-6-3+6-6-3", "", "z"};
    static const char *const goals[] = {NULL, "blank-last", "blank-first", "sideways", ""};
    static const char *const algorithms[] = {NULL, NULL, "idastar", "astar", "bfs", "dfs"};
    static const char *const heuristics[] = {NULL, NULL, "pdb", "linear-conflict", "manhattan",
                                             "hamming", "magic"};
    int slot = (int)below(MAX_HANDLES);
    npuzzle_solver *solver = (npuzzle_solver *)0x1;
    npuzzle_status status;
    int first = 0;
    if (below(3) == 0) {
        const char *where = below(2) ? dir : pick(dirs, 5);
        if (where == NULL) where = dir;
        status = npuzzle_open(where, pick(partitions, 10), (uint32_t)below(7),
                              below(20) ? &solver : NULL);
        check_status("npuzzle_open", status);
    } else {
        npuzzle_options options;
        npuzzle_options_init(&options);
        if (below(2)) npuzzle_options_init(NULL);
        int sane = below(3) != 0;
        options.pdb_dir = below(4) ? dir : pick(dirs, 5);
        options.partition = sane ? pick(partitions, 2) : pick(partitions, 10);
        options.partition_size = sane ? 4 : (uint32_t)below(7);
        options.goal = sane ? pick(goals, 3) : pick(goals, 5);
        first = options.goal != NULL && strcmp(options.goal, "blank-first") == 0;
        options.algorithm = sane ? NULL : pick(algorithms, 6);
        options.heuristic = sane ? NULL : pick(heuristics, 7);
        options.reflection = (int32_t)below(3) - 1;
        options.fast = below(4) == 0;
        uint64_t limits[] = {NPUZZLE_NO_LIMIT, 0, 1, 1000, 50000, 200000};
        options.max_nodes = limits[below(6)];
        /* A weak heuristic or a search that keeps every board runs long
         * without a limit: those get one. */
        if ((options.algorithm != NULL || options.heuristic != NULL) &&
            options.max_nodes > 200000)
            options.max_nodes = 50000;
        uint32_t threads[] = {0, 1, 2, 3, 256, 257, 100000};
        options.threads = threads[below(sane ? 4 : 7)];
        options.require_tables = (int32_t)below(2);
        status = npuzzle_open_with(below(20) ? &options : NULL, below(20) ? &solver : NULL);
        check_status("npuzzle_open_with", status);
    }
    if (status == NPUZZLE_OK) {
        if (solver == NULL || solver == (npuzzle_solver *)0x1) fail("open", "OK without a handle");
        if (live[slot]) {
            npuzzle_close(handles[slot]);
            closed(handles[slot]);
        }
        handles[slot] = solver;
        live[slot] = 1;
        blank_first[slot] = first;
    } else if (solver != NULL && solver != (npuzzle_solver *)0x1) {
        fail("open", "a failure left a handle");
    }
}

static void solve_one(int with_info) {
    int slot;
    npuzzle_solver *solver = any_handle(&slot);
    uint16_t tiles[80];
    uint8_t bytes[80];
    int n, solvable;
    size_t len = board(tiles, &n, &solvable, goal_of(solver));
    for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)tiles[i];
    size_t capacity = below(4) ? 300 : below(40);
    char *moves = malloc(capacity + 16);
    memset(moves, 0xAA, capacity + 16);
    char *buffer = (capacity == 0 && below(2)) ? NULL : moves;
    size_t length = 12345;
    npuzzle_status status;
    const char *call;
    if (with_info) {
        npuzzle_info info;
        call = "npuzzle_solve_with";
        status = npuzzle_solve_with(solver, below(60) ? tiles : NULL, len, buffer, capacity,
                                    below(60) ? &info : NULL);
        if (status == NPUZZLE_OK || status == NPUZZLE_BUFFER_TOO_SMALL) length = info.length;
        if (status == NPUZZLE_OK && info.optimal && info.lower_bound != info.length)
            fail(call, "optimal, but the lower bound is not the length");
    } else {
        call = "npuzzle_solve";
        uint64_t limits[] = {NPUZZLE_NO_LIMIT, 0, 1, 100, 5000, 200000};
        uint64_t expanded;
        int bytes_ok = 1;
        for (size_t i = 0; i < len; i++) bytes_ok &= tiles[i] < 256;
        if (!bytes_ok) len = len < 3 ? len : 3;
        status = npuzzle_solve(solver, below(60) ? bytes : NULL, len, limits[below(6)], buffer,
                               capacity, below(60) ? &length : NULL, below(2) ? &expanded : NULL);
    }
    check_status(call, status);
    for (size_t i = capacity; i < capacity + 16; i++)
        if ((unsigned char)moves[i] != 0xAA) fail(call, "wrote past the buffer");
    if (status == NPUZZLE_OK) {
        if (length >= capacity) fail(call, "OK, but the moves and NUL do not fit");
        if (strlen(moves) != length) fail(call, "the moves are not NUL-terminated at *length");
        if (!replays(tiles, len, n, moves, length, goal_of(solver)))
            fail(call, "the moves do not reach the goal");
        if (!is_live(solver)) fail(call, "a handle that is not open answered");
    }
    if (status == NPUZZLE_BUFFER_TOO_SMALL && length + 1 <= capacity)
        fail(call, "too small, but the length fits");
    free(moves);
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PDB_DIR CASES SEED\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    long cases = atol(argv[2]);
    state = (uint64_t)atoll(argv[3]);
    for (cases_run = 0; cases_run < cases; cases_run++) {
        switch (below(12)) {
        case 0: open_one(dir); break;
        case 1: {
            int slot;
            npuzzle_solver *solver = any_handle(&slot);
            npuzzle_close(solver);
            closed(solver);
            break;
        }
        case 2: {
            int slot, n, solvable;
            npuzzle_solver *solver = any_handle(&slot);
            uint16_t tiles[80];
            uint8_t bytes[80];
            size_t len = board(tiles, &n, &solvable, goal_of(solver));
            for (size_t i = 0; i < len; i++) bytes[i] = (uint8_t)tiles[i];
            uint32_t value;
            check_status("npuzzle_lookup",
                         npuzzle_lookup(solver, below(20) ? bytes : NULL, len,
                                        below(20) ? &value : NULL));
            break;
        }
        case 3: case 4: case 5: case 6: solve_one(0); break;
        default: solve_one(1); break;
        }
    }
    for (int i = 0; i < MAX_HANDLES; i++)
        if (live[i]) {
            npuzzle_close(handles[i]);
            closed(handles[i]);
        }
    printf("%ld cases:", cases_run);
    for (int s = 0; s <= 8; s++) printf(" %ld", seen[s]);
    printf(" (calls per status, OK first)\n");
    return 0;
}
