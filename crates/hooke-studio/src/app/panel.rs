//! The parameter panel: the clock and solver, the environment, the selection's parameters
//! (with Nissen's limit), new springs, view options, warnings and the live energy plot.

use eframe::egui::{self, Color32, Pos2, Sense, Stroke, Ui, pos2, vec2};
use hooke::{Environment, Integrator, Real, Settings, SpringKind};

use super::{StudioApp, sliders};
use crate::doc::EnergySample;
use std::collections::VecDeque;

impl StudioApp {
    pub(super) fn panel(&mut self, ui: &mut Ui) {
        // Only what the controls read: the scene itself can be large (a clone per frame
        // of a 64×64 cloth's builder would cost more than drawing it).
        let (settings, env) = {
            let b = self.doc.editor().builder();
            (b.settings.clone(), b.env.clone())
        };
        egui::CollapsingHeader::new("Simulation")
            .default_open(true)
            .show(ui, |ui| self.simulation(ui, &settings));
        egui::CollapsingHeader::new("Environment")
            .default_open(true)
            .show(ui, |ui| self.environment(ui, &env));
        egui::CollapsingHeader::new("Selection")
            .default_open(true)
            .show(ui, |ui| self.selection(ui));
        egui::CollapsingHeader::new("New springs")
            .default_open(false)
            .show(ui, |ui| self.new_springs(ui));
        egui::CollapsingHeader::new("View")
            .default_open(false)
            .show(ui, |ui| {
                ui.checkbox(&mut self.show.springs, "springs");
                ui.checkbox(&mut self.show.faces, "faces");
                ui.checkbox(&mut self.show.strain, "colour by strain (warm = stretched)");
                ui.checkbox(&mut self.show.nodes, "nodes");
            });
        egui::CollapsingHeader::new("Warnings")
            .default_open(true)
            .show(ui, |ui| {
                if self.doc.warnings().is_empty() {
                    ui.label("stable at this step (hooke check)");
                }
                for w in self.doc.warnings() {
                    ui.colored_label(Color32::from_rgb(200, 80, 0), w);
                }
            });
        egui::CollapsingHeader::new("Energy")
            .default_open(true)
            .show(ui, |ui| self.energy_plot(ui));
    }

    /// The solver, dt, substeps and playback speed.
    fn simulation(&mut self, ui: &mut Ui, settings: &Settings) {
        let mut integ = settings.integrator;
        let r = egui::ComboBox::from_label("solver")
            .selected_text(integ.to_string())
            .show_ui(ui, |ui| {
                for i in Integrator::ALL {
                    ui.selectable_value(&mut integ, i, i.to_string());
                }
            });
        self.reg("solver", &r.response);
        if integ != settings.integrator {
            self.doc.update("solver", |b| b.settings.integrator = integ);
        }
        let mut dt = settings.dt as f64;
        let r = sliders::STEP.slider(ui, &mut dt, self.doc.dt_limit());
        self.reg("dt", &r);
        if r.changed() && dt > 0.0 {
            self.doc.update("dt", |b| b.settings.dt = dt as Real);
        }
        let mut sub = settings.substeps;
        let r = ui.add(egui::Slider::new(&mut sub, 1..=64).text("substeps"));
        if r.changed() {
            self.doc.update("substeps", |b| b.settings.substeps = sub);
        }
        ui.add(
            egui::Slider::new(&mut self.doc.speed, 0.05..=2.0)
                .logarithmic(true)
                .text("speed ×"),
        )
        .on_hover_text("simulated seconds per wall-clock second");
    }

    /// Gravity, wind, drag and energy loss.
    fn environment(&mut self, ui: &mut Ui, env: &Environment) {
        let mut g = env.gravity.y as f64;
        let r = ui.add(egui::Slider::new(&mut g, -20.0..=20.0).text("gravity y [m/s²]"));
        self.reg("gravity", &r);
        if r.changed() {
            self.doc.update("gravity", |b| b.env.gravity.y = g as Real);
        }
        for (k, name, key) in [
            (0, "wind x [m/s]", "wind-x"),
            (1, "wind y [m/s]", "wind-y"),
            (2, "wind z [m/s]", "wind-z"),
        ] {
            let mut w = env.wind[k] as f64;
            let r = ui.add(egui::Slider::new(&mut w, -20.0..=20.0).text(name));
            self.reg(key, &r);
            if r.changed() {
                self.doc.update(key, |b| b.env.wind[k] = w as Real);
            }
        }
        let mut d = env.air_drag as f64;
        let r = ui.add(
            egui::Slider::new(&mut d, 0.0..=5.0)
                .text("drag [N·s/m]")
                .logarithmic(true)
                .smallest_positive(1e-4),
        );
        self.reg("drag", &r);
        if r.changed() {
            self.doc.update("drag", |b| b.env.air_drag = d as Real);
        }
        let mut keep = env.velocity_retention as f64;
        let r = ui
            .add(egui::Slider::new(&mut keep, 0.0..=1.0).text("velocity kept per s"))
            .on_hover_text("energy loss: the fraction of velocity kept per second");
        self.reg("retention", &r);
        if r.changed() {
            self.doc
                .update("retention", |b| b.env.velocity_retention = keep as Real);
        }
    }

    /// The template for springs and nodes the Build tool adds.
    fn new_springs(&mut self, ui: &mut Ui) {
        let t = &mut self.doc.template;
        ui.horizontal(|ui| {
            for (k, name) in [
                (SpringKind::Spring, "spring"),
                (SpringKind::Rope, "rope"),
                (SpringKind::Stable, "stable"),
            ] {
                ui.selectable_value(&mut t.kind, k, name);
            }
        });
        let (mut k, mut c) = (t.k as f64, t.c as f64);
        if sliders::STIFFNESS.slider(ui, &mut k, None).changed() {
            t.k = k.max(0.0) as Real;
        }
        if sliders::DAMPING.slider(ui, &mut c, None).changed() {
            t.c = c.max(0.0) as Real;
        }
        ui.add(egui::Slider::new(&mut t.cs, 0.0..=1.0).text("cs"));
        ui.add(egui::Slider::new(&mut t.cd, 0.0..=1.0).text("cd"));
        let mut m = self.doc.node_mass as f64;
        if sliders::MASS.slider(ui, &mut m, None).changed() && m > 0.0 {
            self.doc.node_mass = m as Real;
        }
    }

    fn energy_plot(&mut self, ui: &mut Ui) {
        let (rect, _) =
            ui.allocate_exact_size(vec2(ui.available_width().min(280.0), 110.0), Sense::hover());
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 2.0, Color32::from_gray(250));
        let h = &self.doc.history;
        if h.len() < 2 {
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                "press Play to plot energy",
                egui::FontId::proportional(12.0),
                Color32::GRAY,
            );
            return;
        }
        let plot = Plot {
            painter: &painter,
            inner: rect.shrink(4.0),
            t: (
                h.front().unwrap().t,
                h.back().unwrap().t.max(h.front().unwrap().t + 1e-9),
            ),
        };
        let (lo, hi) = plot.energies(h);
        let r = plot.residual(h);
        let last = h.back().unwrap();
        ui.label(format!(
            "{lo:.3e} … {hi:.3e} J over the last {:.2} s",
            plot.t.1 - plot.t.0
        ));
        ui.label(format!(
            "audit residual {:+.3e} J ({:+.2}% of the {:.3e} J in play; dashed, own scale ±{r:.1e} J)",
            last.residual,
            100.0 * last.residual / last.moved.max(f64::MIN_POSITIVE),
            last.moved
        ));
    }
}

/// Where the energy plot draws: its painter, the inner rectangle, the time span \[s].
struct Plot<'a> {
    painter: &'a egui::Painter,
    inner: egui::Rect,
    t: (f64, f64),
}

/// One line of the plot: its name, colour and value per sample.
type Series = (&'static str, Color32, fn(&EnergySample) -> f64);

impl Plot<'_> {
    /// Kinetic, potential and total energy on one scale; returns it (lo, hi) \[J].
    fn energies(&self, h: &VecDeque<EnergySample>) -> (f64, f64) {
        let series: [Series; 3] = [
            ("kinetic", Color32::from_rgb(220, 60, 40), |s| s.kinetic),
            ("potential", Color32::from_rgb(40, 90, 220), |s| s.potential),
            ("total", Color32::from_rgb(30, 30, 30), |s| {
                s.kinetic + s.potential
            }),
        ];
        let values = series.iter().flat_map(|(_, _, f)| h.iter().map(f));
        let (lo, mut hi) = values
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if hi - lo < 1e-12 {
            hi = lo + 1e-12;
        }
        for (i, (name, color, f)) in series.iter().enumerate() {
            let line = self.line(h, *f, (lo, hi));
            self.painter
                .add(egui::Shape::line(line, Stroke::new(1.5, *color)));
            legend(self.painter, self.inner, i, name, *color);
        }
        (lo, hi)
    }

    /// The audit's residual, dashed, on its own scale symmetric about 0 and at least ±2% of
    /// the energy in play (a line in the middle when the books balance); returns the
    /// scale's half height \[J].
    fn residual(&self, h: &VecDeque<EnergySample>) -> f64 {
        // At least ±2% of the energy in play: balanced books stay near the middle.
        let floor = 0.02 * h.back().map_or(0.0, |s| s.moved);
        let r = h
            .iter()
            .map(|s| s.residual.abs())
            .fold(floor.max(1e-12), f64::max);
        let orange = Color32::from_rgb(230, 140, 20);
        let line = self.line(h, |s| s.residual, (-r, r));
        let dashes = egui::Shape::dashed_line(&line, Stroke::new(1.2, orange), 4.0, 3.0);
        self.painter.extend(dashes);
        legend(self.painter, self.inner, 3, "residual", orange);
        r
    }

    /// The points of `f` over the samples, scaled from (lo, hi) to the rectangle.
    fn line(
        &self,
        h: &VecDeque<EnergySample>,
        f: fn(&EnergySample) -> f64,
        (lo, hi): (f64, f64),
    ) -> Vec<Pos2> {
        let (inner, (t0, t1)) = (self.inner, self.t);
        h.iter()
            .map(|s| {
                pos2(
                    inner.left() + ((s.t - t0) / (t1 - t0)) as f32 * inner.width(),
                    inner.bottom() - ((f(s) - lo) / (hi - lo)) as f32 * inner.height(),
                )
            })
            .collect()
    }
}

/// The name of series `i` at the top of the plot, in its colour.
fn legend(painter: &egui::Painter, inner: egui::Rect, i: usize, name: &str, color: Color32) {
    painter.text(
        pos2(inner.left() + 2.0 + 66.0 * i as f32, inner.top()),
        egui::Align2::LEFT_TOP,
        name,
        egui::FontId::proportional(11.0),
        color,
    );
}
