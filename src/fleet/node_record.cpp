#include "fleet/node_record.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>

#include "util/strings.hpp"

namespace condacuda::fleet {

namespace {
using util::Json;

std::vector<std::string> strings_at(const Json& object, std::string_view key) {
  std::vector<std::string> out;
  if (const Json* a = object.get(key); a && a->is_array())
    for (const auto& v : a->as_array())
      if (v.is_string()) out.push_back(v.as_string());
  return out;
}

std::optional<std::string> optional_string_at(const Json& object, std::string_view key) {
  const Json* v = object.get(key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->as_string();
}

Facts facts_from(const Json& node) {
  Facts f;
  f.glibc = node.string_at("glibc");
  if (const Json* d = node.get("driver")) {
    f.driver = optional_string_at(*d, "version");
    f.driver_source = d->string_at("source");
    if (f.driver) f.driver_branch = util::leading_number(*f.driver);
  }
  if (const Json* gpus = node.get("gpus"); gpus && gpus->is_array())
    for (const auto& g : gpus->as_array()) f.gpus.push_back(g.string_at("name") + " (" + g.string_at("sm") + ")");
  std::sort(f.gpus.begin(), f.gpus.end());
  f.gpus.erase(std::unique(f.gpus.begin(), f.gpus.end()), f.gpus.end());
  f.gpus_source = node.string_at("gpus_source");
  f.ld_library_path = optional_string_at(node, "ld_library_path");
  f.system_cuda_folders = strings_at(node, "system_cuda_folders");
  f.ld_so_cache_cuda = strings_at(node, "ld_so_cache_cuda");
  return f;
}

// The exit code a document states, when it is one condacuda gives (README
// "Exit codes"); a document from --from is untrusted: 256 would exit 0.
std::optional<int> stated_exit_code(const Json& document) {
  const Json* code = document.get("exit_code");
  if (!code || !code->is_int()) return std::nullopt;
  const std::int64_t v = code->as_int();
  for (int known : {0, 1, 2, 3, 4, exit_no_answer, 70})
    if (v == known) return known;
  return std::nullopt;
}

FindingLine finding_from(const Json& f) {
  return {f.string_at("code"),     f.string_at("severity"),    f.string_at("title"), f.string_at("library"),
          f.string_at("via_entry"), f.string_at("first_error"), f.string_at("fix")};
}

Verdict verdict_from(const Json& doctor) {
  Verdict v;
  v.outcome = doctor.string_at("outcome");
  v.exit_code = stated_exit_code(doctor).value_or(1);
  if (const Json* s = doctor.get("summary")) {
    if (const Json* r = s->get("roots")) v.roots = static_cast<int>(r->as_int());
    if (const Json* r = s->get("fails")) v.failing_roots = static_cast<int>(r->as_int());
  }
  for (const char* severity : {"error", "warning"})
    if (const Json* findings = doctor.get("findings"); findings && findings->is_array())
      for (const auto& f : findings->as_array())
        if (f.string_at("severity") == severity) v.findings.push_back(finding_from(f));
  return v;
}

void add_check(Verdict& v, const Json& check) {
  v.check_outcome = check.string_at("outcome");
  v.check_exit_code = stated_exit_code(check).value_or(1);
  v.check_reason = check.string_at("reason");
}

std::string schema_of(const Json& document) { return document.is_object() ? document.string_at("schema") : ""; }
} // namespace

const char* to_string(Silence s) {
  switch (s) {
  case Silence::unavailable: return "unavailable";
  case Silence::timed_out: return "timed-out";
  case Silence::not_started: return "not-started";
  case Silence::no_document: return "no-document";
  case Silence::bad_document: return "bad-document";
  case Silence::error: return "error";
  }
  return "error";
}

int worse_exit_code(int a, int b) {
  auto rank = [](int code) -> long {
    static constexpr int order[] = {0, 3, exit_no_answer, 1, 4, 2, 70};
    for (int i = 0; i < int(std::size(order)); ++i)
      if (order[i] == code) return i;
    return long(std::size(order)) + code; // an unknown code: worse than any known one, and ordered (a strict order for sorting)
  };
  return rank(a) >= rank(b) ? a : b;
}

int NodeRecord::exit_code() const {
  if (no_answer) return no_answer->exit_code;
  return verdict.check_outcome ? worse_exit_code(verdict.exit_code, verdict.check_exit_code) : verdict.exit_code;
}

NodeRecord silent_node(const std::string& node, NoAnswer why) {
  NodeRecord r;
  r.node = node;
  r.no_answer = std::move(why);
  return r;
}

NodeRecord record_from_documents(const std::string& node, util::Json doctor, util::Json check) {
  const std::string schema = schema_of(doctor);
  if (schema == "condacuda.error/1") {
    NoAnswer why{Silence::error, "condacuda: " + (doctor.get("error") ? doctor.get("error")->string_at("message") : "")};
    why.exit_code = stated_exit_code(doctor).value_or(2);
    NodeRecord r = silent_node(node, why);
    r.doctor = std::move(doctor);
    return r;
  }
  const Json* facts = doctor.is_object() ? doctor.get("node") : nullptr;
  const bool codes_known = stated_exit_code(doctor) && (check.is_null() || stated_exit_code(check));
  if (schema == "condacuda.doctor/1" && facts && facts->is_object() && !codes_known) {
    NodeRecord r = silent_node(node, {Silence::bad_document, "an exit code condacuda does not give"});
    r.doctor = std::move(doctor);
    return r;
  }
  if (schema != "condacuda.doctor/1" || !facts || !facts->is_object()) {
    const std::string what = schema.empty() ? "not a condacuda document"
                             : schema == "condacuda.doctor/1" ? "a doctor document without node facts (condacuda older than fleet)"
                                                              : "a " + schema + " document, not condacuda.doctor/1";
    NodeRecord r = silent_node(node, {Silence::bad_document, what});
    r.doctor = std::move(doctor);
    return r;
  }
  NodeRecord r;
  r.node = facts->string_at("name").empty() ? node : facts->string_at("name");
  r.hostname = facts->string_at("hostname");
  if (const Json* env = doctor.get("env")) r.env_prefix = env->string_at("prefix");
  r.facts = facts_from(*facts);
  r.verdict = verdict_from(doctor);
  r.doctor = std::move(doctor); // kept, not copied: a thousand nodes' documents are most of fleet's memory
  if (!check.is_null()) {
    add_check(r.verdict, check);
    r.check = std::move(check);
  }
  return r;
}

} // namespace condacuda::fleet
