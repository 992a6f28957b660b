//! `npuzzle serve`: the picture puzzle in the browser, coached by the optimal
//! solver. The page, its script, styles and picture are compiled in, so an
//! installed binary serves them offline.
//!
//! Requests are answered on tokio; searches run on three small thread pools
//! outside it, light work (hints and checks up to 4x4) apart from heavy,
//! each search within a node budget. Work past a bound is answered 503 with
//! Retry-After at once, never queued.
//!
//! Modules, each using only those listed after it:
//! - this one: the command's settings, start-up and the runtime;
//! - `listener`: the socket, the accept loop, connection bounds, header
//!   deadline;
//! - `api`: routes, request parsing and checks, body limit and deadline,
//!   JSON records;
//! - `pools`: admission, the three pools, escalation from quick to long;
//! - `cache`: solutions kept by position.

mod api;
mod cache;
mod listener;
mod pools;

use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use npuzzle::{Goal, Solver};

use crate::args::ServeArgs;
use crate::output::Answer;
use crate::serve::pools::{Pools, Settings, QUICK_NODES};
use crate::status::{EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK};

pub fn run(args: &ServeArgs) -> u8 {
    match serve(args) {
        Ok(()) => EXIT_OK,
        Err((code, message)) => {
            eprintln!("npuzzle: {message}");
            code
        }
    }
}

fn serve(args: &ServeArgs) -> Result<(), (u8, String)> {
    let bad = |message: String| (EXIT_BAD_INPUT, message);
    let threads = npuzzle::check_threads("--threads", args.threads.unwrap_or_else(npuzzle::cores))
        .map_err(|e| bad(e.to_string()))?;
    if args.queue == 0 {
        return Err(bad("--queue must be at least 1".to_string()));
    }
    if args.per_client == 0 {
        return Err(bad("--per-client must be at least 1".to_string()));
    }
    if let Some(name) = &args.partition {
        npuzzle::Partition::parse(name, 4, Goal::BlankLast)
            .map_err(|e| bad(format!("--partition {name}: {e} (it names 4x4 tables)")))?;
    }
    let solver = |goal: Goal| -> Result<Solver, (u8, String)> {
        let mut builder = Solver::builder()
            .goal(goal)
            .threads(1)
            .reduction_effort(npuzzle::Effort::Quick)
            .on_note(|note| eprintln!("npuzzle: {}", crate::remedy::note_message(note)));
        if let Some(dir) = &args.pdb_dir {
            builder = builder.pdb_dir(dir);
        }
        if let Some(name) = &args.partition {
            builder = builder.partition_for(4, name.as_str());
        }
        builder.build().map_err(|e| bad(e.to_string()))
    };
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let pools = Arc::new(
        Pools::new(Settings {
            solvers: [solver(Goal::BlankLast)?, solver(Goal::BlankFirst)?],
            threads,
            queue: args.queue,
            per_client: args.per_client,
            max_nodes: args.max_nodes,
            max_anytime: args.max_anytime,
        })
        .map_err(|e| (EXIT_FAILED, e))?,
    );
    // Open the 4x4 tables now: the first player should not wait for them,
    // and a problem with them is best seen at start-up.
    let probe = Goal::BlankLast.board(4);
    if let Answer::Refused {
        reason,
        nodes: None,
        ..
    } = pools.search(
        Goal::BlankLast,
        &probe,
        QUICK_NODES,
        pools::Time::default(),
        &Arc::new(AtomicBool::new(false)),
    ) {
        eprintln!("npuzzle: 4x4 boards will be refused: {reason}");
    }
    warm_tables(&pools, args.pdb_dir.as_deref());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| (EXIT_FAILED, format!("cannot start the server: {e}")))?;
    runtime.block_on(async {
        let address = SocketAddr::new(args.host, args.port);
        let listener = listener::bind(address)
            .await
            .map_err(|e| (EXIT_FAILED, e))?;
        let bound = listener
            .local_addr()
            .map_err(|e| (EXIT_FAILED, format!("cannot listen: {e}")))?;
        let url = format!("http://{bound}/");
        println!("npuzzle: serving the puzzle on {url} (Ctrl-C stops)");
        if !args.host.is_loopback() {
            println!(
                "npuzzle: listening on {} : other machines can reach it",
                args.host
            );
        }
        if args.open {
            if let Err(e) = webbrowser::open(&url) {
                eprintln!("npuzzle: cannot open a browser ({e}); open {url} yourself");
            }
        }
        let app = api::router(pools, allowed_hosts(args), seed);
        listener::serve(listener, app, args.max_connections).await;
        Ok(())
    })
}

/// Opens, in the background, the tables built for the other sides whose
/// search takes tables (5x5 to 7x7), for either goal: opening maps them
/// and reads them into memory, so that the first hint of such a board
/// does not wait for the disk. Sides without tables are left alone
/// (their note comes with their first board).
fn warm_tables(pools: &Arc<Pools>, pdb_dir: Option<&std::path::Path>) {
    let dirs = npuzzle::search_dirs(pdb_dir);
    let wanted: Vec<(Goal, usize)> = [Goal::BlankLast, Goal::BlankFirst]
        .into_iter()
        .flat_map(|goal| [5, 6, 7].map(|size| (goal, size)))
        .filter(|&(goal, size)| npuzzle::strongest_built(&dirs, size, goal).is_some())
        .collect();
    if wanted.is_empty() {
        return;
    }
    let pools = Arc::clone(pools);
    std::thread::spawn(move || {
        for (goal, size) in wanted {
            // A problem with them is said with the side's first board.
            let _ = pools.solver(goal).tables(size);
        }
    });
}

/// The host names requests may give: loopback names, the listening
/// address, and --allow-host.
fn allowed_hosts(args: &ServeArgs) -> Vec<String> {
    let mut hosts = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "[::1]".to_string(),
    ];
    hosts.push(match args.host {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    });
    hosts.extend(args.allow_host.iter().cloned());
    hosts
}
