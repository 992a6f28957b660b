/* Threads sharing a fresh handle: opens a solver with the default options
 * (tables in argv[1], partition argv[2] for 4x4, not opened up front),
 * then THREADS threads each solve every board read from standard input
 * ("LENGTH t0 ... t15" lines) through the one handle, and checks each
 * length; again on a new handle, ROUNDS times (argv[3]). The caller holds
 * the timeout: a deadlock shows as a program that never exits. Exit status
 * 0 only if every answer was right. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuzzle.h"

enum { THREADS = 4, MAX_BOARDS = 16 };

static uint8_t tiles[MAX_BOARDS][16];
static int lengths[MAX_BOARDS];
static int boards = 0;

struct job {
    npuzzle_solver *solver;
    int failures;
};

static void *solve_all(void *arg) {
    struct job *job = arg;
    for (int b = 0; b < boards; b++) {
        char moves[256];
        size_t length = 0;
        npuzzle_status status = npuzzle_solve(job->solver, tiles[b], 16, NPUZZLE_NO_LIMIT, moves,
                                              sizeof moves, &length, NULL);
        if (status != NPUZZLE_OK || (int)length != lengths[b]) {
            fprintf(stderr, "board %d: status %d, %zu moves, expected %d: %s\n", b, (int)status,
                    length, lengths[b], npuzzle_last_error());
            job->failures++;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s PDB_DIR PARTITION ROUNDS < boards\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[3]);
    while (boards < MAX_BOARDS && scanf("%d", &lengths[boards]) == 1) {
        for (int i = 0; i < 16; i++) {
            int t;
            if (scanf("%d", &t) != 1) {
                fprintf(stderr, "bad input line %d\n", boards + 1);
                return 2;
            }
            tiles[boards][i] = (uint8_t)t;
        }
        boards++;
    }
    int failures = 0;
    for (int round = 0; round < rounds; round++) {
        npuzzle_options options;
        npuzzle_options_init(&options);
        options.pdb_dir = argv[1];
        options.partition = argv[2];
        options.partition_size = 4;
        npuzzle_solver *solver = NULL;
        if (npuzzle_open_with(&options, &solver) != NPUZZLE_OK) {
            fprintf(stderr, "npuzzle_open_with: %s\n", npuzzle_last_error());
            return 1;
        }
        pthread_t threads[THREADS];
        struct job jobs[THREADS];
        for (int t = 0; t < THREADS; t++) {
            jobs[t].solver = solver;
            jobs[t].failures = 0;
            if (pthread_create(&threads[t], NULL, solve_all, &jobs[t]) != 0) {
                fprintf(stderr, "pthread_create failed\n");
                return 1;
            }
        }
        for (int t = 0; t < THREADS; t++) {
            pthread_join(threads[t], NULL);
            failures += jobs[t].failures;
        }
        npuzzle_close(solver);
    }
    printf("%d rounds, %d threads, %d boards, %d failures\n", rounds, THREADS, boards, failures);
    return failures == 0 ? 0 : 1;
}
