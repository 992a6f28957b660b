//! The JSON records the doors send, defined once: `npuzzle solve --json`
//! prints them, `npuzzle serve` answers them and the browser engine
//! returns them, with the same keys (docs/solve-output.schema.json; the
//! Python and C doors name their fields after them). Every key of a record
//! is present, null where it does not apply, so that a reader never has
//! to ask whether a key is missing or empty.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use npuzzle_board::{parse_board, Board, Goal, Move, Notation};

use crate::solution::Solution;

/// Seconds to the microsecond, so that JSON shows 0.001753, not float
/// noise (`#[serde(serialize_with = "npuzzle::records::micros")]`).
pub fn micros<S: Serializer>(seconds: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((seconds * 1e6).round() / 1e6)
}

fn micros_opt<S: Serializer>(seconds: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    match seconds {
        Some(seconds) => micros(seconds, s),
        None => s.serialize_none(),
    }
}

/// Where a record's board came from: a file and line, an instance set.
/// All null for a board given whole (the command line, a request).
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct Origin<'a> {
    /// The file (null: the command line).
    pub file: Option<&'a str>,
    /// The line the board starts on (null: the command line).
    pub line: Option<usize>,
    /// The instance set's id (null: not read from a set).
    pub id: Option<&'a str>,
    /// The instance set's known optimal length (null: none known, or unsolvable).
    pub expected: Option<u32>,
}

/// The board a record is about.
#[derive(Clone, Copy, Debug, Serialize)]
struct Subject<'a> {
    board: &'a [u16],
    size: usize,
    goal: &'static str,
}

impl<'a> Subject<'a> {
    fn of(board: &'a Board, goal: Goal) -> Subject<'a> {
        Subject {
            board: board.tiles(),
            size: board.size(),
            goal: goal.name(),
        }
    }
}

/// What the earlier runs of a search resumed from a checkpoint did.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Resumed {
    /// Runs the search took, this one included.
    pub runs: u32,
    /// Seconds the earlier runs searched.
    pub earlier_seconds: f64,
    /// Of `expanded`, nodes expanded again because a run ended in the
    /// middle of a subtree (and each resumed run's frontier).
    pub lost: u64,
}

/// A solved board.
#[derive(Debug, Serialize)]
pub struct SolutionRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    /// Where the board came from (all null: given whole).
    #[serde(flatten)]
    pub origin: Origin<'a>,
    #[serde(flatten)]
    subject: Subject<'a>,
    solvable: bool,
    optimal: bool,
    length: usize,
    moves: Option<String>,
    notation: &'static str,
    algorithm: &'static str,
    heuristic: Option<&'static str>,
    partition: Option<&'a str>,
    reflection: Option<bool>,
    /// The heuristic implementation that ran (null: no search ran).
    strategy: Option<&'static str>,
    expanded: Option<u64>,
    /// Of `expanded`, the nodes A*+IDA*'s best-first phase expanded.
    best_first_expanded: Option<u64>,
    generated: Option<u64>,
    initial_estimate: Option<u32>,
    /// The old name of `expanded`: deprecated, emitted until the next release.
    nodes: Option<u64>,
    /// The old name of `initial_estimate`: deprecated, emitted until the next release.
    h0: Option<u32>,
    lower_bound: Option<u64>,
    /// For answers that are not optimal: at most this many percent over
    /// optimal (null: no guarantee, or optimal).
    within: Option<u32>,
    note: Option<&'a str>,
    /// From an instance set: whether the length equals the known one.
    pub agrees: Option<bool>,
    #[serde(serialize_with = "micros")]
    seconds: f64,
    /// When earlier runs of a checkpointed search took part.
    pub resumed: Option<Resumed>,
}

impl<'a> SolutionRecord<'a> {
    /// The record of `solution` to `board`; `with_moves`: the moves
    /// written out in `notation` (else null, for batches that want only
    /// lengths).
    pub fn new(
        board: &'a Board,
        goal: Goal,
        notation: Notation,
        solution: &'a Solution,
        with_moves: bool,
    ) -> SolutionRecord<'a> {
        let stats = solution.stats;
        SolutionRecord {
            kind: "solution",
            origin: Origin::default(),
            subject: Subject::of(board, goal),
            solvable: true,
            optimal: solution.optimal,
            length: solution.moves.len(),
            moves: with_moves.then(|| Move::format_sequence(&solution.moves, notation)),
            notation: notation.name(),
            algorithm: solution.algorithm,
            heuristic: solution.heuristic,
            partition: solution.partition.as_deref(),
            reflection: solution.reflection,
            strategy: solution.strategy(),
            expanded: stats.map(|s| s.expanded),
            best_first_expanded: stats.map(|s| s.best_first),
            generated: stats.map(|s| s.generated),
            initial_estimate: solution.initial_estimate,
            nodes: stats.map(|s| s.expanded),
            h0: solution.initial_estimate,
            lower_bound: solution.lower_bound,
            within: solution.within,
            note: solution.note.as_deref(),
            agrees: None,
            seconds: solution.elapsed.as_secs_f64(),
            resumed: None,
        }
    }
}

/// A board that cannot reach the goal.
#[derive(Debug, Serialize)]
pub struct UnsolvableRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    origin: Origin<'a>,
    #[serde(flatten)]
    subject: Subject<'a>,
    solvable: bool,
    agrees: Option<bool>,
}

impl<'a> UnsolvableRecord<'a> {
    /// `agrees`: from an instance set, whether it says unsolvable too.
    pub fn new(
        origin: Origin<'a>,
        board: &'a Board,
        goal: Goal,
        agrees: Option<bool>,
    ) -> UnsolvableRecord<'a> {
        UnsolvableRecord {
            kind: "unsolvable",
            origin,
            subject: Subject::of(board, goal),
            solvable: false,
            agrees,
        }
    }
}

/// A valid board left unanswered: a limit reached, tables missing.
#[derive(Debug, Serialize)]
pub struct RefusedRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    origin: Origin<'a>,
    #[serde(flatten)]
    subject: Subject<'a>,
    reason: &'a str,
    /// Nodes expanded before the node limit stopped the search.
    expanded: Option<u64>,
    /// The old name of `expanded`: deprecated, emitted until the next release.
    nodes: Option<u64>,
    #[serde(serialize_with = "micros_opt")]
    seconds: Option<f64>,
}

impl<'a> RefusedRecord<'a> {
    /// `reason` in the door's words; `expanded`: the nodes a node limit let
    /// the search expand.
    pub fn new(
        origin: Origin<'a>,
        board: &'a Board,
        goal: Goal,
        reason: &'a str,
        expanded: Option<u64>,
        seconds: f64,
    ) -> RefusedRecord<'a> {
        RefusedRecord {
            kind: "refused",
            origin,
            subject: Subject::of(board, goal),
            reason,
            expanded,
            nodes: expanded,
            seconds: Some(seconds),
        }
    }
}

/// Input that is not a board.
#[derive(Debug, Serialize)]
pub struct ErrorRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(flatten)]
    origin: Origin<'a>,
    error: &'a str,
}

impl<'a> ErrorRecord<'a> {
    /// `error`: what is wrong and what to do, in the door's words.
    pub fn new(origin: Origin<'a>, error: &'a str) -> ErrorRecord<'a> {
        ErrorRecord {
            kind: "error",
            origin,
            error,
        }
    }
}

/// A uniformly random solvable board.
#[derive(Debug, Serialize)]
pub struct RandomRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    board: Vec<u16>,
    size: usize,
    goal: &'static str,
    /// The seed that gives this board again, when the caller chose it.
    #[serde(skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
}

impl RandomRecord {
    /// `seed`: the one the caller chose, if any.
    pub fn new(board: &Board, goal: Goal, seed: Option<u64>) -> RandomRecord {
        RandomRecord {
            kind: "random",
            board: board.tiles().to_vec(),
            size: board.size(),
            goal: goal.name(),
            seed,
        }
    }
}

/// A board in a request: text in any of the command line's formats, or
/// the tiles as a list of numbers, 0 for the blank.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum BoardField {
    /// `"8 1 3 4 0 2 7 6 5"`, or any other format `npuzzle solve` reads.
    Text(String),
    /// `[8, 1, 3, 4, 0, 2, 7, 6, 5]`.
    Tiles(Vec<TileNumber>),
}

/// A tile in a list: None for a number that is not a whole number from 0
/// up written as digits (-1, 1.5, and 1e0 or -0, which JSON readers keep
/// as floats).
#[derive(Debug, Clone, Copy)]
pub struct TileNumber(Option<u64>);

impl<'de> Deserialize<'de> for TileNumber {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TileNumber, D::Error> {
        struct Number;
        impl Visitor<'_> for Number {
            type Value = TileNumber;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TileNumber, E> {
                Ok(TileNumber(Some(v)))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<TileNumber, E> {
                Ok(TileNumber(u64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<TileNumber, E> {
                Ok(TileNumber(None))
            }
        }
        deserializer.deserialize_any(Number)
    }
}

impl BoardField {
    /// The board, or what is wrong with it (without the field's name,
    /// which each door adds in its own way).
    pub fn board(&self) -> Result<Board, String> {
        let text = match self {
            BoardField::Text(text) => text.clone(),
            BoardField::Tiles(tiles) => {
                let mut text = Vec::with_capacity(tiles.len());
                for (place, tile) in tiles.iter().enumerate() {
                    match tile.0 {
                        Some(tile) => text.push(tile.to_string()),
                        None => {
                            return Err(format!(
                                "tile number {} of the list is not a whole number from 0 up \
                                 written as digits (such as 0, 7, 15)",
                                place + 1
                            ))
                        }
                    }
                }
                text.join(" ")
            }
        };
        parse_board(&text).map_err(|e| e.to_string())
    }
}

/// A request about one board, as `serve` and the browser engine take it:
/// the options of `npuzzle solve` they offer, under the same names. The
/// last four are the browser engine's; `serve` refuses them
/// ([`BoardRequest::refuse_engine_fields`]).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardRequest {
    /// The command line's formats as text, or the tiles as numbers.
    pub board: BoardField,
    /// A goal's name (blank-last by default).
    #[serde(default)]
    pub goal: Option<String>,
    /// A notation's name for the moves (blank's letters by default).
    #[serde(default)]
    pub notation: Option<String>,
    /// The most nodes to expand.
    #[serde(default)]
    pub max_nodes: Option<u64>,
    /// A wall-clock budget, as `npuzzle solve --max-seconds`.
    #[serde(default)]
    pub max_seconds: Option<f64>,
    /// Seconds for a shorter near-optimal answer, as `npuzzle solve
    /// --anytime`.
    #[serde(default)]
    pub anytime: Option<f64>,
    /// As `npuzzle solve --within`.
    #[serde(default)]
    pub within: Option<u32>,
    /// As `npuzzle solve --fast`.
    #[serde(default)]
    pub fast: Option<bool>,
    /// Of `max_seconds`, the time other workers already spent on the board.
    #[serde(default)]
    pub spent_seconds: Option<f64>,
    /// Beams other workers ran for this board.
    #[serde(default)]
    pub beams: Option<Vec<BeamRecord>>,
}

impl BoardRequest {
    /// The goal named, the field named in the error.
    pub fn goal(&self) -> Result<Goal, String> {
        npuzzle_board::named_field(self.goal.as_deref(), "goal")
    }

    /// The notation named, the field named in the error.
    pub fn notation(&self) -> Result<Notation, String> {
        npuzzle_board::named_field(self.notation.as_deref(), "notation")
    }

    /// `max_seconds` as a budget, when given.
    pub fn max_time(&self) -> Result<Option<std::time::Duration>, String> {
        crate::seconds_field(self.max_seconds, "max_seconds")
    }

    /// `anytime` as a budget, when given.
    pub fn anytime(&self) -> Result<Option<std::time::Duration>, String> {
        crate::seconds_field(self.anytime, "anytime")
    }

    /// Refuses the browser engine's own fields, given with any value
    /// (null is not given), for a door that answers by the default policy
    /// within its own budgets.
    pub fn refuse_engine_fields(&self) -> Result<(), String> {
        let given = [
            ("within", self.within.is_some()),
            ("fast", self.fast.is_some()),
            ("spent_seconds", self.spent_seconds.is_some()),
            ("beams", self.beams.is_some()),
        ];
        match given.iter().find(|(_, given)| *given) {
            Some((field, _)) => Err(format!(
                "{field}: not taken here: this server answers as `npuzzle solve` does by \
                 default, within its own budgets"
            )),
            None => Ok(()),
        }
    }
}

/// A beam of a board's solve that may run in another worker
/// ([`crate::ScheduledBeam`]), as [`crate::Solver::beam_schedule`] lists them.
#[derive(Debug, Serialize)]
pub struct ScheduledBeamRecord {
    attempt: usize,
    always: bool,
}

impl ScheduledBeamRecord {
    /// The record of `beam`.
    pub fn new(beam: &crate::ScheduledBeam) -> ScheduledBeamRecord {
        ScheduledBeamRecord {
            attempt: beam.attempt,
            always: beam.always,
        }
    }
}

/// A beam's outcome between workers ([`crate::BeamOutcome`]), moves in the
/// blank's letters.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BeamRecord {
    attempt: usize,
    ending: String,
    moves: String,
    expanded: u64,
    generated: u64,
}

impl BeamRecord {
    /// The record of `outcome`.
    pub fn new(outcome: &crate::BeamOutcome) -> BeamRecord {
        BeamRecord {
            attempt: outcome.attempt,
            ending: match outcome.ending {
                crate::BeamEnding::Solved => "solved",
                crate::BeamEnding::Stalled => "stalled",
                crate::BeamEnding::Ended => "ended",
            }
            .to_string(),
            moves: Move::format_sequence(&outcome.moves, Notation::Blank),
            expanded: outcome.expanded,
            generated: outcome.generated,
        }
    }

    /// The outcome, or what is wrong with the record.
    pub fn outcome(&self) -> Result<crate::BeamOutcome, String> {
        let ending = match self.ending.as_str() {
            "solved" => crate::BeamEnding::Solved,
            "stalled" => crate::BeamEnding::Stalled,
            "ended" => crate::BeamEnding::Ended,
            other => {
                return Err(format!(
                    "beams: ending \"{other}\" is not one; use what the engine's `beam` gave"
                ))
            }
        };
        let moves = Move::parse_sequence(&self.moves, Notation::Blank)
            .map_err(|e| format!("beams: moves: {e}"))?;
        Ok(crate::BeamOutcome {
            attempt: self.attempt,
            ending,
            moves,
            expanded: self.expanded,
            generated: self.generated,
        })
    }
}

/// A request read from JSON, or what is wrong with it: serde's words,
/// after the field they are about (`anytime: invalid type: string
/// "soon", expected f64 at line 1 column 40`).
pub fn read_request<T: serde::de::DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    let mut reader = serde_json::Deserializer::from_slice(json);
    let named = |e: serde_path_to_error::Error<serde_json::Error>| {
        let path = e.path().to_string();
        match path.as_str() {
            "." => e.into_inner().to_string(),
            _ => format!("{path}: {}", e.into_inner()),
        }
    };
    let request = serde_path_to_error::deserialize(&mut reader).map_err(named)?;
    reader.end().map_err(|e| e.to_string())?;
    Ok(request)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(json: &str) -> Result<Board, String> {
        serde_json::from_str::<BoardField>(json)
            .map_err(|e| e.to_string())?
            .board()
    }

    #[test]
    fn a_board_is_text_or_whole_numbers() {
        let text = board(r#""1 2 3 4 5 6 7 8 0""#).unwrap();
        assert_eq!(board("[1, 2, 3, 4, 5, 6, 7, 8, 0]").unwrap(), text);
        for (json, place) in [
            ("[1, 2, 3, 4, 5, 6, 7, 8, -0]", 9),
            ("[1e0, 2, 3, 4, 5, 6, 7, 8, 0]", 1),
            ("[1, -2, 3, 4, 5, 6, 7, 8, 0]", 2),
            ("[1, 2, 3.5, 4, 5, 6, 7, 8, 0]", 3),
            ("[1, 2, 3, 4, 5, 6, 7, 8, 18446744073709551616]", 9),
        ] {
            let message = board(json).unwrap_err();
            assert!(
                message.starts_with(&format!("tile number {place} of the list")),
                "{json}: {message}"
            );
        }
        assert!(board("[1, 2, 3]").unwrap_err().contains('3'));
        assert!(board(r#"["1", 2]"#).is_err());
    }

    #[test]
    fn a_bad_field_is_named() {
        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Request {
            board: BoardField,
            #[serde(default)]
            anytime: Option<f64>,
        }
        let e = read_request::<Request>(br#"{"board": "1 2 3 0", "anytime": "soon"}"#);
        assert!(e.unwrap_err().starts_with("anytime: invalid type: string"));
        let e = read_request::<Request>(br#"{"board": "1 2 3 0"} x"#).unwrap_err();
        assert!(e.contains("trailing characters"), "{e}");
        let e = read_request::<Request>(br#"{"bord": "1 2 3 0"}"#).unwrap_err();
        assert!(e.contains("unknown field `bord`"), "{e}");
        assert!(read_request::<Request>(br#"{"board": [1, 2, 3, 0]}"#).is_ok());
    }

    #[test]
    fn a_board_request_names_its_bad_fields_and_the_engines_own() {
        let read = |json: &str| read_request::<BoardRequest>(json.as_bytes());
        let plain = read(r#"{"board": "1 2 3 0", "goal": "blank-first", "anytime": 2}"#).unwrap();
        assert_eq!(plain.goal(), Ok(Goal::BlankFirst));
        assert_eq!(plain.notation(), Ok(Notation::default()));
        assert_eq!(plain.anytime(), Ok(Some(std::time::Duration::from_secs(2))));
        assert_eq!(plain.refuse_engine_fields(), Ok(()));
        let bad = read(r#"{"board": "1 2 3 0", "goal": "up", "notation": "x", "max_seconds": 0}"#)
            .unwrap();
        assert!(bad.goal().unwrap_err().starts_with("goal: "));
        assert!(bad.notation().unwrap_err().starts_with("notation: "));
        assert!(bad.max_time().unwrap_err().starts_with("max_seconds: "));
        for (field, json) in [
            ("within", r#""within": 5"#),
            ("fast", r#""fast": true"#),
            ("spent_seconds", r#""spent_seconds": 1"#),
        ] {
            let request = read(&format!(r#"{{"board": "1 2 3 0", {json}}}"#)).unwrap();
            let message = request.refuse_engine_fields().unwrap_err();
            assert!(
                message.starts_with(&format!("{field}: not taken")),
                "{message}"
            );
        }
    }

    #[test]
    fn a_beam_record_gives_back_its_outcome() {
        let outcome = crate::BeamOutcome {
            attempt: 1,
            ending: crate::BeamEnding::Stalled,
            moves: vec![Move::Left, Move::Up],
            expanded: 10,
            generated: 25,
        };
        let json = serde_json::to_string(&BeamRecord::new(&outcome)).unwrap();
        let back: BeamRecord = serde_json::from_str(&json).unwrap();
        let again = back.outcome().unwrap();
        assert_eq!(
            (again.attempt, again.moves, again.expanded),
            (1, outcome.moves, 10)
        );
        assert!(matches!(again.ending, crate::BeamEnding::Stalled));
        let forged = json.replace("stalled", "won");
        let forged: BeamRecord = serde_json::from_str(&forged).unwrap();
        assert!(forged.outcome().unwrap_err().contains("\"won\" is not one"));
    }

    #[test]
    fn every_key_is_present_and_null_where_it_does_not_apply() {
        let board = Board::new(3, vec![1, 2, 3, 4, 5, 6, 7, 0, 8]).unwrap();
        let solution = Solution::known_optimal(vec![Move::Left]);
        let record = SolutionRecord::new(&board, Goal::BlankLast, Notation::Tile, &solution, true);
        let json: serde_json::Value = serde_json::to_value(&record).unwrap();
        assert_eq!(json["type"], "solution");
        assert_eq!(json["length"], 1);
        assert!(json["file"].is_null() && json.get("file").is_some());
        assert!(json.get("resumed").is_some());
        let random = RandomRecord::new(&board, Goal::BlankLast, None);
        assert!(serde_json::to_value(&random).unwrap().get("seed").is_none());
    }
}
