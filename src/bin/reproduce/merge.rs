//! `reproduce merge`: the CSVs of a run's shards read back (those written before the CSV
//! named its backend too) and joined into the one CSV and summary table of the whole run.

use super::summary::{print_table, Point, Summary};
use super::{output, HEADER, HEADER_CPU_ONLY, HELP};
use std::io::Write;

/// One row of a run's CSV: the point the summary reads (its step orders the rows within
/// a seed), and the line as written.
struct Row {
    seed: u64,
    point: Point,
    line: String,
}

/// Reads the rows of a CSV that `reproduce` wrote.
fn read_csv(path: &str) -> Result<Vec<Row>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut lines = text.lines();
    let named = match lines.next() {
        Some(HEADER) => true,
        Some(HEADER_CPU_ONLY) => false,
        _ => {
            return Err(format!(
                "{path}: not a CSV of reproduce (its first line must be {HEADER})"
            ))
        }
    };
    lines
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(k, line)| {
            let f: Vec<&str> = line.split(',').collect();
            let bad = || {
                let what = if named {
                    "8 numbers and the backend (cpu or gpu)"
                } else {
                    "8 numbers"
                };
                format!("{path}, line {}: not a row of {what}: {line:?}", k + 2)
            };
            let fields = if named { 9 } else { 8 };
            if f.len() != fields || (named && !matches!(f[8], "cpu" | "gpu")) {
                return Err(bad());
            }
            let float = |i: usize| f[i].parse::<f32>().map_err(|_| bad());
            Ok(Row {
                seed: f[0].parse().map_err(|_| bad())?,
                point: Point {
                    step: f[1].parse().map_err(|_| bad())?,
                    token: float(3)?,
                    attention: float(4)?,
                    ktiw: float(5)?,
                },
                line: if named {
                    line.to_string()
                } else {
                    format!("{line},cpu")
                },
            })
        })
        .collect()
}

/// `reproduce merge FILE... [--csv OUT]`: the shards' rows as one run's CSV, and its table.
pub fn merge(argv: &[String]) -> Result<(), String> {
    let mut files = Vec::new();
    let mut csv = None;
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--csv" => csv = Some(it.next().ok_or("--csv needs a value")?.clone()),
            "--help" | "-h" => {
                print!("{HELP}");
                std::process::exit(0);
            }
            _ => files.push(a.clone()),
        }
    }
    if files.is_empty() {
        return Err("merge: give the shards' CSV files".to_string());
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut owner = std::collections::BTreeMap::new();
    for file in &files {
        for row in read_csv(file)? {
            if let Some(other) = owner.insert(row.seed, file.clone()) {
                if &other != file {
                    return Err(format!(
                        "merge: seed {} is in both {other} and {file}",
                        row.seed
                    ));
                }
            }
            rows.push(row);
        }
    }
    // As one run writes them: by seed, each seed's evaluations in step order.
    rows.sort_by_key(|r| (r.seed, r.point.step));
    let mut out = output(&csv);
    writeln!(out, "{HEADER}").unwrap();
    for r in &rows {
        writeln!(out, "{}", r.line).unwrap();
    }
    out.flush().unwrap();
    drop(out);
    let summaries: Vec<Summary> = rows
        .chunk_by(|a, b| a.seed == b.seed)
        .map(|seed| {
            let points: Vec<Point> = seed.iter().map(|r| r.point).collect();
            Summary::of(seed[0].seed, &points, None)
        })
        .collect();
    print_table(&summaries, csv.is_some());
    Ok(())
}
