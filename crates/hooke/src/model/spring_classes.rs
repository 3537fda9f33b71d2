//! Springs' parameters by class: everything a spring has besides its ends and rest length
//! (kind, stiffness, damping, Nissen's coefficients, damping mode, break strain) kept once
//! per distinct set, each spring holding a small index into the table.
//!
//! A cloth, a jelly or a converted mesh has a handful of distinct sets (structural, shear
//! and bend springs), so a spring's parameters take 1 B instead of 24 (2 B past 256 classes);
//! a scene whose springs all differ (a stiffness identified spring by spring) takes 4 B of
//! index and one class a spring. The values are kept exactly (classes compare bit for bit),
//! so nothing a user set changes. A byte index is shared (`Arc`) with the compiled
//! coefficients where they are a function of the class (`forces/coef_classes.rs`).

use std::collections::HashMap;
use std::sync::Arc;

use super::spring_kind::{DampingMode, SpringKind};
use crate::real::Real;

/// The parameters a class of springs shares.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SpringClass {
    /// Family.
    pub kind: SpringKind,
    /// Stiffness k [N/m] (`spring` and `rope`; 0 for `stable`).
    pub k: Real,
    /// Damping c [N·s/m] (`spring` and `rope`; 0 for `stable`).
    pub c: Real,
    /// Nissen stiffness coefficient Cs in [0, 1] (`stable` only; 0 otherwise).
    pub cs: Real,
    /// Nissen damping coefficient Cd in [0, 1] (`stable` only; 0 otherwise).
    pub cd: Real,
    /// How the damping acts.
    pub damping: DampingMode,
    /// Strain (ℓ − L)/L past which the spring tears; `Real::INFINITY` = never.
    pub break_strain: Real,
}

/// A class's identity: its values bit for bit.
type Key = (SpringKind, DampingMode, [u64; 5]);

impl SpringClass {
    fn key(&self) -> Key {
        let bits =
            [self.k, self.c, self.cs, self.cd, self.break_strain].map(|v| f64::from(v).to_bits());
        (self.kind, self.damping, bits)
    }
}

/// Each spring's class index: 1 B while the table has at most 256 classes, 2 B up to
/// 65 536, else 4 B.
#[derive(Debug, Clone)]
enum Index {
    /// Shared with the compiled coefficients where they can read it (a writer clones it
    /// first: `Arc::make_mut`).
    Byte(Arc<Vec<u8>>),
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Index {
    /// The index widened one size (a byte to 2 B, 2 B to 4 B).
    fn widened(&self) -> Self {
        match self {
            Index::Byte(i) => Index::Narrow(i.iter().map(|&c| c as u16).collect()),
            Index::Narrow(i) => Index::Wide(i.iter().map(|&c| c as u32).collect()),
            Index::Wide(_) => self.clone(), // 4 B hold every class a Vec can index
        }
    }

    /// The largest class this index can hold.
    fn max(&self) -> u32 {
        match self {
            Index::Byte(_) => u8::MAX as u32,
            Index::Narrow(_) => u16::MAX as u32,
            Index::Wide(_) => u32::MAX,
        }
    }
}

/// The classes and each spring's index into them.
#[derive(Debug, Clone)]
pub(crate) struct SpringClasses {
    index: Index,
    table: Vec<SpringClass>,
    /// Each class's index by its values, while springs are being added or changed
    /// (dropped by [`Self::seal`]; made again from the table when needed).
    find: Option<HashMap<Key, u32>>,
}

impl Default for SpringClasses {
    fn default() -> Self {
        Self {
            index: Index::Byte(Arc::default()),
            table: Vec::new(),
            find: None,
        }
    }
}

/// Two sets of springs are equal when every spring's parameters are (whatever the tables'
/// order).
impl PartialEq for SpringClasses {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|s| self.of(s) == other.of(s))
    }
}

impl SpringClasses {
    /// Room for `m` springs.
    pub(crate) fn with_capacity(m: usize) -> Self {
        Self {
            index: Index::Byte(Arc::new(Vec::with_capacity(m))),
            ..Self::default()
        }
    }

    /// The class of spring `s`.
    #[inline]
    pub(crate) fn of(&self, s: usize) -> &SpringClass {
        let c = match &self.index {
            Index::Byte(i) => i[s] as usize,
            Index::Narrow(i) => i[s] as usize,
            Index::Wide(i) => i[s] as usize,
        };
        &self.table[c]
    }

    /// The number of springs.
    pub(crate) fn len(&self) -> usize {
        match &self.index {
            Index::Byte(i) => i.len(),
            Index::Narrow(i) => i.len(),
            Index::Wide(i) => i.len(),
        }
    }

    /// The classes in the table (some may no longer be any spring's).
    pub(crate) fn table(&self) -> &[SpringClass] {
        &self.table
    }

    /// Appends a spring of class `class`.
    pub(crate) fn push(&mut self, class: SpringClass) {
        let c = self.class_index(class);
        match &mut self.index {
            Index::Byte(i) => Arc::make_mut(i).push(c as u8),
            Index::Narrow(i) => i.push(c as u16),
            Index::Wide(i) => i.push(c),
        }
    }

    /// Gives spring `s` the class `class`.
    pub(crate) fn set(&mut self, s: usize, class: SpringClass) {
        let c = self.class_index(class);
        match &mut self.index {
            Index::Byte(i) => Arc::make_mut(i)[s] = c as u8,
            Index::Narrow(i) => i[s] = c as u16,
            Index::Wide(i) => i[s] = c,
        }
    }

    /// Keeps the springs for which `keep[s]` holds, in order.
    pub(crate) fn retain(&mut self, keep: &[bool]) {
        fn filter<T>(v: &mut Vec<T>, keep: &[bool]) {
            let mut it = keep.iter();
            v.retain(|_| *it.next().expect("one flag per spring"));
        }
        match &mut self.index {
            Index::Byte(i) => filter(Arc::make_mut(i), keep),
            Index::Narrow(i) => filter(i, keep),
            Index::Wide(i) => filter(i, keep),
        }
    }

    /// Drops the lookup of classes by value (the model is built: its springs change
    /// rarely, and a scene whose springs all differ would hold it for every spring).
    pub(crate) fn seal(&mut self) {
        self.find = None;
    }

    /// Each spring's class as a byte, where the table has at most 256 classes.
    pub(crate) fn bytes(&self) -> Option<&Arc<Vec<u8>>> {
        match &self.index {
            Index::Byte(i) => Some(i),
            _ => None,
        }
    }

    /// The index of `class` in the table, added if new (the index widened past 256 and
    /// 65 536 classes).
    fn class_index(&mut self, class: SpringClass) -> u32 {
        let table = &self.table;
        let find = self.find.get_or_insert_with(|| {
            let keys = table.iter().enumerate();
            keys.map(|(c, class)| (class.key(), c as u32)).collect()
        });
        if let Some(&c) = find.get(&class.key()) {
            return c;
        }
        let c = self.table.len() as u32;
        self.table.push(class);
        find.insert(class.key(), c);
        if c > self.index.max() {
            self.index = self.index.widened();
        }
        c
    }
}
