//! `outcore info STORE [--json] [--verify]`.

use anyhow::Result;
use outcore_algorithms::{degree_summary, DegreeSummary};
use outcore_io::{format_bytes, Budget};
use outcore_store::{Ids, Store};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// The store to describe.
    pub store: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Re-hash every file and compare with the manifest's checksums.
    #[arg(long)]
    pub verify: bool,
    /// How many highest-degree vertices to list.
    #[arg(long, default_value_t = 5)]
    pub top: usize,
    /// Draw the degree distribution (log-log; in and out for a directed graph) to this SVG file.
    #[arg(long)]
    pub plot: Option<PathBuf>,
    /// Replace an existing --plot file.
    #[arg(long)]
    pub force: bool,
    /// Memory budget (the in-degree count of directed graphs needs 4 bytes per vertex).
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub memory: u64,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let store = Store::open(&a.store)?;
    let m = store.manifest();
    let budget = Budget::new(a.memory);
    // checksums first: every damaged file is named, before the statistics
    // stop at the first block that fails its check
    let verify = a.verify.then(|| store.verify());
    let bad: Vec<String> =
        verify.iter().flatten().filter_map(|(f, r)| r.as_ref().err().map(|e| format!("{}: {e}", a.store.join(f).display()))).collect();
    if !bad.is_empty() {
        if a.json {
            println!("{}", serde_json::to_string_pretty(&json!({"store": a.store, "verify": {"ok": false, "errors": bad}}))?);
        }
        anyhow::bail!("{}", bad.join("; "));
    }
    let degrees = degree_summary(&store, a.top, true, &budget)?;
    if let Some(path) = &a.plot {
        let title = format!("degree distribution of {}", a.store.display());
        outcore::plot::write_figure(path, &outcore::plot::degree_svg(&degrees, &title)?, a.force, &[&a.store])?;
    }
    let ids = store.ids()?;
    let original_top = |top: &[(u64, u64)]| -> Result<Vec<(u64, u64)>> { top.iter().map(|&(v, d)| Ok((ids.original(v)?, d))).collect() };

    let layouts: serde_json::Map<String, serde_json::Value> = m
        .layouts
        .iter()
        .map(|(name, l)| -> Result<(String, serde_json::Value)> {
            let adj = m.files[&l.adjacency].bytes;
            let traverse_index = outcore_engines::Traverse::index_bytes(&store, name)?;
            let total = store.layout_bytes(name);
            let bytes_of = |f: &Option<String>| f.as_ref().map_or(0, |w| m.files[w].bytes);
            // the weights and their page checksums
            let weights = bytes_of(&l.weights) + bytes_of(&l.weights_pages);
            // what checks a random read of the adjacency
            let checks = bytes_of(&l.blocks) + bytes_of(&l.adjacency_pages);
            let per_edge = |b: u64| {
                if m.arcs == 0 {
                    0.0
                } else {
                    b as f64 * 8.0 / m.arcs as f64
                }
            };
            Ok((
                name.clone(),
                json!({
                    "encoding": l.encoding.name(),
                    "bytes": total,
                    "index_format": l.index_format,
                    "index_bytes": m.files[&l.index].bytes,
                    "adjacency_bytes": adj,
                    "weights_bytes": l.weights.as_ref().map(|w| m.files[w].bytes),
                    "degrees_bytes": l.degrees.as_ref().map(|w| m.files[w].bytes),
                    "block_table_bytes": l.blocks.as_ref().map(|w| m.files[w].bytes),
                    "page_checksum_bytes": l.adjacency_pages.as_ref().map(|w| m.files[w].bytes),
                    "order": m.provenance.get("order").cloned().unwrap_or_else(|| "none".into()),
                    "bits_per_edge": per_edge(adj),
                    "bits_per_edge_with_index": per_edge(total - weights),
                    // what random access to the lists takes as the traverse
                    // engine holds it: adjacency, block table and page
                    // checksums, and the Elias-Fano index (edge starts
                    // included) in memory
                    "traverse_index_bytes": traverse_index,
                    "bits_per_edge_random_access": per_edge(adj + checks + traverse_index),
                }),
            ))
        })
        .collect::<Result<_>>()?;
    if a.json {
        let mut d = serde_json::to_value(&degrees)?;
        d["out"]["top"] = json!(original_top(&degrees.out.top)?);
        if let Some(i) = &degrees.r#in {
            d["in"]["top"] = json!(original_top(&i.top)?);
        }
        let total: u64 = m.files.values().map(|f| f.bytes).sum();
        let out = json!({
            "store": a.store,
            "vertices": m.vertices, "edges": m.edges, "arcs": m.arcs, "self_loops": m.self_loops,
            "directed": m.directed, "weighted": m.weighted,
            "id_map": m.id_map, "id_base": m.id_base,
            "bytes": total,
            "layouts": layouts,
            "degrees": d,
            "verify": verify.as_ref().map(|_| json!({"ok": bad.is_empty(), "errors": bad})),
            "provenance": m.provenance,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        print_text(&a, &store, &degrees, &ids, &layouts)?;
        if let Some(v) = &verify {
            println!("verify      all {} files match their checksums", v.len());
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(a: &Args, store: &Store, d: &DegreeSummary, ids: &Ids, layouts: &serde_json::Map<String, serde_json::Value>) -> Result<()> {
    let m = store.manifest();
    let g = crate::grouped;
    println!("store       {}", a.store.display());
    println!("vertices    {}", g(m.vertices));
    println!(
        "edges       {} {} ({} adjacency entries, {} self loops){}",
        g(m.edges),
        if m.directed { "directed" } else { "undirected" },
        g(m.arcs),
        g(m.self_loops),
        if m.weighted { ", weighted" } else { "" }
    );
    let id_desc = match m.id_map.as_str() {
        "identity" => format!("identity (original id = dense id + {})", m.id_base),
        "permuted" => format!(
            "permuted by the {} order (original ids kept per vertex)",
            m.provenance.get("order").map(String::as_str).unwrap_or("recorded")
        ),
        _ => format!("sorted (original ids {}..={})", ids.original(0)?, ids.original(m.vertices.saturating_sub(1))?),
    };
    println!("id map      {id_desc}");
    if let Some(b) = m.bipartite {
        println!(
            "bipartite   {} users (dense ids 0..{}), {} items (original id {} + item id)",
            g(b.users),
            b.users,
            g(b.items),
            outcore_store::ITEM_ID_BASE
        );
    }
    for (name, l) in layouts {
        println!(
            "layout {name:<4} {}: {} ({:.2} bits/edge adjacency, {:.2} with index, degrees, blocks and page checksums as stored, {:.2} as the traverse engine holds it)",
            l["encoding"].as_str().unwrap(),
            format_bytes(l["bytes"].as_u64().unwrap()),
            l["bits_per_edge"].as_f64().unwrap(),
            l["bits_per_edge_with_index"].as_f64().unwrap(),
            l["bits_per_edge_random_access"].as_f64().unwrap()
        );
    }
    if let Some(t) = &m.tiles {
        let bytes = m.files.get(&t.data).map_or(0, |f| f.bytes) + m.files.get(&t.index).map_or(0, |f| f.bytes);
        println!(
            "layout tiles {} x {} spans of 2^{}, {} non-empty tiles, {} edges{}: {} ({:.2} bits/edge)",
            t.spans,
            t.spans,
            t.span_bits,
            g(t.tiles),
            g(t.edges),
            if t.upper_triangle { " (upper triangle)" } else { "" },
            format_bytes(bytes),
            if t.edges == 0 { 0.0 } else { bytes as f64 * 8.0 / t.edges as f64 }
        );
    }
    if let Some(h) = &m.hot {
        let entries: u64 = h.columns.iter().map(|c| c.entries).sum();
        let stale = outcore_store::hot::unusable(store, &h.source).map(|why| format!(" [not used: {why}]")).unwrap_or_default();
        println!(
            "layout hot  {} columns of layout {}'s hottest neighbours, {} entries: {}{stale}",
            h.columns.len(),
            h.source,
            g(entries),
            format_bytes(entries * 4)
        );
    }
    let show = |label: &str, s: &outcore_algorithms::degrees::DegreeStats| -> Result<()> {
        println!("{label:<11} min {} max {} mean {:.2}, {} with degree 0", g(s.min), g(s.max), s.mean, g(s.zero));
        let top: Vec<String> = s.top.iter().map(|&(v, deg)| Ok(format!("{} ({})", ids.original(v)?, g(deg)))).collect::<Result<_>>()?;
        println!("{:<11} {}", format!("top {}", s.top.len()), top.join(", "));
        Ok(())
    };
    show(if m.directed { "out-degree" } else { "degree" }, &d.out)?;
    if let Some(i) = &d.r#in {
        show("in-degree", i)?;
    }
    Ok(())
}
