//! Damaged, stale, foreign, crafted and missing tables: refused with the
//! command that rebuilds them, never a wrong answer.

use std::path::Path;

use npuzzle_board::Goal;
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;

use crate::harness::*;
use crate::tables::*;

/// A board three moves from the goal.
const NEAR: &str = "1 2 3 4 5 6 7 8 9 10 11 12 0 13 14 15";

/// `npuzzle solve ARGS --partition PARTITION --pdb-dir DATA BOARD`, run in `dir`.
fn solve_over(dir: &Path, data: &Path, partition: &str, args: &[&str], board: &str) -> Run {
    let data = dir_arg(data);
    let mut all = vec!["solve"];
    all.extend(args);
    all.extend(["--partition", partition, "--pdb-dir", &data, board]);
    npuzzle_in(dir, &all, "")
}

/// Solving with damaged tables in `data` fails with a message that names the
/// problem and the rebuild command; it never answers.
fn assert_refused(dir: &Path, data: &Path, expected: &str) {
    let run = solve_over(dir, data, "6-6-3", &[], HARD);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(!run.stdout.contains("Minimum number of moves"));
    assert!(
        run.stderr.contains(expected),
        "wanted '{expected}' in: {}",
        run.stderr
    );
    assert!(
        run.stderr.contains("npuzzle pdb build") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
}

/// Recompresses a packed table after `damage` changed its image: a valid
/// zstd frame around bytes that only our checksums can catch.
fn repack(packed: &Path, damage: impl FnOnce(&mut Vec<u8>)) {
    let mut image = zstd::decode_all(std::fs::File::open(packed).unwrap()).unwrap();
    damage(&mut image);
    overwrite(packed, &zstd::encode_all(&image[..], 3).unwrap());
}

/// Writes over a read-only table file, as a careless program would.
fn overwrite(path: &Path, bytes: &[u8]) {
    let _ = std::fs::remove_file(path);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn damaged_tables_are_refused_with_a_rebuild_command() {
    let packed_of = |data: &Path| blank_last_pattern_file(data, "6-6-3", 2);

    // Truncated packed file, no cache.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    let bytes = std::fs::read(&packed).unwrap();
    overwrite(&packed, &bytes[..bytes.len() / 2]);
    assert_refused(
        dir.path(),
        &data,
        "not a valid zstd-compressed pattern database",
    );

    // A changed table byte inside a valid zstd frame, no cache: our CRC
    // catches it, every time.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    repack(&packed, |image| {
        let at = image.len() - 100;
        image[at] ^= 0x40;
    });
    let run = solve_over(dir.path(), &data, "6-6-3", &[], HARD);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("the table is corrupt"),
        "{}",
        run.stderr
    );
    assert!(!run.stdout.contains("Minimum number of moves"));

    // A truncated cache is unpacked again from the packed file: still correct.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let cache = file::cache_path(&packed_of(&data));
    let bytes = std::fs::read(&cache).unwrap();
    overwrite(&cache, &bytes[..bytes.len() - 7]);
    let run = solve_over(
        dir.path(),
        &data,
        "6-6-3",
        &["--json"],
        "1 2 3 4 5 6 7 8 9 10 11 12 13 14 0 15",
    );
    assert_eq!(run.json_records()[0]["length"], 1, "{}", run.stderr);
    assert_eq!(std::fs::read(&cache).unwrap().len(), bytes.len());

    // A foreign file under the right name.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    overwrite(&packed, b"hello, I am not a table");
    assert_refused(
        dir.path(),
        &data,
        "not a valid zstd-compressed pattern database",
    );

    // A packed file of a future format version (header CRC made to match).
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    repack(&packed, |image| {
        image[20] = 4;
        image[60..64].copy_from_slice(&[0; 4]);
        let crc = crc32fast::hash(&image[..4096]);
        image[60..64].copy_from_slice(&crc.to_le_bytes());
    });
    assert_refused(
        dir.path(),
        &data,
        "format version 4, but this npuzzle reads versions 1 to 3",
    );

    // A table for the other goal under this goal's name.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let blank_first = Partition::parse("5-5-5", 4, Goal::BlankFirst).unwrap();
    let blank_last = Partition::parse("5-5-5", 4, Goal::BlankLast).unwrap();
    let wrong = data.join(file::file_name(&blank_first.patterns()[0]));
    let right = data.join(file::file_name(&blank_last.patterns()[0]));
    overwrite(&right, &std::fs::read(&wrong).unwrap());
    let run = solve_over(dir.path(), &data, "5-5-5", &[], HARD);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains("it is not the table wanted"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("goal blank-first"), "{}", run.stderr);
}

/// The optimal answer, after a note that the damaged cache was replaced.
fn assert_solved_replacing_the_cache(run: &Run, length: u32) {
    assert_eq!(run.json_records()[0]["length"], length, "{}", run.stderr);
    assert!(
        run.stderr.contains("replaced the unpacked table"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_damaged_cache_is_never_used() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let solve = || solve_over(dir.path(), &data, "6-6-3", &["--json"], KORF_3);
    assert_eq!(solve().json_records()[0]["length"], 59);
    // One changed byte in the middle of a mapped cache file, header intact.
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let cache = file::cache_path(&packed);
    let mut bytes = std::fs::read(&cache).unwrap();
    let at = 4096 + (bytes.len() - 4096) / 2;
    bytes[at] = bytes[at].wrapping_add(0x0c);
    overwrite(&cache, &bytes);
    let verify = npuzzle_in(dir.path(), &["pdb", "verify", packed.to_str().unwrap()], "");
    assert_eq!(verify.status, 1);
    assert!(verify.stderr.contains("unpacked copy"), "{}", verify.stderr);
    assert_solved_replacing_the_cache(&solve(), 59);
    let again = npuzzle_in(dir.path(), &["pdb", "verify", packed.to_str().unwrap()], "");
    assert_eq!(again.status, 0, "{}", again.stderr);
    // The replaced cache is read-only for everyone.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o444);
}

/// An unusable copy left in place (a good one elsewhere is used) is named
/// beside the copy used; nothing says it was replaced.
#[test]
fn an_unusable_copy_left_in_place_is_named_beside_the_copy_used() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let user_cache = dir.path().join("user-cache");
    let data_arg = dir_arg(&data);
    let solve = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"));
        command.env("NPUZZLE_CACHE_DIR", &user_cache);
        let args = [
            "solve",
            "--json",
            "--partition",
            "6-6-3",
            "--pdb-dir",
            &data_arg,
            NEAR,
        ];
        run_command(command, dir.path(), &args, "")
    };
    assert_eq!(solve().json_records()[0]["length"], 3);
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let beside = file::cache_path(&packed);
    let name = beside.file_name().unwrap();
    std::fs::create_dir_all(&user_cache).unwrap();
    std::fs::copy(&beside, user_cache.join(name)).unwrap();
    let mut bytes = std::fs::read(&beside).unwrap();
    let at = 4096 + (bytes.len() - 4096) / 2;
    bytes[at] = bytes[at].wrapping_add(0x0c);
    overwrite(&beside, &bytes);
    for _ in 0..2 {
        let run = solve();
        assert_eq!(run.json_records()[0]["length"], 3, "{}", run.stderr);
        assert!(!run.stderr.contains("replac"), "{}", run.stderr);
        let said = run
            .stderr
            .lines()
            .find(|line| line.contains("the unpacked table there is not used"))
            .unwrap_or_else(|| panic!("{}", run.stderr));
        let name = name.to_string_lossy();
        assert!(said.contains(&format!("user-cache/{name}")), "{said}");
        assert!(said.contains(&format!("cache/{name}")), "{said}");
    }
    assert_eq!(std::fs::read(&beside).unwrap(), bytes, "left as it was");
}

/// A copy stamped as checked and then changed in place (the same inode
/// and length, one byte) is checked in full again and replaced.
#[test]
fn a_stamped_cache_changed_in_place_is_replaced() {
    use std::io::{Read, Seek, SeekFrom, Write};
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    // Three moves from the goal: what is checked is the cache, not the search.
    let solve = || solve_over(dir.path(), &data, "6-6-3", &["--json"], NEAR);
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let cache = file::cache_path(&packed);
    let stamp = file::stamp_path(&cache);
    let _ = std::fs::remove_file(&stamp);
    // Copied just now: checked in full, not stamped.
    assert_eq!(solve().json_records()[0]["length"], 3);
    assert!(!stamp.exists());
    std::thread::sleep(file::SETTLED + std::time::Duration::from_millis(200));
    assert_eq!(solve().json_records()[0]["length"], 3);
    assert!(stamp.is_file());
    let mode = |m| std::fs::Permissions::from_mode(m);
    std::fs::set_permissions(&cache, mode(0o644)).unwrap();
    let mut copy = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&cache)
        .unwrap();
    let at = copy.metadata().unwrap().len() / 2;
    let mut byte = [0u8];
    copy.seek(SeekFrom::Start(at)).unwrap();
    copy.read_exact(&mut byte).unwrap();
    copy.seek(SeekFrom::Start(at)).unwrap();
    copy.write_all(&[byte[0].wrapping_add(0x0c)]).unwrap();
    drop(copy);
    std::fs::set_permissions(&cache, mode(0o444)).unwrap();
    assert_solved_replacing_the_cache(&solve(), 3);
}

#[test]
fn missing_tables_say_how_to_build_them() {
    let dir = scratch();
    // Asked for: refused, with the command that builds them.
    let run = npuzzle_in(dir.path(), &["solve", "--heuristic", "pdb", HARD], "");
    assert_eq!(run.status, 1);
    for needle in ["no pattern databases for 4x4", "npuzzle pdb build", "--out"] {
        assert!(run.stderr.contains(needle), "{needle}: {}", run.stderr);
    }
    assert!(!run.stdout.contains("moves ="), "{}", run.stdout);
    // By default: said once, then answered without them.
    let run = npuzzle_in(
        dir.path(),
        &["solve", "--no-moves"],
        &format!("{HARD}\n{HARD}\n"),
    );
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(
        run.stderr.matches("no pattern databases for 4x4").count(),
        1
    );
    assert_eq!(
        run.stdout.matches("not optimal").count(),
        2,
        "{}",
        run.stdout
    );
}

/// A small packed file whose header (its CRC valid) claims a huge table:
/// refused as truncated, with nothing allocated for the claim.
#[test]
fn crafted_headers_are_refused_without_allocating() {
    use npuzzle_pdb::Pattern;
    let dir = scratch();
    for (size, tiles) in [(4usize, 10u8), (5, 8)] {
        let pattern = Pattern::new(size, Goal::BlankLast, (1..=tiles).collect()).unwrap();
        let entries = pattern.placements();
        // The header as docs/pdb-format.md lays it out, written independently.
        let mut bytes = vec![0u8; 4096];
        bytes[..16].copy_from_slice(b"npuzzle-pdb\0\0\0\0\0");
        bytes[16..20].copy_from_slice(&0x0A0B_0C0Du32.to_le_bytes());
        bytes[20..22].copy_from_slice(&1u16.to_le_bytes());
        bytes[22..24].copy_from_slice(&4096u16.to_le_bytes());
        bytes[24] = size as u8;
        bytes[26] = tiles;
        bytes[27] = 1; // placement rank, least value over blank regions
        bytes[28] = 2; // nibble excess
        bytes[29] = 60;
        bytes[32..40].copy_from_slice(&entries.to_le_bytes());
        bytes[40..48].copy_from_slice(&entries.div_ceil(2).to_le_bytes());
        bytes[48..56].copy_from_slice(&4096u64.to_le_bytes());
        bytes[64..64 + tiles as usize].copy_from_slice(pattern.tiles());
        let crc = crc32fast::hash(&bytes);
        bytes[60..64].copy_from_slice(&crc.to_le_bytes());
        let header = npuzzle_pdb::Header::parse(&bytes).expect("the crafted header parses");
        assert_eq!(header.entries(), entries);
        let path = dir.path().join(format!("crafted-{size}.pdb.zst"));
        std::fs::write(&path, zstd::encode_all(&bytes[..], 19).unwrap()).unwrap();
        assert!(std::fs::metadata(&path).unwrap().len() < 200);
        for command in ["verify", "info"] {
            let run = npuzzle_in(dir.path(), &["pdb", command, path.to_str().unwrap()], "");
            assert_eq!(run.status, 1, "{command}: {}", run.stderr);
            assert!(
                run.stderr.contains("truncated"),
                "{command}: {}",
                run.stderr
            );
        }
        // The same header claiming an 8x8 board: more than 2^40 placements.
        bytes[24] = 8;
        bytes[60..64].copy_from_slice(&[0; 4]);
        let crc = crc32fast::hash(&bytes);
        bytes[60..64].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, zstd::encode_all(&bytes[..], 19).unwrap()).unwrap();
        let run = npuzzle_in(dir.path(), &["pdb", "verify", path.to_str().unwrap()], "");
        assert_eq!(run.status, 1, "{}", run.stderr);
        assert!(run.stderr.contains("2^40"), "{}", run.stderr);
    }
}

/// Rewrites a packed table's values with `values`, its table CRC and
/// header CRC recomputed: a file only a check of the values can catch.
fn lie(packed: &Path, values: impl Fn(usize, u8) -> u8) {
    repack(packed, |image| {
        for (i, byte) in image[4096..].iter_mut().enumerate() {
            *byte = values(i, *byte);
        }
        recompute_crcs(image);
    });
}

/// Tables whose values lie, with every checksum matching, are refused at
/// open (a cheap check of sampled states) by the command line and the
/// engine, and by `pdb verify` (the full check): never an endless search
/// or a wrong answer.
#[test]
fn tables_whose_values_lie_are_refused() {
    type Values = Box<dyn Fn(usize, u8) -> u8>;
    let liars: [(&str, Values); 3] = [
        ("every byte 0xEE", Box::new(|_, _| 0xEE)),
        (
            "random bytes",
            Box::new(|i, _| (i.wrapping_mul(2_654_435_761) >> 7) as u8),
        ),
        (
            "every nibble one more",
            Box::new(|_, b| ((b & 0x0f).min(13) + 1) | ((b >> 4).min(13) + 1) << 4),
        ),
    ];
    for (what, values) in liars {
        let dir = scratch();
        let data = copy_of_tables(dir.path());
        let packed = blank_last_pattern_file(&data, "6-6-3", 0);
        let _ = std::fs::remove_file(file::cache_path(&packed));
        lie(&packed, values);
        let verify = npuzzle_in(dir.path(), &["pdb", "verify", &dir_arg(&packed)], "");
        assert_eq!(verify.status, 1, "{what}: {}", verify.stdout);
        assert!(
            verify.stderr.contains("although its checksums match"),
            "{what}: {}",
            verify.stderr
        );
        let run = solve_over(
            dir.path(),
            &data,
            "6-6-3",
            &["--max-nodes", "100000000"],
            HARD,
        );
        assert_eq!(run.status, 1, "{what}: {}", run.stdout);
        assert!(
            run.stderr.contains("although its checksums match") && run.stderr.contains("--force"),
            "{what}: {}",
            run.stderr
        );
        let engine = npuzzle::Solver::builder()
            .pdb_dir(&data)
            .partition("6-6-3")
            .build()
            .unwrap();
        let board = npuzzle::parse_board(HARD).unwrap();
        match engine.solve(&board) {
            Err(npuzzle::Error::Tables(e)) => assert!(e.needs_build(), "{what}: {e}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    // Manhattan's values (every excess 0): admissible, and too close to a
    // weak table for the sample at open, but not the table npuzzle builds
    // for 6-6-3: refused at open by its shipped CRC, and by the full check.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let _ = std::fs::remove_file(file::cache_path(&packed));
    lie(&packed, |_, _| 0);
    let verify = npuzzle_in(dir.path(), &["pdb", "verify", &dir_arg(&packed)], "");
    assert_eq!(verify.status, 1, "{}", verify.stdout);
    assert!(
        verify.stderr.contains("although its checksums match"),
        "{}",
        verify.stderr
    );
    let run = solve_over(dir.path(), &data, "6-6-3", &["--max-nodes", "1000"], HARD);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("not those npuzzle builds") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
}

/// Raises by `raise` the entries of `boards` in the packed table at
/// `packed` (every entry but the goal's, and the header's maximum, when
/// `boards` is empty), its CRCs recomputed: a table whose bytes are valid
/// and whose values lie.
fn raise_entries(packed: &Path, boards: &[npuzzle_board::Board], raise: u8) {
    repack(packed, |image| {
        let pdb = npuzzle_pdb::Pdb::from_bytes(image.clone()).unwrap();
        let pattern = pdb.pattern().clone();
        let nibbles = pdb.encoding() == npuzzle_pdb::Encoding::NibbleExcess;
        let goal_index = {
            let goal = pattern.goal().board(pattern.size());
            index_of(&pdb, &goal)
        };
        let indices: Vec<u64> = if boards.is_empty() {
            (0..pattern.entries())
                .filter(|&i| i != goal_index)
                .collect()
        } else {
            boards.iter().map(|b| index_of(&pdb, b)).collect()
        };
        let table = &mut image[4096..];
        for index in indices {
            if nibbles {
                // Values are Manhattan plus twice the stored excess.
                let (byte, shift) = ((index / 2) as usize, 4 * (index % 2));
                let excess = (table[byte] >> shift) & 0xf;
                let raised = (excess + raise.div_ceil(2)).min(14);
                table[byte] = (table[byte] & !(0xf << shift)) | raised << shift;
            } else {
                let at = index as usize;
                table[at] = table[at].saturating_add(raise).min(254);
            }
        }
        if boards.is_empty() {
            image[29] = image[29].saturating_add(raise);
        }
        recompute_crcs(image);
    });
}

/// The entry of `board` in a plain table: the rank of its pattern tiles' cells.
fn index_of(pdb: &npuzzle_pdb::Pdb<Vec<u8>>, board: &npuzzle_board::Board) -> u64 {
    let cells: Vec<u8> = pdb
        .pattern()
        .tiles()
        .iter()
        .map(|&t| {
            board
                .tiles()
                .iter()
                .position(|&x| x == u16::from(t))
                .unwrap() as u8
        })
        .collect();
    pdb.index(&cells, board.blank() as u8)
}

/// The boards one move from `board` that are one move nearer the goal.
fn optimal_next_boards(data: &Path, board: &str) -> Vec<npuzzle_board::Board> {
    let solver = npuzzle::Solver::builder()
        .pdb_dir(data)
        .partition("6-6-3")
        .build()
        .unwrap();
    let start = npuzzle::parse_board(board).unwrap();
    let length = solver.solve(&start).unwrap().length();
    start
        .legal_moves()
        .map(|m| {
            let mut next = start.clone();
            next.apply(m);
            next
        })
        .filter(|next| solver.solve(next).unwrap().length() + 1 == length)
        .collect()
}

/// Korf's #3 with the entries of its optimal next boards raised in the
/// 6-6-3 tables, every CRC recomputed: a search over them would print 63
/// moves as optimal. The named partition's shipped CRC refuses them at
/// open, through the command line and the engine, and `pdb verify` names
/// the table.
#[test]
fn a_named_table_whose_values_lie_is_refused_at_open() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let next = optimal_next_boards(&data, KORF_3);
    assert!(!next.is_empty());
    let mut lied = Vec::new();
    for index in 0..3 {
        let packed = blank_last_pattern_file(&data, "6-6-3", index);
        let _ = std::fs::remove_file(file::cache_path(&packed));
        raise_entries(&packed, &next, 4);
        lied.push(packed);
    }
    let run = solve_over(dir.path(), &data, "6-6-3", &[], KORF_3);
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        !run.stdout.contains("Minimum number of moves"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("not those npuzzle builds") && run.stderr.contains("--force"),
        "{}",
        run.stderr
    );
    for packed in &lied {
        let verify = npuzzle_in(dir.path(), &["pdb", "verify", &dir_arg(packed)], "");
        assert_eq!(verify.status, 1, "{}", verify.stdout);
        assert!(
            verify.stderr.contains("not those npuzzle builds")
                && verify.stderr.contains(&dir_arg(packed)),
            "{}",
            verify.stderr
        );
    }
    let engine = npuzzle::Solver::builder()
        .pdb_dir(&data)
        .partition("6-6-3")
        .build()
        .unwrap();
    match engine.solve(&npuzzle::parse_board(KORF_3).unwrap()) {
        Err(npuzzle::Error::Tables(e)) => assert!(e.needs_build(), "{e}"),
        other => panic!("{other:?}"),
    }
}

/// Tables of tile sets given by hand have no shipped digest: they are
/// built again and compared when their copy is first checked, and a signed
/// record beside the copy spares later checks the build. Lies on the path
/// a search takes (every entry raised by 10) and off it (Korf #3's optimal
/// next boards raised, where a search printed 63 moves as optimal) are
/// refused by `solve` and by `pdb verify`.
#[test]
fn hand_given_tables_whose_values_lie_are_refused() {
    const BLOCKS: &str = "1,2,5,6,9,10;3,4,7,8,11,12;13,14,15";
    let dir = scratch();
    let next = optimal_next_boards(&copy_of_tables(dir.path()), KORF_3);
    let clean = dir.path().join("clean");
    let build = npuzzle_in(
        dir.path(),
        &[
            "pdb",
            "build",
            "--partition",
            BLOCKS,
            "--out",
            &dir_arg(&clean),
        ],
        "",
    );
    assert_eq!(build.status, 0, "{}", build.stderr);
    let partition = Partition::parse(BLOCKS, 4, Goal::BlankLast).unwrap();
    let run = solve_over(dir.path(), &clean, BLOCKS, &[], KORF_3);
    assert!(
        run.stdout.contains("Minimum number of moves = 59"),
        "{}",
        run.stderr
    );
    let copy = file::cache_path(&clean.join(file::file_name(&partition.patterns()[1])));
    assert!(file::exact_path(&copy).is_file());
    let packed = clean.join(file::file_name(&partition.patterns()[0]));
    let verify = npuzzle_in(dir.path(), &["pdb", "verify", &dir_arg(&packed)], "");
    assert_eq!(verify.status, 0, "{}", verify.stderr);
    assert!(
        verify.stdout.contains("built again and compared"),
        "{}",
        verify.stdout
    );
    for (index, boards, raise) in [(0, Vec::new(), 10), (1, next, 28)] {
        let data = dir.path().join(format!("lie-{index}"));
        std::fs::create_dir_all(&data).unwrap();
        for pattern in partition.patterns() {
            let name = file::file_name(pattern);
            std::fs::copy(clean.join(&name), data.join(&name)).unwrap();
        }
        let packed = data.join(file::file_name(&partition.patterns()[index]));
        raise_entries(&packed, &boards, raise);
        // Three moves, one of them by tile 10; and Korf's #3.
        for board in ["1 2 3 4 5 6 7 8 9 0 11 12 13 10 14 15", KORF_3] {
            let run = solve_over(dir.path(), &data, BLOCKS, &[], board);
            assert_eq!(run.status, 1, "{board}: {}", run.stdout);
            assert!(
                !run.stdout.contains("Minimum number"),
                "{board}: {}",
                run.stdout
            );
            assert!(
                run.stderr.contains("differ from the table built again")
                    && run
                        .stderr
                        .contains(&file::file_name(&partition.patterns()[index]))
                    && run.stderr.contains("--force"),
                "{board}: {}",
                run.stderr
            );
        }
        let verify = npuzzle_in(dir.path(), &["pdb", "verify", &dir_arg(&packed)], "");
        assert_eq!(verify.status, 1, "{}", verify.stdout);
        assert!(
            verify.stderr.contains("although its checksums match"),
            "{}",
            verify.stderr
        );
    }
}

/// A cached copy rewritten with false values and a stamp written by hand
/// in the old unsigned form: the stamp vouches for nothing, the copy is
/// checked in full, replaced, and the answer is right.
#[test]
fn a_forged_stamp_does_not_vouch_for_a_rewritten_copy() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = blank_last_pattern_file(&data, "6-6-3", 0);
    let cache = file::cache_path(&packed);
    let mut bytes = std::fs::read(&cache).unwrap();
    for byte in &mut bytes[4096..] {
        *byte = byte.saturating_add(0x11);
    }
    overwrite(&cache, &bytes);
    let meta = std::fs::metadata(&cache).unwrap();
    let crc = u32::from_le_bytes(bytes[56..60].try_into().unwrap());
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap_or_default();
    let forged = format!(
        "npuzzle checked copy 1\ndevice {}\ninode {}\nlength {}\nmodified {}.{:09}\n\
         changed {}.{:09}\ntable crc {crc:08x}\nboot {}\n",
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
        boot.trim(),
    );
    let stamp = file::stamp_path(&cache);
    let _ = std::fs::remove_file(&stamp);
    std::fs::write(&stamp, forged).unwrap();
    let run = solve_over(dir.path(), &data, "6-6-3", &["--json"], KORF_3);
    assert_solved_replacing_the_cache(&run, 59);
}

/// Runs `npuzzle args...` in `dir` as the harness does, killed after a
/// generous bound so that a blocked open fails the test instead of hanging it.
fn run_bounded(dir: &Path, args: &[&str]) -> Run {
    let user = UserDirs::new();
    let mut child = user
        .apply(&mut std::process::Command::new(env!(
            "CARGO_BIN_EXE_npuzzle"
        )))
        .args(args)
        .current_dir(dir)
        .env("NPUZZLE_PDB_DIR", dir.join("no-tables-here"))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let hung = format!("npuzzle {args:?} still runs: blocked on the file?");
    crate::harness::wait_or_kill(&mut child, 120, &hung);
    let output = child.wait_with_output().unwrap();
    let run = Run::of(output);
    run.assert_no_panic();
    run
}

/// A packed table that is a FIFO, a device, a symbolic link loop or a
/// directory is named as such, with its path: never taken for a missing
/// table, never opened (a FIFO would block, a device never end).
#[test]
fn a_table_that_is_not_a_regular_file_is_named_as_such() {
    /// What stands at the table's path, its words, and how to make it.
    type Kind = (&'static str, &'static str, fn(&Path));
    let kinds: [Kind; 4] = [
        ("fifo", "is a FIFO (named pipe), not a table file", |path| {
            let made = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .unwrap();
            assert!(made.success());
        }),
        (
            "loop",
            "is a symbolic link loop, not a table file",
            |path| std::os::unix::fs::symlink(path, path).unwrap(),
        ),
        ("device", "is a device, not a table file", |path| {
            std::os::unix::fs::symlink("/dev/zero", path).unwrap()
        }),
        ("directory", "is a directory, not a table file", |path| {
            std::fs::create_dir(path).unwrap()
        }),
    ];
    for (kind, expected, make) in kinds {
        // The first table (where the tables are looked for) and another.
        for index in [0, 2] {
            let dir = scratch();
            let data = copy_of_tables(dir.path());
            let packed = blank_last_pattern_file(&data, "6-6-3", index);
            std::fs::remove_file(&packed).unwrap();
            std::fs::remove_file(file::cache_path(&packed)).unwrap();
            make(&packed);
            let named = format!("{} {expected}", packed.display());
            let data = dir_arg(&data);
            let solve = ["solve", "--partition", "6-6-3", "--pdb-dir", &data, HARD];
            let run = run_bounded(dir.path(), &solve);
            assert_eq!(run.status, 1, "{kind} {index}: {}", run.stdout);
            assert!(
                run.stderr.contains(&named),
                "{kind} {index}: wanted '{named}' in: {}",
                run.stderr
            );
            assert!(
                !run.stderr.contains("no pattern databases") && !run.stderr.contains("Built for"),
                "{kind} {index}: {}",
                run.stderr
            );
            for command in ["info", "verify"] {
                let packed = dir_arg(&packed);
                let run = run_bounded(dir.path(), &["pdb", command, &packed]);
                assert_eq!(run.status, 1, "{kind}: pdb {command}: {}", run.stdout);
                assert!(
                    run.stderr.contains(&named),
                    "{kind}: pdb {command}: {}",
                    run.stderr
                );
            }
        }
    }
}

/// The damage cases hold whatever the user's own directories hold: a user
/// whose cache holds good unpacked copies of the very tables damaged here
/// (and whose data directory holds the packed ones) still sees the damaged
/// table refused through the harness.
#[test]
fn damage_is_refused_whatever_the_users_directories_hold() {
    let user = scratch();
    let home = user.path();
    let cache = home.join(".cache/npuzzle");
    let data_home = home.join(".local/share/npuzzle");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(&data_home).unwrap();
    for (from, to) in [
        (tables().join("cache"), &cache),
        (tables().to_path_buf(), &data_home),
    ] {
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    // The user's environment, as a shell of theirs would pass it on.
    let as_the_user = || {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_npuzzle"));
        command
            .env("HOME", home)
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env_remove("NPUZZLE_CACHE_DIR")
            .env_remove("NPUZZLE_PDB_DIR");
        command
    };
    let packed_of = |data: &Path| blank_last_pattern_file(data, "6-6-3", 2);

    // A changed table byte inside a valid zstd frame, no copy beside it.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    repack(&packed, |image| {
        let at = image.len() - 100;
        image[at] ^= 0x40;
    });
    let data = dir_arg(&data);
    let args = ["solve", "--partition", "6-6-3", "--pdb-dir", &data, HARD];
    let run = npuzzle_from(as_the_user(), dir.path(), &args, "");
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr.contains("the table is corrupt"),
        "{}",
        run.stderr
    );

    // Truncated, no copy beside it.
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    let packed = packed_of(&data);
    std::fs::remove_file(file::cache_path(&packed)).unwrap();
    let bytes = std::fs::read(&packed).unwrap();
    overwrite(&packed, &bytes[..bytes.len() / 2]);
    let data = dir_arg(&data);
    let args = ["solve", "--partition", "6-6-3", "--pdb-dir", &data, HARD];
    let run = npuzzle_from(as_the_user(), dir.path(), &args, "");
    assert_eq!(run.status, 1, "{}", run.stdout);
    assert!(
        run.stderr
            .contains("not a valid zstd-compressed pattern database"),
        "{}",
        run.stderr
    );
    // The user's own files are left as they were.
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        std::fs::read_dir(tables().join("cache")).unwrap().count()
    );
}
