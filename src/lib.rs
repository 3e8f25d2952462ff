//! memcore-suite: examples, tests and benches for memcore.
