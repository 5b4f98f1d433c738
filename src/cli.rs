//! The headless command line (stub).
pub fn main() -> i32 {
    0
}
