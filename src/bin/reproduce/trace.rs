//! `reproduce trace`: the copying model trained on one thread from the parameters of a
//! weights file, with every step's batch, loss and parameters written out, so that another
//! implementation of the model (bench/torch_same_start.py: PyTorch's) can train from the
//! same start on the same batches and be compared with it step by step.

use attention_playground::copying::config::Config;
use attention_playground::copying::train::Trainer;
use attention_playground::run::Run;
use attention_playground::settings::{Settings, Value};
use std::io::Write;
use std::path::Path;

pub const HELP: &str = "\
reproduce trace WEIGHTS --preset NAME [--steps N] --out DIR
  trains preset NAME from the parameters of the weights file WEIGHTS (the page's format,
  docs/file-formats.md; a file of another lab or preset, or whose settings are not the
  preset's, is refused) for N steps [20] on one thread, and writes into DIR:
    trace.txt        the sizes: batch, src_len, tgt_len, n_tok, hidden, params, steps
    batches.u32      each step's batch: source (Ls, B), target_in (Lt, B), target_out
                     (Lt, B), little-endian u32, one step after another
    losses.txt       each step's training loss (the mean before its update)
    params-K.f32     the parameters after K updates (K = 0..N), little-endian f32, in the
                     weights file's layout (src/copying/model/params.rs)
";

/// `reproduce trace …` (the arguments after `trace`).
pub fn trace(argv: &[String]) -> Result<(), String> {
    let (mut weights, mut preset, mut steps, mut out) = (None, None, 20u64, None);
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let mut value = || super::common::value(&mut it, a);
        match a.as_str() {
            "--preset" => preset = Some(value()?.to_string()),
            "--steps" => steps = super::common::num(value()?, a)?,
            "--out" => out = Some(value()?.to_string()),
            "--help" | "-h" => return Err(HELP.into()),
            f if f.starts_with("--") => return Err(format!("trace: unknown option {f:?}")),
            _ if weights.is_some() => {
                return Err(format!("trace: one weights file, got {a:?} too"))
            }
            _ => weights = Some(a.clone()),
        }
    }
    let (Some(weights), Some(preset), Some(out)) = (weights, preset, out) else {
        return Err(format!("trace needs WEIGHTS, --preset and --out\n{HELP}"));
    };
    let config = Config::preset(&preset).ok_or(format!("trace: no preset {preset:?}"))?;
    let text = std::fs::read_to_string(&weights).map_err(|e| format!("{weights}: {e}"))?;
    let params = read_weights(&text, &preset, &config).map_err(|e| format!("{weights}: {e}"))?;
    let mut t = Trainer::new(config).map_err(|e| e.to_string())?;
    t.load_params(&params, 0)
        .map_err(|e| format!("{weights}: {e}"))?;
    let dir = Path::new(&out);
    std::fs::create_dir_all(dir).map_err(|e| format!("{out}: {e}"))?;
    let write = |name: &str, bytes: &[u8]| {
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{out}/{name}: {e}"))
    };
    let f32s = |xs: &[f32]| xs.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    write("params-0.f32", &f32s(t.weights()))?;
    let (mut batches, mut losses) = (Vec::new(), String::new());
    for k in 1..=steps {
        let loss = t.step().map_err(|e| format!("step {k}: {e}"))?;
        let b = t.train_batch();
        for part in [&b.source, &b.target_in, &b.target_out] {
            batches.extend(part.iter().flat_map(|x| x.to_le_bytes()));
        }
        losses += &format!("{loss}\n");
        write(&format!("params-{k}.f32"), &f32s(t.weights()))?;
    }
    write("batches.u32", &batches)?;
    write("losses.txt", losses.as_bytes())?;
    let b = t.train_batch();
    let c = t.config();
    let sizes = format!(
        "batch {}\nsrc_len {}\ntgt_len {}\nn_tok {}\nhidden {}\nparams {}\nsteps {steps}\n",
        b.batch,
        b.src_len,
        b.tgt_len,
        c.vocab + 2,
        c.hidden,
        params.len()
    );
    write("trace.txt", sizes.as_bytes())?;
    let mut err = std::io::stderr();
    writeln!(
        err,
        "trace: {steps} steps of {preset} from {weights} into {out}"
    )
    .ok();
    Ok(())
}

/// The parameters of a weights file (its `params`, base64 of little-endian f32, `count` of
/// them) of the copying lab's preset `preset`, whose settings `config` its own must be.
pub fn read_weights(text: &str, preset: &str, config: &Config) -> Result<Vec<f32>, String> {
    if string_field(text, "format").as_deref() != Some("attention-playground-weights") {
        return Err("not a weights file (its format must be attention-playground-weights)".into());
    }
    match string_field(text, "lab") {
        Some(lab) if lab == "copying" => {}
        Some(lab) => return Err(format!("weights of the {lab} lab, not the copying lab's")),
        None => return Err("no lab named (it must be copying)".into()),
    }
    match string_field(text, "preset") {
        Some(named) if named == preset => {}
        Some(named) => return Err(format!("weights of preset {named}, not {preset}")),
        None => return Err(format!("no preset named (it must be {preset})")),
    }
    let pairs = object_field(text, "config").ok_or("no config")?;
    for (key, value) in pairs {
        let mut c = config.clone();
        let read = match value.as_str() {
            "true" => Value::Switch(true),
            "false" => Value::Switch(false),
            v => Value::Text(v.trim_matches('"')),
        };
        c.set(&key, read).map_err(|e| format!("config: {e}"))?;
        if c != *config {
            return Err(format!(
                "its settings are not preset {preset}'s: {key} is {value}"
            ));
        }
    }
    let bytes = base64(&string_field(text, "params").ok_or("no params")?)?;
    if bytes.len() % 4 != 0 {
        return Err("params is not a whole number of f32 values".into());
    }
    let params: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let count = number_field(text, "count").ok_or("no count")?;
    if count != params.len() as f64 {
        return Err(format!(
            "count {count} but {} values in params",
            params.len()
        ));
    }
    Ok(params)
}

/// The `key: value` pairs of the flat object field `key` (a settings object: numbers,
/// switches and names, none holding a comma or a brace), values as written.
fn object_field(text: &str, key: &str) -> Option<Vec<(String, String)>> {
    let rest = after_key(text, key)?.strip_prefix('{')?;
    let body = &rest[..rest.find('}')?];
    body.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once(':')?;
            Some((k.trim().trim_matches('"').to_string(), v.trim().to_string()))
        })
        .collect()
}

/// The value of the top-level string field `key` (written without escapes, as the page and
/// the PyTorch script write these fields).
fn string_field(text: &str, key: &str) -> Option<String> {
    let rest = after_key(text, key)?.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_string())
}

/// The value of the number field `key`.
fn number_field(text: &str, key: &str) -> Option<f64> {
    let rest = after_key(text, key)?;
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The text after `"key":` and any spaces.
fn after_key<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    let at = text.find(&format!("\"{key}\""))? + key.len() + 2;
    Some(text[at..].trim_start().strip_prefix(':')?.trim_start())
}

/// Standard base64 (`A–Z a–z 0–9 + /`, `=` padding) to bytes.
fn base64(s: &str) -> Result<Vec<u8>, String> {
    let digit = |c: u8| -> Result<u32, String> {
        Ok(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("params: {:?} is not base64", c as char)),
        } as u32)
    };
    let s = s.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.chunks(4) {
        if chunk.len() == 1 {
            return Err("params: base64 of a wrong length".into());
        }
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= digit(c)? << (18 - 6 * i);
        }
        out.extend(&n.to_be_bytes()[1..chunk.len()]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::base64;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64("TWFu").unwrap(), b"Man");
        assert_eq!(base64("TWE=").unwrap(), b"Ma");
        assert_eq!(base64("TQ==").unwrap(), b"M");
        assert_eq!(base64("").unwrap(), b"");
        assert!(base64("T").is_err());
        assert!(base64("TW!u").is_err());
    }
}
