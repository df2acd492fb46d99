program t_locks
  use iso_fortran_env, only: lock_type
  use check_mod
  implicit none
  type(lock_type) :: lk[*]
  type(lock_type) :: lks(3)[*]
  integer :: counter[*]
  integer :: cnt3(3)[*]
  integer :: me, np, i, tgt, st, v, tries
  logical :: got
  me = this_image(); np = num_images()
  counter = 0; cnt3 = 0
  sync all
  ! all images increment counter on image 1 under the lock on image 1 (non-atomic read-modify-write)
  do i = 1, 50
    lock(lk[1])
    v = counter[1]
    counter[1] = v + 1
    unlock(lk[1])
  end do
  sync all
  if (me == 1) call chk(counter == 50*np, 'lock protected counter on image 1')
  sync all
  ! locks on every image, elements of a lock array
  do i = 1, 20
    tgt = mod(me + i, np) + 1
    lock(lks(mod(i,3)+1)[tgt], stat=st)
    call chk(st == 0, 'lock stat')
    v = cnt3(mod(i,3)+1)[tgt]
    cnt3(mod(i,3)+1)[tgt] = v + 1
    unlock(lks(mod(i,3)+1)[tgt], stat=st)
    call chk(st == 0, 'unlock stat')
  end do
  sync all
  v = cnt3(1) + cnt3(2) + cnt3(3)
  call co_sum(v)
  call chk(v == 20*np, 'lock array counters total')
  sync all
  ! acquired_lock=: image 1 holds lock, others try (should fail), then image 1 releases
  if (me == 1) lock(lk[1])
  sync all
  if (me /= 1) then
    lock(lk[1], acquired_lock=got)
    call chk(.not. got, 'acquired_lock should be false while image 1 holds it')
    if (got) unlock(lk[1])
  end if
  sync all
  if (me == 1) unlock(lk[1])
  sync all
  ! now try in loop until got
  tries = 0
  do
    lock(lk[1], acquired_lock=got)
    tries = tries + 1
    if (got) exit
    if (tries > 10000000) exit
  end do
  call chk(got, 'acquired_lock eventually true')
  if (got) then
    v = counter[1]; counter[1] = v + 1
    unlock(lk[1])
  end if
  sync all
  if (me == 1) call chk(counter == 51*np, 'counter after acquired_lock loop')
  ! stat on locking a lock we already hold: STAT_LOCKED
  lock(lks(1)[me])
  lock(lks(1)[me], stat=st)
  call chk(st /= 0, 'locking own held lock should give nonzero stat (STAT_LOCKED)')
  unlock(lks(1)[me])
  sync all
  call finish('t_locks')
end program
