//! The figures: `outcore info --plot` draws one point per non-empty degree
//! bucket at the right place, and `--report` draws a run's per-step
//! figures. The values are checked twice: the data the SVG carries equals
//! a plain count from the edge file (the oracle), and every drawn point
//! sits where the log (or linear) axes put that value.

mod common;
use common::outcore;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn shared() -> PathBuf {
    outcore_io::shared_dir(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The value of attribute `name` in one SVG element's text.
fn attr<'a>(element: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = element.find(&key)? + key.len();
    Some(&element[start..start + element[start..].find('"')?])
}

/// (cx, cy) of the filled circles of colour `fill`, in drawing order.
fn circles(svg: &str, fill: &str) -> Vec<(f64, f64)> {
    svg.split("<circle")
        .skip(1)
        .map(|rest| &rest[..rest.find("/>").unwrap_or(rest.len())])
        .filter(|e| attr(e, "fill").is_some_and(|f| f.eq_ignore_ascii_case(fill)))
        .map(|e| (attr(e, "cx").unwrap().parse().unwrap(), attr(e, "cy").unwrap().parse().unwrap()))
        .collect()
}

/// The JSON of the figure's `<desc id="outcore-data">`.
fn data(svg: &str) -> serde_json::Value {
    let start = svg.find("<desc id=\"outcore-data\">").expect("the figure carries its data") + "<desc id=\"outcore-data\">".len();
    let text = &svg[start..start + svg[start..].find("</desc>").unwrap()];
    serde_json::from_str(&text.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")).unwrap()
}

/// Points (x, y) in data units drawn at pixels (px, py): check that one
/// affine map of (f(x), f(y)) gives every pixel, within a pixel.
fn assert_on_axes(points: &[(f64, f64)], pixels: &[(f64, f64)], f: fn(f64) -> f64, what: &str) {
    assert_eq!(points.len(), pixels.len(), "{what}: {} points drawn for {} values", pixels.len(), points.len());
    let fit = |coord: fn(&(f64, f64)) -> f64, pix: fn(&(f64, f64)) -> f64| {
        let (i, j) = (0..points.len())
            .flat_map(|i| (0..points.len()).map(move |j| (i, j)))
            .max_by(|a, b| {
                let d = |&(i, j): &(usize, usize)| (f(coord(&points[i])) - f(coord(&points[j]))).abs();
                d(a).partial_cmp(&d(b)).unwrap()
            })
            .unwrap();
        let (a, b) = (f(coord(&points[i])), f(coord(&points[j])));
        if (a - b).abs() < 1e-12 {
            return;
        }
        let scale = (pix(&pixels[i]) - pix(&pixels[j])) / (a - b);
        for (p, q) in points.iter().zip(pixels) {
            let expect = pix(&pixels[i]) + (f(coord(p)) - a) * scale;
            assert!((pix(q) - expect).abs() <= 1.5, "{what}: value {p:?} drawn at {q:?}, the axes put it at {expect}");
        }
    };
    fit(|p| p.0, |q| q.0);
    fit(|p| p.1, |q| q.1);
}

/// Out- and in-degree histograms (power-of-two buckets, degree 0 apart)
/// counted from an edge file, duplicates collapsed as the import does.
fn histograms(edges: &Path) -> (BTreeMap<u64, u64>, BTreeMap<u64, u64>) {
    let text = std::fs::read_to_string(edges).unwrap();
    let mut arcs = std::collections::BTreeSet::new();
    let mut vertices = std::collections::BTreeSet::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let mut it = line.split_whitespace().map(|x| x.parse::<u64>().unwrap());
        let (a, b) = (it.next().unwrap(), it.next().unwrap());
        arcs.insert((a, b));
        vertices.insert(a);
        vertices.insert(b);
    }
    let mut out = BTreeMap::new();
    let mut inn = BTreeMap::new();
    for &(a, b) in &arcs {
        *out.entry(a).or_insert(0u64) += 1;
        *inn.entry(b).or_insert(0u64) += 1;
    }
    let bucket = |degrees: &BTreeMap<u64, u64>| {
        let mut h = BTreeMap::new();
        for v in &vertices {
            let d = degrees.get(v).copied().unwrap_or(0);
            let k = if d == 0 { 0 } else { 1u64 << (63 - d.leading_zeros()) };
            *h.entry(k).or_insert(0u64) += 1;
        }
        h
    };
    (bucket(&out), bucket(&inn))
}

#[test]
fn degree_plot_has_one_point_per_bucket_where_the_axes_put_it() {
    let dir = tempfile::tempdir().unwrap();
    let edges = shared().join("real/wiki-Vote.txt");
    let store = dir.path().join("wiki.store");
    let (code, _, err) = outcore(&["import", s(&edges), "-o", s(&store), "-q"]);
    assert_eq!(code, 0, "{err}");
    let plot = dir.path().join("degrees.svg");
    let (code, _, err) = outcore(&["info", s(&store), "--plot", s(&plot)]);
    assert_eq!(code, 0, "{err}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    let drawn = data(&svg);
    let (out, inn) = histograms(&edges);
    for (name, oracle, fill) in [("out-degree", &out, "#1F77B4"), ("in-degree", &inn, "#D62728")] {
        let series = &drawn[name];
        let points: Vec<(f64, f64)> =
            series["points"].as_array().unwrap().iter().map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap())).collect();
        let expect: Vec<(f64, f64)> = oracle.iter().filter(|(&k, _)| k > 0).map(|(&k, &c)| (k as f64, c as f64)).collect();
        assert_eq!(points, expect, "{name}: the drawn buckets are not the edge file's");
        assert_eq!(series["zero"].as_u64(), oracle.get(&0).copied().or(Some(0)), "{name}: vertices of degree 0");
        // the legend draws one more circle of the series' colour, last
        let mut pixels = circles(&svg, fill);
        assert_eq!(pixels.len(), points.len() + 1, "{name}: one circle per bucket and one in the legend");
        pixels.pop();
        assert_on_axes(&points, &pixels, f64::log10, name);
    }
    // an existing file is kept unless --force
    let (code, _, err) = outcore(&["info", s(&store), "--plot", s(&plot)]);
    assert_ne!(code, 0);
    assert!(err.contains("--force") || err.contains("exists"), "{err}");
    let (code, _, err) = outcore(&["info", s(&store), "--plot", s(&plot), "--force"]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn run_report_draws_the_figures_per_iteration() {
    let dir = tempfile::tempdir().unwrap();
    let edges = shared().join("real/CA-GrQc.txt");
    let store = dir.path().join("g.store");
    let (code, _, err) = outcore(&["import", s(&edges), "-o", s(&store), "--undirected", "--layouts", "tiles", "-q"]);
    assert_eq!(code, 0, "{err}");
    let svg_path = dir.path().join("pr.svg");
    let json_path = dir.path().join("pr.json");
    let (code, json, err) =
        outcore(&["pagerank", s(&store), "--engine", "stream", "--iterations", "6", "--report", s(&svg_path), "--json", "-q"]);
    assert_eq!(code, 0, "{err}");
    std::fs::write(&json_path, &json).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let per = report["per_iteration"].as_array().unwrap();
    assert_eq!(per.len(), 6);
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    let drawn = data(&svg);
    for key in ["seconds", "bytes_read", "bytes_from_cache", "edges"] {
        let values: Vec<f64> =
            drawn[key]["values"].as_array().unwrap_or_else(|| panic!("{key} not drawn")).iter().map(|v| v.as_f64().unwrap()).collect();
        let expect: Vec<f64> = per.iter().map(|i| i[key].as_f64().unwrap()).collect();
        assert_eq!(values, expect, "{key}");
    }
    // the edges panel (colour of its place): 6 points on linear axes
    let edges_at = drawn.as_object().unwrap().keys().position(|k| k == "edges").unwrap();
    let fill = ["#1F77B4", "#D62728", "#2CA02C", "#9467BD"][edges_at % 4];
    let values: Vec<f64> = drawn["edges"]["values"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    let points: Vec<(f64, f64)> = values.iter().enumerate().map(|(k, &v)| (k as f64 + 1.0, v)).collect();
    let all = circles(&svg, fill);
    assert_eq!(all.len(), 6 * drawn.as_object().unwrap().keys().enumerate().filter(|(i, _)| i % 4 == edges_at % 4).count());
    let start = 6 * drawn.as_object().unwrap().keys().enumerate().filter(|(i, _)| i % 4 == edges_at % 4 && *i < edges_at).count();
    assert_on_axes(&points, &all[start..start + 6], |x| x, "edges per iteration");
    // and as a page
    let html = dir.path().join("pr.html");
    let (code, _, err) = outcore(&["pagerank", s(&store), "--engine", "stream", "--iterations", "2", "--report", s(&html), "-q"]);
    assert_eq!(code, 0, "{err}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<svg") && page.contains("<th>engine</th><td>stream</td>"), "{page}");
}
