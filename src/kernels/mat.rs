//! The strided matrix views every kernel takes: [`Mat`] (read-only) and [`MatMut`]. How they
//! are multiplied is the kernels' business; this file only says where element (i, j) is.

/// A read-only strided matrix: element (i, j) is `data[i * rs + j * cs]`.
#[derive(Clone, Copy)]
pub struct Mat<'a> {
    pub data: &'a [f32],
    pub rs: usize,
    pub cs: usize,
}

/// A writable strided matrix, laid out as [`Mat`].
pub struct MatMut<'a> {
    pub data: &'a mut [f32],
    pub rs: usize,
    pub cs: usize,
}

impl<'a> Mat<'a> {
    /// Row-major with leading dimension `ld` (row stride).
    pub fn rows(data: &'a [f32], ld: usize) -> Mat<'a> {
        Mat {
            data,
            rs: ld,
            cs: 1,
        }
    }
    /// The transpose of a row-major matrix with leading dimension `ld`.
    pub fn rows_t(data: &'a [f32], ld: usize) -> Mat<'a> {
        Mat {
            data,
            rs: 1,
            cs: ld,
        }
    }
    /// A `rows × cols` operand stored densely: row-major, or when `transposed` the
    /// transpose of a row-major `cols × rows` matrix.
    pub fn dense(data: &'a [f32], rows: usize, cols: usize, transposed: bool) -> Mat<'a> {
        Mat::spaced(data, rows, cols, transposed, 1)
    }
    /// [`Mat::dense`] with the stored rows `apart` times their length apart: one sequence's
    /// rows of an (L, B, H) buffer are `B·H` apart (`apart = B`). `data` holds
    /// `rows·cols·apart` floats.
    pub fn spaced(
        data: &'a [f32],
        rows: usize,
        cols: usize,
        transposed: bool,
        apart: usize,
    ) -> Mat<'a> {
        if transposed {
            Mat::rows_t(data, rows * apart)
        } else {
            Mat::rows(data, cols * apart)
        }
    }
}

impl<'a> MatMut<'a> {
    /// Row-major with leading dimension `ld` (row stride).
    pub fn rows(data: &'a mut [f32], ld: usize) -> MatMut<'a> {
        MatMut {
            data,
            rs: ld,
            cs: 1,
        }
    }
}
