//! What fast mass-spring's contact steps leave for the gradient (`grad/friction_anchors.rs`):
//! the last step's planes with their friction springs, and the energy it then shed.

use super::FmsContacts;
use crate::contact::solved::{LastContacts, Shed};

impl FmsContacts {
    /// The last own contact step's record for the gradient.
    pub(crate) fn solved(&self) -> LastContacts<'_> {
        match (&self.solved, self.unrecorded) {
            (_, Some(why)) => LastContacts::Unrecorded(why),
            (Some(s), None) => LastContacts::Solved(s),
            (None, None) => LastContacts::None,
        }
    }

    /// Records that the last step then shed energy (`shed`) from its velocities.
    pub(crate) fn shed(&mut self, shed: Option<Shed>) {
        if let Some(solved) = self.solved.as_mut() {
            solved.shed = shed;
        }
    }
}
