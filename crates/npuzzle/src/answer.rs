//! The one path every solve takes from a board to an answer: the search
//! the plan ([`crate::plan`]) chose, over the tables it chose, and what
//! an optimal attempt gives way to when it runs out.

use npuzzle_board::clock::Instant;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

use npuzzle_board::Board;
use npuzzle_search::{
    Algorithm, BeamOutcome, Deadline, Effort, Incomplete, InputError, Request, ScheduledBeam,
    SearchError, Stats,
};

use crate::error::{Error, TablesProblem};
use crate::note::Note;
use crate::plan::{Look, Plan, Search};
use crate::policy::{tables_beam_percent, BEAM_MAX_SIZE, MAX_BEAM_WIDTH, MIN_BEAM_WIDTH};
use crate::solution::Solution;
use crate::solver::{Run, Solver};
use crate::tables::{tables_error, Tables};
use crate::widths::{improving, widening};

/// A beam search as [`Solver::beam`] runs it.
pub(crate) struct BeamRequest {
    pub(crate) width: usize,
    request: Request,
    /// The board's lower bound, and the depth the beam goes to at most.
    lower_bound: u64,
    depth_cap: u64,
}

impl Solver {
    /// Tells once per side and search that a memory budget is not used:
    /// A*+IDA* is the optimal IDA* search's, up to 5x5.
    fn note_memory_unused(&self, size: usize, plan: &Plan) {
        if self.config.memory.is_none() {
            return;
        }
        let search = match plan {
            // The other goal's solver tells its own.
            Plan::Turned(_) => return,
            Plan::Reduce { .. } => "the reduction (near-optimal)",
            Plan::Beam { .. } => "beam search (near-optimal)",
            Plan::Search(Search { algorithm, .. }) => match algorithm {
                Algorithm::IdaStar if size > 5 => "IDA*",
                Algorithm::IdaStar => return,
                Algorithm::AStar => "A*",
                Algorithm::Bfs => "breadth-first search",
            },
        };
        let first = self
            .shared
            .memory_notes_said
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((size, search));
        if first {
            self.note(Note::MemoryUnused { size, search });
        }
    }

    /// The answer to `board` as `run` says, on this thread (split over
    /// the current rayon pool unless `run.here`); `spare_threads` counts a
    /// batch's threads that may join the search.
    pub(crate) fn answer(
        &self,
        board: &Board,
        run: &Run,
        spare_threads: Option<Arc<AtomicUsize>>,
    ) -> Result<Solution, Error> {
        let goal = self.config.goal;
        let max_nodes = run.max_nodes.or(self.config.max_nodes);
        // The wall-clock budget counts the opening of the tables too.
        let deadline = self.deadline(run);
        let stop = run.stop.clone();
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        if run.anytime.is_some() {
            self.config.anytime_applies()?;
        }
        let opening = Instant::now();
        let plan = self.plan(board, max_nodes, Look::Open)?;
        self.note_memory_unused(board.size(), &plan);
        let started = Instant::now();
        if let Some(progress) = &run.progress {
            self.keeps_progress(board, &plan)?;
            Self::progress_within_a_known_solution(board, goal, progress)?;
        }
        let plan = match plan {
            Plan::Turned(turned) => {
                // The wall-clock budget counts the opening of the tables too.
                let run = Run {
                    time_spent: run.time_spent + opening.elapsed(),
                    ..run.clone()
                };
                let answer = turned.answer(&Self::turned_board(board), &run, spare_threads);
                return match answer {
                    Ok(solution) => Ok(self.turned_back(&turned, solution)),
                    Err(e) => {
                        self.keep_notes(turned.take_notes());
                        Err(e)
                    }
                };
            }
            Plan::Reduce { why } => {
                let why = match self.anytime(run) {
                    Some(_) => format!(
                        "{why}; the time given for a shorter answer went unused: it is for \
                         boards the beam answers, up to {BEAM_MAX_SIZE}x{BEAM_MAX_SIZE}"
                    ),
                    None => why,
                };
                return self.reduce(board, why, started, stop.as_ref(), Finish::By(deadline));
            }
            Plan::Beam { tables } => {
                return self.beam(board, tables, max_nodes, run, deadline, started)
            }
            Plan::Search(search) => search,
        };
        let request = Request {
            goal,
            algorithm: plan.algorithm,
            heuristic: plan.heuristic,
            max_nodes: plan.gives_way.as_ref().map(|g| g.after_nodes).or(max_nodes),
            parallel: !run.here,
            stop: stop.clone(),
            deadline,
            within: self.config.within,
            spare_threads,
            memory: self.config.memory,
            reflect: self.config.reflection,
            beam_outcomes: Vec::new(),
            progress: run.progress.clone(),
        };
        let search = |request: &Request| match &plan.tables {
            Some(tables) => {
                npuzzle_search::solve_over(board, request, &tables.for_search(self.config.strategy))
            }
            None => npuzzle_search::solve(board, request),
        };
        let result =
            if request.within > 0 && (request.max_nodes.is_some() || request.deadline.is_some()) {
                weighted_ladder(&search, &request)
            } else {
                search(&request).map(|found| (found, request.within))
            };
        if let (Ok((found, _)), Some(tables)) = (&result, &plan.tables) {
            tables.certify(board, &found.moves)?;
        }
        let (found, within) = match result {
            Ok(found) => found,
            Err(e) => return self.after_search_error(e, board, plan, run, deadline, started),
        };
        let solution = Solution {
            elapsed: started.elapsed(),
            ..plan.labels(self.config.reflection)
        };
        if within > 0 {
            let withins = (request.within, within);
            return Ok(self.weighted_solution(board, found, withins, deadline, solution));
        }
        Ok(Solution {
            moves: found.moves,
            stats: Some(found.stats),
            initial_estimate: Some(found.initial_estimate),
            ..solution
        })
    }

    /// Refuses progress whose bound is past the reduction's length: no
    /// iteration beyond a solution known ends unsolved, and a forged bound
    /// must not size anything.
    fn progress_within_a_known_solution(
        board: &Board,
        goal: npuzzle_board::Goal,
        progress: &std::sync::Mutex<npuzzle_search::Progress>,
    ) -> Result<(), Error> {
        let kept = progress.lock().unwrap_or_else(|e| e.into_inner());
        if !kept.begun() {
            return Ok(());
        }
        let most = npuzzle_search::solve_by_reduction(board, goal)
            .map_err(|e| Error::from_search(e, goal))?
            .len();
        kept.check_bound_within(u32::try_from(most).unwrap_or(u32::MAX))
            .map_err(|e| {
                Error::InvalidArgument(format!("cannot go on from the progress given: {e}"))
            })
    }

    /// Refuses progress for a board whose plan is not optimal IDA*.
    fn keeps_progress(&self, board: &Board, plan: &Plan) -> Result<(), Error> {
        let why = match plan {
            Plan::Search(Search {
                algorithm: Algorithm::IdaStar,
                gives_way: None,
                ..
            }) if self.config.within == 0 => return Ok(()),
            Plan::Search(Search {
                gives_way: Some(_), ..
            }) => "the side's tables are not built: build them, or ask for a heuristic".to_string(),
            Plan::Search(Search { algorithm, .. }) if *algorithm != Algorithm::IdaStar => {
                format!("{} is asked for", algorithm.name())
            }
            Plan::Search(_) => "a solution within a percentage is asked for".to_string(),
            Plan::Reduce { why } => why.clone(),
            Plan::Beam { .. } => "it gets beam search".to_string(),
            // The other goal's solver keeps it (its own plan).
            Plan::Turned(_) => return Ok(()),
        };
        Err(Error::InvalidArgument(format!(
            "progress is kept by optimal IDA* only, and this {n}x{n} board gets none ({why})",
            n = board.size()
        )))
    }

    /// What the optimal IDA* search of `board` is made of, as one line:
    /// the engine's version (its move order and split), the board and
    /// goal, the heuristic and, over tables, each table's pattern and CRC,
    /// and the reflection. Searches with the same line expand the same
    /// tree, so that the [`Progress`](npuzzle_search::Progress) of one can
    /// go on in another: whoever stores progress stores this line with it
    /// and refuses the progress for any other. An error when the board
    /// gets no optimal IDA* (as [`Run::progress`] is refused).
    pub fn search_identity(&self, board: &Board) -> Result<String, Error> {
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        let plan = self.plan(board, self.config.max_nodes, Look::Open)?;
        if let Plan::Turned(turned) = plan {
            return turned.search_identity(&Self::turned_board(board));
        }
        self.keeps_progress(board, &plan)?;
        let Plan::Search(Search {
            heuristic, tables, ..
        }) = plan
        else {
            unreachable!("progress is kept by a search")
        };
        let over = match &tables {
            Some(tables) => {
                let each: Vec<String> = tables
                    .tables()
                    .iter()
                    .map(|t| format!("{} crc {:08x}", t.pattern(), t.header().table_crc()))
                    .collect();
                format!(
                    "tables {} [{}], reflection {}",
                    tables.partition().name(),
                    each.join(", "),
                    if self.config.reflection { "on" } else { "off" }
                )
            }
            None => format!("heuristic {}", heuristic.name()),
        };
        Ok(format!(
            "npuzzle {}; idastar split at {}; goal {}; board {}; {over}",
            env!("CARGO_PKG_VERSION"),
            npuzzle_search::split_depth(board.size()),
            goal.name(),
            board
                .tiles()
                .iter()
                .map(u16::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        ))
    }

    /// What a search that ended without an answer gives: when the plan's
    /// search gives way, the near-optimal answer the limit calls for;
    /// else the error in the engine's words.
    fn after_search_error(
        &self,
        error: SearchError,
        board: &Board,
        plan: Search,
        run: &Run,
        deadline: Option<Deadline>,
        started: Instant,
    ) -> Result<Solution, Error> {
        let stop = run.stop.as_ref();
        match (error, plan.gives_way) {
            (SearchError::Incomplete(Incomplete::TimeLimit { budget }), Some(_)) => {
                let why = format!(
                    "no optimal answer within the time budget of {} s",
                    npuzzle_search::seconds_text(budget)
                );
                self.reduce(board, why, started, stop, Finish::Late(deadline))
            }
            (SearchError::Incomplete(Incomplete::NodeLimit { .. }), Some(gives_way))
                if (5..=BEAM_MAX_SIZE).contains(&board.size()) =>
            {
                self.beam(board, gives_way.beam_tables, None, run, deadline, started)
            }
            (SearchError::Incomplete(Incomplete::NodeLimit { limit, .. }), Some(_)) => {
                let why = format!("optimal search gave up after {limit} nodes");
                self.reduce(board, why, started, stop, Finish::By(deadline))
            }
            (e, _) => Err(self.search_error(e, plan.tables.as_deref())),
        }
    }

    /// A search's error in the engine's words; a problem of `tables` as
    /// the tables' error, saying how to build them again.
    fn search_error(&self, error: SearchError, tables: Option<&Tables>) -> Error {
        match (error, tables) {
            (SearchError::Input(InputError::Tables(e)), Some(tables)) => tables_error(
                tables.partition(),
                tables.dir(),
                TablesProblem::Unusable(e.to_string()),
            ),
            (e, _) => Error::from_search(e, self.config.goal),
        }
    }

    /// A solution found within `within.1` % of optimal (`within.0` asked
    /// for): optimal after all when as long as the proven bound, else
    /// labelled with the bound and why the percentage is what it is.
    fn weighted_solution(
        &self,
        board: &Board,
        found: npuzzle_search::Solution,
        within: (u32, u32),
        deadline: Option<Deadline>,
        solution: Solution,
    ) -> Solution {
        let (asked, within) = within;
        // The search's own estimate is a lower bound; a solution that long
        // is optimal after all.
        let estimate = u64::from(found.initial_estimate).max(self.lower_bound(board));
        // Every solution of a board has the same parity.
        let lower_bound = estimate + ((found.moves.len() as u64 + estimate) & 1);
        let optimal = found.moves.len() as u64 == lower_bound;
        let note = if within > asked {
            let budget = if deadline.is_some_and(|d| d.passed()) {
                "time"
            } else {
                "node"
            };
            format!(
                "within {asked}% of optimal asked for; the {budget} budget ran out first, so \
                 this answer is within {within}%"
            )
        } else {
            format!("within {within}% of optimal asked for")
        };
        Solution {
            optimal,
            within: (!optimal).then_some(within),
            lower_bound: (!optimal).then_some(lower_bound),
            note: (!optimal).then_some(note),
            moves: found.moves,
            stats: Some(found.stats),
            initial_estimate: Some(found.initial_estimate),
            ..solution
        }
    }

    /// The beam's width and request for `board` (see [`Solver::beam`]), or
    /// why the reduction answers instead. A default beam over tables gets
    /// its side's share of the time a board has ([`tables_beam_percent`]).
    pub(crate) fn beam_request(
        &self,
        board: &Board,
        over_tables: bool,
        max_nodes: Option<u64>,
        run: &Run,
        deadline: Option<Deadline>,
    ) -> Result<BeamRequest, String> {
        let lower_bound = self.lower_bound(board);
        let percent = match self.config.effort {
            Effort::Thorough if over_tables => tables_beam_percent(board.size()),
            _ => 100,
        };
        let budget = max_nodes.unwrap_or(self.config.effort.beam_nodes() * percent / 100);
        // From 9x9 on, the repairs of a stalled beam may take it to three
        // times the bound (`npuzzle_search::beam`).
        let depth_cap = if board.size() >= 9 {
            lower_bound * 3
        } else {
            lower_bound * 5 / 2
        };
        let width = (budget / depth_cap.max(1)).min(MAX_BEAM_WIDTH * percent / 100) as usize;
        if width < MIN_BEAM_WIDTH {
            return Err(format!(
                "a beam of width {width} would wander (the budget allows no more)"
            ));
        }
        // The budget sets the width. Without a limit given, the search may
        // spend it twice: on 6x6 to 8x8 the frame-first beams run at two
        // widths or more, and stalled beams leave the rest to repairs.
        let limit = max_nodes.unwrap_or(2 * budget);
        let request = Request {
            goal: self.config.goal,
            max_nodes: Some(limit),
            parallel: !run.here,
            stop: run.stop.clone(),
            deadline,
            reflect: self.config.reflection,
            beam_outcomes: run.beams.clone(),
            ..Request::default()
        };
        Ok(BeamRequest {
            width,
            request,
            lower_bound,
            depth_cap,
        })
    }

    /// The frame-weighted beams of `board`'s solve that hosts without
    /// threads may run in separate workers ([`Solver::beam_attempt`]) and
    /// hand to the solve in [`Run::beams`], in the order the solve takes
    /// them ([`npuzzle_search::beam_schedule`]). Empty when the board's
    /// solve takes none from elsewhere: sides other than 6x6 to 8x8
    /// solved by the beam without tables, or a node limit that could cut
    /// a beam short.
    pub fn beam_schedule(&self, board: &Board, run: &Run) -> Result<Vec<ScheduledBeam>, Error> {
        match self.beam_apart(board, run)? {
            Some(beam) => npuzzle_search::beam_schedule(board, &beam.request, beam.width)
                .map_err(|e| Error::from_search(e, self.config.goal)),
            None => Ok(Vec::new()),
        }
    }

    /// Frame-weighted beam `attempt` of those [`Solver::beam_schedule`]
    /// lists; None for a beam it does not list.
    pub fn beam_attempt(
        &self,
        board: &Board,
        attempt: usize,
        run: &Run,
    ) -> Result<Option<BeamOutcome>, Error> {
        let Some(beam) = self.beam_apart(board, run)? else {
            return Ok(None);
        };
        npuzzle_search::beam_attempt(board, &beam.request, beam.width, attempt)
            .map_err(|e| Error::from_search(e, self.config.goal))
    }

    /// The beam of `board`'s solve when it is the beam without tables,
    /// whose frame-weighted beams may run elsewhere.
    fn beam_apart(&self, board: &Board, run: &Run) -> Result<Option<BeamRequest>, Error> {
        let goal = self.config.goal;
        if !board.is_solvable(goal) {
            return Err(Error::Unsolvable { goal });
        }
        let max_nodes = run.max_nodes.or(self.config.max_nodes);
        let plan = self.plan(board, max_nodes, Look::Open)?;
        if !matches!(plan, Plan::Beam { tables: None }) {
            return Ok(None);
        }
        Ok(self
            .beam_request(board, false, max_nodes, run, self.deadline(run))
            .ok())
    }

    /// Beam search as wide as the effort's node budget affords down to
    /// 2.5 times the lower bound (past that the reduction is as short:
    /// beam answers run 1.3 to 1.8 times linear conflict's bound); the
    /// reduction answers when the beam finds nothing, or when the budget
    /// affords a beam narrower than [`MIN_BEAM_WIDTH`]. Unless `run.here`,
    /// the beams may use two threads of the current pool.
    fn beam(
        &self,
        board: &Board,
        tables: Option<Arc<Tables>>,
        max_nodes: Option<u64>,
        run: &Run,
        deadline: Option<Deadline>,
        started: Instant,
    ) -> Result<Solution, Error> {
        let stop = run.stop.as_ref();
        let BeamRequest {
            width,
            request,
            lower_bound,
            depth_cap,
        } = match self.beam_request(board, tables.is_some(), max_nodes, run, deadline) {
            Ok(beam) => beam,
            Err(why) => return self.reduce(board, why, started, stop, Finish::By(deadline)),
        };
        // A beam narrower than `width` (under a budget, `widening`) gets
        // its share of the nodes: one that wanders ends with them and
        // leaves the time to the wider ones.
        let one_beam = |beam_width: usize, cap: Option<u64>, until: Option<Deadline>| {
            let share = request.max_nodes.map(|nodes| {
                (u128::from(nodes) * beam_width as u128 / width.max(1) as u128).max(1) as u64
            });
            let share = match (share, cap) {
                (Some(share), Some(cap)) => Some(share.min(cap)),
                (share, cap) => share.or(cap),
            };
            let request = Request {
                max_nodes: share,
                deadline: until.or(request.deadline),
                ..request.clone()
            };
            match &tables {
                Some(tables) => npuzzle_search::beam_over(
                    board,
                    &request,
                    &tables.for_search(self.config.strategy),
                    beam_width,
                ),
                None => npuzzle_search::beam(board, &request, beam_width),
            }
        };
        // Under a wall-clock budget, narrow beams first: the budget's
        // answer is the best beam that finished, not a cut one. Given time
        // for a shorter answer, wider beams after. Beams run elsewhere
        // (`run.beams`) are of the full width alone.
        let anytime = self.anytime(run);
        let (found, width, improvement) = match (&anytime, &deadline) {
            (Some(anytime), deadline) if run.beams.is_empty() => {
                improving(&one_beam, width, deadline.as_ref(), anytime, max_nodes)
            }
            (None, Some(deadline)) if run.beams.is_empty() => {
                let (found, width, _) = widening(&one_beam, width, deadline, None);
                (found, width, None)
            }
            _ => (one_beam(width, None, None), width, None),
        };
        let found = match found {
            Ok(found) => found,
            Err(SearchError::Incomplete(Incomplete::NodeLimit { .. })) => {
                let why = format!(
                    "a beam search of width {width} found nothing within {depth_cap} moves"
                );
                return self.reduce(board, why, started, stop, Finish::By(deadline));
            }
            Err(SearchError::Incomplete(Incomplete::TimeLimit { budget })) => {
                let why = format!(
                    "a beam search of width {width} found nothing within the time budget of {} s",
                    npuzzle_search::seconds_text(budget)
                );
                return self.reduce(board, why, started, stop, Finish::Late(deadline));
            }
            Err(e) => return Err(self.search_error(e, tables.as_deref())),
        };
        if let Some(tables) = &tables {
            tables.certify(board, &found.moves)?;
        }
        let lower_bound = lower_bound.max(u64::from(found.initial_estimate));
        let lower_bound = lower_bound + ((found.moves.len() as u64 + lower_bound) & 1);
        let optimal = found.moves.len() as u64 == lower_bound;
        Ok(Solution {
            optimal,
            heuristic: Some(if tables.is_some() {
                "pdb"
            } else {
                "linear-conflict"
            }),
            partition: tables.as_ref().map(|t| t.partition().name().to_string()),
            reflection: tables.as_ref().map(|_| self.config.reflection),
            stats: Some(found.stats),
            initial_estimate: Some(found.initial_estimate),
            lower_bound: (!optimal).then_some(lower_bound),
            note: (!optimal).then(|| {
                let out_of_time = match deadline {
                    Some(d) if d.passed() => format!(
                        "; the time budget of {} s ran out first",
                        npuzzle_search::seconds_text(d.budget())
                    ),
                    _ => String::new(),
                };
                if let (Some(improvement), Some(anytime)) = (improvement, anytime) {
                    let searched = improvement.describe(found.moves.len(), width, anytime.budget());
                    return format!("{searched}: no guarantee how far from optimal{out_of_time}");
                }
                format!(
                    "beam search of width {width}: no guarantee how far from optimal{out_of_time}"
                )
            }),
            elapsed: started.elapsed(),
            ..Solution::by("beam", found.moves)
        })
    }

    /// The wall-clock budget of a search starting now, as `run` or the
    /// solver's configuration gives it.
    fn deadline(&self, run: &Run) -> Option<Deadline> {
        run.max_time
            .or(self.config.max_time)
            .map(|budget| Deadline::partly_spent(budget, run.time_spent))
    }

    /// The wall-clock budget a near-optimal answer may spend on wider
    /// beams, as `run` or the solver's configuration gives it, within the
    /// search's own budget.
    fn anytime(&self, run: &Run) -> Option<Deadline> {
        let anytime = run.anytime.or(self.config.anytime)?;
        let budget = match run.max_time.or(self.config.max_time) {
            Some(max_time) => anytime.min(max_time),
            None => anytime,
        };
        Some(Deadline::partly_spent(budget, run.time_spent))
    }

    /// The reduction's answer, by `finish`.
    fn reduce(
        &self,
        board: &Board,
        why: String,
        started: Instant,
        stop: Option<&Arc<std::sync::atomic::AtomicBool>>,
        finish: Finish,
    ) -> Result<Solution, Error> {
        let goal = self.config.goal;
        let hurried =
            |deadline| npuzzle_search::solve_by_reduction_hurried(board, goal, stop, deadline);
        let found = match finish {
            Finish::Late(deadline) => hurried(deadline),
            Finish::By(deadline) => match npuzzle_search::solve_by_reduction_until(
                board,
                goal,
                self.config.effort,
                stop,
                deadline,
            ) {
                Err(SearchError::Incomplete(Incomplete::TimeLimit { .. }))
                    if board.size() <= BEAM_MAX_SIZE =>
                {
                    hurried(deadline)
                }
                found => found,
            },
        };
        let moves = found.map_err(|e| Error::from_search(e, goal))?;
        // Every solution of a board has the same parity; an answer as short
        // as the bound is optimal, whatever found it.
        let bound = self.lower_bound(board);
        let lower_bound = bound + ((moves.len() as u64 + bound) & 1);
        let optimal = moves.len() as u64 == lower_bound;
        Ok(Solution {
            optimal,
            lower_bound: (!optimal).then_some(lower_bound),
            note: (!optimal).then_some(why),
            elapsed: started.elapsed(),
            ..Solution::by("reduction", moves)
        })
    }
}

/// When the reduction answers, under a wall-clock budget.
enum Finish {
    /// The budget (this deadline) went on a search whose answer this
    /// finishes: hurried, late by tens of milliseconds up to 10x10.
    Late(Option<Deadline>),
    /// By the deadline, if any. Up to [`BEAM_MAX_SIZE`] one cut short
    /// starts again hurried; past it (a 127x127 board takes seconds) the
    /// budget's error stands.
    By(Option<Deadline>),
}

/// Weighted search from coarse to the bound asked for, within one node
/// budget: each stage is cheap next to the next, so when the budget runs
/// out the answer of the last stage that finished stands, with its own
/// guarantee, instead of none. Stops early at a solution whose length
/// meets the search's lower bound.
fn weighted_ladder(
    search: &dyn Fn(&Request) -> Result<npuzzle_search::Solution, SearchError>,
    request: &Request,
) -> Result<(npuzzle_search::Solution, u32), SearchError> {
    const STAGES: [u32; 11] = [100, 50, 35, 30, 25, 20, 15, 10, 7, 5, 2];
    let budget = request.max_nodes.unwrap_or(u64::MAX);
    let mut stats = Stats::default();
    let mut best: Option<(npuzzle_search::Solution, u32)> = None;
    let stages = STAGES
        .into_iter()
        .filter(|&w| w > request.within)
        .chain([request.within]);
    for within in stages {
        let stage = Request {
            within,
            max_nodes: Some(budget.saturating_sub(stats.expanded).max(1)),
            ..request.clone()
        };
        match search(&stage) {
            Ok(found) => {
                stats += found.stats;
                let length = found.moves.len() as u64;
                let estimate = u64::from(found.initial_estimate);
                let done = length <= estimate + ((length + estimate) & 1);
                best = Some((npuzzle_search::Solution { stats, ..found }, within));
                if done {
                    break;
                }
            }
            Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) if best.is_some() => break,
            Err(SearchError::Incomplete(Incomplete::NodeLimit { .. })) if best.is_some() => {
                // The stage that ran out spent the rest of the budget.
                if let Some((found, _)) = &mut best {
                    found.stats.expanded = budget;
                }
                break;
            }
            Err(e) => return Err(e),
        }
    }
    Ok(best.expect("the last stage answered or returned"))
}
