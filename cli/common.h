/* Helpers shared by the clb commands: usage, text formatting, device fields. */
#ifndef CLB_CLI_COMMON_H
#define CLB_CLI_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "clbroadcast.h"

/* Exit status of bad arguments and of a selector that matches no device. */
#define EXIT_USAGE 2

extern const char usage_text[];

/* Prints "clb: <message>", a blank line and the usage to stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...);

/* Returned by value so several can appear in one printf. */
typedef struct text {
    char s[512];
} text;

text shape_text(int ndim, const int64_t *shape);          /* "(4, 3)", "(3,)", "()" */
text tensor_shape_text(const clb_tensor *t);
text tensor_strides_text(const clb_tensor *t);
text count_text(uint64_t v);                              /* "1,644,167,168" */
text mem_text(uint64_t bytes);                            /* "3.9 GiB" */
text time_text(double seconds);                           /* "12.3 us", "4.56 ms", "1.20 s" */
const char *type_name(clb_device_type t);                 /* "host", "cpu", "gpu", ... */

/* Drivers fill these fields; a missing terminator must not run off the struct. */
void terminate_strings(clb_device_info *d);

/* Lists the selectors that exist (after an unknown one). */
void print_selectors(FILE *f);

/* clb_context_create(selector) for a command: 0, or the exit status after
   printing "clb: [WHO: ]STATUS: message" (and the selectors that exist when
   none matched: EXIT_USAGE; else 1) with *ctx NULL. who may be NULL. */
int open_context(const char *who, const char *selector, clb_context **ctx);

/* Writes s as a JSON string literal, quotes included. */
void json_string(FILE *f, const char *s);

/* The command entry points; argv holds the arguments after the command name. */
int cmd_devices(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_warmup(int argc, char **argv);

#endif /* CLB_CLI_COMMON_H */
