//! Surfaces between the file and the core.

use hooke::mesh::{Pressure, Surface};

use crate::format::{PressureFile, SurfaceFile};

/// The file's surfaces as the core's.
pub(crate) fn surfaces(files: &[SurfaceFile]) -> Vec<Surface> {
    files
        .iter()
        .map(|s| Surface {
            name: s.name.clone(),
            faces: s.faces.clone(),
            uvs: s.uvs.clone(),
            face_uvs: s.face_uvs.clone(),
            texture: s.texture.clone(),
            pressure: s.pressure.as_ref().map(|p| match *p {
                PressureFile::IdealGas { nrt } => Pressure::IdealGas { nrt },
                PressureFile::TargetVolume { volume, scale } => {
                    Pressure::TargetVolume { volume, scale }
                }
            }),
        })
        .collect()
}

/// The core's surfaces as the file's.
pub(crate) fn surfaces_file(surfaces: &[Surface]) -> Vec<SurfaceFile> {
    surfaces
        .iter()
        .map(|s| SurfaceFile {
            name: s.name.clone(),
            faces: s.faces.clone(),
            uvs: s.uvs.clone(),
            face_uvs: s.face_uvs.clone(),
            texture: s.texture.clone(),
            pressure: s.pressure.map(|p| match p {
                Pressure::IdealGas { nrt } => PressureFile::IdealGas { nrt },
                Pressure::TargetVolume { volume, scale } => {
                    PressureFile::TargetVolume { volume, scale }
                }
            }),
        })
        .collect()
}
