/* rdmach-sim calibrate: not yet (see docs/SCALE.md). */
#include <stdio.h>
int sim_calibrate(int argc, char **argv)
{
    (void)argc, (void)argv;
    fprintf(stderr, "rdmach-sim calibrate: not implemented yet\n");
    return 2;
}
