//! The skip policy of `common`: in strict mode (CI) a test whose shared checkout, oracle or
//! `python3` is missing fails instead of skipping; otherwise it skips.

mod common;

use common::{present, strict_from};

#[test]
fn strict_mode_rule() {
    // TFWIRE_REQUIRE_SHARED decides when set; else CI does.
    for (require, ci, want) in [
        (None, None, false),
        (None, Some("true"), true),
        (None, Some("1"), true),
        (None, Some("yes"), true),
        (None, Some(""), false),
        (None, Some("false"), false),
        (None, Some("FALSE"), false),
        (None, Some("0"), false),
        (Some("1"), None, true),
        (Some("1"), Some("false"), true),
        (Some("0"), Some("true"), false),
        (Some(""), Some("true"), false),
        (Some("false"), None, false),
    ] {
        assert_eq!(strict_from(require, ci), want, "{require:?} {ci:?}");
    }
}

#[test]
#[should_panic(expected = "/nowhere/shared: required because TFWIRE_REQUIRE_SHARED or CI is set")]
fn strict_missing_fails() {
    present(None::<()>, true, "/nowhere/shared", "not run");
}

#[test]
fn lenient_missing_skips() {
    assert_eq!(
        present(None::<()>, false, "/nowhere/shared", "not run"),
        None
    );
}

#[test]
fn present_passes_either_way() {
    for strict in [false, true] {
        assert_eq!(present(Some(7), strict, "x", "not run"), Some(7));
    }
}

/// The helpers themselves under this run's environment: in strict mode they find everything
/// or fail; otherwise they skip or find.
#[test]
fn helpers_in_this_environment() {
    let shared = common::shared_dir("the shared checkout is not checked");
    let oracle = common::oracle("the oracle is not checked");
    let python = common::python3("python3 is not checked");
    if common::strict() {
        assert!(shared.is_some() && oracle.is_some() && python.is_some());
    }
}
