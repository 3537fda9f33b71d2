//! The selection's parameters: a node's mass and pin, a spring's kind, rest length,
//! stiffness and damping, and a stable spring's coefficients beside Nissen's limit.

use eframe::egui::{self, Color32, RichText, Ui};
use hooke::{Real, Spring, SpringKind, stability};
use hooke_io::edit::{NodeId, SpringId};

use super::{StudioApp, sliders};
use crate::doc::Selection;

impl StudioApp {
    pub(super) fn selection(&mut self, ui: &mut Ui) {
        match self.doc.selection {
            None => {
                ui.label("nothing selected: click a node or a spring");
            }
            Some(Selection::Node(id)) => self.selected_node(ui, id),
            Some(Selection::Spring(id)) => self.selected_spring(ui, id),
        }
    }

    fn selected_node(&mut self, ui: &mut Ui, id: NodeId) {
        let Some(i) = self.doc.node_index(id) else {
            return;
        };
        let n = self.doc.editor().builder().nodes[i].clone();
        ui.label(format!("node {i}"));
        let x = self.doc.scene().state().x()[i];
        ui.label(format!("x = ({:.3}, {:.3}, {:.3}) m", x.x, x.y, x.z));
        let mut m = n.mass as f64;
        let r = sliders::MASS.slider(ui, &mut m, None);
        self.reg("node-mass", &r);
        if r.changed() && m > 0.0 {
            self.doc
                .update("node-mass", |b| b.nodes[i].mass = m as Real);
        }
        let mut pinned = n.pinned;
        let r = ui.checkbox(&mut pinned, "pinned (P)");
        self.reg("pin", &r);
        if r.changed() {
            self.doc.toggle_pin();
        }
        if ui.button("Delete node (Del)").clicked() {
            self.doc.delete_selection();
        }
    }

    fn selected_spring(&mut self, ui: &mut Ui, id: SpringId) {
        let Some(s) = self.doc.spring_index(id) else {
            return;
        };
        let sp = self.doc.editor().builder().springs[s].clone();
        ui.label(format!("spring {s}: nodes {} – {}", sp.a, sp.b));
        ui.horizontal(|ui| {
            ui.label("kind:");
            let r = ui
                .button(sp.kind.to_string())
                .on_hover_text("spring → rope → stable (K)");
            self.rects.insert("kind", r.rect);
            if r.clicked() {
                self.doc.toggle_kind();
            }
        });
        let mut rest = sp.rest.unwrap_or(0.0) as f64;
        let r = ui.add(
            egui::DragValue::new(&mut rest)
                .range(0.0..=1e6)
                .speed(0.001)
                .prefix("rest = ")
                .suffix(" m"),
        );
        if r.changed() {
            self.doc
                .update("rest", |b| b.springs[s].rest = Some(rest as Real));
        }
        if sp.kind == SpringKind::Stable {
            self.stable_coefficients(ui, s, &sp);
        } else {
            self.stiffness_and_damping(ui, s, &sp);
        }
        if ui.button("Delete spring (Del)").clicked() {
            self.doc.delete_selection();
        }
    }

    /// Nissen's cs and cd of stable spring `s`, and his limit 1/(n+1), green when they
    /// keep it.
    fn stable_coefficients(&mut self, ui: &mut Ui, s: usize, sp: &Spring) {
        let (n, limit) = stability::nissen_limit(self.doc.scene().model(), s);
        for (name, v) in [("cs", sp.cs), ("cd", sp.cd)] {
            let mut x = v as f64;
            let r = sliders::fraction(ui, &mut x, name, limit);
            self.reg(if name == "cs" { "cs" } else { "cd" }, &r);
            if r.changed() {
                self.doc.update(name, |b| {
                    if name == "cs" {
                        b.springs[s].cs = x as Real;
                    } else {
                        b.springs[s].cd = x as Real;
                    }
                });
            }
        }
        let over = (sp.cs.max(sp.cd) as f64) > limit * (1.0 + 1e-6);
        let text = format!(
            "Nissen's limit 1/(n+1) = 1/{} = {limit:.3} (n = {n} springs at the busier end)",
            n + 1
        );
        let color = if over {
            Color32::from_rgb(200, 60, 0)
        } else {
            Color32::from_rgb(40, 130, 60)
        };
        ui.label(RichText::new(text).color(color));
    }

    /// Stiffness k and damping c of Hooke spring or rope `s`.
    fn stiffness_and_damping(&mut self, ui: &mut Ui, s: usize, sp: &Spring) {
        let mut k = sp.k as f64;
        let r = sliders::STIFFNESS.slider(ui, &mut k, None);
        self.reg("spring-k", &r);
        if r.changed() && k >= 0.0 {
            self.doc.update("spring-k", |b| b.springs[s].k = k as Real);
        }
        let mut c = sp.c as f64;
        let r = sliders::DAMPING.slider(ui, &mut c, None);
        self.reg("spring-c", &r);
        if r.changed() && c >= 0.0 {
            self.doc.update("spring-c", |b| b.springs[s].c = c as Real);
        }
    }
}
