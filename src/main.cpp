#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli/command_line.hpp"

namespace {
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14; older kernels refuse it with EINVAL
#endif

// condacuda is short-lived:
//  - large buffers (RECORD files, directory listings) come from the heap,
//    not from fresh mmaps whose munmap costs a TLB shootdown on every CPU;
//  - memory is never given back before exit;
//  - the heap grows in one step of 64 MiB (address space: a page costs memory
//    once touched), and the 2 MiB and 128 KiB its next allocations take,
//    about what a doctor run uses, are faulted in by one madvise. perf on
//    the 2-core VM: a repeated doctor run took 500 of its 800 page faults on
//    fresh heap pages, one trap each; with them prefaulted its task clock
//    fell by a tenth.
//
// The pages prefaulted start at the heap's free top, where the next
// allocation lands: the C library's start-up has allocated before this runs,
// and the rest of the 132 KiB it took is what a run uses first (21 page
// faults of a repeated doctor run when the prefault began past it). It runs
// as the first constructor (priority 101: before CLI11's and the standard
// streams'), so that theirs land in prefaulted pages too.
__attribute__((constructor(101))) void prepare_heap() {
  constexpr std::size_t step = std::size_t{64} << 20, prefaulted = std::size_t{2176} << 10;
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, static_cast<int>(step));
  void* volatile grow = std::malloc(prefaulted); // one step more heap (volatile: the pair is not elided)
  std::free(grow);                               // kept as the top of the heap: nothing is trimmed
  // Back to glibc's default pad: a thread's arena would otherwise commit a
  // whole step of memory each time it grows (mallopt(3), M_TOP_PAD).
  mallopt(M_TOP_PAD, 128 * 1024);
  void* const brk_end = sbrk(0);
  if (brk_end == reinterpret_cast<void*>(-1)) return;
  const auto end = reinterpret_cast<std::uintptr_t>(brk_end);
  const std::uintptr_t free_top = end - mallinfo2().keepcost; // the top chunk ends the heap
  const std::uintptr_t first = free_top & ~std::uintptr_t{4095};
  if (free_top <= end && end - first >= prefaulted)
    madvise(reinterpret_cast<void*>(first), prefaulted, MADV_POPULATE_WRITE); // an optimisation: failure changes nothing
}
} // namespace

int main(int argc, char** argv) {
  int status = condacuda::cli::run(argc, argv);
  // Done: flush and leave without running destructors (unmapping dozens of
  // files and freeing every string costs more than the OS reclaiming them at
  // once). Every file written is closed and renamed into place before run()
  // returns.
  std::fflush(nullptr);
  _exit(status);
}
