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
//    once touched), and its first 2 MiB, about what a doctor run uses, are
//    faulted in by one madvise. perf on the 2-core VM: a repeated doctor run
//    took 500 of its 800 page faults on fresh heap pages, one trap each; with
//    them prefaulted its task clock fell by a tenth.
void prepare_heap() {
  constexpr std::size_t step = std::size_t{64} << 20, prefaulted = std::size_t{2} << 20;
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, static_cast<int>(step));
  void* const top = sbrk(0);
  void* volatile grow = std::malloc(prefaulted); // one step more heap (volatile: the pair is not elided)
  std::free(grow);                               // kept as the top of the heap: nothing is trimmed
  // Back to glibc's default pad: a thread's arena would otherwise commit a
  // whole step of memory each time it grows (mallopt(3), M_TOP_PAD).
  mallopt(M_TOP_PAD, 128 * 1024);
  const auto start = reinterpret_cast<std::uintptr_t>(top), end = reinterpret_cast<std::uintptr_t>(sbrk(0));
  if (top != reinterpret_cast<void*>(-1) && end >= start + prefaulted)
    madvise(top, prefaulted, MADV_POPULATE_WRITE); // an optimisation: failure changes nothing
}
} // namespace

int main(int argc, char** argv) {
  prepare_heap();
  int status = condacuda::cli::run(argc, argv);
  // Done: flush and leave without running destructors (unmapping dozens of
  // files and freeing every string costs more than the OS reclaiming them at
  // once). Every file written is closed and renamed into place before run()
  // returns.
  std::fflush(nullptr);
  _exit(status);
}
