//! [`Strings`]: a pool of output strings shared by `tfwire state`'s workers.

/// Output strings handed back once printed, for the next file or batch: a worker writes
/// into pages already touched instead of growing a new string each time.
#[derive(Default)]
pub(super) struct Strings(std::sync::Mutex<Vec<String>>);

impl Strings {
    /// The most strings kept, and the largest.
    const KEPT: usize = 64;
    const LARGEST: usize = 64 << 20;

    pub(super) fn take(&self) -> String {
        let kept = self.0.lock().ok().and_then(|mut kept| kept.pop());
        kept.map_or_else(String::new, |mut s| {
            s.clear();
            s
        })
    }

    pub(super) fn give(&self, s: String) {
        if s.capacity() <= Self::LARGEST {
            if let Ok(mut kept) = self.0.lock() {
                if kept.len() < Self::KEPT {
                    kept.push(s);
                }
            }
        }
    }
}
