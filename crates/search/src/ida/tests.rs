use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use npuzzle_board::{random_walk, Goal, Move, SplitMix64};
use npuzzle_pdb::testing::TestBytes;
use npuzzle_pdb::Partition;

use super::pass::*;
use super::split::*;
use crate::additive::kept_indexes::KeptIndexes;
use crate::additive::TablesView;
use crate::grid::{Grid, Position};
use crate::halt::Halt;
use crate::heuristic::Heuristic;
use crate::types::PassFrom;
use crate::types::Stats;

/// A 4x4 catalogue of zero-aware and plain tables in two partitions,
/// small enough to build in a test: its grid, tables and partition
/// sizes.
fn small_catalogue() -> (Grid, Vec<npuzzle_pdb::Pdb<TestBytes>>, Vec<usize>) {
    let goal = Goal::BlankLast;
    let name = "z1,2,5,6,9;3,4,7,8,12+1,2,3,4;z5,6,9,10,13;7,8,11,12,14,15";
    let groups = Partition::parse(name, 4, goal).unwrap().groups().to_vec();
    let pdbs = npuzzle_pdb::testing::tables(name, 4, goal);
    (Grid::new(4, goal), pdbs, groups)
}

/// The split search's answer on this thread alone, without limits.
fn alone<H: Heuristic>(grid: &Grid, heuristic: &H, position: &Position) -> (Vec<Move>, Stats) {
    split_ida_star(
        grid,
        heuristic,
        position.clone(),
        u64::MAX,
        Halt::default(),
        1,
        None,
    )
    .unwrap()
}

/// The levels above the split depth are the same, in the same order,
/// however many threads expand them, and so is the split search's
/// solution.
#[test]
fn the_frontier_and_the_solution_do_not_depend_on_the_threads() {
    let (grid, pdbs, groups) = small_catalogue();
    let goal = grid.goal;
    let heuristic =
        KeptIndexes::<8, 4>::new(&TablesView::new(&grid, &pdbs, &groups, true)).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(5);
    for _ in 0..3 {
        let board = random_walk(4, goal, 60, &mut rng);
        let position = Position::new(&board);
        let state = heuristic.init(&position);
        let root = Subtree::root(position.clone(), state);
        let bound = heuristic.value(&state) + 14;
        let one = frontier(&grid, &heuristic, &root, 10, bound, 1);
        let two = pool.install(|| frontier(&grid, &heuristic, &root, 10, bound, 2));
        let moves = |f: &Frontier<_>| -> Vec<Vec<Move>> {
            f.parts.iter().flatten().map(|t| t.moves.clone()).collect()
        };
        assert!(moves(&one).len() > 100, "{board}: {}", moves(&one).len());
        assert_eq!(moves(&one), moves(&two), "{board}");
        assert_eq!((one.least_cut, one.stats), (two.least_cut, two.stats));
        let solve = |workers| {
            pool.install(|| {
                split_ida_star(
                    &grid,
                    &heuristic,
                    position.clone(),
                    u64::MAX,
                    Halt::default(),
                    workers,
                    None,
                )
            })
            .unwrap()
        };
        let (alone, _) = solve(1);
        let (together, _) = solve(2);
        assert_eq!(alone, together, "{board}");
        assert!(board.solves(&alone, goal));
        // One thread with a spare one, lent for every iteration.
        let spare = AtomicUsize::new(1);
        let (helped, _) = split_ida_star(
            &grid,
            &heuristic,
            position.clone(),
            u64::MAX,
            Halt::default(),
            1,
            Some(&spare),
        )
        .unwrap();
        assert_eq!(alone, helped, "{board}");
        assert_eq!(
            spare.load(Ordering::Relaxed),
            1,
            "the spare thread is given back"
        );
    }
}

/// A search takes on every spare thread when it looks, runs the worker
/// on each, adds up their figures, and gives the threads back.
#[test]
fn spare_threads_join_the_search_and_are_given_back() {
    let spare = AtomicUsize::new(3);
    let runs = AtomicUsize::new(0);
    let worker = |recruit: Option<&dyn Fn()>| {
        if let Some(recruit) = recruit {
            recruit();
            assert_eq!(spare.load(Ordering::Relaxed), 0, "all three taken");
        }
        let run = runs.fetch_add(1, Ordering::Relaxed) as u64;
        let stats = Stats {
            expanded: 10 + run,
            ..Stats::default()
        };
        (stats, 40 + run as u32)
    };
    let (stats, next_bound) = with_spare_threads(&spare, &worker);
    assert_eq!(runs.load(Ordering::Relaxed), 4);
    assert_eq!(stats.expanded, 10 + 11 + 12 + 13);
    assert_eq!(next_bound, 40);
    assert_eq!(spare.load(Ordering::Relaxed), 3);
    // None spare: the worker alone.
    let none = AtomicUsize::new(0);
    runs.store(0, Ordering::Relaxed);
    let worker = |recruit: Option<&dyn Fn()>| {
        if let Some(recruit) = recruit {
            recruit();
        }
        runs.fetch_add(1, Ordering::Relaxed);
        (Stats::default(), 7)
    };
    assert_eq!(with_spare_threads(&none, &worker).1, 7);
    assert_eq!(runs.load(Ordering::Relaxed), 1);
}

/// A goal above the depth, as a bound past it (an inadmissible
/// estimate's) finds it: the shallowest, the first in move order, for
/// any number of threads, and no frontier with it.
#[test]
fn the_frontier_stops_at_the_shallowest_goal() {
    let grid = Grid::new(4, Goal::BlankLast);
    let heuristic = crate::heuristic::Manhattan::new(&grid);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(3);
    for walk in [3, 6, 9] {
        let board = random_walk(4, Goal::BlankLast, walk, &mut rng);
        let position = Position::new(&board);
        let (shortest, _) =
            crate::classic::bfs(&grid, position.clone(), u64::MAX, Halt::default()).unwrap();
        let root = Subtree::root(position.clone(), heuristic.init(&position));
        let one = frontier(&grid, &heuristic, &root, 12, 40, 1);
        let two = pool.install(|| frontier(&grid, &heuristic, &root, 12, 40, 2));
        let found = one.goal.expect("a goal within the bound");
        assert_eq!(found.len(), shortest.len(), "{board}");
        assert!(board.solves(&found, Goal::BlankLast), "{board}");
        assert_eq!(two.goal, Some(found), "{board}");
        assert!(one.parts.is_empty() && two.parts.is_empty());
    }
}

/// One thread's split search expands exactly the nodes of the
/// frontier's subtrees passed one by one in `promise` order, which the
/// last iteration's nearest approaches change: the order the
/// distributed search rebuilds from the passes' reports.
#[test]
fn the_split_search_takes_the_subtrees_that_came_nearest_first() {
    let (grid, pdbs, groups) = small_catalogue();
    let goal = grid.goal;
    let heuristic =
        KeptIndexes::<8, 4>::new(&TablesView::new(&grid, &pdbs, &groups, true)).unwrap();
    let mut rng = SplitMix64::new(9);
    let mut reordered = 0;
    for _ in 0..3 {
        let board = random_walk(4, goal, 60, &mut rng);
        let position = Position::new(&board);
        let (solution, stats) = alone(&grid, &heuristic, &position);
        let mut bound = heuristic.value(&heuristic.init(&position));
        let mut came_near: HashMap<Vec<Move>, u32> = HashMap::new();
        let mut expanded = 0;
        let found = loop {
            let (nodes, least_cut, shallow, above) = frontier_moves(
                &grid,
                &heuristic,
                position.clone(),
                split_depth(grid.n),
                bound,
            );
            assert!(shallow.is_none(), "{board}");
            expanded += above;
            let mut ordered = nodes.clone();
            ordered.sort_by_key(|(moves, h)| promise(*h, came_near.get(moves).copied()));
            reordered += (ordered != nodes) as usize;
            let (mut next_bound, mut found) = (least_cut, None);
            came_near.clear();
            for (prefix, h) in &ordered {
                let (rest, below, nodes, complete, closest) = pass_below(
                    &grid,
                    &heuristic,
                    position.clone(),
                    prefix,
                    PassFrom::Frontier,
                    bound,
                    u64::MAX,
                    Halt::default(),
                );
                assert!(complete && closest <= *h);
                expanded += nodes;
                came_near.insert(prefix.clone(), closest);
                if let Some(rest) = rest {
                    found = Some([prefix.clone(), rest].concat());
                    break;
                }
                next_bound = next_bound.min(below);
            }
            match found {
                Some(moves) => break moves,
                None => bound = next_bound,
            }
        };
        assert_eq!((found, expanded), (solution, stats.expanded), "{board}");
    }
    assert!(reordered > 0, "no iteration changed the order");
}

/// A search cut short again and again, each run going on from the
/// progress the last one kept, finds the moves one run finds, and counts
/// the same nodes once the work it did twice is taken off.
#[test]
fn a_search_cut_short_goes_on_from_its_progress_to_the_same_answer() {
    use std::sync::Mutex;

    use crate::progress::Progress;

    let (grid, pdbs, groups) = small_catalogue();
    let goal = grid.goal;
    let heuristic =
        KeptIndexes::<8, 4>::new(&TablesView::new(&grid, &pdbs, &groups, true)).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(11);
    let mut resumed_iterations = 0;
    for _ in 0..4 {
        let board = random_walk(4, goal, 200, &mut rng);
        let position = Position::new(&board);
        let (whole, whole_stats) = alone(&grid, &heuristic, &position);
        for workers in [1, 2] {
            let progress = Mutex::new(Progress::default());
            let mut runs = 0;
            let (moves, stats) = loop {
                runs += 1;
                assert!(runs <= 12, "{board}: no end after {runs} runs");
                // Each run may do a little more, so that every subtree
                // ends in some run.
                let limit = (whole_stats.expanded * runs / 8).max(1);
                let found = pool.install(|| {
                    split_ida_star_keeping(
                        &grid,
                        &heuristic,
                        position.clone(),
                        limit,
                        Halt::default(),
                        workers,
                        None,
                        Some(&progress),
                    )
                });
                if let Some(found) = found.unwrap() {
                    break found;
                }
                let kept = progress.lock().unwrap();
                assert!(kept.begun(), "{board}");
                assert!(kept.check(split_depth(4), 0).is_ok(), "{board}: {kept:?}");
                if kept.iterations > 1 {
                    resumed_iterations += 1;
                }
            };
            let kept = progress.lock().unwrap();
            assert_eq!(moves, whole, "{board}, {workers} workers, {runs} runs");
            assert!(board.solves(&moves, goal));
            assert_eq!(kept.runs, runs as u32);
            assert_eq!(stats.iterations, whole_stats.iterations, "{board}");
            if workers == 1 {
                assert!(runs > 1, "{board}: never cut short");
                assert_eq!(
                    stats.expanded - kept.lost,
                    whole_stats.expanded,
                    "{board}: {runs} runs, {} lost",
                    kept.lost
                );
            }
        }
    }
    assert!(resumed_iterations > 0, "no run went on past an iteration");
}

/// Progress that cannot be this search's is refused, not followed.
#[test]
fn progress_of_another_search_is_refused() {
    use std::sync::Mutex;

    use crate::progress::{Progress, Searched};

    let (grid, pdbs, groups) = small_catalogue();
    let heuristic =
        KeptIndexes::<8, 4>::new(&TablesView::new(&grid, &pdbs, &groups, true)).unwrap();
    let mut rng = SplitMix64::new(3);
    let board = random_walk(4, grid.goal, 200, &mut rng);
    let position = Position::new(&board);
    let estimate = heuristic.value(&heuristic.init(&position));
    assert!(estimate > split_depth(4) + 2, "{board}: too near to split");
    let key = |moves: u32| 1u64 << (2 * moves);
    let good = Progress {
        split_depth: split_depth(4),
        bound: estimate,
        iterations: 1,
        expanded: 10,
        runs: 1,
        searched: vec![Searched {
            key: key(split_depth(4)),
            next_bound: estimate + 2,
            closest: 9,
        }],
        ..Progress::default()
    };
    assert!(good.check(split_depth(4), estimate).is_ok());
    // A bound past a solution known cannot be under way.
    let most = crate::reduction::solve_by_reduction(&board, grid.goal)
        .unwrap()
        .len() as u32;
    assert!(good.check_bound_within(most).is_ok());
    for bound in [most + 1, u32::MAX] {
        let beyond = Progress {
            bound,
            ..good.clone()
        };
        let why = beyond.check_bound_within(most).unwrap_err().to_string();
        assert!(
            why.contains(&format!("bound {bound} is above {most}")),
            "{why}"
        );
    }
    let bad = [
        Progress {
            split_depth: 12,
            ..good.clone()
        },
        Progress {
            bound: estimate - 1,
            ..good.clone()
        },
        Progress {
            lost: 11,
            ..good.clone()
        },
        Progress {
            iterations: 0,
            ..good.clone()
        },
        // More iterations than bounds, and none of the runs that made it.
        Progress {
            iterations: u32::MAX,
            ..good.clone()
        },
        Progress {
            runs: 0,
            ..good.clone()
        },
        // Nothing begun, yet counters and subtrees.
        Progress {
            bound: 0,
            ..good.clone()
        },
        Progress {
            lost: 5,
            ..Progress::default()
        },
        Progress {
            came_near: vec![(key(3), 5)],
            ..good.clone()
        },
        Progress {
            searched: vec![Searched {
                next_bound: estimate,
                ..good.searched[0]
            }],
            ..good.clone()
        },
    ];
    for progress in bad {
        let shown = format!("{progress:?}");
        let progress = Mutex::new(progress);
        let found = split_ida_star_keeping(
            &grid,
            &heuristic,
            position.clone(),
            u64::MAX,
            Halt::default(),
            1,
            None,
            Some(&progress),
        );
        assert!(found.is_err(), "{shown} was taken");
    }
    assert_eq!(Progress::key_depth(key(8)), Some(8));
    assert_eq!(Progress::key_depth(1), Some(0));
    assert_eq!(Progress::key_depth(2), None);
    assert_eq!(Progress::key_depth(0), None);
}

/// A goal found below a later place stands when a limit stops the search
/// of an earlier place: the iteration's bound is proved optimal either
/// way. Without a goal, the stop ends the search; without either, the
/// next iteration follows, unless the node limit or the halt is reached.
#[test]
fn a_goal_found_stands_when_a_limit_stops_an_earlier_place() {
    use super::dfs::{Dfs, Flow};

    let grid = Grid::new(3, Goal::BlankLast);
    let heuristic = crate::heuristic::Manhattan::new(&grid);
    let board = random_walk(3, Goal::BlankLast, 10, &mut SplitMix64::new(5));
    let search = |path: Vec<Move>| {
        let mut dfs = Dfs::new(
            &grid,
            &heuristic,
            Position::new(&board),
            u64::MAX,
            Halt::default(),
        );
        dfs.path = path;
        dfs
    };
    let halt = Halt::default();
    let handout = Handout::new(0);
    let below = search(vec![Move::Up, Move::Left]);
    handout.record(5, Flow::Found, &below, || vec![Move::Down]);
    handout.record(2, Flow::Stopped, &search(Vec::new()), Vec::new);
    assert!(handout.stopped(), "the earlier place was cut short");
    assert_eq!(
        handout.ended(10, 10, halt),
        Ended::Found(vec![Move::Down, Move::Up, Move::Left])
    );

    let handout = Handout::new(0);
    handout.record(2, Flow::Stopped, &search(Vec::new()), Vec::new);
    assert_eq!(handout.ended(3, u64::MAX, halt), Ended::Stopped);

    let handout = Handout::new(0);
    handout.record(0, Flow::Exhausted, &search(Vec::new()), Vec::new);
    assert_eq!(handout.ended(3, u64::MAX, halt), Ended::GoOn);
    assert_eq!(handout.ended(3, 3, halt), Ended::Stopped);
    let stop = std::sync::atomic::AtomicBool::new(true);
    assert_eq!(
        handout.ended(3, u64::MAX, Halt::flag(Some(&stop))),
        Ended::Stopped
    );
}
