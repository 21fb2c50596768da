#pragma once
// The probe protocol. The parent passes one JSON request
// (schema condacuda.probe-request/1) as an argument; the child writes JSON
// Lines on its stdout, one self-contained record per line, flushed as soon as
// each fact is known:
//   {"event":"start","schema":"condacuda.probe/1","ld_library_path":...}
//   {"event":"library",...}          one per dlopen, in order
//   {"event":"objects","paths":[...]} what dl_iterate_phdr lists after them
//   {"event":"phase","name":"cuInit","ms":412.5}
//   {"event":"driver",...} {"event":"device",...}
//   {"event":"begin","step":"gemm-bf16"} then {"event":"step",...}
//   {"event":"note","text":...}
//   {"event":"end"}
// Records rather than one document at the end: when a library crashes the
// child or a kernel hangs until the parent's timeout, everything before still
// arrives, and the last "begin" without its "step" names the culprit. Pure.
#include <string>
#include <string_view>

#include "check/model.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace condacuda::check {

inline constexpr const char* probe_schema = "condacuda.probe/1";
inline constexpr const char* request_schema = "condacuda.probe-request/1";

util::Json request_json(const ProbeRequest& r);
Result<ProbeRequest> request_from_json(std::string_view text);

// Records (each carries "event").
util::Json start_record(const std::optional<std::string>& ld_library_path);
util::Json library_record(const LibraryLoad& l);
util::Json objects_record(const std::vector<std::string>& paths);
util::Json phase_record(const Phase& p);
util::Json driver_record(const DriverInfo& d);
util::Json device_record(const DeviceInfo& d);
util::Json begin_record(const std::string& step);
util::Json step_record(const StepResult& s);
util::Json note_record(const std::string& text);
util::Json end_record();

// The same objects without "event", for the check report.
util::Json library_json(const LibraryLoad& l);
util::Json driver_json(const DriverInfo& d);
util::Json device_json(const DeviceInfo& d);
util::Json step_json(const StepResult& s);

// Folds the child's stdout into a result. Never fails: a line that is not a
// record goes to protocol_errors; a truncated last line is expected when the
// child died.
ProbeResult fold_records(std::string_view text);

} // namespace condacuda::check
