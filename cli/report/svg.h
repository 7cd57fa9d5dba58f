/* Plain-SVG text helpers for the charts (plot.c, compare_plot.c): every text
   is fitted to a width from an estimate of its extent, so nothing runs past
   the viewBox (tests/cli/check_cli.py checks the same estimate). */
#ifndef CLB_CLI_SVG_H
#define CLB_CLI_SVG_H

#include <stdio.h>

/* Estimated advance of one character in font sizes: sans-serif digits are
   0.64 em wide in DejaVu Sans, lower-case letters 0.5-0.6; 0.62 covers both on
   average, and check_cli.py holds every text to it. */
#define SVG_CHAR_EM 0.62

/* Text content and attribute values: the five XML specials escaped, control
   characters (not allowed in XML 1.0) dropped. */
void svg_escape(FILE *f, const char *s);

/* <text> at (x, y) with anchor "start", "middle" or "end" and extra attributes
   (may be ""), cut with "..." to max_w pixels. */
void svg_text(FILE *f, double x, double y, double size, const char *anchor, const char *attrs,
              double max_w, const char *s);

/* s word-wrapped into lines of at most max_w pixels, line_h apart, from
   baseline y; returns the number of lines. With f NULL it only counts. */
int svg_wrap(FILE *f, double x, double y, double size, double line_h, double max_w,
             const char *attrs, const char *s);

/* Opens an SVG document of width x height with a white background. */
void svg_begin(FILE *f, int width, int height);

/* A bar chart's axis: a vertical line from top to bottom at every step from 0
   to max (x = x0 + width * v / max), dashed and dark at `mark`, light grey
   elsewhere, each labelled above with tick_fmt (a printf format of one double). */
void svg_grid(FILE *f, int top, int bottom, double x0, double width, double max, double step,
              double mark, const char *tick_fmt);

/* Writes the document at path: svg_begin, then everything written to body (a
   temporary file, closed here whatever happens), then the closing tag. Returns
   0, or 1 after printing "clb: cannot write PATH" or "clb: writing PATH failed". */
int svg_write(const char *path, int width, int height, FILE *body);

#endif /* CLB_CLI_SVG_H */
