#include "elf/chain_walks.hpp"

#include <algorithm>
#include <utility>

namespace condacuda::elf {

ChainWalks::ChainWalks(std::vector<std::uint32_t> next) : next_(std::move(next)) {
  const auto n = static_cast<std::uint32_t>(next_.size());
  for (auto& x : next_)
    if (x >= n) x = none;

  // Loops: follow each new node's walk, marking its trail; meeting a node of
  // the current trail closes a loop. Every node is on one trail only.
  loop_.assign(n, none);
  loop_pos_.assign(n, 0);
  std::vector<std::uint8_t> state(n, 0); // 0 new, 1 on the current trail, 2 done
  std::vector<std::uint32_t> trail;
  for (std::uint32_t start = 0; start < n; ++start) {
    if (state[start] != 0) continue;
    trail.clear();
    std::uint32_t u = start;
    while (u != none && state[u] == 0) {
      state[u] = 1;
      trail.push_back(u);
      u = next_[u];
    }
    if (u != none && state[u] == 1) {
      auto id = static_cast<std::uint32_t>(loop_len_.size());
      auto first = std::find(trail.begin(), trail.end(), u);
      std::uint32_t pos = 0;
      for (auto it = first; it != trail.end(); ++it) {
        loop_[*it] = id;
        loop_pos_[*it] = pos++;
      }
      loop_len_.push_back(pos);
    }
    for (auto v : trail) state[v] = 2;
  }

  // The other nodes form trees: a node's parent is its successor unless that
  // is on a loop or missing, which makes the node a root. Depth and root by
  // walking up to the first node already done.
  auto parent = [&](std::uint32_t u) {
    std::uint32_t p = next_[u];
    return p != none && loop_[p] == none ? p : none;
  };
  depth_.assign(n, none);
  root_.assign(n, none);
  for (std::uint32_t u = 0; u < n; ++u) {
    if (loop_[u] != none || depth_[u] != none) continue;
    trail.clear();
    std::uint32_t v = u;
    while (v != none && depth_[v] == none) {
      trail.push_back(v);
      v = parent(v);
    }
    std::uint32_t depth = v == none ? 0 : depth_[v] + 1;
    std::uint32_t root = v == none ? trail.back() : root_[v];
    for (auto it = trail.rbegin(); it != trail.rend(); ++it) {
      depth_[*it] = depth++;
      root_[*it] = root;
    }
  }

  // DFS intervals in the reversed trees (children point at their parent):
  // the walk from a meets b, both off loops, when a lies in b's subtree.
  std::vector<std::uint32_t> first_child(n + 1, 0), children;
  for (std::uint32_t u = 0; u < n; ++u)
    if (loop_[u] == none && parent(u) != none) ++first_child[parent(u) + 1];
  for (std::uint32_t u = 0; u < n; ++u) first_child[u + 1] += first_child[u];
  children.resize(first_child[n]);
  std::vector<std::uint32_t> fill(first_child.begin(), first_child.end() - 1);
  for (std::uint32_t u = 0; u < n; ++u)
    if (loop_[u] == none && parent(u) != none) children[fill[parent(u)]++] = u;
  enter_.assign(n, 0);
  leave_.assign(n, 0);
  std::uint32_t clock = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> stack; // node, next child slot
  for (std::uint32_t r = 0; r < n; ++r) {
    if (loop_[r] != none || parent(r) != none) continue;
    enter_[r] = clock++;
    stack.emplace_back(r, first_child[r]);
    while (!stack.empty()) {
      auto& [node, slot] = stack.back();
      if (slot == first_child[node + 1]) {
        leave_[node] = clock;
        stack.pop_back();
        continue;
      }
      std::uint32_t child = children[slot++];
      enter_[child] = clock++;
      stack.emplace_back(child, first_child[child]);
    }
  }
}

std::optional<std::uint64_t> ChainWalks::steps(std::uint32_t from, std::uint32_t to) const {
  if (from >= next_.size() || to >= next_.size()) return std::nullopt;
  if (loop_[to] == none) {
    if (loop_[from] != none) return std::nullopt;
    if (enter_[to] <= enter_[from] && enter_[from] < leave_[to]) return std::uint64_t{depth_[from]} - depth_[to];
    return std::nullopt;
  }
  std::uint64_t lead = 0;
  std::uint32_t entry = from;
  if (loop_[from] == none) {
    std::uint32_t exit = next_[root_[from]]; // the loop node the tree hangs off, if any
    if (exit == none || loop_[exit] != loop_[to]) return std::nullopt;
    lead = std::uint64_t{depth_[from]} + 1;
    entry = exit;
  } else if (loop_[from] != loop_[to]) {
    return std::nullopt;
  }
  std::uint32_t len = loop_len_[loop_[to]];
  return lead + (loop_pos_[to] + len - loop_pos_[entry]) % len;
}

} // namespace condacuda::elf
