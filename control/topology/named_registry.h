// A list of named entries that register themselves from their own source
// file (a static NamedRegistrar there; the control library is linked whole),
// so that a new router model, allocator or codec choice is a new file and
// not an edit of the lists that name them. Read after static
// initialisation only (the spec's field table is built on first use).
#pragma once
#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fabemu {

// Info has a `std::string name` and a `bool baseline` (listed first: the
// entry every caller may fall back to).
template <class Info>
class NamedRegistry {
 public:
  static NamedRegistry& get() {
    static NamedRegistry r;
    return r;
  }
  void add(Info info) {
    entries_.push_back(std::move(info));
    // Registration order is link order: keep a fixed one, baseline first,
    // then by name, so that lists in messages and help do not move.
    std::stable_sort(entries_.begin(), entries_.end(), [](const Info& a, const Info& b) {
      return a.baseline != b.baseline ? a.baseline : a.name < b.name;
    });
  }
  const Info* find(std::string_view name) const {
    for (const Info& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  const Info& baseline() const { return entries_.front(); }
  const std::vector<Info>& all() const { return entries_; }
  std::vector<std::string> names() const {
    std::vector<std::string> v;
    for (const Info& e : entries_) v.push_back(e.name);
    return v;
  }

 private:
  std::vector<Info> entries_;
};

template <class Info>
struct NamedRegistrar {
  explicit NamedRegistrar(Info info) { NamedRegistry<Info>::get().add(std::move(info)); }
};

#define FABEMU_NAMED_CONCAT2(a, b) a##b
#define FABEMU_NAMED_CONCAT(a, b) FABEMU_NAMED_CONCAT2(a, b)
// At namespace scope: FABEMU_REGISTER_NAMED(RouterModelInfo) { i.name = ...; }
// where the body fills `i`, the entry registered.
#define FABEMU_REGISTER_NAMED(Info)                                                       \
  static void FABEMU_NAMED_CONCAT(fabemu_fill_, __LINE__)(Info & i);                      \
  static ::fabemu::NamedRegistrar<Info> FABEMU_NAMED_CONCAT(fabemu_named_, __LINE__){[] { \
    Info i;                                                                               \
    FABEMU_NAMED_CONCAT(fabemu_fill_, __LINE__)(i);                                       \
    return i;                                                                             \
  }()};                                                                                   \
  static void FABEMU_NAMED_CONCAT(fabemu_fill_, __LINE__)(Info & i)

}  // namespace fabemu
