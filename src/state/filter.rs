//! [`ResourceFilter`]: which resources' instances a reader decodes, by the resource's own
//! envelope (module, mode, name, provider, the addresses of its instances), on top of
//! [`SchemaSet::only_types`]. The instances of a resource the filter drops are stepped over
//! undecoded, as those of a type not wanted are (`envelope.rs` asks
//! [`SchemaSet::wants_resource`] once per resource).

use super::{Mode, Resource, SchemaSet};

/// Which resources' instances are decoded ([`SchemaSet::only_resources`]): a resource is kept
/// when every field that is `Some` holds its value (each a list of the values kept).
///
/// ```
/// use tfwire::state::{Mode, ResourceFilter};
/// let filter = ResourceFilter {
///     modules: Some(vec![None, Some("module.app".into())]), // the root module, or module.app
///     modes: Some(vec![Mode::Managed]),
///     ..ResourceFilter::default()
/// };
/// assert!(!filter.is_empty());
/// assert!(ResourceFilter::default().is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceFilter {
    /// Module instance addresses (`module.a["k"]`); `None` is the root module.
    pub modules: Option<Vec<Option<String>>>,
    /// Modes.
    pub modes: Option<Vec<Mode>>,
    /// Resource names (`web` of `aws_instance.web`).
    pub names: Option<Vec<String>>,
    /// Provider addresses, in full (`registry.terraform.io/hashicorp/aws`: the
    /// [`provider_address`](super::provider_address) of the resource's `provider`).
    pub providers: Option<Vec<String>>,
    /// Instance addresses (`module.a.aws_instance.web["k"]`): a resource is kept when one of
    /// them is the address of one of its instances (its own address, or that followed by an
    /// index key in brackets).
    pub addresses: Option<Vec<String>>,
}

impl ResourceFilter {
    /// True when it keeps every resource.
    pub fn is_empty(&self) -> bool {
        self.modules.is_none()
            && self.modes.is_none()
            && self.names.is_none()
            && self.providers.is_none()
            && self.addresses.is_none()
    }

    /// True when `resource`'s instances are decoded.
    ///
    /// ```
    /// use tfwire::state::{Mode, Resource, ResourceFilter};
    /// let web = Resource {
    ///     module: Some("module.app".into()),
    ///     mode: Mode::Managed,
    ///     type_name: "aws_instance".into(),
    ///     name: "web".into(),
    ///     provider: r#"provider["registry.terraform.io/hashicorp/aws"]"#.into(),
    ///     provider_address: "registry.terraform.io/hashicorp/aws".into(),
    ///     instances: Vec::new(),
    /// };
    /// let by_address = |a: &str| ResourceFilter { addresses: Some(vec![a.into()]), ..Default::default() };
    /// assert!(by_address("module.app.aws_instance.web").keeps(&web));
    /// assert!(by_address(r#"module.app.aws_instance.web["k"]"#).keeps(&web));
    /// assert!(!by_address("module.app.aws_instance.webs").keeps(&web));
    /// assert!(!by_address("aws_instance.web").keeps(&web));
    /// let root = ResourceFilter { modules: Some(vec![None]), ..Default::default() };
    /// assert!(!root.keeps(&web));
    /// ```
    pub fn keeps(&self, resource: &Resource<'_>) -> bool {
        let holds = |list: &Option<Vec<String>>, value: &str| {
            list.as_ref().is_none_or(|l| l.iter().any(|v| v == value))
        };
        self.modules
            .as_ref()
            .is_none_or(|l| l.contains(&resource.module))
            && self
                .modes
                .as_ref()
                .is_none_or(|l| l.contains(&resource.mode))
            && holds(&self.names, &resource.name)
            && holds(&self.providers, &resource.provider_address)
            && (self.addresses.as_ref()).is_none_or(|l| l.iter().any(|a| is_of(a, resource)))
    }

    /// The resources both `self` and `other` keep.
    ///
    /// ```
    /// use tfwire::state::ResourceFilter;
    /// let names = |n: &[&str]| ResourceFilter {
    ///     names: Some(n.iter().map(|s| s.to_string()).collect()),
    ///     ..Default::default()
    /// };
    /// assert_eq!(names(&["a", "b"]).and(names(&["b", "c"])), names(&["b"]));
    /// ```
    pub fn and(self, other: ResourceFilter) -> ResourceFilter {
        ResourceFilter {
            modules: both(self.modules, other.modules),
            modes: both(self.modes, other.modes),
            names: both(self.names, other.names),
            providers: both(self.providers, other.providers),
            addresses: both(self.addresses, other.addresses),
        }
    }
}

/// The values both lists keep (`None`: every value).
fn both<T: PartialEq>(a: Option<Vec<T>>, b: Option<Vec<T>>) -> Option<Vec<T>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.into_iter().filter(|v| b.contains(v)).collect()),
        (a, b) => a.or(b),
    }
}

/// True when `address` is of an instance of `r`: `r`'s address, bare or with an index key.
fn is_of(address: &str, r: &Resource<'_>) -> bool {
    let mut rest = address;
    let mut take = |part: &str| match rest.strip_prefix(part) {
        Some(after) => {
            rest = after;
            true
        }
        None => false,
    };
    let module = match &r.module {
        Some(m) => take(m) && take("."),
        None => true,
    };
    module
        && (r.mode == Mode::Managed || take("data."))
        && take(&r.type_name)
        && take(".")
        && take(&r.name)
        && (rest.is_empty() || rest.starts_with('['))
}

impl SchemaSet {
    /// Decodes and visits only the instances of the resources `filter` keeps (besides the
    /// types of [`SchemaSet::only_types`]): the others are stepped over undecoded and counted
    /// as skipped, as those of a type not wanted are. An empty filter keeps every resource.
    ///
    /// ```
    /// use tfwire::state::{ResourceFilter, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.only_resources(ResourceFilter { names: Some(vec!["b".into()]), ..Default::default() });
    /// let state = br#"{"version":4,"resources":[
    ///   {"mode":"managed","type":"t","name":"a","provider":"provider.t","instances":[{"attributes":{}}]},
    ///   {"mode":"managed","type":"t","name":"b","provider":"provider.t","instances":[{"attributes":{}}]}]}"#;
    /// let mut seen = Vec::new();
    /// let summary = StateReader::new(&state[..])
    ///     .visit(&set, &DecodeOptions::default(), |item, _| seen.push(item.address()))?;
    /// assert_eq!(seen, ["t.b"]);
    /// assert_eq!((summary.instances, summary.skipped), (1, 1));
    /// # Ok::<(), tfwire::state::StateError>(())
    /// ```
    pub fn only_resources(&mut self, filter: ResourceFilter) {
        self.filter = (!filter.is_empty()).then_some(filter);
    }

    /// True when the instances of `resource` are decoded: its type is wanted
    /// ([`SchemaSet::wants`]) and the filter of [`SchemaSet::only_resources`] keeps it.
    pub fn wants_resource(&self, resource: &Resource<'_>) -> bool {
        self.wants(&resource.type_name) && self.keeps(resource)
    }

    /// The filter of [`SchemaSet::only_resources`] keeps `resource` (whatever its type).
    pub(crate) fn keeps(&self, resource: &Resource<'_>) -> bool {
        self.filter.as_ref().is_none_or(|f| f.keeps(resource))
    }
}
