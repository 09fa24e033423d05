//! `outcore probe`: measure the device and record the best in-flight depth.

use anyhow::Result;
use outcore_io::probe::{probe, probe_record_path};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// A directory on the device to measure (default: the current one).
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Size of the scratch file.
    #[arg(long, default_value = "1G", value_parser = crate::parse_memory)]
    pub size: u64,
    /// Seconds per random-read test.
    #[arg(long, default_value_t = 2.0)]
    pub seconds: f64,
    /// Do not record the result for later runs.
    #[arg(long)]
    pub no_record: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: Args) -> Result<ExitCode> {
    let r = probe(&a.dir, a.size, a.seconds)?;
    let record = if a.no_record { None } else { probe_record_path() };
    if let Some(path) = &record {
        std::fs::create_dir_all(path.parent().unwrap())?;
        std::fs::write(path, serde_json::to_string_pretty(&r)?)?;
    }
    if a.json {
        println!("{}", serde_json::to_string_pretty(&r)?);
    } else {
        println!("sequential read   {:>8.0} MB/s (1 MiB reads, 16 in flight, O_DIRECT)", r.seq_read_mbps);
        println!("sequential write  {:>8.0} MB/s (4 MiB writes, O_DIRECT)", r.seq_write_mbps);
        for (qd, iops) in &r.rand_4k_iops {
            println!("random 4K read    {:>8.0} IOPS at queue depth {qd}", iops);
        }
        println!(
            "best in-flight target: {} ({} backend){}",
            r.best_depth,
            r.backend,
            record.map(|p| format!("; recorded in {}", p.display())).unwrap_or_default()
        );
    }
    Ok(ExitCode::SUCCESS)
}
