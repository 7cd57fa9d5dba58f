/* Reading `clb bench --json` files back for --compare (see results.h), with
   json-c: the fields a comparison needs, checked against the schema's name and
   version (docs/bench-schema.md); the verdict on two rows. */
#include "results.h"

#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CLB_CLI_HAVE_JSONC
#include <json-c/json.h>

static json_object *field(json_object *o, const char *key)
{
    json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void copy_string(char *dst, size_t cap, json_object *o, const char *key)
{
    json_object *v = field(o, key);
    snprintf(dst, cap, "%s", v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "");
}

/* A number, or -1 for null or absent. */
static double number(json_object *o, const char *key)
{
    json_object *v = field(o, key);
    if (!v || !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int))) return -1;
    return json_object_get_double(v);
}

static int load_device(json_object *d, cmp_device *out, char *why, size_t cap)
{
    copy_string(out->selector, sizeof out->selector, d, "selector");
    copy_string(out->name, sizeof out->name, d, "name");
    copy_string(out->platform, sizeof out->platform, d, "platform");
    copy_string(out->driver, sizeof out->driver, d, "driver_version");
    json_object *results = field(d, "results");
    if (!results || !json_object_is_type(results, json_type_array)) {
        snprintf(why, cap, "device '%s' has no \"results\" array", out->selector);
        return 1;
    }
    out->nrows = (int)json_object_array_length(results);
    out->rows = calloc((size_t)(out->nrows ? out->nrows : 1), sizeof *out->rows);
    if (!out->rows) {
        snprintf(why, cap, "out of memory");
        return 1;
    }
    for (int i = 0; i < out->nrows; i++) {
        json_object *r = json_object_array_get_idx(results, (size_t)i);
        cmp_row *row = &out->rows[i];
        copy_string(row->pattern, sizeof row->pattern, r, "pattern");
        copy_string(row->title, sizeof row->title, r, "title");
        copy_string(row->shapes, sizeof row->shapes, r, "shapes");
        copy_string(row->peak, sizeof row->peak, r, "peak");
        copy_string(row->status, sizeof row->status, r, "status");
        if (!row->pattern[0]) {
            snprintf(why, cap, "device '%s', result %d has no \"pattern\"", out->selector, i);
            return 1;
        }
        row->median_s = number(r, "median_s");
        row->min_s = number(r, "min_s");
        row->max_s = number(r, "max_s");
        row->other_load = number(r, "other_load");
        row->runs = (int)number(r, "runs");
        row->timed = row->median_s > 0 && row->min_s > 0 && row->max_s >= row->min_s &&
                     (!strcmp(row->status, "ok") || !strcmp(row->status, "wrong"));
    }
    return 0;
}

int cmp_run_load(const char *path, cmp_run *run, char *why, size_t cap)
{
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "%s", path);
    json_object *doc = json_object_from_file(path);
    if (!doc) {
        char err[256];
        const char *last = json_util_get_last_err();
        snprintf(err, sizeof err, "%s", last ? last : "unknown error");
        for (size_t n = strlen(err); n > 0 && (err[n - 1] == '\n' || err[n - 1] == ' '); n--) err[n - 1] = '\0';
        snprintf(why, cap, "%s: not readable as JSON (%s)", path, err);
        return 1;
    }
    int rc = 1;
    json_object *schema = field(doc, "schema");
    double version = number(doc, "schema_version");
    json_object *devs = field(doc, "devices");
    if (!schema || strcmp(json_object_get_string(schema), "clb-bench")) {
        snprintf(why, cap, "%s: not a clb bench results file (no \"schema\": \"clb-bench\"; files of "
                           "clbroadcast before schema version 2 cannot be compared: rerun clb bench)", path);
    } else if ((int)version != BENCH_SCHEMA_VERSION) {
        snprintf(why, cap, "%s: schema version %g, this clb reads version %d", path, version,
                 BENCH_SCHEMA_VERSION);
    } else if (!devs || !json_object_is_type(devs, json_type_array)) {
        snprintf(why, cap, "%s: no \"devices\" array", path);
    } else {
        copy_string(run->library_version, sizeof run->library_version, doc, "library_version");
        copy_string(run->timestamp, sizeof run->timestamp, doc, "timestamp");
        copy_string(run->machine, sizeof run->machine, doc, "machine");
        json_object *quick = field(doc, "quick");
        run->quick = quick && json_object_get_boolean(quick);
        run->ndev = (int)json_object_array_length(devs);
        run->devs = calloc((size_t)(run->ndev ? run->ndev : 1), sizeof *run->devs);
        rc = run->devs ? 0 : 1;
        if (!run->devs) snprintf(why, cap, "out of memory");
        for (int i = 0; i < run->ndev && !rc; i++) {
            char inner[256] = "";
            if (load_device(json_object_array_get_idx(devs, (size_t)i), &run->devs[i], inner, sizeof inner)) {
                snprintf(why, cap, "%s: %s", path, inner);
                rc = 1;
            }
        }
    }
    json_object_put(doc);
    if (rc) cmp_run_free(run);
    return rc;
}

#else /* built without json-c: nothing can be read back */

int cmp_run_load(const char *path, cmp_run *run, char *why, size_t cap)
{
    memset(run, 0, sizeof *run);
    snprintf(why, cap, "%s: this clb was built without json-c (Debian: libjson-c-dev), which "
                       "--compare and --baseline need to read results files", path);
    return 1;
}
#endif

void cmp_run_free(cmp_run *run)
{
    for (int i = 0; i < run->ndev && run->devs; i++) free(run->devs[i].rows);
    free(run->devs);
    run->devs = NULL;
    run->ndev = 0;
}

cmp_verdict cmp_judge(const cmp_row *a, const cmp_row *b)
{
    if (b->min_s > a->max_s) return CMP_SLOWER;
    if (b->max_s < a->min_s) return CMP_FASTER;
    return CMP_WITHIN_NOISE;
}

const cmp_row *cmp_find_row(const cmp_device *d, const char *pattern)
{
    for (int i = 0; i < d->nrows; i++)
        if (!strcmp(d->rows[i].pattern, pattern)) return &d->rows[i];
    return NULL;
}
