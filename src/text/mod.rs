//! Text preparation shared by every algorithm: script-based language
//! detection, normalisation and tokenisation.

pub mod cilin;
pub mod lang;
pub mod normalize;
pub mod tokenize;

pub use normalize::NormalizeOptions;
pub use tokenize::{tokenize, TokenKind, TokenizerConfig, Tokens};
