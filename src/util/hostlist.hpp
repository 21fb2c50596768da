#pragma once
// Slurm's hostlist notation ("gpu[001-012,015]"), as Slurm 22.05's scontrol
// prints and reads it (docs/slurm-test-cluster.md has the oracle tables;
// tests/e2e/test_hostlist_oracle.sh compares with scontrol itself). Pure.
//
// Each entry given to the compress functions is read as scontrol reads its
// argument: a name ("node7") or a hostlist ("node[1-3]", "a,b"), so
// {"node[1-3]", "node4"} gives "node[1-4]". An entry that expand_hostlist
// refuses is kept whole as one name (scontrol would refuse the whole list).
//
// Where condacuda parts from Slurm 22.05, on inputs no real node list holds
// (the doc's tables have a row for each):
//  - a number of 2^64-1 or more (Slurm's strtoul saturates there and its
//    ranges wrap): in a name it is no number, the name stays whole; in
//    brackets the list is refused;
//  - ranges of one prefix whose numbers lie 2^31 or more apart sort by value
//    (Slurm compares their difference as an int and loses hosts);
//  - a bad range in a bracket group before a name's last one refuses the list
//    (Slurm logs it and leaves those names out);
//  - expansion stops at max_hostlist_names names or max_hostlist_bytes of them.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::util {

// The most names, and the most text, one hostlist may expand to. A hostlist
// comes from the environment or a document (untrusted), and Slurm's own limit
// of 65536 per range still lets "n[0-65535]m[0-65535]" ask for 2^32 names, or
// "n[<a million zeros>1-9]" for a gigabyte-wide name nine times.
inline constexpr std::size_t max_hostlist_names = 1'000'000;
inline constexpr std::size_t max_hostlist_bytes = 128u << 20;

// == `scontrol show hostlist a,b,c`: input order kept, no de-duplication.
std::string compress_hostlist(const std::vector<std::string>& names);

// == `scontrol show hostlistsorted a,b,c`.
std::string compress_hostlist_sorted(std::vector<std::string> names);

// == `scontrol show hostnames LIST`. An invalid list, or one over the limits
// above, is an Error (ErrorCode::bad_input, the message naming the list).
Result<std::vector<std::string>> expand_hostlist(std::string_view hostlist);

} // namespace condacuda::util
