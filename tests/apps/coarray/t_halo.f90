program t_halo
  ! 1-D heat equation, block distributed with 1 ghost cell each side; result compared to serial
  use check_mod
  implicit none
  integer, parameter :: ntot = 96, niter = 400
  real(8), allocatable :: u(:)[:], unew(:)
  real(8), allocatable :: g(:), gn(:)
  integer :: me, np, nloc, i, it, lo, left, right
  real(8) :: err, t0, t1
  me = this_image(); np = num_images()
  nloc = ntot / np
  if (nloc*np /= ntot) then
    ! uneven: last image gets the remainder
    nloc = ntot/np
  end if
  lo = (me-1)*(ntot/np)
  if (me == np) nloc = ntot - (np-1)*(ntot/np)
  allocate(u(0:ntot)[*])   ! same size on all images (coarray rule); use 0:nloc+1
  allocate(unew(0:nloc+1))
  u = 0
  do i = 1, nloc
    u(i) = sin(3.14159d0 * (lo + i) / ntot) + merge(1d0, 0d0, lo+i == ntot/2)
  end do
  left = me - 1; right = me + 1
  sync all
  call cpu_time(t0)
  do it = 1, niter
    ! put my boundary values into neighbours' ghost cells
    if (left >= 1) then
      block
        integer :: nl
        nl = merge(ntot - (np-1)*(ntot/np), ntot/np, left == np)
        u(nl+1)[left] = u(1)
      end block
    end if
    if (right <= np) u(0)[right] = u(nloc)
    sync all
    do i = 1, nloc
      unew(i) = u(i) + 0.25d0*(u(i-1) - 2d0*u(i) + u(i+1))
    end do
    if (me == 1) unew(1) = u(1) + 0.25d0*(0d0 - 2d0*u(1) + u(2))
    if (me == np) unew(nloc) = u(nloc) + 0.25d0*(u(nloc-1) - 2d0*u(nloc) + 0d0)
    if (nloc == 1 .and. me == 1 .and. np == 1) unew(1) = u(1) + 0.25d0*(-2d0*u(1))
    sync all   ! neighbours finished reading my ghosts before I overwrite u
    u(1:nloc) = unew(1:nloc)
  end do
  sync all
  call cpu_time(t1)
  ! gather to image 1 via gets and compare with serial
  if (me == 1) then
    allocate(g(0:ntot+1), gn(0:ntot+1))
    g = 0
    do i = 1, ntot
      g(i) = sin(3.14159d0 * i / ntot) + merge(1d0, 0d0, i == ntot/2)
    end do
    do it = 1, niter
      do i = 1, ntot
        gn(i) = g(i) + 0.25d0*(g(i-1) - 2d0*g(i) + g(i+1))
      end do
      g(1:ntot) = gn(1:ntot)
    end do
    err = 0
    block
      integer :: img, l, nl
      do img = 1, np
        l = (img-1)*(ntot/np)
        nl = merge(ntot - (np-1)*(ntot/np), ntot/np, img == np)
        err = max(err, maxval(abs(u(1:nl)[img] - g(l+1:l+nl))))
      end do
    end block
    call chk(err < 1d-12, 'halo result differs from serial')
    if (err >= 1d-12) print *, 'max err', err
    deallocate(g, gn)
  end if
  sync all
  deallocate(unew)   ! the program's own memory back (LeakSanitizer runs these too)
  deallocate(u)      ! collective, like the allocate
  call finish('t_halo')
end program
