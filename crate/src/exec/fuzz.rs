//! Fuzz entry points of the execution path's readers (registered in `crate::fuzz::TARGETS`):
//! a SASS listing as `cuobjdump -sass` prints it, decoded kernel by kernel into what the
//! executor runs, and a launch spec (TOML). Neither may panic; errors are the expected answer
//! to most inputs. Seeds are the listings and specs the tests use.

use std::path::Path;

use super::launch::LaunchSpec;
use super::program::Kernel;
use crate::trace::opcodes::Arch;
use crate::trace::sanitizer::sass;

/// A listing: parsed, then every function decoded for the executor (the opcode table of its
/// `code for sm_XX`, or Hopper's).
pub fn fuzz_sass(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(funcs) = sass::parse(text, "fuzz.sass") else {
        return;
    };
    let mut names: Vec<&String> = funcs.keys().collect();
    names.sort();
    for n in names {
        if let Ok(k) = Kernel::decode(&funcs[n], "fuzz.sass", Arch::Hopper) {
            assert!(
                !k.insts.is_empty() || funcs[n].insts.is_empty(),
                "{n}: lost instructions"
            );
        }
    }
}

/// A launch spec, read against a folder that does not exist (a `file` initialiser must fail
/// with an error, never read outside).
pub fn fuzz_launch(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let dir = Path::new("/nonexistent-warpweave-fuzz");
    let _ = LaunchSpec::parse(text, "fuzz.toml", dir, None);
    let _ = LaunchSpec::parse(text, "fuzz.toml", dir, Some("k"));
}

/// The teaching vecmul kernel's sm_90 listing (`fuzz_seed.sm_90.sass`, cut from
/// `tests/exec/teaching.sm_90.sass`) and the tests' launch specs.
pub fn seeds_sass() -> Vec<Vec<u8>> {
    vec![include_bytes!("fuzz_seed.sm_90.sass").to_vec()]
}

pub fn seeds_launch() -> Vec<Vec<u8>> {
    vec![
        include_bytes!("../../../tests/exec/matmul.toml").to_vec(),
        include_bytes!("../../../tests/exec/vecmul.toml").to_vec(),
        include_bytes!("../../../tests/exec/mattranspose.toml").to_vec(),
    ]
}
