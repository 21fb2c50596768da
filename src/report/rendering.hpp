#pragma once
// The output formats, and one command's result ready to be shown in each
// format it offers. A command's `<command>_rendering` (in its report file)
// says how; cli's `emit_result` picks the format the command line chose. A
// new format is a value here, a renderer in each report file that offers it,
// and a case in `emit_result` (ARCHITECTURE.md, "Adding an output format").
#include <functional>
#include <string>

#include "report/table.hpp"
#include "util/json.hpp"

namespace condacuda::report {

enum class Format {
  text, // for people: tables and sentences, made safe for a terminal
  json, // a versioned document (docs/json.md)
  dot,  // Graphviz: doctor's dependency graph
};

// One result in every format it has. The functions refer to the result they
// render: call them while it lives (emit_result does, at once).
struct Rendering {
  std::function<std::string(const Style&)> text;
  // The text is data written exactly (the YAML lock, a value), not sentences
  // to make safe for a terminal.
  bool text_is_data = false;
  std::function<util::Json()> json; // the document's body; report::document adds its head
  std::string outcome;              // the head's `outcome`: the command's word for how it went
  std::function<std::string()> dot; // empty: the command draws no graph
};

} // namespace condacuda::report
