/*
 * Several pthreads sharing one memcore_t: concurrent puts, gets, renders, updates, lists
 * and deletes; concurrent updates of one memory losing nothing; per-thread error messages;
 * strings freed on another thread than the one that received them.
 */
#include <pthread.h>

#include "harness.h"

/* Small enough to run under valgrind, which serialises the threads and slows every index
 * commit a hundredfold; the store's lock timeout is raised for the same reason (main). */
#define THREADS 4
#define PER_THREAD 5

static memcore_t *mc = NULL;

/* What one thread saw: the number of failed steps and the first failure. */
struct worker {
  int index;
  int failures;
  char first_failure[1024];
  char *result; /* an owned string handed to the main thread */
};

static void worker_fail(struct worker *w, const char *what, memcore_status st) {
  if (w->failures++ == 0) {
    snprintf(w->first_failure, sizeof w->first_failure, "thread %d: %s: %s\n%s", w->index, what,
             memcore_status_name(st), memcore_last_error_message());
  }
}

#define STEP(w, expr, expected)                                 \
  do {                                                          \
    memcore_status st_ = (expr);                                \
    if (st_ != (memcore_status)(expected)) worker_fail((w), #expr, st_); \
  } while (0)

static void *mixed_work(void *arg) {
  struct worker *w = arg;
  char collection[32], content[128], tags[64], ref[96], change[128];
  snprintf(collection, sizeof collection, "t%d", w->index);
  snprintf(tags, sizeof tags, "thread-%d, shared", w->index);
  for (int j = 0; j < PER_THREAD; j++) {
    snprintf(content, sizeof content, "# Note %d-%d\n\nwritten by thread %d", w->index, j, w->index);
    char *out = NULL;
    STEP(w, memcore_put(mc, STR(collection), STR(content), STR(tags), &out), MEMCORE_STATUS_OK);
    snprintf(ref, sizeof ref, "%s/note-%d-%d", collection, w->index, j);
    if (out == NULL || strcmp(out, ref) != 0) worker_fail(w, "put returned the wrong ref", 0);
    memcore_string_free(out);

    out = NULL;
    STEP(w, memcore_get(mc, STR(ref), &out), MEMCORE_STATUS_OK);
    char body[64];
    snprintf(body, sizeof body, "\\n\\nwritten by thread %d\"", w->index); /* JSON-escaped */
    if (out == NULL || strstr(out, body) == NULL) worker_fail(w, "get: wrong content", 0);
    memcore_string_free(out);

    out = NULL;
    STEP(w, memcore_render(mc, STR(ref), MEMCORE_FORMAT_CONTEXT, &out), MEMCORE_STATUS_OK);
    memcore_string_free(out);

    out = NULL;
    snprintf(change, sizeof change, "{\"tags\": [\"updated-%d\"], \"merge_tags\": true}", j);
    STEP(w, memcore_update_json(mc, STR(ref), STR(change), &out), MEMCORE_STATUS_OK);
    if (out == NULL || strstr(out, "\"version\":2") == NULL) worker_fail(w, "update: version", 0);
    memcore_string_free(out);

    /* An error on this thread names this thread's memory, whatever the others do. */
    char missing[96];
    snprintf(missing, sizeof missing, "%s/missing-%d", collection, j);
    out = NULL;
    STEP(w, memcore_get(mc, STR(missing), &out), MEMCORE_STATUS_NOT_FOUND);
    char expected[128];
    snprintf(expected, sizeof expected, "memory 'missing-%d' in collection '%s'", j, collection);
    if (strstr(memcore_last_error_message(), expected) == NULL) {
      worker_fail(w, "the last error belongs to another call", 0);
    }
  }
  char options[64];
  snprintf(options, sizeof options, "{\"collection\": \"%s\"}", collection);
  char *listing = NULL;
  STEP(w, memcore_list(mc, STR(options), &listing), MEMCORE_STATUS_OK);
  if (listing == NULL || count_of(listing, "\"ref\":") != PER_THREAD) {
    worker_fail(w, "list: wrong count", 0);
  }
  memcore_string_free(listing);
  /* Delete the even ones. */
  for (int j = 0; j < PER_THREAD; j += 2) {
    snprintf(ref, sizeof ref, "%s/note-%d-%d", collection, w->index, j);
    STEP(w, memcore_delete(mc, STR(ref)), MEMCORE_STATUS_OK);
  }
  /* Hand a string to the main thread, which frees it. */
  STEP(w, memcore_collections(mc, &w->result), MEMCORE_STATUS_OK);
  return NULL;
}

TEST(threads_share_one_handle) {
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < THREADS; i++) {
    workers[i].index = i;
    CHECK(pthread_create(&threads[i], NULL, mixed_work, &workers[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
  int failures = 0;
  for (int i = 0; i < THREADS; i++) {
    if (workers[i].failures) {
      printf("\n    %s (%d failures)", workers[i].first_failure, workers[i].failures);
      failures += workers[i].failures;
    }
    CHECK(workers[i].result != NULL);
    CHECK_CONTAINS(workers[i].result, "\"t0\"");
    memcore_string_free(workers[i].result); /* received on another thread */
  }
  CHECK(failures == 0);

  char *listing = NULL;
  CHECK_OK(memcore_list(mc, STR("{\"filters\": [\"tags=shared\"]}"), &listing));
  CHECK(count_of(listing, "\"ref\":") == THREADS * (PER_THREAD / 2));
  CHECK(count_of(listing, "\"version\":2") == THREADS * (PER_THREAD / 2));
  CHECK_CONTAINS(listing, "\"skipped\":[]");
  memcore_string_free(listing);
  char *collections = NULL;
  CHECK_OK(memcore_collections(mc, &collections));
  CHECK(strcmp(collections, "[\"t0\",\"t1\",\"t2\",\"t3\"]") == 0);
  memcore_string_free(collections);
}

#define UPDATES 3

static void *update_one(void *arg) {
  struct worker *w = arg;
  for (int j = 0; j < UPDATES; j++) {
    char change[96];
    snprintf(change, sizeof change, "{\"tags\": [\"w%d-%d\"], \"merge_tags\": true}", w->index, j);
    char *out = NULL;
    STEP(w, memcore_update_json(mc, STR("counters/counter"), STR(change), &out), MEMCORE_STATUS_OK);
    memcore_string_free(out);
  }
  return NULL;
}

TEST(concurrent_updates_of_one_memory_lose_nothing) {
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("counters"), STR("# Counter\n\nshared"), NULL, 0, &ref));
  memcore_string_free(ref);
  pthread_t threads[THREADS];
  struct worker workers[THREADS];
  memset(workers, 0, sizeof workers);
  for (int i = 0; i < THREADS; i++) {
    workers[i].index = i;
    CHECK(pthread_create(&threads[i], NULL, update_one, &workers[i]) == 0);
  }
  for (int i = 0; i < THREADS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
  for (int i = 0; i < THREADS; i++) {
    if (workers[i].failures) printf("\n    %s", workers[i].first_failure);
    CHECK(workers[i].failures == 0);
  }
  char *json = NULL;
  CHECK_OK(memcore_get(mc, STR("counters/counter"), &json));
  char expected[32];
  snprintf(expected, sizeof expected, "\"version\":%d", 1 + THREADS * UPDATES);
  CHECK_CONTAINS(json, expected);
  CHECK(count_of(json, "\"w") == THREADS * UPDATES); /* every merged tag survived */
  memcore_string_free(json);
}

static void *fail_on_this_thread(void *arg) {
  struct worker *w = arg;
  /* A new thread starts without an error, whatever the main thread did. */
  if (strcmp(memcore_last_error_message(), "") != 0) worker_fail(w, "inherited an error", 0);
  char *out = NULL;
  STEP(w, memcore_get(mc, STR("only-here"), &out), MEMCORE_STATUS_NOT_FOUND);
  if (strstr(memcore_last_error_message(), "only-here") == NULL) worker_fail(w, "message", 0);
  return NULL;
}

TEST(error_messages_are_per_thread) {
  char *out = NULL;
  CHECK_STATUS(memcore_get(mc, STR("main-thread-miss"), &out), MEMCORE_STATUS_NOT_FOUND);
  const char *before = memcore_last_error_message();
  pthread_t thread;
  struct worker w;
  memset(&w, 0, sizeof w);
  CHECK(pthread_create(&thread, NULL, fail_on_this_thread, &w) == 0);
  CHECK(pthread_join(thread, NULL) == 0);
  if (w.failures) printf("\n    %s", w.first_failure);
  CHECK(w.failures == 0);
  /* The main thread's message is untouched, at the same address. */
  CHECK(memcore_last_error_message() == before);
  CHECK_CONTAINS(before, "main-thread-miss");
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  const char *dir = scratch_dir("threads");
  if (write_file(dir, "config.yaml", "lock_timeout_ms: 600000\n") != 0) return 1;
  if (memcore_open(STR(dir), &mc) != MEMCORE_STATUS_OK) {
    printf("memcore_open: %s\n", memcore_last_error_message());
    return 1;
  }
  RUN(threads_share_one_handle);
  RUN(concurrent_updates_of_one_memory_lose_nothing);
  RUN(error_messages_are_per_thread);
  memcore_close(mc);
  return harness_end("test_threads");
}
