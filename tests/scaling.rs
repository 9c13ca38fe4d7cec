//! The `scaling` tool: a run's lengths split into shards (`--shard i/n`) and joined again
//! (`scaling merge`) give the run's table of `m*` against `T`, its laws and their held-out
//! predictions; a length in two shards, a file that is not such a CSV and rows of another
//! function are refused.
#![cfg(not(target_arch = "wasm32"))]

use std::process::Command;

/// A quick search: AND-3 at three lengths, two seeds, short runs.
const RUN: &[&str] = &[
    "--preset",
    "and-3",
    "--lengths",
    "8,12,16",
    "--seeds",
    "0-1",
    "--steps",
    "150",
    "--ratio",
    "1.5",
    "--fit-upto",
    "12",
];

/// Runs `scaling` with `args`; returns its exit code, stdout and stderr.
fn scaling(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scaling"))
        .args(args)
        .output()
        .expect("scaling runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// Stdout from the table on (its title differs between a run and a merge).
fn from_table(out: &str) -> String {
    out.lines()
        .skip_while(|l| !l.trim_start().starts_with("T "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn shards_merged_give_the_runs_table_and_laws() {
    let d = std::env::temp_dir().join(format!("ap-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let path = |name: &str| d.join(name).to_str().unwrap().to_string();
    let whole = path("whole.csv");
    let (code, out, err) = scaling(&[RUN, &["--csv", &whole]].concat());
    assert_eq!(code, 0, "{err}");
    let table = from_table(&out);
    assert!(
        table.contains("R^2") && table.contains("best predicted:"),
        "{out}"
    );
    assert!(table.contains("Fitted to T <= 12"), "{out}");
    for said in [
        "seeds reaching 0.95",
        "m(75%)",
        "m50 [90% bootstrap]",
        "Bootstrap: not run with fewer than 5 seeds",
        "In words: ",
    ] {
        assert!(table.contains(said), "{said}: {out}");
    }
    // Two shards: lengths 8 and 16, and 12.
    let shards = [path("a.csv"), path("b.csv")];
    for (i, file) in shards.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        let (code, _, err) = scaling(&[RUN, &["--shard", &shard, "--csv", file]].concat());
        assert_eq!(code, 0, "{err}");
    }
    let lengths = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(file).unwrap();
        let mut t: Vec<String> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(2).unwrap().to_string())
            .collect();
        t.dedup();
        t
    };
    assert_eq!(lengths(&shards[0]), ["8", "16"]);
    assert_eq!(lengths(&shards[1]), ["12"]);
    let (code, merged, err) = scaling(&["merge", &shards[1], &shards[0], "--fit-upto", "12"]);
    assert_eq!(code, 0, "{err}");
    assert!(merged.contains("2 seeds, merged from 2 files"), "{merged}");
    assert_eq!(
        from_table(&merged),
        table,
        "the merged table and laws are the run's"
    );
    // Refused: a length in two files, a file of another kind, rows of another function.
    let (code, _, err) = scaling(&["merge", &shards[0], &whole]);
    assert_eq!(code, 2);
    assert!(err.contains("length 8 is in both"), "{err}");
    std::fs::write(path("other.csv"), "a,b\n1,2\n").unwrap();
    let (code, _, err) = scaling(&["merge", &path("other.csv")]);
    assert_eq!(code, 2);
    assert!(err.contains("not a CSV of scaling"), "{err}");
    let or = std::fs::read_to_string(&shards[1])
        .unwrap()
        .replace("\nand,", "\nor,");
    std::fs::write(path("or.csv"), or).unwrap();
    let (code, _, err) = scaling(&["merge", &shards[0], &path("or.csv")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("another function, sparsity or protocol"),
        "{err}"
    );
    // The 13-column CSVs written before the decay's scope read as decay of the matrices,
    // and the 11-column ones before the protocol's columns as learned positions without
    // weight decay; rows of another protocol are refused beside them.
    let text = std::fs::read_to_string(&shards[1]).unwrap();
    let strip = |line: &str, n: usize| line.rsplitn(n + 1, ',').nth(n).unwrap().to_string();
    for n in [1, 3] {
        let old: Vec<String> = text.lines().map(|l| strip(l, n)).collect();
        assert!(
            old[1].ends_with(if n == 1 { ",learned,0" } else { ",0" }) || old[1].ends_with(",1"),
            "{}",
            old[1]
        );
        std::fs::write(path("old.csv"), old.join("\n") + "\n").unwrap();
        let (code, again, err) =
            scaling(&["merge", &shards[0], &path("old.csv"), "--fit-upto", "12"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(from_table(&again), table, "the older form reads the same");
    }
    for (protocol, words) in [
        (
            ",sinusoidal,0.5,matrices\n",
            "sinusoidal position codes, weight decay 0.5 beside",
        ),
        (
            ",learned,0.5,all\n",
            "weight decay 0.5 on everything but the biases beside",
        ),
    ] {
        let other = text.replace(",learned,0,matrices\n", protocol);
        assert_ne!(other, text);
        std::fs::write(path("other.csv"), other).unwrap();
        let (code, _, err) = scaling(&["merge", &shards[0], &path("other.csv")]);
        assert_eq!(code, 2);
        assert!(err.contains(&format!("and of 3 bits, {words}")), "{err}");
    }
    // Without decay its scope does not matter.
    std::fs::write(
        path("all0.csv"),
        text.replace(",learned,0,matrices\n", ",learned,0,all\n"),
    )
    .unwrap();
    let (code, _, err) = scaling(&["merge", &shards[0], &path("all0.csv")]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = scaling(&[RUN, &["--shard", "3/2"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("--shard"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The committed result files, read again: each of AND-3's and majority-3's tables to
/// T = 1,024 gives the verdict its docs state, with the success counts it was read from.
#[test]
fn the_result_files_give_the_verdicts_the_docs_state() {
    let file = |name: &str| format!("{}/results/{name}", env!("CARGO_MANIFEST_DIR"));
    let (code, and, err) = scaling(&["merge", &file("sparse-scaling-and3-1024.csv")]);
    assert_eq!(code, 0, "{err}");
    assert!(and.contains("In words: fitted to T <= 256, log T predicted the longer lengths best (RMS relative error 0.27, power of T 0.33"), "{and}");
    assert!(and.contains("  1024      215"), "{and}");
    assert!(
        and.contains("128:2/20 181:8/20 215:11/20 256:13/20"),
        "{and}"
    );
    let (code, majority, err) = scaling(&["merge", &file("sparse-scaling-majority3-1024.csv")]);
    assert_eq!(code, 0, "{err}");
    assert!(
        majority
            .contains("In words: fitted to T <= 256, power of T predicted the longer lengths best"),
        "{majority}"
    );
}

/// `scaling trace` prints a run's evaluations and its tensors' norms every `--eval-every`
/// steps: with weight decay on everything but the biases the embeddings shrink as the
/// matrices do, and with decay of the matrices only they keep their size.
#[test]
fn trace_prints_each_tensors_norm_as_decay_shrinks_it() {
    let norms = |scope: &str| {
        let (code, out, err) = scaling(&[
            "trace",
            "--preset",
            "and-3",
            "--lengths",
            "8",
            "--samples",
            "16",
            "--weight-decay",
            "5",
            "--decay-scope",
            scope,
            "--steps",
            "40",
            "--eval-every",
            "20",
            "--seeds",
            "3",
        ]);
        assert_eq!(code, 0, "{err}");
        let words = if scope == "all" {
            " on everything but the biases"
        } else {
            ""
        };
        assert!(
            out.contains(&format!("seed 3, T 8, m 16, weight decay 5{words}:")),
            "{out}"
        );
        let rows: Vec<Vec<f64>> = out
            .lines()
            .filter(|l| {
                l.trim_start()
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_digit())
            })
            .map(|l| {
                l.split_whitespace()
                    .filter_map(|x| x.parse().ok())
                    .collect()
            })
            .collect();
        assert_eq!(
            rows.iter().map(|r| r[0]).collect::<Vec<_>>(),
            [0.0, 20.0, 40.0],
            "{out}"
        );
        // step, loss, train, test, on S, max α, then the nine tensors' norms.
        assert!(rows.iter().all(|r| r.len() == 6 + 9), "{out}");
        rows
    };
    let (all, matrices) = (norms("all"), norms("matrices"));
    assert_eq!(all[0], matrices[0], "the same start");
    // The bit and position embeddings: the first two tensors.
    for i in [6, 7] {
        assert!(
            all[2][i] < 0.5 * matrices[2][i],
            "tensor {i}: {} vs {}",
            all[2][i],
            matrices[2][i]
        );
        assert!(
            matrices[2][i] > 0.8 * matrices[0][i],
            "tensor {i} keeps its size: {matrices:?}"
        );
    }
    let (code, _, err) = scaling(&["trace", "--lengths", "8,16", "--samples", "4"]);
    assert_eq!(code, 2);
    assert!(err.contains("trace: give one length"), "{err}");
}
