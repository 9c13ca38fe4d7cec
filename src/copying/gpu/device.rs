//! The GPU a run trains on: the adapter `wgpu` finds (Vulkan, Metal or DX12 natively), its
//! device and queue, and what the run says of it (its name, whether it is a software
//! fallback). Natively the adapter's futures are ready at once; `block_on` polls them.

use std::future::Future;
use std::task::{Context, Poll, Waker};

/// A device to train on (a clone shares it: runs of one process train on one device).
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
}

impl Gpu {
    /// The first adapter of the platform's native APIs, preferring a discrete GPU; an error
    /// that says why where there is none (no driver, or a device refused).
    pub fn new() -> Result<Gpu, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = wgpu::Backends::PRIMARY;
        let instance = wgpu::Instance::new(desc);
        let adapter = block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            ..Default::default()
        }))
        .map_err(|e| format!("no GPU adapter: {e}"))?;
        let have = adapter.limits();
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: have.max_storage_buffer_binding_size,
            max_buffer_size: have.max_buffer_size,
            ..wgpu::Limits::default()
        };
        let (device, queue) = block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("attention playground"),
            required_features: wgpu::Features::empty(),
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| format!("the GPU refused a device: {e}"))?;
        Ok(Gpu {
            device,
            queue,
            info: adapter.get_info(),
            limits,
        })
    }

    /// The adapter's name and API, as a run reports it ("llvmpipe (Vulkan, software)").
    pub fn describe(&self) -> String {
        let soft = if self.is_software() { ", software" } else { "" };
        format!("{} ({:?}{soft})", self.info.name, self.info.backend)
    }

    /// A CPU implementation of the API (llvmpipe, SwiftShader): right, but no faster than
    /// the CPU backend.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Waits until the queue's work is done.
    pub fn wait(&self) {
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the GPU device was lost");
    }
}

/// Drives a future that needs no other task to make progress (wgpu's native requests).
fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
