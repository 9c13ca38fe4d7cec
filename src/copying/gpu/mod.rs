//! The copying model's GPU backend: the same model and run as the CPU's, trained by WGSL
//! kernels through `wgpu` (Vulkan, Metal or DX12 natively). `device.rs` finds the GPU,
//! `kernels.rs` compiles the kernels and records dispatches, `model.rs` is the model (for
//! several seeds at once) and its calls, over the buffers of `buffers.rs`; the step's
//! recorded passes are `plan.rs`, `forward.rs` and `backward.rs`, the evaluation's
//! `eval.rs`. `GpuTrainer` (`trainer.rs`) is the run, and `GpuSweep` (`sweep.rs`) trains
//! many seeds of one setting as one GPU run.

mod backward;
mod buffers;
pub mod device;
mod eval;
mod forward;
pub mod kernels;
pub mod model;
mod plan;
pub mod sweep;
pub mod trainer;

pub use device::Gpu;
pub use model::{max_seeds, GpuModel, StepResult};
pub use sweep::GpuSweep;
pub use trainer::GpuTrainer;
#[cfg(not(target_arch = "wasm32"))]
pub use trainer::OnGpu;
