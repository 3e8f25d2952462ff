//! C ABI for memcore (filled by the C ABI issue).
