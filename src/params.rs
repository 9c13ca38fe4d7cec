//! A model's parameters as one flat `f32` buffer with named views, whatever the model: the
//! same layout serves the weights, their gradients and the optimiser's moments, so an
//! update is one loop. `tensor_set!` declares a model's tensors; `Init` is how each is drawn.

use crate::rng::Rng;

/// Declares a model's parameter tensors: a `Tensors<T>` struct with one field per tensor,
/// `TENSOR_NAMES`, and `map` and `visit` over the tensors in the buffer's order. Every
/// model's parameters are one flat buffer with named views of this kind.
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

        impl Tensors<std::ops::Range<usize>> {
            /// Named read-only views of `buf`.
            pub fn split<'a>(&self, buf: &'a [f32]) -> Tensors<&'a [f32]> {
                self.clone().map(|_, r| &buf[r])
            }

            /// Fills `buf` with a fresh initialisation of each tensor, as `init_of` its name
            /// says, drawn from `rng` in the buffer's order.
            pub fn initialise(
                &self,
                buf: &mut [f32],
                rng: &mut $crate::rng::Rng,
                init_of: impl Fn(&str) -> $crate::params::Init,
            ) {
                self.visit(|name, r| init_of(name).fill(&mut buf[r.clone()], rng));
            }

            /// Named writable views of `buf`.
            pub fn split_mut<'a>(&self, buf: &'a mut [f32]) -> Tensors<&'a mut [f32]> {
                let mut rest: &'a mut [f32] = buf;
                self.clone().map(|_, r| {
                    let (head, tail) = std::mem::take(&mut rest).split_at_mut(r.len());
                    rest = tail;
                    head
                })
            }
        }
    };
}

pub(crate) use tensor_set;

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
