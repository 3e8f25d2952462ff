/*
 * # memcore C API
 *
 * memcore gives AI agents persistent, searchable long-term memory inside their own process.
 * This is its C ABI: one header, `include/memcore.h`, and one library, `libmemcore.so` (or
 * `libmemcore.a`), built from the `memcore-ffi` crate. The header works from C99 and C++.
 *
 * ## Install, build and link
 *
 * Installed like any C library (the shared library with its soname `libmemcore.so.0.2`, the
 * static one, the header and a pkg-config file):
 *
 * ```sh
 * scripts/install-c --prefix "$HOME/.local"         # default prefix /usr/local; --help for more
 * export PKG_CONFIG_PATH="$HOME/.local/lib/pkgconfig" # when the prefix is not a system one
 * cc app.c $(pkg-config --cflags --libs memcore) -o app
 * cc app.c $(pkg-config --cflags memcore) \
 *   $(pkg-config --static --libs memcore | sed 's/-lmemcore/-Wl,-Bstatic -lmemcore -Wl,-Bdynamic/') -o app
 * ```
 *
 * Or straight from the build directory:
 *
 * ```sh
 * cargo build -p memcore-ffi --release     # target/release/libmemcore.so and libmemcore.a
 *
 * # shared library
 * cc -std=c99 -Iinclude app.c -Ltarget/release -lmemcore -Wl,-rpath,"$PWD/target/release" -o app
 *
 * # static library (no run-time dependency on libmemcore.so); the system libraries are those
 * # `cargo rustc -p memcore-ffi --crate-type staticlib -- --print native-static-libs` lists
 * cc -std=c99 -Iinclude app.c target/release/libmemcore.a -lgcc_s -lutil -lrt -lpthread -lm -ldl -o app
 * ```
 *
 * A program that opens a store, stores a memory and prints it for a prompt:
 *
 * ```c
 * #include <stdio.h>
 * #include <string.h>
 * #include "memcore.h"
 *
 * int main(void) {
 *   memcore_t *mc = NULL;
 *   const char *path = "./memories";
 *   if (memcore_open(path, strlen(path), &mc) != MEMCORE_STATUS_OK) {
 *     fprintf(stderr, "%s\n", memcore_last_error_message());
 *     return 1;
 *   }
 *   const char *text = "# GPU notes\n\nPrefer Metal on Apple silicon.";
 *   char *ref = NULL, *context = NULL;
 *   memcore_status st = memcore_put(mc, "knowledge", 9, text, strlen(text), "gpu,perf", 8, &ref);
 *   if (st == MEMCORE_STATUS_OK)
 *     st = memcore_render(mc, ref, strlen(ref), MEMCORE_FORMAT_CONTEXT, &context);
 *   if (st == MEMCORE_STATUS_OK)
 *     printf("%s\n", context);
 *   else
 *     fprintf(stderr, "%s: %s\n", memcore_status_name(st), memcore_last_error_message());
 *   memcore_string_free(context);
 *   memcore_string_free(ref);
 *   memcore_close(mc);
 *   return st == MEMCORE_STATUS_OK ? 0 : 1;
 * }
 * ```
 *
 * ONNX Runtime (1.29 and later) sends Microsoft telemetry from Linux and macOS unless
 * `ORT_DISABLE_TELEMETRY=1` is set before it loads: call `setenv("ORT_DISABLE_TELEMETRY", "1", 0)`
 * first thing in `main`, before any thread starts (the `memcore` command and the Python module do
 * this for you).
 *
 * ## Conventions
 *
 * **Naming.** Everything starts with `memcore_` (functions, types) or `MEMCORE_` (constants,
 * enum values, macros). Types end in `_t` when they are opaque handles (`memcore_t`); enums
 * are named after what they hold (`memcore_status`, `memcore_scope`, `memcore_format`,
 * `memcore_put_mode`) and their values are `MEMCORE_<ENUM>_<VALUE>`. Functions read
 * `memcore_<verb>` or `memcore_<noun>_<verb>`; a `_json` suffix means the call takes a JSON
 * record.
 *
 * **Handles and ownership.** `memcore_t` is opaque. `memcore_open()` and
 * `memcore_open_scope()` create one; `memcore_close()` frees it, exactly once (closing NULL
 * does nothing; using a closed handle is undefined behaviour, as with `free()`). Every
 * `char **out_...` parameter receives a new string owned by the caller, freed with
 * `memcore_string_free()` and nothing else: never `free()` it, and never pass memory from
 * `malloc()` to memcore's free functions. Strings returned as `const char *`
 * (`memcore_version()`, `memcore_status_name()`, `memcore_last_error_message()`) belong to
 * memcore and are never freed. memcore keeps no pointer the caller passed in, but for the
 * callbacks and their `user_data` (the summariser of `memcore_set_summarizer`, the embedder of
 * `memcore_open_with_embedder`), kept until `memcore_close()`.
 *
 * **Results.** Every function that can fail returns a `memcore_status`; `MEMCORE_STATUS_OK`
 * is 0. Out-parameters are written only when the call returns `MEMCORE_STATUS_OK`; on failure
 * they are left as they were, so initialise them to NULL and free unconditionally.
 *
 * **Errors.** After a failure, `memcore_last_error_message()` describes it in two lines,
 * `[KIND] what went wrong` and `-> what to do about it`. The message is per thread, is cleared
 * by the next status-returning call on that thread, and its pointer stays valid until then.
 * `memcore_status_name()` names a status (`"NOT_FOUND"`). A memory file that cannot be read
 * makes only the calls that need that memory fail (`MEMCORE_STATUS_CORRUPTED`); listings
 * report it under `skipped` and go on.
 *
 * **Arguments.** Every pointer is checked: a NULL where a value is required is
 * `MEMCORE_STATUS_NULL_PARAMETER`, never a crash. Parameters documented as optional accept
 * NULL (with length 0) for "absent". Enum arguments are passed as `uint32_t`, so an unknown
 * number is `MEMCORE_STATUS_INVALID_ARGUMENT`, not undefined behaviour.
 *
 * **Strings in** are a pointer plus a length in bytes (`const char *s, size_t s_len`): no
 * NUL terminator is needed, and NUL bytes inside are data. They must be UTF-8
 * (`MEMCORE_STATUS_INVALID_UTF8` otherwise). Memories are addressed by a *reference*: the
 * memory's `id`, or `collection/id` when the id is not unique across collections.
 *
 * **Strings out** are NUL-terminated UTF-8. JSON output escapes every control character, so it
 * never holds a NUL byte; in rendered text a NUL character of a memory becomes U+FFFD.
 *
 * **Threads.** A `memcore_t` is thread-safe: any number of threads may call any function on
 * one handle at the same time (writes are serialised inside, and across processes by a lock
 * file). Only `memcore_close()` needs exclusive use. Owned strings may be freed on any
 * thread. The callbacks are the summariser of session compressions
 * (`memcore_set_summarizer`) and the embedding model (`memcore_open_with_embedder`); they may
 * run on any thread that calls memcore, the embedder on several at once. There is no global
 * state besides the per-thread error message.
 *
 * **Panics.** Every function runs behind a panic boundary: a panic inside memcore becomes
 * `MEMCORE_STATUS_PANIC` with a message, never an abort or an unwind into C. Writes are
 * atomic, so the store stays consistent; the handle stays usable.
 *
 * **ABI stability before 1.0.** Status numbers are stable and a retired number is never
 * reused; enum values keep their numbers. Within a 0.x minor series (0.1.0, 0.1.1, ...) the
 * ABI only grows: new functions, new enum values, new optional JSON fields. A new 0.x minor
 * release may change or remove functions; `MEMCORE_VERSION_NUMBER` and
 * `memcore_version()` tell which you have. JSON records may gain fields in any release, so
 * readers must ignore fields they do not know; JSON inputs reject unknown fields, so that a
 * typo fails loudly instead of being ignored.
 *
 * ## Every operation: `memcore_call`
 *
 * The typed functions above cover the common calls. Every operation of the library, with every
 * field of its request, is reached through one function:
 *
 * ```c
 * char *json = NULL;
 * const char *request = "{\"text\": \"gpu\", \"tags_any\": [\"perf\"], \"mode\": \"text\"}";
 * memcore_status st = memcore_call(mc, "search", 6, request, strlen(request), &json);
 * // json: {"hits": [{"memory": {"ref": ...}, "score": ..., "parts": {...}}], ...}
 * memcore_string_free(json);
 * ```
 *
 * It takes the operation's **request record** as JSON and returns its **result record** as
 * JSON: the same records the Python module, the command-line tool (`memcore call`) and the MCP
 * server use, so a field added to a record in the library is reachable from C with no new
 * function. `memcore_operations()` returns every operation's name, summary and the JSON Schemas
 * of its request and result (`memcore operations NAME` prints one). The typed functions
 * (`memcore_put_json`, `memcore_search`, ...) are thin conveniences over the same records; they
 * stay until 1.0 at least, and new engines add operations, not functions.
 *
 * ## JSON records
 *
 * Rich results are JSON objects with one schema per kind of record, always compact UTF-8; the
 * authoritative schemas are those `memcore_operations()` returns. Optional fields without a
 * value are left out or `null` (the schemas say which); times are RFC 3339 in UTC
 * (`"2025-10-30T14:23:45Z"`). Memory records and summaries carry `ref`, the memory's
 * `collection/id` reference, ready to pass back to `memcore_get()` and friends. In requests, a
 * field set to `null` counts as left out; an unknown field or a value of the wrong JSON type is
 * refused with `MEMCORE_STATUS_INVALID_JSON`, a value the field does not take (`"status":
 * "done"`) with `MEMCORE_STATUS_INVALID_ARGUMENT`, both naming the field.
 *
 * **Memory record** (`memcore_get`, `memcore_put_json`, `memcore_put_markdown`,
 * `memcore_update_json`, `memcore_restore`, `memcore_get_version`):
 *
 * ```json
 * {
 *   "ref": "knowledge/gpu-notes",
 *   "id": "gpu-notes",                  "collection": "knowledge",
 *   "title": "GPU notes",               "summary": "optional, at most 100 chars",
 *   "type": "optional: fact, decision, plan, ...",
 *   "status": "active | resolved | archived | tombstone",
 *   "tags": ["gpu"],                    "category": "optional",
 *   "context": "optional: why it was stored",
 *   "related_to": ["other-id"],         "project": "optional",
 *   "priority": "optional",             "created_by": "optional",
 *   "created_at": "2025-10-30T14:23:45Z", "updated_at": "2025-10-30T14:23:45Z",
 *   "importance": 0.8,                  "version": 1,
 *   "metadata": {"any": "extra frontmatter keys, kept verbatim"},
 *   "content": "# GPU notes\n\nPrefer Metal on Apple silicon."
 * }
 * ```
 *
 * **List result** (`memcore_list`): `{"memories": [summary, ...], "skipped": [error, ...]}`.
 * A *summary* has `ref`, `id`, `collection`, `title`, `type` (optional), `status`, `tags`,
 * `category` (optional), `created_at`, `updated_at` and `version`. An *error* is
 * `{"category": "PARSE", "message": "...", "recovery": "...", "path": "...", "line": 3}` and
 * names the file that could not be read.
 *
 * **Version record** (`memcore_versions` returns an array, oldest first):
 * `{"rev": "2", "version": 2, "timestamp": "...", "author": null, "message": null,
 * "current": true}`; pass `rev` to `memcore_get_version`.
 *
 * **Collections** (`memcore_collections`): an array of names, `["knowledge", "memory"]`.
 *
 * **New memory** (input of `memcore_put_json`, and each of the `memories` of the `put`
 * operation): `content` (string) is required; optional are `id`, `collection`, `title`,
 * `summary`, `type`, `status`, `category`, `context`, `project`, `priority`, `created_by`
 * (strings), `tags` and `related_to` (arrays of strings), `importance` (number, 0 to 1),
 * `created_at` (RFC 3339 string, for imports) and `metadata` (object). The id, when not given,
 * comes from the title, else the first `# heading`, else a hash of the content.
 *
 * **Memory update** (input of `memcore_update_json`, the `change` of the `update` operation):
 * any of `content`, `title`, `summary`, `type`, `status`, `category`, `context`, `project`,
 * `priority` (strings), `tags`, `related_to` (arrays of strings), `merge_tags` (boolean: add
 * `tags` to the existing ones instead of replacing them), `importance` (number) and
 * `metadata` (object: keys are merged, a `null` value removes a key) and `expected_version`
 * (number: apply only if the memory is still at that version, else `MEMCORE_STATUS_CONFLICT`).
 * Absent or `null` fields keep their value; an empty string clears an optional text field.
 * Status changes follow the lifecycle (`active` to `resolved`, `archived` or `tombstone`;
 * `resolved` to `archived` or `tombstone`; `archived` to `tombstone` or `active`; `tombstone`
 * to `active`); archiving compresses long content and going back to `active` restores it.
 *
 * **List options** (input of `memcore_list`, or NULL for everything; the `list` operation's
 * request): `collection` (string), `filters` (all must match: one `key=value` string, an array
 * of them, or an object `{"key": "value" | ["v1", "v2"]}`; a value may list alternatives as
 * `a,b`, e.g. `"tags=gpu,cuda"`), `offset` and `limit` (numbers).
 *
 * **Query** (the `search` operation's request): `text` (required), `mode` (`hybrid`,
 * `semantic` or `text`), `limit` (1 to 1000, default 10), `collections`, `tags_any`,
 * `tags_all`, `types` (arrays of strings), `statuses` (default `["active", "resolved"]`),
 * `created_after`, `created_before`, `updated_after`, `updated_before` (RFC 3339), `filters`
 * (as for list options), `min_similarity` (number) and `recency` (`{"half_life_days": 30,
 * "weight": 0.2, "by_type": true}`; the half-life defaults to the store's `decay` setting, and
 * memory types with their own decay rate keep it unless `by_type` is false).
 *
 * **The decay engine** (through `memcore_call`; `memcore_operations()` has the schemas):
 *
 * | operation | request | result |
 * |---|---|---|
 * | `transition` | `{"ref": "...", "status": "resolved"}` | the memory record |
 * | `lifecycle` | `{"dry_run": true, "now": "2027-01-01T00:00:00Z", "collections": [...], "archive_after_days": 90, "min_relevance": 0.1, "tombstone_after_days": 180, "delete_after_days": 365, "compress": true}` (all optional) | `{"dry_run", "now", "stats": {"scanned", "archived", "tombstoned", "deleted", "skipped", "failed"}, "steps": [{"ref", "action", "from", "to", "reason", "age_days", "relevance", "version"}], "errors": [error, ...]}` |
 * | `keepit_list` | `{"ref": "..."}` or `{"text": "..."}` | `{"markers": [{"index", "weight", "level", "content", "start", "end", "start_char", "end_char"}]}` |
 * | `keepit_set` | `{"ref": "...", "index": 0, "weight": 0.8}` | the memory record |
 * | `keepit_preview` | `{"ref"` or `"text", "ratio": 30, "aggressiveness": "aggressive", "max_distance": 10}` | `{"ratio", "aggressiveness", "max_distance", "thresholds": [{"distance", "threshold", "surviving"}], "markers": [marker + "survives": [bool, ...], "survives_through"]}` |
 *
 * A dry run's `steps` are exactly what a real run at the same `now` does; each step of a real
 * run is a durable write of its own, so an interrupted run is finished by running it again.
 */

#ifndef MEMCORE_H
#define MEMCORE_H

/* Generated with cbindgen:0.29.2 */

/* Generated by cbindgen from memcore-ffi (tests/header.rs): do not edit by hand. */

#include <stddef.h>
#include <stdint.h>

/** The version of memcore this header belongs to; compare with memcore_version(). */
#define MEMCORE_VERSION "0.2.0"
#define MEMCORE_VERSION_MAJOR 0
#define MEMCORE_VERSION_MINOR 2
#define MEMCORE_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, for `#if MEMCORE_VERSION_NUMBER >= ...`. */
#define MEMCORE_VERSION_NUMBER 200


/**
 * The outcome of a memcore call. `MEMCORE_STATUS_OK` (0) is success; anything else is a
 * failure, described in detail by `memcore_last_error_message()`.
 *
 * The numbers are stable: a status keeps its number forever and a retired number is never
 * reused. They are grouped: 1-99 the caller's arguments were unusable, 100-199 the store
 * refused or failed, 200-299 memcore itself failed. New statuses may be added in any
 * release, so treat an unknown number as a failure of its group.
 */
enum memcore_status
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  /**
   * Success.
   */
  MEMCORE_STATUS_OK = 0,
  /**
   * A required pointer argument was NULL (or an optional one was NULL with a non-zero
   * length).
   */
  MEMCORE_STATUS_NULL_PARAMETER = 1,
  /**
   * A string argument was not valid UTF-8.
   */
  MEMCORE_STATUS_INVALID_UTF8 = 2,
  /**
   * A JSON argument was not JSON, or did not fit its record's schema (wrong type, unknown
   * field, missing required field, a value outside its set such as an unknown status).
   */
  MEMCORE_STATUS_INVALID_JSON = 3,
  /**
   * An argument broke a rule: a bad id, collection, reference or filter, empty or
   * oversized content, an importance outside 0..1, a forbidden status change, an unknown
   * enum value. Nothing was written.
   */
  MEMCORE_STATUS_INVALID_ARGUMENT = 4,
  /**
   * The memory (or collection, version, project config) asked for does not exist.
   */
  MEMCORE_STATUS_NOT_FOUND = 100,
  /**
   * The request clashes with the store's state: the memory already exists (create-only
   * put), an id is ambiguous across collections, or another writer holds the lock.
   */
  MEMCORE_STATUS_CONFLICT = 101,
  /**
   * Reading or writing the store failed at the operating-system level.
   */
  MEMCORE_STATUS_IO = 102,
  /**
   * A stored file could not be parsed; the message names the file (and line).
   */
  MEMCORE_STATUS_CORRUPTED = 103,
  /**
   * A derived index failed; the store itself is intact and the index can be rebuilt.
   */
  MEMCORE_STATUS_INDEX = 104,
  /**
   * The embedding model or its runtime is missing, damaged or failed.
   */
  MEMCORE_STATUS_EMBEDDING = 105,
  /**
   * The store's backend (or configuration) does not offer the operation, e.g. version
   * history with `versioning: off`.
   */
  MEMCORE_STATUS_UNSUPPORTED = 106,
  /**
   * A callback the caller gave memcore (a summariser) returned non-zero, or gave back
   * something unusable (no summary, invalid UTF-8, an empty or overlong summary); or a
   * summariser written in Rust panicked. Nothing was written.
   */
  MEMCORE_STATUS_CALLBACK = 107,
  /**
   * memcore panicked; the panic was caught and the call abandoned. A bug: please report
   * the message.
   */
  MEMCORE_STATUS_PANIC = 200,
  /**
   * An error memcore did not expect (for example a new kind of core error this binding
   * does not know yet). A bug: please report the message.
   */
  MEMCORE_STATUS_INTERNAL = 201,
};
#ifndef __cplusplus
typedef uint32_t memcore_status;
#endif // __cplusplus

/**
 * Which store `memcore_open_scope()` opens.
 */
enum memcore_scope
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  /**
   * The project-local store if a `.memcore.yaml` is found walking up from the start
   * directory, else the global store.
   */
  MEMCORE_SCOPE_AUTO = 0,
  /**
   * The project-local store; `MEMCORE_STATUS_NOT_FOUND` when there is no project config.
   */
  MEMCORE_SCOPE_LOCAL = 1,
  /**
   * The global store: `$MEMCORE_HOME`, else `$XDG_DATA_HOME/memcore`, else
   * `~/.local/share/memcore`.
   */
  MEMCORE_SCOPE_GLOBAL = 2,
};
#ifndef __cplusplus
typedef uint32_t memcore_scope;
#endif // __cplusplus

/**
 * How `memcore_render()` renders a memory as text.
 */
enum memcore_format
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  /**
   * A block for an AI's context: `# title`, `ID:`, `Created: ... by ...`, `Context:`,
   * `Tags:`, `Category:`, `Related:` lines (those that are set), a blank line, then the
   * content.
   */
  MEMCORE_FORMAT_CONTEXT = 0,
  /**
   * The markdown content alone.
   */
  MEMCORE_FORMAT_RAW = 1,
};
#ifndef __cplusplus
typedef uint32_t memcore_format;
#endif // __cplusplus

/**
 * What `memcore_put_json()` and `memcore_put_markdown()` do when the memory exists.
 */
enum memcore_put_mode
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  /**
   * Replace it: the new memory keeps the old `created_at` and gets the next version.
   */
  MEMCORE_PUT_MODE_UPSERT = 0,
  /**
   * Fail with `MEMCORE_STATUS_CONFLICT` and write nothing.
   */
  MEMCORE_PUT_MODE_CREATE_ONLY = 1,
};
#ifndef __cplusplus
typedef uint32_t memcore_put_mode;
#endif // __cplusplus

/**
 * How `memcore_search()` ranks memories.
 */
enum memcore_search_mode
#ifdef __cplusplus
  : uint32_t
#endif // __cplusplus
 {
  /**
   * BM25 full text and local embeddings, fused by reciprocal rank.
   */
  MEMCORE_SEARCH_MODE_HYBRID = 0,
  /**
   * Vector similarity of embeddings only.
   */
  MEMCORE_SEARCH_MODE_SEMANTIC = 1,
  /**
   * BM25 full text only.
   */
  MEMCORE_SEARCH_MODE_TEXT = 2,
};
#ifndef __cplusplus
typedef uint32_t memcore_search_mode;
#endif // __cplusplus

/**
 * Where a summariser callback writes its summary; valid only during the callback.
 */
typedef struct memcore_summary_t memcore_summary_t;

/**
 * An open memory store. Opaque: created by `memcore_open()` or `memcore_open_scope()`,
 * freed exactly once by `memcore_close()`.
 *
 * Thread-safe: one handle may be used from any number of threads at once (every function
 * takes it as `const memcore_t *`). Several handles, and several processes, may open the
 * same store directory; writes are serialised by a lock file.
 */
typedef struct memcore_t memcore_t;

/**
 * A summariser callback: summarise the request (`request_json`, `request_len` bytes of
 * UTF-8 JSON, also NUL-terminated, valid during the call: `{"messages": [{"uuid", "role", "content", "timestamp"}], "input_tokens",
 * "target_tokens", "compaction_ratio", "aggressiveness", "keep": [passages kept verbatim
 * beside the summary]}`) in about `target_tokens` tokens, write it with
 * `memcore_summary_write(summary, text, len)` and return 0. Any other return value is a
 * failure (`MEMCORE_STATUS_CALLBACK`; nothing is written to the store).
 *
 * It may be called from any thread that calls memcore with the handle, so it and
 * `user_data` must be safe to use from several threads. It must return normally: no C++
 * exception or `longjmp` may leave it. It may call memcore, on this handle too, but a
 * compression it starts with the default summariser calls it again (and so on). Calling
 * `memcore_summary_write` twice keeps the last text; an invalid write fails the compression.
 */
typedef int32_t (*memcore_summarize_fn)(void *user_data,
                                        const char *request_json,
                                        size_t request_len,
                                        struct memcore_summary_t *summary);

/**
 * An embedding callback: embed the `count` texts (`texts[i]`, UTF-8, `text_lens[i]` bytes,
 * all valid during the call; each is also NUL-terminated, but a memory may hold NUL bytes,
 * so `text_lens[i]` is its length, not `strlen`) into `vectors`, a zeroed array of
 * `count * dimension` floats (row `i`, from `vectors + i * dimension`, is the vector of
 * text `i`), and return 0. Any other return value is a failure: a write keeps its memories
 * and embeds them on a later search (which falls back to full text, with a warning, until
 * it can); a search whose query cannot be embedded fails with `MEMCORE_STATUS_CALLBACK`.
 *
 * Vectors need not be normalised; they must be finite and not all zero (else the call
 * fails the same way). The callback may be
 * called from any thread that calls memcore with the handle, and from several at once, so
 * it and `user_data` must be safe to use from several threads. It must return normally: no
 * C++ exception or `longjmp` may leave it.
 */
typedef int32_t (*memcore_embed_fn)(void *user_data,
                                    const char *const *texts,
                                    const size_t *text_lens,
                                    size_t count,
                                    float *vectors);

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The library's version, such as `"0.2.0"`: compare it with the header's
 * `MEMCORE_VERSION` to check that the library loaded at run time is the one compiled
 * against. A static string: never NULL, never freed.
 *
 * # Safety
 *
 * None: always safe to call.
 */
const char *memcore_version(void);

/**
 * The name of a status: `"OK"`, `"NOT_FOUND"`, ... (the constant without its
 * `MEMCORE_STATUS_` prefix), or `"UNKNOWN"` for a number that is no status.
 *
 * Takes the status as a plain `uint32_t` so that any number is safe to pass. The returned
 * string is static: never NULL, never freed.
 *
 * # Safety
 *
 * None: any value may be passed.
 */
const char *memcore_status_name(uint32_t status);

/**
 * What went wrong in the last call on this thread that returned a status other than
 * `MEMCORE_STATUS_OK`, with what to do about it: `"[KIND] message\n-> recovery"`, for
 * example
 *
 * ```text
 * [NOT_FOUND] memory 'gpu-notes' not found
 * -> check the id with list, or omit the collection to search all of them
 * ```
 *
 * Returns `""` (never NULL) when the last status-returning call on this thread succeeded
 * or there was none. Each thread has its own message, so threads sharing a `memcore_t`
 * never see each other's errors.
 *
 * # Safety
 *
 * None to call. The returned string belongs to memcore: do not free it. It stays valid
 * until the next call on the same thread to a memcore function that returns a
 * `memcore_status` (or until the thread exits); copy it to keep it longer.
 */
const char *memcore_last_error_message(void);

/**
 * Frees a string that memcore returned through a `char **` out-parameter (JSON records,
 * rendered text, references, paths). Passing NULL does nothing.
 *
 * Strings memcore returns as `const char *` (`memcore_version()`,
 * `memcore_status_name()`, `memcore_last_error_message()`) are not owned by the caller and
 * must not be passed here.
 *
 * # Safety
 *
 * `string` must be NULL or a string returned by memcore through a `char **`
 * out-parameter and not freed yet; after this call it must not be used. Never pass it to
 * `free()`, and never pass memory from `malloc()` here. It may be freed on any thread.
 */
void memcore_string_free(char *string);

/**
 * Opens the store in the directory `path` (UTF-8, `path_len` bytes), creating it (mode
 * 0700) if it does not exist. Settings come from `config.yaml` inside it, if present.
 *
 * On success writes a new handle to `*out`; free it with `memcore_close()`.
 *
 * Errors: `NULL_PARAMETER` (`path` or `out` NULL), `INVALID_UTF8`, `INVALID_ARGUMENT`
 * (the path is empty or a file, or its config is invalid), `IO`.
 *
 * # Safety
 *
 * `path` must point to `path_len` readable bytes; `out` must point to writable storage for
 * one pointer.
 */
memcore_status memcore_open(const char *path, size_t path_len, struct memcore_t **out);

/**
 * Opens the store a scope resolves to, as the command-line tool does: `scope` is one of
 * `memcore_scope`; project detection walks up from `start_dir` (UTF-8, `start_dir_len`
 * bytes), or from the process's working directory when `start_dir` is NULL.
 *
 * On success writes a new handle to `*out`; free it with `memcore_close()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (an unknown `scope`, a bad
 * project config), `NOT_FOUND` (`MEMCORE_SCOPE_LOCAL` without a project config), `IO`.
 *
 * # Safety
 *
 * `start_dir` must be NULL (with `start_dir_len` 0) or point to `start_dir_len` readable
 * bytes; `out` must point to writable storage for one pointer.
 */
memcore_status memcore_open_scope(uint32_t scope,
                                  const char *start_dir,
                                  size_t start_dir_len,
                                  struct memcore_t **out);

/**
 * Closes a handle and frees it. Passing NULL does nothing.
 *
 * Every write has already been made durable when its call returned, so closing loses
 * nothing. Strings returned earlier stay valid (they are owned by the caller).
 *
 * # Safety
 *
 * `memcore` must be NULL or a handle from `memcore_open()` / `memcore_open_scope()` that
 * has not been closed; no other thread may be using it, and it must not be used after.
 */
void memcore_close(struct memcore_t *memcore);

/**
 * The store's root directory, as an owned string for `memcore_string_free()` written to
 * `*out`. (A path that is not UTF-8 has its invalid bytes replaced by U+FFFD.)
 *
 * Errors: `NULL_PARAMETER`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `out` must point to writable storage for one
 * pointer.
 */
memcore_status memcore_root(const struct memcore_t *memcore, char **out);

/**
 * Stores `content` (markdown) in `collection` with `tags`, replacing a memory with the
 * same id there. The id comes from the first `# heading`, else a hash of the content.
 *
 * - `collection` (UTF-8, `collection_len` bytes) may be NULL: the store's default
 *   collection (`memory` unless configured).
 * - `tags` (UTF-8, `tags_len` bytes) is a comma-separated list such as `"gpu,perf"`, or
 *   NULL for none; spaces around each tag are trimmed.
 * - On success writes the memory's reference `"collection/id"` to `*out_ref` (an owned
 *   string for `memcore_string_free()`): pass it to `memcore_get()` and friends.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (empty or oversized content,
 * bad collection name), `CONFLICT` (lock timeout), `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle. Each string pointer must be NULL (where
 * allowed) or point to its length in readable bytes. `out_ref` must point to writable
 * storage for one pointer.
 */
memcore_status memcore_put(const struct memcore_t *memcore,
                           const char *collection,
                           size_t collection_len,
                           const char *content,
                           size_t content_len,
                           const char *tags,
                           size_t tags_len,
                           char **out_ref);

/**
 * Stores a memory described by a **put record** (JSON, `record_len` bytes; see the schema
 * at the top of this header). `mode` is one of `memcore_put_mode`.
 *
 * On success writes the stored **memory record** (JSON) to `*out_json`, an owned string
 * for `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON` (not JSON, unknown field, wrong
 * type, no `content`), `INVALID_ARGUMENT` (a value breaks a rule, unknown `mode`),
 * `CONFLICT` (`MEMCORE_PUT_MODE_CREATE_ONLY` and the memory exists), `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `record` must point to `record_len` readable
 * bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_put_json(const struct memcore_t *memcore,
                                const char *record,
                                size_t record_len,
                                uint32_t mode,
                                char **out_json);

/**
 * Stores a markdown document that may start with YAML frontmatter (`---` lines), as when
 * importing a memory file: the frontmatter supplies the metadata (`id`, `collection`,
 * `tags`, ...), the rest the content. `mode` is one of `memcore_put_mode`.
 *
 * On success writes the stored **memory record** (JSON) to `*out_json`, an owned string
 * for `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (bad frontmatter, a value
 * breaks a rule, unknown `mode`), `CONFLICT`, `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `markdown` must point to `markdown_len`
 * readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_put_markdown(const struct memcore_t *memcore,
                                    const char *markdown,
                                    size_t markdown_len,
                                    uint32_t mode,
                                    char **out_json);

/**
 * Reads the memory at `reference` (`"id"` or `"collection/id"`, UTF-8, `reference_len`
 * bytes) and writes its **memory record** (JSON) to `*out_json`, an owned string for
 * `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (malformed reference),
 * `NOT_FOUND`, `CONFLICT` (a bare id found in several collections), `CORRUPTED`, `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
 * readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_get(const struct memcore_t *memcore,
                           const char *reference,
                           size_t reference_len,
                           char **out_json);

/**
 * Reads the memory at `reference` and renders it as text in `format` (one of
 * `memcore_format`), ready to paste into a prompt; writes the text to `*out_text`, an
 * owned string for `memcore_string_free()`. (A NUL character in the memory, which a C
 * string cannot hold, is rendered as U+FFFD; the JSON record keeps it exactly.)
 *
 * Errors: as `memcore_get()`, plus `INVALID_ARGUMENT` for an unknown `format`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
 * readable bytes; `out_text` must point to writable storage for one pointer.
 */
memcore_status memcore_render(const struct memcore_t *memcore,
                              const char *reference,
                              size_t reference_len,
                              uint32_t format,
                              char **out_text);

/**
 * Changes the memory at `reference` as an **update record** (JSON, `change_len` bytes; see
 * the schema at the top of this header) says: fields left out keep their value, the
 * version goes up by one and the old version is kept in the history.
 *
 * On success writes the updated **memory record** (JSON) to `*out_json`, an owned string
 * for `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON`, `INVALID_ARGUMENT` (a value
 * breaks a rule, a forbidden status change), `NOT_FOUND`, `CONFLICT`, `CORRUPTED`, `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` and `change` must point to their
 * lengths in readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_update_json(const struct memcore_t *memcore,
                                   const char *reference,
                                   size_t reference_len,
                                   const char *change,
                                   size_t change_len,
                                   char **out_json);

/**
 * Deletes the memory at `reference` (`"id"` or `"collection/id"`) by moving it to the
 * store's trash, from where `memcore_restore()` brings it back.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND`, `CONFLICT`,
 * `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
 * readable bytes.
 */
memcore_status memcore_delete(const struct memcore_t *memcore,
                              const char *reference,
                              size_t reference_len);

/**
 * Brings the most recently deleted memory at `reference` back from the trash and writes
 * its **memory record** (JSON) to `*out_json`, an owned string for
 * `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND` (nothing in
 * the trash), `CONFLICT` (a live memory took the id meanwhile), `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
 * readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_restore(const struct memcore_t *memcore,
                               const char *reference,
                               size_t reference_len,
                               char **out_json);

/**
 * Lists memories, sorted by collection then id, as a **list result** (JSON) written to
 * `*out_json`, an owned string for `memcore_string_free()`.
 *
 * `options` is a **list options** record (JSON, `options_len` bytes; see the schema at
 * the top of this header), or NULL for every memory of every collection. A memory file
 * that cannot be read does not fail the call: it is reported in the result's `skipped`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON`, `INVALID_ARGUMENT` (bad
 * collection name or filter), `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `options` must be NULL (with `options_len`
 * 0) or point to `options_len` readable bytes; `out_json` must point to writable storage
 * for one pointer.
 */
memcore_status memcore_list(const struct memcore_t *memcore,
                            const char *options,
                            size_t options_len,
                            char **out_json);

/**
 * The store's collections, sorted by name, as a JSON array of strings (for example
 * `["knowledge","memory"]`) written to `*out_json`, an owned string for
 * `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `out_json` must point to writable storage for
 * one pointer.
 */
memcore_status memcore_collections(const struct memcore_t *memcore, char **out_json);

/**
 * The history of the memory at `reference` (`"id"` or `"collection/id"`), oldest first and
 * the current version last, as a JSON array of **version records** written to
 * `*out_json`, an owned string for `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT`, `NOT_FOUND`, `CONFLICT`,
 * `CORRUPTED`, `IO`, `UNSUPPORTED` (the store keeps no history: `versioning: off`, or a
 * store inside a git work tree).
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` must point to `reference_len`
 * readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_versions(const struct memcore_t *memcore,
                                const char *reference,
                                size_t reference_len,
                                char **out_json);

/**
 * The memory at `reference` as it was at `rev` (a version record's `rev`, UTF-8, `rev_len`
 * bytes), as a **memory record** (JSON) written to `*out_json`, an owned string for
 * `memcore_string_free()`.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (malformed `rev`),
 * `NOT_FOUND` (no such version), `CONFLICT`, `CORRUPTED`, `IO`, `UNSUPPORTED`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `reference` and `rev` must point to their
 * lengths in readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_get_version(const struct memcore_t *memcore,
                                   const char *reference,
                                   size_t reference_len,
                                   const char *rev,
                                   size_t rev_len,
                                   char **out_json);

/**
 * Searches the memories for `query` (UTF-8, `query_len` bytes) in `mode` (a
 * `memcore_search_mode`), returning at most `limit` hits (1 to
 * 1000) as a **search result** (JSON) written to `*out_json`, an owned string for
 * `memcore_string_free()`:
 * `{"hits": [{"memory": summary, "score": f, "parts": {...}}], "mode": "hybrid",
 * "warnings": [...], "maintenance": [...]}`. Archived and tombstoned memories are left out.
 * Without the embedding model, semantic and hybrid searches fall back to full text and say
 * so in `warnings`; `maintenance` lists index work the search did on the way (finishing a
 * crashed writer's work, catching up an index that had fallen behind).
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_ARGUMENT` (empty query, limit out of
 * range, unknown mode), `INDEX`, `EMBEDDING`, `IO`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `query` must point to `query_len` readable
 * bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_search(const struct memcore_t *memcore,
                              const char *query,
                              size_t query_len,
                              uint32_t mode,
                              size_t limit,
                              char **out_json);

/**
 * Runs the operation `operation` (UTF-8, `operation_len` bytes: `"put"`, `"get"`,
 * `"update"`, `"delete"`, `"restore"`, `"search"`, `"list"`, `"collections"`,
 * `"versions"`, `"diff"`, `"hydrate"`, `"stats"`, `"verify"`, `"repair"`, `"reindex"`,
 * `"sync"`, and every operation later releases add) on its **request record** (JSON,
 * `request_len` bytes; NULL with length 0 for `{}`), and writes its **result record**
 * (JSON) to `*out_json`, an owned string for `memcore_string_free()`.
 *
 * This is the same call the Python module, the command-line tool (`memcore call`) and the
 * MCP server make, so every field of every record is reachable from C. Each operation's
 * request and result schemas come from `memcore_operations()`. For example, a search with
 * filters: `memcore_call(mc, "search", 6, "{\"text\": \"gpu\", \"tags_any\": [\"perf\"],
 * \"mode\": \"text\", \"limit\": 5}", len, &json)`.
 *
 * A field set to `null` counts as left out. Unknown fields are refused, so a typo fails
 * loudly.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`, `INVALID_JSON` (not JSON, not an object, an
 * unknown operation, a field that does not fit the schema), `INVALID_ARGUMENT` (a value
 * that breaks a rule), and whatever the operation itself returns (`NOT_FOUND`, `CONFLICT`,
 * `IO`, ...; `CALLBACK` when the summariser of `session_compress` or `session_compose`
 * fails).
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `operation` must point to `operation_len`
 * readable bytes; `request` must be NULL (with `request_len` 0) or point to `request_len`
 * readable bytes; `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_call(const struct memcore_t *memcore,
                            const char *operation,
                            size_t operation_len,
                            const char *request,
                            size_t request_len,
                            char **out_json);

/**
 * Every operation `memcore_call()` runs, as JSON written to `*out_json` (an owned string
 * for `memcore_string_free()`): `{"operations": [{"name": "put", "summary": "...",
 * "access": "writes", "request": {JSON Schema}, "result": {JSON Schema}}, ...]}`. Needs no
 * store.
 *
 * Errors: `NULL_PARAMETER`.
 *
 * # Safety
 *
 * `out_json` must point to writable storage for one pointer.
 */
memcore_status memcore_operations(char **out_json);

/**
 * Sets the summariser callback of the handle (`callback` NULL: back to the built-in
 * extractive summariser). `name` (UTF-8, `name_len` bytes; NULL for `"c-callback"`) is
 * recorded as each version's `settings.model`; `user_data` is passed to every call.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`.
 *
 * # Safety
 *
 * `memcore` must be NULL or an open handle; `name` must be NULL (with `name_len` 0) or
 * point to `name_len` readable bytes; `callback` must follow the contract of
 * `memcore_summarize_fn`, and it and `user_data` stay valid until `memcore_close()` (a
 * compression already under way keeps the callback it started with, even after another
 * `memcore_set_summarizer`).
 */
memcore_status memcore_set_summarizer(const struct memcore_t *memcore,
                                      const char *name,
                                      size_t name_len,
                                      memcore_summarize_fn callback,
                                      void *user_data);

/**
 * Called by a summariser callback: copies the summary (`text`, UTF-8, `text_len` bytes)
 * into `summary`. Text that is not UTF-8 is refused here (`INVALID_UTF8`) and fails the
 * compression too.
 *
 * Errors: `NULL_PARAMETER`, `INVALID_UTF8`.
 *
 * # Safety
 *
 * `summary` must be the pointer the callback was given, during the callback; `text` must
 * point to `text_len` readable bytes.
 */
memcore_status memcore_summary_write(struct memcore_summary_t *summary,
                                     const char *text,
                                     size_t text_len);

/**
 * Opens the store in the directory `path` (UTF-8, `path_len` bytes) as `memcore_open()`
 * does, with an embedding model of the caller's own for semantic and hybrid search
 * instead of the built-in all-MiniLM-L6-v2: `embed` (see `memcore_embed_fn`) returns
 * vectors of `dimension` floats, and `model_id` (UTF-8, `model_id_len` bytes) names the
 * model. The model id is stored with every vector: a store whose vectors came from another
 * model id is embedded again on its first semantic search, so every process that opens the
 * store must use the same embedder (handles still open with the old model turn semantic
 * search off, with a warning, rather than mix the two). `user_data` is passed to every
 * call.
 *
 * On success writes a new handle to `*out`; free it with `memcore_close()`.
 *
 * Errors: `NULL_PARAMETER` (`path`, `model_id`, `embed` or `out` NULL), `INVALID_UTF8`,
 * `INVALID_ARGUMENT` (an empty path or model id, a dimension of 0 or above 65,536, a bad
 * config), `IO`.
 *
 * # Safety
 *
 * `path` must point to `path_len` readable bytes and `model_id` to `model_id_len`; `embed`
 * must follow the contract of `memcore_embed_fn`, and it and `user_data` stay valid until
 * `memcore_close()`; `out` must point to writable storage for one pointer.
 */
memcore_status memcore_open_with_embedder(const char *path,
                                          size_t path_len,
                                          const char *model_id,
                                          size_t model_id_len,
                                          size_t dimension,
                                          memcore_embed_fn embed,
                                          void *user_data,
                                          struct memcore_t **out);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* MEMCORE_H */
