/* Solves boards of any size through npuzzle_open_with with one thread and
 * prints "LENGTH EXPANDED OPTIMAL SECONDS MOVES" per input line of tiles, for the parity
 * test against `npuzzle solve --jobs 1 --json`. Arguments: PDB_DIR (or -),
 * then optional NAME=VALUE options: partition, size, goal, heuristic,
 * max_nodes, fast. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "npuzzle.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PDB_DIR [NAME=VALUE...] < boards\n", argv[0]);
        return 2;
    }
    npuzzle_options options;
    npuzzle_options_init(&options);
    options.threads = 1;
    if (strcmp(argv[1], "-") != 0) {
        options.pdb_dir = argv[1];
    }
    for (int i = 2; i < argc; i++) {
        char *value = strchr(argv[i], '=');
        if (value == NULL) {
            fprintf(stderr, "not NAME=VALUE: %s\n", argv[i]);
            return 2;
        }
        *value++ = '\0';
        if (strcmp(argv[i], "partition") == 0) {
            options.partition = value;
        } else if (strcmp(argv[i], "size") == 0) {
            options.partition_size = (uint32_t)atoi(value);
        } else if (strcmp(argv[i], "goal") == 0) {
            options.goal = value;
        } else if (strcmp(argv[i], "heuristic") == 0) {
            options.heuristic = value;
        } else if (strcmp(argv[i], "max_nodes") == 0) {
            options.max_nodes = strtoull(value, NULL, 10);
        } else if (strcmp(argv[i], "fast") == 0) {
            options.fast = atoi(value);
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 2;
        }
    }
    npuzzle_solver *solver = NULL;
    if (npuzzle_open_with(&options, &solver) != NPUZZLE_OK) {
        fprintf(stderr, "npuzzle_open_with: %s\n", npuzzle_last_error());
        return 1;
    }
    static char line[1 << 20];
    static uint16_t tiles[1 << 14];
    static char moves[1 << 24];
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t count = 0;
        for (char *word = strtok(line, " \n"); word != NULL; word = strtok(NULL, " \n")) {
            tiles[count++] = (uint16_t)atoi(word);
        }
        if (count == 0) {
            continue;
        }
        npuzzle_info info;
        npuzzle_status status = npuzzle_solve_with(solver, tiles, count, moves, sizeof moves, &info);
        if (status != NPUZZLE_OK) {
            printf("error %d\n", (int)status);
            continue;
        }
        printf("%zu %llu %d %.6f %s\n", info.length, (unsigned long long)info.expanded,
               info.optimal, info.seconds, moves);
    }
    npuzzle_close(solver);
    return 0;
}
