//! The canvas: drawing the scene and what the pointer and fingers do there (drag nodes,
//! select, build nodes and springs, turn, pan and zoom the view).

use eframe::egui::{self, Color32, Pos2, Sense, TouchPhase, Ui, vec2};
use hooke::{Real, Vec3};

use super::{Drag, StudioApp, Tool};
use crate::doc::Selection;
use crate::draw::{self, Frame, Marks};
use crate::view::{Mode, P3, Posed};

impl StudioApp {
    pub(super) fn canvas(&mut self, ui: &mut Ui) {
        let (resp, painter) = ui.allocate_painter(ui.available_size(), Sense::click_and_drag());
        let rect = resp.rect;
        self.canvas = rect;
        self.rects.insert("canvas", rect);
        if !self.framed && rect.width() > 10.0 {
            let (lo, hi) = hooke_render::bounds(&self.doc.scene().state().positions());
            self.cam.frame(lo, hi, rect);
            self.framed = true;
        }
        if self.touches.is_empty() {
            self.zoom_and_pan(ui, &resp);
        }
        let cam = self.cam.pose(rect);
        self.screen = draw::project_all(&cam, &self.doc.scene().state().positions());
        let touching = self.touch(ui, &cam);
        let pointer = resp.interact_pointer_pos().or(resp.hover_pos());
        self.hover = pointer.and_then(|p| draw::pick_node(&self.screen, p, 10.0));
        if !touching {
            self.pointer(ui, &resp, &cam);
        }
        if resp.clicked()
            && let Some(p) = resp.interact_pointer_pos()
        {
            self.click(p, &cam);
        }
        if resp.secondary_clicked() {
            self.doc.pending = None;
        }
        // Draw.
        let scene = self.doc.scene();
        let marks = self.marks();
        let x = scene.state().positions();
        let frame = Frame {
            cam: &cam,
            model: scene.model(),
            x: &x,
            t: scene.state().t(),
            placed: scene.state().collider_poses(),
            textures: self.textures.ids(),
        };
        draw::paint(&painter, &frame, self.show, &marks);
        self.drag_lines(&painter, &cam);
        painter.text(
            rect.left_bottom() + vec2(6.0, -6.0),
            egui::Align2::LEFT_BOTTOM,
            self.tool.hint(),
            egui::FontId::proportional(12.0),
            Color32::from_gray(110),
        );
        if !self.doc.playing {
            // Paused is a state to see, not to guess.
            painter.text(
                rect.right_top() + vec2(-14.0, 10.0),
                egui::Align2::RIGHT_TOP,
                "paused",
                egui::FontId::proportional(30.0),
                Color32::from_gray(150),
            );
            painter.text(
                rect.right_top() + vec2(-14.0, 46.0),
                egui::Align2::RIGHT_TOP,
                "Space or Play to run",
                egui::FontId::proportional(12.0),
                Color32::from_gray(130),
            );
        }
    }

    /// A dashed line from where each dragged node was grabbed to where it is now.
    fn drag_lines(&self, painter: &egui::Painter, cam: &Posed) {
        let mouse = match self.drag {
            Some(Drag::Node(id, grab)) => Some((id, grab)),
            _ => None,
        };
        let fingers = self.touches.iter().map(|&(_, id, grab)| (id, grab));
        for (id, grab) in mouse.into_iter().chain(fingers) {
            let (Some(i), Some((from, _))) = (self.doc.node_index(id), cam.project(grab)) else {
                continue;
            };
            if let Some(to) = self.screen.get(i).copied().flatten() {
                let stroke = egui::Stroke::new(1.5, Color32::from_rgb(255, 170, 0));
                painter.add(egui::Shape::dashed_line(&[from, to.0], stroke, 6.0, 4.0));
            }
        }
    }

    /// The selection, the pending node, the held nodes and the hovered one, as indices.
    fn marks(&self) -> Marks {
        let (node, spring) = match self.doc.selection {
            Some(Selection::Node(id)) => (self.doc.node_index(id), None),
            Some(Selection::Spring(id)) => (None, self.doc.spring_index(id)),
            None => (None, None),
        };
        Marks {
            node,
            spring,
            pending: self.doc.pending.and_then(|id| self.doc.node_index(id)),
            held: self
                .doc
                .held()
                .iter()
                .filter_map(|(id, _)| self.doc.node_index(*id))
                .collect(),
            hover: self.hover,
            touched_nodes: self.touched_nodes(node),
            touched_springs: (self.doc.created.1.iter())
                .filter_map(|&id| self.doc.spring_index(id))
                .chain(spring)
                .collect(),
        }
    }

    /// Indices of the nodes the user added, the selected one, the hovered and held ones.
    fn touched_nodes(&self, selected: Option<usize>) -> Vec<usize> {
        let held = self.doc.held().iter().map(|(id, _)| *id);
        let pending = self.doc.pending;
        (self.doc.created.0.iter().copied())
            .chain(held)
            .chain(pending)
            .filter_map(|id| self.doc.node_index(id))
            .chain(selected)
            .chain(self.hover)
            .collect()
    }

    /// Zoom and pan (not while fingers hold nodes): the wheel zooms towards the cursor, a
    /// pinch about the fingers' midpoint, and two fingers moving together pan. The camera
    /// stops before it loses the scene (see [`crate::view::Cam::zoom_at`]).
    fn zoom_and_pan(&mut self, ui: &Ui, resp: &egui::Response) {
        let rect = resp.rect;
        let bounds = hooke_render::bounds(&self.doc.scene().state().positions());
        if let Some(touch) = ui.input(|i| i.multi_touch())
            && rect.contains(touch.center_pos)
        {
            self.cam.pan(touch.translation_delta, rect);
            let f = touch.zoom_delta as f64;
            if (f - 1.0).abs() > 1e-6 {
                self.cam.zoom_at(f, touch.center_pos, rect, bounds);
            }
            return;
        }
        if !resp.hovered() {
            return;
        }
        let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
        let f = zoom as f64 * (scroll as f64 * 0.002).exp();
        if (f - 1.0).abs() > 1e-6 {
            let at = resp.hover_pos().unwrap_or(rect.center());
            self.cam.zoom_at(f, at, rect, bounds);
        }
    }

    /// Several fingers drag several nodes. Returns whether touches are in progress (then
    /// the pointer, which follows the first finger, is ignored).
    fn touch(&mut self, ui: &mut Ui, cam: &Posed) -> bool {
        let events = ui.input(|i| i.events.clone());
        for e in events {
            let egui::Event::Touch { id, phase, pos, .. } = e else {
                continue;
            };
            let key = id.0;
            match phase {
                TouchPhase::Start => {
                    if let Some(i) = draw::pick_node(&self.screen, pos, 24.0)
                        && let Some(nid) = self.doc.node_id(i)
                    {
                        let x = hooke::unpack(self.doc.scene().state().x()[i]);
                        let grab = [x.x as f64, x.y as f64, x.z as f64];
                        self.touches.push((key, nid, grab));
                        self.doc.hold(nid, x);
                    }
                }
                TouchPhase::Move => {
                    if let Some(&(_, nid, grab)) = self.touches.iter().find(|t| t.0 == key) {
                        let p = cam.unproject(pos, grab);
                        self.doc.hold(nid, to_vec3(p));
                    }
                }
                TouchPhase::End | TouchPhase::Cancel => {
                    if let Some(k) = self.touches.iter().position(|t| t.0 == key) {
                        let (_, nid, _) = self.touches.remove(k);
                        self.doc.release(nid);
                    }
                }
            }
        }
        !self.touches.is_empty() || ui.input(|i| i.any_touches())
    }

    fn pointer(&mut self, ui: &mut Ui, resp: &egui::Response, cam: &Posed) {
        if resp.drag_started()
            && let Some(p) = ui.input(|i| i.pointer.press_origin())
        {
            let secondary = ui.input(|i| i.pointer.secondary_down() || i.pointer.middle_down());
            let shift = ui.input(|i| i.modifiers.shift);
            self.drag = match draw::pick_node(&self.screen, p, 10.0) {
                Some(i) if !secondary => self.doc.node_id(i).map(|id| {
                    let x = hooke::unpack(self.doc.scene().state().x()[i]);
                    Drag::Node(id, [x.x as f64, x.y as f64, x.z as f64])
                }),
                _ if secondary || shift || self.cam.mode == Mode::Plane => Some(Drag::Pan),
                _ => Some(Drag::Orbit),
            };
        }
        if resp.dragged() {
            match self.drag {
                Some(Drag::Node(id, grab)) => {
                    if let Some(p) = resp.interact_pointer_pos() {
                        self.doc.hold(id, to_vec3(cam.unproject(p, grab)));
                    }
                }
                Some(Drag::Orbit) => self.cam.orbit(resp.drag_delta()),
                Some(Drag::Pan) => self.cam.pan(resp.drag_delta(), self.canvas),
                None => {}
            }
        }
        if resp.drag_stopped() {
            if let Some(Drag::Node(id, _)) = self.drag {
                self.doc.release(id);
            }
            self.drag = None;
        }
    }

    fn click(&mut self, p: Pos2, cam: &Posed) {
        let node = draw::pick_node(&self.screen, p, 10.0);
        match (node, self.tool) {
            (Some(i), Tool::Build) => {
                let Some(id) = self.doc.node_id(i) else {
                    return;
                };
                match self.doc.pending {
                    Some(a) if a != id => {
                        self.doc.add_spring(a, id);
                        self.doc.pending = Some(id);
                    }
                    _ => self.doc.pending = Some(id),
                }
                self.doc.selection = Some(Selection::Node(id));
            }
            (Some(i), Tool::Move) => {
                self.doc.selection = self.doc.node_id(i).map(Selection::Node);
            }
            (None, tool) => {
                let spring = draw::pick_spring(&self.screen, self.doc.scene().model(), p, 5.0);
                if tool == Tool::Build && spring.is_none() {
                    let through = self
                        .doc
                        .pending
                        .and_then(|id| self.doc.node_index(id))
                        .map_or(cam.center(), |i| {
                            let x = hooke::unpack(self.doc.scene().state().x()[i]);
                            [x.x as f64, x.y as f64, x.z as f64]
                        });
                    let x = to_vec3(cam.unproject(p, through));
                    let pending = self.doc.pending;
                    if let Some(id) = self.doc.add_node(x) {
                        if let Some(a) = pending {
                            self.doc.add_spring(a, id);
                        }
                        self.doc.pending = Some(id);
                        self.doc.selection = Some(Selection::Node(id));
                    }
                } else {
                    self.doc.selection = spring
                        .and_then(|s| self.doc.spring_id(s))
                        .map(Selection::Spring);
                }
            }
        }
    }

    /// Screen position (points) of node `i` in the last frame.
    pub fn node_screen(&self, i: usize) -> Option<Pos2> {
        self.screen.get(i).copied().flatten().map(|s| s.0)
    }

    /// Node `i`'s depth along the view in the last frame \[m] (larger is farther; `None`
    /// when it is behind the camera).
    pub fn node_depth(&self, i: usize) -> Option<f64> {
        self.screen.get(i).copied().flatten().map(|s| s.1)
    }
}

#[allow(clippy::unnecessary_cast)]
fn to_vec3(p: P3) -> Vec3 {
    hooke::vec3(p[0] as Real, p[1] as Real, p[2] as Real)
}
