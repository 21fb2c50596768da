/* The oracle: the real ld.so. Opens each argument with dlopen in this fresh
 * process and prints what happened, one line per argument:
 *   OK <path>           or
 *   ERR <dlerror text>
 * Options apply to the next path only: --lazy (RTLD_LAZY instead of
 * RTLD_NOW), --global (RTLD_GLOBAL). --keep-going: continue after a failure.
 * --call SYM (after a path): calls `int SYM(void)` from it, prints
 * "CALL SYM=<value>". --maps: after the last path, prints "MAP <l_name>" for
 * every object of the process in load order.
 * Exit status: 0 when every dlopen succeeded, 1 otherwise. Links only libc
 * (glibc >= 2.34 has dlopen there), so its global scope is the executable,
 * libc and ld.so: the scope condacuda's minimal host models. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
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
