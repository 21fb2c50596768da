#pragma once
// One process, many imports: the loader keeps one object per soname per
// process, so whoever loads a soname first decides the copy every later
// dlopen binds to. doctor opens each root alone; this module loads roots in
// sequence in one simulated process (the global scope and the loaded
// objects carry over, loader::Simulator::dlopen), to find the failures that
// depend on import order and to run a user's own sequence (doctor --imports).
// Pure: files through FileSystemView.
#include <cstddef>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"

namespace condacuda::doctor {

// One dlopen of a sequence: RTLD_NOW, and RTLD_LOCAL as Python imports an
// extension (sys.getdlopenflags()), or RTLD_GLOBAL where a framework
// preloads its libraries that way (ctypes.CDLL(mode=RTLD_GLOBAL)).
struct ImportStep {
  std::string file; // absolute
  loader::Visibility visibility = loader::Visibility::local;
};

struct SequenceStep {
  std::string file;  // prefix-relative when inside the env
  loader::Visibility visibility = loader::Visibility::local;
  bool loads = true;
  std::string first_error;
  bool loads_alone = true; // in a fresh process
  // For a step that fails only in this sequence: the soname an earlier step
  // loaded, the copy it loaded (absolute), the earlier step, and the copy
  // this step would load alone.
  std::string soname, loaded_copy, loaded_by, own_copy;
};

// Runs `steps` in order in one copy of the host process (`host` as doctor
// started it); a failed dlopen leaves the process unchanged, as the real one.
std::vector<SequenceStep> simulate_sequence(loader::Simulator& sim, const loader::Process& host,
                                            const std::vector<ImportStep>& steps, const std::string& prefix,
                                            loader::FileSystemView& files);

// The most orders (one root loaded after another) the pass simulates: past
// it the pairs left are not tried, and an `import-order-skipped` info finding
// says how many and which roots (README, doctor --imports). Grouped, the
// seed env with 600 extensions needs a few dozen.
inline constexpr std::size_t max_simulated_orders = 4096;

struct OrderPass {
  // false: every root its own class, each pair simulated (the exhaustive
  // pass, which the grouped one must match: tests).
  bool grouped = true;
  std::size_t max_orders = max_simulated_orders;
};

// The import-order findings of `report`'s roots: for each pair of roots that
// load alone and whose closures share a soname resolved to different files,
// both orders are simulated; an order that fails is an `import-order` error
// naming both roots, the soname, the copy each would load, the error, and
// the order that works (if one does). One finding per soname and pair of
// copies, listing every pair of roots it affects.
// Roots of one class (root_classes) load alike in any order, so one
// representative pair is simulated per pair of classes and its verdict
// given to every pair of their members, with their own names.
std::vector<Finding> import_order_findings(const DoctorReport& report, loader::Simulator& sim,
                                           const loader::Process& host, loader::FileSystemView& files,
                                           const OrderPass& pass = {});

// The roots (indices into report.roots, those that load alone) grouped into
// classes that behave alike in any import order: the same files and paths
// for every other object of their closure, and the same facts of their own
// that a sequence can meet (DT_NEEDED, search paths, flags, version needs,
// references in relocation order, definitions their dependencies refer to).
// A root another root's closure contains, by soname or by file, is a class
// of its own: its identity matters to that root.
std::vector<std::vector<std::size_t>> root_classes(const DoctorReport& report, loader::FileSystemView& files);

// The finding for one step of a user's sequence (doctor --imports) that fails
// only because of an earlier step.
Finding sequence_finding(const SequenceStep& step, const DoctorInputs& inputs, loader::FileSystemView& files);

} // namespace condacuda::doctor
