//! [`in_order`]: items worked on by a thread pool, each result handed on in the items' order
//! as soon as the results before it are — `tfwire state`'s small files, decoded in parallel
//! in [`chunks`] and printed as `--jobs 1` prints them.
//!
//! At most [`Budget`] items are in flight (their results waiting to be handed on count): the
//! next item starts when one is handed on, so the workers never wait at a barrier, and the
//! output strings in circulation (`strings.rs`) stay few and already touched.

use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc;

use tfwire::state::{Pool, Threads};

/// A rayon pool as the library's [`Pool`]: `tfwire state` reads a large file's parts and a
/// stream's runs on the threads that read its small files (one pool, no threads started per
/// file).
pub(super) struct OnRayon(pub(super) rayon::ThreadPool);

impl Pool for OnRayon {
    fn run(&self, workers: usize, work: &(dyn Fn() + Sync), caller: &mut dyn FnMut()) {
        // `tfwire state` calls this from the main thread only. From one of the pool's own
        // threads, the caller's wait for the workers could hold the thread they need:
        // threads of their own then.
        if self.0.current_thread_index().is_some() {
            return Threads.run(workers, work, caller);
        }
        self.0.in_place_scope(|scope| {
            for _ in 0..workers {
                scope.spawn(move |_| work());
            }
            caller();
        });
    }
}

/// A bound on a number of items and on their cost (bytes): how many [`in_order`] lets be in
/// flight, or where [`chunks`] ends a chunk.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    /// The most items.
    pub(super) items: usize,
    /// The most cost; [`in_order`] always lets one item in, whatever its cost.
    pub(super) cost: u64,
}

/// Runs `work` on `pool`'s threads for each of `items` and hands each result to `sink`, on
/// the calling thread, in the items' order. A `sink` error stops new work; the items under
/// way finish (their results dropped) and the error is returned. A panic in `work` is
/// raised again on the calling thread once the items under way have finished. Not to be
/// called from one of `pool`'s own threads: the calling thread waits for results (with a
/// pool of one thread, that thread would wait for itself).
pub(super) fn in_order<T, R, E>(
    pool: &rayon::ThreadPool,
    items: &[T],
    budget: Budget,
    cost: impl Fn(&T) -> u64,
    work: impl Fn(&T) -> R + Sync,
    mut sink: impl FnMut(&T, R) -> Result<(), E>,
) -> Result<(), E>
where
    T: Sync,
    R: Send,
{
    type Done<R> = (usize, std::thread::Result<R>);
    let (done, results) = mpsc::channel::<Done<R>>();
    let work = &work;
    pool.in_place_scope(|scope| {
        let mut waiting = BTreeMap::new();
        let (mut started, mut handed, mut in_flight) = (0, 0, 0u64);
        let mut outcome = Ok(());
        let mut panicked = None;
        loop {
            while outcome.is_ok() && panicked.is_none() {
                let Some(item) = items.get(started) else {
                    break;
                };
                let (busy, with_it) = (started - handed, in_flight.saturating_add(cost(item)));
                if busy > 0 && (busy >= budget.items || with_it > budget.cost) {
                    break;
                }
                in_flight = with_it;
                let (i, done) = (started, done.clone());
                scope.spawn(move |_| {
                    let result = panic::catch_unwind(AssertUnwindSafe(|| work(item)));
                    // (The receiver lives until every spawned item has sent.)
                    let _ = done.send((i, result));
                });
                started += 1;
            }
            if handed == started {
                break;
            }
            // Every item started sends exactly once, and `done` is held here: this waits
            // for a result, it cannot find the channel closed.
            let Ok((i, result)) = results.recv() else {
                break;
            };
            waiting.insert(i, result);
            while let Some(result) = waiting.remove(&handed) {
                let item = items.get(handed);
                handed += 1;
                in_flight = in_flight.saturating_sub(item.map_or(0, &cost));
                match (result, item) {
                    (Ok(r), Some(item)) if outcome.is_ok() && panicked.is_none() => {
                        outcome = sink(item, r);
                    }
                    (Err(payload), _) => {
                        panicked.get_or_insert(payload);
                    }
                    _ => {}
                }
            }
        }
        if let Some(payload) = panicked {
            panic::resume_unwind(payload);
        }
        outcome
    })
}

/// `items` cut into consecutive chunks, each ending once its cost reaches `size.cost` or it
/// holds `size.items` items (the last may hold less): for [`in_order`] to hand a worker a
/// chunk at a time, so that thousands of small items are not thousands of hand-overs.
pub(super) fn chunks<T>(items: &[T], size: Budget, cost: impl Fn(&T) -> u64) -> Vec<&[T]> {
    let mut chunks = Vec::new();
    let (mut start, mut sum) = (0, 0u64);
    for (i, item) in items.iter().enumerate() {
        sum = sum.saturating_add(cost(item));
        if sum >= size.cost || i + 1 - start >= size.items {
            chunks.extend(items.get(start..=i));
            (start, sum) = (i + 1, 0);
        }
    }
    chunks.extend(items.get(start..).filter(|rest| !rest.is_empty()));
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a pool")
    }

    /// [`in_order`] on two threads, four items of cost 1 at a time.
    fn on_two<T: Sync, R: Send, E>(
        items: &[T],
        work: impl Fn(&T) -> R + Sync,
        sink: impl FnMut(&T, R) -> Result<(), E>,
    ) -> Result<(), E> {
        let budget = Budget {
            items: 4,
            cost: u64::MAX,
        };
        in_order(&pool(2), items, budget, |_| 1, work, sink)
    }

    #[test]
    fn results_are_handed_on_in_order_within_the_budget() {
        // Eight threads, a budget of five: never more than five started and not handed on.
        let items: Vec<u64> = (0..200).collect();
        let (started, handed) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let most = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let budget = Budget {
            items: 5,
            cost: u64::MAX,
        };
        let result: Result<(), ()> = in_order(
            &pool(8),
            &items,
            budget,
            |&n| n,
            |&n| {
                let now = started.fetch_add(1, Ordering::SeqCst) + 1;
                let in_flight = now.saturating_sub(handed.load(Ordering::SeqCst));
                most.fetch_max(in_flight, Ordering::SeqCst);
                // Later items finish first now and then.
                std::thread::sleep(Duration::from_micros((n * 7919) % 300));
                n * 2
            },
            |&n, r| {
                assert_eq!(r, n * 2);
                seen.push(n);
                handed.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        assert_eq!(seen, items);
        let most = most.load(Ordering::SeqCst);
        assert!((2..=5).contains(&most), "{most} in flight, budget 5");
    }

    #[test]
    fn the_cost_bounds_the_items_in_flight_but_one_always_goes() {
        // (index, cost) under a budget of 100: two items of 40 at a time; the one of 500
        // alone, once every item before it is handed on.
        let items = [(0, 40u64), (1, 40), (2, 40), (3, 500), (4, 40), (5, 40)];
        let handed = AtomicUsize::new(0);
        let started = std::sync::Mutex::new(vec![None; items.len()]);
        let result: Result<(), ()> = in_order(
            &pool(4),
            &items,
            Budget {
                items: 10,
                cost: 100,
            },
            |&(_, cost)| cost,
            |&(i, _)| {
                let h = handed.load(Ordering::SeqCst);
                if let Some(slot) = started.lock().expect("lock").get_mut(i) {
                    *slot = Some(h);
                }
                std::thread::sleep(Duration::from_millis(2));
            },
            |_, ()| {
                handed.fetch_add(1, Ordering::SeqCst);
                Ok(())
            },
        );
        assert_eq!(result, Ok(()));
        let started: Vec<usize> = started
            .into_inner()
            .expect("lock")
            .into_iter()
            .map(|h| h.expect("every item ran"))
            .collect();
        // Handed on before each item started, at least: 0, 0, 1 (two of 40 fill the
        // budget), exactly 3 for the large one (it is not handed on before it runs), 4, 4.
        let at_least = [0, 0, 1, 3, 4, 4];
        for (i, (&h, &least)) in started.iter().zip(&at_least).enumerate() {
            assert!(
                h >= least,
                "item {i} started after {h} handed on: {started:?}"
            );
        }
        assert_eq!(started.get(3), Some(&3), "{started:?}");
    }

    #[test]
    fn a_sink_error_stops_new_work_and_is_returned() {
        let items: Vec<u32> = (0..1_000).collect();
        let worked = AtomicUsize::new(0);
        let mut handed = 0;
        let result = on_two(
            &items,
            |&n| {
                worked.fetch_add(1, Ordering::SeqCst);
                n
            },
            |_, n| {
                handed += 1;
                if n == 10 {
                    Err(format!("stopped at {n}"))
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(result, Err("stopped at 10".to_string()));
        assert_eq!(handed, 11);
        // Items 11 to 14 at most were under way when the error came.
        let worked = worked.load(Ordering::SeqCst);
        assert!((11..=15).contains(&worked), "{worked} items worked on");
    }

    #[test]
    fn a_panic_in_work_reaches_the_caller_instead_of_hanging() {
        let items: Vec<u32> = (0..50).collect();
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            let _: Result<(), ()> = on_two(
                &items,
                |&n| {
                    assert!(n != 7, "item seven");
                    n
                },
                |_, _| Ok(()),
            );
        }));
        let payload = caught.expect_err("the panic comes back");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"item seven"));
    }

    #[test]
    fn chunks_end_at_their_cost_or_their_count() {
        let size = Budget { items: 3, cost: 10 };
        let items = [4u64, 4, 1, 1, 1, 1, 12, 0, 5, 5, 2];
        let got = chunks(&items, size, |&n| n);
        let want: [&[u64]; 5] = [&[4, 4, 1], &[1, 1, 1], &[12], &[0, 5, 5], &[2]];
        assert_eq!(got, want);
        assert!(chunks(&[] as &[u64], size, |&n| n).is_empty());
        // Every item in one chunk when neither bound is reached.
        let big = Budget {
            items: 100,
            cost: 1_000,
        };
        assert_eq!(chunks(&items, big, |&n| n), [&items[..]]);
    }

    #[test]
    fn no_items_is_nothing_to_do() {
        let items: [u8; 0] = [];
        let result: Result<(), ()> = in_order(
            &pool(1),
            &items,
            Budget { items: 1, cost: 1 },
            |_| 1,
            |_| unreachable!(),
            |_, ()| unreachable!(),
        );
        assert_eq!(result, Ok(()));
    }
}
