//! Two independent pieces of work at once: one on a scoped thread, one on the caller's; and
//! background threads that yield the CPU to everything else.

use crate::{Error, Result};

/// Runs `side` on a scoped thread while `main` runs on this one, and returns both results.
///
/// When the system refuses a thread, `side` runs after `main`, on this thread; a panic in
/// `side` becomes the error `panicked` makes, so it never unwinds into the caller.
pub(crate) fn alongside<S: Send, M>(
    side: impl Fn() -> Result<S> + Sync,
    main: impl FnOnce() -> M,
    panicked: impl FnOnce() -> Error,
) -> (Result<S>, M) {
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new().spawn_scoped(scope, &side);
        let main = main();
        let side = match spawned {
            Ok(handle) => handle.join().unwrap_or_else(|_| Err(panicked())),
            Err(_) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(&side))
                .unwrap_or_else(|_| Err(panicked())),
        };
        (side, main)
    })
}

/// Gives the calling thread the lowest scheduling priority (nice 19), so that the work it
/// does in the background (building the vector graph) takes only CPU time nothing else wants:
/// a query running beside it keeps its speed. Best effort: elsewhere than on Linux, or when
/// the system refuses, the thread keeps its priority.
pub(crate) fn lower_priority_of_this_thread() {
    // On Linux a nice value belongs to a thread: PRIO_PROCESS with a thread id sets its own.
    #[cfg(target_os = "linux")]
    let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bug() -> Error {
        Error::index("the side panicked", None, "report this as a bug")
    }

    #[test]
    fn both_results_come_back() {
        let (side, main) = alongside(|| Ok(2), || 3, bug);
        assert_eq!((side.expect("side"), main), (2, 3));
    }

    #[test]
    fn a_panic_on_the_side_is_an_error() {
        let (side, main) = alongside(|| -> Result<()> { panic!("boom") }, || 3, bug);
        assert!(side.expect_err("panicked").to_string().contains("the side panicked"));
        assert_eq!(main, 3);
    }
}
