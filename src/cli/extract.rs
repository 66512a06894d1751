//! `neardup extract`: one page's title, subtitles and main text.

use std::path::PathBuf;

use clap::Args;

use super::CliError;
use crate::corpus;
use crate::extract::{self, decode, Extraction};

#[derive(Args)]
pub struct ExtractArgs {
    /// An HTML file (any charset; .gz is fine).
    pub page: PathBuf,
    /// Print the document structure (paragraphs, sentences with their
    /// positions and flags) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Strip tags only, instead of extracting the main content.
    #[arg(long)]
    pub full_text: bool,
}

pub fn run(args: ExtractArgs) -> Result<(), CliError> {
    let ExtractArgs {
        page,
        json,
        full_text,
    } = args;
    let bytes = corpus::read_maybe_gzipped(&page).map_err(|source| CliError::Io {
        path: page.clone(),
        source,
    })?;
    let decoded = decode::decode_html(&bytes);
    let extraction = if full_text {
        Extraction::FullText
    } else {
        Extraction::Main
    };
    let out = extract::extract_html(&decoded.text, extraction);
    if json {
        let value = serde_json::json!({
            "encoding": decoded.encoding.name(),
            "encoding_source": format!("{:?}", decoded.source).to_lowercase(),
            "structure": out.structure,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&value).expect("plain data serialises")
        );
    } else {
        println!("title: {}", out.structure.title.as_deref().unwrap_or(""));
        for subtitle in &out.structure.subtitles {
            println!("subtitle: {subtitle}");
        }
        println!(
            "encoding: {} ({:?})\n",
            decoded.encoding.name(),
            decoded.source
        );
        println!("{}", out.text());
    }
    Ok(())
}
