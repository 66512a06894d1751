//! The `neardup` binary: parse, dispatch to the subcommand in `src/cli/`,
//! and print the one error at the edge with its exit code.

use std::process::ExitCode;

use clap::Parser;

use neardup::cli::{self, Cli, CliError, Command};

// glibc's malloc grew costlier per call with the heap (its free lists):
// about 30% of the semantic method's CPU in a profile at 30k pages, its
// stages growing as n^1.3-1.5; with mimalloc they grow linearly and ran
// 2.7 times faster at 100k pages. Freed memory goes back to the system
// through `release_freed_memory`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of our output
    // goes away (`neardup run ... | head`), instead of panicking on EPIPE.
    // SAFETY: setting a signal's disposition to the default is sound.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    std::panic::set_hook(Box::new(|info| {
        eprintln!("internal error: {info}");
    }));
    let cli = Cli::parse();
    match std::panic::catch_unwind(|| dispatch(cli)) {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code())
        }
        Err(_) => ExitCode::from(1),
    }
}

fn dispatch(cli: Cli) -> Result<(), CliError> {
    let Some(command) = cli.command else {
        cli::WorkerArgs::default().apply()?;
        return cli::tui::open(neardup::tui::Source::Demo);
    };
    if let Some(workers) = command.workers() {
        workers.apply()?;
    }
    match command {
        Command::Tui(args) => cli::tui::run(args),
        Command::Run(args) => cli::run::run(args),
        Command::Tune(args) => cli::tune::run(args),
        Command::Train(args) => cli::train::run(args),
        Command::Dedup(args) => cli::dedup::run(args),
        Command::Report(args) => cli::report::run(args),
        Command::Signatures(args) => cli::signatures::run(args),
        Command::Evaluate(args) => cli::evaluate::run(args),
        Command::Extract(args) => cli::extract::run(args),
        Command::ExtractEval(args) => cli::extract_eval::run(args),
        Command::Bench(args) => cli::bench::run(args),
        Command::Index(args) => cli::index::run(args),
        Command::Ingest(args) => cli::ingest::run(args),
        Command::TagEval(args) => cli::tag_eval::run(args),
        Command::Corpus(args) => cli::corpus::run(args),
        Command::Cache(args) => cli::cache::run(args),
        Command::Check(args) => cli::check::run(args),
        Command::Completions(args) => cli::completions::run(args),
        Command::Man(args) => cli::man::run(args),
    }
}
