//! The binary glTF importer and the mesh-to-springs converter on any bytes: never a panic.
#![no_main]

use hooke::springify::{SpringifyOptions, springify};
use hooke_io::mesh_import::glb_from_bytes;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(src) = glb_from_bytes("fuzz.glb", data) else {
        return;
    };
    let opts = SpringifyOptions {
        bend: Some(100.0),
        volume: (data.len() % 2 == 0).then_some(500.0),
        ..SpringifyOptions::default()
    };
    let _ = springify(&src, &opts);
});
