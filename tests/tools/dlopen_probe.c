/* The oracle: the real ld.so. Opens each argument with dlopen in this fresh
 * process and prints what happened, one line per argument:
 *   OK <path>           or
 *   ERR <dlerror text>
 * Options apply to the next path only: --lazy (RTLD_LAZY instead of
 * RTLD_NOW), --global (RTLD_GLOBAL). --keep-going: continue after a failure.
 * --call SYM (after a path): calls `int SYM(void)` from it, prints
 * "CALL SYM=<value>". --maps: after the last path, prints "MAP <l_name>" for
 * every object of the process in load order.
 * A fault (SIGSEGV, SIGBUS, SIGILL, SIGFPE) is reported on stderr as
 *   FAULT <signal> pc=<address> in <file mapped there, or "?">
 * and then kills the process as it would have.
 * Exit status: 0 when every dlopen succeeded, 1 otherwise. Links only libc
 * (glibc >= 2.34 has dlopen there), so its global scope is the executable,
 * libc and ld.so: the scope condacuda's minimal host models. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* The file /proc/self/maps names at `pc`, copied into `out` ("?" if none).
 * Only read(2) and plain loops: it runs in a signal handler. */
static void mapping_of(uintptr_t pc, char* out, size_t size) {
  static char maps[1 << 16];
  strcpy(out, "?");
  int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;
  ssize_t n = 0, got;
  while (n < (ssize_t)sizeof maps - 1 && (got = read(fd, maps + n, sizeof maps - 1 - n)) > 0) n += got;
  close(fd);
  maps[n] = 0;
  for (char* line = maps; *line;) {
    char* end = strchr(line, '\n');
    if (end) *end = 0;
    uintptr_t lo = (uintptr_t)strtoull(line, NULL, 16);
    char* dash = strchr(line, '-');
    uintptr_t hi = dash ? (uintptr_t)strtoull(dash + 1, NULL, 16) : 0;
    char* path = strchr(line, '/');
    if (pc >= lo && pc < hi && path) {
      strncpy(out, path, size - 1);
      out[size - 1] = 0;
      return;
    }
    if (!end) break;
    line = end + 1;
  }
}

static void on_fault(int sig, siginfo_t* info, void* context) {
  (void)info;
  uintptr_t pc = 0;
#if defined(__x86_64__)
  pc = (uintptr_t)((ucontext_t*)context)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
  pc = (uintptr_t)((ucontext_t*)context)->uc_mcontext.pc;
#endif
  static char where[4096], line[4200];
  mapping_of(pc, where, sizeof where);
  int len = snprintf(line, sizeof line, "FAULT %d pc=%#lx in %s\n", sig, (unsigned long)pc, where);
  if (len > 0) (void)!write(2, line, (size_t)len);
  signal(sig, SIG_DFL);
  raise(sig);
}

int main(int argc, char** argv) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  static char alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt, .ss_flags = 0};
  sigaltstack(&ss, NULL);
  for (int s = 0, sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE}; s < 4; ++s) sigaction(sigs[s], &sa, NULL);
  int mode = RTLD_NOW, keep_going = 0, status = 0, maps = 0;
  void* last = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--lazy") == 0) { mode = (mode & ~RTLD_NOW) | RTLD_LAZY; continue; }
    if (strcmp(argv[i], "--global") == 0) { mode |= RTLD_GLOBAL; continue; }
    if (strcmp(argv[i], "--keep-going") == 0) { keep_going = 1; continue; }
    if (strcmp(argv[i], "--maps") == 0) { maps = 1; continue; }
    if (strcmp(argv[i], "--call") == 0 && i + 1 < argc) {
      int (*fn)(void) = last ? (int (*)(void))dlsym(last, argv[i + 1]) : NULL;
      if (fn) printf("CALL %s=%d\n", argv[i + 1], fn());
      else printf("CALL %s=unresolved\n", argv[i + 1]);
      ++i;
      continue;
    }
    last = dlopen(argv[i], mode);
    mode = RTLD_NOW;
    if (last) {
      printf("OK %s\n", argv[i]);
    } else {
      printf("ERR %s\n", dlerror());
      status = 1;
      if (!keep_going) break;
    }
  }
  if (maps) {
    struct link_map* map = NULL;
    void* self = dlopen(NULL, RTLD_NOW);
    if (self && dlinfo(self, RTLD_DI_LINKMAP, &map) == 0)
      for (; map; map = map->l_next) printf("MAP %s\n", map->l_name);
  }
  fflush(stdout);
  return status;
}
