//! The core left once the lines are placed, searched.

use super::*;

impl Reducer {
    /// The k x k core in the bottom-right corner as a board of its own.
    pub(super) fn core(&self, k: usize) -> Board {
        let n = self.n;
        let base = n - k;
        let mut core = vec![0u16; k * k];
        for i in 0..k {
            for j in 0..k {
                let tile = self.tiles[(base + i) * n + base + j];
                core[i * k + j] = if tile == 0 {
                    0
                } else {
                    let home = Goal::BlankLast.cell_of(n, tile as u16);
                    ((home / n - base) * k + (home % n - base) + 1) as u16
                };
            }
        }
        Board::new(k, core).expect("the core holds its own tiles")
    }

    /// Tries to finish the k x k core by search: optimal within a small
    /// budget, then weighted with ever tighter bounds (at most 200 %, 100 %,
    /// ... over optimal) while the core's budget lasts, the shortest answer
    /// kept. Cores of 5x5 and less are always searched; larger ones only
    /// when close to solved: far from it, linear conflict is too weak for
    /// even a 200 % bound to beat placing line by line.
    pub(super) fn finish_core(&mut self, k: usize) -> Result<bool, SearchError> {
        const OPTIMAL_BUDGET: u64 = 100_000;
        const BOUNDS: [u32; 7] = [200, 100, 50, 35, 25, 15, 10];
        const NEAR_ATTEMPTS: [(u32, u64); 3] = [(25, 300_000), (100, 1_000_000), (200, 1_000_000)];
        const NEAR: u32 = 60;
        if k > MAX_SEARCH_SIZE {
            return Ok(false);
        }
        let core = self.core(k);
        if k > 5 {
            if self.near_failed {
                return Ok(false);
            }
            let heuristic = LinearConflict::new(&Grid::new(k, Goal::BlankLast));
            if heuristic.value(&heuristic.init(&Position::new(&core))) > NEAR {
                return Ok(false);
            }
        }
        let (stop, deadline, hurried) = (self.stop.clone(), self.deadline, self.hurried);
        let search_core = |core: &Board, within: u32, budget: u64| match search_core(
            core,
            within,
            budget,
            stop.clone(),
            deadline,
        ) {
            Err(SearchError::Incomplete(Incomplete::TimeLimit { .. })) if hurried => Ok(None),
            found => found,
        };
        if let Some(solution) = search_core(&core, 0, OPTIMAL_BUDGET)? {
            self.moves.extend(solution.moves);
            return Ok(true);
        }
        let mut best: Option<Vec<Move>> = None;
        if k > 5 {
            // A near-solved large core: the first answer within these budgets.
            for (within, budget) in NEAR_ATTEMPTS {
                // A tenth when quick, as for the 5x5 core.
                let budget = match self.effort {
                    Effort::Thorough => budget,
                    Effort::Quick => budget / 10,
                };
                if let Some(solution) = search_core(&core, within, budget)? {
                    best = Some(solution.moves);
                    break;
                }
            }
            self.near_failed = best.is_none();
        } else {
            let mut left = self.effort.core_budget();
            for within in BOUNDS {
                // Until the budget (nodes, or the deadline once an answer
                // is in hand) is spent.
                let solution = match search_core(&core, within, left) {
                    Err(SearchError::Incomplete(Incomplete::TimeLimit { .. }))
                        if best.is_some() =>
                    {
                        break
                    }
                    found => found?,
                };
                let Some(solution) = solution else {
                    break;
                };
                left = left.saturating_sub(solution.stats.expanded);
                if best.as_ref().is_none_or(|b| solution.moves.len() < b.len()) {
                    best = Some(solution.moves);
                }
            }
        }
        match best {
            Some(moves) => {
                self.moves.extend(moves);
                Ok(true)
            }
            // Never for 3x3: a few thousand nodes solve it optimally.
            None if k <= 3 => Err(SearchError::Incomplete(Incomplete::Stuck)),
            None => Ok(false),
        }
    }
}

/// The core searched with linear conflict, IDA* on this thread, at most
/// `within` % over optimal; `None` when `budget` nodes run out first.
fn search_core(
    core: &Board,
    within: u32,
    budget: u64,
    stop: Option<Arc<AtomicBool>>,
    deadline: Option<Deadline>,
) -> Result<Option<Solution>, SearchError> {
    let request = Request {
        goal: Goal::BlankLast,
        algorithm: Algorithm::IdaStar,
        heuristic: HeuristicKind::LinearConflict,
        max_nodes: Some(budget),
        parallel: false,
        stop,
        deadline,
        within,
        ..Request::default()
    };
    match solve(core, &request) {
        Ok(solution) => Ok(Some(solution)),
        Err(SearchError::Incomplete(Incomplete::NodeLimit { .. })) => Ok(None),
        Err(e) => Err(e),
    }
}
