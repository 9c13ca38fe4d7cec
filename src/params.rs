//! A model's parameters as one flat `f32` buffer with named views, whatever the model: the
//! same layout serves the weights, their gradients and the optimiser's moments, so an
//! update is one loop. `tensor_set!` declares a model's tensors; `ParamLayout` is what every
//! model's layout does with them (views, initialisation); `Init` is how each is drawn.

use crate::rng::Rng;

/// Declares a model's parameter tensors: a `Tensors<T>` struct with one field per tensor,
/// `TENSOR_NAMES`, `map` and `visit` over the tensors in the buffer's order, and
/// [`TensorRanges`] for their places in the buffer. Every model's parameters are one flat
/// buffer with named views of this kind.
macro_rules! tensor_set {
    ($($name:ident),* $(,)?) => {
        /// One value per parameter tensor, in the buffer's order.
        #[derive(Clone, Debug)]
        pub struct Tensors<T> {
            $(pub $name: T,)*
        }

        /// The tensors' names, in the buffer's order.
        pub const TENSOR_NAMES: &[&str] = &[$(stringify!($name)),*];

        impl<T> Tensors<T> {
            /// Applies `f` to every tensor in the buffer's order.
            pub fn map<U>(self, mut f: impl FnMut(&'static str, T) -> U) -> Tensors<U> {
                Tensors { $($name: f(stringify!($name), self.$name),)* }
            }

            /// References to every tensor, in the buffer's order (name, value).
            pub fn visit(&self, mut f: impl FnMut(&'static str, &T)) {
                $(f(stringify!($name), &self.$name);)*
            }
        }

        impl Tensors<usize> {
            /// Where tensors of these sizes lie, one after the other, in a flat buffer; and
            /// the buffer's length.
            pub fn ranges(self) -> (Tensors<std::ops::Range<usize>>, usize) {
                let mut at = 0;
                let ranges = self.map(|_, n| {
                    let r = at..at + n;
                    at += n;
                    r
                });
                (ranges, at)
            }
        }

        impl $crate::params::TensorRanges for Tensors<std::ops::Range<usize>> {
            type Views<'a> = Tensors<&'a [f32]>;
            type ViewsMut<'a> = Tensors<&'a mut [f32]>;

            fn split<'a>(&self, buf: &'a [f32]) -> Tensors<&'a [f32]> {
                self.clone().map(|_, r| &buf[r])
            }

            fn split_mut<'a>(&self, buf: &'a mut [f32]) -> Tensors<&'a mut [f32]> {
                let mut rest: &'a mut [f32] = buf;
                self.clone().map(|_, r| {
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
                    rest = tail;
                    head
                })
            }

            fn initialise(
                &self,
                buf: &mut [f32],
                rng: &mut $crate::rng::Rng,
                init_of: impl Fn(&str) -> $crate::params::Init,
            ) {
                self.visit(|name, r| init_of(name).fill(&mut buf[r.clone()], rng));
            }
        }
    };
}

pub(crate) use tensor_set;

/// Where a model's tensors lie, one after the other, in a flat buffer (`tensor_set!`
/// implements it for its `Tensors<Range<usize>>`).
pub trait TensorRanges {
    /// Named read-only views of a buffer: `Tensors<&[f32]>`.
    type Views<'a>;
    /// Named writable views of a buffer: `Tensors<&mut [f32]>`.
    type ViewsMut<'a>;

    /// Named read-only views of `buf`.
    fn split<'a>(&self, buf: &'a [f32]) -> Self::Views<'a>;

    /// Named writable views of `buf`.
    fn split_mut<'a>(&self, buf: &'a mut [f32]) -> Self::ViewsMut<'a>;

    /// Fills `buf` with a fresh initialisation of each tensor, as `init_of` its name says,
    /// drawn from `rng` in the buffer's order.
    fn initialise(&self, buf: &mut [f32], rng: &mut Rng, init_of: impl Fn(&str) -> Init);
}

/// A model's parameter layout: it gives where its tensors lie and how each is drawn; the
/// views of a buffer and its initialisation are written here, once for every model. A
/// buffer must be as long as the layout (`param_count()`).
pub trait ParamLayout {
    /// `Tensors<Range<usize>>` of the model's `tensor_set!`.
    type Ranges: TensorRanges;

    /// Where each tensor lies in the buffer.
    fn ranges(&self) -> &Self::Ranges;

    /// The parameter count: where the last tensor ends.
    fn param_count(&self) -> usize;

    /// How the tensor `name` is initialised.
    fn init_of(&self, name: &str) -> Init;

    /// Fills `buf` with a fresh initialisation drawn from `rng`.
    fn initialise(&self, buf: &mut [f32], rng: &mut Rng) {
        assert_eq!(buf.len(), self.param_count());
        self.ranges()
            .initialise(buf, rng, |name| self.init_of(name));
    }

    /// Named read-only views of `buf`.
    fn split<'a>(&self, buf: &'a [f32]) -> <Self::Ranges as TensorRanges>::Views<'a> {
        assert_eq!(buf.len(), self.param_count());
        self.ranges().split(buf)
    }

    /// Named writable views of `buf`.
    fn split_mut<'a>(&self, buf: &'a mut [f32]) -> <Self::Ranges as TensorRanges>::ViewsMut<'a> {
        assert_eq!(buf.len(), self.param_count());
        self.ranges().split_mut(buf)
    }
}

/// How a tensor is initialised (PyTorch's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Init {
    /// N(0, 1), as `nn.Embedding`.
    Normal,
    /// U(−1/√fan, 1/√fan), as `nn.LSTM` (fan = H) and `nn.Linear` (fan = in-features).
    Uniform { fan: usize },
}

impl Init {
    /// Fills `t` with fresh draws from `rng`.
    pub fn fill(self, t: &mut [f32], rng: &mut Rng) {
        match self {
            Init::Normal => t.iter_mut().for_each(|x| *x = rng.normal()),
            Init::Uniform { fan } => {
                let bound = 1.0 / (fan as f32).sqrt();
                t.iter_mut()
                    .for_each(|x| *x = rng.uniform_range(-bound, bound));
            }
        }
    }
}
