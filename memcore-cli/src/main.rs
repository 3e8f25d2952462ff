//! `memcore`: persistent, searchable memory for AI agents, from a shell. The command itself is
//! the `memcore_cli` library ([`memcore_cli::run`]).

use std::process::ExitCode;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod allocator;

/// ONNX Runtime 1.29 and later (the PyPI build memcore loads) sends Microsoft telemetry from
/// Linux and macOS and keeps a device id under `~/.cache/Microsoft`, unless this variable is
/// set before it loads; the library's own switch (`with_telemetry(false)`) comes too late to
/// stop the first event. memcore promises no network, so the command sets it unless the user
/// did.
const ORT_TELEMETRY_OPT_OUT: &str = "ORT_DISABLE_TELEMETRY";

/// Sets [`ORT_TELEMETRY_OPT_OUT`] unless the environment already has it.
#[allow(unsafe_code)]
fn opt_out_of_runtime_telemetry() {
    if std::env::var_os(ORT_TELEMETRY_OPT_OUT).is_none() {
        // SAFETY: the first thing `main` does, while the process has a single thread, so no
        // other thread can read or write the environment at the same time.
        unsafe { std::env::set_var(ORT_TELEMETRY_OPT_OUT, "1") };
    }
}

fn main() -> ExitCode {
    opt_out_of_runtime_telemetry();
    let host = memcore_cli::Host::new();
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let host = host.before_command(allocator::keep_freed_memory_for_reuse);
    ExitCode::from(memcore_cli::run(std::env::args_os(), host))
}
