/* `clb bench --compare A.json B.json ...` and `--baseline A.json`: results of
   several runs (machines, devices, versions) side by side per pattern, the
   ratio of medians and whether the difference exceeds the runs' spread. */
#ifndef CLB_CLI_COMPARE_H
#define CLB_CLI_COMPARE_H

/* Prints the comparison of files (the reference first: baseline when given,
   else files[0]) and, with plot, writes it as SVG. Returns the exit status:
   0; 1 when baseline is given and a pattern got slower beyond noise, or a
   file could not be written; 2 when a file cannot be read as results. */
int bench_compare(int nfiles, const char *const *files, const char *baseline, const char *plot);

#endif /* CLB_CLI_COMPARE_H */
