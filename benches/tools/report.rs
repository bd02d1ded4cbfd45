//! The result table, in Markdown, for the terminal and the README.

use std::fmt::Write;

use crate::cases::Row;

/// The scaling comparison: the module-spec diff on the default repository
/// and on the one with 4x the files.
pub struct Scaling<'a> {
    /// The row on the default repository.
    pub default: &'a Row,
    /// The row on the larger repository.
    pub larger: &'a Row,
}

/// Render the table, then the scaling factors, then notes and failures.
pub fn render(header: &str, rows: &[Row], scaling: Option<Scaling<'_>>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{header}\n");
    out.push_str(
        "| case | notarai ms | git ms | ratio | response bytes | notarai peak MB | target |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | --- |\n",
    );
    for row in rows {
        let _ = writeln!(out, "{}", table_line(row));
    }
    if let Some(scaling) = scaling {
        let _ = writeln!(out, "\n{}", scaling_line(&scaling));
    }
    let details: Vec<String> = rows.iter().flat_map(row_details).collect();
    if !details.is_empty() {
        out.push('\n');
        for line in details {
            let _ = writeln!(out, "- {line}");
        }
    }
    out
}

/// One table line; a failed side shows `FAILED`.
pub fn table_line(row: &Row) -> String {
    let notarai = row.notarai.median_ms();
    let git = row.baseline.median_ms();
    let ratio = match (notarai, git) {
        (Some(n), Some(g)) if g > 0.0 => format!("{:.2}x", n / g),
        _ => "-".to_owned(),
    };
    let bytes = if row.notarai.active() && !row.notarai.times.is_empty() {
        row.notarai.bytes.to_string()
    } else {
        "-".to_owned()
    };
    let peak = row
        .peak_kib
        .map_or("-".to_owned(), |kib| format!("{:.1}", kib as f64 / 1024.0));
    format!(
        "| {} | {} | {} | {ratio} | {bytes} | {peak} | {} |",
        row.case,
        ms(notarai),
        ms(git),
        row.target
    )
}

/// A median in milliseconds, or `FAILED`.
fn ms(value: Option<f64>) -> String {
    match value {
        Some(v) if v < 10.0 => format!("{v:.2}"),
        Some(v) => format!("{v:.1}"),
        None => "FAILED".to_owned(),
    }
}

/// "Scaling: notarai 4x/1x = ..., git 4x/1x = ..." against the 1.5x target.
fn scaling_line(scaling: &Scaling<'_>) -> String {
    let factor = |larger: Option<f64>, default: Option<f64>| match (larger, default) {
        (Some(l), Some(d)) if d > 0.0 => format!("{:.2}x", l / d),
        _ => "-".to_owned(),
    };
    format!(
        "Scaling (module-spec diff, repository with 4x the files, the extra ones governed by no spec, \
         over the default repository): notarai {}, git {}; target <= 1.5x.",
        factor(
            scaling.larger.notarai.median_ms(),
            scaling.default.notarai.median_ms()
        ),
        factor(
            scaling.larger.baseline.median_ms(),
            scaling.default.baseline.median_ms()
        ),
    )
}

/// Errors and notes of one row, prefixed with its case.
fn row_details(row: &Row) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some(err) = &row.notarai.error {
        lines.push(format!("{}: notarai FAILED: {err}", row.case));
    }
    if let Some(err) = &row.baseline.error {
        lines.push(format!("{}: baseline FAILED: {err}", row.case));
    }
    if !row.notes.is_empty() {
        lines.push(format!("{}: {}", row.case, row.notes.join("; ")));
    }
    lines
}
