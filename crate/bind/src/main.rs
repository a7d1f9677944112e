//! `warpweave-bind IN.wasm OUT_DIR`: writes the JavaScript bindings of the browser app's wasm
//! module into OUT_DIR, as `wasm-bindgen --target web --out-dir OUT_DIR IN.wasm` does (the same
//! files, byte for byte: `warpweave.js`, `warpweave_bg.wasm` and their TypeScript declarations).

use std::process::ExitCode;

use wasm_bindgen_cli_support::Bindgen;

const USAGE: &str = "usage: warpweave-bind IN.wasm OUT_DIR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, out_dir] = args.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    match bind(input, out_dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("warpweave-bind: {input}: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// The options `wasm-bindgen --target web` uses by default.
fn bind(input: &str, out_dir: &str) -> anyhow::Result<()> {
    if !std::path::Path::new(input).is_file() {
        anyhow::bail!("no such file (build it with `cargo build --lib --release --target wasm32-unknown-unknown -p warpweave`)");
    }
    let mut b = Bindgen::new();
    b.web(true)?
        .input_path(input)
        .typescript(true)
        .demangle(true)
        .omit_default_module_path(false);
    b.generate(out_dir)
}
