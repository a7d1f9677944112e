//! The `warpweave` command-line tool.
fn main() {
    println!("warpweave {}", warpweave::VERSION);
}
