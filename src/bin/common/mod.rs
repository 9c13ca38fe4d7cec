//! What the command-line tools (`reproduce`, `lottery`, `scaling`) share: reading a flag's
//! value, a list of seeds and a shard `I/N`, and running independent jobs over threads.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The value after `flag` on the command line.
pub fn value<'a>(it: &mut std::slice::Iter<'a, String>, flag: &str) -> Result<&'a str, String> {
    it.next()
        .map(String::as_str)
        .ok_or(format!("{flag} needs a value"))
}

/// A flag's value read as a number.
pub fn num<T: std::str::FromStr>(s: &str, flag: &str) -> Result<T, String> {
    s.trim()
        .parse()
        .map_err(|_| format!("{flag}: not a valid number: {s:?}"))
}

/// Runs `work(i)` for i in 0..n on `jobs` threads, each taking the next i when it is free;
/// the results in order of i.
pub fn parallel<T: Send>(n: usize, jobs: usize, work: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let next = AtomicUsize::new(0);
    let mut out: Vec<(usize, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..jobs.min(n))
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            break mine;
                        }
                        mine.push((i, work(i)));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    out.sort_by_key(|(i, _)| *i);
    out.into_iter().map(|(_, t)| t).collect()
}

/// A list of seeds: ranges and single seeds, comma-separated (`0-4`, `0,3,7`).
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for part in s.split(',') {
        if let Some((a, b)) = part.split_once('-') {
            let (a, b): (u64, u64) = (num(a, "--seeds")?, num(b, "--seeds")?);
            if a > b {
                return Err(format!("--seeds: empty range {part}"));
            }
            out.extend(a..=b);
        } else {
            out.push(num(part, "--seeds")?);
        }
    }
    Ok(out)
}

/// `I/N` with 1 <= I <= N.
pub fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let (i, n) = s
        .split_once('/')
        .ok_or_else(|| format!("--shard: must be I/N, got {s:?}"))?;
    let (i, n): (usize, usize) = (num(i, "--shard")?, num(n, "--shard")?);
    if !(1 <= i && i <= n) {
        return Err(format!("--shard: I must be from 1 to N, got {s:?}"));
    }
    Ok((i, n))
}
