program t_critical
  use check_mod
  implicit none
  integer :: counter[*]
  integer :: me, np, i, v
  me = this_image(); np = num_images()
  counter = 0
  sync all
  do i = 1, 100
    critical
      v = counter[1]
      counter[1] = v + 1
    end critical
  end do
  sync all
  if (me == 1) call chk(counter == 100*np, 'critical counter')
  sync all
  ! named critical
  do i = 1, 30
    c1: critical
      v = counter[np]
      counter[np] = v + 2
    end critical c1
  end do
  sync all
  if (me == np) then
    if (np == 1) then
      call chk(counter == 160, 'named critical counter (np=1)')
    else
      call chk(counter == 60*np, 'named critical counter')
    end if
  end if
  call finish('t_critical')
end program
