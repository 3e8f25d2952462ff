//! A small cache of query embeddings (seed 002: 100 entries, 5 minutes), so that an agent
//! asking the same thing again does not pay for the model twice.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// Entries kept at most.
const CAPACITY: usize = 100;
/// How long an entry is served.
const TTL: Duration = Duration::from_secs(300);

/// One cached embedding: model id, query text, vector, when it was computed.
type Entry = (String, String, Arc<Vec<f32>>, Instant);

/// Recently embedded query texts and their vectors.
#[derive(Debug, Default)]
pub(crate) struct QueryCache {
    entries: Mutex<VecDeque<Entry>>,
}

impl QueryCache {
    /// The vector of `text` under `model`, computing it with `embed` on a miss.
    pub(crate) fn get_or_embed(
        &self,
        model: &str,
        text: &str,
        embed: impl FnOnce() -> crate::Result<Vec<f32>>,
    ) -> crate::Result<Arc<Vec<f32>>> {
        let now = Instant::now();
        {
            let mut entries = self.entries.lock();
            entries.retain(|(_, _, _, at)| now.duration_since(*at) < TTL);
            if let Some((_, _, vector, _)) =
                entries.iter().find(|(m, t, _, _)| m == model && t == text)
            {
                return Ok(Arc::clone(vector));
            }
        }
        let vector = Arc::new(embed()?);
        let mut entries = self.entries.lock();
        if entries.len() == CAPACITY {
            entries.pop_front();
        }
        entries.push_back((model.to_owned(), text.to_owned(), Arc::clone(&vector), now));
        Ok(vector)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_per_model_and_text() {
        let cache = QueryCache::default();
        let mut calls = 0;
        for _ in 0..3 {
            cache
                .get_or_embed("m", "q", || {
                    calls += 1;
                    Ok(vec![1.0])
                })
                .unwrap();
        }
        assert_eq!(calls, 1);
        cache
            .get_or_embed("other", "q", || {
                calls += 1;
                Ok(vec![2.0])
            })
            .unwrap();
        assert_eq!(calls, 2);
        for n in 0..CAPACITY + 5 {
            cache.get_or_embed("m", &n.to_string(), || Ok(vec![0.0])).unwrap();
        }
        assert_eq!(cache.entries.lock().len(), CAPACITY);
    }
}
