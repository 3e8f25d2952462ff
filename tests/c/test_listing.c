/*
 * Listing, collections and version history, including damaged files and stores without
 * history.
 */
#include "harness.h"

/* Stores `content` in `collection` with `tags` (may be NULL); 0 on failure. */
static int put(memcore_t *mc, const char *collection, const char *content, const char *tags) {
  char *ref = NULL;
  memcore_status st = memcore_put(mc, STR(collection), STR(content), tags, tags ? strlen(tags) : 0,
                                  &ref);
  memcore_string_free(ref);
  if (st != MEMCORE_STATUS_OK) printf("\n    put failed: %s\n", memcore_last_error_message());
  return st == MEMCORE_STATUS_OK;
}

/* A store with five memories in two collections. */
static memcore_t *sample_store(void) {
  memcore_t *mc = open_store("listing");
  if (mc == NULL) return NULL;
  int ok = put(mc, "beta", "# Echo\n\ne", "x") && put(mc, "alpha", "# Charlie\n\nc", "x,y") &&
           put(mc, "alpha", "# Alpha\n\na", "y") && put(mc, "beta", "# Delta\n\nd", NULL) &&
           put(mc, "alpha", "# Bravo\n\nb", "x");
  if (!ok) {
    memcore_close(mc);
    return NULL;
  }
  return mc;
}

/* The refs of a list result, in order, joined by spaces (static storage). */
static const char *refs_of(const char *listing) {
  static char out[4096];
  out[0] = '\0';
  const char *p = listing;
  while ((p = strstr(p, "\"ref\":\"")) != NULL) {
    p += strlen("\"ref\":\"");
    const char *end = strchr(p, '"');
    if (end == NULL) break;
    if (out[0] != '\0') strncat(out, " ", sizeof out - strlen(out) - 1);
    strncat(out, p, (size_t)(end - p) < sizeof out - strlen(out) - 1 ? (size_t)(end - p)
                                                                     : sizeof out - strlen(out) - 1);
    p = end;
  }
  return out;
}

/* Lists with `options` (NULL for none) and compares the refs with `expected`. */
#define CHECK_LIST(mc, options, expected)                                                   \
  do {                                                                                      \
    char *listing_ = NULL;                                                                  \
    const char *options_ = (options);                                                       \
    CHECK_OK(memcore_list((mc), options_, options_ ? strlen(options_) : 0, &listing_));     \
    char refs_[4096];                                                                       \
    snprintf(refs_, sizeof refs_, "%s", refs_of(listing_));                                 \
    memcore_string_free(listing_);                                                          \
    if (strcmp(refs_, (expected)) != 0) {                                                   \
      char buf_[8192];                                                                      \
      snprintf(buf_, sizeof buf_, "list %s gave [%s], expected [%s]", options_ ? options_ : "NULL", \
               refs_, (expected));                                                          \
      harness_fail(__FILE__, __LINE__, buf_);                                               \
      return;                                                                               \
    }                                                                                       \
  } while (0)

TEST(an_empty_store_lists_nothing) {
  memcore_t *mc = open_store("empty");
  CHECK(mc != NULL);
  char *json = NULL;
  CHECK_OK(memcore_list(mc, NULL, 0, &json));
  CHECK(strcmp(json, "{\"memories\":[],\"skipped\":[]}") == 0);
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_collections(mc, &json));
  CHECK(strcmp(json, "[]") == 0);
  memcore_string_free(json);
  memcore_close(mc);
}

TEST(list_returns_summaries_sorted_by_collection_then_id) {
  memcore_t *mc = sample_store();
  CHECK(mc != NULL);
  char *json = NULL;
  CHECK_OK(memcore_list(mc, NULL, 0, &json));
  const char *first =
      "{\"memories\":[{\"ref\":\"alpha/alpha\",\"id\":\"alpha\",\"collection\":\"alpha\","
      "\"title\":\"Alpha\",\"status\":\"active\",\"tags\":[\"y\"],\"created_at\":\"";
  CHECK(strncmp(json, first, strlen(first)) == 0);
  CHECK_CONTAINS(json, "\"version\":1}");
  CHECK(strstr(json, "\"content\"") == NULL); /* summaries carry no content */
  CHECK(strcmp(json + strlen(json) - strlen("],\"skipped\":[]}"), "],\"skipped\":[]}") == 0);
  CHECK(count_of(json, "\"ref\":") == 5);
  memcore_string_free(json);
  CHECK_LIST(mc, NULL, "alpha/alpha alpha/bravo alpha/charlie beta/delta beta/echo");
  CHECK_LIST(mc, "{}", "alpha/alpha alpha/bravo alpha/charlie beta/delta beta/echo");
  memcore_close(mc);
}

TEST(list_options_select_filter_and_page) {
  memcore_t *mc = sample_store();
  CHECK(mc != NULL);
  CHECK_LIST(mc, "{\"collection\": \"beta\"}", "beta/delta beta/echo");
  CHECK_LIST(mc, "{\"collection\": \"gamma\"}", "");
  CHECK_LIST(mc, "{\"filters\": [\"tags=x\"]}", "alpha/bravo alpha/charlie beta/echo");
  CHECK_LIST(mc, "{\"filters\": [\"tags=x\", \"tags=y\"]}", "alpha/charlie");
  CHECK_LIST(mc, "{\"filters\": [\"tags=y,z\"]}", "alpha/alpha alpha/charlie");
  CHECK_LIST(mc, "{\"filters\": [\"tags=x\"], \"collection\": \"alpha\"}", "alpha/bravo alpha/charlie");
  CHECK_LIST(mc, "{\"offset\": 1, \"limit\": 2}", "alpha/bravo alpha/charlie");
  CHECK_LIST(mc, "{\"offset\": 4}", "beta/echo");
  CHECK_LIST(mc, "{\"offset\": 10}", "");
  CHECK_LIST(mc, "{\"limit\": 1}", "alpha/alpha");
  CHECK_LIST(mc, "{\"limit\": 0}", "");
  CHECK_LIST(mc, "{\"collection\": null, \"filters\": null, \"offset\": null, \"limit\": null}",
             "alpha/alpha alpha/bravo alpha/charlie beta/delta beta/echo");
  memcore_close(mc);
}

TEST(list_rejects_bad_options) {
  memcore_t *mc = open_store("bad-options");
  CHECK(mc != NULL);
  static const struct {
    const char *options;
    memcore_status status;
    const char *message;
  } cases[] = {
      {"{", MEMCORE_STATUS_INVALID_JSON, "`options` is not JSON"},
      {"[]", MEMCORE_STATUS_INVALID_JSON, "the `list` request is an array, not an object"},
      {"null", MEMCORE_STATUS_INVALID_JSON, "the `list` request is null, not an object"},
      {"{\"colection\": \"a\"}", MEMCORE_STATUS_INVALID_JSON, "unknown field `colection`"},
      {"{\"filters\": 5}", MEMCORE_STATUS_INVALID_JSON, "at `filters`: invalid type: integer `5`"},
      {"{\"limit\": -1}", MEMCORE_STATUS_INVALID_ARGUMENT, "invalid value: integer `-1`"},
      {"{\"collection\": \"Not Valid\"}", MEMCORE_STATUS_INVALID_ARGUMENT, "[VALIDATION]"},
      {"{\"filters\": [\"no-equals-sign\"]}", MEMCORE_STATUS_INVALID_ARGUMENT, "no '='"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *json = (char *)0x1;
    CHECK_STATUS(memcore_list(mc, STR(cases[i].options), &json), cases[i].status);
    CHECK_CONTAINS(memcore_last_error_message(), cases[i].message);
    CHECK(json == (char *)0x1);
  }
  memcore_close(mc);
}

TEST(collections_are_sorted_names) {
  memcore_t *mc = sample_store();
  CHECK(mc != NULL);
  CHECK(put(mc, "aardvark", "# Zed\n\nz", NULL));
  char *json = NULL;
  CHECK_OK(memcore_collections(mc, &json));
  CHECK(strcmp(json, "[\"aardvark\",\"alpha\",\"beta\"]") == 0);
  memcore_string_free(json);
  memcore_close(mc);
}

TEST(versions_list_the_history_and_get_version_reads_it) {
  memcore_t *mc = open_store("history");
  CHECK(mc != NULL);
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, STR("notes"), STR("# Plan\n\nfirst draft"), NULL, 0, &ref));
  char *json = NULL;
  CHECK_OK(memcore_update_json(mc, STR(ref), STR("{\"content\": \"# Plan\\n\\nsecond draft\"}"),
                               &json));
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_update_json(mc, STR(ref), STR("{\"content\": \"# Plan\\n\\nfinal\"}"), &json));
  memcore_string_free(json);

  json = NULL;
  CHECK_OK(memcore_versions(mc, STR(ref), &json));
  CHECK(json[0] == '[');
  CHECK(count_of(json, "\"rev\":") == 3);
  CHECK_CONTAINS(json, "{\"rev\":\"1\",\"version\":1,\"timestamp\":\"");
  CHECK_CONTAINS(json, "{\"rev\":\"3\",\"version\":3,");
  CHECK_CONTAINS(json, "\"current\":true}]");
  CHECK(count_of(json, "\"current\":false") == 2);
  memcore_string_free(json);

  json = NULL;
  CHECK_OK(memcore_get_version(mc, STR(ref), STR("1"), &json));
  CHECK_CONTAINS(json, "first draft");
  CHECK_CONTAINS(json, "\"version\":1");
  CHECK_CONTAINS(json, "\"ref\":\"notes/plan\"");
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_get_version(mc, STR("plan"), STR("v2"), &json));
  CHECK_CONTAINS(json, "second draft");
  memcore_string_free(json);
  json = NULL;
  CHECK_OK(memcore_get_version(mc, STR(ref), STR("3"), &json));
  CHECK_CONTAINS(json, "final");
  memcore_string_free(json);

  json = (char *)0x1;
  CHECK_STATUS(memcore_get_version(mc, STR(ref), STR("9"), &json), MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_get_version(mc, STR(ref), STR("latest"), &json),
               MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(memcore_last_error_message(), "invalid version \"latest\"");
  CHECK_STATUS(memcore_get_version(mc, STR("no-such"), STR("1"), &json), MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_versions(mc, STR("no-such"), &json), MEMCORE_STATUS_NOT_FOUND);
  CHECK_STATUS(memcore_versions(mc, STR("Bad Ref"), &json), MEMCORE_STATUS_INVALID_ARGUMENT);
  CHECK(json == (char *)0x1);
  memcore_string_free(ref);
  memcore_close(mc);
}

TEST(history_is_unsupported_when_versioning_is_off) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", scratch_dir("no-history"));
  CHECK(write_file(dir, "config.yaml", "versioning: off\n") == 0);
  memcore_t *mc = NULL;
  CHECK_OK(memcore_open(STR(dir), &mc));
  char *ref = NULL;
  CHECK_OK(memcore_put(mc, NULL, 0, STR("# Flat\n\nno history"), NULL, 0, &ref));
  char *json = (char *)0x1;
  CHECK_STATUS(memcore_versions(mc, STR(ref), &json), MEMCORE_STATUS_UNSUPPORTED);
  CHECK_CONTAINS(memcore_last_error_message(), "[UNSUPPORTED] versions is not supported");
  CHECK_CONTAINS(memcore_last_error_message(), "versioning: auto");
  CHECK_STATUS(memcore_get_version(mc, STR(ref), STR("1"), &json), MEMCORE_STATUS_UNSUPPORTED);
  CHECK(json == (char *)0x1);
  memcore_string_free(ref);
  memcore_close(mc);
}

TEST(a_damaged_file_fails_its_reads_and_is_skipped_by_list) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", scratch_dir("damaged"));
  memcore_t *mc = NULL;
  CHECK_OK(memcore_open(STR(dir), &mc));
  CHECK(put(mc, "memory", "# Healthy\n\nfine", NULL));
  char collection_dir[4200];
  snprintf(collection_dir, sizeof collection_dir, "%s/memory", dir);
  CHECK(write_file(collection_dir, "broken.md", "---\ntags: [unclosed\n---\nbody\n") == 0);
  CHECK(write_file(collection_dir, "binary.md", "---\ntitle: x\n---\n\xff\xfe not utf-8\n") == 0);

  char *json = (char *)0x1;
  CHECK_STATUS(memcore_get(mc, STR("broken"), &json), MEMCORE_STATUS_CORRUPTED);
  CHECK_CONTAINS(memcore_last_error_message(), "[PARSE] ");
  CHECK_CONTAINS(memcore_last_error_message(), "memory/broken.md:");
  CHECK_STATUS(memcore_render(mc, STR("memory/broken"), MEMCORE_FORMAT_CONTEXT, &json),
               MEMCORE_STATUS_CORRUPTED);
  CHECK_STATUS(memcore_get(mc, STR("binary"), &json), MEMCORE_STATUS_CORRUPTED);
  CHECK_CONTAINS(memcore_last_error_message(), "binary.md");
  CHECK(json == (char *)0x1);

  json = NULL;
  CHECK_OK(memcore_list(mc, NULL, 0, &json));
  CHECK(strcmp(refs_of(json), "memory/healthy") == 0);
  CHECK_CONTAINS(json, "\"skipped\":[{\"category\":\"PARSE\",\"message\":\"");
  CHECK(count_of(json, "\"category\":\"PARSE\"") == 2);
  CHECK_CONTAINS(json, "\"line\":");
  CHECK_CONTAINS(json, "broken.md");
  CHECK_CONTAINS(json, "\"recovery\":\"");
  memcore_string_free(json);
  memcore_close(mc);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  RUN(an_empty_store_lists_nothing);
  RUN(list_returns_summaries_sorted_by_collection_then_id);
  RUN(list_options_select_filter_and_page);
  RUN(list_rejects_bad_options);
  RUN(collections_are_sorted_names);
  RUN(versions_list_the_history_and_get_version_reads_it);
  RUN(history_is_unsupported_when_versioning_is_off);
  RUN(a_damaged_file_fails_its_reads_and_is_skipped_by_list);
  return harness_end("test_listing");
}
