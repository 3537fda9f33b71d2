//! The scene loader and validator on any bytes: never a panic; a scene that loads is
//! checked (stability report) and written back, and the written text loads to the same
//! text (the format's round trip).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(scene) = hooke_io::parse_scene(text) else {
        return;
    };
    let _ = hooke::stability::report(scene.model(), scene.settings());
    let _ = hooke::stability::largest_stable_h_switched(scene.model(), scene.settings().integrator);
    let json = hooke_io::scene_to_json(&scene);
    let again = hooke_io::parse_scene(&json)
        .unwrap_or_else(|e| panic!("a scene hooke wrote does not load back: {e}\n{json}"));
    assert_eq!(
        json,
        hooke_io::scene_to_json(&again),
        "the round trip changed the scene"
    );
});
