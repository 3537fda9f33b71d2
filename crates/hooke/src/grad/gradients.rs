//! What the backward pass returns: the gradient of the loss with respect to each
//! parameter kind, in the scene's own (user) order.

/// The gradients of a loss L with respect to the scene's parameters (user order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gradients {
    /// ∂L/∂k per spring [per N/m].
    pub k: Vec<f64>,
    /// ∂L/∂c per spring [per N·s/m].
    pub c: Vec<f64>,
    /// ∂L/∂L₀ per spring (rest length) [per m].
    pub rest: Vec<f64>,
    /// ∂L/∂m per node [per kg] (0 for a pinned node, which no force moves).
    pub mass: Vec<f64>,
    /// ∂L/∂x per node at the start of the rollout [per m].
    pub x0: Vec<[f64; 3]>,
    /// ∂L/∂v per node at the start of the rollout [per m/s].
    pub v0: Vec<[f64; 3]>,
}
