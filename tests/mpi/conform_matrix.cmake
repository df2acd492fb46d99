# The acceptance matrix of issue 20: every conformance program written for it
# passes at 1-8 ranks on shared memory and at 2-4 ranks across pretend nodes
# (RDMACH_VNODE_SIZE=1: every pair a tcp pair), under rdmachrun and under
# Hydra (mpiexec.mpich). The other conform_*.cmake fragments register the
# cells their authors chose (some with arguments or environments of their
# own); this one adds, once every fragment has been read, the cells of the
# matrix that no test covers yet, named like conform_launch.cmake.inc's:
#   <prog>_np<n>  <prog>_np<n>_tcp  <prog>_np<n>_hydra  <prog>_np<n>_hydra_tcp
# A test covers a cell when its name is <prog>, the cell's words (tcp,
# hydra, a window flavor) around _np<n>, and nothing else: the variants run
# through other paths (_am, _rdma, _zcopy, _unbound, ...) do not count.
#
# The exit-code drills (tests/drills/exit.cmake) are the matrix of that item
# already: both launchers, shared memory and pretend nodes, at the 4 ranks
# their scenarios need.

set(CONF_MATRIX_PROGRAMS
    test_conf_status test_conf_cancel test_conf_mprobe test_conf_greq test_conf_p2p
    test_conf_group test_conf_comm test_conf_idup test_conf_split_type test_conf_topo test_conf_dims
    test_conf_attr test_mpi_conform_red test_mpi_conform_type test_conf_coll test_conf_coll_nbr
    test_conf_misc test_conf_rma_calls test_conf_rma_shared test_conf_rma_dynamic test_conf_rma_dtype
    test_conf_rma_atomics test_conf_rma_loc test_conf_rma_bottom)
# Arguments of the added cells where the program's defaults are not the point:
# derived-datatype transfers of 256 K ints on Win_create memory (the flavor
# the existing cells leave out at most sizes), the atomics on Win_create.
set(CONF_MATRIX_ARGS_test_conf_rma_dtype 262144 1 create)
set(CONF_MATRIX_ARGS_test_conf_rma_atomics create)
# Programs made of pairs of ranks: not run alone.
set(CONF_MATRIX_MIN_NP_test_conf_cancel 2)

find_program(CONF_MATRIX_HYDRA mpiexec.mpich)

# The cells registered tests cover, as "<prog>|<hydra>|<tcp>|<np>" in the
# parent's variable CONF_MATRIX_COVERED.
function(conf_matrix_covered)
  get_property(tests DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTY TESTS)
  set(covered "")
  foreach(t ${tests})
    if(NOT t MATCHES "^(test_[a-z0-9_]+)_np([0-9]+)((_[a-z0-9]+)*)$")
      continue()
    endif()
    set(prog ${CMAKE_MATCH_1})
    set(np ${CMAKE_MATCH_2})
    string(REPLACE "_" ";" after "${CMAKE_MATCH_3}")
    set(hydra 0)
    set(tcp 0)
    # words before _np<n> (_tcp_np2, _hydra_tcp_np2), then after it
    while(prog MATCHES "^(.*)_(tcp|hydra)$")
      set(prog ${CMAKE_MATCH_1})
      set(${CMAKE_MATCH_2} 1)
    endwhile()
    set(plain 1)
    foreach(w ${after})
      if(w STREQUAL "tcp" OR w STREQUAL "hydra")
        set(${w} 1)
      elseif(NOT w MATCHES "^(allocate|create)$")
        set(plain 0)
      endif()
    endforeach()
    if(plain)
      list(APPEND covered "${prog}|${hydra}|${tcp}|${np}")
    endif()
  endforeach()
  set(CONF_MATRIX_COVERED ${covered} PARENT_SCOPE)
endfunction()

function(conf_matrix_add prog hydra tcp np)
  set(name ${prog}_np${np})
  set(launch ${RDMACH_RUN})
  if(hydra)
    set(name ${name}_hydra)
    set(launch ${CONF_MATRIX_HYDRA})
  endif()
  if(tcp)
    set(name ${name}_tcp)
  endif()
  add_test(NAME ${name} COMMAND ${launch} -n ${np} $<TARGET_FILE:${prog}> ${CONF_MATRIX_ARGS_${prog}})
  set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "mp;conform_matrix")
  if(tcp)
    set_tests_properties(${name} PROPERTIES ENVIRONMENT "RDMACH_VNODE_SIZE=1")
  endif()
  set(CONF_MATRIX_ADDED ${CONF_MATRIX_ADDED} ${name} PARENT_SCOPE)
endfunction()

function(conf_matrix)
  conf_matrix_covered()
  set(launchers 0)
  if(CONF_MATRIX_HYDRA)
    list(APPEND launchers 1)
  endif()
  foreach(prog ${CONF_MATRIX_PROGRAMS})
    if(NOT TARGET ${prog})
      message(FATAL_ERROR "conform_matrix.cmake: no program ${prog}")
    endif()
    set(min 1)
    if(DEFINED CONF_MATRIX_MIN_NP_${prog})
      set(min ${CONF_MATRIX_MIN_NP_${prog}})
    endif()
    foreach(hydra ${launchers})
      foreach(cell "0;1;2;3;4;5;6;7;8" "1;2;3;4")   # shared memory 1-8, tcp 2-4
        list(POP_FRONT cell tcp)
        foreach(np ${cell})
          if(np LESS min OR "${prog}|${hydra}|${tcp}|${np}" IN_LIST CONF_MATRIX_COVERED)
            continue()
          endif()
          conf_matrix_add(${prog} ${hydra} ${tcp} ${np})
        endforeach()
      endforeach()
    endforeach()
  endforeach()
  # the directory's own adjustment ran before these existed
  if(CONF_MATRIX_ADDED)
    rdmach_adjust_tests(${CONF_MATRIX_ADDED})
  endif()
endfunction()

cmake_language(DEFER CALL conf_matrix)
