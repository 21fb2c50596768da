#include "fleet/documents.hpp"

#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::fleet {

namespace {
using util::Json;

// A condacuda.fleet/1 document's nodes, each from its original documents. A
// node entry without a name is named by the document and its place in the
// list ("out:3"), a document without a list of nodes is a bad document:
// neither is dropped, and no class is named by an empty hostlist.
void add_fleet_nodes(const Json& fleet, const std::string& hint, std::vector<NodeRecord>& out) {
  const Json* nodes = fleet.get("nodes");
  if (!nodes || !nodes->is_array()) {
    out.push_back(silent_node(hint, {Silence::bad_document, "a condacuda.fleet/1 document without a list of nodes"}));
    return;
  }
  std::size_t place = 0;
  for (const auto& n : nodes->as_array()) {
    ++place;
    const std::string name = n.string_at("name").empty() ? hint + ":" + std::to_string(place) : n.string_at("name");
    const Json* doctor = n.get("doctor");
    const Json* check = n.get("check");
    const Json* silent = n.get("no_answer");
    if (silent && silent->is_object() && (!doctor || doctor->is_null())) {
      NoAnswer why{Silence::no_document, silent->string_at("reason")};
      const std::string kind = silent->string_at("kind");
      for (Silence s : {Silence::unavailable, Silence::timed_out, Silence::not_started, Silence::no_document,
                        Silence::bad_document, Silence::error})
        if (kind == to_string(s)) why.kind = s;
      if (const Json* code = silent->get("exit_code"); code && code->is_int() && code->as_int() == 2) why.exit_code = 2;
      why.detail = silent->string_at("detail");
      out.push_back(silent_node(name, why));
      continue;
    }
    out.push_back(record_from_documents(name, doctor ? *doctor : Json(), check ? *check : Json()));
  }
}

void add_document(Json document, const std::string& hint, std::vector<NodeRecord>& out) {
  if (document.is_object() && document.string_at("schema") == "condacuda.fleet/1") add_fleet_nodes(document, hint, out);
  else out.push_back(record_from_documents(hint, std::move(document), Json()));
}
} // namespace

std::string node_from_file_name(const std::string& path) {
  const std::string base = util::base_name(path);
  std::string name = base;
  if (name.ends_with(".json")) name.resize(name.size() - 5);
  else if (name.ends_with(".jsonl")) name.resize(name.size() - 6);
  return name.empty() ? (base.empty() ? "-" : base) : name; // ".json": the file's own name
}

std::vector<NodeRecord> records_from_text(std::string_view text, const std::string& origin) {
  std::vector<NodeRecord> out;
  const std::string hint = node_from_file_name(origin);
  auto whole = util::parse_json(text);
  if (whole) {
    add_document(std::move(*whole), hint, out);
    return out;
  }
  // JSON Lines only when its first line is a document: a truncated or
  // hand-broken pretty document is one bad node, not one per line.
  const std::string_view first = util::trim(text.substr(0, text.find('\n')));
  if (!first.empty() && !util::parse_json(first)) {
    out.push_back(silent_node(hint, {Silence::bad_document, "not a JSON document", exit_no_answer,
                                     origin + ": " + whole.error().message}));
    return out;
  }
  std::size_t line_number = 0;
  bool any = false;
  while (!text.empty()) {
    ++line_number;
    const std::string_view line = util::next_line(text);
    if (util::trim(line).empty()) continue;
    any = true;
    const std::string where = util::base_name(origin) + ":" + std::to_string(line_number);
    if (auto doc = util::parse_json(line)) add_document(std::move(*doc), where, out);
    else out.push_back(silent_node(where, {Silence::bad_document, "not a JSON document", exit_no_answer, doc.error().message}));
  }
  if (!any) out.push_back(silent_node(hint, {Silence::no_document, "an empty file", exit_no_answer, origin}));
  return out;
}

} // namespace condacuda::fleet
