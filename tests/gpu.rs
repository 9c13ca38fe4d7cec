//! The GPU backend against the CPU model, through `wgpu` on whatever adapter the machine has
//! (on a machine without a GPU, a software Vulkan driver: `scripts/setup.sh` installs
//! Mesa's lavapipe). Gradients of every tensor on small odd shapes, and whole training runs.
//! With no adapter at all a test says why and passes, unless REQUIRE_GPU_ADAPTER is set
//! (the README's test command sets it).
#![cfg(not(target_arch = "wasm32"))]

mod common;

use attention_playground::copying::config::Config;
use attention_playground::copying::gpu::device::block_on;
use attention_playground::copying::gpu::{max_seeds, Gpu, GpuModel, GpuSweep, GpuTrainer};
use attention_playground::copying::metrics::{Evaluation, KtiwProbe};
use attention_playground::copying::model::params::TENSOR_NAMES;
use attention_playground::copying::train::Trainer;
use attention_playground::optim::OptimizerKind;
use attention_playground::params::ParamLayout;
use attention_playground::run::{Metrics, Run, RunError};
use common::tiny;

/// The machine's GPU, or `None` (with the reason printed) where there is none.
fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => {
            eprintln!("GPU: {}", g.describe());
            Some(g)
        }
        Err(e) if std::env::var_os("REQUIRE_GPU_ADAPTER").is_none() => {
            eprintln!("skipped: {e}");
            None
        }
        Err(e) => panic!("REQUIRE_GPU_ADAPTER is set, but {e}"),
    }
}

/// Largest |a − b| over a tensor, relative to the tensor's largest |b| (at least 1e-3).
fn rel_diff(a: &[f32], b: &[f32]) -> f32 {
    let scale = b.iter().fold(1e-3f32, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// Every tensor's gradient and the loss of one batch, and the evaluation's maps (`α`, the
/// log-probabilities, the probe's `β`), GPU against CPU, for one and two encoder
/// directions, several heads and both attention modes, at odd sizes.
#[test]
fn gradients_and_maps_equal_the_cpu_models() {
    let Some(mut device) = gpu() else { return };
    for (bidirectional, heads, uniform) in [(false, 1, false), (true, 3, false), (true, 2, true)] {
        let mut t = tiny(bidirectional, heads, uniform, 5);
        let (loss, want) = t.gradient();
        let b = &t.batch;
        let dims = t.model.dims;
        let made = GpuModel::new(device, dims, b.batch, b.batch, b.src_len, uniform, 1);
        let mut m = block_on(made).unwrap();
        m.load(0, &t.params);
        // lr 0: the update leaves the parameters as they were
        let r = m
            .step(std::slice::from_ref(b), OptimizerKind::Adam, 0.0, 1)
            .unwrap()[0];
        assert!(!r.diverged);
        assert!(
            (r.loss - loss).abs() <= 1e-5 * loss,
            "loss {} vs {loss}",
            r.loss
        );
        let mut got = vec![0.0; want.len()];
        m.read_grads(0, &mut got).unwrap();
        let mut worst = Vec::new();
        t.model.layout.ranges.visit(|name, range| {
            let d = rel_diff(&got[range.clone()], &want[range.clone()]);
            worst.push((name, d));
        });
        assert_eq!(worst.len(), TENSOR_NAMES.len());
        for (name, d) in &worst {
            assert!(
                *d <= 1e-5,
                "bidirectional {bidirectional}, {heads} heads, uniform {uniform}: {name} off by {d} of its scale\n{worst:?}"
            );
        }
        // The evaluation of the same batch: α, log-probabilities and the probe's β.
        let p = t.model.layout.split(&t.params);
        let mut probe = KtiwProbe::new(&t.model, b.batch, b.src_len, b.tgt_len);
        let mut beta = vec![0.0; b.batch * b.tgt_len * b.src_len];
        probe.run(&t.model, &p, &t.ws, b, &mut beta);
        m.evaluate(std::slice::from_ref(b)).unwrap();
        let e = m.eval_maps(0);
        assert!(
            (e.loss - loss).abs() <= 1e-5 * loss,
            "evaluation loss {} vs {loss}",
            e.loss
        );
        for (name, got, want) in [
            ("alpha", e.alpha, &t.ws.alpha[..]),
            ("log-probabilities", e.logp, &t.ws.logp[..]),
            ("beta", e.beta, &beta[..]),
        ] {
            let d = rel_diff(got, want);
            assert!(d <= 1e-5, "{name} off by {d} of its scale");
        }
        device = m.gpu;
    }
}

/// A whole run, GPU against CPU from the same seed: 20 Adam steps of the reference run
/// (two heads, both directions) and of the small preset's shape, with an evaluation every 5.
/// The two sum in different orders, so they agree closely, not bit for bit: each step's
/// loss within 1e-4 of the CPU's (relative), every parameter within 1e-4 after 20 steps,
/// and every evaluation's metrics within 1e-3.
#[test]
fn twenty_steps_follow_the_cpu_run() {
    let Some(mut device) = gpu() else { return };
    let small = Config {
        eval_every: 5,
        eval_batch: 8,
        ..Config::default()
    };
    for config in [common::reference_config(), small] {
        let mut cpu = Trainer::new(config.clone()).unwrap();
        let mut gpu = GpuTrainer::on(device, config.clone()).unwrap();
        for step in 0..20 {
            let (a, b) = (cpu.step().unwrap(), gpu.step().unwrap());
            assert!(
                (a - b).abs() <= 1e-4 * a,
                "step {step}: loss {b} on the GPU, {a} on the CPU"
            );
        }
        let (a, b) = (cpu.weights().to_vec(), gpu.params().to_vec());
        let worst = a
            .iter()
            .zip(&b)
            .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
        assert!(
            worst <= 1e-4,
            "parameters after 20 steps differ by up to {worst}"
        );
        let (ha, hb) = (cpu.history(), gpu.history());
        assert_eq!(ha.len(), 5);
        for ((sa, ea), (sb, eb)) in ha.iter().zip(hb.iter()) {
            assert_eq!(sa, sb);
            for (i, name) in Evaluation::METRICS.iter().enumerate() {
                let (x, y) = (ea.metric(i), eb.metric(i));
                assert!(
                    (x - y).abs() <= 1e-3,
                    "step {sa}: {name} {y} on the GPU, {x} on the CPU"
                );
            }
        }
        eprintln!(
            "{}: parameters within {worst:.1e} after 20 steps",
            gpu.device()
        );
        device = gpu.into_gpu();
    }
}

/// A GPU run whose device is lost goes on on the CPU from its last evaluation
/// (`GpuTrainer::to_cpu`): at that step, with the GPU run's evaluations and losses up to it,
/// and trains on as the GPU run does (its losses within 1e-4, its weights within 1e-4 after
/// 10 more steps): the same batches, weights and Adam state.
#[test]
fn a_gpu_run_goes_on_on_the_cpu_from_its_last_evaluation() {
    let Some(device) = gpu() else { return };
    let config = Config {
        eval_every: 5,
        eval_batch: 8,
        ..Config::default()
    };
    let mut gpu = GpuTrainer::on(device.clone(), config.clone()).unwrap();
    for _ in 0..13 {
        gpu.step().unwrap();
    }
    assert_eq!(gpu.saved_step(), 10);
    let mut cpu = gpu.to_cpu().unwrap();
    assert_eq!(cpu.step_count(), 10);
    assert_eq!(cpu.losses().len(), 10);
    let steps = |h: &attention_playground::series::Series<Evaluation>| {
        h.iter().map(|(s, _)| s).collect::<Vec<_>>()
    };
    assert_eq!(steps(cpu.history()), [0, 5, 10]);
    let (ga, ca) = (gpu.history().iter().nth(2).unwrap().1, cpu.latest().loss);
    assert!(
        (ga.loss - ca).abs() <= 1e-4 * ga.loss,
        "step 10: {ca} on the CPU, {} on the GPU",
        ga.loss
    );
    // The GPU run's steps 11–13, again on the CPU, and on together to 20.
    let gpu_losses: Vec<f32> = gpu.losses().iter().map(|(_, l)| l).collect();
    for step in 11..=20 {
        let a = cpu.step().unwrap();
        let b = if step <= 13 {
            gpu_losses[step - 1]
        } else {
            gpu.step().unwrap()
        };
        assert!(
            (a - b).abs() <= 1e-4 * b,
            "step {step}: {a} on the CPU, {b} on the GPU"
        );
    }
    let worst = rel_diff(cpu.weights(), gpu.params());
    assert!(worst <= 1e-4, "weights after 20 steps differ by {worst}");
    // A device that is lost: the next step fails (kind `backend`), and the run goes on on
    // the CPU from the evaluation before.
    let mut lost = GpuTrainer::on(device, config).unwrap();
    for _ in 0..7 {
        lost.step().unwrap();
    }
    lost.lose_device();
    let err = lost.step().expect_err("a step on a lost device fails");
    assert_eq!(err.kind(), "backend", "{err}");
    let cpu = lost.to_cpu().unwrap();
    assert_eq!((cpu.step_count(), cpu.losses().len()), (5, 5));
}

/// Seeds batched along the dispatches train each as it would alone: a sweep of three seeds
/// gives, bit for bit, each seed's losses and evaluations of a `GpuTrainer` of that seed (the
/// same sums in the same order; only the part of each buffer differs), and follows the CPU
/// runs as a single GPU run does.
#[test]
fn seeds_batched_on_the_gpu_train_as_each_alone() {
    let Some(device) = gpu() else { return };
    let config = Config {
        eval_every: 5,
        ..common::reference_config()
    };
    let seeds = [3, 4, 9];
    let mut sweep = GpuSweep::new(device.clone(), config.clone(), &seeds).unwrap();
    for _ in 0..15 {
        sweep.step().unwrap();
    }
    for (i, &seed) in seeds.iter().enumerate() {
        let c = Config {
            seed,
            ..config.clone()
        };
        let mut alone = GpuTrainer::on(device.clone(), c.clone()).unwrap();
        let mut cpu = Trainer::new(c).unwrap();
        for _ in 0..15 {
            alone.step().unwrap();
            cpu.step().unwrap();
        }
        assert!(sweep.stopped(i).is_none());
        let bits = |s: &attention_playground::series::Series<f32>| -> Vec<(u64, u32)> {
            s.iter().map(|(k, x)| (k, x.to_bits())).collect()
        };
        assert_eq!(
            bits(sweep.losses(i)),
            bits(alone.losses()),
            "seed {seed}: losses"
        );
        let evals =
            |s: &attention_playground::series::Series<Evaluation>| -> Vec<(u64, Evaluation)> {
                s.iter().collect()
            };
        assert_eq!(
            evals(sweep.history(i)),
            evals(alone.history()),
            "seed {seed}"
        );
        assert_eq!(sweep.history(i).len(), 4);
        for ((_, a), (_, b)) in cpu.losses().iter().zip(sweep.losses(i).iter()) {
            assert!(
                (a - b).abs() <= 1e-4 * a,
                "seed {seed}: loss {b} on the GPU, {a} on the CPU"
            );
        }
    }
}

/// A divergence leaves the parameters as they were; the next step tries again (as on the
/// CPU), and from loaded weights the run trains again.
#[test]
fn a_diverged_gpu_step_leaves_the_weights_as_they_were() {
    let Some(device) = gpu() else { return };
    let config = common::reference_config();
    let mut t = GpuTrainer::on(device, config).unwrap();
    let sane = t.params().to_vec();
    let huge: Vec<f32> = sane.iter().map(|x| x * 1e4).collect();
    t.load_params(&huge, 0).unwrap();
    for _ in 0..3 {
        assert!(matches!(t.step(), Err(RunError::Diverged { step: 0, .. })));
    }
    assert_eq!(t.params(), &huge[..], "a diverged step updated the weights");
    t.load_params(&sane, 0).unwrap();
    assert!(t.step().is_ok());
    assert_eq!(t.step_count(), 1);
}

/// However many seeds the limits allow, a dispatch stays within 65,535 workgroups; more
/// seeds than that are refused with a message, not a panic.
#[test]
fn seeds_at_once_stay_within_a_dispatchs_workgroups() {
    let Some(device) = gpu() else { return };
    let t = tiny(false, 1, false, 1);
    let n = max_seeds(&device, t.model.dims, 1024, 50, t.batch.src_len);
    assert!((1..=63).contains(&n), "{n} seeds of batches of 1024");
    let made = GpuModel::new(device, t.model.dims, 1024, 50, t.batch.src_len, false, 64);
    let e = block_on(made).err().expect("64 × 1024 workgroups refused");
    assert!(e.contains("65535 workgroups"), "{e}");
}
