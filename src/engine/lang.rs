//! (stub: being written)
