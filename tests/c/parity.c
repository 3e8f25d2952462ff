/*
 * The parity suite, C side: runs every case of tests/parity/cases.tsv through memcore_call()
 * on a fresh store and prints one line per case: the result record (JSON), or
 * {"status": "NAME"} when the call failed. tests/parity/compare.py holds the lines to
 * tests/parity/expected.jsonl, as the Rust and Python runs are.
 *
 * Usage: parity CASES.tsv STORE_DIR > results.jsonl
 */
#define _POSIX_C_SOURCE 200809L /* getline */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcore.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s CASES.tsv STORE_DIR\n", argv[0]);
    return 2;
  }
  FILE *cases = fopen(argv[1], "r");
  if (cases == NULL) {
    perror(argv[1]);
    return 2;
  }
  memcore_t *mc = NULL;
  if (memcore_open(argv[2], strlen(argv[2]), &mc) != MEMCORE_STATUS_OK) {
    fprintf(stderr, "%s\n", memcore_last_error_message());
    fclose(cases);
    return 2;
  }
  char *line = NULL;
  size_t capacity = 0;
  ssize_t length;
  int status = 0;
  while ((length = getline(&line, &capacity, cases)) != -1) {
    if (length > 0 && line[length - 1] == '\n') line[--length] = '\0';
    if (length == 0 || line[0] == '#') continue;
    /* OPERATION <tab> REQUEST [<tab> POINTERS] */
    char *tab = strchr(line, '\t');
    if (tab == NULL) {
      fprintf(stderr, "a case without a request: %s\n", line);
      status = 2;
      break;
    }
    const char *operation = line;
    size_t operation_len = (size_t)(tab - line);
    const char *request = tab + 1;
    const char *end = strchr(request, '\t');
    size_t request_len = end ? (size_t)(end - request) : strlen(request);
    char *json = NULL;
    memcore_status st = memcore_call(mc, operation, operation_len, request, request_len, &json);
    if (st == MEMCORE_STATUS_OK) {
      printf("%s\n", json);
    } else {
      printf("{\"status\": \"%s\"}\n", memcore_status_name(st));
    }
    memcore_string_free(json);
  }
  free(line);
  fclose(cases);
  memcore_close(mc);
  return status;
}
