program t_atomics
  use iso_fortran_env, only: atomic_int_kind, atomic_logical_kind
  use check_mod
  implicit none
  integer(atomic_int_kind) :: a[*], b[*], c[*], flag[*], arr(4)[*]
  logical(atomic_logical_kind) :: la[*]
  integer(atomic_int_kind) :: v, old, cmp, i, tot, j
  integer :: me, np, st
  logical :: lv
  me = this_image(); np = num_images()
  call atomic_define(a, 0); call atomic_define(b, 0); call atomic_define(c, 0)
  call atomic_define(flag, 0)
  call atomic_define(la, .false.)
  arr = 0
  sync all
  ! atomic_add on image 1
  do i = 1, 200
    call atomic_add(a[1], 1)
  end do
  sync all
  call atomic_ref(v, a[1])
  call chk(v == 200*np, 'atomic_add total')
  sync all
  sync all
  ! atomic_cas: each image tries to claim c on image 1 in turn; spin increment with CAS
  do i = 1, 50
    do
      call atomic_ref(cmp, c[1])
      call atomic_cas(c[1], old, cmp, cmp + 1)
      if (old == cmp) exit
    end do
  end do
  sync all
  call atomic_ref(v, c[1])
  call chk(v == 50*np, 'atomic_cas increment loop')
  sync all
  ! cas failing: compare wrong value
  if (me == 1) then
    call atomic_cas(c[1], old, -999_atomic_int_kind, 12345_atomic_int_kind)
    call chk(old == 50*np, 'failing cas returns old value')
    call atomic_ref(v, c[1])
    call chk(v == 50*np, 'failing cas leaves value')
  end if
  sync all
  ! atomic_and/or/xor
  if (me == 1) call atomic_define(a[1], 0)
  sync all
  if (me == 1) call atomic_define(a[1], -1)
  sync all
  call atomic_and(a[1], int(not(ishft(1, me-1)), atomic_int_kind))
  sync all
  call atomic_ref(v, a[1])
  call chk(v == not(sum([(ishft(1, j-1), j=1, np)])), 'atomic_and')
  sync all
  ! atomic on array element
  call atomic_add(arr(mod(me,4)+1)[1], int(me, atomic_int_kind))
  sync all
  if (me == 1) then
    call chk(sum(arr) == np*(np+1)/2, 'atomic_add on array elements')
  end if
  ! flag-based handoff: image 1 sets data, then atomic flag; others spin on atomic_ref
  if (me == 1) then
    b = 4242
    sync memory
    do j = 2, np
      call atomic_define(flag[j], 1)
    end do
  else
    do
      call atomic_ref(v, flag)
      if (v == 1) exit
    end do
    sync memory
    call chk(b[1] == 4242, 'data after flag')
  end if
  ! logical atomics
  sync all
  if (me == np) call atomic_define(la[1], .true.)
  sync all
  call atomic_ref(lv, la[1])
  call chk(lv, 'logical atomic')
  sync all
  call finish('t_atomics')
end program
