//! Attention Playground: a seq2seq model with attention, its copying tasks and the KTIW
//! probe (Snell et al. 2021), trained one step at a time. This file only lists modules.

pub mod config;
pub mod kernels;
pub mod metrics;
pub mod model;
pub mod optim;
pub mod parallel;
pub mod rng;
pub mod series;
pub mod tasks;
pub mod train;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "bench"))]
pub mod wasm_bench;
