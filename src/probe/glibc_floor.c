/* The glibc floor of condacuda-probe (docs/portable.md): linked into the
 * portable probe only, with one `-Wl,--wrap=NAME` per function below
 * (src/CMakeLists.txt, CONDACUDA_PROBE_FLOOR_WRAPS). The build machine's
 * glibc (2.36 on Debian 12) hands every reference its newest symbol version;
 * a program that needs GLIBC_2.34 does not start on glibc 2.28 (RHEL 8, the
 * manylinux_2_28 floor PyTorch's wheels have). --wrap sends the references of
 * every object of the link, libstdc++.a's and libgcc_eh.a's included, to the
 * __wrap_NAME here, which calls NAME at its oldest version:
 *
 *   - a function that only moved into libc.so.6 in 2.34 (dlopen, the pthread
 *     keys) has the same ABI at GLIBC_2.2.5, its version from before the move.
 *     ld.so binds a versioned reference by symbol name and version in the
 *     global scope, not by the file the linker saw (elf/dl-lookup.c,
 *     check_match), so on glibc < 2.34 the definitions in libdl.so.2 and
 *     libpthread.so.0 serve it: the probe lists both in DT_NEEDED.
 *   - __libc_start_main@GLIBC_2.34 exists because 2.34's crt1.o stopped
 *     passing an `init` that runs the program's constructors (glibc commit
 *     035c012e, which took __libc_csu_init out of the crt files): the 2.34
 *     entry runs them itself. The old entry runs `init` when given one,
 *     before and after 2.34 alike (csu/libc-start.c), so the wrapper passes
 *     one that walks .init_array, as the old crt1.o's __libc_csu_init did.
 *   - what did not exist before 2.29 gets a fallback: _dl_find_object (2.35,
 *     the unwinder's lookup of a PC's .eh_frame) through dl_iterate_phdr;
 *     arc4random (2.36, only in libstdc++'s random_device) through the
 *     getrandom system call; __libc_single_threaded (2.32, a variable) as
 *     "not known to be single-threaded", so libstdc++ always uses atomics.
 *
 * `condacuda-probe --self-test` exercises each path; e2e.glibc_floor checks
 * that no reference above GLIBC_2.28 is left, and the tests in Debian 11 and
 * 13 roots run the probe there. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* NAME_floor: NAME at glibc version VERSION; __wrap_NAME calls it. */
#define FLOOR(ret, name, version, params, args)                                                                       \
  extern ret name##_floor params;                                                                                     \
  __asm__(".symver " #name "_floor," #name "@" version);                                                             \
  ret __wrap_##name params;                                                                                           \
  ret __wrap_##name params { return name##_floor args; }

FLOOR(void*, dlopen, "GLIBC_2.2.5", (const char* file, int mode), (file, mode))
FLOOR(void*, dlsym, "GLIBC_2.2.5", (void* handle, const char* name), (handle, name))
FLOOR(char*, dlerror, "GLIBC_2.2.5", (void), ())
FLOOR(int, dlinfo, "GLIBC_2.3.3", (void* handle, int request, void* arg), (handle, request, arg))
FLOOR(int, pthread_key_create, "GLIBC_2.2.5", (pthread_key_t * key, void (*destroy)(void*)), (key, destroy))
FLOOR(int, __pthread_key_create, "GLIBC_2.2.5", (pthread_key_t * key, void (*destroy)(void*)), (key, destroy))
FLOOR(int, pthread_key_delete, "GLIBC_2.2.5", (pthread_key_t key), (key))
FLOOR(void*, pthread_getspecific, "GLIBC_2.2.5", (pthread_key_t key), (key))
FLOOR(int, pthread_setspecific, "GLIBC_2.2.5", (pthread_key_t key, const void* value), (key, value))
FLOOR(int, pthread_once, "GLIBC_2.2.5", (pthread_once_t * once, void (*run)(void)), (once, run))
FLOOR(int, pthread_rwlock_rdlock, "GLIBC_2.2.5", (pthread_rwlock_t * lock), (lock))
FLOOR(int, pthread_rwlock_wrlock, "GLIBC_2.2.5", (pthread_rwlock_t * lock), (lock))
FLOOR(int, pthread_rwlock_unlock, "GLIBC_2.2.5", (pthread_rwlock_t * lock), (lock))

extern void* dlvsym_floor(void* handle, const char* name, const char* version);
__asm__(".symver dlvsym_floor,dlvsym@GLIBC_2.2.5");

/* ---- program start ------------------------------------------------------- */

typedef int (*main_function)(int, char**, char**);
typedef void (*array_function)(int, char**, char**);
extern int __libc_start_main_floor(main_function main, int argc, char** argv, main_function init, void (*fini)(void),
                                   void (*rtld_fini)(void), void* stack_end);
__asm__(".symver __libc_start_main_floor,__libc_start_main@GLIBC_2.2.5");

/* The linker's bounds of .init_array (PROVIDE_HIDDEN in its default script). */
extern array_function __init_array_start[] __attribute__((visibility("hidden")));
extern array_function __init_array_end[] __attribute__((visibility("hidden")));

static int run_init_array(int argc, char** argv, char** envp) {
  for (array_function* f = __init_array_start; f < __init_array_end; ++f) (*f)(argc, argv, envp);
  return 0;
}

int __wrap___libc_start_main(main_function main, int argc, char** argv, main_function init, void (*fini)(void),
                             void (*rtld_fini)(void), void* stack_end);
int __wrap___libc_start_main(main_function main, int argc, char** argv, main_function init, void (*fini)(void),
                             void (*rtld_fini)(void), void* stack_end) {
  (void)init; /* NULL from 2.34's crt1.o */
  (void)fini; /* ld.so's _dl_fini runs .fini_array, as for any object */
  return __libc_start_main_floor(main, argc, argv, run_init_array, NULL, rtld_fini, stack_end);
}

/* ---- what glibc 2.28 lacks ------------------------------------------------- */

/* Read by libstdc++ (GCC 12) to skip atomics; 0 keeps them. */
char __wrap___libc_single_threaded = 0;

uint32_t __wrap_arc4random(void);
uint32_t __wrap_arc4random(void) {
  uint32_t value = 0;
  long got;
  do got = syscall(SYS_getrandom, &value, sizeof value, 0);
  while (got < 0 && errno == EINTR);
  return value;
}

struct pc_search {
  uintptr_t pc;
  struct dl_find_object* result;
};

/* The object whose PT_LOAD segments hold the PC: its bounds and its
 * PT_GNU_EH_FRAME, what _dl_find_object reports (dlfcn/dl_find_object.h). */
static int find_object_of_pc(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  struct pc_search* search = data;
  uintptr_t low = UINTPTR_MAX, high = 0;
  void* eh_frame = NULL;
  int holds_pc = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      if (start < low) low = start;
      if (start + ph->p_memsz > high) high = start + ph->p_memsz;
      if (search->pc >= start && search->pc < start + ph->p_memsz) holds_pc = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (void*)start;
    }
  }
  if (!holds_pc) return 0;
  memset(search->result, 0, sizeof *search->result);
  search->result->dlfo_map_start = (void*)low;
  search->result->dlfo_map_end = (void*)high;
  search->result->dlfo_eh_frame = eh_frame;
  return 1;
}

typedef int (*find_object_function)(void*, struct dl_find_object*);

int __wrap__dl_find_object(void* pc, struct dl_find_object* result);
int __wrap__dl_find_object(void* pc, struct dl_find_object* result) {
  /* glibc's own where it has one (2.35+): lock-free, and it knows the link map. */
  static find_object_function own;
  static int looked;
  if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(&own, (find_object_function)dlvsym_floor(RTLD_DEFAULT, "_dl_find_object", "GLIBC_2.35"),
                     __ATOMIC_RELAXED);
    __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
  }
  find_object_function found = __atomic_load_n(&own, __ATOMIC_RELAXED);
  if (found) return found(pc, result);
  struct pc_search search = {(uintptr_t)pc, result};
  return dl_iterate_phdr(find_object_of_pc, &search) ? 0 : -1;
}
