//! `hooke`: run, build, check and benchmark mass-spring scenes.
//!
//! Exit codes: 0 ok; 1 an output could not be written; 2 bad input (the message names
//! the file, field, index and value); 3 the simulation diverged (with a diagnosis).

mod bad_input;
mod bench;
#[cfg(feature = "gpu")]
mod bench_gpu;
mod bench_solvers;
mod caveats;
mod check;
mod convert_cmd;
mod edit_cmd;
mod fold;
mod load;
mod manifest;
mod plot_cmd;
mod pool;
mod render_cmd;
mod render_run;
mod run;
mod scene_cmd;
mod set_path;
#[cfg(feature = "studio")]
mod studio_cmd;
mod trial;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[cfg(feature = "gpu")]
pub use bad_input::gpu_error;
pub use bad_input::{BadInput, bad, exit_code};
pub use pool::thread_pool;

/// hooke: mass-spring simulation — strings, cloth, jelly, balloons, soft creatures.
#[derive(Parser)]
#[command(name = "hooke", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene file or built-in scene; write final.json, energy.csv, trajectory.npy
    Run(run::RunArgs),
    /// Write a built-in scene as a scene file (or list them with --list)
    Scene(scene_cmd::SceneArgs),
    /// Validate a scene and print its stability report
    Check(check::CheckArgs),
    /// Turn a triangle mesh (OBJ, glTF, GLB) into a scene of nodes, springs and a surface
    Convert(convert_cmd::ConvertArgs),
    /// Add or remove springs and nodes, pin or unpin nodes; write the edited scene
    Edit(edit_cmd::EditArgs),
    /// Simulate and draw: an animated GIF or PNG frames (wire or solid, strain colours)
    Render(render_cmd::RenderArgs),
    /// Plot a run's energy.csv (kinetic, potential, total against time) as a PNG
    Plot(plot_cmd::PlotArgs),
    /// Time the step on standard scenes (spring-updates per second)
    Bench(bench::BenchArgs),
    /// Open the interactive studio (a window, or the browser page with --web)
    #[cfg(feature = "studio")]
    Studio(studio_cmd::StudioArgs),
    /// Print the scene format's JSON Schema
    Schema,
}

/// Mesa's device-select Vulkan layer asks Wayland for the default GPU and prints
/// "XDG_RUNTIME_DIR is invalid" on a machine without a session; wgpu chooses its adapter
/// itself, so the layer is turned off there (`NODEVICE_SELECT`, Mesa's own switch).
fn quiet_vulkan_layers() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && std::env::var_os("NODEVICE_SELECT").is_none()
    {
        // SAFETY: called once at start-up, before any thread exists.
        unsafe { std::env::set_var("NODEVICE_SELECT", "1") };
    }
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`hooke check x | head`) would
    // panic; restore the default action: the process ends quietly, like other tools.
    #[cfg(unix)]
    // SAFETY: called once at start-up, before any thread exists; SIG_DFL is a valid action.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    quiet_vulkan_layers();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => run::run(a),
        Command::Scene(a) => scene_cmd::scene(a),
        Command::Check(a) => check::check(a),
        Command::Convert(a) => convert_cmd::convert(a),
        Command::Edit(a) => edit_cmd::edit(a),
        Command::Render(a) => render_cmd::render(a),
        Command::Plot(a) => plot_cmd::plot(a),
        Command::Bench(a) => bench::bench(a),
        #[cfg(feature = "studio")]
        Command::Studio(a) => studio_cmd::studio(a),
        Command::Schema => {
            println!("{}", hooke_io::schema());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(exit_code(&e))
        }
    }
}
