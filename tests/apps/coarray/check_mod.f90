module check_mod
  implicit none
  integer :: nerr = 0
contains
  subroutine chk(cond, msg)
    logical, intent(in) :: cond
    character(*), intent(in) :: msg
    if (.not. cond) then
      nerr = nerr + 1
      if (nerr <= 20) write(*,'(a,i0,a,a)') 'FAIL image ', this_image(), ': ', msg
    end if
  end subroutine
  subroutine finish(name)
    character(*), intent(in) :: name
    integer :: tot
    tot = nerr
    call co_sum(tot)
    if (this_image() == 1) then
      if (tot == 0) then
        write(*,'(a,a,a,i0)') 'PASS ', name, ' images=', num_images()
      else
        write(*,'(a,a,a,i0,a,i0)') 'FAIL ', name, ' errors=', tot, ' images=', num_images()
      end if
    end if
    if (tot /= 0) error stop 1
  end subroutine
end module
