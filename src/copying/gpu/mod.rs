//! The copying model's GPU backend: the same model and run as the CPU's, trained by WGSL
//! kernels through `wgpu` (Vulkan, Metal or DX12 natively). `device.rs` finds the GPU,
//! `kernels.rs` compiles the kernels and records dispatches, `model.rs` holds the buffers
//! and the recorded step (for several seeds at once), `GpuTrainer` (`trainer.rs`) is the
//! run, and `GpuSweep` (`sweep.rs`) trains many seeds of one setting as one GPU run.

pub mod device;
pub mod kernels;
pub mod model;
pub mod sweep;
pub mod trainer;

pub use device::Gpu;
pub use model::{max_seeds, GpuModel, StepResult};
pub use sweep::GpuSweep;
pub use trainer::GpuTrainer;
