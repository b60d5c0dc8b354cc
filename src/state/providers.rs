//! A walk's provider references and the resource it is reading: [`ProviderCache`] keeps the
//! addresses of the references seen (a state names a handful of providers in thousands of
//! resources), [`empty_resource`] starts a walk's reused resource.

use super::{provider_address, Mode, Resource, StateError};

/// Provider references (`provider["registry.terraform.io/hashicorp/aws"]`) with their
/// addresses: a state names a handful of providers in thousands of resources.
#[derive(Default)]
pub(super) struct ProviderCache(Vec<(String, String)>);

impl ProviderCache {
    /// At most this many references are kept (then the oldest gives way).
    const CAPACITY: usize = 32;

    /// Sets `resource`'s provider reference and address to `reference`'s.
    pub(super) fn set(
        &mut self,
        resource: &mut Resource<'static>,
        reference: &str,
    ) -> Result<(), StateError> {
        if resource.provider == reference && !resource.provider_address.is_empty() {
            return Ok(());
        }
        let address = match self.0.iter().position(|(r, _)| r == reference) {
            Some(k) => k,
            None => {
                let address = provider_address(reference)?;
                if self.0.len() == Self::CAPACITY {
                    self.0.remove(0);
                }
                self.0.push((reference.to_string(), address));
                self.0.len().saturating_sub(1)
            }
        };
        // The resource's buffers are reused: no allocation per resource.
        resource.provider_address.clear();
        resource
            .provider_address
            .push_str(self.0.get(address).map_or("", |(_, a)| a));
        resource.provider.clear();
        resource.provider.push_str(reference);
        Ok(())
    }
}

pub(super) fn empty_resource() -> Resource<'static> {
    Resource {
        module: None,
        mode: Mode::Managed,
        type_name: String::new(),
        name: String::new(),
        provider: String::new(),
        provider_address: String::new(),
        instances: Vec::new(),
    }
}
