//! Attention Playground: a seq2seq model with attention, its copying tasks and the KTIW
//! probe (Snell et al. 2021), and a self-attention head learning a sparse Boolean function
//! (Edelman et al. 2022, `sparse`), trained one step at a time. This file only lists modules.

pub mod config;
pub mod kernels;
pub mod metrics;
pub mod model;
pub mod optim;
pub mod parallel;
pub mod rng;
pub mod series;
pub mod sparse;
pub mod tasks;
pub mod train;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "bench"))]
pub mod wasm_bench;
