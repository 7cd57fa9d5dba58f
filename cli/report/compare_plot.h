/* `clb bench --compare ... --plot F.svg`: a loaded comparison drawn as SVG. */
#ifndef CLB_CLI_COMPARE_PLOT_H
#define CLB_CLI_COMPARE_PLOT_H

#include "results.h"

/* One bar series of the plot: a device of a compared run against its partner in
   the reference run. */
typedef struct cmp_pair {
    int ref_dev;         /* device index in the reference run */
    int run, dev;        /* the compared series */
} cmp_pair;

/* Draws a loaded comparison; 0 on success, else 1 (printed). */
int compare_svg(const cmp_run *runs, int nruns, const cmp_pair *pairs, int npairs, const char *path);

#endif /* CLB_CLI_COMPARE_PLOT_H */
