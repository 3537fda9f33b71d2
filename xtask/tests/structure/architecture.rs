//! ARCHITECTURE.md's table of the hooke crate ("place | what lives there | may use") held
//! against the crate's imports: every top-level file and folder has a row, and imports
//! only what its row lets it use (or the other places of its row).

use std::collections::{BTreeMap, BTreeSet};

use super::graph::Graph;

/// A row of the table: the rooms it names and what they may use (`None`: everything).
pub struct Row {
    pub places: BTreeSet<String>,
    pub may_use: Option<BTreeSet<String>>,
}

/// A place as the table writes it (`` `forces/coeffs.rs` ``, `` `model/` ``, `` `lib.rs` ``)
/// → the top-level room it is in (`forces`, `model`, `lib`).
fn room_of(place: &str) -> String {
    let place = place.trim().trim_matches('`');
    let first = place.split('/').next().unwrap_or(place);
    first.trim_end_matches(".rs").to_string()
}

/// The rows of the table under `heading` in `text`.
pub fn rows(text: &str, heading: &str) -> Vec<Row> {
    let section = text
        .split_once(heading)
        .map(|(_, rest)| rest)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md has no {heading:?}"));
    let mut out = Vec::new();
    for line in section.lines().skip_while(|l| !l.starts_with('|')) {
        if !line.starts_with('|') {
            break;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').collect();
        if cells.len() < 3 || cells[0].contains("---") || cells[0].contains("place") {
            continue;
        }
        let places = cells[0]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(room_of)
            .collect();
        let last = cells[cells.len() - 1].trim();
        let may_use = (last != "everything").then(|| {
            last.split(',')
                .map(|w| w.trim().to_string())
                .filter(|w| !w.is_empty() && w != "—")
                .collect()
        });
        out.push(Row { places, may_use });
    }
    out
}

/// The crate's top-level rooms and what each imports (test code's imports counted).
fn top_level(g: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    let top = |m: &[String]| m.first().cloned().unwrap_or_else(|| "lib".into());
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, deps) in g {
        let from = top(m);
        let entry = out.entry(from.clone()).or_default();
        entry.extend(deps.iter().map(|d| top(d)).filter(|d| *d != from));
    }
    out
}

/// What the table and the imports disagree on, one line each.
pub fn mismatches(g: &Graph, rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for (room, deps) in top_level(g) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.places.contains(&room)).collect();
        if mine.is_empty() {
            out.push(format!("{room}: no row in the table"));
            continue;
        }
        if mine.iter().any(|r| r.may_use.is_none()) {
            continue;
        }
        let allowed: BTreeSet<&String> = mine
            .iter()
            .flat_map(|r| r.places.iter().chain(r.may_use.iter().flatten()))
            .collect();
        for d in deps.iter().filter(|d| !allowed.contains(d)) {
            out.push(format!(
                "{room} imports {d}, which its row does not let it use"
            ));
        }
    }
    out
}
