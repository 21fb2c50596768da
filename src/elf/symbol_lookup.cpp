// Finding an object's definitions of a name: the SysV and GNU hash functions,
// the walks of DT_HASH and DT_GNU_HASH chains that glibc's do_lookup_x makes
// (elf/dl-lookup.c, docs/loader-model.md §6.4), and the name index that
// replaces a degenerate table (a hostile file must not make a lookup cost more
// than a few chain steps).
#include <algorithm>

#include "elf/chain_walks.hpp"
#include "elf/elf_object.hpp"

namespace condacuda::elf {

namespace {
// A lookup walks one hash chain. Linkers size the buckets so that chains stay
// a few entries long (bfd, gold and lld aim at 1-4 on average); a longer one
// makes the table degenerate, and lookups then use a name index instead.
constexpr std::uint64_t max_chain_walk = 256;
} // namespace

std::uint32_t sysv_hash(std::string_view name) {
  std::uint32_t h = 0;
  for (unsigned char c : name) {
    h = (h << 4) + c;
    std::uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

std::uint32_t gnu_hash(std::string_view name) {
  std::uint32_t h = 5381;
  for (unsigned char c : name) h = h * 33 + c;
  return h;
}

void ElfObject::prepare_gnu_hash(Lazy& lazy) const {
  if (!gnu_hash_offset_) return;
  std::uint64_t gh = *gnu_hash_offset_;
  auto nbuckets = reader_.u32(gh), symoffset = reader_.u32(gh + 4), bloom_size = reader_.u32(gh + 8);
  auto shift = reader_.u32(gh + 12);
  if (!nbuckets || !symoffset || !bloom_size || !shift || *nbuckets == 0 || *bloom_size == 0) return;
  // ld.so masks the bloom index with bloom_size - 1: a power of two.
  if ((*bloom_size & (*bloom_size - 1)) != 0) return;
  GnuHash g;
  g.nbuckets = *nbuckets;
  g.symoffset = *symoffset;
  g.bloom_size = *bloom_size;
  g.shift = *shift & 31;
  g.bloom = gh + 16;
  g.buckets = g.bloom + 8ull * g.bloom_size;
  g.chain = g.buckets + 4ull * g.nbuckets;
  if (!reader_.has(g.bloom, 8ull * g.bloom_size + 4ull * g.nbuckets)) return;
  g.valid = true;
  lazy.gnu = g;
}

void ElfObject::prepare_sysv_hash(Lazy& lazy) const {
  if (!sysv_hash_offset_) return;
  std::uint64_t sh = *sysv_hash_offset_;
  auto nbucket = reader_.u32(sh), nchain = reader_.u32(sh + 4);
  if (!nbucket || !nchain || *nbucket == 0) return;
  lazy.sysv = SysvHash{true, *nbucket, *nchain, sh + 8, sh + 8 + 4ull * *nbucket};
}

bool ElfObject::gnu_bloom_passes(const GnuHash& gnu, std::uint32_t h) const {
  std::uint64_t word = *reader_.u64(gnu.bloom + 8ull * ((h / 64) & (gnu.bloom_size - 1)));
  // do_lookup_x shifts the 32-bit `unsigned int new_hash` (glibc 2.36,
  // elf/dl-lookup.c): x86-64 takes the count modulo 32 (kept so at parse
  // time), as the real ld.so shows on a shift of 0x7b3de65.
  std::uint64_t mask = (1ull << (h % 64)) | (1ull << ((h >> gnu.shift) % 64));
  return (word & mask) == mask;
}

void ElfObject::prepare_name_index(Lazy& lazy) const {
  // Decide whether the table lookup_candidates would walk is degenerate, in
  // time linear in its size (each entry is read a bounded number of times).
  bool degenerate = false;
  if (lazy.gnu.valid) {
    // GNU chains are runs of consecutive entries ended by a set low bit; a
    // walk from any bucket costs at most the rest of its run.
    std::uint64_t run = 0;
    for (std::uint64_t i = lazy.gnu.symoffset; i < symbol_count_ && !degenerate; ++i) {
      auto hv = reader_.u32(lazy.gnu.chain + 4ull * (i - lazy.gnu.symoffset));
      if (!hv) break; // walks stop where the table becomes unreadable
      run = (*hv & 1u) ? 0 : run + 1;
      degenerate = run > max_chain_walk;
    }
  } else if (lazy.sysv.valid) {
    // SysV chains are linked lists; in a sound table each entry is on one
    // chain. Shared entries or loops make the table degenerate, as does length.
    std::vector<bool> seen(std::min<std::uint64_t>(lazy.sysv.nchain, symbol_count_));
    for (std::uint32_t b = 0; b < lazy.sysv.nbucket && !degenerate; ++b) {
      auto idx = reader_.u32(lazy.sysv.buckets + 4ull * b);
      if (!idx) break;
      for (std::uint64_t length = 0; *idx != 0 && *idx < seen.size(); ++length) {
        if (seen[*idx] || length > max_chain_walk) {
          degenerate = true;
          break;
        }
        seen[*idx] = true;
        idx = reader_.u32(lazy.sysv.chains + 4ull * *idx);
        if (!idx) break;
      }
    }
  } else {
    degenerate = symbol_count_ > max_chain_walk; // every lookup is a linear scan
  }
  if (!degenerate) return;

  // Each name's candidates, exactly those the walk would pass to visit(), in
  // the same order (a loop is followed once around instead of until the
  // step bound).
  lazy.use_name_index = true;
  auto add = [&](std::uint32_t i, std::string_view name) { lazy.name_index[name].push_back(i); };
  if (lazy.gnu.valid) {
    // Entry i is met by the walk for its own name when that name's bucket
    // starts the walk at or before i, within i's run, and its hash word and
    // bloom bits match.
    std::uint64_t run_start = lazy.gnu.symoffset; // first entry of the run holding i
    for (std::uint64_t i = lazy.gnu.symoffset; i < symbol_count_; ++i) {
      auto hv = reader_.u32(lazy.gnu.chain + 4ull * (i - lazy.gnu.symoffset));
      if (!hv) break;
      auto s = symbol(static_cast<std::uint32_t>(i));
      if (s) {
        std::uint32_t h = gnu_hash(s->name);
        std::uint32_t start = *reader_.u32(lazy.gnu.buckets + 4ull * (h % lazy.gnu.nbuckets));
        if (start != 0 && start >= lazy.gnu.symoffset && start >= run_start && start <= i &&
            ((*hv ^ h) >> 1) == 0 && gnu_bloom_passes(lazy.gnu, h))
          add(static_cast<std::uint32_t>(i), s->name);
      }
      if (*hv & 1u) run_start = i + 1;
    }
  } else if (lazy.sysv.valid) {
    // Entry i is met by the walk for its own name when the walk from that
    // name's bucket reaches it; ChainWalks answers for all entries at once.
    auto n = static_cast<std::uint32_t>(std::min<std::uint64_t>(lazy.sysv.nchain, symbol_count_));
    std::vector<std::uint32_t> next(n, ChainWalks::no_next);
    for (std::uint32_t i = 1; i < n; ++i) {
      auto v = reader_.u32(lazy.sysv.chains + 4ull * i);
      if (v && *v != 0) next[i] = *v; // 0 (STN_UNDEF) or an unreadable entry ends the walk
    }
    ChainWalks walks(std::move(next));
    std::vector<std::pair<std::uint64_t, std::uint32_t>> met; // steps from the bucket, entry
    for (std::uint32_t i = 1; i < n; ++i) {
      auto s = symbol(i);
      if (!s) continue;
      auto start = reader_.u32(lazy.sysv.buckets + 4ull * (sysv_hash(s->name) % lazy.sysv.nbucket));
      if (!start || *start == 0) continue;
      if (auto steps = walks.steps(*start, i)) met.emplace_back(*steps, i);
    }
    std::sort(met.begin(), met.end());
    for (const auto& [steps, i] : met) add(i, symbol(i)->name);
  } else {
    for (std::uint32_t i = 1; i < symbol_count_; ++i)
      if (auto s = symbol(i)) add(i, s->name);
  }
}

void ElfObject::lookup_candidates(const HashedName& name, FunctionRef visit) const {
  if (!lazy_) return; // parsed without symbols: nothing to look up
  // The hash tables' headers and the name index, at the first lookup: a
  // repeated doctor run looks up nothing, and reads none of those pages.
  std::call_once(lazy_->index_decided, [this] {
    prepare_gnu_hash(*lazy_);
    prepare_sysv_hash(*lazy_);
    prepare_name_index(*lazy_);
  });
  const Lazy& lazy = *lazy_;
  if (lazy.use_name_index) {
    auto it = lazy.name_index.find(name.name());
    if (it == lazy.name_index.end()) return;
    for (std::uint32_t i : it->second)
      if (!visit(i)) return;
    return;
  }
  if (lazy.gnu.valid) {
    // Same walk as do_lookup_x with DT_GNU_HASH (elf/dl-lookup.c).
    const std::uint32_t h = name.gnu();
    if (!gnu_bloom_passes(lazy.gnu, h)) return;
    std::uint32_t idx = *reader_.u32(lazy.gnu.buckets + 4ull * (h % lazy.gnu.nbuckets));
    if (idx == 0 || idx < lazy.gnu.symoffset) return;
    for (std::uint32_t i = idx; i < symbol_count_; ++i) {
      auto hv = reader_.u32(lazy.gnu.chain + 4ull * (i - lazy.gnu.symoffset));
      if (!hv) return;
      if (((*hv ^ h) >> 1) == 0 && !visit(i)) return;
      if (*hv & 1u) return;
    }
    return;
  }
  if (lazy.sysv.valid) {
    const std::uint32_t h = name.sysv();
    auto idx = reader_.u32(lazy.sysv.buckets + 4ull * (h % lazy.sysv.nbucket));
    for (std::uint32_t steps = 0; idx && *idx != 0 && *idx < lazy.sysv.nchain && steps <= lazy.sysv.nchain; ++steps) {
      if (!visit(*idx)) return;
      idx = reader_.u32(lazy.sysv.chains + 4ull * *idx);
    }
    return;
  }
  for (std::uint32_t i = 1; i < symbol_count_; ++i)
    if (!visit(i)) return;
}

} // namespace condacuda::elf
