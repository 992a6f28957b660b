use crate::testing::*;
use crate::*;
use npuzzle_board::{random_walk, SplitMix64};

#[test]
fn tables_of_one_goal_answer_the_others_boards_optimally() {
    // 3x3: the exact blank-last table, asked for by a blank-first solver.
    let truth = distances_3x3_to(Goal::BlankFirst);
    let boards: Vec<Board> = truth.keys().step_by(61).cloned().collect();
    let turned = Solver::builder()
        .pdb_dir(tables_8())
        .goal(Goal::BlankFirst)
        .partition_for(3, "8")
        .heuristic(HeuristicKind::Pdb)
        .threads(2)
        .open_tables_now(3)
        .build()
        .unwrap();
    for (board, answer) in boards.iter().zip(turned.solve_many(&boards)) {
        let solution = answer.unwrap();
        assert!(solution.optimal, "{board}");
        assert_eq!(solution.length(), truth[board], "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankFirst), "{board}");
        assert_eq!(turned.lookup(board).unwrap().value as usize, truth[board]);
        assert_eq!(turned.lower_bound(board) as usize, truth[board]);
    }
    let notes = turned.take_notes();
    let told: Vec<_> = notes
        .iter()
        .filter(|n| matches!(n, Note::TablesTurned { size: 3, .. }))
        .collect();
    assert_eq!(told.len(), 1, "{notes:?}");
    assert!(
        told[0].to_string().contains("blank-last 8 tables"),
        "{}",
        told[0]
    );
    // A blank-last board given to it is refused for its own goal's parity.
    let odd = Board::new(3, vec![2, 1, 3, 4, 5, 6, 7, 8, 0]).unwrap();
    assert!(matches!(
        turned.solve(&odd),
        Err(Error::Unsolvable {
            goal: Goal::BlankFirst
        })
    ));

    // 4x4 by default policy: blank-last 5-5-5 tables, blank-first boards,
    // held to linear conflict's optimal IDA* (no tables).
    let solver = Solver::builder()
        .pdb_dir(tables_555())
        .goal(Goal::BlankFirst)
        .partition_for(4, "5-5-5")
        .threads(1)
        .build()
        .unwrap();
    let plain = Solver::builder()
        .goal(Goal::BlankFirst)
        .heuristic(HeuristicKind::LinearConflict)
        .threads(1)
        .build()
        .unwrap();
    let mut rng = SplitMix64::new(17);
    for steps in [0, 1, 20, 45, 60] {
        let board = random_walk(4, Goal::BlankFirst, steps, &mut rng);
        let solution = solver.solve(&board).unwrap();
        let truth = plain.solve(&board).unwrap();
        assert!(solution.optimal, "{board}");
        assert_eq!(solution.length(), truth.length(), "{board}");
        assert!(board.solves(&solution.moves, Goal::BlankFirst), "{board}");
        assert_eq!(solution.partition.as_deref(), Some("5-5-5"));
    }
    // A progress line names the turned search, whose goal it is.
    let board = random_walk(4, Goal::BlankFirst, 40, &mut rng);
    let identity = solver.search_identity(&board).unwrap();
    assert!(identity.contains("goal blank-last"), "{identity}");

    // Neither goal's tables: the side goes on without them, as before.
    let empty = tempfile::tempdir().unwrap();
    let none = Solver::builder()
        .pdb_dir(empty.path())
        .goal(Goal::BlankFirst)
        .build()
        .unwrap();
    let board = random_walk(4, Goal::BlankFirst, 30, &mut rng);
    assert!(board.solves(&none.solve(&board).unwrap().moves, Goal::BlankFirst));
    assert!(none
        .take_notes()
        .iter()
        .all(|n| !matches!(n, Note::TablesTurned { .. })));
}
