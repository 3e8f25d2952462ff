//! Measurements on real MiniLM vectors: exact scan (float rows and sign bits) against HNSW
//! (latency, recall@10, build, dump, load, open), with removals and filters. Ignored by default; run in release:
//!
//! ```text
//! MEMCORE_BENCH_VECTORS=/tmp/memcore-vectors-100000.f32 MEMCORE_BENCH_SIZES=5000,20000 \
//!     cargo test --release -p memcore --lib index::vector::measure -- --ignored --nocapture
//! ```
//!
//! The vectors are raw little-endian f32 rows (384 per passage) of the bench corpus
//! (`/work/shared/bench/corpus.jsonl.gz`, in file order), embedded with [`crate::OnnxEmbedder`]
//! and cached outside the repository; `MEMCORE_BENCH_QUERIES` holds the 104 bench questions
//! embedded the same way. Random vectors are useless for tuning HNSW: do not substitute them.
//! With `MEMCORE_BENCH_DIR` (outside the repository), each size's log and graph dump are kept
//! there and reused by later runs (and by `guard_against_question_recall`, for
//! `MEMCORE_BENCH_N` rows). Latencies are reported as CPU time as well as wall time: on a
//! shared machine, wall time mostly measures the scheduler.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use super::graph::GraphHandle;
use super::tests::{k, meta};
use super::*;

/// Vector length of MiniLM.
const DIM: usize = 384;
/// Corpus rows held out of the index and used as queries (memory-like queries).
const HELD_OUT: usize = 200;

/// Reads up to `max` rows of `DIM` f32 from `path`.
fn load_rows(path: &Path, max: usize) -> Vec<Vec<f32>> {
    let bytes = std::fs::read(path).unwrap_or_default();
    bytes
        .chunks_exact(DIM * 4)
        .take(max)
        .map(|row| {
            row.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect()
        })
        .collect()
}

/// Median and 99th percentile.
fn percentiles(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    (at(0.5), at(0.99))
}

/// Results of a query set: per query, keys and similarities.
type Results = Vec<Vec<(MemoryRef, f32)>>;

/// Runs every query once (after a warm-up), returning results and latency percentiles.
fn run(
    index: &VectorIndex,
    queries: &[Vec<f32>],
    filter: &DocFilter,
    k: usize,
) -> (Results, (Duration, Duration)) {
    for q in queries.iter().take(20) {
        let _ = index.search(q, k, filter, None).expect("search");
    }
    let mut times = Vec::with_capacity(queries.len());
    let results = queries
        .iter()
        .map(|q| {
            let start = Instant::now();
            let found = index.search(q, k, filter, None).expect("search");
            times.push(start.elapsed());
            found
        })
        .collect();
    (results, percentiles(times))
}

/// Mean share of `truth`'s keys found in `got`, per query.
fn recall(got: &[Vec<(MemoryRef, f32)>], truth: &[Vec<(MemoryRef, f32)>]) -> f64 {
    let per: Vec<f64> = got
        .iter()
        .zip(truth)
        .map(|(g, t)| {
            let want: HashSet<&MemoryRef> = t.iter().map(|(k, _)| k).collect();
            if want.is_empty() {
                return 1.0;
            }
            g.iter().filter(|(k, _)| want.contains(k)).count() as f64 / want.len() as f64
        })
        .collect();
    per.iter().sum::<f64>() / per.len().max(1) as f64
}

/// CPU time used by this process so far, threads that ended included (`/proc/self/stat`,
/// 10 ms ticks): on a shared machine, wall-clock latencies mostly measure the scheduler.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // After the command name, `state` is the 3rd field; utime and stime the 14th and 15th.
    let field = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(11) + field(12);
    Duration::from_millis(ticks * 10)
}

/// Mean CPU time per query of `search` over `queries` (run until 300 ms of CPU are used, to
/// dwarf the 10 ms ticks).
fn cpu_per_query(queries: &[Vec<f32>], search: &dyn Fn(&[f32])) -> Duration {
    let start = process_cpu();
    let mut runs = 0u32;
    while process_cpu().saturating_sub(start) < Duration::from_millis(300) || runs == 0 {
        for q in queries {
            search(q);
        }
        runs += 1;
    }
    process_cpu().saturating_sub(start) / (runs * queries.len().max(1) as u32)
}

/// Copies the files of `from` (and of its subdirectories) into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir").flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// Milliseconds, for printing.
fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

#[test]
#[ignore = "needs cached MiniLM vectors of the bench corpus; run in release with --nocapture"]
fn crossover_recall_latency() {
    let vectors_path = std::env::var("MEMCORE_BENCH_VECTORS")
        .unwrap_or_else(|_| "/tmp/memcore-vectors-100000.f32".into());
    let queries_path = std::env::var("MEMCORE_BENCH_QUERIES")
        .unwrap_or_else(|_| "/tmp/memcore-queries.f32".into());
    let corpus = load_rows(Path::new(&vectors_path), usize::MAX);
    assert!(corpus.len() > HELD_OUT + 1000, "{vectors_path}: {} rows", corpus.len());
    let questions = load_rows(Path::new(&queries_path), usize::MAX);
    let (held_out, corpus) = corpus.split_at(HELD_OUT);
    let sizes: Vec<usize> = std::env::var("MEMCORE_BENCH_SIZES")
        .unwrap_or_else(|_| "1000,2000,5000,10000,20000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .filter(|&n| n <= corpus.len())
        .collect();
    println!(
        "{} corpus rows, {} held-out corpus queries, {} bench questions",
        corpus.len(),
        held_out.len(),
        questions.len()
    );
    for n in sizes {
        measure_size(&corpus[..n], held_out, &questions);
    }
}

/// Times `exact` and `graph` on each query back to back (so load from other processes hits
/// both alike); returns the graph's results, both p50s and the graph's recall against `truth`.
fn paired(
    exact: &VectorIndex,
    graph: &VectorIndex,
    queries: &[Vec<f32>],
    filter: &DocFilter,
    truth: &Results,
    k: usize,
) -> String {
    let _ = run(graph, &queries[..queries.len().min(20)], filter, k);
    let (mut te, mut tg) = (Vec::new(), Vec::new());
    let mut got = Vec::new();
    for q in queries {
        let start = Instant::now();
        let _ = exact.search(q, k, filter, None).expect("search");
        te.push(start.elapsed());
        let start = Instant::now();
        got.push(graph.search(q, k, filter, None).expect("search"));
        tg.push(start.elapsed());
    }
    let faster = te.iter().zip(&tg).filter(|(e, g)| g < e).count() as f64 / te.len() as f64;
    let ((e50, _), (g50, g99)) = (percentiles(te), percentiles(tg));
    let exact_cpu = cpu_per_query(queries, &|q| {
        let _ = exact.search(q, k, filter, None);
    });
    let graph_cpu = cpu_per_query(queries, &|q| {
        let _ = graph.search(q, k, filter, None);
    });
    format!(
        "cpu exact {:.2} ms, hnsw {:.2} ms | wall p50 exact {:.2} ms, hnsw {:.2} (p99 {:.2}) ms, \
         hnsw faster on {:.0}% | recall@{k} {:.4}",
        ms(exact_cpu),
        ms(graph_cpu),
        ms(e50),
        ms(g50),
        ms(g99),
        faster * 100.0,
        recall(&got, truth)
    )
}

/// Everything for one index size.
fn measure_size(rows: &[Vec<f32>], held_out: &[Vec<f32>], questions: &[Vec<f32>]) {
    let n = rows.len();
    let dir = tempfile::tempdir().expect("tempdir");
    // With MEMCORE_BENCH_DIR set, a pristine copy of each size's log and graph dump is kept
    // there (outside the repository) and reused by the next run, which skips the build.
    let pristine = std::env::var_os("MEMCORE_BENCH_DIR").map(|d| Path::new(&d).join(n.to_string()));
    let reused = pristine.as_ref().is_some_and(|p| p.join(LOG_FILE).exists());
    if let Some(pristine) = pristine.as_ref().filter(|_| reused) {
        copy_dir(pristine, dir.path());
    }
    let exact_options = VectorOptions {
        hnsw_threshold: usize::MAX,
        background: false,
        quantized_scan_min_rows: usize::MAX,
        ..VectorOptions::default()
    };
    let exact =
        VectorIndex::open_with(dir.path(), DIM, "minilm", exact_options.clone()).expect("open");
    let start = Instant::now();
    for (chunk_no, chunk) in rows.chunks(1000).enumerate().filter(|_| !reused) {
        let items: Vec<_> = chunk
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let i = chunk_no * 1000 + i;
                (meta(&format!("c{}/p{i:06}", i % 10), &[]), v.clone())
            })
            .collect();
        exact.upsert(&items).expect("upsert");
    }
    let ingest = start.elapsed();
    let start = Instant::now();
    let cpu = process_cpu();
    let reopened =
        VectorIndex::open_with(dir.path(), DIM, "minilm", exact_options.clone()).expect("open");
    let open = start.elapsed();
    let open_cpu = process_cpu().saturating_sub(cpu);
    assert_eq!(reopened.len(), n);
    drop(reopened);
    let ingest = if reused {
        "kept from an earlier run".to_owned()
    } else {
        format!("{:.0} rows/s (batches of 1000, fsync each)", n as f64 / ingest.as_secs_f64())
    };
    println!(
        "\n== n={n}: ingest {ingest}, open (log replay) {:.0} ms (cpu {:.0} ms)",
        ms(open),
        ms(open_cpu)
    );

    // The exact scan alone: one thread against the split scan.
    {
        let state = exact.state.read();
        let keep = |row: usize| state.metas[row].is_some();
        let (mut one, mut split) = (Vec::new(), Vec::new());
        for q in held_out {
            let start = Instant::now();
            let a = scan::scan_one(&state.rows, q, 0..n, 10, &keep).expect("scan");
            one.push(start.elapsed());
            let start = Instant::now();
            let b = scan::scan(&state.rows, q, 0..n, 10, &keep).expect("scan");
            split.push(start.elapsed());
            assert_eq!(a, b);
        }
        let one_cpu = cpu_per_query(held_out, &|q| {
            let _ = scan::scan_one(&state.rows, q, 0..n, 10, &keep);
        });
        println!(
            "exact scan kernel: cpu {:.2} ms; wall p50 one thread {:.2} ms, split {:.2} ms",
            ms(one_cpu),
            ms(percentiles(one).0),
            ms(percentiles(split).0)
        );
    }

    let sets: [(&str, &[Vec<f32>]); 2] = [("questions", questions), ("held-out", held_out)];
    let unfiltered = DocFilter::default();
    let truths: Vec<Results> =
        sets.iter().map(|(_, q)| run(&exact, q, &unfiltered, 10).0).collect();

    // The scan through sign bits (what searches use before a graph is ready) against the
    // float scan: latency, and recall@10 against it.
    let quantized_options = VectorOptions { quantized_scan_min_rows: 0, ..exact_options.clone() };
    let quantized =
        VectorIndex::open_with(dir.path(), DIM, "minilm", quantized_options).expect("open");
    for ((name, queries), truth) in sets.iter().zip(&truths) {
        let (got, (p50, p99)) = run(&quantized, queries, &unfiltered, 10);
        let cpu = cpu_per_query(queries, &|q| {
            let _ = quantized.search(q, 10, &unfiltered, None);
        });
        println!(
            "sign-bit scan ({name}): cpu {:.2} ms, wall p50 {:.2} ms, p99 {:.2} ms, recall@10 {:.4} \
             against the float scan",
            ms(cpu),
            ms(p50),
            ms(p99),
            recall(&got, truth)
        );
    }
    let truths40: Vec<Results> =
        sets.iter().map(|(_, q)| run(&exact, q, &unfiltered, 40).0).collect();

    // The graph, built synchronously on the first search, used by every search.
    let graph_options = VectorOptions {
        hnsw_threshold: 1,
        background: false,
        graph_visit_cost: 0.0,
        ..VectorOptions::default()
    };
    let mut graph =
        VectorIndex::open_with(dir.path(), DIM, "minilm", graph_options.clone()).expect("open");
    let start = Instant::now();
    let cpu = process_cpu();
    let _ = graph.search(&questions[0], 10, &unfiltered, None).expect("search");
    let build = start.elapsed();
    let build_cpu = process_cpu().saturating_sub(cpu);
    let start = Instant::now();
    graph.state.read().graph.as_ref().expect("graph").dump().expect("dump");
    let dump = start.elapsed();
    println!(
        "hnsw {} {:.1} s wall, {:.1} s cpu ({:.2} ms cpu per row)",
        if reused { "loaded from the kept dump in" } else { "build (dump included)" },
        build.as_secs_f64(),
        build_cpu.as_secs_f64(),
        ms(build_cpu) / n as f64,
    );
    let _ = dump;
    if let Some(pristine) = pristine.as_ref().filter(|_| !reused) {
        copy_dir(dir.path(), pristine);
    }
    // The effective ef is max(ef_search, 2 x candidates fetched): 44 for k = 10, 122 for 40.
    for ef in [32, 64, 128] {
        graph.options.ef_search = ef;
        for ((name, queries), truth) in sets.iter().zip(&truths) {
            println!(
                "k=10 ef_search={ef:<3} {name:>9}: {}",
                paired(&exact, &graph, queries, &unfiltered, truth, 10)
            );
        }
    }
    // What the search engine asks for: 40 candidates (effective ef 122 with ef_search 64).
    for ef in [64, 128] {
        graph.options.ef_search = ef;
        for ((name, queries), truth) in sets.iter().zip(&truths40) {
            println!(
                "k=40 ef_search={ef:<3} {name:>9}: {}",
                paired(&exact, &graph, queries, &unfiltered, truth, 40)
            );
        }
    }
    graph.options.ef_search = 64;

    // Reopen: the dump is loaded, not rebuilt.
    drop(graph);
    let start = Instant::now();
    let cpu = process_cpu();
    let mut graph = VectorIndex::open_with(dir.path(), DIM, "minilm", graph_options).expect("open");
    let open = start.elapsed();
    let open_cpu = process_cpu().saturating_sub(cpu);
    let start = Instant::now();
    let cpu = process_cpu();
    let _ = graph.search(&questions[0], 10, &unfiltered, None).expect("search");
    let load = start.elapsed();
    let load_cpu = process_cpu().saturating_sub(cpu);
    assert!(graph.state.read().graph.as_ref().and_then(GraphHandle::loaded_from).is_some());
    let sidecar = graph::read_sidecar(&dir.path().join(GRAPH_DIR)).expect("sidecar");
    let dump_bytes: u64 = ["graph", "data"]
        .iter()
        .filter_map(|ext| {
            let name = format!("{}.hnsw.{ext}", sidecar.basename);
            std::fs::metadata(dir.path().join(GRAPH_DIR).join(name)).ok()
        })
        .map(|m| m.len())
        .sum();
    let log_bytes = std::fs::metadata(dir.path().join(LOG_FILE)).map_or(0, |m| m.len());
    println!(
        "reopen: log replay {:.0} ms (cpu {:.0}), graph load with hash check {:.0} ms (cpu {:.0}); \
         log {:.1} MB, dump {:.1} MB",
        ms(open),
        ms(open_cpu),
        ms(load),
        ms(load_cpu),
        log_bytes as f64 / 1e6,
        dump_bytes as f64 / 1e6
    );

    // 10% removed: over-fetch keeps recall.
    let removed: Vec<MemoryRef> =
        (0..n).step_by(10).map(|i| k(&format!("c{}/p{i:06}", i % 10))).collect();
    graph.remove(&removed).expect("remove");
    exact.refresh().expect("refresh");
    let held = sets[1].1;
    let truth_after_removal = run(&exact, held, &unfiltered, 10).0;
    println!(
        "10% removed, held-out: {}",
        paired(&exact, &graph, held, &unfiltered, &truth_after_removal, 10)
    );

    // A filter passing one row in ten: forced through the graph, then as the cost model picks.
    let one_in_ten = DocFilter { collections: vec!["c3".into()], ..DocFilter::default() };
    let truth = run(&exact, held, &one_in_ten, 10).0;
    println!("filter 10% via graph:  {}", paired(&exact, &graph, held, &one_in_ten, &truth, 10));
    graph.options.graph_visit_cost = VectorOptions::default().graph_visit_cost;
    println!("filter 10% cost model: {}", paired(&exact, &graph, held, &one_in_ten, &truth, 10));
    println!(
        "unfiltered cost model: {}",
        paired(&exact, &graph, held, &unfiltered, &truth_after_removal, 10)
    );
    let allow: HashSet<MemoryRef> =
        (0..n).step_by(30).map(|i| k(&format!("c{}/p{i:06}", i % 10))).collect();
    let start = Instant::now();
    for q in held {
        let _ = graph.search(q, 10, &unfiltered, Some(&allow)).expect("search");
    }
    println!(
        "allow-set of 3%: {:.2} ms per query (exact over the allowed rows)",
        ms(start.elapsed()) / held.len() as f64
    );
}

#[test]
#[ignore = "needs a graph kept by crossover_recall_latency in MEMCORE_BENCH_DIR"]
fn guard_against_question_recall() {
    let n: usize =
        std::env::var("MEMCORE_BENCH_N").ok().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let kept = Path::new(
        &std::env::var("MEMCORE_BENCH_DIR").unwrap_or_else(|_| "/tmp/memcore-bench".into()),
    )
    .join(n.to_string());
    let queries_path = std::env::var("MEMCORE_BENCH_QUERIES")
        .unwrap_or_else(|_| "/tmp/memcore-queries.f32".into());
    let questions = load_rows(Path::new(&queries_path), usize::MAX);
    let unfiltered = DocFilter::default();
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&kept, dir.path());
    let exact_options = VectorOptions {
        hnsw_threshold: usize::MAX,
        background: false,
        quantized_scan_min_rows: usize::MAX,
        ..VectorOptions::default()
    };
    let exact = VectorIndex::open_with(dir.path(), DIM, "minilm", exact_options).expect("open");
    let graph_options = VectorOptions {
        hnsw_threshold: 1,
        background: false,
        graph_visit_cost: 0.0,
        ..VectorOptions::default()
    };
    let mut graph = VectorIndex::open_with(dir.path(), DIM, "minilm", graph_options).expect("open");
    let _ = graph.search(&questions[0], 10, &unfiltered, None).expect("search");
    for k in [10, 40] {
        let truth = run(&exact, &questions, &unfiltered, k).0;
        let exact_cpu = cpu_per_query(&questions, &|q| {
            let _ = exact.search(q, k, &unfiltered, None);
        });
        println!("n={n} k={k}: exact cpu {:.2} ms", ms(exact_cpu));
        for guard in [false, true] {
            graph.options.guard = guard;
            let got = run(&graph, &questions, &unfiltered, k).0;
            let zeros = got
                .iter()
                .zip(&truth)
                .filter(|(g, t)| recall(std::slice::from_ref(g), std::slice::from_ref(t)) == 0.0)
                .count();
            let cpu = cpu_per_query(&questions, &|q| {
                let _ = graph.search(q, k, &unfiltered, None);
            });
            println!(
                "  guard {guard:>5}: recall@{k} {:.4}, queries with recall 0: {zeros}, cpu {:.2} ms",
                recall(&got, &truth),
                ms(cpu)
            );
        }
    }
}

/// Resident memory of this process (`VmRSS`), in MB.
fn resident_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

#[test]
#[ignore = "needs a store's vector index in MEMCORE_BENCH_INDEX; run in release with --nocapture"]
fn rows_on_disk_against_rows_in_memory() {
    // MEMCORE_BENCH_INDEX: a store's `.memcore/index/vectors` (only read).
    let Some(dir) = std::env::var_os("MEMCORE_BENCH_INDEX") else {
        println!("set MEMCORE_BENCH_INDEX to a vector index directory");
        return;
    };
    let dir = Path::new(&dir);
    let file = std::fs::File::open(dir.join(LOG_FILE)).expect("the log");
    let log::HeaderRead::Valid(header, _) = log::Header::read(&file).expect("read") else {
        panic!("not a vector log");
    };
    let open = |rows_on_disk_min_rows| {
        let options = VectorOptions {
            hnsw_threshold: usize::MAX,
            background: false,
            rows_on_disk_min_rows,
            ..VectorOptions::default()
        };
        let index =
            VectorIndex::open_with(dir, header.dimension, &header.model_id, options).expect("open");
        let (before, start) = (resident_mb(), Instant::now());
        index.load().expect("load");
        println!(
            "rows on disk from {rows_on_disk_min_rows} rows: loaded {} rows in {:.0} ms, \
             resident +{:.0} MB",
            index.state.read().row_count(),
            ms(start.elapsed()),
            resident_mb() - before
        );
        index
    };
    // On disk first, so that the memory index's growth is not hidden by freed pages.
    let disk = open(0);
    let memory = open(usize::MAX);
    // Queries: stored rows, each with every eighth component negated (not in the index).
    let queries: Vec<Vec<f32>> = {
        let state = memory.state.read();
        (0..200)
            .map(|i| {
                let mut q = state.rows.vector(i * state.row_count() / 200);
                q.iter_mut().step_by(8).for_each(|x| *x = -*x);
                q
            })
            .collect()
    };
    let (found_memory, (m50, m99)) = run(&memory, &queries, &DocFilter::default(), 10);
    let (found_disk, (d50, d99)) = run(&disk, &queries, &DocFilter::default(), 10);
    assert_eq!(found_memory, found_disk, "the same results, scores included");
    let cpu = |index: &VectorIndex| {
        ms(cpu_per_query(&queries, &|q| {
            let _ = index.search(q, 10, &DocFilter::default(), None).expect("search");
        }))
    };
    println!(
        "sign-bit scan, k 10: rows in memory p50 {:.2} ms (p99 {:.2}), cpu {:.2} ms | rows on \
         disk p50 {:.2} ms (p99 {:.2}), cpu {:.2} ms",
        ms(m50),
        ms(m99),
        cpu(&memory),
        ms(d50),
        ms(d99),
        cpu(&disk)
    );
}
