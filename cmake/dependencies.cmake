# Boost: 1.81 on Debian 12 (libboost1.81-dev). Process v2 (boost/process/v2) is
# the API we use: it exists from 1.80 on, is the only Process API from 1.88 on
# (v1 moved to boost/process/v1), and is header-only up to 1.85 but a compiled
# library (Boost::process) from 1.86 on, so link that component when it exists.
find_package(Boost 1.80 REQUIRED COMPONENTS filesystem OPTIONAL_COMPONENTS process)
add_library(condacuda_boost INTERFACE)
target_link_libraries(condacuda_boost INTERFACE Boost::filesystem)
if(TARGET Boost::process)
  target_link_libraries(condacuda_boost INTERFACE Boost::process)
endif()
# Process v2 uses boost::filesystem paths unless told otherwise; we use std::filesystem.
target_compile_definitions(condacuda_boost INTERFACE BOOST_PROCESS_USE_STD_FS=1)

find_package(yaml-cpp 0.6 REQUIRED)
if(TARGET yaml-cpp::yaml-cpp)
  set(CONDACUDA_YAML_TARGET yaml-cpp::yaml-cpp)
else()
  set(CONDACUDA_YAML_TARGET yaml-cpp) # yaml-cpp < 0.8 exports an unnamespaced target
endif()

find_package(CLI11 2.1 REQUIRED)
find_package(Threads REQUIRED)

if(CONDACUDA_BUILD_TESTS)
  find_package(doctest 2.4 REQUIRED)
endif()
