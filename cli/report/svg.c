/* SVG text helpers and the document's frame (see svg.h). */
#include "svg.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void svg_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t') fputc(*s, f);
        }
    }
}

static size_t max_chars(double size, double max_w)
{
    double n = max_w / (SVG_CHAR_EM * size);
    return n < 4 ? 4 : (size_t)n;
}

/* Writes at most n bytes of s, never splitting a UTF-8 sequence. */
static void escape_prefix(FILE *f, const char *s, size_t n)
{
    char buf[1024];
    if (n >= sizeof buf) n = sizeof buf - 1;
    while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
    memcpy(buf, s, n);
    buf[n] = '\0';
    svg_escape(f, buf);
}

void svg_text(FILE *f, double x, double y, double size, const char *anchor, const char *attrs,
              double max_w, const char *s)
{
    size_t cap = max_chars(size, max_w), len = strlen(s);
    fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" text-anchor=\"%s\"%s%s>", x, y, size,
            anchor, attrs[0] ? " " : "", attrs);
    if (len <= cap) {
        svg_escape(f, s);
    } else {
        escape_prefix(f, s, cap - 3);
        fputs("...", f);
    }
    fputs("</text>\n", f);
}

int svg_wrap(FILE *f, double x, double y, double size, double line_h, double max_w,
             const char *attrs, const char *s)
{
    size_t cap = max_chars(size, max_w);
    int lines = 0;
    while (*s) {
        while (*s == ' ') s++;
        if (!*s) break;
        size_t len = strlen(s), take = len;
        if (len > cap) {
            take = cap;
            while (take > 0 && s[take] != ' ') take--;
            if (take == 0) take = cap; /* one long word: cut it */
        }
        if (f) {
            char line[1024];
            size_t n = take < sizeof line ? take : sizeof line - 1;
            memcpy(line, s, n);
            line[n] = '\0';
            svg_text(f, x, y + lines * line_h, size, "start", attrs, max_w, line);
        }
        lines++;
        s += take;
    }
    return lines;
}

void svg_begin(FILE *f, int width, int height)
{
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
            width, height, width, height);
    fprintf(f, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
}

void svg_grid(FILE *f, int top, int bottom, double x0, double width, double max, double step,
              double mark, const char *tick_fmt)
{
    for (double v = 0; v <= max + 1e-9; v += step) {
        double x = x0 + width * fmin(v, max) / max;
        int marked = fabs(v - mark) < 1e-9;
        fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"%s/>\n", x, top, x,
                bottom, marked ? "#333333" : "#dddddd", marked ? " stroke-dasharray=\"4 3\"" : "");
        char tick[32];
        snprintf(tick, sizeof tick, tick_fmt, v);
        svg_text(f, x, top - 4, 11, "middle", "fill=\"#555555\"", 60, tick);
    }
}

int svg_write(const char *path, int width, int height, FILE *body)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "clb: cannot write %s: %s\n", path, strerror(errno));
        fclose(body);
        return 1;
    }
    svg_begin(f, width, height);
    rewind(body);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, body)) > 0) fwrite(chunk, 1, n, f);
    fclose(body);
    fputs("</svg>\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        fprintf(stderr, "clb: writing %s failed: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}
