//! The GPU a run trains on: the adapter `wgpu` finds (Vulkan, Metal or DX12 natively, the
//! browser's WebGPU in wasm), its device and queue, and what the run says of it (its name,
//! whether it is a software fallback); and the wait for a buffer mapped for reading, which
//! natively waits on the device and in a browser resolves from the event loop. Natively
//! `block_on` drives these futures to the end. It compiles the kernels (`kernels.rs`) once
//! per device; the kernels know only the `wgpu::Device`, never a `Gpu`.

use super::kernels::{Kernels, Recorder};
use std::sync::{Arc, Mutex};
use std::task::{Poll, Waker};

/// A device to train on (a clone shares it: runs of one process train on one device).
#[derive(Clone)]
pub struct Gpu {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// The kernels, compiled once for every model on this device.
    pub kernels: Arc<Kernels>,
}

impl Gpu {
    /// The first adapter of the platform's native APIs (in a browser, its WebGPU),
    /// preferring a discrete GPU; an error that says why where there is none (no driver, no
    /// WebGPU, or a device refused).
    pub async fn request() -> Result<Gpu, String> {
        let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = if cfg!(target_arch = "wasm32") {
            wgpu::Backends::BROWSER_WEBGPU
        } else {
            wgpu::Backends::PRIMARY
        };
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                ..Default::default()
            })
            .await
            .map_err(|e| format!("no GPU adapter: {e}"))?;
        let have = adapter.limits();
        // At most 2³¹ − 1 bytes a buffer: some backends check bindings only to 4 GiB (Metal
        // would read zeros beyond), and the kernels index in 32 bits.
        let limits = wgpu::Limits {
            max_storage_buffer_binding_size: have
                .max_storage_buffer_binding_size
                .min(i32::MAX as _),
            max_buffer_size: have.max_buffer_size.min(i32::MAX as _),
            ..wgpu::Limits::default()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("attention playground"),
                required_features: wgpu::Features::empty(),
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| format!("the GPU refused a device: {e}"))?;
        Ok(Gpu {
            kernels: Arc::new(Kernels::new(&device)),
            device,
            queue,
            info: adapter.get_info(),
            limits,
        })
    }

    /// [`Gpu::request`], waited for.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn new() -> Result<Gpu, String> {
        block_on(Gpu::request())
    }

    /// Maps the first `bytes` of `buf` for reading once the work submitted before is done;
    /// an error where the device is lost or the mapping fails.
    pub async fn map_read(&self, buf: &wgpu::Buffer, bytes: u64) -> Result<(), String> {
        #[derive(Default)]
        struct State {
            result: Option<Result<(), String>>,
            waker: Option<Waker>,
        }
        let state = Arc::new(Mutex::new(State::default()));
        let callback = state.clone();
        buf.slice(..bytes).map_async(wgpu::MapMode::Read, move |r| {
            let mut s = callback.lock().expect("the mapping's state");
            s.result = Some(r.map_err(|e| format!("reading from the GPU failed: {e}")));
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        });
        std::future::poll_fn(|cx| {
            #[cfg(not(target_arch = "wasm32"))]
            if let Err(e) = self.device.poll(wgpu::PollType::wait_indefinitely()) {
                return Poll::Ready(Err(format!("the GPU device was lost: {e}")));
            }
            let mut s = state.lock().expect("the mapping's state");
            match s.result.take() {
                Some(r) => Poll::Ready(r),
                None => {
                    s.waker = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        })
        .await
    }

    /// A recorder of this device's kernels for `seeds` seeds at once.
    pub fn recorder(&self, seeds: usize) -> Recorder<'_> {
        Recorder {
            device: &self.device,
            kernels: &self.kernels,
            seeds,
        }
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

    /// Waits until the queue's work is done (natively; a browser's queue is not waited
    /// for).
    pub fn wait(&self) {
        #[cfg(not(target_arch = "wasm32"))]
        self.device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the GPU device was lost");
    }
}

/// Drives a future that needs no other task to make progress (wgpu's native requests and
/// mappings, which complete while the device is polled).
#[cfg(not(target_arch = "wasm32"))]
pub fn block_on<F: std::future::Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}
