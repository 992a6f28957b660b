//! The requests the WebAssembly engine answers. A request is a JSON
//! object whose `op` names it; the answer is a JSON record with the field
//! names of `npuzzle solve --json` (and of the Python door), or an error
//! `{"error": MESSAGE, "kind": KIND}` with the command line's message.
//!
//! | `op` | fields | answer |
//! | --- | --- | --- |
//! | `solve` | `board`, `goal`, `notation`, `max_nodes`, `max_seconds`, `spent_seconds`, `within`, `fast` | the solution record |
//! | `hint` | as `solve` | the solution record, with `move`: its first move (null when solved) |
//! | `beam` | as `solve`, and `attempt` (0 to 3) | that frame-weighted beam of a 6x6 to 8x8 solve, for another worker; `outcome` null when the board's solve cannot take it from elsewhere |
//! | `check` | `board`, `goal` | solvable, solved, and the distance when a small search finds it |
//! | `random` | `size`, `seed`, `goal` | a uniformly random solvable board (as `npuzzle random --seed`) |
//! | `table_files` | `partition`, `size`, `goal` | the tables a set needs, in build order |
//! | `build_table` | as `table_files`, and `index` | binary: that table's file image |
//! | `use_tables` | as `table_files` | the staged images, checked and used for that side |
//!
//! Boards are the command line's: text in any of its formats, or a list
//! of tiles with 0 for the blank. `solve` and `hint` take `beams`: the
//! outcomes `beam` gave for the same board and options, which the search
//! then does not run again, and `spent_seconds`: how much of
//! `max_seconds` went on this answer before (those beams), so that the
//! budget ends that much sooner and notes name the whole of it.

use std::sync::Arc;
use std::time::Duration;

use npuzzle::records::{
    BeamRecord, BoardField, BoardRequest, RandomRecord, ScheduledBeamRecord, SolutionRecord,
};
use npuzzle::{
    random_board, Board, Check, Error, ErrorKind, Goal, Move, Notation, Note, Partition, Run,
    Solution, Solver, SplitMix64, Tables, TablesError, TablesProblem, CHECK_NODES, MAX_SIZE,
    MIN_SIZE,
};
use serde::{Deserialize, Serialize};

/// What the module holds between calls.
#[derive(Default)]
pub struct Engine {
    input: Vec<u8>,
    output: Vec<u8>,
    /// File images given for the next `use_tables`.
    staged: Vec<Vec<u8>>,
    /// The tables in use, at most one set per side and goal.
    tables: Vec<Arc<Tables>>,
}

/// What `npuzzle_call` returns: what the output holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// A JSON answer.
    Json = 0,
    /// A JSON error record.
    Error = 1,
    /// A binary answer (a table's file image).
    Binary = 2,
}

/// An answer before it is put in the output.
enum Answer {
    Json(String),
    Binary(Vec<u8>),
}

/// A refused request: the message, and its kind for the host's error class.
#[derive(Serialize, Debug)]
pub struct Failure {
    /// What is wrong and what to do, in the command line's words.
    pub error: String,
    /// `invalid` (bad board or option), `unsolvable`, `node_limit`,
    /// `time_limit`, `tables` (damaged or unusable tables) or `internal`
    /// ([`kind_name`]).
    pub kind: &'static str,
}

fn invalid(error: String) -> Failure {
    Failure {
        error,
        kind: "invalid",
    }
}

/// How tables are made here: built in memory and given to the engine.
fn remedy(e: &TablesError) -> String {
    format!(
        "engine.useTables(engine.buildTables(\"{p}\", {{ size: {n}, goal: \"{g}\" }}), \"{p}\", \
         {{ size: {n}, goal: \"{g}\" }})",
        p = e.partition,
        n = e.size,
        g = e.goal
    )
}

/// A table problem in the words of a host without files.
fn tables_message(e: &TablesError) -> String {
    match &e.problem {
        TablesProblem::Missing { file, .. } => format!(
            "no tables given for {n}x{n} (partition {}, goal {}): {} is missing; give them \
             with: {}",
            e.partition,
            e.goal,
            file.trim_end_matches(".zst"),
            remedy(e),
            n = e.size
        ),
        _ => e.message_with(&remedy(e)),
    }
}

/// A note in the words of a host without files: the engine's note, its
/// tables named the way they are made here.
fn note_text(note: &Note) -> String {
    note.message_with(tables_message)
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let error = match &e {
            Error::Tables(tables) => tables_message(tables),
            _ => e.to_string(),
        };
        Failure {
            error,
            kind: kind_name(e.kind()),
        }
    }
}

/// The JavaScript error's `kind` for each kind of failure (npuzzle.js
/// picks its class by it; ARCHITECTURE.md has every door's table).
pub(crate) fn kind_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::InvalidBoard | ErrorKind::InvalidArgument | ErrorKind::WrongSize => "invalid",
        ErrorKind::Unsolvable => "unsolvable",
        ErrorKind::Tables => "tables",
        ErrorKind::NodeLimit => "node_limit",
        ErrorKind::TimeLimit => "time_limit",
        ErrorKind::OutOfMemory | ErrorKind::Io | ErrorKind::Stopped | ErrorKind::Internal => {
            "internal"
        }
        _ => "internal",
    }
}

#[derive(Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
enum Request {
    Solve(BoardRequest),
    Hint(BoardRequest),
    Beam {
        #[serde(flatten)]
        solve: BoardRequest,
        attempt: usize,
    },
    BeamSchedule(BoardRequest),
    Check {
        board: BoardField,
        #[serde(default)]
        goal: Option<String>,
    },
    Random {
        size: u64,
        #[serde(default)]
        seed: u64,
        #[serde(default)]
        goal: Option<String>,
    },
    TableFiles(TablesRequest),
    BuildTable {
        partition: String,
        size: usize,
        #[serde(default)]
        goal: Option<String>,
        index: usize,
    },
    UseTables(TablesRequest),
}

#[derive(Serialize)]
struct BeamScheduleAnswer {
    #[serde(rename = "type")]
    kind: &'static str,
    beams: Vec<ScheduledBeamRecord>,
}

#[derive(Serialize)]
struct BeamAnswer {
    #[serde(rename = "type")]
    kind: &'static str,
    outcome: Option<BeamRecord>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TablesRequest {
    partition: String,
    size: usize,
    #[serde(default)]
    goal: Option<String>,
}

/// The solution record, and what only the page asks for.
#[derive(Serialize)]
struct PageSolution<'a> {
    #[serde(flatten)]
    record: SolutionRecord<'a>,
    /// For hints: the first move (None on a solved board).
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    first_move: Option<Option<String>>,
    /// What the engine told on the way (tables missing for the side...).
    notes: Vec<String>,
}

#[derive(Serialize)]
struct TablesRecord {
    #[serde(rename = "type")]
    kind: &'static str,
    partition: String,
    size: usize,
    goal: &'static str,
    /// The file name of each distinct table, in build order.
    files: Vec<String>,
}

impl TablesRecord {
    fn new(kind: &'static str, partition: &Partition, size: usize, goal: Goal) -> TablesRecord {
        TablesRecord {
            kind,
            partition: partition.name().to_string(),
            size,
            goal: goal.name(),
            files: partition
                .distinct_patterns()
                .into_iter()
                .map(npuzzle_pdb::file_name)
                .collect(),
        }
    }
}

impl Engine {
    /// The input buffer, `len` bytes long, for the host to fill.
    pub fn input(&mut self, len: usize) -> &mut [u8] {
        self.input.clear();
        self.input.resize(len, 0);
        &mut self.input
    }

    /// The last output.
    pub fn output(&self) -> &[u8] {
        &self.output
    }

    /// Keeps the input as a table's file image for the next `use_tables`.
    pub fn stage_table(&mut self) {
        self.staged.push(std::mem::take(&mut self.input));
    }

    /// Answers the request in the input buffer into the output.
    pub fn call(&mut self) -> Status {
        let request = std::mem::take(&mut self.input);
        let (status, output) = match self.answer(&request) {
            Ok(Answer::Json(text)) => (Status::Json, text.into_bytes()),
            Ok(Answer::Binary(bytes)) => (Status::Binary, bytes),
            Err(failure) => (
                Status::Error,
                serde_json::to_vec(&failure).expect("a failure serializes"),
            ),
        };
        self.output = output;
        status
    }

    /// Answers one JSON request (for tests and hosts that hold the engine
    /// natively): the answer's text, or the failure.
    pub fn request(&mut self, json: &str) -> Result<String, Failure> {
        match self.answer(json.as_bytes())? {
            Answer::Json(text) => Ok(text),
            Answer::Binary(bytes) => Ok(format!("{} bytes", bytes.len())),
        }
    }

    /// A table's file image (`build_table`), for native tests.
    pub fn build_table(
        &mut self,
        partition: &str,
        size: usize,
        index: usize,
    ) -> Result<Vec<u8>, Failure> {
        let request = format!(
            r#"{{"op":"build_table","partition":"{partition}","size":{size},"index":{index}}}"#
        );
        match self.answer(request.as_bytes())? {
            Answer::Binary(bytes) => Ok(bytes),
            Answer::Json(text) => Err(invalid(format!("not a table: {text}"))),
        }
    }

    /// Stages a table's file image (`npuzzle_stage_table`), for native tests.
    pub fn stage(&mut self, image: Vec<u8>) {
        self.staged.push(image);
    }

    fn answer(&mut self, request: &[u8]) -> Result<Answer, Failure> {
        // Staged images are for this request alone: whatever it is, and
        // whether it succeeds or not, none are kept for the next.
        let staged = std::mem::take(&mut self.staged);
        let request: Request = npuzzle::records::read_request(request).map_err(|e| {
            invalid(format!(
                "the request is not one the engine takes ({e}); send \
                 {{\"op\": \"solve\", \"board\": \"8 1 3 4 0 2 7 6 5\"}}"
            ))
        })?;
        match request {
            Request::Solve(request) => self.solve(request, false).map(Answer::Json),
            Request::Hint(request) => self.solve(request, true).map(Answer::Json),
            Request::Beam { solve, attempt } => json(&self.beam(solve, attempt)?),
            Request::BeamSchedule(request) => json(&self.beam_schedule(request)?),
            Request::Check { board, goal } => json(&self.check(board, goal)?),
            Request::Random { size, seed, goal } => {
                let goal = goal_of(goal)?;
                let size = usize::try_from(size)
                    .ok()
                    .filter(|n| (MIN_SIZE..=MAX_SIZE).contains(n))
                    .ok_or_else(|| {
                        invalid(format!(
                            "size: {size} is not a side from {MIN_SIZE} to {MAX_SIZE}"
                        ))
                    })?;
                let board = random_board(size, goal, &mut SplitMix64::new(seed));
                json(&RandomRecord::new(&board, goal, Some(seed)))
            }
            Request::TableFiles(request) => {
                let (partition, goal) = partition_of(&request)?;
                json(&TablesRecord::new(
                    "table_files",
                    &partition,
                    request.size,
                    goal,
                ))
            }
            Request::BuildTable {
                partition,
                size,
                goal,
                index,
            } => {
                let request = TablesRequest {
                    partition,
                    size,
                    goal,
                };
                let (partition, _) = partition_of(&request)?;
                let patterns = partition.distinct_patterns();
                let pattern = patterns.get(index).ok_or_else(|| {
                    invalid(format!(
                        "index: {index} is past the {} tables of {}",
                        patterns.len(),
                        partition.name()
                    ))
                })?;
                let image = npuzzle_pdb::build_file(pattern, 1, |_| {})
                    .map_err(|e| invalid(format!("the table cannot be built: {e}")))?;
                Ok(Answer::Binary(image))
            }
            Request::UseTables(request) => {
                let (partition, goal) = partition_of(&request)?;
                let tables = Tables::from_images(&partition, staged)?;
                self.tables
                    .retain(|t| (t.size(), t.goal()) != (tables.size(), tables.goal()));
                self.tables.push(Arc::new(tables));
                json(&TablesRecord::new("tables", &partition, request.size, goal))
            }
        }
    }

    /// A solver with the command line's policy over the tables in use for
    /// `goal`, on this thread.
    fn solver(&self, goal: Goal, within: u32, fast: bool) -> Result<Solver, Error> {
        let mut builder = Solver::builder()
            .goal(goal)
            .within(within)
            .fast(fast)
            .threads(1);
        for tables in self.tables.iter().filter(|t| t.goal() == goal) {
            builder = builder.tables(Arc::clone(tables));
        }
        builder.build()
    }

    /// The request's board, budgets and solver, each field checked.
    fn prepare(&self, request: &BoardRequest) -> Result<(Board, Run, Solver), Failure> {
        let run = on_this_thread(request)?;
        let board = board_of(&request.board)?;
        let goal = request.goal().map_err(invalid)?;
        let within = request.within.unwrap_or(0);
        let solver = self.solver(goal, within, request.fast.unwrap_or(false))?;
        Ok((board, run, solver))
    }

    fn solve(&self, request: BoardRequest, hint: bool) -> Result<String, Failure> {
        let (board, budgets, solver) = self.prepare(&request)?;
        let goal = solver.goal();
        let notation = request.notation().map_err(invalid)?;
        let run = Run {
            beams: request
                .beams
                .iter()
                .flatten()
                .map(|beam| beam.outcome().map_err(invalid))
                .collect::<Result<_, _>>()?,
            ..budgets
        };
        let solution = solver.solve_with(&board, &run)?;
        let notes = solver.take_notes().iter().map(note_text).collect();
        Ok(solution_record(
            &board, goal, notation, &solution, hint, notes,
        ))
    }

    fn beam(&self, request: BoardRequest, attempt: usize) -> Result<BeamAnswer, Failure> {
        let (board, run, solver) = self.prepare(&request)?;
        let outcome = solver.beam_attempt(&board, attempt, &run)?;
        Ok(BeamAnswer {
            kind: "beam",
            outcome: outcome.as_ref().map(BeamRecord::new),
        })
    }

    fn beam_schedule(&self, request: BoardRequest) -> Result<BeamScheduleAnswer, Failure> {
        let (board, run, solver) = self.prepare(&request)?;
        let schedule = solver.beam_schedule(&board, &run)?;
        Ok(BeamScheduleAnswer {
            kind: "beam_schedule",
            beams: schedule.iter().map(ScheduledBeamRecord::new).collect(),
        })
    }

    fn check(&self, board: BoardField, goal: Option<String>) -> Result<Check, Failure> {
        let board = board_of(&board)?;
        let goal = goal_of(goal)?;
        let solver = self.solver(goal, 0, false)?;
        let mut record = Check::start(&solver, &board, goal);
        if record.solvable {
            let run = Run {
                max_nodes: Some(CHECK_NODES),
                here: true,
                ..Run::default()
            };
            if let Ok(solved) = solver.solve_with(&board, &run) {
                record.found(solved.length(), solved.optimal, solved.initial_estimate);
            }
        }
        Ok(record)
    }
}

/// A search on the calling thread (the browser's one) within the
/// request's node and time budgets.
fn on_this_thread(request: &BoardRequest) -> Result<Run, Failure> {
    let max_time = request.max_time().map_err(invalid)?;
    let time_spent = match (request.spent_seconds, max_time) {
        (None, _) => Duration::ZERO,
        (Some(_), None) => return Err(invalid("spent_seconds: give max_seconds too".into())),
        (Some(spent), Some(_)) if spent.is_finite() && spent >= 0.0 => {
            Duration::from_secs_f64(spent.min(npuzzle::MAX_SECONDS))
        }
        (Some(spent), Some(_)) => {
            return Err(invalid(format!(
                "spent_seconds: {spent} is not a number of seconds of 0 or more"
            )))
        }
    };
    let anytime = request.anytime().map_err(invalid)?;
    Ok(Run {
        max_nodes: request.max_nodes,
        max_time,
        anytime,
        time_spent,
        here: true,
        ..Run::default()
    })
}

fn json(record: &impl Serialize) -> Result<Answer, Failure> {
    Ok(Answer::Json(
        serde_json::to_string(record).expect("records serialize"),
    ))
}

fn solution_record(
    board: &Board,
    goal: Goal,
    notation: Notation,
    solution: &Solution,
    hint: bool,
    notes: Vec<String>,
) -> String {
    let record = PageSolution {
        record: SolutionRecord::new(board, goal, notation, solution, true),
        first_move: hint.then(|| {
            solution
                .moves
                .first()
                .map(|&m| Move::format_sequence(&[m], notation))
        }),
        notes,
    };
    serde_json::to_string(&record).expect("records serialize")
}

fn board_of(field: &BoardField) -> Result<Board, Failure> {
    field.board().map_err(invalid)
}

fn goal_of(goal: Option<String>) -> Result<Goal, Failure> {
    named(goal.as_deref(), "goal")
}

/// An option given by name (`field` in the request), or its default.
fn named<T: std::str::FromStr<Err = npuzzle::UnknownName> + Default>(
    name: Option<&str>,
    field: &str,
) -> Result<T, Failure> {
    npuzzle::named_field(name, field).map_err(invalid)
}

fn partition_of(request: &TablesRequest) -> Result<(Partition, Goal), Failure> {
    let goal = goal_of(request.goal.clone())?;
    let partition = Partition::parse(&request.partition, request.size, goal)
        .map_err(|e| Failure::from(Error::from(e)))?;
    Ok((partition, goal))
}

#[cfg(test)]
mod tests;
