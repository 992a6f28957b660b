use crate::testing::*;
use crate::*;
use npuzzle_board::{random_walk, SplitMix64};
use npuzzle_pdb::file;

#[test]
fn building_again_keeps_intact_tables_and_replaces_damaged_ones() {
    let partition = Partition::parse("3", 2, Goal::BlankLast).unwrap();
    let dir = build(&partition);
    let path = dir.path().join(file::file_name(&partition.patterns()[0]));
    let before = std::fs::metadata(&path).unwrap().modified().unwrap();
    build_tables(dir.path(), &partition).unwrap();
    assert_eq!(
        std::fs::metadata(&path).unwrap().modified().unwrap(),
        before
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::write(&path, b"not a table").unwrap();
    assert!(Tables::open_partition(dir.path(), &partition).is_err());
    build_tables(dir.path(), &partition).unwrap();
    // The complete 2x2 table is exact: its value is the solution's length.
    let solver = Solver::new(Tables::open_partition(dir.path(), &partition).unwrap()).unwrap();
    let mut rng = SplitMix64::new(3);
    for steps in 0..20 {
        let board = random_walk(2, Goal::BlankLast, steps, &mut rng);
        let h = solver.tables(2).unwrap().heuristic(&board).unwrap() as usize;
        assert_eq!(h, solver.solve(&board).unwrap().length(), "{board}");
    }
}
