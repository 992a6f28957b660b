//! The plain heuristics against true distances.

use crate::heuristic::{Hamming, Heuristic, LinearConflict, Manhattan};
use crate::testing::*;
use crate::*;
use npuzzle_board::{random_board, Board, Goal, SplitMix64};

#[test]
fn every_heuristic_is_admissible_on_every_3x3_board() {
    for goal in Goal::ALL {
        let grid = Grid::new(3, goal);
        let (h, m, lc) = (
            Hamming::new(&grid),
            Manhattan::new(&grid),
            LinearConflict::new(&grid),
        );
        let distances = all_distances(3, goal);
        assert_eq!(distances.len(), 181_440);
        let mut lc_beats_manhattan = 0;
        for (tiles, &d) in &distances {
            let p = Position::new(&Board::from_tiles(tiles.clone()).unwrap());
            let (hv, mv, lv) = (
                h.value(&h.init(&p)),
                m.value(&m.init(&p)),
                lc.value(&lc.init(&p)),
            );
            assert!(
                hv <= d && mv <= d && lv <= d,
                "{tiles:?}: {hv} {mv} {lv} > {d}"
            );
            assert!(hv <= mv && mv <= lv);
            lc_beats_manhattan += (lv > mv) as u32;
        }
        assert!(
            lc_beats_manhattan > 50_000,
            "linear conflict adds little: {lc_beats_manhattan}"
        );
    }
}

#[test]
fn incremental_updates_match_fresh_evaluation() {
    let mut rng = SplitMix64::new(3);
    for (n, goal) in [3, 4, 5, 6, 7, 8]
        .into_iter()
        .flat_map(|n| Goal::ALL.map(|g| (n, g)))
    {
        let grid = Grid::new(n, goal);
        let lc = LinearConflict::new(&grid);
        let mut p = Position::new(&random_board(n, goal, &mut rng));
        let mut state = lc.init(&p);
        for _ in 0..2000 {
            let (tile, from, blank) = random_slide(&grid, &mut p, &mut rng);
            state = lc.update(&state, &p, tile, from, blank);
            assert_eq!(lc.value(&state), lc.value(&lc.init(&p)));
        }
    }
}
