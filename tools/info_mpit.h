/* rdmach-info --mpit (info_mpit.c). */
#ifndef RDMACH_TOOLS_INFO_MPIT_H
#define RDMACH_TOOLS_INFO_MPIT_H
/* Lists the MPI_T variables, categories and events; the exit status. */
int rch_info_print_mpit(void);
#endif
