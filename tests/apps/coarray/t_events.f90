program t_events
  use iso_fortran_env, only: event_type
  use check_mod
  implicit none
  type(event_type) :: ev[*]
  type(event_type) :: evs(4)[*]
  integer :: data[*]
  integer :: me, np, i, j, cnt, st, k
  me = this_image(); np = num_images()
  data = 0
  sync all
  ! ring: image me puts data into right neighbour then posts its event
  j = mod(me, np) + 1; k = merge(np, me-1, me==1)
  do i = 1, 50
    data[j] = me*1000 + i
    event post(ev[j])
    event wait(ev)
    if (data /= k*1000 + i) then
      call chk(.false., 'event ring data'); exit
    end if
    sync all   ! so next put doesn't overwrite before read
  end do
  ! many posts to image 1, wait with until_count
  sync all
  do i = 1, 10
    event post(evs(2)[1])
  end do
  if (me == 1) then
    event wait(evs(2), until_count=10*np)
    call event_query(evs(2), cnt, stat=st)
    call chk(cnt == 0 .and. st == 0, 'event_query after full wait')
  end if
  sync all
  ! event_query counting without waiting
  event post(evs(3)[1])
  event post(evs(3)[1])
  sync all
  if (me == 1) then
    call event_query(evs(3), cnt)
    call chk(cnt == 2*np, 'event_query count')
    event wait(evs(3), until_count=np)
    call event_query(evs(3), cnt)
    call chk(cnt == np, 'event_query after partial wait')
    do i = 1, np
      event wait(evs(3))
    end do
    call event_query(evs(3), cnt)
    call chk(cnt == 0, 'event_query at zero')
  end if
  sync all
  ! producer/consumer: image 1 waits for each other image individually
  if (me /= 1) then
    data[1] = 0  ! racy, not checked
    event post(evs(4)[1], stat=st)
    call chk(st == 0, 'event post stat')
  else
    event wait(evs(4), until_count=np-1)
    if (np == 1) continue
  end if
  sync all
  call finish('t_events')
end program
