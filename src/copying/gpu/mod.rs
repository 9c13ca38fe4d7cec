//! The copying model's GPU backend: the same model and run as the CPU's, trained by WGSL
//! kernels through `wgpu` (Vulkan, Metal or DX12 natively). `device.rs` finds the GPU,
//! `kernels.rs` compiles the kernels and records dispatches, `model.rs` holds the buffers
//! and the recorded step, and `GpuTrainer` (`trainer.rs`) is the run.

pub mod device;
pub mod kernels;
pub mod model;
pub mod trainer;

pub use device::Gpu;
pub use model::{GpuModel, StepResult};
pub use trainer::GpuTrainer;
