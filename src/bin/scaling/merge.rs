//! `scaling merge`: the CSVs of a run's shards joined and reported as one run; rows of
//! another function, sparsity or protocol, and a length in two files, are refused.

use crate::common::{num, value};
use crate::report::{report, Outcome};
use crate::{protocol, HEADER, HEADER_11, HEADER_13, HELP};
use attention_playground::sparse::config::{DecayScope, Positions};

/// `scaling merge FILE... [--threshold X] [--fit-upto T]`: the shards' rows as one run's
/// table and fits.
pub fn merge(argv: &[String]) -> Result<(), String> {
    let (mut files, mut threshold, mut fit_upto) = (Vec::new(), 0.95f32, 256usize);
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--threshold" => threshold = num(value(&mut it, a)?, a)?,
            "--fit-upto" => fit_upto = num(value(&mut it, a)?, a)?,
            "--help" | "-h" => return Err(HELP.into()),
            _ => files.push(a.clone()),
        }
    }
    if files.is_empty() {
        return Err("merge: give the shards' CSV files".into());
    }
    // (function, sparsity, positions, weight decay, its scope) of every row; the file each
    // length came from; every run's outcome.
    let mut kind: Option<(String, usize, String, String, String)> = None;
    let mut from: std::collections::BTreeMap<usize, String> = Default::default();
    let mut outcomes: Vec<Outcome> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
        let mut lines = text.lines();
        let columns = match lines.next() {
            Some(HEADER) => 14,
            Some(HEADER_13) => 13,
            Some(HEADER_11) => 11,
            _ => {
                return Err(format!(
                    "{file}: not a CSV of scaling (its first line must be {HEADER})"
                ))
            }
        };
        for (k, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
            let f: Vec<&str> = line.split(',').collect();
            let bad = || format!("{file}, line {}: not a row of scaling: {line:?}", k + 2);
            if f.len() != columns {
                return Err(bad());
            }
            let (positions, decay) = if columns >= 13 {
                (f[11], f[12])
            } else {
                ("learned", "0")
            };
            let scope = if columns == 14 { f[13] } else { "matrices" };
            // The decay as an f32 writes it (the page writes 1e-7 where Rust writes 0.0000001).
            let decay: f32 = decay.parse().map_err(|_| bad())?;
            if !Positions::CHOICES.iter().any(|c| c.name == positions)
                || !DecayScope::CHOICES.iter().any(|c| c.name == scope)
            {
                return Err(bad());
            }
            // Without decay, its scope does not matter.
            let scope = if decay == 0.0 { "matrices" } else { scope };
            let this = (
                f[0].to_string(),
                f[1].parse().map_err(|_| bad())?,
                positions.to_string(),
                decay.to_string(),
                scope.to_string(),
            );
            if *kind.get_or_insert_with(|| this.clone()) != this {
                return Err(format!(
                    "{file}: rows of {} of {} bits{} beside rows of another function, sparsity \
                     or protocol",
                    this.0,
                    this.1,
                    protocol(&this.2, &this.3, &this.4)
                ));
            }
            let t: usize = f[2].parse().map_err(|_| bad())?;
            let (m, seed, test) = (
                f[3].parse().map_err(|_| bad())?,
                f[4].parse().map_err(|_| bad())?,
                f[6].parse().map_err(|_| bad())?,
            );
            let first = from.entry(t).or_insert_with(|| file.clone());
            if first != file {
                return Err(format!("merge: length {t} is in both {first} and {file}"));
            }
            outcomes.push((t, m, seed, test));
        }
    }
    let (function, sparsity, positions, decay, scope) =
        kind.ok_or("merge: the files hold no rows")?;
    let seeds: std::collections::BTreeSet<u64> = outcomes.iter().map(|r| r.2).collect();
    let title = format!(
        "{function} of {sparsity} bits{}, {} seeds, merged from {} files, median test accuracy >= {threshold}",
        protocol(&positions, &decay, &scope),
        seeds.len(),
        files.len()
    );
    report(&title, sparsity, &outcomes, threshold, fit_upto);
    Ok(())
}
