/*
 * A tiny test harness for memcore's C tests: TEST() functions, CHECK macros that report
 * the file, line, status name and last-error message, and a summary line that
 * scripts/test-c adds up ("<program>: N passed, M failed").
 *
 * Every test program takes one argument, a fresh scratch directory it may fill; the
 * script removes it afterwards.
 */
#ifndef MEMCORE_TEST_HARNESS_H
#define MEMCORE_TEST_HARNESS_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv, mkdir */
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "memcore.h"

static int harness_passed = 0;
static int harness_failed = 0;
static int harness_current_failed = 0;
static const char *harness_scratch = NULL;
static int harness_serial = 0;

static inline void harness_fail(const char *file, int line, const char *what) {
  if (!harness_current_failed) printf("\n");
  printf("    %s:%d: check failed: %s\n", file, line, what);
  harness_current_failed = 1;
}

/* Fails the current test (and returns from it) unless `cond` holds. */
#define CHECK(cond)                                      \
  do {                                                   \
    if (!(cond)) {                                       \
      harness_fail(__FILE__, __LINE__, #cond);           \
      return;                                            \
    }                                                    \
  } while (0)

/* Fails the current test unless `expr` returns `expected`; shows the last error. */
#define CHECK_STATUS(expr, expected)                                                   \
  do {                                                                                 \
    memcore_status harness_st_ = (expr);                                               \
    if (harness_st_ != (memcore_status)(expected)) {                                   \
      char harness_buf_[2048];                                                         \
      snprintf(harness_buf_, sizeof harness_buf_, "%s returned %s, expected %s\n%s",  \
               #expr, memcore_status_name(harness_st_), memcore_status_name(expected), \
               memcore_last_error_message());                                          \
      harness_fail(__FILE__, __LINE__, harness_buf_);                                  \
      return;                                                                          \
    }                                                                                  \
  } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, MEMCORE_STATUS_OK)

/* Fails unless `haystack` contains `needle` (both C strings). */
#define CHECK_CONTAINS(haystack, needle)                                                \
  do {                                                                                  \
    const char *harness_h_ = (haystack);                                                \
    if (harness_h_ == NULL || strstr(harness_h_, (needle)) == NULL) {                   \
      char harness_buf_[4096];                                                          \
      snprintf(harness_buf_, sizeof harness_buf_, "%s does not contain %s\n    it is: %.3000s", \
               #haystack, #needle, harness_h_ ? harness_h_ : "(null)");                 \
      harness_fail(__FILE__, __LINE__, harness_buf_);                                   \
      return;                                                                           \
    }                                                                                   \
  } while (0)

/* A C string as the pointer + length pair memcore takes: memcore_get(mc, STR(ref), &out). */
#define STR(s) (s), strlen(s)

#define TEST(name) static void name(void)

#define RUN(name)                                 \
  do {                                            \
    harness_current_failed = 0;                   \
    printf("  %-64s", #name);                     \
    fflush(stdout);                               \
    name();                                       \
    if (harness_current_failed) {                 \
      harness_failed++;                           \
      printf("    FAILED\n");                     \
    } else {                                      \
      harness_passed++;                           \
      printf("ok\n");                             \
    }                                             \
  } while (0)

/* A new, empty directory inside the scratch directory; the returned path is static
 * storage reused by the next call, so copy it if needed. */
static inline const char *scratch_dir(const char *label) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s-%d", harness_scratch, label, ++harness_serial);
  if (mkdir(path, 0700) != 0) {
    fprintf(stderr, "mkdir %s: %s\n", path, strerror(errno));
    exit(2);
  }
  return path;
}

/* Creates `path` and its missing parents, like `mkdir -p`. */
static inline void make_dirs(const char *path) {
  char buf[4096];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *p = buf + 1; *p; p++) {
    if (*p == '/') {
      *p = '\0';
      mkdir(buf, 0700);
      *p = '/';
    }
  }
  mkdir(buf, 0700);
}

/* Writes `text` to `dir/name` (creating `dir` if needed); returns 0 on success. */
static inline int write_file(const char *dir, const char *name, const char *text) {
  char path[4096];
  make_dirs(dir);
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (f == NULL) return -1;
  fputs(text, f);
  return fclose(f);
}

/* Opens a new store in a new scratch directory; NULL on failure (reported). */
static inline memcore_t *open_store(const char *label) {
  const char *path = scratch_dir(label);
  memcore_t *mc = NULL;
  memcore_status st = memcore_open(path, strlen(path), &mc);
  if (st != MEMCORE_STATUS_OK) {
    printf("\n    memcore_open(%s) failed: %s\n%s\n", path, memcore_status_name(st),
           memcore_last_error_message());
    return NULL;
  }
  return mc;
}

/* Runs `operation` on `request` through memcore_call on `mc`, expecting success: the result
 * JSON (the caller frees it), or NULL after printing what failed. */
static inline char *call_ok(memcore_t *mc, const char *operation, const char *request) {
  char *json = NULL;
  memcore_status st = memcore_call(mc, operation, strlen(operation), request, strlen(request), &json);
  if (st != MEMCORE_STATUS_OK) {
    printf("\n    %s %s failed: %s\n    %s\n", operation, request, memcore_status_name(st),
           memcore_last_error_message());
    return NULL;
  }
  return json;
}

/* Counts the occurrences of `needle` in `haystack`. */
static inline int count_of(const char *haystack, const char *needle) {
  int n = 0;
  size_t len = strlen(needle);
  for (const char *p = strstr(haystack, needle); p != NULL; p = strstr(p + len, needle)) n++;
  return n;
}

/* Starts a test program: checks the argument and prints the program's name. */
static inline void harness_begin(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s SCRATCH_DIR\n", argv[0]);
    exit(2);
  }
  harness_scratch = argv[1];
  printf("%s\n", argv[0]);
}

/* Ends a test program: prints the summary line and returns the exit status. */
static inline int harness_end(const char *program) {
  printf("%s: %d passed, %d failed\n", program, harness_passed, harness_failed);
  return harness_failed == 0 ? 0 : 1;
}

#endif /* MEMCORE_TEST_HARNESS_H */
