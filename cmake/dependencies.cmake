# A command-line tool that runs in milliseconds pays for every shared library
# it loads (doctor on 31 CUDA libraries takes ~25 ms; loading libstdc++ and
# yaml-cpp dynamically adds ~3 ms). CONDACUDA_STATIC_RUNTIME links libstdc++,
# libgcc and, where a static archive exists, yaml-cpp and Boost.Filesystem
# statically. Packagers that want shared libraries (conda-forge) turn it off.
option(CONDACUDA_STATIC_RUNTIME "Link the C++ runtime, yaml-cpp and Boost statically" ON)

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
