# A command-line tool that runs in milliseconds pays for every shared library
# it loads (doctor on 31 CUDA libraries takes ~25 ms; loading libstdc++ and
# yaml-cpp dynamically adds ~3 ms). CONDACUDA_STATIC_RUNTIME links libstdc++,
# libgcc and, where a static archive exists, yaml-cpp and Boost.Filesystem
# statically. Packagers that want shared libraries (conda-forge) turn it off.
option(CONDACUDA_STATIC_RUNTIME "Link the C++ runtime, yaml-cpp and Boost statically" ON)
# CONDACUDA_PORTABLE (docs/portable.md): condacuda fully static (static-pie:
# it starts on any Linux kernel, whatever its C library) and condacuda-probe
# pinned to glibc 2.28 (manylinux_2_28), the build the wheel and the tarball
# ship. It needs the static runtime and x86-64 (the floor names x86-64's
# glibc symbol versions); a sanitizer build cannot be static.
option(CONDACUDA_PORTABLE "Build condacuda static and its GPU child for glibc >= 2.28" ON)
if(CONDACUDA_PORTABLE AND (NOT CONDACUDA_STATIC_RUNTIME OR CONDACUDA_SANITIZE
                           OR NOT CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64)$"))
  message(STATUS "condacuda: CONDACUDA_PORTABLE needs CONDACUDA_STATIC_RUNTIME, no sanitizer and x86-64: off")
  set(CONDACUDA_PORTABLE OFF CACHE BOOL "Build condacuda static and its GPU child for glibc >= 2.28" FORCE)
endif()

# Boost: 1.81 on Debian 12 (libboost1.81-dev). Process v2 (boost/process/v2) is
# the API we use: it exists from 1.80 on, is the only Process API from 1.88 on
# (v1 moved to boost/process/v1), and is header-only up to 1.85 but a compiled
# library (Boost::process) from 1.86 on, so link that component when it exists.
if(CONDACUDA_STATIC_RUNTIME)
  set(Boost_USE_STATIC_LIBS ON)
endif()
find_package(Boost 1.80 REQUIRED COMPONENTS filesystem OPTIONAL_COMPONENTS process)
add_library(condacuda_boost INTERFACE)
target_link_libraries(condacuda_boost INTERFACE Boost::filesystem)
if(TARGET Boost::process)
  target_link_libraries(condacuda_boost INTERFACE Boost::process)
endif()

# 0.7 at least: its parser bounds its own recursion (util/yaml.cpp checks first).
find_package(yaml-cpp 0.7 REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(CONDACUDA_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(CONDACUDA_YAML_TARGET yaml-cpp) # yaml-cpp < 0.8 exports an unnamespaced target
endif()

if(CONDACUDA_STATIC_RUNTIME)
  find_library(CONDACUDA_YAML_STATIC NAMES libyaml-cpp.a)
  if(CONDACUDA_YAML_STATIC)
    get_target_property(_yaml_includes ${CONDACUDA_YAML_TARGET} INTERFACE_INCLUDE_DIRECTORIES)
    add_library(condacuda_yaml_static STATIC IMPORTED)
    set_target_properties(condacuda_yaml_static PROPERTIES IMPORTED_LOCATION "${CONDACUDA_YAML_STATIC}")
    if(_yaml_includes)
      set_target_properties(condacuda_yaml_static PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_yaml_includes}")
    endif()
    set(CONDACUDA_YAML_TARGET condacuda_yaml_static)
  endif()
endif()

find_package(CLI11 2.1 REQUIRED)
find_package(Threads REQUIRED)

if(CONDACUDA_BUILD_TESTS)
  find_package(doctest 2.4 REQUIRED)
endif()
