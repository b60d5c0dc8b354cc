//! A walk's provider references and the resource it is reading: [`ProviderCache`] keeps the
//! addresses of the references seen (a state names a handful of providers in thousands of
//! resources), [`empty_resource`] starts a walk's reused resource.

use super::{provider_address, Mode, Resource, StateError};

/// Provider references (`provider["registry.terraform.io/hashicorp/aws"]`) with their
/// addresses: a state names a handful of providers in thousands of resources. Each is kept
/// with the JSON string token it was read from, so that a resource naming it again is
/// recognised by its bytes, without reading the string (its escapes unescaped).
#[derive(Default)]
pub(super) struct ProviderCache {
    /// (reference, address, JSON token with its quotes).
    seen: Vec<(String, String, Vec<u8>)>,
    /// The index in `seen` of the last reference set (tried first).
    last: usize,
}

impl ProviderCache {
    /// At most this many references are kept (then the oldest gives way).
    const CAPACITY: usize = 32;

    /// When `buf[at..]` starts with the JSON token of a reference kept (a string, quotes
    /// included, so the token there is exactly that string): which, and the position after
    /// it.
    #[inline]
    pub(super) fn token_at(&self, buf: &[u8], at: usize) -> Option<(usize, usize)> {
        let rest = buf.get(at..)?;
        let found = |k: usize| {
            let (_, _, token) = self.seen.get(k)?;
            rest.starts_with(token)
                .then(|| (k, at.wrapping_add(token.len())))
        };
        found(self.last).or_else(|| (0..self.seen.len()).find_map(found))
    }

    /// Sets `resource`'s provider reference and address to those of the reference kept at
    /// `k` (found by [`ProviderCache::token_at`]).
    pub(super) fn set_kept(&mut self, resource: &mut Resource<'static>, k: usize) {
        if let Some((reference, address, _)) = self.seen.get(k) {
            assign(resource, reference, address);
            self.last = k;
        }
    }

    /// Sets `resource`'s provider reference and address to `reference`'s, read from the JSON
    /// string `token`.
    pub(super) fn set(
        &mut self,
        resource: &mut Resource<'static>,
        reference: &str,
        token: &[u8],
    ) -> Result<(), StateError> {
        let k = match self.seen.iter().position(|(r, _, _)| r == reference) {
            Some(k) => k,
            None => {
                let address = provider_address(reference)?;
                if self.seen.len() == Self::CAPACITY {
                    self.seen.remove(0);
                }
                self.seen
                    .push((reference.to_string(), address, token.to_vec()));
                self.seen.len().saturating_sub(1)
            }
        };
        self.set_kept(resource, k);
        Ok(())
    }
}

/// `resource`'s provider reference and address, its buffers reused: no allocation per
/// resource, and no copy when they hold these already.
fn assign(resource: &mut Resource<'static>, reference: &str, address: &str) {
    if resource.provider == reference && resource.provider_address == address {
        return;
    }
    resource.provider_address.clear();
    resource.provider_address.push_str(address);
    resource.provider.clear();
    resource.provider.push_str(reference);
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
