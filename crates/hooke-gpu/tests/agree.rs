//! The GPU step against the CPU's (issue 16, Build 5): runs on whatever adapter wgpu finds
//! — Mesa's lavapipe in CI (`apt-get install mesa-vulkan-drivers libvulkan1`).

mod common;

use common::*;
use hooke::{Scene, Simulation, Vec3};
use hooke_gpu::{Batch, GpuError};

/// Issue 16's bound: after 400 steps of the cloth 32 and 128 scenes, within 1e-4 m of
/// the CPU's run.
#[test]
fn cloth_32_and_128_agree_with_the_cpu_after_400_steps() {
    let gpu = gpu();
    // The 128 cloth's step is 16 times shorter: 400 steps move it 0.3 mm; a softer one
    // (its step 10 times longer) moves 100 times further.
    let cases = [
        ("32", "1000", 0.01),
        ("128", "1000", 2e-4),
        ("128", "10", 5e-3),
    ];
    for (size, k) in cases.map(|(s, k, _)| (s, k)) {
        let (ks, kb) = (
            k.parse::<f64>().unwrap() / 4.0,
            k.parse::<f64>().unwrap() / 20.0,
        );
        let (ks, kb) = (ks.to_string(), kb.to_string());
        let params = [
            ("width", size),
            ("height", size),
            ("k", k),
            ("k_shear", &ks),
            ("k_bend", &kb),
        ];
        let scene = built_in("cloth", &params);
        let (gap, moved) = cpu_vs_gpu(&gpu, scene, 400);
        println!(
            "cloth {size}, k = {k}: gap {gap:.3e} m, moved {moved:.3e} m on {}",
            gpu.describe()
        );
        let least = cases.iter().find(|c| c.0 == size && c.1 == k).unwrap().2;
        assert!(moved > least, "cloth {size} moved only {moved} m");
        assert!(gap < 1e-4, "cloth {size}: GPU and CPU {gap:.3e} m apart");
    }
}

#[test]
fn every_covered_force_family_agrees_with_the_cpu() {
    let (gap, moved) = cpu_vs_gpu(&gpu(), everything_scene(2), 2000);
    assert!(moved > 0.05, "moved only {moved} m");
    assert!(gap < 1e-4, "GPU and CPU {gap:.3e} m apart");
}

/// Velocity Verlet: the force families and the contacts, within the bounds; and a run
/// handed from the GPU back to the CPU half-way (Verlet's acceleration with it) ends where
/// the CPU alone ends.
#[test]
fn verlet_agrees_with_the_cpu_and_hands_over_to_it() {
    let gpu = gpu();
    let verlet = |mut s: Scene| {
        s.edit(|b| b.settings.integrator = hooke::Integrator::Verlet)
            .unwrap();
        s
    };
    let (gap, moved) = cpu_vs_gpu(&gpu, verlet(everything_scene(2)), 2000);
    assert!(
        moved > 0.05 && gap < 1e-4,
        "forces: gap {gap:.3e} m, moved {moved} m"
    );
    let contacts = verlet(contact_scene());
    let steps = contact_horizon(&contacts, 3000);
    let (gap, moved) = cpu_vs_gpu(&gpu, contacts, steps);
    assert!(
        moved > 0.05 && gap < 1e-3,
        "contacts: gap {gap:.3e} m, moved {moved} m"
    );
    let scene = verlet(built_in("cloth", &[("width", "12"), ("height", "12")]));
    let mut cpu = Simulation::new(scene.clone());
    cpu.run(400).unwrap();
    let mut sims = vec![Simulation::new(scene)];
    let mut batch = Batch::new(&gpu, &mut sims).unwrap();
    batch.step(200);
    batch.write_back(&mut sims).unwrap();
    sims[0].run(200).unwrap();
    let gap = max_gap(cpu.state().x(), sims[0].state().x());
    assert!(gap < 1e-4, "GPU then CPU {gap:.3e} m from the CPU alone");
}

/// Every built-in scene: those the GPU covers step 300 steps within 1e-3 m of the CPU;
/// the others are refused naming what they need, and none panics.
#[test]
fn every_built_in_scene_runs_or_is_refused_by_name() {
    let gpu = gpu();
    let mut ran = Vec::new();
    for b in hooke::builders::builtins() {
        let scene = built_in(b.name, &[]);
        match Batch::new(&gpu, &mut [Simulation::new(scene.clone())]) {
            Ok(_) => {
                let (gap, _) = cpu_vs_gpu(&gpu, scene, 300);
                assert!(gap < 1e-3, "{}: GPU and CPU {gap:.3e} m apart", b.name);
                ran.push(b.name);
            }
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains("does not cover") && msg.starts_with(b.name),
                    "{msg}"
                );
            }
        }
    }
    println!("on the GPU: {ran:?}");
    for name in ["cloth", "string", "jelly", "inchworm"] {
        assert!(ran.contains(&name), "{name} should run on the GPU: {ran:?}");
    }
}

/// A batch of different worlds steps each exactly as it steps alone, and twice the same.
#[test]
fn a_batch_equals_the_single_runs_bit_for_bit() {
    let gpu = gpu();
    let scenes = [
        built_in("cloth", &[("width", "20"), ("height", "12")]),
        everything_scene(1),
        built_in("string", &[]),
        built_in("jelly", &[]),
        built_in("cloth-on-sphere", &[("nodes", "12"), ("collisions", "off")]),
        built_in("cloth", &[("width", "9"), ("integrator", "verlet")]),
    ];
    let alone: Vec<Vec<Vec3>> = scenes
        .iter()
        .map(|s| {
            let mut sims = vec![Simulation::new(s.clone())];
            let mut batch = Batch::new(&gpu, &mut sims).unwrap();
            batch.step(150);
            batch.read().unwrap().x.remove(0)
        })
        .collect();
    let mut sims: Vec<Simulation> = scenes.iter().cloned().map(Simulation::new).collect();
    let mut batch = Batch::new(&gpu, &mut sims).unwrap();
    batch.step(100);
    batch.step(50);
    let together = batch.read().unwrap().x;
    for (w, (a, b)) in alone.iter().zip(&together).enumerate() {
        assert!(
            a == b,
            "world {w}: batched {:.3e} m from alone",
            max_gap_of(a, b)
        );
    }
}

#[test]
fn unsupported_features_are_named() {
    let gpu = gpu();
    let cases = [
        (built_in("cloth-on-sphere", &[]), "node collisions"),
        (built_in("walker", &[]), "sensors"),
        (built_in("balloon", &[]), "gas pressure"),
    ];
    for (scene, want) in cases {
        let name = scene.name().to_string();
        let mut sims = vec![Simulation::new(scene)];
        let e = Batch::new(&gpu, &mut sims).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, GpuError::Unsupported { .. }), "{name}: {msg}");
        assert!(
            msg.contains(want) && msg.contains("--backend cpu"),
            "{name}: {msg}"
        );
    }
    let mut implicit = built_in("cloth", &[]);
    implicit
        .edit(|b| b.settings.integrator = hooke::Integrator::BackwardEuler)
        .unwrap();
    let e = Batch::new(&gpu, &mut [Simulation::new(implicit)]).unwrap_err();
    assert!(e.to_string().contains("backward-euler integrator"), "{e}");
}

/// No silent explosions: a cloth stepped at twenty times its stable step is stopped by the
/// growth watchdog at a read-back (its moving energy ×4 and more, read-back after
/// read-back), before its numbers overflow; with `allow_divergence` nothing stops it
/// until a value is no longer finite.
#[test]
fn a_diverging_world_is_stopped_by_the_growth_watchdog() {
    let gpu = gpu();
    let unstable = |allow: bool| {
        let mut scene = built_in("cloth", &[("width", "6"), ("height", "6")]);
        scene
            .edit(|b| {
                b.settings.dt *= 20.0;
                b.settings.allow_divergence = allow;
            })
            .unwrap();
        let mut sims = vec![Simulation::new(scene)];
        let mut batch = Batch::new(&gpu, &mut sims).unwrap();
        (0..2000).find_map(|_| {
            batch.step(1);
            batch.write_back(&mut sims).err()
        })
    };
    let e = unstable(false).expect("the run diverged");
    let msg = e.to_string();
    match e {
        GpuError::Growing {
            energy,
            per_step,
            step,
            ..
        } => {
            assert!(
                energy.1 >= 64.0 * energy.0 && per_step > 1.01 && step > 0,
                "{msg}"
            );
        }
        other => panic!("expected the growth watchdog first: {other}"),
    }
    assert!(
        msg.contains("diverged on the GPU") && msg.contains("try a smaller dt"),
        "{msg}"
    );
    let allowed = unstable(true).expect("it overflows at last");
    assert!(matches!(allowed, GpuError::NonFinite { .. }), "{allowed}");
}

/// A correct extreme is no alarm on the GPU either: a soft cloth (k = 0.5 N/m) pinned at
/// two corners hangs its corner springs past 1000% of their length within 4000 steps —
/// what linear springs without a failure strain do — and the growth watchdog lets it run.
#[test]
fn a_soft_cloth_stretched_tenfold_runs_with_no_alarm() {
    let gpu = gpu();
    let params = [
        ("width", "32"),
        ("height", "32"),
        ("k", "0.5"),
        ("k_shear", "0.5"),
        ("k_bend", "0.5"),
    ];
    let mut sims = vec![Simulation::new(built_in("cloth", &params))];
    let mut batch = Batch::new(&gpu, &mut sims).unwrap();
    for _ in 0..40 {
        batch.step(100);
        batch.write_back(&mut sims).expect("no alarm");
    }
    let stretch = sims[0].energy().max_stretch;
    assert!(stretch > 10.0, "stretched only {stretch}");
}
