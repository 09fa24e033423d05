//! The algorithm commands (`outcore bfs|sssp|wcc|pagerank|cdlp|spmv|bc
//! STORE ...`), one per registry entry: the shared run options, the
//! algorithm's own parameters as flags, then one call into the library,
//! the output file, the report (text or `--json`) and `--verify`.

use crate::args::{run_args, run_options};
use crate::progress::Bars;
use anyhow::Result;
use clap::{Arg, ArgAction, ArgMatches};
use outcore::{Args, Entry, Graph, ParamKind, Registered, Report};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The subcommand of `alg`, made from its registry entry.
pub fn command(alg: &'static dyn Registered) -> clap::Command {
    let info = alg.info();
    let columns: Vec<&'static str> = info.columns.iter().map(|c| c.name).collect();
    let mut c = clap::Command::new(info.name).about(info.about).args(run_args(info.engines, &columns));
    for p in info.params {
        let flag = p.name.replace('_', "-");
        let mut a = Arg::new(p.name).long(flag).help(p.help);
        a = match p.kind {
            ParamKind::Vertex | ParamKind::Count => a.value_parser(clap::value_parser!(u64)),
            ParamKind::Vertices => a.value_parser(clap::value_parser!(u64)).action(ArgAction::Append),
            ParamKind::Real => a.value_parser(clap::value_parser!(f64)),
            ParamKind::Choice(choices) => a.value_parser(clap::builder::PossibleValuesParser::new(choices.to_vec())),
            ParamKind::Text => a,
            ParamKind::VertexFile => a.value_parser(clap::value_parser!(PathBuf)),
            ParamKind::Switch => a.action(ArgAction::SetTrue),
        };
        if let Some(d) = p.default {
            a = a.default_value(d);
        }
        c = c.arg(a);
    }
    c
}

/// The algorithm's parameters as the user gave them (defaults left to the library).
fn params(alg: &dyn Registered, m: &ArgMatches) -> Args {
    let mut args = Args::new();
    for p in alg.info().params {
        if m.value_source(p.name) != Some(clap::parser::ValueSource::CommandLine) {
            continue;
        }
        if p.kind == ParamKind::Switch {
            args.set(p.name, m.get_flag(p.name).to_string());
            continue;
        }
        if let Some(values) = m.get_raw(p.name) {
            for v in values {
                args.set(p.name, v.to_string_lossy());
            }
        }
    }
    args
}

pub fn run(alg: &'static dyn Registered, m: &ArgMatches) -> Result<ExitCode> {
    let store = m.get_one::<PathBuf>("store").unwrap().clone();
    let json = m.get_flag("json");
    let mut options = run_options(m)?;
    options.progress = Some(Arc::new(Bars::new(json)));
    let graph = Graph::open(&store)?;
    if m.get_flag("dry_run") {
        let plan = graph.plan(alg.info().name, &params(alg, m), &options)?;
        print_plan(&plan, &store, json)?;
        return Ok(ExitCode::SUCCESS);
    }
    let results = graph.run_named(alg.info().name, &params(alg, m), &options)?;
    let column = m.try_get_one::<String>("values").ok().flatten().cloned().unwrap_or_else(|| alg.info().columns[0].name.to_string());
    let output = m.get_one::<PathBuf>("output");
    // with the values on standard output, the report goes to standard error
    let to_stdout = output.is_some_and(|p| p.as_os_str() == "-");
    let mut report_out: Box<dyn Write> = if to_stdout { Box::new(std::io::stderr()) } else { Box::new(std::io::stdout()) };
    match output {
        Some(_) if to_stdout => {
            outcore::output::write_to(&results, &column, &mut std::io::stdout().lock())?;
        }
        Some(path) => {
            outcore::output::write_text(&results, &column, path, m.get_flag("force"))?;
        }
        None => {}
    }
    if let Some(path) = m.get_one::<PathBuf>("report") {
        let report = results.report_json();
        let page = match path.extension().and_then(|e| e.to_str()) {
            Some("html" | "htm") => outcore::plot::report_html(&report)?,
            _ => outcore::plot::report_svg(&report)?,
        };
        outcore::plot::write_figure(path, &page, m.get_flag("force"), &[&store])?;
    }
    let top = match m.get_one::<usize>("top") {
        Some(&k) => Some(outcore::output::top(&results, &column, k)?),
        None => None,
    };
    let verdict = if m.get_flag("verify") { Some(results.verify()?) } else { None };
    let report = results.report();
    let kind = results.column(&column).map_or(outcore::ValueKind::Real, |c| c.kind);
    let text = |e: Entry| {
        let mut b = Vec::new();
        outcore::format_entry(kind, e, &mut b);
        String::from_utf8_lossy(&b).into_owned()
    };
    if json {
        let mut v = results.report_json();
        if let Some(verdict) = &verdict {
            v["verify"] = serde_json::to_value(verdict)?;
        }
        if let Some(top) = &top {
            v["top"] = serde_json::json!({
                "values": column,
                "vertices": top.iter().map(|&(id, e)| serde_json::json!({"vertex": id, "value": text(e)})).collect::<Vec<_>>(),
            });
        }
        v["layout_hints"] = serde_json::json!(layout_hints(report, &store));
        // the whole command so far: opening the store, the plan, the setup,
        // the run and anything between them that no figure times
        v["process_seconds"] = serde_json::json!(crate::STARTED.get().map(|t| t.elapsed().as_secs_f64()));
        writeln!(report_out, "{}", serde_json::to_string_pretty(&v)?)?;
    } else {
        writeln!(report_out, "{}", summary(alg, report, graph.vertices()))?;
        writeln!(report_out, "  engine {}: {}", report.engine, report.engine_reason)?;
        for hint in layout_hints(report, &store) {
            writeln!(report_out, "  {hint}")?;
        }
        for note in report.figure("notes").and_then(|n| n.as_array()).into_iter().flatten().filter_map(|n| n.as_str()) {
            writeln!(report_out, "  note: {note}")?;
        }
        if let Some(v) = &verdict {
            writeln!(report_out, "verify: {} ({}: {})", if v.passed { "PASS" } else { "FAIL" }, v.method, v.detail)?;
        }
        if let Some(top) = &top {
            writeln!(report_out, "top {} by {column} (vertex value):", top.len())?;
            for &(id, e) in top {
                writeln!(report_out, "{id} {}", text(e))?;
            }
        }
    }
    Ok(match verdict {
        Some(v) if !v.passed => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    })
}

/// `--dry-run`: what would run, why, what every engine needs, the minimum.
fn print_plan(plan: &outcore::Plan, store: &std::path::Path, json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(plan)?);
        return Ok(());
    }
    println!("{} would run on the {} engine: {}", plan.algorithm, plan.engine, plan.reason);
    println!("  smallest budget for this run: {}", outcore::format_bytes(plan.minimum_bytes));
    for c in &plan.considered {
        let v = serde_json::to_value(&c.verdict)?;
        let verdict = v["verdict"].as_str().unwrap_or("").replace('_', " ");
        let needs = v["needs"].as_u64().map_or(String::new(), |n| format!(", needs {}", outcore::format_bytes(n)));
        let detail = ["why", "layouts"]
            .iter()
            .filter_map(|k| v.get(*k))
            .map(|x| format!(" ({})", x.to_string().trim_matches('"')))
            .collect::<String>();
        println!("  {}: {verdict}{needs}{detail}", c.engine);
    }
    for g in &plan.layout_gains {
        println!("  {g}: outcore layout add {} {}", store.display(), g.layout);
    }
    Ok(())
}

/// What a missing layout would buy, with the command that adds it.
fn layout_hints(report: &Report, store: &std::path::Path) -> Vec<String> {
    report.plan.layout_gains.iter().map(|g| format!("{g}: outcore layout add {} {}", store.display(), g.layout)).collect()
}

/// One line on what the run did, from the report's figures.
fn summary(alg: &dyn Registered, r: &Report, vertices: u64) -> String {
    let f = |k: &str| r.figure(k).filter(|v| !v.is_null());
    let u = |k: &str| f(k).and_then(|v| v.as_u64());
    let x = |k: &str| f(k).and_then(|v| v.as_f64());
    let g = crate::grouped;
    let mut parts: Vec<String> = Vec::new();
    let mut head = alg.info().title.to_string();
    if let Some(d) = f("direction").and_then(|v| v.as_str()) {
        head.push_str(&format!(" ({d})"));
    }
    if let Some(root) = u("root") {
        head.push_str(&format!(" from {root}"));
    }
    head.push_str(&format!(" on the {} engine in {:.3} s", r.engine, r.seconds));
    if let Some(reached) = u("vertices_reached") {
        parts.push(format!("reached {} of {} vertices", g(reached), g(vertices)));
    }
    if let Some(depth) = u("depth") {
        parts.push(format!("{depth} levels"));
    }
    if let Some(e) = u("edges_traversed") {
        let rate = x("teps").map_or(String::new(), |t| format!(" ({:.1} M edges/s)", t / 1e6));
        parts.push(format!("{} edges{rate}", g(e)));
    }
    if let Some(c) = u("components") {
        parts.push(format!("{} components", g(c)));
    }
    if let Some(i) = u("iterations") {
        parts.push(format!("{i} iteration{}", if i == 1 { "" } else { "s" }));
    }
    if let (Some(r), Some(k)) = (x("rmse"), u("rank")) {
        parts.push(format!("rank {k}, training RMSE {r:.6}"));
    }
    if let (Some(users), Some(items)) = (u("users"), u("items")) {
        parts.push(format!("{} users, {} items, {} ratings", g(users), g(items), g(u("ratings").unwrap_or(0))));
    }
    if let Some(d) = x("last_l1_change") {
        parts.push(format!("last L1 change {d:.3e}"));
    }
    if let Some(by) = f("stopped_by").and_then(|v| v.as_str()) {
        let tolerance = x("tolerance").map_or(String::new(), |t| format!(", tolerance {t:.3e}"));
        parts.push(format!("stopped by: {by}{tolerance}"));
    }
    if let Some(b) = u("bands_per_iteration").filter(|&b| b > 1) {
        parts.push(format!("{b} bands per iteration"));
    }
    if let Some(norm) = x("y_l2_norm") {
        parts.push(format!("|y| = {norm:.6e}"));
    }
    if let Some(s) = u("sources") {
        let exact = f("exact").and_then(|v| v.as_bool()).unwrap_or(true);
        parts.push(format!("{} sources ({})", g(s), if exact { "exact" } else { "sampled" }));
    }
    if let Some(b) = u("bytes_read") {
        parts.push(format!("{} read", outcore::format_bytes(b)));
    }
    if let Some(h) = x("cache_hit_rate") {
        parts.push(format!("cache hit rate {:.1}%", 100.0 * h));
    }
    if let Some(k) = u("hot_neighbours_k") {
        match u("hot_list_bytes").filter(|&b| b > 0) {
            Some(b) => parts.push(format!("{k} in-memory neighbours per vertex ({} of hot lists)", outcore::format_bytes(b))),
            None => parts.push(format!("{k} in-memory neighbours per vertex")),
        }
    }
    if let Some(s) = x("setup_seconds") {
        parts.push(format!("setup {s:.2} s"));
    }
    if let Some(s) = f("engine_summary").and_then(|v| v.as_str()) {
        parts.push(s.to_string());
    }
    if parts.is_empty() {
        head
    } else {
        format!("{head}: {}", parts.join(", "))
    }
}
