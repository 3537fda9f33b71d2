//! Writing Wavefront OBJ: positions, per-node normals, texture coordinates and faces of
//! every surface, with an optional material library (MTL) naming the texture.

use std::io::Write;

use hooke::Vec3;
use hooke::mesh::Surface;

/// Writes one OBJ: every node as a vertex (`v`, so node i is vertex i + 1), a normal per
/// node (`vn`, same numbering), each surface's texture coordinates (`vt`) and faces as an
/// object `o NAME` (`f v/vt/vn`, or `f v//vn` without coordinates). `mtl` names a material
/// library and the material `usemtl` selects for surfaces with a texture.
pub fn write_obj(
    w: &mut impl Write,
    x: &[Vec3],
    normals: &[Vec3],
    surfaces: &[Surface],
    mtl: Option<(&str, &str)>,
) -> std::io::Result<()> {
    writeln!(
        w,
        "# hooke: {} nodes, {} surface(s)",
        x.len(),
        surfaces.len()
    )?;
    if let Some((lib, _)) = mtl {
        writeln!(w, "mtllib {lib}")?;
    }
    for p in x {
        writeln!(w, "v {} {} {}", p.x, p.y, p.z)?;
    }
    for n in normals {
        writeln!(w, "vn {} {} {}", n.x, n.y, n.z)?;
    }
    let mut vt_base = 0usize;
    for (i, s) in surfaces.iter().enumerate() {
        let name = if s.name.is_empty() {
            format!("surface{i}")
        } else {
            s.name.replace(char::is_whitespace, "_")
        };
        writeln!(w, "o {name}")?;
        for uv in &s.uvs {
            writeln!(w, "vt {} {}", uv[0], uv[1])?;
        }
        if let (Some((_, material)), Some(_)) = (mtl, &s.texture) {
            writeln!(w, "usemtl {material}")?;
        }
        let with_uv = !s.face_uvs.is_empty();
        for (f, face) in s.faces.iter().enumerate() {
            write!(w, "f")?;
            for (c, &node) in face.iter().enumerate() {
                let v = node as usize + 1;
                if with_uv {
                    write!(w, " {v}/{}/{v}", s.face_uvs[f][c] as usize + vt_base + 1)?;
                } else {
                    write!(w, " {v}//{v}")?;
                }
            }
            writeln!(w)?;
        }
        vt_base += s.uvs.len();
    }
    Ok(())
}

/// Writes a material library with one material `name` whose diffuse map is `texture`.
pub fn write_mtl(w: &mut impl Write, name: &str, texture: &str) -> std::io::Result<()> {
    writeln!(w, "# hooke")?;
    writeln!(w, "newmtl {name}")?;
    writeln!(w, "Ka 1 1 1")?;
    writeln!(w, "Kd 1 1 1")?;
    writeln!(w, "Ks 0 0 0")?;
    writeln!(w, "illum 1")?;
    writeln!(w, "map_Kd {texture}")
}
