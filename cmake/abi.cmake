# The MPICH ABI drop-in (included by the top-level CMakeLists.txt).
#
# The same objects as librdmach.so, linked again under MPICH's names, in a
# directory of their own so that pointing LD_LIBRARY_PATH at it makes a
# program built with Debian MPICH's mpicc.mpich load rdmach:
#
#   <build>/abi/libmpich.so.12   SONAME libmpich.so.12 — what mpicc.mpich
#                                programs need (readelf -d: NEEDED libmpich.so.12)
#   <build>/abi/libmpi.so.12     a symlink to it — what programs linked by
#                                upstream MPICH's mpicc (-lmpi) need. A symlink,
#                                not a second library: a process that needs
#                                both names then loads one copy (same inode),
#                                not two MPI libraries with separate state.
#
# Linked with --no-undefined: every symbol the library needs is resolved
# when it is built, so it carries no reference that could fail later at run
# time. (A program's own references to MPI functions rdmach lacks are caught
# at MPI_Init by src/mpi/abi_check.c.)
#
# Installed into <libdir>/rdmach/mpich-abi, never beside the system's own
# libmpich.so.12: the user opts in with LD_LIBRARY_PATH per job.

set(RDMACH_ABI_DIR ${CMAKE_BINARY_DIR}/abi)

add_library(rdmach_mpich_abi SHARED ${objs})
target_link_libraries(rdmach_mpich_abi PRIVATE ${RDMACH_EXT_LIBS} ${CMAKE_DL_LIBS})
target_link_options(rdmach_mpich_abi PRIVATE -Wl,--no-undefined ${RDMACH_DL_MAP})
set_target_properties(rdmach_mpich_abi PROPERTIES
  OUTPUT_NAME mpich
  VERSION 12
  SOVERSION 12
  LIBRARY_OUTPUT_DIRECTORY ${RDMACH_ABI_DIR})
add_custom_command(TARGET rdmach_mpich_abi POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink libmpich.so.12 ${RDMACH_ABI_DIR}/libmpi.so.12
  COMMENT "MPICH ABI: libmpi.so.12 -> libmpich.so.12 in ${RDMACH_ABI_DIR}")

set(RDMACH_ABI_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/rdmach/mpich-abi)
install(TARGETS rdmach_mpich_abi LIBRARY DESTINATION ${RDMACH_ABI_INSTALL_DIR} NAMELINK_SKIP)
# (CMAKE_INSTALL_PREFIX escaped: the prefix given at install time, cmake --install --prefix.)
install(CODE "execute_process(COMMAND \${CMAKE_COMMAND} -E create_symlink libmpich.so.12
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${RDMACH_ABI_INSTALL_DIR}/libmpi.so.12\"
                COMMAND_ERROR_IS_FATAL ANY)")
