//! The scalar reference kernels: the plainest loops that compute the kernel API's results.
//! They are the test oracle for every faster kernel.

use super::mat::{Mat, MatMut};

/// C (m×n) = A (m×k) · B (k×n) + beta · C, accumulated in f32 in the order k = 0, 1, ….
/// With `beta == 0` the old C is ignored.
pub fn gemm(m: usize, n: usize, k: usize, a: Mat, b: Mat, beta: f32, c: MatMut) {
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0.0f32;
            for p in 0..k {
                acc += a.data[i * a.rs + p * a.cs] * b.data[p * b.rs + j * b.cs];
            }
            let out = &mut c.data[i * c.rs + j * c.cs];
            *out = if beta == 0.0 { acc } else { acc + beta * *out };
        }
    }
}
