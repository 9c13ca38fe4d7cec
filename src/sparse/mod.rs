//! The sparse lab (Edelman et al. 2022, docs/science.md 2): one self-attention layer learns a
//! sparse Boolean function of a bit string by attending to its few relevant positions.
//! Its settings, its data, its model and its trainer; the kernels, the optimiser, the random
//! generator and the flat parameter buffer are the crate's.

pub mod config;
pub mod model;
pub mod scaling;
pub mod task;
pub mod train;
pub mod uncertainty;
