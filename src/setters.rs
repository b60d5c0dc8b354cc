//! `with_*` setters for the options structs, which are `#[non_exhaustive]`: start from
//! `Default` (or the struct's constructor) and set what differs, so that a field added later
//! breaks no caller.

/// `with_FIELD(self, value) -> Self` for each `FIELD: TYPE` listed; `const` ones for `Copy`
/// structs, so that they serve in constants too.
macro_rules! with_setters {
    ($ty:ident { $($(#[$const:ident])? $setter:ident => $field:ident: $fty:ty),* $(,)? }) => {
        impl $ty {
            $(
                with_setters!(@one $(#[$const])? $setter, $field, $fty);
            )*
        }
    };
    (@one #[const] $setter:ident, $field:ident, $fty:ty) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](Self::", stringify!($field), ").")]
        #[must_use]
        pub const fn $setter(mut self, value: $fty) -> Self {
            self.$field = value;
            self
        }
    };
    (@one $setter:ident, $field:ident, $fty:ty) => {
        #[doc = concat!("Sets [`", stringify!($field), "`](Self::", stringify!($field), ").")]
        #[must_use]
        pub fn $setter(mut self, value: $fty) -> Self {
            self.$field = value;
            self
        }
    };
}
