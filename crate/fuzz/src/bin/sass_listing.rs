#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| warpweave::fuzz::run("sass_listing", data));
