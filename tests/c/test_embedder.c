/*
 * An embedding model written in C behind semantic and hybrid search
 * (memcore_open_with_embedder): a bag-of-words model whose rankings are known in advance,
 * the store reopened with the same and with another model id, several threads embedding at
 * once, a callback that fails (the write kept, the search falling back to full text, a query
 * it cannot embed MEMCORE_STATUS_CALLBACK) and the argument checks.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "harness.h"

static const char *const WORDS[] = {"gpu", "metal", "retry", "http", "vulkan", "driver"};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])
#define DIM (NWORDS + 1)

/* What the model saw: calls and texts embedded, and the query it refuses (if any). */
struct model {
  atomic_int calls;
  atomic_int texts;
  const char *refuse;
  int32_t failure; /* returned for every call when non-zero */
};

/* One dimension per word of WORDS (occurrences, case-insensitive), plus one never zero. */
static int32_t bag_of_words(void *user_data, const char *const *texts, const size_t *lens, size_t count,
                            float *vectors) {
  struct model *m = user_data;
  atomic_fetch_add(&m->calls, 1);
  atomic_fetch_add(&m->texts, (int)count);
  if (m->failure != 0) return m->failure;
  for (size_t i = 0; i < count; i++) {
    if (texts[i][lens[i]] != '\0') return 90; /* NUL-terminated as promised */
    if (m->refuse != NULL && strcmp(texts[i], m->refuse) == 0) return 91;
    float *row = vectors + i * DIM;
    for (size_t w = 0; w < NWORDS; w++) {
      if (row[w] != 0.0f) return 92; /* zeroed as promised */
      size_t n = strlen(WORDS[w]);
      for (const char *p = texts[i]; (p = strstr(p, WORDS[w])) != NULL; p += n) row[w] += 1.0f;
    }
    row[NWORDS] = 0.1f;
  }
  return 0;
}

static memcore_status open_with(const char *path, const char *model_id, struct model *m, memcore_t **mc) {
  return memcore_open_with_embedder(path, strlen(path), STR(model_id), DIM, bag_of_words, m, mc);
}

static int fill(memcore_t *mc) {
  static const char *const contents[] = {
      "The renderer reaches the gpu through metal, metal everywhere.",
      "retry http calls with backoff; http retry budget of three.",
      "The vulkan driver for the CI runners.",
  };
  for (size_t i = 0; i < 3; i++) {
    char *ref = NULL;
    if (memcore_put(mc, STR("notes"), STR(contents[i]), NULL, 0, &ref) != MEMCORE_STATUS_OK) return -1;
    memcore_string_free(ref);
  }
  return 0;
}

/* Whether the first hit of a search's JSON has a title (here: its content) starting with `prefix`. */
static int first_hit_is(const char *json, const char *prefix) {
  const char *p = strstr(json, "\"title\":\"");
  return p != NULL && strncmp(p + 9, prefix, strlen(prefix)) == 0;
}

/* Reopens the store in `dir` with `model_id`, searches "metal" and checks the ranking. */
static int reopened_ranks_the_same(const char *dir, const char *model_id, struct model *m) {
  memcore_t *mc = NULL;
  char *json = NULL;
  int ok = open_with(dir, model_id, m, &mc) == MEMCORE_STATUS_OK &&
           memcore_search(mc, STR("metal"), MEMCORE_SEARCH_MODE_SEMANTIC, 3, &json) == MEMCORE_STATUS_OK &&
           strstr(json, "\"mode\":\"semantic\"") != NULL && first_hit_is(json, "The renderer reaches the gpu");
  memcore_string_free(json);
  memcore_close(mc);
  return ok;
}

TEST(semantic_search_ranks_by_the_c_model) {
  struct model m = {0};
  memcore_t *mc = NULL;
  const char *dir = scratch_dir("embedder");
  CHECK_OK(open_with(dir, "bag-of-words-v1", &m, &mc));
  CHECK(fill(mc) == 0);
  CHECK(atomic_load(&m.texts) == 3);
  char *json = NULL;
  CHECK_OK(memcore_search(mc, STR("metal"), MEMCORE_SEARCH_MODE_SEMANTIC, 3, &json));
  CHECK_CONTAINS(json, "\"mode\":\"semantic\"");
  CHECK_CONTAINS(json, "\"warnings\":[]");
  CHECK(first_hit_is(json, "The renderer reaches the gpu"));
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_search(mc, STR("vulkan driver"), MEMCORE_SEARCH_MODE_HYBRID, 3, &json));
  CHECK(first_hit_is(json, "The vulkan driver"));
  memcore_string_free(json);
  memcore_close(mc);

  /* Reopened with the same model: only the query is embedded. */
  struct model same = {0};
  CHECK(reopened_ranks_the_same(dir, "bag-of-words-v1", &same));
  CHECK(atomic_load(&same.texts) == 1);
  /* Another model id: every memory is embedded again. */
  struct model other = {0};
  CHECK(reopened_ranks_the_same(dir, "bag-of-words-v2", &other));
  CHECK(atomic_load(&other.texts) == 4);
}

/* Vectors brought by the caller through memcore_call: a memory's (`vector` beside its content)
 * and a query's are taken instead of calling the model; a vector of another dimension is
 * MEMCORE_STATUS_INVALID_ARGUMENT and writes nothing. */
TEST(given_vectors_are_taken_instead_of_the_model) {
  struct model m = {0};
  memcore_t *mc = NULL;
  const char *dir = scratch_dir("given-vectors");
  CHECK_OK(open_with(dir, "bag-of-words-v1", &m, &mc));
  CHECK(fill(mc) == 0);
  int texts = atomic_load(&m.texts);
  char *json = NULL;
  /* "Note 17." says nothing of drivers; its vector does (the "driver" dimension). */
  CHECK_OK(memcore_call(mc, STR("put"),
                        STR("{\"memories\":[{\"id\":\"note\",\"content\":\"Note 17.\","
                            "\"vector\":[0,0,0,0,0,3,0.1]}]}"),
                        &json));
  memcore_string_free(json);
  json = NULL;
  CHECK(atomic_load(&m.texts) == texts);
  /* The query's words are about metal; its vector asks for drivers. */
  CHECK_OK(memcore_call(mc, STR("search"),
                        STR("{\"text\":\"metal\",\"mode\":\"semantic\",\"limit\":1,"
                            "\"vector\":[0,0,0,0,0,1,0.1]}"),
                        &json));
  CHECK_CONTAINS(json, "\"id\":\"note\"");
  memcore_string_free(json);
  json = NULL;
  CHECK(atomic_load(&m.texts) == texts);
  CHECK_STATUS(memcore_call(mc, STR("put"),
                            STR("{\"memories\":[{\"id\":\"short\",\"content\":\"x\",\"vector\":[1,2]}]}"),
                            &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "has 2 values; the embedder bag-of-words-v1 makes 7");
  CHECK(json == NULL);
  CHECK_STATUS(memcore_call(mc, STR("get"), STR("{\"ref\":\"short\"}"), &json), MEMCORE_STATUS_NOT_FOUND);
  memcore_close(mc);
}

TEST(a_failing_callback_keeps_the_write_and_search_falls_back) {
  struct model m = {.failure = 3};
  memcore_t *mc = NULL;
  CHECK_OK(open_with(scratch_dir("failing"), "bag-of-words-v1", &m, &mc));
  CHECK(fill(mc) == 0);
  char *json = NULL;
  CHECK_OK(memcore_search(mc, STR("metal"), MEMCORE_SEARCH_MODE_SEMANTIC, 3, &json));
  CHECK_CONTAINS(json, "\"mode\":\"text\"");
  CHECK_CONTAINS(json, "failed: it returned 3");
  CHECK(first_hit_is(json, "The renderer reaches the gpu"));
  memcore_string_free(json);
  memcore_close(mc);
}

TEST(a_query_the_callback_refuses_is_a_callback_error) {
  struct model m = {.refuse = "the query"};
  memcore_t *mc = NULL;
  CHECK_OK(open_with(scratch_dir("refusing"), "bag-of-words-v1", &m, &mc));
  CHECK(fill(mc) == 0);
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_search(mc, STR("the query"), MEMCORE_SEARCH_MODE_HYBRID, 3, &json),
               MEMCORE_STATUS_CALLBACK);
  CHECK(json == (char *)0x1);
  CHECK_CONTAINS(memcore_last_error_message(), "it returned 91");
  memcore_close(mc);
}

struct worker {
  memcore_t *mc;
  int index;
  int failures;
};

static void *put_and_search(void *arg) {
  struct worker *w = arg;
  for (int i = 0; i < 3; i++) {
    char content[128], *ref = NULL, *json = NULL;
    snprintf(content, sizeof content, "thread %d note %d about the metal gpu", w->index, i);
    if (memcore_put(w->mc, STR("threads"), STR(content), NULL, 0, &ref) != MEMCORE_STATUS_OK) w->failures++;
    memcore_string_free(ref);
    if (memcore_search(w->mc, STR("metal gpu"), MEMCORE_SEARCH_MODE_HYBRID, 5, &json) != MEMCORE_STATUS_OK ||
        strstr(json, "\"mode\":\"hybrid\"") == NULL)
      w->failures++;
    memcore_string_free(json);
  }
  return NULL;
}

TEST(threads_embed_at_once) {
  struct model m = {0};
  memcore_t *mc = NULL;
  CHECK_OK(open_with(scratch_dir("threads"), "bag-of-words-v1", &m, &mc));
  pthread_t threads[4];
  struct worker workers[4];
  for (int t = 0; t < 4; t++) {
    workers[t] = (struct worker){.mc = mc, .index = t};
    CHECK(pthread_create(&threads[t], NULL, put_and_search, &workers[t]) == 0);
  }
  int failures = 0;
  for (int t = 0; t < 4; t++) {
    pthread_join(threads[t], NULL);
    failures += workers[t].failures;
  }
  CHECK(failures == 0);
  memcore_close(mc);
}

TEST(bad_arguments_write_nothing) {
  struct model m = {0};
  const char *dir = scratch_dir("arguments");
  memcore_t *mc = (memcore_t *)0x1;
  CHECK_STATUS(memcore_open_with_embedder(STR(dir), STR("m"), DIM, NULL, &m, &mc), MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_CONTAINS(memcore_last_error_message(), "`embed` is NULL");
  CHECK_STATUS(memcore_open_with_embedder(STR(dir), NULL, 0, DIM, bag_of_words, &m, &mc),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_open_with_embedder(STR(dir), STR(""), DIM, bag_of_words, &m, &mc),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "needs a model id");
  CHECK_STATUS(memcore_open_with_embedder(STR(dir), STR("m"), 0, bag_of_words, &m, &mc),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_open_with_embedder(STR(dir), STR("m"), (size_t)1 << 40, bag_of_words, &m, &mc),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "it must be 1 to 65536");
  CHECK_STATUS(memcore_open_with_embedder(STR(""), STR("m"), DIM, bag_of_words, &m, &mc),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK(mc == (memcore_t *)0x1);
  CHECK(atomic_load(&m.calls) == 0);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  RUN(semantic_search_ranks_by_the_c_model);
  RUN(given_vectors_are_taken_instead_of_the_model);
  RUN(a_failing_callback_keeps_the_write_and_search_falls_back);
  RUN(a_query_the_callback_refuses_is_a_callback_error);
  RUN(threads_embed_at_once);
  RUN(bad_arguments_write_nothing);
  return harness_end("test_embedder");
}
