//! Conversion between the file types ([`crate::format`]) and the core's [`SceneBuilder`] and
//! [`Scene`], both ways. Errors name the field (`springs[3].k`).

mod actuators;
mod books;
mod contacts;
mod items;
mod names;
mod paths;
mod settings;
mod surfaces;

pub(crate) use items::spring;

use hooke::{FieldError, Scene, SceneBuilder};

use crate::format::{FORMAT, SceneFile};

/// The scene builder of a parsed file, before validation (composites add their parts).
pub(crate) fn to_builder(f: &SceneFile) -> Result<SceneBuilder, FieldError> {
    if f.format != FORMAT {
        return Err(FieldError::new(
            "format",
            format!(
                "{:?} is not a format this hooke reads; expected {FORMAT:?}",
                f.format
            ),
        ));
    }
    let mut b = SceneBuilder::new(f.name.clone());
    b.description = f.description.clone();
    settings::settings_into(&f.settings, &mut b)?;
    for (i, n) in f.nodes.iter().enumerate() {
        b.add_node(items::node(n, i)?);
    }
    for (i, sp) in f.springs.iter().enumerate() {
        b.add_spring(items::spring(sp, &format!("springs[{i}]"))?);
    }
    let t = f.state.as_ref().map_or(0.0, |st| st.t);
    b.anchors = items::anchors(&f.anchors, &f.nodes, t);
    b.contacts = contacts::contacts(f, t)?;
    b.actuators = actuators::actuators(f)?;
    b.surfaces = surfaces::surfaces(&f.surfaces);
    if let Some(st) = &f.state {
        items::state_into(st, &mut b);
    }
    Ok(b)
}

/// The file form of a scene, with its current state (a checkpoint).
pub(crate) fn to_file(scene: &Scene) -> SceneFile {
    let b = scene.to_builder();
    let damping = b.settings.damping;
    let (ground, terrain, colliders, collisions) = contacts::contacts_file(&b.contacts);
    let (sensors, controllers, muscles) = actuators::actuators_file(&b.actuators);
    SceneFile {
        schema: None,
        format: FORMAT.to_string(),
        name: b.name.clone(),
        description: b.description.clone(),
        settings: settings::settings_file(&b),
        nodes: b.nodes.iter().map(items::node_file).collect(),
        springs: b
            .springs
            .iter()
            .map(|s| items::spring_file(s, damping))
            .collect(),
        anchors: items::anchors_file(&b.anchors),
        ground,
        terrain,
        colliders,
        collisions,
        sensors,
        controllers,
        muscles,
        surfaces: surfaces::surfaces_file(&b.surfaces),
        parts: Vec::new(),
        joins: Vec::new(),
        state: items::state_file(&b),
    }
}
