#include <cstdio>
#include <malloc.h>
#include <unistd.h>

#include "cli/command_line.hpp"

int main(int argc, char** argv) {
  // condacuda is short-lived: serve large buffers (RECORD files, directory
  // listings) from the heap instead of fresh mmaps, whose munmap costs a TLB
  // shootdown on every CPU, and never give memory back before exit.
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  int status = condacuda::cli::run(argc, argv);
  // Done: flush and leave without running destructors (unmapping dozens of
  // files and freeing every string costs more than the OS reclaiming them at
  // once). Every file written is closed and renamed into place before run()
  // returns.
  std::fflush(nullptr);
  _exit(status);
}
