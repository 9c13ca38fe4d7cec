//! What a copying run starts from, whichever backend trains it: its settings' model sizes
//! and parameter count, the initial weights of its seed and the seed's random streams of
//! data (`Streams`: the task, the training batches, the fixed evaluation batch), and a run's
//! state after a step, from which any backend goes on (`Checkpoint`). How replicas share a
//! batch is `parallel.rs`'s.

use crate::copying::config::Config;
use crate::copying::model::params::{Dims, Layout};
use crate::copying::tasks::{Batch, Task};
use crate::params::ParamLayout;
use crate::rng::Rng;
use crate::run::{check_weights, RunError};
use crate::settings::Settings;

/// The independent random streams of one seed.
const STREAM_INIT: u64 = 1;
const STREAM_TRAIN: u64 = 2;
const STREAM_EVAL: u64 = 3;
const STREAM_TABLE: u64 = 4;

/// The model sizes of a run's settings.
pub fn dims_of(config: &Config) -> Dims {
    Dims {
        n_tok: config.vocab + 2,
        hidden: config.hidden,
        dirs: if config.bidirectional { 2 } else { 1 },
        heads: config.heads,
    }
}

/// Whether `params` could be loaded into a model of `config`, without building one: valid
/// settings, as many values as their model has, all finite.
pub fn check_params(config: &Config, params: &[f32]) -> Result<(), RunError> {
    config.validate()?;
    check_weights(param_count(config), params)
}

/// The parameters of a model of `config`.
pub fn param_count(config: &Config) -> usize {
    Layout::new(dims_of(config)).len
}

/// The initial weights of `seed` (P,), as every backend starts from them.
pub fn initialise(layout: &Layout, params: &mut [f32], seed: u64) {
    layout.initialise(params, &mut Rng::new(seed, STREAM_INIT));
}

/// What a seed fixes besides the initial weights: the task (its word table), the stream of
/// training batches and the fixed evaluation batch. Every backend of a run draws its data
/// from these, so the same seed trains on the same sequences everywhere.
#[derive(Clone, Debug)]
pub struct Streams {
    pub task: Task,
    pub train_rng: Rng,
    pub eval_batch: Batch, // (Be sequences) fixed by the seed
}

impl Streams {
    /// The streams of `config`'s seed.
    pub fn new(config: &Config) -> Streams {
        let mut streams = Streams {
            task: Task::new(config, &mut Rng::new(config.seed, STREAM_TABLE)),
            train_rng: Rng::new(config.seed, STREAM_TRAIN),
            eval_batch: Batch::new(config.eval_batch, config.length),
        };
        streams.start(config);
        streams
    }

    /// Back to the start of `config`'s seed.
    pub fn start(&mut self, config: &Config) {
        self.task = Task::new(config, &mut Rng::new(config.seed, STREAM_TABLE));
        self.restart_training(config.seed);
        self.task.fill(
            &mut Rng::new(config.seed, STREAM_EVAL),
            &mut self.eval_batch,
        );
    }

    /// The training batches from their first again (loaded weights train on from there).
    pub fn restart_training(&mut self, seed: u64) {
        self.train_rng = Rng::new(seed, STREAM_TRAIN);
    }

    /// Takes the place of `other` (the streams of the same settings and seed) in the
    /// training stream: allocates nothing.
    pub fn follow(&mut self, other: &Streams) {
        self.task.follow(&other.task);
        self.train_rng.clone_from(&other.train_rng);
    }

    /// Draws the next training batch into `batch`.
    pub fn next_batch(&mut self, batch: &mut Batch) {
        self.task.fill(&mut self.train_rng, batch);
    }
}

/// A run's state after `step` updates, from which another backend (or another trainer)
/// goes on as the run would have: the weights, the optimiser's updates and moments, and the
/// training stream where that step left it.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    pub step: u64,
    /// The optimiser's updates since its moments were last cleared (Adam's bias correction).
    pub updates: u64,
    pub params: Vec<f32>, // (P,)
    pub m: Vec<f32>,      // (P,) Adam's first moments (unused by SGD)
    pub v: Vec<f32>,      // (P,) Adam's second moments
    pub streams: Streams, // where the step's batch left the training stream
}

impl Checkpoint {
    /// The state of a run of `config` with nothing trained (its buffers made here).
    pub fn new(config: &Config) -> Checkpoint {
        let p = Layout::new(dims_of(config)).len;
        Checkpoint {
            step: 0,
            updates: 0,
            params: vec![0.0; p],
            m: vec![0.0; p],
            v: vec![0.0; p],
            streams: Streams::new(config),
        }
    }
}
