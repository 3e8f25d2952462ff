/*
 * Search: full-text, hybrid and semantic modes, and every error path of memcore_search.
 */
#include "harness.h"

static memcore_t *search_store(void) {
  memcore_t *mc = open_store("search");
  if (mc == NULL) return NULL;
  const char *notes[] = {
      "The cat knocks glasses off the kitchen table every morning.",
      "We chose tantivy for full-text search instead of running Elasticsearch.",
      "GPU kernels run faster when small launches are batched together.",
  };
  for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
    char *ref = NULL;
    if (memcore_put(mc, STR("notes"), STR(notes[i]), NULL, 0, &ref) != MEMCORE_STATUS_OK) {
      printf("\n    put failed: %s\n", memcore_last_error_message());
      memcore_close(mc);
      return NULL;
    }
    memcore_string_free(ref);
  }
  return mc;
}

TEST(text_search_finds_the_matching_memory) {
  memcore_t *mc = search_store();
  CHECK(mc != NULL);
  if (mc == NULL) return;
  char *json = NULL;
  CHECK_OK(memcore_search(mc, STR("tantivy elasticsearch"), MEMCORE_SEARCH_MODE_TEXT, 5, &json));
  CHECK_CONTAINS(json, "\"mode\":\"text\"");
  CHECK_CONTAINS(json, "\"title\":\"We chose tantivy");
  CHECK_CONTAINS(json, "\"text_rank\":1");
  memcore_string_free(json);
  memcore_close(mc);
}

TEST(hybrid_search_answers_with_hits_and_warnings) {
  memcore_t *mc = search_store();
  CHECK(mc != NULL);
  if (mc == NULL) return;
  char *json = NULL;
  /* With or without the model (the valgrind run has none) the result is well formed. */
  CHECK_OK(memcore_search(mc, STR("pet breaking glasses"), MEMCORE_SEARCH_MODE_HYBRID, 3, &json));
  CHECK_CONTAINS(json, "\"hits\":[");
  CHECK_CONTAINS(json, "\"warnings\":[");
  CHECK_CONTAINS(json, "\"title\":\"The cat knocks");
  memcore_string_free(json);
  memcore_close(mc);
}

TEST(search_rejects_bad_arguments_and_writes_nothing) {
  memcore_t *mc = search_store();
  CHECK(mc != NULL);
  if (mc == NULL) return;
  char *json = NULL;
  CHECK_STATUS(memcore_search(NULL, STR("x"), MEMCORE_SEARCH_MODE_TEXT, 5, &json),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_search(mc, NULL, 1, MEMCORE_SEARCH_MODE_TEXT, 5, &json),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_search(mc, STR("x"), MEMCORE_SEARCH_MODE_TEXT, 5, NULL),
               MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_STATUS(memcore_search(mc, STR("   "), MEMCORE_SEARCH_MODE_TEXT, 5, &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_search(mc, STR("x"), MEMCORE_SEARCH_MODE_TEXT, 0, &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_search(mc, STR("x"), MEMCORE_SEARCH_MODE_TEXT, 100000, &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_search(mc, STR("x"), 7, 5, &json), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_STATUS(memcore_search(mc, "\xff\xfe", 2, MEMCORE_SEARCH_MODE_TEXT, 5, &json),
               MEMCORE_STATUS_INVALID_UTF8);
  CHECK(json == NULL);
  CHECK_CONTAINS(memcore_last_error_message(), "UTF-8");
  memcore_close(mc);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  RUN(text_search_finds_the_matching_memory);
  RUN(hybrid_search_answers_with_hits_and_warnings);
  RUN(search_rejects_bad_arguments_and_writes_nothing);
  return harness_end("test_search");
}
