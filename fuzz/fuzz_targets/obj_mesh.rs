//! The OBJ importer and the mesh-to-springs converter on any text: never a panic.
#![no_main]

use hooke::springify::{SpringifyOptions, springify};
use hooke_io::mesh_import::{ImportOptions, obj_from_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let triangulate = text.len() % 2 == 0;
    let Ok(src) = obj_from_text("fuzz.obj", text, ImportOptions { triangulate }) else {
        return;
    };
    // The converter on the mesh, as `hooke convert --bend --shear [--volume]` runs it.
    let opts = SpringifyOptions {
        bend: Some(100.0),
        shear: Some(100.0),
        volume: triangulate.then_some(500.0),
        ..SpringifyOptions::default()
    };
    let _ = springify(&src, &opts);
});
