use crate::testing::*;
use crate::*;
use npuzzle_board::SplitMix64;

/// Time for a shorter answer: the default beam's answer, then wider beams;
/// never longer than the default's, replayed to the goal, its note saying
/// how long it searched. Within a node limit, the beams together keep to
/// it. Where no beam runs, it is refused.
#[test]
fn time_for_a_shorter_answer_never_lengthens_it() {
    use std::time::Duration;
    isolate();
    let policy = Solver::builder().threads(2).build().unwrap();
    let board = random_board(6, Goal::BlankLast, &mut SplitMix64::new(5));
    let default = policy.solve(&board).unwrap();
    let run = Run {
        anytime: Some(Duration::from_secs(4)),
        ..Run::default()
    };
    let improved = policy.solve_with(&board, &run).unwrap();
    // The first answer is the budget's, from the default width when the
    // time sufficed (on a slow machine it may not): never shorter after.
    let number_after = |note: &str, after: &str| -> usize {
        let at = note.find(after).unwrap() + after.len();
        let digits: String = note[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().unwrap()
    };
    let note = improved.note.as_deref().unwrap();
    let first = number_after(note, "given: ");
    assert!(improved.length() <= first, "{note}");
    let default_width = number_after(default.note.as_deref().unwrap(), "width ");
    if number_after(note, "moves at width ") == default_width {
        assert_eq!(first, default.length(), "{note}");
    }
    assert!(!improved.optimal);
    let mut reached = board.clone();
    assert!(improved.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));
    let note = improved.note.as_deref().unwrap();
    assert!(
        note.contains("beam searched") && note.contains("of the 4 s given"),
        "{note}"
    );

    let limited = Run {
        anytime: Some(Duration::from_secs(600)),
        max_nodes: Some(3_000_000),
        ..Run::default()
    };
    let solution = policy.solve_with(&board, &limited).unwrap();
    let expanded = solution.stats.unwrap().expanded;
    assert!(expanded <= 3_000_000 + 16, "{expanded}");
    let mut reached = board.clone();
    assert!(solution.moves.iter().all(|&mv| reached.apply(mv)));
    assert!(reached.is_goal(Goal::BlankLast));

    let fast = Solver::builder().fast(true);
    let e = fast
        .anytime(Some(Duration::from_secs(1)))
        .build()
        .err()
        .unwrap();
    assert!(e.to_string().contains("anytime"), "{e}");
    let fast = Solver::builder().fast(true).build().unwrap();
    let e = fast.solve_with(&board, &run).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e:?}");
}
