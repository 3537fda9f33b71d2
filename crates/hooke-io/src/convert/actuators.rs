//! Conversion of sensors, controllers and muscles, and their state.

use hooke::FieldError;
use hooke::actuation::{
    Actuators, Controller, ControllerState, Drive, Muscle, Sensor, SensorKind, SensorType,
};
use hooke::{Real, Vec3};

use crate::format::*;

/// The core sensor of file sensor `i`; `springs` are the file's (a length sensor may name
/// one).
fn sensor(s: &SensorFile, i: usize, springs: &[SpringFile]) -> Result<Sensor, FieldError> {
    let path = |f: &str| format!("sensors[{i}].{f}");
    let kind = s.kind.name();
    let missing = |f: &str| FieldError::new(path(f), format!("missing: a {kind} sensor needs {f}"));
    only_its_fields(s, &path)?;
    let v3 = |a: V3| Vec3::new(a[0], a[1], a[2]);
    let kind = match s.kind {
        SensorType::Length => SensorKind::Length {
            spring: s.spring,
            ends: length_ends(s, springs, &path)?,
            min: s.min.ok_or_else(|| missing("min"))?,
            max: s.max.ok_or_else(|| missing("max"))?,
        },
        SensorType::Contact => SensorKind::Contact {
            node: s.node.ok_or_else(|| missing("node"))?,
        },
        SensorType::Target => SensorKind::Target {
            back: s.back.ok_or_else(|| missing("back"))?,
            front: s.front.ok_or_else(|| missing("front"))?,
            target: v3(s.target.ok_or_else(|| missing("target"))?),
            up: v3(s.up.unwrap_or([0.0, 1.0, 0.0])),
            min: s.min.ok_or_else(|| missing("min"))?,
            max: s.max.ok_or_else(|| missing("max"))?,
        },
        SensorType::Timer => SensorKind::Timer {
            period: s.period.ok_or_else(|| missing("period"))?,
            on: s.on.ok_or_else(|| missing("on"))?,
            phase: s.phase.unwrap_or(0.0),
        },
    };
    Ok(Sensor {
        id: s.id.clone(),
        kind,
    })
}

/// A sensor gives only the fields of its kind.
fn only_its_fields(s: &SensorFile, path: &dyn Fn(&str) -> String) -> Result<(), FieldError> {
    let kind = s.kind.name();
    let allowed: &[&str] = match s.kind {
        SensorType::Length => &["spring", "nodes", "min", "max"],
        SensorType::Contact => &["node"],
        SensorType::Target => &["back", "front", "target", "up", "min", "max"],
        SensorType::Timer => &["period", "on", "phase"],
    };
    let given = [
        ("spring", s.spring.is_some()),
        ("nodes", s.nodes.is_some()),
        ("node", s.node.is_some()),
        ("min", s.min.is_some()),
        ("max", s.max.is_some()),
        ("back", s.back.is_some()),
        ("front", s.front.is_some()),
        ("target", s.target.is_some()),
        ("up", s.up.is_some()),
        ("period", s.period.is_some()),
        ("on", s.on.is_some()),
        ("phase", s.phase.is_some()),
    ];
    if let Some((f, _)) = given.iter().find(|(f, g)| *g && !allowed.contains(f)) {
        return Err(FieldError::new(
            path(f),
            format!("a {kind} sensor takes {}, not {f}", allowed.join(", ")),
        ));
    }
    Ok(())
}

/// A length sensor's two nodes: a spring's ends, or two nodes, not both.
fn length_ends(
    s: &SensorFile,
    springs: &[SpringFile],
    path: &dyn Fn(&str) -> String,
) -> Result<[u32; 2], FieldError> {
    match (s.spring, s.nodes) {
        (Some(_), Some(_)) => Err(FieldError::new(
            path("nodes"),
            "give either spring or nodes, not both",
        )),
        (Some(sp), None) => {
            let f = springs.get(sp as usize).ok_or_else(|| {
                FieldError::new(
                    path("spring"),
                    format!(
                        "{sp} is not a spring (the scene has {} springs)",
                        springs.len()
                    ),
                )
            })?;
            Ok([f.a, f.b])
        }
        (None, Some(n)) => Ok(n),
        (None, None) => Err(FieldError::new(
            path("spring"),
            "missing: a length sensor needs spring",
        )),
    }
}

fn sensor_file(s: &Sensor) -> SensorFile {
    let mut f = SensorFile {
        id: s.id.clone(),
        kind: s.kind.sensor_type(),
        spring: None,
        nodes: None,
        node: None,
        min: None,
        max: None,
        back: None,
        front: None,
        target: None,
        up: None,
        period: None,
        on: None,
        phase: None,
    };
    match &s.kind {
        SensorKind::Length {
            spring,
            ends,
            min,
            max,
        } => {
            f.spring = *spring;
            f.nodes = spring.is_none().then_some(*ends);
            (f.min, f.max) = (Some(*min), Some(*max));
        }
        SensorKind::Contact { node } => {
            f.node = Some(*node);
        }
        SensorKind::Target {
            back,
            front,
            target,
            up,
            min,
            max,
        } => {
            (f.back, f.front) = (Some(*back), Some(*front));
            f.target = Some(target.to_array());
            f.up = Some(up.to_array());
            (f.min, f.max) = (Some(*min), Some(*max));
        }
        SensorKind::Timer { period, on, phase } => {
            (f.period, f.on, f.phase) = (Some(*period), Some(*on), Some(*phase));
        }
    }
    f
}

fn controller(c: &ControllerFile, i: usize, sensors: &[Sensor]) -> Result<Controller, FieldError> {
    let delay = u32::try_from(c.delay).map_err(|_| {
        FieldError::new(
            format!("controllers[{i}].delay"),
            format!(
                "{} is not a delay; give a whole number of steps >= 0",
                c.delay
            ),
        )
    })?;
    let weights = c
        .weights
        .iter()
        .map(|(id, &w)| {
            let k = sensors.iter().position(|s| &s.id == id).ok_or_else(|| {
                let ids: Vec<&str> = sensors.iter().map(|s| s.id.as_str()).collect();
                FieldError::new(
                    format!("controllers[{i}].weights.{id}"),
                    if ids.is_empty() {
                        format!("{id:?} is not a sensor id (the scene has no sensors)")
                    } else {
                        format!("{id:?} is not a sensor id; sensors are {}", ids.join(", "))
                    },
                )
            })?;
            Ok((k as u32, w))
        })
        .collect::<Result<Vec<(u32, Real)>, FieldError>>()?;
    Ok(Controller {
        spring: c.spring,
        delay,
        weights,
        rest: c.rest,
        k: c.k,
        c: c.c,
        cs: c.cs,
        cd: c.cd,
    })
}

fn muscle(m: &MuscleFile, i: usize) -> Result<Muscle, FieldError> {
    let drive = match (m.frequency, m.channel) {
        (Some(frequency), None) => Drive::Sine {
            frequency,
            phase: m.phase,
        },
        (None, Some(c)) => {
            if m.phase != 0.0 {
                return Err(FieldError::new(
                    format!("muscles[{i}].phase"),
                    "a muscle driven by a channel has no phase; give frequency for a sine",
                ));
            }
            Drive::Channel(c)
        }
        (Some(_), Some(_)) => {
            return Err(FieldError::new(
                format!("muscles[{i}].channel"),
                "give either frequency (a sine) or channel (an actuation value), not both",
            ));
        }
        (None, None) => {
            return Err(FieldError::new(
                format!("muscles[{i}].frequency"),
                "missing: give frequency (a sine) or channel (an actuation value)",
            ));
        }
    };
    Ok(Muscle {
        spring: m.spring,
        amplitude: m.amplitude,
        drive,
    })
}

/// The core's actuators from the file's fields.
pub(crate) fn actuators(f: &SceneFile) -> Result<Actuators, FieldError> {
    let sensors = f
        .sensors
        .iter()
        .enumerate()
        .map(|(i, s)| sensor(s, i, &f.springs))
        .collect::<Result<Vec<_>, _>>()?;
    let controllers = f
        .controllers
        .iter()
        .enumerate()
        .map(|(i, c)| controller(c, i, &sensors))
        .collect::<Result<_, _>>()?;
    let muscles = f
        .muscles
        .iter()
        .enumerate()
        .map(|(i, m)| muscle(m, i))
        .collect::<Result<_, _>>()?;
    Ok(Actuators {
        sensors,
        controllers,
        muscles,
    })
}

/// The file's (sensors, controllers, muscles) from the core's actuators.
pub(crate) fn actuators_file(
    a: &Actuators,
) -> (Vec<SensorFile>, Vec<ControllerFile>, Vec<MuscleFile>) {
    let sensors = a.sensors.iter().map(sensor_file).collect();
    let controllers = a
        .controllers
        .iter()
        .map(|c| ControllerFile {
            spring: c.spring,
            delay: c.delay as i64,
            weights: c
                .weights
                .iter()
                .map(|&(s, w)| (a.sensors[s as usize].id.clone(), w))
                .collect(),
            rest: c.rest,
            k: c.k,
            c: c.c,
            cs: c.cs,
            cd: c.cd,
        })
        .collect();
    let muscles = a
        .muscles
        .iter()
        .map(|m| {
            let (frequency, phase, channel) = match m.drive {
                Drive::Sine { frequency, phase } => (Some(frequency), phase, None),
                Drive::Channel(c) => (None, 0.0, Some(c)),
            };
            MuscleFile {
                spring: m.spring,
                amplitude: m.amplitude,
                frequency,
                phase,
                channel,
            }
        })
        .collect();
    (sensors, controllers, muscles)
}

/// Controller states from the file.
pub(crate) fn states(s: &[ControllerStateFile]) -> Vec<ControllerState> {
    s.iter()
        .map(|c| ControllerState {
            active: c.active,
            count: c.count,
        })
        .collect()
}

/// Controller states for the file; empty when all are at rest.
pub(crate) fn states_file(s: &[ControllerState]) -> Vec<ControllerStateFile> {
    if s.iter().all(|c| *c == ControllerState::default()) {
        return Vec::new();
    }
    s.iter()
        .map(|c| ControllerStateFile {
            active: c.active,
            count: c.count,
        })
        .collect()
}
