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
    // The 11-column CSVs written before the protocol's columns read as learned positions
    // without weight decay; rows of another protocol are refused beside them.
    let text = std::fs::read_to_string(&shards[1]).unwrap();
    let strip = |line: &str| line.rsplitn(3, ',').nth(2).unwrap().to_string();
    let old: Vec<String> = text.lines().map(strip).collect();
    assert!(
        old[1].ends_with(",0") || old[1].ends_with(",1"),
        "{}",
        old[1]
    );
    std::fs::write(path("old.csv"), old.join("\n") + "\n").unwrap();
    let (code, again, err) = scaling(&["merge", &shards[0], &path("old.csv"), "--fit-upto", "12"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(from_table(&again), table, "the older form reads the same");
    let other = text.replace(",learned,0\n", ",sinusoidal,0.5\n");
    assert_ne!(other, text);
    std::fs::write(path("sin.csv"), other).unwrap();
    let (code, _, err) = scaling(&["merge", &shards[0], &path("sin.csv")]);
    assert_eq!(code, 2);
    assert!(
        err.contains("and of 3 bits, sinusoidal position codes, weight decay 0.5 beside"),
        "{err}"
    );
    let (code, _, err) = scaling(&[RUN, &["--shard", "3/2"]].concat());
    assert_eq!(code, 2);
    assert!(err.contains("--shard"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}
