/* Plots for the tools (rdmach-noise, rdmach-sim): a Python script installed
 * beside the program, run by the first python3 that has matplotlib. */
#ifndef RCH_TOOL_PLOT_H
#define RCH_TOOL_PLOT_H

/* Run `script` (a file name beside the running program) on `arg`; prints
 * why when no plot is made. 0 if the script ran and succeeded. */
int rch_tool_plot(const char *script, const char *arg);

#endif
