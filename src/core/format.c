/* numpy.array2string's text (see format.h), after numpy/core/arrayprint.py:
 * FloatingFormat.fillFormat / __call__ (floatmode "maxprec"), IntegerFormat,
 * BoolFormat and _formatArray with _extendLine. Float digits are the shortest
 * that read back as the same value of the element's own dtype (float16,
 * float32 or float64), as NumPy's Dragon4 gives them, cut to 8 fractional
 * digits by correct rounding. */
#include "format.h"

#include "dtype.h"
#include "half.h"
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every snprintf below writes into a buffer sized for the longest element. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define PRECISION 8
#define LINE_WIDTH 75

/* ---- a growing string --------------------------------------------------------- */

typedef struct sbuf {
    char *s;
    size_t len, cap;
    bool failed;
} sbuf;

static void put_n(sbuf *b, const char *s, size_t n)
{
    if (b->failed) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void put(sbuf *b, const char *s)
{
    put_n(b, s, strlen(s));
}

static void put_spaces(sbuf *b, int n)
{
    for (int i = 0; i < n; i++) put_n(b, " ", 1);
}

/* ---- values ---------------------------------------------------------------------- */

static double value_f(const clb__fmt_values *v, int64_t k)
{
    const unsigned char *p = (const unsigned char *)v->kept + (size_t)k * clb_dtype_size(v->dtype);
    if (v->dtype == CLB_FLOAT16) {
        uint16_t h;
        memcpy(&h, p, 2);
        return clb__half_to_float(h);
    }
    if (v->dtype == CLB_FLOAT32) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

/* Integers and bool as int64 (unsigned as their uint64 bits, see is_unsigned). */
static uint64_t value_bits(const clb__fmt_values *v, int64_t k)
{
    size_t size = clb_dtype_size(v->dtype);
    const unsigned char *p = (const unsigned char *)v->kept + (size_t)k * size;
    uint64_t u = 0;
    for (size_t b = 0; b < size; b++) u |= (uint64_t)p[b] << (8 * b);
    if (clb__dtype_is_signed(v->dtype) && size < 8 && (u >> (8 * size - 1)) & 1)
        u |= ~UINT64_C(0) << (8 * size); /* sign-extend */
    return u;
}

/* ---- shortest digits ------------------------------------------------------------- */

/* Whether the decimal text s reads back as x in dtype t. */
static bool reads_back(const char *s, double x, clb_dtype t)
{
    if (t == CLB_FLOAT32) return strtof(s, NULL) == (float)x;
    if (t == CLB_FLOAT16) return clb__half_from_double(strtod(s, NULL)) == clb__half_from_double(x);
    return strtod(s, NULL) == x;
}

/* |x| (finite, non-zero) as digits d[0..n) with value 0.d * 10^(e+1), i.e.
   d[0].d[1..] * 10^e: the fewest that read back in t, at most `cap` after the
   point in positional (fractional) or scientific form. */
typedef struct digits {
    char d[40];
    int n, e;
} digits;

static void sci_digits(double ax, int p, digits *g)
{
    char s[64];
    snprintf(s, sizeof s, "%.*e", p - 1, ax);
    g->n = 0;
    const char *c = s;
    for (; *c && *c != 'e'; c++)
        if (*c >= '0' && *c <= '9') g->d[g->n++] = *c;
    g->e = atoi(c + 1);
    while (g->n > 1 && g->d[g->n - 1] == '0') g->n--; /* trailing zeros carry nothing */
}

static void shortest(double ax, clb_dtype t, digits *g)
{
    if (ax == 0) {
        g->d[0] = '0', g->n = 1, g->e = 0;
        return;
    }
    for (int p = 1; p <= 17; p++) {
        char s[64];
        snprintf(s, sizeof s, "%.*e", p - 1, ax);
        if (reads_back(s, ax, t) || p == 17) {
            sci_digits(ax, p, g);
            return;
        }
    }
}

/* The digits of |x| cut to `cap` fractional digits (positional: after the
   point; scientific: after the first digit), by correct rounding when the
   shortest form is longer. */
static void capped(double ax, clb_dtype t, bool scientific, int cap, digits *g)
{
    shortest(ax, t, g);
    int frac = scientific ? g->n - 1 : g->n - 1 - g->e;
    if (frac <= cap) return;
    if (scientific) {
        sci_digits(ax, cap + 1, g);
        return;
    }
    char s[400];
    snprintf(s, sizeof s, "%.*f", cap, ax);
    /* back to digits and exponent: the first non-zero digit leads */
    int n = 0, e = 0, point = -1, lead = -1, pos = 0;
    for (const char *c = s; *c; c++) {
        if (*c == '.') {
            point = pos;
            continue;
        }
        if (lead < 0 && *c == '0') {
            pos++;
            continue;
        }
        if (lead < 0) lead = pos;
        if (n < (int)sizeof g->d) g->d[n++] = *c;
        pos++;
    }
    if (point < 0) point = pos;
    if (lead < 0) { /* rounded to zero */
        g->d[0] = '0', g->n = 1, g->e = 0;
        return;
    }
    e = point - lead - 1;
    while (n > 1 && g->d[n - 1] == '0') n--;
    g->n = n;
    g->e = e;
}

/* ---- the element formats ------------------------------------------------------ */

typedef struct fmt {
    int kind; /* 0 bool, 1 signed, 2 unsigned, 3 float */
    bool zero_d;
    int width;                   /* integers */
    bool exp_format;             /* floats */
    int precision, min_digits;   /* fractional digits: at most, at least */
    int pad_left, pad_right, exp_size;
    bool neg_inf;
} fmt;

/* Positional "int" and "frac" strings of digits g (no sign). */
static void positional_parts(const digits *g, int min_digits, char *ip, char *fp)
{
    int ni = 0, nf = 0;
    if (g->e >= 0) {
        for (int k = 0; k <= g->e; k++) ip[ni++] = k < g->n ? g->d[k] : '0';
        for (int k = g->e + 1; k < g->n; k++) fp[nf++] = g->d[k];
    } else {
        ip[ni++] = '0';
        for (int k = 0; k < -g->e - 1; k++) fp[nf++] = '0';
        for (int k = 0; k < g->n; k++) fp[nf++] = g->d[k];
    }
    while (nf < min_digits) fp[nf++] = '0';
    ip[ni] = fp[nf] = '\0';
}

/* One float's text into s (cap bytes), as FloatingFormat.__call__. */
static void float_text(const fmt *f, double x, clb_dtype t, char *s, size_t cap)
{
    if (!isfinite(x)) {
        const char *r = isnan(x) ? "nan" : x < 0 ? "-inf" : "inf";
        int pad = f->pad_left + f->pad_right + 1 - (int)strlen(r);
        snprintf(s, cap, "%*s%s", pad > 0 ? pad : 0, "", r);
        return;
    }
    digits g;
    const char *sign = signbit(x) ? "-" : "";
    capped(fabs(x), t, f->exp_format, f->precision, &g);
    char ip[400], fp[400], whole[420];
    /* Dragon4's min_digits: digits past the shortest are the value's own
       (0.1f with 12: 0.100000001490), correctly rounded. */
    if (f->exp_format && g.n - 1 < f->min_digits && fabs(x) != 0)
        sci_digits(fabs(x), f->min_digits + 1, &g);
    if (f->exp_format) {
        char m[48];
        int nf = 0;
        for (int k = 1; k < g.n; k++) m[nf++] = g.d[k];
        while (nf < f->min_digits) m[nf++] = '0';
        m[nf] = '\0';
        int e = fabs(x) == 0 ? 0 : g.e;
        snprintf(whole, sizeof whole, "%s%c", sign, g.d[0]);
        snprintf(s, cap, "%*s.%se%c%0*d", f->pad_left, whole, m, e < 0 ? '-' : '+',
                 f->exp_size > 0 ? f->exp_size : 2, e < 0 ? -e : e);
        return;
    }
    positional_parts(&g, f->min_digits, ip, fp);
    snprintf(whole, sizeof whole, "%s%s", sign, ip);
    snprintf(s, cap, "%*s.%-*s", f->pad_left, whole, f->pad_right, fp);
}

/* FloatingFormat.fillFormat over the printed values. */
static void fill_float(fmt *f, const clb__fmt_values *v, int64_t count)
{
    double max_val = 0, min_val = INFINITY;
    bool any_finite = false, any_nonfinite = false;
    f->neg_inf = false;
    for (int64_t k = 0; k < count; k++) {
        double x = value_f(v, k);
        if (!isfinite(x)) {
            any_nonfinite = true;
            f->neg_inf = f->neg_inf || (isinf(x) && x < 0);
            continue;
        }
        any_finite = true;
        double ax = fabs(x);
        if (ax != 0) {
            max_val = ax > max_val ? ax : max_val;
            min_val = ax < min_val ? ax : min_val;
        }
    }
    f->exp_format = max_val > 0 && (max_val >= 1e8 || min_val < 0.0001 || max_val / min_val > 1000.);
    f->pad_left = f->pad_right = 0;
    f->precision = PRECISION;
    f->min_digits = 0;
    f->exp_size = -1;
    if (any_finite) {
        int frac_max = 0, int_max = 0, exp_max = 0;
        for (int64_t k = 0; k < count; k++) {
            double x = value_f(v, k);
            if (!isfinite(x)) continue;
            digits g;
            capped(fabs(x), v->dtype, f->exp_format, PRECISION, &g);
            int neg = signbit(x) ? 1 : 0;
            if (f->exp_format) {
                int e = fabs(x) == 0 ? 0 : g.e, ne = 0;
                for (int a = e < 0 ? -e : e; a > 0; a /= 10) ne++;
                ne = ne < 2 ? 2 : ne;
                frac_max = g.n - 1 > frac_max ? g.n - 1 : frac_max;
                int_max = 1 + neg > int_max ? 1 + neg : int_max;
                exp_max = ne > exp_max ? ne : exp_max;
            } else {
                char ip[400], fp[400];
                positional_parts(&g, 0, ip, fp);
                int li = (int)strlen(ip) + neg, lf = (int)strlen(fp);
                int_max = li > int_max ? li : int_max;
                frac_max = lf > frac_max ? lf : frac_max;
            }
        }
        f->pad_left = int_max;
        if (f->exp_format) {
            f->exp_size = exp_max;
            f->precision = f->min_digits = frac_max;
            f->pad_right = f->exp_size + 2 + f->precision;
        } else {
            f->pad_right = frac_max;
        }
    }
    if (any_nonfinite) {
        int offset = f->pad_right + 1, nanl = 3 - offset, infl = 3 + (f->neg_inf ? 1 : 0) - offset;
        if (nanl > f->pad_left) f->pad_left = nanl;
        if (infl > f->pad_left) f->pad_left = infl;
    }
}

static int int_len(uint64_t u, bool is_signed)
{
    char s[32];
    return is_signed ? snprintf(s, sizeof s, "%" PRId64, (int64_t)u)
                     : snprintf(s, sizeof s, "%" PRIu64, u);
}

static void fill_format(fmt *f, const clb__fmt_values *v, int64_t count)
{
    memset(f, 0, sizeof *f);
    f->zero_d = v->ndim == 0;
    if (v->dtype == CLB_BOOL) return;
    if (clb__dtype_is_float(v->dtype)) {
        f->kind = 3;
        fill_float(f, v, count);
        return;
    }
    f->kind = clb__dtype_is_signed(v->dtype) ? 1 : 2;
    for (int64_t k = 0; k < count; k++) {
        int w = int_len(value_bits(v, k), f->kind == 1);
        f->width = w > f->width ? w : f->width;
    }
}

static void element_text(const fmt *f, const clb__fmt_values *v, int64_t k, char *s, size_t cap)
{
    uint64_t u;
    switch (f->kind) {
    case 0:
        snprintf(s, cap, "%s", value_bits(v, k) ? (f->zero_d ? "True" : " True") : "False");
        return;
    case 1:
        u = value_bits(v, k);
        snprintf(s, cap, "%*" PRId64, f->width, (int64_t)u);
        return;
    case 2:
        snprintf(s, cap, "%*" PRIu64, f->width, value_bits(v, k));
        return;
    default: float_text(f, value_f(v, k), v->dtype, s, cap);
    }
}

/* ---- _formatArray --------------------------------------------------------------- */

typedef struct walker {
    const clb__fmt_values *v;
    fmt f;
    int64_t kept_strides[CLB_MAX_DIMS];
    sbuf *out;
} walker;

/* _extendLine: word onto line, wrapping when it passes width (unless the line
   holds only the indent). */
static void extend_line(sbuf *s, sbuf *line, const char *word, int width, int indent)
{
    bool wrap = (int)(line->len + strlen(word)) > width && (int)line->len > indent;
    if (wrap) {
        size_t n = line->len;
        while (n > 0 && line->s[n - 1] == ' ') n--;
        put_n(s, line->s, n);
        put(s, "\n");
        line->len = 0;
        put_spaces(line, indent);
    }
    put(line, word);
}

/* The kept index of position i (0 <= i < n) on an axis of n elements. */
static int64_t kept_index(const walker *w, int64_t n, int64_t i)
{
    if (!clb__fmt_axis_cut(w->v->summarize, n)) return i;
    return i < CLB__FMT_EDGE ? i : 2 * CLB__FMT_EDGE - (n - i);
}

static void recurse(walker *w, int axis, int64_t base, int indent, int width, sbuf *s);

static void rows_of_last_axis(walker *w, int64_t base, int indent, int width, sbuf *s)
{
    int64_t n = w->v->shape[w->v->ndim - 1];
    bool cut = clb__fmt_axis_cut(w->v->summarize, n);
    int elem_width = width - 1; /* curr_width - max(len(","), len("]")) */
    sbuf line = {0};
    put_spaces(&line, indent);
    char word[512];
    for (int64_t i = 0; i < n; i++) {
        if (cut && i == CLB__FMT_EDGE) {
            extend_line(s, &line, "...", elem_width, indent);
            put(&line, ", ");
            i = n - CLB__FMT_EDGE;
        }
        int64_t k = base + kept_index(w, n, i) * w->kept_strides[w->v->ndim - 1];
        element_text(&w->f, w->v, k, word, sizeof word);
        extend_line(s, &line, word, elem_width, indent);
        if (i < n - 1) put(&line, ", ");
    }
    put_n(s, line.s ? line.s : "", line.len);
    s->failed = s->failed || line.failed;
    free(line.s);
}

/* One nested array: "[" + rows + "]", with the hanging indent removed from its
   first line (the caller wrote it, or "[" stands there). */
static void recurse(walker *w, int axis, int64_t base, int indent, int width, sbuf *s)
{
    sbuf body = {0};
    int left = w->v->ndim - axis;
    if (left == 1) {
        rows_of_last_axis(w, base, indent, width, &body);
    } else {
        int64_t n = w->v->shape[axis];
        bool cut = clb__fmt_axis_cut(w->v->summarize, n);
        for (int64_t i = 0; i < n; i++) {
            if (cut && i == CLB__FMT_EDGE) {
                put_spaces(&body, indent);
                put(&body, "...,");
                for (int k = 0; k < left - 1; k++) put(&body, "\n");
                i = n - CLB__FMT_EDGE;
            }
            put_spaces(&body, indent);
            recurse(w, axis + 1, base + kept_index(w, n, i) * w->kept_strides[axis], indent + 1,
                    width - 1, &body);
            if (i < n - 1) {
                put(&body, ",");
                for (int k = 0; k < left - 1; k++) put(&body, "\n");
            }
        }
    }
    put(s, "[");
    if (body.s && (int)body.len >= indent) put_n(s, body.s + indent, body.len - (size_t)indent);
    put(s, "]");
    s->failed = s->failed || body.failed;
    free(body.s);
}

clb_status clb__format_text(const clb__fmt_values *v, char **text)
{
    sbuf out = {0};
    *text = NULL;
    int64_t count = 1, numel = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        count *= v->kept_shape[d];
        numel *= v->shape[d];
    }
    if (numel == 0) {
        put(&out, "[]");
    } else {
        walker w = {.v = v};
        fill_format(&w.f, v, count);
        int64_t stride = 1;
        for (int d = v->ndim - 1; d >= 0; d--) {
            w.kept_strides[d] = stride;
            stride *= v->kept_shape[d];
        }
        if (v->ndim == 0) {
            char word[512];
            element_text(&w.f, v, 0, word, sizeof word);
            put(&out, word);
        } else {
            recurse(&w, 0, 0, 1, LINE_WIDTH, &out);
        }
    }
    if (out.failed || !out.s) {
        free(out.s);
        return clb__fail(CLB_ERR_OUT_OF_MEMORY, "clb_tensor_format: out of host memory for the text");
    }
    *text = out.s;
    return CLB_OK;
}
