//! The core's vectors as the file writes them, both ways. (The enums named in the file
//! are the core's own, with its `serde` feature.)

use hooke::Vec3;

use crate::format::V3;

pub(super) fn v3(a: V3) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

pub(super) fn arr(v: Vec3) -> V3 {
    v.to_array()
}
