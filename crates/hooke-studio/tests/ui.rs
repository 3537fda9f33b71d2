//! The studio's user interface driven like a user would, without a display (egui_kittest):
//! pointer drags, clicks, keys and sliders go through egui's input, and the tests read the
//! document behind it.
#![allow(clippy::unnecessary_cast)]

use eframe::egui::{self, Key, Modifiers, Pos2, Vec2, pos2};
use egui_kittest::{Harness, kittest::Queryable};
use hooke::{Node, Real, Scene, SceneBuilder, Spring, vec3};
use hooke_studio::StudioApp;
use hooke_studio::app::Tool;

/// Three free nodes in the xy plane (so the view is 2D), 0–1 joined by a spring.
fn three_nodes() -> Scene {
    let mut b = SceneBuilder::new("three");
    b.add_node(Node::new(vec3(0.0, 0.0, 0.0), 0.1));
    b.add_node(Node::new(vec3(1.0, 0.0, 0.0), 0.1));
    b.add_node(Node::new(vec3(0.5, 0.8, 0.0), 0.1));
    b.add_spring(Spring::hooke(0, 1, 100.0, 0.1));
    b.settings.dt = 1e-3;
    b.env.gravity = vec3(0.0, -9.81, 0.0);
    b.build().unwrap()
}

fn harness(scene: Scene) -> Harness<'static, StudioApp> {
    let app = StudioApp::new(scene, "three.json");
    let mut h = Harness::builder()
        .with_size(Vec2::new(1200.0, 800.0))
        .build_ui_state(|ui, app: &mut StudioApp| app.show(ui), app);
    h.run_steps(3);
    h
}

fn screen(h: &Harness<'_, StudioApp>, i: usize) -> Pos2 {
    h.state().node_screen(i).expect("node on screen")
}

fn click(h: &mut Harness<'_, StudioApp>, p: Pos2) {
    h.hover_at(p);
    h.step();
    h.drag_at(p);
    h.step();
    h.drop_at(p);
    h.run_steps(2);
}

fn drag(h: &mut Harness<'_, StudioApp>, from: Pos2, to: Pos2) {
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for k in 1..=10 {
        h.hover_at(from + (to - from) * (k as f32 / 10.0));
        h.step();
    }
    h.drop_at(to);
    h.run_steps(2);
}

/// `n` presses of `key` delivered in one frame (kittest's own key helpers spread the
/// events over frames), as a browser does when a frame is slow.
fn presses_in_one_frame(h: &mut Harness<'_, StudioApp>, modifiers: Modifiers, key: Key, n: usize) {
    let events = &mut h.input_mut().events;
    events.push(egui::Event::ModifiersChanged(modifiers));
    for _ in 0..n {
        for pressed in [true, false] {
            events.push(egui::Event::Key {
                key,
                physical_key: None,
                pressed,
                repeat: false,
                modifiers,
            });
        }
    }
    events.push(egui::Event::ModifiersChanged(Modifiers::NONE));
    h.step();
    h.run_steps(2);
}

#[test]
fn dragging_moves_the_node_to_the_pointer() {
    let mut h = harness(three_nodes());
    let from = screen(&h, 2);
    let to = from + egui::vec2(80.0, 50.0);
    let before = h.state().doc.scene().state().x()[2];
    drag(&mut h, from, to);
    let after = h.state().doc.scene().state().x()[2];
    // Paused, a dragged node goes where the pointer went: 80 px right, 50 px down.
    let scale = h.state().cam.scale as Real;
    assert!(
        (after.x - before.x - 80.0 / scale).abs() < 2.0 / scale,
        "{before:?} → {after:?}"
    );
    assert!(
        (after.y - before.y + 50.0 / scale).abs() < 2.0 / scale,
        "{before:?} → {after:?}"
    );
    assert_eq!(after.z, before.z);
    // The other nodes stayed.
    assert_eq!(
        hooke::unpack(h.state().doc.scene().state().x()[0]),
        vec3(0.0, 0.0, 0.0)
    );
    // And it is undoable.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().doc.scene().state().x()[2], before);
    // Two drags, then two Ctrl+Z in one (slow) frame: both are undone.
    drag(&mut h, from, to);
    let from1 = screen(&h, 1);
    drag(&mut h, from1, from1 + egui::vec2(0.0, 60.0));
    presses_in_one_frame(&mut h, Modifiers::COMMAND, Key::Z, 2);
    assert_eq!(h.state().doc.scene().state().x()[2], before);
    assert_eq!(
        hooke::unpack(h.state().doc.scene().state().x()[1]),
        vec3(1.0, 0.0, 0.0)
    );
    // And Ctrl+Shift+Z twice in one frame redoes both.
    presses_in_one_frame(&mut h, Modifiers::COMMAND | Modifiers::SHIFT, Key::Z, 2);
    assert_eq!(h.state().doc.scene().state().x()[2], after);
    assert!(!h.state().doc.can_redo());
}

#[test]
fn dragging_while_running_pulls_through_the_spring() {
    let mut h = harness(three_nodes());
    h.state_mut().doc.set_playing(true);
    let from = screen(&h, 1);
    let to = from + egui::vec2(120.0, 0.0);
    h.hover_at(from);
    h.step();
    h.drag_at(from);
    h.step();
    for k in 1..=30 {
        h.hover_at(from + (to - from) * (k.min(10) as f32 / 10.0));
        h.step();
    }
    // Node 1 is held at the pointer; node 0, joined by the spring, is pulled towards it.
    let x = &h.state().doc.scene().state().x();
    assert!(x[0].x > 0.0, "node 0 pulled along +x: {:?}", x[0]);
    h.drop_at(to);
    h.step();
    assert!(h.state().doc.held().is_empty());
}

#[test]
fn click_click_adds_a_spring_and_a_click_on_empty_space_adds_a_node() {
    let mut h = harness(three_nodes());
    h.state_mut().tool = Tool::Build;
    let (p0, p2) = (screen(&h, 0), screen(&h, 2));
    click(&mut h, p0);
    click(&mut h, p2);
    let m = &h.state().doc.scene().model();
    assert_eq!(m.springs().len(), 2);
    assert_eq!((m.springs().a()[1], m.springs().b()[1]), (0, 2));
    // Rest length: the distance between the two nodes.
    assert!((m.springs().rest()[1] - (0.25 as Real + 0.64).sqrt()).abs() < 1e-5);
    // Empty space: a new node there, joined to the last node (building a chain).
    let empty = pos2(p0.x + 60.0, p0.y - 30.0);
    click(&mut h, empty);
    let s = h.state().doc.scene();
    assert_eq!(s.model().nodes().len(), 4, "{:?}", h.state().doc.message);
    assert_eq!(s.model().springs().len(), 3);
    assert_eq!(
        (s.model().springs().a()[2], s.model().springs().b()[2]),
        (2, 3)
    );
    let scale = h.state().cam.scale as Real;
    assert!((s.state().x()[3].x - 60.0 / scale).abs() < 1e-3);
    assert!((s.state().x()[3].y - 30.0 / scale).abs() < 1e-3);
}

#[test]
fn delete_undo_redo() {
    let mut h = harness(three_nodes());
    // Select the spring by clicking its middle, then delete it with the key.
    let mid = screen(&h, 0).lerp(screen(&h, 1), 0.5);
    click(&mut h, mid);
    assert!(matches!(
        h.state().doc.selection,
        Some(hooke_studio::doc::Selection::Spring(_))
    ));
    h.key_press(Key::Delete);
    h.run_steps(2);
    assert_eq!(h.state().doc.scene().model().springs().len(), 0);
    // Undo with the button, redo with the keys.
    h.get_by_label("Undo").click();
    h.run_steps(2);
    assert_eq!(h.state().doc.scene().model().springs().len(), 1);
    h.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    h.run_steps(2);
    assert_eq!(h.state().doc.scene().model().springs().len(), 0);
    // A node takes its springs with it; undo brings both back.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    h.run_steps(2);
    let p = screen(&h, 1);
    click(&mut h, p);
    h.key_press(Key::Delete);
    h.run_steps(2);
    let m = &h.state().doc.scene().model();
    assert_eq!((m.nodes().len(), m.springs().len()), (2, 0));
    h.get_by_label("Undo").click();
    h.run_steps(2);
    let m = &h.state().doc.scene().model();
    assert_eq!((m.nodes().len(), m.springs().len()), (3, 1));
}

#[test]
fn pin_and_kind_toggle() {
    let mut h = harness(three_nodes());
    let p = screen(&h, 2);
    click(&mut h, p);
    h.key_press(Key::P);
    h.run_steps(2);
    assert!(h.state().doc.scene().model().nodes().pinned(2));
    h.key_press(Key::P);
    h.run_steps(2);
    assert!(!h.state().doc.scene().model().nodes().pinned(2));
    let mid = screen(&h, 0).lerp(screen(&h, 1), 0.5);
    click(&mut h, mid);
    use hooke::SpringKind::*;
    for want in [Rope, Stable, Spring] {
        h.key_press(Key::K);
        h.run_steps(2);
        assert_eq!(
            h.state().doc.scene().model().springs().kind(0),
            want,
            "{:?}",
            h.state().doc.message
        );
    }
}

#[test]
fn a_slider_changes_the_model() {
    let mut h = harness(three_nodes());
    let r = h.state().rects["gravity"];
    // The slider's rail starts at its left edge: a click there is its minimum, −20 m/s².
    click(&mut h, pos2(r.left() + 1.0, r.center().y));
    let g = h.state().doc.scene().model().env().gravity;
    assert_eq!(g.y, -20.0, "{g:?}");
    // One undo step restores the scene's gravity.
    h.get_by_label("Undo").click();
    h.run_steps(2);
    assert!((h.state().doc.scene().model().env().gravity.y + 9.81).abs() < 1e-6);
    // The clock runs with the new value: a free fall after Play.
    let r = h.state().rects["wind-x"];
    click(&mut h, pos2(r.left() + 1.0, r.center().y));
    assert_eq!(h.state().doc.scene().model().env().wind.x, -20.0);
}

#[test]
fn stiffness_is_a_log_slider_and_dt_shows_its_limit() {
    let mut h = harness(three_nodes());
    let p = screen(&h, 0) + (screen(&h, 1) - screen(&h, 0)) * 0.5;
    click(&mut h, p);
    let r = h.state().rects["spring-k"];
    let rail = h.ctx.global_style().spacing.slider_width;
    click(&mut h, pos2(r.left() + 0.5 * rail, r.center().y));
    // Halfway along the 1…10⁶ N/m log rail is about 10³ N/m (a linear rail: 5·10⁵).
    let k = h.state().doc.scene().model().springs().k(0);
    assert!((500.0..2000.0).contains(&k), "k = {k} N/m");
    // Symplectic Euler's limit for this scene, marked on the dt slider: 2·√(m/k)-ish.
    let limit = h
        .state()
        .doc
        .dt_limit()
        .expect("an explicit integrator has a limit");
    assert!(limit > 1e-4 && limit < 1.0, "{limit} s");
}

#[test]
fn save_then_open_gives_the_same_scene() {
    let dir = std::env::temp_dir().join(format!("hooke-studio-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("saved.json");
    let _ = std::fs::remove_file(&path);
    let mut h = harness(three_nodes());
    // Change something first, so the file is not just the input.
    h.state_mut().tool = Tool::Build;
    let p = screen(&h, 1);
    click(&mut h, p);
    let p = screen(&h, 2);
    click(&mut h, p);
    h.state_mut().path = path.to_string_lossy().into_owned();
    h.get_by_label("Save").click();
    h.run_steps(2);
    let text = std::fs::read_to_string(&path).expect("the studio wrote the file");
    let saved = hooke_io::parse_scene(&text).unwrap();
    assert_eq!(saved.model().springs().len(), 2);
    let before = hooke_io::scene_to_json(&h.state_mut().doc.snapshot());
    assert_eq!(hooke_io::scene_to_json(&saved), before);
    // Open it in a fresh studio through the Open button: the same scene.
    let mut g = harness(hooke::builders::build("oscillator", &[]).unwrap());
    g.state_mut().path = path.to_string_lossy().into_owned();
    g.get_by_label("Open").click();
    g.run_steps(2);
    assert_eq!(
        hooke_io::scene_to_json(&g.state_mut().doc.snapshot()),
        before
    );
    // Saving over a file that was not opened asks first, and keeps it until confirmed.
    let other = dir.join("other.json");
    std::fs::write(&other, "keep me").unwrap();
    g.state_mut().path = other.to_string_lossy().into_owned();
    g.get_by_label("Save").click();
    g.run_steps(2);
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "keep me");
    g.get_by_label("Overwrite?").click();
    g.run_steps(2);
    assert!(hooke_io::read_scene(&other).is_ok());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Three nodes in a row joined by two of Nissen's stable springs: node 1 carries both, so
/// the limit at spring 0 is 1/(n+1) = 1/3.
fn stable_chain(cs: Real) -> Scene {
    let mut b = SceneBuilder::new("chain");
    for i in 0..3 {
        b.add_node(Node::new(vec3(i as Real, 0.0, 0.0), 0.1));
    }
    b.add_spring(Spring::stable(0, 1, cs, 0.1));
    b.add_spring(Spring::stable(1, 2, cs, 0.1));
    b.settings.dt = 1e-3;
    b.build().unwrap()
}

#[test]
fn nissen_limit_and_stability_warnings_are_shown() {
    let mut h = harness(stable_chain(0.3));
    h.get_by_label_contains("stable at this step");
    // Select spring 0 by clicking its middle: its panel shows the limit 1/3.
    let p = screen(&h, 0) + (screen(&h, 1) - screen(&h, 0)) * 0.5;
    click(&mut h, p);
    h.get_by_label_contains("Nissen's limit 1/(n+1) = 1/3 = 0.333 (n = 2");
    // cs to 1 (the rail's right end; the rail is egui's default 100 points wide, then
    // come the value and the name): over the limit, and the warning from the same code as
    // `hooke check` names the spring.
    let r = h.state().rects["cs"];
    let rail = h.ctx.global_style().spacing.slider_width;
    click(&mut h, pos2(r.left() + rail - 1.0, r.center().y));
    let cs = h.state().doc.scene().to_builder().springs[0].cs;
    assert_eq!(cs, 1.0);
    let warning =
        "1 stable spring(s) above Nissen's limit 1/(n+1); spring 0: max(cs, cd) = 1 > 1/3";
    h.get_by_label_contains(warning);
    assert_eq!(
        h.state().doc.warnings(),
        hooke_studio::doc::warnings(h.state().doc.scene())
    );
    // A step beyond symplectic Euler's limit is reported too.
    let mut h = harness(three_nodes());
    h.state_mut().doc.update("dt", |b| b.settings.dt = 0.5);
    h.run_steps(2);
    h.get_by_label_contains("unstable: h = 5.000e-1 s exceeds symplectic-euler's limit");
}

#[test]
fn import_obj_then_texture_it() {
    let dir = std::env::temp_dir().join(format!("hooke-studio-obj-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("square.obj");
    // A unit square of two triangles with texture coordinates.
    std::fs::write(
        &obj,
        "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
         f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n",
    )
    .unwrap();
    let mut h = harness(three_nodes());
    h.state_mut().path = obj.to_string_lossy().into_owned();
    h.get_by_label("Import OBJ").click();
    h.run_steps(3);
    let model = &h.state().doc.scene().model();
    assert_eq!(model.nodes().len(), 4, "{:?}", h.state().doc.message);
    assert!(model.springs().len() >= 5, "edges and the diagonal");
    assert_eq!(model.surfaces().len(), 1);
    assert_eq!(h.state().textures.ids(), &[None]);
    // Texture: the PNG in the file field goes on the surface (one undoable edit).
    let png = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/studio.png");
    h.state_mut().path = png.to_string_lossy().into_owned();
    h.get_by_label("Texture").click();
    h.run_steps(3);
    assert!(
        h.state().textures.ids()[0].is_some(),
        "{:?}",
        h.state().doc.message
    );
    let info = h.state().doc.info.clone().unwrap_or_default();
    assert!(
        info.ends_with("studio.png on 1 surface(s) (1 changed)"),
        "{info}"
    );
    let named = h.state().doc.scene().model().surfaces()[0].texture.clone();
    assert!(named.is_some_and(|t| t.ends_with("studio.png")));
    h.get_by_label("Undo").click();
    h.run_steps(3);
    assert_eq!(h.state().doc.scene().model().surfaces()[0].texture, None);
    assert_eq!(h.state().textures.ids(), &[None]);
    // A file that is not a PNG: a clear message, nothing changes.
    h.state_mut().path = obj.to_string_lossy().into_owned();
    h.get_by_label("Texture").click();
    h.run_steps(3);
    let msg = h.state().doc.message.clone().unwrap_or_default();
    assert!(
        msg.contains("square.obj") && msg.contains("not a PNG"),
        "{msg}"
    );
    assert_eq!(h.state().doc.scene().model().surfaces()[0].texture, None);
}
