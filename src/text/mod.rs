//! Text preparation shared by every algorithm: script-based language
//! detection, normalisation, tokenisation and shingles.

pub mod cilin;
pub mod lang;
pub mod normalize;
pub mod segment;
pub mod shingle;
pub mod stopwords;
pub mod tokenize;
pub mod vocab;

pub use lang::Lang;
pub use normalize::NormalizeOptions;
pub use tokenize::{tokenize, TokenKind, TokenizerConfig, Tokens};
pub use vocab::{tokenize_many, Vocab};
