use crate::testing::*;
use crate::*;
use npuzzle_board::{Board, Goal};

/// Weighted search keeps its promise on 3x3 boards against breadth-first
/// truth: at most `1 + within / 100` times optimal, for every search that
/// takes a weight (a sample of every board, both goals, split and not),
/// and often longer than optimal (so the weight is really applied).
#[test]
fn weighted_search_stays_within_its_bound_of_optimal() {
    for goal in Goal::ALL {
        let distances = all_distances(3, goal);
        let mut longer = 0;
        for within in [10, 50, 200] {
            for (index, (tiles, &d)) in distances.iter().enumerate() {
                if index % 97 != 0 {
                    continue;
                }
                let board = Board::new(3, tiles.clone()).unwrap();
                for (algorithm, heuristic, parallel) in [
                    (Algorithm::IdaStar, HeuristicKind::LinearConflict, false),
                    (Algorithm::IdaStar, HeuristicKind::Manhattan, true),
                    (Algorithm::AStar, HeuristicKind::Manhattan, false),
                ] {
                    let request = Request {
                        within,
                        parallel,
                        ..request(algorithm, heuristic, goal)
                    };
                    let solution = solve(&board, &request).unwrap();
                    let length = solution.moves.len() as u64;
                    assert!(board.solves(&solution.moves, goal), "{board}");
                    assert!(
                        length * 100 <= u64::from(d) * u64::from(100 + within),
                        "{board}: {length} moves, optimal {d}, within {within}%, {algorithm:?} {heuristic:?} {parallel}"
                    );
                    longer += usize::from(length > u64::from(d));
                }
            }
        }
        assert!(longer > 100, "only {longer} answers longer than optimal");
    }
}
