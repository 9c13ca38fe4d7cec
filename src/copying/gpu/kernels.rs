//! The WGSL kernels (`wgsl/`), compiled once per device, and a recorder of dispatches: each
//! dispatch gets its parameters (a small uniform buffer) and bind group when a plan is
//! made, so a step only replays the list. Matrices are addressed by offset and strides
//! ([`Mat`]), so one product kernel serves every product of the model. What a device is
//! and how it is found are `device.rs`'s: the kernels take only its `wgpu::Device`.

use wgpu::util::DeviceExt;

/// Every kernel, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    Gemm,
    Copy,
    CopyWithin,
    Softmax,
    SoftmaxBack,
    BiasTanh,
    AddBias,
    TanhBack,
    ColSums,
    LstmForward,
    LstmBackward,
    Nll,
    Reduce,
    Check,
    Adam,
    FuseBias,
    BiasBack,
    DTable,
    Peak,
    ProbeLogits,
    LogOdds,
}

const ALL: [Kernel; 21] = [
    Kernel::Gemm,
    Kernel::Copy,
    Kernel::CopyWithin,
    Kernel::Softmax,
    Kernel::SoftmaxBack,
    Kernel::BiasTanh,
    Kernel::AddBias,
    Kernel::TanhBack,
    Kernel::ColSums,
    Kernel::LstmForward,
    Kernel::LstmBackward,
    Kernel::Nll,
    Kernel::Reduce,
    Kernel::Check,
    Kernel::Adam,
    Kernel::FuseBias,
    Kernel::BiasBack,
    Kernel::DTable,
    Kernel::Peak,
    Kernel::ProbeLogits,
    Kernel::LogOdds,
];

const COMMON: &str = include_str!("wgsl/common.wgsl");

impl Kernel {
    /// Its source file, the `#ifdef` section it uses and its entry point.
    fn source(self) -> (&'static str, Option<&'static str>, &'static str) {
        const ROWS: &str = include_str!("wgsl/rows.wgsl");
        const LSTM: &str = include_str!("wgsl/lstm.wgsl");
        const LOSS: &str = include_str!("wgsl/loss.wgsl");
        const OUTPUT: &str = include_str!("wgsl/output.wgsl");
        const PROBE: &str = include_str!("wgsl/probe.wgsl");
        match self {
            Kernel::Gemm => (include_str!("wgsl/gemm.wgsl"), None, "main"),
            Kernel::Copy | Kernel::CopyWithin => (include_str!("wgsl/copy.wgsl"), None, "main"),
            Kernel::Softmax => (ROWS, None, "softmax"),
            Kernel::SoftmaxBack => (ROWS, None, "softmax_back"),
            Kernel::BiasTanh => (ROWS, None, "bias_tanh"),
            Kernel::AddBias => (ROWS, None, "add_bias"),
            Kernel::TanhBack => (ROWS, None, "tanh_back"),
            Kernel::ColSums => (ROWS, None, "col_sums"),
            Kernel::LstmForward => (LSTM, Some("FORWARD"), "main"),
            Kernel::LstmBackward => (LSTM, Some("BACKWARD"), "main"),
            Kernel::Nll => (LOSS, Some("NLL"), "main"),
            Kernel::Reduce => (LOSS, Some("REDUCE"), "main"),
            Kernel::Check => (LOSS, Some("CHECK"), "main"),
            Kernel::Adam => (include_str!("wgsl/adam.wgsl"), None, "main"),
            Kernel::FuseBias => (OUTPUT, Some("FUSE"), "main"),
            Kernel::BiasBack => (OUTPUT, Some("BIAS_BACK"), "main"),
            Kernel::DTable => (OUTPUT, Some("DTABLE"), "main"),
            Kernel::Peak => (include_str!("wgsl/peak.wgsl"), None, "main"),
            Kernel::ProbeLogits => (PROBE, Some("LOGITS"), "main"),
            Kernel::LogOdds => (PROBE, Some("LOG_ODDS"), "main"),
        }
    }

    /// The WGSL it compiles: the shared functions, then its file with only its own
    /// `#ifdef` section kept.
    pub fn wgsl(self) -> String {
        let (file, section, _) = self.source();
        let mut out = String::from(COMMON);
        let mut keep = true;
        for line in file.lines() {
            if let Some(name) = line.strip_prefix("#ifdef ") {
                keep = section == Some(name.trim());
            } else if line.starts_with("#endif") {
                keep = true;
            } else if keep {
                out.push_str(line);
                out.push('\n');
            }
        }
        let (src, dst) = if self == Kernel::CopyWithin {
            ("dst", "1u")
        } else {
            ("src", "2u")
        };
        let out = out
            .replace("SRC[", &format!("{src}["))
            .replace("DST_BINDING", dst);
        if self == Kernel::CopyWithin {
            // The source is the destination itself: no separate binding.
            out.replace(
                "@group(0) @binding(1) var<storage, read> src: array<f32>;\n",
                "",
            )
            .replace(
                "@binding(2) var<storage, read_write> dst",
                "@binding(1) var<storage, read_write> dst",
            )
        } else {
            out
        }
    }
}

/// The compiled kernels of one device (compiled once, with the device: `Gpu::kernels`).
pub struct Kernels {
    pipelines: Vec<wgpu::ComputePipeline>, // by `ALL`'s order
}

impl Kernels {
    pub fn new(device: &wgpu::Device) -> Kernels {
        let pipelines = ALL
            .iter()
            .map(|&k| {
                let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&format!("{k:?}")),
                    source: wgpu::ShaderSource::Wgsl(k.wgsl().into()),
                });
                device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(&format!("{k:?}")),
                    layout: None,
                    module: &module,
                    entry_point: Some(k.source().2),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
            .collect();
        Kernels { pipelines }
    }

    fn pipeline(&self, k: Kernel) -> &wgpu::ComputePipeline {
        &self.pipelines[ALL
            .iter()
            .position(|&x| x == k)
            .expect("every kernel is listed")]
    }
}

/// A matrix (or a batch of them) inside a buffer, in elements: `(i, j)` of batch item `z`
/// is at `off + z·bs + i·rs + j·cs`.
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    pub buf: &'a wgpu::Buffer,
    pub off: usize,
    pub rs: usize,
    pub cs: usize,
    pub bs: usize,
}

impl<'a> Mat<'a> {
    /// Row-major with leading dimension `ld`, at `off`.
    pub fn rows(buf: &'a wgpu::Buffer, off: usize, ld: usize) -> Mat<'a> {
        Mat {
            buf,
            off,
            rs: ld,
            cs: 1,
            bs: 0,
        }
    }

    /// The transpose.
    pub fn t(self) -> Mat<'a> {
        Mat {
            rs: self.cs,
            cs: self.rs,
            ..self
        }
    }

    /// Batch item `z` `bs` elements after item `z − 1`.
    pub fn batch(self, bs: usize) -> Mat<'a> {
        Mat { bs, ..self }
    }
}

/// A 3-d strided view for the copy kernel: `(i0, i1, i2)` is at `off + Σ i_k strides_k`.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub buf: &'a wgpu::Buffer,
    pub off: i64,
    pub strides: [i64; 3],
}

/// One recorded dispatch.
struct Dispatch {
    pipeline: wgpu::ComputePipeline,
    bind: wgpu::BindGroup,
    groups: [u32; 3],
}

/// A list of dispatches to replay, in order, in one compute pass.
#[derive(Default)]
pub struct Recording {
    list: Vec<Dispatch>,
}

fn u(x: usize) -> u32 {
    u32::try_from(x).expect("an index fits the GPU's 32 bits")
}

fn i(x: i64) -> u32 {
    i32::try_from(x).expect("an index fits the GPU's 32 bits") as u32
}

/// Workgroups of 64 for `n` threads, in two dimensions where one would pass the limit.
pub fn grid(n: usize) -> [u32; 3] {
    let groups = n.div_ceil(64).max(1);
    let x = groups.min(65_535);
    [u(x), u(groups.div_ceil(x)), 1]
}

/// Records dispatches of one device's kernels for `seeds` seeds at once: every buffer bound
/// holds one equal part per seed, and each dispatch runs once per seed (along z).
pub struct Recorder<'a> {
    pub device: &'a wgpu::Device,
    pub kernels: &'a Kernels,
    pub seeds: usize,
}

impl Recorder<'_> {
    /// A dispatch of `kernel` with parameters `params` (16-byte rows) and `buffers` bound
    /// from binding 1 on, once per seed; the parameters end with each buffer's part per
    /// seed. Returns the uniform buffer (for kernels whose parameters change each step).
    pub fn push(
        &self,
        list: &mut Recording,
        kernel: Kernel,
        params: &[u32],
        buffers: &[&wgpu::Buffer],
        groups: [u32; 3],
    ) -> wgpu::Buffer {
        assert!(
            params.len().is_multiple_of(4),
            "{kernel:?}: parameters in rows of 4"
        );
        assert!(buffers.len() <= 8, "{kernel:?}: at most 8 buffers");
        let mut params = params.to_vec();
        let mut parts = [0u32; 8];
        for (part, b) in parts.iter_mut().zip(buffers) {
            let words = b.size() as usize / 4;
            assert!(
                words.is_multiple_of(self.seeds),
                "{kernel:?}: a buffer not in parts"
            );
            *part = u(words / self.seeds);
        }
        params.extend_from_slice(&parts);
        let groups = [groups[0], groups[1], groups[2] * u(self.seeds)];
        let uniform = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("params"),
                contents: &words(&params),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        }];
        for (k, b) in buffers.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: k as u32 + 1,
                resource: b.as_entire_binding(),
            });
        }
        let bind = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&format!("{kernel:?}")),
            layout: &self.kernels.pipeline(kernel).get_bind_group_layout(0),
            entries: &entries,
        });
        list.list.push(Dispatch {
            pipeline: self.kernels.pipeline(kernel).clone(),
            bind,
            groups,
        });
        uniform
    }

    /// `c = alpha · a b + beta · c`: `a` (m, k), `b` (k, n), `c` (m, n) with unit column
    /// stride, over `batch` items.
    #[allow(clippy::too_many_arguments)]
    pub fn gemm(
        &self,
        list: &mut Recording,
        (m, n, k, batch): (usize, usize, usize, usize),
        a: Mat,
        b: Mat,
        c: Mat,
        alpha: f32,
        beta: f32,
    ) {
        assert_eq!(c.cs, 1, "the product's output has unit column stride");
        let p = [
            u(m),
            u(n),
            u(k),
            u(batch),
            u(a.off),
            u(a.bs),
            u(a.rs),
            u(a.cs),
            u(b.off),
            u(b.bs),
            u(b.rs),
            u(b.cs),
            u(c.off),
            u(c.bs),
            u(c.rs),
            0,
            alpha.to_bits(),
            beta.to_bits(),
            0,
            0,
        ];
        let groups = [u(n.div_ceil(16)), u(m.div_ceil(16)), u(batch)];
        self.push(list, Kernel::Gemm, &p, &[a.buf, b.buf, c.buf], groups);
    }

    /// `dst = alpha · src + beta · dst` over the index space `n`; `src` in the same buffer
    /// as `dst` is allowed (the kernel then binds one buffer).
    pub fn copy(
        &self,
        list: &mut Recording,
        n: [usize; 3],
        src: View,
        dst: View,
        alpha: f32,
        beta: f32,
    ) {
        let p = copy_params(n, Some(src), dst, alpha, beta, 0.0);
        let (kernel, buffers): (Kernel, &[&wgpu::Buffer]) = if std::ptr::eq(src.buf, dst.buf) {
            (Kernel::CopyWithin, &[dst.buf])
        } else {
            (Kernel::Copy, &[src.buf, dst.buf])
        };
        self.push(list, kernel, &p, buffers, grid(n.iter().product()));
    }

    /// `dst = value` over the index space `n`.
    pub fn fill(&self, list: &mut Recording, n: [usize; 3], dst: View, value: f32) {
        let p = copy_params(n, None, dst, 1.0, 0.0, value);
        self.push(
            list,
            Kernel::CopyWithin,
            &p,
            &[dst.buf],
            grid(n.iter().product()),
        );
    }

    /// A row kernel of `rows.wgsl` (see its header for what each reads) over `rows` rows of
    /// `cols` values, `ld` apart: `x` and `v` are a buffer and an offset in it, `v2` a second
    /// offset in `v`'s buffer.
    #[allow(clippy::too_many_arguments)]
    pub fn rows(
        &self,
        list: &mut Recording,
        kernel: Kernel,
        (rows, cols, ld): (usize, usize, usize),
        x: (&wgpu::Buffer, usize),
        v: (&wgpu::Buffer, usize),
        v2: Option<usize>,
        beta: f32,
    ) {
        let p = [
            u(rows),
            u(cols),
            u(ld),
            u(x.1),
            u(v.1),
            u(v.1),
            u(v2.unwrap_or(0)),
            u32::from(v2.is_some()),
            beta.to_bits(),
            0,
            0,
            0,
        ];
        let threads = match kernel {
            Kernel::Softmax | Kernel::SoftmaxBack => rows,
            Kernel::ColSums => cols,
            _ => rows * cols,
        };
        // softmax reads only x: its layout has no binding for v
        let buffers: &[&wgpu::Buffer] = if kernel == Kernel::Softmax {
            &[x.0]
        } else {
            &[x.0, v.0]
        };
        self.push(list, kernel, &p, buffers, grid(threads));
    }
}

fn copy_params(
    n: [usize; 3],
    src: Option<View>,
    dst: View,
    alpha: f32,
    beta: f32,
    value: f32,
) -> [u32; 16] {
    let (si, ss) = src.map_or((0, [0; 3]), |s| (s.off, s.strides));
    [
        u(n[0]),
        u(n[1]),
        u(n[2]),
        u32::from(src.is_none()),
        i(si),
        i(ss[0]),
        i(ss[1]),
        i(ss[2]),
        i(dst.off),
        i(dst.strides[0]),
        i(dst.strides[1]),
        i(dst.strides[2]),
        alpha.to_bits(),
        beta.to_bits(),
        value.to_bits(),
        0,
    ]
}

/// The device's multiply-add rate in GFLOP/s (2 FLOP each), as a long run of independent
/// register multiply-adds in 256 × 4,096 threads reaches it: the peak a step is measured
/// against (the best of 5 timings).
#[cfg(not(target_arch = "wasm32"))]
pub fn peak_gflops(device: &wgpu::Device, queue: &wgpu::Queue, kernels: &Kernels) -> f64 {
    let (threads, iters) = (256 * 4096, 4096u32);
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("peak"),
        size: threads as u64 * 4,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let r = Recorder {
        device,
        kernels,
        seeds: 1,
    };
    let mut list = Recording::default();
    r.push(
        &mut list,
        Kernel::Peak,
        &[iters, 0, 0, 0],
        &[&out],
        [4096, 1, 1],
    );
    list.time(device, queue, 1);
    let best = (0..5)
        .map(|_| list.time(device, queue, 1))
        .fold(f64::INFINITY, f64::min);
    2.0 * 16.0 * iters as f64 * threads as f64 / best / 1e9
}

/// The bytes of `words`, little-endian as WGSL reads them.
pub fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Writes `words` into `out` (4 bytes each), little-endian as WGSL reads them.
pub fn put_words(out: &mut [u8], words: impl IntoIterator<Item = u32>) {
    for (o, w) in out.chunks_exact_mut(4).zip(words) {
        o.copy_from_slice(&w.to_le_bytes());
    }
}

/// The 32-bit words of `bytes` (little-endian, as WGSL wrote them).
pub fn le_words(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

impl Recording {
    /// Records the whole list into one compute pass of `encoder`.
    pub fn encode(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: None,
            timestamp_writes: None,
        });
        for d in &self.list {
            pass.set_pipeline(&d.pipeline);
            pass.set_bind_group(0, &d.bind, &[]);
            pass.dispatch_workgroups(d.groups[0], d.groups[1], d.groups[2]);
        }
    }

    /// Submits the list `times` times to `queue` and waits on `device` until the work is
    /// done: seconds taken.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn time(&self, device: &wgpu::Device, queue: &wgpu::Queue, times: usize) -> f64 {
        let start = std::time::Instant::now();
        for _ in 0..times {
            let mut enc = device.create_command_encoder(&Default::default());
            self.encode(&mut enc);
            queue.submit([enc.finish()]);
        }
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("the GPU device was lost");
        start.elapsed().as_secs_f64()
    }

    /// Dispatches recorded.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}
