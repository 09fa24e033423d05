//! The `outcore` binary: a call into the CLI library.

fn main() -> std::process::ExitCode {
    outcore_cli::cli_main(std::env::args_os())
}
