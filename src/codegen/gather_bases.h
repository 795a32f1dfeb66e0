// How a vector loop's gathering loads are addressed: a base pointer for the
// part of each address that the loop does not change, and an offset for the
// rest, which loads that differ only in the invariant part then share.
//
// A gather's lanes are loaded one by one where the machine's gather
// instruction loses (docs/jit.md, "Gathers"): each lane's offset is moved
// from a vector register to an address register first. Bilateral grid's
// slicing reads eight corners of a cell per pixel; summed as one offset
// each, the eight differ in their loop-invariant terms (the neighbour's
// stride) and GCC extracts eight vectors of lanes. With the invariant terms
// in eight base pointers, the corners share two offsets (z and z + 1) and
// the lanes are extracted twice, not eight times (docs/performance.md,
// "Shared gather offsets").
#pragma once

#include "lower/loop_ir.h"
#include "trapeze/expr.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace trapeze::codegen {

/// Where each index of a gathering load goes.
struct GatherSplit {
  enum class Part : std::uint8_t {
    Base,   ///< the whole index: it does not change in the loop
    Offset, ///< the whole index
    Stem,   ///< the index less a constant: `stem` to the offset, `addend` to the base
  };
  std::vector<Part> part;
  std::vector<Expr> stem;           ///< per index; set for Stem
  std::vector<std::int64_t> addend; ///< per index; 0 but for a Stem
  /// Whether any index goes (in whole or in part) to the base: otherwise a
  /// base pointer would be the buffer's own.
  bool has_base() const;
};

/// The names `loop` binds, its own variable and those its body binds (loop
/// variables, lets): what changes from one iteration to the next.
std::set<std::string> names_bound_in(const lower::For& loop);

/// The loads in `body` with an index that reads memory, each node once, in
/// the order they are first met.
std::vector<const ir::Access*> gathering_loads(const lower::Stmt& body);

/// The buffers `body` stores into (Store::buffer): a load from one of them
/// keeps its own address, since the stores may change what it reads.
std::set<std::string> stored_buffers(const lower::Stmt& body);

/// The split of `load`'s indices for a loop in which the names `varying`
/// change: an index that reads no memory and names none of them goes to the
/// base; one that adds a small integer constant (at most 2^16) to what
/// varies is a stem and an addend (the stem may read memory: a look-up's
/// next entry); anything else is offset.
GatherSplit split_gather_address(const ir::Access& load, const std::set<std::string>& varying);

} // namespace trapeze::codegen
