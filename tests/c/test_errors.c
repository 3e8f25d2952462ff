/*
 * Every error path of every function: NULL handles, NULL strings and out-parameters,
 * invalid UTF-8, unknown ids and bad enum values. A failing call must return its status,
 * leave a message naming the bad argument, write no out-parameter and change nothing.
 */
#include "harness.h"

static memcore_t *mc = NULL;

/* A byte that is never UTF-8, and a few subtler invalid sequences. */
#define BAD "\xff"
static const char *const bad_utf8[] = {
    "\xff",                 /* never valid */
    "\xc0\xaf",             /* overlong encoding of '/' */
    "\xed\xa0\x80",         /* a UTF-16 surrogate */
    "\xe2\x82",             /* truncated sequence */
    "ok so far \xf8\x88\x80\x80\x80", /* 5-byte form */
};

/* The sentinel every out-parameter starts as: it must survive every failure. */
#define SENTINEL ((char *)0x5e1)

#define EXPECT(call, status, text)                                   \
  do {                                                               \
    CHECK_STATUS(call, status);                                      \
    CHECK_CONTAINS(memcore_last_error_message(), text);              \
  } while (0)

#define EXPECT_NULL(call, param) EXPECT(call, MEMCORE_STATUS_NULL_PARAMETER, "`" param "` is NULL")
#define EXPECT_UTF8(call, param) \
  EXPECT(call, MEMCORE_STATUS_INVALID_UTF8, "`" param "` is not valid UTF-8")

TEST(open_and_open_scope) {
  memcore_t *h = (memcore_t *)SENTINEL;
  EXPECT_NULL(memcore_open(NULL, 3, &h), "path");
  EXPECT_NULL(memcore_open(STR("/tmp/x"), NULL), "out");
  for (size_t i = 0; i < sizeof bad_utf8 / sizeof bad_utf8[0]; i++) {
    EXPECT_UTF8(memcore_open(STR(bad_utf8[i]), &h), "path");
  }
  EXPECT(memcore_open_scope(99, NULL, 0, &h), MEMCORE_STATUS_INVALID_ARGUMENT, "`scope` is 99");
  EXPECT(memcore_open_scope(MEMCORE_SCOPE_AUTO, NULL, 1, &h), MEMCORE_STATUS_NULL_PARAMETER,
         "`start_dir` is NULL but `start_dir_len` is 1");
  EXPECT_UTF8(memcore_open_scope(MEMCORE_SCOPE_AUTO, STR(BAD), &h), "start_dir");
  EXPECT_NULL(memcore_open_scope(MEMCORE_SCOPE_AUTO, NULL, 0, NULL), "out");
  CHECK(h == (memcore_t *)SENTINEL);
}

TEST(root) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_root(NULL, &out), "memcore");
  EXPECT_NULL(memcore_root(mc, NULL), "out");
  CHECK(out == SENTINEL);
}

TEST(put) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_put(NULL, NULL, 0, STR("x"), NULL, 0, &out), "memcore");
  EXPECT_NULL(memcore_put(mc, NULL, 0, NULL, 0, NULL, 0, &out), "content");
  EXPECT_NULL(memcore_put(mc, NULL, 0, NULL, 5, NULL, 0, &out), "content");
  EXPECT(memcore_put(mc, NULL, 2, STR("x"), NULL, 0, &out), MEMCORE_STATUS_NULL_PARAMETER,
         "`collection` is NULL but `collection_len` is 2");
  EXPECT(memcore_put(mc, NULL, 0, STR("x"), NULL, 2, &out), MEMCORE_STATUS_NULL_PARAMETER,
         "`tags` is NULL but `tags_len` is 2");
  EXPECT_NULL(memcore_put(mc, NULL, 0, STR("# Not stored\n\nx"), NULL, 0, NULL), "out_ref");
  EXPECT_UTF8(memcore_put(mc, STR(BAD), STR("x"), NULL, 0, &out), "collection");
  for (size_t i = 0; i < sizeof bad_utf8 / sizeof bad_utf8[0]; i++) {
    EXPECT_UTF8(memcore_put(mc, NULL, 0, STR(bad_utf8[i]), NULL, 0, &out), "content");
  }
  EXPECT_UTF8(memcore_put(mc, NULL, 0, STR("x"), STR("a," BAD), &out), "tags");
  CHECK(out == SENTINEL);
  /* None of the failed calls stored anything (not even the one with a NULL out_ref). */
  char *listing = NULL;
  CHECK_OK(memcore_list(mc, NULL, 0, &listing));
  CHECK(strcmp(listing, "{\"memories\":[],\"skipped\":[]}") == 0);
  memcore_string_free(listing);
}

TEST(put_json) {
  char *out = SENTINEL;
  const char *record = "{\"content\": \"x\"}";
  EXPECT_NULL(memcore_put_json(NULL, STR(record), MEMCORE_PUT_MODE_UPSERT, &out), "memcore");
  EXPECT_NULL(memcore_put_json(mc, NULL, 0, MEMCORE_PUT_MODE_UPSERT, &out), "record");
  EXPECT_NULL(memcore_put_json(mc, STR(record), MEMCORE_PUT_MODE_UPSERT, NULL), "out_json");
  EXPECT_UTF8(memcore_put_json(mc, STR("{\"content\": \"" BAD "\"}"), MEMCORE_PUT_MODE_UPSERT, &out),
              "record");
  EXPECT(memcore_put_json(mc, STR(record), 7, &out), MEMCORE_STATUS_INVALID_ARGUMENT,
         "`mode` is 7");
  EXPECT(memcore_put_json(mc, STR("{\"content\": }"), MEMCORE_PUT_MODE_UPSERT, &out),
         MEMCORE_STATUS_INVALID_JSON, "line 1 column 13");
  CHECK(out == SENTINEL);
}

TEST(put_markdown) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_put_markdown(NULL, STR("x"), MEMCORE_PUT_MODE_UPSERT, &out), "memcore");
  EXPECT_NULL(memcore_put_markdown(mc, NULL, 0, MEMCORE_PUT_MODE_UPSERT, &out), "markdown");
  EXPECT_NULL(memcore_put_markdown(mc, STR("x"), MEMCORE_PUT_MODE_UPSERT, NULL), "out_json");
  EXPECT_UTF8(memcore_put_markdown(mc, STR("# T\n" BAD), MEMCORE_PUT_MODE_UPSERT, &out), "markdown");
  EXPECT(memcore_put_markdown(mc, STR("x"), 2, &out), MEMCORE_STATUS_INVALID_ARGUMENT, "`mode` is 2");
  EXPECT(memcore_put_markdown(mc, STR(""), MEMCORE_PUT_MODE_UPSERT, &out),
         MEMCORE_STATUS_INVALID_ARGUMENT, "content is empty");
  CHECK(out == SENTINEL);
}

TEST(get_and_render) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_get(NULL, STR("x"), &out), "memcore");
  EXPECT_NULL(memcore_get(mc, NULL, 0, &out), "reference");
  EXPECT_NULL(memcore_get(mc, STR("x"), NULL), "out_json");
  EXPECT_UTF8(memcore_get(mc, STR(BAD), &out), "reference");
  EXPECT(memcore_get(mc, STR(""), &out), MEMCORE_STATUS_INVALID_ARGUMENT, "[VALIDATION]");

  EXPECT_NULL(memcore_render(NULL, STR("x"), MEMCORE_FORMAT_RAW, &out), "memcore");
  EXPECT_NULL(memcore_render(mc, NULL, 0, MEMCORE_FORMAT_RAW, &out), "reference");
  EXPECT_NULL(memcore_render(mc, STR("x"), MEMCORE_FORMAT_RAW, NULL), "out_text");
  EXPECT_UTF8(memcore_render(mc, STR(BAD), MEMCORE_FORMAT_RAW, &out), "reference");
  EXPECT(memcore_render(mc, STR("x"), 0xFFFFFFFFu, &out), MEMCORE_STATUS_INVALID_ARGUMENT,
         "`format` is 4294967295");
  CHECK(out == SENTINEL);
}

TEST(update_json) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_update_json(NULL, STR("x"), STR("{}"), &out), "memcore");
  EXPECT_NULL(memcore_update_json(mc, NULL, 0, STR("{}"), &out), "reference");
  EXPECT_NULL(memcore_update_json(mc, STR("x"), NULL, 0, &out), "change");
  EXPECT_NULL(memcore_update_json(mc, STR("x"), STR("{}"), NULL), "out_json");
  EXPECT_UTF8(memcore_update_json(mc, STR(BAD), STR("{}"), &out), "reference");
  EXPECT_UTF8(memcore_update_json(mc, STR("x"), STR("{\"title\": \"" BAD "\"}"), &out), "change");
  EXPECT(memcore_update_json(mc, STR("x"), STR("{\"title\": 1}"), &out), MEMCORE_STATUS_INVALID_JSON,
         "invalid type: integer `1`, expected a string");
  CHECK(out == SENTINEL);
}

TEST(delete_and_restore) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_delete(NULL, STR("x")), "memcore");
  EXPECT_NULL(memcore_delete(mc, NULL, 0), "reference");
  EXPECT_UTF8(memcore_delete(mc, STR(BAD)), "reference");
  EXPECT_NULL(memcore_restore(NULL, STR("x"), &out), "memcore");
  EXPECT_NULL(memcore_restore(mc, NULL, 0, &out), "reference");
  EXPECT_NULL(memcore_restore(mc, STR("x"), NULL), "out_json");
  EXPECT_UTF8(memcore_restore(mc, STR(BAD), &out), "reference");
  CHECK(out == SENTINEL);
}

TEST(list_and_collections) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_list(NULL, NULL, 0, &out), "memcore");
  EXPECT(memcore_list(mc, NULL, 3, &out), MEMCORE_STATUS_NULL_PARAMETER,
         "`options` is NULL but `options_len` is 3");
  EXPECT_NULL(memcore_list(mc, NULL, 0, NULL), "out_json");
  EXPECT_UTF8(memcore_list(mc, STR("{\"collection\": \"" BAD "\"}"), &out), "options");
  EXPECT_NULL(memcore_collections(NULL, &out), "memcore");
  EXPECT_NULL(memcore_collections(mc, NULL), "out_json");
  CHECK(out == SENTINEL);
}

TEST(versions_and_get_version) {
  char *out = SENTINEL;
  EXPECT_NULL(memcore_versions(NULL, STR("x"), &out), "memcore");
  EXPECT_NULL(memcore_versions(mc, NULL, 0, &out), "reference");
  EXPECT_NULL(memcore_versions(mc, STR("x"), NULL), "out_json");
  EXPECT_UTF8(memcore_versions(mc, STR(BAD), &out), "reference");
  EXPECT_NULL(memcore_get_version(NULL, STR("x"), STR("1"), &out), "memcore");
  EXPECT_NULL(memcore_get_version(mc, NULL, 0, STR("1"), &out), "reference");
  EXPECT_NULL(memcore_get_version(mc, STR("x"), NULL, 0, &out), "rev");
  EXPECT_NULL(memcore_get_version(mc, STR("x"), STR("1"), NULL), "out_json");
  EXPECT_UTF8(memcore_get_version(mc, STR(BAD), STR("1"), &out), "reference");
  EXPECT_UTF8(memcore_get_version(mc, STR("x"), STR(BAD), &out), "rev");
  CHECK(out == SENTINEL);
}

TEST(unknown_ids_are_not_found_everywhere) {
  char *out = SENTINEL;
  static const char *const refs[] = {"ghost", "memory/ghost", "elsewhere/ghost"};
  for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
    const char *ref = refs[i];
    EXPECT(memcore_get(mc, STR(ref), &out), MEMCORE_STATUS_NOT_FOUND, "ghost");
    EXPECT(memcore_render(mc, STR(ref), MEMCORE_FORMAT_CONTEXT, &out), MEMCORE_STATUS_NOT_FOUND,
           "[NOT_FOUND]");
    EXPECT(memcore_update_json(mc, STR(ref), STR("{\"title\": \"t\"}"), &out),
           MEMCORE_STATUS_NOT_FOUND, "[NOT_FOUND]");
    EXPECT(memcore_delete(mc, STR(ref)), MEMCORE_STATUS_NOT_FOUND, "[NOT_FOUND]");
    EXPECT(memcore_restore(mc, STR(ref), &out), MEMCORE_STATUS_NOT_FOUND, "[NOT_FOUND]");
    EXPECT(memcore_versions(mc, STR(ref), &out), MEMCORE_STATUS_NOT_FOUND, "[NOT_FOUND]");
    EXPECT(memcore_get_version(mc, STR(ref), STR("1"), &out), MEMCORE_STATUS_NOT_FOUND,
           "[NOT_FOUND]");
  }
  CHECK(out == SENTINEL);
}

TEST(every_message_has_a_recovery_hint) {
  char *out = SENTINEL;
  const char *const refs[] = {"../x", "ghost", BAD};
  for (size_t i = 0; i < 3; i++) {
    CHECK(memcore_get(mc, STR(refs[i]), &out) != MEMCORE_STATUS_OK);
    const char *message = memcore_last_error_message();
    CHECK(message[0] == '[');
    CHECK_CONTAINS(message, "] ");
    CHECK_CONTAINS(message, "\n-> ");
    CHECK(strlen(strstr(message, "\n-> ")) > 5);
  }
  CHECK(memcore_get(NULL, STR("x"), &out) == MEMCORE_STATUS_NULL_PARAMETER);
  CHECK_CONTAINS(memcore_last_error_message(), "\n-> pass a valid pointer as `memcore`");
  CHECK(out == SENTINEL);
}

int main(int argc, char **argv) {
  harness_begin(argc, argv);
  mc = open_store("errors");
  if (mc == NULL) return 1;
  RUN(open_and_open_scope);
  RUN(root);
  RUN(put);
  RUN(put_json);
  RUN(put_markdown);
  RUN(get_and_render);
  RUN(update_json);
  RUN(delete_and_restore);
  RUN(list_and_collections);
  RUN(versions_and_get_version);
  RUN(unknown_ids_are_not_found_everywhere);
  RUN(every_message_has_a_recovery_hint);
  memcore_close(mc);
  return harness_end("test_errors");
}
