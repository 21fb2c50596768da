#pragma once
// The probe: what `condacuda-probe` runs in the child that `condacuda
// check` starts with the activated environment. It opens the libraries of
// the request, reports where they came from, and runs the GPU steps, writing
// one JSON record per line to `out_fd` as it goes (check/protocol.hpp).
#include "check/model.hpp"

namespace condacuda::probe {

// Returns 0 when the protocol ran to its "end" record, whatever the GPU did
// (the parent decides the outcome from the records).
int run_probe(const check::ProbeRequest& request, int out_fd);

// run_probe on a private copy of stdout, with file descriptor 1 pointed at
// stderr first: whatever a CUDA library prints cannot corrupt the records.
int run_probe_on_stdout(const check::ProbeRequest& request);

} // namespace condacuda::probe
