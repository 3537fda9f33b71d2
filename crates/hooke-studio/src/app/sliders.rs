//! Sliders for physical quantities: logarithmic where a value spans decades (stiffness,
//! damping, mass, step size), the unit beside the value, the value box for typed entry
//! (typed values may leave the rail's range), and a tick on the rail at a stability
//! limit (the explicit dt limit, Nissen's 1/(n+1)).

use eframe::egui::{self, Color32, Response, Stroke, Ui, pos2};

/// A quantity a slider sets.
pub(super) struct Quantity {
    /// Its name beside the slider.
    pub name: &'static str,
    /// Its unit, after the value.
    pub unit: &'static str,
    /// The rail's ends.
    pub range: (f64, f64),
    /// Logarithmic rail (equal room per decade).
    pub log: bool,
}

/// Stiffness k \[N/m]: 1 to 10⁶ on a log rail.
pub(super) const STIFFNESS: Quantity = Quantity {
    name: "k",
    unit: "N/m",
    range: (1.0, 1e6),
    log: true,
};
/// Damping c \[N·s/m]: 0, then 10⁻³ to 10⁴ on a log rail.
pub(super) const DAMPING: Quantity = Quantity {
    name: "c",
    unit: "N·s/m",
    range: (0.0, 1e4),
    log: true,
};
/// Mass \[kg]: 10⁻⁶ to 10³ on a log rail.
pub(super) const MASS: Quantity = Quantity {
    name: "mass",
    unit: "kg",
    range: (1e-6, 1e3),
    log: true,
};
/// Step size dt \[s]: 10⁻⁶ to 2·10⁻² on a log rail.
pub(super) const STEP: Quantity = Quantity {
    name: "dt",
    unit: "s",
    range: (1e-6, 2e-2),
    log: true,
};

impl Quantity {
    /// The slider for `value`, with a red tick at `limit` when there is one.
    pub(super) fn slider(&self, ui: &mut Ui, value: &mut f64, limit: Option<f64>) -> Response {
        let (lo, hi) = self.range;
        let slider = egui::Slider::new(value, lo..=hi)
            .logarithmic(self.log)
            .smallest_positive(1e-3)
            .clamping(egui::SliderClamping::Never)
            .suffix(format!(" {}", self.unit))
            .text(self.name);
        let r = ui.add(slider);
        if let Some(limit) = limit {
            mark(ui, &r, self, limit);
            r.on_hover_text(format!("stable up to {limit:.3e} {}", self.unit))
        } else {
            r
        }
    }

    /// Where `v` sits along the rail, in [0, 1] (egui's mapping for ranges that start
    /// above 0; a linear one otherwise).
    fn along(&self, v: f64) -> f64 {
        let (lo, hi) = self.range;
        let t = if self.log && lo > 0.0 {
            (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
        } else {
            (v - lo) / (hi - lo)
        };
        t.clamp(0.0, 1.0)
    }
}

/// A red tick across the rail of slider response `r` at `limit`. The rail is the first
/// `slider_width` points of the response; the handle's centre travels over it less a
/// handle radius (height/2.5) at each end, as egui draws it.
fn mark(ui: &Ui, r: &Response, q: &Quantity, limit: f64) {
    let rect = r.rect;
    let (w, h) = (ui.spacing().slider_width, ui.spacing().interact_size.y);
    let radius = h / 2.5;
    let x = rect.left() + radius + (w - 2.0 * radius) * q.along(limit) as f32;
    let y = rect.center().y;
    ui.painter().line_segment(
        [pos2(x, y - 0.45 * h), pos2(x, y + 0.45 * h)],
        Stroke::new(2.0, Color32::from_rgb(210, 50, 30)),
    );
}

/// A slider over [0, 1] (Nissen's cs and cd) with a tick at `limit`.
pub(super) fn fraction(ui: &mut Ui, value: &mut f64, name: &'static str, limit: f64) -> Response {
    let q = Quantity {
        name,
        unit: "",
        range: (0.0, 1.0),
        log: false,
    };
    let r = ui.add(egui::Slider::new(value, 0.0..=1.0).text(name));
    mark(ui, &r, &q, limit);
    r.on_hover_text(format!("Nissen's limit 1/(n+1) = {limit:.3}"))
}
