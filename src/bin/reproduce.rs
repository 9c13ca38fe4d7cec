//! `reproduce`: the paper's copying experiment from the command line. Trains one run per
//! seed, writes a CSV row per evaluation and prints a summary table per seed. Progress goes
//! to stderr. `reproduce --shard i/n` trains the i-th of n shares of the seeds (one job of
//! an array on several machines); `reproduce merge` joins the shards' CSVs into the one
//! table of the whole run; `reproduce trace` writes every step of a run from a weights
//! file, for a comparison with PyTorch's. `reproduce --help` lists the options.

use attention_playground::copying::config::{AttentionMode, Config, TaskKind, PRESETS};
#[cfg(not(target_arch = "wasm32"))]
use attention_playground::copying::gpu::{Gpu, OnGpu};
use attention_playground::copying::metrics::{mean_agreement, shuffled_agreement};
use attention_playground::copying::train::{CopyingRun, Evaluation, OnCpu};
use attention_playground::optim::OptimizerKind;
use attention_playground::placement::{self, pick, RunMaker};
use attention_playground::rng::Rng;
use attention_playground::settings::Settings;
#[cfg(target_arch = "wasm32")]
use no_gpu::{Gpu, OnGpu};
use std::io::Write;
use std::time::Instant;

mod common;
#[path = "reproduce/merge.rs"]
mod merge;
#[path = "reproduce/summary.rs"]
mod summary;
#[path = "reproduce/trace.rs"]
mod trace;
use common::{num, parallel, parse_seeds, parse_shard};
use summary::{print_table, Point, Summary};

/// A wasm32 build of the tool (only ever type-checked) has no GPU backend.
#[cfg(target_arch = "wasm32")]
mod no_gpu {
    use attention_playground::copying::config::Config;
    use attention_playground::copying::train::CopyingRun;
    use attention_playground::placement::{self, Placement, RunMaker};
    use attention_playground::run::RunError;

    #[derive(Clone)]
    pub struct Gpu;

    impl Gpu {
        pub fn new() -> Result<Gpu, String> {
            Err("no GPU adapter in a wasm32 build".to_string())
        }
    }

    /// The GPU backend, which a wasm32 build does not have.
    pub struct OnGpu(pub Gpu);

    impl RunMaker<dyn CopyingRun> for OnGpu {
        fn placement(&self) -> Placement {
            Placement::on(placement::GPU)
        }

        fn describe(&self) -> String {
            String::new()
        }

        fn make(&self, _: Config) -> Result<Box<dyn CopyingRun>, RunError> {
            Err(RunError::Backend(
                "no GPU backend in a wasm32 build".to_string(),
            ))
        }
    }
}

const HELP: &str = "\
reproduce: train the copying experiment of Snell et al. (2021) on several seeds.

Options (defaults: the paper's easy task):
  --preset NAME        start from a preset: small-easy small-hard easy hard small-uniform
                       small-reverse small-translate (default: easy)
  --task KIND          copy | reverse | translate
  --iid                tokens i.i.d. instead of distinct
  --vocab V  --length L  --hidden H  --batch B  --heads K
  --lr X               learning rate
  --optimizer NAME     adam | sgd
  --attention MODE     learned | uniform
  --bidirectional      bidirectional encoder
  --seeds LIST         e.g. 0-4 or 0,3,7 (default 0-4)
  --steps N            training steps per seed (default 200)
  --eval-every N  --eval-batch N
  --csv FILE           write the CSV there instead of standard output
  --jobs N             seeds trained at once, one thread each (default 1)
  --backend NAME       cpu | gpu: where each step trains (default cpu); gpu takes the
                       machine's GPU through Vulkan, Metal or DX12, trains the seeds batched
                       (as many at once as it holds; --jobs does not apply), and trains
                       close to the CPU run, not bit for bit (docs/reproducing.md)
  --shard I/N          train only the I-th of N shares of the seeds (1 <= I <= N): the
                       seeds at positions I-1, I-1+N, I-1+2N, ... of the list
  --uf-agreement FILE  also train each seed with uniform attention (same seed, same
                       evaluation batch) and write to FILE, per evaluation, the top-5%
                       agreement of its KTIW beta^uf with the learned run's alpha, the same
                       with beta^uf shuffled (chance), and the learned run's own A(alpha, beta)

reproduce merge FILE... [--csv OUT]
  joins the CSVs of a run's shards into the CSV of the whole run (rows by seed, then
  step; a seed in two files is refused) and prints its summary table

reproduce trace WEIGHTS --preset NAME [--steps N] --out DIR
  trains NAME from the weights file's parameters and writes every step's batch, loss and
  parameters into DIR (for bench/torch_same_start.py; reproduce trace --help says more)
";

/// The CSV's header: one row per seed and evaluation, and the backend that trained it
/// (`cpu` or `gpu`).
const HEADER: &str = "seed,step,loss,token_acc,attention_acc,ktiw_acc,ktiw_score,agreement,backend";
/// The header of the CSVs written before they named the backend (all of the CPU's), which
/// `merge` still reads.
const HEADER_CPU_ONLY: &str =
    "seed,step,loss,token_acc,attention_acc,ktiw_acc,ktiw_score,agreement";

struct Args {
    config: Config,
    seeds: Vec<u64>,
    steps: u64,
    csv: Option<String>,
    jobs: usize,
    /// Where the agreement with the uniform twin goes, if asked for.
    uf_agreement: Option<String>,
    /// The backend's name (`placement::CPU` or `GPU`).
    backend: &'static str,
}

/// A backend of copying runs that the seeds' threads share.
type Maker = dyn RunMaker<dyn CopyingRun> + Sync;

/// The backends the runs may train on (`--backend` picks one by name): the CPU, and the
/// machine's GPU where it has one.
fn makers(gpu: Option<&Gpu>) -> Vec<Box<Maker>> {
    let mut out: Vec<Box<Maker>> = vec![Box::new(OnCpu)];
    if let Some(g) = gpu {
        out.push(Box::new(OnGpu(g.clone())));
    }
    out
}

/// The CSV of `--uf-agreement`: one row per seed and evaluation.
const UF_HEADER: &str = "seed,step,agreement_uf,agreement_uf_shuffled,agreement_own";

/// One evaluation of a learned run against its twin with uniform attention: the top-5%
/// agreement `A(α, β^uf)` over the evaluation batch, the same with `β^uf` shuffled, and
/// the learned run's own `A(α, β)`.
struct UfPoint {
    step: u64,
    uf: f32,
    shuffled: f32,
    own: f32,
}

impl UfPoint {
    /// `learned` and `uniform` just evaluated, on the same evaluation batch.
    fn of(learned: &dyn CopyingRun, uniform: &dyn CopyingRun, rng: &mut Rng) -> UfPoint {
        let b = learned.eval_batch();
        let (lt, ls) = (b.tgt_len, b.src_len);
        let (mut uf, mut shuffled) = (0.0, 0.0);
        for seq in 0..b.batch {
            let (alpha, beta) = (learned.attention(seq, None), uniform.ktiw(seq));
            uf += mean_agreement(alpha, beta, lt, ls);
            shuffled += shuffled_agreement(alpha, beta, lt, ls, rng);
        }
        UfPoint {
            step: learned.latest().step,
            uf: uf / b.batch as f32,
            shuffled: shuffled / b.batch as f32,
            own: learned.latest().agreement,
        }
    }
}

fn parse_args() -> Result<Args, String> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    // The preset comes first so that other flags override it, wherever they stand.
    let mut config = Config::preset("easy").expect("preset");
    if let Some(i) = argv.iter().position(|a| a == "--preset") {
        let name = argv.get(i + 1).ok_or("--preset needs a name")?;
        config = Config::preset(name).ok_or_else(|| {
            format!(
                "--preset: unknown preset {name:?}; known: {}",
                PRESETS.join(", ")
            )
        })?;
    }
    let mut args = Args {
        config,
        seeds: (0..5).collect(),
        steps: 200,
        csv: None,
        jobs: 1,
        uf_agreement: None,
        backend: placement::CPU,
    };
    let mut shard = None;
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        let mut value = || common::value(&mut it, flag);
        let c = &mut args.config;
        match flag.as_str() {
            "--help" | "-h" => {
                print!("{HELP}");
                std::process::exit(0);
            }
            "--preset" => {
                value()?;
            }
            "--task" => {
                c.task = match value()? {
                    "copy" => TaskKind::Copy,
                    "reverse" => TaskKind::Reverse,
                    "translate" => TaskKind::Translate,
                    v => return Err(format!("--task: unknown task {v:?}")),
                }
            }
            "--iid" => c.distinct = false,
            "--vocab" => c.vocab = num(value()?, flag)?,
            "--length" => c.length = num(value()?, flag)?,
            "--hidden" => c.hidden = num(value()?, flag)?,
            "--batch" => c.batch = num(value()?, flag)?,
            "--heads" => c.heads = num(value()?, flag)?,
            "--lr" => c.learning_rate = num(value()?, flag)?,
            "--optimizer" => {
                c.optimizer = match value()? {
                    "adam" => OptimizerKind::Adam,
                    "sgd" => OptimizerKind::Sgd,
                    v => return Err(format!("--optimizer: unknown optimizer {v:?}")),
                }
            }
            "--attention" => {
                c.attention = match value()? {
                    "learned" => AttentionMode::Learned,
                    "uniform" => AttentionMode::Uniform,
                    v => return Err(format!("--attention: unknown mode {v:?}")),
                }
            }
            "--bidirectional" => c.bidirectional = true,
            "--seeds" => args.seeds = parse_seeds(value()?)?,
            "--steps" => args.steps = num(value()?, flag)?,
            "--eval-every" => c.eval_every = num(value()?, flag)?,
            "--eval-batch" => c.eval_batch = num(value()?, flag)?,
            "--csv" => args.csv = Some(value()?.to_string()),
            "--jobs" => args.jobs = num::<usize>(value()?, flag)?.max(1),
            "--shard" => shard = Some(parse_shard(value()?)?),
            "--uf-agreement" => args.uf_agreement = Some(value()?.to_string()),
            "--backend" => {
                args.backend = match value()? {
                    placement::CPU => placement::CPU,
                    placement::GPU => placement::GPU,
                    other => return Err(format!("--backend: cpu or gpu, got {other:?}")),
                }
            }
            other => return Err(format!("unknown option {other:?} (see --help)")),
        }
    }
    if let Some((i, n)) = shard {
        args.seeds = args.seeds.iter().skip(i - 1).step_by(n).copied().collect();
    }
    args.config.validate().map_err(|e| e.to_string())?;
    Ok(args)
}

/// What one seed's run gives: its evaluations, its milliseconds per step, and the
/// agreement with its uniform twin at each evaluation (empty unless asked for).
type SeedRun = (Vec<Evaluation>, f64, Vec<UfPoint>);

fn run_seed(
    backend: &Maker,
    config: &Config,
    seed: u64,
    steps: u64,
    with_uniform: bool,
) -> Result<SeedRun, String> {
    let mut trainer = backend
        .make(Config {
            seed,
            ..config.clone()
        })
        .map_err(|e| e.to_string())?;
    // The twin: the same settings and seed with uniform attention, on the same batches.
    let mut twin = if with_uniform {
        let t = backend
            .make(Config {
                seed,
                attention: AttentionMode::Uniform,
                ..config.clone()
            })
            .map_err(|e| e.to_string())?;
        let (a, b) = (trainer.eval_batch(), t.eval_batch());
        if a.source != b.source || a.target_out != b.target_out {
            return Err(format!(
                "seed {seed}: the uniform twin evaluates another batch"
            ));
        }
        Some(t)
    } else {
        None
    };
    let mut rng = Rng::new(seed, 0x5417_ff1e);
    let mut agreement = Vec::new();
    if let Some(t) = &twin {
        agreement.push(UfPoint::of(trainer.as_ref(), t.as_ref(), &mut rng));
    }
    let start = Instant::now();
    for s in 0..steps {
        if let Err(e) = trainer.step() {
            eprintln!("seed {seed}: {e}");
            break;
        }
        if let Some(t) = &mut twin {
            if let Err(e) = t.step() {
                eprintln!("seed {seed}, uniform twin: {e}");
                twin = None;
            } else if trainer.latest().step == s + 1 {
                agreement.push(UfPoint::of(trainer.as_ref(), t.as_ref(), &mut rng));
            }
        }
        if (s + 1) % 50 == 0 {
            let e = trainer.latest();
            eprintln!(
                "seed {seed}: step {:>4}  loss {:.4}  token acc {:.3}  attn acc {:.3}  ktiw acc {:.3}",
                s + 1,
                trainer.last_loss(),
                e.token_accuracy,
                e.attention_accuracy,
                e.ktiw_accuracy
            );
        }
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / steps.max(1) as f64;
    Ok((
        trainer.history().iter().map(|(_, e)| e).collect(),
        ms,
        agreement,
    ))
}

/// `seeds` trained batched on `gpu`, in chunks that fit it: each seed's evaluations, and the
/// milliseconds per step of its chunk (every seed of a chunk steps at once).
#[cfg(not(target_arch = "wasm32"))]
fn sweep_seeds(
    gpu: &Gpu,
    config: &Config,
    seeds: &[u64],
    steps: u64,
) -> Result<Vec<(u64, SeedRun)>, String> {
    use attention_playground::copying::gpu::model::OUT_OF_MEMORY;
    use attention_playground::copying::gpu::GpuSweep;
    let mut chunk = GpuSweep::capacity(gpu, config);
    let mut out = Vec::new();
    let mut rest = seeds;
    while !rest.is_empty() {
        let part = &rest[..chunk.min(rest.len())];
        let mut sweep = match GpuSweep::new(gpu.clone(), config.clone(), part) {
            Ok(s) => s,
            // Too many seeds for the device's memory: half as many at once.
            Err(e) if e.to_string().starts_with(OUT_OF_MEMORY) && part.len() > 1 => {
                chunk = part.len() / 2;
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        rest = &rest[part.len()..];
        eprintln!("seeds {part:?} batched on the GPU");
        let start = Instant::now();
        for s in 0..steps {
            sweep.step().map_err(|e| e.to_string())?;
            if (s + 1) % 50 == 0 {
                eprintln!("seeds {part:?}: step {:>4}", s + 1);
            }
        }
        let ms = start.elapsed().as_secs_f64() * 1e3 / steps.max(1) as f64;
        for (i, &seed) in part.iter().enumerate() {
            if let Some(e) = sweep.stopped(i) {
                eprintln!("seed {seed}: {e}");
            }
            let history = sweep.history(i).iter().map(|(_, e)| e).collect();
            out.push((seed, (history, ms, Vec::new())));
        }
    }
    Ok(out)
}

#[cfg(target_arch = "wasm32")]
fn sweep_seeds(_: &Gpu, _: &Config, _: &[u64], _: u64) -> Result<Vec<(u64, SeedRun)>, String> {
    Err("no GPU backend in a wasm32 build".to_string())
}

/// The CSV's output: the file `path`, or standard output.
fn output(path: &Option<String>) -> Box<dyn Write> {
    match path {
        Some(path) => Box::new(std::fs::File::create(path).unwrap_or_else(|e| {
            eprintln!("reproduce: cannot write {path}: {e}");
            std::process::exit(2)
        })),
        None => Box::new(std::io::stdout()),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("trace") {
        if let Err(e) = trace::trace(&argv[1..]) {
            eprintln!("reproduce: {e}");
            std::process::exit(if e == trace::HELP { 0 } else { 2 });
        }
        return;
    }
    if argv.first().map(String::as_str) == Some("merge") {
        if let Err(e) = merge::merge(&argv[1..]) {
            eprintln!("reproduce: {e}");
            std::process::exit(2);
        }
        return;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("reproduce: {e}");
            std::process::exit(2);
        }
    };
    let c = &args.config;
    eprintln!(
        "task {:?} distinct={} V={} L={} H={} batch={} {:?} lr={} attention {:?} heads={} bi={} steps={} seeds={:?}",
        c.task, c.distinct, c.vocab, c.length, c.hidden, c.batch, c.optimizer, c.learning_rate,
        c.attention, c.heads, c.bidirectional, args.steps, args.seeds
    );
    let with_uniform = args.uf_agreement.is_some();
    let fail = |e: String| -> ! {
        eprintln!("reproduce: {e}");
        std::process::exit(2);
    };
    // The GPU is looked for only where it is asked for.
    let gpu = if args.backend == placement::GPU {
        Some(Gpu::new().unwrap_or_else(|e| fail(format!("--backend gpu: {e}"))))
    } else {
        None
    };
    let makers = makers(gpu.as_ref());
    let backend = pick(&makers, args.backend).unwrap_or_else(|e| fail(e));
    if gpu.is_some() {
        eprintln!("backend gpu: {}", backend.describe());
    }
    let mut results: Vec<(u64, SeedRun)> = match &gpu {
        // On a GPU the seeds train batched, as many at once as the device holds (with a
        // uniform twin, one at a time).
        Some(gpu) if !with_uniform => {
            sweep_seeds(gpu, &args.config, &args.seeds, args.steps).unwrap_or_else(|e| fail(e))
        }
        _ => parallel(args.seeds.len(), args.jobs, |i| {
            let seed = args.seeds[i];
            match run_seed(backend, &args.config, seed, args.steps, with_uniform) {
                Ok(r) => (seed, r),
                Err(e) => fail(e),
            }
        }),
    };
    results.sort_by_key(|(seed, _)| *seed);

    let mut out = output(&args.csv);
    writeln!(out, "{HEADER}").unwrap();
    let mut summaries = Vec::new();
    let name = backend.placement().backend;
    for (seed, (history, ms, _)) in &results {
        for e in history {
            writeln!(
                out,
                "{seed},{},{:.6},{:.4},{:.4},{:.4},{:.4},{:.4},{name}",
                e.step,
                e.loss,
                e.token_accuracy,
                e.attention_accuracy,
                e.ktiw_accuracy,
                e.ktiw_score,
                e.agreement
            )
            .unwrap();
        }
        let points: Vec<Point> = history.iter().map(Point::from).collect();
        summaries.push(Summary::of(*seed, &points, Some(*ms)));
    }
    out.flush().unwrap();
    drop(out);
    print_table(&summaries, args.csv.is_some());
    if let Some(path) = &args.uf_agreement {
        write_uf(path, &results);
    }
}

/// The `--uf-agreement` CSV, and a table of each seed's final agreements (to stderr).
fn write_uf(path: &str, results: &[(u64, SeedRun)]) {
    let mut out = output(&Some(path.to_string()));
    writeln!(out, "{UF_HEADER}").unwrap();
    let mut table = String::from(
        "| seed | step | A(α, β^uf) | β^uf shuffled | A(α, β) |\n|---:|---:|---:|---:|---:|\n",
    );
    for (seed, (_, _, points)) in results {
        for p in points {
            writeln!(
                out,
                "{seed},{},{:.4},{:.4},{:.4}",
                p.step, p.uf, p.shuffled, p.own
            )
            .unwrap();
        }
        if let Some(p) = points.last() {
            table.push_str(&format!(
                "| {seed} | {} | {:.3} | {:.3} | {:.3} |\n",
                p.step, p.uf, p.shuffled, p.own
            ));
        }
    }
    out.flush().unwrap();
    eprint!("\nagreement with the uniform twin at the last evaluation:\n{table}");
}
