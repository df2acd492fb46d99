! f_io: the MPI-IO bindings (MPI_File handles through MPI_File_f2c/c2f,
! offsets as INTEGER(KIND=MPI_OFFSET_KIND)). With n ranks, a file of
! INTEGERs whose view interleaves the ranks (rank r sees elements r, r + n,
! r + 2n, ...: a vector filetype resized to n elements) is written with
! MPI_FILE_WRITE_AT_ALL (elements 0-3 of each rank's view) and
! MPI_FILE_WRITE_ALL after a seek (elements 4-7), so file element k n + r
! holds 100 r + k + 1; then the shared pointer appends rank r's r + 1 values
! 1000 + r in rank order (MPI_FILE_WRITE_ORDERED). Every value read back is
! computed here from that layout, as are the sizes and positions; opening a
! missing file without MPI_MODE_CREATE returns MPI_ERR_NO_SUCH_FILE (files
! default to MPI_ERRORS_RETURN). The hand-written bindings: a file error
! handler written in Fortran gets the file's Fortran handle and the error; a
! data representation registered from Fortran (its conversions negate
! INTEGERs) writes negated values to the file and reads them back restored.
#include "mpi_test.h"
program f_io
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: ierr, rank, size, fh, vec, ftype, i, k, r, pid, amode, eclass, flag4, eh
  integer :: seen_fh, seen_class, nconv
  common /f_io_seen/ seen_fh, seen_class, nconv
  external :: on_file_error, neg_read, neg_write, integer_extent
  integer :: buf(4), fbuf(100), status(MPI_STATUS_SIZE)
  integer(kind=MPI_OFFSET_KIND) :: off, pos, fsize, disp, nelem
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  logical :: atomic
  character(len=64) :: fname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  ! one file per run: the test variants run concurrently in one directory
  pid = getpid()
  call MPI_Bcast(pid, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  write (fname, '(a, i0, a)') 'f_io.', pid, '.dat'

  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                     fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh /= MPI_FILE_NULL, 'MPI_File_open')
  call MPI_File_get_amode(fh, amode, ierr)
  call check(ierr == MPI_SUCCESS .and. amode == MPI_MODE_CREATE + MPI_MODE_RDWR, &
             'MPI_File_get_amode')

  ! the view: every n-th INTEGER from rank's own, tiled
  call MPI_Type_vector(4, 1, size, MPI_INTEGER, vec, ierr)
  lb = 0
  extent = 4 * size * 4
  call MPI_Type_create_resized(vec, lb, extent, ftype, ierr)
  call MPI_Type_commit(ftype, ierr)
  disp = rank * 4
  call MPI_File_set_view(fh, disp, MPI_INTEGER, ftype, 'native', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view')

  off = 0
  buf = [(100 * rank + i, i = 1, 4)]
  call MPI_File_write_at_all(fh, off, buf, 4, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write_at_all')
  call MPI_Get_count(status, MPI_INTEGER, k, ierr)
  call check(k == 4, 'MPI_File_write_at_all status count')
  off = 4
  call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
  buf = [(100 * rank + 4 + i, i = 1, 4)]
  call MPI_File_write_all(fh, buf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write_all')
  call MPI_File_get_position(fh, pos, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == 8, 'MPI_File_get_position after write_all')
  ! element 5 of this rank's view is byte 4 (rank + 5 n) of the file
  off = 5
  call MPI_File_get_byte_offset(fh, off, disp, ierr)
  call check(ierr == MPI_SUCCESS .and. disp == 4 * (rank + 5 * size), 'MPI_File_get_byte_offset')
  call MPI_File_get_type_extent(fh, MPI_INTEGER, extent, ierr)
  call check(ierr == MPI_SUCCESS .and. extent == 4, 'MPI_File_get_type_extent')

  ! MPI's consistency: sync, barrier, sync before reading others' data
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(ierr == MPI_SUCCESS .and. fsize == 32 * size, 'MPI_File_get_size')
  off = 0
  fbuf = -1
  call MPI_File_read_at(fh, off, fbuf, 8 * size, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_read_at')
  do k = 0, 7
    do r = 0, size - 1
      call check(fbuf(k * size + r + 1) == 100 * r + k + 1, 'the interleaved contents')
    end do
  end do

  ! the shared pointer: append in rank order
  off = 8 * size
  call MPI_File_seek_shared(fh, off, MPI_SEEK_SET, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_seek_shared')
  buf = 1000 + rank
  call MPI_File_write_ordered(fh, buf, rank + 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_write_ordered')
  nelem = 8 * size + size * (size + 1) / 2
  call MPI_File_get_position_shared(fh, pos, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == nelem, 'MPI_File_get_position_shared')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == 4 * nelem, 'MPI_File_get_size after write_ordered')
  off = 8 * size
  call MPI_File_read_at(fh, off, fbuf, int(nelem) - 8 * size, MPI_INTEGER, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, k, ierr)
  call check(ierr == MPI_SUCCESS .and. k == nelem - 8 * size, 'MPI_File_read_at count')
  i = 0
  do r = 0, size - 1
    do k = 0, r
      i = i + 1
      call check(fbuf(i) == 1000 + r, 'the write_ordered contents')
    end do
  end do

  ! the individual pointer: seek absolute, then relative, read one
  off = 3
  call MPI_File_seek(fh, off, MPI_SEEK_SET, ierr)
  off = 2
  call MPI_File_seek(fh, off, MPI_SEEK_CUR, ierr)
  call MPI_File_get_position(fh, pos, ierr)
  call check(ierr == MPI_SUCCESS .and. pos == 5, 'MPI_File_seek SET 3 then CUR 2')
  call MPI_File_read(fh, buf, 1, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. buf(1) == 100 * mod(5, size) + 5 / size + 1, &
             'MPI_File_read at element 5')
  call MPI_File_get_position(fh, pos, ierr)
  call check(pos == 6, 'MPI_File_get_position after read')
  call MPI_File_get_atomicity(fh, atomic, ierr)
  call check(ierr == MPI_SUCCESS .and. .not. atomic, 'MPI_File_get_atomicity')

  ! a Fortran error handler: an invalid whence calls it with this file
  call MPI_File_create_errhandler(on_file_error, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_create_errhandler')
  call MPI_File_set_errhandler(fh, eh, ierr)
  seen_fh = MPI_FILE_NULL
  seen_class = MPI_SUCCESS
  off = 0
  call MPI_File_seek(fh, off, 12345, ierr)
  call check(ierr /= MPI_SUCCESS .and. seen_fh == fh .and. seen_class == MPI_ERR_ARG, &
             'a Fortran file error handler sees the file and MPI_ERR_ARG')
  call MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN, ierr)
  call MPI_Errhandler_free(eh, ierr)

  ! a Fortran data representation: rank r writes r + 1, -(r + 7) at element
  ! 2r; the file holds them negated; read through it, they come back
  lb = 42
  call MPI_Register_datarep('f_io_neg', neg_read, neg_write, integer_extent, lb, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_Register_datarep')
  call MPI_Register_datarep('f_io_neg', neg_read, neg_write, integer_extent, lb, ierr)
  call MPI_Error_class(ierr, eclass, flag4)
  call check(eclass == MPI_ERR_DUP_DATAREP, 'MPI_Register_datarep twice: MPI_ERR_DUP_DATAREP')
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'f_io_neg', MPI_INFO_NULL, ierr)
  call check(ierr == MPI_SUCCESS, 'MPI_File_set_view with f_io_neg')
  nconv = 0
  off = 2 * rank
  buf(1:2) = [rank + 1, -(rank + 7)]
  call MPI_File_write_at(fh, off, buf, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. nconv == 1 .and. all(buf(1:2) == [rank + 1, -(rank + 7)]), &
             'MPI_File_write_at through f_io_neg (one conversion, the buffer unchanged)')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  buf = 0
  call MPI_File_read_at(fh, off, buf, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. nconv == 2 .and. all(buf(1:2) == [rank + 1, -(rank + 7)]), &
             'MPI_File_read_at through f_io_neg')
  call MPI_File_set_view(fh, disp, MPI_INTEGER, MPI_INTEGER, 'native', MPI_INFO_NULL, ierr)
  off = 0
  call MPI_File_read_at(fh, off, fbuf, 2 * size, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  do r = 0, size - 1
    call check(fbuf(2 * r + 1) == -(r + 1) .and. fbuf(2 * r + 2) == r + 7, 'the file holds negated values')
  end do

  call MPI_File_close(fh, ierr)
  call check(ierr == MPI_SUCCESS .and. fh == MPI_FILE_NULL, 'MPI_File_close')
  call MPI_Type_free(ftype, ierr)
  call MPI_Type_free(vec, ierr)

  ! a missing file, no MPI_MODE_CREATE: an error returned, not fatal
  write (fname, '(a, i0, a)') 'f_io.', pid, '.missing'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
  eclass = MPI_SUCCESS
  if (ierr /= MPI_SUCCESS) call MPI_Error_class(ierr, eclass, flag4)
  call check(eclass == MPI_ERR_NO_SUCH_FILE, 'opening a missing file: MPI_ERR_NO_SUCH_FILE')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    write (fname, '(a, i0, a)') 'f_io.', pid, '.dat'
    call MPI_File_delete(fname, MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'MPI_File_delete')
  end if
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a, i0, a)', 'f_io: ok on ', size, ' ranks (', nelem, &
                                            ' INTEGERs written and read back)'
contains
#include "check.inc"
end program

subroutine on_file_error(fh, code)
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: fh, code, ierr
  integer :: seen_fh, seen_class, nconv
  common /f_io_seen/ seen_fh, seen_class, nconv
  seen_fh = fh
  call MPI_Error_class(code, seen_class, ierr)
end subroutine

! the conversions (POSITION and EXTRA_STATE: MPI_OFFSET_KIND and
! MPI_ADDRESS_KIND, both 8)
subroutine neg_write(userbuf, datatype, count, filebuf, position, extra_state, ierror)
  implicit none
  integer :: userbuf(*), datatype, count, filebuf(*), ierror
  integer(kind=8) :: position, extra_state
  call negate(userbuf, filebuf, datatype, count, extra_state, ierror)
end subroutine

subroutine neg_read(userbuf, datatype, count, filebuf, position, extra_state, ierror)
  implicit none
  integer :: userbuf(*), datatype, count, filebuf(*), ierror
  integer(kind=8) :: position, extra_state
  call negate(filebuf, userbuf, datatype, count, extra_state, ierror)
end subroutine

! to = -from, counted; EXTRA_STATE is the one given at registration (42)
subroutine negate(from, to, datatype, count, extra_state, ierror)
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: from(*), to(*), datatype, count, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra_state
  integer :: seen_fh, seen_class, nconv
  common /f_io_seen/ seen_fh, seen_class, nconv
  ierror = MPI_ERR_CONVERSION
  if (datatype /= MPI_INTEGER .or. extra_state /= 42) return
  to(1:count) = -from(1:count)
  nconv = nconv + 1
  ierror = MPI_SUCCESS
end subroutine

subroutine integer_extent(datatype, extent, extra_state, ierror)
  MPI_USE
  implicit none
  MPI_INCLUDE
  integer :: datatype, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extent, extra_state
  extent = 4
  ierror = MPI_SUCCESS
end subroutine
