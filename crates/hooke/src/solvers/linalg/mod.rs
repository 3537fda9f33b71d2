//! Sparse linear algebra for the large-step solvers: 3×3-block matrices and the springs'
//! Jacobians with PCG (`blocks.rs`), the matrix assembled in parallel (`assembly.rs`), block rows by row (`csr.rs`, `row_product.rs`),
//! smoothed-aggregation multigrid as CG's preconditioner (`aggregation.rs`, `multigrid/`: the hierarchy and its
//! V-cycle, `multigrid_cg.rs`), and the direct solves: faer's sparse Cholesky with our own
//! triangular solves (`direct.rs`, `panels.rs`, `simplicial.rs`; what a factorisation costs against a solve,
//! `factor_cost.rs`) and the springs'
//! Laplacian factored once (`laplacian.rs`).

pub(crate) mod aggregation;
pub(crate) mod assembly;
pub(crate) mod blocks;
pub(crate) mod csr;
pub(crate) mod direct;
pub(crate) mod factor_cost;
pub(crate) mod laplacian;
pub(crate) mod multigrid;
pub(crate) mod multigrid_cg;
pub(crate) mod panels;
pub(crate) mod row_product;
pub(crate) mod simplicial;
