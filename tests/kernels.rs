//! The native gemm against the scalar reference and ndarray's `general_mat_mul` on sizes
//! that are not multiples of any tile, every transpose and beta; and the dot-product kernel
//! that the simd128 builds run for small `A·Bᵀ`, through its portable twin (the wasm builds
//! run the same checks on their own kernels in `tests/wasm.rs`).

mod common;

use attention_playground::kernels::{dot, scalar};
use attention_playground::rng::Rng;
use common::{check_dot, check_gemm, ndarray_gemm, GemmFn, ALL_GEMM_CASES, DOT_SHAPES};

const ORACLES: [(&str, GemmFn); 2] = [("scalar", scalar::gemm), ("ndarray", ndarray_gemm)];

#[test]
fn gemm_matches_the_references_on_odd_sizes() {
    let mut rng = Rng::new(11, 0);
    let small = [
        (1, 1, 1),
        (3, 5, 7),
        (13, 9, 17),
        (33, 65, 31),
        (4, 1, 19),
        (37, 149, 300), // one row block, more than eight panels, two depth blocks
    ];
    check_gemm(&mut rng, &small, &ALL_GEMM_CASES, &ORACLES, "native");
    // Beyond one packed block in every dimension: once is enough for the debug build.
    let big = [(67, 1029, 261), (130, 17, 515)];
    check_gemm(&mut rng, &big, &[(false, false, 0.0)], &ORACLES, "native");
}

#[test]
fn the_dot_product_kernel_matches_the_references_through_its_portable_twin() {
    let twin: (&str, GemmFn) = ("gemm_dot (portable lanes)", dot::gemm_dot::<dot::Portable>);
    let mut rng = Rng::new(13, 0);
    for oracle in ORACLES {
        check_dot(&mut rng, &DOT_SHAPES, twin, oracle, 1e-6, "native");
    }
}

#[cfg(feature = "bench")]
#[test]
fn the_flop_counter_counts_two_per_multiply_add() {
    use attention_playground::kernels::{flops, gemm, gemm_packed, Mat, MatMut, PackedB};
    let (m, n, k) = (5, 7, 3);
    let (a, b) = (vec![1.0; m * k], vec![1.0; k * n]);
    let mut c = vec![0.0; m * n];
    let before = flops();
    gemm(
        m,
        n,
        k,
        Mat::rows(&a, k),
        Mat::rows(&b, n),
        0.0,
        MatMut::rows(&mut c, n),
    );
    assert_eq!(flops() - before, 2 * 5 * 7 * 3);
    let mut packed = PackedB::new(k, n);
    packed.pack(Mat::rows(&b, n));
    gemm_packed(m, Mat::rows(&a, k), &packed, 1.0, MatMut::rows(&mut c, n));
    assert_eq!(flops() - before, 4 * 5 * 7 * 3);
    assert!(
        c.iter().all(|&x| x == 6.0),
        "two products of depth 3: {c:?}"
    );
}
