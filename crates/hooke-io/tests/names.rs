//! The enums named in the scene file are the core's own (its `serde` feature): their names
//! in a file are the names `hooke` prints and parses (`Integrator::name`, `Display`,
//! `FromStr`), one table, checked here variant by variant.

use hooke::actuation::SensorType;
use hooke::contact::CollisionMode;
use hooke::{
    DampingMode, FieldKind, Integrator, LinearSolver, Preconditioner, SpringKind, StableForm,
};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Every name the JSON Schema of `T` allows (`enum`, or the `const`s of `oneOf`).
fn schema_names<T: JsonSchema>() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap();
    let mut out: Vec<String> = Vec::new();
    if let Some(names) = schema.get("enum").and_then(Value::as_array) {
        out.extend(names.iter().filter_map(|n| n.as_str().map(String::from)));
    }
    for alt in schema
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let names = alt.get("enum").and_then(Value::as_array).cloned();
        let one = alt.get("const").cloned().map(|c| vec![c]);
        let names = names.or(one).unwrap_or_default();
        out.extend(names.iter().filter_map(|n| n.as_str().map(String::from)));
    }
    out
}

/// Each file name of `T` reads as the variant whose `Display` is that name, and writes
/// back as it; `count` variants in all.
fn same_names<T>(count: usize)
where
    T: JsonSchema + DeserializeOwned + serde::Serialize + std::fmt::Display,
{
    let names = schema_names::<T>();
    let what = std::any::type_name::<T>();
    assert_eq!(names.len(), count, "{what}: {names:?}");
    for name in names {
        let v: T = serde_json::from_value(Value::String(name.clone())).unwrap();
        assert_eq!(v.to_string(), name, "{what}");
        assert_eq!(
            serde_json::to_value(&v).unwrap(),
            Value::String(name),
            "{what}"
        );
    }
}

#[test]
fn the_file_names_every_variant_as_the_core_does() {
    same_names::<Integrator>(Integrator::ALL.len());
    same_names::<LinearSolver>(LinearSolver::ALL.len());
    same_names::<Preconditioner>(4);
    same_names::<StableForm>(2);
    same_names::<SpringKind>(3);
    same_names::<DampingMode>(2);
    same_names::<CollisionMode>(3);
    same_names::<SensorType>(4);
}

#[test]
fn field_kinds_read_by_their_names() {
    for (name, kind) in [
        ("force", FieldKind::Force),
        ("acceleration", FieldKind::Acceleration),
    ] {
        let v: FieldKind = serde_json::from_value(Value::String(name.into())).unwrap();
        assert_eq!(v, kind);
    }
    assert_eq!(schema_names::<FieldKind>().len(), 2);
}
