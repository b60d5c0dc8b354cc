//! The real schemas of the `*_fixed` targets (sources in `fuzz/README.md`), compiled once
//! per 4,096 inputs (their dynamic-type caches grow with the inputs), chosen by bits 5–6 of
//! the input's first byte.

use tfwire::Program;

pub const SCHEMAS: [&str; 3] = [
    include_str!("../schemas/aws_security_group.schema.json"),
    include_str!("../schemas/azurerm_states.schema.json"),
    include_str!("../schemas/deep_dynamic.schema.json"),
];

thread_local! {
    static PROGRAMS: std::cell::RefCell<(u32, Vec<Program>)> = const { std::cell::RefCell::new((0, Vec::new())) };
}

/// Runs `f` with the program the first byte of `data` selects.
pub fn with_program(data: &[u8], f: impl FnOnce(&Program)) {
    let Some(&first) = data.first() else { return };
    PROGRAMS.with(|cell| {
        let mut state = cell.borrow_mut();
        if state.1.is_empty() || state.0 >= 4096 {
            state.1 = SCHEMAS
                .iter()
                .map(|s| Program::from_schema_json(s).expect("the embedded schemas compile"))
                .collect();
            state.0 = 0;
        }
        state.0 += 1;
        f(&state.1[(first as usize >> 5) % 4 % SCHEMAS.len()]);
    });
}
