//! The `reproduce` tool: a run's seeds split into shards (`--shard i/n`) and joined again
//! (`reproduce merge`) give the same CSV, byte for byte, as the run in one go; a bad shard
//! or a seed in two shards is refused; `--uf-agreement` writes, per evaluation, the
//! agreement of the uniform twin's β with the learned run's α, its chance level and the
//! run's own; `--backend gpu` writes the same CSV as the CPU.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;
use std::process::Command;

/// A tiny run: four seeds of a small model, a few steps, evaluated every 5.
const RUN: &[&str] = &[
    "--preset",
    "small-hard",
    "--hidden",
    "8",
    "--length",
    "6",
    "--vocab",
    "6",
    "--batch",
    "4",
    "--eval-batch",
    "4",
    "--eval-every",
    "5",
    "--steps",
    "10",
    "--seeds",
    "0-4",
];

/// A folder of the test `name`'s own (the tests run at once).
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ap-reproduce-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `reproduce` with `args`; returns its exit code and stderr.
fn reproduce(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_reproduce"))
        .args(args)
        .output()
        .expect("reproduce runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn shards_merged_equal_the_run_in_one_go() {
    let d = dir("shards");
    let path = |name: &str| d.join(name).to_str().unwrap().to_string();
    let whole = path("whole.csv");
    let (code, err) = reproduce(&[RUN, &["--csv", &whole]].concat());
    assert_eq!(code, 0, "{err}");
    // Three shards of five seeds: 0 and 3, 1 and 4, 2.
    let mut shards = Vec::new();
    for i in 1..=3 {
        let file = path(&format!("shard-{i}.csv"));
        let shard = format!("{i}/3");
        let (code, err) =
            reproduce(&[RUN, &["--shard", &shard, "--jobs", "2", "--csv", &file]].concat());
        assert_eq!(code, 0, "{err}");
        shards.push(file);
    }
    let seeds = |file: &str| -> Vec<u64> {
        let text = std::fs::read_to_string(file).unwrap();
        let mut s: Vec<u64> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').next().unwrap().parse().unwrap())
            .collect();
        s.dedup();
        s
    };
    assert_eq!(seeds(&shards[0]), [0, 3]);
    assert_eq!(seeds(&shards[1]), [1, 4]);
    assert_eq!(seeds(&shards[2]), [2]);
    // Merged in any order of files.
    let merged = path("merged.csv");
    let order = [shards[2].as_str(), &shards[0], &shards[1]];
    let (code, err) = reproduce(&[&["merge"][..], &order, &["--csv", &merged]].concat());
    assert_eq!(code, 0, "{err}");
    let a = std::fs::read_to_string(&whole).unwrap();
    let b = std::fs::read_to_string(&merged).unwrap();
    assert!(
        a.lines().count() == 5 * 3 + 1,
        "five seeds, three evaluations each:\n{a}"
    );
    assert_eq!(a, b, "the merged CSV is the run's");
    assert!(
        err.contains("reached token acc 0.99:") && err.contains("/5 seeds"),
        "{err}"
    );
    // A seed in two shards is refused, as is a file that is not such a CSV.
    let (code, err) = reproduce(&["merge", &shards[0], &whole]);
    assert_eq!(code, 2);
    assert!(err.contains("seed 0 is in both"), "{err}");
    std::fs::write(path("other.csv"), "a,b\n1,2\n").unwrap();
    let (code, err) = reproduce(&["merge", &path("other.csv")]);
    assert_eq!(code, 2);
    assert!(err.contains("not a CSV of reproduce"), "{err}");
    // A shard written before the CSV named its backend (all of them the CPU's) merges as
    // the CPU's; a row with another backend is refused.
    let old: String = std::fs::read_to_string(&shards[2])
        .unwrap()
        .lines()
        .map(|l| format!("{}\n", l.rsplit_once(',').unwrap().0))
        .collect();
    assert!(
        old.starts_with("seed,step,loss,token_acc,attention_acc,ktiw_acc,ktiw_score,agreement\n")
    );
    std::fs::write(path("old.csv"), old).unwrap();
    let remerged = path("remerged.csv");
    let order = [path("old.csv"), shards[0].clone(), shards[1].clone()];
    let (code, err) = reproduce(
        &[
            &["merge"][..],
            &[&order[0], &order[1], &order[2]],
            &["--csv", &remerged],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        a,
        std::fs::read_to_string(&remerged).unwrap(),
        "the old shard read as the CPU's"
    );
    let tpu = std::fs::read_to_string(&shards[2])
        .unwrap()
        .replace(",cpu\n", ",tpu\n");
    std::fs::write(path("tpu.csv"), tpu).unwrap();
    let (code, err) = reproduce(&["merge", &path("tpu.csv")]);
    assert_eq!(code, 2);
    assert!(err.contains("the backend (cpu or gpu)"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_bad_shard_is_refused() {
    for bad in ["0/3", "4/3", "1", "a/b", "1/0"] {
        let (code, err) = reproduce(&[RUN, &["--shard", bad]].concat());
        assert_eq!(code, 2, "--shard {bad}");
        assert!(err.contains("--shard"), "{err}");
    }
}

#[test]
fn uf_agreement_writes_one_row_per_evaluation_beside_the_run() {
    let d = dir("uf");
    let (run, uf) = (d.join("run.csv"), d.join("uf.csv"));
    let (run, uf) = (run.to_str().unwrap(), uf.to_str().unwrap());
    let (code, err) =
        reproduce(&[RUN, &["--seeds", "0-1", "--csv", run, "--uf-agreement", uf]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("agreement with the uniform twin"), "{err}");
    let text = std::fs::read_to_string(uf).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("seed,step,agreement_uf,agreement_uf_shuffled,agreement_own")
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    // The run's own CSV: the same seeds and steps, and its agreement column is A(α, β).
    let own: Vec<Vec<f64>> = std::fs::read_to_string(run)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.strip_suffix(",cpu").expect("the CPU's row"))
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), own.len());
    assert_eq!(rows.len(), 2 * 3, "two seeds, three evaluations each");
    for (r, o) in rows.iter().zip(&own) {
        assert_eq!((r[0], r[1]), (o[0], o[1]), "seed and step");
        assert_eq!(r[4], o[7], "A(α, β) of the learned run");
        for x in &r[2..] {
            assert!((0.0..=1.0).contains(x), "{r:?}");
        }
    }
    // The same seed gives the same figures.
    let again = d.join("again.csv");
    let (code, _) = reproduce(
        &[
            RUN,
            &[
                "--seeds",
                "0-1",
                "--csv",
                run,
                "--uf-agreement",
                again.to_str().unwrap(),
            ],
        ]
        .concat(),
    );
    assert_eq!(code, 0);
    assert_eq!(std::fs::read_to_string(again).unwrap(), text);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn lottery_labels_heads_and_trains_each_kind_of_combined_model() {
    // Thresholds that label every head both good and bad, so that every kind can be drawn.
    let out = Command::new(env!("CARGO_BIN_EXE_lottery"))
        .args([
            "--singles",
            "3",
            "--trials",
            "2",
            "--steps",
            "5",
            "--combined-steps",
            "3",
            "--heads",
            "2",
            "--good",
            "0",
            "--bad",
            "1.1",
        ])
        .output()
        .expect("lottery runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("3 good and 3 bad of 3 heads"), "{text}");
    for kind in [
        "| 2 bad heads | 2 / 2 |",
        "| 1 bad heads + 1 good | 2 / 2 |",
        "| 2 random heads | 2 / 2 |",
    ] {
        assert!(text.contains(kind), "{kind} in:\n{text}");
    }
    // Too few bad heads for a combined model is said, not guessed around.
    let out = Command::new(env!("CARGO_BIN_EXE_lottery"))
        .args([
            "--singles",
            "2",
            "--trials",
            "1",
            "--steps",
            "5",
            "--combined-steps",
            "3",
            "--heads",
            "4",
            "--good",
            "0",
            "--bad",
            "1.1",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("need at least 4 bad heads"));
}

/// `--backend gpu` writes the CPU's CSV: the same header, seeds and steps, and values that
/// agree to the CSV's precision but for rounding at its last digit; each row names its
/// backend. Where the machine has
/// no GPU adapter the tool says so and exits 2 (REQUIRE_GPU_ADAPTER makes that a failure).
#[test]
fn the_gpu_backend_writes_the_cpus_csv() {
    let d = dir("gpu");
    let path = |name: &str| d.join(name).to_str().unwrap().to_string();
    let (cpu, gpu) = (path("cpu.csv"), path("gpu.csv"));
    let (code, err) = reproduce(&[RUN, &["--seeds", "0-1", "--csv", &cpu]].concat());
    assert_eq!(code, 0, "{err}");
    let (code, err) =
        reproduce(&[RUN, &["--seeds", "0-1", "--backend", "gpu", "--csv", &gpu]].concat());
    if code == 2 && err.contains("no GPU adapter") {
        assert!(std::env::var_os("REQUIRE_GPU_ADAPTER").is_none(), "{err}");
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("backend gpu: "), "{err}");
    let (a, b) = (
        std::fs::read_to_string(&cpu).unwrap(),
        std::fs::read_to_string(&gpu).unwrap(),
    );
    assert_eq!(a.lines().count(), 2 * 3 + 1, "{a}");
    assert_eq!(a.lines().count(), b.lines().count(), "{a}\n{b}");
    assert_eq!(a.lines().next(), b.lines().next(), "the header");
    for (x, y) in a.lines().zip(b.lines()).skip(1) {
        let (fx, fy): (Vec<&str>, Vec<&str>) = (x.split(',').collect(), y.split(',').collect());
        assert_eq!(fx.len(), fy.len(), "{x}\n{y}");
        assert_eq!(fx[..2], fy[..2], "seed and step");
        assert_eq!((fx[8], fy[8]), ("cpu", "gpu"), "the backend named");
        for (u, v) in fx[..8].iter().zip(&fy[..8]).skip(2) {
            let (u, v): (f64, f64) = (u.parse().unwrap(), v.parse().unwrap());
            assert!((u - v).abs() <= 2e-4, "{x}\n{y}");
        }
    }
    std::fs::remove_dir_all(&d).unwrap();
}

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
    const DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                DIGITS[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// `reproduce trace` trains a preset from a weights file's parameters: it starts from them,
/// and each step's loss, parameters and batch are those of the run itself from them; a file
/// of another preset, not a weights file, or with a wrong count is refused.
#[test]
fn trace_writes_every_step_of_a_run_from_a_weights_file() {
    use attention_playground::copying::config::Config;
    use attention_playground::copying::train::Trainer;
    use attention_playground::run::Run;
    let d = dir("trace");
    let config = Config::preset("small-hard").unwrap();
    // A start that is not the preset's own: seed 5's initialisation.
    let start = Trainer::new(Config {
        seed: 5,
        ..config.clone()
    })
    .unwrap()
    .weights()
    .to_vec();
    let bytes: Vec<u8> = start.iter().flat_map(|x| x.to_le_bytes()).collect();
    let file = |preset: &str, format: &str, count: usize| {
        format!(
            r#"{{"format": "{format}", "version": 2, "lab": "copying", "preset": "{preset}", "config": {{"task": "copy", "distinct": true, "vocab": 20, "learning_rate": 0.001, "seed": 0}}, "step": 0, "count": {count}, "params": "{}"}}"#,
            base64(&bytes)
        )
    };
    let weights = d.join("weights.json");
    std::fs::write(
        &weights,
        file("small-hard", "attention-playground-weights", start.len()),
    )
    .unwrap();
    let out = d.join("trace");
    let (w, o) = (weights.to_str().unwrap(), out.to_str().unwrap());
    let (code, err) = reproduce(&[
        "trace",
        w,
        "--preset",
        "small-hard",
        "--steps",
        "3",
        "--out",
        o,
    ]);
    assert_eq!(code, 0, "{err}");
    let f32s = |name: &str| -> Vec<f32> {
        let b = std::fs::read(out.join(name)).unwrap();
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    assert_eq!(f32s("params-0.f32"), start);
    let losses = std::fs::read_to_string(out.join("losses.txt")).unwrap();
    let losses: Vec<f32> = losses.lines().map(|l| l.parse().unwrap()).collect();
    let batches = std::fs::read(out.join("batches.u32")).unwrap();
    let mut t = Trainer::new(config).unwrap();
    t.load_params(&start, 0).unwrap();
    let mut at = 0;
    for k in 1..=3 {
        assert_eq!(t.step().unwrap(), losses[k - 1], "the loss of step {k}");
        assert_eq!(f32s(&format!("params-{k}.f32")), t.weights(), "step {k}");
        let b = t.train_batch();
        for part in [&b.source, &b.target_in, &b.target_out] {
            let want: Vec<u8> = part.iter().flat_map(|x| x.to_le_bytes()).collect();
            assert_eq!(
                batches[at..at + want.len()],
                want[..],
                "the batch of step {k}"
            );
            at += want.len();
        }
    }
    assert_eq!(at, batches.len());
    let trace = std::fs::read_to_string(out.join("trace.txt")).unwrap();
    assert!(
        trace.contains("batch 32\nsrc_len 21\ntgt_len 21\nn_tok 22\nhidden 64\n"),
        "{trace}"
    );
    for (text, said) in [
        (
            file("small-easy", "attention-playground-weights", start.len()),
            "weights of preset small-easy, not small-hard",
        ),
        (
            file("small-hard", "attention-playground-run", start.len()),
            "not a weights file",
        ),
        (
            file("small-hard", "attention-playground-weights", 7),
            "count 7 but",
        ),
    ] {
        std::fs::write(&weights, text).unwrap();
        let (code, err) = reproduce(&["trace", w, "--preset", "small-hard", "--out", o]);
        assert_eq!(code, 2);
        assert!(err.contains(said), "{err}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
