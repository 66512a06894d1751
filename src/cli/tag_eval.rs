//! `neardup tag-eval`: jieba's POS tags against gold-tagged text.

use std::path::PathBuf;

use clap::Args;

use super::CliError;

#[derive(Args)]
pub struct TagEvalArgs {
    /// JSONL(.gz) with `tagged_paragraphs`, e.g. People's Daily 1998.
    #[arg(default_value = "../shared/corpora/peoples_daily_1998_01/articles.jsonl.gz")]
    pub path: PathBuf,
}

pub fn run(args: TagEvalArgs) -> Result<(), CliError> {
    let TagEvalArgs { path } = args;
    let agreement = crate::algo::semantic::chunks::TagAgreement::of_file(&path)?;
    print!("{}", agreement.render());
    Ok(())
}
