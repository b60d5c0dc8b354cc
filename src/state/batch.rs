//! [`StateReader::visit_parallel`]: one state's instances decoded on several threads. The
//! reader walks the state on the calling thread, checking each instance's attributes
//! without decoding them, and copies instances into batches of a few MiB; each batch is
//! split among `jobs` scoped threads (one arena each), and what they return is handed to
//! the caller's sink in file order. Memory: one batch and its results, not the file.

use std::io::Read;
use std::ops::Range;

use bumpalo::Bump;

use super::{Attributes, Instance, InstanceRef, Outcome, Resource, SchemaSet, StateError};
use super::{StateReader, Summary};
use crate::program::DecodeOptions;

/// A batch is handed to the workers once its attribute bytes reach this size…
const BATCH_BYTES: usize = 4 << 20;
/// …or it holds this many instances.
const BATCH_INSTANCES: usize = 16_384;

/// Instances copied out of the reader's buffer.
#[derive(Default)]
struct Batch {
    resources: Vec<Resource<'static>>,
    /// Each instance: its resource (an index in `resources`), the instance (attributes
    /// `Absent` when they are JSON, which is then `bytes[range]`).
    items: Vec<(usize, Instance<'static>, Option<Range<usize>>)>,
    bytes: String,
}

impl Batch {
    fn push(&mut self, item: InstanceRef<'_, '_>) {
        let r = item.resource;
        let same = self.resources.last().is_some_and(|last| {
            last.name == r.name
                && last.type_name == r.type_name
                && last.mode == r.mode
                && last.module == r.module
                && last.provider == r.provider
        });
        if !same {
            self.resources.push(Resource {
                instances: Vec::new(),
                module: r.module.clone(),
                mode: r.mode,
                type_name: r.type_name.clone(),
                name: r.name.clone(),
                provider: r.provider.clone(),
                provider_address: r.provider_address.clone(),
            });
        }
        let i = item.instance;
        let (attributes, range) = match i.attributes {
            Attributes::Json(text) => {
                let start = self.bytes.len();
                self.bytes.push_str(text);
                (Attributes::Absent, Some(start..self.bytes.len()))
            }
            Attributes::Flat => (Attributes::Flat, None),
            Attributes::Absent => (Attributes::Absent, None),
        };
        let instance = Instance {
            index_key: i.index_key.clone(),
            deposed: i.deposed.clone(),
            schema_version: i.schema_version,
            attributes,
        };
        self.items
            .push((self.resources.len().saturating_sub(1), instance, range));
    }

    fn full(&self) -> bool {
        self.bytes.len() >= BATCH_BYTES || self.items.len() >= BATCH_INSTANCES
    }

    /// Decodes the batch on `jobs` threads, each folding its run of instances into an
    /// accumulator, hands the accumulators to `sink` in order and empties the batch.
    fn run<A, I, F, S>(&mut self, ctx: &Context<'_, I, F>, sink: &mut S)
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        S: FnMut(A),
    {
        let per = self.items.len().div_ceil(ctx.jobs.max(1)).max(1);
        let batch = &*self;
        let decode = |items: &[(usize, Instance<'static>, Option<Range<usize>>)]| {
            let mut bump = Bump::new();
            let mut acc = (ctx.init)();
            for (resource, instance, range) in items {
                let Some(resource) = batch.resources.get(*resource) else {
                    continue;
                };
                let mut instance = instance.clone();
                if let Some(range) = range {
                    instance.attributes =
                        Attributes::Json(batch.bytes.get(range.clone()).unwrap_or_default());
                }
                let item = InstanceRef {
                    resource,
                    instance: &instance,
                };
                let outcome = ctx.set.decode(item, &bump, ctx.options);
                (ctx.fold)(&mut acc, item, &outcome);
                drop(outcome);
                bump.reset();
            }
            acc
        };
        let results: Vec<A> = std::thread::scope(|scope| {
            let mut chunks = batch.items.chunks(per);
            // The first chunk on this thread, the others on their own.
            let first = chunks.next().unwrap_or_default();
            let handles: Vec<_> = chunks.map(|c| scope.spawn(move || decode(c))).collect();
            let mut results = vec![decode(first)];
            for h in handles {
                // A worker panics only if `fold` does: pass the panic on.
                results.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            }
            results
        });
        results.into_iter().for_each(&mut *sink);
        self.resources.clear();
        self.items.clear();
        self.bytes.clear();
    }
}

/// What every batch's workers share.
struct Context<'c, I, F> {
    set: &'c SchemaSet,
    options: &'c DecodeOptions,
    jobs: usize,
    init: I,
    fold: F,
}

impl<R: Read> StateReader<R> {
    /// Reads the whole state, decoding its instances on `jobs` threads. The instances come
    /// in batches of a few MiB; each worker folds its contiguous run of a batch into an
    /// accumulator made by `init` (`fold` gets each instance and its outcome, as
    /// [`StateReader::visit`]'s callback would), and `sink` gets the accumulators in file
    /// order on the calling thread. The instances before a [`StateError`] are handed out
    /// before it is returned, as [`StateReader::visit`] hands them out. With `jobs` 1
    /// everything runs on the calling thread, in one accumulator per instance.
    ///
    /// ```
    /// use tfwire::state::{Outcome, SchemaSet, StateReader};
    /// use tfwire::DecodeOptions;
    ///
    /// let mut set = SchemaSet::new();
    /// set.add_json(r#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/null":
    ///   {"resource_schemas":{"null_resource":{"version":0,"block":{"attributes":{"id":{"type":"string"}}}}}}}}"#).unwrap();
    /// let instances: Vec<String> = (0..100).map(|i| format!(r#"{{"index_key":{i},"attributes":{{"id":"{i}"}}}}"#)).collect();
    /// let state = format!(r#"{{"version":4,"resources":[{{"mode":"managed","type":"null_resource","name":"x",
    ///   "provider":"provider[\"registry.terraform.io/hashicorp/null\"]","instances":[{}]}}]}}"#, instances.join(","));
    /// let mut ids = Vec::new();
    /// let summary = StateReader::new(state.as_bytes())
    ///     .visit_parallel(&set, &DecodeOptions::default(), 2, Vec::new, |ids: &mut Vec<String>, _, outcome| {
    ///         if let Outcome::Ok(v, m) = outcome {
    ///             ids.push(m.program.typed(*v).attr("id").unwrap().value.as_str().unwrap().to_string());
    ///         }
    ///     }, |some| ids.extend(some))
    ///     .unwrap();
    /// assert_eq!(summary.instances, 100);
    /// assert_eq!(ids, (0..100).map(|i| i.to_string()).collect::<Vec<_>>());
    /// ```
    pub fn visit_parallel<A, I, F, S>(
        self,
        set: &SchemaSet,
        options: &DecodeOptions,
        jobs: usize,
        init: I,
        fold: F,
        mut sink: S,
    ) -> Result<Summary, StateError>
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, InstanceRef<'_, '_>, &Outcome<'_>) + Sync,
        S: FnMut(A),
    {
        if jobs <= 1 {
            return self.visit(set, options, |item, outcome| {
                let mut acc = init();
                fold(&mut acc, item, outcome);
                sink(acc);
            });
        }
        let ctx = Context {
            set,
            options,
            jobs,
            init,
            fold,
        };
        let mut batch = Batch::default();
        let result = self.walk(set, options, false, |item, _| {
            batch.push(item);
            if batch.full() {
                batch.run(&ctx, &mut sink);
            }
        });
        batch.run(&ctx, &mut sink);
        result
    }
}
