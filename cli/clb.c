/* clb: the command-line face of clbroadcast.
 *
 *   clb devices [--json]       the host backend and every OpenCL device
 *   clb demo [--device SEL]    the broadcasting tutorials' examples, run on one
 *                              device and checked against the host backend
 *   clb bench [--device SEL|all] [--quick] [--repeat N|auto] [--csv F] [--json F] [--plot F.svg]
 *                              each device's peaks, then the broadcast patterns' speed
 *                              against the peak that limits each; --compare A.json B.json
 *                              puts runs side by side (compare.c)
 *   clb tune [--device SEL] [--dtype float32|float64] [--candidates N]
 *                              tune CLBlast's GEMM for one device (clb_matmul_tune)
 *   clb warmup [--device SEL|all] [--set common|minimal]
 *                              build a common set of programs into the disk cache
 *
 * One file per command (devices.c, demo.c, bench.c, tune.c, warmup.c); report.c and plot.c
 * render benchmark results; the case table and timing live in bench/.
 *
 * It uses only the public header, so it doubles as a worked example of the API.
 * Exit status: 0 success, 1 a wrong result or an unexpected error, 2 bad
 * arguments or a selector that matches no device. */
#include <stdio.h>
#include <string.h>

#include "common.h"

int main(int argc, char **argv)
{
    if (argc < 2) return usage_error("missing command");
    const char *cmd = argv[1];
    if (!strcmp(cmd, "devices")) return cmd_devices(argc - 2, argv + 2);
    if (!strcmp(cmd, "demo")) return cmd_demo(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return cmd_bench(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune")) return cmd_tune(argc - 2, argv + 2);
    if (!strcmp(cmd, "warmup")) return cmd_warmup(argc - 2, argv + 2);
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("clb %s\n", clb_version_string());
        return 0;
    }
    return usage_error("unknown command '%s'", cmd);
}
