//! Attention Playground: small attention models trained one step at a time, natively and
//! in WebAssembly. Two labs, each a model with its settings, tasks and trainer: `copying`, a
//! seq2seq LSTM with attention and the KTIW probe (Snell et al. 2021), and `sparse`, a
//! self-attention head learning a sparse Boolean function (Edelman et al. 2022). What they
//! share has names of its own: the settings' field machinery, the flat parameter buffer,
//! the `Run` trait and where a run trains, bounded series, the optimiser, the random generator and the kernels.
//! This file only lists modules.

pub mod copying;
pub mod kernels;
pub mod optim;
pub mod params;
pub mod placement;
pub mod rng;
pub mod run;
pub mod series;
pub mod settings;
pub mod sparse;
#[cfg(target_arch = "wasm32")]
pub mod wasm;
#[cfg(all(target_arch = "wasm32", feature = "bench"))]
pub mod wasm_bench;
