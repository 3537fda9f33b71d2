//! Import OBJ: a triangle mesh turned into a spring model the way `hooke convert` does by
//! default, scaled down first when its coordinates are too large to be metres.
//!
//! hooke reads coordinates as metres, and positions (f32 by default) near a coordinate X
//! resolve only about X·ε (ε ≈ 1.2·10⁻⁷): a mesh in millimetres or centimetres, hundreds
//! of units across, resolves less than a small step moves a node, and its run diverges
//! (a converted Nefertiti, 500 units across, stops within 200 steps). `hooke convert`
//! warns and takes `--scale`; the studio, where nobody reads a warning before pressing
//! play, scales such a mesh by a power of ten and says so.

use hooke::springify::{LARGEST_IN_METRES, MassSpec, MeshSource, SpringifyOptions, springify};
use hooke::{Scene, Vec3};

/// Converts a triangle mesh into a spring model the way `hooke convert` does by default
/// (1 kg, k = 1000 N/m, bend bracing) with a stable step; a mesh reaching past
/// [`LARGEST_IN_METRES`] is first scaled by a power of ten to lie within 10 m. Returns the
/// scene and, when it was scaled, a line saying so.
pub fn mesh_scene(mut src: MeshSource) -> Result<(Scene, Option<String>), String> {
    let far = src.reach();
    let scale = scale_for(far);
    if scale != 1.0 {
        src.scale(scale as hooke::Real);
    }
    let notice = (scale != 1.0).then(|| {
        format!(
            "the mesh reaches {far:.0} units from its origin, too far to be metres: \
             scaled by {scale} (as if in {})",
            unit_of(scale)
        )
    });
    Ok((convert(&src)?, notice))
}

/// The power of ten that brings a mesh reaching `far` \[m] within 10 m; 1 for a mesh
/// within [`LARGEST_IN_METRES`].
fn scale_for(far: f64) -> f64 {
    if far <= LARGEST_IN_METRES {
        return 1.0;
    }
    10f64.powi(-((far / 10.0).log10().ceil() as i32))
}

/// What a mesh scaled by `scale` was measured in, in words.
fn unit_of(scale: f64) -> &'static str {
    match -(scale.log10().round() as i32) {
        2 => "centimetres",
        3 => "millimetres",
        _ => "units that small",
    }
}

/// `hooke convert`'s defaults.
fn convert(src: &MeshSource) -> Result<Scene, String> {
    let opts = SpringifyOptions {
        mass: MassSpec::Total(1.0),
        k: 1000.0,
        c: 0.5,
        bend: Some(200.0),
        ..SpringifyOptions::default()
    };
    let (mut b, _) = springify(src, &opts).map_err(|e| e.to_string())?;
    b.settings.dt = 0.0; // the stable step, chosen by build
    if b.env.gravity == Vec3::ZERO {
        b.env.gravity = hooke::vec3(0.0, -9.81, 0.0);
    }
    b.build().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An octahedron of "radius" r, as an OBJ would give it.
    fn octahedron(r: f64) -> MeshSource {
        let text = "v 1 0 0\nv -1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nv 0 0 -1\n\
                    f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\nf 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n";
        let opts = hooke_io::mesh_import::ImportOptions { triangulate: true };
        let mut src = hooke_io::mesh_import::obj_from_text("o.obj", text, opts).unwrap();
        src.scale(r as hooke::Real);
        src
    }

    fn reach(scene: &Scene) -> f64 {
        let x = scene.state().positions();
        MeshSource {
            positions: x,
            ..Default::default()
        }
        .reach()
    }

    #[test]
    fn a_mesh_in_metres_is_kept_as_it_is() {
        let (scene, notice) = mesh_scene(octahedron(2.0)).unwrap();
        assert!((reach(&scene) - 2.0).abs() < 1e-6, "{}", reach(&scene));
        assert_eq!(notice, None);
    }

    /// 500 units (Nefertiti's size) read as centimetres: 5 m; 4 500 as millimetres.
    #[test]
    fn a_mesh_too_large_for_metres_is_scaled_by_a_power_of_ten_and_said_so() {
        for (r, want, unit) in [(500.0, 5.0, "centimetres"), (4500.0, 4.5, "millimetres")] {
            let (scene, notice) = mesh_scene(octahedron(r)).unwrap();
            assert!(
                (reach(&scene) - want).abs() < 1e-4,
                "{r}: {}",
                reach(&scene)
            );
            let notice = notice.expect("a notice");
            assert!(
                notice.contains(unit) && notice.contains(&format!("{r:.0}")),
                "{notice}"
            );
        }
        assert_eq!(scale_for(100.0), 1.0);
        assert_eq!(scale_for(101.0), 0.01);
    }
}
