use crate::testing::*;
use crate::*;
use npuzzle_board::{random_walk, SplitMix64};

/// The stream yields every item once, in input order, items without a
/// board passed through, whatever order the threads finish in.
#[test]
fn answers_come_in_input_order_with_bounded_look_ahead() {
    let solver = open_555().with_threads(3).unwrap();
    let mut rng = SplitMix64::new(11);
    let items: Vec<Option<Board>> = (0..60)
        .map(|i| (i % 7 != 3).then(|| random_walk(4, Goal::BlankLast, 10 + i % 50, &mut rng)))
        .collect();
    let answers: Vec<_> = solver.answers(items.clone(), Option::as_ref).collect();
    assert_eq!(answers.len(), items.len());
    for (answered, expected) in answers.iter().zip(&items) {
        assert_eq!(&answered.item, expected);
        match (&answered.item, &answered.result) {
            (Some(board), Some(Ok(solution))) => {
                assert!(board.solves(&solution.moves, Goal::BlankLast))
            }
            (None, None) => {}
            other => panic!("{other:?}"),
        }
    }
    // Stopping early leaves no thread blocked on the caller.
    let mut partial = solver.answers(items, Option::as_ref);
    assert!(partial.next().is_some());
    drop(partial);
}
