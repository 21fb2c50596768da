#pragma once
// Many walks over one set of singly linked chains (a SysV hash table's chain
// array), answered together in linear time. The ELF reader uses it when a
// table is degenerate (chains that share entries, loop, or run very long), so
// that the candidates each lookup would meet can be listed without walking
// the table once per lookup (quadratic work on a hostile file).
//
// Node i's successor is next[i], or no_next where the walk ends. A walk from
// a node meets it, then its successor, and so on, until no_next or until it
// would meet a node a second time (a loop is followed once around).
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace condacuda::elf {

class ChainWalks {
public:
  static constexpr std::uint32_t no_next = std::numeric_limits<std::uint32_t>::max();

  // next.size() nodes; each next[i] is a node index or no_next.
  explicit ChainWalks(std::vector<std::uint32_t> next);

  // The number of steps after which the walk from `from` meets `to` (0 when
  // from == to), or nullopt when it never does. Constant time.
  std::optional<std::uint64_t> steps(std::uint32_t from, std::uint32_t to) const;

private:
  static constexpr std::uint32_t none = no_next;
  std::vector<std::uint32_t> next_;
  // Nodes on a loop: its id, their place on it, its length.
  std::vector<std::uint32_t> loop_, loop_pos_, loop_len_;
  // Other nodes form trees hanging off a loop or ending the walk: depth below
  // their tree's last node, that node, DFS interval in the reversed tree.
  std::vector<std::uint32_t> depth_, root_, enter_, leave_;
};

} // namespace condacuda::elf
