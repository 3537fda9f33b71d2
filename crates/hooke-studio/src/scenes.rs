//! The scenes the studio makes itself: the one it opens with, and the big cloth.

use hooke::builders::{ClothParams, ClothPin, ClothPlane, cloth};
use hooke::contact::{Collider, Ground, Material, Shape};
use hooke::{Scene, vec3};

/// The scene the studio opens with, playing: a 32×32 cloth pinned at two corners falls,
/// swings over a sphere and drapes onto the ground — springs, strain colours, contact
/// and friction in the first three seconds, at real time in a browser.
pub fn first_scene() -> Scene {
    let mut b = cloth(&ClothParams {
        width: 32,
        height: 32,
        size: 1.2,
        mass: 1.0,
        k: 600.0,
        k_shear: 150.0,
        k_bend: 30.0,
        pin: ClothPin::Corners,
        plane: ClothPlane::Horizontal,
        ..ClothParams::default()
    })
    .expect("the first cloth builds");
    b.name = "drape".into();
    b.description = "a cloth pinned at two corners falls over a sphere onto the ground".into();
    let material = Material {
        roughness: 0.5,
        static_roughness: 0.5,
        restitution: 0.0,
    };
    // The cloth lies at y = 1 m over z in [0, 1.2] m, pinned along z = 0: it swings down
    // onto the sphere, and its free edge reaches the ground.
    b.contacts.colliders.push(Collider {
        shape: Shape::Sphere {
            center: vec3(0.0, 0.4, 0.6),
            radius: 0.3,
        },
        material,
        path: None,
    });
    b.contacts.ground = Some(Ground {
        material,
        ..Ground::default()
    });
    b.duration = 6.0;
    // 81% of symplectic Euler's estimated limit (7.4e-4 s), as the big cloth: 1667 steps
    // per second. Measured over the 6 s: max stretch 11.7% (11.6% at 4e-4 s), the audit's
    // residual −1.2% of the energy in play (−0.5% at 4e-4 s). In software WebGL the page's
    // main thread steps and waits for rasterisation in turn, so each step costs frame rate.
    b.settings.dt = 6e-4;
    b.build().expect("the first scene builds")
}

/// A 64×64 cloth (4096 nodes, 24k springs) pinned at two corners, tuned to run in real
/// time in a browser: the studio's heavy case.
pub fn big_cloth() -> Scene {
    hooke::builders::build(
        "cloth",
        &[
            ("width".into(), "64".into()),
            ("height".into(), "64".into()),
            ("mass".into(), "1".into()),
            ("k".into(), "300".into()),
            ("k_shear".into(), "75".into()),
            ("k_bend".into(), "15".into()),
        ],
    )
    .map(|mut scene| {
        // 82% of symplectic Euler's estimated limit (4.9e-4 s): 2500 steps per second.
        scene
            .edit(|b| b.settings.dt = 4e-4)
            .expect("a smaller step is valid");
        scene
    })
    .expect("the big cloth builds")
}
