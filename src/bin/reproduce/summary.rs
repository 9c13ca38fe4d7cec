//! `reproduce`'s summary of a run: per seed, its last evaluation and the steps at which
//! token accuracy reached 0.99 and KTIW and attention accuracy passed 0.5, as a markdown
//! table (of a run just trained, or of shards merged).

use attention_playground::copying::train::Evaluation;

/// What the summary table reads of an evaluation.
#[derive(Clone, Copy)]
pub struct Point {
    pub step: u64,
    pub token: f32,
    pub attention: f32,
    pub ktiw: f32,
}

impl From<&Evaluation> for Point {
    fn from(e: &Evaluation) -> Self {
        Point {
            step: e.step,
            token: e.token_accuracy,
            attention: e.attention_accuracy,
            ktiw: e.ktiw_accuracy,
        }
    }
}

/// What the summary table says of one seed.
pub struct Summary {
    pub seed: u64,
    pub last: Point,
    pub token_099: Option<u64>,
    pub ktiw_05: Option<u64>,
    pub attention_05: Option<u64>,
    /// Unknown for a merged run (the CSV does not hold it).
    pub ms_per_step: Option<f64>,
}

impl Summary {
    /// `history`: one seed's evaluations, in step order (not empty).
    pub fn of(seed: u64, history: &[Point], ms_per_step: Option<f64>) -> Summary {
        let first =
            |pred: &dyn Fn(&Point) -> bool| history.iter().find(|p| pred(p)).map(|p| p.step);
        Summary {
            seed,
            last: history[history.len() - 1],
            token_099: first(&|p| p.token >= 0.99),
            ktiw_05: first(&|p| p.ktiw > 0.5),
            attention_05: first(&|p| p.attention > 0.5),
            ms_per_step,
        }
    }
}

fn fmt_step(s: Option<u64>) -> String {
    s.map_or("never".to_string(), |s| s.to_string())
}

/// Prints the summary table to stderr, and to stdout too when the CSV went to a file.
pub fn print_table(summaries: &[Summary], csv_to_file: bool) {
    let mut table = String::new();
    table.push_str("| seed | final token acc | final attn acc | final KTIW acc | token acc ≥ 0.99 at | KTIW acc > 0.5 at | attn acc > 0.5 at | ms/step |\n");
    table.push_str("|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for s in summaries {
        table.push_str(&format!(
            "| {} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} |\n",
            s.seed,
            s.last.token,
            s.last.attention,
            s.last.ktiw,
            fmt_step(s.token_099),
            fmt_step(s.ktiw_05),
            fmt_step(s.attention_05),
            s.ms_per_step
                .map_or("–".to_string(), |ms| format!("{ms:.1}"))
        ));
    }
    let solved = summaries.iter().filter(|s| s.token_099.is_some()).count();
    let ktiw_first = summaries
        .iter()
        .filter(|s| matches!((s.ktiw_05, s.attention_05), (Some(k), Some(a)) if k < a))
        .count();
    let both = summaries
        .iter()
        .filter(|s| s.ktiw_05.is_some() && s.attention_05.is_some())
        .count();
    table.push_str(&format!(
        "\nreached token acc 0.99: {solved}/{} seeds; KTIW acc passed 0.5 strictly before attention acc in {ktiw_first}/{both} seeds where both did\n",
        summaries.len()
    ));
    eprint!("\n{table}");
    if csv_to_file {
        print!("{table}");
    }
}
