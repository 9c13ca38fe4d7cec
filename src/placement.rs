//! Where a run trains, named once for the native tools and the page: a placement (its
//! backend by name, and the workers that share a CPU run's batches) and a lab's backend as a
//! tool sees it (`RunMaker`: it makes runs of the lab's settings there). A tool lists the
//! makers it has and picks one by the name a user gives (`pick`); a new backend is one more
//! maker, and no tool changes.

use crate::run::{Run, RunError};

/// The CPU's backend name (wasm SIMD on the page, native code in the tools).
pub const CPU: &str = "cpu";
/// A GPU's backend name (WebGPU on the page, Vulkan natively).
pub const GPU: &str = "gpu";

/// Where a run trains: its backend by name, and the workers that share each batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub backend: &'static str,
    pub workers: usize,
}

impl Placement {
    /// On `backend`, one worker.
    pub const fn on(backend: &'static str) -> Placement {
        Placement {
            backend,
            workers: 1,
        }
    }
}

/// A backend of a lab's runs (`R`: the lab's run, any backend's) as a tool sees it.
pub trait RunMaker<R: Run + ?Sized> {
    /// Where its runs train.
    fn placement(&self) -> Placement;
    /// The hardware, in words (a GPU's name).
    fn describe(&self) -> String;
    /// A fresh run of `config` there, evaluated at step 0; settings it cannot train are
    /// refused (`RunError::Setting`, or `RunError::Backend` where the hardware refuses).
    fn make(&self, config: R::Config) -> Result<Box<R>, RunError>;
}

/// The maker of `makers` whose backend is named `name`; a name that none has is refused,
/// naming those there are.
pub fn pick<'a, R: Run + ?Sized, M: RunMaker<R> + ?Sized>(
    makers: &'a [Box<M>],
    name: &str,
) -> Result<&'a M, String> {
    match makers.iter().find(|m| m.placement().backend == name) {
        Some(m) => Ok(m.as_ref()),
        None => {
            let names: Vec<&str> = makers.iter().map(|m| m.placement().backend).collect();
            Err(format!(
                "--backend: {} here, got {name:?}",
                names.join(" or ")
            ))
        }
    }
}
