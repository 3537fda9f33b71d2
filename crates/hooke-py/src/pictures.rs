//! Pictures from Python through hooke-render (the CLI's renderer): one frame of a
//! simulation as an (height, width, 3) uint8 array, and a recorded run as a GIF. The
//! `style` and `camera` arguments take the CLI's words.

use hooke_render::{ColorBy, Look, Style, View};
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tiny_skia::Pixmap;

/// The drawing style: `auto` (solid when the scene has surfaces, else wire), `wire` or
/// `solid`.
pub(crate) fn style(name: &str, model: &hooke::Model) -> PyResult<Style> {
    match name {
        "auto" if model.surfaces().is_empty() => Ok(Style::Wire),
        "auto" | "solid" => Ok(Style::Solid),
        "wire" => Ok(Style::Wire),
        _ => Err(PyValueError::new_err(format!(
            "style: {name:?} is not one of auto, wire, solid"
        ))),
    }
}

/// The camera: `"3d"` (a three-quarter view), `"2d"` (the xy plane) or `(yaw, pitch)` in
/// degrees.
pub(crate) fn view(camera: &Bound<'_, PyAny>) -> PyResult<View> {
    if let Ok(name) = camera.extract::<String>() {
        return match name.as_str() {
            "3d" => Ok(View::DEFAULT_3D),
            "2d" => Ok(View::Plane),
            _ => Err(PyValueError::new_err(format!(
                "camera: {name:?}: give \"2d\", \"3d\" or (yaw, pitch) in degrees"
            ))),
        };
    }
    match camera.extract::<(f64, f64)>() {
        Ok((yaw, pitch)) if yaw.is_finite() && pitch.abs() < 90.0 => Ok(View::Orbit {
            yaw: yaw.to_radians(),
            pitch: pitch.to_radians(),
        }),
        _ => Err(PyValueError::new_err(
            "camera: give \"2d\", \"3d\" or (yaw, pitch) in degrees with |pitch| < 90",
        )),
    }
}

/// A picture size, each side 16..8192 pixels.
pub(crate) fn size(width: u32, height: u32) -> PyResult<(u32, u32)> {
    let ok = |s: u32| (16..=8192).contains(&s);
    if ok(width) && ok(height) {
        Ok((width, height))
    } else {
        Err(PyValueError::new_err(format!(
            "size: {width}×{height} pixels; give each side 16..8192"
        )))
    }
}

/// The look for `style`: strain colours, no textures.
pub(crate) fn look(style: Style) -> Look {
    Look::new(style, ColorBy::Strain)
}

/// `pm`'s pixels as an (height, width, 3) uint8 array (the background is opaque, so the
/// premultiplied colours are the colours).
pub(crate) fn rgb<'py>(py: Python<'py>, pm: &Pixmap) -> PyResult<Bound<'py, PyArray3<u8>>> {
    let rgb: Vec<u8> = pm
        .data()
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    PyArray1::from_vec(py, rgb).reshape([pm.height() as usize, pm.width() as usize, 3])
}
