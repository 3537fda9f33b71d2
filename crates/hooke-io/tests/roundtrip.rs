//! The scene format round-trips bit for bit, and a final state is a checkpoint.
// Written for Real = f32; in f64 builds some casts are no-ops.
#![allow(clippy::unnecessary_cast, clippy::useless_conversion)]

use hooke::{Anchor, Integrator, Path, Scene, Simulation, StableForm, builders};
use hooke_io::{parse_scene, scene_to_json};

fn builtin(name: &str, params: &[(&str, &str)]) -> Scene {
    let p: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builders::build(name, &p).unwrap()
}

/// Writes and reads back; the scenes (model, settings, state) must be equal, and the
/// state's bits identical.
fn assert_roundtrip(scene: &Scene) -> Scene {
    let text = scene_to_json(scene);
    let back = parse_scene(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.state().bit_hash(), scene.state().bit_hash());
    assert_eq!(&back, scene);
    // Writing again gives the same text.
    assert_eq!(scene_to_json(&back), text);
    back
}

#[test]
fn every_builtin_roundtrips() {
    for b in builders::builtins() {
        let scene = hooke::builders::build(b.name, &[]).unwrap();
        assert_roundtrip(&scene);
    }
}

#[test]
fn a_running_state_roundtrips_with_awkward_floats() {
    let mut sim = Simulation::new(builtin("jelly", &[("nx", "3"), ("ny", "3"), ("nz", "3")]));
    sim.run(137).unwrap();
    let mut scene = sim.into_scene();
    // Values with long shortest representations, subnormals and negative zero.
    let st = scene.state_mut();
    st.v_mut()[0].x = hooke::Real::MIN_POSITIVE / 3.0;
    st.v_mut()[1].y = -0.0;
    st.x_mut()[2].z = 1.0 / 3.0;
    assert_roundtrip(&scene);
}

/// N steps, save, load, N more steps equals 2N steps, bit for bit — for every integrator
/// (Verlet keeps its last acceleration in the state), with an anchor path and Nissen
/// springs in the scene.
#[test]
fn resume_from_final_state_is_bit_exact() {
    for integ in Integrator::ALL {
        let mut scene = builtin("cloth", &[("width", "10"), ("height", "8")]);
        scene
            .edit(|b| {
                b.settings.integrator = integ;
                b.settings.dt = 1e-4;
                b.anchors.push(Anchor {
                    node: 5,
                    path: Path::Circular {
                        origin: [0.1, 1.0, 0.0],
                        center: [0.0, 1.0, 0.0],
                        axis: [0.0, 1.0, 0.0],
                        angular_velocity: 2.0,
                    },
                });
            })
            .unwrap();
        let scene = parse_scene(&scene_to_json(&scene)).unwrap();
        let mut straight = Simulation::new(scene.clone());
        straight.run(60).unwrap();
        let mut first = Simulation::new(scene);
        first.run(30).unwrap();
        let saved = scene_to_json(first.scene());
        let mut second = Simulation::new(parse_scene(&saved).unwrap());
        second.run(30).unwrap();
        assert_eq!(
            second.state().bit_hash(),
            straight.state().bit_hash(),
            "{}: resumed run differs",
            integ
        );
        assert_eq!(second.state().step(), 60);
    }
}

/// The implicit integrators with CG keep their warm start (the last Δv) in the state; the
/// impulse solver its impulses. Both must survive a checkpoint bit for bit.
#[test]
fn resume_keeps_solver_memory() {
    use hooke::{LinearSolver, Node, SceneBuilder, Spring, vec3};
    let mut cloth = builtin("cloth", &[("width", "9"), ("height", "7"), ("dt", "0.02")]);
    cloth
        .edit(|b| {
            b.settings.integrator = Integrator::BackwardEuler;
            b.settings.linear_solver = LinearSolver::Cg;
        })
        .unwrap();
    let mut b = SceneBuilder::new("chain");
    b.settings.integrator = Integrator::Impulse;
    b.settings.dt = 0.01;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 0.1));
    for i in 1..10u32 {
        b.add_node(Node::new(vec3(0.05 * i as hooke::Real, 0.0, 0.0), 0.05));
        b.add_spring(Spring::stable(i - 1, i, 0.3, 0.3));
    }
    for scene in [cloth, b.build().unwrap()] {
        let mut straight = Simulation::new(scene.clone());
        straight.run(20).unwrap();
        let mut first = Simulation::new(scene);
        first.run(10).unwrap();
        let saved = scene_to_json(first.scene());
        assert!(
            saved.contains("\"last_dv\"") || saved.contains("\"impulses\""),
            "solver memory saved"
        );
        let mut second = Simulation::new(parse_scene(&saved).unwrap());
        second.run(10).unwrap();
        assert_eq!(second.state().bit_hash(), straight.state().bit_hash());
    }
}

#[test]
fn resume_with_stable_springs_in_impulse_form() {
    use hooke::{Node, SceneBuilder, Spring, vec3};
    let mut b = SceneBuilder::new("chain");
    b.settings.stable_form = StableForm::Impulse;
    b.add_node(Node::pinned(vec3(0.0, 0.0, 0.0), 0.1));
    for i in 1..12u32 {
        b.add_node(Node::new(vec3(0.05 * i as hooke::Real, 0.0, 0.0), 0.05));
        b.add_spring(Spring::stable(i - 1, i, 0.3, 0.25));
    }
    let scene = parse_scene(&scene_to_json(&b.build().unwrap())).unwrap();
    assert_eq!(scene.model().springs().kind(0), hooke::SpringKind::Stable);
    assert_eq!(scene.settings().stable_form, StableForm::Impulse);
    let mut a = Simulation::new(scene.clone());
    a.run(40).unwrap();
    let mut b = Simulation::new(scene);
    b.run(20).unwrap();
    let mut c = Simulation::new(parse_scene(&scene_to_json(b.scene())).unwrap());
    c.run(20).unwrap();
    assert_eq!(a.state().bit_hash(), c.state().bit_hash());
}

/// An anchor without an origin starts where its node is, also when the scene resumes at
/// t > 0.
#[test]
fn anchor_origin_defaults_to_node_position_at_scene_time() {
    let text = r#"{ "format": "hooke/1",
      "nodes": [ { "x": [1, 0, 0], "pinned": true }, { "x": [2, 0, 0], "mass": 1 } ],
      "springs": [ { "a": 0, "b": 1, "k": 10 } ],
      "anchors": [ { "node": 0, "path": { "type": "linear", "velocity": [0, 1, 0] } } ],
      "state": { "t": 2.0, "step": 2000 } }"#;
    let scene = parse_scene(text).unwrap();
    match &scene.model().anchors()[0].path {
        Path::Linear { origin, .. } => assert_eq!(*origin, [1.0, -2.0, 0.0]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn schema_is_json_and_names_the_fields() {
    let s = hooke_io::schema();
    let v: serde_json::Value = serde_json::from_str(&s).expect("the schema is JSON");
    assert_eq!(v["title"], "hooke scene");
    let props = &v["properties"];
    for field in ["format", "settings", "nodes", "springs", "anchors", "state"] {
        assert!(props.get(field).is_some(), "schema lacks {field}");
    }
    for text in [
        "\"rest\"",
        "\"velocity_retention\"",
        "symplectic-euler",
        "\"stable\"",
        "[N/m]",
    ] {
        assert!(s.contains(text), "schema lacks {text}");
    }
}

/// 120 000 random finite bit patterns of the core's float type survive a scene round
/// trip (positions and velocities of a 1000-node scene, 20 times). This guards the
/// float_roundtrip feature of serde_json that f64 needs (f32 was also checked over all
/// 2^32 patterns when the format was designed).
#[test]
fn random_float_bits_roundtrip() {
    use hooke::{Node, Real, SceneBuilder, vec3};
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut random = || loop {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let r = if std::mem::size_of::<Real>() == 4 {
            f32::from_bits((seed >> 32) as u32) as f64
        } else {
            f64::from_bits(seed)
        };
        if r.is_finite() {
            return r as Real;
        }
    };
    for _ in 0..20 {
        let mut b = SceneBuilder::new("bits");
        for _ in 0..1000 {
            let x = vec3(random(), random(), random());
            b.add_node(Node::new(x, 1.0).with_velocity(vec3(random(), random(), random())));
        }
        assert_roundtrip(&b.build().unwrap());
    }
}

/// Editors add `"$schema"` to the files they validate: the format accepts it (and the
/// schema lists it), and every other unknown field is still an error.
#[test]
fn a_schema_key_is_accepted_and_listed() {
    let text = r#"{"$schema": "./hooke-1.json", "format": "hooke/1",
        "nodes": [{"x": [0, 0, 0], "pinned": true}, {"x": [1, 0, 0], "mass": 1}],
        "springs": [{"a": 0, "b": 1, "k": 10}]}"#;
    let scene = hooke_io::parse_scene(text).expect("a $schema key is accepted");
    assert_eq!(scene.model().nodes().len(), 2);
    let v: serde_json::Value = serde_json::from_str(&hooke_io::schema()).unwrap();
    assert!(
        v["properties"].get("$schema").is_some(),
        "the schema lists $schema"
    );
    let err = hooke_io::parse_scene(&text.replace("$schema", "$schemas")).unwrap_err();
    assert!(err.to_string().contains("$schemas"), "{err}");
}

/// Fast mass-spring's Chebyshev sweeps keep nothing between steps, and its friction
/// anchors are in the checkpoint, so a checkpoint taken anywhere in a run with contacts,
/// free fall and a sweep that swings apart resumes bit for bit (cloth-on-sphere at 1/60 s:
/// one sweep of its free fall restarts; from step 9 on, the cloth touches the sphere).
#[test]
fn fast_mass_spring_resumes_bit_for_bit() {
    let mut scene = builtin("cloth-on-sphere", &[]);
    scene
        .edit(|b| {
            b.settings.integrator = Integrator::FastMassSpring;
            b.settings.dt = 1.0 / 60.0;
        })
        .unwrap();
    let scene = parse_scene(&scene_to_json(&scene)).unwrap();
    let mut straight = Simulation::new(scene.clone());
    straight.run(36).unwrap();
    for split in [2, 5, 9, 30] {
        let mut first = Simulation::new(scene.clone());
        first.run(split).unwrap();
        let saved = scene_to_json(first.scene());
        assert!(
            split < 9 || saved.contains("friction_anchors"),
            "step {split}"
        );
        let mut second = Simulation::new(parse_scene(&saved).unwrap());
        second.run(36 - split).unwrap();
        let same = second.state().bit_hash() == straight.state().bit_hash();
        assert!(same, "resumed after step {split}: the run differs");
    }
}

#[test]
fn a_mesh_collider_roundtrips_and_resumes_bit_for_bit() {
    use hooke::contact::{Collider, ColliderMesh, Material, Shape};
    let ball = hooke::shapes::icosphere(2, 0.3, hooke::vec3(0.0, 0.6, 1.0));
    let mesh = ColliderMesh::new(ball.positions, ball.faces).unwrap();
    let mut scene = builtin("cloth-on-sphere", &[("nodes", "12")]);
    scene
        .edit(|b| {
            b.contacts.colliders = vec![Collider {
                shape: Shape::Mesh(mesh),
                material: Material::default(),
                path: Some(hooke::Path::Linear {
                    origin: [0.0, 0.6, 1.0],
                    velocity: [0.0, 0.1, 0.0],
                }),
            }]
        })
        .unwrap();
    let back = assert_roundtrip(&scene);
    // Stepped from its file, it is the scene stepped: through the landing on the mesh.
    let (mut a, mut b) = (Simulation::new(scene), Simulation::new(back));
    a.run(1500).unwrap();
    b.run(1500).unwrap();
    assert!(
        a.counters().surface_contacts > 0,
        "the cloth lands on the mesh"
    );
    assert_eq!(a.state().bit_hash(), b.state().bit_hash());
}

/// A collider a program placed (turned and moved) is kept in a checkpoint: the run
/// resumed from the file goes on bit for bit as the run that never stopped, with the
/// collider where the program left it (its path no longer applies). A bad entry in the
/// file is refused by name.
#[test]
fn a_collider_placed_by_the_program_is_kept_in_a_checkpoint() {
    use hooke::{Pose, Quat, vec3};
    let scene = builtin("cloth-on-sphere", &[("nodes", "12")]);
    let mut straight = Simulation::new(scene.clone());
    let place = |sim: &mut Simulation, s: u32| {
        let turn = Quat::from_rotation_y(0.02 * s as hooke::Real);
        let pose = Pose::new(turn, vec3(0.0, 0.002 * s as hooke::Real, 0.0));
        sim.place_collider(0, pose).unwrap();
    };
    let mut first = Simulation::new(scene);
    for s in 0..40 {
        place(&mut straight, s);
        straight.step().unwrap();
        place(&mut first, s);
        first.step().unwrap();
    }
    let saved = scene_to_json(first.scene());
    assert!(
        saved.contains("\"colliders\": [{\"collider\": 0"),
        "{saved}"
    );
    let back = assert_roundtrip(first.scene());
    let mut second = Simulation::new(back);
    assert_eq!(second.collider_pose(0), straight.collider_pose(0));
    // Left where it was put, with no more word from the program.
    straight.run(30).unwrap();
    second.run(30).unwrap();
    assert_eq!(second.state().bit_hash(), straight.state().bit_hash());
    let bad = saved.replace("\"collider\": 0", "\"collider\": 4");
    let e = parse_scene(&bad).unwrap_err().to_string();
    assert!(
        e.contains("state.colliders[0].collider: 4 is not a collider"),
        "{e}"
    );
}
