//! Figures people would rather look at than read, as SVG drawn with
//! plotters (its SVG backend: text is left to the viewer, no fonts are
//! needed): the degree distribution of a store (`outcore info --plot`) and
//! the per-iteration or per-level figures of a run (`--report` on the
//! algorithm commands: time, bytes read, bytes served from the cache,
//! edges, frontier sizes). Every figure also carries its numbers in the
//! SVG's `<desc>` element as JSON, so a program (and the tests) can read
//! back exactly what was drawn.

use crate::Error;
use outcore_algorithms::{DegreeStats, DegreeSummary};
use outcore_io::Staged;
use outcore_store::{check_output, OutputKind};
use plotters::prelude::*;
use serde_json::{json, Value};
use std::path::Path;

const WIDTH: u32 = 800;
const SERIES_COLORS: [RGBColor; 4] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(148, 103, 189)];

fn drawing<E: std::error::Error + Send + Sync>(what: &str) -> impl Fn(DrawingAreaErrorKind<E>) -> Error + '_ {
    move |e| Error::Plot { what: what.into(), reason: e.to_string() }
}

/// The points of a degree histogram: (lowest degree of the bucket, vertices),
/// non-empty buckets only (bucket k holds degrees [2^k, 2^(k+1))).
pub fn degree_points(stats: &DegreeStats) -> Vec<(u64, u64)> {
    stats.histogram.iter().enumerate().filter(|(_, &c)| c > 0).map(|(k, &c)| (1u64 << k, c)).collect()
}

/// The degree distribution on log-log axes: one point per non-empty
/// power-of-two bucket, out-degrees, and in-degrees for a directed graph.
pub fn degree_svg(summary: &DegreeSummary, title: &str) -> Result<String, Error> {
    let mut series = vec![("out-degree", degree_points(&summary.out), summary.out.zero)];
    if let Some(i) = &summary.r#in {
        series.push(("in-degree", degree_points(i), i.zero));
    }
    let x_max = series.iter().flat_map(|s| s.1.iter().map(|p| p.0)).max().unwrap_or(1) as f64 * 2.0;
    let y_max = series.iter().flat_map(|s| s.1.iter().map(|p| p.1)).max().unwrap_or(1) as f64 * 2.0;
    let mut svg = String::new();
    {
        let err = drawing("the degree plot");
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 520)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let zeros: Vec<String> = series.iter().filter(|s| s.2 > 0).map(|s| format!("{} {} of 0 not shown", s.2, s.0)).collect();
        let caption = if zeros.is_empty() { title.to_string() } else { format!("{title} ({})", zeros.join(", ")) };
        let mut chart = ChartBuilder::on(&root)
            .caption(caption, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((1f64..x_max).log_scale(), (1f64..y_max).log_scale())
            .map_err(&err)?;
        chart
            .configure_mesh()
            .x_desc("degree (bucket of degrees 2^k .. 2^(k+1)-1, at 2^k)")
            .y_desc("vertices")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(&err)?;
        for (i, (name, points, _)) in series.iter().enumerate() {
            let color = SERIES_COLORS[i % SERIES_COLORS.len()];
            let pts: Vec<(f64, f64)> = points.iter().map(|&(d, c)| (d as f64, c as f64)).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(1)))
                .map_err(&err)?
                .label(*name)
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, color.filled()));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled()))).map_err(&err)?;
        }
        chart.configure_series_labels().border_style(BLACK).background_style(WHITE.mix(0.85)).draw().map_err(&err)?;
        root.present().map_err(&err)?;
    }
    let data: serde_json::Map<String, Value> =
        series.iter().map(|(name, points, zero)| (name.to_string(), json!({"points": points, "zero": zero}))).collect();
    Ok(with_data(svg, &Value::Object(data)))
}

/// The series a run's report holds per step: each numeric figure of
/// `per_iteration` (stream, interval and sort-reduce engines) against the
/// iteration, and each numeric figure of `levels` (the hybrid BFS:
/// frontier size, lists read) against the level.
pub fn report_series(report: &Value) -> Vec<(String, String, Vec<f64>)> {
    let mut out = Vec::new();
    for (key, step) in [("per_iteration", "iteration"), ("levels", "level")] {
        let Some(rows) = report.get(key).and_then(Value::as_array) else { continue };
        let mut names: Vec<String> = Vec::new();
        for row in rows {
            if let Some(obj) = row.as_object() {
                for (k, v) in obj {
                    if v.is_number() && !names.contains(k) {
                        names.push(k.clone());
                    }
                }
            }
        }
        for name in names {
            let values: Vec<f64> = rows.iter().map(|r| r.get(&name).and_then(Value::as_f64).unwrap_or(0.0)).collect();
            out.push((name, step.to_string(), values));
        }
    }
    out
}

/// A run's figures per iteration or per BFS level, one small chart each
/// (two columns), under a caption with the run's totals. A run that
/// recorded no per-step figures (one pass in memory) says so.
pub fn report_svg(report: &Value) -> Result<String, Error> {
    let series = report_series(report);
    let rows = series.len().div_ceil(2).max(1);
    let height = 90 + 240 * rows as u32;
    let mut svg = String::new();
    {
        let err = drawing("the run report");
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(&err)?;
        let title = format!(
            "{} on the {} engine: {:.3} s, {} read, budget peak {}",
            report.get("algorithm").and_then(Value::as_str).unwrap_or("run"),
            report.get("engine").and_then(Value::as_str).unwrap_or("?"),
            report.get("seconds").and_then(Value::as_f64).unwrap_or(0.0),
            crate::format_bytes(bytes_read(report)),
            crate::format_bytes(report.get("budget_peak_bytes").and_then(Value::as_u64).unwrap_or(0)),
        );
        let body = root.titled(&title, ("sans-serif", 18)).map_err(&err)?;
        if series.is_empty() {
            body.draw(&Text::new(
                "this run recorded no per-iteration or per-level figures (its engine ran it in one pass); see the report",
                (20, 40),
                ("sans-serif", 14),
            ))
            .map_err(&err)?;
        }
        let panels = body.split_evenly((rows, 2));
        for (i, ((name, step, values), panel)) in series.iter().zip(panels.iter()).enumerate() {
            let color = SERIES_COLORS[i % SERIES_COLORS.len()];
            let n = values.len();
            let top = values.iter().cloned().fold(0.0f64, f64::max).max(f64::MIN_POSITIVE) * 1.1;
            let mut chart = ChartBuilder::on(panel)
                .caption(format!("{name} per {step}"), ("sans-serif", 14))
                .margin(8)
                .x_label_area_size(30)
                .y_label_area_size(60)
                .build_cartesian_2d(if step == "level" { -0.5f64 } else { 0.5 }..n.max(1) as f64 + 0.5, 0f64..top)
                .map_err(&err)?;
            chart
                .configure_mesh()
                .x_desc(step.as_str())
                .x_labels(n.clamp(2, 10))
                .x_label_formatter(&|x| format!("{x:.0}"))
                .y_label_formatter(&|y| short(*y))
                .draw()
                .map_err(&err)?;
            // steps are numbered from 1 (BFS levels from 0)
            let first = if step == "level" { 0.0 } else { 1.0 };
            let pts: Vec<(f64, f64)> = values.iter().enumerate().map(|(k, &v)| (k as f64 + first, v)).collect();
            chart.draw_series(LineSeries::new(pts.clone(), color.stroke_width(1))).map_err(&err)?;
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled()))).map_err(&err)?;
        }
        root.present().map_err(&err)?;
    }
    let data: serde_json::Map<String, Value> =
        series.iter().map(|(name, step, values)| (name.clone(), json!({"per": step, "values": values}))).collect();
    Ok(with_data(svg, &Value::Object(data)))
}

/// The same report as a page: the figure, then every scalar figure of the
/// report in a table.
pub fn report_html(report: &Value) -> Result<String, Error> {
    let svg = report_svg(report)?;
    let mut rows = String::new();
    if let Some(obj) = report.as_object() {
        for (k, v) in obj {
            if v.is_array() || v.is_object() {
                continue;
            }
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            rows.push_str(&format!("<tr><th>{}</th><td>{}</td></tr>\n", escape(k), escape(&text)));
        }
    }
    let title = escape(report.get("algorithm").and_then(Value::as_str).unwrap_or("run"));
    Ok(format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>outcore {title}</title>\n<style>body{{font-family:sans-serif}} th{{text-align:left;padding-right:1em}}</style></head>\n<body>\n<h1>outcore {title}</h1>\n{svg}\n<table>\n{rows}</table>\n</body></html>\n"
    ))
}

/// The bytes a run read: its report's figure, else the sum over its iterations.
fn bytes_read(report: &Value) -> u64 {
    report.get("bytes_read").and_then(Value::as_u64).unwrap_or_else(|| {
        report
            .get("per_iteration")
            .and_then(Value::as_array)
            .map_or(0, |rows| rows.iter().filter_map(|r| r.get("bytes_read").and_then(Value::as_u64)).sum())
    })
}

/// A tick label: 1.5k, 2.3M, 0.0002.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e9 {
        format!("{:.1}G", v / 1e9)
    } else if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 1.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.2e}")
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// `svg` with `data` in a `<desc id="outcore-data">` element after its
/// opening tag.
fn with_data(svg: String, data: &Value) -> String {
    let desc = format!("<desc id=\"outcore-data\">{}</desc>", escape(&data.to_string()));
    match svg.find('>') {
        Some(end) if svg.starts_with("<svg") => format!("{}\n{desc}{}", &svg[..=end], &svg[end + 1..]),
        _ => svg,
    }
}

/// Write a figure to `path` (staged beside it and moved into place), under
/// the output policy: an existing file only with `force`, never a store
/// (`protect`) or a directory.
pub fn write_figure(path: &Path, text: &str, force: bool, protect: &[&Path]) -> Result<(), Error> {
    check_output(path, OutputKind::File, force, protect)?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let staged = Staged::file(parent, &format!("{}.partial", path.file_name().unwrap_or_default().to_string_lossy()))?;
    std::fs::write(staged.path(), text).map_err(|e| outcore_io::IoError::new(staged.path(), "write", e))?;
    staged.publish(path)?;
    Ok(())
}
