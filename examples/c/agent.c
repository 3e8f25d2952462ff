/*
 * agent.c: what an agent written in C does with memcore.
 *
 * Opens a store, captures a few memories (the simple put, a JSON record with metadata and
 * a markdown document with frontmatter), lists the ones tagged "gpu" and prints them as a
 * context block ready for a prompt. Every call is checked; errors print memcore's
 * message, which says what went wrong and what to do.
 *
 * Build and run (from the repository root):
 *
 *   cargo build -p memcore-ffi
 *   cc -std=c11 -Iinclude examples/c/agent.c -Ltarget/debug -lmemcore \
 *      -Wl,-rpath,"$PWD/target/debug" -o agent
 *   ./agent ./agent-memories
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcore.h"

/* Prints the failure of `what` and returns 0 when `status` is not OK. */
static int ok(memcore_status status, const char *what) {
  if (status == MEMCORE_STATUS_OK) return 1;
  fprintf(stderr, "%s failed (%s):\n%s\n", what, memcore_status_name(status),
          memcore_last_error_message());
  return 0;
}

/*
 * Copies the value of the next `"key":"value"` pair at or after `*cursor` into `out` and
 * moves the cursor past it; 0 when there is none. Enough for references, which never need
 * escaping; a real program would use a JSON parser.
 */
static int next_field(const char **cursor, const char *key, char *out, size_t out_size) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *start = strstr(*cursor, pattern);
  if (start == NULL) return 0;
  start += strlen(pattern);
  const char *end = strchr(start, '"');
  if (end == NULL || (size_t)(end - start) >= out_size) return 0;
  memcpy(out, start, (size_t)(end - start));
  out[end - start] = '\0';
  *cursor = end + 1;
  return 1;
}

/* Captures four memories; returns how many were stored. */
static int capture(memcore_t *mc) {
  int stored = 0;
  char *ref = NULL;
  char *json = NULL;

  /* 1. The simple path: content, a collection and comma-separated tags. */
  const char *gpu = "# GPU Acceleration Patterns\n\nPrefer Metal on Apple silicon, CUDA elsewhere.";
  if (ok(memcore_put(mc, "knowledge", strlen("knowledge"), gpu, strlen(gpu), "gpu,performance",
                     strlen("gpu,performance"), &ref),
         "put")) {
    printf("  captured %s\n", ref);
    stored++;
  }
  memcore_string_free(ref);
  ref = NULL;

  const char *batching = "# Batching embeddings\n\nBatch 32 texts per call and pad to the longest.";
  if (ok(memcore_put(mc, "knowledge", strlen("knowledge"), batching, strlen(batching),
                     "embeddings, performance", strlen("embeddings, performance"), &ref),
         "put")) {
    printf("  captured %s\n", ref);
    stored++;
  }
  memcore_string_free(ref);

  /* 2. A JSON record carries every field: type, importance, author, extra metadata. */
  const char *decision =
      "{\"content\": \"Render on the GPU only when the batch exceeds 64 items.\","
      " \"title\": \"GPU threshold\", \"collection\": \"decisions\", \"type\": \"decision\","
      " \"tags\": [\"gpu\", \"threshold\"], \"importance\": 0.8, \"created_by\": \"agent.c\","
      " \"context\": \"profiling session 12\", \"metadata\": {\"ticket\": \"PERF-12\"}}";
  if (ok(memcore_put_json(mc, decision, strlen(decision), MEMCORE_PUT_MODE_UPSERT, &json),
         "put_json")) {
    printf("  captured decisions/gpu-threshold (%zu bytes of JSON back)\n", strlen(json));
    stored++;
  }
  memcore_string_free(json);
  json = NULL;

  /* 3. A markdown document with frontmatter, as an agent hook might write it. */
  const char *blocker =
      "---\n"
      "id: metal-driver-crash\n"
      "collection: blockers\n"
      "type: blocker\n"
      "tags: [gpu, macos]\n"
      "priority: high\n"
      "---\n"
      "# Metal driver crash\n\nThe driver crashes on buffers over 2 GiB; split them.\n";
  if (ok(memcore_put_markdown(mc, blocker, strlen(blocker), MEMCORE_PUT_MODE_UPSERT, &json),
         "put_markdown")) {
    printf("  captured blockers/metal-driver-crash\n");
    stored++;
  }
  memcore_string_free(json);
  return stored;
}

/* Lists the memories tagged `tag` and prints them as one context block. */
static int print_context(memcore_t *mc, const char *tag) {
  char options[256];
  snprintf(options, sizeof options, "{\"filters\": [\"tags=%s\"]}", tag);
  char *listing = NULL;
  if (!ok(memcore_list(mc, options, strlen(options), &listing), "list")) return 0;

  printf("## Memories tagged \"%s\"\n", tag);
  int count = 0;
  const char *cursor = listing;
  char reference[512];
  /* Each summary carries its "ref", "collection/id", ready to pass back. */
  while (next_field(&cursor, "ref", reference, sizeof reference)) {
    char *block = NULL;
    if (ok(memcore_render(mc, reference, strlen(reference), MEMCORE_FORMAT_CONTEXT, &block),
           "render")) {
      printf("\n%s\n", block);
      count++;
    }
    memcore_string_free(block);
  }
  printf("\n(%d memories)\n", count);
  memcore_string_free(listing);
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "./agent-memories";
  printf("memcore %s (header %s)\n", memcore_version(), MEMCORE_VERSION);

  memcore_t *mc = NULL;
  if (!ok(memcore_open(path, strlen(path), &mc), "open")) return 1;

  int stored = capture(mc);
  printf("Stored %d memories in %s\n\n", stored, path);

  char *collections = NULL;
  if (ok(memcore_collections(mc, &collections), "collections")) {
    printf("Collections: %s\n\n", collections);
  }
  memcore_string_free(collections);

  int listed = print_context(mc, "gpu");

  /* Errors are values: a missing memory is NOT_FOUND, with a hint. */
  char *json = NULL;
  memcore_status status = memcore_get(mc, "no-such-memory", strlen("no-such-memory"), &json);
  printf("\nLooking up no-such-memory: %s\n%s\n", memcore_status_name(status),
         memcore_last_error_message());

  memcore_close(mc);
  return stored == 4 && listed && status == MEMCORE_STATUS_NOT_FOUND ? 0 : 1;
}
