#pragma once
// `condacuda fleet --from`: node documents gathered any other way (ssh, pdsh,
// sbatch --array, NHC, Ansible) read back as node records. Pure: text in.
#include <string>
#include <string_view>
#include <vector>

#include "fleet/node_record.hpp"

namespace condacuda::fleet {

// The node records in one file's text: one document (condacuda.doctor/1, a
// condacuda.error/1, or a condacuda.fleet/1 whose nodes' documents are read
// again), or JSON Lines of them (one compact document per line). `origin`
// (the file's name) names what a document does not: an error document's node
// is the file's base name without ".json"; a line that is not a document is a
// node "NAME:LINE" (the file's base name) with the reason (bad-document),
// never dropped.
std::vector<NodeRecord> records_from_text(std::string_view text, const std::string& origin);

// The node a file's name stands for: "out/gpu012.json" -> "gpu012".
std::string node_from_file_name(const std::string& path);

} // namespace condacuda::fleet
