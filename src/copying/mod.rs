//! The copying lab (Snell et al. 2021, docs/science.md 1): a seq2seq LSTM with attention learns
//! to copy, reverse or translate a sequence, and the KTIW probe `β` shows what it knows
//! before attention does. Its settings, tasks, model, metrics, what a run starts from (its
//! seed's streams, `streams.rs`), trainer and data parallelism, and the GPU backend
//! (`gpu/`); the kernels, the optimiser, the random generator, the flat parameter buffer
//! and the `Run` trait are the crate's.

pub mod config;
#[cfg(any(not(target_arch = "wasm32"), feature = "webgpu"))]
pub mod gpu;
pub mod metrics;
pub mod model;
pub mod parallel;
pub mod streams;
pub mod tasks;
pub mod train;
