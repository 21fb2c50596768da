#include "check/protocol.hpp"

#include "util/strings.hpp"

namespace condacuda::check {

using util::Json;

namespace {
Json optional_number(const std::optional<double>& v) { return v ? Json(*v) : Json(); }
Json optional_bool(const std::optional<bool>& v) { return v ? Json(*v) : Json(); }

std::optional<double> number_at(const Json& j, const char* key) {
  const Json* v = j.get(key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->as_double();
}
std::optional<bool> bool_at(const Json& j, const char* key) {
  const Json* v = j.get(key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}
int int_at(const Json& j, const char* key, int fallback = 0) {
  const Json* v = j.get(key);
  return v ? static_cast<int>(v->as_int(fallback)) : fallback;
}

Json with_event(const char* event, Json body) {
  Json j = Json::object();
  j.set("event", event);
  for (auto& [k, v] : body.as_object()) j.set(k, v);
  return j;
}

std::vector<std::string> strings_at(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (const Json* a = j.get(key); a && a->is_array())
    for (const auto& s : a->as_array()) out.push_back(s.as_string());
  return out;
}
} // namespace

// ---- request --------------------------------------------------------------

Json request_json(const ProbeRequest& r) {
  Json j = Json::object();
  j.set("schema", request_schema);
  Json libs = Json::array();
  for (const auto& l : r.libraries) {
    Json e = Json::object();
    e.set("component", to_string(l.component));
    e.set("open", l.open);
    libs.push(std::move(e));
  }
  j.set("libraries", std::move(libs));
  j.set("device", r.device);
  j.set("sizes", sizes_json(r.sizes));
  j.set("link_only_arch", r.link_only_arch);
  j.set("devices_only", r.devices_only);
  return j;
}

Result<ProbeRequest> request_from_json(std::string_view text) {
  auto parsed = util::parse_json(text);
  if (!parsed) return parsed.error();
  const Json& j = *parsed;
  if (j.string_at("schema") != request_schema)
    return make_error(ErrorCode::bad_input, std::string("probe request: schema is not ") + request_schema);
  ProbeRequest r;
  if (const Json* libs = j.get("libraries"); libs && libs->is_array()) {
    for (const auto& e : libs->as_array()) {
      auto c = component_from_string(e.string_at("component"));
      if (!c || e.string_at("open").empty())
        return make_error(ErrorCode::bad_input, "probe request: bad library entry " + e.dump(-1));
      r.libraries.push_back(LibraryRequest{*c, e.string_at("open")});
    }
  }
  r.device = int_at(j, "device");
  if (const Json* s = j.get("sizes")) {
    auto sizes = sizes_from_json(*s);
    if (!sizes) return sizes.error();
    r.sizes = *sizes;
  }
  r.link_only_arch = j.string_at("link_only_arch");
  r.devices_only = bool_at(j, "devices_only").value_or(false);
  return r;
}

// ---- objects ----------------------------------------------------------------

Json library_json(const LibraryLoad& l) {
  Json j = Json::object();
  j.set("component", to_string(l.component));
  j.set("open", l.open);
  j.set("loaded", l.loaded);
  j.set("path", l.path.empty() ? Json() : Json(l.path));
  j.set("error", l.error.empty() ? Json() : Json(l.error));
  j.set("load_ms", l.load_ms);
  j.set("version", l.version.empty() ? Json() : Json(l.version));
  return j;
}

Json driver_json(const DriverInfo& d) {
  Json j = Json::object();
  j.set("init_called", d.init_called);
  j.set("init_result", d.init_result);
  j.set("version", d.version);
  j.set("proc_address", d.proc_address);
  return j;
}

Json device_json(const DeviceInfo& d) {
  Json j = Json::object();
  j.set("ordinal", d.ordinal);
  j.set("count", d.count);
  j.set("name", d.name);
  j.set("pci_bus_id", d.pci_bus_id);
  j.set("cc_major", d.facts.cc_major);
  j.set("cc_minor", d.facts.cc_minor);
  j.set("sms", d.facts.sms);
  j.set("clock_khz", d.facts.clock_khz);
  j.set("memory_clock_khz", d.facts.memory_clock_khz);
  j.set("bus_width_bits", d.facts.bus_width_bits);
  j.set("l2_bytes", d.l2_bytes);
  j.set("total_memory", d.total_memory);
  j.set("persistence_mode", optional_bool(d.persistence_mode));
  return j;
}

Json step_json(const StepResult& s) {
  Json j = Json::object();
  j.set("name", s.name);
  j.set("status", to_string(s.status));
  j.set("detail", s.detail);
  j.set("error", s.error.empty() ? Json() : Json(s.error));
  j.set("size", s.size);
  j.set("work", s.work);
  j.set("unit", s.unit);
  Json times = Json::array();
  for (double t : s.times_ms) times.push(t);
  j.set("times_ms", std::move(times));
  j.set("max_error", optional_number(s.max_error));
  j.set("tolerance", optional_number(s.tolerance));
  j.set("checked", s.checked);
  j.set("deterministic", optional_bool(s.deterministic));
  return j;
}

// ---- records ------------------------------------------------------------------

Json start_record(const std::optional<std::string>& ld_library_path) {
  Json j = Json::object();
  j.set("schema", probe_schema);
  j.set("ld_library_path", ld_library_path ? Json(*ld_library_path) : Json());
  return with_event("start", std::move(j));
}
Json library_record(const LibraryLoad& l) { return with_event("library", library_json(l)); }
Json objects_record(const std::vector<std::string>& paths) {
  Json j = Json::object();
  Json a = Json::array();
  for (const auto& p : paths) a.push(p);
  j.set("paths", std::move(a));
  return with_event("objects", std::move(j));
}
Json phase_record(const Phase& p) {
  Json j = Json::object();
  j.set("name", p.name);
  j.set("ms", p.ms);
  return with_event("phase", std::move(j));
}
Json driver_record(const DriverInfo& d) { return with_event("driver", driver_json(d)); }
Json device_record(const DeviceInfo& d) { return with_event("device", device_json(d)); }
Json begin_record(const std::string& step) {
  Json j = Json::object();
  j.set("step", step);
  return with_event("begin", std::move(j));
}
Json step_record(const StepResult& s) { return with_event("step", step_json(s)); }
Json note_record(const std::string& text) {
  Json j = Json::object();
  j.set("text", text);
  return with_event("note", std::move(j));
}
Json end_record() { return with_event("end", Json::object()); }

// ---- folding ------------------------------------------------------------------

namespace {
LibraryLoad library_from(const Json& j) {
  LibraryLoad l;
  l.component = component_from_string(j.string_at("component")).value_or(Component::driver);
  l.open = j.string_at("open");
  l.loaded = j.get("loaded") && j.get("loaded")->as_bool();
  l.path = j.string_at("path");
  l.error = j.string_at("error");
  l.load_ms = number_at(j, "load_ms").value_or(0);
  l.version = j.string_at("version");
  return l;
}

DeviceInfo device_from(const Json& j) {
  DeviceInfo d;
  d.ordinal = int_at(j, "ordinal");
  d.count = int_at(j, "count");
  d.name = j.string_at("name");
  d.pci_bus_id = j.string_at("pci_bus_id");
  d.facts.cc_major = int_at(j, "cc_major");
  d.facts.cc_minor = int_at(j, "cc_minor");
  d.facts.sms = int_at(j, "sms");
  d.facts.clock_khz = int_at(j, "clock_khz");
  d.facts.memory_clock_khz = int_at(j, "memory_clock_khz");
  d.facts.bus_width_bits = int_at(j, "bus_width_bits");
  d.l2_bytes = int_at(j, "l2_bytes");
  if (const Json* v = j.get("total_memory")) d.total_memory = static_cast<std::uint64_t>(v->as_int());
  d.persistence_mode = bool_at(j, "persistence_mode");
  return d;
}

StepResult step_from(const Json& j) {
  StepResult s;
  s.name = j.string_at("name");
  s.status = step_status_from_string(j.string_at("status")).value_or(StepStatus::fail);
  s.detail = j.string_at("detail");
  s.error = j.string_at("error");
  s.size = j.string_at("size");
  s.work = number_at(j, "work").value_or(0);
  s.unit = j.string_at("unit");
  if (const Json* t = j.get("times_ms"); t && t->is_array())
    for (const auto& v : t->as_array()) s.times_ms.push_back(v.as_double());
  s.max_error = number_at(j, "max_error");
  s.tolerance = number_at(j, "tolerance");
  s.checked = static_cast<std::size_t>(int_at(j, "checked"));
  s.deterministic = bool_at(j, "deterministic");
  return s;
}

void apply(ProbeResult& r, const Json& j) {
  const std::string event = j.string_at("event");
  if (event == "start") {
    r.started = true;
    if (const Json* v = j.get("ld_library_path"); v && v->is_string()) r.ld_library_path = v->as_string();
  } else if (event == "library") {
    r.libraries.push_back(library_from(j));
  } else if (event == "objects") {
    r.loaded_objects = strings_at(j, "paths");
  } else if (event == "phase") {
    r.phases.push_back(Phase{j.string_at("name"), number_at(j, "ms").value_or(0)});
  } else if (event == "driver") {
    r.driver.init_called = j.get("init_called") && j.get("init_called")->as_bool();
    r.driver.init_result = int_at(j, "init_result", -1);
    r.driver.version = int_at(j, "version");
    r.driver.proc_address = j.get("proc_address") && j.get("proc_address")->as_bool();
  } else if (event == "device") {
    r.device = device_from(j);
    r.devices.push_back(*r.device);
  } else if (event == "begin") {
    r.in_progress = j.string_at("step");
  } else if (event == "step") {
    r.steps.push_back(step_from(j));
    if (r.in_progress == r.steps.back().name) r.in_progress.clear();
  } else if (event == "note") {
    r.notes.push_back(j.string_at("text"));
  } else if (event == "end") {
    r.finished = true;
  } else {
    r.protocol_errors.push_back("unknown record: " + j.dump(-1));
  }
}
} // namespace

ProbeResult fold_records(std::string_view text) {
  ProbeResult r;
  for (const auto& raw : util::split(text, "\n")) {
    std::string_view line = util::trim(raw);
    if (line.empty()) continue;
    auto parsed = util::parse_json(line);
    if (!parsed || !parsed->is_object()) {
      r.protocol_errors.push_back(std::string(line.substr(0, 200)));
      continue;
    }
    apply(r, *parsed);
  }
  return r;
}

} // namespace condacuda::check
