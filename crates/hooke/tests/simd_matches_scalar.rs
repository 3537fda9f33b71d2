//! The spring pass (AVX2 where the CPU has it, threaded) gives bit for bit the scalar
//! kernel's forces: same operations, same order, no fused multiply-add. The models and the
//! comparison live in `hooke::kernel_check`, which the browser studio runs too (wasm
//! simd128 kernel).

#[test]
fn spring_pass_is_bit_identical_to_scalar_kernel() {
    let checked = hooke::kernel_check::spring_pass_matches_scalar().unwrap();
    assert_eq!(checked, 7 + 1 + 1001 + 1 + 9000 + 1);
}
