//! The energy audit's books ([`AuditBooks`]) in a checkpoint's state, both ways.

use hooke::{Audit, AuditBooks};

use crate::format::AuditFile;

/// The books as written: `None` when a value is not finite (JSON has no infinity; a
/// resumed run then starts its audit over, which is always correct).
pub(super) fn books_file(b: &AuditBooks) -> Option<AuditFile> {
    let a = &b.audit;
    let terms = a.stored_terms();
    let file = AuditFile {
        since: a.since,
        start: a.start,
        now: a.now,
        terms,
        numerical: b.numerical_booked,
        steps: b.steps,
        start_stretch: None,
        start_constant: b.start_constant,
        peak: b.peak,
        air_power: b.air_power,
        countdown: b.countdown,
        over: b.over,
    };
    let scalars = [
        a.since,
        a.start,
        a.now,
        b.start_constant,
        b.peak,
        b.numerical_booked,
    ];
    let optional = [b.air_power, b.over];
    let finite = (scalars.iter().chain(&terms)).all(|v| v.is_finite())
        && optional.iter().flatten().all(|v| v.is_finite());
    finite.then_some(file)
}

/// The books a file's state carries.
pub(super) fn books(f: &AuditFile) -> AuditBooks {
    AuditBooks {
        audit: Audit {
            numerical: f.numerical,
            ..Audit::from_stored(f.since, f.start, f.now, f.terms)
        },
        numerical_booked: f.numerical,
        steps: f.steps,
        start_constant: f.start_constant,
        peak: f.peak,
        air_power: f.air_power,
        countdown: f.countdown,
        over: f.over,
    }
}
